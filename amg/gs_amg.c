/* gs_amg.c: the smoothed-aggregation hierarchy (setup level by level) and its cycle, written
 * once over the backend tables (gs_backend.h, gs_amg_impl.h) so it runs where A lives. */
#include "gs_amg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gs_amg_impl.h"
#include "gs_backend.h"
#include "gs_results.h"
#include "gs_time.h"

#define LANCZOS_STEPS 12
#define DENSE_MAX 4096 /* the coarsest level is inverted densely up to this many rows */
#define CHEB_COARSE_LEVEL 2 /* the first level of coarse_chebyshev_degree */

typedef struct amg_level {
    const gs_csr *A; /* level 0: the caller's; else Aown */
    gs_csr *Aown, *P, *R;
    gs_spmat *MA, *MP, *MR;
    double *dinv;    /* the smoother's diagonal (l1 row sums for l1-Jacobi), at loc */
    gs_vec *x, *b;   /* levels >= 1 (level 0 uses the caller's vectors) */
    gs_vec *r, *y, *d;
    int32_t *agg;    /* aggregate of every node (host or device: agg_loc) */
    gs_loc agg_loc;
    int32_t nodes;
    double rho, lo, hi, omega;
    int degree;      /* Chebyshev: the polynomial's degree on this level */
} amg_level;

struct gs_amg {
    gs_amg_params p;
    gs_loc loc;
    const gs_backend_ops *be;
    const gs_amg_ops *ops;
    int nlev;
    amg_level lev[GS_AMG_MAX_LEVELS];
    gs_csr *cinv;    /* dense inverse of the coarsest matrix, as CSR at loc (NULL: smoothing) */
    gs_spmat *Mc;
    gs_amg_report rep;
    double trace_t; /* the last trace point */
    /* the cycle as a graph (device): recorded for one pair of vectors, replayed while the
     * caller passes the same pair (CG does); off after a failed capture or too many pairs */
    void *graph;
    const double *graph_r, *graph_z;
    int graph_captures, graph_off;
};

/* Levels 0 and 1 hold most of the cycle's bytes (3D Poisson 7-point: 100% and 43% of level 0's
 * nonzeros), the levels below about 1% each, where a kernel costs its launch: a higher degree
 * there is cheap, and it makes up for the weak coarse correction of their large aggregates
 * (MIS(2) on a level-1 stencil of ~33 points: 70 rows per aggregate, then ~130 into the
 * coarsest level). A degree-d polynomial damps [hi / d^2, hi] to about 1/4 (1 / T_d(1 + 2 /
 * (d^2 - 1)) = 0.25 for d = 3 and 0.26 for d = 10), so the interval widens with the degree. */
int gs_amg_level_degree(const gs_amg_params *p, int l)
{
    return l >= CHEB_COARSE_LEVEL && p->coarse_chebyshev_degree > 0 ? p->coarse_chebyshev_degree
                                                                    : p->chebyshev_degree;
}

double gs_amg_level_ratio(const gs_amg_params *p, int degree)
{
    double d2 = (double)degree * degree;
    return p->chebyshev_ratio > d2 ? p->chebyshev_ratio : d2;
}

void gs_amg_params_default(gs_amg_params *p)
{
    memset(p, 0, sizeof *p);
    p->theta = 0.0;
    p->aggregation = GS_AGG_MIS2;
    p->max_levels = 10;
    p->coarse_size = 200;
    p->galerkin = GS_SPGEMM_AUTO;
    p->smoother = GS_SMOOTH_CHEBYSHEV;
    p->chebyshev_degree = 3;
    p->coarse_chebyshev_degree = 10;
    p->chebyshev_ratio = 30.0;
    p->presweeps = 1;
    p->postsweeps = 1;
    p->block_size = 1;
    p->smooth_prolongator = 1;
    p->prolongator_omega = 4.0 / 3.0;
}

static const gs_amg_ops *amg_ops(gs_loc loc)
{
#ifdef GS_HAVE_CUDA
    if (loc == GS_LOC_DEVICE) return &gs_amg_cuda_ops;
#endif
    return loc == GS_LOC_HOST ? &gs_amg_host_ops : NULL;
}

static gs_status sync_now(const gs_amg *amg, double *t)
{
    gs_status st = amg->be->sync();
    *t = gs_time_now();
    return st;
}

/* params.trace: one line per setup step on stderr (synchronizes after each step); what NULL
 * only starts the clock */
static void trace(gs_amg *amg, int l, const char *what)
{
    double t;
    if (!amg->p.trace) return;
    (void)sync_now(amg, &t);
    if (what)
        fprintf(stderr, "amg setup: level %d %-22s %8.3f ms\n", l, what, 1e3 * (t - amg->trace_t));
    amg->trace_t = t;
}

/* ---- spectral radius of D^-1 A by Lanczos on D^-1/2 A D^-1/2 ------------------------------ */

/* the largest eigenvalue of the symmetric tridiagonal (a, b) of order m, by bisection on the
 * Sturm count */
static double tridiag_max(const double *a, const double *b, int m)
{
    double lo = a[0], hi = a[0];
    for (int i = 0; i < m; i++) {
        double r = (i > 0 ? fabs(b[i - 1]) : 0.0) + (i + 1 < m ? fabs(b[i]) : 0.0);
        if (a[i] - r < lo) lo = a[i] - r;
        if (a[i] + r > hi) hi = a[i] + r;
    }
    for (int it = 0; it < 100; it++) {
        double x = 0.5 * (lo + hi), q = 1.0;
        int below = 0; /* eigenvalues below x */
        for (int i = 0; i < m; i++) {
            q = a[i] - x - (i > 0 ? b[i - 1] * b[i - 1] / q : 0.0);
            if (q == 0.0) q = -1e-300;
            if (q < 0) below++;
        }
        if (below == m)
            hi = x;
        else
            lo = x;
    }
    return hi;
}

/* Lanczos on D^-1/2 A D^-1/2 from a hashed random start: per step one scaled SpMV, one
 * two-dot reduction (the only synchronization) and one three-term update. With M (A in its
 * SpMV format, the finest level's: a CDS stencil runs at twice the CSR speed) the scaled SpMV
 * is M's SpMV of t = s .* v, which the update also writes, and one product by s. */
static gs_status estimate_rho(gs_amg *amg, const gs_csr *A, const gs_spmat *M,
                              const double *sqrt_dinv, double *rho)
{
    gs_status st = GS_OK;
    int32_t n = A->rows;
    gs_vec *v = NULL, *w = NULL, *vp = NULL, *t = NULL;
    const gs_vec s = {n, (double *)sqrt_dinv, amg->loc};
    double al[LANCZOS_STEPS] = {0}, be[LANCZOS_STEPS] = {0}, beta = 0.0, nrm;
    int m = 0;
    GS_CHECK(gs_vec_create(n, amg->loc, &v));
    GS_CHECK(gs_vec_create(n, amg->loc, &w));
    GS_CHECK(gs_vec_create(n, amg->loc, &vp));
    GS_CHECK(gs_vec_fill(0.0, vp));
    GS_CHECK(amg->ops->fill_random(n, 12345u, v->data));
    GS_CHECK(gs_vec_nrm2(v, &nrm));
    if (nrm == 0.0) {
        *rho = 0.0;
        goto done;
    }
    GS_CHECK(gs_vec_scal(1.0 / nrm, v));
    if (M) {
        GS_CHECK(gs_vec_create(n, amg->loc, &t));
        GS_CHECK(gs_vec_pmul(&s, v, t));
    }
    for (int j = 0; j < LANCZOS_STEPS && j < n; j++) {
        if (M) {
            GS_CHECK(gs_spmat_spmv(M, t, w));
            GS_CHECK(gs_vec_pmul(&s, w, w));
        } else {
            GS_CHECK(amg->ops->scaled_spmv(A, sqrt_dinv, v->data, w->data));
        }
        const gs_vec *xs[2] = {w, w}, *ys[2] = {v, w};
        double dd[2];
        GS_CHECK(gs_vec_dots(2, xs, ys, dd)); /* alpha = w.v, ||w||^2 in one reduction */
        double alpha = dd[0];
        /* ||w - alpha v - beta vp||^2 = ||w||^2 - alpha^2 - beta^2 for orthonormal v, vp */
        double b2 = dd[1] - alpha * alpha - beta * beta;
        al[m] = alpha;
        m++;
        if (!(b2 > 1e-12 * dd[1])) break; /* an invariant subspace (or rounding): T is exact */
        double bn = sqrt(b2);
        /* the next basis vector into vp, then v and vp swap roles */
        GS_CHECK(amg->ops->lanczos_update(n, w->data, v->data, alpha, beta, 1.0 / bn, vp->data,
                                          sqrt_dinv, t ? t->data : NULL));
        gs_vec *tmp = vp;
        vp = v;
        v = tmp;
        beta = bn;
        be[m - 1] = beta;
    }
    *rho = tridiag_max(al, be, m);
done:
    gs_vec_destroy(&v);
    gs_vec_destroy(&w);
    gs_vec_destroy(&vp);
    gs_vec_destroy(&t);
    return st;
}

/* ---- setup -------------------------------------------------------------------------------- */

/* a host array's copy at loc, or the other way round (n doubles or ints) */
static gs_status move_array(const gs_amg *amg, const void *src, gs_loc from, gs_loc to,
                            size_t bytes, void **out)
{
    gs_status st = GS_OK;
    void *dst = NULL;
    const gs_backend_ops *be = gs_backend_get(to);
    GS_CHECK(be->alloc(bytes ? bytes : 8, "AMG array", &dst));
    if (from == to) {
        if (to == GS_LOC_HOST) {
            memcpy(dst, src, bytes);
        } else {
            gs_vec a = {(int64_t)(bytes / 8), (double *)src, from};
            gs_vec b = {(int64_t)(bytes / 8), (double *)dst, to};
            GS_CHECK(gs_vec_copy(&a, &b)); /* callers pass multiples of 8 bytes */
        }
    } else if (to == GS_LOC_HOST) {
        gs_vec a = {(int64_t)(bytes / 8), (double *)src, from};
        GS_CHECK(gs_vec_get_host(&a, dst));
    } else {
        gs_vec b = {(int64_t)(bytes / 8), (double *)dst, to};
        GS_CHECK(gs_vec_set_host(&b, src));
    }
    *out = dst;
    dst = NULL;
done:
    if (dst) be->free(dst);
    (void)amg;
    return st;
}

static gs_status make_op(gs_amg *amg, const gs_csr *M, int l, gs_amg_op_kind kind,
                         gs_spmat **out, char *fmt, size_t fmt_len, char *reason,
                         size_t reason_len)
{
    gs_status st = GS_OK;
    char why[160] = "";
    if (amg->p.make_op) {
        GS_CHECK(amg->p.make_op(amg->p.make_op_ctx, M, l, kind, out, why, sizeof why));
    } else {
        GS_CHECK(gs_spmat_create(M, GS_FORMAT_CSR, NULL, out));
        gs_str_copy(why, sizeof why, "gsolve's CSR kernel (no selector given)");
    }
    gs_str_copy(fmt, fmt_len, gs_format_name((*out)->format));
    if (reason) gs_str_copy(reason, reason_len, why);
done:
    return st;
}

/* Aggregates and the tentative prolongator of level l, on the device when its scalar kernels
 * apply, else on a host copy. B (k vectors, at *B_loc) is replaced by the coarse one. */
static gs_status coarsen(gs_amg *amg, int l, int b, double **B, gs_loc *B_loc, int *k,
                         gs_csr **T, int32_t *nagg_out, int *one_per_row, double *ph)
{
    gs_status st = GS_OK;
    amg_level *L = &amg->lev[l];
    const gs_csr *A = L->A;
    gs_csr *S = NULL, *hA = NULL, *hT = NULL;
    double *Bc = NULL, *hB = NULL;
    int32_t nagg = 0;
    double t0, t1, t2;
    /* the data-parallel path: MIS(2), nodes of at most 8 unknowns, and the default
     * near-nullspace (one vector per unknown, kept as node weights) or one given vector */
    int fast = amg->p.aggregation == GS_AGG_MIS2 && b <= 8 &&
               (amg->p.nullspace ? *k == 1 && b == 1 : *k == b);
    *one_per_row = fast;
    const gs_amg_ops *ops = fast ? amg->ops : &gs_amg_host_ops;
    gs_loc where = fast ? amg->loc : GS_LOC_HOST;
    GS_CHECK(sync_now(amg, &t0));
    if (where != A->loc) GS_CHECK(gs_csr_download(A, &hA));
    const gs_csr *Aw = hA ? hA : A;
    L->nodes = A->rows / b;
    if (fast)
        GS_CHECK(ops->strength(Aw, amg->p.theta, b, &S));
    else
        GS_CHECK(gs_amg_strength_block(Aw, b, amg->p.theta, &S));
    trace(amg, l, "strength");
    GS_CHECK(sync_now(amg, &t1));
    GS_CHECK(gs_backend_get(where)->alloc(((size_t)L->nodes + 1) * sizeof(int32_t),
                                          "aggregates", (void **)&L->agg));
    L->agg_loc = where;
    if (amg->p.aggregation == GS_AGG_STANDARD)
        GS_CHECK(gs_amg_standard_aggregate(S, L->agg, &nagg));
    else
        GS_CHECK(ops->mis2_aggregate(S, L->agg, &nagg));
    trace(amg, l, "aggregation");
    GS_CHECK(sync_now(amg, &t2));
    ph[GS_PHASE_STRENGTH] += t1 - t0;
    ph[GS_PHASE_AGGREGATE] += t2 - t1;
    *nagg_out = nagg;
    if (nagg == 0) goto done; /* nothing to coarsen: this level is the coarsest */
    if (fast) {
        const double *Bl = *B;
        if (*B && *B_loc != where) {
            GS_CHECK(move_array(amg, *B, *B_loc, where, (size_t)L->nodes * sizeof(double),
                                (void **)&hB));
            Bl = hB;
        }
        GS_CHECK(gs_backend_get(where)->alloc((size_t)nagg * sizeof(double), "coarse nullspace",
                                              (void **)&Bc));
        GS_CHECK(ops->tentative(L->nodes, b, L->agg, nagg, Bl, T, Bc));
        if (*B) gs_backend_get(*B_loc)->free(*B);
        *B = Bc;
        *B_loc = where;
        Bc = NULL;
    } else {
        const double *Bl = *B;
        double *own = NULL;
        if (!*B) {
            GS_CHECK(gs_amg_block_nullspace(L->nodes, b, NULL, &own));
            Bl = own;
        } else if (*B_loc != GS_LOC_HOST) {
            GS_CHECK(move_array(amg, *B, *B_loc, GS_LOC_HOST,
                                (size_t)A->rows * (size_t)*k * sizeof(double), (void **)&hB));
            Bl = hB;
        }
        st = gs_alloc_array((size_t)nagg * (size_t)*k * (size_t)*k, sizeof(double),
                            "coarse nullspace", (void **)&Bc);
        if (st == GS_OK) st = gs_amg_tentative_qr(L->nodes, b, L->agg, nagg, Bl, *k, &hT, Bc);
        gs_free(own);
        GS_CHECK(st);
        if (amg->loc != GS_LOC_HOST)
            GS_CHECK(gs_csr_upload(hT, amg->loc, T));
        else {
            *T = hT;
            hT = NULL;
        }
        if (*B) gs_backend_get(*B_loc)->free(*B);
        *B = Bc;
        *B_loc = GS_LOC_HOST;
        Bc = NULL;
        /* the coarse level's nodes hold k unknowns: *k stays, its block size becomes k */
    }
done:
    if (hB) gs_backend_get(fast ? amg->loc : GS_LOC_HOST)->free(hB);
    if (Bc) gs_backend_get(where)->free(Bc);
    gs_csr_destroy(&S);
    gs_csr_destroy(&hA);
    gs_csr_destroy(&hT);
    return st;
}

/* D^-1 (checked), rho(D^-1 A), and the smoother's diagonal and bounds of level l */
static gs_status level_diag(gs_amg *amg, int l, const char *where, double **dinv_out)
{
    gs_status st = GS_OK;
    amg_level *L = &amg->lev[l];
    const gs_csr *A = L->A;
    double *dinv = NULL, *sq = NULL;
    int64_t bad = 0, first = -1;
    GS_CHECK(amg->be->alloc(((size_t)A->rows + 1) * sizeof(double), "AMG diagonal",
                            (void **)&dinv));
    GS_CHECK(amg->be->alloc(((size_t)A->rows + 1) * sizeof(double), "AMG diagonal",
                            (void **)&sq));
    trace(amg, l, NULL);
    GS_CHECK(amg->ops->diag_inv(A, 0, dinv, sq, &bad, &first));
    trace(amg, l, "diagonal");
    if (bad > 0 && l == 0)
        GS_FAIL(GS_ERR_INPUT, "%s: row %lld has a zero, missing or non-finite diagonal entry "
                "(%lld rows in all); smoothed-aggregation AMG needs a nonzero diagonal",
                where, (long long)first + 1, (long long)bad);
    GS_CHECK(estimate_rho(amg, A, L->MA, sq, &L->rho));
    trace(amg, l, "rho (Lanczos)");
    L->degree = gs_amg_level_degree(&amg->p, l);
    L->hi = 1.1 * L->rho;
    L->lo = L->hi / gs_amg_level_ratio(&amg->p, L->degree);
    L->omega = amg->p.smoother_omega > 0 ? amg->p.smoother_omega
               : L->rho > 0               ? (4.0 / 3.0) / L->rho
                                          : 0.0;
    if (amg->p.smoother == GS_SMOOTH_L1JACOBI) {
        GS_CHECK(amg->be->alloc(((size_t)A->rows + 1) * sizeof(double), "AMG l1 diagonal",
                                (void **)&L->dinv));
        GS_CHECK(amg->ops->diag_inv(A, 1, L->dinv, NULL, &bad, &first));
    }
    *dinv_out = dinv;
    dinv = NULL;
done:
    if (dinv) amg->be->free(dinv);
    if (sq) amg->be->free(sq);
    return st;
}

static gs_status setup_coarsest(gs_amg *amg, double *ph)
{
    gs_status st = GS_OK;
    amg_level *L = &amg->lev[amg->nlev - 1];
    gs_csr *hA = NULL, *D = NULL;
    double t0, t1;
    int rank = 0;
    GS_CHECK(sync_now(amg, &t0));
    int32_t n = L->A->rows;
    if (n > DENSE_MAX) { /* too large to invert: smoothing sweeps instead */
        snprintf(amg->rep.coarse_desc, sizeof amg->rep.coarse_desc,
                 "%d rows: 8 smoothing sweeps (more than %d rows for a dense solve)", n, DENSE_MAX);
        goto done;
    }
    GS_CHECK(gs_csr_download(L->A, &hA));
    GS_CHECK(gs_csr_create(n, n, (int64_t)n * n, &D));
    GS_CHECK(gs_amg_dense_inverse(hA, D->val, &rank));
    for (int32_t i = 0; i <= n; i++) D->rowptr[i] = i * n;
    for (int64_t q = 0; q < (int64_t)n * n; q++) D->colind[q] = (int32_t)(q % (n ? n : 1));
    if (amg->loc != GS_LOC_HOST) {
        GS_CHECK(gs_csr_upload(D, amg->loc, &amg->cinv));
    } else {
        amg->cinv = D;
        D = NULL;
    }
    GS_CHECK(gs_spmat_create(amg->cinv, GS_FORMAT_CSR, NULL, &amg->Mc));
    if (rank < n)
        snprintf(amg->rep.coarse_desc, sizeof amg->rep.coarse_desc,
                 "dense LU inverse, %d x %d, rank %d (singular: its null space left out)", n, n,
                 rank);
    else
        snprintf(amg->rep.coarse_desc, sizeof amg->rep.coarse_desc, "dense LU inverse, %d x %d",
                 n, n);
done:
    sync_now(amg, &t1);
    ph[GS_PHASE_COARSE] += t1 - t0;
    gs_csr_destroy(&hA);
    gs_csr_destroy(&D);
    return st;
}

gs_status gs_amg_setup(const gs_csr *A, const gs_amg_params *p, const char *where, gs_amg **out)
{
    gs_status st = GS_OK;
    gs_amg *amg = NULL;
    double *B = NULL, *dinv = NULL, t_start, t0, t1, *ph;
    gs_loc B_loc = GS_LOC_HOST;
    gs_csr *T = NULL, *AP = NULL;
    gs_spgemm_method m;
    if (!where) where = "matrix";
    if (!A || !p || !out) return GS_ERROR(GS_ERR_ARG, "amg: missing matrix, parameters or output");
    *out = NULL;
    if (A->rows != A->cols)
        return GS_ERROR(GS_ERR_INPUT, "%s: AMG needs a square matrix, not %d x %d", where, A->rows,
                        A->cols);
    int b = p->block_size > 0 ? p->block_size : 1, k = p->nullspace ? p->nullspace_k : b;
    if (A->rows % b != 0)
        return GS_ERROR(GS_ERR_CONFIG, "%s: %d rows are not a multiple of amg.block_size = %d",
                        where, A->rows, b);
    if (k < 1) return GS_ERROR(GS_ERR_CONFIG, "%s: the near-nullspace has no vectors", where);
    if (!(p->chebyshev_ratio >= 1.0))
        return GS_ERROR(GS_ERR_CONFIG, "amg.chebyshev_ratio = %g: expected a ratio of at least 1",
                        p->chebyshev_ratio);
    GS_CHECK(gs_alloc_array(1, sizeof *amg, "AMG hierarchy", (void **)&amg));
    memset(amg, 0, sizeof *amg);
    amg->p = *p;
    amg->loc = A->loc;
    amg->be = gs_backend_get(A->loc);
    amg->ops = amg_ops(A->loc);
    if (!amg->be || !amg->ops) GS_FAIL(GS_ERR_ARG, "amg: no backend for the matrix's location");
    m = p->galerkin;
    if (m == GS_SPGEMM_AUTO) m = A->loc == GS_LOC_HOST ? GS_SPGEMM_HOST : GS_SPGEMM_DCSR;
    if (A->loc == GS_LOC_HOST && m != GS_SPGEMM_HOST)
        GS_FAIL(GS_ERR_CONFIG, "amg.galerkin = \"%s\" needs the GPU backend, and this run is on "
                "the host", gs_spgemm_method_name(m));
    if (A->loc != GS_LOC_HOST && m == GS_SPGEMM_HOST)
        GS_FAIL(GS_ERR_CONFIG, "amg.galerkin = \"host\" is for host runs; on the GPU use dcsr or "
                "cusparse");
    ph = amg->rep.phase_s;
    GS_CHECK(sync_now(amg, &t_start));
    if (p->nullspace) {
        B_loc = GS_LOC_HOST;
        GS_CHECK(gs_alloc_array((size_t)A->rows * k, sizeof *B, "near-nullspace", (void **)&B));
        memcpy(B, p->nullspace, (size_t)A->rows * k * sizeof *B);
    }
    amg->lev[0].A = A;
    amg->nlev = 1;
    { /* the finest operator's format first: the Lanczos steps below run in it */
        gs_amg_level_report *R0 = &amg->rep.level[0];
        GS_CHECK(sync_now(amg, &t0));
        trace(amg, 0, NULL);
        GS_CHECK(make_op(amg, A, 0, GS_AMG_OP_A, &amg->lev[0].MA, R0->format, sizeof R0->format,
                         R0->reason, sizeof R0->reason));
        trace(amg, 0, "format of A");
        GS_CHECK(sync_now(amg, &t1));
        ph[GS_PHASE_CONVERT] += t1 - t0;
    }
    int max_levels = p->max_levels < GS_AMG_MAX_LEVELS ? p->max_levels : GS_AMG_MAX_LEVELS;
    for (int l = 0;; l++) {
        amg_level *L = &amg->lev[l];
        int32_t n = L->A->rows, nagg = 0;
        int last = l + 1 >= max_levels || n <= p->coarse_size;
        /* a coarsest level below the finest that the dense inverse solves needs no diagonal and
         * no rho (the finest is always checked: its diagonal is the user's input) */
        if (last && l > 0 && n <= DENSE_MAX) break;
        GS_CHECK(sync_now(amg, &t0));
        GS_CHECK(level_diag(amg, l, where, &dinv));
        GS_CHECK(sync_now(amg, &t1));
        ph[GS_PHASE_PROLONG] += t1 - t0;
        if (last) break;
        int one_per_row = 0;
        GS_CHECK(coarsen(amg, l, b, &B, &B_loc, &k, &T, &nagg, &one_per_row, ph));
        trace(amg, l, "tentative P");
        if (nagg == 0 || (int64_t)nagg * k >= n) { /* no coarsening: stop here */
            gs_csr_destroy(&T);
            break;
        }
        GS_CHECK(sync_now(amg, &t0));
        if (p->smooth_prolongator && L->rho > 0) {
            gs_csr *Sj = NULL;
            GS_CHECK(amg->ops->jacobi_matrix(L->A, dinv, p->prolongator_omega / L->rho, &Sj));
            trace(amg, l, "I - w D^-1 A");
            if (one_per_row && m != GS_SPGEMM_CUSPARSE)
                st = amg->ops->times_tentative(Sj, T, &L->P);
            else
                st = gs_spgemm(Sj, T, m, &L->P);
            trace(amg, l, "P = (I - w D^-1 A) T");
            gs_csr_destroy(&Sj);
            GS_CHECK(st);
            gs_csr_destroy(&T);
        } else {
            L->P = T;
            T = NULL;
        }
        GS_CHECK(gs_spgemm_transpose(L->P, &L->R));
        trace(amg, l, "R = P^T");
        GS_CHECK(sync_now(amg, &t1));
        ph[GS_PHASE_PROLONG] += t1 - t0;
        GS_CHECK(gs_spgemm(L->A, L->P, m, &AP));
        trace(amg, l, "A P");
        GS_CHECK(gs_spgemm(L->R, AP, m, &amg->lev[l + 1].Aown));
        trace(amg, l, "R (A P)");
        gs_csr_destroy(&AP);
        GS_CHECK(sync_now(amg, &t0));
        ph[GS_PHASE_RAP] += t0 - t1;
        amg->lev[l + 1].A = amg->lev[l + 1].Aown;
        amg->nlev = l + 2;
        if (!L->dinv) {
            L->dinv = dinv;
            dinv = NULL;
        } else {
            amg->be->free(dinv);
            dinv = NULL;
        }
        b = k; /* a coarse node holds one unknown per nullspace vector */
    }
    {
        amg_level *C = &amg->lev[amg->nlev - 1];
        if (!C->dinv) {
            C->dinv = dinv;
            dinv = NULL;
        }
    }
    GS_CHECK(setup_coarsest(amg, ph));
    /* formats, vectors and the report */
    GS_CHECK(sync_now(amg, &t0));
    double nnz0 = (double)A->nnz, rows0 = (double)A->rows;
    amg->rep.levels = amg->nlev;
    for (int l = 0; l < amg->nlev; l++) {
        amg_level *L = &amg->lev[l];
        gs_amg_level_report *R = &amg->rep.level[l];
        int32_t n = L->A->rows;
        R->rows = n;
        R->cols = L->A->cols;
        R->nnz = L->A->nnz;
        R->rho = L->rho;
        trace(amg, l, NULL);
        GS_CHECK(amg->ops->row_stats(L->A, &R->mean, &R->std, &R->max));
        trace(amg, l, "row statistics");
        /* an empty matrix has complexities 1 (no division by its zero size) */
        amg->rep.operator_complexity += nnz0 > 0 ? (double)L->A->nnz / nnz0 : 1.0;
        amg->rep.grid_complexity += rows0 > 0 ? (double)n / rows0 : 1.0;
        if (!L->MA) {
            GS_CHECK(make_op(amg, L->A, l, GS_AMG_OP_A, &L->MA, R->format, sizeof R->format,
                             R->reason, sizeof R->reason));
            trace(amg, l, "format of A");
        }
        if (L->P) {
            GS_CHECK(make_op(amg, L->P, l, GS_AMG_OP_P, &L->MP, R->format_p, sizeof R->format_p,
                             NULL, 0));
            trace(amg, l, "format of P");
            GS_CHECK(make_op(amg, L->R, l, GS_AMG_OP_R, &L->MR, R->format_r, sizeof R->format_r,
                             NULL, 0));
            trace(amg, l, "format of R");
        }
        if (l > 0) {
            GS_CHECK(gs_vec_create(n, amg->loc, &L->x));
            GS_CHECK(gs_vec_create(n, amg->loc, &L->b));
        }
        GS_CHECK(gs_vec_create(n, amg->loc, &L->r));
        GS_CHECK(gs_vec_create(n, amg->loc, &L->y));
        GS_CHECK(gs_vec_create(n, amg->loc, &L->d));
        trace(amg, l, "cycle vectors");
    }
    GS_CHECK(sync_now(amg, &t1));
    ph[GS_PHASE_CONVERT] += t1 - t0;
    amg->rep.setup_s = t1 - t_start;
    snprintf(amg->rep.desc, sizeof amg->rep.desc,
             "%s cycle, %s, %d+%d sweeps, %s aggregation, theta %g, galerkin %s, block %d",
             p->cycle_w ? "W" : "V",
             p->smoother == GS_SMOOTH_CHEBYSHEV  ? "Chebyshev"
             : p->smoother == GS_SMOOTH_L1JACOBI ? "l1-Jacobi"
                                                 : "weighted Jacobi",
             p->presweeps, p->postsweeps, p->aggregation == GS_AGG_MIS2 ? "mis2" : "standard",
             p->theta, gs_spgemm_method_name(m), p->block_size > 0 ? p->block_size : 1);
    if (p->smoother == GS_SMOOTH_CHEBYSHEV) {
        size_t len = strlen(amg->rep.desc);
        int d0 = gs_amg_level_degree(p, 0), dc = gs_amg_level_degree(p, CHEB_COARSE_LEVEL);
        len += (size_t)snprintf(amg->rep.desc + len, sizeof amg->rep.desc - len,
                                ", Chebyshev degree %d on [hi/%g, hi]", d0,
                                gs_amg_level_ratio(p, d0));
        if (dc != d0 && amg->nlev > CHEB_COARSE_LEVEL + 1 && len < sizeof amg->rep.desc)
            snprintf(amg->rep.desc + len, sizeof amg->rep.desc - len,
                     ", levels >= %d: %d on [hi/%g, hi]", CHEB_COARSE_LEVEL, dc,
                     gs_amg_level_ratio(p, dc));
    }
    if (dinv) {
        amg->be->free(dinv);
        dinv = NULL;
    }
    *out = amg;
    amg = NULL;
done:
    if (B) gs_backend_get(B_loc)->free(B);
    if (dinv && amg) amg->be->free(dinv);
    gs_csr_destroy(&T);
    gs_csr_destroy(&AP);
    gs_amg_destroy(&amg);
    return st;
}

void gs_amg_destroy(gs_amg **pa)
{
    if (!pa || !*pa) return;
    gs_amg *amg = *pa;
    for (int l = 0; l < GS_AMG_MAX_LEVELS; l++) {
        amg_level *L = &amg->lev[l];
        gs_spmat_destroy(&L->MA);
        gs_spmat_destroy(&L->MP);
        gs_spmat_destroy(&L->MR);
        gs_csr_destroy(&L->Aown);
        gs_csr_destroy(&L->P);
        gs_csr_destroy(&L->R);
        if (L->dinv) amg->be->free(L->dinv);
        if (L->agg) gs_backend_get(L->agg_loc)->free(L->agg);
        gs_vec_destroy(&L->x);
        gs_vec_destroy(&L->b);
        gs_vec_destroy(&L->r);
        gs_vec_destroy(&L->y);
        gs_vec_destroy(&L->d);
    }
    gs_spmat_destroy(&amg->Mc);
    gs_csr_destroy(&amg->cinv);
    if (amg->graph) amg->ops->graph_destroy(amg->graph);
    gs_free(amg);
    *pa = NULL;
}

const gs_amg_report *gs_amg_get_report(const gs_amg *amg) { return &amg->rep; }

const gs_spmat *gs_amg_level_op(const gs_amg *amg, int l)
{
    return l >= 0 && l < amg->nlev ? amg->lev[l].MA : NULL;
}

gs_status gs_amg_level_download(const gs_amg *amg, int l, gs_csr **A, gs_csr **P, gs_csr **R,
                                int32_t **agg, int32_t *nnodes)
{
    gs_status st = GS_OK;
    if (l < 0 || l >= amg->nlev) return GS_ERROR(GS_ERR_ARG, "amg: no level %d", l);
    const amg_level *L = &amg->lev[l];
    if (A) GS_CHECK(gs_csr_download(L->A, A));
    if (P) {
        *P = NULL;
        if (L->P) GS_CHECK(gs_csr_download(L->P, P));
    }
    if (R) {
        *R = NULL;
        if (L->R) GS_CHECK(gs_csr_download(L->R, R));
    }
    if (agg) {
        *agg = NULL;
        if (L->agg) {
            GS_CHECK(gs_alloc_array((size_t)L->nodes + 2, sizeof(int32_t), "aggregates",
                                    (void **)agg));
            if (L->agg_loc == GS_LOC_HOST) {
                memcpy(*agg, L->agg, (size_t)L->nodes * sizeof(int32_t));
            } else { /* through a vector of doubles: 8-byte units */
                double *tmp = NULL;
                size_t words = ((size_t)L->nodes + 1) / 2;
                GS_CHECK(gs_alloc_array(words + 1, sizeof *tmp, "aggregates", (void **)&tmp));
                gs_vec v = {(int64_t)words, (double *)L->agg, L->agg_loc};
                st = gs_vec_get_host(&v, tmp);
                if (st == GS_OK) memcpy(*agg, tmp, (size_t)L->nodes * sizeof(int32_t));
                gs_free(tmp);
                GS_CHECK(st);
            }
        }
    }
    if (nnodes) *nnodes = L->nodes;
done:
    return st;
}

/* ---- cycle -------------------------------------------------------------------------------- */

/* sweeps of the smoother on level l for A x = b; x_zero: x is zero on entry (not read) */
static gs_status smooth(gs_amg *amg, int l, const gs_vec *b, gs_vec *x, int x_zero, int sweeps)
{
    gs_status st = GS_OK;
    amg_level *L = &amg->lev[l];
    int64_t n = b->n;
    for (int s = 0; s < sweeps; s++, x_zero = 0) {
        if (amg->p.smoother == GS_SMOOTH_CHEBYSHEV) {
            double theta = 0.5 * (L->hi + L->lo), delta = 0.5 * (L->hi - L->lo);
            double sigma = theta / delta, rho = 1.0 / sigma;
            for (int k = 0; k < L->degree; k++) {
                int xz = x_zero && k == 0;
                if (!xz) GS_CHECK(gs_spmat_spmv(L->MA, x, L->y));
                if (k == 0) {
                    GS_CHECK(amg->ops->smooth_step(n, L->dinv, b->data, xz ? NULL : L->y->data,
                                                   0.0, 1.0 / theta, L->d->data, x->data, xz));
                } else {
                    double rn = 1.0 / (2.0 * sigma - rho);
                    GS_CHECK(amg->ops->smooth_step(n, L->dinv, b->data, L->y->data, rn * rho,
                                                   2.0 * rn / delta, L->d->data, x->data, 0));
                    rho = rn;
                }
            }
        } else {
            double w = amg->p.smoother == GS_SMOOTH_L1JACOBI ? 1.0 : L->omega;
            if (!x_zero) GS_CHECK(gs_spmat_spmv(L->MA, x, L->y));
            GS_CHECK(amg->ops->smooth_step(n, L->dinv, b->data, x_zero ? NULL : L->y->data, 0.0,
                                           w, L->d->data, x->data, x_zero));
        }
    }
done:
    return st;
}

static gs_status cycle(gs_amg *amg, int l, const gs_vec *b, gs_vec *x, int x_zero)
{
    gs_status st = GS_OK;
    amg_level *L = &amg->lev[l];
    if (l == amg->nlev - 1) {
        if (amg->Mc) return gs_spmat_spmv(amg->Mc, b, x);
        return smooth(amg, l, b, x, x_zero, 8);
    }
    amg_level *C = &amg->lev[l + 1];
    int pre = amg->p.presweeps;
    GS_CHECK(smooth(amg, l, b, x, x_zero, pre));
    if (pre == 0 && x_zero) {
        GS_CHECK(gs_spmat_spmv(L->MR, b, C->b));
    } else {
        GS_CHECK(gs_spmat_spmv(L->MA, x, L->r));
        GS_CHECK(gs_vec_axpby(1.0, b, -1.0, L->r));
        GS_CHECK(gs_spmat_spmv(L->MR, L->r, C->b));
    }
    GS_CHECK(cycle(amg, l + 1, C->b, C->x, 1));
    if (amg->p.cycle_w && l + 1 < amg->nlev - 1) GS_CHECK(cycle(amg, l + 1, C->b, C->x, 0));
    GS_CHECK(gs_spmat_spmv(L->MP, C->x, L->y));
    if (pre == 0 && x_zero)
        GS_CHECK(gs_vec_copy(L->y, x));
    else
        GS_CHECK(gs_vec_axpy(1.0, L->y, x));
    GS_CHECK(smooth(amg, l, b, x, 0, amg->p.postsweeps));
done:
    return st;
}

#define GRAPH_MAX_CAPTURES 3 /* vector pairs recorded before the plain cycle is kept */

gs_status gs_amg_apply(gs_amg *amg, const gs_vec *r, gs_vec *z)
{
    gs_status st = GS_OK;
    const gs_amg_ops *ops = amg->ops;
    if (!ops->graph_begin || amg->graph_off) return cycle(amg, 0, r, z, 1);
    if (amg->graph && amg->graph_r == r->data && amg->graph_z == z->data)
        return ops->graph_launch(amg->graph);
    /* a new pair: record the cycle's kernels once (nothing runs while recording) */
    ops->graph_destroy(amg->graph);
    amg->graph = NULL;
    if (++amg->graph_captures > GRAPH_MAX_CAPTURES) {
        amg->graph_off = 1;
        return cycle(amg, 0, r, z, 1);
    }
    st = ops->graph_begin();
    if (st == GS_OK) {
        gs_status sc = cycle(amg, 0, r, z, 1);
        st = ops->graph_end(&amg->graph);
        if (sc != GS_OK) st = sc;
    }
    if (st != GS_OK) { /* a step that cannot be recorded: the plain cycle from now on */
        gs_error_clear();
        ops->graph_destroy(amg->graph);
        amg->graph = NULL;
        amg->graph_off = 1;
        return cycle(amg, 0, r, z, 1);
    }
    amg->graph_r = r->data;
    amg->graph_z = z->data;
    return ops->graph_launch(amg->graph);
}

static gs_status linop_apply(void *ctx, const gs_vec *x, gs_vec *y)
{
    return gs_amg_apply(ctx, x, y);
}

gs_linop gs_amg_linop(gs_amg *amg)
{
    gs_linop op = {amg->lev[0].A->rows, amg, linop_apply, NULL};
    return op;
}

void gs_amg_report_print(const gs_amg_report *r, FILE *out)
{
    fprintf(out, "amg       %d levels  operator complexity %.3f  grid complexity %.3f\n",
            r->levels, r->operator_complexity, r->grid_complexity);
    fprintf(out, "          %s\n", r->desc);
    fprintf(out, "          level       rows        nnz  per row: mean    std   max  rho(D^-1A)  "
            "format A / P / R      why\n");
    for (int l = 0; l < r->levels; l++) {
        const gs_amg_level_report *L = &r->level[l];
        char f[64];
        if (l + 1 < r->levels)
            snprintf(f, sizeof f, "%s / %s / %s", L->format, L->format_p, L->format_r);
        else
            snprintf(f, sizeof f, "%s", L->format);
        fprintf(out, "          %5d %10d %10lld %15.2f %6.2f %5d  %10.4f  %-21s %s\n", l, L->rows,
                (long long)L->nnz, L->mean, L->std, L->max, L->rho, f, L->reason);
    }
    fprintf(out, "          coarse solve: %s\n", r->coarse_desc);
    fprintf(out, "          setup %.2f ms:", 1e3 * r->setup_s);
    for (int i = 0; i < GS_PHASES; i++)
        fprintf(out, " %s %.2f", gs_phase_names[i], 1e3 * r->phase_s[i]);
    fprintf(out, " ms\n");
}

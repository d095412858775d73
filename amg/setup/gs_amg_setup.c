/* gs_amg_setup.c: the smoothed-aggregation setup pipeline, level by level (diagonal and rho,
 * coarsening, prolongator smoothing, R = P^T, the Galerkin product, formats), written once over
 * the backend tables (gs_backend.h, gs_amg_ops.h) so it runs where A lives. */
#include "gs_amg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gs_amg_internal.h"
#include "gs_buf.h"
#include "gs_knob.h"
#include "gs_log.h"
#include "gs_time.h"

void gs_amg_params_default(gs_amg_params *p)
{
    memset(p, 0, sizeof *p);
    p->method = GS_AMG_METHOD_AUTO;
    p->theta = 0.3;
    p->strength = GS_STRENGTH_ROWMAX;
    p->filter = 1;
    p->aggregation = GS_AGG_MIS2; /* the key amg.aggregation: auto */
    p->max_levels = 10;
    p->coarse_size = 200;
    p->galerkin = GS_SPGEMM_AUTO;
    p->smoother = NULL; /* auto */
    p->classical_theta = 0.25;
    p->interp_max_elements = 0;
    p->interp_trunc = 0.0;
    p->chebyshev_degree = 3;
    p->coarse_chebyshev_degree = 10;
    p->chebyshev_ratio = 10.0;
    p->presweeps = 1;
    p->postsweeps = 1;
    p->block_size = 1;
    p->smooth_prolongator = 1;
    p->prolongator_omega = 4.0 / 3.0;
}

gs_status gs_amg_sync(const gs_amg *amg, double *t)
{
    gs_status st = amg->be->sync();
    *t = gs_time_now();
    return st;
}

void gs_amg_trace(gs_amg *amg, int l, const char *what)
{
    double t;
    if (!amg->p.trace) return;
    (void)gs_amg_sync(amg, &t);
    if (what) {
        char pool[80] = "";
        if (amg->loc != GS_LOC_HOST) gs_backend_mem_text(pool, sizeof pool);
        gs_log(GS_LOG_INFO, "amg setup: level %d %-22s %8.3f ms%s", l, what,
               1e3 * (t - amg->trace_t), pool);
    }
    amg->trace_t = t;
}

/* The SpMV form of a level's operator (A on level l, P from l+1 to l, R from l to l+1) in the
 * format the selector picks for it, or gsolve's CSR kernel when no request was given; its name
 * into fmt, and for A why, and whether the choice fell back to csr. */
static gs_status make_op(gs_amg *amg, const gs_csr *M, int l, gs_amg_op_kind kind,
                         gs_spmat **out, char *fmt, size_t fmt_len, gs_amg_level_report *R)
{
    gs_status st = GS_OK;
    if (amg->p.select) {
        gs_select_result sr;
        GS_CHECK(gs_select_spmat(M, amg->p.first_level + l, amg->p.select, out, &sr));
        if (R) {
            gs_str_copy(R->reason, sizeof R->reason, sr.reason);
            R->fell_back = sr.fell_back;
        }
        if (amg->p.trace) /* beside the setup trace */
            gs_log(GS_LOG_INFO, "amg setup: level %d %s: %s, features %.3f ms + conversion %.3f ms",
                    l, kind == GS_AMG_OP_A ? "A" : kind == GS_AMG_OP_P ? "P" : "R",
                    gs_format_name((*out)->format), 1e3 * sr.feature_s, 1e3 * sr.convert_s);
    } else {
        GS_CHECK(gs_spmat_create(M, GS_FORMAT_CSR, NULL, out));
        if (R) gs_str_copy(R->reason, sizeof R->reason, "gsolve's CSR kernel (no selector given)");
    }
    gs_str_copy(fmt, fmt_len, gs_format_name((*out)->format));
done:
    return st;
}

#define GS_AMG_DEFER_SHARE (1.0 / 16.0)

int gs_amg_defers_finest(double csr_bytes, gs_loc loc)
{
    const int64_t defer = gs_knob_i64("GSOLVE_AMG_DEFER", 0, -1); /* forced (tests), anywhere */
    if (defer >= 0) return defer > 0;
    if (loc != GS_LOC_DEVICE) return 0;
    const double total = (double)gs_backend_mem_now().total;
    return total > 0 && csr_bytes > GS_AMG_DEFER_SHARE * total;
}

/* the arrays of C freed (its sizes kept) where amg->p.drop_csr allows (own: the AMG's copy,
 * else the caller's finest A) and C's format M does not read them */
static void drop_csr(gs_amg *amg, const gs_csr *C, const gs_spmat *M, int own)
{
    if (!C || !C->rowptr || !gs_spmat_owns_layout(M) ||
        amg->p.drop_csr < (own ? GS_AMG_DROP_OWN : GS_AMG_DROP_ALL))
        return; /* (no arrays: freed already) */
    gs_csr *W = (gs_csr *)C; /* the caller's finest A under GS_AMG_DROP_ALL: its arrays given */
    amg->dropped_bytes += (int64_t)gs_csr_storage_bytes(W);
    amg->be->csr_free(W);
}

/* level l's A freed after its format was made, where drop_csr allows: not on the coarsest
 * level, nor under a smoother that reads the CSR */
static void drop_level_a(gs_amg *amg, int l)
{
    if (!amg->p.smoother->reads_csr && l + 1 < amg->nlev)
        drop_csr(amg, amg->lev[l].A, amg->lev[l].MA, l > 0);
}

/* level 0's format (in place of its CSR view, if any), then, when drop, its CSR freed */
static gs_status finest_format(gs_amg *amg, double *ph, int drop)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[0];
    gs_amg_level_report *R0 = &amg->rep.level[0];
    double t0, t1;
    GS_CHECK(gs_amg_sync(amg, &t0));
    gs_spmat_destroy(&L->MA);
    gs_amg_trace(amg, 0, NULL);
    GS_CHECK(make_op(amg, L->A, 0, GS_AMG_OP_A, &L->MA, R0->format, sizeof R0->format, R0));
    gs_amg_trace(amg, 0, "format of A");
    if (drop) drop_level_a(amg, 0);
    GS_CHECK(gs_amg_sync(amg, &t1));
    ph[GS_AMG_PHASE_CONVERT] += t1 - t0;
done:
    return st;
}

/* D^-1 (checked) and rho(D^-1 A) of level l */
gs_status gs_amg_level_diag(gs_amg *amg, int l, const char *where)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[l];
    const gs_csr *A = L->A;
    double *dinv = NULL, *sq = NULL;
    int64_t bad = 0, first = -1;
    GS_CHECK(amg->be->alloc(((size_t)A->rows + 1) * sizeof(double), "AMG diagonal",
                            (void **)&dinv));
    GS_CHECK(amg->be->alloc(((size_t)A->rows + 1) * sizeof(double), "AMG diagonal",
                            (void **)&sq));
    gs_amg_trace(amg, l, NULL);
    GS_CHECK(amg->ops->diag_inv(A, 0, dinv, sq, &bad, &first));
    gs_amg_trace(amg, l, "diagonal");
    if (bad > 0 && amg->p.first_level + l == 0)
        GS_FAIL(GS_ERR_INPUT, "%s: row %lld has a zero, missing or non-finite diagonal entry "
                "(%lld rows in all); smoothed-aggregation AMG needs a nonzero diagonal",
                where, (long long)first + 1, (long long)bad);
    if (amg->resetting && L->rho_full > 0.0 && L->rho_short > 0.0) {
        /* a re-setup: the short estimate from the same start, the full one scaled by its change
         * (the short estimate's shortfall, which the values hardly move, divides out) */
        double s = 0.0;
        GS_CHECK(gs_amg_estimate_rho_steps(amg, A, L->MA, sq, GS_AMG_RHO_SHORT, &L->rho, &s));
        if (s > 0.0) L->rho = L->rho_full * (s / L->rho_short);
    } else {
        GS_CHECK(gs_amg_estimate_rho_steps(amg, A, L->MA, sq, GS_AMG_RHO_STEPS, &L->rho,
                                           &L->rho_short));
        L->rho_full = L->rho;
    }
    L->rho_known = 1;
    gs_amg_trace(amg, l, "rho (Lanczos)");
    L->dinv = dinv;
    dinv = NULL;
done:
    if (dinv) amg->be->free(dinv);
    if (sq) amg->be->free(sq);
    return st;
}

/* the smoother's state of level l (after level_diag) */
gs_status gs_amg_level_smoother(gs_amg *amg, int l)
{
    gs_amg_level *L = &amg->lev[l];
    /* the share of the finest level's nonzeros; a hierarchy below distributed levels holds
     * their coarse end (0: small) */
    const int64_t nnz0 = amg->p.first_level == 0 ? amg->lev[0].A->nnz : 0;
    L->sl = (gs_smoother_level){.p = &amg->p, .ops = amg->ops, .be = amg->be, .level = l,
                                .A = L->A, .MA = L->MA, .dinv = L->dinv, .rho = L->rho,
                                .share = nnz0 > 0 ? (double)L->A->nnz / (double)nnz0 : 0.0};
    return amg->p.smoother->setup(&L->sl, &L->smooth);
}

/* The prolongator smoothing's I - omega / rho D^-1 A of level l, where A is the filtered
 * matrix (weak couplings lumped so that the near-nullspace B is kept; rho its own) when theta
 * > 0 on a scalar level with one near-nullspace vector, else the level's A. */
gs_status gs_amg_smoothing_matrix(gs_amg *amg, int l, int b, int k, const double *B,
                                  gs_loc B_loc, gs_csr **Sj)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[l];
    const gs_amg_params *p = &amg->p;
    gs_csr *F = NULL;
    gs_buf *w = NULL, *dinv = NULL, *sq = NULL;
    double rho = L->rho;
    if (p->filter && p->theta > 0 && b == 1 && k == 1) {
        const double *wl = B;
        if (B && B_loc != amg->loc) {
            const gs_buf src = {(void *)B, L->A->rows, GS_F64, B_loc};
            GS_CHECK(gs_buf_clone(&src, amg->loc, "AMG near-nullspace", &w));
            wl = w->data;
        }
        /* theta on level 0, a quarter of it on each level below: a Galerkin operator holds
         * many small couplings that are not weak ones (3D Poisson 256^3 takes 22 PCG
         * iterations with theta on every level, 11 with this) */
        double tf = p->theta;
        for (int i = 0; i < p->first_level + l; i++) tf *= 0.25;
        GS_CHECK(amg->ops->filter(L->A, tf, p->strength, wl, &F)); /* NULL: nothing dropped */
    }
    if (F) { /* its own diagonal and rho */
        int64_t bad = 0, first = -1;
        GS_CHECK(gs_buf_create((int64_t)F->rows + 1, GS_F64, amg->loc, "AMG diagonal", &dinv));
        GS_CHECK(gs_buf_create((int64_t)F->rows + 1, GS_F64, amg->loc, "AMG diagonal", &sq));
        GS_CHECK(amg->ops->diag_inv(F, 0, dinv->data, sq->data, &bad, &first));
        GS_CHECK(gs_amg_estimate_rho(amg, F, NULL, sq->data, &rho));
        gs_amg_trace(amg, l, "filtered A, its rho");
        if (!(rho > 0)) rho = L->rho;
    }
    GS_CHECK(amg->ops->jacobi_matrix(F ? F : L->A, F ? dinv->data : L->dinv,
                                     p->prolongator_omega / rho, Sj));
    gs_amg_trace(amg, l, F ? "I - w D_F^-1 A_F" : "I - w D^-1 A");
done:
    gs_csr_destroy(&F);
    gs_buf_destroy(&w);
    gs_buf_destroy(&dinv);
    gs_buf_destroy(&sq);
    return st;
}

/* nullspace_constant: the coefficients c (k) of the constant vector in the finest
 * near-nullspace B: all ones for the default (one constant a unknown of a node), else the least
 * squares (B^T B) c = B^T 1 of the caller's B (host, rows x k; exact when the constant is in
 * its span). A hierarchy below distributed levels (first_level > 0) gets the coarse B of a
 * default near-nullspace: ones. */
static gs_status constant_coef(const gs_amg_params *p, int32_t rows, int k, double **out)
{
    gs_status st = GS_OK;
    double *c = NULL, *G = NULL;
    const double *B = p->first_level == 0 ? p->nullspace : NULL;
    GS_CHECK(gs_alloc_array((size_t)k * (k + 1) + 1, sizeof *G, "near-nullspace", (void **)&G));
    GS_CHECK(gs_alloc_array((size_t)k + 1, sizeof *c, "near-nullspace", (void **)&c));
    for (int j = 0; j < k; j++) c[j] = 1.0;
    if (B) { /* G = [B^T B | B^T 1], then Gaussian elimination with partial pivoting */
        for (int i = 0; i < k; i++) {
            const double *bi = B + (size_t)i * rows;
            for (int j = 0; j <= k; j++) {
                double d = 0.0;
                for (int32_t r = 0; r < rows; r++) d += bi[r] * (j < k ? B[(size_t)j * rows + r] : 1.0);
                G[(size_t)i * (k + 1) + j] = d;
            }
        }
        for (int col = 0; col < k; col++) {
            int pr = col;
            for (int r = col + 1; r < k; r++)
                if (fabs(G[(size_t)r * (k + 1) + col]) > fabs(G[(size_t)pr * (k + 1) + col])) pr = r;
            for (int j = 0; j <= k; j++) {
                double t = G[(size_t)col * (k + 1) + j];
                G[(size_t)col * (k + 1) + j] = G[(size_t)pr * (k + 1) + j];
                G[(size_t)pr * (k + 1) + j] = t;
            }
            double pv = G[(size_t)col * (k + 1) + col];
            for (int r = col + 1; pv != 0.0 && r < k; r++) {
                double f = G[(size_t)r * (k + 1) + col] / pv;
                for (int j = col; j <= k; j++) G[(size_t)r * (k + 1) + j] -= f * G[(size_t)col * (k + 1) + j];
            }
        }
        for (int i = k - 1; i >= 0; i--) {
            double sum = G[(size_t)i * (k + 1) + k], pv = G[(size_t)i * (k + 1) + i];
            for (int j = i + 1; j < k; j++) sum -= G[(size_t)i * (k + 1) + j] * c[j];
            c[i] = pv != 0.0 ? sum / pv : 0.0; /* a dependent column: no part of the constant */
        }
    }
    *out = c;
    c = NULL;
done:
    gs_free(c);
    gs_free(G);
    return st;
}

/* z = B c on the coarsest level (host; ones when B is NULL: no coarsening, the default near-
 * nullspace), NULL when the dense solve does not run there or B is not that level's (the last
 * coarsening was refused after B was made) */
static gs_status coarse_constant(const gs_amg *amg, const double *B, gs_loc B_loc, int B_level,
                                 int k, const double *c, double **z)
{
    gs_status st = GS_OK;
    const int32_t n = amg->lev[amg->nlev - 1].A->rows;
    gs_buf *h = NULL;
    *z = NULL;
    if (n > GS_AMG_DENSE_MAX || (B && B_level != amg->nlev - 1)) return GS_OK;
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof **z, "coarse null space", (void **)z));
    for (int32_t i = 0; i < n; i++) (*z)[i] = B ? 0.0 : 1.0;
    if (!B) goto done;
    const gs_buf src = {(void *)B, (int64_t)n * k, GS_F64, B_loc};
    GS_CHECK(gs_buf_clone(&src, GS_LOC_HOST, "coarse near-nullspace", &h));
    const double *Bh = h->data;
    for (int j = 0; j < k; j++)
        for (int32_t i = 0; i < n; i++) (*z)[i] += Bh[(size_t)j * n + i] * c[j];
done:
    gs_buf_destroy(&h);
    return st;
}

/* the levels' steps on one process (gs_amg_steps): the hierarchy's own CSR operators */
typedef struct one_steps {
    gs_spgemm_method m; /* the Galerkin method */
    int view0;          /* level 0's format is deferred: made after its Galerkin product */
} one_steps;

static int64_t one_rows(void *ctx, const gs_amg *amg, int l)
{
    (void)ctx;
    return amg->lev[l].A->rows;
}

/* a coarsest level below the finest that the dense inverse solves needs no diagonal and no rho
 * (the finest is always checked: its diagonal is the user's input) */
static int one_ends(void *ctx, const gs_amg *amg, int l, int64_t n, int last)
{
    (void)ctx, (void)amg;
    return last && l > 0 && n <= GS_AMG_DENSE_MAX;
}

static gs_status one_diag(void *ctx, gs_amg *amg, int l, const char *where)
{
    gs_status st = GS_OK;
    (void)ctx;
    if (!amg->lev[l].dinv) GS_CHECK(gs_amg_level_diag(amg, l, where));
    GS_CHECK(gs_amg_level_smoother(amg, l));
done:
    return st;
}

static gs_status one_smoothing(void *ctx, gs_amg *amg, int l, int b, int k, const double *B,
                               gs_loc B_loc, gs_csr **S)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[l];
    (void)ctx;
    GS_CHECK(gs_amg_smoothing_matrix(amg, l, b, k, B, B_loc, S));
    if (amg->p.keep_tentative && B && b == 1 && k == 1) { /* the filter's weights, kept */
        const gs_buf src = {(void *)B, L->A->rows, GS_F64, B_loc};
        GS_CHECK(gs_buf_clone(&src, amg->loc, "AMG near-nullspace", &L->Bw));
    }
done:
    return st;
}

/* smoothed aggregation's tentative prolongator, or classical AMG's whole level (P, R and the
 * next level's operator, with its growth check) */
static gs_status one_coarsen(void *ctx, gs_amg *amg, int l, int b, double **B, gs_loc *B_loc,
                             int *k, gs_csr **T, int64_t *nc, int *one_per_row, int *made,
                             double *ph)
{
    gs_status st = GS_OK;
    one_steps *os = ctx;
    gs_amg_level *L = &amg->lev[l];
    int32_t nagg = 0;
    if (amg->p.method == GS_AMG_METHOD_CLASSICAL) {
        GS_CHECK(gs_amg_classical(amg, l, os->m, &nagg, ph));
        *nc = L->P ? nagg : 0;
        *made = 1;
        if (L->P) amg->lev[l + 1].A = amg->lev[l + 1].Aown;
    } else {
        GS_CHECK(gs_amg_coarsen(amg, l, b, B, B_loc, k, T, &nagg, one_per_row, ph));
        gs_amg_trace(amg, l, "tentative P");
        *nc = (int64_t)nagg * *k;
    }
done:
    return st;
}

static gs_status one_prolongator(void *ctx, gs_amg *amg, int l, gs_csr **S, gs_csr **T,
                                 int one_per_row)
{
    gs_status st = GS_OK;
    one_steps *os = ctx;
    gs_amg_level *L = &amg->lev[l];
    if (*S) {
        if (one_per_row && os->m != GS_SPGEMM_CUSPARSE)
            st = amg->ops->times_tentative(*S, *T, &L->P);
        else
            st = gs_spgemm(*S, *T, os->m, &L->P);
        gs_amg_trace(amg, l, "P = S T");
        gs_csr_destroy(S);
        GS_CHECK(st);
        if (amg->p.keep_tentative) { /* for a re-setup that smooths P anew (amg.reuse values) */
            L->T = *T;
            *T = NULL;
            L->one_per_row = one_per_row;
        }
        gs_csr_destroy(T);
    } else {
        L->P = *T;
        *T = NULL;
    }
    GS_CHECK(gs_spgemm_transpose(L->P, &L->R));
    gs_amg_trace(amg, l, "R = P^T");
done:
    return st;
}

static gs_status one_galerkin(void *ctx, gs_amg *amg, int l)
{
    gs_status st = GS_OK;
    const one_steps *os = ctx;
    gs_amg_level *L = &amg->lev[l];
    GS_CHECK(gs_galerkin(L->A, L->P, L->R, os->m, &amg->lev[l + 1].Aown)); /* R (A P) */
    gs_amg_trace(amg, l, "R (A P)");
    amg->lev[l + 1].A = amg->lev[l + 1].Aown;
done:
    return st;
}

/* the deferred finest format, its CSR freed before the coarser levels grow beside it */
static gs_status one_next(void *ctx, gs_amg *amg, int l, double *ph)
{
    gs_status st = GS_OK;
    one_steps *os = ctx;
    if (l == 0 && os->view0) {
        GS_CHECK(finest_format(amg, ph, 1));
        os->view0 = 0;
    }
done:
    return st;
}

gs_status gs_amg_setup(const gs_csr *A, const gs_amg_params *p, const char *where, gs_amg **out)
{
    gs_status st = GS_OK;
    gs_amg *amg = NULL;
    double *B = NULL, *ccoef = NULL, *zc = NULL, t_start, t0, t1, *ph;
    int B_level = 0; /* the level B describes */
    gs_loc B_loc = GS_LOC_HOST;
    gs_spgemm_method m;
    if (!where) where = "matrix";
    if (!A || !p || !out) return GS_ERROR(GS_ERR_ARG, "amg: missing matrix, parameters or output");
    *out = NULL;
    if (A->rows != A->cols)
        return GS_ERROR(GS_ERR_INPUT, "%s: AMG needs a square matrix, not %d x %d", where, A->rows,
                        A->cols);
    int b = p->block_size > 0 ? p->block_size : 1, k = p->nullspace ? p->nullspace_k : b;
    const int b0 = b, k0 = k; /* the finest level's */
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
    if (p->select) amg->fmt = p->select->params;
    else gs_format_params_default(&amg->fmt);
    amg->fmt.cds_hint_off = NULL, amg->fmt.cds_prefill = NULL, amg->fmt.hint_max_len = 0;
    gs_str_copy(amg->where, sizeof amg->where, where);
    amg->m = p->galerkin == GS_SPGEMM_AUTO
                 ? (A->loc == GS_LOC_HOST ? GS_SPGEMM_HOST : GS_SPGEMM_DCSR)
                 : p->galerkin;
    amg->rep.setups = 1;
    amg->be = gs_backend_get(A->loc);
    amg->ops = gs_amg_ops_at(A->loc);
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
    GS_CHECK(gs_amg_sync(amg, &t_start));
    if (p->nullspace) {
        B_loc = GS_LOC_HOST;
        GS_CHECK(gs_alloc_array((size_t)A->rows * k, sizeof *B, "near-nullspace", (void **)&B));
        memcpy(B, p->nullspace, (size_t)A->rows * k * sizeof *B);
    }
    if (p->nullspace_constant) GS_CHECK(constant_coef(p, A->rows, k, &ccoef));
    amg->lev[0].A = A;
    amg->nlev = 1;
    /* the finest operator's format first: the Lanczos steps below run in it. Where its CSR is
     * freed once the format is made (GS_AMG_DROP_ALL) and the matrix is large for the device
     * (gs_amg_defers_finest), a CSR view (no copy) serves them instead, and the format is made
     * right after level 0's Galerkin product, its CSR freed there: format, CSR and product are
     * never held together (3D Poisson 512^3 and 640^3: a peak of 291 bytes a row, the Lanczos
     * steps about 30 ms slower at 512^3) */
    int view0 = p->drop_csr == GS_AMG_DROP_ALL &&
                gs_amg_defers_finest(gs_csr_storage_bytes(A), A->loc);
    if (view0)
        GS_CHECK(gs_spmat_create(A, GS_FORMAT_CSR, NULL, &amg->lev[0].MA));
    else
        GS_CHECK(finest_format(amg, ph, 0));
    { /* level 0's diagonal (checked: the user's input), then the method and smoother left
       * open, chosen from A */
        GS_CHECK(gs_amg_sync(amg, &t0));
        GS_CHECK(gs_amg_level_diag(amg, 0, where));
        gs_amg_level_report *R0 = &amg->rep.level[0]; /* its row statistics: the report's too */
        GS_CHECK(amg->ops->row_stats(A, &R0->mean, &R0->std, &R0->max));
        GS_CHECK(gs_amg_choose(amg, A, amg->lev[0].MA, amg->lev[0].dinv, b, 0, 0));
        gs_amg_choose_aggregation(amg, b);
        amg->rep.aggregation = amg->p.aggregation;
        gs_amg_trace(amg, 0, "method, smoother");
        GS_CHECK(gs_amg_sync(amg, &t1));
        ph[GS_AMG_PHASE_PROLONG] += t1 - t0;
    }
    const int classical = amg->p.method == GS_AMG_METHOD_CLASSICAL;
    amg->rep.method = amg->p.method;
    amg->rep.restriction = classical ? amg->p.restriction : GS_AMG_RESTRICT_PT;
    if (classical && b > 1)
        GS_FAIL(GS_ERR_CONFIG, "%s: amg.method = \"classical\" is for scalar problems, and "
                "amg.block_size is %d; use \"sa\" for block systems", where, b);
    if (classical && B) { /* interpolation has no near-nullspace to keep: the constant's */
        gs_free(B);
        B = NULL;
        k = 1;
    }
    one_steps os = {.m = m, .view0 = view0};
    const gs_amg_steps steps = {.ctx = &os, .rows = one_rows, .ends = one_ends, .diag = one_diag,
                                .smoothing = one_smoothing, .coarsen = one_coarsen,
                                .prolongator = one_prolongator, .galerkin = one_galerkin,
                                .next = one_next};
    GS_CHECK(gs_amg_levels(amg, &steps, &b, &k, &B, &B_loc, &B_level, where, ph));
    view0 = os.view0;
    if (ccoef) GS_CHECK(coarse_constant(amg, B, B_loc, B_level, k, ccoef, &zc));
    GS_CHECK(gs_amg_coarse_setup(amg, zc, ph));
    amg->zc = zc; /* the re-setup's */
    zc = NULL;
    /* formats, vectors and the report */
    GS_CHECK(gs_amg_sync(amg, &t0));
    double nnz0 = (double)A->nnz, rows0 = (double)A->rows;
    amg->rep.levels = amg->nlev;
    for (int l = 0; l < amg->nlev; l++) {
        gs_amg_level *L = &amg->lev[l];
        gs_amg_level_report *R = &amg->rep.level[l];
        int32_t n = L->A->rows;
        R->rows = n;
        R->cols = L->A->cols;
        R->nnz = L->A->nnz;
        R->rho = L->rho;
        R->rho_known = L->rho_known;
        gs_amg_trace(amg, l, NULL);
        if (l > 0) GS_CHECK(amg->ops->row_stats(L->A, &R->mean, &R->std, &R->max)); /* 0's: above */
        gs_amg_trace(amg, l, "row statistics");
        /* an empty matrix has complexities 1 (no division by its zero size) */
        amg->rep.operator_complexity += nnz0 > 0 ? (double)L->A->nnz / nnz0 : 1.0;
        amg->rep.grid_complexity += rows0 > 0 ? (double)n / rows0 : 1.0;
        if (amg->p.drop_csr) { /* what only a re-setup reads (none follows) */
            gs_csr_destroy(&L->T);
            gs_buf_destroy(&L->Bw);
            gs_buf_destroy(&L->agg);
        }
        if (l == 0 && view0) gs_spmat_destroy(&L->MA); /* the view gives way to the format
                                                         * (no coarsening happened) */
        if (!L->MA) {
            GS_CHECK(make_op(amg, L->A, l, GS_AMG_OP_A, &L->MA, R->format, sizeof R->format,
                             R));
            gs_amg_trace(amg, l, "format of A");
        }
        drop_level_a(amg, l);
        if (L->P) {
            GS_CHECK(make_op(amg, L->P, l, GS_AMG_OP_P, &L->MP, R->format_p, sizeof R->format_p,
                             NULL));
            gs_amg_trace(amg, l, "format of P");
            GS_CHECK(make_op(amg, L->R, l, GS_AMG_OP_R, &L->MR, R->format_r, sizeof R->format_r,
                             NULL));
            gs_amg_trace(amg, l, "format of R");
            drop_csr(amg, L->R, L->MR, 1);
        }
        if (l > 0) {
            GS_CHECK(gs_vec_create(n, amg->loc, &L->x));
            GS_CHECK(gs_vec_create(n, amg->loc, &L->b));
        }
        GS_CHECK(gs_vec_create(n, amg->loc, &L->y));
        GS_CHECK(gs_vec_create(n, amg->loc, &L->d));
        L->r = L->d; /* the residual lives between the smoothings, the smoother's d within them */
        L->sl.MA = L->MA, L->sl.y = L->y, L->sl.d = L->d;
        gs_amg_trace(amg, l, "cycle vectors");
    }
    GS_CHECK(gs_amg_sync(amg, &t1));
    ph[GS_AMG_PHASE_CONVERT] += t1 - t0;
    amg->rep.setup_s = t1 - t_start;
    gs_amg_describe(amg, b0, k0, m, 0, 0);
    amg->p.select = NULL; /* the caller's request is read during the setup only */
    *out = amg;
    amg = NULL;
done:
    if (B) gs_backend_get(B_loc)->free(B);
    gs_free(ccoef);
    gs_free(zc);
    gs_amg_destroy(&amg);
    return st;
}

void gs_amg_destroy(gs_amg **pa)
{
    if (!pa || !*pa) return;
    gs_amg *amg = *pa;
    for (int l = 0; l < GS_AMG_MAX_LEVELS; l++) {
        gs_amg_level *L = &amg->lev[l];
        if (!L->ops_borrowed) {
            gs_spmat_destroy(&L->MA);
            gs_spmat_destroy(&L->MP);
            gs_spmat_destroy(&L->MR);
        }
        gs_csr_destroy(&L->Aown);
        gs_csr_destroy(&L->P);
        gs_csr_destroy(&L->R);
        gs_csr_destroy(&L->T);
        gs_buf_destroy(&L->Bw);
        if (L->smooth) amg->p.smoother->destroy(L->smooth, amg->be);
        if (L->dinv) amg->be->free(L->dinv);
        gs_buf_destroy(&L->agg);
        gs_vec_destroy(&L->x);
        gs_vec_destroy(&L->b);
        if (L->r != L->d) gs_vec_destroy(&L->r);
        L->r = NULL; /* else d's alias */
        gs_vec_destroy(&L->y);
        gs_vec_destroy(&L->d);
        gs_vec_destroy(&L->kx);
        gs_vec_destroy(&L->kb);
        gs_vec_destroy(&L->kr);
        gs_vec_destroy(&L->ky);
        gs_vec_destroy(&L->kd);
    }
    gs_spmat_destroy(&amg->Mc);
    gs_csr_destroy(&amg->cinv);
    gs_amg_graphs_destroy(amg);
    if (amg->tail.destroy) amg->tail.destroy(amg->tail.ctx);
    gs_free(amg->zc);
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
    const gs_amg_level *L = &amg->lev[l];
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
            gs_buf h = {*agg, L->nodes, GS_I32, GS_LOC_HOST};
            gs_buf a = *L->agg;
            a.n = L->nodes;
            st = gs_buf_copy(&a, &h);
            if (st != GS_OK) {
                gs_free(*agg);
                *agg = NULL;
            }
            GS_CHECK(st);
        }
    }
    if (nnodes) *nnodes = L->nodes;
done:
    return st;
}


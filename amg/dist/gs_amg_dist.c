/* gs_amg_dist.c: smoothed aggregation across MPI ranks (gs_amg_dist.h): the setup of the
 * distributed levels, the gathered tail, and the cycle. */
#include "gs_amg_dist.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gs_amg_internal.h"
#include "gs_comm.h"
#include "gs_time.h"

#define GATHER_ROWS_DEFAULT 20000

typedef struct dlevel {
    gs_gcsr *Aown;           /* levels >= 1 (level 0: the caller's) */
    const gs_gcsr *A;
    gs_part *part;           /* this level's rows */
    gs_dist_op *DAown, *DP, *DR;
    const gs_dist_op *DA;
    gs_csr *Al1;             /* the rows at loc for l1-Jacobi's row sums (NULL: not needed) */
    double *dinv;            /* at loc */
    gs_smoother_level sl;
    void *smooth;
    gs_vec *x, *b, *r, *y, *d;
    double rho;
} dlevel;

struct gs_amg_dist {
    gs_amg_params p;
    gs_loc loc;
    const gs_backend_ops *be;
    const gs_amg_ops *ops;
    gs_amg *shell;          /* the one-process helpers' view of a level (coarsening, rho) */
    int nd;                 /* distributed levels; level nd is the gathered one */
    dlevel lev[GS_AMG_MAX_LEVELS];
    gs_csr *tailA;          /* the gathered level, at loc */
    gs_amg *tail;           /* its hierarchy (every rank the same) */
    gs_vec *tb, *tx;        /* the whole gathered level's vectors, at loc */
    double *hb, *hx, *hpart;/* host staging: whole b, whole x, this rank's part */
    size_t *gbytes;         /* every rank's part of the gathered level, in bytes */
    gs_amg_report rep;
};

/* amg.trace (verbosity 3): each setup step's time on rank 0's stderr */
static double g_trace_t;
static void trace(const gs_amg_dist *amg, int l, const char *what)
{
    if (!amg->p.trace) return;
    (void)amg->be->sync();
    double t = gs_time_now();
    if (what && gs_comm_rank() == 0)
        fprintf(stderr, "amg setup (rank 0): level %d %-22s %8.3f ms\n", l, what,
                1e3 * (t - g_trace_t));
    g_trace_t = t;
}

static gs_status sync_now(const gs_amg_dist *amg, double *t)
{
    gs_status st = amg->be->sync();
    *t = gs_time_now();
    return st;
}

/* a copy at loc of n host doubles (the backend's allocator) */
static gs_status put_doubles(const gs_amg_dist *amg, const double *h, int64_t n, double **out)
{
    gs_status st = GS_OK;
    double *d = NULL;
    GS_CHECK(amg->be->alloc(((size_t)n + 1) * sizeof(double), "AMG level array", (void **)&d));
    if (n > 0) GS_CHECK(amg->be->put(d, h, (size_t)n * sizeof(double)));
    *out = d;
    d = NULL;
done:
    if (d) amg->be->free(d);
    return st;
}

/* D^-1, rho(D^-1 A) and the smoother of distributed level l */
static gs_status level_diag(gs_amg_dist *amg, int l, const char *where)
{
    gs_status st = GS_OK;
    dlevel *L = &amg->lev[l];
    const gs_csr *C = L->DA->compact;
    double *dh = NULL, *sh = NULL, *sq = NULL;
    int64_t bad = 0, first = -1;
    GS_CHECK(gs_alloc_array((size_t)C->rows + 1, sizeof *dh, "AMG diagonal", (void **)&dh));
    GS_CHECK(gs_alloc_array((size_t)C->rows + 1, sizeof *sh, "AMG diagonal", (void **)&sh));
    GS_CHECK(gs_amg_host_ops.diag_inv(C, 0, dh, sh, &bad, &first));
    if (bad > 0 && l == 0)
        st = GS_ERROR(GS_ERR_INPUT, "%s: row %lld has a zero, missing or non-finite diagonal "
                      "entry (%lld rows of this rank's block); smoothed-aggregation AMG needs a "
                      "nonzero diagonal", where, (long long)(L->DA->row0 + first + 1),
                      (long long)bad);
    GS_CHECK(gs_comm_agree(st));
    GS_CHECK(put_doubles(amg, dh, C->rows, &L->dinv));
    GS_CHECK(put_doubles(amg, sh, C->rows, &sq));
    amg->shell->rho_rows = L->part->start[L->part->nranks];
    GS_CHECK(gs_amg_estimate_rho(amg->shell, L->DA->diag, gs_dist_op_spmat(L->DA), sq, &L->rho));
    if (strcmp(amg->p.smoother->name, "l1jacobi") == 0) /* row sums over the whole rows */
        GS_CHECK(gs_csr_upload(C, amg->loc, &L->Al1));
    L->sl = (gs_smoother_level){.p = &amg->p, .ops = amg->ops, .be = amg->be, .level = l,
                                .A = L->Al1 ? L->Al1 : L->DA->diag, .MA = gs_dist_op_spmat(L->DA),
                                .dinv = L->dinv, .rho = L->rho};
    GS_CHECK(amg->p.smoother->setup(&L->sl, &L->smooth));
done:
    gs_free(dh);
    gs_free(sh);
    if (sq) amg->be->free(sq);
    return st;
}

/* S = I - omega / rho D_F^-1 F on level l's rows (global columns), F the filtered A (its own
 * diagonal and rho) where filtering applies, else A; B: this rank's near-nullspace at B_loc */
static gs_status smoothing_matrix(gs_amg_dist *amg, int l, int b, int k, const double *B,
                                  gs_loc B_loc, gs_gcsr **S)
{
    gs_status st = GS_OK;
    dlevel *L = &amg->lev[l];
    const gs_dist_op *D = L->DA;
    const gs_amg_params *p = &amg->p;
    gs_csr *F = NULL, *Sj = NULL;
    gs_gcsr *Fg = NULL;
    gs_dist_op *DF = NULL;
    double *w = NULL, *dF = NULL, *sF = NULL, *sqF = NULL, *dA = NULL, rho = L->rho;
    const int64_t grows = L->part->start[L->part->nranks];
    int filtered = p->filter && p->theta > 0 && b == 1 && k == 1;
    if (filtered) {
        /* the near-nullspace on the rows and the halo (ones by default) */
        GS_CHECK(gs_alloc_array((size_t)D->cols + (size_t)D->nhalo + 1, sizeof *w, "AMG weights",
                                (void **)&w));
        if (B) {
            if (B_loc == GS_LOC_HOST)
                memcpy(w, B, (size_t)D->cols * sizeof *w);
            else
                GS_CHECK(gs_backend_get(B_loc)->get(w, B, (size_t)D->cols * sizeof *w));
        } else {
            for (int32_t i = 0; i < D->cols; i++) w[i] = 1.0;
        }
        GS_CHECK(gs_dist_op_halo_host(D, w, w + D->cols));
        double tf = p->theta;
        for (int i = 0; i < l; i++) tf *= 0.25;
        GS_CHECK(gs_amg_filter_host(D->compact, tf, p->strength, B ? w : NULL, &F));
        trace(amg, l, "  filter");
    }
    int64_t anyF = F != NULL; /* F = A on every rank, or F's own rho over all of them */
    GS_CHECK(gs_comm_max_i64(&anyF, 1));
    GS_CHECK(gs_alloc_array((size_t)D->rows + 1, sizeof *dA, "AMG diagonal", (void **)&dA));
    if (anyF) {
        int64_t bad, first;
        if (!F) GS_CHECK(gs_csr_copy(D->compact, &F));
        GS_CHECK(gs_dist_op_to_global(D, F, grows, grows, &Fg));
        GS_CHECK(gs_dist_op_create(Fg, L->part, amg->loc, NULL, l, &DF));
        GS_CHECK(gs_alloc_array((size_t)F->rows + 1, sizeof *dF, "AMG diagonal", (void **)&dF));
        GS_CHECK(gs_alloc_array((size_t)F->rows + 1, sizeof *sF, "AMG diagonal", (void **)&sF));
        GS_CHECK(gs_amg_host_ops.diag_inv(F, 0, dF, sF, &bad, &first));
        GS_CHECK(put_doubles(amg, sF, F->rows, &sqF));
        amg->shell->rho_rows = grows;
        trace(amg, l, "  F's SpMV form");
        GS_CHECK(gs_amg_estimate_rho(amg->shell, DF->diag, gs_dist_op_spmat(DF), sqF, &rho));
        trace(amg, l, "  F's rho");
        if (!(rho > 0)) rho = L->rho;
        GS_CHECK(gs_amg_host_ops.jacobi_matrix(F, dF, p->prolongator_omega / rho, &Sj));
    } else {
        int64_t bad, first;
        GS_CHECK(gs_amg_host_ops.diag_inv(D->compact, 0, dA, NULL, &bad, &first));
        GS_CHECK(gs_amg_host_ops.jacobi_matrix(D->compact, dA, p->prolongator_omega / rho, &Sj));
    }
    trace(amg, l, "  I - w D^-1 F");
    GS_CHECK(gs_dist_op_to_global(D, Sj, grows, grows, S));
    trace(amg, l, "  to global columns");
done:
    gs_csr_destroy(&F);
    gs_csr_destroy(&Sj);
    gs_gcsr_destroy(&Fg);
    gs_dist_op_destroy(&DF);
    gs_free(w);
    gs_free(dF);
    gs_free(sF);
    gs_free(dA);
    if (sqF) amg->be->free(sqF);
    return st;
}

/* the tentative prolongator of level l (this rank's rows, global coarse columns) and the coarse
 * partition; B becomes the coarse near-nullspace (this rank's coarse rows) */
static gs_status coarsen(gs_amg_dist *amg, int l, int b, double **B, gs_loc *B_loc, int *k,
                         gs_gcsr **Tg, gs_part **cpart, double *ph)
{
    gs_status st = GS_OK;
    dlevel *L = &amg->lev[l];
    gs_amg_level *S = &amg->shell->lev[l];
    gs_csr *T = NULL, *hT = NULL;
    int32_t nagg = 0;
    int one = 0;
    S->A = L->DA->diag; /* strength and aggregates on the rank's diagonal block */
    GS_CHECK(gs_amg_coarsen(amg->shell, l, b, B, B_loc, k, &T, &nagg, &one, ph));
    gs_buf_destroy(&S->agg);
    int64_t nc = T ? T->cols : 0;
    GS_CHECK(gs_part_from_count(nc, cpart));
    const int me = gs_comm_rank();
    const int64_t c0 = (*cpart)->start[me], gc = (*cpart)->start[(*cpart)->nranks];
    GS_CHECK(gs_gcsr_create(L->A->row0, L->A->rows, L->part->start[L->part->nranks], gc,
                            T ? T->nnz : 0, Tg));
    if (T) {
        GS_CHECK(gs_csr_download(T, &hT));
        for (int32_t i = 0; i <= hT->rows; i++) (*Tg)->rowptr[i] = hT->rowptr[i];
        for (int32_t q = 0; q < hT->nnz; q++) {
            (*Tg)->col[q] = c0 + hT->colind[q];
            (*Tg)->val[q] = hT->val[q];
        }
    } else {
        for (int32_t i = 0; i <= L->A->rows; i++) (*Tg)->rowptr[i] = 0;
    }
done:
    gs_csr_destroy(&T);
    gs_csr_destroy(&hT);
    return st;
}

/* level l's statistics over the ranks into the report */
static gs_status report_level(gs_amg_dist *amg, int l, const gs_gcsr *A, const gs_dist_op *D)
{
    gs_status st = GS_OK;
    gs_amg_level_report *R = &amg->rep.level[l];
    int64_t nnz = A->rowptr[A->rows], rows = A->rows, lmax = 0, tot_nnz, tot_rows;
    double sq = 0.0, s2[2];
    for (int32_t i = 0; i < A->rows; i++) {
        int64_t n = A->rowptr[i + 1] - A->rowptr[i];
        if (n > lmax) lmax = n;
        sq += (double)n * (double)n;
    }
    GS_CHECK(gs_dist_stats_i64(rows, &tot_rows, &R->rank_rows_min, &R->rank_rows_max));
    GS_CHECK(gs_dist_stats_i64(nnz, &tot_nnz, &R->rank_nnz_min, &R->rank_nnz_max));
    GS_CHECK(gs_comm_max_i64(&lmax, 1));
    s2[0] = sq;
    s2[1] = 0;
    GS_CHECK(gs_comm_sum(s2, 1));
    R->rows = (int32_t)tot_rows;
    R->cols = (int32_t)tot_rows;
    R->nnz = tot_nnz;
    R->max = (int32_t)lmax;
    R->mean = tot_rows > 0 ? (double)tot_nnz / (double)tot_rows : 0.0;
    double var = tot_rows > 0 ? s2[0] / (double)tot_rows - R->mean * R->mean : 0.0;
    R->std = var > 0 ? sqrt(var) : 0.0;
    R->rho = amg->lev[l].rho;
    /* the diagonal block's format: the same on every rank, or the range of the choices */
    int64_t f[2] = {D->sel.format, -(int64_t)D->sel.format};
    GS_CHECK(gs_comm_max_i64(f, 2));
    if (f[0] == -f[1])
        gs_str_copy(R->format, sizeof R->format, gs_format_name((gs_format)f[0]));
    else
        snprintf(R->format, sizeof R->format, "%s..%s", gs_format_name((gs_format)-f[1]),
                 gs_format_name((gs_format)f[0]));
    snprintf(R->reason, sizeof R->reason, "rank 0's block: %.140s", D->sel.reason);
    if (amg->lev[l].DP) {
        gs_str_copy(R->format_p, sizeof R->format_p, gs_format_name(amg->lev[l].DP->sel.format));
        gs_str_copy(R->format_r, sizeof R->format_r, gs_format_name(amg->lev[l].DR->sel.format));
    }
done:
    return st;
}

/* the level with at most gather_rows rows: whole on every rank, its hierarchy built there */
static gs_status gather_tail(gs_amg_dist *amg, const gs_gcsr *A, const gs_part *part,
                             const double *B, gs_loc B_loc, int b, int k, const char *where)
{
    gs_status st = GS_OK;
    gs_csr *H = NULL;
    double *Bw = NULL, *Bh = NULL;
    const int R = part->nranks;
    const int64_t n = part->start[R];
    gs_amg_params tp = amg->p;
    GS_CHECK(gs_dist_allgather(A, part, &H));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(size_t), "gather", (void **)&amg->gbytes));
    for (int r = 0; r < R; r++)
        amg->gbytes[r] = (size_t)(part->start[r + 1] - part->start[r]) * sizeof(double);
    /* the whole near-nullspace: k columns of rows, or (the default near-nullspace of a block
     * system, kept as node weights: gs_amg_coarsen) one weight a node, made explicit here */
    const int wform = B && !amg->p.nullspace && b > 1;
    const int cols = wform ? 1 : k, per = wform ? b : 1;
    if (B) {
        const int64_t mine = A->rows / per;
        size_t *cb = NULL;
        GS_CHECK(gs_alloc_array((size_t)mine * (size_t)cols + 1, sizeof *Bh, "near-nullspace",
                                (void **)&Bh));
        if (B_loc == GS_LOC_HOST)
            memcpy(Bh, B, (size_t)mine * (size_t)cols * sizeof *Bh);
        else
            GS_CHECK(gs_backend_get(B_loc)->get(Bh, B, (size_t)mine * (size_t)cols * sizeof *Bh));
        GS_CHECK(gs_alloc_array((size_t)n * (size_t)cols + 1, sizeof *Bw, "near-nullspace",
                                (void **)&Bw));
        st = gs_alloc_array((size_t)R, sizeof *cb, "gather", (void **)&cb);
        for (int r = 0; r < R && st == GS_OK; r++) cb[r] = amg->gbytes[r] / (size_t)per;
        for (int c = 0; c < cols && st == GS_OK; c++)
            st = gs_comm_allgatherv(Bh + (size_t)c * (size_t)mine, (size_t)mine * sizeof(double),
                                    Bw + (size_t)c * (size_t)(n / per), cb);
        gs_free(cb);
        GS_CHECK(st);
        if (wform) { /* vector c: the node's weight on its unknown c */
            double *Be = NULL;
            GS_CHECK(gs_amg_block_nullspace((int32_t)(n / b), b, Bw, &Be));
            gs_free(Bw);
            Bw = Be;
        }
        tp.nullspace = Bw;
        tp.nullspace_k = wform ? b : k;
    } else {
        tp.nullspace = NULL;
    }
    tp.block_size = b;
    tp.first_level = amg->nd; /* its levels' choices as the one-process hierarchy's there */
    tp.max_levels = amg->p.max_levels - amg->nd;
    if (tp.max_levels < 1) tp.max_levels = 1;
    GS_CHECK(gs_csr_upload(H, amg->loc, &amg->tailA));
    gs_vec_local_begin(); /* the same whole matrix on every rank: no sums across them */
    st = gs_amg_setup(amg->tailA, &tp, where, &amg->tail);
    gs_vec_local_end();
    GS_CHECK(st);
    GS_CHECK(gs_vec_create(n, amg->loc, &amg->tb));
    GS_CHECK(gs_vec_create(n, amg->loc, &amg->tx));
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof(double), "gather", (void **)&amg->hb));
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof(double), "gather", (void **)&amg->hx));
    GS_CHECK(gs_alloc_array((size_t)A->rows + 1, sizeof(double), "gather", (void **)&amg->hpart));
done:
    gs_csr_destroy(&H);
    gs_free(Bw);
    gs_free(Bh);
    return st;
}

gs_status gs_amg_dist_setup(const gs_gcsr *A, const gs_part *part, const gs_dist_op *A0,
                            const gs_amg_params *p, int64_t gather_rows, const char *where,
                            gs_amg_dist **out)
{
    gs_status st = GS_OK;
    gs_amg_dist *amg = NULL;
    gs_gcsr *S = NULL, *T = NULL, *P = NULL, *AP = NULL;
    gs_part *cpart = NULL;
    double *B = NULL, t_start, t0, t1, *ph;
    gs_loc B_loc = GS_LOC_HOST;
    const gs_loc loc = A0->loc;
    if (!where) where = "matrix";
    if (gather_rows <= 0) gather_rows = GATHER_ROWS_DEFAULT;
    /* the setup's host arrays live for a step or a level: page-locking them would cost more than
     * their uploads gain */
    const int pinned = gs_mem_pinned_enable(0);
    int b = p->block_size > 0 ? p->block_size : 1, k = p->nullspace ? p->nullspace_k : b;
    const int b0 = b, k0 = k;
    if (A->rows % b != 0)
        st = GS_ERROR(GS_ERR_CONFIG, "%s: %d rows of this rank are not a multiple of "
                      "amg.block_size = %d", where, A->rows, b);
    GS_CHECK(gs_comm_agree(st));
    GS_CHECK(gs_alloc_array(1, sizeof *amg, "AMG hierarchy", (void **)&amg));
    memset(amg, 0, sizeof *amg);
    amg->p = *p;
    if (!amg->p.smoother) amg->p.smoother = gs_smoother_default();
    amg->loc = loc;
    amg->be = gs_backend_get(loc);
    amg->ops = gs_amg_ops_at(loc);
    GS_CHECK(gs_alloc_array(1, sizeof *amg->shell, "AMG hierarchy", (void **)&amg->shell));
    memset(amg->shell, 0, sizeof *amg->shell);
    amg->shell->p = amg->p;
    amg->shell->loc = loc;
    amg->shell->be = amg->be;
    amg->shell->ops = amg->ops;
    ph = amg->rep.phase_s;
    GS_CHECK(sync_now(amg, &t_start));
    if (p->nullspace) {
        GS_CHECK(gs_alloc_array((size_t)A->rows * k + 1, sizeof *B, "near-nullspace",
                                (void **)&B));
        memcpy(B, p->nullspace, (size_t)A->rows * k * sizeof *B);
    }
    amg->lev[0].A = A;
    amg->lev[0].DA = A0;
    GS_CHECK(gs_alloc_array(1, sizeof *amg->lev[0].part, "partition", (void **)&amg->lev[0].part));
    amg->lev[0].part->nranks = part->nranks;
    amg->lev[0].part->start = NULL;
    GS_CHECK(gs_alloc_array((size_t)part->nranks + 1, sizeof(int64_t), "partition",
                            (void **)&amg->lev[0].part->start));
    memcpy(amg->lev[0].part->start, part->start, ((size_t)part->nranks + 1) * sizeof(int64_t));
    int max_levels = p->max_levels < GS_AMG_MAX_LEVELS ? p->max_levels : GS_AMG_MAX_LEVELS;
    for (int l = 0;; l++) {
        dlevel *L = &amg->lev[l];
        const int64_t n = L->part->start[L->part->nranks];
        if (n <= gather_rows || l + 1 >= max_levels) { /* the rest on every rank, whole */
            amg->nd = l;
            GS_CHECK(gather_tail(amg, L->A, L->part, B, B_loc, b, k, where));
            break;
        }
        if (!L->DA) {
            GS_CHECK(sync_now(amg, &t0));
            GS_CHECK(gs_dist_op_create(L->A, L->part, loc, p->select, l, &L->DAown));
            L->DA = L->DAown;
            GS_CHECK(sync_now(amg, &t1));
            ph[GS_AMG_PHASE_CONVERT] += t1 - t0;
        }
        GS_CHECK(sync_now(amg, &t0));
        trace(amg, l, NULL);
        GS_CHECK(level_diag(amg, l, where));
        trace(amg, l, "diagonal, rho, smoother");
        if (p->smooth_prolongator && L->rho > 0)
            GS_CHECK(smoothing_matrix(amg, l, b, k, B, B_loc, &S));
        trace(amg, l, "smoothing matrix");
        GS_CHECK(sync_now(amg, &t1));
        ph[GS_AMG_PHASE_PROLONG] += t1 - t0;
        GS_CHECK(coarsen(amg, l, b, &B, &B_loc, &k, &T, &cpart, ph));
        trace(amg, l, "aggregates, tentative");
        const int64_t nc = cpart->start[cpart->nranks];
        if (nc == 0 || nc >= n) { /* no coarsening: this level is gathered and ends there */
            gs_gcsr_destroy(&T);
            gs_gcsr_destroy(&S);
            gs_part_destroy(&cpart);
            amg->nd = l;
            GS_CHECK(gather_tail(amg, L->A, L->part, NULL, GS_LOC_HOST, b, b, where));
            break;
        }
        GS_CHECK(sync_now(amg, &t0));
        if (S) {
            GS_CHECK(gs_dist_matmul(S, T, L->part, loc, &P));
            trace(amg, l, "P = S T");
            gs_gcsr_destroy(&S);
            gs_gcsr_destroy(&T);
        } else {
            P = T;
            T = NULL;
        }
        gs_gcsr *R = NULL;
        GS_CHECK(gs_dist_transpose(P, cpart, &R));
        trace(amg, l, "R = P^T");
        GS_CHECK(sync_now(amg, &t1));
        ph[GS_AMG_PHASE_PROLONG] += t1 - t0;
        dlevel *C = &amg->lev[l + 1];
        st = gs_dist_matmul(L->A, P, L->part, loc, &AP);
        trace(amg, l, "A P");
        if (st == GS_OK) st = gs_dist_matmul(R, AP, L->part, loc, &C->Aown);
        trace(amg, l, "R (A P)");
        gs_gcsr_destroy(&AP);
        if (st == GS_OK) st = gs_dist_op_create(P, cpart, loc, p->select, l, &L->DP);
        if (st == GS_OK) st = gs_dist_op_create(R, L->part, loc, p->select, l, &L->DR);
        trace(amg, l, "SpMV forms of P, R");
        gs_gcsr_destroy(&P);
        gs_gcsr_destroy(&R);
        GS_CHECK(st);
        GS_CHECK(sync_now(amg, &t0));
        ph[GS_AMG_PHASE_RAP] += t0 - t1;
        C->A = C->Aown;
        C->part = cpart;
        cpart = NULL;
        b = k;
    }
    /* vectors and the report: the distributed levels, then the gathered ones */
    const gs_amg_report *tr = gs_amg_get_report(amg->tail);
    double nnz0 = 0, rows0 = 0;
    for (int l = 0; l <= amg->nd; l++) {
        dlevel *L = &amg->lev[l];
        int32_t n = L->A->rows;
        if (l < amg->nd) {
            GS_CHECK(report_level(amg, l, L->A, L->DA));
            GS_CHECK(gs_vec_create(n, loc, &L->r));
            GS_CHECK(gs_vec_create(n, loc, &L->y));
            GS_CHECK(gs_vec_create(n, loc, &L->d));
            L->sl.y = L->y;
            L->sl.d = L->d;
        }
        if (l > 0) {
            GS_CHECK(gs_vec_create(n, loc, &L->x));
            GS_CHECK(gs_vec_create(n, loc, &L->b));
        }
    }
    for (int l = 0; l < tr->levels && amg->nd + l < GS_AMG_MAX_LEVELS; l++) {
        amg->rep.level[amg->nd + l] = tr->level[l];
        if (l == 0) amg->rep.level[amg->nd].rho = tr->level[0].rho;
    }
    amg->rep.levels = amg->nd + tr->levels;
    if (amg->rep.levels > GS_AMG_MAX_LEVELS) amg->rep.levels = GS_AMG_MAX_LEVELS;
    nnz0 = (double)amg->rep.level[0].nnz;
    rows0 = (double)amg->rep.level[0].rows;
    for (int l = 0; l < amg->rep.levels; l++) {
        amg->rep.operator_complexity += nnz0 > 0 ? (double)amg->rep.level[l].nnz / nnz0 : 1.0;
        amg->rep.grid_complexity += rows0 > 0 ? (double)amg->rep.level[l].rows / rows0 : 1.0;
    }
    for (int i = 0; i < GS_AMG_PHASES; i++) ph[i] += tr->phase_s[i];
    gs_str_copy(amg->rep.coarse_desc, sizeof amg->rep.coarse_desc, tr->coarse_desc);
    GS_CHECK(sync_now(amg, &t1));
    amg->rep.setup_s = t1 - t_start;
    snprintf(amg->rep.desc, sizeof amg->rep.desc,
             "%s cycle, %s, %d+%d sweeps, mis2 aggregation within each of %d ranks, %s strength "
             "theta %g%s, %d levels across ranks then gathered, block %d",
             p->cycle_w ? "W" : "V", amg->p.smoother->label, p->presweeps, p->postsweeps,
             gs_comm_size(), p->strength == GS_STRENGTH_ROWMAX ? "rowmax" : "symmetric", p->theta,
             p->filter && p->theta > 0 && b0 == 1 && k0 == 1 ? ", filtered P smoothing" : "",
             amg->nd, b0);
    if (amg->p.smoother->describe) {
        size_t len = strlen(amg->rep.desc);
        amg->p.smoother->describe(&amg->p, amg->rep.levels, amg->rep.desc + len,
                                  sizeof amg->rep.desc - len);
    }
    amg->p.select = NULL;
    amg->shell->p.select = NULL;
    *out = amg;
    amg = NULL;
done:
    if (B) gs_backend_get(B_loc)->free(B);
    gs_gcsr_destroy(&S);
    gs_gcsr_destroy(&T);
    gs_gcsr_destroy(&P);
    gs_gcsr_destroy(&AP);
    gs_part_destroy(&cpart);
    gs_amg_dist_destroy(&amg);
    gs_mem_pinned_enable(pinned);
    return gs_comm_agree(st);
}

void gs_amg_dist_destroy(gs_amg_dist **pa)
{
    if (!pa || !*pa) return;
    gs_amg_dist *amg = *pa;
    for (int l = 0; l < GS_AMG_MAX_LEVELS; l++) {
        dlevel *L = &amg->lev[l];
        gs_gcsr_destroy(&L->Aown);
        gs_part_destroy(&L->part);
        gs_dist_op_destroy(&L->DAown);
        gs_dist_op_destroy(&L->DP);
        gs_dist_op_destroy(&L->DR);
        gs_csr_destroy(&L->Al1);
        if (L->smooth) amg->p.smoother->destroy(L->smooth, amg->be);
        if (L->dinv) amg->be->free(L->dinv);
        gs_vec_destroy(&L->x);
        gs_vec_destroy(&L->b);
        gs_vec_destroy(&L->r);
        gs_vec_destroy(&L->y);
        gs_vec_destroy(&L->d);
    }
    gs_amg_destroy(&amg->tail);
    gs_csr_destroy(&amg->tailA);
    gs_vec_destroy(&amg->tb);
    gs_vec_destroy(&amg->tx);
    gs_free(amg->hb);
    gs_free(amg->hx);
    gs_free(amg->hpart);
    gs_free(amg->gbytes);
    gs_free(amg->shell);
    gs_free(amg);
    *pa = NULL;
}

/* the gathered level: every rank's part of b into the whole b, the one-process cycle, this
 * rank's part of its x */
static gs_status tail_cycle(gs_amg_dist *amg, const gs_vec *b, gs_vec *x)
{
    gs_status st = GS_OK;
    const dlevel *L = &amg->lev[amg->nd];
    const int me = gs_comm_rank();
    const int64_t row0 = L->part->start[me], n = b->n;
    GS_CHECK(gs_vec_get_host(b, amg->hpart));
    GS_CHECK(gs_comm_allgatherv(amg->hpart, (size_t)n * sizeof(double), amg->hb, amg->gbytes));
    GS_CHECK(gs_vec_set_host(amg->tb, amg->hb));
    gs_vec_local_begin();
    st = gs_amg_apply(amg->tail, amg->tb, amg->tx);
    gs_vec_local_end();
    GS_CHECK(st);
    GS_CHECK(gs_vec_get_host(amg->tx, amg->hx));
    GS_CHECK(gs_vec_set_host(x, amg->hx + row0));
done:
    return st;
}

static gs_status cycle(gs_amg_dist *amg, int l, const gs_vec *b, gs_vec *x, int x_zero)
{
    gs_status st = GS_OK;
    dlevel *L = &amg->lev[l];
    if (l == amg->nd) return tail_cycle(amg, b, x);
    dlevel *C = &amg->lev[l + 1];
    const gs_smoother *sm = amg->p.smoother;
    int pre = amg->p.presweeps;
    for (int s = 0; s < pre; s++, x_zero = 0) GS_CHECK(sm->apply(L->smooth, &L->sl, b, x, x_zero));
    if (pre == 0 && x_zero) {
        GS_CHECK(gs_spmat_spmv(gs_dist_op_spmat(L->DR), b, C->b));
    } else {
        GS_CHECK(gs_spmat_spmv(gs_dist_op_spmat(L->DA), x, L->r));
        GS_CHECK(gs_vec_axpby(1.0, b, -1.0, L->r));
        GS_CHECK(gs_spmat_spmv(gs_dist_op_spmat(L->DR), L->r, C->b));
    }
    GS_CHECK(cycle(amg, l + 1, C->b, C->x, 1));
    if (amg->p.cycle_w && l + 1 < amg->nd) GS_CHECK(cycle(amg, l + 1, C->b, C->x, 0));
    GS_CHECK(gs_spmat_spmv(gs_dist_op_spmat(L->DP), C->x, L->y));
    if (pre == 0 && x_zero)
        GS_CHECK(gs_vec_copy(L->y, x));
    else
        GS_CHECK(gs_vec_axpy(1.0, L->y, x));
    for (int s = 0; s < amg->p.postsweeps; s++) GS_CHECK(sm->apply(L->smooth, &L->sl, b, x, 0));
done:
    return st;
}

gs_status gs_amg_dist_apply(gs_amg_dist *amg, const gs_vec *r, gs_vec *z)
{
    gs_status st = cycle(amg, 0, r, z, 1);
    if (st != GS_OK) gs_comm_abort(st); /* the other ranks wait in this cycle's exchanges */
    return st;
}

static gs_status linop_apply(void *ctx, const gs_vec *x, gs_vec *y)
{
    return gs_amg_dist_apply(ctx, x, y);
}

gs_linop gs_amg_dist_linop(gs_amg_dist *amg)
{
    gs_linop op = {amg->lev[0].A->rows, amg, linop_apply, NULL};
    return op;
}

const gs_amg_report *gs_amg_dist_report(const gs_amg_dist *amg) { return &amg->rep; }

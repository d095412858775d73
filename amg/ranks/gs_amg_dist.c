/* gs_amg_dist.c: smoothed aggregation across MPI ranks (gs_amg_dist.h): setup, gathered tail. */
#include "gs_amg_dist.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gs_amg_dist_impl.h"
#include "gs_comm.h"
#include "gs_log.h"
#include "gs_spgemm.h"
#include "gs_time.h"

#define GATHER_ROWS_DEFAULT 20000

/* amg.trace (verbosity 3): each setup step's time on rank 0's stderr, the slowest rank's (and
 * which) and the fastest's. Every rank calls it at the same points; the ranks wait for each
 * other there (only when tracing), so each step starts together and its time is the rank's own
 * work and its waits inside the step. */
#define GS_TRACE_RANKS 64 /* ranks whose step times are gathered (more: rank 0's only) */
static double g_trace_t;
void gs_amg_dist_trace(const gs_amg_dist *amg, int l, const char *what)
{
    if (!amg->p.trace) return;
    (void)amg->be->sync();
    const int R = gs_comm_size();
    int64_t us = (int64_t)(1e6 * (gs_time_now() - g_trace_t)), all[GS_TRACE_RANKS];
    if (R <= GS_TRACE_RANKS && gs_comm_allgather_i64(us, all) == GS_OK && what &&
        gs_comm_rank() == 0) {
        int hi = 0, lo = 0;
        for (int r = 1; r < R; r++) {
            if (all[r] > all[hi]) hi = r;
            if (all[r] < all[lo]) lo = r;
        }
        char pool[80] = "";
        if (amg->loc != GS_LOC_HOST) gs_backend_mem_text(pool, sizeof pool);
        gs_log(GS_LOG_INFO, "amg setup: level %d %-24s rank 0 %8.3f ms, slowest rank %d %8.3f ms, "
               "fastest %8.3f ms%s", l, what, 1e-3 * (double)all[0], hi, 1e-3 * (double)all[hi],
               1e-3 * (double)all[lo], pool);
    } else if (what && gs_comm_rank() == 0) {
        gs_log(GS_LOG_INFO, "amg setup (rank 0): level %d %-22s %8.3f ms", l, what, 1e-3 * (double)us);
    }
    g_trace_t = gs_time_now();
}

static gs_status sync_now(const gs_amg_dist *amg, double *t)
{
    gs_status st = amg->be->sync();
    *t = gs_time_now();
    return st;
}

const gs_dist_ops *gs_amg_dist_dops(const gs_amg_dist *amg)
{
    return (const gs_dist_ops *)gs_backend_module(amg->loc, GS_MODULE_DIST);
}

/* D^-1, rho(D^-1 A) and the smoother of distributed level l */
static gs_status level_diag(gs_amg_dist *amg, int l, const char *where)
{
    gs_status st = GS_OK;
    dlevel *L = &amg->lev[l];
    gs_amg_level *H = &amg->h->lev[l];
    const gs_dist_op *D = L->DA;
    double *sq = NULL;
    int64_t bad = 0, first = -1;
    GS_CHECK(amg->be->alloc(((size_t)D->rows + 1) * sizeof(double), "AMG diagonal",
                            (void **)&H->dinv));
    GS_CHECK(amg->be->alloc(((size_t)D->rows + 1) * sizeof(double), "AMG diagonal",
                            (void **)&sq));
    GS_CHECK(amg->ops->diag_inv(D->diag, 0, H->dinv, sq, &bad, &first));
    if (bad > 0 && l == 0)
        st = GS_ERROR(GS_ERR_INPUT, "%s: row %lld has a zero, missing or non-finite diagonal "
                      "entry (%lld rows of this rank's block); smoothed-aggregation AMG needs a "
                      "nonzero diagonal", where, (long long)(D->row0 + first + 1),
                      (long long)bad);
    GS_CHECK(gs_comm_agree(st));
    gs_amg_dist_trace(amg, l, "   (diagonal)");
    amg->h->rho_rows = L->part->start[L->part->nranks];
    GS_CHECK(gs_amg_estimate_rho(amg->h, D->diag, gs_dist_op_spmat(D), sq, &H->rho));
    H->rho_known = 1;
    gs_amg_dist_trace(amg, l, "   (rho)");
    /* l1 row sums over the whole rows (compact columns: the own block, then the halo, which
     * Gauss-Seidel's triangles leave out) */
    if (amg->p.smoother->whole_rows) L->Al1 = D->compact;
    int64_t nz = D->compact->nnz; /* the level's share of level 0's nonzeros, the same on all */
    GS_CHECK(gs_comm_sum_i64(&nz, 1));
    if (l == 0) amg->nnz0 = nz;
    H->sl = (gs_smoother_level){.p = &amg->h->p, .ops = amg->ops, .be = amg->be, .level = l,
                                .A = L->Al1 ? L->Al1 : D->diag, .MA = gs_dist_op_spmat(D),
                                .dinv = H->dinv, .rho = H->rho,
                                .share = amg->nnz0 > 0 ? (double)nz / (double)amg->nnz0 : 0.0};
    GS_CHECK(amg->p.smoother->setup(&H->sl, &H->smooth));
done:
    if (sq) amg->be->free(sq);
    return st;
}

/* S = I - omega / rho D_F^-1 F on level l's rows, compact columns at loc (A's: own, then its
 * halo), F the filtered A (its own diagonal and rho) where filtering applies, else A; B: this
 * rank's near-nullspace at B_loc */
static gs_status smoothing_matrix(gs_amg_dist *amg, int l, int b, int k, const double *B,
                                  gs_loc B_loc, gs_csr **S)
{
    gs_status st = GS_OK;
    dlevel *L = &amg->lev[l];
    const gs_dist_op *D = L->DA;
    const gs_amg_params *p = &amg->p;
    gs_csr *F = NULL;
    gs_dist_op *DF = NULL;
    gs_vec *w = NULL;
    const gs_amg_level *H = &amg->h->lev[l];
    double *dF = NULL, *sqF = NULL, rho = H->rho;
    const int64_t grows = L->part->start[L->part->nranks];
    int filtered = p->filter && p->theta > 0 && b == 1 && k == 1;
    if (filtered) {
        /* the near-nullspace on the rows and the halo (ones by default) */
        GS_CHECK(gs_vec_create((int64_t)D->cols + D->nhalo, amg->loc, &w));
        if (B) {
            const size_t bytes = (size_t)D->cols * sizeof(double);
            if (B_loc == amg->loc)
                GS_CHECK(amg->be->move(w->data, B, bytes));
            else if (B_loc == GS_LOC_HOST)
                GS_CHECK(amg->be->put(w->data, B, bytes));
            else
                GS_FAIL(GS_ERR_INTERNAL, "AMG: the near-nullspace is on another device");
        } else {
            GS_CHECK(amg->be->fill(1.0, w));
        }
        GS_CHECK(gs_dist_op_halo(D, w->data, w->data + D->cols));
        double tf = p->theta;
        for (int i = 0; i < l; i++) tf *= 0.25;
        GS_CHECK(amg->ops->filter(D->compact, tf, p->strength, B ? w->data : NULL, &F));
        gs_amg_dist_trace(amg, l, "  filter");
    }
    int64_t anyF = F != NULL; /* F = A on every rank, or F's own rho over all of them */
    GS_CHECK(gs_comm_max_i64(&anyF, 1));
    if (anyF) {
        int64_t bad, first;
        if (!F) GS_CHECK(gs_sparse_row_slice(D->compact, 0, D->rows, &F)); /* a copy */
        /* A's columns and halo: its plan copied, its halos through A's CUDA IPC buffers
         * (rho's twelve products; DF is destroyed before D); F's rows not split */
        GS_CHECK(gs_dist_op_whole_like(&F, D, &DF));
        GS_CHECK(amg->be->alloc(((size_t)D->rows + 1) * sizeof(double), "AMG diagonal",
                                (void **)&dF));
        GS_CHECK(amg->be->alloc(((size_t)D->rows + 1) * sizeof(double), "AMG diagonal",
                                (void **)&sqF));
        GS_CHECK(amg->ops->diag_inv(DF->compact, 0, dF, sqF, &bad, &first));
        amg->h->rho_rows = grows;
        gs_amg_dist_trace(amg, l, "  F's SpMV form");
        GS_CHECK(gs_amg_estimate_rho(amg->h, DF->compact, gs_dist_op_spmat(DF), sqF, &rho));
        gs_amg_dist_trace(amg, l, "  F's rho");
        if (!(rho > 0)) rho = H->rho;
        GS_CHECK(amg->ops->jacobi_matrix(DF->compact, dF, p->prolongator_omega / rho, S));
    } else {
        GS_CHECK(amg->ops->jacobi_matrix(D->compact, H->dinv, p->prolongator_omega / rho, S));
    }
    gs_amg_dist_trace(amg, l, "  I - w D^-1 F");
done:
    gs_csr_destroy(&F);
    gs_dist_op_destroy(&DF);
    gs_vec_destroy(&w);
    if (dF) amg->be->free(dF);
    if (sqF) amg->be->free(sqF);
    return st;
}

/* the tentative prolongator of level l (this rank's rows and aggregates, at loc) and the coarse
 * partition; B becomes the coarse near-nullspace (this rank's coarse rows) */
static gs_status coarsen(gs_amg_dist *amg, int l, int b, double **B, gs_loc *B_loc, int *k,
                         gs_csr **T, int *one, gs_part **cpart, double *ph)
{
    gs_status st = GS_OK;
    dlevel *L = &amg->lev[l];
    gs_amg_level *S = &amg->h->lev[l];
    gs_csr *hT = NULL, *Lm = NULL;
    int32_t nagg = 0;
    *one = 0;
    S->A = L->DA->diag; /* strength and aggregates on the rank's diagonal block */
    gs_amg_trace(amg->h, l, NULL); /* its trace's clock from here */
    if (amg->p.method == GS_AMG_METHOD_CLASSICAL) {
        /* C/F splitting and P within the block, its couplings to other ranks lumped into the
         * diagonal (left out, they would count as a Dirichlet boundary at every rank's edge:
         * P1 Darcy with channels, 52k rows, 144 -> 40 CG iterations on 2 ranks, 207 -> 43 on 4,
         * one process 8: bench/results/ranks_unseen_host_2026-11-30.md) */
        GS_CHECK(gs_amg_dist_dops(amg)->lump_halo(L->DA->compact, L->DA->cols, &Lm));
        S->A = Lm;
        st = gs_amg_classical_p(amg->h, l, GS_SPGEMM_AUTO, &nagg, T, ph);
        S->A = L->DA->diag;
        gs_csr_destroy(&Lm);
        GS_CHECK(st);
    } else {
        GS_CHECK(gs_amg_coarsen(amg->h, l, b, B, B_loc, k, T, &nagg, one, ph));
    }
    gs_buf_destroy(&S->agg);
    if (!*T) { /* no aggregate here: no columns */
        GS_CHECK(gs_csr_create(L->DA->rows, 0, 0, &hT));
        memset(hT->rowptr, 0, ((size_t)hT->rows + 1) * sizeof *hT->rowptr);
    } else if ((*T)->loc != amg->loc) {
        hT = *T;
        *T = NULL;
    }
    if (hT) GS_CHECK(gs_csr_upload(hT, amg->loc, T));
    GS_CHECK(gs_part_from_count((*T)->cols, cpart));
done:
    gs_csr_destroy(&Lm);
    gs_csr_destroy(&hT);
    return st;
}

/* n host values of `size` bytes into a new array at loc (at least one element) */
gs_status gs_amg_dist_to_loc(const gs_amg_dist *amg, const void *h, int64_t n, size_t size,
                             const char *what, void **out)
{
    gs_status st = GS_OK;
    *out = NULL;
    GS_CHECK(amg->be->alloc(((size_t)n + 1) * size, what, out));
    if (n > 0) GS_CHECK(amg->be->put(*out, h, (size_t)n * size));
done:
    return st;
}

/* level l's statistics over the ranks into the report */
static gs_status report_level(gs_amg_dist *amg, int l, const gs_dist_op *D)
{
    gs_status st = GS_OK;
    gs_amg_level_report *R = &amg->h->rep.level[l];
    double mean = 0, sd = 0, s2[2];
    int32_t mx = 0;
    if (D->rows > 0) GS_CHECK(amg->ops->row_stats(D->compact, &mean, &sd, &mx));
    int64_t nnz = D->compact->nnz, rows = D->rows, lmax = mx, tot_nnz, tot_rows;
    double sq = (double)rows * (sd * sd + mean * mean);
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
    R->rho = amg->h->lev[l].rho;
    R->rho_known = 1;
    /* the diagonal block's format: the same on every rank, or the range of the choices */
    int64_t f[2] = {D->sel.format, -(int64_t)D->sel.format};
    GS_CHECK(gs_comm_max_i64(f, 2));
    if (f[0] == -f[1])
        gs_str_copy(R->format, sizeof R->format, gs_format_name((gs_format)f[0]));
    else
        snprintf(R->format, sizeof R->format, "%s..%s", gs_format_name((gs_format)-f[1]),
                 gs_format_name((gs_format)f[0]));
    gs_str_copy(R->reason, sizeof R->reason, "rank 0's block: ");
    gs_select_reason_append(R->reason, sizeof R->reason, D->sel.reason);
    if (amg->lev[l].DP) {
        gs_str_copy(R->format_p, sizeof R->format_p, gs_format_name(amg->lev[l].DP->sel.format));
        gs_str_copy(R->format_r, sizeof R->format_r, gs_format_name(amg->lev[l].DR->sel.format));
    }
done:
    return st;
}

/* the whole of distributed level l at loc, the same on every rank (rows in global order, their
 * global columns in each owner's order, as gs_dist_allgather gives them): each rank's rows packed
 * with global columns, sent to every rank where the matrices live (an allgather) */
static gs_status gather_at(const gs_amg_dist *amg, int l, gs_csr **out)
{
    gs_status st = GS_OK;
    const dlevel *L = &amg->lev[l];
    const gs_dist_op *D = L->DA;
    const gs_csr *C = D->compact;
    const gs_dist_ops *ops = gs_amg_dist_dops(amg);
    const int R = L->part->nranks;
    const int64_t n = L->part->start[R], nnz = C->nnz;
    const int32_t rows = C->rows;
    int32_t *len = NULL, *lall = NULL;
    int64_t *cnt = NULL, *dh = NULL, *g = NULL, *gall = NULL, total = 0;
    double *v = NULL, *vall = NULL;
    size_t *rb = NULL;
    *out = NULL;
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *cnt, "gather", (void **)&cnt));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *rb, "gather", (void **)&rb));
    GS_CHECK(gs_comm_allgather_i64(nnz, cnt));
    for (int r = 0; r < R; r++) total += cnt[r];
    if (n > GS_MAX_INDEX || total > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "gathering a %lld-row matrix with %lld nonzeros onto one "
                "rank (below 2^31 each)", (long long)n, (long long)total);
    /* this rank's rows: lengths, entries with global columns (each row where C has it) */
    GS_CHECK(amg->be->alloc(((size_t)rows + 1) * sizeof *len, "gather", (void **)&len));
    GS_CHECK(ops->row_lengths(C, rows, NULL, len));
    GS_CHECK(gs_amg_dist_to_loc(amg, D->halo, D->nhalo, sizeof *D->halo, "gather", (void **)&dh));
    GS_CHECK(amg->be->alloc(((size_t)nnz + 1) * sizeof *g, "gather", (void **)&g));
    GS_CHECK(amg->be->alloc(((size_t)nnz + 1) * sizeof *v, "gather", (void **)&v));
    GS_CHECK(ops->pack_rows(C, rows, NULL, NULL, D->col0, D->cols, dh, g, v));
    gs_amg_dist_trace(amg, l, "   (rows packed)");
    /* to every rank: the lengths, then columns and values */
    GS_CHECK(amg->be->alloc(((size_t)n + 1) * sizeof *lall, "gather", (void **)&lall));
    GS_CHECK(amg->be->alloc(((size_t)total + 1) * sizeof *gall, "gather", (void **)&gall));
    GS_CHECK(amg->be->alloc(((size_t)total + 1) * sizeof *vall, "gather", (void **)&vall));
    for (int r = 0; r < R; r++)
        rb[r] = (size_t)(L->part->start[r + 1] - L->part->start[r]) * sizeof *len;
    {
        const void *snd[1] = {len};
        void *rcv[1] = {lall};
        GS_CHECK(gs_dist_allgatherv_at(amg->loc, 1, snd, (size_t)rows * sizeof *len, rcv, rb));
    }
    gs_amg_dist_trace(amg, l, "   (lengths exchanged)");
    for (int r = 0; r < R; r++) rb[r] = (size_t)cnt[r] * sizeof *g;
    { /* columns and values (doubles: the same byte counts) in one exchange */
        const void *snd[2] = {g, v};
        void *rcv[2] = {gall, vall};
        GS_CHECK(gs_dist_allgatherv_at(amg->loc, 2, snd, (size_t)nnz * sizeof *g, rcv, rb));
    }
    gs_amg_dist_trace(amg, l, "   (entries exchanged)");
    GS_CHECK(ops->csr_from_rows((int32_t)n, (int32_t)n, lall, total, gall, vall, out));
done:
    if (len) amg->be->free(len);
    if (dh) amg->be->free(dh);
    if (g) amg->be->free(g);
    if (v) amg->be->free(v);
    if (lall) amg->be->free(lall);
    if (gall) amg->be->free(gall);
    if (vall) amg->be->free(vall);
    gs_free(cnt);
    gs_free(rb);
    return st;
}

/* amg->TG for gathered level l: an operator of this rank's rows with no entries, whose halo is
 * every row the others own, so that its halo exchange is the cycle's gather of b: device to
 * device through CUDA IPC where the products' halos go so (signalled on the device, it joins
 * the cycle's graph), else through MPI as any halo. Collective. */
static gs_status tail_gather_op(gs_amg_dist *amg, int l)
{
    gs_status st = GS_OK;
    const gs_part *part = amg->lev[l].part;
    const int R = part->nranks, me = gs_comm_rank();
    const int64_t n = part->start[R], row0 = part->start[me], own = part->start[me + 1] - row0;
    const int64_t nh = n - own;
    gs_csr *C = NULL;
    int64_t *h = NULL;
    if (R < 2) return GS_OK;
    GS_CHECK(gs_csr_create(own, n, 0, &C));
    memset(C->rowptr, 0, ((size_t)own + 1) * sizeof *C->rowptr);
    GS_CHECK(gs_alloc_array((size_t)nh + 1, sizeof *h, "gather", (void **)&h));
    for (int64_t i = 0; i < row0; i++) h[i] = i;
    for (int64_t i = row0 + own; i < n; i++) h[i - own] = i;
    GS_CHECK(gs_dist_op_create_compact(C, h, (int32_t)nh, row0, part, amg->loc, NULL, l,
                                       &amg->TG));
    GS_CHECK(gs_dist_op_use_ipc(amg->TG));
    GS_CHECK(amg->be->alloc(((size_t)nh + 1) * sizeof *amg->th, "gather", (void **)&amg->th));
done:
    gs_csr_destroy(&C);
    gs_free(h);
    return st;
}

/* the level l with at most gather_rows rows: whole on every rank (level 0, the caller's host
 * rows: through host MPI; a coarser one: where it lives), its hierarchy built there */
static gs_status gather_tail(gs_amg_dist *amg, int l, const double *B, gs_loc B_loc, int b,
                             int k, const char *where)
{
    gs_status st = GS_OK;
    gs_csr *H = NULL;
    double *Bw = NULL, *Bh = NULL;
    const dlevel *L = &amg->lev[l];
    const gs_part *part = L->part;
    const int R = part->nranks, me = gs_comm_rank();
    const int64_t n = part->start[R], own = part->start[me + 1] - part->start[me];
    if (L->A) {
        GS_CHECK(gs_dist_allgather(L->A, part, &H));
        GS_CHECK(gs_csr_upload(H, amg->loc, &amg->tailA));
    } else {
        GS_CHECK(gather_at(amg, l, &amg->tailA));
    }
    gs_amg_dist_trace(amg, l, "  gathered (whole level)");
    gs_amg_params tp = amg->p;
    tp.trace = amg->p.trace && gs_comm_rank() == 0; /* every rank builds the same: one trace */
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(size_t), "gather", (void **)&amg->gbytes));
    for (int r = 0; r < R; r++)
        amg->gbytes[r] = (size_t)(part->start[r + 1] - part->start[r]) * sizeof(double);
    /* the whole near-nullspace: k columns of rows, or (the default near-nullspace of a block
     * system, kept as node weights: gs_amg_coarsen) one weight a node, made explicit here */
    const int wform = B && !amg->p.nullspace && b > 1;
    const int cols = wform ? 1 : k, per = wform ? b : 1;
    if (B) {
        const int64_t mine = own / per;
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
    tp.method = amg->p.method; /* the distributed levels' method and restriction (P^T) */
    tp.smoother = amg->p.smoother;
    tp.first_level = amg->nd; /* its levels' choices as the one-process hierarchy's there */
    tp.max_levels = amg->p.max_levels - amg->nd;
    if (tp.max_levels < 1) tp.max_levels = 1;
    gs_vec_local_begin(); /* the same whole matrix on every rank: no sums across them */
    st = gs_amg_setup(amg->tailA, &tp, where, &amg->tail);
    gs_vec_local_end();
    GS_CHECK(st);
    gs_amg_dist_trace(amg, l, "  its hierarchy");
    GS_CHECK(gs_vec_create(n, amg->loc, &amg->tb));
    GS_CHECK(gs_vec_create(n, amg->loc, &amg->tx));
    GS_CHECK(tail_gather_op(amg, l));
    gs_amg_dist_trace(amg, l, "  cycle's gather");
    if (!amg->TG) {
        GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof(double), "gather", (void **)&amg->hb));
        GS_CHECK(gs_alloc_array((size_t)own + 1, sizeof(double), "gather", (void **)&amg->hpart));
    }
done:
    gs_csr_destroy(&H);
    gs_free(Bw);
    gs_free(Bh);
    return st;
}

/* the method, smoother and restriction left open, chosen from A as on one process
 * (gs_amg_choose: its symmetry, row statistics and coefficient variation over all ranks); a
 * restriction from A^T, which runs on one process only, becomes P^T */
static gs_status choose(gs_amg_dist *amg, const gs_dist_op *A0, int b)
{
    gs_status st = GS_OK;
    gs_amg *h = amg->h;
    double *dinv = NULL, *sq = NULL;
    int64_t bad = 0, first = -1;
    GS_CHECK(report_level(amg, 0, A0)); /* level 0's row statistics over the ranks */
    GS_CHECK(amg->be->alloc(((size_t)A0->rows + 1) * sizeof(double), "AMG diagonal",
                            (void **)&dinv));
    GS_CHECK(amg->be->alloc(((size_t)A0->rows + 1) * sizeof(double), "AMG diagonal",
                            (void **)&sq));
    GS_CHECK(amg->ops->diag_inv(A0->diag, 0, dinv, sq, &bad, &first)); /* checked later */
    GS_CHECK(gs_amg_choose(h, A0->diag, gs_dist_op_spmat(A0), dinv, b, A0->row0, 1));
    if (h->p.method == GS_AMG_METHOD_CLASSICAL && h->p.restriction == GS_AMG_RESTRICT_AT) {
        h->p.restriction = GS_AMG_RESTRICT_PT;
        char *c = strstr(h->rep.choice, "restriction at: "); /* the one-process choice's */
        if (c && c >= h->rep.choice + 2 && c[-2] == ';') c -= 2;
        if (c) *c = '\0';
        const size_t len = strlen(h->rep.choice);
        snprintf(h->rep.choice + len, sizeof h->rep.choice - len, "%srestriction pt: across "
                 "ranks classical AMG restricts with P^T", len ? "; " : "");
    }
    amg->p.method = h->p.method;
    amg->p.smoother = h->p.smoother;
    amg->p.presweeps = h->p.presweeps;
    amg->p.postsweeps = h->p.postsweeps;
    amg->p.restriction = h->p.restriction;
done:
    if (dinv) amg->be->free(dinv);
    if (sq) amg->be->free(sq);
    return st;
}

/* the levels' steps across ranks (gs_amg_steps): the distributed operators */
static int64_t dist_rows(void *ctx, const gs_amg *h, int l)
{
    const gs_part *part = ((const gs_amg_dist *)ctx)->lev[l].part;
    (void)h;
    return part->start[part->nranks];
}

/* from gather_rows rows on, the rest is gathered onto every rank and built there */
static int dist_ends(void *ctx, const gs_amg *h, int l, int64_t n, int last)
{
    (void)h, (void)l;
    return last || n <= ((const gs_amg_dist *)ctx)->gather_rows;
}

static gs_status dist_diag(void *ctx, gs_amg *h, int l, const char *where)
{
    gs_amg_dist *amg = ctx;
    (void)h;
    gs_amg_dist_trace(amg, l, NULL);
    gs_status st = level_diag(amg, l, where);
    gs_amg_dist_trace(amg, l, "diagonal, rho, smoother");
    return st;
}

static gs_status dist_smoothing(void *ctx, gs_amg *h, int l, int b, int k, const double *B,
                                gs_loc B_loc, gs_csr **S)
{
    gs_amg_dist *amg = ctx;
    (void)h;
    gs_status st = smoothing_matrix(amg, l, b, k, B, B_loc, S);
    gs_amg_dist_trace(amg, l, "smoothing matrix");
    return st;
}

static gs_status dist_coarsen(void *ctx, gs_amg *h, int l, int b, double **B, gs_loc *B_loc,
                              int *k, gs_csr **T, int64_t *nc, int *one_per_row, int *made,
                              double *ph)
{
    gs_status st = GS_OK;
    gs_amg_dist *amg = ctx;
    (void)h;
    *made = 0;
    GS_CHECK(coarsen(amg, l, b, B, B_loc, k, T, one_per_row, &amg->cpart, ph));
    gs_amg_dist_trace(amg, l, "aggregates, tentative");
    *nc = amg->cpart->start[amg->cpart->nranks];
done:
    return st;
}

static gs_status dist_prolongator(void *ctx, gs_amg *h, int l, gs_csr **S, gs_csr **T,
                                  int one_per_row)
{
    gs_status st = GS_OK;
    gs_amg_dist *amg = ctx;
    dlevel *L = &amg->lev[l];
    (void)h;
    GS_CHECK(gs_amg_dist_prolongator(amg, l, *S, T, one_per_row, amg->cpart));
    gs_csr_destroy(S);
    gs_amg_dist_trace(amg, l, "P = S T");
    GS_CHECK(gs_dist_op_use_ipc(L->DP));
    GS_CHECK(gs_dist_op_transpose(L->DP, amg->p.select, l, &L->DR));
    GS_CHECK(gs_dist_op_use_ipc(L->DR));
    gs_amg_dist_trace(amg, l, "R = P^T");
done:
    return st;
}

static gs_status dist_galerkin(void *ctx, gs_amg *h, int l)
{
    gs_status st = GS_OK;
    gs_amg_dist *amg = ctx;
    dlevel *C = &amg->lev[l + 1];
    (void)h;
    GS_CHECK(gs_amg_dist_galerkin(amg, l, amg->cpart, &C->DAown));
    GS_CHECK(gs_dist_op_use_ipc(C->DAown));
    C->DA = C->DAown;
    C->part = amg->cpart;
    amg->cpart = NULL;
    gs_amg_dist_trace(amg, l, "R A P");
done:
    return st;
}

gs_status gs_amg_dist_setup(const gs_gcsr *A, const gs_part *part, const gs_dist_op *A0,
                            const gs_amg_params *p, int64_t gather_rows, const char *where,
                            gs_amg **out)
{
    gs_status st = GS_OK;
    gs_amg_dist *amg = NULL;
    double *B = NULL, t_start, t1, *ph;
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
    /* classical AMG runs its splitting and P within each rank's rows, and restricts with P^T */
    if (amg->p.method == GS_AMG_METHOD_CLASSICAL && b > 1)
        st = GS_ERROR(GS_ERR_CONFIG, "%s: amg.method = \"classical\" is for scalar problems, and "
                      "amg.block_size is %d; use \"sa\" for block systems", where, b);
    else if (amg->p.method == GS_AMG_METHOD_CLASSICAL &&
             amg->p.restriction == GS_AMG_RESTRICT_AT)
        st = GS_ERROR(GS_ERR_CONFIG, "amg.restriction = \"at\" runs on one process; across MPI "
                      "ranks classical AMG restricts with P^T (amg.restriction = \"pt\" or "
                      "\"auto\")");
    GS_CHECK(gs_comm_agree(st));
    amg->loc = loc;
    amg->be = gs_backend_get(loc);
    amg->ops = gs_amg_ops_at(loc);
    /* the hierarchy the cycle runs: its levels' operators are the distributed ones, its coarsest
     * solve the gathered tail, which it holds and frees (gs_amg_dist_set_tail) */
    GS_CHECK(gs_alloc_array(1, sizeof *amg->h, "AMG hierarchy", (void **)&amg->h));
    memset(amg->h, 0, sizeof *amg->h);
    gs_amg *h = amg->h;
    gs_amg_dist_set_tail(amg);
    h->p = amg->p;
    h->p.trace = amg->p.trace && gs_comm_rank() == 0; /* its steps once, on rank 0 */
    h->loc = loc;
    h->be = amg->be;
    h->ops = amg->ops;
    h->rep.setups = 1;
    gs_amg_report *rep = &h->rep;
    ph = rep->phase_s;
    GS_CHECK(sync_now(amg, &t_start));
    GS_CHECK(choose(amg, A0, b));
    const int classical = amg->p.method == GS_AMG_METHOD_CLASSICAL;
    if (classical) k = 1; /* its interpolation keeps the constant; no near-nullspace carried */
    if (p->nullspace && !classical) {
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
    amg->gather_rows = gather_rows;
    const gs_amg_steps steps = {.ctx = amg, .rows = dist_rows, .ends = dist_ends,
                                .diag = dist_diag, .smoothing = dist_smoothing,
                                .coarsen = dist_coarsen, .prolongator = dist_prolongator,
                                .galerkin = dist_galerkin};
    int B_level = 0;
    GS_CHECK(gs_amg_levels(h, &steps, &b, &k, &B, &B_loc, &B_level, where, ph));
    gs_part_destroy(&amg->cpart); /* a level that did not coarsen */
    amg->nd = h->nlev - 1; /* the rest on every rank, whole: from level nd, or (it did not
                            * coarsen: B is the coarse level's) the same level without B */
    if (B_level == amg->nd)
        GS_CHECK(gather_tail(amg, amg->nd, B, B_loc, b, k, where));
    else
        GS_CHECK(gather_tail(amg, amg->nd, NULL, GS_LOC_HOST, b, b, where));
    /* the cycle's levels (the distributed operators' SpMV views, its vectors) and the report:
     * the distributed levels, then the gathered ones */
    const gs_amg_report *tr = gs_amg_get_report(amg->tail);
    double nnz0 = 0, rows0 = 0;
    for (int l = 0; l <= amg->nd; l++) {
        const dlevel *L = &amg->lev[l];
        gs_amg_level *H = &h->lev[l];
        int32_t n = L->DA->rows;
        H->A = L->DA->diag;
        H->ops_borrowed = 1;
        if (l < amg->nd) {
            GS_CHECK(report_level(amg, l, L->DA));
            H->MA = (gs_spmat *)gs_dist_op_spmat(L->DA);
            H->MP = (gs_spmat *)gs_dist_op_spmat(L->DP);
            H->MR = (gs_spmat *)gs_dist_op_spmat(L->DR);
            GS_CHECK(gs_vec_create(n, loc, &H->y));
            GS_CHECK(gs_vec_create(n, loc, &H->d));
            H->r = H->d; /* as on one process: the residual between the smoothings */
            H->sl.y = H->y;
            H->sl.d = H->d;
        }
        if (l > 0) {
            GS_CHECK(gs_vec_create(n, loc, &H->x));
            GS_CHECK(gs_vec_create(n, loc, &H->b));
        }
    }
    h->nlev = amg->nd + 1;
    for (int l = 0; l < tr->levels && amg->nd + l < GS_AMG_MAX_LEVELS; l++) {
        rep->level[amg->nd + l] = tr->level[l];
        if (l == 0) rep->level[amg->nd].rho = tr->level[0].rho;
    }
    rep->levels = amg->nd + tr->levels;
    if (rep->levels > GS_AMG_MAX_LEVELS) rep->levels = GS_AMG_MAX_LEVELS;
    nnz0 = (double)rep->level[0].nnz;
    rows0 = (double)rep->level[0].rows;
    for (int l = 0; l < rep->levels; l++) {
        rep->operator_complexity += nnz0 > 0 ? (double)rep->level[l].nnz / nnz0 : 1.0;
        rep->grid_complexity += rows0 > 0 ? (double)rep->level[l].rows / rows0 : 1.0;
    }
    for (int i = 0; i < GS_AMG_PHASES; i++) ph[i] += tr->phase_s[i];
    rep->coarsenings += tr->coarsenings; /* the gathered levels' steps counted too */
    rep->prolongators += tr->prolongators;
    rep->galerkin_products += tr->galerkin_products;
    gs_str_copy(rep->coarse_desc, sizeof rep->coarse_desc, tr->coarse_desc);
    GS_CHECK(sync_now(amg, &t1));
    rep->setup_s = t1 - t_start;
    gs_amg_describe(h, b0, k0, GS_SPGEMM_AUTO, gs_comm_size(), amg->nd);
    rep->restriction = GS_AMG_RESTRICT_PT;
    amg->p.select = NULL;
    h->p.select = NULL;
    *out = h;
    amg = NULL;
done:
    if (B) gs_backend_get(B_loc)->free(B);
    if (amg && amg->h) { /* the hierarchy frees its tail, this */
        gs_amg *h = amg->h;
        gs_amg_destroy(&h);
    } else if (amg) {
        gs_amg_dist_free(amg);
    }
    gs_mem_pinned_enable(pinned);
    return gs_comm_agree(st);
}

void gs_amg_dist_free(gs_amg_dist *amg)
{
    if (!amg) return;
    for (int l = 0; l < GS_AMG_MAX_LEVELS; l++) {
        dlevel *L = &amg->lev[l];
        gs_part_destroy(&L->part);
        gs_dist_op_destroy(&L->DAown);
        gs_dist_op_destroy(&L->DP);
        gs_dist_op_destroy(&L->DR);
    }
    gs_part_destroy(&amg->cpart);
    gs_amg_destroy(&amg->tail);
    gs_dist_op_destroy(&amg->TG);
    if (amg->th) amg->be->free(amg->th);
    gs_csr_destroy(&amg->tailA);
    gs_vec_destroy(&amg->tb);
    gs_vec_destroy(&amg->tx);
    gs_free(amg->hb);
    gs_free(amg->hpart);
    gs_free(amg->gbytes);
    gs_free(amg);
}

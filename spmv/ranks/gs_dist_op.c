/* gs_dist_op.c: the distributed SpMV (gs_dist_op.h): the exchange plan, the operators made. */
#include "gs_dist_op.h"

#include <string.h>

#include "gs_backend.h"
#include "gs_dist_op_impl.h"
#include "gs_knob.h"
#include "gs_log.h"
#include "gs_spgemm.h"
#include "gs_time.h"

static gs_status dist_spmv(const void *D, const gs_vec *x, gs_vec *y)
{
    return gs_dist_op_spmv(D, x, y);
}

int gs_dist_op_prof_on(void)
{
    static int on = -1;
    if (on < 0) on = gs_knob("GSOLVE_DIST_PROFILE") != NULL;
    return on;
}

/* who sends me which halo values, and which of mine each neighbour needs */
static gs_status plan_buffers(gs_dist_op *D, const gs_buf *idx);

/* Halo lists from this size up (the largest any rank sends or receives) go rank to rank where
 * the operator lives (gs_dist_alltoallv_at: through CUDA IPC on one node): host MPI between
 * ranks of one node moved 0.3 to 1 GB/s on the GPU machines, a 1 MB list (the halo of 16.8M
 * rows of 3D Poisson on each of 4 ranks) 3.9 ms, where the device's exchange takes a fraction
 * of a millisecond; smaller ones through host MPI, which starts sooner. */
#define PLAN_DEVICE_BYTES ((int64_t)256 << 10)

/* that size; GSOLVE_DIST_PLAN_BYTES=N sets it (0: every list where the operator lives) */
static int64_t plan_device_bytes(void)
{
    return gs_knob_i64("GSOLVE_DIST_PLAN_BYTES", 0, PLAN_DEVICE_BYTES);
}

/* the halo lists (D->halo's runs, qs[r] bytes for rank r) to their owners; req: the nq lists
 * (qr[r] bytes from rank r) of this rank's columns the others need, on the host */
static gs_status halo_lists(const gs_dist_op *D, const size_t *qs, const size_t *qr, size_t nq,
                            int host_mpi, int64_t *req)
{
    gs_status st = GS_OK;
    int64_t big = (int64_t)(nq > (size_t)D->nhalo ? nq : (size_t)D->nhalo) * 8;
    int64_t *dh = NULL, *dq = NULL;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    if (D->loc != GS_LOC_HOST && !host_mpi) GS_CHECK(gs_comm_max_i64(&big, 1));
    if (D->loc == GS_LOC_HOST || host_mpi || big < plan_device_bytes()) {
        GS_CHECK(gs_comm_alltoallv(D->halo, qs, req, qr));
        goto done;
    }
    GS_CHECK(be->alloc(((size_t)D->nhalo + 1) * sizeof *dh, "halo plan", (void **)&dh));
    GS_CHECK(be->alloc((nq + 1) * sizeof *dq, "halo plan", (void **)&dq));
    if (D->nhalo > 0) GS_CHECK(be->put(dh, D->halo, (size_t)D->nhalo * sizeof *dh));
    {
        const void *snd[1] = {dh};
        void *rcv[1] = {dq};
        GS_CHECK(gs_dist_alltoallv_at(D->loc, 1, snd, qs, rcv, qr));
    }
    if (nq > 0) GS_CHECK(be->get(req, dq, nq * sizeof *dq));
done:
    if (dh) be->free(dh);
    if (dq) be->free(dq);
    return st;
}

/* the plan's lists on the host: the ranks this one receives from (D->from, D->roff) and sends
 * to (D->to, D->soff), *idx (gs_alloc_array) the own column of every value sent; host_mpi: the
 * halo lists through host MPI whatever their size (every rank alike). Collective. */
static gs_status plan_lists(gs_dist_op *D, const gs_part *cp, int host_mpi, int32_t **out)
{
    gs_status st = GS_OK;
    const int R = cp->nranks;
    size_t *qs = NULL, *qr = NULL;
    int64_t *req = NULL;
    int32_t *idx = NULL;
    *out = NULL;
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(size_t), "halo plan", (void **)&qs));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(size_t), "halo plan", (void **)&qr));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int), "halo plan", (void **)&D->from));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "halo plan", (void **)&D->roff));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int), "halo plan", (void **)&D->to));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "halo plan", (void **)&D->soff));
    memset(qs, 0, (size_t)R * sizeof *qs);
    D->roff[0] = 0;
    /* the halo ascending: each owner's columns are one run, found by a search a rank */
    for (int r = 0, h0 = 0; r < R && h0 < D->nhalo; r++) {
        int32_t lo = h0, hi = D->nhalo; /* the first halo column at or past rank r + 1's */
        while (lo < hi) {
            const int32_t mid = lo + (hi - lo) / 2;
            if (D->halo[mid] < cp->start[r + 1])
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo > h0) {
            D->from[D->nrecv] = r;
            D->nrecv++;
            D->roff[D->nrecv] = lo;
            qs[r] = (size_t)(lo - h0) * sizeof(int64_t);
        }
        h0 = lo;
    }
    double tq[4] = {gs_dist_op_prof_on() ? gs_time_now() : 0, 0, 0, 0};
    GS_CHECK(gs_comm_alltoall_sizes(qs, qr));
    if (gs_dist_op_prof_on()) tq[1] = gs_time_now();
    size_t nq = 0;
    for (int r = 0; r < R; r++) nq += qr[r] / sizeof(int64_t);
    GS_CHECK(gs_alloc_array(nq + 1, sizeof(int64_t), "halo plan", (void **)&req));
    GS_CHECK(halo_lists(D, qs, qr, nq, host_mpi, req));
    if (gs_dist_op_prof_on()) tq[2] = gs_time_now();
    GS_CHECK(gs_alloc_array(nq + 1, sizeof(int32_t), "halo plan", (void **)&idx));
    D->soff[0] = 0;
    for (int r = 0, q = 0; r < R; r++) {
        size_t k = qr[r] / sizeof(int64_t);
        if (!k) continue;
        D->to[D->nsend] = r;
        for (size_t j = 0; j < k; j++, q++) {
            int64_t i = req[q] - D->col0;
            if (i < 0 || i >= D->cols)
                GS_FAIL(GS_ERR_INTERNAL, "halo plan: column %lld asked of the rank that holds "
                        "%lld..%lld", (long long)req[q], (long long)D->col0,
                        (long long)(D->col0 + D->cols - 1));
            idx[q] = (int32_t)i;
        }
        D->nsend++;
        D->soff[D->nsend] = q;
    }
    *out = idx;
    idx = NULL;
    if (gs_dist_op_prof_on() && gs_comm_rank() == 0) {
        tq[3] = gs_time_now();
        gs_log(GS_LOG_INFO, "dist profile: halo plan of %d halo columns: sizes %.3f ms (with the "
                "wait for the others), lists %.3f ms%s, indices %.3f ms", D->nhalo,
                1e3 * (tq[1] - tq[0]), 1e3 * (tq[2] - tq[1]),
                host_mpi ? " (host MPI, while the rows travel)" : "", 1e3 * (tq[3] - tq[2]));
    }
done:
    gs_free(qs);
    gs_free(qr);
    gs_free(req);
    gs_free(idx);
    return st;
}

/* the plan's buffers from its lists (idx: plan_lists's, taken over) */
static gs_status plan_finish(gs_dist_op *D, int32_t **idx)
{
    const gs_buf hidx = {*idx, D->soff[D->nsend], GS_I32, GS_LOC_HOST};
    gs_status st = plan_buffers(D, &hidx);
    gs_free(*idx);
    *idx = NULL;
    return st;
}

/* like's plan (the same halo) copied: no messages */
static gs_status plan_like(gs_dist_op *D, const gs_dist_op *like)
{
    gs_status st = GS_OK;
    const int R = gs_comm_size();
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int), "halo plan", (void **)&D->from));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "halo plan", (void **)&D->roff));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int), "halo plan", (void **)&D->to));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "halo plan", (void **)&D->soff));
    D->nsend = like->nsend;
    D->nrecv = like->nrecv;
    memcpy(D->to, like->to, (size_t)like->nsend * sizeof(int));
    memcpy(D->from, like->from, (size_t)like->nrecv * sizeof(int));
    memcpy(D->soff, like->soff, ((size_t)like->nsend + 1) * sizeof(int64_t));
    memcpy(D->roff, like->roff, ((size_t)like->nrecv + 1) * sizeof(int64_t));
    GS_CHECK(plan_buffers(D, like->sidx));
done:
    return st;
}

/* the send indices (idx, own columns) and buffers where x lives, the exchange of the plan's
 * lists, and the MPI staging buffers where the halos will not go through CUDA IPC */
static gs_status plan_buffers(gs_dist_op *D, const gs_buf *idx)
{
    gs_status st = GS_OK;
    const int64_t ns = D->soff[D->nsend];
    int staged = 0;
    GS_CHECK(gs_buf_clone(idx, D->loc, "halo send indices", &D->sidx));
    const gs_backend_ops *be = gs_backend_get(D->loc);
    GS_CHECK(be->alloc((size_t)(ns + 1) * sizeof(double), "halo send values", (void **)&D->sdev));
    GS_CHECK(gs_vec_create(D->nhalo, D->loc, &D->xh));
    GS_CHECK(gs_comm_exchange_create(D->nsend, D->to, D->soff, D->nrecv, D->from, D->roff,
                                     &D->ex));
    if (!gs_dist_op_ipc_wanted(D)) GS_CHECK(gs_dist_op_staging(D, &staged));
done:
    return st;
}

const gs_dist_ops *gs_dist_ops_at(gs_loc loc)
{
    return (const gs_dist_ops *)gs_backend_module(loc, GS_MODULE_DIST);
}

/* the diagonal block's operator: the selector's format, or gsolve's CSR kernel */
static gs_status diag_spmat(gs_dist_op *D, const gs_select_request *rq, int level)
{
    gs_status st = GS_OK;
    if (rq) {
        GS_CHECK(gs_select_spmat(D->diag, level, rq, &D->Md, &D->sel));
    } else {
        GS_CHECK(gs_spmat_create(D->diag, GS_FORMAT_CSR, NULL, &D->Md));
        D->sel.format = GS_FORMAT_CSR;
        gs_str_copy(D->sel.reason, sizeof D->sel.reason, "gsolve's CSR kernel");
    }
    D->view = *D->Md;
    D->view.dist = D;
    D->view.dist_spmv = dist_spmv;
done:
    return st;
}

/* a new operator of *halo (taken over, also on failure), its rows and columns still to come */
static gs_status op_new(int64_t **halo, int32_t nhalo, int64_t row0, int64_t col0, int32_t cols,
                        gs_loc loc, gs_dist_op **out)
{
    gs_status st = GS_OK;
    gs_dist_op *D = NULL;
    *out = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *D, "distributed operator", (void **)&D));
    memset(D, 0, sizeof *D);
    D->loc = loc;
    D->halo = *halo;
    *halo = NULL;
    D->nhalo = nhalo;
    D->row0 = row0;
    D->col0 = col0;
    D->cols = cols;
    *out = D;
done:
    gs_free(*halo);
    *halo = NULL;
    return st;
}

/* D (op_new's, taken over: *out on success, destroyed on failure) made from its rows *C (taken
 * over): its blocks (unless upload_split made them), its plan (the buffers of *idx, the lists
 * plan_lists made ahead, when given; else worked out with the ranks), its SpMV form */
static gs_status op_build(gs_dist_op *D, gs_csr **C, const gs_part *cp, int32_t **idx,
                          const gs_select_request *rq, int level, gs_dist_op **out)
{
    gs_status st = GS_OK;
    const int me = gs_comm_rank();
    const gs_loc loc = D->loc;
    const gs_dist_ops *ops = gs_dist_ops_at(loc);
    *out = NULL;
    if (!ops) GS_FAIL(GS_ERR_INTERNAL, "distributed operator: no backend at this location");
    D->compact = *C;
    *C = NULL;
    D->rows = D->compact->rows;
    double tp[4] = {0, 0, 0, 0};
    /* the work queued before (the product that made these rows) drained first, so the split's
     * time is its own */
    if (gs_dist_op_prof_on()) (void)gs_backend_get(loc)->sync(), tp[0] = gs_time_now();
    /* offd: the rows with halo entries alone, a product touches only them (split already when
     * the rows came from the host: gs_dist_op_create_compact) */
    if (!D->diag)
        GS_CHECK(ops->split(D->compact, D->cols, D->nhalo, &D->diag, &D->offd, &D->nor,
                            &D->orow));
    if (gs_dist_op_prof_on()) (void)gs_backend_get(loc)->sync(), tp[1] = gs_time_now();
    if (idx && *idx) {
        GS_CHECK(plan_finish(D, idx));
    } else {
        int32_t *own = NULL;
        GS_CHECK(plan_lists(D, cp, 0, &own));
        GS_CHECK(plan_finish(D, &own));
    }
    if (gs_dist_op_prof_on()) (void)gs_backend_get(loc)->sync(), tp[2] = gs_time_now();
    GS_CHECK(diag_spmat(D, rq, level));
    if (gs_dist_op_prof_on()) {
        (void)gs_backend_get(loc)->sync(), tp[3] = gs_time_now();
        if (me == 0)
            gs_log(GS_LOG_INFO, "dist profile: level %d %d x %d operator: split %.3f ms, plan %.3f "
                    "ms%s, format %.3f ms", level, D->rows, D->cols, 1e3 * (tp[1] - tp[0]),
                    1e3 * (tp[2] - tp[1]),
                    idx ? " (its lists made ahead)" : "",
                    1e3 * (tp[3] - tp[2]));
    }
    D->view.nnz = D->compact->nnz;
    D->view.cols = D->cols;
    *out = D;
    D = NULL;
done:
    gs_csr_destroy(C);
    if (idx) {
        gs_free(*idx);
        *idx = NULL;
    }
    gs_dist_op_destroy(&D);
    return st;
}

gs_status gs_dist_op_from_compact(gs_csr **C, int64_t **halo, int32_t nhalo, int64_t row0,
                                  const gs_part *cp, gs_loc loc, const gs_select_request *rq,
                                  int level, gs_dist_op **out)
{
    const int me = gs_comm_rank();
    gs_dist_op *D = NULL;
    *out = NULL;
    gs_status st = op_new(halo, nhalo, row0, cp->start[me],
                          (int32_t)(cp->start[me + 1] - cp->start[me]), loc, &D);
    if (st != GS_OK) {
        gs_csr_destroy(C);
        return st;
    }
    return op_build(D, C, cp, NULL, rq, level, out);
}

gs_status gs_dist_op_whole_like(gs_csr **C, const gs_dist_op *like, gs_dist_op **out)
{
    gs_status st = GS_OK;
    int64_t *h = NULL;
    gs_dist_op *D = NULL;
    *out = NULL;
    if (like->reverse || !*C || (*C)->rows != like->rows ||
        (*C)->cols != like->cols + like->nhalo || (*C)->loc != like->loc) {
        gs_csr_destroy(C);
        GS_FAIL(GS_ERR_INTERNAL, "distributed operator: rows that do not match the operator "
                "whose plan they take");
    }
    GS_CHECK(gs_dist_copy_i64(like->halo, like->nhalo, &h));
    GS_CHECK(op_new(&h, like->nhalo, like->row0, like->col0, like->cols, like->loc, &D));
    /* all its rows as a prefix: its arrays, with the state a product needs (rows an AMG step
     * made on the device are bare arrays) */
    GS_CHECK(gs_sparse_row_prefix(C, (*C)->rows, &D->compact));
    D->rows = D->compact->rows;
    D->whole = 1;
    GS_CHECK(plan_like(D, like));
    GS_CHECK(gs_spmat_create(D->compact, GS_FORMAT_CSR, NULL, &D->Md));
    D->sel.format = GS_FORMAT_CSR;
    gs_str_copy(D->sel.reason, sizeof D->sel.reason,
                "the compact rows in one product, after the halo");
    D->view = *D->Md;
    D->view.dist = D;
    D->view.dist_spmv = dist_spmv;
    D->view.cols = D->cols;
    GS_CHECK(gs_vec_create((int64_t)D->cols + D->nhalo, D->loc, &D->ext));
    if (like->ipc.buf) { /* the same halo: like's IPC buffers, mappings and signals */
        D->ipc_borrowed = 1;
        D->ipc = like->ipc;
    }
    *out = D;
    D = NULL;
done:
    gs_csr_destroy(C);
    gs_free(h);
    gs_dist_op_destroy(&D);
    return st;
}

/* GSOLVE_DIST_PROFILE=1: every operator's products timed (waiting for the device each time) and
 * listed on rank 0's stderr when it is destroyed */

int gs_dist_op_graph_safe(const gs_dist_op *D)
{
    return D && D->ipc.dev_signal && !gs_dist_op_prof_on();
}

/* The halo lists go through host MPI while the rows travel to the device when every rank's list
 * takes at most this share of its rows' bytes: host MPI between the ranks of a node moves 0.3
 * to 1 GB/s, the upload 40-55 GB/s a GPU, so such a list is exchanged before the rows have
 * arrived (the level-0 plan of 3D Poisson at 16.8M rows a rank: 1 MB against 1.4 GB). */
#define PLAN_AHEAD_SHARE 64

/* the plan's lists while the rows travel (gs_csr_upload_while) */
typedef struct {
    gs_dist_op *D;
    const gs_part *cp;
    int32_t *idx;
} plan_ahead;

static gs_status plan_ahead_run(void *arg)
{
    plan_ahead *a = (plan_ahead *)arg;
    return plan_lists(a->D, a->cp, 1, &a->idx);
}

gs_status gs_dist_op_create_compact(const gs_csr *C, const int64_t *halo, int32_t nhalo,
                                    int64_t row0, const gs_part *cp, gs_loc loc,
                                    const gs_select_request *rq, int level, gs_dist_op **out)
{
    gs_status st = GS_OK;
    gs_csr *Cl = NULL;
    int64_t *h = NULL;
    gs_dist_op *D = NULL;
    plan_ahead a = {NULL, cp, NULL};
    const int me = gs_comm_rank();
    const double t0 = gs_dist_op_prof_on() ? gs_time_now() : 0;
    *out = NULL;
    if (C->loc != GS_LOC_HOST)
        GS_FAIL(GS_ERR_INTERNAL, "distributed operator: the compact rows are not on the host");
    GS_CHECK(gs_dist_copy_i64(halo, nhalo, &h));
    GS_CHECK(op_new(&h, nhalo, row0, cp->start[me], (int32_t)(cp->start[me + 1] - cp->start[me]),
                    loc, &D)); /* h taken over, also on failure */
    /* every rank alike: the lists ahead where each rank's are small next to its rows */
    int64_t ahead = loc != GS_LOC_HOST &&
                    (int64_t)nhalo * 8 * PLAN_AHEAD_SHARE <= (int64_t)C->nnz * 12;
    if (loc != GS_LOC_HOST) GS_CHECK(gs_comm_min_i64(&ahead, 1));
    a.D = D;
    if (!gs_dist_ops_at(loc))
        GS_FAIL(GS_ERR_INTERNAL, "distributed operator: no backend at this location");
    /* the rows to loc and split there, the lists made meanwhile */
    GS_CHECK(gs_dist_ops_at(loc)->upload_split(C, D->cols, nhalo, ahead ? plan_ahead_run : NULL,
                                               &a, &Cl, &D->diag, &D->offd, &D->nor, &D->orow));
    if (gs_dist_op_prof_on() && me == 0) {
        GS_CHECK(gs_backend_get(loc)->sync());
        gs_log(GS_LOG_INFO, "dist profile: level %d compact rows: upload and split %.3f ms%s",
                level, 1e3 * (gs_time_now() - t0),
                ahead ? " (the halo plan's lists meanwhile)" : "");
    }
    st = op_build(D, &Cl, cp, ahead ? &a.idx : NULL, rq, level, out);
    D = NULL; /* op_build's */
done:
    gs_csr_destroy(&Cl);
    gs_free(a.idx);
    gs_dist_op_destroy(&D);
    return st;
}

gs_status gs_dist_compact_host(const gs_gcsr *A, const gs_part *cp, gs_csr **C, int64_t **halo,
                               int32_t *nhalo)
{
    const int me = gs_comm_rank();
    const int64_t col0 = cp->start[me];
    return gs_dist_host_ops.compact(A->rows, A->rowptr, A->col, A->val, col0,
                                    (int32_t)(cp->start[me + 1] - col0), C, halo, nhalo);
}

gs_status gs_dist_op_create(const gs_gcsr *A, const gs_part *cp, gs_loc loc,
                            const gs_select_request *rq, int level, gs_dist_op **out)
{
    gs_status st = GS_OK;
    gs_csr *C = NULL;
    int64_t *halo = NULL;
    int32_t nhalo = 0;
    GS_CHECK(gs_dist_compact_host(A, cp, &C, &halo, &nhalo));
    GS_CHECK(gs_dist_op_create_compact(C, halo, nhalo, A->row0, cp, loc, rq, level, out));
done:
    gs_csr_destroy(&C);
    gs_free(halo);
    return st;
}

gs_status gs_dist_op_transpose(const gs_dist_op *P, const gs_select_request *rq, int level,
                               gs_dist_op **out)
{
    gs_status st = GS_OK;
    gs_dist_op *D = NULL;
    gs_csr *Pt = NULL;
    int32_t nnz = 0;
    const gs_backend_ops *be = gs_backend_get(P->loc);
    const int R = gs_comm_size();
    GS_CHECK(gs_alloc_array(1, sizeof *D, "distributed operator", (void **)&D));
    memset(D, 0, sizeof *D);
    D->loc = P->loc;
    D->reverse = 1;
    D->rows = P->cols;
    D->cols = P->rows;
    D->row0 = P->col0;
    D->col0 = P->row0;
    GS_CHECK(gs_spgemm_transpose(P->compact, &Pt));
    if (P->nhalo > 0) { /* the rows of the halo's columns: a copy of their own */
        GS_CHECK(gs_sparse_row_slice(Pt, P->cols, P->cols + P->nhalo, &D->rem));
        GS_CHECK(gs_spmat_create(D->rem, GS_FORMAT_CSR, NULL, &D->Mr));
        GS_CHECK(gs_vec_create(P->nhalo, D->loc, &D->tr));
    }
    nnz = Pt->nnz;
    /* the own columns' rows come first: P^T's arrays themselves (a copy of them was P^T's
     * size again, 1.7 GB for 256 x 512 x 512 on each of 4 ranks) */
    GS_CHECK(gs_sparse_row_prefix(&Pt, P->cols, &D->diag));
    /* P's plan backwards: what P receives (its halo, grouped by owner) R sends, and what P sends
     * (its own columns the neighbours ask for) R receives and adds in */
    D->nsend = P->nrecv;
    D->nrecv = P->nsend;
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int), "halo plan", (void **)&D->to));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int), "halo plan", (void **)&D->from));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "halo plan", (void **)&D->soff));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "halo plan", (void **)&D->roff));
    memcpy(D->to, P->from, (size_t)P->nrecv * sizeof(int));
    memcpy(D->from, P->to, (size_t)P->nsend * sizeof(int));
    memcpy(D->soff, P->roff, ((size_t)P->nrecv + 1) * sizeof(int64_t));
    memcpy(D->roff, P->soff, ((size_t)P->nsend + 1) * sizeof(int64_t));
    const int64_t nr = D->roff[D->nrecv];
    GS_CHECK(gs_buf_clone(P->sidx, D->loc, "halo add indices", &D->sidx));
    GS_CHECK(be->alloc((size_t)(nr + 1) * sizeof(double), "halo received values",
                       (void **)&D->sdev));
    GS_CHECK(gs_comm_exchange_create(D->nsend, D->to, D->soff, D->nrecv, D->from, D->roff,
                                     &D->ex));
    if (!gs_dist_op_ipc_wanted(D)) {
        int staged = 0;
        GS_CHECK(gs_dist_op_staging(D, &staged));
    }
    GS_CHECK(diag_spmat(D, rq, level));
    D->view.nnz = nnz;
    D->view.cols = D->cols;
    *out = D;
    D = NULL;
done:
    gs_csr_destroy(&Pt);
    gs_dist_op_destroy(&D);
    return st;
}

void gs_dist_op_destroy(gs_dist_op **Dp)
{
    if (!Dp || !*Dp) return;
    gs_dist_op *D = *Dp;
    if (D->prof_n > 0 && gs_comm_rank() == 0)
        gs_log(GS_LOG_INFO, "dist profile: %s %d x %d (+%d halo): %ld products, %.3f ms, %.1f us each",
                D->reverse ? "transpose" : "operator", D->rows, D->cols, D->nhalo, D->prof_n,
                1e3 * D->prof_s, 1e6 * D->prof_s / (double)D->prof_n);
    gs_spmat_destroy(&D->Md);
    gs_spmat_destroy(&D->Mr);
    gs_csr_destroy(&D->rem);
    gs_vec_destroy(&D->tr);
    gs_csr_destroy(&D->diag);
    gs_csr_destroy(&D->offd);
    if (D->orow) gs_backend_get(D->loc)->free(D->orow);
    gs_csr_destroy(&D->compact);
    gs_free(D->halo);
    gs_free(D->to);
    gs_free(D->from);
    gs_free(D->soff);
    gs_free(D->roff);
    gs_buf_destroy(&D->sidx);
    const gs_backend_ops *be = gs_backend_get(D->loc);
    if (D->sdev && be) be->free(D->sdev);
    gs_free(D->shost);
    gs_free(D->rhost);
    gs_vec_destroy(&D->xh);
    gs_vec_destroy(&D->ext);
    gs_comm_exchange_destroy(&D->ex);
    gs_dist_op_ipc_release(D);
    gs_free(D);
    *Dp = NULL;
}

gs_status gs_dist_op_host_diag(const gs_dist_op *D, gs_csr **out)
{
    return gs_csr_download(D->diag, out);
}

/* gs_dist_op_spmv.c: the distributed product (gs_dist_op.h), the halo alone, the halo's rows. */
#include "gs_dist_op.h"

#include <string.h>

#include "gs_backend.h"
#include "gs_dist_op_impl.h"
#include "gs_time.h"

/* with device signals: the values src[idx[e]] (src[e] without idx) copied by one kernel on the
 * copy stream (see ipc_exchange), and y = M x on the stream; nothing waited for. The copy
 * stream reads src until the stream joins it (ipc_finish, or after the off-diagonal product). */
static gs_status ipc_send(const gs_dist_op *D, const double *src, const int32_t *idx,
                          const gs_spmat *M, const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    if (D->nsend > 0) {
        GS_CHECK(be->peer_fork());
        GS_CHECK(be->halo_send(D->nsend, D->ipc.dpeer, D->ipc.dsoff, D->soff[D->nsend], src, idx,
                               D->ipc.flags + D->nrecv, D->ipc.done_at, D->ipc.seq + SEQ_SENT,
                               (unsigned *)(D->ipc.seq + SEQ_SEND_TICKET)));
    }
    if (M) GS_CHECK(gs_spmat_spmv(M, x, y));
done:
    return st;
}

/* the exchange through IPC: the values to send (src[idx[e]], or src[e] without idx, e in
 * D->soff's blocks; at loc) copied into the neighbours' buffers while y = M x runs; on return
 * what this rank received may be read (at loc, in stream order).
 *  - Device signals: this is product k of the operator (its count of products sent, at loc,
 *    plus one); one kernel on the copy stream waits until each neighbour it writes to has said
 *    "ready" for k - 1, gathers and copies, and writes "done" k into that neighbour's flag; the
 *    stream runs y = M x and waits until every neighbour that writes here has said "done" k.
 *    Nothing waits on the host, and a CUDA graph can record it. ipc_finish says "ready" k
 *    once the received values are used.
 *  - MPI handshakes: the values gathered into D->sdev and the stream drained (send complete,
 *    and this rank's buffer no longer read by the last product), "ready" to the ranks that
 *    write here and from those this rank writes to, y = M x launched to run meanwhile, the
 *    copies, then "done" both ways. */
static gs_status ipc_exchange(const gs_dist_op *D, const double *src, const int32_t *idx,
                              const gs_spmat *M, const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    const double *send = src;
    if (D->ipc.dev_signal) {
        GS_CHECK(ipc_send(D, src, idx, M, x, y));
        GS_CHECK(be->flag_wait(D->nrecv, D->ipc.flags, D->ipc.seq + SEQ_DONE, 1));
        goto done;
    }
    if (idx && D->soff[D->nsend] > 0) {
        GS_CHECK(be->gather(D->soff[D->nsend], idx, src, D->sdev));
        send = D->sdev;
    }
    GS_CHECK(be->sync()); /* this rank's own work: not communication */
    GS_CHECK(gs_comm_exchange_begin(D->ipc.ready, NULL, NULL));
    if (M) GS_CHECK(gs_spmat_spmv(M, x, y));
    GS_CHECK(gs_comm_exchange_end(D->ipc.ready));
    double t1 = gs_time_now();
    for (int i = 0; i < D->nsend; i++)
        GS_CHECK(be->peer_copy(D->ipc.peer[i], send + D->soff[i],
                               (size_t)(D->soff[i + 1] - D->soff[i]) * sizeof(double)));
    GS_CHECK(be->peer_wait());
    gs_comm_add_seconds(gs_time_now() - t1);
    GS_CHECK(gs_comm_exchange_begin(D->ipc.done, NULL, NULL));
    GS_CHECK(gs_comm_exchange_end(D->ipc.done));
done:
    return st;
}

/* the received values used (in stream order): with device signals "ready" k to the ranks that
 * write here (and product k counted done), and the stream after the copies (what they read is
 * free again) */
static gs_status ipc_finish(const gs_dist_op *D)
{
    gs_status st = GS_OK;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    if (!D->ipc.dev_signal) return GS_OK;
    GS_CHECK(be->flag_signal(D->nrecv, D->ipc.ready_at, D->ipc.seq + SEQ_DONE));
    if (D->nsend > 0) GS_CHECK(be->peer_join());
done:
    return st;
}

/* y += A_offd xh: the product over the rows with halo entries, added into those rows */
static gs_status add_offd(const gs_dist_op *D, const gs_vec *xh, gs_vec *y)
{
    return gs_dist_ops_at(D->loc)->offd_add(D->offd, D->orow, xh->data, y->data, NULL);
}

/* y = A x with the halo copied device to device (the values to send gathered from x by the
 * copy); with device signals the wait for the halo, the off-diagonal product, "ready" and the
 * product's count are one kernel */
static gs_status ipc_spmv(const gs_dist_op *D, const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    const int32_t *idx = D->sidx->data;
    if (D->ipc.dev_signal && D->nhalo > 0) {
        const gs_halo_signals sg = {.nwait = D->nrecv,
                                    .nready = D->nrecv,
                                    .flags = D->ipc.flags,
                                    .ready_at = D->ipc.ready_at,
                                    .ctr = D->ipc.seq + SEQ_DONE,
                                    .ticket = (unsigned *)(D->ipc.seq + SEQ_OFFD_TICKET)};
        GS_CHECK(ipc_send(D, x->data, idx, D->Md, x, y));
        GS_CHECK(gs_dist_ops_at(D->loc)->offd_add(D->offd, D->orow, D->ipc.xh.data, y->data,
                                                  &sg));
        if (D->nsend > 0) GS_CHECK(gs_backend_get(D->loc)->peer_join());
        goto done;
    }
    GS_CHECK(ipc_exchange(D, x->data, idx, D->Md, x, y));
    if (D->nhalo > 0) {
        GS_CHECK(add_offd(D, &D->ipc.xh, y));
    }
    GS_CHECK(ipc_finish(D));
done:
    return st;
}

/* y += what a transpose's neighbours sent (recv: D->roff's blocks at loc), added at the own
 * rows P's plan named, one neighbour at a time: the indices of one are distinct */
static gs_status add_received(const gs_dist_op *D, const double *recv, gs_vec *y)
{
    gs_status st = GS_OK;
    const gs_dist_ops *ops = gs_dist_ops_at(D->loc);
    const int32_t *idx = D->sidx->data;
    for (int i = 0; i < D->nrecv; i++)
        if (D->roff[i + 1] > D->roff[i])
            GS_CHECK(ops->scatter_add(D->roff[i + 1] - D->roff[i], idx + D->roff[i],
                                      recv + D->roff[i], y->data));
done:
    return st;
}

/* *staged = 1 where the MPI exchanges go through page-locked host buffers (a device backend,
 * MPI without device memory); those buffers made here once (the sends, then the receives): when
 * the operator is made where its halos will not go through CUDA IPC, else at its first staged
 * exchange (CUDA IPC refused on some rank), so an operator on CUDA IPC never pins them */
gs_status gs_dist_op_staging(const gs_dist_op *Dc, int *staged)
{
    gs_status st = GS_OK;
    gs_dist_op *D = (gs_dist_op *)Dc;
    *staged = D->loc != GS_LOC_HOST && !gs_comm_device_aware();
    if (!*staged || D->shost) return GS_OK;
    GS_CHECK(gs_alloc_pinned((size_t)D->soff[D->nsend] + 1, sizeof(double), "halo staging",
                             (void **)&D->shost));
    st = gs_alloc_pinned((size_t)D->roff[D->nrecv] + 1, sizeof(double), "halo staging",
                         (void **)&D->rhost);
    if (st != GS_OK) { /* both or neither */
        gs_free(D->shost);
        D->shost = NULL;
    }
done:
    return st;
}

/* y = R x for a transpose: the rows other ranks own first (their values sent on), the own rows
 * while they travel, then what the neighbours sent added in */
static gs_status reverse_spmv(const gs_dist_op *D, const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    int staged = 0;
    const int64_t nt = D->tr ? D->tr->n : 0, nr = D->roff[D->nrecv];
    if (D->ipc.buf) { /* the other ranks' rows copied straight into their owners' buffers */
        if (nt > 0) GS_CHECK(gs_spmat_spmv(D->Mr, x, D->tr));
        GS_CHECK(ipc_exchange(D, nt > 0 ? D->tr->data : D->sdev, NULL, D->Md, x, y));
        GS_CHECK(add_received(D, D->ipc.buf, y));
        GS_CHECK(ipc_finish(D));
        goto done;
    }
    GS_CHECK(gs_dist_op_staging(D, &staged));
    if (nt > 0) {
        GS_CHECK(gs_spmat_spmv(D->Mr, x, D->tr));
        if (staged) {
            double t0 = gs_time_now();
            GS_CHECK(be->get(D->shost, D->tr->data, (size_t)nt * sizeof(double)));
            gs_comm_add_seconds(gs_time_now() - t0);
        }
    }
    GS_CHECK(gs_comm_exchange_begin(D->ex, staged ? D->shost : (nt ? D->tr->data : D->sdev),
                                    staged ? D->rhost : D->sdev));
    GS_CHECK(gs_spmat_spmv(D->Md, x, y));
    GS_CHECK(gs_comm_exchange_end(D->ex));
    if (nr > 0) {
        if (staged) {
            double t1 = gs_time_now();
            GS_CHECK(be->put(D->sdev, D->rhost, (size_t)nr * sizeof(double)));
            gs_comm_add_seconds(gs_time_now() - t1);
        }
        GS_CHECK(add_received(D, D->sdev, y));
    }
done:
    return st;
}

/* the values the neighbours need gathered and sent, the halo's receives posted */
static gs_status halo_begin(const gs_dist_op *D, const double *x, double *xh)
{
    gs_status st = GS_OK;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    const int64_t ns = D->soff[D->nsend];
    int staged = 0;
    GS_CHECK(gs_dist_op_staging(D, &staged));
    double t0 = gs_time_now();
    if (ns > 0) GS_CHECK(be->gather(ns, D->sidx->data, x, D->sdev));
    if (staged && ns > 0) GS_CHECK(be->get(D->shost, D->sdev, (size_t)ns * sizeof(double)));
    gs_comm_add_seconds(gs_time_now() - t0);
    GS_CHECK(gs_comm_exchange_begin(D->ex, staged ? D->shost : D->sdev, staged ? D->rhost : xh));
done:
    return st;
}

static gs_status halo_end(const gs_dist_op *D, double *xh)
{
    gs_status st = GS_OK;
    GS_CHECK(gs_comm_exchange_end(D->ex));
    if (D->nhalo > 0 && D->shost) {
        double t1 = gs_time_now();
        GS_CHECK(gs_backend_get(D->loc)->put(xh, D->rhost, (size_t)D->nhalo * sizeof(double)));
        gs_comm_add_seconds(gs_time_now() - t1);
    }
done:
    return st;
}

gs_status gs_dist_op_spmv(const gs_dist_op *D, const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    double tp0 = 0;
    if (gs_dist_op_prof_on()) {
        gs_backend_get(D->loc)->sync();
        tp0 = gs_time_now();
    }
    if (x->n != D->cols || y->n != D->rows || x->loc != D->loc || y->loc != D->loc)
        GS_FAIL(GS_ERR_ARG, "distributed spmv: vector sizes or locations do not match");
    if (D->reverse) {
        GS_CHECK(reverse_spmv(D, x, y));
        goto done;
    }
    if (D->whole) { /* x and its halo side by side, then the compact rows' product */
        GS_CHECK(gs_backend_get(D->loc)->move(D->ext->data, x->data,
                                              (size_t)D->cols * sizeof(double)));
        GS_CHECK(gs_dist_op_halo(D, x->data, D->ext->data + D->cols));
        GS_CHECK(gs_spmat_spmv(D->Md, D->ext, y));
        goto done;
    }
    if (D->ipc.buf) {
        GS_CHECK(ipc_spmv(D, x, y));
        goto done;
    }
    GS_CHECK(halo_begin(D, x->data, D->xh->data));
    GS_CHECK(gs_spmat_spmv(D->Md, x, y)); /* runs while the messages travel */
    GS_CHECK(halo_end(D, D->xh->data));
    if (D->nhalo > 0) {
        GS_CHECK(add_offd(D, D->xh, y));
    }
done:
    if (gs_dist_op_prof_on()) {
        gs_backend_get(D->loc)->sync();
        ((gs_dist_op *)D)->prof_s += gs_time_now() - tp0;
        ((gs_dist_op *)D)->prof_n++;
    }
    if (st != GS_OK) gs_comm_fatal(st); /* the neighbours wait for this rank: end them all */
    return st;
}

gs_status gs_dist_op_halo(const gs_dist_op *D, const double *x, double *xh)
{
    gs_status st = GS_OK;
    if (D->ipc.buf && !D->reverse) { /* the products' IPC exchange, without a product */
        const gs_backend_ops *be = gs_backend_get(D->loc);
        GS_CHECK(ipc_exchange(D, x, D->sidx->data, NULL, NULL, NULL));
        if (D->nhalo > 0) GS_CHECK(be->move(xh, D->ipc.buf, (size_t)D->nhalo * sizeof(double)));
        GS_CHECK(ipc_finish(D));
        goto done;
    }
    GS_CHECK(halo_begin(D, x, xh));
    GS_CHECK(halo_end(D, xh));
done:
    return st;
}

/* bytes[rank[i]] = the int64 entries of the items blocks[i] .. blocks[i + 1] - 1 (by their
 * offsets off, at loc: read one bound at a time), i < n */
static gs_status block_bytes(const gs_backend_ops *be, const int64_t *off, int n,
                             const int64_t *blocks, const int *rank, size_t *bytes)
{
    gs_status st = GS_OK;
    int64_t lo, hi;
    for (int i = 0; i < n; i++) {
        GS_CHECK(be->get(&lo, off + blocks[i], sizeof lo));
        GS_CHECK(be->get(&hi, off + blocks[i + 1], sizeof hi));
        bytes[rank[i]] = (size_t)(hi - lo) * sizeof(int64_t);
    }
done:
    return st;
}

gs_status gs_dist_op_fetch_rows(const gs_dist_op *D, const gs_csr *M, int64_t base, int32_t nown,
                                const int64_t *gmap, int64_t **rowptr, int64_t *nent,
                                int64_t **gcol, double **val)
{
    gs_status st = GS_OK;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    const gs_dist_ops *ops = gs_dist_ops_at(D->loc);
    const int R = gs_comm_size();
    const int64_t ns = D->soff[D->nsend], nh = D->nhalo;
    int32_t *len = NULL;
    int64_t *off = NULL, *dg = NULL, *rp = NULL, *rg = NULL, ne = 0, nr = 0;
    double *dv = NULL, *rv = NULL;
    gs_vec *x = NULL;
    size_t *sb = NULL, *rb = NULL;
    *rowptr = NULL, *nent = 0, *gcol = NULL, *val = NULL;
    if (M->rows != D->cols)
        GS_FAIL(GS_ERR_INTERNAL, "row fetch: %d rows, the operator has %d columns", M->rows,
                D->cols);
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *sb, "row fetch", (void **)&sb));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *rb, "row fetch", (void **)&rb));
    memset(sb, 0, (size_t)R * sizeof *sb);
    memset(rb, 0, (size_t)R * sizeof *rb);
    /* the rows asked for, packed with global columns where the matrices live; the host reads
     * only each neighbour's block bounds */
    GS_CHECK(be->alloc(((size_t)ns + 1) * sizeof *len, "row fetch", (void **)&len));
    GS_CHECK(be->alloc(((size_t)ns + 1) * sizeof *off, "row fetch", (void **)&off));
    if (ns > 0) GS_CHECK(ops->row_lengths(M, ns, D->sidx->data, len));
    GS_CHECK(ops->offsets(ns, len, NULL, off));
    GS_CHECK(block_bytes(be, off, D->nsend, D->soff, D->to, sb));
    GS_CHECK(be->get(&ne, off + ns, sizeof ne));
    GS_CHECK(be->alloc(((size_t)ne + 1) * sizeof *dg, "row fetch", (void **)&dg));
    GS_CHECK(be->alloc(((size_t)ne + 1) * sizeof *dv, "row fetch", (void **)&dv));
    if (ne > 0) GS_CHECK(ops->pack_rows(M, ns, D->sidx->data, off, base, nown, gmap, dg, dv));
    /* every row's length through the halo exchange (as doubles), their offsets, then the
     * entries rank to rank */
    GS_CHECK(gs_vec_create((int64_t)D->cols + nh, D->loc, &x));
    GS_CHECK(ops->lengths(M, x->data));
    GS_CHECK(gs_dist_op_halo(D, x->data, x->data + D->cols));
    GS_CHECK(be->alloc(((size_t)nh + 1) * sizeof *rp, "row fetch", (void **)&rp));
    GS_CHECK(ops->offsets(nh, NULL, x->data + D->cols, rp));
    GS_CHECK(block_bytes(be, rp, D->nrecv, D->roff, D->from, rb));
    GS_CHECK(be->get(&nr, rp + nh, sizeof nr));
    GS_CHECK(be->alloc(((size_t)nr + 1) * sizeof *rg, "row fetch", (void **)&rg));
    GS_CHECK(be->alloc(((size_t)nr + 1) * sizeof *rv, "row fetch", (void **)&rv));
    { /* columns and values (doubles: the same byte counts) in one exchange */
        const void *snd[2] = {dg, dv};
        void *rcv[2] = {rg, rv};
        GS_CHECK(gs_dist_alltoallv_at(D->loc, 2, snd, sb, rcv, rb));
    }
    *rowptr = rp, *nent = nr, *gcol = rg, *val = rv;
    rp = NULL, rg = NULL, rv = NULL;
done:
    if (len) be->free(len);
    if (off) be->free(off);
    if (dg) be->free(dg);
    if (dv) be->free(dv);
    if (rp) be->free(rp);
    if (rg) be->free(rg);
    if (rv) be->free(rv);
    gs_vec_destroy(&x);
    gs_free(sb);
    gs_free(rb);
    return st;
}

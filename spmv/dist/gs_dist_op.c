/* gs_dist_op.c: the distributed SpMV (gs_dist_op.h): the exchange plan, the blocks, the product. */
#include "gs_dist_op.h"

#include <string.h>

#include "gs_backend.h"
#include "gs_time.h"

static gs_status dist_spmv(const void *D, const gs_vec *x, gs_vec *y)
{
    return gs_dist_op_spmv(D, x, y);
}

/* the rows' own and halo columns split into the diagonal and off-diagonal blocks (host); C is
 * gs_dist_compact's form, every row's own columns before its halo ones, so each row splits at
 * one place (rows in parallel) */
static gs_status split(const gs_csr *C, int32_t ncols, int32_t nhalo, gs_csr **diag,
                       gs_csr **offd)
{
    gs_status st = GS_OK;
    int32_t *cut = NULL;
    int64_t nd = 0;
    *diag = *offd = NULL;
    GS_CHECK(gs_alloc_array((size_t)C->rows + 1, sizeof *cut, "block split", (void **)&cut));
#pragma omp parallel for schedule(static) reduction(+ : nd) if (C->nnz > 100000)
    for (int32_t i = 0; i < C->rows; i++) {
        int32_t q = C->rowptr[i];
        while (q < C->rowptr[i + 1] && C->colind[q] < ncols) q++;
        cut[i] = q;
        nd += q - C->rowptr[i];
    }
    GS_CHECK(gs_csr_create(C->rows, ncols, nd, diag));
    if (nhalo > 0) GS_CHECK(gs_csr_create(C->rows, nhalo, C->nnz - nd, offd));
    gs_csr *D = *diag, *O = nhalo > 0 ? *offd : NULL;
    D->rowptr[0] = 0;
    if (O) O->rowptr[0] = 0;
    for (int32_t i = 0; i < C->rows; i++) {
        D->rowptr[i + 1] = D->rowptr[i] + (cut[i] - C->rowptr[i]);
        if (O) O->rowptr[i + 1] = O->rowptr[i] + (C->rowptr[i + 1] - cut[i]);
    }
#pragma omp parallel for schedule(static) if (C->nnz > 100000)
    for (int32_t i = 0; i < C->rows; i++) {
        int32_t k = D->rowptr[i];
        for (int32_t q = C->rowptr[i]; q < cut[i]; q++, k++) {
            D->colind[k] = C->colind[q];
            D->val[k] = C->val[q];
        }
        if (!O) continue;
        k = O->rowptr[i];
        for (int32_t q = cut[i]; q < C->rowptr[i + 1]; q++, k++) {
            O->colind[k] = C->colind[q] - ncols;
            O->val[k] = C->val[q];
        }
    }
done:
    gs_free(cut);
    return st;
}

/* who sends me which halo values, and which of mine each neighbour needs */
static gs_status plan(gs_dist_op *D, const gs_part *cp)
{
    gs_status st = GS_OK;
    const int R = cp->nranks;
    size_t *qs = NULL, *qr = NULL;
    int64_t *req = NULL;
    int32_t *idx = NULL;
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(size_t), "halo plan", (void **)&qs));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(size_t), "halo plan", (void **)&qr));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int), "halo plan", (void **)&D->from));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "halo plan", (void **)&D->roff));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int), "halo plan", (void **)&D->to));
    GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "halo plan", (void **)&D->soff));
    memset(qs, 0, (size_t)R * sizeof *qs);
    D->roff[0] = 0;
    for (int32_t h = 0; h < D->nhalo; h++) { /* ascending, so grouped by owner */
        int r = gs_part_owner(cp, D->halo[h]);
        if (qs[r] == 0) {
            D->from[D->nrecv] = r;
            D->nrecv++;
        }
        qs[r] += sizeof(int64_t);
        D->roff[D->nrecv] = h + 1;
    }
    GS_CHECK(gs_comm_alltoall_sizes(qs, qr));
    size_t nq = 0;
    for (int r = 0; r < R; r++) nq += qr[r] / sizeof(int64_t);
    GS_CHECK(gs_alloc_array(nq + 1, sizeof(int64_t), "halo plan", (void **)&req));
    GS_CHECK(gs_comm_alltoallv(D->halo, qs, req, qr));
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
    int64_t ns = D->soff[D->nsend];
    /* the send indices and buffers where x lives; page-locked host staging unless MPI takes
     * device memory */
    const gs_buf hidx = {idx, ns, GS_I32, GS_LOC_HOST};
    GS_CHECK(gs_buf_clone(&hidx, D->loc, "halo send indices", &D->sidx));
    const gs_backend_ops *be = gs_backend_get(D->loc);
    GS_CHECK(be->alloc((size_t)(ns + 1) * sizeof(double), "halo send values", (void **)&D->sdev));
    if (D->loc != GS_LOC_HOST && !gs_comm_device_aware()) {
        GS_CHECK(gs_alloc_pinned((size_t)ns + 1, sizeof(double), "halo staging",
                                 (void **)&D->shost));
        GS_CHECK(gs_alloc_pinned((size_t)D->nhalo + 1, sizeof(double), "halo staging",
                                 (void **)&D->rhost));
    }
    GS_CHECK(gs_vec_create(D->nhalo, D->loc, &D->xh));
    GS_CHECK(gs_vec_create(D->rows, D->loc, &D->t));
    GS_CHECK(gs_comm_exchange_create(D->nsend, D->to, D->soff, D->nrecv, D->from, D->roff,
                                     &D->ex));
done:
    D->sidx_h = idx;
    idx = NULL;
    gs_free(qs);
    gs_free(qr);
    gs_free(req);
    gs_free(idx);
    return st;
}

gs_status gs_dist_op_create(const gs_gcsr *A, const gs_part *cp, gs_loc loc,
                            const gs_select_request *rq, int level, gs_dist_op **out)
{
    gs_status st = GS_OK;
    gs_dist_op *D = NULL;
    gs_csr *hd = NULL, *ho = NULL;
    const int me = gs_comm_rank();
    GS_CHECK(gs_alloc_array(1, sizeof *D, "distributed operator", (void **)&D));
    memset(D, 0, sizeof *D);
    D->loc = loc;
    D->rows = A->rows;
    D->row0 = A->row0;
    D->col0 = cp->start[me];
    D->cols = (int32_t)(cp->start[me + 1] - D->col0);
    GS_CHECK(gs_dist_compact(A, D->col0, D->cols, &D->compact, &D->halo, &D->nhalo));
    GS_CHECK(split(D->compact, D->cols, D->nhalo, &hd, &ho));
    GS_CHECK(plan(D, cp));
    if (loc == GS_LOC_HOST) {
        D->diag = hd;
        D->offd = ho;
        hd = ho = NULL;
    } else {
        GS_CHECK(gs_csr_upload(hd, loc, &D->diag));
        if (ho) GS_CHECK(gs_csr_upload(ho, loc, &D->offd));
    }
    if (rq) {
        GS_CHECK(gs_select_spmat(D->diag, level, rq, &D->Md, &D->sel));
    } else {
        GS_CHECK(gs_spmat_create(D->diag, GS_FORMAT_CSR, NULL, &D->Md));
        D->sel.format = GS_FORMAT_CSR;
        gs_str_copy(D->sel.reason, sizeof D->sel.reason, "gsolve's CSR kernel");
    }
    if (D->offd) GS_CHECK(gs_spmat_create(D->offd, GS_FORMAT_CSR, NULL, &D->Mo));
    D->view = *D->Md;
    D->view.nnz = D->compact->nnz;
    D->view.cols = D->cols;
    D->view.dist = D;
    D->view.dist_spmv = dist_spmv;
    *out = D;
    D = NULL;
done:
    gs_csr_destroy(&hd);
    gs_csr_destroy(&ho);
    gs_dist_op_destroy(&D);
    return st;
}

void gs_dist_op_destroy(gs_dist_op **Dp)
{
    if (!Dp || !*Dp) return;
    gs_dist_op *D = *Dp;
    gs_spmat_destroy(&D->Md);
    gs_spmat_destroy(&D->Mo);
    gs_csr_destroy(&D->diag);
    gs_csr_destroy(&D->offd);
    gs_csr_destroy(&D->compact);
    gs_free(D->halo);
    gs_free(D->to);
    gs_free(D->from);
    gs_free(D->soff);
    gs_free(D->roff);
    gs_buf_destroy(&D->sidx);
    gs_free(D->sidx_h);
    const gs_backend_ops *be = gs_backend_get(D->loc);
    if (D->sdev && be) be->free(D->sdev);
    gs_free(D->shost);
    gs_free(D->rhost);
    gs_vec_destroy(&D->xh);
    gs_vec_destroy(&D->t);
    gs_comm_exchange_destroy(&D->ex);
    gs_free(D);
    *Dp = NULL;
}

gs_status gs_dist_op_spmv(const gs_dist_op *D, const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    const gs_backend_ops *be = gs_backend_get(D->loc);
    const int64_t ns = D->soff[D->nsend];
    const int staged = D->shost != NULL;
    double t0 = gs_time_now();
    if (x->n != D->cols || y->n != D->rows || x->loc != D->loc || y->loc != D->loc)
        GS_FAIL(GS_ERR_ARG, "distributed spmv: vector sizes or locations do not match");
    if (ns > 0) GS_CHECK(be->gather(ns, D->sidx->data, x->data, D->sdev));
    if (staged && ns > 0) GS_CHECK(be->get(D->shost, D->sdev, (size_t)ns * sizeof(double)));
    gs_comm_add_seconds(gs_time_now() - t0);
    GS_CHECK(gs_comm_exchange_begin(D->ex, staged ? D->shost : D->sdev,
                                    staged ? D->rhost : D->xh->data));
    GS_CHECK(gs_spmat_spmv(D->Md, x, y)); /* runs while the messages travel */
    GS_CHECK(gs_comm_exchange_end(D->ex));
    if (D->nhalo > 0) {
        if (staged) {
            double t1 = gs_time_now();
            GS_CHECK(be->put(D->xh->data, D->rhost, (size_t)D->nhalo * sizeof(double)));
            gs_comm_add_seconds(gs_time_now() - t1);
        }
        GS_CHECK(gs_spmat_spmv(D->Mo, D->xh, D->t));
        GS_CHECK(gs_vec_axpy(1.0, D->t, y));
    }
done:
    if (st != GS_OK) gs_comm_abort(st); /* the neighbours wait for this rank: end them all */
    return st;
}

gs_status gs_dist_op_halo_host(const gs_dist_op *D, const double *x, double *xh)
{
    gs_status st = GS_OK;
    const int64_t ns = D->soff[D->nsend];
    double *send = NULL;
    GS_CHECK(gs_alloc_array((size_t)ns + 1, sizeof *send, "halo values", (void **)&send));
    for (int64_t i = 0; i < ns; i++) send[i] = x[D->sidx_h[i]];
    GS_CHECK(gs_comm_exchange_begin(D->ex, send, xh));
    GS_CHECK(gs_comm_exchange_end(D->ex));
done:
    gs_free(send);
    return st;
}

gs_status gs_dist_op_host_diag(const gs_dist_op *D, gs_csr **out)
{
    gs_csr *offd = NULL;
    gs_status st = split(D->compact, D->cols, 0, out, &offd);
    gs_csr_destroy(&offd);
    return st;
}

gs_status gs_dist_op_to_global(const gs_dist_op *D, const gs_csr *C, int64_t grows,
                               int64_t gcols, gs_gcsr **out)
{
    gs_status st = GS_OK;
    gs_gcsr *G = NULL;
    GS_CHECK(gs_gcsr_create(D->row0, C->rows, grows, gcols, C->nnz, &G));
    for (int32_t i = 0; i <= C->rows; i++) G->rowptr[i] = C->rowptr[i];
#pragma omp parallel for schedule(static) if (C->nnz > 100000)
    for (int32_t q = 0; q < C->nnz; q++) {
        int32_t j = C->colind[q];
        G->col[q] = j < D->cols ? D->col0 + j : D->halo[j - D->cols];
        G->val[q] = C->val[q];
    }
    *out = G;
done:
    return st;
}

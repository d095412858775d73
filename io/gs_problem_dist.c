/* gs_problem_dist.c: the problem's rows scattered from rank 0 (gs_problem_dist.h). */
#include "gs_problem_dist.h"

#include <string.h>

#include "gs_comm.h"
#include "gs_mem.h"

/* what every rank learns of the problem before the scatter */
typedef struct meta {
    int64_t rows, cols, nnz;
    int block_size, nullspace_k, has_x_exact;
} meta;

/* rank 0: the byte count of every rank's block of an array of `per_row` items of `size` bytes
 * a row (per_nnz: counted by nonzeros instead) */
static void block_bytes(const gs_part *pt, const gs_csr *A, size_t size, int per_nnz, size_t *out)
{
    for (int r = 0; r < pt->nranks; r++) {
        int64_t a = pt->start[r], b = pt->start[r + 1];
        out[r] = size * (size_t)(per_nnz ? A->rowptr[b] - A->rowptr[a] : b - a);
    }
}

gs_status gs_problem_scatter(const gs_problem *p, gs_dproblem **out)
{
    gs_status st = GS_OK;
    const int me = gs_comm_rank(), R = gs_comm_size();
    gs_dproblem *d = NULL;
    meta m;
    int64_t *rp64 = NULL;
    size_t *bytes = NULL;
    int32_t *len = NULL, *col = NULL;
    double *tmp = NULL;
    memset(&m, 0, sizeof m);
    GS_CHECK(gs_alloc_array(1, sizeof *d, "distributed problem", (void **)&d));
    memset(d, 0, sizeof *d);
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *bytes, "scatter", (void **)&bytes));
    if (me == 0) {
        m.rows = p->A->rows;
        m.cols = p->A->cols;
        m.nnz = p->A->nnz;
        m.block_size = p->block_size > 0 ? p->block_size : 1;
        m.nullspace_k = p->nullspace ? p->nullspace_k : 0;
        if (m.rows % m.block_size) m.block_size = 1;
        m.has_x_exact = p->x_exact != NULL;
    }
    GS_CHECK(gs_comm_bcast(&m, sizeof m, 0));
    d->rows = m.rows;
    d->nnz = m.nnz;
    d->block_size = m.block_size;
    d->nullspace_k = m.nullspace_k;
    /* the partition: rank 0 balances the nonzeros, every rank receives it */
    if (me == 0) {
        GS_CHECK(gs_alloc_array((size_t)m.rows + 1, sizeof *rp64, "partition", (void **)&rp64));
        for (int64_t i = 0; i <= m.rows; i++) rp64[i] = p->A->rowptr[i];
        GS_CHECK(gs_part_balanced(m.rows, rp64, R, m.block_size, &d->part));
    } else {
        GS_CHECK(gs_alloc_array(1, sizeof *d->part, "partition", (void **)&d->part));
        d->part->nranks = R;
        d->part->start = NULL;
        GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "partition",
                                (void **)&d->part->start));
    }
    GS_CHECK(gs_comm_bcast(d->part->start, ((size_t)R + 1) * sizeof(int64_t), 0));
    const int64_t row0 = d->part->start[me];
    const int32_t rows = (int32_t)(d->part->start[me + 1] - row0);
    const gs_csr *A = me == 0 ? p->A : NULL;
    /* row lengths */
    GS_CHECK(gs_alloc_array((size_t)rows + 1, sizeof *len, "scatter", (void **)&len));
    if (me == 0) {
        GS_CHECK(gs_alloc_array((size_t)m.rows + 1, sizeof *tmp, "scatter", (void **)&tmp));
        int32_t *all = (int32_t *)tmp; /* rows int32 fit in rows doubles */
        for (int64_t i = 0; i < m.rows; i++) all[i] = A->rowptr[i + 1] - A->rowptr[i];
        block_bytes(d->part, A, sizeof(int32_t), 0, bytes);
        GS_CHECK(gs_comm_scatterv(all, bytes, len, (size_t)rows * sizeof(int32_t), 0));
        gs_free(tmp);
        tmp = NULL;
    } else {
        GS_CHECK(gs_comm_scatterv(NULL, NULL, len, (size_t)rows * sizeof(int32_t), 0));
    }
    int64_t nnz = 0;
    for (int32_t i = 0; i < rows; i++) nnz += len[i];
    GS_CHECK(gs_gcsr_create(row0, rows, m.rows, m.cols, nnz, &d->A));
    for (int32_t i = 0; i < rows; i++) d->A->rowptr[i + 1] = d->A->rowptr[i] + len[i];
    /* columns and values: each rank's block is contiguous in rank 0's arrays */
    GS_CHECK(gs_alloc_array((size_t)nnz + 1, sizeof *col, "scatter", (void **)&col));
    if (me == 0) block_bytes(d->part, A, sizeof(int32_t), 1, bytes);
    GS_CHECK(gs_comm_scatterv(me == 0 ? A->colind : NULL, bytes, col, (size_t)nnz * sizeof(int32_t),
                              0));
    for (int64_t q = 0; q < nnz; q++) d->A->col[q] = col[q];
    if (me == 0) block_bytes(d->part, A, sizeof(double), 1, bytes);
    GS_CHECK(gs_comm_scatterv(me == 0 ? A->val : NULL, bytes, d->A->val,
                              (size_t)nnz * sizeof(double), 0));
    /* b, x0 and the near-nullspace's columns, by rows */
    if (me == 0) block_bytes(d->part, A, sizeof(double), 0, bytes);
    GS_CHECK(gs_alloc_array((size_t)rows + 1, sizeof(double), "right-hand side", (void **)&d->b));
    GS_CHECK(gs_alloc_array((size_t)rows + 1, sizeof(double), "initial guess", (void **)&d->x0));
    GS_CHECK(gs_comm_scatterv(me == 0 ? p->b : NULL, bytes, d->b, (size_t)rows * sizeof(double),
                              0));
    GS_CHECK(gs_comm_scatterv(me == 0 ? p->x0 : NULL, bytes, d->x0,
                              (size_t)rows * sizeof(double), 0));
    if (m.has_x_exact) {
        GS_CHECK(gs_alloc_array((size_t)rows + 1, sizeof(double), "exact solution",
                                (void **)&d->x_exact));
        GS_CHECK(gs_comm_scatterv(me == 0 ? p->x_exact : NULL, bytes, d->x_exact,
                                  (size_t)rows * sizeof(double), 0));
    }
    if (m.nullspace_k > 0) {
        GS_CHECK(gs_alloc_array((size_t)rows * (size_t)m.nullspace_k + 1, sizeof(double),
                                "near-nullspace", (void **)&d->nullspace));
        for (int k = 0; k < m.nullspace_k; k++)
            GS_CHECK(gs_comm_scatterv(me == 0 ? p->nullspace + (size_t)k * (size_t)m.rows : NULL,
                                      bytes, d->nullspace + (size_t)k * (size_t)rows,
                                      (size_t)rows * sizeof(double), 0));
    }
    *out = d;
    d = NULL;
done:
    gs_free(rp64);
    gs_free(bytes);
    gs_free(len);
    gs_free(col);
    gs_free(tmp);
    gs_dproblem_destroy(&d);
    return st;
}

gs_status gs_problem_load_dist(const gs_config *c, gs_problem **p, gs_dproblem **d)
{
    gs_status st = GS_OK;
    *p = NULL;
    *d = NULL;
    if (gs_comm_rank() == 0) st = gs_problem_load(c, p);
    GS_CHECK(gs_comm_agree(st));
    GS_CHECK(gs_comm_agree(gs_problem_scatter(*p, d)));
done:
    return st;
}

void gs_dproblem_destroy(gs_dproblem **dp)
{
    if (!dp || !*dp) return;
    gs_dproblem *d = *dp;
    gs_part_destroy(&d->part);
    gs_gcsr_destroy(&d->A);
    gs_free(d->b);
    gs_free(d->x0);
    gs_free(d->x_exact);
    gs_free(d->nullspace);
    gs_free(d);
    *dp = NULL;
}

gs_status gs_dproblem_gather(const gs_dproblem *d, const double *x, double *all)
{
    gs_status st = GS_OK;
    const int R = d->part->nranks, me = gs_comm_rank();
    size_t *bytes = NULL;
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *bytes, "gather", (void **)&bytes));
    for (int r = 0; r < R; r++)
        bytes[r] = (size_t)(d->part->start[r + 1] - d->part->start[r]) * sizeof(double);
    GS_CHECK(gs_comm_gatherv(x, bytes[me], all, bytes, 0));
done:
    gs_free(bytes);
    return st;
}

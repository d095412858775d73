/* gs_sparse_host.c: the sparse toolkit's row slices, stacking, sums and triplets on the host
 * (gs_spgemm.h's gs_sparse_*; the reference for gs_sparse_cuda.cu): each makes a per-row count,
 * a prefix sum and a per-row fill where the result's size is not known beforehand. */
#include <stdint.h>
#include <string.h>

#include "gs_mem.h"
#include "gs_spgemm.h"

#define OMP_MIN 100000 /* below this, threads cost more than they save */

/* column j of a matrix renumbered by m (NULL: kept) */
static inline int32_t mapped(const gs_col_map *m, int32_t j)
{
    return !m || j < m->nown ? j : m->map[j - m->nown];
}

/* out = rows [r0, r1) of A, rowptr rebased to 0 */
gs_status gs_sparse_host_row_slice(const gs_csr *A, int32_t r0, int32_t r1, gs_csr **out)
{
    gs_status st = GS_OK;
    gs_csr *B = NULL;
    *out = NULL;
    if (r0 < 0 || r1 < r0 || r1 > A->rows)
        GS_FAIL(GS_ERR_ARG, "row slice [%d, %d) of a matrix of %d rows", (int)r0, (int)r1,
                (int)A->rows);
    const int32_t base = A->rowptr[r0], nnz = A->rowptr[r1] - base;
    GS_CHECK(gs_csr_create(r1 - r0, A->cols, nnz, &B));
    for (int32_t i = 0; i <= r1 - r0; i++) B->rowptr[i] = A->rowptr[r0 + i] - base;
    memcpy(B->colind, A->colind + base, (size_t)nnz * sizeof(int32_t));
    memcpy(B->val, A->val + base, (size_t)nnz * sizeof(double));
    *out = B, B = NULL;
done:
    gs_csr_destroy(&B);
    return st;
}

/* *out = *A's first r rows: its row and entry counts cut, its arrays kept */
gs_status gs_sparse_host_row_prefix(gs_csr **A, int32_t r, gs_csr **out)
{
    gs_status st = GS_OK;
    *out = NULL;
    if (r < 0 || r > (*A)->rows)
        GS_FAIL(GS_ERR_ARG, "row prefix of %d rows of a matrix of %d rows", (int)r,
                (int)(*A)->rows);
    (*A)->rows = r;
    (*A)->nnz = (*A)->rowptr[r];
    *out = *A, *A = NULL;
done:
    gs_csr_destroy(A);
    return st;
}

/* out = A's rows (columns renumbered by am) over B's rows, cols columns */
gs_status gs_sparse_host_vcat(const gs_csr *A, const gs_col_map *am, const gs_csr *B, int32_t cols,
                           gs_csr **out)
{
    gs_status st = GS_OK;
    gs_csr *C = NULL;
    *out = NULL;
    if ((!am && cols < A->cols) || cols < B->cols)
        GS_FAIL(GS_ERR_ARG, "vcat: %d columns for matrices of %d and %d", (int)cols, (int)A->cols,
                (int)B->cols);
    GS_CHECK(gs_csr_create((int64_t)A->rows + B->rows, cols, (int64_t)A->nnz + B->nnz, &C));
    memcpy(C->rowptr, A->rowptr, ((size_t)A->rows + 1) * sizeof(int32_t));
    for (int32_t i = 1; i <= B->rows; i++) C->rowptr[A->rows + i] = B->rowptr[i] + A->nnz;
    const int32_t annz = A->nnz;
    if (am) {
#pragma omp parallel for schedule(static) if (annz > OMP_MIN)
        for (int32_t q = 0; q < annz; q++) C->colind[q] = mapped(am, A->colind[q]);
    } else {
        memcpy(C->colind, A->colind, (size_t)annz * sizeof(int32_t));
    }
    memcpy(C->colind + A->nnz, B->colind, (size_t)B->nnz * sizeof(int32_t));
    memcpy(C->val, A->val, (size_t)A->nnz * sizeof(double));
    memcpy(C->val + A->nnz, B->val, (size_t)B->nnz * sizeof(double));
    *out = C, C = NULL;
done:
    gs_csr_destroy(&C);
    return st;
}

/* the merge of row i of A (columns renumbered by am) and B: its length, and with C its entries
 * at C->rowptr[i] */
static int32_t merge_row(const gs_csr *A, const gs_col_map *am, const gs_csr *B, int32_t i,
                         gs_csr *C)
{
    int32_t qa = A->rowptr[i], ea = A->rowptr[i + 1], qb = B->rowptr[i], eb = B->rowptr[i + 1];
    int32_t n = 0, p = C ? C->rowptr[i] : 0;
    while (qa < ea || qb < eb) {
        const int32_t ja = qa < ea ? mapped(am, A->colind[qa]) : INT32_MAX;
        const int32_t jb = qb < eb ? B->colind[qb] : INT32_MAX;
        const int32_t j = ja < jb ? ja : jb;
        if (C) {
            C->colind[p + n] = j;
            C->val[p + n] = ja != j ? B->val[qb] : jb != j ? A->val[qa] : A->val[qa] + B->val[qb];
        }
        qa += ja == j, qb += jb == j;
        n++;
    }
    return n;
}

/* out = A' + B (A' = A with its columns renumbered by am): the union of the patterns (count,
 * scan, fill) */
gs_status gs_sparse_host_add(const gs_csr *A, const gs_col_map *am, const gs_csr *B, gs_csr **out)
{
    gs_status st = GS_OK;
    gs_csr *C = NULL;
    int32_t *len = NULL;
    const int32_t rows = A->rows;
    *out = NULL;
    if (A->rows != B->rows || (!am && A->cols != B->cols))
        GS_FAIL(GS_ERR_ARG, "add: %d x %d plus %d x %d", (int)A->rows, (int)A->cols, (int)B->rows,
                (int)B->cols);
    GS_CHECK(gs_alloc_array((size_t)rows + 1, sizeof *len, "sum row lengths", (void **)&len));
#pragma omp parallel for schedule(static) if (rows > OMP_MIN)
    for (int32_t i = 0; i < rows; i++) len[i] = merge_row(A, am, B, i, NULL);
    int64_t nnz = 0;
    for (int32_t i = 0; i < rows; i++) nnz += len[i];
    GS_CHECK(gs_csr_create(rows, B->cols, nnz, &C));
    for (int32_t i = 0; i < rows; i++) C->rowptr[i + 1] = C->rowptr[i] + len[i];
#pragma omp parallel for schedule(static) if (rows > OMP_MIN)
    for (int32_t i = 0; i < rows; i++) (void)merge_row(A, am, B, i, C);
    *out = C, C = NULL;
done:
    gs_free(len);
    gs_csr_destroy(&C);
    return st;
}

/* C = the triplets summed into rows x cols (gs_csr_from_coo: its n limit is the contract's) */
gs_status gs_sparse_host_coo_csr(int32_t rows, int32_t cols, int64_t n, const int32_t *ri,
                              const int32_t *ci, const double *v, gs_csr **C)
{
    return gs_csr_from_coo(rows, cols, n, ri, ci, v, C);
}


/* gs_csr.h: compressed sparse row matrix (0-based, 32-bit indices), the base format.
 *
 * Rows are sorted by column with no duplicates after gs_csr_from_coo. Index arrays are
 * int32_t (cuSPARSE's 32-bit CSR), so rows, cols and nnz are each below 2^31.
 */
#ifndef GS_CSR_H
#define GS_CSR_H

#include <stdint.h>

#include "gs_mem.h"
#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_MAX_INDEX 2147483647LL /* largest row/column count and nnz (2^31 - 1) */
/* A size a file claims before its entries are read is refused when the rows or columns would be
 * mostly empty: more than 16 a stored entry beyond the first GS_MAX_EMPTY_SPAN. A CSR costs 4
 * bytes a row whatever the file holds, so a two-line file could otherwise claim gigabytes. */
#define GS_MAX_EMPTY_SPAN (1LL << 20)
#define GS_SIZE_IMPLAUSIBLE(rows, cols, nnz)                                                       \
    ((rows) > 16 * (int64_t)(nnz) + GS_MAX_EMPTY_SPAN || (cols) > 16 * (int64_t)(nnz) + GS_MAX_EMPTY_SPAN)

typedef struct gs_csr {
    int32_t rows, cols, nnz;
    int32_t *rowptr; /* rows + 1 */
    int32_t *colind; /* nnz */
    double *val;     /* nnz */
    gs_loc loc;
    void *backend; /* backend state of a device matrix (cuSPARSE descriptors, buffers) */
    gs_dtype type; /* the values' type: GS_F64 (the kernels' type; 0 in a zeroed struct) */
} gs_csr;

/* Nonzeros-per-row statistics of a matrix. */
typedef struct gs_row_stats {
    double mean, std;
    int32_t min, max;
    int64_t empty_rows;
    int64_t rows_without_diag; /* among the first min(rows, cols) rows */
} gs_row_stats;

/* Allocate an uninitialised rows x cols host matrix with room for nnz entries. Its arrays are
 * page-locked (gs_alloc_pinned) when a device backend has started and they are large. */
gs_status gs_csr_create(int64_t rows, int64_t cols, int64_t nnz, gs_csr **out);
void gs_csr_destroy(gs_csr **A); /* host or device */

/* qsort comparator of int32_t values, ascending */
int gs_cmp_i32(const void *a, const void *b);

/* Copy host matrix A to the backend at loc (a host copy for GS_LOC_HOST). */
gs_status gs_csr_upload(const gs_csr *A, gs_loc loc, gs_csr **out);
/* The same, running meanwhile(arg) on the host while the copy travels (on the host: before
 * it); meanwhile's failure is returned, after the copy has ended, and *out is then NULL. */
gs_status gs_csr_upload_while(const gs_csr *A, gs_loc loc, gs_status (*meanwhile)(void *),
                              void *arg, gs_csr **out);

/* A host copy of A, wherever A lives. */
gs_status gs_csr_download(const gs_csr *A, gs_csr **out);

/* Build a CSR from 0-based coordinate triplets: rows sorted, duplicates summed.
 * Refuses (GS_ERR_UNSUPPORTED) a matrix with rows, cols or nnz at or beyond 2^31. */
gs_status gs_csr_from_coo(int64_t rows, int64_t cols, int64_t nnz, const int32_t *ri,
                          const int32_t *ci, const double *v, gs_csr **out);

/* The bytes A's arrays take: 32-bit row pointers and columns, double values. */
double gs_csr_storage_bytes(const gs_csr *A);

/* Deep copy on the host. */
gs_status gs_csr_copy(const gs_csr *A, gs_csr **out);

/* B = A^T on the host (rows of B sorted). */
gs_status gs_csr_transpose(const gs_csr *A, gs_csr **out);

/* How far square A (sorted columns) is from symmetric, from one merge of A's rows with A^T's
 * (an entry missing counts as 0): rel, the largest |a_ij - a_ji| / max(|a_ij|, |a_ji|), at
 * (i, j) (-1 when A is symmetric); abs, the largest |a_ij - a_ji| (infinite where one is NaN);
 * amax, the largest |a_ij|; pattern, 1 when A and A^T store the same pattern. */
typedef struct gs_csr_asymmetry {
    double rel, abs, amax;
    int32_t i, j;
    int pattern;
} gs_csr_asymmetry;
gs_status gs_csr_asymmetry_of(const gs_csr *A, gs_csr_asymmetry *d);

/* How symmetric A is: 2 values equal to their transposes within rel_tol (relative to the
 * largest magnitude), 1 only the pattern is symmetric, 0 neither (or A not square). */
gs_status gs_csr_symmetry(const gs_csr *A, double rel_tol, int *out);

/* The first entry of sorted row r at or past column col (A->rowptr[r + 1] when none): one
 * binary search, host arrays. */
int32_t gs_csr_lower_bound(const gs_csr *A, int32_t r, int32_t col);

/* y = A*x on the host (OpenMP over rows where available). */
void gs_csr_spmv_host(const gs_csr *A, const double *x, double *y);

/* d[i] = A(i,i) (0 where not stored), for i < min(rows, cols). */
void gs_csr_diag_host(const gs_csr *A, double *d);

/* Row statistics of A. */
void gs_csr_row_stats(const gs_csr *A, gs_row_stats *out);

/* Check the structure: rowptr monotone from 0 to nnz, columns in range and sorted. On
 * failure records a message prefixed by `where` (e.g. a file name) and returns GS_ERR_INPUT. */
gs_status gs_csr_validate(const gs_csr *A, const char *where);

#ifdef __cplusplus
}
#endif
#endif

/* gs_dist.h: matrices split by rows across MPI ranks (gs_comm.h): partitions, a rank's rows with
 * global columns (gs_gcsr), the whole matrix gathered, the compact column form.
 *
 * A distributed matrix is, on every rank, a contiguous block of rows [row0, row0 + rows). As
 * read or generated it is a gs_gcsr (global column numbers, int64, on the host); its partition
 * (gs_part) gives every rank's first row. The SpMV form (gs_dist_op.h) holds it in compact
 * columns where the solve runs (its own columns first, then its halo's in ascending global
 * order), split into the diagonal block and the off-diagonal block. The distributed AMG setup
 * works in that compact form with the steps of gs_dist_ops.h, and the local products go
 * through gs_spgemm.
 */
#ifndef GS_DIST_H
#define GS_DIST_H

#include <stdint.h>

#include "gs_csr.h"
#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Contiguous blocks of rows: rank r holds [start[r], start[r + 1]). */
typedef struct gs_part {
    int nranks;
    int64_t *start; /* nranks + 1 */
} gs_part;

/* The partition in which this rank holds `mine` rows (an allgather). */
gs_status gs_part_from_count(int64_t mine, gs_part **out);
/* Split n rows (rowptr: n + 1 offsets, may be NULL: by rows) into nranks blocks of about equal
 * nonzeros (+ rows), each boundary a multiple of block (1: any). */
gs_status gs_part_balanced(int64_t n, const int64_t *rowptr, int nranks, int block, gs_part **out);
void gs_part_destroy(gs_part **p);
/* the rank that holds global row g */
int gs_part_owner(const gs_part *p, int64_t g);

/* This rank's rows of a distributed matrix (grows x gcols), global column numbers, each row's
 * columns sorted and unique. */
typedef struct gs_gcsr {
    int64_t row0, grows, gcols;
    int32_t rows;
    int64_t *rowptr; /* rows + 1 */
    int64_t *col;    /* rowptr[rows] */
    double *val;
} gs_gcsr;

gs_status gs_gcsr_create(int64_t row0, int32_t rows, int64_t grows, int64_t gcols, int64_t nnz,
                         gs_gcsr **out);
void gs_gcsr_destroy(gs_gcsr **A);
/* rows [row0, row0 + A->rows) of a host CSR (every rank holding the whole matrix) */
gs_status gs_gcsr_from_csr_rows(const gs_csr *A, int64_t row0, int32_t rows, gs_gcsr **out);

/* The whole matrix on every rank (an allgather; int32 CSR, so below 2^31 rows and nonzeros). */
gs_status gs_dist_allgather(const gs_gcsr *A, const gs_part *p, gs_csr **out);

/* Sorted unique values of v[0..n) in place; their count. */
int64_t gs_dist_unique_i64(int64_t *v, int64_t n);
/* *out = a host copy of v[0..n) (gs_alloc_array, at least one element; gs_free). */
gs_status gs_dist_copy_i64(const int64_t *v, int64_t n, int64_t **out);
/* The place of g in sorted v[0..n) (-1: not there). */
int64_t gs_dist_find_i64(const int64_t *v, int64_t n, int64_t g);

/* Global sums and extremes of a per-rank count. */
gs_status gs_dist_stats_i64(int64_t mine, int64_t *sum, int64_t *min, int64_t *max);

#ifdef __cplusplus
}
#endif
#endif

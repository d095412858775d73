/* gs_h5.h: HDF5 input (sparse matrices and vectors) and output (matrices, result records).
 *
 * Input layouts, found in the given group ("/" by default):
 *  - scipy / anndata: datasets data, indices, indptr and attribute shape = (rows, cols);
 *    CSR, or CSC when the attribute encoding-type (or h5sparse_format) says "csc_matrix"/"csc";
 *  - MATLAB v7.3 sparse: datasets data, ir, jc and attribute MATLAB_sparse = rows (CSC).
 * Any integer or float dtype is converted. Optional datasets b, x0, x beside the matrix.
 * HDF5's own error printing is silenced; every failure says file, group and what was wrong.
 */
#ifndef GS_H5_H
#define GS_H5_H

#include <stdint.h>

#include "gs_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which layout a matrix was read from. */
typedef struct gs_h5_info {
    char layout[32]; /* "csr", "csc", "matlab" */
} gs_h5_info;

/* Read the matrix stored in group (NULL or "" means the root group); info may be NULL.
 * The result is sorted with duplicates summed and checked (indices in range, indptr
 * non-decreasing and ending at nnz, shape agreeing with the arrays). */
gs_status gs_h5_read(const char *path, const char *group, gs_csr **A, gs_h5_info *info);

/* Read the optional 1-D dataset `name` (e.g. "b") of group: *found = 0 and *out = NULL when
 * it is absent; when present its length must be n. *out is gs_malloc'ed. */
gs_status gs_h5_read_vector(const char *path, const char *group, const char *name, int64_t n,
                            double **out, int *found);

/* Write A in the scipy CSR layout into group of a new file (truncating it). */
gs_status gs_h5_write_csr(const char *path, const char *group, const gs_csr *A);

/* The same, with the right-hand side b (rows values, or NULL) as dataset b beside it. */
gs_status gs_h5_write_problem(const char *path, const char *group, const gs_csr *A,
                              const double *b);

/* A result record: write to "<path>.tmp", renamed to path on commit, so a killed run leaves
 * no half-written record under the final name. */
typedef struct gs_h5_record gs_h5_record;
gs_status gs_h5_record_open(const char *path, gs_h5_record **out);
gs_status gs_h5_record_vector(gs_h5_record *r, const char *name, const double *v, int64_t n);
gs_status gs_h5_record_attr_str(gs_h5_record *r, const char *name, const char *value);
gs_status gs_h5_record_attr_double(gs_h5_record *r, const char *name, double value);
gs_status gs_h5_record_attr_int(gs_h5_record *r, const char *name, int64_t value);
/* commit != 0: close and rename into place; commit == 0: close and remove the temporary.
 * Accepts *r == NULL; sets *r = NULL. */
gs_status gs_h5_record_close(gs_h5_record **r, int commit);

#ifdef __cplusplus
}
#endif
#endif

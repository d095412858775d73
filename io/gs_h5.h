/* gs_h5.h: HDF5 input (sparse matrices and vectors) and output (matrices, result records).
 *
 * Input layouts, found in the given group (by default the root, else the one group of the
 * file that holds a matrix):
 *  - scipy / anndata: datasets data, indices, indptr and attribute shape = (rows, cols);
 *    CSR, or CSC when the attribute encoding-type (or h5sparse_format) says "csc_matrix"/"csc";
 *  - MATLAB v7.3 sparse: datasets data, ir, jc and attribute MATLAB_sparse = rows (CSC).
 * Any integer or float dtype is converted. Optional datasets b, x0, x beside the matrix.
 * HDF5's own error printing is silenced; every failure says file, group and what was wrong.
 */
#ifndef GS_H5_H
#define GS_H5_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gs_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_H5_PATH 256 /* longest group or dataset path handled by the search */

/* The HDF5 library's version at run time, "1.10.7" (--version, the result records). */
void gs_h5_version(char *out, size_t len);

/* Which layout a matrix was read from, and where. */
typedef struct gs_h5_info {
    char layout[32];          /* "csr", "csc", "matlab" */
    char group[GS_H5_PATH];   /* the group read, "/" for the root */
    int found;                /* 1: no group was given and the file's one matrix was found */
} gs_h5_info;

/* Read the matrix stored in group; info may be NULL. With no group (NULL or ""), the root
 * group when it holds a matrix, else the one group of the file that does (a MATLAB variable
 * A is the group /A); several are an error that lists them. The result is sorted with
 * duplicates summed and checked (indices in range, indptr non-decreasing and ending at nnz,
 * shape agreeing with the arrays). */
gs_status gs_h5_read(const char *path, const char *group, gs_csr **A, gs_h5_info *info);

/* The groups of the file that hold a sparse matrix, in name order: the first max paths into
 * groups, *n = how many there are (it may exceed max). */
gs_status gs_h5_find_matrices(const char *path, char (*groups)[GS_H5_PATH], int max, int *n);

/* Print what --inspect shows of an HDF5 file: its sparse matrices (group, layout, size,
 * nonzeros) and its numeric datasets outside them (path, type, size; a MATLAB variable with
 * MATLAB's m x n); *n (may be NULL) = the matrices. A file that is not HDF5 (or cannot be
 * opened) prints nothing, *n = -1, GS_OK: reading it says why. */
gs_status gs_h5_list_matrices(const char *path, FILE *out, int *n);

/* What name (a path in the file) is: *kind = 1 a group, 2 a dataset, 0 nothing (or another
 * object). */
gs_status gs_h5_object_kind(const char *path, const char *name, int *kind);

/* The numeric datasets of the file outside the matrices, "/b, /x0" (cut with "..."). */
gs_status gs_h5_list_datasets(const char *path, char *out, size_t len);

/* Read the numeric 1-D or 2-D dataset name (a path in the file: "/b", "/grp/B") as doubles:
 * *rows x *cols as the writer saw it (1-D: n x 1), the values in column-major order when
 * *colmajor, else row-major. A MATLAB variable (attribute MATLAB_class) is stored
 * transposed, its m x n array as an n x m dataset: it comes back m x n, column-major. *v is
 * gs_malloc'ed. */
gs_status gs_h5_read_array(const char *path, const char *name, double **v, int64_t *rows,
                           int64_t *cols, int *colmajor);

/* Read the optional 1-D dataset `name` (e.g. "b") of group: *found = 0 and *out = NULL when
 * it is absent; when present its length must be n. *out is gs_malloc'ed. */
gs_status gs_h5_read_vector(const char *path, const char *group, const char *name, int64_t n,
                            double **out, int *found);

/* ---- a CSR matrix read by rows: each MPI rank its own, by hyperslabs (gs_h5_dist.c) ---- */

/* Where the matrix gs_h5_read would read is and what it is, without reading its entries:
 * info as gs_h5_read gives it, its *rows, *cols and stored entries *nnz; for the csr layout
 * and ptr not NULL, *ptr = its rows + 1 row pointers (gs_free), checked as gs_h5_read checks
 * them. The file's faults that gs_h5_read finds before reading the entries fail it alike. */
gs_status gs_h5_probe(const char *path, const char *group, gs_h5_info *info, int64_t *rows,
                      int64_t *cols, int64_t *nnz, int64_t **ptr);

/* Rows [r0, r1) of the csr-layout matrix of group (the one gs_h5_probe found), read by
 * hyperslabs: rowptr (r1 - r0 + 1 offsets from 0), col (global columns) and val, each
 * gs_malloc'ed; each row sorted by column with duplicates summed in the file's order, as
 * gs_h5_read makes them; the indices checked (messages give their place in the file). */
gs_status gs_h5_read_rows(const char *path, const char *group, int64_t r0, int64_t r1,
                          int64_t **rowptr, int64_t **col, double **val);

/* Entries [r0, r1) of the optional vector dataset name of group (gs_h5_read_vector: absent,
 * *found = 0; present, its length must be n). */
gs_status gs_h5_read_vector_rows(const char *path, const char *group, const char *name, int64_t n,
                                 int64_t r0, int64_t r1, double **out, int *found);

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

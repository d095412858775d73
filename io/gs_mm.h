/* gs_mm.h: Matrix Market reader and writer (plain or gzip-compressed files).
 *
 * Reads coordinate and array formats; real, integer and pattern fields; general, symmetric
 * and skew-symmetric symmetry (expanded to full storage); comments, blank lines and any
 * whitespace. Duplicates are summed. Complex and Hermitian are refused clearly. Every error
 * names the file and line: "A.mtx:1042: column index 90211 out of range 1..90210".
 */
#ifndef GS_MM_H
#define GS_MM_H

#include <stdint.h>

#include "gs_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the file's banner and size line said. */
typedef struct gs_mm_info {
    char object[16];   /* "matrix" or "vector" */
    char format[16];   /* "coordinate" or "array" */
    char field[16];    /* "real", "integer", "pattern" */
    char symmetry[24]; /* "general", "symmetric", "skew-symmetric" */
    int64_t rows, cols;
    int64_t entries; /* stored entries (data lines) */
} gs_mm_info;

/* Read a sparse matrix; info may be NULL. A vector object reads as an n x 1 matrix, a real
 * "hermitian" file as symmetric; exact zeros of an array file are not stored. */
gs_status gs_mm_read(const char *path, gs_csr **A, gs_mm_info *info);

/* Read a dense vector of length *n (an n x 1 array, a coordinate n x 1 matrix with missing
 * entries zero, or a vector object). When n_expected >= 0 the length must equal it; the
 * message then names both. *out is gs_malloc'ed, to be gs_free'd. */
gs_status gs_mm_read_vector(const char *path, int64_t n_expected, double **out, int64_t *n);

/* Write A as "coordinate real general", 1-based, values with 17 significant digits
 * (gzip-compressed when path ends in ".gz"). */
gs_status gs_mm_write(const char *path, const gs_csr *A);

/* Write x as an "array real general" n x 1 matrix. */
gs_status gs_mm_write_vector(const char *path, const double *x, int64_t n);
/* n x k values, column after column (x), as a Matrix Market array */
gs_status gs_mm_write_array(const char *path, const double *x, int64_t n, int64_t k);

#ifdef __cplusplus
}
#endif
#endif

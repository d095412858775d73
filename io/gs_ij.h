/* gs_ij.h: hypre's IJ text formats, as HYPRE_IJMatrixPrint / HYPRE_IJVectorPrint write them and
 * hypre's ij driver reads them (-fromfile NAME, -rhsfromfile NAME: NAME.00000, NAME.00001, ...
 * one file per rank). A matrix file: a first line "ilower iupper jlower jupper", then one
 * "i j value" line per entry; a vector file: "jlower jupper", then one "j value" line per
 * entry; 0-based global indices. gsolve writes the whole system as one rank's files ("0 n-1 0
 * n-1", values as %.17g, so they read back exactly) and reads every rank's file there is. */
#ifndef GS_IJ_H
#define GS_IJ_H

#include <stdint.h>

#include "gs_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write the host matrix A (square) to the file `path` exactly (the caller adds ".00000"). */
gs_status gs_ij_write(const char *path, const gs_csr *A);

/* Write x[0..n) as an IJ vector to the file `path` exactly ("0 n-1", then "j value" lines). */
gs_status gs_ij_write_vector(const char *path, const double *x, int64_t n);

/* 1 when path names an IJ file set: a name ending in ".ij", one ending in ".ij.NNNNN" (a rank's
 * file), or a name that is no file while NAME.00000 is. */
int gs_ij_is_ij(const char *path);

/* Read the matrix of the IJ files NAME.00000, NAME.00001, ... (path: NAME, or one of its rank
 * files NAME.NNNNN): their row ranges must follow one another from 0; entries sorted,
 * duplicates summed. Errors name the file and line. */
gs_status gs_ij_read(const char *path, gs_csr **A);

/* Read the vector of the IJ files of path (as gs_ij_read): its length must be n_expected when
 * that is >= 0; *n gets it; entries absent from the files are 0. *out is gs_malloc'ed. */
gs_status gs_ij_read_vector(const char *path, int64_t n_expected, double **out, int64_t *n);

#ifdef __cplusplus
}
#endif
#endif

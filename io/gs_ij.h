/* gs_ij.h: hypre's IJ matrix text format, as HYPRE_IJMatrixPrint writes it and hypre's ij
 * driver reads it (-fromfile NAME reads NAME.00000, NAME.00001, ... one file per rank): a first
 * line "ilower iupper jlower jupper", then one "i j value" line per entry, 0-based indices.
 * gsolve writes the whole matrix as one rank's file: "0 n-1 0 n-1", values as %.17g. */
#ifndef GS_IJ_H
#define GS_IJ_H

#include "gs_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write the host matrix A (square) to the file `path` exactly (the caller adds ".00000"). */
gs_status gs_ij_write(const char *path, const gs_csr *A);

#ifdef __cplusplus
}
#endif
#endif

/* gs_npy.h: NumPy .npy files (format versions 1, 2 and 3) holding float64 little-endian
 * ('<f8') arrays of one or two dimensions, in C or Fortran order: what np.save writes for a
 * vector or a block of vectors. Any other dtype is refused with a message naming the file
 * and the dtype found. */
#ifndef GS_NPY_H
#define GS_NPY_H

#include <stdint.h>

#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Read path: its shape rows x cols (1-D: n x 1), the values as stored (column-major when
 * *colmajor, the file's fortran_order), gs_malloc'ed into *v. */
gs_status gs_npy_read(const char *path, double **v, int64_t *rows, int64_t *cols, int *colmajor);

/* 1 when the file begins with the .npy magic string "\x93NUMPY". */
int gs_npy_is_npy(const char *path);

#ifdef __cplusplus
}
#endif
#endif

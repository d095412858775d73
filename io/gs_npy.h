/* gs_npy.h: NumPy .npy files (format versions 1, 2 and 3) of one or two dimensions, in C or
 * Fortran order: what np.save writes for a vector or a block of vectors. float64 and float32,
 * signed and unsigned integers of 1 to 8 bytes, little- or big-endian, are read as doubles;
 * any other dtype (complex, bool, strings, records) is refused with a message naming the file
 * and the dtype found. The same header parser reads the members of a .npz file (gs_npz.h). */
#ifndef GS_NPY_H
#define GS_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a .npy header says. */
typedef struct gs_npy_info {
    char descr[32];   /* the dtype string as written, "<f8" */
    char kind;        /* 'f', 'i', 'u', 'c', 'b', 'S', ... ('?': not a plain dtype) */
    int size;         /* bytes per item */
    int big;          /* 1: big-endian items */
    int nd;           /* dimensions, 0 (a scalar) to 2 */
    int64_t shape[2]; /* shape[0] x shape[1]; a 1-D array is n x 1, a scalar 1 x 1 */
    int colmajor;     /* fortran_order */
    size_t count;     /* items: shape[0] * shape[1] */
} gs_npy_info;

/* Parse the .npy image buf[0..len) (name: the file, "A.npz:data.npy" for a member): its
 * header into *info and the offset of its data into *data_off; the data must fit in len. */
gs_status gs_npy_parse(const char *name, const unsigned char *buf, size_t len, gs_npy_info *info,
                       size_t *data_off);

/* The info->count items at data (as stored) converted to doubles into out; GS_ERR_INPUT naming
 * name and the dtype for a kind that is not a number gsolve reads. */
gs_status gs_npy_values(const char *name, const gs_npy_info *info, const unsigned char *data,
                        double *out);

/* Read path: its shape rows x cols (1-D: n x 1), the values as stored (column-major when
 * *colmajor, the file's fortran_order), converted to doubles, gs_malloc'ed into *v. */
gs_status gs_npy_read(const char *path, double **v, int64_t *rows, int64_t *cols, int *colmajor);

/* 1 when the file begins with the .npy magic string "\x93NUMPY". */
int gs_npy_is_npy(const char *path);

#ifdef __cplusplus
}
#endif
#endif

/* gs_linop.h: a linear operator y = Op(x) over gs_vec: a matrix in some SpMV format, a
 * preconditioner (AMG, Jacobi), anything the Krylov methods multiply by. It lives in the core
 * so that the formats, AMG, the Krylov methods, the driver and the bench programs share it.
 */
#ifndef GS_LINOP_H
#define GS_LINOP_H

#include "gs_vec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y = Op(x); ctx is borrowed. apply_dots, when not NULL, also returns out[i] = a[i].b[i]
 * (i < k <= GS_MAX_DOTS; a[i] or b[i] may be y) computed inside the same pass, which saves CG
 * a reduction kernel per iteration. */
typedef struct gs_linop {
    int64_t n;
    void *ctx;
    gs_status (*apply)(void *ctx, const gs_vec *x, gs_vec *y);
    gs_status (*apply_dots)(void *ctx, const gs_vec *x, gs_vec *y, int k, const gs_vec *const *a,
                            const gs_vec *const *b, double *out);
} gs_linop;

#ifdef __cplusplus
}
#endif
#endif

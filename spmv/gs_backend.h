/* gs_backend.h: the table of operations a backend provides. gs_backend.c is the one file
 * that decides which backends exist; algorithm code reaches a backend only through this
 * table, chosen by the location of the data.
 */
#ifndef GS_BACKEND_H
#define GS_BACKEND_H

#include "gs_csr.h"
#include "gs_vec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_backend_ops {
    const char *name;
    gs_status (*alloc)(size_t bytes, const char *what, void **out);
    void (*free)(void *p);
    gs_status (*fill)(double a, gs_vec *x);
    gs_status (*dot)(const gs_vec *x, const gs_vec *y, double *out);
    gs_status (*axpby)(double a, const gs_vec *x, double b, gs_vec *y);
    gs_status (*copy)(const gs_vec *x, gs_vec *y);
    gs_status (*pmul)(const gs_vec *d, const gs_vec *x, gs_vec *y);
    gs_status (*all_finite)(const gs_vec *x, int *out);
    gs_status (*set_host)(gs_vec *x, const double *src);
    gs_status (*get_host)(const gs_vec *x, double *dst);
    /* y = A*x for A in CSR on this backend */
    gs_status (*csr_spmv)(const gs_csr *A, const gs_vec *x, gs_vec *y);
} gs_backend_ops;

/* The operations for data at loc; NULL when that backend is not built. */
const gs_backend_ops *gs_backend_get(gs_loc loc);

/* Number of usable CUDA devices (0 when CUDA is not built or no GPU is present); when
 * zero, *why (if given) says why in one line. */
int gs_backend_cuda_devices(const char **why);

#ifdef __cplusplus
}
#endif
#endif

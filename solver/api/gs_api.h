/* gs_api.h: what the public API (gsolve.c) needs from the device: a CSR given in device memory
 * checked and adopted there, and new values put in place, without a copy through the host.
 * Not a public header; CUDA builds only (GS_HAVE_CUDA). */
#ifndef GS_API_H
#define GS_API_H

#include <stdint.h>

#include "gs_csr.h"
#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The n x n CSR of device arrays rowptr (int64, n + 1; or rowptr32, int32, when rowptr is
 * NULL), cols and vals checked on the device (rowptr[0] = 0 and increasing, columns inside
 * 0..n-1, finite values: a GS_ERR_INPUT naming fn and the first bad row otherwise) and copied
 * into a device gs_csr (*out). *canonical = 0 (and *out NULL) when a row's columns are not
 * strictly increasing: the caller sorts such a matrix elsewhere. *nnz = rowptr[n]. */
gs_status gs_api_csr_from_device(int64_t n, const int64_t *rowptr, const int32_t *rowptr32,
                                 const int32_t *cols, const double *vals, const char *fn,
                                 gs_csr **out, int *canonical, int64_t *nnz);

/* A's values replaced by vals (device memory, A->nnz finite values: checked) */
gs_status gs_api_values_from_device(gs_csr *A, const double *vals);

#ifdef __cplusplus
}
#endif
#endif

/* gs_vec.h: dense vectors that know where they live, and the vector operations the Krylov
 * methods need. Each operation dispatches on the vector's location through the backend
 * table (gs_backend.h), so algorithm code is written once for host and device.
 */
#ifndef GS_VEC_H
#define GS_VEC_H

#include <stdint.h>

#include "gs_csr.h"
#include "gs_mem.h"
#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_vec {
    int64_t n;
    double *data; /* n values, on loc */
    gs_loc loc;
    gs_dtype type; /* the values' type: GS_F64 (the kernels' type; 0 in a zeroed struct) */
} gs_vec;

/* A zero-filled vector of length n on loc. */
gs_status gs_vec_create(int64_t n, gs_loc loc, gs_vec **out);
void gs_vec_destroy(gs_vec **x);

/* out = sum x_i y_i; out = ||x||_2 */
gs_status gs_vec_dot(const gs_vec *x, const gs_vec *y, double *out);
gs_status gs_vec_nrm2(const gs_vec *x, double *out);
/* y = a*x + y */
gs_status gs_vec_axpy(double a, const gs_vec *x, gs_vec *y);
/* y = a*x + b*y */
gs_status gs_vec_axpby(double a, const gs_vec *x, double b, gs_vec *y);
/* y = x */
gs_status gs_vec_copy(const gs_vec *x, gs_vec *y);
/* x = a (every entry) */
gs_status gs_vec_fill(double a, gs_vec *x);
/* x = a*x */
gs_status gs_vec_scal(double a, gs_vec *x);
/* y = d .* x (entrywise) */
gs_status gs_vec_pmul(const gs_vec *d, const gs_vec *x, gs_vec *y);
/* out[i] = x[i].y[i], i < k <= GS_MAX_DOTS (gs_backend.h), as one fused reduction */
gs_status gs_vec_dots(int k, const gs_vec *const *x, const gs_vec *const *y, double *out);
/* CG's fused update: p = u + beta p, s = w + beta s, x += alpha p, r -= alpha s */
gs_status gs_vec_cg_update(double alpha, double beta, const gs_vec *u, const gs_vec *w,
                           gs_vec *p, gs_vec *s, gs_vec *x, gs_vec *r);
/* out[i] = V[i].w for i < k, one fused reduction */
gs_status gs_vec_mdot(int k, const gs_vec *const *V, const gs_vec *w, double *out);
/* out[i] = V[i].a and out[k + i] = V[i].b for i < k, one fused reduction */
gs_status gs_vec_mdot2(int k, const gs_vec *const *V, const gs_vec *a, const gs_vec *b,
                       double *out);
/* y -= sum_i c[i] V[i] for i < k */
gs_status gs_vec_maxpy(int k, const double *c, const gs_vec *const *V, gs_vec *y);
/* Blocks: k columns (1 <= k <= GS_BLOCK_MAX, gs_backend.h) of n values held row by row in a
 * vector of n k values, entry (i, c) at i k + c (the multi-vector solves: a sparse product
 * reads each matrix entry once for all columns). Y = A X (A CSR at X's location, X of A->cols k
 * values, Y of A->rows k); out[j k + c] = X[j](:, c) . Y[j](:, c) for j < m <= 3 (one fused
 * reduction); Y(:, c) = a[c] X(:, c) + b[c] Y(:, c) (a, b: k host values); D = a D + c
 * dinv .* (B - Y) row by row (Y NULL: 0; a = 0: D not read), X = X + D (x_zero: X = D), dinv
 * n values at X's location. */
gs_status gs_block_spmm(const gs_csr *A, int k, const gs_vec *X, gs_vec *Y);
gs_status gs_block_dots(int64_t n, int k, int m, const gs_vec *const *X, const gs_vec *const *Y,
                        double *out);
gs_status gs_block_axpby(int64_t n, int k, const double *a, const gs_vec *X, const double *b,
                         gs_vec *Y);
gs_status gs_block_smooth(int64_t n, int k, const double *dinv, const gs_vec *B, const gs_vec *Y,
                          double a, double c, gs_vec *D, gs_vec *X, int x_zero);

/* X = the k columns of cols (n values each, one after another) as a block; unpack: cols = X's
 * columns (cols and X at one location, n k values each) */
gs_status gs_block_pack(int64_t n, int k, gs_vec *cols, gs_vec *X, int unpack);

/* 1 when every entry is finite */
gs_status gs_vec_all_finite(const gs_vec *x, int *out);

/* Vectors split across processes (MPI ranks, gs_comm.h): while a reduction is set, every
 * reduction above (dot, nrm2, dots, mdot, mdot2, all_finite) sums its local results over the
 * processes with it, so the Krylov methods and the AMG run unchanged on distributed vectors.
 * gs_vec_local_begin/end turn it off around work on vectors every process holds whole (the
 * gathered coarse levels); they nest. NULL: one process (the default). The function gets the
 * local status too: a process whose part failed must not leave the others waiting in the sum
 * (gs_comm's ends every process with the failure's message). */
typedef gs_status (*gs_vec_reduce_fn)(gs_status local, double *v, int k);
void gs_vec_set_reduce(gs_vec_reduce_fn fn);
void gs_vec_local_begin(void);
void gs_vec_local_end(void);

/* Host <-> vector transfers (the one place data crosses): n values from/to host memory. */
gs_status gs_vec_set_host(gs_vec *x, const double *src);
gs_status gs_vec_get_host(const gs_vec *x, double *dst);

#ifdef __cplusplus
}
#endif
#endif

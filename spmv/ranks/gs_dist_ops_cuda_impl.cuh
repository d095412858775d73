/* gs_dist_ops_cuda_impl.cuh: what the device files of the distributed setup's steps share (CUDA
 * code only; not a public header):
 *   gs_dist_ops_cuda.cu         the rows' lengths, packing and sums across ranks, the compact
 *                               form, sorted distinct values, triplets; the table
 *                               gs_dist_cuda_ops
 *   gs_dist_ops_blocks_cuda.cu  the split into the diagonal and off-diagonal blocks (also while
 *                               the rows upload), row slices, stacking, sums
 * The method is described at the top of gs_dist_ops_cuda.cu. */
#ifndef GS_DIST_OPS_CUDA_IMPL_CUH
#define GS_DIST_OPS_CUDA_IMPL_CUH

#include <stdint.h>

#include "gs_cuda_impl.h"
#include "gs_dist_ops.h"

#define FOR_EACH(i, n)                                                                             \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                      \
         i += (int64_t)blockDim.x * gridDim.x)

/* grid-stride launch on the backend's stream over n >= 1 items, checked */
#define LAUNCH(kernel, n, ...)                                                                     \
    do {                                                                                           \
        kernel<<<gs_cuda_grid(n), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(__VA_ARGS__);            \
        GS_CUDA_LAUNCHED(#kernel);                                                                 \
    } while (0)

/* device arrays of a new matrix, each of at least one element (gs_dist_ops_cuda.cu) */
gs_status gs_dist_cuda_alloc_csr_arrays(int64_t rows, int64_t nnz, int32_t **rp, int32_t **ci,
                                        double **v);
void gs_dist_cuda_free_csr_arrays(int32_t *rp, int32_t *ci, double *v);

/* the table's steps of gs_dist_ops_blocks_cuda.cu (gs_dist_ops.h says what each does) */
gs_status gs_dist_cuda_split(const gs_csr *C, int32_t ncols, int32_t nhalo, gs_csr **diag,
                             gs_csr **offd, int32_t *nor, int32_t **orow);
gs_status gs_dist_cuda_upload_split(const gs_csr *C, int32_t ncols, int32_t nhalo,
                                    gs_status (*meanwhile)(void *), void *arg, gs_csr **out,
                                    gs_csr **diag, gs_csr **offd, int32_t *nor, int32_t **orow);
gs_status gs_dist_cuda_row_slice(const gs_csr *A, int32_t r0, int32_t r1, gs_csr **out);
gs_status gs_dist_cuda_row_prefix(gs_csr **A, int32_t r, gs_csr **out);
gs_status gs_dist_cuda_vcat(const gs_csr *A, const gs_col_map *am, const gs_csr *B, int32_t cols,
                            gs_csr **out);
gs_status gs_dist_cuda_add(const gs_csr *A, const gs_col_map *am, const gs_csr *B, gs_csr **out);

#endif

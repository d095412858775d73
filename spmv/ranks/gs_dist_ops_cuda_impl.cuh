/* gs_dist_ops_cuda_impl.cuh: what the device files of the distributed setup's steps share (CUDA
 * code only; not a public header):
 *   gs_dist_ops_cuda.cu         the rows' lengths, packing and sums across ranks, the compact
 *                               form, sorted distinct values; the table gs_dist_cuda_ops
 *   gs_dist_ops_blocks_cuda.cu  the split into the diagonal and off-diagonal blocks (also while
 *                               the rows upload)
 * The method is described at the top of gs_dist_ops_cuda.cu. */
#ifndef GS_DIST_OPS_CUDA_IMPL_CUH
#define GS_DIST_OPS_CUDA_IMPL_CUH

#include <stdint.h>

#include "gs_cuda_impl.h"
#include "gs_cuda_rows.cuh"
#include "gs_dist_ops.h"

/* the table's steps of gs_dist_ops_blocks_cuda.cu (gs_dist_ops.h says what each does) */
gs_status gs_dist_cuda_split(const gs_csr *C, int32_t ncols, int32_t nhalo, gs_csr **diag,
                             gs_csr **offd, int32_t *nor, int32_t **orow);
gs_status gs_dist_cuda_upload_split(const gs_csr *C, int32_t ncols, int32_t nhalo,
                                    gs_status (*meanwhile)(void *), void *arg, gs_csr **out,
                                    gs_csr **diag, gs_csr **offd, int32_t *nor, int32_t **orow);

#endif

/* gs_cuda_reduce.cuh: the warp and block sums the CUDA kernels share. Each adds in a fixed
 * order, so a sum is the same from run to run. Device code only: include from .cu files
 * (gs_suraa_dp_cuda.cu, built apart with -rdc, includes it too; it needs nothing else). */
#ifndef GS_CUDA_REDUCE_CUH
#define GS_CUDA_REDUCE_CUH

/* sum of v over each group of `lanes` consecutive lanes (a power of two, 1..32), valid in the
 * group's first lane; every lane of the warp must call it */
static __device__ __forceinline__ double gs_lanes_sum(double v, int lanes)
{
    for (int off = lanes >> 1; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off, lanes);
    return v;
}

/* sum of v over the 32 lanes of a warp, valid in lane 0 */
static __device__ __forceinline__ double gs_warp_sum(double v)
{
    return gs_lanes_sum(v, 32);
}

/* sum of v over the 32 lanes of a warp, in every lane (a butterfly: each lane adds in its own
 * fixed order) */
static __device__ __forceinline__ double gs_warp_allsum(double v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

/* sum of v over the block, valid in thread 0 (blockDim a multiple of 32, ws[32] shared) */
static __device__ __forceinline__ double gs_block_sum(double v, double *ws)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = gs_warp_sum(v);
    if (lane == 0) ws[warp] = v;
    __syncthreads();
    if (warp == 0) v = gs_warp_sum(lane < nw ? ws[lane] : 0.0);
    return v;
}

#endif

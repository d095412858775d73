/* gs_suraa_dp_cuda.cu: SURAA's group G1 through dynamic parallelism (Alg. 3 and 4): a parent
 * kernel, one thread per G1 row, launches one child grid per row sized by the row's length.
 *
 * Built apart from the other kernels (relocatable device code, linked with cudadevrt: see the
 * top-level CMakeLists.txt), so only this file pays for -rdc. It needs no gsolve library code:
 * the launcher returns the CUDA error and gs_suraa_cuda.cu turns it into a gs_status.
 *
 * CUDA 13 has no device-side cudaDeviceSynchronize; none is needed: children write y
 * themselves (fire-and-forget streams), and the parent grid counts as complete on its stream
 * only when all its children have completed, so the event after it covers them.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "gs_suraa.h"
#include "gs_cuda_reduce.cuh"

/* y[orig] = sum of entries [k0, k0 + len) (Alg. 4): block b takes 2 blockDim entries from
 * k0 + 2 b blockDim. One block: it writes y. Several: each writes its sum to part[b], and the
 * last block to finish (counter *cnt) adds part[0..nb) in order, writes y and resets *cnt,
 * so the result does not depend on the order the blocks ran in. */
static __global__ void suraa_child(int32_t orig, int32_t k0, int32_t len,
                                   const int32_t *__restrict__ colind,
                                   const double *__restrict__ val, const double *__restrict__ x,
                                   double *y, double *part, unsigned int *cnt)
{
    __shared__ double ws[32];
    __shared__ int last;
    const int64_t chunk = 2 * (int64_t)blockDim.x;
    const int64_t beg = k0 + blockIdx.x * chunk;
    const int64_t end = beg + chunk < (int64_t)k0 + len ? beg + chunk : (int64_t)k0 + len;
    double s = 0.0;
    for (int64_t k = beg + threadIdx.x; k < end; k += blockDim.x)
        s += __ldcs(val + k) * __ldg(x + __ldcs(colind + k));
    s = gs_block_sum(s, ws);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) y[orig] = s;
        return;
    }
    if (threadIdx.x == 0) {
        part[blockIdx.x] = s;
        __threadfence();
        last = atomicAdd(cnt, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        __threadfence();
        double t = 0.0;
        for (unsigned int b = 0; b < gridDim.x; b++) t += ((volatile double *)part)[b];
        y[orig] = t;
        *cnt = 0u;
    }
}

/* Alg. 3: thread i launches the child grid of G1 row i: roundup32(ceil(len/2)) threads (at
 * most 1024), ceil(len / (2 threads)) blocks. A launch that fails (pending-launch pool full)
 * is done by the parent thread itself, so y is always complete. */
static __global__ void suraa_parent(int32_t n1, const int32_t *__restrict__ perm,
                                    const int32_t *__restrict__ rowptr,
                                    const int32_t *__restrict__ colind,
                                    const double *__restrict__ val, const double *__restrict__ x,
                                    double *y, double *part, unsigned int *cnt)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n1) return;
    const int32_t k0 = rowptr[i], len = rowptr[i + 1] - k0, orig = perm[i];
    if (len == 0) {
        y[orig] = 0.0;
        return;
    }
    int64_t t = ((((int64_t)len + 1) / 2 + 31) / 32) * 32;
    const int threads = (int)(t > 1024 ? 1024 : t);
    const int64_t nb = ((int64_t)len + 2 * threads - 1) / (2 * threads);
    /* block b of row i owns part[k0/2048 + i + b]: disjoint over the rows (gs_suraa_cuda.cu
     * sizes part as g1_nnz/2048 + n1 + 1) */
    double *pp = part + ((int64_t)k0 / GS_SURAA_CHILD_CHUNK) + i;
    suraa_child<<<(unsigned)nb, threads, 0, cudaStreamFireAndForget>>>(orig, k0, len, colind, val,
                                                                       x, y, pp, cnt + i);
    if (cudaGetLastError() != cudaSuccess) {
        double s = 0.0;
        for (int64_t k = k0; k < (int64_t)k0 + len; k++) s += val[k] * x[colind[k]];
        y[orig] = s;
    }
}

/* y at the G1 rows (sorted rows [0, n1)) through child grids, on stream s */
extern "C" cudaError_t gs_suraa_dp_spmv(int32_t n1, const int32_t *perm, const int32_t *rowptr,
                                        const int32_t *colind, const double *val, const double *x,
                                        double *y, double *part, unsigned int *cnt, cudaStream_t s)
{
    if (n1 <= 0) return cudaSuccess;
    unsigned blocks = (unsigned)(((int64_t)n1 + 127) / 128);
    suraa_parent<<<blocks, 128, 0, s>>>(n1, perm, rowptr, colind, val, x, y, part, cnt);
    return cudaGetLastError();
}

/* gs_spgemm_values_cuda.cu: a product into a kept pattern on the device (gs_spgemm_values, the
 * Galerkin product of an AMG re-setup): C's values = X Y summed into C's pattern, no symbolic
 * phase and nothing allocated.
 *
 * One warp per row of C. The row's columns (sorted) go to shared memory with a zeroed
 * accumulator beside them when the row has at most VAL_CAP entries (else the warp works on the
 * row in global memory). The warp walks X's row 32 entries at a time; lane t takes entry (row, i)
 * and Y's row i, a scan over the lanes' row lengths flattens the products, and each lane adds
 * x_i y_ij at j's place in C's row (a binary search; an atomic in shared memory, or in global
 * memory for long rows). A product outside the pattern raises a flag: the pattern was not the
 * one of these matrices. */
#include <stdint.h>

#include "gs_spgemm_cuda_impl.cuh"

#define VAL_WARPS 8
#define VAL_CAP 256

static __device__ __forceinline__ int32_t find_col(const int32_t *cols, int32_t len, int32_t J)
{
    int32_t lo = 0, hi = len - 1;
    while (lo <= hi) {
        const int32_t mid = (lo + hi) >> 1, c = cols[mid];
        if (c == J) return mid;
        if (c < J) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

static __global__ void __launch_bounds__(VAL_WARPS * 32)
values_kernel(int32_t nc, const int32_t *__restrict__ Xp, const int32_t *__restrict__ Xc,
              const double *__restrict__ Xv, const int32_t *__restrict__ Yp,
              const int32_t *__restrict__ Yc, const double *__restrict__ Yv,
              const int32_t *__restrict__ Cp, const int32_t *__restrict__ Cc, double *Cv,
              int *outside)
{
    __shared__ int32_t scol[VAL_WARPS][VAL_CAP];
    __shared__ double sval[VAL_WARPS][VAL_CAP];
    const unsigned full = 0xffffffffu;
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    for (int64_t row = (int64_t)blockIdx.x * VAL_WARPS + w; row < nc;
         row += (int64_t)gridDim.x * VAL_WARPS) {
        const int32_t c0 = Cp[row], len = Cp[row + 1] - c0;
        const bool sh = len <= VAL_CAP;
        const int32_t *cols = sh ? scol[w] : Cc + c0;
        double *vals = sh ? sval[w] : Cv + c0;
        for (int32_t k = lane; k < len; k += 32) {
            if (sh) scol[w][k] = Cc[c0 + k];
            vals[k] = 0.0;
        }
        __syncwarp();
        __threadfence_block();
        const int32_t x1 = Xp[row + 1];
        for (int32_t base = Xp[row]; base < x1; base += 32) {
            /* lane t takes X's entry (row, i) and Y's row i; a scan of the rows' lengths
             * flattens the products, 32 at a time */
            const int32_t e = base + lane;
            double x = 0.0;
            int32_t y0 = 0, ylen = 0;
            if (e < x1) {
                const int32_t i = Xc[e];
                x = Xv[e];
                y0 = Yp[i];
                ylen = Yp[i + 1] - y0;
            }
            int32_t incl = ylen;
            for (int o = 1; o < 32; o <<= 1) {
                const int32_t t = __shfl_up_sync(full, incl, o);
                if (lane >= o) incl += t;
            }
            const int32_t excl = incl - ylen, total = __shfl_sync(full, incl, 31);
            for (int32_t fb = 0; fb < total; fb += 32) {
                const int32_t f = fb + lane;
                int s = 0; /* the lane whose Y row holds product f: the last with excl <= f */
                for (int step = 16; step > 0; step >>= 1) {
                    const int32_t v = __shfl_sync(full, excl, s + step);
                    if (v <= f) s += step;
                }
                const int32_t ex = __shfl_sync(full, excl, s), ys = __shfl_sync(full, y0, s);
                const double xs = __shfl_sync(full, x, s);
                if (f >= total) continue;
                const int32_t k = ys + (f - ex);
                const int32_t pos = find_col(cols, len, Yc[k]);
                if (pos < 0) *outside = 1;
                else atomicAdd(&vals[pos], xs * Yv[k]);
            }
        }
        __syncwarp();
        __threadfence_block();
        if (sh)
            for (int32_t k = lane; k < len; k += 32) Cv[c0 + k] = sval[w][k];
        __syncwarp();
    }
}

/* C->val = X Y in C's pattern; GS_ERR_UNSUPPORTED when a product falls outside it */
extern "C" gs_status gs_spgemm_cuda_values(const gs_csr *X, const gs_csr *Y, gs_csr *C)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    int *flag = NULL, h = 0;
    if (C->rows == 0) return GS_OK;
    GS_CHECK(gs_cuda_alloc(sizeof(int), "SpGEMM pattern check", (void **)&flag));
    GS_CUDA_CALL(cudaMemsetAsync(flag, 0, sizeof(int), s));
    {
        int64_t blocks = ((int64_t)C->rows + VAL_WARPS - 1) / VAL_WARPS;
        if (blocks > 1 << 20) blocks = 1 << 20;
        values_kernel<<<(unsigned)blocks, VAL_WARPS * 32, 0, s>>>(
            C->rows, X->rowptr, X->colind, X->val, Y->rowptr, Y->colind, Y->val, C->rowptr,
            C->colind, C->val, flag);
        GS_CUDA_LAUNCHED("spgemm_values");
    }
    GS_CUDA_CALL(cudaMemcpyAsync(&h, flag, sizeof(int), cudaMemcpyDeviceToHost, s));
    GS_CUDA_CALL(cudaStreamSynchronize(s));
    if (h)
        GS_FAIL(GS_ERR_UNSUPPORTED, "SpGEMM values: the product has entries outside the kept "
                "pattern (the patterns changed)");
done:
    if (flag) gs_cuda_free(flag);
    return st;
}

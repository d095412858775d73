/* gs_cuda_rows.cuh: rows of a CSR matrix spread over groups of lanes, for the setup kernels that
 * walk a matrix's rows (the AMG's coarsening and smoothing steps, the distributed setup's split,
 * sum and packing). A thread a row reads a long row's entries one lane at a time, 27 to 60 of
 * them apart in a warp; a group of G lanes a row reads them side by side. Device code only:
 * include from .cu files after gs_cuda_impl.h. */
#ifndef GS_CUDA_ROWS_CUH
#define GS_CUDA_ROWS_CUH

#include <stdint.h>

/* a grid-stride loop over n items, a thread an item */
#define FOR_EACH(i, n)                                                                             \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                      \
         i += (int64_t)blockDim.x * gridDim.x)

/* grid-stride launch on the backend's stream over n >= 1 items, checked */
#define LAUNCH(kernel, n, ...)                                                                     \
    do {                                                                                           \
        kernel<<<gs_cuda_grid(n), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(__VA_ARGS__);            \
        GS_CUDA_LAUNCHED(#kernel);                                                                 \
    } while (0)

/* Rows go to groups of G lanes (a power of two, 1..32: the smallest with at most about four
 * entries per lane, the rule the own CSR SpMV kernel measured best), so a long row's entries are
 * read coalesced and its sums are shuffles. All lanes of a group run the same iterations. */
#define FOR_ROW_G(G, n)                                                                           \
    for (int64_t i = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / (G); i < (n);          \
         i += (int64_t)gridDim.x * blockDim.x / (G))

static inline int row_group(int64_t nnz, int64_t rows)
{
    const double mean = rows > 0 ? (double)nnz / (double)rows : 0.0;
    int g = 1;
    while (g < 32 && 4.0 * g < mean) g *= 2;
    return g;
}

/* the mask of this thread's group of G lanes within its warp */
template <int G> static __device__ __forceinline__ unsigned group_mask()
{
    return G == 32 ? 0xffffffffu : ((1u << G) - 1u) << ((threadIdx.x & 31) & ~(G - 1));
}

/* sums (of doubles or counts) and maxima over the group, in every lane (a butterfly) */
template <int G, typename T> static __device__ __forceinline__ T group_sum(T v, unsigned m)
{
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) v += __shfl_xor_sync(m, v, off, G);
    return v;
}

template <int G> static __device__ __forceinline__ uint64_t group_max(uint64_t v, unsigned m)
{
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) {
        const uint64_t o = __shfl_xor_sync(m, v, off, G);
        v = o > v ? o : v;
    }
    return v;
}

template <int G> static __device__ __forceinline__ double group_fmax(double v, unsigned m)
{
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) v = fmax(v, __shfl_xor_sync(m, v, off, G));
    return v;
}

/* row i's product with a vector, summed over its group (every lane gets it): v[q] * xval(ci[q])
 * over the row's entries, lane by lane, then the butterfly; xval reads the vector (and may scale
 * it) */
template <int G, typename X>
static __device__ __forceinline__ double group_row_dot(const int32_t *rp, const int32_t *ci,
                                                       const double *v, int64_t i, int lane,
                                                       unsigned m, X xval)
{
    double sum = 0.0;
    for (int32_t q = rp[i] + lane; q < rp[i + 1]; q += G) sum += __ldg(v + q) * xval(__ldg(ci + q));
    return group_sum<G>(sum, m);
}

/* launch KERNEL<G> with G from g over n rows (n * G threads) on the backend's stream, checked */
#define LAUNCH_G(g, n, KERNEL, ...)                                                               \
    do {                                                                                          \
        const int64_t t_ = (int64_t)(n) * (g);                                                    \
        const cudaStream_t s_ = gs_cuda_g.stream;                                                 \
        switch (g) {                                                                              \
        case 1: KERNEL<1><<<gs_cuda_grid(t_), GS_CUDA_THREADS, 0, s_>>>(__VA_ARGS__); break;      \
        case 2: KERNEL<2><<<gs_cuda_grid(t_), GS_CUDA_THREADS, 0, s_>>>(__VA_ARGS__); break;      \
        case 4: KERNEL<4><<<gs_cuda_grid(t_), GS_CUDA_THREADS, 0, s_>>>(__VA_ARGS__); break;      \
        case 8: KERNEL<8><<<gs_cuda_grid(t_), GS_CUDA_THREADS, 0, s_>>>(__VA_ARGS__); break;      \
        case 16: KERNEL<16><<<gs_cuda_grid(t_), GS_CUDA_THREADS, 0, s_>>>(__VA_ARGS__); break;    \
        default: KERNEL<32><<<gs_cuda_grid(t_), GS_CUDA_THREADS, 0, s_>>>(__VA_ARGS__); break;    \
        }                                                                                         \
        GS_CUDA_LAUNCHED(#KERNEL);                                                                \
    } while (0)

#endif

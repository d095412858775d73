/* gs_cuda_block.cu: the block operations of the CUDA backend (gs_vec.h, gs_block_*): k columns
 * of n values held row by row (entry (i, c) at i k + c), so that a sparse product reads each
 * matrix entry once for all k columns and the k values of one row lie side by side. Mirrors
 * gs_backend_host.c's block functions one for one. Reductions are deterministic (a grid that
 * depends only on n and k, partial sums added in a fixed order). */
#include <stdint.h>
#include <string.h>

#include "gs_cuda_impl.h"
#include "gs_cuda_reduce.cuh"

#define BLK_DOTS_MAX 3 /* pairs one block reduction takes */

typedef struct blk_scalars {
    double a[GS_BLOCK_MAX], b[GS_BLOCK_MAX];
} blk_scalars;

typedef struct blk_pairs {
    const double *x[BLK_DOTS_MAX], *y[BLK_DOTS_MAX];
} blk_pairs;

/* Y = A X: G lanes a row (G a power of two >= k), lane c < k the row's column c */
template <int G>
static __global__ void block_spmm_kernel(int32_t rows, int k, const int32_t *__restrict__ rp,
                                         const int32_t *__restrict__ ci,
                                         const double *__restrict__ v,
                                         const double *__restrict__ X, double *__restrict__ Y)
{
    const int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x / G;
    const int c = (int)(t & (G - 1));
    for (int64_t i = t / G; i < rows; i += stride) {
        if (c >= k) continue;
        double s = 0.0;
        for (int32_t q = rp[i]; q < rp[i + 1]; q++) s += v[q] * X[(int64_t)ci[q] * k + c];
        Y[i * k + c] = s;
    }
}

extern "C" gs_status gs_cuda_block_spmm(const gs_csr *A, int k, const double *X, double *Y)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    if (A->rows == 0) return GS_OK;
    int G = 1;
    while (G < k) G <<= 1;
    int64_t threads = (int64_t)A->rows * G, blocks = (threads + GS_CUDA_THREADS - 1) / GS_CUDA_THREADS;
    if (blocks > 1 << 20) blocks = 1 << 20;
#define SPMM(g)                                                                                    \
    block_spmm_kernel<g><<<(unsigned)blocks, GS_CUDA_THREADS, 0, s>>>(A->rows, k, A->rowptr,      \
                                                                      A->colind, A->val, X, Y)
    switch (G) {
    case 1: SPMM(1); break;
    case 2: SPMM(2); break;
    case 4: SPMM(4); break;
    case 8: SPMM(8); break;
    case 16: SPMM(16); break;
    default: SPMM(32); break;
    }
#undef SPMM
    GS_CUDA_LAUNCHED("block_spmm");
done:
    return st;
}

/* Y(:, c) = a[c] X(:, c) + b[c] Y(:, c) */
static __global__ void block_axpby_kernel(int64_t total, int k, blk_scalars sc,
                                          const double *__restrict__ X, double *__restrict__ Y)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int c = (int)(e % k);
        const double b = sc.b[c];
        Y[e] = b == 0.0 ? sc.a[c] * X[e] : sc.a[c] * X[e] + b * Y[e];
    }
}

extern "C" gs_status gs_cuda_block_axpby(int64_t n, int k, const double *a, const double *X,
                                         const double *b, double *Y)
{
    gs_status st = GS_OK;
    blk_scalars sc;
    memset(&sc, 0, sizeof sc);
    for (int c = 0; c < k; c++) sc.a[c] = a[c], sc.b[c] = b[c];
    const int64_t total = n * k;
    if (total == 0) return GS_OK;
    block_axpby_kernel<<<gs_cuda_grid(total), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(total, k, sc,
                                                                                      X, Y);
    GS_CUDA_LAUNCHED("block_axpby");
done:
    return st;
}

/* the Chebyshev / Jacobi step of gs_amg_ops' smooth_step, row i's dinv for its k columns */
static __global__ void block_smooth_kernel(int64_t total, int k, const double *__restrict__ dinv,
                                           const double *__restrict__ B,
                                           const double *__restrict__ Yv, double a, double c,
                                           double *__restrict__ D, double *__restrict__ X,
                                           int x_zero)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const double r = dinv[e / k] * (B[e] - (Yv ? Yv[e] : 0.0));
        const double d = a != 0.0 ? a * D[e] + c * r : c * r;
        D[e] = d;
        X[e] = x_zero ? d : X[e] + d;
    }
}

extern "C" gs_status gs_cuda_block_smooth(int64_t n, int k, const double *dinv, const double *B,
                                          const double *Yv, double a, double c, double *D,
                                          double *X, int x_zero)
{
    gs_status st = GS_OK;
    const int64_t total = n * k;
    if (total == 0) return GS_OK;
    block_smooth_kernel<<<gs_cuda_grid(total), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(
        total, k, dinv, B, Yv, a, c, D, X, x_zero);
    GS_CUDA_LAUNCHED("block_smooth");
done:
    return st;
}

/* part[(j k + c) GS_CUDA_RED_BLOCKS + block] = the block's share of X_j(:, c).Y_j(:, c): thread
 * tid < R k (R = blockDim / k) takes column tid % k of rows tid / k, tid / k + R gridDim, ...;
 * the block adds its R values of each column in a fixed order */
static __global__ void block_dots_kernel(int64_t n, int k, int m, blk_pairs pr, double *part)
{
    __shared__ double ws[BLK_DOTS_MAX][GS_CUDA_THREADS];
    const int tid = threadIdx.x, R = GS_CUDA_THREADS / k;
    double s[BLK_DOTS_MAX] = {0.0, 0.0, 0.0};
    if (tid < R * k) {
        const int c = tid % k;
        for (int64_t i = (int64_t)blockIdx.x * R + tid / k; i < n; i += (int64_t)gridDim.x * R)
            for (int j = 0; j < m; j++) s[j] += pr.x[j][i * k + c] * pr.y[j][i * k + c];
    }
    for (int j = 0; j < m; j++) ws[j][tid] = s[j];
    __syncthreads();
    if (tid < m * k) {
        const int j = tid / k, c = tid % k;
        double t = 0.0;
        for (int r = 0; r < R; r++) t += ws[j][r * k + c];
        part[(int64_t)tid * GS_CUDA_RED_BLOCKS + blockIdx.x] = t;
    }
}

extern "C" gs_status gs_cuda_block_dots(int64_t n, int k, int m, const double *const *X,
                                        const double *const *Y, double *out)
{
    gs_status st = GS_OK;
    blk_pairs pr;
    memset(&pr, 0, sizeof pr);
    if (m < 1 || m > BLK_DOTS_MAX || m * k > GS_CUDA_RED_MAX)
        GS_FAIL(GS_ERR_ARG, "block_dots: %d pairs of %d columns (at most %d pairs, %d sums)", m,
                k, BLK_DOTS_MAX, GS_CUDA_RED_MAX);
    for (int j = 0; j < m; j++) pr.x[j] = X[j], pr.y[j] = Y[j];
    {
        const int R = GS_CUDA_THREADS / k;
        int64_t want = (n + R - 1) / R;
        int nblk = (int)(want > GS_CUDA_RED_BLOCKS ? GS_CUDA_RED_BLOCKS : want);
        if (nblk < 1) nblk = 1;
        block_dots_kernel<<<nblk, GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(n, k, m, pr,
                                                                           gs_cuda_g.d_part);
        GS_CUDA_LAUNCHED("block_dots");
        GS_CHECK(gs_cuda_reduce_finish(m * k, nblk, out));
    }
done:
    return st;
}

/* X(i, c) = cols[c n + i], or the reverse */
static __global__ void block_pack_kernel(int64_t n, int k, const double *__restrict__ cols,
                                         double *__restrict__ X, double *__restrict__ out)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n * k;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = e / k, c = e % k;
        if (out) out[c * n + i] = X[e];
        else X[e] = cols[c * n + i];
    }
}

extern "C" gs_status gs_cuda_block_pack(int64_t n, int k, const double *cols, double *X,
                                        int unpack)
{
    gs_status st = GS_OK;
    if (n * k == 0) return GS_OK;
    block_pack_kernel<<<gs_cuda_grid(n * k), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(
        n, k, cols, X, unpack ? (double *)cols : NULL);
    GS_CUDA_LAUNCHED("block_pack");
done:
    return st;
}

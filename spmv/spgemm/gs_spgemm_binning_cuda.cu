/* gs_spgemm_binning_cuda.cu: the device SpGEMM's binning (see gs_spgemm_cuda.cu): each row's
 * partial products counted and the rows counted into the bins (one kernel), the rows placed by bin
 * (a warp-aggregated scatter), and the plan of the bins' launches (small shared bins merged into
 * the next; whether one launch takes every row in order, or the rows need no counting at all). */
#include <stdint.h>
#include <string.h>

#include "gs_spgemm_cuda_impl.cuh"

/* ---- products per row and bins ---- */
static __device__ __forceinline__ int prod_bin(int64_t p)
{
    if (p == 0) return 0;
    if (p <= 32) return 1;
    int b = 6;
    while (b < 13 && ((int64_t)1 << b) < p) b++;
    return b - 4; /* 33-64 -> 2, ..., 2049-4096 -> 8, 4097+ -> 9 */
}

/* the products of row i of A*B: the lengths of the rows of B that row i of A selects */
static __device__ __forceinline__ int64_t row_products(const int32_t *__restrict__ arp,
                                                       const int32_t *__restrict__ acol,
                                                       const int32_t *__restrict__ brp, int64_t i)
{
    const int32_t k1 = __ldg(arp + i + 1);
    int32_t k = __ldg(arp + i);
    int64_t p = 0;
    for (; k + 4 <= k1; k += 4) { /* four entries' loads in flight, then their rows of B */
        int32_t c[4];
#pragma unroll
        for (int u = 0; u < 4; u++) c[u] = __ldg(acol + k + u);
#pragma unroll
        for (int u = 0; u < 4; u++) p += __ldg(brp + c[u] + 1) - __ldg(brp + c[u]);
    }
    for (; k < k1; k++) {
        const int32_t c = __ldg(acol + k);
        p += __ldg(brp + c + 1) - __ldg(brp + c);
    }
    return p;
}

/* for the rows list[j] (or j), j < n: ctl: rows and products per bin, the most products of a
 * last-bin row. Each thread sums its rows per bin in registers and a warp adds
 * the bins its lanes hold (most warps: one bin) with shuffles, so the shared histogram sees one
 * atomic per warp and bin instead of one per row (same-address shared atomics serialize).
 * Counting (arp != NULL, rows 0..n-1): prod[i] = row i's products is computed here first (a
 * separate count kernel cost a launch and a pass over prod). */
static __global__ void bin_list_kernel(int64_t n, const int32_t *__restrict__ list, int64_t *prod,
                                       unsigned long long *ctl, const int32_t *__restrict__ arp,
                                       const int32_t *__restrict__ acol,
                                       const int32_t *__restrict__ brp, unsigned long long *hout)
{
    __shared__ unsigned long long hc[GS_SPGEMM_BINS], hp[GS_SPGEMM_BINS], hm;
    __shared__ bool s_last;
    unsigned long long c[GS_SPGEMM_BINS], sp[GS_SPGEMM_BINS], mx = 0;
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int b = 0; b < GS_SPGEMM_BINS; b++) c[b] = sp[b] = 0;
    for (int b = threadIdx.x; b < GS_SPGEMM_BINS; b += blockDim.x) hc[b] = hp[b] = 0;
    if (threadIdx.x == 0) hm = 0;
    __syncthreads();
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < n;
         j += (int64_t)gridDim.x * blockDim.x) {
        const int32_t r = list ? list[j] : (int32_t)j;
        int64_t p;
        if (arp)
            p = row_products(arp, acol, brp, r), prod[r] = p;
        else
            p = prod[r];
        const int bin = prod_bin(p);
#pragma unroll
        for (int b = 0; b < GS_SPGEMM_BINS; b++)
            if (bin == b) c[b]++, sp[b] += (unsigned long long)p;
        if (bin == GS_SPGEMM_BINS - 1 && (unsigned long long)p > mx) mx = (unsigned long long)p;
    }
#pragma unroll
    for (int b = 0; b < GS_SPGEMM_BINS; b++) {
        if (!__any_sync(0xffffffffu, c[b] != 0)) continue; /* warp-uniform */
        unsigned long long cc = c[b], ss = sp[b];
        for (int off = 16; off > 0; off >>= 1) {
            cc += __shfl_down_sync(0xffffffffu, cc, off);
            ss += __shfl_down_sync(0xffffffffu, ss, off);
        }
        if (lane == 0) atomicAdd(&hc[b], cc), atomicAdd(&hp[b], ss);
    }
    if (__any_sync(0xffffffffu, mx != 0)) {
        for (int off = 16; off > 0; off >>= 1) {
            const unsigned long long o = __shfl_down_sync(0xffffffffu, mx, off);
            mx = o > mx ? o : mx;
        }
        if (lane == 0) atomicMax(&hm, mx);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < GS_SPGEMM_BINS; b += blockDim.x) {
        if (hc[b]) atomicAdd(&ctl[C_CNT + b], hc[b]);
        if (hp[b]) atomicAdd(&ctl[C_PROD + b], hp[b]);
    }
    if (threadIdx.x == 0 && hm) atomicMax(&ctl[C_MAX], hm);
    /* the last block to finish copies the final counts into host memory (no copy to enqueue,
     * and the host knows the bins before it decides whether perm is needed) */
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) s_last = atomicAdd(&ctl[C_DONE], 1ull) == gridDim.x - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    for (int b = threadIdx.x; b <= C_MAX; b += blockDim.x) hout[b] = __ldcg(ctl + b);
}

/* perm = the rows list[j] (or j), j < n, grouped by bin (bin b from the rows before it, counted
 * by bin_list_kernel): each warp takes 32 consecutive j and places the rows it holds of each bin
 * after one atomic on that bin's cursor, in lane order (the warps in the order they get there).
 * Replaces a CUB sort by bin: its six launches and scratch were a third of a small product's
 * binning. */
static __global__ void bin_scatter_kernel(int64_t n, const int32_t *__restrict__ list,
                                          const int64_t *__restrict__ prod, int32_t *perm,
                                          unsigned long long *ctl)
{
    __shared__ unsigned long long s_start[GS_SPGEMM_BINS];
    const int lane = threadIdx.x & 31;
    if (threadIdx.x == 0) {
        unsigned long long t = 0;
        for (int b = 0; b < GS_SPGEMM_BINS; b++) s_start[b] = t, t += ctl[C_CNT + b];
    }
    __syncthreads();
    for (int64_t w = blockIdx.x * (int64_t)blockDim.x + (threadIdx.x & ~31); w < n;
         w += (int64_t)gridDim.x * blockDim.x) { /* warp-uniform */
        const int64_t j = w + lane;
        const int32_t r = j < n ? (list ? list[j] : (int32_t)j) : -1;
        const int b = r >= 0 ? prod_bin(prod[r]) : -1;
        const unsigned peers = __match_any_sync(0xffffffffu, b);
        const int leader = __ffs(peers) - 1;
        unsigned long long at = 0;
        if (b >= 0 && lane == leader)
            at = atomicAdd(&ctl[C_CUR + b], (unsigned long long)__popc(peers));
        at = __shfl_sync(0xffffffffu, at, leader);
        if (b >= 0) perm[s_start[b] + at + __popc(peers & ((1u << lane) - 1u))] = r;
    }
}

/* the counting issued (counters zeroed, every one of them; with A and B: the products counted
 * first, see bin_list_kernel), no wait; the counts land in the pinned h_red */
gs_status gs_spgemm_bin_rows_issue(int64_t n, const int32_t *list, int64_t *prod,
                                   unsigned long long *ctl, const gs_csr *A, const gs_csr *B)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    static_assert((C_MAX + 1) * sizeof *ctl <= GS_CUDA_PINNED_BYTES, "the counts in h_red");
    memset(gs_cuda_g.h_red, 0, (C_MAX + 1) * sizeof *ctl); /* n = 0: no kernel writes them */
    GS_CUDA_CALL(cudaMemsetAsync(ctl, 0, (size_t)C_N * sizeof *ctl, s));
    if (n > 0) {
        bin_list_kernel<<<gs_cuda_grid(n), GS_CUDA_THREADS, 0, s>>>(
            n, list, prod, ctl, A ? A->rowptr : NULL, A ? A->colind : NULL, B ? B->rowptr : NULL,
            (unsigned long long *)gs_cuda_g.h_red_dev);
        GS_CUDA_LAUNCHED("spgemm_bin_list");
    }
done:
    return st;
}

/* perm = the counted rows grouped by bin (issued, no wait) */
gs_status gs_spgemm_bin_rows_place(int64_t n, const int32_t *list, const int64_t *prod,
                                   int32_t *perm, unsigned long long *ctl)
{
    gs_status st = GS_OK;
    if (n > 0) {
        bin_scatter_kernel<<<gs_cuda_grid(n), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(n, list, prod,
                                                                                      perm, ctl);
        GS_CUDA_LAUNCHED("spgemm_bin_scatter");
    }
done:
    return st;
}

/* the binning's counts, waiting for the stream */
gs_status gs_spgemm_bin_rows_read(binning *bn)
{
    gs_status st = GS_OK;
    const unsigned long long *h = (const unsigned long long *)gs_cuda_g.h_red;
    GS_CUDA_CALL(cudaStreamSynchronize(gs_cuda_g.stream));
    bn->start[0] = 0;
    for (int b = 0; b < GS_SPGEMM_BINS; b++) {
        bn->start[b + 1] = bn->start[b] + (int64_t)h[C_CNT + b];
        bn->prod[b] = (int64_t)h[C_PROD + b];
    }
    bn->maxp = h[C_MAX];
done:
    return st;
}

/* ---- the bins' launches ---- */

/* A shared-memory bin of fewer rows than this goes with the next non-empty shared bin (whose
 * larger table holds its rows too; perm keeps the bins in order, so the two are one range):
 * its own launch cost more than its rows (3D Poisson 7-point A*A: 1184 rows of 32 or fewer
 * products beside 998816 of 33-64; 27-point R*(AP): 8 beside 124992) */
#define MERGE_ROWS 4096

int gs_spgemm_plan_bins(const binning *bn, bin_launch *L)
{
    int cnt = 0;
    int64_t from = -1; /* the first row of small bins carried to the next launch */
    for (int b = 1; b < GS_SPGEMM_BINS; b++) {
        int64_t n = bn->start[b + 1] - bn->start[b];
        if (n == 0) continue;
        if (b < GS_SPGEMM_BINS - 2 && n < MERGE_ROWS &&
            bn->start[GS_SPGEMM_BINS - 1] > bn->start[b + 1]) { /* a later shared bin has rows */
            if (from < 0) from = bn->start[b];
            continue;
        }
        const int64_t lo = from >= 0 ? from : bn->start[b];
        if (b < GS_SPGEMM_BINS - 1) n = bn->start[b + 1] - lo, from = -1;
        L[cnt].b = b, L[cnt].lo = lo, L[cnt].n = n, cnt++;
    }
    return cnt;
}

/* one shared-memory launch takes every one of the rows: it needs no perm and takes them in
 * their order (one load less before each row's chain of loads, and no scatter; 3D Poisson's
 * products: every row in bins 1-2) */
static int one_launch(const binning *bn, int64_t rows)
{
    bin_launch L[GS_SPGEMM_BINS];
    return gs_spgemm_plan_bins(bn, L) == 1 && L[0].b < GS_SPGEMM_BINS - 1 && L[0].lo == 0 &&
           L[0].n == rows;
}

/* the rows of A B counted into bins and their products (gs_spgemm_bin_rows_issue, one wait):
 * *inorder when one launch takes every row in order (one_launch), *total = the products of every
 * bin */
gs_status gs_spgemm_count_bins(int64_t rows, int64_t *prod, unsigned long long *ctl,
                               const gs_csr *A, const gs_csr *B, binning *bn, int *inorder,
                               int64_t *total)
{
    gs_status st = GS_OK;
    GS_CHECK(gs_spgemm_bin_rows_issue(rows, NULL, prod, ctl, A, B)); /* the products counted too */
    GS_CHECK(gs_spgemm_bin_rows_read(bn));
    *inorder = one_launch(bn, rows);
    *total = 0;
    for (int b = 0; b < GS_SPGEMM_BINS; b++) *total += bn->prod[b];
done:
    return st;
}

/* The rows need no binning when the sorted bin takes them all at once: every row has at most
 * 64 products (A's longest row times B's, from their statistics) and most have more than 32
 * (mean row lengths), so the count (about 40 us for 3D Poisson 7-point A*A's million rows) and
 * its wait are saved; the capacity is A's entries times B's longest row, the products are
 * counted by the rows themselves */
int gs_spgemm_can_skip_bins(const gs_csr *A, const gs_csr *B)
{
    const int ma = gs_cuda_csr_max_row(A), mb = gs_cuda_csr_max_row(B);
    if (A->rows == 0 || B->rows == 0 || ma < 0 || mb < 0 || (int64_t)ma * mb > 64) return 0;
    if (B->cols >= SORT_COLS(6)) return 0;
    return (double)A->nnz / A->rows * ((double)B->nnz / B->rows) > 32.0;
}

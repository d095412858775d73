/* gs_spgemm_cuda.cu: C = A*B on the device, the row-binned DCSR SpGEMM (King et al. 2016,
 * section III-B) and cuSPARSE's SpGEMM beside it; the explicit transpose R = P^T and the
 * Galerkin product R (A P).
 *
 * DCSR method: (1) count each row's partial products and the rows of each bin (one kernel;
 * skipped when A's and B's longest rows show that every row fits the 33-64 bin, see
 * can_skip_bins);
 * (2) place the rows by bin (a warp-aggregated scatter; skipped when one launch takes every
 * row, which then go in their order): 1-32, 33-64, ..., 2049-4096 in shared
 * memory, 4097+ first in a 4096-slot shared table and, when a row has more columns than that,
 * in global memory;
 * (3) C's capacity: bounded (few products a row, or few in all: the products) or sampled
 * (estimated from a sample of each bin's rows); rows take segments from a bump pointer, one
 * atomic per block; (4) per bin, a group of T threads per row forms the row's products into a
 * shared-memory hash table (the bin bounds the products, so the table never fills), compacts
 * it, and each entry lands at its rank among the row's columns (groups of up to 32 lanes work
 * warp-synchronously: ballots, shuffles, no block barrier); the 33-64 bin instead sorts each
 * row's products in registers (8 lanes, a bitonic network) and sums the runs of equal columns;
 * (5) sampled rows that found the capacity exhausted are listed, C grows by exactly what they
 * need and they run again; (6) defragmentation (Algorithm 4) gives the exact CSR: when one
 * warp-bin launch took every row in order, each block's rows lie together (a chunk) and the
 * chunks move whole (gs_dcsr_cuda_chunked_to_csr), else each entry finds its row. All on
 * gs_cuda_g.stream; the counts read back synchronize a few times (two in the bounded case without
 * spilled rows). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/cub.cuh>

#include "gs_cuda_impl.h"
#include "gs_dcsr.h"
#include "gs_spgemm.h"
#include "gs_time.h"

/* ---- device memory held by one call (peak includes the result, not the inputs) ---- */
#define TRACK_MAX 64
static struct {
    void *p;
    size_t bytes;
} g_tab[TRACK_MAX];
static long long g_live, g_peak;

static void acct(long long delta)
{
    g_live += delta;
    if (g_live > g_peak) g_peak = g_live;
}

static gs_status talloc(size_t bytes, const char *what, void **out)
{
    gs_status st = gs_cuda_alloc(bytes, what, out);
    if (st != GS_OK) return st;
    for (int i = 0; i < TRACK_MAX; i++)
        if (!g_tab[i].p) {
            g_tab[i].p = *out, g_tab[i].bytes = bytes;
            break;
        }
    acct((long long)bytes);
    return GS_OK;
}

/* stop tracking p (handed out as part of a result: still counted as held) */
static size_t tforget(void *p)
{
    for (int i = 0; p && i < TRACK_MAX; i++)
        if (g_tab[i].p == p) {
            g_tab[i].p = NULL;
            return g_tab[i].bytes;
        }
    return 0;
}

static void tfree(void *p)
{
    if (!p) return;
    acct(-(long long)tforget(p));
    gs_cuda_free(p);
}

static size_t csr_bytes(const gs_csr *C)
{
    return ((size_t)C->rows + 1) * 4 + (size_t)C->nnz * 12;
}

/* ---- products per row and bins ---- */
enum { /* the counters (ctl): rows and products per bin, the largest last-bin row, sampled
          entries and rows per bin, rows that found the capacity exhausted and their entries */
       C_CNT = 0,
       C_PROD = C_CNT + GS_SPGEMM_BINS,
       C_MAX = C_PROD + GS_SPGEMM_BINS,
       C_CUR = C_MAX + 1, /* rows placed per bin (bin_scatter_kernel) */
       C_SOUT = C_CUR + GS_SPGEMM_BINS,
       C_SROWS = C_SOUT + GS_SPGEMM_BINS,
       C_NFAIL = C_SROWS + GS_SPGEMM_BINS,
       C_NEED,
       C_SPILL, /* last-bin rows whose columns did not fit the shared table */
       C_DONE,  /* bin_list_kernel's finished blocks */
       C_N
};

typedef struct sg_args {
    const int32_t *arp, *acol, *brp, *bcol;
    const double *aval, *bval;
    int32_t *offsets, *sizes, *ccol; /* the DCSR result (k = 1: slot 0 of row i at 2i) */
    double *cval;
    unsigned long long *top, *ctl;
    int64_t capacity;
    int32_t *failed; /* rows whose allocation did not fit */
    int32_t *spill;  /* last-bin rows left to the global-memory kernel (ctl[C_SPILL]) */
    int32_t bcols;   /* B's columns */
    /* Chunks (one warp-bin launch over every row in order, bounded capacity): block b's rows,
     * placed one after the other, start at ch_addr[b] and hold ch_tot[b] entries, so DCSR ->
     * CSR moves whole chunks (NULL: not recorded) */
    int32_t *ch_addr, *ch_tot;
    int count_prod; /* the sorted bin adds its products to ctl[C_PROD + bin] (rows not binned) */
} sg_args;

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

/* the binning of n rows (list or 0..n-1): perm = rows grouped by bin, start[] on the host
 * (bin b: perm[start[b] .. start[b+1])), products per bin and the largest last-bin row */
typedef struct binning {
    int64_t start[GS_SPGEMM_BINS + 1], prod[GS_SPGEMM_BINS];
    unsigned long long maxp;
} binning;

/* the counting issued (counters zeroed, every one of them; with A and B: the products counted
 * first, see bin_list_kernel), no wait; the counts land in the pinned h_red */
static gs_status bin_rows_issue(int64_t n, const int32_t *list, int64_t *prod,
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
static gs_status bin_rows_place(int64_t n, const int32_t *list, const int64_t *prod, int32_t *perm,
                                unsigned long long *ctl)
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
static gs_status bin_rows_read(binning *bn)
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

/* ---- the shared-memory bins ---- */

/* The sorted bin (33-64 products, sort_bin_kernel): blocks a multiprocessor (64 registers;
 * 5 made it spill and changed nothing, 3 was slower), chunks of A's entries loaded at once (1, 2
 * and 4 measured alike), lanes a row (16 instead of 8: 7-point A*A 0.91 -> 1.07 ms) */
#define SORT_BLOCKS 4
#define SORT_CH 2
#define SORT_T2 8
/* the sorted bins' keys hold a column above the place's LOGS bits, the all-ones key pads */
#define SORT_COLS(logs) ((int32_t)((1u << (32 - (logs))) - 1u))

/* The row's products into its group's hash table (keys/vals, S = 2^LOGS slots): sub-groups of
 * G = 2^glog2 lanes take A's entries in turn, their lanes B's row (see bin_kernel). */
template <int LOGS>
static __device__ __forceinline__ void hash_row(const sg_args &a, int32_t row, int t, int T,
                                                int glog2, int32_t *keys, double *vals, int *ovf)
{
    constexpr int S = 1 << LOGS;
    const int G = 1 << glog2, nsub = T >> glog2, sub = t >> glog2, l = t & (G - 1);
    const int32_t ae = __ldg(a.arp + row + 1);
    for (int32_t ka = __ldg(a.arp + row) + sub; ka < ae; ka += nsub) {
        const int32_t k = __ldg(a.acol + ka);
        const double av = __ldg(a.aval + ka);
        const int32_t be = __ldg(a.brp + k + 1);
        for (int32_t kb = __ldg(a.brp + k) + l; kb < be; kb += G) {
            const int32_t c = __ldg(a.bcol + kb);
            const double v = av * __ldg(a.bval + kb);
            unsigned h = ((unsigned)c * 0x9E3779B1u) >> (32 - LOGS);
            for (int probe = 0;; probe++) {
                if (probe == S) { /* more distinct columns than slots (last bin only) */
                    *ovf = 1;
                    return;
                }
                const int32_t prev = atomicCAS(keys + h, -1, c);
                if (prev == -1 || prev == c) {
                    atomicAdd(vals + h, v);
                    break;
                }
                h = (h + 1) & (S - 1);
            }
        }
    }
}

/* product c, v into a table of S = 2^LOGS slots with a free slot for it (columns by atomicCAS,
 * values by atomicAdd) */
template <int LOGS>
static __device__ __forceinline__ void hash_add(int32_t c, double v, int32_t *keys, double *vals)
{
    constexpr int S = 1 << LOGS;
    unsigned h = ((unsigned)c * 0x9E3779B1u) >> (32 - LOGS);
    for (;;) {
        const int32_t prev = atomicCAS(keys + h, -1, c);
        if (prev == -1 || prev == c) {
            atomicAdd(vals + h, v);
            return;
        }
        h = (h + 1) & (S - 1);
    }
}

/* hash_row for the warp bins (T <= 32 lanes a row, at most S products, so a slot is always
 * free; row < 0: the group only takes part in the shuffles). The group's lanes first load A's
 * entries of the row, T at a time, each with its B row's bounds (two loads deep, all lanes at
 * once); the sub-groups of G lanes then take the entries in turn, two at a time, getting
 * (bounds, a_ik) by shuffle, so the loads of B's rows wait on nothing but the shuffles. In
 * hash_row every entry of A cost three loads in a row (A's column, B's bounds, B's entries)
 * before its products: on 3D Poisson 7-point, 4 rounds of them per row of A*A. */
template <int LOGS, int T>
static __device__ __forceinline__ void hash_row_warp(const sg_args &a, int32_t row, int t,
                                                     int glog2, int32_t *keys, double *vals)
{
    const unsigned full = 0xffffffffu;
    const int G = 1 << glog2, nsub = T >> glog2, sub = t >> glog2, l = t & (G - 1);
    int32_t as = 0, na = 0;
    if (row >= 0) as = __ldg(a.arp + row), na = __ldg(a.arp + row + 1) - as;
    const int nch = (int)__reduce_max_sync(full, (unsigned)((na + T - 1) / T));
    for (int ch = 0; ch < nch; ch++) {
        const int nin = na - ch * T < T ? na - ch * T : T; /* this chunk's entries (may be <= 0) */
        int32_t bs = 0, be = 0;
        double av = 0.0;
        if (t < nin) {
            const int32_t k = __ldg(a.acol + as + ch * T + t);
            av = __ldg(a.aval + as + ch * T + t);
            bs = __ldg(a.brp + k), be = __ldg(a.brp + k + 1);
        }
        const int iters =
            (int)__reduce_max_sync(full, (unsigned)(nin > 0 ? (nin + nsub - 1) / nsub : 0));
        for (int i = 0; i < iters; i += 2) {
            const int e0 = sub + i * nsub, e1 = e0 + nsub; /* e0 < T; e1 < T when i + 1 < iters */
            const int s1 = e1 < T ? e1 : 0;
            const int32_t b0 = __shfl_sync(full, bs, e0, T), x0 = __shfl_sync(full, be, e0, T);
            const int32_t b1 = __shfl_sync(full, bs, s1, T), x1 = __shfl_sync(full, be, s1, T);
            const double v0 = __shfl_sync(full, av, e0, T), v1 = __shfl_sync(full, av, s1, T);
            const bool ok0 = e0 < nin, ok1 = e1 < nin;
            int32_t kb0 = b0 + l, kb1 = b1 + l;
            /* the first product of each entry loaded together, then the rest */
            int32_t c0 = -1, c1 = -1;
            double p0 = 0.0, p1 = 0.0;
            if (ok0 && kb0 < x0) c0 = __ldg(a.bcol + kb0), p0 = v0 * __ldg(a.bval + kb0);
            if (ok1 && kb1 < x1) c1 = __ldg(a.bcol + kb1), p1 = v1 * __ldg(a.bval + kb1);
            if (c0 >= 0) hash_add<LOGS>(c0, p0, keys, vals);
            if (c1 >= 0) hash_add<LOGS>(c1, p1, keys, vals);
            if (ok0)
                for (kb0 += G; kb0 < x0; kb0 += G)
                    hash_add<LOGS>(__ldg(a.bcol + kb0), v0 * __ldg(a.bval + kb0), keys, vals);
            if (ok1)
                for (kb1 += G; kb1 < x1; kb1 += G)
                    hash_add<LOGS>(__ldg(a.bcol + kb1), v1 * __ldg(a.bval + kb1), keys, vals);
        }
    }
}

/* the row's m compacted entries to C from b0, each at its rank among the row's columns (so the
 * row comes out sorted); thread t of T. (Four keys a 16-byte load, four compares each, cut the
 * instructions of 7-point A*A's kernel by a few percent and its time by none: the kernel is
 * bound by L1 traffic, ncu 85% busy; and it took bin 6's kernel from 32 to 39 registers.) */
static __device__ __forceinline__ void write_ranked(const sg_args &a, const int32_t *keys,
                                                    const double *vals, int m, int t, int T,
                                                    long long b0)
{
    for (int q = t; q < m; q += T) {
        const int32_t ck = keys[q];
        int r = 0;
        for (int j = 0; j < m; j++) r += keys[j] < ck;
        a.ccol[b0 + r] = ck;
        a.cval[b0 + r] = vals[q];
    }
}

/* Rows with at most S = 2^LOGS products: RB groups of T threads per block, a group per row
 * (list[(block*RB + group)*stride]). The group's sub-groups of G = 2^glog2 lanes take A's
 * entries in turn, their lanes B's row: each product goes into the group's hash table (columns
 * by atomicCAS, values by atomicAdd; at most S distinct columns, so a free slot always exists).
 * Then the table is compacted, one thread allocates the whole block's rows from the bump
 * pointer (or, counting only, adds the sizes to the sample counters), and each entry lands at
 * its rank among the row's columns: C's rows come out sorted, without duplicates. */
template <int LOGS, int T, int RB>
__global__ void __launch_bounds__(T *RB)
    bin_kernel(sg_args a, const int32_t *__restrict__ list, int64_t n, int64_t stride,
               int count_only, int glog2, int bin)
{
    constexpr int S = 1 << LOGS, ITEMS = S / T;
    extern __shared__ __align__(16) unsigned char smem[]; /* RB*S values, then RB*S columns */
    double(*vals)[S] = reinterpret_cast<double(*)[S]>(smem);
    int32_t(*keys)[S] = reinterpret_cast<int32_t(*)[S]>(smem + (size_t)RB * S * sizeof(double));
    __shared__ int cnt[RB];
    __shared__ int32_t rowid[RB];
    __shared__ long long base[RB];
    const int g = threadIdx.x / T, t = threadIdx.x % T;
    const int64_t item = ((int64_t)blockIdx.x * RB + g) * stride;
    const int32_t row = item < n ? (list ? list[item] : (int32_t)item) : -1;
    for (int j = t; j < S; j += T) keys[g][j] = -1, vals[g][j] = 0.0;
    __shared__ int ovf[RB];
    if (t == 0) cnt[g] = 0, rowid[g] = row, ovf[g] = 0;
    __syncthreads();
    if (row >= 0) hash_row<LOGS>(a, row, t, T, glog2, keys[g], vals[g], &ovf[g]);
    __syncthreads();
    if (row >= 0 && ovf[g] && t == 0) { /* the row goes to the global-memory kernel */
        a.spill[atomicAdd(&a.ctl[C_SPILL], 1ull)] = row;
        rowid[g] = -1; /* read after the next barriers: no place, no write */
    }
    int32_t rk[ITEMS];
    double rv[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; i++) rk[i] = keys[g][t + i * T], rv[i] = vals[g][t + i * T];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
        if (rk[i] >= 0) {
            const int p = atomicAdd(&cnt[g], 1);
            keys[g][p] = rk[i];
            vals[g][p] = rv[i];
        }
    __syncthreads();
    if (threadIdx.x == 0) {
        long long tot = 0, nrows = 0;
        for (int q = 0; q < RB; q++) {
            base[q] = rowid[q] >= 0 ? tot : -1;
            if (rowid[q] >= 0) tot += cnt[q], nrows++;
        }
        if (count_only) {
            if (nrows) {
                atomicAdd(&a.ctl[C_SOUT + bin], (unsigned long long)tot);
                atomicAdd(&a.ctl[C_SROWS + bin], (unsigned long long)nrows);
            }
            for (int q = 0; q < RB; q++) base[q] = -1;
        } else if (nrows) {
            const long long addr = (long long)atomicAdd(a.top, (unsigned long long)tot);
            const int fits = addr + tot <= a.capacity;
            for (int q = 0; q < RB; q++) {
                const int32_t r = rowid[q];
                if (r < 0) continue;
                if (!fits) {
                    a.failed[atomicAdd(&a.ctl[C_NFAIL], 1ull)] = r;
                    atomicAdd(&a.ctl[C_NEED], (unsigned long long)cnt[q]);
                    base[q] = -1;
                } else {
                    base[q] += addr;
                    a.offsets[2 * (int64_t)r] = (int32_t)base[q];
                    a.offsets[2 * (int64_t)r + 1] = (int32_t)(base[q] + cnt[q]);
                    a.sizes[r] = cnt[q];
                }
            }
        }
    }
    __syncthreads();
    const long long b0 = base[g];
    if (row >= 0 && b0 >= 0) write_ranked(a, keys[g], vals[g], cnt[g], t, T, b0);
}

/* The rows of a 256-thread block of warp-bin groups (T lanes a row, lane t, the group's first
 * lane gl0; m entries in row, row < 0: none) take one bump-pointer allocation together: warp
 * scans of the sizes, two barriers, one global atomic (a single address serializes them: an
 * atomic per warp made the 7-point 256^3 A*P slower). Returns the row's first entry, its
 * segment and size set; -1 when the row is not written (none, counting only, or capacity
 * exhausted: then listed to be redone after C grows). Every thread of the block calls it. With
 * a.ch_addr, warp 0 also records the block's address and entries (its chunk); with
 * a.count_prod, the block's products (prods: each lane's share of its warp's) are added to
 * ctl[C_PROD + bin]. */
template <int T>
static __device__ long long block_alloc(const sg_args &a, int32_t row, int t, int gl0, int m,
                                        int count_only, int bin, unsigned prods = 0)
{
    __shared__ unsigned wsum[8], wprod[8];
    __shared__ long long wbase[8];
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (a.count_prod) { /* prods: the lane's share of its warp's products */
        const unsigned p = __reduce_add_sync(0xffffffffu, prods);
        if (lane == 0) wprod[w] = p;
    }
    /* each group's first lane: entries << 8 | 1 (a warp holds at most 4 rows of at most 128
     * entries), scanned over the groups' first lanes */
    const unsigned mine = (t == 0 && row >= 0) ? (unsigned)m << 8 | 1u : 0u;
    unsigned inc = mine;
#pragma unroll
    for (int d = T; d < 32; d <<= 1) {
        const unsigned y = __shfl_up_sync(0xffffffffu, inc, d);
        if (lane >= d) inc += y;
    }
    if (lane == 32 - T) wsum[w] = inc;
    __syncthreads();
    if (threadIdx.x < 32) { /* warp 0: the warps' scan, one atomic */
        const unsigned x = lane < 8 ? wsum[lane] : 0u;
        unsigned long long e = x >> 8, r = x & 0xffu;
#pragma unroll
        for (int d = 1; d < 8; d <<= 1) {
            const unsigned long long ye = __shfl_up_sync(0xffffffffu, e, d);
            const unsigned long long yr = __shfl_up_sync(0xffffffffu, r, d);
            if (lane >= d) e += ye, r += yr;
        }
        const unsigned long long tot = __shfl_sync(0xffffffffu, e, 7),
                                 rows = __shfl_sync(0xffffffffu, r, 7);
        long long addr = -1;
        if (a.count_prod) {
            unsigned long long p = lane < 8 ? wprod[lane] : 0u;
#pragma unroll
            for (int d = 4; d > 0; d >>= 1) p += __shfl_xor_sync(0xffffffffu, p, d);
            if (lane == 0 && p) atomicAdd(&a.ctl[C_PROD + bin], p);
        }
        if (lane == 0 && rows && count_only) {
            atomicAdd(&a.ctl[C_SOUT + bin], tot);
            atomicAdd(&a.ctl[C_SROWS + bin], rows);
        } else if (lane == 0 && rows) {
            addr = (long long)atomicAdd(a.top, tot);
            if (addr + (long long)tot > a.capacity) addr = -2;
        }
        if (a.ch_addr && lane == 0) /* every block of the launch, with rows or not */
            a.ch_addr[blockIdx.x] = addr >= 0 ? (int32_t)addr : 0,
            a.ch_tot[blockIdx.x] = addr >= 0 ? (int32_t)tot : 0;
        addr = __shfl_sync(0xffffffffu, addr, 0);
        if (lane < 8) wbase[lane] = addr < 0 ? addr : addr + (long long)(e - (x >> 8));
    }
    __syncthreads();
    const long long wb = wbase[w];
    const unsigned before = __shfl_sync(0xffffffffu, inc - mine, gl0) >> 8;
    if (row < 0) return -1;
    if (wb == -2 && t == 0) { /* capacity ran out: redone after C grows */
        a.failed[atomicAdd(&a.ctl[C_NFAIL], 1ull)] = row;
        atomicAdd(&a.ctl[C_NEED], (unsigned long long)m);
    }
    if (wb < 0) return -1;
    const long long b0 = wb + (long long)before;
    if (t == 0) {
        a.offsets[2 * (int64_t)row] = (int32_t)b0;
        a.offsets[2 * (int64_t)row + 1] = (int32_t)(b0 + m);
        a.sizes[row] = m;
    }
    return b0;
}

/* The same product as bin_kernel for groups of T <= 32 lanes (bins 1-3): a warp holds 32/T
 * rows and compacts each table with ballots, with no block barrier; the block's rows take one
 * allocation (block_alloc). Eight blocks a multiprocessor (32 registers, a few spilled; at 40
 * registers six fit): the kernel waits on its loads, and 7-point A*A went from 1.82-1.83x to
 * 1.91-1.92x cuSPARSE (two runs each). */
template <int LOGS, int T>
__global__ void __launch_bounds__(256, 8)
    warp_bin_kernel(sg_args a, const int32_t *__restrict__ list, int64_t n, int64_t stride,
                    int count_only, int glog2, int bin)
{
    /* each row's table S + T slots apart: with S apart the rows of a warp had their slot j in
     * the same bank (T = 8: four rows, a 4-way conflict on every access; ncu on 7-point 100^3
     * A*P: 2.4 times the ideal shared wavefronts, the kernel bound by them) */
    constexpr int S = 1 << LOGS, ITEMS = S / T, RB = 256 / T, SP = S + T;
    __shared__ int32_t keys[RB][SP];
    __shared__ double vals[RB][SP];
    const int g = threadIdx.x / T, t = threadIdx.x % T, lane = threadIdx.x & 31;
    const int gl0 = lane & ~(T - 1); /* the group's first lane in the warp */
    const unsigned gbits = T == 32 ? 0xffffffffu : ((1u << (T & 31)) - 1u);
    const int64_t item = ((int64_t)blockIdx.x * RB + g) * stride;
    const int32_t row = item < n ? (list ? list[item] : (int32_t)item) : -1;
    for (int j = t; j < S; j += T) keys[g][j] = -1, vals[g][j] = 0.0;
    __syncwarp();
    hash_row_warp<LOGS, T>(a, row, t, glog2, keys[g], vals[g]); /* every lane: shuffles */
    __syncwarp();
    int32_t rk[ITEMS];
    double rv[ITEMS];
    int rp[ITEMS], m = 0;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        rk[i] = keys[g][t + i * T], rv[i] = vals[g][t + i * T];
        const unsigned bal = (__ballot_sync(0xffffffffu, rk[i] >= 0) >> gl0) & gbits;
        rp[i] = m + __popc(bal & ((1u << t) - 1u));
        m += __popc(bal);
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
        if (rk[i] >= 0) keys[g][rp[i]] = rk[i], vals[g][rp[i]] = rv[i];
    __syncwarp();
    const long long b0 = block_alloc<T>(a, row, t, gl0, m, count_only, bin);
    if (b0 < 0) return;
    write_ranked(a, keys[g], vals[g], m, t, T, b0);
}

/* Rows of at most S = 2^LOGS products by sorting instead of hashing (the paper's form, sort
 * and reduce): T lanes a row, I = S / T products a lane, 256 / T rows a block. Each product gets
 * its place p in the row (A's entries in order, a scan of their B rows' lengths) and goes, without
 * atomics, to keys[p] = column << LOGS | p and vals[p]; the lanes take the keys back, I each,
 * sort them in registers (a bitonic network: compare-exchanges inside a lane, shuffles across
 * lanes), fetch each key's value from its place, and sum the runs of equal columns: in the lane,
 * then the run that goes on in the next lanes by a suffix scan of shuffles. A run's first entry
 * writes it; the row comes out sorted, without duplicates. Needs B's columns < 2^(32 - LOGS) - 1.
 */
template <int LOGS, int T>
__global__ void __launch_bounds__(256, SORT_BLOCKS)
    sort_bin_kernel(sg_args a, const int32_t *__restrict__ list, int64_t n, int64_t stride,
                    int count_only, int glog2, int bin)
{
    constexpr int S = 1 << LOGS, I = S / T, RB = 256 / T, SP = S + 8;
    constexpr int LT = T == 32 ? 5 : T == 16 ? 4 : T == 8 ? 3 : T == 4 ? 2 : 1; /* log2 T */
    constexpr uint32_t PAD = 0xffffffffu;
    const unsigned full = 0xffffffffu;
    __shared__ __align__(16) uint32_t keys[RB][SP];
    __shared__ double vals[RB][SP];
    const int g = threadIdx.x / T, t = threadIdx.x % T, lane = threadIdx.x & 31;
    const int gl0 = lane & ~(T - 1);
    uint32_t *const kg = keys[g];
    double *const vg = vals[g];
    const int32_t *__restrict__ bcol = a.bcol;
    const double *__restrict__ bval = a.bval;
    const int64_t item = ((int64_t)blockIdx.x * RB + g) * stride;
    const int32_t row = item < n ? (list ? list[item] : (int32_t)item) : -1;
    /* the products to their places: sub-groups of G lanes take A's entries, two at a time */
    const int G = 1 << glog2, lsub = LT - glog2, nsub = 1 << lsub, sub = t >> glog2;
    const int l = t & (G - 1);
    int32_t as = 0, na = 0, np = 0;
    if (row >= 0) as = __ldg(a.arp + row), na = __ldg(a.arp + row + 1) - as;
    const int nch = (int)__reduce_max_sync(full, (unsigned)((na + T - 1) >> LT));
    uint32_t k[I];
    /* Short rows (at most I entries of A, none of whose rows of B is longer than T: 3D Poisson
     * 7-point A*A, 27-point R (A P)): lane t forms product (entry e, B entry t) straight into
     * k[e], place t I + e, so the keys skip the round trip through shared memory and the
     * products' loop its bookkeeping (ncu: 566 of a warp's 1600 instructions were that loop).
     * Warp-uniform, as the shuffles need all lanes. */
    bool fast = false;
    int32_t fbs = 0, flen = 0;
    double fav = 0.0;
    if constexpr (T == I) {
        if (t < na && na <= I) {
            const int32_t kc = __ldg(a.acol + as + t);
            fav = __ldg(a.aval + as + t);
            fbs = __ldg(a.brp + kc), flen = __ldg(a.brp + kc + 1) - fbs;
        }
        fast = __all_sync(full, na <= I && flen <= T);
    }
    if (fast) {
#pragma unroll
        for (int e = 0; e < I; e++) {
            const int32_t b = __shfl_sync(full, fbs, e, T), nn = __shfl_sync(full, flen, e, T);
            const double v = __shfl_sync(full, fav, e, T);
            k[e] = PAD;
            if (t < nn) {
                k[e] = (uint32_t)__ldg(bcol + b + t) << LOGS | (uint32_t)(t * I + e);
                vg[t * I + e] = v * __ldg(bval + b + t);
            }
        }
    } else {
        /* SORT_CH chunks of T entries of A loaded at once, with their B rows' bounds: a row of A
         * of 27 entries (a Galerkin R) no longer waits on four chains of loads one after another */
        for (int ch0 = 0; ch0 < nch; ch0 += SORT_CH) {
            int32_t kk[SORT_CH], bs[SORT_CH], be[SORT_CH];
            double av[SORT_CH];
#pragma unroll
            for (int c = 0; c < SORT_CH; c++) {
                const int j = (ch0 + c) * T + t;
                kk[c] = -1, av[c] = 0.0;
                if (j < na) kk[c] = __ldg(a.acol + as + j), av[c] = __ldg(a.aval + as + j);
            }
#pragma unroll
            for (int c = 0; c < SORT_CH; c++) {
                bs[c] = 0, be[c] = 0;
                if (kk[c] >= 0) bs[c] = __ldg(a.brp + kk[c]), be[c] = __ldg(a.brp + kk[c] + 1);
            }
#pragma unroll
            for (int c = 0; c < SORT_CH; c++) {
                if (ch0 + c >= nch) break; /* warp-uniform */
                const int nin = na - (ch0 + c) * T < T ? na - (ch0 + c) * T : T;
                const int len = be[c] - bs[c];
                int inc = len;
#pragma unroll
                for (int d = 1; d < T; d <<= 1) {
                    const int y = __shfl_up_sync(full, inc, d, T);
                    if (t >= d) inc += y;
                }
                /* the entry's place and length in one word (both at most S <= 2^15) */
                const int ol = (np + inc - len) << 16 | len;
                np += __shfl_sync(full, inc, T - 1, T);
                const int iters = (int)__reduce_max_sync(
                    full, (unsigned)(nin > 0 ? (nin + nsub - 1) >> lsub : 0));
                for (int i = 0; i < iters; i += 2) {
                    const int e0 = sub + (i << lsub), e1 = e0 + nsub;
                    const int s1 = e1 < T ? e1 : 0;
                    const int32_t b0 = __shfl_sync(full, bs[c], e0, T);
                    const int32_t b1 = __shfl_sync(full, bs[c], s1, T);
                    const int ol0 = __shfl_sync(full, ol, e0, T),
                              ol1 = __shfl_sync(full, ol, s1, T);
                    const double v0 = __shfl_sync(full, av[c], e0, T);
                    const double v1 = __shfl_sync(full, av[c], s1, T);
                    const int m0 = e0 < nin ? ol0 & 0xffff : 0, m1 = e1 < nin ? ol1 & 0xffff : 0;
                    const int o0 = ol0 >> 16, o1 = ol1 >> 16;
                    for (int q = l; q < m0 || q < m1; q += G) {
                        uint32_t c0 = 0, c1 = 0;
                        double p0 = 0.0, p1 = 0.0;
                        if (q < m0)
                            c0 = (uint32_t)__ldg(bcol + b0 + q), p0 = v0 * __ldg(bval + b0 + q);
                        if (q < m1)
                            c1 = (uint32_t)__ldg(bcol + b1 + q), p1 = v1 * __ldg(bval + b1 + q);
                        if (q < m0) kg[o0 + q] = c0 << LOGS | (uint32_t)(o0 + q), vg[o0 + q] = p0;
                        if (q < m1) kg[o1 + q] = c1 << LOGS | (uint32_t)(o1 + q), vg[o1 + q] = p1;
                    }
                }
            }
        }
        __syncwarp();
        if constexpr (I == 8) {
            /* 16-byte loads, lanes 4-7 of the 8 taking their second half first: a quarter warp's
             * eight loads then cover all 32 banks (in place order, lane t's at 32 t bytes, lanes t
             * and t + 4 shared banks: 6-7 wavefronts a load where 1 is the ideal, ncu) */
            const int h = t & 4 ? 4 : 0;
            const uint4 x = *reinterpret_cast<const uint4 *>(kg + t * I + h);
            const uint4 y = *reinterpret_cast<const uint4 *>(kg + t * I + (h ^ 4));
            const uint32_t lo[4] = {h ? y.x : x.x, h ? y.y : x.y, h ? y.z : x.z, h ? y.w : x.w};
            const uint32_t hi[4] = {h ? x.x : y.x, h ? x.y : y.y, h ? x.z : y.z, h ? x.w : y.w};
#pragma unroll
            for (int e = 0; e < 4; e++) {
                k[e] = t * I + e < np ? lo[e] : PAD;
                k[e + 4] = t * I + e + 4 < np ? hi[e] : PAD;
            }
        } else {
#pragma unroll
            for (int e = 0; e < I; e++) k[e] = t * I + e < np ? kg[t * I + e] : PAD;
        }
    }
    __syncwarp(); /* the values' places are written */
    /* bitonic sort of the S keys ascending, place t * I + e in k[e] of lane t: each merge
     * first compares place p with its mirror p ^ (size - 1), then halves with p ^ st, every
     * compare ascending (no direction depending on the lane: a compare-exchange in a lane is a
     * min and a max, across lanes a shuffle and a min or max) */
#pragma unroll
    for (int size = 2; size <= S; size <<= 1) {
        if (size <= I) {
#pragma unroll
            for (int e = 0; e < I; e++)
                if ((e & (size >> 1)) == 0) {
                    const int f = e ^ (size - 1);
                    const uint32_t x = k[e], y = k[f];
                    k[e] = min(x, y), k[f] = max(x, y);
                }
        } else {
            const bool low = (t & (size / 2 / I)) == 0;
            uint32_t o[I];
#pragma unroll
            for (int e = 0; e < I; e++) o[e] = __shfl_xor_sync(full, k[e ^ (I - 1)], size / I - 1);
#pragma unroll
            for (int e = 0; e < I; e++) k[e] = low ? min(k[e], o[e]) : max(k[e], o[e]);
        }
#pragma unroll
        for (int st = size >> 2; st > 0; st >>= 1) {
            if (st >= I) {
                const bool low = (t & (st / I)) == 0;
#pragma unroll
                for (int e = 0; e < I; e++) {
                    const uint32_t o = __shfl_xor_sync(full, k[e], st / I);
                    k[e] = low ? min(k[e], o) : max(k[e], o);
                }
            } else {
#pragma unroll
                for (int e = 0; e < I; e++)
                    if ((e & st) == 0) {
                        const uint32_t x = k[e], y = k[e | st];
                        k[e] = min(x, y), k[e | st] = max(x, y);
                    }
            }
        }
    }
    /* values by place; run sums inside the lane (r[e]: from e to the end of its run here) */
    double r[I];
#pragma unroll
    for (int e = 0; e < I; e++) r[e] = k[e] != PAD ? vg[k[e] & (S - 1)] : 0.0;
#pragma unroll
    for (int e = I - 2; e >= 0; e--)
        if (k[e] >> LOGS == k[e + 1] >> LOGS) r[e] += r[e + 1];
    const uint32_t last = k[I - 1] >> LOGS, first = k[0] >> LOGS;
    const uint32_t prev = __shfl_up_sync(full, last, 1, T);
    /* a run that goes on in the next lanes: carry = what they add, x_t = A + B x_(t+1) */
    const uint32_t nfirst = __shfl_down_sync(full, first, 1, T);
    const double nsum = __shfl_down_sync(full, r[0], 1, T);
    const bool nwhole = __shfl_down_sync(full, (int)(first == last), 1, T) != 0;
    const bool link = t < T - 1 && k[I - 1] != PAD && nfirst == last;
    double carry = 0.0;
    if (__any_sync(full, link)) {
        double A = link ? nsum : 0.0;
        bool B = link && nwhole;
#pragma unroll
        for (int d = 1; d < T; d <<= 1) {
            const double A2 = __shfl_down_sync(full, A, d, T);
            const bool B2 = __shfl_down_sync(full, (int)B, d, T) != 0;
            if (t + d < T) A += B ? A2 : 0.0, B = B && B2;
        }
        carry = A;
    }
    unsigned heads = 0;
#pragma unroll
    for (int e = 0; e < I; e++) {
        const bool h =
            k[e] != PAD && (e == 0 ? (t == 0 || first != prev) : k[e] >> LOGS != k[e - 1] >> LOGS);
        heads |= (unsigned)h << e;
    }
    int hinc = __popc(heads);
#pragma unroll
    for (int d = 1; d < T; d <<= 1) {
        const int y = __shfl_up_sync(full, hinc, d, T);
        if (t >= d) hinc += y;
    }
    const int m = __shfl_sync(full, hinc, T - 1, T);
    const long long b0 = block_alloc<T>(a, row, t, gl0, m, count_only, bin,
                                        fast     ? (unsigned)flen
                                        : t == 0 ? np
                                                 : 0);
    /* the warp's rows are placed one after the other (block_alloc scans them in lane order; a
     * row < 0 is past the last and has no entries): staged in shared memory in that order, then
     * written by the whole warp, consecutive lanes to consecutive entries (written from the
     * registers a lane's entries spread over 4 times the sectors they need, ncu) */
    const long long wb = __shfl_sync(full, b0, 0);
    if (wb < 0) return; /* warp-uniform: counting, capacity exhausted, or no rows */
    const int tot = (int)__reduce_max_sync(full, b0 >= 0 ? (unsigned)(b0 + m - wb) : 0u);
    __syncwarp(); /* every lane has its values: the warp's tables become the stage */
    uint32_t *const sk = keys[g - g % (32 / T)];
    double *const sv = vals[g - g % (32 / T)];
    {
        const int at = (int)(b0 - wb) + hinc - __popc(heads);
        uint32_t *pk = sk + at;
        double *pv = sv + at;
#pragma unroll
        for (int e = 0; e < I; e++)
            if (heads >> e & 1u)
                *pk++ = k[e] >> LOGS, *pv++ = r[e] + (k[e] >> LOGS == last ? carry : 0.0);
    }
    __syncwarp();
    int32_t *const oc = a.ccol + wb;
    double *const ov = a.cval + wb;
    for (int q = lane; q < tot; q += 32) oc[q] = (int32_t)sk[q], ov[q] = sv[q];
}

/* a bin kernel's launch: blocks of rb rows over the n / stride rows it takes, and the lanes per
 * row of B (log2) capped at the T lanes of a row */
static gs_status bin_shape(int64_t n, int64_t stride, int rb, int T, int glog2, int *gl,
                           unsigned *blocks)
{
    int tl = 0;
    while ((1 << tl) < T) tl++;
    *gl = glog2 < tl ? glog2 : tl;
    const int64_t groups = (n + stride - 1) / stride, b = (groups + rb - 1) / rb;
    if (b > 2147483647LL) return GS_ERROR(GS_ERR_UNSUPPORTED, "SpGEMM: %lld rows", (long long)n);
    *blocks = (unsigned)b;
    return GS_OK;
}

/* a warp bin's launch: 256 / T rows a block, hashed (warp_bin_kernel) or sorted
 * (sort_bin_kernel) */
template <int LOGS, int T, bool SORTED>
static gs_status launch_warp_bin(const sg_args &a, const int32_t *list, int64_t n, int64_t stride,
                                 int count_only, int glog2, int bin)
{
    gs_status st = GS_OK;
    int gl;
    unsigned blocks;
    GS_CHECK(bin_shape(n, stride, 256 / T, T, glog2, &gl, &blocks));
    if constexpr (SORTED)
        sort_bin_kernel<LOGS, T>
            <<<blocks, 256, 0, gs_cuda_g.stream>>>(a, list, n, stride, count_only, gl, bin);
    else
        warp_bin_kernel<LOGS, T>
            <<<blocks, 256, 0, gs_cuda_g.stream>>>(a, list, n, stride, count_only, gl, bin);
    GS_CUDA_LAUNCHED(SORTED ? "spgemm_sort_bin" : "spgemm_warp_bin");
done:
    return st;
}

template <int LOGS, int T, int RB>
static gs_status launch_bin(const sg_args &a, const int32_t *list, int64_t n, int64_t stride,
                            int count_only, int glog2, int bin)
{
    gs_status st = GS_OK;
    int gl;
    unsigned blocks;
    const size_t smem = (size_t)RB * ((size_t)1 << LOGS) * 12;
    GS_CHECK(bin_shape(n, stride, RB, T, glog2, &gl, &blocks));
    if (smem > 32 * 1024) /* bin 8: 48 KB beside the static part, beyond the default limit */
        GS_CUDA_CALL(cudaFuncSetAttribute(bin_kernel<LOGS, T, RB>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    bin_kernel<LOGS, T, RB>
        <<<blocks, T * RB, smem, gs_cuda_g.stream>>>(a, list, n, stride, count_only, gl, bin);
    GS_CUDA_LAUNCHED("spgemm_bin");
done:
    return st;
}

/* the rows a block of warp bin b (1-3) takes, as run_shared_bin launches it */
static int warp_bin_rows(int b, int32_t bcols)
{
    return b == 1 ? 256 / 8 : b == 2 ? (bcols < SORT_COLS(6) ? 256 / SORT_T2 : 256 / 16) : 256 / 32;
}

/* bin b in 1..8 over list[0..n): S = 2^(b+4) slots per row, 12 KB of table per block (24 KB
 * for bin 7, 48 KB for bin 8), 256 threads (512 for bin 8) */
static gs_status run_shared_bin(int b, const sg_args &a, const int32_t *list, int64_t n,
                                int64_t stride, int count_only, int glog2)
{
    switch (b) {
    case 1: return launch_warp_bin<5, 8, false>(a, list, n, stride, count_only, glog2, b);
    case 2:
        if (a.bcols < SORT_COLS(6))
            return launch_warp_bin<6, SORT_T2, true>(a, list, n, stride, count_only, glog2, b);
        return launch_warp_bin<6, 16, false>(a, list, n, stride, count_only, glog2, b);
    case 3: return launch_warp_bin<7, 32, false>(a, list, n, stride, count_only, glog2, b);
    case 4: return launch_bin<8, 64, 4>(a, list, n, stride, count_only, glog2, b);
    case 5: return launch_bin<9, 128, 2>(a, list, n, stride, count_only, glog2, b);
    case 6: return launch_bin<10, 256, 1>(a, list, n, stride, count_only, glog2, b);
    case 7: return launch_bin<11, 256, 1>(a, list, n, stride, count_only, glog2, b);
    default: return launch_bin<12, 512, 1>(a, list, n, stride, count_only, glog2, b);
    }
}

/* ---- the global-memory bin (4097+ products): a block per row, tables of H = 2^logH ---- */

/* the row's products into its global hash table, then compacted to ck/cv[b*H/2 ...];
 * beg/end delimit the compacted row for the segmented sort */
static __global__ void glob_hash_kernel(sg_args a, const int32_t *__restrict__ list, int64_t c0,
                                        int logH, int32_t *tk, double *tv, unsigned *ck, double *cv,
                                        int *beg, int *end)
{
    __shared__ int scnt;
    const int64_t H = (int64_t)1 << logH, half = H >> 1, b = blockIdx.x;
    const int32_t row = list[c0 + b];
    int32_t *kk = tk + b * H;
    double *vv = tv + b * H;
    for (int64_t j = threadIdx.x; j < H; j += blockDim.x) kk[j] = -1, vv[j] = 0.0;
    if (threadIdx.x == 0) scnt = 0;
    __syncthreads();
    const int lane = threadIdx.x & 31, nw = blockDim.x >> 5;
    const int32_t ae = a.arp[row + 1];
    for (int32_t ka = a.arp[row] + (threadIdx.x >> 5); ka < ae; ka += nw) {
        const int32_t k = a.acol[ka];
        const double av = a.aval[ka];
        const int32_t be = a.brp[k + 1];
        for (int32_t kb = a.brp[k] + lane; kb < be; kb += 32) {
            const int32_t c = a.bcol[kb];
            const double v = av * a.bval[kb];
            int64_t h = (int64_t)(((unsigned)c * 0x9E3779B1u) >> (32 - logH));
            for (;;) {
                const int32_t prev = atomicCAS(kk + h, -1, c);
                if (prev == -1 || prev == c) {
                    atomicAdd(vv + h, v);
                    break;
                }
                h = (h + 1) & (H - 1);
            }
        }
    }
    __syncthreads();
    for (int64_t j = threadIdx.x; j < H; j += blockDim.x) {
        const int32_t key = __ldcg(kk + j); /* written by atomics: read at L2 */
        if (key >= 0) {
            const int p = atomicAdd(&scnt, 1);
            ck[b * half + p] = (unsigned)key;
            cv[b * half + p] = __ldcg(vv + j);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        beg[b] = (int)(b * half);
        end[b] = (int)(b * half + scnt);
    }
}

/* a block per row: allocate the sorted row in C (or record the failure), copy it */
static __global__ void glob_write_kernel(sg_args a, const int32_t *__restrict__ list, int64_t c0,
                                         const int *__restrict__ beg, const int *__restrict__ end,
                                         const unsigned *__restrict__ sk,
                                         const double *__restrict__ sv)
{
    __shared__ long long base;
    const int64_t b = blockIdx.x;
    const int32_t row = list[c0 + b];
    const int m = end[b] - beg[b];
    if (threadIdx.x == 0) {
        const long long addr = (long long)atomicAdd(a.top, (unsigned long long)m);
        if (addr + m > a.capacity) {
            a.failed[atomicAdd(&a.ctl[C_NFAIL], 1ull)] = row;
            atomicAdd(&a.ctl[C_NEED], (unsigned long long)m);
            base = -1;
        } else {
            a.offsets[2 * (int64_t)row] = (int32_t)addr;
            a.offsets[2 * (int64_t)row + 1] = (int32_t)(addr + m);
            a.sizes[row] = m;
            base = addr;
        }
    }
    __syncthreads();
    if (base < 0) return;
    for (int q = threadIdx.x; q < m; q += blockDim.x) {
        a.ccol[base + q] = (int32_t)sk[beg[b] + q];
        a.cval[base + q] = sv[beg[b] + q];
    }
}

#define GLOB_BUDGET ((size_t)256 << 20) /* bytes of tables per chunk of last-bin rows */

/* the last bin over list[0..n): chunks of rows, each a hash kernel, a CUB segmented sort, a write
 */
static gs_status run_global_bin(const sg_args &a, const int32_t *list, int64_t n,
                                unsigned long long maxp, int32_t cols)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    int32_t *tk = NULL;
    double *tv = NULL, *cv = NULL, *sv = NULL;
    unsigned *ck = NULL, *sk = NULL;
    int *beg = NULL, *end = NULL;
    void *tmp = NULL;
    size_t bytes = 0, tbytes = 0;
    int logH = 12, bits = 1;
    int64_t H, half, m;
    const int64_t distinct = (int64_t)maxp < cols ? (int64_t)maxp : cols;
    while (((int64_t)1 << logH) < 2 * distinct) logH++;
    if (logH > 30) GS_FAIL(GS_ERR_UNSUPPORTED, "SpGEMM: a row with %llu products", maxp);
    while (((int64_t)1 << bits) < cols) bits++;
    H = (int64_t)1 << logH, half = H >> 1;
    m = (int64_t)(GLOB_BUDGET / (24 * (size_t)H));
    if (m < 1) m = 1;
    if (m > n) m = n;
    if (m * half > 2147483647LL) m = 2147483647LL / half;
    GS_CHECK(talloc((size_t)(m * H) * 4, "SpGEMM global tables", (void **)&tk));
    GS_CHECK(talloc((size_t)(m * H) * 8, "SpGEMM global tables", (void **)&tv));
    GS_CHECK(talloc((size_t)(m * half) * 4, "SpGEMM global rows", (void **)&ck));
    GS_CHECK(talloc((size_t)(m * half) * 8, "SpGEMM global rows", (void **)&cv));
    GS_CHECK(talloc((size_t)(m * half) * 4, "SpGEMM global rows", (void **)&sk));
    GS_CHECK(talloc((size_t)(m * half) * 8, "SpGEMM global rows", (void **)&sv));
    GS_CHECK(talloc((size_t)m * 4, "SpGEMM global offsets", (void **)&beg));
    GS_CHECK(talloc((size_t)m * 4, "SpGEMM global offsets", (void **)&end));
    GS_CUDA_CALL(cub::DeviceSegmentedRadixSort::SortPairs(
        NULL, tbytes, ck, sk, cv, sv, (int)(m * half), (int)m, beg, end, 0, bits, s));
    GS_CHECK(talloc(tbytes, "SpGEMM segmented sort scratch", &tmp));
    for (int64_t c0 = 0; c0 < n; c0 += m) {
        const int64_t mc = n - c0 < m ? n - c0 : m;
        glob_hash_kernel<<<(unsigned)mc, 512, 0, s>>>(a, list, c0, logH, tk, tv, ck, cv, beg, end);
        GS_CUDA_LAUNCHED("spgemm_glob_hash");
        bytes = tbytes;
        GS_CUDA_CALL(cub::DeviceSegmentedRadixSort::SortPairs(
            tmp, bytes, ck, sk, cv, sv, (int)(mc * half), (int)mc, beg, end, 0, bits, s));
        glob_write_kernel<<<(unsigned)mc, 256, 0, s>>>(a, list, c0, beg, end, sk, sv);
        GS_CUDA_LAUNCHED("spgemm_glob_write");
    }
done: /* the frees are stream-ordered (gs_cuda_free): no wait for the kernels */
    tfree(tk), tfree(tv), tfree(ck), tfree(cv), tfree(sk), tfree(sv), tfree(beg), tfree(end);
    tfree(tmp);
    return st;
}

/* GSOLVE_SPGEMM_TRACE: milliseconds since the last call, after the stream drains (0 without it) */
static int g_trace;
static double g_bin_ms[GS_SPGEMM_BINS];
static double stage_ms(int on)
{
    static double last;
    double now;
    if (!on) return 0.0;
    (void)cudaStreamSynchronize(gs_cuda_g.stream);
    now = gs_time_now();
    const double d = 1e3 * (now - last);
    last = now;
    return d;
}

/* A shared-memory bin of fewer rows than this goes with the next non-empty shared bin (whose
 * larger table holds its rows too; perm keeps the bins in order, so the two are one range):
 * its own launch cost more than its rows (3D Poisson 7-point A*A: 1184 rows of 32 or fewer
 * products beside 998816 of 33-64; 27-point R*(AP): 8 beside 124992) */
#define MERGE_ROWS 4096

/* run_bins' launches: bin b's kernel over perm[lo .. lo + n) (b = GS_SPGEMM_BINS - 1: the
 * shared 4096-slot table, then the global one) */
typedef struct bin_launch {
    int b;
    int64_t lo, n;
} bin_launch;

static int plan_bins(const binning *bn, bin_launch *L)
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
    return plan_bins(bn, L) == 1 && L[0].b < GS_SPGEMM_BINS - 1 && L[0].lo == 0 && L[0].n == rows;
}

/* the rows of A B counted into bins and their products (bin_rows_issue, one wait): *inorder
 * when one launch takes every row in order (one_launch), *total = the products of every bin */
static gs_status count_bins(int64_t rows, int64_t *prod, unsigned long long *ctl, const gs_csr *A,
                            const gs_csr *B, binning *bn, int *inorder, int64_t *total)
{
    gs_status st = GS_OK;
    GS_CHECK(bin_rows_issue(rows, NULL, prod, ctl, A, B)); /* the products counted too */
    GS_CHECK(bin_rows_read(bn));
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
static int can_skip_bins(const gs_csr *A, const gs_csr *B)
{
    const int ma = gs_cuda_csr_max_row(A), mb = gs_cuda_csr_max_row(B);
    if (A->rows == 0 || B->rows == 0 || ma < 0 || mb < 0 || (int64_t)ma * mb > 64) return 0;
    if (B->cols >= SORT_COLS(6)) return 0;
    return (double)A->nnz / A->rows * ((double)B->nnz / B->rows) > 32.0;
}

/* every bin's kernel over the binned rows perm (compute mode); perm NULL: one_launch */
static gs_status run_bins(const sg_args &a, const int32_t *perm, const binning *bn, int glog2,
                          int32_t cols)
{
    gs_status st = GS_OK;
    bin_launch L[GS_SPGEMM_BINS];
    const int cnt = plan_bins(bn, L);
    for (int j = 0; j < cnt; j++) {
        const int b = L[j].b;
        const int64_t lo = L[j].lo, n = L[j].n;
        (void)stage_ms(g_trace);
        if (b < GS_SPGEMM_BINS - 1) {
            GS_CHECK(run_shared_bin(b, a, perm ? perm + lo : NULL, n, 1, 0, glog2));
        } else {
            /* the 4096-slot shared table first: rows of many products mostly have far fewer
             * columns (a Galerkin row: thousands of products, tens of columns), and shared
             * atomics beat global ones on a few hot columns; rows with more columns than
             * slots spill to the global-memory tables */
            unsigned long long nspill = 0;
            GS_CHECK(run_shared_bin(GS_SPGEMM_BINS - 2, a, perm + lo, n, 1, 0, glog2));
            GS_CHECK(gs_cuda_d2h(&nspill, a.ctl + C_SPILL, sizeof nspill));
            if (nspill > 0) GS_CHECK(run_global_bin(a, a.spill, (int64_t)nspill, bn->maxp, cols));
        }
        g_bin_ms[b] += stage_ms(g_trace);
    }
done:
    return st;
}

static __global__ void set_ull_kernel(unsigned long long *p, unsigned long long v)
{
    *p = v;
}

/* Bounded mode: when C's products number at most this many (2^29: 6 GB of columns and values),
 * C's capacity is the products, which no set of rows can exceed, so nothing is sampled, read
 * back or redone. Beyond it, or when that much device memory is not free, the capacity is
 * estimated from a sample. Either way rows take segments from the bump pointer as they finish,
 * one atomic per block of rows. (Row r's segment at the products before it, from a scan of the
 * products, needed no atomics and no barrier but cost a scan, whose two launches were a tenth of
 * a small product's host time. With the bump pointer 7-point R*(AP) went from 0.155-0.173 to
 * 0.134-0.142 ms; 7-point A*A's bin kernel from 0.65 to 0.69 ms, but its DCSR -> CSR got as
 * much faster, the rows packed instead of spread over the products' room: the scan for tall
 * products only, tried, made 7-point A*A 1.06 ms against 1.03.)
 * GSOLVE_SPGEMM_BOUND_MAX (entries) overrides the limit: the tests set 0 to run the sampled path
 * and its capacity growth. */
static int64_t bound_max(void)
{
    const char *e = getenv("GSOLVE_SPGEMM_BOUND_MAX");
    const int64_t v = e && *e ? (int64_t)strtoll(e, NULL, 10) : ((int64_t)1 << 29);
    return v < GS_MAX_INDEX - 1024 ? v : GS_MAX_INDEX - 1024; /* DCSR offsets are 32-bit */
}

/* Bounded mode also needs short rows (at most this many products a row on average) or a small
 * product: rows of many products mostly sum many into few entries (a Galerkin R (A P): 320
 * products, 34 entries), and reserving their products costs more (a 6 GB allocation, 3 ms at
 * 256^3) than the sampled estimate (0.7 ms) */
#define RESERVE_PER_ROW 128
#define RESERVE_ALWAYS ((int64_t)64 << 20)

#define SAMPLED_BINS 8 /* bins 1-7 are sampled; the rows of 2049+ products take their products */

/* C's capacity: bins 1-7's sampled entries per row times their rows, the bins above bounded by
 * their products (at most cols a row), plus 3% */
static gs_status estimate(const sg_args &a, const int32_t *perm, const binning *bn, int glog2,
                          int32_t cols, int64_t *cap)
{
    gs_status st = GS_OK;
    unsigned long long h[C_N];
    double est = 0.0;
    for (int b = 1; b < SAMPLED_BINS; b++) {
        const int64_t n = bn->start[b + 1] - bn->start[b];
        if (n > 0)
            GS_CHECK(run_shared_bin(b, a, perm + bn->start[b], n, n > 512 ? n / 512 : 1, 1, glog2));
    }
    GS_CHECK(gs_cuda_d2h(h, a.ctl, sizeof h));
    for (int b = 1; b < SAMPLED_BINS; b++)
        if (h[C_SROWS + b])
            est += (double)h[C_SOUT + b] / (double)h[C_SROWS + b] *
                   (double)(bn->start[b + 1] - bn->start[b]);
    for (int b = SAMPLED_BINS; b < GS_SPGEMM_BINS; b++) { /* few rows, many products: bounded */
        const double n = (double)(bn->start[b + 1] - bn->start[b]) * cols;
        est += (double)bn->prod[b] < n ? (double)bn->prod[b] : n;
    }
    est = est * 1.03 + 1024.0;
    *cap = est > (double)GS_MAX_INDEX ? GS_MAX_INDEX : (int64_t)est;
done:
    return st;
}

/* C's arrays grown to newcap entries (the first cap kept), the bump pointer set to the old end */
static gs_status grow(gs_dcsr *D, int64_t newcap)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    int32_t *nc = NULL;
    double *nv = NULL;
    GS_CHECK(gs_cuda_alloc((size_t)newcap * 4, "SpGEMM result columns", (void **)&nc));
    GS_CHECK(gs_cuda_alloc((size_t)newcap * 8, "SpGEMM result values", (void **)&nv));
    acct(newcap * 12);
    GS_CUDA_CALL(
        cudaMemcpyAsync(nc, D->colind, (size_t)D->capacity * 4, cudaMemcpyDeviceToDevice, s));
    GS_CUDA_CALL(cudaMemcpyAsync(nv, D->val, (size_t)D->capacity * 8, cudaMemcpyDeviceToDevice, s));
    set_ull_kernel<<<1, 1, 0, s>>>(D->top, (unsigned long long)D->capacity);
    GS_CUDA_LAUNCHED("spgemm_set_top");
    GS_CUDA_CALL(cudaStreamSynchronize(s));
    gs_cuda_free(D->colind);
    gs_cuda_free(D->val);
    acct(-D->capacity * 12);
    D->colind = nc, D->val = nv, nc = NULL, nv = NULL;
    D->capacity = newcap;
done:
    gs_cuda_free(nc);
    gs_cuda_free(nv);
    return st;
}

static size_t dcsr_bytes(const gs_dcsr *D)
{
    return (size_t)(D->k * D->pitch) * 4 + ((size_t)D->rows + 1) * 4 + 8 + (size_t)D->capacity * 12;
}

/* C = A*B by the row-binned DCSR SpGEMM (see the top of this file) */
static gs_status dcsr_product(const gs_csr *A, const gs_csr *B, gs_spgemm_info *info, gs_csr **C)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    const int64_t rows = A->rows, n1 = rows + 1;
    int64_t *prod = NULL, cap = 0, retried = 0, total = 0;
    int32_t *perm = NULL, *failed = NULL, *list2 = NULL, *spill = NULL;
    unsigned long long *ctl = NULL, h[C_N];
    gs_dcsr *D = NULL;
    const gs_dcsr_params dp = {1, 0, 0.0};
    binning bn, bn2;
    sg_args a;
    int glog2 = 0, bounded = 0, inorder = 0, unbinned = 0, chunk_rows = 0;
    int64_t nchunk = 0;
    int32_t *chunks = NULL;
    double ms_bin = 0, ms_cap = 0, ms_run = 0, ms_csr = 0;
    *C = NULL;
    g_trace = getenv("GSOLVE_SPGEMM_TRACE") != NULL;
    memset(g_bin_ms, 0, sizeof g_bin_ms);
    (void)stage_ms(g_trace);
    { /* the products per row, the counters, the binned, failed and spilled rows: one
         allocation (prod at its start, freed by tfree(prod)) */
        const size_t b4 = gs_align256((size_t)n1 * 4), b8 = gs_align256((size_t)n1 * 8),
                     bc = gs_align256(sizeof h);
        char *base = NULL;
        GS_CHECK(talloc(b8 + bc + 3 * b4, "SpGEMM row scratch", (void **)&base));
        prod = (int64_t *)base;
        ctl = (unsigned long long *)(base + b8);
        perm = (int32_t *)((char *)ctl + bc);
        failed = (int32_t *)((char *)perm + b4);
        spill = (int32_t *)((char *)failed + b4);
    }
    unbinned = can_skip_bins(A, B);
    if (unbinned) { /* every row in the sorted bin, the products bounded, counted by the rows */
        const int64_t bound = (int64_t)A->nnz * gs_cuda_csr_max_row(B);
        GS_CUDA_CALL(cudaMemsetAsync(ctl, 0, (size_t)C_N * sizeof *ctl, s));
        memset(&bn, 0, sizeof bn);
        for (int b = 3; b <= GS_SPGEMM_BINS; b++) bn.start[b] = rows;
        bn.prod[2] = total = bound;
        inorder = 1;
    } else {
        GS_CHECK(count_bins(rows, prod, ctl, A, B, &bn, &inorder, &total));
        if (!inorder) GS_CHECK(bin_rows_place(rows, NULL, prod, perm, ctl));
    }
    ms_bin = stage_ms(g_trace);
    {
        const double meanB = B->rows > 0 ? (double)B->nnz / B->rows : 0.0;
        while (glog2 < 5 && (double)(1 << glog2) < meanB) glog2++; /* lanes per row of B */
    }
    memset(&a, 0, sizeof a);
    a.arp = A->rowptr, a.acol = A->colind, a.aval = A->val;
    a.brp = B->rowptr, a.bcol = B->colind, a.bval = B->val;
    a.ctl = ctl, a.failed = failed, a.spill = spill;
    a.bcols = B->cols;
    if (total <= bound_max() && (total <= RESERVE_ALWAYS || total <= RESERVE_PER_ROW * rows)) {
        cap = total + 1024; /* bounded: the products */
        st = gs_dcsr_create(rows, B->cols, cap, &dp, GS_LOC_DEVICE, &D);
        if (st == GS_ERR_NOMEM) { /* no room for the bound: sample as below */
            gs_error_clear();
            st = GS_OK;
        }
        GS_CHECK(st);
        bounded = D != NULL;
    }
    if (!D && unbinned) { /* the sample needs the bins */
        unbinned = 0;
        GS_CHECK(count_bins(rows, prod, ctl, A, B, &bn, &inorder, &total));
    }
    if (!D) {
        if (inorder) GS_CHECK(bin_rows_place(rows, NULL, prod, perm, ctl)); /* the sample's */
        GS_CHECK(estimate(a, perm, &bn, glog2, B->cols, &cap));
        GS_CHECK(gs_dcsr_create(rows, B->cols, cap, &dp, GS_LOC_DEVICE, &D));
        /* the sampling counted into the counters the rows' kernels use */
        GS_CUDA_CALL(cudaMemsetAsync(ctl, 0, sizeof h, s));
    }
    acct((long long)dcsr_bytes(D));
    ms_cap = stage_ms(g_trace);
    a.offsets = D->offsets, a.sizes = D->sizes, a.ccol = D->colind, a.cval = D->val;
    a.top = D->top, a.capacity = D->capacity;
    if (bounded && inorder) { /* one warp-bin launch over the rows in order: chunks */
        bin_launch L[GS_SPGEMM_BINS];
        if (plan_bins(&bn, L) == 1 && L[0].b <= 3) chunk_rows = warp_bin_rows(L[0].b, B->cols);
    }
    if (chunk_rows) { /* the chunk table: starts, then entries and a zero */
        nchunk = (rows + chunk_rows - 1) / chunk_rows;
        GS_CHECK(talloc((size_t)(2 * nchunk + 1) * 4, "SpGEMM chunk table", (void **)&chunks));
        a.ch_addr = chunks, a.ch_tot = chunks + nchunk;
        GS_CUDA_CALL(cudaMemsetAsync(a.ch_tot + nchunk, 0, sizeof *a.ch_tot, s));
    }
    a.count_prod = unbinned;
    GS_CHECK(run_bins(a, inorder ? NULL : perm, &bn, glog2, B->cols));
    if (unbinned) /* the products the rows counted, read after DCSR -> CSR's wait */
        GS_CUDA_CALL(cudaMemcpyAsync((unsigned long long *)gs_cuda_g.h_red + C_PROD + 2,
                                     ctl + C_PROD + 2, sizeof *ctl, cudaMemcpyDeviceToHost, s));
    h[C_NFAIL] = 0;
    if (!bounded) GS_CHECK(gs_cuda_d2h(h, ctl, sizeof h)); /* the estimate can fall short */
    for (int iter = 0; h[C_NFAIL] > 0; iter++) {
        /* capacity exhausted: grow by exactly what the failed rows need, redo only them */
        const int64_t nfail = (int64_t)h[C_NFAIL], need = (int64_t)h[C_NEED];
        if (iter == 3) GS_FAIL(GS_ERR_INTERNAL, "SpGEMM: rows still failing after growth");
        if (D->capacity + need + 1024 > GS_MAX_INDEX)
            GS_FAIL(GS_ERR_UNSUPPORTED, "SpGEMM: the product has more than 2^31 - 1 entries");
        GS_CHECK(grow(D, D->capacity + need + 1024));
        a.ccol = D->colind, a.cval = D->val, a.capacity = D->capacity;
        if (!list2) GS_CHECK(talloc((size_t)n1 * 4, "SpGEMM failed rows", (void **)&list2));
        GS_CUDA_CALL(
            cudaMemcpyAsync(list2, failed, (size_t)nfail * 4, cudaMemcpyDeviceToDevice, s));
        retried += nfail;
        GS_CHECK(bin_rows_issue(nfail, list2, prod, ctl, NULL, NULL));
        GS_CHECK(bin_rows_read(&bn2));
        GS_CHECK(bin_rows_place(nfail, list2, prod, perm, ctl));
        GS_CHECK(run_bins(a, perm, &bn2, glog2, B->cols));
        GS_CHECK(gs_cuda_d2h(h, ctl, sizeof h));
    }
    ms_run = stage_ms(g_trace);
    tfree(prod), tfree(list2);
    prod = NULL, perm = failed = list2 = spill = NULL, ctl = NULL;
    (void)stage_ms(g_trace);
    if (chunk_rows) { /* Algorithm 4 by chunks of rows */
        GS_CHECK(gs_dcsr_cuda_chunked_to_csr(D, nchunk, chunk_rows, a.ch_addr, a.ch_tot, C));
        acct((long long)(4 * n1 + 12 * (int64_t)(*C)->nnz));
    } else {
        GS_CHECK(gs_dcsr_cuda_to_csr(D, C)); /* Algorithm 4 into an exact CSR */
        acct((long long)(20 * n1 + 12 * (int64_t)(*C)->nnz));
        acct(-(long long)(16 * n1));
    }
    tfree(chunks);
    chunks = NULL;
    ms_csr = stage_ms(g_trace);
    if (unbinned) total = (int64_t)((const unsigned long long *)gs_cuda_g.h_red)[C_PROD + 2];
    if (info) {
        info->products = total;
        info->nnz = (*C)->nnz;
        for (int b = 0; b < GS_SPGEMM_BINS; b++) info->bin_rows[b] = bn.start[b + 1] - bn.start[b];
        info->capacity = cap;
        info->retried_rows = retried;
    }
    if (g_trace) {
        fprintf(stderr,
                "spgemm: %lld x %lld, %lld products -> %lld entries, %s capacity %lld, "
                "%lld rows redone, %s, %s; rows per bin",
                (long long)rows, (long long)B->cols, (long long)total, (long long)(*C)->nnz,
                bounded ? "bounded" : "sampled", (long long)cap, (long long)retried,
                unbinned ? "not binned" : "binned", chunk_rows ? "moved by chunks" : "moved by rows");
        for (int b = 0; b < GS_SPGEMM_BINS; b++)
            fprintf(stderr, " %lld", (long long)(bn.start[b + 1] - bn.start[b]));
        fprintf(stderr, "; ms: bins %.3f, capacity %.3f, rows %.3f (", ms_bin, ms_cap, ms_run);
        for (int b = 1; b < GS_SPGEMM_BINS; b++)
            fprintf(stderr, "%s%.3f", b > 1 ? " " : "", g_bin_ms[b]);
        fprintf(stderr, "), to CSR %.3f\n", ms_csr);
    }
done:
    tfree(prod), tfree(list2), tfree(chunks);
    if (D) acct(-(long long)dcsr_bytes(D));
    gs_dcsr_destroy(&D);
    return st;
}

/* C = A*B by cusparseSpGEMM (work estimation, compute, copy; the default algorithm) */
static gs_status cusparse_product(const gs_csr *A, const gs_csr *B, gs_spgemm_info *info,
                                  gs_csr **C)
{
    gs_status st = GS_OK;
    cusparseHandle_t hd = gs_cuda_g.sparse;
    const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT;
    cusparseSpMatDescr_t ma = NULL, mb = NULL, mc = NULL;
    cusparseSpGEMMDescr_t sd = NULL;
    void *b1 = NULL, *b2 = NULL;
    size_t s1 = 0, s2 = 0;
    int64_t cr = 0, cc = 0, cnnz = 0;
    int32_t *rp = NULL, *ci = NULL;
    double *v = NULL;
    const double one = 1.0, zero = 0.0;
    *C = NULL;
    GS_CHECK(talloc(((size_t)A->rows + 1) * 4, "SpGEMM row pointers", (void **)&rp));
    if (A->rows > 0 && B->cols > 0 && A->nnz > 0 && B->nnz > 0) {
        GS_CUSPARSE_CALL(cusparseCreateCsr(&ma, A->rows, A->cols, A->nnz, A->rowptr, A->colind,
                                           A->val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        GS_CUSPARSE_CALL(cusparseCreateCsr(&mb, B->rows, B->cols, B->nnz, B->rowptr, B->colind,
                                           B->val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        GS_CUSPARSE_CALL(cusparseCreateCsr(&mc, A->rows, B->cols, 0, rp, NULL, NULL,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        GS_CUSPARSE_CALL(cusparseSpGEMM_createDescr(&sd));
        GS_CUSPARSE_CALL(cusparseSpGEMM_workEstimation(hd, op, op, &one, ma, mb, &zero, mc,
                                                       CUDA_R_64F, alg, sd, &s1, NULL));
        GS_CHECK(talloc(s1, "cuSPARSE SpGEMM buffer 1", &b1));
        GS_CUSPARSE_CALL(cusparseSpGEMM_workEstimation(hd, op, op, &one, ma, mb, &zero, mc,
                                                       CUDA_R_64F, alg, sd, &s1, b1));
        GS_CUSPARSE_CALL(cusparseSpGEMM_compute(hd, op, op, &one, ma, mb, &zero, mc, CUDA_R_64F,
                                                alg, sd, &s2, NULL));
        GS_CHECK(talloc(s2, "cuSPARSE SpGEMM buffer 2", &b2));
        GS_CUSPARSE_CALL(cusparseSpGEMM_compute(hd, op, op, &one, ma, mb, &zero, mc, CUDA_R_64F,
                                                alg, sd, &s2, b2));
        GS_CUSPARSE_CALL(cusparseSpMatGetSize(mc, &cr, &cc, &cnnz));
        if (cnnz > GS_MAX_INDEX)
            GS_FAIL(GS_ERR_UNSUPPORTED,
                    "SpGEMM: the product has %lld entries, beyond 32-bit "
                    "indices",
                    (long long)cnnz);
        GS_CHECK(talloc((size_t)cnnz * 4, "SpGEMM result columns", (void **)&ci));
        GS_CHECK(talloc((size_t)cnnz * 8, "SpGEMM result values", (void **)&v));
        GS_CUSPARSE_CALL(cusparseCsrSetPointers(mc, rp, ci, v));
        GS_CUSPARSE_CALL(
            cusparseSpGEMM_copy(hd, op, op, &one, ma, mb, &zero, mc, CUDA_R_64F, alg, sd));
    } else {
        GS_CUDA_CALL(cudaMemsetAsync(rp, 0, ((size_t)A->rows + 1) * 4, gs_cuda_g.stream));
        GS_CHECK(talloc(4, "SpGEMM result columns", (void **)&ci));
        GS_CHECK(talloc(8, "SpGEMM result values", (void **)&v));
    }
    tforget(rp), tforget(ci), tforget(v);
    st = gs_cuda_csr_adopt(A->rows, B->cols, (int32_t)cnnz, rp, ci, v, C);
    rp = ci = NULL, v = NULL;
    GS_CHECK(st);
    if (info) info->nnz = cnnz;
done:
    if (sd) (void)cusparseSpGEMM_destroyDescr(sd);
    if (ma) (void)cusparseDestroySpMat(ma);
    if (mb) (void)cusparseDestroySpMat(mb);
    if (mc) (void)cusparseDestroySpMat(mc);
    tfree(b1), tfree(b2), tfree(rp), tfree(ci), tfree(v);
    return st;
}

/* key[q] = column of entry q, seq[q] = q; erow[q] = row of entry q (a thread per row) */
static __global__ void transpose_prep_kernel(int32_t rows, const int32_t *__restrict__ rowptr,
                                             const int32_t *__restrict__ colind, unsigned *key,
                                             int32_t *seq, int32_t *erow, int32_t *cnt)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x)
        for (int32_t q = rowptr[i]; q < rowptr[i + 1]; q++) {
            key[q] = (unsigned)colind[q];
            seq[q] = q;
            erow[q] = (int32_t)i;
            atomicAdd(&cnt[colind[q]], 1);
        }
}

/* entry q of A^T: column erow[perm[q]], value val[perm[q]] */
static __global__ void transpose_gather_kernel(int64_t nnz, const int32_t *__restrict__ perm,
                                               const int32_t *__restrict__ erow,
                                               const double *__restrict__ val, int32_t *ci,
                                               double *v)
{
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < nnz;
         q += (int64_t)gridDim.x * blockDim.x) {
        const int32_t p = perm[q];
        ci[q] = erow[p];
        v[q] = val[p];
    }
}

/* At = A^T: a stable CUB radix sort of the entries by column (rows stay ascending inside each
 * column), row pointers from column counts and a scan */
static gs_status transpose_cub(const gs_csr *A, gs_csr **At)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    const int64_t nnz = A->nnz, n1 = (int64_t)A->cols + 1;
    unsigned *key = NULL, *key2 = NULL;
    int32_t *seq = NULL, *perm = NULL, *erow = NULL, *cnt = NULL, *rp = NULL, *ci = NULL;
    double *v = NULL;
    void *tmp = NULL;
    size_t bytes = 0;
    int bits = 1;
    *At = NULL;
    while (((int64_t)1 << bits) < A->cols) bits++;
    GS_CHECK(talloc((size_t)n1 * 4, "transpose row pointers", (void **)&rp));
    GS_CHECK(talloc((size_t)nnz * 4, "transpose columns", (void **)&ci));
    GS_CHECK(talloc((size_t)nnz * 8, "transpose values", (void **)&v));
    GS_CHECK(talloc((size_t)n1 * 4, "transpose counts", (void **)&cnt));
    GS_CUDA_CALL(cudaMemsetAsync(cnt, 0, (size_t)n1 * 4, s));
    if (nnz > 0) {
        GS_CHECK(talloc((size_t)nnz * 4, "transpose keys", (void **)&key));
        GS_CHECK(talloc((size_t)nnz * 4, "transpose keys", (void **)&key2));
        GS_CHECK(talloc((size_t)nnz * 4, "transpose order", (void **)&seq));
        GS_CHECK(talloc((size_t)nnz * 4, "transpose order", (void **)&perm));
        GS_CHECK(talloc((size_t)nnz * 4, "transpose rows", (void **)&erow));
        transpose_prep_kernel<<<gs_cuda_grid(A->rows), GS_CUDA_THREADS, 0, s>>>(
            A->rows, A->rowptr, A->colind, key, seq, erow, cnt);
        GS_CUDA_LAUNCHED("transpose_prep");
        GS_CUDA_CALL(cub::DeviceRadixSort::SortPairs(NULL, bytes, key, key2, seq, perm, (int)nnz, 0,
                                                     bits, s));
        GS_CHECK(talloc(bytes, "transpose sort scratch", &tmp));
        GS_CUDA_CALL(cub::DeviceRadixSort::SortPairs(tmp, bytes, key, key2, seq, perm, (int)nnz, 0,
                                                     bits, s));
        transpose_gather_kernel<<<gs_cuda_grid(nnz), GS_CUDA_THREADS, 0, s>>>(nnz, perm, erow,
                                                                              A->val, ci, v);
        GS_CUDA_LAUNCHED("transpose_gather");
        tfree(tmp);
        tmp = NULL;
    }
    bytes = 0;
    GS_CUDA_CALL(cub::DeviceScan::ExclusiveSum(NULL, bytes, cnt, rp, (int)n1, s));
    GS_CHECK(talloc(bytes, "transpose scan scratch", &tmp));
    GS_CUDA_CALL(cub::DeviceScan::ExclusiveSum(tmp, bytes, cnt, rp, (int)n1, s));
    tforget(rp), tforget(ci), tforget(v);
    st = gs_cuda_csr_adopt(A->cols, A->rows, (int32_t)nnz, rp, ci, v, At);
    rp = ci = NULL, v = NULL;
    GS_CHECK(st);
done:
    tfree(key), tfree(key2), tfree(seq), tfree(perm), tfree(erow), tfree(cnt), tfree(tmp);
    tfree(rp), tfree(ci), tfree(v);
    return st;
}

/* At = A^T by cusparseCsr2cscEx2 (the comparison path's transpose) */
static gs_status transpose_cusparse(const gs_csr *A, gs_csr **At)
{
    gs_status st = GS_OK;
    const int64_t nnz = A->nnz, n1 = (int64_t)A->cols + 1;
    int32_t *rp = NULL, *ci = NULL;
    double *v = NULL;
    void *buf = NULL;
    size_t bytes = 0;
    *At = NULL;
    GS_CHECK(talloc((size_t)n1 * 4, "transpose row pointers", (void **)&rp));
    GS_CHECK(talloc((size_t)nnz * 4, "transpose columns", (void **)&ci));
    GS_CHECK(talloc((size_t)nnz * 8, "transpose values", (void **)&v));
    if (nnz > 0 && A->rows > 0) {
        GS_CUSPARSE_CALL(cusparseCsr2cscEx2_bufferSize(
            gs_cuda_g.sparse, A->rows, A->cols, A->nnz, A->val, A->rowptr, A->colind, v, rp, ci,
            CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1,
            &bytes));
        GS_CHECK(talloc(bytes, "cuSPARSE transpose buffer", &buf));
        GS_CUSPARSE_CALL(cusparseCsr2cscEx2(gs_cuda_g.sparse, A->rows, A->cols, A->nnz, A->val,
                                            A->rowptr, A->colind, v, rp, ci, CUDA_R_64F,
                                            CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                            CUSPARSE_CSR2CSC_ALG1, buf));
    } else {
        GS_CUDA_CALL(cudaMemsetAsync(rp, 0, (size_t)n1 * 4, gs_cuda_g.stream));
    }
    tforget(rp), tforget(ci), tforget(v);
    st = gs_cuda_csr_adopt(A->cols, A->rows, (int32_t)nnz, rp, ci, v, At);
    rp = ci = NULL, v = NULL;
    GS_CHECK(st);
done:
    tfree(buf), tfree(rp), tfree(ci), tfree(v);
    return st;
}

static void track_reset(void)
{
    memset(g_tab, 0, sizeof g_tab);
    g_live = g_peak = 0;
}

static gs_status product(const gs_csr *A, const gs_csr *B, gs_spgemm_method m, gs_spgemm_info *info,
                         gs_csr **C)
{
    return m == GS_SPGEMM_CUSPARSE ? cusparse_product(A, B, info, C) : dcsr_product(A, B, info, C);
}

extern "C" gs_status gs_spgemm_cuda(const gs_csr *A, const gs_csr *B, gs_spgemm_method m,
                                    gs_spgemm_info *info, gs_csr **C)
{
    gs_status st = GS_OK;
    track_reset();
    GS_CHECK(product(A, B, m, info, C));
    if (info) info->peak_bytes = (size_t)g_peak;
done:
    return st;
}

/* Ac = R (A P), R = P^T explicit; the peak counts R and AP while they live */
extern "C" gs_status gs_spgemm_cuda_galerkin(const gs_csr *A, const gs_csr *P, gs_spgemm_method m,
                                             gs_spgemm_info *info, gs_csr **Ac)
{
    gs_status st = GS_OK;
    gs_csr *R = NULL, *AP = NULL;
    *Ac = NULL;
    track_reset();
    GS_CHECK(m == GS_SPGEMM_CUSPARSE ? transpose_cusparse(P, &R) : transpose_cub(P, &R));
    GS_CHECK(product(A, P, m, NULL, &AP));
    GS_CHECK(product(R, AP, m, info, Ac));
    if (info) info->peak_bytes = (size_t)g_peak;
done:
    if (R) acct(-(long long)csr_bytes(R));
    if (AP) acct(-(long long)csr_bytes(AP));
    gs_csr_destroy(&R);
    gs_csr_destroy(&AP);
    return st;
}

extern "C" gs_status gs_spgemm_cuda_transpose(const gs_csr *A, gs_csr **At)
{
    track_reset();
    return transpose_cub(A, At);
}

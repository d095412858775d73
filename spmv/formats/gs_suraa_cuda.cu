/* gs_suraa_cuda.cu: the SURAA format on the device (gs_suraa.h). Over 1000 lines on purpose: the
 * conversion's plan kernel writes the run, span and length tables that the three group kernels
 * read, and the kernels share their templates and launch bounds; split, each half would need the
 * other's internals. Contents: conversion from a device CSR
 * (row lengths, one CUB radix sort of (length desc, first column) keys with the row ids, a
 * scan, the Freedman-Diaconis statistics from a few values of the sorted lengths, the rows
 * moved into sorted order), back to CSR, and the SpMV: G1, G2, G3 each on its own stream,
 * one launch each (G2 two when it has rows both above and below 512 entries).
 * G1's dynamic-parallelism kernels live in gs_suraa_dp_cuda.cu (relocatable device code).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cub/cub.cuh>

#include "gs_cuda_impl.h"
#include "gs_cuda_move.cuh"
#include "gs_cuda_reduce.cuh"
#include "gs_cuda_scan.cuh"
#include "gs_suraa.h"

#define LANE_THREADS 256  /* threads of a G3 block (Alg. 5: blocks of 256) */
#define VEC_BIG 1024      /* threads of a G2 block when some Y does not divide 256 */
#define MAX_RUNS GS_SURAA_CLASSES
#define SPAN_THREADS 256 /* threads of a span-kernel block */
#define SPAN_U 4         /* 32-entry chunks a warp of the span kernel loads at once */
#define SPAN_MAX_Y 256   /* G2 runs of Y <= this (mean npr <= 512) go to the span kernel */
#define SPAN_ENTRIES 768 /* about this many entries a warp of the span kernel */
#define SPAN_MIN_ROWS 16384 /* ... for G2 runs of at least this many rows (else vector) */
#define SPAN_MIN_WARPS 8192 /* ... in at least this many warps (fewer rows a warp) */

extern "C" cudaError_t gs_suraa_dp_spmv(int32_t n1, const int32_t *perm, const int32_t *rowptr,
                                        const int32_t *colind, const double *val, const double *x,
                                        double *y, double *part, unsigned int *cnt, cudaStream_t s);

/* One launch over several runs (a kernel argument): run r has blocks [first[r], first[r+1]),
 * sorted rows [begin[r], end[r]) and thr[r] threads per row (G2: Y; G3: log2 L). */
typedef struct run_table {
    int32_t n;
    int32_t first[MAX_RUNS + 1];
    int32_t begin[MAX_RUNS], end[MAX_RUNS], thr[MAX_RUNS];
} run_table;

/* G3's rows by exact length, for suraa_lanes to find a row without reading rowptr: the sorted
 * rows [q[i], q[i + 1]) all hold len[i] entries, the first of them starting at e[i] (rows sort
 * longest first, so each length's rows and their entries lie together); n = 0: no table (G3's
 * longest row is over LEN_TABLE entries), rowptr is read. Used in G3's runs of L <= 2^LEN_LANES
 * lanes (rows of up to about 16 entries), whose threads wait on rowptr, then colind, then x for
 * only a few entries each: on the H200 (bench/exp runs 104-105, same runs) west2021 x800 went
 * from 39.6 to 36.5 us, cryg2500 x800 54.5 -> 52.8, BentPipe2D100 x200 55.2 -> 53.0, 7-point
 * 128^3 72.6 -> 69.8, bips98_606 x200 40.9 -> 39.7; in the runs of 8 and more lanes it cost
 * (27-point 128^3 223 -> 228 us: the binary search against a load spread over 4+ entries a lane) */
#define LEN_TABLE 64
#define LEN_LANES 2
typedef struct len_table {
    int32_t n;
    int32_t q[LEN_TABLE + 2], e[LEN_TABLE + 1], len[LEN_TABLE + 1];
} len_table;

/* What a device SURAA keeps besides its arrays: G1's scratch (child grids or split rows), its
 * block map, and the launch tables of G2 and G3 (host memory, passed by value). */
typedef struct suraa_dev {
    double *part;      /* partial sums of rows done by several blocks */
    unsigned int *cnt; /* one finished-block counter per G1 row */
    int2 *map;         /* block-per-row G1: block b does chunk map[b].y of sorted row map[b].x */
    int32_t g1_blocks, g1_chunk; /* its blocks, entries per block */
    int g2_block;      /* threads of a G2 block: 256 or VEC_BIG */
    int g3_stream;     /* G3 loads colind/val streaming (rows of uneven length, see row_sum) */
    run_table g2, g3;  /* G2 runs of the vector kernel, G3 runs */
    run_table g2s;     /* G2 runs of the span kernel (t.thr = rows a warp) */
    len_table g3l;     /* G3's rows by length (n = 0: suraa_lanes reads rowptr) */
} suraa_dev;

/* The three group streams and the events that fork them from gs_cuda_g.stream and join them
 * back, made once for the process (the backend has one host thread; an event is waited on
 * as last recorded, so matrices can share them). */
static struct {
    int ready;
    cudaStream_t s[3];
    cudaEvent_t fork, join[3];
    cudaEvent_t planned; /* after a conversion's plan kernel */
} g_sx;

/* ------------------------------------------------------------------ SpMV kernels */

/* the sum of val[k] x[colind[k]] over k = k0, k0 + step, ... < end, in that order, U
 * entries at a time: the loads of a batch are predicated, not branched around, so a thread
 * has U of them in flight (a lane's share of a row is short: 2 to 4 entries). CS: colind and
 * val loaded streaming (__ldcs: evict-first, so x keeps L1 and L2), for G1 and G2, where a warp's
 * load covers 32 consecutive entries. In G3 (L lanes a row, 32 / L rows a warp) only when the
 * rows' lengths are uneven (interquartile range >= mean / 4: the matrices SURAA is for), whose
 * gathers of x spread: on the H200 streaming G3 took power law 1M from 93.1 to 90.5 us (its G3
 * is bound by L2 throughput, ncu 87-88%; L1 hit rate 11.6 -> 25%), bcsstk25 x100 164.8 -> 135.4,
 * bips98_606 x200 52.2 -> 43.7, isooctane_A x10000 438 -> 386; but even stencils lost (7-point
 * 128^3 75.2 -> 80.5, 256^3 597 -> 639) */
template <int U, bool CS = true>
static __device__ __forceinline__ double
row_sum(int64_t k0, int64_t end, int step, const int32_t *__restrict__ colind,
        const double *__restrict__ val, const double *__restrict__ x)
{
    double s = 0.0;
    for (int64_t k = k0; k < end; k += (int64_t)U * step) {
        int32_t c[U];
        double v[U], xc[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const bool in = k + (int64_t)u * step < end;
            const int32_t *pc = colind + k + (int64_t)u * step;
            const double *pv = val + k + (int64_t)u * step;
            c[u] = in ? (CS ? __ldcs(pc) : __ldg(pc)) : -1;
            v[u] = in ? (CS ? __ldcs(pv) : __ldg(pv)) : 0.0;
        }
#pragma unroll
        for (int u = 0; u < U; u++) xc[u] = c[u] >= 0 ? __ldg(x + c[u]) : 0.0;
#pragma unroll
        for (int u = 0; u < U; u++)
            if (c[u] >= 0) s += v[u] * xc[u];
    }
    return s;
}

/* the run of this block: the last r with first[r] <= blockIdx.x (binary search; t.first
 * ascending, first[0] = 0; indexed in the parameter space, no local copy) */
static __device__ __forceinline__ int find_run(const run_table &t)
{
    return gs_last_le(0, t.n - 1, (int32_t)blockIdx.x, [&t](int i) { return t.first[i]; });
}

/* G1 without dynamic parallelism: block b sums chunk c = map[b].y (entries [c chunk, (c + 1)
 * chunk)) of sorted row q = map[b].x. A row of one block writes y[perm[q]]; otherwise each
 * block writes part[b] and the last to finish (counter cnt[q]) adds the row's parts in order,
 * writes y and resets cnt[q] (Alg. 4's child blocks, launched from the host) */
static __global__ void __launch_bounds__(VEC_BIG)
    suraa_g1_blocks(int32_t chunk, const int2 *__restrict__ map,
                                       const int32_t *__restrict__ perm,
                                       const int32_t *__restrict__ rowptr,
                                       const int32_t *__restrict__ colind,
                                       const double *__restrict__ val, const double *__restrict__ x,
                                       double *__restrict__ y, double *part, unsigned int *cnt)
{
    __shared__ double ws[32];
    __shared__ int last;
    const int2 rc = __ldg(map + blockIdx.x);
    const int32_t b0 = __ldg(rowptr + rc.x), len = __ldg(rowptr + rc.x + 1) - b0;
    const int64_t nb = len > chunk ? ((int64_t)len + chunk - 1) / chunk : 1;
    const int64_t beg = b0 + (int64_t)rc.y * chunk;
    const int64_t end = beg + chunk < (int64_t)b0 + len ? beg + chunk : (int64_t)b0 + len;
    double s = row_sum<GS_SURAA_BLOCK_ENTRIES>(beg + threadIdx.x, end, blockDim.x, colind, val, x);
    s = gs_block_sum(s, ws);
    if (nb == 1) { /* the whole block takes this branch */
        if (threadIdx.x == 0) y[__ldg(perm + rc.x)] = s;
        return;
    }
    if (threadIdx.x == 0) {
        part[blockIdx.x] = s;
        __threadfence();
        last = atomicAdd(cnt + rc.x, 1u) == (unsigned int)(nb - 1);
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        __threadfence();
        const int64_t b1 = (int64_t)blockIdx.x - rc.y; /* the row's first block */
        double t = 0.0;
        for (int64_t b = 0; b < nb; b++) t += ((volatile double *)part)[b1 + b];
        y[__ldg(perm + rc.x)] = t;
        cnt[rc.x] = 0u;
    }
}

/* G2 (Alg. 6), its runs not done by suraa_span in one launch: Y = t.thr[r] threads (a multiple of
 * 32, <= blockDim) per sorted row, R = blockDim / Y rows per block (threads past R Y idle); warp
 * shuffles, then, when Y > 32, the row's warp sums through shared memory */
static __global__ void __launch_bounds__(VEC_BIG)
    suraa_vector(run_table t, const int32_t *__restrict__ perm, const int32_t *__restrict__ rowptr,
                 const int32_t *__restrict__ colind, const double *__restrict__ val,
                 const double *__restrict__ x, double *__restrict__ y)
{
    __shared__ double ws[VEC_BIG / 32];
    const int r = find_run(t);
    const int Y = t.thr[r], R = blockDim.x / Y, rr = threadIdx.x / Y, lane = threadIdx.x - rr * Y;
    const int64_t q = t.begin[r] + ((int64_t)blockIdx.x - t.first[r]) * R + rr;
    const bool ok = rr < R && q < t.end[r];
    double s = 0.0;
    if (ok) s = row_sum<2>(__ldg(rowptr + q) + lane, __ldg(rowptr + q + 1), Y, colind, val, x);
    s = gs_warp_sum(s);
    if (Y == 32) { /* one warp per row; the same for the whole block */
        if (ok && lane == 0) y[__ldg(perm + q)] = s;
        return;
    }
    if ((threadIdx.x & 31) == 0) ws[threadIdx.x >> 5] = s;
    __syncthreads();
    if (ok && lane == 0) {
        double u = 0.0;
        for (int w = 0; w < Y / 32; w++) u += ws[(threadIdx.x >> 5) + w];
        y[__ldg(perm + q)] = u;
    }
}

/* G3 (Alg. 5, coalesced), all runs in one launch: L = 2^t.thr[r] consecutive lanes per sorted
 * row stride through it (the rows of a run are contiguous and about equally long, so a warp's
 * loads cover one stretch of colind/val), then a shuffle sum inside the L-lane group; every
 * lane reaches the shuffles. MINB blocks a multiprocessor: 8 (32 registers) on even rows, where
 * it took 27-point 128^3 from 0.235 to 0.220 ms and 7-point 128^3 from 0.074 to 0.073 (H200,
 * same run); 6 (40 registers) on uneven rows (cs), where 8 lost 2-3% on the power laws. cs stays
 * a runtime argument in both instances: templated on it instead (each instance without the
 * branch it never takes), 27-point 128^3 went from 0.218 to 0.254 ms and zenios x500 from 0.070
 * to 0.074 (H200, same session) */
template <int MINB>
static __global__ void __launch_bounds__(LANE_THREADS, MINB)
    suraa_lanes(run_table t, len_table lt, int cs, const int32_t *__restrict__ perm,
                const int32_t *__restrict__ rowptr, const int32_t *__restrict__ colind,
                const double *__restrict__ val, const double *__restrict__ x,
                double *__restrict__ y)
{
    const int r = find_run(t);
    const int l = t.thr[r], L = 1 << l, lane = threadIdx.x & (L - 1);
    const int64_t q =
        t.begin[r] + ((((int64_t)blockIdx.x - t.first[r]) * LANE_THREADS + threadIdx.x) >> l);
    const bool ok = q < t.end[r];
    int64_t b = 0, e = 0;
    if (ok && lt.n > 0 && l <= LEN_LANES) { /* the row's length: the last i, lt.q[i] <= q */
        const int lo = gs_last_le(0, lt.n - 1, q, [&lt](int i) { return lt.q[i]; });
        b = lt.e[lo] + (q - lt.q[lo]) * lt.len[lo];
        e = b + lt.len[lo];
    } else if (ok) {
        b = __ldg(rowptr + q), e = __ldg(rowptr + q + 1);
    }
    double s = 0.0;
    if (ok && cs)
        s = row_sum<4, true>(b + lane, e, L, colind, val, x);
    else if (ok)
        s = row_sum<4, false>(b + lane, e, L, colind, val, x);
    s = gs_lanes_sum(s, L);
    if (ok && lane == 0) y[__ldg(perm + q)] = s;
}

/* G2's runs of Y <= SPAN_MAX_Y (rows of up to about 512 entries) and at least SPAN_MIN_ROWS
 * rows (smaller runs, such as a power law's, keep the vector kernel's parallelism: power law
 * 200000 took 28.7 us through spans, 20.1 without), in one launch, tuned for sm_90: a warp
 * takes R = t.thr[r] consecutive sorted rows, whose entries lie together in colind/val, and
 * walks that span in 32-entry chunks from the 32-aligned entry at or below its start, SPAN_U
 * chunks loaded at once (each load a warp's 32 consecutive entries, streaming, whatever the
 * row lengths); each lane adds its products into a running sum, and when a row ends inside a
 * chunk the warp sums the row (the lanes' sums plus the chunk's entries before the row's end)
 * and lane `row` keeps it; at the end lanes 0..n-1 write their rows' y. The order of every
 * addition is fixed by the pattern, so a row's sum is the same from run to run. Offsets are 32-bit
 * (nnz < 2^31, so base + 32 SPAN_U stays below 2^32): with 64-bit ones the same kernel was 3-12%
 * slower. Against Alg. 6's Y threads a row, each doing 1-2 entries behind three dependent loads and
 * a block barrier, on the H200 (bench_spmv, same run): isooctane_A x10000 0.406 -> 0.210 ms,
 * pushpull x200 0.212 -> 0.126, zenios x500 0.076 -> 0.069 (bench/results/README.md, "SpMV formats"). G3's
 * short rows through it were slower (a warp sum per row of 4-8 entries): 7-point 128^3 0.074 ->
 * 0.145 ms; they stay in suraa_lanes. Held to 8 blocks a multiprocessor (32 registers) it was
 * slower (pushpull x200 0.125 -> 0.131 ms). */
static __global__ void __launch_bounds__(SPAN_THREADS, 6)
    suraa_span(run_table t, const int32_t *__restrict__ perm, const int32_t *__restrict__ rowptr,
               const int32_t *__restrict__ colind, const double *__restrict__ val,
               const double *__restrict__ x, double *__restrict__ y)
{
    const unsigned full = 0xffffffffu;
    const int r = find_run(t);
    const int R = t.thr[r], lane = threadIdx.x & 31;
    const int64_t w = ((int64_t)blockIdx.x - t.first[r]) * (SPAN_THREADS / 32) + (threadIdx.x >> 5);
    const int64_t q0 = t.begin[r] + w * R;
    if (q0 >= t.end[r]) return; /* the whole warp */
    const int n = (int)(t.end[r] - q0 < R ? t.end[r] - q0 : R);
    const int32_t bnd = lane <= n ? __ldg(rowptr + q0 + lane) : 0;
    const int32_t pr = lane < n ? __ldg(perm + q0 + lane) : 0;
    const uint32_t s0 = (uint32_t)__shfl_sync(full, bnd, 0),
                   s1 = (uint32_t)__shfl_sync(full, bnd, n);
    int row = 0;
    uint32_t nb = (uint32_t)__shfl_sync(full, bnd, 1);
    double acc = 0.0, out = 0.0;
    for (uint32_t base = s0 & ~31u; base < s1; base += 32 * SPAN_U) {
        int32_t c[SPAN_U];
        double p[SPAN_U];
#pragma unroll
        for (int u = 0; u < SPAN_U; u++) {
            const uint32_t e = base + 32 * u + lane;
            const bool in = e >= s0 && e < s1;
            c[u] = in ? __ldcs(colind + e) : -1;
            p[u] = in ? __ldcs(val + e) : 0.0;
        }
#pragma unroll
        for (int u = 0; u < SPAN_U; u++) p[u] *= c[u] >= 0 ? __ldg(x + c[u]) : 0.0;
#pragma unroll
        for (int u = 0; u < SPAN_U; u++) {
            const uint32_t cb = base + 32 * u, e = cb + lane;
            while (row < n && nb <= cb + 32) { /* row `row` ends in this chunk */
                const bool mine = e < nb;
                const double tt = gs_warp_allsum(acc + (mine ? p[u] : 0.0));
                if (mine) p[u] = 0.0;
                if (lane == row) out = tt;
                acc = 0.0;
                row++;
                nb = (uint32_t)__shfl_sync(full, bnd, row < n ? row + 1 : n);
            }
            acc += p[u];
        }
    }
    for (; row < n; row++) { /* rows past the last entry: empty */
        const double tt = gs_warp_allsum(acc);
        if (lane == row) out = tt;
        acc = 0.0;
    }
    if (lane < n) y[pr] = out;
}

/* ------------------------------------------------------------------ conversion kernels */

/* *out = longest row of rowptr (per-warp max, one atomic per warp) */
static __global__ void max_len_kernel(int32_t m, const int32_t *__restrict__ rp, unsigned int *out)
{
    unsigned int mx = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m;
         i += (int64_t)gridDim.x * blockDim.x) {
        unsigned int l = (unsigned int)(__ldg(rp + i + 1) - __ldg(rp + i));
        mx = l > mx ? l : mx;
    }
    for (int off = 16; off > 0; off >>= 1) {
        unsigned int o = __shfl_down_sync(0xffffffffu, mx, off);
        mx = o > mx ? o : mx;
    }
    if ((threadIdx.x & 31) == 0 && mx > 0) atomicMax(out, mx);
}

#define SURAA_HIST_MAX 4096 /* row lengths counted by key_kernel for sorted_rowptr_kernel */
#define PLAN_BLOCKS 264     /* the plan's grid */

struct int2_sum {
    __device__ int2 operator()(const int2 &a, const int2 &b) const
    {
        return make_int2(a.x + b.x, a.y + b.y);
    }
};

/* key[i] = (maxlen - len_i) << cbits | first column of row i (0 when empty), id[i] = i: an
 * ascending sort gives length desc, first column asc, and (stable) row asc. A row longer than
 * maxlen (a wrong hint) gets `over`: bit 63 and every sorted bit, so it sorts after every
 * counted row of some length (with the empty ones: all start at the end), a length of 0 in the
 * sorted order and no count; the sorted rows then hold fewer than nnz entries, which the plan
 * reads.
 * With cw (maxlen < SURAA_HIST_MAX): the rows of each length l counted (in shared memory, then
 * one global atomic per length a block saw, into cw[0 .. maxlen], zero, with a zero ticket at
 * cw[maxlen + 1]), and the last block to finish turns the counts into the rows longer than l,
 * c(l) = sum over l' > l of count(l'), at cw[SURAA_HIST_MAX + 1 + l], and the entries they hold,
 * w(l) = sum of count(l') l', at cw[2 SURAA_HIST_MAX + 1 + l]: sorted row q of length l (the rows
 * sort longest first) then starts at w(l) + (q - c(l)) l (sorted_rowptr_kernel). */
static __global__ void __launch_bounds__(GS_CUDA_THREADS)
    key_kernel(int32_t m, int32_t maxlen, int cbits, uint64_t over, const int32_t *__restrict__ rp,
               const int32_t *__restrict__ ci, uint64_t *key, int32_t *id, int32_t *cw)
{
    typedef cub::BlockScan<int2, GS_CUDA_THREADS> scan_t;
    constexpr int PER = SURAA_HIST_MAX / GS_CUDA_THREADS;
    __shared__ int32_t s_hist[SURAA_HIST_MAX];
    __shared__ typename scan_t::TempStorage tmp;
    __shared__ int s_last;
    if (cw) {
        for (int l = threadIdx.x; l <= maxlen; l += blockDim.x) s_hist[l] = 0;
        __syncthreads();
    }
    /* warp-uniform steps (the counts are added once per length and warp: on a stencil every
     * row of a block has the same length, and one shared atomic per row serialized on it) */
    const int lane = threadIdx.x & 31;
    for (int64_t w = blockIdx.x * (int64_t)blockDim.x + (threadIdx.x & ~31); w < m;
         w += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = w + lane;
        int32_t l = -1;
        if (i < m) {
            const int32_t b = __ldg(rp + i);
            l = __ldg(rp + i + 1) - b;
            const uint32_t fc = l > 0 ? (uint32_t)__ldg(ci + b) : 0u;
            key[i] = l > maxlen ? over : ((uint64_t)(uint32_t)(maxlen - l) << cbits) | fc;
            id[i] = (int32_t)i;
        }
        if (cw) {
            const int32_t c = l <= maxlen ? l : -1; /* -1: past the end, or not counted */
            const unsigned peers = __match_any_sync(0xffffffffu, c);
            if (c >= 0 && lane == __ffs(peers) - 1) atomicAdd(&s_hist[c], __popc(peers));
        }
    }
    if (!cw) return;
    __syncthreads();
    bool wrote = false;
    for (int l = threadIdx.x; l <= maxlen; l += blockDim.x)
        if (s_hist[l]) atomicAdd(cw + l, s_hist[l]), wrote = true;
    if (wrote) __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) s_last = atomicAdd((unsigned *)cw + maxlen + 1, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    /* the last block: thread t takes lengths maxlen - t PER ... - PER + 1 (longest first) */
    int32_t h[PER];
    int2 mine = make_int2(0, 0), before;
#pragma unroll
    for (int j = 0; j < PER; j++) {
        const int l = maxlen - (int)threadIdx.x * PER - j;
        h[j] = l >= 0 ? __ldcg(cw + l) : 0;
        mine.x += h[j], mine.y += h[j] * (l > 0 ? l : 0);
    }
    scan_t(tmp).ExclusiveScan(mine, before, make_int2(0, 0), int2_sum());
#pragma unroll
    for (int j = 0; j < PER; j++) {
        const int l = maxlen - (int)threadIdx.x * PER - j;
        if (l >= 0) {
            cw[SURAA_HIST_MAX + 1 + l] = before.x;
            cw[2 * SURAA_HIST_MAX + 1 + l] = before.y;
            before.x += h[j], before.y += h[j] * l;
        }
    }
}

/* the length of sorted row q from its key (key_kernel): 0 for q = m and a row past the hint */
static __device__ __forceinline__ int32_t sorted_len_of(const uint64_t *__restrict__ key, int64_t q,
                                                        int32_t m, int32_t maxlen, int cbits)
{
    return q < m && !(key[q] >> 63) ? maxlen - (int32_t)(key[q] >> cbits) : 0;
}

/* len[q] = length of sorted row q from its key, len[m] = 0 (for the scan into rowptr) */
static __global__ void sorted_len_kernel(int32_t m, int32_t maxlen, int cbits,
                                         const uint64_t *__restrict__ key, int32_t *len)
{
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q <= m;
         q += (int64_t)gridDim.x * blockDim.x)
        len[q] = sorted_len_of(key, q, m, maxlen, cbits);
}

/* sorted_len_kernel and the scan of len into rowptr in one pass, from key_kernel's c and w:
 * sorted row q of length l starts at w(l) + (q - c(l)) l, and rowptr[m] = w(0), every counted
 * entry. (The CUB scan it replaces cost two launches and 13 us of host time on a 20 us SpMV.) */
static __global__ void sorted_rowptr_kernel(int32_t m, int32_t maxlen, int cbits,
                                            const uint64_t *__restrict__ key,
                                            const int32_t *__restrict__ cw, int32_t *len,
                                            int32_t *rowptr)
{
    const int32_t *c = cw + SURAA_HIST_MAX + 1, *w = cw + 2 * SURAA_HIST_MAX + 1;
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q <= m;
         q += (int64_t)gridDim.x * blockDim.x) {
        const int32_t l = sorted_len_of(key, q, m, maxlen, cbits);
        len[q] = l;
        rowptr[q] = q < m ? __ldg(w + l) + (int32_t)((q - __ldg(c + l)) * (int64_t)l) : __ldg(w);
    }
}

/* len[perm[q]] = length of sorted row q, len[m] = 0 (to_csr) */
static __global__ void orig_len_kernel(int32_t m, const int32_t *__restrict__ perm,
                                       const int32_t *__restrict__ srp, int32_t *len)
{
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q <= m;
         q += (int64_t)gridDim.x * blockDim.x) {
        if (q < m)
            len[perm[q]] = srp[q + 1] - srp[q];
        else
            len[m] = 0;
    }
}

/* the class of a segment's mean length: as gs_suraa_class, operation for operation */
static __device__ int seg_class(double mean)
{
    if (!(mean >= (double)GS_SURAA_WARP)) return 0;
    double k = ceil(mean / 64.0);
    return k > 32.0 ? 32 : (k < 1.0 ? 1 : (int)k);
}

/* its other bin: as gs_suraa_bin (and gs_suraa_lanes_log2), operation for operation */
static __device__ int seg_bin(double mean)
{
    if (mean >= (double)GS_SURAA_G1_LEN) return GS_SURAA_BIN_LONG;
    if (seg_class(mean) != 0) return -1;
    int l = 1;
    if (!(mean > 2.0)) return GS_SURAA_BIN_LANES;
    while (l < GS_SURAA_LANE_CLASSES - 1 && (double)(4 << l) < mean) l++;
    return GS_SURAA_BIN_LANES + l;
}

/* What the plan kernel's last block writes into host memory: the quartile lengths, the segment
 * size and count, the segments of each bin, the group ends as gs_suraa_plan_groups finds them,
 * the sorted row pointers there (rv: at g1_end - 1 (g1_end when 0), g1_end, g2_end), srp[m],
 * G1's row pointers srp[0..g1_end] when g1_end < PLAN_G1_ROWS, and where G3's rows of each
 * length begin (for its len_table) when its longest row holds at most LEN_TABLE entries */
#define PLAN_G1_ROWS 2048
typedef struct plan_out {
    unsigned long long count[GS_SURAA_BINS];
    int32_t q_hi, q_lo, seg, nseg, g1_end, g2_end, rv[3], total;
    int32_t g1_rp[PLAN_G1_ROWS];
    int32_t g3_len;              /* G3's longest row (0: no G3) */
    int32_t g3_a[LEN_TABLE + 1]; /* a[l]: the first G3 row of <= l entries ... */
    int32_t g3_e[LEN_TABLE + 1]; /* ... and where it starts (when g3_len <= LEN_TABLE) */
} plan_out;

/* Freedman-Diaconis as gs_suraa_segment_size, with cbrt(m) from the host (cbrt_m): a division
 * and a ceiling, exact in IEEE arithmetic, so host and device sizes agree */
static __device__ int32_t seg_size_dev(int64_t m, int32_t iqr, double cbrt_m)
{
    if (m <= 0 || iqr <= 0) return 1;
    double s = ceil(2.0 * (double)iqr / cbrt_m - 1e-9);
    if (s < 1.0) return 1;
    return s > (double)m ? (int32_t)m : (int32_t)s;
}

/* The plan in one kernel, from the sorted lengths len and row pointers srp: every thread finds
 * the segment size from the quartiles, the segments' bins are counted (classes and
 * gs_suraa_bin's bins; a shared histogram per block into count, zero at rest), and the last
 * block to finish (*done counts them) finds the group ends operation for operation as
 * gs_suraa_plan_groups (max_child = p->suraa_max_child_threads), writes everything into out
 * (host memory) and clears count and *done. One wait for the whole plan, where reading the
 * quartiles, the histogram and the group bounds took three. */
static __global__ void plan_kernel(int32_t m, int64_t hi, int64_t lo, double cbrt_m,
                                   int max_child, const int32_t *__restrict__ len,
                                   const int32_t *__restrict__ srp, unsigned long long *count,
                                   unsigned *done, plan_out *out)
{
    __shared__ unsigned int h[GS_SURAA_BINS];
    __shared__ int s_last, s_g1, s_g2;
    const int32_t S = seg_size_dev(m, __ldg(len + hi) - __ldg(len + lo), cbrt_m);
    const int32_t nseg = (int32_t)(((int64_t)m + S - 1) / S);
    for (int c = threadIdx.x; c < GS_SURAA_BINS; c += blockDim.x) h[c] = 0;
    __syncthreads();
    for (int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; s < nseg;
         s += (int64_t)gridDim.x * blockDim.x) {
        int64_t b = s * S, e = b + S < m ? b + S : m;
        double mean = (double)(srp[e] - srp[b]) / (double)(e - b);
        int bin = seg_bin(mean);
        atomicAdd(&h[seg_class(mean)], 1u);
        if (bin >= 0) atomicAdd(&h[bin], 1u);
    }
    __syncthreads();
    for (int c = threadIdx.x; c < GS_SURAA_BINS; c += blockDim.x)
        if (h[c]) atomicAdd(count + c, (unsigned long long)h[c]);
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) s_last = atomicAdd(done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    for (int c = threadIdx.x; c < GS_SURAA_BINS; c += blockDim.x) out->count[c] = __ldcg(count + c);
    if (threadIdx.x == 0) {
        /* gs_suraa_plan_groups' ends */
        int64_t nge = 0;
        for (int k = 1; k < GS_SURAA_CLASSES; k++) nge += (int64_t)__ldcg(count + k);
        const int64_t rows_ge = nge * S < m ? nge * S : m;
        const int64_t cap = max_child > 0 ? max_child : GS_SURAA_POOL_BIG;
        int64_t n1 = max_child > 0 ? nge : (int64_t)__ldcg(count + GS_SURAA_BIN_LONG);
        n1 = cap / S < n1 ? cap / S : n1;
        const int32_t g1 = (int32_t)(n1 * S < m ? n1 * S : m), g2 = (int32_t)rows_ge;
        out->q_hi = len[hi], out->q_lo = len[lo], out->seg = S, out->nseg = nseg;
        out->g1_end = g1, out->g2_end = g2;
        out->rv[0] = srp[g1 > 0 ? g1 - 1 : 0], out->rv[1] = srp[g1], out->rv[2] = srp[g2];
        out->total = srp[m];
        s_g1 = g1, s_g2 = g2; /* for the copies below */
    }
    __syncthreads();
    const int32_t g1 = s_g1, g2 = s_g2, l3 = g2 < m ? len[g2] : 0;
    if (threadIdx.x == 0) out->g3_len = l3;
    if (g1 < PLAN_G1_ROWS)
        for (int32_t q = threadIdx.x; q <= g1; q += blockDim.x) out->g1_rp[q] = srp[q];
    if (l3 <= LEN_TABLE) /* G3's rows by length: a[l] the first of [g2, m) with len <= l */
        for (int l = threadIdx.x; l <= l3; l += blockDim.x) {
            /* len descends over [g2, m): -len ascends, and len <= l where -len >= -l */
            const int64_t lo = gs_first_ge((int64_t)g2, (int64_t)m, -(int64_t)l,
                                           [len](int64_t i) { return -(int64_t)len[i]; });
            out->g3_a[l] = (int32_t)lo, out->g3_e[l] = srp[lo];
        }
    __syncthreads();
    for (int c = threadIdx.x; c < GS_SURAA_BINS; c += blockDim.x) count[c] = 0;
    if (threadIdx.x == 0) *done = 0;
}

/* sorted row q starts at srp[q] in SURAA and at orp[perm[q]] in the CSR (gs_move between them) */
struct sorted_shift {
    const int32_t *perm, *orp;
    __device__ int32_t operator()(int32_t q, int32_t srp_q) const
    {
        return __ldg(orp + __ldg(perm + q)) - srp_q;
    }
};

/* bits to hold v (0 for v = 0) */
static int bits_for(uint64_t v)
{
    int b = 0;
    while (b < 64 && (v >> b) != 0) b++;
    return b;
}

/* ------------------------------------------------------------------ conversion */

/* read n small device values (all together <= 1 KiB) through the pinned buffer: one wait */
static gs_status read_small(int n, void *const *dst, const void *const *src, const size_t *bytes)
{
    gs_status st = GS_OK;
    char *h = (char *)gs_cuda_g.h_red;
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        GS_CUDA_CALL(
            cudaMemcpyAsync(h + off, src[i], bytes[i], cudaMemcpyDeviceToHost, gs_cuda_g.stream));
        off += (bytes[i] + 7) & ~(size_t)7;
    }
    gs_cuda_select_trace("suraa read enqueued");
    GS_CUDA_CALL(cudaStreamSynchronize(gs_cuda_g.stream));
    gs_cuda_select_trace("suraa read waited");
    off = 0;
    for (int i = 0; i < n; i++) {
        memcpy(dst[i], h + off, bytes[i]);
        off += (bytes[i] + 7) & ~(size_t)7;
    }
done:
    return st;
}

static void destroy(void *Mv)
{
    gs_suraa *M = (gs_suraa *)Mv;
    if (!M) return;
    suraa_dev *d = (suraa_dev *)M->dev;
    if (d) {
        gs_cuda_free(d->part);
        gs_cuda_free(d->cnt);
        gs_cuda_free(d->map);
        gs_free(d);
    }
    gs_cuda_free(M->val); /* one allocation with colind, perm and rowptr (from_csr) */
    gs_free(M);
}

/* g_sx made (once) */
static gs_status streams_ready(void)
{
    gs_status st = GS_OK;
    if (g_sx.ready) return GS_OK;
    for (int i = 0; i < 3; i++) {
        if (!g_sx.s[i]) GS_CUDA_CALL(cudaStreamCreateWithFlags(&g_sx.s[i], cudaStreamNonBlocking));
        if (!g_sx.join[i])
            GS_CUDA_CALL(cudaEventCreateWithFlags(&g_sx.join[i], cudaEventDisableTiming));
    }
    if (!g_sx.fork) GS_CUDA_CALL(cudaEventCreateWithFlags(&g_sx.fork, cudaEventDisableTiming));
    if (!g_sx.planned)
        GS_CUDA_CALL(cudaEventCreateWithFlags(&g_sx.planned, cudaEventDisableTiming));
    g_sx.ready = 1;
done:
    return st; /* on failure the ones made are kept and the rest retried next time */
}

/* The kernels a launch table is made for, and what t->thr holds per run */
enum { TABLE_VECTOR, TABLE_LANES, TABLE_SPANS };

/* rows a warp of the span kernel for a G2 run: about SPAN_ENTRIES entries from the run's Y
 * (rows of 2 Y - 16 entries on average: Y = 32 ceil(npr/64)); 768 against 384 and 1024
 * measured best on isooctane, pushpull and zenios; fewer when the run would have less than
 * SPAN_MIN_WARPS warps; 1..31 */
static int32_t span_rows(const gs_suraa_run *u)
{
    const int64_t rows = (int64_t)u->end - u->begin;
    int64_t R = SPAN_ENTRIES / (2 * u->threads - 16);
    if (R > rows / SPAN_MIN_WARPS) R = rows / SPAN_MIN_WARPS;
    return (int32_t)(R < 1 ? 1 : R > 31 ? 31 : R);
}

/* t = the launch table of runs[0..n) in blocks of `block` threads for `kind`: TABLE_VECTOR
 * (G2, t->thr = Y, block / Y rows a block), TABLE_LANES (G3, t->thr = log2 L, block / L rows a
 * block) or TABLE_SPANS (G2, t->thr = R rows a warp, R block / 32 rows a block) */
static gs_status run_table_make(const gs_suraa_run *runs, int n, int kind, int block, run_table *t)
{
    int64_t first = 0;
    memset(t, 0, sizeof *t);
    t->n = n;
    for (int r = 0; r < n; r++) {
        const int64_t rows = (int64_t)runs[r].end - runs[r].begin;
        int32_t thr = runs[r].threads;
        int64_t per_block = block / thr;
        if (kind == TABLE_LANES) {
            thr = 0;
            while ((1 << thr) < runs[r].threads) thr++;
            per_block = block >> thr;
        } else if (kind == TABLE_SPANS) {
            thr = span_rows(&runs[r]);
            per_block = (int64_t)thr * (block / 32);
        }
        t->first[r] = (int32_t)first;
        t->begin[r] = runs[r].begin;
        t->end[r] = runs[r].end;
        t->thr[r] = thr;
        first += (rows + per_block - 1) / per_block;
        if (first > INT32_MAX)
            return GS_ERROR(GS_ERR_UNSUPPORTED, "suraa: %lld blocks in one launch",
                            (long long)first);
    }
    t->first[n] = (int32_t)first;
    return GS_OK;
}

/* block-per-row G1: chunk = GS_SURAA_BLOCK_ENTRIES g1_threads entries per block; map[b] =
 * (row, chunk) over the rows' ceil(len / chunk) blocks (one for a row that fits, or empty),
 * from the G1 row pointers (g1_rp when the plan sent them, else read here) */
static gs_status g1_block_map(const gs_suraa *M, suraa_dev *d, const int32_t *g1_rp)
{
    gs_status st = GS_OK;
    const int32_t n1 = M->g1_end, chunk = GS_SURAA_BLOCK_ENTRIES * M->g1_threads;
    int32_t *rp = NULL;
    int2 *map = NULL;
    int64_t nb = 0;
    gs_cuda_seg seg;
    GS_CHECK(gs_alloc_array((size_t)n1 + 1, sizeof *rp, "SURAA G1 rows", (void **)&rp));
    if (g1_rp)
        memcpy(rp, g1_rp, ((size_t)n1 + 1) * sizeof *rp);
    else
        GS_CHECK(gs_cuda_d2h(rp, M->rowptr, ((size_t)n1 + 1) * sizeof *rp));
    for (int32_t q = 0; q < n1; q++) {
        int64_t len = rp[q + 1] - rp[q];
        nb += len > chunk ? (len + chunk - 1) / chunk : 1;
    }
    if (nb > INT32_MAX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "suraa: G1 needs %lld blocks, more than a grid holds",
                (long long)nb);
    GS_CHECK(gs_alloc_array((size_t)nb, sizeof *map, "SURAA G1 map", (void **)&map));
    nb = 0;
    for (int32_t q = 0; q < n1; q++) {
        int64_t len = rp[q + 1] - rp[q], k = len > chunk ? (len + chunk - 1) / chunk : 1;
        for (int64_t c = 0; c < k; c++, nb++) map[nb].x = q, map[nb].y = (int)c;
    }
    d->g1_blocks = (int32_t)nb;
    d->g1_chunk = chunk;
    GS_CHECK(gs_cuda_alloc((size_t)nb * sizeof *map, "SURAA G1 map", (void **)&d->map));
    GS_CHECK(gs_cuda_alloc((size_t)nb * sizeof(double), "SURAA G1 sums", (void **)&d->part));
    seg.dst = d->map, seg.src = map, seg.bytes = (size_t)nb * sizeof *map;
    GS_CHECK(gs_cuda_h2d(&seg, 1));
done:
    gs_free(rp);
    gs_free(map);
    return st;
}

/* the streams, G1's scratch (child grids: partial sums and a device launch pool large enough
 * for one child grid per G1 row; blocks: the block map, from g1_rp when not NULL), and the
 * G2/G3 launch tables (lt: G3's length table, NULL for none) */
static gs_status make_dev_state(gs_suraa *M, const int32_t *g1_rp, const len_table *lt)
{
    gs_status st = GS_OK;
    suraa_dev *d = NULL;
    size_t pool = 0;
    int small = 1;
    GS_CHECK(streams_ready());
    GS_CHECK(gs_alloc_array(1, sizeof *d, "SURAA device state", (void **)&d));
    memset(d, 0, sizeof *d);
    M->dev = d;
    if (lt) d->g3l = *lt;
    {
        /* G2's runs split between the two kernels, each keeping the runs' order */
        gs_suraa_run vec[GS_SURAA_CLASSES], span[GS_SURAA_CLASSES];
        int nv = 0, ns = 0;
        for (int r = 0; r < M->nruns; r++) {
            const gs_suraa_run *u = &M->runs[r];
            if (u->threads <= SPAN_MAX_Y && (int64_t)u->end - u->begin >= SPAN_MIN_ROWS)
                span[ns++] = *u;
            else
                vec[nv++] = *u, small &= 256 % u->threads == 0;
        }
        d->g2_block = small ? 256 : VEC_BIG;
        GS_CHECK(run_table_make(vec, nv, TABLE_VECTOR, d->g2_block, &d->g2));
        GS_CHECK(run_table_make(span, ns, TABLE_SPANS, SPAN_THREADS, &d->g2s));
        GS_CHECK(run_table_make(M->g3, M->ng3, TABLE_LANES, LANE_THREADS, &d->g3));
    }
    d->g3_stream = M->rows > 0 && 4.0 * M->iqr >= (double)M->nnz / M->rows;
    if (M->g1_end == 0) return GS_OK;
    GS_CHECK(gs_cuda_alloc((size_t)M->g1_end * sizeof(unsigned int), "SURAA G1 counters",
                           (void **)&d->cnt));
    GS_CUDA_CALL(
        cudaMemsetAsync(d->cnt, 0, (size_t)M->g1_end * sizeof(unsigned int), gs_cuda_g.stream));
    if (!M->g1_dynamic) return g1_block_map(M, d, g1_rp);
    {
        size_t nparts = (size_t)(M->g1_nnz / GS_SURAA_CHILD_CHUNK) + (size_t)M->g1_end + 1;
        GS_CHECK(gs_cuda_alloc(nparts * sizeof(double), "SURAA child sums", (void **)&d->part));
    }
    /* a smaller pool only costs speed: a launch that does not fit is done by its parent */
    if (cudaDeviceGetLimit(&pool, cudaLimitDevRuntimePendingLaunchCount) == cudaSuccess &&
        pool < (size_t)M->g1_end + 64)
        (void)cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, (size_t)M->g1_end + 64);
    (void)cudaGetLastError();
done:
    return st;
}

/* device scratch of a conversion: one allocation */
typedef struct conv_tmp {
    char *base;
    uint64_t *k0, *k1;         /* sort keys, double buffer (m each) */
    int32_t *ids, *len;        /* the sort's second value buffer (m); sorted lengths (m + 1) */
    unsigned int *max;         /* longest row */
    int32_t *cw;               /* rows per length, a ticket, c and w (key_kernel) */
    void *cub;                 /* CUB scratch */
    size_t cub_bytes;
} conv_tmp;

/* t = the scratch for m rows; CUB's share sized for a sort of full 64-bit keys, which bounds
 * the sort of fewer bits (passes = bits / 8) */
static gs_status conv_tmp_alloc(int64_t m, conv_tmp *t)
{
    gs_status st = GS_OK;
    size_t sort_b = 0, scan_b = 0, a_keys = gs_align256((size_t)m * 8),
           a_ids = gs_align256((size_t)m * 4);
    size_t a_len = gs_align256(((size_t)m + 1) * 4), a_max = gs_align256(sizeof(unsigned int)),
           a_hist = gs_align256((3 * SURAA_HIST_MAX + 1) * sizeof(int32_t));
    cub::DoubleBuffer<uint64_t> kq(NULL, NULL);
    cub::DoubleBuffer<int32_t> vq(NULL, NULL);
    memset(t, 0, sizeof *t);
    GS_CUDA_CALL(
        cub::DeviceRadixSort::SortPairs(NULL, sort_b, kq, vq, (int)m, 0, 64, gs_cuda_g.stream));
    GS_CUDA_CALL(cub::DeviceScan::ExclusiveSum(NULL, scan_b, (int32_t *)NULL, (int32_t *)NULL,
                                               m + 1, gs_cuda_g.stream));
    t->cub_bytes = sort_b > scan_b ? sort_b : scan_b;
    GS_CHECK(gs_cuda_alloc(2 * a_keys + a_ids + a_len + a_max + a_hist + t->cub_bytes,
                           "SURAA scratch", (void **)&t->base));
    t->k0 = (uint64_t *)t->base;
    t->k1 = (uint64_t *)(t->base + a_keys);
    t->ids = (int32_t *)(t->base + 2 * a_keys);
    t->len = (int32_t *)(t->base + 2 * a_keys + a_ids);
    t->max = (unsigned int *)(t->base + 2 * a_keys + a_ids + a_len);
    t->cw = (int32_t *)(t->base + 2 * a_keys + a_ids + a_len + a_max);
    t->cub = t->base + 2 * a_keys + a_ids + a_len + a_max + a_hist;
done:
    return st;
}

/* perm (rows of A by length desc, first column asc, row asc), the sorted rowptr, max_len (from
 * p->hint_max_len when given, checked by the plan; else found first, one wait) */
static gs_status sort_rows(const gs_csr *A, const gs_format_params *p, gs_suraa *M, conv_tmp *t)
{
    gs_status st = GS_OK;
    const int32_t m = A->rows;
    cudaStream_t s = gs_cuda_g.stream;
    size_t sort_b = 0, scan_b = 0;
    unsigned int maxlen = 0;
    cub::DoubleBuffer<uint64_t> keys(t->k0, t->k1);
    cub::DoubleBuffer<int32_t> vals(M->perm, t->ids);
    if (p && p->hint_max_len > 0) {
        maxlen = (unsigned int)p->hint_max_len;
    } else {
        void *dst[1] = {&maxlen};
        const void *src[1] = {t->max};
        size_t nb[1] = {sizeof maxlen};
        GS_CUDA_CALL(cudaMemsetAsync(t->max, 0, sizeof *t->max, s));
        max_len_kernel<<<gs_cuda_grid(m), GS_CUDA_THREADS, 0, s>>>(m, A->rowptr, t->max);
        GS_CUDA_LAUNCHED("suraa max_len");
        GS_CHECK(read_small(1, dst, src, nb));
    }
    M->max_len = (int32_t)maxlen;
    {
        const int cbits = bits_for(A->cols > 1 ? (uint64_t)(A->cols - 1) : 0);
        const int end_bit = bits_for(maxlen) + cbits; /* <= 62 */
        /* the row lengths counted beside the keys where they fit the table: then the sorted
         * lengths and rowptr come in one pass (sorted_rowptr_kernel) instead of a CUB scan */
        int32_t *cw = maxlen < SURAA_HIST_MAX ? t->cw : NULL;
        if (cw) /* the counts and the ticket */
            GS_CUDA_CALL(cudaMemsetAsync(cw, 0, ((size_t)maxlen + 2) * sizeof *cw, s));
        key_kernel<<<gs_cuda_grid(m), GS_CUDA_THREADS, 0, s>>>(
            m, (int32_t)maxlen, cbits, (1ull << 63) | ((1ull << end_bit) - 1), A->rowptr, A->colind,
            t->k0, M->perm, cw);
        GS_CUDA_LAUNCHED("suraa keys");
        gs_cuda_select_trace("suraa keys enqueued");
        if (end_bit > 0) { /* else every key is 0: the identity order */
            /* the scratch was sized for 64-bit keys (conv_tmp_alloc), which bounds this sort's
             * need: no sizing call */
            sort_b = t->cub_bytes;
            GS_CUDA_CALL(
                cub::DeviceRadixSort::SortPairs(t->cub, sort_b, keys, vals, m, 0, end_bit, s));
            gs_cuda_select_trace("suraa sort run");
        }
        if (vals.Current() != M->perm)
            GS_CUDA_CALL(cudaMemcpyAsync(M->perm, vals.Current(), (size_t)m * sizeof(int32_t),
                                         cudaMemcpyDeviceToDevice, s));
        if (cw) {
            sorted_rowptr_kernel<<<gs_cuda_grid((int64_t)m + 1), GS_CUDA_THREADS, 0, s>>>(
                m, (int32_t)maxlen, cbits, keys.Current(), cw, t->len, M->rowptr);
            GS_CUDA_LAUNCHED("suraa sorted rowptr");
        } else {
            sorted_len_kernel<<<gs_cuda_grid((int64_t)m + 1), GS_CUDA_THREADS, 0, s>>>(
                m, (int32_t)maxlen, cbits, keys.Current(), t->len);
            GS_CUDA_LAUNCHED("suraa sorted lengths");
            scan_b = t->cub_bytes;
            GS_CUDA_CALL(cub::DeviceScan::ExclusiveSum(t->cub, scan_b, t->len, M->rowptr,
                                                       (int64_t)m + 1, s));
        }
        gs_cuda_select_trace("suraa sorted rowptr");
    }
done:
    return st;
}

/* queue the plan (plan_kernel, from the sorted lengths len and rowptr) and record g_sx.planned
 * after it */
static gs_status plan_launch(const gs_suraa *M, const gs_format_params *p, const int32_t *len)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    int64_t hi, lo;
    char *sel = (char *)gs_cuda_g.d_sel + GS_CUDA_SEL_SURAA;
    static_assert(sizeof(plan_out) <= GS_CUDA_PINNED_BYTES, "the plan must fit the pinned buffer");
    static_assert((GS_SURAA_BINS + 1) * sizeof(unsigned long long) <=
                      GS_CUDA_SEL_STATS - GS_CUDA_SEL_SURAA,
                  "the plan's counts must fit their part of the selection scratch");
    gs_suraa_quartiles(M->rows, &hi, &lo);
    /* a few blocks per multiprocessor: the segments are few or short, and fewer blocks finish
     * sooner (their last one waits for all) */
    plan_kernel<<<gs_cuda_grid(M->rows) < PLAN_BLOCKS ? gs_cuda_grid(M->rows) : PLAN_BLOCKS,
                  GS_CUDA_THREADS, 0, s>>>(
        M->rows, hi, lo, cbrt((double)M->rows), p->suraa_max_child_threads, len, M->rowptr,
        (unsigned long long *)sel, (unsigned *)(sel + GS_SURAA_BINS * sizeof(unsigned long long)),
        (plan_out *)gs_cuda_g.h_red_dev);
    GS_CUDA_LAUNCHED("suraa plan");
    GS_CUDA_CALL(cudaEventRecord(g_sx.planned, s));
done:
    return st;
}

/* wait for the plan (only: the rows may still be moving), then the IQR, segment size, groups
 * and runs on the host (checked against the kernel's), G1/G2 entries and the G1 kernel.
 * *g1_rp = G1's row pointers (host, the caller frees) when the kernel sent them; *lt = G3's
 * length table (n = 0 when its rows are too long for one). */
static gs_status plan_finish(gs_suraa *M, const gs_format_params *p, int32_t **g1_rp, len_table *lt)
{
    gs_status st = GS_OK;
    int64_t count[GS_SURAA_BINS];
    const plan_out *o = (const plan_out *)gs_cuda_g.h_red;
    *g1_rp = NULL;
    gs_cuda_select_trace("suraa plan enqueued");
    GS_CUDA_CALL(cudaEventSynchronize(g_sx.planned));
    gs_cuda_select_trace("suraa plan waited");
    if (o->total != M->nnz)
        GS_FAIL(GS_ERR_INTERNAL,
                "suraa: the sorted rows hold %d of the %d entries (a row longer than the "
                "longest-row hint %d?)",
                o->total, M->nnz, M->max_len);
    M->iqr = o->q_hi - o->q_lo;
    M->seg_size = gs_suraa_segment_size(M->rows, M->iqr);
    M->nseg = (int32_t)(((int64_t)M->rows + M->seg_size - 1) / M->seg_size);
    for (int c = 0; c < GS_SURAA_BINS; c++) count[c] = (int64_t)o->count[c];
    gs_suraa_plan_groups(M, count, p);
    if (M->seg_size != o->seg || M->g1_end != o->g1_end || M->g2_end != o->g2_end)
        GS_FAIL(GS_ERR_INTERNAL,
                "suraa: the device plan (segment %d, groups at %d, %d) differs from the host's "
                "(%d, %d, %d)",
                o->seg, o->g1_end, o->g2_end, M->seg_size, M->g1_end, M->g2_end);
    M->g1_nnz = o->rv[1];
    M->g2_nnz = (int64_t)o->rv[2] - o->rv[1];
    gs_suraa_plan_g1(M, p, o->rv[1] - o->rv[0]);
    memset(lt, 0, sizeof *lt);
    if (M->g2_end < M->rows && o->g3_len <= LEN_TABLE) {
        /* rows of exactly l entries: [a[l], a[l - 1]), a[-1] = m; the longest first */
        for (int l = o->g3_len; l >= 0; l--) {
            const int32_t end = l > 0 ? o->g3_a[l - 1] : M->rows;
            if (o->g3_a[l] >= end) continue;
            lt->q[lt->n] = o->g3_a[l], lt->e[lt->n] = o->g3_e[l], lt->len[lt->n] = l;
            lt->n++;
        }
        lt->q[lt->n] = M->rows;
        if (lt->n == 0 || lt->q[0] != M->g2_end)
            GS_FAIL(GS_ERR_INTERNAL, "suraa: G3's length table starts at row %d, not at %d",
                    lt->n ? lt->q[0] : -1, M->g2_end);
    }
    if (M->g1_end > 0 && M->g1_end < PLAN_G1_ROWS) {
        GS_CHECK(gs_alloc_array((size_t)M->g1_end + 1, sizeof **g1_rp, "SURAA G1 rows",
                                (void **)g1_rp));
        memcpy(*g1_rp, o->g1_rp, ((size_t)M->g1_end + 1) * sizeof **g1_rp);
    }
done:
    return st;
}

/* device CSR -> SURAA (Alg. 2 on the device): sort, scan, data in sorted order, plan */
static gs_status from_csr(const gs_csr *A, const gs_format_params *p, void **out)
{
    gs_status st = GS_OK;
    gs_suraa *M = NULL;
    conv_tmp t;
    int32_t *g1_rp = NULL;
    len_table lt;
    const int64_t m = A->rows;
    *out = NULL;
    t.base = NULL;
    if (A->loc != GS_LOC_DEVICE) return GS_ERROR(GS_ERR_ARG, "suraa (device): a host matrix");
    gs_cuda_select_trace("suraa from_csr begin");
    GS_CHECK(streams_ready());
    GS_CHECK(gs_alloc_array(1, sizeof *M, "SURAA matrix", (void **)&M));
    memset(M, 0, sizeof *M);
    M->rows = A->rows, M->cols = A->cols, M->nnz = A->nnz, M->loc = GS_LOC_DEVICE;
    M->seg_size = 1;
    { /* values, columns, perm and rowptr in one allocation (destroy frees val) */
        const size_t bv = gs_align256((size_t)A->nnz * 8), bc = gs_align256((size_t)A->nnz * 4),
                     bp = gs_align256((size_t)m * 4);
        char *base = NULL;
        GS_CHECK(gs_cuda_alloc(bv + bc + bp + ((size_t)m + 1) * 4, "SURAA matrix arrays",
                               (void **)&base));
        M->val = (double *)base;
        M->colind = (int32_t *)(base + bv);
        M->perm = (int32_t *)(base + bv + bc);
        M->rowptr = (int32_t *)(base + bv + bc + bp);
    }
    if (m == 0) {
        GS_CUDA_CALL(cudaMemsetAsync(M->rowptr, 0, sizeof(int32_t), gs_cuda_g.stream));
    } else {
        gs_cuda_select_trace("suraa allocated");
        GS_CHECK(conv_tmp_alloc(m, &t));
        gs_cuda_select_trace("suraa scratch");
        GS_CHECK(sort_rows(A, p, M, &t));
        gs_cuda_select_trace("suraa sort enqueued");
        GS_CHECK(plan_launch(M, p, t.len));
        if (A->nnz > 0) /* queued after the plan: the host plans while the rows move */
            GS_CHECK(gs_move(A->rows, A->nnz, M->rowptr, sorted_shift{M->perm, A->rowptr}, 1,
                             A->colind, A->val, M->colind, M->val, gs_cuda_g.stream,
                             "suraa move rows"));
        GS_CHECK(plan_finish(M, p, &g1_rp, &lt));
    }
    gs_cuda_select_trace("suraa planned");
    GS_CHECK(make_dev_state(M, g1_rp, m > 0 ? &lt : NULL));
    gs_cuda_select_trace("suraa device state");
    *out = M;
    M = NULL;
done:
    gs_cuda_free(t.base); /* stream-ordered: after the kernels that use it */
    gs_free(g1_rp);
    destroy(M);
    return st;
}

/* SURAA -> device CSR: lengths at the original rows, a scan, the rows moved back */
static gs_status to_csr(const void *Mv, gs_csr **out)
{
    gs_status st = GS_OK;
    const gs_suraa *M = (const gs_suraa *)Mv;
    const int64_t m = M->rows;
    int32_t *rp = NULL, *ci = NULL, *len = NULL;
    double *v = NULL;
    cudaStream_t s = gs_cuda_g.stream;
    *out = NULL;
    GS_CHECK(gs_cuda_alloc(((size_t)m + 1) * 4, "CSR row pointers", (void **)&rp));
    GS_CHECK(gs_cuda_alloc((size_t)M->nnz * 4, "CSR column indices", (void **)&ci));
    GS_CHECK(gs_cuda_alloc((size_t)M->nnz * 8, "CSR values", (void **)&v));
    if (m == 0) {
        GS_CUDA_CALL(cudaMemsetAsync(rp, 0, sizeof(int32_t), s));
    } else {
        GS_CHECK(gs_cuda_alloc(((size_t)m + 1) * 4, "SURAA row lengths", (void **)&len));
        orig_len_kernel<<<gs_cuda_grid(m + 1), GS_CUDA_THREADS, 0, s>>>(M->rows, M->perm, M->rowptr,
                                                                        len);
        GS_CUDA_LAUNCHED("suraa original lengths");
        GS_CHECK(gs_cuda_exclusive_sum<int32_t>(len, rp, m + 1, "SURAA scan scratch"));
        if (M->nnz > 0)
            GS_CHECK(gs_move(M->rows, M->nnz, M->rowptr, sorted_shift{M->perm, rp}, 0, M->colind,
                             M->val, ci, v, s, "suraa move rows back"));
        GS_CUDA_CALL(cudaStreamSynchronize(s));
    }
    st = gs_cuda_csr_adopt(M->rows, M->cols, M->nnz, rp, ci, v, out);
    rp = NULL, ci = NULL, v = NULL; /* adopted, or freed by the failed adopt */
done: /* the frees are stream-ordered: after the kernels that use these */
    gs_cuda_free(len);
    gs_cuda_free(rp);
    gs_cuda_free(ci);
    gs_cuda_free(v);
    return st;
}

/* ------------------------------------------------------------------ SpMV */

/* y = M*x: G1 (child grids, or blocks from the host), G2 (one vector launch over its runs),
 * G3 (one launch over its runs of L lanes), each non-empty group on its own stream: the one
 * with the most entries on gs_cuda_g.stream, the others forked from it and joined back (so a
 * matrix in one group costs one launch and no events); G1 launched first, as it ends last */
static gs_status spmv(const void *Mv, const double *x, double *y)
{
    gs_status st = GS_OK;
    const gs_suraa *M = (const gs_suraa *)Mv;
    const suraa_dev *d = (const suraa_dev *)M->dev;
    const int use[3] = {M->g1_end > 0, M->nruns > 0, M->rows > M->g2_end};
    const int64_t work[3] = {M->g1_nnz, M->g2_nnz, (int64_t)M->nnz - M->g1_nnz - M->g2_nnz};
    int main_g = -1, fork = 0;
    cudaStream_t s[3];
    if (M->rows == 0) return GS_OK;
    for (int i = 0; i < 3; i++)
        if (use[i] && (main_g < 0 || work[i] > work[main_g])) main_g = i;
    for (int i = 0; i < 3; i++) {
        s[i] = i == main_g ? gs_cuda_g.stream : g_sx.s[i];
        fork |= use[i] && i != main_g;
    }
    if (fork) {
        GS_CUDA_CALL(cudaEventRecord(g_sx.fork, gs_cuda_g.stream));
        for (int i = 0; i < 3; i++)
            if (use[i] && i != main_g) GS_CUDA_CALL(cudaStreamWaitEvent(s[i], g_sx.fork, 0));
    }
    if (use[0] && M->g1_dynamic) {
        GS_CUDA_CALL(gs_suraa_dp_spmv(M->g1_end, M->perm, M->rowptr, M->colind, M->val, x, y,
                                      d->part, d->cnt, s[0]));
    } else if (use[0]) {
        suraa_g1_blocks<<<(unsigned)d->g1_blocks, M->g1_threads, 0, s[0]>>>(
            d->g1_chunk, d->map, M->perm, M->rowptr, M->colind, M->val, x, y, d->part, d->cnt);
        GS_CUDA_LAUNCHED("suraa G1 blocks");
    }
    if (use[1] && d->g2.n > 0) {
        suraa_vector<<<(unsigned)d->g2.first[d->g2.n], d->g2_block, 0, s[1]>>>(
            d->g2, M->perm, M->rowptr, M->colind, M->val, x, y);
        GS_CUDA_LAUNCHED("suraa G2 vector");
    }
    if (use[1] && d->g2s.n > 0) {
        suraa_span<<<(unsigned)d->g2s.first[d->g2s.n], SPAN_THREADS, 0, s[1]>>>(
            d->g2s, M->perm, M->rowptr, M->colind, M->val, x, y);
        GS_CUDA_LAUNCHED("suraa G2 spans");
    }
    if (use[2]) {
        const unsigned nb3 = (unsigned)d->g3.first[d->g3.n];
        if (d->g3_stream)
            suraa_lanes<6><<<nb3, LANE_THREADS, 0, s[2]>>>(d->g3, d->g3l, 1, M->perm, M->rowptr,
                                                           M->colind, M->val, x, y);
        else
            suraa_lanes<8><<<nb3, LANE_THREADS, 0, s[2]>>>(d->g3, d->g3l, 0, M->perm, M->rowptr,
                                                           M->colind, M->val, x, y);
        GS_CUDA_LAUNCHED("suraa G3 lanes");
    }
    if (fork)
        for (int i = 0; i < 3; i++)
            if (use[i] && i != main_g) {
                GS_CUDA_CALL(cudaEventRecord(g_sx.join[i], s[i]));
                GS_CUDA_CALL(cudaStreamWaitEvent(gs_cuda_g.stream, g_sx.join[i], 0));
            }
done:
    return st;
}

static double bytes(const void *M)
{
    return gs_suraa_bytes((const gs_suraa *)M);
}

static void describe(const void *M, char *buf, size_t len)
{
    gs_suraa_describe((const gs_suraa *)M, buf, len);
}

extern "C" const gs_format_ops gs_suraa_cuda_ops = {"suraa", from_csr, to_csr, spmv,
                                                    bytes,   describe, destroy};

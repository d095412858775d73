/* gs_cds_cuda.cu: CDS (Godwin et al. 2012) on the device: conversion from a device CSR (kernels
 * and CUB, only small summaries go to the host), back to CSR, and the SpMV with one thread per
 * output row (paper sec. 3.3). Layout and rules: gs_cds.h.
 *
 * Conversion: with known offsets (a hint that fits, gs_cds.h) one fill kernel (a thread per
 * row, or for long rows a warp per 32 rows: FILL_WINDOW_MEAN), which also writes the offsets to
 * the device (they come in as its parameter) and checks them, its last block writing the check
 * into host memory (one launch, one wait);
 * without, the entries' rows (CUB max-scan), the offsets marked per candidate b, their counts
 * to the host (choice or refusal), the chosen offsets collected to the host, then the same
 * fill. A hint the fill finds wrong leads to the detection.
 *
 * SpMV bandwidth: each thread streams its K*b values from K*b arrays at the same index i, so a
 * warp reads 256 contiguous bytes per array (full sectors, no index arrays); the values are
 * read once, with the streaming hint (__ldcs) so they do not push x out of L2. x is read through
 * the read-only path: for b = 1 the warp reads 32 consecutive x per diagonal, for b > 1 the b
 * threads of a block row read the same b values (broadcast) and a warp reads 32/b * b
 * consecutive ones per block column. Neighbouring diagonals (o and o +- 1) and neighbouring
 * warps reuse x in L1, and the far diagonals (+- n, +- n^2 grid lines away) find it in L2 as
 * long as 2 n^2 b doubles fit (e.g. 160^3: 400 KB), so DRAM traffic is close to the byte model
 * 8 K b rows + 8 rows + 8 cols and the kernel should run near the copy bandwidth. Diagonals
 * are taken four at a time so each thread has 8 loads in flight.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cds.h"
#include "gs_cuda_impl.h"
#include "gs_cuda_scan.cuh"

/* the block sizes tried by the detection kernel */
typedef struct cds_cands {
    int n;
    int b[GS_CDS_DETECT_MAX];
    int32_t shift[GS_CDS_DETECT_MAX]; /* nbr - 1: offset o has bit o + shift in its region */
    int64_t base[GS_CDS_DETECT_MAX];  /* first bit of candidate q's region (a multiple of 32) */
} cds_cands;

struct max_op { /* CUB scan operator: running maximum */
    __device__ int32_t operator()(int32_t a, int32_t b) const { return a > b ? a : b; }
};

/* rowind[rowptr[i]] = i for each non-empty row i; a max-scan then gives each entry its row */
static __global__ void row_starts_kernel(int32_t rows, const int32_t *__restrict__ rowptr,
                                         int32_t *rowind)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int32_t s = rowptr[i];
        if (s < rowptr[i + 1]) rowind[s] = (int32_t)i;
    }
}

/* bit (o + shift) of each candidate's region set for every entry's block offset
 * o = j/b - i/b, and count[q] += 1 the first time a bit is set. A bit already set is seen by
 * an L2 read (__ldcg: atomics live in L2), and lanes of a warp that still need the same bit
 * elect one leader (__match_any_sync), so atomics stay few even though every entry of a
 * stencil hits the same handful of bits: after the first wave of warps, none at all. */
static __global__ void mark_offsets_kernel(int32_t nnz, const int32_t *__restrict__ rowind,
                                           const int32_t *__restrict__ colind, cds_cands cand,
                                           uint32_t *flags, unsigned int *count)
{
    const int lane = threadIdx.x & 31;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    /* the loop bound is the warp's first entry, so all 32 lanes run the same iterations */
    for (int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x - lane; w < nnz; w += stride) {
        const int64_t k = w + lane;
        const bool ok = k < nnz;
        const int32_t i = ok ? rowind[k] : 0, j = ok ? colind[k] : 0;
#pragma unroll
        for (int q = 0; q < GS_CDS_DETECT_MAX; q++) {
            if (q < cand.n) { /* uniform */
                const int bq = cand.b[q];
                long long bit = -1;
                bool need = false;
                if (ok) {
                    bit = cand.base[q] +
                          ((int32_t)gs_div_small((uint32_t)j, bq) -
                           (int32_t)gs_div_small((uint32_t)i, bq)) +
                          cand.shift[q];
                    need = !((__ldcg(flags + (bit >> 5)) >> (bit & 31)) & 1u);
                }
                if (__any_sync(0xffffffffu, need)) {
                    const unsigned peers = __match_any_sync(0xffffffffu, need ? bit : -1LL);
                    if (need && lane == __ffs(peers) - 1) {
                        const uint32_t m = 1u << (bit & 31);
                        if (!(atomicOr(flags + (bit >> 5), m) & m)) atomicAdd(count + q, 1u);
                    }
                }
            }
        }
    }
}

/* list[atomicAdd(n)] = t - shift for every set bit t of a region of nbits bits (at most cap
 * are written; the host sorts them) */
static __global__ void collect_offsets_kernel(int64_t nbits, const uint32_t *__restrict__ flags,
                                              int32_t shift, int cap, int32_t *n, int32_t *list)
{
    const int64_t words = (nbits + 31) / 32;
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < words;
         t += (int64_t)gridDim.x * blockDim.x) {
        uint32_t f = flags[t];
        while (f) {
            const int bit = __ffs(f) - 1;
            f &= f - 1;
            const int pos = atomicAdd(n, 1);
            if (pos < cap) list[pos] = (int32_t)(t * 32 + bit - shift);
        }
    }
}

/* the K ascending block offsets, passed by value to the fill kernel (no upload of their own) */
typedef struct cds_offsets {
    int32_t o[GS_CDS_MAX_DIAGS];
} cds_offsets;

/* the K ascending offsets of a block into shared memory (every thread reaches the barrier) */
static __device__ __forceinline__ void load_offsets(int32_t *s_off, const int32_t *off, int K)
{
    for (int t = threadIdx.x; t < K; t += blockDim.x) s_off[t] = off[t];
    __syncthreads();
}

/* what both fill kernels take besides the offsets (fill) */
typedef struct fill_args {
    int32_t rows;
    int b, K;
    int64_t ld;
    const int32_t *rowptr, *colind;
    const double *a_val;
    double *val;       /* K*b value arrays of ld */
    uint32_t *present; /* K*b bit arrays of ld */
    int32_t *d_off;    /* the offsets on the device (block 0 writes them) */
    int *chk;          /* the check (FILL_CHK_*), zero at rest */
    int *hout;         /* host memory: bad, used, placed (two ints) */
    uint32_t *spec;    /* a speculative fill: its diagonals' count and keys (FILL_SPEC_AT) */
} fill_args;
/* the check's ints in the selection scratch, each group on its own 128-byte line (an atomic from
 * every block on words of one line queues at one L2 slice: 1.5 us at the end of a 1000-block
 * kernel on the H200) */
enum {
    FILL_CHK_BAD = 0,     /* 1: an entry found no slot */
    FILL_CHK_DONE = 32,   /* blocks finished (the last one reports) */
    FILL_CHK_PLACED = 64, /* present bits set, 64-bit (ints 64 and 65) */
    FILL_CHK_USED = 96,   /* the block diagonals with an entry, 128 bits (ints 96 .. 99) */
    FILL_CHK_N = 100
};
static_assert(GS_CDS_MAX_DIAGS <= 128, "the fill's check holds 128 diagonal bits");
/* A speculative fill's diagonals (gs_cds_spec): from the selection scratch's int FILL_SPEC_AT on,
 * their count n (0: no fill), a spare word, then n keys d + rows in any order; the feature
 * kernel's last block writes them, the fill's last block clears them (zero at rest). Its check
 * goes to host memory at byte FILL_SPEC_HOUT of the pinned buffer, apart from the feature
 * pass's results, which the same wait brings. */
#define FILL_SPEC_AT 128
#define FILL_SPEC_HOUT GS_CUDA_PINNED_SPEC

/* a fill's shared state: the offsets, the diagonals that got an entry, the bits placed */
typedef struct fill_shared {
    int32_t off[GS_CDS_MAX_DIAGS];
    int used[GS_CDS_MAX_DIAGS];
    unsigned long long placed;
    int last;
} fill_shared;

/* The fill's start: the offsets into shared memory (block 0 also stores them, from the
 * parameter, as d_off), no diagonal used and no bit placed yet. */
static __device__ __forceinline__ void fill_start(const cds_offsets &off, const fill_args &a,
                                                  fill_shared &sh)
{
    for (int t = threadIdx.x; t < a.K; t += blockDim.x) {
        sh.off[t] = off.o[t], sh.used[t] = 0;
        if (blockIdx.x == 0) a.d_off[t] = off.o[t];
    }
    if (threadIdx.x == 0) sh.placed = 0;
    __syncthreads();
}

/* The speculative fill's start: its K keys from the scratch, ranked into ascending offsets
 * d = key - rows in shared memory (block 0 also stores them as d_off), no diagonal used and no
 * bit placed yet. */
static __device__ __forceinline__ void fill_start_spec(const fill_args &a, int K, fill_shared &sh)
{
    __shared__ uint32_t s_key[GS_CDS_MAX_DIAGS];
    for (int t = threadIdx.x; t < K; t += blockDim.x) s_key[t] = a.spec[2 + t], sh.used[t] = 0;
    if (threadIdx.x == 0) sh.placed = 0;
    __syncthreads();
    for (int t = threadIdx.x; t < K; t += blockDim.x) { /* the keys are distinct */
        int r = 0;
        for (int u = 0; u < K; u++) r += s_key[u] < s_key[t];
        const int32_t o = (int32_t)(s_key[t] - (uint32_t)a.rows);
        sh.off[r] = o;
        if (blockIdx.x == 0) a.d_off[r] = o;
    }
    __syncthreads();
}

/* one warp's word of present bits of slot array `at` (its first row), on block diagonal d */
static __device__ __forceinline__ void fill_word(uint32_t *present, int64_t at, uint32_t word,
                                                 int d, fill_shared &sh)
{
    present[at >> 5] = word;
    if (!word) return;
    atomicAdd(&sh.placed, (unsigned long long)__popc(word));
    if (!((volatile int *)sh.used)[d]) atomicOr(sh.used + d, 1);
}

/* The block's bits placed added to the check, and its diagonals with an entry OR-ed into the
 * check's 128-bit mask (one word per warp of the first four, and only the bits it lacks: after
 * the first blocks a stencil's mask is complete). The last block to finish (FILL_CHK_DONE counts
 * them) writes the check into host memory (hout: bad, used, placed as two ints) and clears it:
 * it is zero at rest (the backend's selection scratch), so a fill is one launch and one wait. */
static __device__ __forceinline__ void fill_finish(const fill_args &a, int K, fill_shared &sh)
{
    /* (both fill kernels run at least four warps a block: static_asserts at their sizes) */
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    unsigned *used = (unsigned *)a.chk + FILL_CHK_USED;
    unsigned long long *placed = (unsigned long long *)(a.chk + FILL_CHK_PLACED);
    bool wrote = false;
    __syncthreads();
    if (w < 4) { /* the four words of used diagonals, one ballot each */
        const int d = 32 * w + lane;
        const uint32_t word = __ballot_sync(0xffffffffu, d < K && sh.used[d]);
        if (lane == 0 && word && (__ldcg(used + w) & word) != word) {
            atomicOr(used + w, word);
            wrote = true;
        }
    }
    if (threadIdx.x == 0 && sh.placed) {
        atomicAdd(placed, sh.placed);
        wrote = true;
    }
    if (wrote) __threadfence(); /* the updates are seen before the block counts itself done */
    __syncthreads();
    if (threadIdx.x == 0)
        sh.last = atomicAdd((unsigned *)(a.chk + FILL_CHK_DONE), 1u) == gridDim.x - 1;
    __syncthreads();
    if (!sh.last) return;
    if (threadIdx.x == 0) {
        __threadfence();
        const unsigned long long p = __ldcg(placed);
        a.hout[0] = __ldcg(a.chk + FILL_CHK_BAD);
        a.hout[1] = __popc(__ldcg(used)) + __popc(__ldcg(used + 1)) + __popc(__ldcg(used + 2)) +
                    __popc(__ldcg(used + 3));
        memcpy(a.hout + 2, &p, sizeof p);
        if (a.spec) { /* a speculative fill's end on the GPU clock */
            const unsigned long long t = gs_gpu_clock_ns();
            memcpy(a.hout + 4, &t, sizeof t);
        }
    }
    __syncthreads();
    if (a.spec) /* a speculative fill's diagonals, read by every block at its start */
        for (int t = threadIdx.x; t < 2 + K; t += blockDim.x) a.spec[t] = 0;
    if (threadIdx.x < 8) /* the ints used: 0, 32, 64, 65, 96 .. 99 */
        a.chk[threadIdx.x < 3 ? 32 * threadIdx.x : threadIdx.x == 3 ? 65 : 92 + threadIdx.x] = 0;
}

/* The padded arrays from the CSR, one thread per row i < ld (whole warps, as ld is a multiple of
 * 32): row i walks
 * its sorted entries against its K*b slots in column order (offsets ascending, then c), writing
 * every slot (0.0 where no entry, also for the rows past the end), coalesced; the warp's 32
 * present bits of one value array are one ballot, one plain store. The check: chk[0] = 1 when a
 * row's entries do not all find their slot (an offset missing, or columns not sorted or
 * repeated); the block diagonals that got an entry and the present bits (nnz when every entry
 * has its slot) as fill_finish gathers them. */
template <bool SPEC>
static __global__ void __launch_bounds__(GS_CUDA_THREADS, 8)
    fill_rows_kernel(fill_args a, cds_offsets off)
{
    __shared__ fill_shared sh;
    /* a speculative fill takes its offsets from the feature pass (at most a.K, what its
     * arrays hold), and does nothing without; a count past a.K (the scratch not at rest)
     * fills nothing either, and block 0 clears it */
    const uint32_t listed = SPEC ? a.spec[0] : 0u;
    const int K = SPEC ? (listed <= (uint32_t)a.K ? (int)listed : 0) : a.K;
    if (SPEC && K == 0) {
        if (listed && blockIdx.x == 0)
            for (int t = threadIdx.x; t < 2 + GS_CDS_MAX_DIAGS; t += blockDim.x) a.spec[t] = 0;
        return;
    }
    if (SPEC)
        fill_start_spec(a, K, sh);
    else
        fill_start(off, a, sh);
    const int b = a.b;
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    bool bad = false;
    if (i < a.ld) { /* whole warps */
        int32_t p = 0, end = 0;
        if (i < a.rows) p = a.rowptr[i], end = a.rowptr[i + 1];
        const int64_t I = gs_div_small((uint32_t)i, b); /* ld < 2^31 */
        double *v = a.val + i;
        int64_t at = i;
        for (int d = 0; d < K; d++)
            for (int c = 0; c < b; c++, v += a.ld, at += a.ld) {
                const int64_t j = (I + sh.off[d]) * b + c;
                const bool has = p < end && a.colind[p] == j;
                *v = has ? a.a_val[p] : 0.0;
                const unsigned word = __ballot_sync(0xffffffffu, has);
                if ((threadIdx.x & 31) == 0) fill_word(a.present, at, word, d, sh);
                p += has;
            }
        bad |= p != end;
    }
    if (bad) atomicOr(a.chk + FILL_CHK_BAD, 1);
    fill_finish(a, K, sh);
}

/* The same, one warp per window of 32 rows (ld is a multiple of 32, so the windows tile the
 * rows and the padding rows past the end): the
 * warp walks the window's entries
 * with coalesced loads, 32 consecutive ones per step (the row of each from gs_window_row), and
 * drops each value into a shared-memory tile at its slot (block diagonal found by a binary search
 * of the offsets, then the component c = j mod b) and its row, with a flag byte beside it (plain
 * stores: a 7-point step puts 5 rows' entries on each slot, and atomics on one present word per
 * slot serialized them); then it writes the tile out slot by slot, 32 consecutive values (0.0
 * where no entry) and one word of present bits (a ballot of the flags) each, also coalesced.
 * Slots go FILL_SLOTS at a time, the entries walked again for each group. Walking each row on
 * its own thread instead, the rows of a multiprocessor each kept their own stretch of
 * colind and values in use, more than L1 holds at 20+ entries per row, so lines were fetched
 * again and again (fill_rows_kernel on 27-point 100^3 moved twice the bytes it needs and took
 * 600 us on an H100, this one 287 us; on 7-point rows it is the slower, FILL_WINDOW_MEAN).
 * The check as fill_rows_kernel's, but chk[0] = 1 only for an entry on no listed offset: two
 * entries of a row on one slot (a repeated column) leave the present bits short of nnz. */
#define FILL_WARPS 4 /* windows of a block */
static_assert(FILL_WARPS >= 4 && GS_CUDA_THREADS >= 128,
              "fill_finish takes one word of used diagonals from each of four warps");
/* slots a window fills per walk (one present word each; 16, for more windows per
 * multiprocessor, measured slower: 27-point 100^3 343 -> 382 us, 7-point 64^3 dof 4 372 -> 404
 * us, ncu on the H200, 2026-11-24) */
#define FILL_SLOTS 32
#define FILL_PITCH 33 /* tile doubles per slot: one row's lanes of different slots miss banks */
#define FILL_UNROLL 4 /* steps of 32 entries whose loads are issued together */
/* mean entries per row from which the windows kernel fills (ncu, 2026-11-23/24: 27-point 100^3
 * rows 600 us, windows 287 us on an H100, rows 366 us, windows 318-336 us on an H200; 7-point
 * 128^3 rows 99-113 us, windows 160-184 us on both) */
#define FILL_WINDOW_MEAN GS_CDS_FILL_WINDOW_MEAN
static __global__ void fill_windows_kernel(fill_args a, cds_offsets off)
{
    __shared__ fill_shared sh;
    __shared__ double s_tile[FILL_WARPS][FILL_SLOTS * FILL_PITCH];
    __shared__ uint4 s_flag[FILL_WARPS][FILL_SLOTS * 32 / 16]; /* a byte per slot and row */
    fill_start(off, a, sh);
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, b = a.b, K = a.K;
    double *tile = s_tile[w];
    uint4 *flag4 = s_flag[w];
    unsigned char *flag = (unsigned char *)flag4;
    int top = 1; /* the largest power of two below K: the binary search's first step */
    while (2 * top < K) top *= 2;
    bool bad = false;
    const int64_t r0 = ((int64_t)blockIdx.x * FILL_WARPS + w) * 32;
    if (r0 < a.ld) { /* warp-uniform */
        const int64_t rl = r0 + 1 + lane;
        const int32_t rp = __ldg(a.rowptr + (rl < a.rows ? rl : a.rows)); /* end of its row */
        const int32_t p0 = __ldg(a.rowptr + (r0 < a.rows ? r0 : a.rows));
        const int32_t p1 = __shfl_sync(0xffffffffu, rp, 31);
        const int KB = K * b;
        for (int s0 = 0; s0 < KB; s0 += FILL_SLOTS) {
            for (int f = lane; f < FILL_SLOTS * 2; f += 32) flag4[f] = make_uint4(0, 0, 0, 0);
            __syncwarp();
            for (uint32_t base = (uint32_t)p0; base < (uint32_t)p1; base += 32 * FILL_UNROLL) {
                int32_t jv[FILL_UNROLL], cv[FILL_UNROLL];
                double vv[FILL_UNROLL];
#pragma unroll
                for (int u = 0; u < FILL_UNROLL; u++) {
                    const uint32_t k = base + 32 * u + lane;
                    cv[u] = gs_window_row(rp, k);
                    jv[u] = k < (uint32_t)p1 ? __ldg(a.colind + k) : -1;
                    vv[u] = k < (uint32_t)p1 ? __ldg(a.a_val + k) : 0.0;
                }
#pragma unroll
                for (int u = 0; u < FILL_UNROLL; u++) {
                    if (jv[u] < 0) continue;
                    const int32_t J = (int32_t)gs_div_small((uint32_t)jv[u], b);
                    const int32_t o = J - (int32_t)gs_div_small((uint32_t)(r0 + cv[u]), b);
                    int d = 0; /* the last offset <= o (offsets ascending) */
                    for (int step = top; step >= 1; step >>= 1)
                        if (d + step < K && sh.off[d + step] <= o) d += step;
                    if (sh.off[d] != o) {
                        bad = true; /* on no block diagonal of the list */
                        continue;
                    }
                    const int s = d * b + (jv[u] - J * b) - s0;
                    if (s < 0 || s >= FILL_SLOTS) continue; /* another walk's slot */
                    tile[s * FILL_PITCH + cv[u]] = vv[u];
                    flag[s * 32 + cv[u]] = 1;
                }
            }
            __syncwarp();
            const int ns = KB - s0 < FILL_SLOTS ? KB - s0 : FILL_SLOTS;
            for (int t = 0; t < ns; t++) {
                const bool has = flag[t * 32 + lane] != 0;
                const uint32_t word = __ballot_sync(0xffffffffu, has);
                const int64_t at = (int64_t)(s0 + t) * a.ld + r0;
                a.val[at + lane] = has ? tile[t * FILL_PITCH + lane] : 0.0;
                if (lane == 0) fill_word(a.present, at, word, (s0 + t) / b, sh);
            }
            __syncwarp();
        }
    }
    if (__any_sync(0xffffffffu, bad) && lane == 0) atomicOr(a.chk + FILL_CHK_BAD, 1);
    fill_finish(a, K, sh);
}

/* sum += the b products of block diagonal o in row i (block row I), values at v[c*ld]; a block
 * column outside the matrix (its values are padding zeros) reads x[0..b) and multiplies by 0 */
template <int B>
static __device__ __forceinline__ double
cds_diag(double sum, int32_t I, int32_t o, int bb, int32_t nbc, int64_t ld,
         const double *__restrict__ v, const double *__restrict__ x)
{
    const int b = B > 0 ? B : bb;
    const int32_t J = I + o;
    const bool in = (uint32_t)J < (uint32_t)nbc;
    const double *xp = x + (int64_t)(in ? J : 0) * b;
#pragma unroll
    for (int c = 0; c < (B > 0 ? B : bb); c++) {
        const double xv = __ldg(xp + c);
        sum = fma(__ldcs(v + c * ld), in ? xv : 0.0, sum);
    }
    return sum;
}

/* y = A*x, one thread per row i (block row I = i/b), block diagonals four at a time; B = b
 * for b <= 8, B = 0 for any b (runtime loop) */
template <int B>
static __global__ void cds_spmv_kernel(int32_t rows, int32_t nbc, int K, int bb, int64_t ld,
                                       const int32_t *__restrict__ off,
                                       const double *__restrict__ val, const double *__restrict__ x,
                                       double *__restrict__ y)
{
    __shared__ int32_t s_off[GS_CDS_MAX_DIAGS];
    load_offsets(s_off, off, K);
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= rows) return;
    const int b = B > 0 ? B : bb;
    const int32_t I = (int32_t)i / b;
    const int64_t step = (int64_t)b * ld; /* from one block diagonal's arrays to the next */
    const double *v = val + i;
    double sum = 0.0;
    int d = 0;
    for (; d + 4 <= K; d += 4, v += 4 * step) {
        sum = cds_diag<B>(sum, I, s_off[d], bb, nbc, ld, v, x);
        sum = cds_diag<B>(sum, I, s_off[d + 1], bb, nbc, ld, v + step, x);
        sum = cds_diag<B>(sum, I, s_off[d + 2], bb, nbc, ld, v + 2 * step, x);
        sum = cds_diag<B>(sum, I, s_off[d + 3], bb, nbc, ld, v + 3 * step, x);
    }
    if (d + 2 <= K) {
        sum = cds_diag<B>(sum, I, s_off[d], bb, nbc, ld, v, x);
        sum = cds_diag<B>(sum, I, s_off[d + 1], bb, nbc, ld, v + step, x);
        d += 2, v += 2 * step;
    }
    if (d < K) sum = cds_diag<B>(sum, I, s_off[d], bb, nbc, ld, v, x);
    y[i] = sum;
}

/* cnt[i] = the present slots of row i */
static __global__ void row_count_kernel(int32_t rows, int64_t cols_total, int64_t ld,
                                        const uint32_t *__restrict__ present, int32_t *cnt)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x) {
        int32_t n = 0;
        for (int64_t col = 0; col < cols_total; col++) {
            const int64_t s = col * ld + i;
            n += (int32_t)((__ldg(present + (s >> 5)) >> (s & 31)) & 1u);
        }
        cnt[i] = n;
    }
}

/* row i of the CSR: its present slots in ascending column order (offsets ascending, then c) */
static __global__ void
to_csr_kernel(int32_t rows, int b, int K, int64_t ld, const int32_t *__restrict__ off,
              const uint32_t *__restrict__ present, const double *__restrict__ val,
              const int32_t *__restrict__ rowptr, int32_t *colind, double *out_val)
{
    __shared__ int32_t s_off[GS_CDS_MAX_DIAGS];
    load_offsets(s_off, off, K);
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x) {
        int32_t pos = rowptr[i];
        const int64_t I = i / b;
        for (int d = 0; d < K; d++)
            for (int c = 0; c < b; c++) {
                const int64_t s = ((int64_t)d * b + c) * ld + i;
                if (!((__ldg(present + (s >> 5)) >> (s & 31)) & 1u)) continue;
                colind[pos] = (int32_t)((I + s_off[d]) * b + c);
                out_val[pos++] = val[s];
            }
    }
}

/* rowind[k] = the row of entry k of device CSR A (scatter of row starts, CUB max-scan) */
static gs_status entry_rows(const gs_csr *A, int32_t **rowind)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    void *tmp = NULL;
    size_t tmp_bytes = 0;
    int32_t *r = NULL;
    *rowind = NULL;
    GS_CHECK(gs_cuda_alloc((size_t)A->nnz * sizeof *r, "CDS entry rows", (void **)&r));
    GS_CUDA_CALL(cudaMemsetAsync(r, 0, (size_t)A->nnz * sizeof *r, s));
    row_starts_kernel<<<gs_cuda_grid(A->rows), GS_CUDA_THREADS, 0, s>>>(A->rows, A->rowptr, r);
    GS_CUDA_LAUNCHED("cds row_starts");
    GS_CUDA_CALL(cub::DeviceScan::InclusiveScan(NULL, tmp_bytes, r, r, max_op(), A->nnz, s));
    GS_CHECK(gs_cuda_alloc(tmp_bytes, "CDS scan scratch", &tmp));
    GS_CUDA_CALL(cub::DeviceScan::InclusiveScan(tmp, tmp_bytes, r, r, max_op(), A->nnz, s));
    *rowind = r;
    r = NULL;
done:
    gs_cuda_free(tmp);
    gs_cuda_free(r);
    return st;
}

/* the block diagonals of the candidates: marked in flags (zeroed here), counts downloaded */
static gs_status detect(const gs_csr *A, const int32_t *rowind, cds_cands *cand, int64_t *k,
                        uint32_t **flags_out)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    uint32_t *flags = NULL;
    unsigned int *d_cnt = NULL, h_cnt[GS_CDS_DETECT_MAX];
    int64_t bits = 0;
    *flags_out = NULL;
    for (int q = 0; q < cand->n; q++) {
        const int64_t nbr = A->rows / cand->b[q], nbc = A->cols / cand->b[q];
        cand->base[q] = bits;
        cand->shift[q] = (int32_t)(nbr - 1);
        bits += (nbr + nbc - 1 + 31) / 32 * 32;
    }
    GS_CHECK(
        gs_cuda_alloc((size_t)(bits / 32) * sizeof *flags, "CDS offset flags", (void **)&flags));
    GS_CHECK(gs_cuda_alloc(sizeof h_cnt, "CDS diagonal counts", (void **)&d_cnt));
    GS_CUDA_CALL(cudaMemsetAsync(flags, 0, (size_t)(bits / 32) * sizeof *flags, s));
    GS_CUDA_CALL(cudaMemsetAsync(d_cnt, 0, sizeof h_cnt, s));
    mark_offsets_kernel<<<gs_cuda_grid(A->nnz), GS_CUDA_THREADS, 0, s>>>(A->nnz, rowind, A->colind,
                                                                         *cand, flags, d_cnt);
    GS_CUDA_LAUNCHED("cds mark_offsets");
    GS_CHECK(gs_cuda_d2h(h_cnt, d_cnt, sizeof h_cnt));
    for (int q = 0; q < cand->n; q++) k[q] = h_cnt[q];
    *flags_out = flags;
    flags = NULL;
done:
    gs_cuda_free(flags);
    gs_cuda_free(d_cnt);
    return st;
}

/* C->off (host, ascending) from candidate q's region of flags */
static gs_status offsets(gs_cds *C, const uint32_t *flags, const cds_cands *cand, int q)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    int32_t *d_buf = NULL, h_buf[1 + GS_CDS_MAX_DIAGS];
    const int64_t nbits = (int64_t)C->nbr + C->nbc - 1;
    GS_CHECK(gs_cuda_alloc(sizeof h_buf, "CDS offset list", (void **)&d_buf));
    /* all of it: the whole list comes back, also the slots past the count */
    GS_CUDA_CALL(cudaMemsetAsync(d_buf, 0, sizeof h_buf, s));
    collect_offsets_kernel<<<gs_cuda_grid((nbits + 31) / 32), GS_CUDA_THREADS, 0, s>>>(
        nbits, flags + cand->base[q] / 32, cand->shift[q], GS_CDS_MAX_DIAGS, d_buf, d_buf + 1);
    GS_CUDA_LAUNCHED("cds collect_offsets");
    GS_CHECK(gs_cuda_d2h(h_buf, d_buf, sizeof h_buf));
    if (h_buf[0] != C->ndiag)
        GS_FAIL(GS_ERR_INTERNAL, "cds: %d block offsets collected, %d counted", h_buf[0], C->ndiag);
    qsort(h_buf + 1, (size_t)C->ndiag, sizeof(int32_t), gs_cmp_i32);
    memcpy(C->off, h_buf + 1, (size_t)C->ndiag * sizeof(int32_t));
done:
    gs_cuda_free(d_buf);
    return st;
}

/* detection on the device: entry rows, block-offset flags and counts per candidate b (the
 * counts go to the host, which picks b or refuses), then the shell with the chosen offsets */
static gs_status detect_device(const gs_csr *A, const gs_format_params *p, gs_cds **out)
{
    gs_status st = GS_OK;
    int32_t *rowind = NULL;
    uint32_t *flags = NULL;
    cds_cands cand;
    int64_t k[GS_CDS_DETECT_MAX];
    int pick = 0;
    *out = NULL;
    memset(&cand, 0, sizeof cand);
    GS_CHECK(gs_cds_candidates(A, p, cand.b, &cand.n));
    GS_CHECK(entry_rows(A, &rowind));
    GS_CHECK(detect(A, rowind, &cand, k, &flags));
    GS_CHECK(gs_cds_choose(A, p, cand.n, cand.b, k, 1, &pick));
    GS_CHECK(gs_cds_shell(A, cand.b[pick], (int)k[pick], GS_LOC_DEVICE, out));
    GS_CHECK(offsets(*out, flags, &cand, pick));
done:
    gs_cuda_free(rowind);
    gs_cuda_free(flags);
    if (st != GS_OK) gs_cds_free_shell(*out), *out = NULL;
    return st;
}

/* C's device arrays (d_off, val, present) filled from A with C->off, one wait: *bad = 1 when an
 * entry found no slot or shared one with another, *used = the diagonals that got an entry */
static gs_status fill(const gs_csr *A, gs_cds *C, int *bad, int *used)
{
    gs_status st = GS_OK;
    gs_cuda_ctx *g = &gs_cuda_g;
    const size_t slots = (size_t)C->ndiag * (size_t)C->b * (size_t)C->ld;
    const bool windows = A->nnz >= FILL_WINDOW_MEAN * (int64_t)A->rows;
    const int threads = windows ? 32 * FILL_WARPS : GS_CUDA_THREADS;
    /* a thread (or a warp) for every row (window): walking more rows each with fewer blocks
     * took 1576 us instead of 815 us on 7-point 256^3 (ncu, H200) */
    const unsigned blocks = (unsigned)((C->ld + threads - 1) / threads);
    /* the check (FILL_CHK_*) is zero at rest; the last block writes it into host memory (hout,
     * read here as h) */
    int *h = (int *)g->h_red;
    unsigned long long placed = 0;
    fill_args a;
    static_assert(FILL_CHK_N * sizeof(int) <= GS_CUDA_SEL_SURAA - GS_CUDA_SEL_CDS,
                  "the fill's check must fit its part of the selection scratch");
    cds_offsets off;
    memset(&off, 0, sizeof off);
    memcpy(off.o, C->off, (size_t)C->ndiag * sizeof(int32_t));
    gs_cuda_select_trace("cds fill begin");
    GS_CHECK(gs_cuda_alloc((size_t)C->ndiag * sizeof(int32_t), "CDS offsets", (void **)&C->d_off));
    GS_CHECK(gs_cuda_alloc(slots * sizeof(double), "CDS values", (void **)&C->val));
    GS_CHECK(
        gs_cuda_alloc(slots / 32 * sizeof(uint32_t), "CDS present bits", (void **)&C->present));
    gs_cuda_select_trace("cds fill allocated");
    a.rows = A->rows, a.b = C->b, a.K = C->ndiag, a.ld = C->ld;
    a.rowptr = A->rowptr, a.colind = A->colind, a.a_val = A->val;
    a.val = C->val, a.present = C->present, a.d_off = C->d_off;
    a.chk = (int *)((char *)g->d_sel + GS_CUDA_SEL_CDS);
    a.hout = (int *)g->h_red_dev;
    a.spec = NULL;
    if (windows)
        fill_windows_kernel<<<blocks, threads, 0, g->stream>>>(a, off);
    else
        fill_rows_kernel<false><<<blocks, threads, 0, g->stream>>>(a, off);
    GS_CUDA_LAUNCHED("cds fill");
    gs_cuda_select_trace("cds fill enqueued");
    GS_CUDA_CALL(cudaStreamSynchronize(g->stream)); /* waits for the fill */
    gs_cuda_select_trace("cds fill waited");
    memcpy(&placed, h + 2, sizeof placed);
    *bad = h[0] || placed != (unsigned long long)A->nnz, *used = h[1];
done:
    return st;
}

/* ---- the speculative fill beside the feature pass (gs_cds.h) ---- */

struct gs_cds_spec {
    int32_t rows, nnz;
    int64_t ld;
    int kmax;          /* diagonals the arrays hold */
    double *val;       /* kmax * ld values, NULL once adopted */
    uint32_t *present; /* kmax * ld / 32 words */
    int32_t *d_off;    /* kmax offsets */
    int ran;           /* the fill ran: the pass found 1..kmax diagonals */
    int n;             /* how many, their ascending offsets: */
    int32_t off[GS_CDS_MAX_DIAGS];
    int bad, used; /* its check (as fill's) */
    double fill_s; /* its time on the GPU (from the feature pass's end to its own) */
    int adopted;   /* a conversion took the arrays */
};

static long g_spec_adoptions;

extern "C" long gs_cds_spec_adoptions(void)
{
    return g_spec_adoptions;
}

extern "C" long gs_cds_spec_scratch_count(void)
{
    uint32_t n = 0;
    if (cudaMemcpy(&n, gs_cds_spec_keys(), sizeof n, cudaMemcpyDeviceToHost) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return (long)n;
}

extern "C" uint32_t *gs_cds_spec_keys(void)
{
    return (uint32_t *)((int *)((char *)gs_cuda_g.d_sel + GS_CUDA_SEL_CDS) + FILL_SPEC_AT);
}

extern "C" void gs_cds_spec_destroy(gs_cds_spec **s)
{
    if (!s || !*s) return;
    gs_cuda_free((*s)->val);
    gs_cuda_free((*s)->present);
    gs_cuda_free((*s)->d_off);
    gs_free(*s);
    *s = NULL;
}

extern "C" gs_status gs_cds_spec_create(const gs_csr *A, gs_cds_spec **out)
{
    gs_status st = GS_OK;
    gs_cds_spec *s = NULL;
    static_assert((FILL_SPEC_AT + 2 + GS_CDS_MAX_DIAGS) * sizeof(int) <=
                      GS_CUDA_SEL_SURAA - GS_CUDA_SEL_CDS,
                  "the speculative fill's diagonals must fit the fill's part of the scratch");
    *out = NULL;
    if (A->loc != GS_LOC_DEVICE || gs_cds_spec_kmax_for(A) == 0) return GS_OK;
    GS_CHECK(gs_alloc_array(1, sizeof *s, "speculative CDS fill", (void **)&s));
    memset(s, 0, sizeof *s);
    s->rows = A->rows, s->nnz = A->nnz;
    s->ld = gs_cds_ld(A->rows); /* as the shell's (gs_cds_shell), which adopt compares */
    s->kmax = gs_cds_spec_kmax_for(A);
    {
        const size_t slots = (size_t)s->kmax * (size_t)s->ld;
        GS_CHECK(gs_cuda_alloc(slots * sizeof(double), "CDS values", (void **)&s->val));
        GS_CHECK(
            gs_cuda_alloc(slots / 32 * sizeof(uint32_t), "CDS present bits", (void **)&s->present));
        GS_CHECK(
            gs_cuda_alloc((size_t)s->kmax * sizeof(int32_t), "CDS offsets", (void **)&s->d_off));
    }
    *out = s;
    s = NULL;
done:
    gs_cds_spec_destroy(&s);
    return st;
}

extern "C" gs_status gs_cds_spec_launch(const gs_csr *A, gs_cds_spec *s)
{
    gs_status st = GS_OK;
    gs_cuda_ctx *g = &gs_cuda_g;
    fill_args a;
    cds_offsets off; /* unused: the offsets come from the feature pass */
    memset(&off, 0, sizeof off);
    a.rows = A->rows, a.b = 1, a.K = s->kmax, a.ld = s->ld; /* K: the most it may fill */
    a.rowptr = A->rowptr, a.colind = A->colind, a.a_val = A->val;
    a.val = s->val, a.present = s->present, a.d_off = s->d_off;
    a.chk = (int *)((char *)g->d_sel + GS_CUDA_SEL_CDS);
    a.hout = (int *)((char *)g->h_red_dev + FILL_SPEC_HOUT);
    a.spec = gs_cds_spec_keys();
    fill_rows_kernel<true><<<(unsigned)((s->ld + GS_CUDA_THREADS - 1) / GS_CUDA_THREADS),
                             GS_CUDA_THREADS, 0, g->stream>>>(a, off);
    GS_CUDA_LAUNCHED("speculative cds fill");
done:
    return st;
}

extern "C" void gs_cds_spec_done(gs_cds_spec *s, const gs_csr *A, int n, const uint32_t *key,
                                 unsigned long long pass_end_ns)
{
    const int *h = (const int *)((const char *)gs_cuda_g.h_red + FILL_SPEC_HOUT);
    unsigned long long placed = 0, end = 0;
    s->ran = n >= 1 && n <= s->kmax;
    if (!s->ran) return;
    memcpy(&end, h + 4, sizeof end);
    s->fill_s = end > pass_end_ns ? 1e-9 * (double)(end - pass_end_ns) : 0.0;
    s->n = n;
    for (int t = 0; t < n; t++) s->off[t] = (int32_t)(key[t] - (uint32_t)A->rows);
    qsort(s->off, (size_t)n, sizeof *s->off, gs_cmp_i32);
    memcpy(&placed, h + 2, sizeof placed);
    s->bad = h[0] || placed != (unsigned long long)A->nnz, s->used = h[1];
}

extern "C" double gs_cds_spec_adopted_seconds(const gs_cds_spec *s)
{
    return s && s->adopted ? s->fill_s : 0.0;
}

/* C (a shell with the hint's offsets) takes p's speculative fill when it was made for A at
 * block size 1 with exactly C's offsets: 1, with the fill's check in *bad and *used */
static int adopt(const gs_csr *A, const gs_format_params *p, gs_cds *C, int *bad, int *used)
{
    gs_cds_spec *s = p ? (gs_cds_spec *)p->cds_prefill : NULL;
    if (!s || !s->ran || !s->val || s->rows != A->rows || s->nnz != A->nnz || C->b != 1 ||
        C->ndiag != s->n || C->ld != s->ld ||
        memcmp(C->off, s->off, (size_t)s->n * sizeof *s->off) != 0)
        return 0;
    C->val = s->val, C->present = s->present, C->d_off = s->d_off;
    s->val = NULL, s->present = NULL, s->d_off = NULL;
    *bad = s->bad, *used = s->used;
    s->adopted = 1;
    g_spec_adoptions++;
    gs_cuda_select_trace("cds adopted the speculative fill");
    return 1;
}

static void destroy(void *M)
{
    gs_cds *C = (gs_cds *)M;
    if (!C) return;
    gs_cuda_free(C->val);
    gs_cuda_free(C->present);
    gs_cuda_free(C->d_off);
    gs_cds_free_shell(C);
}

/* device CSR -> CDS: the hinted offsets when the fill finds that they hold A exactly, else
 * detection (b chosen or refused, the offsets found), then the fill */
static gs_status from_csr(const gs_csr *A, const gs_format_params *p, void **M)
{
    gs_status st = GS_OK;
    gs_cds *C = NULL;
    int b[GS_CDS_DETECT_MAX], n = 0, bad = 0, used = 0;
    *M = NULL;
    gs_cuda_select_trace("cds from_csr begin");
    GS_CHECK(gs_cds_candidates(A, p, b, &n));
    if (A->nnz == 0) { /* nothing stored: the SpMV writes zeros */
        GS_CHECK(gs_cds_shell(A, b[0], 0, GS_LOC_DEVICE, &C));
        goto accept;
    }
    GS_CHECK(gs_cds_hint_shell(A, p, GS_LOC_DEVICE, &C));
    if (C) { /* known offsets, kept when every entry is on one and each has an entry */
        if (!adopt(A, p, C, &bad, &used)) GS_CHECK(fill(A, C, &bad, &used));
        if (!bad && used == C->ndiag) goto accept;
        destroy(C);
        C = NULL;
    }
    GS_CHECK(detect_device(A, p, &C));
    GS_CHECK(fill(A, C, &bad, &used));
    if (bad)
        GS_FAIL(GS_ERR_INTERNAL,
                "cds: the device CSR has a row whose columns are not sorted or repeat");
    if (used != C->ndiag)
        GS_FAIL(GS_ERR_INTERNAL, "cds: %d of the %d detected block diagonals got entries", used,
                C->ndiag);
accept:
    *M = C;
    C = NULL;
done:
    destroy(C);
    return st;
}

/* CDS -> device CSR: per-row counts of present slots, CUB exclusive sum, then each row filled
 * in column order */
static gs_status to_csr(const void *M, gs_csr **out)
{
    gs_status st = GS_OK;
    const gs_cds *C = (const gs_cds *)M;
    cudaStream_t s = gs_cuda_g.stream;
    int32_t *rp = NULL, *ci = NULL, total = 0;
    double *v = NULL;
    const int64_t n1 = (int64_t)C->rows + 1;
    *out = NULL;
    GS_CHECK(gs_cuda_alloc(((size_t)C->rows + 1) * sizeof *rp, "CSR row pointers", (void **)&rp));
    GS_CHECK(gs_cuda_alloc((size_t)C->nnz * sizeof *ci, "CSR column indices", (void **)&ci));
    GS_CHECK(gs_cuda_alloc((size_t)C->nnz * sizeof *v, "CSR values", (void **)&v));
    GS_CUDA_CALL(cudaMemsetAsync(rp, 0, ((size_t)C->rows + 1) * sizeof *rp, s));
    if (C->ndiag > 0 && C->rows > 0) {
        row_count_kernel<<<gs_cuda_grid(C->rows), GS_CUDA_THREADS, 0, s>>>(
            C->rows, (int64_t)C->ndiag * C->b, C->ld, C->present, rp);
        GS_CUDA_LAUNCHED("cds row_count");
        GS_CHECK(gs_cuda_exclusive_sum<int32_t>(rp, rp, n1, "CDS scan scratch"));
        GS_CHECK(gs_cuda_d2h(&total, rp + C->rows, sizeof total));
        if (total != C->nnz)
            GS_FAIL(GS_ERR_INTERNAL, "cds: %d entries marked present, the matrix has %d", total,
                    C->nnz);
        to_csr_kernel<<<gs_cuda_grid(C->rows), GS_CUDA_THREADS, 0, s>>>(
            C->rows, C->b, C->ndiag, C->ld, C->d_off, C->present, C->val, rp, ci, v);
        GS_CUDA_LAUNCHED("cds to_csr");
    }
    st = gs_cuda_csr_adopt(C->rows, C->cols, C->nnz, rp, ci, v, out);
    rp = NULL, ci = NULL, v = NULL; /* adopted, or freed by the failed adopt */
done:
    gs_cuda_free(rp);
    gs_cuda_free(ci);
    gs_cuda_free(v);
    return st;
}

/* y = A*x: the kernel instantiated for b (1..8) or the runtime-b one */
static gs_status spmv(const void *M, const double *x, double *y)
{
    gs_status st = GS_OK;
    const gs_cds *C = (const gs_cds *)M;
    cudaStream_t s = gs_cuda_g.stream;
    const unsigned blocks = (unsigned)(((int64_t)C->rows + GS_CUDA_THREADS - 1) / GS_CUDA_THREADS);
    if (C->rows == 0) return GS_OK;
    if (C->ndiag == 0) {
        GS_CUDA_CALL(cudaMemsetAsync(y, 0, (size_t)C->rows * sizeof *y, s));
        return GS_OK;
    }
#define CDS_LAUNCH(B)                                                                              \
    cds_spmv_kernel<B><<<blocks, GS_CUDA_THREADS, 0, s>>>(C->rows, C->nbc, C->ndiag, C->b, C->ld,  \
                                                          C->d_off, C->val, x, y)
    switch (C->b) {
    case 1: CDS_LAUNCH(1); break;
    case 2: CDS_LAUNCH(2); break;
    case 3: CDS_LAUNCH(3); break;
    case 4: CDS_LAUNCH(4); break;
    case 5: CDS_LAUNCH(5); break;
    case 6: CDS_LAUNCH(6); break;
    case 7: CDS_LAUNCH(7); break;
    case 8: CDS_LAUNCH(8); break;
    default: CDS_LAUNCH(0); break;
    }
#undef CDS_LAUNCH
    GS_CUDA_LAUNCHED("cds_spmv");
done:
    return st;
}

extern "C" const gs_format_ops gs_cds_cuda_ops = {"cds",        from_csr,        to_csr, spmv,
                                                  gs_cds_bytes, gs_cds_describe, destroy};

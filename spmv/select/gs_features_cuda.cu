/* gs_features_cuda.cu: the feature pass of gs_select.h over a device CSR matrix, in one kernel
 * whose last block writes a few integers and the distinct diagonals into host memory.
 *
 * Every block size at once from one set. An entry (i, j) lies on the diagonal d = j - i, and at
 * block size b on the block diagonal floor(j/b) - floor(i/b) = floor((i mod b + d) / b). So the
 * distinct pairs (d, i mod b) give every candidate's block offsets: the pass keeps one set of
 * the distinct d, and with each d a mask of the residues i mod b its rows had, for all the
 * candidates b > 1 together (bit base[q] + i mod b[q]; 2 + 3 + ... + 8 = 35 bits). Per entry that
 * is one multiplicative hash, one shared-memory probe, and one masked compare against the row's
 * residue mask (a table over i mod lcm(b), read per window of 32 rows without a division);
 * counting every candidate on its own took eight hashes and probes per entry and made the pass
 * compute-bound (278 us at 7-point 128^3 against 17 us of reads).
 *
 * Exactness. Candidate b is counted exactly up to its cap c_b (gs_feat_cap); a block offset
 * covers at most 2b - 1 diagonals, so a matrix whose b is within its cap has at most c_b (2b - 1)
 * distinct d. The set is exact up to cap_d = max_b c_b (2b - 1) (<= 128 x 15) and saturates past
 * it: then every candidate is past its cap, which is what the host's per-candidate count says.
 * Under cap_d the host (sums_from) expands the pairs into each candidate's offsets and applies
 * each cap itself. Row lengths and the bandwidth are integer sums and maxima, so host and device
 * give identical features.
 *
 * The kernel does two things with the same threads:
 *  - row lengths: a grid-stride loop over rowptr (sum of squares, min, max, empty rows);
 *  - entries: each warp takes a contiguous chunk of entries, the same number for every warp
 *    whatever the row lengths (a power-law row of thousands of entries is spread over many
 *    warps), and walks it in windows of 32 rows whose 32 row ends sit in the lanes' registers.
 *    Where the window's rows have at most FEAT_LANE_MAX entries within the chunk, each lane
 *    walks its own row (the row and its residue mask known, no search: on 7-point 64^3 the
 *    search took more instructions than the hashing); otherwise the warp takes 32
 *    consecutive entries per step and finds the row of each among the ends by five shuffles.
 *    Either way the loads of four steps are issued together.
 * Each block keeps its set in shared memory (open addressing, sized to twice cap_d); a block
 * whose set passes cap_d marks the matrix saturated for all, and every warp stops hashing at its
 * next window, so an unstructured matrix costs a short burst of inserts and then only the
 * bandwidth. At the end each block adds its set into one table in global memory, whose inserts
 * (by atomicCAS) count the distinct d of the whole matrix and list their slots; the masks are
 * OR-ed in beside them. The last block to finish writes the totals and the listed (d, mask)
 * pairs straight into the backend's pinned host buffer, then clears the slots taken and the
 * totals.
 *
 * Memory: the list, the totals and the table live in the backend's selection scratch, which is
 * zero at rest (zeroed once when the backend starts, cleared by each pass's last block), so a
 * pass is one launch and one wait: no memset, no copy (on the H200 a memset, a kernel, a copy
 * and a wait took 11.0 us, a kernel and a wait 8.8 us). The pass reads rowptr and colind once
 * (no values, no x), less than one SpMV.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cuda_impl.h"
#include "gs_select.h"

#define FEAT_CAP_MAX (GS_CDS_MAX_DIAGS * (2 * GS_CDS_DETECT_MAX - 1)) /* largest cap_d */
#define FEAT_SET_MIN_LOG 6      /* a block's set: 2^6 .. 2^12 slots, at least 2 (cap_d + 1) */
#define FEAT_TABLE_MAX 8192     /* global slots: twice the block set's */
#define FEAT_TAB_MAX (840 + 32) /* residue masks: lcm(1..8) + a window's 32 rows */
#define FEAT_UNROLL 4           /* steps of 32 entries whose loads are issued together */
#define FEAT_TABLE_LOOK 8       /* probes of a global walk between looks at the count */
#ifndef FEAT_LANE_MAX
#define FEAT_LANE_MAX 16 /* rows of at most this many entries: a row per lane (file comment) */
#endif
/* a free slot is 0: diagonal d is stored as d + rows (1 .. rows + cols - 1 < 2^32) */

/* what the pass is told about the candidates (all uniform) */
typedef struct feat_plan {
    int ncand;
    int b[GS_CDS_DETECT_MAX];
    int base[GS_CDS_DETECT_MAX];        /* first mask bit of candidate q (b > 1) */
    int cap;                            /* cap_d: distinct diagonals counted exactly */
    int set_log, table_log;             /* slots of a block's set and of the global table, log2 */
    int lmod;                           /* lcm of the block sizes (1: no masks) */
    uint32_t bmagic[GS_CDS_DETECT_MAX]; /* ceil(2^32 / b[q]): t mod b without a division */
    uint32_t lmagic;                    /* ceil(2^32 / lmod) */
    int spec_kmax; /* a speculative CDS fill follows: at most this many diagonals (gs_cds.h) */
} feat_plan;

/* the reduction buffer: totals, then the gathered pairs (what comes back), then the global table
 * and the slot list (feat_bufs, bufs_for) */
enum {
    ACC_LEN2 = 0, /* sum of squared row lengths */
    ACC_EMPTY,    /* empty rows */
    ACC_MAX,      /* longest row */
    ACC_MINC,     /* UINT32_MAX - shortest row (a max, so that zero is the start) */
    ACC_BW,       /* max |j - i| */
    ACC_SAT,      /* 1: more than cap_d distinct diagonals */
    ACC_K,        /* distinct diagonals inserted into the global table */
    ACC_DONE,     /* blocks finished (the last one gathers) */
    ACC_N
};
/* the counters lie 128 bytes apart: an atomic from every block on words of one line queued at
 * one L2 slice (about 1 us at the end of a 660-block pass on the H200, bench/exp-style test) */
#define ACC_STRIDE 16
typedef struct feat_bufs {
    unsigned long long *acc, *tmask;  /* totals; table masks (device, zero at rest) */
    uint32_t *tkey, *list;            /* table keys (zero at rest); slots in insertion order */
    unsigned long long *hacc, *hmask; /* what comes back (host memory): totals, then the */
    uint32_t *hkey;                   /* gathered masks and keys */
    uint32_t *spec; /* a speculative CDS fill's count and keys (gs_cds_spec_keys), or NULL */
} feat_bufs;

/* the diagonal key's slot: the top bits of a multiplicative hash (keys differing by 2^16, a
 * 256^3 grid's +-65536, land apart; the low bits would not) */
static __device__ __forceinline__ uint32_t slot_of(uint32_t u, int log)
{
    return (u * 2654435769u) >> (32 - log);
}

/* the matrix has more than cap_d diagonals: for this block and for all. Only the block's first
 * lane to get here sets the global flag (the lanes that race past the cap together would
 * otherwise each send an atomic to the one word every block of an unstructured matrix hits). */
static __device__ void saturate(unsigned *s_sat, unsigned long long *acc)
{
    if (*(volatile unsigned *)s_sat || atomicOr(s_sat, 1u)) return;
    atomicOr(acc + ACC_STRIDE * ACC_SAT, 1ull);
}

/* u into the block's set from slot h on: its slot, or -1 once the set is saturated */
static __device__ int set_add(uint32_t u, uint32_t h, int log, int cap, uint32_t *s_key, int *s_n,
                              unsigned *s_sat, unsigned long long *acc)
{
    volatile uint32_t *set = s_key;
    const uint32_t m = (1u << log) - 1;
    /* a saturated set is not searched: past the cap, concurrent inserts may have made long runs
     * of taken slots, and an unstructured matrix would walk them for every entry */
    if (*(volatile int *)s_n > cap) return -1;
    for (uint32_t p = 0; p <= m; p++) {
        const int at = (int)((h + p) & m);
        uint32_t v = set[at];
        if (v == u) return at;
        if (v == 0) {
            if (*(volatile int *)s_n > cap) return -1;
            v = atomicCAS(&s_key[at], 0u, u);
            if (v == 0) {
                if (atomicAdd(s_n, 1) + 1 > cap) {
                    saturate(s_sat, acc);
                    return -1;
                }
                return at;
            }
            if (v == u) return at;
        }
    }
    saturate(s_sat, acc); /* full: more than the cap */
    return -1;
}

/* u into the global table: its slot, or -1 (saturated). The insert that counts a new diagonal
 * lists its slot at the count's place while the count is within cap_d; the one that passes it
 * sets the flag. A walk looks at the count only every FEAT_TABLE_LOOK probes (each block's merge
 * would otherwise load that word for each of its diagonals): blocks merging at once go on
 * inserting after the count has passed the cap, and where each block sees few diagonals but all
 * together are thousands the table fills and walks grow long; they stop once the count is past.
 * Every insert lists its slot, so the last block can clear exactly the slots taken. */
static __device__ int table_add(uint32_t u, const feat_plan &pl, const feat_bufs &fb, bool *wrote)
{
    const uint32_t h = slot_of(u, pl.table_log), m = (1u << pl.table_log) - 1;
    for (uint32_t p = 0; p <= m; p++) {
        if (p > 0 && p % FEAT_TABLE_LOOK == 0 &&
            __ldcg(fb.acc + ACC_STRIDE * ACC_K) > (unsigned)pl.cap)
            return -1;
        const int at = (int)((h + p) & m);
        uint32_t v = __ldcg(fb.tkey + at);
        if (v == 0) v = atomicCAS(fb.tkey + at, 0u, u), *wrote = true;
        if (v == 0) { /* inserted: a new diagonal */
            const unsigned long long n = atomicAdd(fb.acc + ACC_STRIDE * ACC_K, 1ull);
            fb.list[n] = (uint32_t)at; /* n < the table's slots: each insert takes one */
            if (n == (unsigned)pl.cap) atomicOr(fb.acc + ACC_STRIDE * ACC_SAT, 1ull);
            return at;
        }
        if (v == u) return at; /* there already */
    }
    atomicOr(fb.acc + ACC_STRIDE * ACC_SAT, 1ull);
    *wrote = true;
    return -1;
}

/* t mod d for t < 2^16 and 2 <= d <= 840, with magic = ceil(2^32 / d): the quotient by a
 * multiply (d = 1 has no 32-bit magic; the callers never ask for it: b > 1, lmod > 1) */
static __device__ __forceinline__ uint32_t mod_magic(uint32_t t, uint32_t d, uint32_t magic)
{
    return t - d * __umulhi(t, magic);
}

/* the residue mask of row i (i mod lmod = t mod lmod, t < lmod + 32): candidate q's bit
 * base[q] + i mod b[q] (the candidates unrolled, so their fields are not indexed at run time) */
static __device__ unsigned long long residue_mask(uint32_t t, const feat_plan &pl)
{
    unsigned long long m = 0;
    const uint32_t r = mod_magic(t, (uint32_t)pl.lmod, pl.lmagic);
#pragma unroll
    for (int q = 0; q < GS_CDS_DETECT_MAX; q++)
        if (q < pl.ncand && pl.b[q] > 1)
            m |= 1ull << (pl.base[q] + mod_magic(r, (uint32_t)pl.b[q], pl.bmagic[q]));
    return m;
}

/* the pass's shared memory and what a block's entries go into */
typedef struct feat_block {
    uint32_t *key;                 /* the set's keys (nset) */
    unsigned long long *mask;      /* the set's residue masks (nset, when lmod > 1) */
    const unsigned long long *tab; /* residue masks by row mod lmod (lmod + 32, when lmod > 1) */
    int *n;                        /* keys in the set */
    unsigned *sat;                 /* the block's set passed cap_d */
} feat_block;

/* entry (i, j) into the block's set (key j - i + rows), its row's residue mask rm into the
 * diagonal's mask */
static __device__ __forceinline__ void add_entry(int32_t i, int32_t j, unsigned long long rm,
                                                 const feat_plan &pl, const feat_block &fk,
                                                 unsigned long long *acc, uint32_t rows)
{
    const volatile uint32_t *set = fk.key;
    const uint32_t key = (uint32_t)j + rows - (uint32_t)i;
    const uint32_t h = slot_of(key, pl.set_log);
    int at = (int)h;
    if (set[at] != key) { /* a stencil's few diagonals are mostly at their first slot */
        at = (int)((h + 1) & ((1u << pl.set_log) - 1));
        if (set[at] != key) at = set_add(key, h, pl.set_log, pl.cap, fk.key, fk.n, fk.sat, acc);
    }
    if (!rm || at < 0) return;
    /* the bits it lacks, by native 32-bit atomics on each word (a 64-bit one is a compare-and-
     * swap loop in shared memory, and the lanes of a window, each on its own row, all add their
     * own residue to the same few diagonals at first) */
    const unsigned long long c = ((volatile unsigned long long *)fk.mask)[at];
    if ((c & rm) == rm) return;
    const uint32_t lo = (uint32_t)rm, hi = (uint32_t)(rm >> 32);
    uint32_t *m32 = (uint32_t *)(fk.mask + at); /* the low word first (little-endian) */
    if (((uint32_t)c & lo) != lo) atomicOr(m32, lo);
    if (((uint32_t)(c >> 32) & hi) != hi) atomicOr(m32 + 1, hi);
}

/* The row-length totals, then warp by warp the entries' diagonals (file comment). A window of
 * 32 rows whose entries within the warp's chunk number at most FEAT_LANE_MAX per row is walked a
 * row per lane (each lane's loads in order, its row and residue mask known): a 7-point row costs
 * its 7 loads and probes and no search. Other windows go 32 consecutive entries per step, the
 * row of each found among the window's ends by five shuffles. */
static __global__ void features_kernel(int32_t rows, int32_t nnz, int64_t chunk,
                                       const int32_t *__restrict__ rowptr,
                                       const int32_t *__restrict__ colind, feat_plan pl,
                                       feat_bufs fb)
{
    extern __shared__ unsigned long long s_dyn[];
    const int nset = 1 << pl.set_log, ntab = pl.lmod > 1 ? pl.lmod + 32 : 0;
    feat_block fk;
    __shared__ int s_n, s_last;
    __shared__ unsigned s_sat;
    __shared__ unsigned long long s_len2[GS_CUDA_THREADS / 32];
    __shared__ uint32_t s_acc[GS_CUDA_THREADS / 32][4];
    fk.mask = s_dyn;                                         /* nset, when lmod > 1 */
    unsigned long long *s_tab = fk.mask + (ntab ? nset : 0); /* ntab */
    fk.tab = s_tab;
    fk.key = (uint32_t *)(s_tab + ntab); /* nset */
    fk.n = &s_n, fk.sat = &s_sat;
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    const int64_t nthreads = (int64_t)gridDim.x * blockDim.x;
    unsigned long long len2 = 0;
    uint32_t empty = 0, maxlen = 0, minlen = 0xffffffffu, bw = 0;

    for (int t = threadIdx.x; t < nset; t += blockDim.x) {
        fk.key[t] = 0;
        if (ntab) fk.mask[t] = 0;
    }
    for (int t = threadIdx.x; t < ntab; t += blockDim.x) s_tab[t] = residue_mask((uint32_t)t, pl);
    if (threadIdx.x == 0) s_n = 0, s_sat = 0;
    __syncthreads();

    for (int64_t i = tid; i < rows; i += nthreads) {
        const uint32_t len = (uint32_t)(__ldg(rowptr + i + 1) - __ldg(rowptr + i));
        len2 += (unsigned long long)len * len;
        empty += len == 0;
        maxlen = len > maxlen ? len : maxlen;
        minlen = len < minlen ? len : minlen;
    }

    const int64_t e0 = (tid >> 5) * chunk, e1 = e0 + chunk < nnz ? e0 + chunk : nnz;
    if (e0 < e1) { /* warp-uniform */
        int32_t r0 = gs_warp_row_of(rowptr, rows, e0);
        /* r0 mod lmod, kept up to date without a division */
        uint32_t res0 = ntab ? (uint32_t)(r0 % pl.lmod) : 0;
        uint32_t cur = (uint32_t)e0;
        while (cur < (uint32_t)e1) {
            /* the window: rp = end of row r0 + lane */
            const int64_t w = (int64_t)r0 + 1 + lane;
            const int32_t rp = w <= rows ? __ldg(rowptr + w) : INT32_MAX;
            const int32_t last = __shfl_sync(0xffffffffu, rp, 31);
            const uint32_t wend = (uint32_t)(last < e1 ? last : e1);
            /* still counting (uniform over the warp) */
            const unsigned sat =
                __shfl_sync(0xffffffffu,
                            lane == 0 ? (unsigned)__ldcg(fb.acc + ACC_STRIDE * ACC_SAT) |
                                            *(volatile unsigned *)&s_sat
                                      : 0u,
                            0);
            /* this lane's row's entries within the chunk: [lo, hi) */
            const int32_t before = __shfl_up_sync(0xffffffffu, rp, 1);
            const uint32_t lo = lane == 0 ? cur : (uint32_t)before;
            const uint32_t hi = (uint32_t)rp < wend ? (uint32_t)rp : wend;
            const uint32_t len = hi > lo ? hi - lo : 0;
            const uint32_t most = __reduce_max_sync(0xffffffffu, len);
            /* a row per lane where it takes fewer load steps, weighted by their cost (a step
             * of 32 consecutive entries also searches their rows: about 4/3 of a lane step,
             * ncu on 7-point 32^3 and 128^3 and powerlaw 200000, 2026-11-24) */
            if (most <= FEAT_LANE_MAX &&
                3 * ((most + FEAT_UNROLL - 1) / FEAT_UNROLL) <
                    4 * ((wend - cur + 32 * FEAT_UNROLL - 1) / (32 * FEAT_UNROLL))) {
                const int32_t i = r0 + lane;
                const unsigned long long rm = ntab ? s_tab[res0 + lane] : 0;
                for (uint32_t t0 = 0; t0 < most; t0 += FEAT_UNROLL) {
                    int32_t jv[FEAT_UNROLL];
#pragma unroll
                    for (int u = 0; u < FEAT_UNROLL; u++)
                        jv[u] = t0 + u < len ? __ldg(colind + lo + t0 + u) : -1;
#pragma unroll
                    for (int u = 0; u < FEAT_UNROLL; u++) {
                        if (jv[u] < 0) continue;
                        const uint32_t d = (uint32_t)(jv[u] > i ? jv[u] - i : i - jv[u]);
                        bw = d > bw ? d : bw;
                        if (!sat) add_entry(i, jv[u], rm, pl, fk, fb.acc, (uint32_t)rows);
                    }
                }
            } else { /* 32 consecutive entries per step */
                for (uint32_t base = cur; base < wend; base += 32 * FEAT_UNROLL) {
                    int32_t iv[FEAT_UNROLL], jv[FEAT_UNROLL];
#pragma unroll
                    for (int u = 0; u < FEAT_UNROLL; u++) {
                        const uint32_t k = base + 32 * u + lane;
                        const int c = gs_window_row(rp, k);
                        iv[u] = r0 + c;
                        jv[u] = k < wend ? __ldg(colind + k) : -1;
                    }
#pragma unroll
                    for (int u = 0; u < FEAT_UNROLL; u++) {
                        if (jv[u] < 0) continue;
                        const uint32_t d =
                            (uint32_t)(jv[u] > iv[u] ? jv[u] - iv[u] : iv[u] - jv[u]);
                        bw = d > bw ? d : bw;
                        if (!sat)
                            add_entry(iv[u], jv[u], ntab ? s_tab[res0 + (iv[u] - r0)] : 0, pl, fk,
                                      fb.acc, (uint32_t)rows);
                    }
                }
            }
            cur = wend;
            r0 += 32;
            if (ntab) res0 = mod_magic(res0 + 32, (uint32_t)pl.lmod, pl.lmagic);
        }
    }

    /* the block's set into the global table (unless saturated), and each diagonal's residue mask
     * where it adds bits (after the first blocks a stencil's masks are complete); the threads
     * that wrote make their writes seen before the block counts itself */
    __syncthreads();
    bool wrote = false;
    if (!((unsigned)__ldcg(fb.acc + ACC_STRIDE * ACC_SAT) | s_sat))
        for (int t = threadIdx.x; t < nset; t += blockDim.x) {
            const uint32_t v = fk.key[t];
            if (v == 0) continue;
            const unsigned long long m = ntab ? fk.mask[t] : 0;
            const int at = table_add(v, pl, fb, &wrote);
            if (at >= 0 && m && (__ldcg(fb.tmask + at) & m) != m) {
                atomicOr(fb.tmask + at, m);
                wrote = true;
            }
        }
    for (int off = 16; off > 0; off >>= 1) len2 += __shfl_down_sync(0xffffffffu, len2, off);
    empty = __reduce_add_sync(0xffffffffu, empty);
    maxlen = __reduce_max_sync(0xffffffffu, maxlen);
    minlen = __reduce_min_sync(0xffffffffu, minlen);
    bw = __reduce_max_sync(0xffffffffu, bw);
    if (lane == 0) {
        s_len2[wib] = len2;
        s_acc[wib][0] = empty, s_acc[wib][1] = maxlen, s_acc[wib][2] = minlen, s_acc[wib][3] = bw;
    }
    if (wrote) __threadfence();
    __syncthreads();
    if (wib == 0) { /* the block's totals by warp 0, added by its lane 0 */
        const int nw = (int)(blockDim.x >> 5);
        const bool in = lane < nw;
        unsigned long long l2 = in ? s_len2[lane] : 0;
        for (int off = 16; off > 0; off >>= 1) l2 += __shfl_down_sync(0xffffffffu, l2, off);
        const uint32_t em = __reduce_add_sync(0xffffffffu, in ? s_acc[lane][0] : 0u);
        const uint32_t mx = __reduce_max_sync(0xffffffffu, in ? s_acc[lane][1] : 0u);
        const uint32_t mn = __reduce_min_sync(0xffffffffu, in ? s_acc[lane][2] : 0xffffffffu);
        const uint32_t bm = __reduce_max_sync(0xffffffffu, in ? s_acc[lane][3] : 0u);
        if (lane == 0) {
            if (l2) atomicAdd(fb.acc + ACC_STRIDE * ACC_LEN2, l2);
            if (em) atomicAdd(fb.acc + ACC_STRIDE * ACC_EMPTY, (unsigned long long)em);
            atomicMax(fb.acc + ACC_STRIDE * ACC_MAX, (unsigned long long)mx);
            atomicMax(fb.acc + ACC_STRIDE * ACC_MINC, 0xffffffffull - mn);
            atomicMax(fb.acc + ACC_STRIDE * ACC_BW, (unsigned long long)bm);
            /* the list and the table are complete once every block has passed here */
            __threadfence();
            s_last = atomicAdd(fb.acc + ACC_STRIDE * ACC_DONE, 1ull) == gridDim.x - 1;
        }
    }
    __syncthreads();
    if (!s_last) return;
    /* the last block: the totals and the listed diagonals' (key, mask) into host memory, then
     * the table and the totals cleared (the next pass needs no memset) */
    __threadfence();
    const unsigned long long k = __ldcg(fb.acc + ACC_STRIDE * ACC_K);
    const int n = __ldcg(fb.acc + ACC_STRIDE * ACC_SAT) || k > (unsigned)pl.cap ? 0 : (int)k;
    const uint32_t taken = k < (1ull << pl.table_log) ? (uint32_t)k : 1u << pl.table_log;
    /* (ACC_DONE's place in host memory: the GPU clock at the end of the pass, from which a
     * speculative CDS fill's time is measured) */
    if (threadIdx.x < ACC_N)
        fb.hacc[threadIdx.x] =
            threadIdx.x == ACC_DONE ? gs_gpu_clock_ns() : __ldcg(fb.acc + ACC_STRIDE * threadIdx.x);
    /* a speculative CDS fill gets the diagonals when there are 1 .. spec_kmax (its kernel,
     * queued behind this one, does nothing otherwise) */
    const bool spec = fb.spec && n >= 1 && n <= pl.spec_kmax;
    for (int t = threadIdx.x; t < n; t += blockDim.x) {
        const uint32_t at = __ldcg(fb.list + t), key = __ldcg(fb.tkey + at);
        fb.hkey[t] = key;
        fb.hmask[t] = __ldcg(fb.tmask + at);
        if (spec) fb.spec[2 + t] = key;
    }
    if (spec && threadIdx.x == 0) fb.spec[0] = (uint32_t)n;
    __syncthreads();
    for (uint32_t t = threadIdx.x; t < taken; t += blockDim.x) {
        const uint32_t at = __ldcg(fb.list + t);
        fb.tkey[at] = 0;
        fb.tmask[at] = 0;
    }
    if (threadIdx.x < ACC_N) fb.acc[ACC_STRIDE * threadIdx.x] = 0;
}

/* floor(x / b) for b > 0 */
static int64_t floor_div(int64_t x, int64_t b)
{
    return x >= 0 ? x / b : -((-x + b - 1) / b);
}

/* a diagonal and its residue mask, sorted by the diagonal */
typedef struct diag_mask {
    int64_t d;
    unsigned long long mask;
} diag_mask;

static int cmp_diag(const void *x, const void *y)
{
    const int64_t a = ((const diag_mask *)x)->d, b = ((const diag_mask *)y)->d;
    return a < b ? -1 : a > b;
}

/* head[r] = the first of the n diagonals at or after t with residue r in candidate q (block
 * size b), hv[r] = its block offset floor((r + d) / b) (|d| < 2^31) */
static void next_of_residue(const feat_plan *pl, int q, int b, int n, const diag_mask *dm, int r,
                            int t, int *head, int32_t *hv)
{
    while (t < n && !(b == 1 || ((dm[t].mask >> (pl->base[q] + r)) & 1u))) t++;
    head[r] = t;
    if (t < n) hv[r] = (int32_t)floor_div(r + dm[t].d, b);
}

/* candidate q's block offsets from the n diagonals and their residue masks dm[] (ascending by
 * diagonal): k[q] and, within its cap, the offsets. Each residue r gives floor((r + d) / b) over
 * the diagonals with that residue, ascending with d, so the offsets come from merging the b lists
 * (dropping repeats), without a sort: a qsort of the n b values per candidate took 28 us of host
 * time on 27-point 100^3 (27 diagonals, five candidates), half a SpMV. */
static void expand(const feat_plan *pl, int q, int cap, int n, const diag_mask *dm, gs_feat_sums *s)
{
    const int b = pl->b[q];
    int head[GS_CDS_DETECT_MAX];
    int32_t hv[GS_CDS_DETECT_MAX]; /* the value at each head (one division per value) */
    int64_t k = 0;
    int32_t last = 0;
    for (int r = 0; r < b; r++) next_of_residue(pl, q, b, n, dm, r, 0, head, hv);
    for (;;) {
        int best = -1;
        for (int r = 0; r < b; r++)
            if (head[r] < n && (best < 0 || hv[r] < hv[best])) best = r;
        if (best < 0) break;
        const int32_t v = hv[best];
        next_of_residue(pl, q, b, n, dm, best, head[best] + 1, head, hv);
        if (k == 0 || v != last) {
            if (k < cap) s->off[q][k] = v;
            last = v;
            if (++k > cap) break; /* past the cap: "more" */
        }
    }
    s->k[q] = k > cap ? GS_CDS_MAX_DIAGS + 1 : k;
}

/* the sums from the transferred totals and pairs (h: ACC_N totals, cap masks, cap keys) */
static gs_status sums_from(const gs_csr *A, const feat_plan *pl, const unsigned char *h,
                           gs_feat_sums *s)
{
    gs_status st = GS_OK;
    unsigned long long acc[ACC_N];
    diag_mask *dm = NULL;
    memcpy(acc, h, sizeof acc);
    const unsigned long long *mask = (const unsigned long long *)(h + sizeof acc);
    const uint32_t *key = (const uint32_t *)(mask + pl->cap);
    s->len2 = acc[ACC_LEN2];
    s->empty = (int64_t)acc[ACC_EMPTY];
    s->max = (int32_t)acc[ACC_MAX];
    s->min = (int32_t)(0xffffffffull - acc[ACC_MINC]);
    s->bandwidth = (int64_t)acc[ACC_BW];
    const int sat = acc[ACC_SAT] || acc[ACC_K] > (unsigned)pl->cap;
    const int n = sat ? 0 : (int)acc[ACC_K];
    for (int q = 0; q < s->ncand; q++) s->k[q] = GS_CDS_MAX_DIAGS + 1;
    if (sat || n == 0) {
        if (!sat) memset(s->k, 0, sizeof s->k);
        return GS_OK;
    }
    GS_CHECK(gs_alloc_array((size_t)n, sizeof *dm, "feature diagonals", (void **)&dm));
    for (int t = 0; t < n; t++) dm[t].d = (int64_t)key[t] - A->rows, dm[t].mask = mask[t];
    qsort(dm, (size_t)n, sizeof *dm, cmp_diag);
    for (int q = 0; q < s->ncand; q++)
        expand(pl, q, (int)gs_feat_cap(A->rows, A->nnz, s->b[q]), n, dm, s);
done:
    gs_free(dm);
    return st;
}

static int gcd(int a, int b)
{
    while (b) {
        const int t = a % b;
        a = b, b = t;
    }
    return a;
}

/* the plan for A's candidates: mask bits, cap_d, table sizes, the lcm */
static void plan_for(const gs_csr *A, const gs_feat_sums *s, feat_plan *pl)
{
    int bit = 0;
    memset(pl, 0, sizeof *pl);
    pl->ncand = s->ncand;
    pl->lmod = 1;
    for (int q = 0; q < s->ncand; q++) {
        const int b = s->b[q];
        const int64_t c = gs_feat_cap(A->rows, A->nnz, b) * (2 * b - 1);
        pl->b[q] = b;
        pl->base[q] = bit;
        if (b > 1) bit += b, pl->lmod = pl->lmod / gcd(pl->lmod, b) * b;
        if (c > pl->cap) pl->cap = (int)c;
        pl->bmagic[q] = (uint32_t)((0xffffffffull + (unsigned)b) / (unsigned)b);
    }
    pl->lmagic = (uint32_t)((0xffffffffull + (unsigned)pl->lmod) / (unsigned)pl->lmod);
    pl->set_log = FEAT_SET_MIN_LOG;
    while ((1 << pl->set_log) < 2 * (pl->cap + 1)) pl->set_log++;
    pl->table_log = pl->set_log + 1;
}

/* the dynamic shared memory of the pass for plan pl */
static size_t smem_of(const feat_plan *pl)
{
    const size_t nset = (size_t)1 << pl->set_log;
    return nset * sizeof(uint32_t) +
           (pl->lmod > 1 ? (nset + (size_t)pl->lmod + 32) * sizeof(unsigned long long) : 0);
}

/* the buffers for plan pl: the totals, the table and the list in the backend's selection
 * scratch (zero at rest: no memset), what comes back in its pinned buffer, which the last block
 * writes directly */
static feat_bufs bufs_for(const feat_plan *pl)
{
    feat_bufs fb;
    fb.acc = (unsigned long long *)((char *)gs_cuda_g.d_sel + GS_CUDA_SEL_FEAT);
    fb.tmask = fb.acc + ACC_STRIDE * ACC_N;
    fb.tkey = (uint32_t *)(fb.tmask + FEAT_TABLE_MAX);
    fb.list = fb.tkey + FEAT_TABLE_MAX;
    fb.hacc = (unsigned long long *)gs_cuda_g.h_red_dev;
    fb.hmask = fb.hacc + ACC_N;
    fb.hkey = (uint32_t *)(fb.hmask + pl->cap);
    return fb;
}

/* blocks of the pass that fit on the device at once with smem bytes of shared memory (the last
 * answer kept) */
static int resident_blocks(size_t smem)
{
    static int sms, per;
    static size_t for_smem = (size_t)-1;
    if (smem != for_smem) {
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gs_cuda_g.device) !=
                cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, features_kernel, GS_CUDA_THREADS,
                                                          smem) != cudaSuccess) {
            (void)cudaGetLastError();
            sms = 132, per = 4;
        }
        for_smem = smem;
    }
    return sms * (per > 0 ? per : 1);
}

/* the feature pass over device matrix A (rows > 0): one launch, whose last block writes the
 * totals and pairs into the pinned buffer and clears the scratch, and one wait (the table's
 * sums, gs_features_ops) */
static gs_status sums_cuda(const gs_csr *A, gs_feat_sums *s, gs_cds_spec **spec)
{
    gs_status st = GS_OK;
    gs_cuda_ctx *g = &gs_cuda_g;
    cudaStream_t stream = g->stream;
    static int smem_set;
    feat_plan pl;
    gs_cuda_select_trace("features begin");
    plan_for(A, s, &pl);
    pl.spec_kmax = spec ? gs_cds_spec_kmax_for(A) : 0;
    feat_bufs fb = bufs_for(&pl);
    fb.spec = pl.spec_kmax > 0 ? gs_cds_spec_keys() : NULL;
    if (spec) *spec = NULL;
    const size_t smem = smem_of(&pl);
    static_assert(ACC_STRIDE * ACC_N * 8 + FEAT_TABLE_MAX * 16 <=
                      GS_CUDA_SEL_CDS - GS_CUDA_SEL_FEAT,
                  "the feature tables must fit their part of the selection scratch");
    static_assert(ACC_N * 8 + FEAT_CAP_MAX * 12 <= GS_CUDA_PINNED_SPEC,
                  "the totals and pairs must fit the pinned transfer buffer, before the "
                  "speculative fill's check");
    static_assert(2 * (FEAT_CAP_MAX + 1) <= FEAT_TABLE_MAX / 2, "the set must hold cap_d");
    if (!smem_set) { /* the largest set and residue table exceed the static 48 KB */
        const size_t most =
            (FEAT_TABLE_MAX / 2) * (sizeof(uint32_t) + 8) + FEAT_TAB_MAX * sizeof(uint64_t);
        GS_CUDA_CALL(cudaFuncSetAttribute(features_kernel,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, (int)most));
        smem_set = 1;
    }
    {
        /* as many warps as fit at once (fewer for a small matrix), each an equal chunk */
        const int64_t resident = resident_blocks(smem);
        const int64_t want =
            ((int64_t)(A->rows > A->nnz / 4 ? A->rows : A->nnz / 4) + GS_CUDA_THREADS - 1) /
            GS_CUDA_THREADS;
        const int64_t blocks = want < 1 ? 1 : want < resident ? want : resident;
        const int64_t warps = blocks * (GS_CUDA_THREADS / 32);
        int64_t chunk = ((int64_t)A->nnz + warps - 1) / warps;
        chunk = chunk < 32 ? 32 : (chunk + 31) / 32 * 32;
        features_kernel<<<(unsigned)blocks, GS_CUDA_THREADS, smem, stream>>>(
            A->rows, A->nnz, chunk, A->rowptr, A->colind, pl, fb);
        GS_CUDA_LAUNCHED("features");
    }
    if (fb.spec) { /* the speculative CDS fill behind it, its arrays allocated meanwhile */
        const gs_status made = gs_cds_spec_create(A, spec);
        const gs_status queued = made == GS_OK && *spec ? gs_cds_spec_launch(A, *spec) : made;
        if (made != GS_OK || !*spec || queued != GS_OK) {
            /* none after all: the diagonals' place cleared (zero at rest); no arrays is no
             * error (the selection goes on without), a failed launch is */
            const int none = made != GS_OK || !*spec;
            if (none) gs_error_clear();
            GS_CUDA_CALL(
                cudaMemsetAsync(fb.spec, 0, (2 + GS_CDS_MAX_DIAGS) * sizeof(uint32_t), stream));
            GS_CHECK(none ? GS_OK : queued);
        }
        gs_cuda_select_trace("features speculative fill enqueued");
    }
    /* the last block wrote the results into the pinned buffer: wait for it */
    gs_cuda_select_trace("features enqueued");
    GS_CUDA_CALL(cudaStreamSynchronize(stream));
    gs_cuda_select_trace("features waited");
    GS_CHECK(sums_from(A, &pl, (const unsigned char *)g->h_red, s));
    if (spec && *spec) { /* what the fill got: the listed diagonals, as the last block saw them */
        unsigned long long acc[ACC_N];
        memcpy(acc, g->h_red, sizeof acc);
        const int n = acc[ACC_SAT] || acc[ACC_K] > (unsigned)pl.cap ? 0 : (int)acc[ACC_K];
        gs_cds_spec_done(*spec, A, n,
                         (const uint32_t *)((const unsigned char *)g->h_red + sizeof acc +
                                            (size_t)pl.cap * sizeof(unsigned long long)),
                         acc[ACC_DONE]);
    }
    gs_cuda_select_trace("features host sums");
done:
    return st;
}

/* the device feature pass, and the speculative CDS fill's end (spmv/formats/gs_cds_cuda.cu) */
extern "C" const gs_features_ops gs_features_cuda_ops = {
    sums_cuda,
    gs_cds_spec_adopted_seconds,
    gs_cds_spec_destroy,
};

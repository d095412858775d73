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
 *    warps), and walks it in windows of 32 rows: the 32 row ends sit in the lanes' registers
 *    and the row of an entry is found among them by five shuffles, so the loads of a window's
 *    column indices do not wait on each other (four steps of 32 entries are loaded at once).
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
/* a free slot is 0: diagonal d is stored as d + rows (1 .. rows + cols - 1 < 2^32) */

/* what the pass is told about the candidates (all uniform) */
typedef struct feat_plan {
    int ncand;
    int b[GS_CDS_DETECT_MAX];
    int base[GS_CDS_DETECT_MAX]; /* first mask bit of candidate q (b > 1) */
    int cap;                     /* cap_d: distinct diagonals counted exactly */
    int set_log, table_log;      /* slots of a block's set and of the global table, log2 */
    int lmod;                    /* lcm of the block sizes (1: no masks) */
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
typedef struct feat_bufs {
    unsigned long long *acc, *tmask;  /* totals; table masks (device, zero at rest) */
    uint32_t *tkey, *list;            /* table keys (zero at rest); slots in insertion order */
    unsigned long long *hacc, *hmask; /* what comes back (host memory): totals, then the */
    uint32_t *hkey;                   /* gathered masks and keys */
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
    atomicOr(acc + ACC_SAT, 1ull);
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
static __device__ int table_add(uint32_t u, const feat_plan &pl, const feat_bufs &fb)
{
    const uint32_t h = slot_of(u, pl.table_log), m = (1u << pl.table_log) - 1;
    for (uint32_t p = 0; p <= m; p++) {
        if (p > 0 && p % FEAT_TABLE_LOOK == 0 && __ldcg(fb.acc + ACC_K) > (unsigned)pl.cap)
            return -1;
        const int at = (int)((h + p) & m);
        uint32_t v = __ldcg(fb.tkey + at);
        if (v == 0) v = atomicCAS(fb.tkey + at, 0u, u);
        if (v == 0) { /* inserted: a new diagonal */
            const unsigned long long n = atomicAdd(fb.acc + ACC_K, 1ull);
            fb.list[n] = (uint32_t)at; /* n < the table's slots: each insert takes one */
            if (n == (unsigned)pl.cap) atomicOr(fb.acc + ACC_SAT, 1ull);
            return at;
        }
        if (v == u) return at; /* there already */
    }
    atomicOr(fb.acc + ACC_SAT, 1ull);
    return -1;
}

static __device__ __forceinline__ unsigned long long warp_max(unsigned long long v)
{
    for (int off = 16; off > 0; off >>= 1) {
        const unsigned long long o = __shfl_down_sync(0xffffffffu, v, off);
        v = o > v ? o : v;
    }
    return v;
}

static __device__ __forceinline__ unsigned long long warp_add(unsigned long long v)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

/* the residue mask of row i (i mod lmod = t mod lmod): candidate q's bit base[q] + i mod b[q] */
static __device__ unsigned long long residue_mask(int t, const feat_plan &pl)
{
    unsigned long long m = 0;
    const int r = t % pl.lmod;
    for (int q = 0; q < pl.ncand; q++)
        if (pl.b[q] > 1) m |= 1ull << (pl.base[q] + r % pl.b[q]);
    return m;
}

/* The entries of one window step (up to 32 x FEAT_UNROLL, rows r0 + c): each into the set, its
 * row's residue mask into the diagonal's mask. */
static __device__ __forceinline__ void
add_entries(const int32_t *iv, const int32_t *jv, const bool *okv, int32_t r0, int res0,
            const feat_plan &pl, uint32_t *s_key, unsigned long long *s_mask,
            const unsigned long long *s_tab, int *s_n, unsigned *s_sat, unsigned long long *acc,
            uint32_t rows)
{
    const uint32_t m = (1u << pl.set_log) - 1;
    const volatile uint32_t *set = s_key;
#pragma unroll
    for (int u = 0; u < FEAT_UNROLL; u++) {
        if (!okv[u]) continue;
        const uint32_t key = (uint32_t)jv[u] + rows - (uint32_t)iv[u];
        const uint32_t h = slot_of(key, pl.set_log);
        int at = (int)h;
        if (set[at] != key) { /* a stencil's few diagonals are mostly at their first slot */
            at = (int)((h + 1) & m);
            if (set[at] != key) at = set_add(key, h, pl.set_log, pl.cap, s_key, s_n, s_sat, acc);
        }
        if (pl.lmod > 1 && at >= 0) {
            const unsigned long long rm = s_tab[res0 + (iv[u] - r0)];
            if ((((volatile unsigned long long *)s_mask)[at] & rm) != rm) atomicOr(s_mask + at, rm);
        }
    }
}

/* the row-length totals, then warp by warp the entries' diagonals (file comment) */
static __global__ void features_kernel(int32_t rows, int32_t nnz, int64_t chunk,
                                       const int32_t *__restrict__ rowptr,
                                       const int32_t *__restrict__ colind, feat_plan pl,
                                       feat_bufs fb)
{
    extern __shared__ unsigned long long s_dyn[];
    const int nset = 1 << pl.set_log, ntab = pl.lmod > 1 ? pl.lmod + 32 : 0;
    unsigned long long *s_mask = s_dyn;                     /* nset, when lmod > 1 */
    unsigned long long *s_tab = s_mask + (ntab ? nset : 0); /* ntab */
    uint32_t *s_key = (uint32_t *)(s_tab + ntab);           /* nset */
    __shared__ int s_n, s_last;
    __shared__ unsigned s_sat;
    __shared__ unsigned long long s_acc[GS_CUDA_THREADS / 32][5];
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    const int64_t nthreads = (int64_t)gridDim.x * blockDim.x;
    unsigned long long len2 = 0, empty = 0, maxlen = 0, minc = 0, bw = 0;

    for (int t = threadIdx.x; t < nset; t += blockDim.x) {
        s_key[t] = 0;
        if (ntab) s_mask[t] = 0;
    }
    for (int t = threadIdx.x; t < ntab; t += blockDim.x) s_tab[t] = residue_mask(t, pl);
    if (threadIdx.x == 0) s_n = 0, s_sat = 0;
    __syncthreads();

    for (int64_t i = tid; i < rows; i += nthreads) {
        const unsigned long long len =
            (unsigned long long)(__ldg(rowptr + i + 1) - __ldg(rowptr + i));
        len2 += len * len;
        empty += len == 0;
        maxlen = len > maxlen ? len : maxlen;
        const unsigned long long c = 0xffffffffull - len;
        minc = c > minc ? c : minc;
    }

    const int64_t e0 = (tid >> 5) * chunk, e1 = e0 + chunk < nnz ? e0 + chunk : nnz;
    if (e0 < e1) { /* warp-uniform */
        int32_t r0 = gs_warp_row_of(rowptr, rows, e0);
        int res0 = ntab ? r0 % pl.lmod : 0; /* r0 mod lmod, kept up to date without a division */
        uint32_t cur = (uint32_t)e0;
        while (cur < (uint32_t)e1) {
            /* the window: rp = end of row r0 + lane */
            const int64_t w = (int64_t)r0 + 1 + lane;
            const int32_t rp = w <= rows ? __ldg(rowptr + w) : INT32_MAX;
            const int32_t last = __shfl_sync(0xffffffffu, rp, 31);
            const uint32_t wend = (uint32_t)(last < e1 ? last : e1);
            /* still counting (uniform over the warp) */
            const unsigned sat = __shfl_sync(
                0xffffffffu,
                lane == 0 ? (unsigned)__ldcg(fb.acc + ACC_SAT) | *(volatile unsigned *)&s_sat : 0u,
                0);
            for (uint32_t base = cur; base < wend; base += 32 * FEAT_UNROLL) {
                int32_t iv[FEAT_UNROLL], jv[FEAT_UNROLL];
                bool okv[FEAT_UNROLL];
#pragma unroll
                for (int u = 0; u < FEAT_UNROLL; u++) {
                    const uint32_t k = base + 32 * u + lane;
                    okv[u] = k < wend;
                    iv[u] = r0 + gs_window_row(rp, k);
                    jv[u] = okv[u] ? __ldg(colind + k) : 0;
                }
#pragma unroll
                for (int u = 0; u < FEAT_UNROLL; u++)
                    if (okv[u]) {
                        const unsigned long long d =
                            (unsigned long long)(jv[u] > iv[u] ? jv[u] - iv[u] : iv[u] - jv[u]);
                        bw = d > bw ? d : bw;
                    }
                if (!sat)
                    add_entries(iv, jv, okv, r0, res0, pl, s_key, s_mask, s_tab, &s_n, &s_sat,
                                fb.acc, (uint32_t)rows);
            }
            cur = wend;
            r0 += 32;
            if (ntab) res0 = (res0 + 32) % pl.lmod;
        }
    }

    /* the block's set into the global table (unless saturated) */
    __syncthreads();
    if (!((unsigned)__ldcg(fb.acc + ACC_SAT) | s_sat))
        for (int t = threadIdx.x; t < nset; t += blockDim.x) {
            const uint32_t v = s_key[t];
            if (v == 0) continue;
            const int at = table_add(v, pl, fb);
            if (at >= 0 && ntab && s_mask[t]) atomicOr(fb.tmask + at, s_mask[t]);
        }

    len2 = warp_add(len2);
    empty = warp_add(empty);
    maxlen = warp_max(maxlen);
    minc = warp_max(minc);
    bw = warp_max(bw);
    if (lane == 0) {
        s_acc[wib][0] = len2, s_acc[wib][1] = empty, s_acc[wib][2] = maxlen;
        s_acc[wib][3] = minc, s_acc[wib][4] = bw;
    }
    __threadfence(); /* this thread's table inserts are seen before the block counts itself */
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (int)(blockDim.x >> 5); w++) {
            len2 += s_acc[w][0], empty += s_acc[w][1];
            maxlen = s_acc[w][2] > maxlen ? s_acc[w][2] : maxlen;
            minc = s_acc[w][3] > minc ? s_acc[w][3] : minc;
            bw = s_acc[w][4] > bw ? s_acc[w][4] : bw;
        }
        if (len2) atomicAdd(fb.acc + ACC_LEN2, len2);
        if (empty) atomicAdd(fb.acc + ACC_EMPTY, empty);
        atomicMax(fb.acc + ACC_MAX, maxlen);
        atomicMax(fb.acc + ACC_MINC, minc);
        atomicMax(fb.acc + ACC_BW, bw);
        /* the list and the table are complete once every block has passed here */
        __threadfence();
        s_last = atomicAdd(fb.acc + ACC_DONE, 1ull) == gridDim.x - 1;
    }
    __syncthreads();
    if (!s_last) return;
    /* the last block: the totals and the listed diagonals' (key, mask) into host memory, then
     * the table and the totals cleared (the next pass needs no memset) */
    __threadfence();
    const unsigned long long k = __ldcg(fb.acc + ACC_K);
    const int n = __ldcg(fb.acc + ACC_SAT) || k > (unsigned)pl.cap ? 0 : (int)k;
    const uint32_t taken = k < (1ull << pl.table_log) ? (uint32_t)k : 1u << pl.table_log;
    if (threadIdx.x < ACC_N) fb.hacc[threadIdx.x] = __ldcg(fb.acc + threadIdx.x);
    for (int t = threadIdx.x; t < n; t += blockDim.x) {
        const uint32_t at = __ldcg(fb.list + t);
        fb.hkey[t] = __ldcg(fb.tkey + at);
        fb.hmask[t] = __ldcg(fb.tmask + at);
    }
    __syncthreads();
    for (uint32_t t = threadIdx.x; t < taken; t += blockDim.x) {
        const uint32_t at = __ldcg(fb.list + t);
        fb.tkey[at] = 0;
        fb.tmask[at] = 0;
    }
    if (threadIdx.x < ACC_N) fb.acc[threadIdx.x] = 0;
}

/* floor(x / b) for b > 0 */
static int64_t floor_div(int64_t x, int64_t b)
{
    return x >= 0 ? x / b : -((-x + b - 1) / b);
}

/* candidate q's block offsets from the n diagonals d[] and their residue masks (scratch: n * b
 * values): k[q] and, within its cap, the offsets */
static void expand(const feat_plan *pl, int q, int cap, int n, const int64_t *d,
                   const unsigned long long *mask, int32_t *scratch, gs_feat_sums *s)
{
    const int b = pl->b[q];
    int64_t m = 0, k = 0;
    for (int t = 0; t < n; t++)
        for (int r = 0; r < b; r++)
            if (b == 1 || ((mask[t] >> (pl->base[q] + r)) & 1u))
                scratch[m++] = (int32_t)floor_div(r + d[t], b); /* |d| < 2^31 */
    qsort(scratch, (size_t)m, sizeof *scratch, gs_cmp_i32);
    for (int64_t t = 0; t < m; t++)
        if (t == 0 || scratch[t] != scratch[t - 1]) {
            if (k < cap) s->off[q][k] = (int32_t)scratch[t];
            k++;
        }
    s->k[q] = k > cap ? GS_CDS_MAX_DIAGS + 1 : k;
}

/* the sums from the transferred totals and pairs (h: ACC_N totals, cap masks, cap keys) */
static gs_status sums_from(const gs_csr *A, const feat_plan *pl, const unsigned char *h,
                           gs_feat_sums *s)
{
    gs_status st = GS_OK;
    unsigned long long acc[ACC_N];
    int32_t *scratch = NULL;
    int64_t *d = NULL;
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
    GS_CHECK(gs_alloc_array((size_t)n, sizeof *d, "feature diagonals", (void **)&d));
    GS_CHECK(gs_alloc_array((size_t)n * GS_CDS_DETECT_MAX, sizeof *scratch, "feature block offsets",
                            (void **)&scratch));
    for (int t = 0; t < n; t++) d[t] = (int64_t)key[t] - A->rows;
    for (int q = 0; q < s->ncand; q++)
        expand(pl, q, (int)gs_feat_cap(A->rows, A->nnz, s->b[q]), n, d, mask, scratch, s);
done:
    gs_free(scratch);
    gs_free(d);
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
    }
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
    fb.tmask = fb.acc + ACC_N;
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
 * totals and pairs into the pinned buffer and clears the scratch, and one wait */
extern "C" gs_status gs_features_cuda(const gs_csr *A, gs_feat_sums *s)
{
    gs_status st = GS_OK;
    gs_cuda_ctx *g = &gs_cuda_g;
    cudaStream_t stream = g->stream;
    static int smem_set;
    feat_plan pl;
    gs_cuda_select_trace("features begin");
    plan_for(A, s, &pl);
    const feat_bufs fb = bufs_for(&pl);
    const size_t smem = smem_of(&pl);
    static_assert(ACC_N * 8 + FEAT_TABLE_MAX * 16 <= GS_CUDA_SEL_CDS - GS_CUDA_SEL_FEAT,
                  "the feature tables must fit their part of the selection scratch");
    static_assert(ACC_N * 8 + FEAT_CAP_MAX * 12 <= GS_CUDA_PINNED_BYTES,
                  "the totals and pairs must fit the pinned transfer buffer");
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
    /* the last block wrote the results into the pinned buffer: wait for it */
    gs_cuda_select_trace("features enqueued");
    GS_CUDA_CALL(cudaStreamSynchronize(stream));
    gs_cuda_select_trace("features waited");
    GS_CHECK(sums_from(A, &pl, (const unsigned char *)g->h_red, s));
    gs_cuda_select_trace("features host sums");
done:
    return st;
}

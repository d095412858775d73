/* gs_features_cuda.cu: the feature pass of gs_select.h over a device CSR matrix, in one kernel,
 * one memset and one transfer of a few integers and the offset lists.
 *
 * The kernel does two things with the same threads:
 *  - row lengths: a grid-stride loop over rowptr (sum of squares, min, max, empty rows);
 *  - entries: each warp takes a contiguous chunk of entries, the same number for every warp
 *    whatever the row lengths (a power-law row of thousands of entries is spread over many
 *    warps), and walks it in windows of 32 rows: the 32 row ends sit in the lanes' registers
 *    and the row of an entry is found among them by five shuffles, so the loads of a window's
 *    column indices do not wait on each other (four steps of 32 entries are loaded at once).
 * Each entry's block offset J - I, for every candidate block size b (gs_cds_candidates), goes
 * into the block's set of offsets of that candidate: an open-addressing table in shared memory,
 * where a stencil's few offsets are found at the first probe. A block whose set passes the
 * candidate's cap (gs_feat_cap: at most GS_CDS_MAX_DIAGS, fewer where more offsets would mean
 * a CDS fill above GS_FEAT_FILL_MAX) marks the candidate saturated for all (the matrix has more
 * than that), and every warp stops looking at a saturated candidate at its next window, so an
 * unstructured matrix costs a short burst of inserts and then only the bandwidth. At the end
 * each block adds its sets into one table per candidate in global memory, whose inserts (by
 * atomicCAS) count the distinct offsets of the whole matrix: exact up to the cap, like
 * the host's count; the insert that counts an offset also writes it at its count's position in
 * the candidate's list, so the offsets come back with the totals (the CDS conversion takes the
 * chosen ones instead of finding them again). Everything else is an integer sum, so host and
 * device give identical features.
 *
 * Memory: the lists, the totals and the global tables live in the backend's reduction buffer
 * (no allocation; only the tables of the candidates tried are zeroed); the pass reads rowptr
 * and colind once (no values, no x), less than one SpMV.
 */
#include <stdint.h>
#include <string.h>

#include "gs_cuda_impl.h"
#include "gs_select.h"

#define FEAT_SET 512    /* shared-memory slots of a block's set per candidate (> 2 x cap) */
#define FEAT_TABLE 4096 /* global slots per candidate: the union, plus concurrent overshoot */
#define FEAT_UNROLL 4   /* steps of 32 entries whose loads are issued together */
/* a free slot is 0: an offset o is stored as o + nbr (1 .. nbr + nbc - 1 < 2^32) */

/* the candidate block sizes */
typedef struct feat_cands {
    int n;
    int b[GS_CDS_DETECT_MAX];
    uint32_t shift[GS_CDS_DETECT_MAX]; /* nbr: offset o is stored as o + shift */
    int cap[GS_CDS_DETECT_MAX];        /* gs_feat_cap: more offsets saturate the candidate */
} feat_cands;

/* in the reduction buffer: the offset lists (GS_CDS_MAX_DIAGS uint32 per candidate, offset +
 * shift at the position its insert counted), the totals (unsigned long long slots), then the
 * tables (FEAT_TABLE uint32 per candidate) */
#define FEAT_LISTS (GS_CDS_DETECT_MAX * GS_CDS_MAX_DIAGS)
enum {
    ACC_LEN2 = 0, /* sum of squared row lengths */
    ACC_EMPTY,    /* empty rows */
    ACC_MAX,      /* longest row */
    ACC_MINC,     /* UINT32_MAX - shortest row (a max, so that zero is the start) */
    ACC_BW,       /* max |j - i| */
    ACC_SAT,      /* bit q: candidate q has more than its cap of offsets */
    ACC_K,        /* GS_CDS_DETECT_MAX counts of distinct offsets */
    ACC_N = ACC_K + GS_CDS_DETECT_MAX
};

/* a full 32-bit mix: the tables take the low bits, and a stencil's offsets often differ by
 * multiples of 2^16 (a 256^3 grid's +-65536), which a plain multiplicative hash would put on
 * one slot */
static __device__ __forceinline__ uint32_t hash(uint32_t u)
{
    u ^= u >> 16;
    u *= 0x7feb352du;
    u ^= u >> 15;
    u *= 0x846ca68bu;
    u ^= u >> 16;
    return u;
}

/* the largest row r in [lo, hi] with rowptr[r] <= e (the row holding entry e) */
static __device__ int32_t row_of(const int32_t *__restrict__ rowptr, int32_t lo, int32_t hi,
                                 int64_t e)
{
    while (lo < hi) {
        const int32_t mid = lo + (hi - lo + 1) / 2;
        if (__ldg(rowptr + mid) <= e)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* candidate q is saturated (more than its cap of offsets): for this block and for all.
 * Only the block's first lane to get here sets the global bit: the lanes that race past the
 * cap together (up to a warp per step) would otherwise each send an atomic to the one word
 * that every block of an unstructured matrix hits at about the same time. */
static __device__ void saturate(int q, unsigned *s_sat, unsigned long long *acc)
{
    const unsigned bit = 1u << q;
    if ((*(volatile unsigned *)s_sat & bit) || (atomicOr(s_sat, bit) & bit)) return;
    atomicOr(acc + ACC_SAT, 1ull << q);
}

/* u into the block's set of candidate q, whose cap is cap (lane-private, no warp-wide
 * operation inside) */
static __device__ void set_add(uint32_t u, int q, int cap, uint32_t (*s_set)[FEAT_SET], int *s_n,
                               unsigned *s_sat, unsigned long long *acc)
{
    volatile uint32_t *set = s_set[q];
    const uint32_t h = hash(u);
    /* a saturated set is not searched: past the cap, concurrent inserts may have made long runs
     * of taken slots, and an unstructured matrix would walk them for every entry */
    if (((volatile int *)s_n)[q] > cap) return;
    for (int p = 0; p < FEAT_SET; p++) {
        const int at = (int)((h + (uint32_t)p) & (FEAT_SET - 1));
        uint32_t v = set[at];
        if (v == u) return;
        if (v == 0) {
            if (((volatile int *)s_n)[q] > cap) return; /* saturated already */
            v = atomicCAS(&s_set[q][at], 0u, u);
            if (v == 0) {
                if (atomicAdd(&s_n[q], 1) + 1 > cap) saturate(q, s_sat, acc);
                return;
            }
            if (v == u) return;
        }
    }
    saturate(q, s_sat, acc); /* full: more than the cap */
}

/* u into candidate q's global table; the insert that makes the count pass the cap (exactly one)
 * marks the candidate saturated (the table cannot fill before the count passes the cap, but a
 * full table would mean the same), those under it write u at their count's place in q's list,
 * those past it only count. A short walk does not look at the saturation (every block's merge
 * would load that word for each of its offsets; the caller looks once), but blocks merging at
 * the same time go on inserting after the count has passed the cap, and where each block sees
 * few offsets but all together are thousands (offsets drifting along the rows) the table fills
 * and walks grow long: every FEAT_TABLE_LOOK probes a walk looks at the count and stops once it
 * is past the cap (saturated; the insert that passed it sets the bit). */
#define FEAT_TABLE_LOOK 8
static __device__ void table_add(uint32_t u, int q, int cap, uint32_t *table,
                                 unsigned long long *acc, uint32_t *list)
{
    uint32_t *t = table + (size_t)q * FEAT_TABLE;
    const uint32_t h = hash(u);
    for (int p = 0; p < FEAT_TABLE; p++) {
        if (p > 0 && p % FEAT_TABLE_LOOK == 0 && __ldcg(acc + ACC_K + q) > (unsigned)cap) return;
        uint32_t *slot = t + ((h + (uint32_t)p) & (FEAT_TABLE - 1));
        uint32_t v = __ldcg(slot);
        if (v == 0) v = atomicCAS(slot, 0u, u);
        if (v == 0) { /* inserted: a new offset */
            const unsigned long long n = atomicAdd(acc + ACC_K + q, 1ull);
            if (n < (unsigned)cap)
                list[q * GS_CDS_MAX_DIAGS + n] = u;
            else if (n == (unsigned)cap)
                atomicOr(acc + ACC_SAT, 1ull << q);
            return;
        }
        if (v == u) return; /* there already */
    }
    atomicOr(acc + ACC_SAT, 1ull << q);
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

/* the row-length totals, then warp by warp the entries' offsets (file comment) */
static __global__ void features_kernel(int32_t rows, int32_t nnz, int64_t chunk,
                                       const int32_t *__restrict__ rowptr,
                                       const int32_t *__restrict__ colind, feat_cands cand,
                                       unsigned long long *acc, uint32_t *table, uint32_t *list)
{
    __shared__ uint32_t s_set[GS_CDS_DETECT_MAX][FEAT_SET];
    __shared__ int s_n[GS_CDS_DETECT_MAX];
    __shared__ unsigned s_sat;
    __shared__ unsigned long long s_acc[GS_CUDA_THREADS / 32][5];
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    const int64_t nthreads = (int64_t)gridDim.x * blockDim.x;
    unsigned long long len2 = 0, empty = 0, maxlen = 0, minc = 0, bw = 0;

    for (int t = threadIdx.x; t < cand.n * FEAT_SET; t += blockDim.x) /* the others unused */
        s_set[t / FEAT_SET][t % FEAT_SET] = 0;
    if (threadIdx.x < GS_CDS_DETECT_MAX) s_n[threadIdx.x] = 0;
    if (threadIdx.x == 0) s_sat = 0;
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
        int32_t r0 = row_of(rowptr, 0, rows - 1, e0);
        int64_t cur = e0;
        while (cur < e1) {
            /* the window: rp = end of row r0 + lane */
            const int64_t w = (int64_t)r0 + 1 + lane;
            const int32_t rp = w <= rows ? __ldg(rowptr + w) : INT32_MAX;
            const int32_t last = __shfl_sync(0xffffffffu, rp, 31);
            const int64_t wend = last < e1 ? last : e1;
            /* the candidates still counted (uniform over the warp) */
            const unsigned sat = __shfl_sync(
                0xffffffffu,
                lane == 0 ? (unsigned)__ldcg(acc + ACC_SAT) | *(volatile unsigned *)&s_sat : 0u, 0);
            for (int64_t base = cur; base < wend; base += 32 * FEAT_UNROLL) {
                int32_t iv[FEAT_UNROLL], jv[FEAT_UNROLL];
                bool okv[FEAT_UNROLL];
#pragma unroll
                for (int u = 0; u < FEAT_UNROLL; u++) {
                    const int64_t k = base + 32 * u + lane;
                    int c = 0; /* rows of the window ending at or before k (k < last) */
                    for (int step = 16; step >= 1; step >>= 1)
                        if (__shfl_sync(0xffffffffu, rp, c + step - 1) <= k) c += step;
                    okv[u] = k < wend;
                    iv[u] = r0 + c;
                    jv[u] = okv[u] ? __ldg(colind + k) : 0;
                }
#pragma unroll
                for (int u = 0; u < FEAT_UNROLL; u++)
                    if (okv[u]) {
                        const unsigned long long d =
                            (unsigned long long)(jv[u] > iv[u] ? jv[u] - iv[u] : iv[u] - jv[u]);
                        bw = d > bw ? d : bw;
                    }
#pragma unroll
                for (int q = 0; q < GS_CDS_DETECT_MAX; q++) {
                    if (q >= cand.n || ((sat >> q) & 1u)) continue; /* uniform */
                    const int bq = cand.b[q];
#pragma unroll
                    for (int u = 0; u < FEAT_UNROLL; u++) {
                        const uint32_t o = gs_div_small((uint32_t)jv[u], bq) + cand.shift[q] -
                                           gs_div_small((uint32_t)iv[u], bq);
                        /* the first three probes find a known offset (a stencil's few
                         * offsets seldom sit further: no lane diverges into set_add for
                         * them); set_add does the rest */
                        const volatile uint32_t *set = s_set[q];
                        const uint32_t h = hash(o);
                        if (okv[u] && set[h & (FEAT_SET - 1)] != o &&
                            set[(h + 1) & (FEAT_SET - 1)] != o && set[(h + 2) & (FEAT_SET - 1)] != o)
                            set_add(o, q, cand.cap[q], s_set, s_n, &s_sat, acc);
                    }
                }
            }
            cur = wend;
            r0 += 32;
        }
    }

    /* the block's sets into the global tables (candidates not saturated) */
    __syncthreads();
    const unsigned sat_end = (unsigned)__ldcg(acc + ACC_SAT) | *(volatile unsigned *)&s_sat;
    for (int t = threadIdx.x; t < cand.n * FEAT_SET; t += blockDim.x) {
        const int q = t / FEAT_SET;
        const uint32_t v = s_set[q][t % FEAT_SET];
        if (v != 0 && !((sat_end >> q) & 1u)) table_add(v, q, cand.cap[q], table, acc, list);
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
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (int)(blockDim.x >> 5); w++) {
            len2 += s_acc[w][0], empty += s_acc[w][1];
            maxlen = s_acc[w][2] > maxlen ? s_acc[w][2] : maxlen;
            minc = s_acc[w][3] > minc ? s_acc[w][3] : minc;
            bw = s_acc[w][4] > bw ? s_acc[w][4] : bw;
        }
        if (len2) atomicAdd(acc + ACC_LEN2, len2);
        if (empty) atomicAdd(acc + ACC_EMPTY, empty);
        atomicMax(acc + ACC_MAX, maxlen);
        atomicMax(acc + ACC_MINC, minc);
        atomicMax(acc + ACC_BW, bw);
    }
}

/* blocks of the feature kernel that fit on the device at once (computed once) */
static int resident_blocks(void)
{
    static int blocks;
    if (!blocks) {
        int sms = 0, per = 0;
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gs_cuda_g.device) !=
                cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, features_kernel, GS_CUDA_THREADS,
                                                          0) != cudaSuccess) {
            (void)cudaGetLastError();
            sms = 132, per = 4;
        }
        blocks = sms * (per > 0 ? per : 1);
    }
    return blocks;
}

/* the sums from the transferred lists and totals (h: FEAT_LISTS uint32, then ACC_N totals) */
static void sums_from(const gs_csr *A, const unsigned char *h, gs_feat_sums *s)
{
    const uint32_t *lists = (const uint32_t *)h;
    unsigned long long h_acc[ACC_N];
    memcpy(h_acc, h + FEAT_LISTS * sizeof(uint32_t), sizeof h_acc);
    s->len2 = h_acc[ACC_LEN2];
    s->empty = (int64_t)h_acc[ACC_EMPTY];
    s->max = (int32_t)h_acc[ACC_MAX];
    s->min = (int32_t)(0xffffffffull - h_acc[ACC_MINC]);
    s->bandwidth = (int64_t)h_acc[ACC_BW];
    for (int q = 0; q < s->ncand; q++) {
        const int64_t shift = A->rows / s->b[q];
        s->k[q] = (h_acc[ACC_SAT] >> q) & 1u ? GS_CDS_MAX_DIAGS + 1 : (int64_t)h_acc[ACC_K + q];
        for (int64_t t = 0; t < s->k[q] && s->k[q] <= GS_CDS_MAX_DIAGS; t++)
            s->off[q][t] = (int32_t)((int64_t)lists[q * GS_CDS_MAX_DIAGS + t] - shift);
    }
}

/* the feature pass over device matrix A (rows > 0): totals and the tried candidates' tables
 * reset, one kernel, the offset lists and totals to the host in one transfer */
extern "C" gs_status gs_features_cuda(const gs_csr *A, gs_feat_sums *s)
{
    gs_status st = GS_OK;
    gs_cuda_ctx *g = &gs_cuda_g;
    cudaStream_t stream = g->stream;
    feat_cands cand;
    uint32_t *list = (uint32_t *)g->d_part;
    unsigned long long *acc = (unsigned long long *)(list + FEAT_LISTS);
    uint32_t *table = (uint32_t *)(acc + ACC_N);
    const size_t back = FEAT_LISTS * sizeof(uint32_t) + ACC_N * sizeof(unsigned long long);
    static_assert(FEAT_LISTS * sizeof(uint32_t) % sizeof(unsigned long long) == 0,
                  "the totals must be aligned");
    static_assert(FEAT_LISTS * sizeof(uint32_t) + ACC_N * sizeof(unsigned long long) +
                          GS_CDS_DETECT_MAX * FEAT_TABLE * sizeof(uint32_t) <=
                      (size_t)GS_CUDA_RED_MAX * GS_CUDA_RED_BLOCKS * sizeof(double),
                  "the feature lists and tables must fit the reduction buffer");
    static_assert(FEAT_LISTS * sizeof(uint32_t) + ACC_N * sizeof(unsigned long long) <=
                      GS_CUDA_PINNED_BYTES,
                  "the lists and totals must fit the pinned transfer buffer");
    memset(&cand, 0, sizeof cand);
    cand.n = s->ncand;
    for (int q = 0; q < s->ncand; q++) {
        cand.b[q] = s->b[q];
        cand.shift[q] = (uint32_t)(A->rows / s->b[q]);
        cand.cap[q] = (int)gs_feat_cap(A->rows, A->nnz, s->b[q]);
    }
    GS_CUDA_CALL(cudaMemsetAsync(
        acc, 0, ACC_N * sizeof *acc + (size_t)cand.n * FEAT_TABLE * sizeof *table, stream));
    {
        /* as many warps as fit at once (fewer for a small matrix), each an equal chunk */
        const int64_t want =
            ((int64_t)(A->rows > A->nnz / 4 ? A->rows : A->nnz / 4) + GS_CUDA_THREADS - 1) /
            GS_CUDA_THREADS;
        const int64_t blocks = want < 1 ? 1 : want < resident_blocks() ? want : resident_blocks();
        const int64_t warps = blocks * (GS_CUDA_THREADS / 32);
        int64_t chunk = ((int64_t)A->nnz + warps - 1) / warps;
        chunk = chunk < 32 ? 32 : (chunk + 31) / 32 * 32;
        features_kernel<<<(unsigned)blocks, GS_CUDA_THREADS, 0, stream>>>(
            A->rows, A->nnz, chunk, A->rowptr, A->colind, cand, acc, table, list);
        GS_CUDA_LAUNCHED("features");
    }
    /* through the pinned buffer: one small copy, then wait for it */
    GS_CUDA_CALL(cudaMemcpyAsync(g->h_red, list, back, cudaMemcpyDeviceToHost, stream));
    GS_CUDA_CALL(cudaStreamSynchronize(stream));
    sums_from(A, (const unsigned char *)g->h_red, s);
done:
    return st;
}

/* gs_features_cuda.cu: the feature pass of gs_select.h over a device CSR matrix, in one kernel
 * and one transfer of a few integers.
 *
 * The kernel does two things with the same threads:
 *  - row lengths: a grid-stride loop over rowptr (sum of squares, min, max, empty rows);
 *  - entries: each warp takes a contiguous chunk of entries (a multiple of 32, so the work is
 *    even whatever the row lengths: a power-law row of thousands of entries is spread over
 *    many warps) and walks it 32 entries at a time. The row of each entry comes from a window
 *    of the 32 row ends after the row of the step's first entry, searched with five shuffles
 *    (a binary search in global memory only when 32 rows do not cover the step, i.e. many
 *    empty rows). Each entry marks its block offset J - I for every candidate block size in
 *    that candidate's bitmap, as CDS's detection does (gs_cds_cuda.cu): a bit already set is
 *    seen by an L2 read, the lanes that still need one bit elect a leader, and the leader's
 *    atomicOr that sets it adds one to the candidate's count. So a stencil matrix costs a few
 *    atomics in all and the pass reads rowptr and colind once (no values, no x): under one
 *    SpMV of memory traffic.
 * All sums are integers, so the features equal the host's exactly. Block and grid totals go
 * to global memory by one atomic per block and quantity.
 *
 * Scratch (bitmaps, counts, totals): the backend's reduction buffer when it fits (coarse AMG
 * levels: no allocation at all), else one cudaMalloc.
 */
#include <stdint.h>
#include <string.h>

#include "gs_cuda_impl.h"
#include "gs_select.h"

#define FEAT_BLOCKS 1024 /* most blocks of the feature kernel (grid-stride beyond) */

/* the candidate block sizes and their bitmap regions */
typedef struct feat_cands {
    int n;
    int b[GS_CDS_DETECT_MAX];
    int32_t shift[GS_CDS_DETECT_MAX]; /* nbr - 1: offset o has bit o + shift in its region */
    int64_t base[GS_CDS_DETECT_MAX];  /* first bit of candidate q's region (a multiple of 32) */
} feat_cands;

/* the totals the kernel accumulates (unsigned long long slots after the bitmaps) */
enum {
    ACC_LEN2 = 0, /* sum of squared row lengths */
    ACC_EMPTY,    /* empty rows */
    ACC_MAX,      /* longest row */
    ACC_MINC,     /* UINT32_MAX - shortest row (a max, so that zero is the start) */
    ACC_BW,       /* max |j - i| */
    ACC_K,        /* GS_CDS_DETECT_MAX counts of block diagonals */
    ACC_N = ACC_K + GS_CDS_DETECT_MAX
};

/* n / b for n >= 0 and a warp-uniform b: a constant divisor for b <= 8 */
static __device__ __forceinline__ int32_t div_small(int32_t n, int b)
{
    switch (b) {
    case 1: return n;
    case 2: return n / 2;
    case 3: return n / 3;
    case 4: return n / 4;
    case 5: return n / 5;
    case 6: return n / 6;
    case 7: return n / 7;
    case 8: return n / 8;
    default: return n / b;
    }
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

/* mark bit `bit` (need: not yet seen set) of the flags; the elected lane of each group of lanes
 * wanting the same bit sets it and counts it when it was the first; every lane of the warp
 * calls this */
static __device__ __forceinline__ void mark(bool need, long long bit, uint32_t *flags,
                                            unsigned long long *count, int lane)
{
    if (__any_sync(0xffffffffu, need)) {
        const unsigned peers = __match_any_sync(0xffffffffu, need ? bit : -1LL);
        if (need && lane == __ffs(peers) - 1) {
            const uint32_t m = 1u << (bit & 31);
            if (!(atomicOr(flags + (bit >> 5), m) & m)) atomicAdd(count, 1ull);
        }
    }
}

/* the row-length totals and, warp by warp, the entries' offsets (file comment) */
static __global__ void features_kernel(int32_t rows, int32_t nnz, int64_t chunk,
                                       const int32_t *__restrict__ rowptr,
                                       const int32_t *__restrict__ colind, feat_cands cand,
                                       uint32_t *flags, unsigned long long *acc)
{
    __shared__ unsigned long long s_acc[GS_CUDA_THREADS / 32][5];
    const int lane = threadIdx.x & 31, warp_in_block = threadIdx.x >> 5;
    const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    const int64_t nthreads = (int64_t)gridDim.x * blockDim.x;
    unsigned long long len2 = 0, empty = 0, maxlen = 0, minc = 0, bw = 0;

    for (int64_t i = tid; i < rows; i += nthreads) {
        const unsigned long long len = (unsigned long long)(__ldg(rowptr + i + 1) - __ldg(rowptr + i));
        len2 += len * len;
        empty += len == 0;
        maxlen = len > maxlen ? len : maxlen;
        const unsigned long long c = 0xffffffffull - len;
        minc = c > minc ? c : minc;
    }

    const int64_t e0 = (tid >> 5) * chunk, e1 = e0 + chunk < nnz ? e0 + chunk : nnz;
    if (e0 < e1) { /* warp-uniform */
        int32_t r0 = row_of(rowptr, 0, rows - 1, e0);
        for (int64_t base = e0; base < e1; base += 32) {
            const int64_t k = base + lane;
            const bool ok = k < e1;
            /* rp = end of row r0 + lane; c = rows of the window ending at or before k */
            const int64_t w = (int64_t)r0 + 1 + lane;
            const int32_t rp = w <= rows ? __ldg(rowptr + w) : INT32_MAX;
            int c = 0;
            for (int step = 16; step >= 1; step >>= 1) {
                const int32_t v = __shfl_sync(0xffffffffu, rp, c + step - 1);
                if (v <= k) c += step;
            }
            const int32_t last = __shfl_sync(0xffffffffu, rp, 31);
            if (c == 31 && last <= k) c = 32;
            int32_t i = r0 + c;
            if (ok && c == 32) i = row_of(rowptr, r0 + 32, rows - 1, k);
            const int32_t j = ok ? __ldg(colind + k) : 0;
            if (ok) {
                const unsigned long long d = (unsigned long long)(j > i ? j - i : i - j);
                bw = d > bw ? d : bw;
            }
#pragma unroll
            for (int q = 0; q < GS_CDS_DETECT_MAX; q++) {
                if (q < cand.n) { /* uniform */
                    const int bq = cand.b[q];
                    long long bit = -1;
                    bool need = false;
                    if (ok) {
                        bit = cand.base[q] + (div_small(j, bq) - div_small(i, bq)) + cand.shift[q];
                        need = !((__ldcg(flags + (bit >> 5)) >> (bit & 31)) & 1u);
                    }
                    mark(need, bit, flags, acc + ACC_K + q, lane);
                }
            }
            r0 = __shfl_sync(0xffffffffu, i, 31); /* the next step starts in or after it */
        }
    }

    len2 = warp_add(len2);
    empty = warp_add(empty);
    maxlen = warp_max(maxlen);
    minc = warp_max(minc);
    bw = warp_max(bw);
    if (lane == 0) {
        s_acc[warp_in_block][0] = len2, s_acc[warp_in_block][1] = empty;
        s_acc[warp_in_block][2] = maxlen, s_acc[warp_in_block][3] = minc;
        s_acc[warp_in_block][4] = bw;
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

/* the feature pass over device matrix A (rows > 0): bitmaps and totals zeroed, one kernel, the
 * totals to the host */
extern "C" gs_status gs_features_cuda(const gs_csr *A, gs_feat_sums *s)
{
    gs_status st = GS_OK;
    gs_cuda_ctx *g = &gs_cuda_g;
    cudaStream_t stream = g->stream;
    feat_cands cand;
    void *mine = NULL;
    unsigned long long h_acc[ACC_N];
    int64_t bits = 0;
    memset(&cand, 0, sizeof cand);
    cand.n = s->ncand;
    for (int q = 0; q < s->ncand; q++) {
        const int64_t nbr = A->rows / s->b[q], nbc = A->cols / s->b[q];
        cand.b[q] = s->b[q];
        cand.base[q] = bits;
        cand.shift[q] = (int32_t)(nbr - 1);
        bits += (nbr + nbc - 1 + 31) / 32 * 32;
    }
    const size_t flag_bytes = (size_t)(bits / 32) * sizeof(uint32_t);
    const size_t bytes = flag_bytes + ACC_N * sizeof(unsigned long long);
    const size_t have = (size_t)GS_CUDA_RED_MAX * GS_CUDA_RED_BLOCKS * sizeof(double);
    char *scratch = (char *)g->d_part;
    unsigned long long *acc = NULL;
    uint32_t *flags = NULL;
    if (bytes > have) {
        GS_CHECK(gs_cuda_alloc(bytes, "feature bitmaps", &mine));
        scratch = (char *)mine;
    }
    /* totals first (8-byte aligned at offset 0), bitmaps after them */
    acc = (unsigned long long *)scratch;
    flags = (uint32_t *)(scratch + ACC_N * sizeof(unsigned long long));
    GS_CUDA_CALL(cudaMemsetAsync(scratch, 0, bytes, stream));
    {
        const int64_t work = (int64_t)A->rows > (int64_t)A->nnz / 8 ? A->rows : A->nnz / 8;
        int64_t blocks = (work + GS_CUDA_THREADS - 1) / GS_CUDA_THREADS;
        blocks = blocks < 1 ? 1 : blocks > FEAT_BLOCKS ? FEAT_BLOCKS : blocks;
        const int64_t warps = blocks * (GS_CUDA_THREADS / 32);
        const int64_t chunk = ((int64_t)A->nnz + warps - 1) / warps;
        const int64_t chunk32 = (chunk + 31) / 32 * 32;
        features_kernel<<<(unsigned)blocks, GS_CUDA_THREADS, 0, stream>>>(
            A->rows, A->nnz, chunk32 > 0 ? chunk32 : 32, A->rowptr, A->colind, cand, flags, acc);
        GS_CUDA_LAUNCHED("features");
    }
    GS_CHECK(gs_cuda_d2h(h_acc, acc, sizeof h_acc)); /* waits for the kernel */
    s->len2 = h_acc[ACC_LEN2];
    s->empty = (int64_t)h_acc[ACC_EMPTY];
    s->max = (int32_t)h_acc[ACC_MAX];
    s->min = (int32_t)(0xffffffffull - h_acc[ACC_MINC]);
    s->bandwidth = (int64_t)h_acc[ACC_BW];
    for (int q = 0; q < s->ncand; q++) s->k[q] = (int64_t)h_acc[ACC_K + q];
done:
    gs_cuda_free(mine);
    return st;
}

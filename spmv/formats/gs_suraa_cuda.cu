/* gs_suraa_cuda.cu: the SURAA format on the device (gs_suraa.h): conversion and the ops table.
 * Conversion from a device CSR (row lengths, one CUB radix sort of (length desc, first column)
 * keys with the row ids, a scan, the Freedman-Diaconis statistics from a few values of the
 * sorted lengths, the rows moved into sorted order) and back to CSR. The plan kernel writes the
 * run, span and length tables (gs_suraa_cuda_impl.cuh) that the SpMV's group kernels
 * (gs_suraa_spmv_cuda.cu) read. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cub/cub.cuh>

#include "gs_cuda_impl.h"
#include "gs_cuda_move.cuh"
#include "gs_cuda_scan.cuh"
#include "gs_suraa.h"
#include "gs_suraa_cuda_impl.cuh"

/* the group streams (gs_suraa_cuda_impl.cuh), made by streams_ready */
suraa_streams gs_suraa_sx;

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

/* gs_suraa_sx made (once) */
static gs_status streams_ready(void)
{
    gs_status st = GS_OK;
    if (gs_suraa_sx.ready) return GS_OK;
    for (int i = 0; i < 3; i++) {
        if (!gs_suraa_sx.s[i])
            GS_CUDA_CALL(cudaStreamCreateWithFlags(&gs_suraa_sx.s[i], cudaStreamNonBlocking));
        if (!gs_suraa_sx.join[i])
            GS_CUDA_CALL(cudaEventCreateWithFlags(&gs_suraa_sx.join[i], cudaEventDisableTiming));
    }
    if (!gs_suraa_sx.fork)
        GS_CUDA_CALL(cudaEventCreateWithFlags(&gs_suraa_sx.fork, cudaEventDisableTiming));
    if (!gs_suraa_sx.planned)
        GS_CUDA_CALL(cudaEventCreateWithFlags(&gs_suraa_sx.planned, cudaEventDisableTiming));
    gs_suraa_sx.ready = 1;
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

/* queue the plan (plan_kernel, from the sorted lengths len and rowptr) and record
 * gs_suraa_sx.planned after it */
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
    GS_CUDA_CALL(cudaEventRecord(gs_suraa_sx.planned, s));
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
    GS_CUDA_CALL(cudaEventSynchronize(gs_suraa_sx.planned));
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

static double bytes(const void *M)
{
    return gs_suraa_bytes((const gs_suraa *)M);
}

static void describe(const void *M, char *buf, size_t len)
{
    gs_suraa_describe((const gs_suraa *)M, buf, len);
}

extern "C" const gs_format_ops gs_suraa_cuda_ops = {"suraa", from_csr, to_csr, gs_suraa_cuda_spmv,
                                                    bytes,   describe, destroy};

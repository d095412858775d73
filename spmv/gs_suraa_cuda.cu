/* gs_suraa_cuda.cu: the SURAA format on the device (gs_suraa.h): conversion from a device CSR
 * (row lengths, one CUB radix sort of (length desc, first column) keys with the row ids, a
 * scan, the Freedman-Diaconis statistics from a few values of the sorted lengths, the rows
 * moved into sorted order), back to CSR, and the SpMV: G1, G2, G3 each on its own stream.
 * G1's dynamic-parallelism kernels live in gs_suraa_dp_cuda.cu (relocatable device code).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cub/cub.cuh>

#include "gs_cuda_impl.h"
#include "gs_suraa.h"

#define SCALAR_THREADS 256 /* threads of a G3 block (Alg. 5: blocks of 256) */

extern "C" cudaError_t gs_suraa_dp_spmv(int32_t n1, const int32_t *perm, const int32_t *rowptr,
                                        const int32_t *colind, const double *val, const double *x,
                                        double *y, double *part, unsigned int *cnt, cudaStream_t s);

/* What a device SURAA keeps besides its arrays: the child grids' scratch (G1 dynamic). */
typedef struct suraa_dev {
    double *part;      /* partial sums of multi-block child grids */
    unsigned int *cnt; /* one finished-block counter per G1 row */
} suraa_dev;

/* The three group streams and the events that fork them from gs_cuda_g.stream and join them
 * back, made once for the process (the backend has one host thread; an event is waited on
 * as last recorded, so matrices can share them). */
static struct {
    int ready;
    cudaStream_t s[3];
    cudaEvent_t fork, join[3];
} g_sx;

/* ------------------------------------------------------------------ SpMV kernels */

/* sum of v over the block, valid in thread 0 (blockDim a multiple of 32, ws[32] shared) */
static __device__ double block_sum(double v, double *ws)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0) ws[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nw ? ws[lane] : 0.0;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    }
    return v;
}

/* G1 without dynamic parallelism: block b computes sorted row b (y[perm[b]]) */
static __global__ void suraa_block_row(const int32_t *__restrict__ perm,
                                       const int32_t *__restrict__ rowptr,
                                       const int32_t *__restrict__ colind,
                                       const double *__restrict__ val, const double *__restrict__ x,
                                       double *__restrict__ y)
{
    __shared__ double ws[32];
    const int32_t q = blockIdx.x;
    const int64_t end = __ldg(rowptr + q + 1);
    double s = 0.0;
    for (int64_t k = __ldg(rowptr + q) + threadIdx.x; k < end; k += blockDim.x)
        s += __ldg(val + k) * __ldg(x + __ldg(colind + k));
    s = block_sum(s, ws);
    if (threadIdx.x == 0) y[__ldg(perm + q)] = s;
}

/* G2 (Alg. 6): Y threads (a multiple of 32) per sorted row of [p0, p1), blockDim / Y rows per
 * block; warp shuffles, then the row's warp sums through shared memory */
static __global__ void suraa_vector(int32_t p0, int32_t p1, int Y, const int32_t *__restrict__ perm,
                                    const int32_t *__restrict__ rowptr,
                                    const int32_t *__restrict__ colind,
                                    const double *__restrict__ val, const double *__restrict__ x,
                                    double *__restrict__ y)
{
    __shared__ double ws[32];
    const int R = blockDim.x / Y, r = threadIdx.x / Y, lane = threadIdx.x - r * Y;
    const int64_t q = p0 + (int64_t)blockIdx.x * R + r;
    double s = 0.0;
    if (q < p1) {
        const int64_t end = __ldg(rowptr + q + 1);
        for (int64_t k = __ldg(rowptr + q) + lane; k < end; k += Y)
            s += __ldg(val + k) * __ldg(x + __ldg(colind + k));
    }
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    if ((threadIdx.x & 31) == 0) ws[threadIdx.x >> 5] = s;
    __syncthreads();
    if (lane == 0 && q < p1) {
        double t = 0.0;
        for (int w = 0; w < Y / 32; w++) t += ws[(threadIdx.x >> 5) + w];
        y[__ldg(perm + q)] = t;
    }
}

/* G3 (Alg. 5): one thread per sorted row of [p0, p1); the rows of a warp are consecutive and
 * about equally long, so its loads stay within one contiguous stretch of colind/val */
static __global__ void suraa_scalar(int32_t p0, int32_t p1, const int32_t *__restrict__ perm,
                                    const int32_t *__restrict__ rowptr,
                                    const int32_t *__restrict__ colind,
                                    const double *__restrict__ val, const double *__restrict__ x,
                                    double *__restrict__ y)
{
    const int64_t q = p0 + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (q >= p1) return;
    const int32_t end = __ldg(rowptr + q + 1);
    double s = 0.0;
#pragma unroll 4
    for (int32_t k = __ldg(rowptr + q); k < end; k++)
        s += __ldg(val + k) * __ldg(x + __ldg(colind + k));
    y[__ldg(perm + q)] = s;
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

/* key[i] = (maxlen - len_i) << cbits | first column of row i (0 when empty), id[i] = i: an
 * ascending sort gives length desc, first column asc, and (stable) row asc */
static __global__ void key_kernel(int32_t m, int32_t maxlen, int cbits,
                                  const int32_t *__restrict__ rp, const int32_t *__restrict__ ci,
                                  uint64_t *key, int32_t *id)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m;
         i += (int64_t)gridDim.x * blockDim.x) {
        int32_t b = __ldg(rp + i), l = __ldg(rp + i + 1) - b;
        uint32_t fc = l > 0 ? (uint32_t)__ldg(ci + b) : 0u;
        key[i] = ((uint64_t)(uint32_t)(maxlen - l) << cbits) | fc;
        id[i] = (int32_t)i;
    }
}

/* len[q] = length of sorted row q from its key, len[m] = 0 (for the scan into rowptr) */
static __global__ void sorted_len_kernel(int32_t m, int32_t maxlen, int cbits,
                                         const uint64_t *__restrict__ key, int32_t *len)
{
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q <= m;
         q += (int64_t)gridDim.x * blockDim.x)
        len[q] = q < m ? maxlen - (int32_t)(key[q] >> cbits) : 0;
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

/* count[c] += segments of class c (segments of S sorted rows; shared histogram per block) */
static __global__ void class_hist_kernel(int32_t m, int32_t S, int32_t nseg,
                                         const int32_t *__restrict__ srp, unsigned long long *count)
{
    __shared__ unsigned int h[GS_SURAA_CLASSES];
    for (int c = threadIdx.x; c < GS_SURAA_CLASSES; c += blockDim.x) h[c] = 0;
    __syncthreads();
    for (int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; s < nseg;
         s += (int64_t)gridDim.x * blockDim.x) {
        int64_t b = s * S, e = b + S < m ? b + S : m;
        atomicAdd(&h[seg_class((double)(srp[e] - srp[b]) / (double)(e - b))], 1u);
    }
    __syncthreads();
    for (int c = threadIdx.x; c < GS_SURAA_CLASSES; c += blockDim.x)
        if (h[c]) atomicAdd(count + c, (unsigned long long)h[c]);
}

/* move the rows between original and sorted order, 2^l lanes per row: to_sorted, sorted row
 * q <- original row perm[q] (srp <- orp); else original row perm[q] <- sorted row q */
static __global__ void
move_rows_kernel(int32_t m, int l, int to_sorted, const int32_t *__restrict__ perm,
                 const int32_t *__restrict__ srp, const int32_t *__restrict__ orp,
                 const int32_t *__restrict__ ci_in, const double *__restrict__ v_in,
                 int32_t *ci_out, double *v_out)
{
    const int lanes = 1 << l;
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; (t >> l) < m;
         t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t q = t >> l;
        const int32_t o = perm[q], len = srp[q + 1] - srp[q];
        const int64_t src = to_sorted ? orp[o] : srp[q], dst = to_sorted ? srp[q] : orp[o];
        for (int32_t k = (int32_t)(t & (lanes - 1)); k < len; k += lanes) {
            ci_out[dst + k] = ci_in[src + k];
            v_out[dst + k] = v_in[src + k];
        }
    }
}

/* lanes per row of move_rows: log2 of the smallest power of two >= the mean length, <= 32 */
static int move_lanes_log2(int64_t nnz, int64_t m)
{
    double mean = m > 0 ? (double)nnz / (double)m : 0.0;
    int l = 0;
    while (l < 5 && (double)(1 << l) < mean) l++;
    return l;
}

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
    GS_CUDA_CALL(cudaStreamSynchronize(gs_cuda_g.stream));
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
        gs_free(d);
    }
    gs_cuda_free(M->perm);
    gs_cuda_free(M->rowptr);
    gs_cuda_free(M->colind);
    gs_cuda_free(M->val);
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
    g_sx.ready = 1;
done:
    return st; /* on failure the ones made are kept and the rest retried next time */
}

/* the streams, and for dynamic G1 the children's scratch and a device launch pool large
 * enough for one child grid per G1 row */
static gs_status make_dev_state(gs_suraa *M)
{
    gs_status st = GS_OK;
    suraa_dev *d = NULL;
    size_t pool = 0;
    GS_CHECK(streams_ready());
    GS_CHECK(gs_alloc_array(1, sizeof *d, "SURAA device state", (void **)&d));
    memset(d, 0, sizeof *d);
    M->dev = d;
    if (!M->g1_dynamic || M->g1_end == 0) return GS_OK;
    {
        size_t nparts = (size_t)(M->g1_nnz / GS_SURAA_CHILD_CHUNK) + (size_t)M->g1_end + 1;
        GS_CHECK(gs_cuda_alloc(nparts * sizeof(double), "SURAA child sums", (void **)&d->part));
    }
    GS_CHECK(gs_cuda_alloc((size_t)M->g1_end * sizeof(unsigned int), "SURAA child counters",
                           (void **)&d->cnt));
    GS_CUDA_CALL(
        cudaMemsetAsync(d->cnt, 0, (size_t)M->g1_end * sizeof(unsigned int), gs_cuda_g.stream));
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
    unsigned long long *count; /* GS_SURAA_CLASSES segment counts */
    unsigned int *max;         /* longest row */
    void *cub;                 /* CUB scratch */
    size_t cub_bytes;
} conv_tmp;

static size_t align256(size_t b)
{
    return (b + 255) & ~(size_t)255;
}

/* t = the scratch for m rows; CUB's share sized for a sort of full 64-bit keys, which bounds
 * the sort of fewer bits (passes = bits / 8) */
static gs_status conv_tmp_alloc(int64_t m, conv_tmp *t)
{
    gs_status st = GS_OK;
    size_t sort_b = 0, scan_b = 0, a_keys = align256((size_t)m * 8),
           a_ids = align256((size_t)m * 4);
    size_t a_len = align256(((size_t)m + 1) * 4), a_cnt = align256((GS_SURAA_CLASSES + 1) * 8);
    cub::DoubleBuffer<uint64_t> kq(NULL, NULL);
    cub::DoubleBuffer<int32_t> vq(NULL, NULL);
    memset(t, 0, sizeof *t);
    GS_CUDA_CALL(
        cub::DeviceRadixSort::SortPairs(NULL, sort_b, kq, vq, (int)m, 0, 64, gs_cuda_g.stream));
    GS_CUDA_CALL(cub::DeviceScan::ExclusiveSum(NULL, scan_b, (int32_t *)NULL, (int32_t *)NULL,
                                               m + 1, gs_cuda_g.stream));
    t->cub_bytes = sort_b > scan_b ? sort_b : scan_b;
    GS_CHECK(gs_cuda_alloc(2 * a_keys + a_ids + a_len + a_cnt + t->cub_bytes, "SURAA scratch",
                           (void **)&t->base));
    t->k0 = (uint64_t *)t->base;
    t->k1 = (uint64_t *)(t->base + a_keys);
    t->ids = (int32_t *)(t->base + 2 * a_keys);
    t->len = (int32_t *)(t->base + 2 * a_keys + a_ids);
    t->count = (unsigned long long *)(t->base + 2 * a_keys + a_ids + a_len);
    t->max = (unsigned int *)(t->count + GS_SURAA_CLASSES);
    t->cub = t->base + 2 * a_keys + a_ids + a_len + a_cnt;
done:
    return st;
}

/* perm (rows of A by length desc, first column asc, row asc), the sorted rowptr, max_len */
static gs_status sort_rows(const gs_csr *A, gs_suraa *M, conv_tmp *t)
{
    gs_status st = GS_OK;
    const int32_t m = A->rows;
    cudaStream_t s = gs_cuda_g.stream;
    size_t sort_b = 0, scan_b = 0;
    unsigned int maxlen = 0;
    void *dst[1] = {&maxlen};
    const void *src[1] = {t->max};
    size_t nb[1] = {sizeof maxlen};
    cub::DoubleBuffer<uint64_t> keys(t->k0, t->k1);
    cub::DoubleBuffer<int32_t> vals(M->perm, t->ids);
    GS_CUDA_CALL(cudaMemsetAsync(t->max, 0, sizeof *t->max, s));
    max_len_kernel<<<gs_cuda_grid(m), GS_CUDA_THREADS, 0, s>>>(m, A->rowptr, t->max);
    GS_CUDA_LAUNCHED("suraa max_len");
    GS_CHECK(read_small(1, dst, src, nb));
    M->max_len = (int32_t)maxlen;
    {
        const int cbits = bits_for(A->cols > 1 ? (uint64_t)(A->cols - 1) : 0);
        const int end_bit = bits_for(maxlen) + cbits; /* <= 62 */
        key_kernel<<<gs_cuda_grid(m), GS_CUDA_THREADS, 0, s>>>(m, (int32_t)maxlen, cbits, A->rowptr,
                                                               A->colind, t->k0, M->perm);
        GS_CUDA_LAUNCHED("suraa keys");
        if (end_bit > 0) { /* else every key is 0: the identity order */
            GS_CUDA_CALL(
                cub::DeviceRadixSort::SortPairs(NULL, sort_b, keys, vals, m, 0, end_bit, s));
            if (sort_b > t->cub_bytes)
                GS_FAIL(GS_ERR_INTERNAL, "suraa: CUB sort scratch %zu bytes > %zu reserved", sort_b,
                        t->cub_bytes);
            GS_CUDA_CALL(
                cub::DeviceRadixSort::SortPairs(t->cub, sort_b, keys, vals, m, 0, end_bit, s));
        }
        if (vals.Current() != M->perm)
            GS_CUDA_CALL(cudaMemcpyAsync(M->perm, vals.Current(), (size_t)m * sizeof(int32_t),
                                         cudaMemcpyDeviceToDevice, s));
        sorted_len_kernel<<<gs_cuda_grid((int64_t)m + 1), GS_CUDA_THREADS, 0, s>>>(
            m, (int32_t)maxlen, cbits, keys.Current(), t->len);
        GS_CUDA_LAUNCHED("suraa sorted lengths");
        scan_b = t->cub_bytes;
        GS_CUDA_CALL(
            cub::DeviceScan::ExclusiveSum(t->cub, scan_b, t->len, M->rowptr, (int64_t)m + 1, s));
    }
done:
    return st;
}

/* IQR, segment size, class counts (one small kernel), groups, G1 entries and kernel;
 * len = sorted lengths, d_count = GS_SURAA_CLASSES device counters */
static gs_status plan(gs_suraa *M, const gs_format_params *p, const int32_t *len,
                      unsigned long long *d_count)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    int64_t hi, lo, count[GS_SURAA_CLASSES];
    int32_t qv[2] = {0, 0}, g1_nnz = 0;
    unsigned long long hc[GS_SURAA_CLASSES];
    gs_suraa_quartiles(M->rows, &hi, &lo);
    {
        void *dst[2] = {&qv[0], &qv[1]};
        const void *src[2] = {len + hi, len + lo};
        size_t nb[2] = {sizeof(int32_t), sizeof(int32_t)};
        GS_CHECK(read_small(2, dst, src, nb));
    }
    M->iqr = qv[0] - qv[1];
    M->seg_size = gs_suraa_segment_size(M->rows, M->iqr);
    M->nseg = (int32_t)(((int64_t)M->rows + M->seg_size - 1) / M->seg_size);
    GS_CUDA_CALL(cudaMemsetAsync(d_count, 0, sizeof hc, s));
    class_hist_kernel<<<gs_cuda_grid(M->nseg), GS_CUDA_THREADS, 0, s>>>(
        M->rows, M->seg_size, M->nseg, M->rowptr, d_count);
    GS_CUDA_LAUNCHED("suraa segment classes");
    {
        void *dst[1] = {hc};
        const void *src[1] = {d_count};
        size_t nb[1] = {sizeof hc};
        GS_CHECK(read_small(1, dst, src, nb));
    }
    for (int c = 0; c < GS_SURAA_CLASSES; c++) count[c] = (int64_t)hc[c];
    gs_suraa_plan_groups(M, count, p);
    if (M->g1_end > 0) {
        void *dst[1] = {&g1_nnz};
        const void *src[1] = {M->rowptr + M->g1_end};
        size_t nb[1] = {sizeof g1_nnz};
        GS_CHECK(read_small(1, dst, src, nb));
    }
    M->g1_nnz = g1_nnz;
    gs_suraa_plan_g1(M, p);
done:
    return st;
}

/* device CSR -> SURAA (Alg. 2 on the device): sort, scan, data in sorted order, plan */
static gs_status from_csr(const gs_csr *A, const gs_format_params *p, void **out)
{
    gs_status st = GS_OK;
    gs_suraa *M = NULL;
    conv_tmp t;
    const int64_t m = A->rows;
    *out = NULL;
    t.base = NULL;
    if (A->loc != GS_LOC_DEVICE) return GS_ERROR(GS_ERR_ARG, "suraa (device): a host matrix");
    GS_CHECK(gs_alloc_array(1, sizeof *M, "SURAA matrix", (void **)&M));
    memset(M, 0, sizeof *M);
    M->rows = A->rows, M->cols = A->cols, M->nnz = A->nnz, M->loc = GS_LOC_DEVICE;
    M->seg_size = 1;
    GS_CHECK(gs_cuda_alloc((size_t)m * 4, "SURAA perm", (void **)&M->perm));
    GS_CHECK(gs_cuda_alloc(((size_t)m + 1) * 4, "SURAA rowptr", (void **)&M->rowptr));
    GS_CHECK(gs_cuda_alloc((size_t)A->nnz * 4, "SURAA columns", (void **)&M->colind));
    GS_CHECK(gs_cuda_alloc((size_t)A->nnz * 8, "SURAA values", (void **)&M->val));
    if (m == 0) {
        GS_CUDA_CALL(cudaMemsetAsync(M->rowptr, 0, sizeof(int32_t), gs_cuda_g.stream));
    } else {
        GS_CHECK(conv_tmp_alloc(m, &t));
        GS_CHECK(sort_rows(A, M, &t));
        if (A->nnz > 0) { /* queued before the plan's small reads, so they overlap it */
            int l = move_lanes_log2(A->nnz, m);
            move_rows_kernel<<<gs_cuda_grid(m << l), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(
                A->rows, l, 1, M->perm, M->rowptr, A->rowptr, A->colind, A->val, M->colind, M->val);
            GS_CUDA_LAUNCHED("suraa move rows");
        }
        GS_CHECK(plan(M, p, t.len, t.count));
    }
    GS_CHECK(make_dev_state(M));
    *out = M;
    M = NULL;
done:
    if (t.base) {
        (void)cudaStreamSynchronize(gs_cuda_g.stream); /* cudaFree waits too; say it here */
        gs_cuda_free(t.base);
    }
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
    void *cub_tmp = NULL;
    size_t scan_b = 0;
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
        GS_CUDA_CALL(cub::DeviceScan::ExclusiveSum(NULL, scan_b, len, rp, m + 1, s));
        GS_CHECK(gs_cuda_alloc(scan_b, "CUB scratch", &cub_tmp));
        GS_CUDA_CALL(cub::DeviceScan::ExclusiveSum(cub_tmp, scan_b, len, rp, m + 1, s));
        if (M->nnz > 0) {
            int l = move_lanes_log2(M->nnz, m);
            move_rows_kernel<<<gs_cuda_grid(m << l), GS_CUDA_THREADS, 0, s>>>(
                M->rows, l, 0, M->perm, M->rowptr, rp, M->colind, M->val, ci, v);
            GS_CUDA_LAUNCHED("suraa move rows back");
        }
        GS_CUDA_CALL(cudaStreamSynchronize(s));
    }
    st = gs_cuda_csr_adopt(M->rows, M->cols, M->nnz, rp, ci, v, out);
    rp = NULL, ci = NULL, v = NULL; /* adopted, or freed by the failed adopt */
done:
    if (len || cub_tmp) (void)cudaStreamSynchronize(s);
    gs_cuda_free(len);
    gs_cuda_free(cub_tmp);
    gs_cuda_free(rp);
    gs_cuda_free(ci);
    gs_cuda_free(v);
    return st;
}

/* ------------------------------------------------------------------ SpMV */

/* y = M*x: G1 (child grids or a block per row), G2 (one vector launch per run of equal Y),
 * G3 (scalar), each group on its own stream forked from and joined into gs_cuda_g.stream;
 * the longest rows are launched first, as they end last */
static gs_status spmv(const void *Mv, const double *x, double *y)
{
    gs_status st = GS_OK;
    const gs_suraa *M = (const gs_suraa *)Mv;
    const suraa_dev *d = (const suraa_dev *)M->dev;
    const int use[3] = {M->g1_end > 0, M->nruns > 0, M->rows > M->g2_end};
    const int fork = use[0] + use[1] + use[2] > 1;
    cudaStream_t s[3];
    if (M->rows == 0) return GS_OK;
    for (int i = 0; i < 3; i++) s[i] = fork ? g_sx.s[i] : gs_cuda_g.stream;
    if (fork) {
        GS_CUDA_CALL(cudaEventRecord(g_sx.fork, gs_cuda_g.stream));
        for (int i = 0; i < 3; i++)
            if (use[i]) GS_CUDA_CALL(cudaStreamWaitEvent(s[i], g_sx.fork, 0));
    }
    if (use[0] && M->g1_dynamic) {
        GS_CUDA_CALL(gs_suraa_dp_spmv(M->g1_end, M->perm, M->rowptr, M->colind, M->val, x, y,
                                      d->part, d->cnt, s[0]));
    } else if (use[0]) {
        suraa_block_row<<<M->g1_end, M->g1_threads, 0, s[0]>>>(M->perm, M->rowptr, M->colind,
                                                               M->val, x, y);
        GS_CUDA_LAUNCHED("suraa G1 block per row");
    }
    for (int r = 0; r < M->nruns; r++) {
        const gs_suraa_run *run = &M->runs[r];
        const int R = run->threads < 256 ? 256 / run->threads : 1;
        const int64_t blocks = ((int64_t)run->end - run->begin + R - 1) / R;
        suraa_vector<<<(unsigned)blocks, R * run->threads, 0, s[1]>>>(
            run->begin, run->end, run->threads, M->perm, M->rowptr, M->colind, M->val, x, y);
        GS_CUDA_LAUNCHED("suraa G2 vector");
    }
    if (use[2]) {
        const int64_t n = (int64_t)M->rows - M->g2_end;
        suraa_scalar<<<(unsigned)((n + SCALAR_THREADS - 1) / SCALAR_THREADS), SCALAR_THREADS, 0,
                       s[2]>>>(M->g2_end, M->rows, M->perm, M->rowptr, M->colind, M->val, x, y);
        GS_CUDA_LAUNCHED("suraa G3 scalar");
    }
    if (fork)
        for (int i = 0; i < 3; i++)
            if (use[i]) {
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

/* gs_dcsr_cuda.cu: dynamic CSR on the device: allocation, conversion from and to CSR, parallel
 * insertion (Algorithms 1-2, a warp per row), defragmentation by prefix sum (Algorithm 4, CUB scan,
 * no sort), row bins (CUB radix sort on the bin label) and SpMV over segments (Algorithm 3), per
 * bin when binned (ADCSR). Everything runs on gs_cuda_g.stream; conversions, insertion and
 * defragmentation synchronize (they read a count back), SpMV does not. gs_dcsr.c reaches these
 * through the table gs_dcsr_cuda_ops (at the end); the device SpGEMM also calls
 * gs_dcsr_cuda_chunked_to_csr directly. */
#include <stdint.h>
#include <string.h>

#include <cub/cub.cuh>

#include "gs_cuda_impl.h"
#include "gs_cuda_move.cuh"
#include "gs_cuda_reduce.cuh"
#include "gs_cuda_scan.cuh"
#include "gs_dcsr.h"

#define WARPS_PER_BLOCK (GS_CUDA_THREADS / 32)
#define LONG_ROW_BIN 12 /* rows longer than 2^12 entries: one block per row in the SpMV */

/* blocks for a grid-stride loop with one warp per item */
static unsigned warp_grid(int64_t n)
{
    int64_t g = (n + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK;
    return (unsigned)(g < 1 ? 1 : g > 65536 ? 65536 : g);
}

static __device__ __forceinline__ int bin_of_dev(int64_t n)
{
    int b = 0;
    while (b < GS_DCSR_BINS - 1 && ((int64_t)1 << b) < n) b++;
    return b;
}

static gs_status dcsr_bin(gs_dcsr *D); /* (below; defrag reorders by it) */

static gs_status dcsr_alloc(gs_dcsr *D)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    /* the bump pointer, the segment table and the row sizes: one allocation and one memset
     * (freed through top) */
    const size_t btop = gs_align256(sizeof *D->top),
                 boff = (size_t)(D->k * D->pitch) * sizeof(int32_t);
    const size_t bytes = btop + boff + ((size_t)D->rows + 1) * sizeof(int32_t);
    char *base = NULL;
    GS_CHECK(gs_cuda_alloc(bytes, "DCSR segment table and row sizes", (void **)&base));
    D->top = (unsigned long long *)base;
    D->offsets = (int32_t *)(base + btop);
    D->sizes = (int32_t *)(base + btop + boff);
    GS_CHECK(gs_cuda_alloc((size_t)D->capacity * sizeof(int32_t), "DCSR column indices",
                           (void **)&D->colind));
    GS_CHECK(gs_cuda_alloc((size_t)D->capacity * sizeof(double), "DCSR values", (void **)&D->val));
    GS_CUDA_CALL(cudaMemsetAsync(base, 0, bytes, s));
done:
    return st; /* on failure the caller's destroy frees what was allocated */
}

static void dcsr_free(gs_dcsr *D)
{
    gs_cuda_free(D->top); /* with offsets and sizes (dcsr_alloc) */
    gs_cuda_free(D->colind);
    gs_cuda_free(D->val);
    gs_cuda_free(D->perm);
    D->offsets = D->sizes = D->colind = D->perm = NULL;
    D->val = NULL;
    D->top = NULL;
}

/* segment 0 of row i = CSR row i; *top = nnz */
static __global__ void from_csr_kernel(int32_t rows, const int32_t *__restrict__ rowptr,
                                       int32_t *offsets, int32_t *sizes, unsigned long long *top)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x) {
        int32_t b = rowptr[i], e = rowptr[i + 1];
        offsets[2 * i] = b;
        offsets[2 * i + 1] = e;
        sizes[i] = e - b;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) *top = (unsigned long long)rowptr[rows];
}

static gs_status dcsr_from_csr(gs_dcsr *D, const gs_csr *A)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    from_csr_kernel<<<gs_cuda_grid(A->rows > 0 ? A->rows : 1), GS_CUDA_THREADS, 0, s>>>(
        A->rows, A->rowptr, D->offsets, D->sizes, D->top);
    GS_CUDA_LAUNCHED("dcsr_from_csr");
    if (A->nnz > 0) {
        GS_CUDA_CALL(cudaMemcpyAsync(D->colind, A->colind, (size_t)A->nnz * sizeof(int32_t),
                                     cudaMemcpyDeviceToDevice, s));
        GS_CUDA_CALL(cudaMemcpyAsync(D->val, A->val, (size_t)A->nnz * sizeof(double),
                                     cudaMemcpyDeviceToDevice, s));
    }
done:
    return st;
}

/* a warp per row: copy row i's entries, in order, to nc/nv from dst[i]; with `extra`, also make
 * the row one segment [dst, dst + size + extra) (the warp has read all its segments first) */
static __global__ void gather_kernel(int32_t rows, int k, int64_t pitch, int32_t *offsets,
                                     const int32_t *__restrict__ sizes,
                                     const int32_t *__restrict__ ci, const double *__restrict__ v,
                                     const int64_t *__restrict__ dst, int32_t *nc, double *nv,
                                     int rewrite, const int32_t *__restrict__ extra)
{
    const int lane = threadIdx.x & 31;
    const int64_t nw = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t i = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; i < rows; i += nw) {
        const int64_t rl = sizes[i], d = dst[i];
        int64_t idx = 0;
        for (int s = 0; s < k && idx < rl; s++) {
            const int64_t st = offsets[s * pitch + 2 * i], en = offsets[s * pitch + 2 * i + 1];
            const int64_t n = en - st < rl - idx ? en - st : rl - idx;
            for (int64_t j = lane; j < n; j += 32) {
                nc[d + idx + j] = ci[st + j];
                nv[d + idx + j] = v[st + j];
            }
            idx += n;
        }
        __syncwarp();
        if (rewrite) {
            for (int s = 1 + lane; s < k; s += 32)
                offsets[s * pitch + 2 * i] = offsets[s * pitch + 2 * i + 1] = 0;
            if (lane == 0) {
                offsets[2 * i] = (int32_t)d;
                offsets[2 * i + 1] = (int32_t)(d + rl + (extra ? extra[i] : 0));
            }
        }
    }
}

/* room[j] = sizes[r] + extra[r] with r = perm[j] (or j), room[rows] = 0 */
static __global__ void room_kernel(int32_t rows, const int32_t *__restrict__ perm,
                                   const int32_t *__restrict__ sizes,
                                   const int32_t *__restrict__ extra, int64_t *room)
{
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j <= rows;
         j += (int64_t)gridDim.x * blockDim.x) {
        if (j == rows) {
            room[j] = 0;
        } else {
            const int32_t r = perm ? perm[j] : (int32_t)j;
            room[j] = (int64_t)sizes[r] + (extra ? extra[r] : 0);
        }
    }
}

/* start[perm[j]] = scan[j] */
static __global__ void scatter_kernel(int32_t rows, const int32_t *__restrict__ perm,
                                      const int64_t *__restrict__ scan, int64_t *start)
{
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < rows;
         j += (int64_t)gridDim.x * blockDim.x)
        start[perm[j]] = scan[j];
}

/* Algorithm 4 with room: row r becomes one segment of sizes[r] + extra[r] entries at the prefix
 * sum of those (in bin order with reorder); the capacity becomes the total plus the reserve */
static gs_status dcsr_defrag(gs_dcsr *D, const int32_t *extra, int reorder)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    int64_t *room = NULL, *scan = NULL, *start = NULL, total = 0;
    int32_t *nc = NULL;
    double *nv = NULL;
    const int64_t n1 = (int64_t)D->rows + 1;
    if (reorder) GS_CHECK(dcsr_bin(D));
    GS_CHECK(gs_cuda_alloc((size_t)n1 * sizeof *room, "DCSR defrag sizes", (void **)&room));
    GS_CHECK(gs_cuda_alloc((size_t)n1 * sizeof *scan, "DCSR defrag offsets", (void **)&scan));
    room_kernel<<<gs_cuda_grid(n1), GS_CUDA_THREADS, 0, s>>>(D->rows, reorder ? D->perm : NULL,
                                                             D->sizes, extra, room);
    GS_CUDA_LAUNCHED("dcsr_room");
    GS_CHECK(gs_cuda_exclusive_sum<int64_t>(room, scan, n1, "DCSR scan scratch"));
    GS_CHECK(gs_cuda_d2h(&total, scan + D->rows, sizeof total));
    if (total > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "DCSR: %lld entries exceed 32-bit offsets (2^31 - 1)",
                (long long)total);
    if (reorder && D->rows > 0) {
        GS_CHECK(gs_cuda_alloc((size_t)n1 * sizeof *start, "DCSR defrag starts", (void **)&start));
        scatter_kernel<<<gs_cuda_grid(D->rows), GS_CUDA_THREADS, 0, s>>>(D->rows, D->perm, scan,
                                                                         start);
        GS_CUDA_LAUNCHED("dcsr_scatter");
    }
    {
        double c = (double)total * (1.0 + D->reserve) + 1.0;
        const int64_t cap = c > (double)GS_MAX_INDEX ? GS_MAX_INDEX : (int64_t)c;
        GS_CHECK(gs_cuda_alloc((size_t)cap * sizeof *nc, "DCSR column indices", (void **)&nc));
        GS_CHECK(gs_cuda_alloc((size_t)cap * sizeof *nv, "DCSR values", (void **)&nv));
        if (D->rows > 0) {
            gather_kernel<<<warp_grid(D->rows), GS_CUDA_THREADS, 0, s>>>(
                D->rows, D->k, D->pitch, D->offsets, D->sizes, D->colind, D->val,
                start ? start : scan, nc, nv, 1, extra);
            GS_CUDA_LAUNCHED("dcsr_defrag_gather");
        }
        unsigned long long t = (unsigned long long)total;
        GS_CUDA_CALL(cudaMemcpyAsync(D->top, &t, sizeof t, cudaMemcpyHostToDevice, s));
        GS_CUDA_CALL(cudaStreamSynchronize(s)); /* t is on this stack; the old arrays go next */
        gs_cuda_free(D->colind);
        gs_cuda_free(D->val);
        D->colind = nc, D->val = nv, nc = NULL, nv = NULL;
        D->capacity = cap;
    }
done:
    gs_cuda_free(room);
    gs_cuda_free(scan);
    gs_cuda_free(start);
    gs_cuda_free(nc);
    gs_cuda_free(nv);
    return st;
}

/* copy row i's entries, in order, to nc/nv from rp[i] (the rows of the result of to_csr), a warp
 * per 32 rows: lane l loads row i0 + l's size, target and first segment (coalesced, one wait
 * for all 32 rows); the rows held in their first segment (every row the SpGEMM wrote) are then
 * copied four at a time, whose loads are all issued before the stores; rows spread over several
 * segments follow, each by the whole warp. Each row used to wait for its own size, then its
 * segment, then its entries: three dependent loads per row, and the copy ran at a third of the
 * bandwidth. */
static __global__ void gather_rows_kernel(int32_t rows, int k, int64_t pitch,
                                          const int32_t *__restrict__ offsets,
                                          const int32_t *__restrict__ sizes,
                                          const int32_t *__restrict__ ci,
                                          const double *__restrict__ v,
                                          const int32_t *__restrict__ rp,
                                          int32_t *__restrict__ nc, double *__restrict__ nv)
{
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const int64_t nw = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t i0 = ((blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5) * 32; i0 < rows;
         i0 += nw * 32) {
        const int64_t i = i0 + lane;
        int32_t rl = 0, d = 0, st = 0;
        int one = 1;
        if (i < rows) {
            rl = sizes[i], d = rp[i], st = offsets[2 * i];
            one = offsets[2 * i + 1] - st >= rl;
        }
        const int nr = rows - i0 < 32 ? (int)(rows - i0) : 32;
        for (int r = 0; r < nr; r += 4) {
            int32_t c[4] = {0, 0, 0, 0}, n[4], dd[4], ss[4];
            double x[4] = {0.0, 0.0, 0.0, 0.0};
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const int src = (r + u) & 31;
                n[u] = __shfl_sync(full, rl, src);
                dd[u] = __shfl_sync(full, d, src);
                ss[u] = __shfl_sync(full, st, src);
                if (r + u >= nr || !__shfl_sync(full, one, src)) n[u] = 0;
                if (lane < n[u]) c[u] = __ldcs(ci + ss[u] + lane), x[u] = __ldcs(v + ss[u] + lane);
            }
#pragma unroll
            for (int u = 0; u < 4; u++) {
                if (lane < n[u]) nc[dd[u] + lane] = c[u], nv[dd[u] + lane] = x[u];
                for (int32_t j = lane + 32; j < n[u]; j += 32)
                    nc[dd[u] + j] = __ldcs(ci + ss[u] + j), nv[dd[u] + j] = __ldcs(v + ss[u] + j);
            }
        }
        unsigned multi = __ballot_sync(full, !one);
        while (multi) { /* uniform over the warp */
            const int src = __ffs(multi) - 1;
            multi &= multi - 1;
            const int64_t row = i0 + src, rlen = __shfl_sync(full, rl, src);
            int64_t at = __shfl_sync(full, d, src), idx = 0;
            for (int sg = 0; sg < k && idx < rlen; sg++) {
                const int64_t b = offsets[sg * pitch + 2 * row], e = offsets[sg * pitch + 2 * row + 1];
                const int64_t cnt = e - b < rlen - idx ? e - b : rlen - idx;
                for (int64_t j = lane; j < cnt; j += 32)
                    nc[at + j] = __ldcs(ci + b + j), nv[at + j] = __ldcs(v + b + j);
                at += cnt, idx += cnt;
            }
        }
    }
}

/* One segment per row (k = 1, the SpGEMM's result): output entry e of row r comes from
 * offsets[2r] + (e - rp[r]), so the copy is flat (gs_move) */
struct segment_shift {
    const int32_t *offsets;
    __device__ int32_t operator()(int32_t r, int32_t rp_r) const
    {
        return __ldg(offsets + 2 * (int64_t)r) - rp_r;
    }
};

/* *out = a new device block whose first n1 int32 are the exclusive prefix sum of in[0..n1), CUB's
 * scratch after them in the same allocation (one allocation; a CSR that keeps the block keeps
 * the few bytes of scratch) */
static gs_status scan_new(const int32_t *in, int64_t n1, const char *what, int32_t **out)
{
    gs_status st = GS_OK;
    size_t bytes = 0;
    const size_t head = gs_align256((size_t)n1 * sizeof **out);
    *out = NULL;
    GS_CUDA_CALL(cub::DeviceScan::ExclusiveSum(NULL, bytes, in, *out, n1, gs_cuda_g.stream));
    GS_CHECK(gs_cuda_alloc(head + bytes, what, (void **)out));
    GS_CUDA_CALL(
        cub::DeviceScan::ExclusiveSum((char *)*out + head, bytes, in, *out, n1, gs_cuda_g.stream));
done:
    return st;
}

/* rowptr = scan of sizes (the stored entries are below 2^31, so 32-bit sums do); nnz and the
 * row statistics read back in one wait; the rows copied in order (k = 1: gs_move, else a warp
 * per 32 rows); adopted as a device CSR */
static gs_status dcsr_to_csr(const gs_dcsr *D, gs_csr **out)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    const int64_t n1 = (int64_t)D->rows + 1;
    int32_t *rp = NULL, *ci = NULL, nnz = 0;
    double *v = NULL, row_std = 0.0;
    int max_len = 0;
    *out = NULL;
    /* the row pointers (with the scan's scratch), then one wait for the entry count and the
     * row statistics the CSR's SpMV state needs (gs_cuda_csr_adopt_stats would wait for them
     * again) */
    GS_CHECK(scan_new(D->sizes, n1, "CSR row pointers", &rp));
    GS_CHECK(gs_cuda_row_stats_issue(D->rows, rp));
    GS_CUDA_CALL(cudaStreamSynchronize(s));
    gs_cuda_row_stats_read(D->rows, &nnz, &max_len, &row_std);
    if (nnz < 0) GS_FAIL(GS_ERR_INTERNAL, "DCSR to CSR: row sizes sum beyond 2^31 - 1");
    GS_CHECK(gs_cuda_alloc((size_t)nnz * sizeof *ci, "CSR column indices", (void **)&ci));
    GS_CHECK(gs_cuda_alloc((size_t)nnz * sizeof *v, "CSR values", (void **)&v));
    if (D->k == 1 && nnz > 0) { /* one segment per row: a flat copy */
        GS_CHECK(gs_move(D->rows, nnz, rp, segment_shift{D->offsets}, 1, D->colind, D->val, ci, v,
                         s, "dcsr_to_csr_flat"));
    } else if (D->rows > 0) { /* a warp per 32 rows */
        const int64_t blocks = ((int64_t)D->rows + GS_CUDA_THREADS - 1) / GS_CUDA_THREADS;
        gather_rows_kernel<<<(unsigned)(blocks > 65536 ? 65536 : blocks), GS_CUDA_THREADS, 0, s>>>(
            D->rows, D->k, D->pitch, D->offsets, D->sizes, D->colind, D->val, rp, ci, v);
        GS_CUDA_LAUNCHED("dcsr_to_csr_gather");
    }
    st = gs_cuda_csr_adopt_stats(D->rows, D->cols, nnz, rp, ci, v, max_len, row_std, out);
    rp = ci = NULL; /* adopted, or freed by the failed adopt (freeing them here too was a double
                       free: test_alloc_solve_gpu) */
    v = NULL;
done:
    gs_cuda_free(rp);
    gs_cuda_free(ci);
    gs_cuda_free(v);
    return st;
}

/* chunk b of a chunked DCSR (gs_dcsr_cuda_chunked_to_csr) to the CSR from entry P[b], and the
 * row pointers of its rows: a block per chunk (at most 2048 entries), 4 entries a thread in
 * flight, both sides contiguous */
static __global__ void __launch_bounds__(GS_CUDA_THREADS)
    chunk_move_kernel(int32_t rows, int R, const int32_t *__restrict__ addr,
                      const int32_t *__restrict__ P, const int32_t *__restrict__ offsets,
                      const int32_t *__restrict__ ci, const double *__restrict__ v,
                      int32_t *__restrict__ rp, int32_t *__restrict__ nc, double *__restrict__ nv)
{
    const int64_t b = blockIdx.x, r0 = b * R;
    const int32_t from = __ldg(addr + b), to = __ldg(P + b), n = __ldg(P + b + 1) - to;
    for (int i = threadIdx.x; i < R && r0 + i < rows; i += blockDim.x)
        rp[r0 + i] = __ldg(offsets + 2 * (r0 + i)) - from + to;
    if (b == gridDim.x - 1 && threadIdx.x == 0) rp[rows] = __ldg(P + gridDim.x);
    for (int e0 = 0; e0 < n; e0 += 4 * GS_CUDA_THREADS) {
        int32_t c[4];
        double x[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const int e = e0 + u * GS_CUDA_THREADS + threadIdx.x;
            if (e < n) c[u] = __ldcs(ci + from + e), x[u] = __ldcs(v + from + e);
        }
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const int e = e0 + u * GS_CUDA_THREADS + threadIdx.x;
            if (e < n) nc[to + e] = c[u], nv[to + e] = x[u];
        }
    }
}

/* gs_dcsr_cuda_chunked_to_csr: the chunks' first entries in C (a scan of tot), the entry count
 * and the row statistics from D's sizes (one wait), exact arrays, one move of the chunks */
extern "C" gs_status gs_dcsr_cuda_chunked_to_csr(const gs_dcsr *D, int64_t nchunk, int R,
                                                 const int32_t *addr, const int32_t *tot,
                                                 gs_csr **out)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    const int64_t n1 = (int64_t)D->rows + 1;
    int32_t *P = NULL, *rp = NULL, *ci = NULL, nnz = 0;
    double *v = NULL, row_std = 0.0;
    int max_len = 0;
    *out = NULL;
    if (nchunk < 1 || nchunk > GS_MAX_INDEX - 1 || D->k != 1)
        GS_FAIL(GS_ERR_INTERNAL, "DCSR to CSR: %lld chunks of a DCSR of %d segments a row",
                (long long)nchunk, D->k);
    GS_CHECK(scan_new(tot, nchunk + 1, "DCSR chunk starts", &P));
    GS_CHECK(gs_cuda_row_stats_issue_len(D->rows, D->sizes, P + nchunk));
    GS_CUDA_CALL(cudaStreamSynchronize(s));
    gs_cuda_row_stats_read(D->rows, &nnz, &max_len, &row_std);
    if (nnz < 0 || nnz > D->capacity)
        GS_FAIL(GS_ERR_INTERNAL, "DCSR to CSR: %d entries in chunks of a capacity of %lld", nnz,
                (long long)D->capacity);
    GS_CHECK(gs_cuda_alloc((size_t)n1 * sizeof *rp, "CSR row pointers", (void **)&rp));
    GS_CHECK(gs_cuda_alloc((size_t)nnz * sizeof *ci, "CSR column indices", (void **)&ci));
    GS_CHECK(gs_cuda_alloc((size_t)nnz * sizeof *v, "CSR values", (void **)&v));
    chunk_move_kernel<<<(unsigned)nchunk, GS_CUDA_THREADS, 0, s>>>(D->rows, R, addr, P, D->offsets,
                                                                   D->colind, D->val, rp, ci, v);
    GS_CUDA_LAUNCHED("dcsr_to_csr_chunks");
    st = gs_cuda_csr_adopt_stats(D->rows, D->cols, nnz, rp, ci, v, max_len, row_std, out);
    rp = ci = NULL; /* adopted, or freed by the failed adopt */
    v = NULL;
done:
    gs_cuda_free(P);
    gs_cuda_free(rp);
    gs_cuda_free(ci);
    gs_cuda_free(v);
    return st;
}

/* Row i's current segment (the one holding its last entry, or slot 0 when empty): index, the
 * entries of segments 0..sid (cum >= rl), its bounds. Same walk as the host's. */
static __device__ __forceinline__ int walk_dev(const int32_t *offsets, int64_t pitch, int k,
                                               int64_t i, int32_t rl, int64_t *cum, int32_t *s0,
                                               int32_t *e0)
{
    int sid = 0;
    *cum = 0;
    for (;;) {
        *s0 = offsets[sid * pitch + 2 * i];
        *e0 = offsets[sid * pitch + 2 * i + 1];
        *cum += *e0 - *s0;
        if (*cum >= rl || sid == k - 1) break;
        sid++;
    }
    return sid;
}

/* dry run of the insertion: ctl[0] += entries new segments take, ctl[1] = 1 when a row would
 * need more than k segments, ctl[2] = *top */
static __global__ void insert_check_kernel(int32_t rows, int k, int64_t pitch, int32_t slack,
                                           const int32_t *__restrict__ offsets,
                                           const int32_t *__restrict__ sizes,
                                           const int32_t *__restrict__ browptr,
                                           const unsigned long long *top, unsigned long long *ctl)
{
    unsigned long long need = 0, over = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int32_t rl = sizes[i], add = browptr[i + 1] - browptr[i];
        if (add == 0) continue;
        int64_t cum;
        int32_t s0, e0;
        const int sid = walk_dev(offsets, pitch, k, i, rl, &cum, &s0, &e0);
        if (cum - rl < add) {
            need += (unsigned long long)(add - (cum - rl) + slack);
            if ((e0 == s0 ? sid : sid + 1) >= k) over = 1;
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
        need += __shfl_down_sync(0xffffffffu, need, off);
        over |= __shfl_down_sync(0xffffffffu, over, off);
    }
    if ((threadIdx.x & 31) == 0) {
        if (need) atomicAdd(ctl, need);
        if (over) atomicMax(ctl + 1, over);
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) ctl[2] = *top;
}

/* Algorithms 1-2, a warp per row: lane 0 allocates a segment of (missing + slack) entries from
 * the bump pointer when the current one lacks room (an empty current slot is reused); the lanes
 * then write B's row after the row's last entry, spilling into the new segment. The dry run has
 * made sure that every allocation fits and no row exceeds k segments. */
static __global__ void insert_kernel(int32_t rows, int k, int64_t pitch, int32_t slack,
                                     int32_t *offsets, int32_t *sizes, int32_t *colind, double *val,
                                     unsigned long long *top, const int32_t *__restrict__ browptr,
                                     const int32_t *__restrict__ bcol,
                                     const double *__restrict__ bval)
{
    const int lane = threadIdx.x & 31;
    const int64_t nw = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t i = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; i < rows; i += nw) {
        const int32_t rl = sizes[i], bb = browptr[i], add = browptr[i + 1] - bb;
        if (add == 0) continue; /* uniform across the warp */
        int64_t cum;
        int32_t s0, e0, sn = 0;
        const int sid = walk_dev(offsets, pitch, k, i, rl, &cum, &s0, &e0);
        int64_t base0 = cum - (e0 - s0);
        const int64_t free_ = cum - rl;
        if (free_ < add) {
            const int tgt = e0 == s0 ? sid : sid + 1;
            const int64_t size = add - free_ + slack;
            unsigned long long addr = 0;
            if (lane == 0) {
                addr = atomicAdd(top, (unsigned long long)size);
                offsets[tgt * pitch + 2 * i] = (int32_t)addr;
                offsets[tgt * pitch + 2 * i + 1] = (int32_t)(addr + size);
            }
            addr = __shfl_sync(0xffffffffu, addr, 0);
            if (tgt == sid) {
                s0 = (int32_t)addr;
                base0 = rl;
                cum = rl + size;
            } else {
                sn = (int32_t)addr;
            }
        }
        for (int32_t p = lane; p < add; p += 32) {
            const int64_t q = (int64_t)rl + p, phys = q < cum ? s0 + (q - base0) : sn + (q - cum);
            colind[phys] = bcol[bb + p];
            val[phys] = bval[bb + p];
        }
        if (lane == 0) sizes[i] = rl + add;
    }
}

/* extra[i] = entries of B's row i */
static __global__ void row_len_kernel(int32_t rows, const int32_t *__restrict__ rowptr,
                                      int32_t *extra)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x)
        extra[i] = rowptr[i + 1] - rowptr[i];
}

/* dry run, defragment with room for B when a row would exceed k segments or the capacity would
 * run out, then the insertion, which then cannot fail */
static gs_status dcsr_insert(gs_dcsr *D, const gs_csr *B)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    unsigned long long *ctl = (unsigned long long *)gs_cuda_g.d_part, h[3];
    int32_t *extra = NULL;
    if (D->rows == 0 || B->nnz == 0) return GS_OK;
    GS_CUDA_CALL(cudaMemsetAsync(ctl, 0, 3 * sizeof *ctl, s));
    insert_check_kernel<<<gs_cuda_grid(D->rows), GS_CUDA_THREADS, 0, s>>>(
        D->rows, D->k, D->pitch, D->slack, D->offsets, D->sizes, B->rowptr, D->top, ctl);
    GS_CUDA_LAUNCHED("dcsr_insert_check");
    GS_CHECK(gs_cuda_d2h(h, ctl, sizeof h));
    if (h[1] || (int64_t)(h[2] + h[0]) > D->capacity) {
        GS_CHECK(
            gs_cuda_alloc((size_t)D->rows * sizeof *extra, "DCSR insertion room", (void **)&extra));
        row_len_kernel<<<gs_cuda_grid(D->rows), GS_CUDA_THREADS, 0, s>>>(D->rows, B->rowptr, extra);
        GS_CUDA_LAUNCHED("dcsr_row_len");
        GS_CHECK(dcsr_defrag(D, extra, 0));
    }
    insert_kernel<<<warp_grid(D->rows), GS_CUDA_THREADS, 0, s>>>(
        D->rows, D->k, D->pitch, D->slack, D->offsets, D->sizes, D->colind, D->val, D->top,
        B->rowptr, B->colind, B->val);
    GS_CUDA_LAUNCHED("dcsr_insert");
    gs_cuda_free(D->perm); /* the bins no longer match the row sizes */
    D->perm = NULL;
    GS_CUDA_CALL(cudaStreamSynchronize(s));
done:
    gs_cuda_free(extra);
    return st;
}

/* key[i] = bin of row i's length, idx[i] = i; cnt[key] += 1 (block histogram first) */
static __global__ void bin_keys_kernel(int32_t rows, const int32_t *__restrict__ sizes,
                                       unsigned char *key, int32_t *idx, unsigned int *cnt)
{
    __shared__ unsigned int h[GS_DCSR_BINS];
    for (int b = threadIdx.x; b < GS_DCSR_BINS; b += blockDim.x) h[b] = 0;
    __syncthreads();
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int b = bin_of_dev(sizes[i]);
        key[i] = (unsigned char)b;
        idx[i] = (int32_t)i;
        atomicAdd(&h[b], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < GS_DCSR_BINS; b += blockDim.x)
        if (h[b]) atomicAdd(&cnt[b], h[b]);
}

/* perm = rows stably sorted by bin (CUB radix sort on the 6-bit label), bin_start on the host */
static gs_status dcsr_bin(gs_dcsr *D)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    unsigned char *key = NULL, *key2 = NULL;
    int32_t *idx = NULL;
    unsigned int *cnt = (unsigned int *)gs_cuda_g.d_part, h[GS_DCSR_BINS];
    void *tmp = NULL;
    size_t bytes = 0;
    const int64_t n = D->rows;
    if (!D->perm)
        GS_CHECK(
            gs_cuda_alloc(((size_t)n + 1) * sizeof(int32_t), "DCSR row bins", (void **)&D->perm));
    GS_CHECK(gs_cuda_alloc((size_t)n + 1, "DCSR bin labels", (void **)&key));
    GS_CHECK(gs_cuda_alloc((size_t)n + 1, "DCSR bin labels", (void **)&key2));
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *idx, "DCSR bin rows", (void **)&idx));
    GS_CUDA_CALL(cudaMemsetAsync(cnt, 0, sizeof h, s));
    bin_keys_kernel<<<gs_cuda_grid(n > 0 ? n : 1), GS_CUDA_THREADS, 0, s>>>(D->rows, D->sizes, key,
                                                                            idx, cnt);
    GS_CUDA_LAUNCHED("dcsr_bin_keys");
    if (n > 0) {
        GS_CUDA_CALL(
            cub::DeviceRadixSort::SortPairs(NULL, bytes, key, key2, idx, D->perm, (int)n, 0, 6, s));
        GS_CHECK(gs_cuda_alloc(bytes, "DCSR bin sort scratch", &tmp));
        GS_CUDA_CALL(
            cub::DeviceRadixSort::SortPairs(tmp, bytes, key, key2, idx, D->perm, (int)n, 0, 6, s));
    }
    GS_CHECK(gs_cuda_d2h(h, cnt, sizeof h));
    D->bin_start[0] = 0;
    for (int b = 0; b < GS_DCSR_BINS; b++) D->bin_start[b + 1] = D->bin_start[b] + h[b];
done:
    gs_cuda_free(key);
    gs_cuda_free(key2);
    gs_cuda_free(idx);
    gs_cuda_free(tmp);
    return st;
}

/* Algorithm 3: y[row] = row . x for the rows list[0..n) (or 0..n), 2^lanes_log2 lanes per row
 * striding through each segment's used part, then a shuffle reduction in the lane group (every
 * lane of a warp reaches the shuffles) */
static __global__ void seg_spmv_kernel(int64_t n, const int32_t *__restrict__ list, int lanes_log2,
                                       int k, int64_t pitch, const int32_t *__restrict__ offsets,
                                       const int32_t *__restrict__ sizes,
                                       const int32_t *__restrict__ colind,
                                       const double *__restrict__ val, const double *__restrict__ x,
                                       double *__restrict__ y)
{
    const int lanes = 1 << lanes_log2;
    const int64_t g = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> lanes_log2;
    const int lane = threadIdx.x & (lanes - 1);
    const int64_t row = g < n ? (list ? list[g] : g) : -1;
    double sum = 0.0;
    if (row >= 0) {
        const int64_t rl = sizes[row];
        int64_t idx = 0;
        for (int s = 0; s < k && idx < rl; s++) {
            const int64_t st = __ldg(offsets + s * pitch + 2 * row);
            const int64_t en = __ldg(offsets + s * pitch + 2 * row + 1);
            const int64_t m = en - st < rl - idx ? en - st : rl - idx;
            for (int64_t j = st + lane; j < st + m; j += lanes)
                sum += __ldg(val + j) * __ldg(x + __ldg(colind + j));
            idx += m;
        }
    }
    sum = gs_lanes_sum(sum, lanes);
    if (row >= 0 && lane == 0) y[row] = sum;
}

/* the long rows of list[0..n): one block of GS_CUDA_THREADS per row, shared-memory reduction */
static __global__ void seg_spmv_block_kernel(const int32_t *__restrict__ list, int k, int64_t pitch,
                                             const int32_t *__restrict__ offsets,
                                             const int32_t *__restrict__ sizes,
                                             const int32_t *__restrict__ colind,
                                             const double *__restrict__ val,
                                             const double *__restrict__ x, double *y)
{
    __shared__ double ws[GS_CUDA_THREADS / 32];
    const int64_t row = list[blockIdx.x], rl = sizes[row];
    int64_t idx = 0;
    double sum = 0.0;
    for (int s = 0; s < k && idx < rl; s++) {
        const int64_t st = offsets[s * pitch + 2 * row], en = offsets[s * pitch + 2 * row + 1];
        const int64_t m = en - st < rl - idx ? en - st : rl - idx;
        for (int64_t j = st + threadIdx.x; j < st + m; j += blockDim.x)
            sum += val[j] * __ldg(x + colind[j]);
        idx += m;
    }
    sum = gs_warp_sum(sum);
    if ((threadIdx.x & 31) == 0) ws[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        double t = 0.0;
        for (int w = 0; w < GS_CUDA_THREADS / 32; w++) t += ws[w];
        y[row] = t;
    }
}

/* launch seg_spmv_kernel over n rows with 2^l lanes each */
static gs_status launch_seg(int64_t n, const int32_t *list, int l, const gs_dcsr *D,
                            const double *x, double *y)
{
    gs_status st = GS_OK;
    const int64_t threads = n << l;
    const int64_t blocks = (threads + GS_CUDA_THREADS - 1) / GS_CUDA_THREADS;
    if (blocks > 2147483647LL) GS_FAIL(GS_ERR_UNSUPPORTED, "DCSR SpMV: %lld rows", (long long)n);
    seg_spmv_kernel<<<(unsigned)blocks, GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(
        n, list, l, D->k, D->pitch, D->offsets, D->sizes, D->colind, D->val, x, y);
    GS_CUDA_LAUNCHED("dcsr_spmv");
done:
    return st;
}

/* y = D*x: unbinned, 2^l lanes per row from the mean capacity per row (about four entries a
 * lane); binned (ADCSR), a launch per bin with lanes fit to that bin's lengths and a block per
 * row beyond 2^LONG_ROW_BIN entries */
static gs_status dcsr_spmv(const gs_dcsr *D, const double *x, double *y)
{
    gs_status st = GS_OK;
    if (D->rows == 0) return GS_OK;
    if (!D->perm) {
        const double mean = (double)D->capacity / D->rows;
        int l = 0;
        while (l < 5 && (double)(4 << l) < mean) l++;
        GS_CHECK(launch_seg(D->rows, NULL, l, D, x, y));
        return GS_OK;
    }
    for (int b = 0; b < GS_DCSR_BINS; b++) {
        const int64_t n = D->bin_start[b + 1] - D->bin_start[b];
        const int32_t *list = D->perm + D->bin_start[b];
        if (n == 0) continue;
        if (b > LONG_ROW_BIN) {
            if (n > 2147483647LL) GS_FAIL(GS_ERR_UNSUPPORTED, "DCSR SpMV: %lld rows", (long long)n);
            seg_spmv_block_kernel<<<(unsigned)n, GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(
                list, D->k, D->pitch, D->offsets, D->sizes, D->colind, D->val, x, y);
            GS_CUDA_LAUNCHED("dcsr_spmv_block");
        } else {
            const int l = b <= 1 ? 0 : (b - 1 > 5 ? 5 : b - 1); /* 2^(b-1) lanes, 1..32 */
            GS_CHECK(launch_seg(n, list, l, D, x, y));
        }
    }
done:
    return st;
}

static gs_status dcsr_download(const gs_dcsr *D, gs_dcsr *H)
{
    gs_status st = GS_OK;
    GS_CHECK(gs_cuda_d2h(H->offsets, D->offsets, (size_t)(D->k * D->pitch) * sizeof(int32_t)));
    GS_CHECK(gs_cuda_d2h(H->sizes, D->sizes, ((size_t)D->rows + 1) * sizeof(int32_t)));
    GS_CHECK(gs_cuda_d2h(H->colind, D->colind, (size_t)D->capacity * sizeof(int32_t)));
    GS_CHECK(gs_cuda_d2h(H->val, D->val, (size_t)D->capacity * sizeof(double)));
    GS_CHECK(gs_cuda_d2h(H->top, D->top, sizeof *D->top));
    if (D->perm && H->perm)
        GS_CHECK(gs_cuda_d2h(H->perm, D->perm, (size_t)D->rows * sizeof(int32_t)));
done:
    return st;
}

/* the device half of gs_dcsr.h (gs_backend_module(GS_LOC_DEVICE, GS_MODULE_DCSR)) */
extern "C" const gs_dcsr_ops gs_dcsr_cuda_ops = {
    dcsr_alloc,  dcsr_free, dcsr_from_csr, dcsr_to_csr,   dcsr_insert,
    dcsr_defrag, dcsr_bin,  dcsr_spmv,     dcsr_download,
};

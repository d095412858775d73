/* gs_cmrs_cuda.cu: the CMRS format on the device (Koza et al. 2014; layouts in gs_cmrs.h).
 *
 * SpMV: one warp per strip. Algorithm 1 (sec. 4) keeps each lane's h partial sums in registers
 * (h a template parameter, so the sums are indexed at compile time), then reduces all h of
 * them over the warp with h - 1 + log2(32/h) shuffles (each step halves the sums a lane holds,
 * as the paper's cyclic buffer does). The modified kernel (sec. 6.7) accumulates into an h x M
 * buffer per warp in shared memory, buf[r][lane mod M], over strips padded to multiples of 32.
 * Conversions run on the device from the device CSR: packing kernels, a CUB segmented sort for
 * sorted strips, a CUB scan for the padded strip offsets of the modified layout.
 * The packed columns and the values, read once a product (a warp's load covers 32 consecutive
 * entries), are loaded streaming (__ldcs: evict-first in L1 and L2), which leaves the caches to
 * x: on the H200 (bench_spmv, same run) bcsstk25 x100 went from 1.18 to 1.23x cuSPARSE,
 * isooctane_A x10000 from 1.08 to 1.18x (95% of the copy bandwidth), 27-point 100^3 from 1.18 to
 * 1.21x. The main loops are not unrolled
 * further (#pragma unroll 1): the compiler's second copy of the four loads took the modified
 * kernel from 32 to 36 registers, 7 blocks a multiprocessor instead of 8 (isooctane 1.07 against
 * 1.17x, bcsstk25 1.19 against 1.28x, 27-point 128^3 1.27 against 1.34x; H200, same run).
 */
#include <stdint.h>
#include <string.h>

#include <cub/device/device_segmented_sort.cuh>

#include "gs_cmrs.h"
#include "gs_cuda_impl.h"
#include "gs_cuda_scan.cuh"

#define CMRS_THREADS 256 /* block of the warp-per-strip kernels */
#define CMRS_WARPS (CMRS_THREADS / 32)
#define FULL_MASK 0xffffffffu
#define COL_MASK 0x0fffffffu /* low 28 bits */

/* blocks of CMRS_THREADS for one warp per item (items < 2^31: at most 2^28 blocks) */
static unsigned warp_blocks(int64_t items)
{
    return (unsigned)((items + CMRS_WARPS - 1) / CMRS_WARPS);
}

/* sums a lane keeps for strip height H: the next power of two */
template <int H> struct pow2_of {
    static constexpr int v = H <= 1 ? 1 : H <= 2 ? 2 : H <= 4 ? 4 : H <= 8 ? 8 : 16;
};

/* M of the modified kernel at compile time; must equal gs_cmrs_mod_width(H) */
template <int H> struct mod_width {
    static constexpr int v = 32 * H <= GS_CMRS_BUF ? 32 : 16 * H <= GS_CMRS_BUF ? 16 : 8;
};

/* ---------------------------------------------------------------- SpMV kernels */

/* acc[r] += t for the packed row r < H (compile-time indices: acc stays in registers) */
template <int H> static __device__ __forceinline__ void add_row(double *acc, unsigned r, double t)
{
#pragma unroll
    for (int q = 0; q < H; q++)
        if (H == 1 || r == (unsigned)q) acc[q] += t;
}

/* Warp sums of the N partial sums a lane holds, from shuffle distance o on: each step halves
 * what a lane holds (it keeps the even or odd half by bit o of its lane and adds its partner's
 * copy of that half), so after log2(N) steps lane l holds row (l mod N) summed over its group;
 * the butterfly over the remaining lane bits completes the sums. N - 1 + log2(32 / N)
 * shuffles in all. A template recursion, so every index into acc is a compile-time constant
 * and acc stays in registers. */
template <int N> struct reduce_rows {
    static __device__ __forceinline__ void run(double *acc, int lane, int o)
    {
        const bool up = (lane & o) != 0;
#pragma unroll
        for (int i = 0; i < N / 2; i++) {
            const double a0 = acc[2 * i], a1 = acc[2 * i + 1];
            acc[i] = (up ? a1 : a0) + __shfl_xor_sync(FULL_MASK, up ? a0 : a1, o);
        }
        reduce_rows<N / 2>::run(acc, lane, o << 1);
    }
};
template <> struct reduce_rows<1> {
    static __device__ __forceinline__ void run(double *acc, int lane, int o)
    {
        (void)lane;
        for (; o < 32; o <<= 1) acc[0] += __shfl_xor_sync(FULL_MASK, acc[0], o);
    }
};

/* y = A*x, Algorithm 1: a warp walks its strip's entries 32 at a time (four chunks per step for
 * more loads in flight), each lane adding val * x[col] to its partial sum of the packed row;
 * then the warp reduction and one write per row. The strip is uniform over the warp, so the
 * early exit leaves whole warps and the shuffles see all 32 lanes. */
template <int H>
static __global__ void __launch_bounds__(CMRS_THREADS)
    spmv_kernel(int32_t rows, int32_t strips, const int32_t *__restrict__ sp,
                const uint32_t *__restrict__ cr, const double *__restrict__ val,
                const double *__restrict__ x, double *__restrict__ y)
{
    constexpr int HP = pow2_of<H>::v;
    const int64_t s = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (s >= strips) return;
    double acc[HP];
#pragma unroll
    for (int q = 0; q < HP; q++) acc[q] = 0.0;
    const int64_t end = __ldg(sp + s + 1);
    int64_t j = __ldg(sp + s) + lane;
#pragma unroll 1
    for (; j + 96 < end; j += 128) {
        uint32_t p[4];
        double v[4];
#pragma unroll
        for (int u = 0; u < 4; u++) p[u] = __ldcs(cr + j + 32 * u), v[u] = __ldcs(val + j + 32 * u);
#pragma unroll
        for (int u = 0; u < 4; u++) v[u] *= __ldg(x + (p[u] >> GS_CMRS_BITS));
#pragma unroll
        for (int u = 0; u < 4; u++) add_row<H>(acc, p[u] & 15u, v[u]);
    }
    for (; j < end; j += 32) {
        const uint32_t p = __ldcs(cr + j);
        add_row<H>(acc, p & 15u, __ldcs(val + j) * __ldg(x + (p >> GS_CMRS_BITS)));
    }
    reduce_rows<HP>::run(acc, lane, 1);
    const int64_t row = s * H + lane;
    if (lane < H && row < rows) y[row] = acc[0];
}

/* y = A*x, the modified kernel (sec. 6.7): strips are whole groups of 32, and in each group the
 * lanes holding one row differ modulo M, so buf[r][lane mod M] += val * x[col] never has two
 * lanes on one cell; __syncwarp orders the groups. Then a tree over each row's M cells. */
template <int H>
static __global__ void __launch_bounds__(CMRS_THREADS)
    spmv_mod_kernel(int32_t rows, int32_t strips, const int32_t *__restrict__ sp,
                    const uint32_t *__restrict__ cr, const double *__restrict__ val,
                    const double *__restrict__ x, double *__restrict__ y)
{
    constexpr int M = mod_width<H>::v, LD = M + 1; /* row stride M + 1: fewer bank conflicts */
    __shared__ double sbuf[CMRS_WARPS * H * LD];
    double *buf = sbuf + (threadIdx.x >> 5) * (H * LD);
    const int64_t s = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31, cell = lane & (M - 1);
    if (s >= strips) return;
    for (int k = lane; k < H * LD; k += 32) buf[k] = 0.0;
    __syncwarp();
    const int64_t end = __ldg(sp + s + 1); /* end - start is a multiple of 32: no lane idles */
    int64_t j = __ldg(sp + s) + lane;
    /* four groups' loads in flight before their products go into the buffer */
#pragma unroll 1
    for (; j + 96 < end; j += 128) {
        uint32_t p[4];
        double t[4];
#pragma unroll
        for (int u = 0; u < 4; u++) p[u] = __ldcs(cr + j + 32 * u), t[u] = __ldcs(val + j + 32 * u);
#pragma unroll
        for (int u = 0; u < 4; u++) t[u] *= __ldg(x + (p[u] >> GS_CMRS_BITS));
#pragma unroll
        for (int u = 0; u < 4; u++) {
            buf[(p[u] & 15u) * LD + cell] += t[u];
            __syncwarp();
        }
    }
    for (; j < end; j += 32) {
        const uint32_t p = __ldcs(cr + j);
        buf[(p & 15u) * LD + cell] += __ldcs(val + j) * __ldg(x + (p >> GS_CMRS_BITS));
        __syncwarp();
    }
#pragma unroll
    for (int w = M / 2; w > 0; w >>= 1) {
        for (int k = lane; k < H * w; k += 32) {
            const int r = k / w, i = k - r * w;
            buf[r * LD + i] += buf[r * LD + i + w];
        }
        __syncwarp();
    }
    const int64_t row = s * H + lane;
    if (lane < H && row < rows) y[row] = buf[lane * LD];
}

/* y = A*x for the plain (row-major) layout, one warp per strip (Algorithm 1) with the
 * per-row sums formed by a segmented warp scan instead of h accumulators per lane: a row's
 * entries are contiguous, so in each group of 32 the run of a row is summed by five shuffles
 * and its last lane adds the run to the row's cell in shared memory (one writer per cell per
 * group; __syncwarp orders the groups). Four groups are loaded before any is reduced. */
static __global__ void __launch_bounds__(CMRS_THREADS)
    spmv_seg_kernel(int32_t rows, int32_t strips, int h, const int32_t *__restrict__ sp,
                    const uint32_t *__restrict__ cr, const double *__restrict__ val,
                    const double *__restrict__ x, double *__restrict__ y)
{
    __shared__ double sbuf[CMRS_WARPS * GS_CMRS_MAX_H];
    double *buf = sbuf + (threadIdx.x >> 5) * GS_CMRS_MAX_H;
    const int64_t s = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (s >= strips) return;
    if (lane < GS_CMRS_MAX_H) buf[lane] = 0.0;
    __syncwarp();
    const int64_t beg = __ldg(sp + s), end = __ldg(sp + s + 1);
    for (int64_t j0 = beg; j0 < end; j0 += 128) {
        int r[4];
        double v[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const int64_t j = j0 + 32 * u + lane;
            const uint32_t p = j < end ? __ldcs(cr + j) : 0u;
            r[u] = j < end ? (int)(p & 15u) : -1;
            v[u] = j < end ? __ldcs(val + j) * __ldg(x + (p >> GS_CMRS_BITS)) : 0.0;
        }
#pragma unroll
        for (int u = 0; u < 4; u++) {
            if (j0 + 32 * u >= end) break; /* the same for the whole warp */
#pragma unroll
            for (int off = 1; off < 32; off <<= 1) {
                const double t = __shfl_up_sync(0xffffffffu, v[u], off);
                const int tr = __shfl_up_sync(0xffffffffu, r[u], off);
                if (lane >= off && tr == r[u]) v[u] += t;
            }
            const int next = __shfl_down_sync(0xffffffffu, r[u], 1);
            if (r[u] >= 0 && (lane == 31 || next != r[u])) buf[r[u]] += v[u];
            __syncwarp();
        }
    }
    const int64_t row = s * h + lane;
    if (lane < h && row < rows) y[row] = buf[lane];
}

typedef void (*spmv_fn)(int32_t, int32_t, const int32_t *, const uint32_t *, const double *,
                        const double *, double *);

/* the kernel for strip height h (1..16), plain or modified */
static spmv_fn pick_kernel(int h, int modified)
{
    static const spmv_fn plain[GS_CMRS_MAX_H] = {
        spmv_kernel<1>,  spmv_kernel<2>,  spmv_kernel<3>,  spmv_kernel<4>,
        spmv_kernel<5>,  spmv_kernel<6>,  spmv_kernel<7>,  spmv_kernel<8>,
        spmv_kernel<9>,  spmv_kernel<10>, spmv_kernel<11>, spmv_kernel<12>,
        spmv_kernel<13>, spmv_kernel<14>, spmv_kernel<15>, spmv_kernel<16>};
    static const spmv_fn mod[GS_CMRS_MAX_H] = {
        spmv_mod_kernel<1>,  spmv_mod_kernel<2>,  spmv_mod_kernel<3>,  spmv_mod_kernel<4>,
        spmv_mod_kernel<5>,  spmv_mod_kernel<6>,  spmv_mod_kernel<7>,  spmv_mod_kernel<8>,
        spmv_mod_kernel<9>,  spmv_mod_kernel<10>, spmv_mod_kernel<11>, spmv_mod_kernel<12>,
        spmv_mod_kernel<13>, spmv_mod_kernel<14>, spmv_mod_kernel<15>, spmv_mod_kernel<16>};
    if (h < 1 || h > GS_CMRS_MAX_H) return NULL;
    return modified ? mod[h - 1] : plain[h - 1];
}

/* M the modified kernel for h was compiled with */
static int compiled_width(int h)
{
    return h <= 4 ? mod_width<4>::v : h <= 8 ? mod_width<8>::v : mod_width<16>::v;
}

/* y = M*x on the device (x, y device arrays): one launch on the context's stream */
static gs_status spmv(const void *M, const double *x, double *y)
{
    gs_status st = GS_OK;
    const gs_cmrs *C = (const gs_cmrs *)M;
    spmv_fn fn = NULL;
    if (C->strips == 0) return GS_OK;
    if (!C->m && !C->sorted) { /* runs of a row are contiguous: the segmented kernel */
        spmv_seg_kernel<<<warp_blocks(C->strips), CMRS_THREADS, 0, gs_cuda_g.stream>>>(
            C->rows, C->strips, C->h, C->stripptr, C->colrow, C->val, x, y);
        GS_CUDA_LAUNCHED("cmrs_spmv_segmented");
        return GS_OK;
    }
    fn = pick_kernel(C->h, C->m != 0);
    if (!fn || (C->m && C->m != compiled_width(C->h)))
        return GS_ERROR(GS_ERR_INTERNAL, "cmrs spmv: no kernel for h = %d, M = %d", C->h, C->m);
    fn<<<warp_blocks(C->strips), CMRS_THREADS, 0, gs_cuda_g.stream>>>(
        C->rows, C->strips, C->stripptr, C->colrow, C->val, x, y);
    GS_CUDA_LAUNCHED(C->m ? "cmrs_spmv_modified" : "cmrs_spmv");
done:
    return st;
}

/* ---------------------------------------------------------------- conversion kernels */

/* rows of strip s: h, fewer in a short last strip */
static __device__ __forceinline__ int strip_rows(int32_t rows, int h, int64_t s)
{
    const int64_t left = rows - s * h;
    return left < h ? (int)left : h;
}

/* out[s] = rowptr[min(s h, rows)], s <= strips: the plain layout's strip pointers */
static __global__ void strip_ptr_kernel(int32_t rows, int32_t strips, int h,
                                        const int32_t *__restrict__ rowptr, int32_t *out)
{
    for (int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; s <= strips;
         s += (int64_t)gridDim.x * blockDim.x) {
        const int64_t r = s * h;
        out[s] = rowptr[r < rows ? r : rows];
    }
}

/* plain layout, one warp per strip: packed[q] = colind[q] << 4 | row in strip, row by row
 * (coalesced), and vout[q] = val[q] when vout is given */
static __global__ void pack_kernel(int32_t rows, int32_t strips, int h,
                                   const int32_t *__restrict__ rowptr,
                                   const int32_t *__restrict__ colind,
                                   const double *__restrict__ val, uint32_t *__restrict__ packed,
                                   double *__restrict__ vout)
{
    const int64_t s = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (s >= strips) return;
    const int32_t *rp = rowptr + s * h;
    const int hs = strip_rows(rows, h, s);
    for (int r = 0; r < hs; r++) {
        const int32_t e = rp[r + 1];
        for (int32_t q = rp[r] + lane; q < e; q += 32) {
            packed[q] = gs_cmrs_pack(colind[q], r);
            if (vout) vout[q] = val[q];
        }
    }
}

/* modified layout, one thread per strip: size[s] = its padded length (groups of 32), nzptr[s]
 * = rowptr at its first row; size[strips] = 0 so the exclusive scan ends with the total */
static __global__ void mod_size_kernel(int32_t rows, int32_t strips, int h, int m,
                                       const int32_t *__restrict__ rowptr, int64_t *size,
                                       int32_t *nzptr)
{
    for (int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; s <= strips;
         s += (int64_t)gridDim.x * blockDim.x) {
        if (s == strips) {
            size[s] = 0;
            nzptr[s] = rowptr[rows];
            continue;
        }
        const int32_t *rp = rowptr + s * h;
        const int hs = strip_rows(rows, h, s);
        int64_t maxl = 0;
        for (int i = 0; i < hs; i++) {
            const int64_t l = rp[i + 1] - rp[i];
            maxl = l > maxl ? l : maxl;
        }
        size[s] = GS_CMRS_CHUNK * gs_cmrs_mod_groups(rp[hs] - rp[0], maxl, m);
        nzptr[s] = rp[0];
    }
}

/* out[i] = (int32) in[i], i < n (offsets checked to fit beforehand) */
static __global__ void narrow_kernel(int64_t n, const int64_t *__restrict__ in, int32_t *out)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        out[i] = (int32_t)in[i];
}

/* modified layout, one warp per strip: each real entry to its slot (gs_cmrs_mod_slot), row by
 * row; then the padding slots: value 0, the strip's last column, a row keeping each bin's rows
 * distinct (gs_cmrs_pad_row) */
static __global__ void mod_fill_kernel(int32_t rows, int32_t strips, int h, int m,
                                       const int32_t *__restrict__ rowptr,
                                       const int32_t *__restrict__ colind,
                                       const double *__restrict__ val,
                                       const int32_t *__restrict__ sp,
                                       uint32_t *__restrict__ colrow, double *__restrict__ vout)
{
    const int64_t s = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (s >= strips) return;
    const int32_t *rp = rowptr + s * h;
    const int hs = strip_rows(rows, h, s);
    const int64_t b0 = rp[0], nnz_s = rp[hs] - b0, out0 = sp[s];
    const int64_t k = (sp[s + 1] - out0) / GS_CMRS_CHUNK, km = k * m;
    for (int r = 0; r < hs; r++) {
        const int32_t e = rp[r + 1];
        for (int32_t q = rp[r] + lane; q < e; q += 32) {
            const int64_t j = out0 + gs_cmrs_mod_slot(q - b0, k, m);
            colrow[j] = gs_cmrs_pack(colind[q], r);
            vout[j] = val[q];
        }
    }
    const int32_t pc = nnz_s > 0 ? colind[b0 + nnz_s - 1] : 0;
    for (int64_t e = nnz_s + lane; e < k * GS_CMRS_CHUNK; e += 32) {
        const int64_t j = out0 + gs_cmrs_mod_slot(e, k, m);
        colrow[j] = gs_cmrs_pack(pc, gs_cmrs_pad_row(rp, hs, e % km, km, nnz_s, e / km));
        vout[j] = 0.0;
    }
}

/* to_csr, one warp per strip: cnt[row] = real entries of each row of the strip (per group of
 * 32: one ballot per row, lane r keeps row r's count) */
static __global__ void row_count_kernel(int32_t rows, int32_t strips, int h, int m,
                                        const int32_t *__restrict__ sp,
                                        const int32_t *__restrict__ nzptr,
                                        const uint32_t *__restrict__ colrow, int32_t *cnt)
{
    const int64_t s = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (s >= strips) return;
    const int hs = strip_rows(rows, h, s);
    const int64_t beg = sp[s], end = sp[s + 1], k = (end - beg) / GS_CMRS_CHUNK;
    const int64_t nnz_s = m ? nzptr[s + 1] - nzptr[s] : end - beg;
    int32_t c = 0;
    for (int64_t base = beg; base < end; base += 32) { /* uniform over the warp */
        const int64_t j = base + lane;
        int myr = -1;
        if (j < end && (!m || gs_cmrs_mod_entry(j - beg, k, m) < nnz_s))
            myr = (int)(colrow[j] & 15u);
        for (int r = 0; r < hs; r++) {
            const unsigned b = __ballot_sync(FULL_MASK, myr == r);
            if (lane == r) c += __popc(b);
        }
    }
    if (lane < hs) cnt[s * h + lane] = c;
}

/* to_csr of the modified layout, one warp per strip: each real entry back to CSR position
 * nzptr[s] + e (e its row-major index in the strip) */
static __global__ void mod_scatter_kernel(int32_t strips, int m, const int32_t *__restrict__ sp,
                                          const int32_t *__restrict__ nzptr,
                                          const uint32_t *__restrict__ colrow,
                                          const double *__restrict__ val, int32_t *__restrict__ ci,
                                          double *__restrict__ vout)
{
    const int64_t s = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (s >= strips) return;
    const int64_t beg = sp[s], end = sp[s + 1], k = (end - beg) / GS_CMRS_CHUNK;
    const int64_t nnz_s = nzptr[s + 1] - nzptr[s];
    for (int64_t j = beg + lane; j < end; j += 32) {
        const int64_t e = gs_cmrs_mod_entry(j - beg, k, m);
        if (e < nnz_s) {
            ci[nzptr[s] + e] = (int32_t)(colrow[j] >> GS_CMRS_BITS);
            vout[nzptr[s] + e] = val[j];
        }
    }
}

/* out[i] = row-major key of packed in[i]: row << 28 | col (the sort key back to CSR order) */
static __global__ void key_kernel(int64_t n, const uint32_t *__restrict__ in, uint32_t *out)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        out[i] = ((in[i] & 15u) << 28) | (in[i] >> GS_CMRS_BITS);
}

/* out[i] = the column of in[i]: packed (col << 4 | r) or, with row_major, a key_kernel key */
static __global__ void unpack_kernel(int64_t n, const uint32_t *__restrict__ in, int row_major,
                                     int32_t *out)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        out[i] = (int32_t)(row_major ? in[i] & COL_MASK : in[i] >> GS_CMRS_BITS);
}

/* ---------------------------------------------------------------- CUB helpers */

/* (keys, vals) sorted by key within each strip [sp[s], sp[s+1]) (keys are unique there), queued
 * on the stream (the scratch freed stream-ordered) */
static gs_status sort_strips(const uint32_t *kin, uint32_t *kout, const double *vin, double *vout,
                             int64_t n, int32_t strips, const int32_t *sp)
{
    gs_status st = GS_OK;
    void *tmp = NULL;
    size_t bytes = 0;
    GS_CUDA_CALL(cub::DeviceSegmentedSort::SortPairs(NULL, bytes, kin, kout, vin, vout, n, strips,
                                                     sp, sp + 1, gs_cuda_g.stream));
    GS_CHECK(gs_cuda_alloc(bytes, "CUB segmented sort scratch", &tmp));
    GS_CUDA_CALL(cub::DeviceSegmentedSort::SortPairs(tmp, bytes, kin, kout, vin, vout, n, strips,
                                                     sp, sp + 1, gs_cuda_g.stream));
done:
    gs_cuda_free(tmp);
    return st;
}

/* ---------------------------------------------------------------- conversions */

static void destroy(void *M)
{
    gs_cmrs *C = (gs_cmrs *)M;
    if (!C) return;
    (void)cudaStreamSynchronize(gs_cuda_g.stream); /* no kernel may still read the arrays */
    gs_cuda_free(C->stripptr);
    gs_cuda_free(C->nzptr);
    gs_cuda_free(C->colrow);
    gs_cuda_free(C->val);
    gs_free(C);
}

/* modified layout: nzptr, the padded strip sizes, their scan into stripptr (checked to fit
 * 32-bit offsets: one transfer), C->stored */
static gs_status plan_modified(const gs_csr *A, gs_cmrs *C)
{
    gs_status st = GS_OK;
    const int64_t n = (int64_t)C->strips + 1;
    int64_t *size = NULL, *off = NULL, total = 0;
    GS_CHECK(
        gs_cuda_alloc((size_t)n * sizeof(int32_t), "CMRS real-entry offsets", (void **)&C->nzptr));
    GS_CHECK(gs_cuda_alloc((size_t)n * sizeof(int64_t), "CMRS strip sizes", (void **)&size));
    GS_CHECK(gs_cuda_alloc((size_t)n * sizeof(int64_t), "CMRS strip offsets", (void **)&off));
    mod_size_kernel<<<gs_cuda_grid(n), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(
        A->rows, C->strips, C->h, C->m, A->rowptr, size, C->nzptr);
    GS_CUDA_LAUNCHED("cmrs_mod_size");
    GS_CHECK(gs_cuda_exclusive_sum<int64_t>(size, off, n, "CMRS scan scratch"));
    GS_CHECK(gs_cuda_d2h(&total, off + C->strips, sizeof total));
    if (total > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED,
                "cmrs: the modified layout of this %d x %d matrix (%d nonzeros) would store "
                "%lld entries with its padding, beyond 32-bit offsets; use the plain layout",
                A->rows, A->cols, A->nnz, (long long)total);
    narrow_kernel<<<gs_cuda_grid(n), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(n, off, C->stripptr);
    GS_CUDA_LAUNCHED("cmrs_narrow");
    C->stored = (int32_t)total;
done: /* stream-ordered frees: the queued kernels still read them first */
    gs_cuda_free(size);
    gs_cuda_free(off);
    return st;
}

/* plain and sorted layouts: pack; sorted ones then through the segmented sort by packed index,
 * i.e. by (column, row) */
static gs_status fill_plain(const gs_csr *A, gs_cmrs *C)
{
    gs_status st = GS_OK;
    uint32_t *keys = NULL;
    const unsigned blocks = warp_blocks(C->strips);
    if (C->strips == 0 || C->nnz == 0) return GS_OK;
    if (!C->sorted) {
        pack_kernel<<<blocks, CMRS_THREADS, 0, gs_cuda_g.stream>>>(
            A->rows, C->strips, C->h, A->rowptr, A->colind, A->val, C->colrow, C->val);
        GS_CUDA_LAUNCHED("cmrs_pack");
        return GS_OK;
    }
    GS_CHECK(gs_cuda_alloc((size_t)C->nnz * sizeof *keys, "CMRS sort keys", (void **)&keys));
    pack_kernel<<<blocks, CMRS_THREADS, 0, gs_cuda_g.stream>>>(A->rows, C->strips, C->h, A->rowptr,
                                                               A->colind, A->val, keys, NULL);
    GS_CUDA_LAUNCHED("cmrs_pack");
    GS_CHECK(sort_strips(keys, C->colrow, A->val, C->val, C->nnz, C->strips, C->stripptr));
done:
    gs_cuda_free(keys); /* stream-ordered, after the sort */
    return st;
}

/* CSR -> CMRS on the device, from the device CSR A */
static gs_status from_csr(const gs_csr *A, const gs_format_params *p, void **out)
{
    gs_status st = GS_OK;
    gs_cmrs *C = NULL;
    *out = NULL;
    GS_CHECK(gs_cmrs_plan(A, p, &C));
    GS_CHECK(gs_cuda_alloc(((size_t)C->strips + 1) * sizeof(int32_t), "CMRS strip pointers",
                           (void **)&C->stripptr));
    if (C->m) {
        GS_CHECK(plan_modified(A, C));
    } else {
        strip_ptr_kernel<<<gs_cuda_grid((int64_t)C->strips + 1), GS_CUDA_THREADS, 0,
                           gs_cuda_g.stream>>>(A->rows, C->strips, C->h, A->rowptr, C->stripptr);
        GS_CUDA_LAUNCHED("cmrs_strip_ptr");
    }
    GS_CHECK(gs_cuda_alloc((size_t)C->stored * sizeof(uint32_t), "CMRS packed indices",
                           (void **)&C->colrow));
    GS_CHECK(gs_cuda_alloc((size_t)C->stored * sizeof(double), "CMRS values", (void **)&C->val));
    if (C->m) {
        if (C->strips > 0) {
            mod_fill_kernel<<<warp_blocks(C->strips), CMRS_THREADS, 0, gs_cuda_g.stream>>>(
                A->rows, C->strips, C->h, C->m, A->rowptr, A->colind, A->val, C->stripptr,
                C->colrow, C->val);
            GS_CUDA_LAUNCHED("cmrs_mod_fill");
        }
    } else {
        GS_CHECK(fill_plain(A, C));
    }
    *out = C;
    C = NULL;
done:
    destroy(C);
    return st;
}

/* the CSR columns and values of C's real entries, in CSR order, into ci and v (nnz > 0) */
static gs_status unpack_entries(const gs_cmrs *C, int32_t *ci, double *v)
{
    gs_status st = GS_OK;
    uint32_t *keys = NULL;
    cudaStream_t sm = gs_cuda_g.stream;
    const unsigned g = gs_cuda_grid(C->nnz);
    if (C->m) {
        mod_scatter_kernel<<<warp_blocks(C->strips), CMRS_THREADS, 0, sm>>>(
            C->strips, C->m, C->stripptr, C->nzptr, C->colrow, C->val, ci, v);
        GS_CUDA_LAUNCHED("cmrs_mod_scatter");
    } else if (!C->sorted) { /* already CSR's order */
        unpack_kernel<<<g, GS_CUDA_THREADS, 0, sm>>>(C->nnz, C->colrow, 0, ci);
        GS_CUDA_LAUNCHED("cmrs_unpack");
        GS_CUDA_CALL(cudaMemcpyAsync(v, C->val, (size_t)C->nnz * sizeof(double),
                                     cudaMemcpyDeviceToDevice, sm));
    } else { /* each strip back to row-major order: sort by row << 28 | col */
        GS_CHECK(
            gs_cuda_alloc((size_t)C->nnz * 2 * sizeof *keys, "CMRS sort keys", (void **)&keys));
        key_kernel<<<g, GS_CUDA_THREADS, 0, sm>>>(C->nnz, C->colrow, keys);
        GS_CUDA_LAUNCHED("cmrs_key");
        GS_CHECK(sort_strips(keys, keys + C->nnz, C->val, v, C->nnz, C->strips, C->stripptr));
        unpack_kernel<<<g, GS_CUDA_THREADS, 0, sm>>>(C->nnz, keys + C->nnz, 1, ci);
        GS_CUDA_LAUNCHED("cmrs_unpack");
    }
done:
    if (keys) {
        (void)cudaStreamSynchronize(sm);
        gs_cuda_free(keys);
    }
    return st;
}

/* CMRS -> device CSR: per-row counts, their scan into rowptr, then the entries */
static gs_status to_csr(const void *M, gs_csr **out)
{
    gs_status st = GS_OK;
    const gs_cmrs *C = (const gs_cmrs *)M;
    const int64_t n = (int64_t)C->rows + 1;
    int32_t *cnt = NULL, *rp = NULL, *ci = NULL, last = 0;
    double *v = NULL;
    *out = NULL;
    GS_CHECK(gs_cuda_alloc((size_t)n * sizeof(int32_t), "CSR row counts", (void **)&cnt));
    GS_CHECK(gs_cuda_alloc((size_t)n * sizeof(int32_t), "CSR row pointers", (void **)&rp));
    GS_CHECK(gs_cuda_alloc((size_t)C->nnz * sizeof(int32_t), "CSR column indices", (void **)&ci));
    GS_CHECK(gs_cuda_alloc((size_t)C->nnz * sizeof(double), "CSR values", (void **)&v));
    GS_CUDA_CALL(cudaMemsetAsync(cnt, 0, (size_t)n * sizeof(int32_t), gs_cuda_g.stream));
    if (C->strips > 0) {
        row_count_kernel<<<warp_blocks(C->strips), CMRS_THREADS, 0, gs_cuda_g.stream>>>(
            C->rows, C->strips, C->h, C->m, C->stripptr, C->nzptr, C->colrow, cnt);
        GS_CUDA_LAUNCHED("cmrs_row_count");
    }
    GS_CHECK(gs_cuda_exclusive_sum<int32_t>(cnt, rp, n, "CMRS scan scratch"));
    GS_CHECK(gs_cuda_d2h(&last, rp + C->rows, sizeof last));
    if (last != C->nnz)
        GS_FAIL(GS_ERR_INTERNAL, "cmrs to_csr: %d entries counted, %d expected", last, C->nnz);
    if (C->nnz > 0) GS_CHECK(unpack_entries(C, ci, v));
    GS_CUDA_CALL(cudaStreamSynchronize(gs_cuda_g.stream));
    st = gs_cuda_csr_adopt(C->rows, C->cols, C->nnz, rp, ci, v, out);
    rp = ci = NULL, v = NULL; /* adopted, or freed by the failed adopt */
done:
    (void)cudaStreamSynchronize(gs_cuda_g.stream);
    gs_cuda_free(cnt);
    gs_cuda_free(rp);
    gs_cuda_free(ci);
    gs_cuda_free(v);
    return st;
}

extern "C" const gs_format_ops gs_cmrs_cuda_ops = {"cmrs",        from_csr,         to_csr, spmv,
                                                   gs_cmrs_bytes, gs_cmrs_describe, destroy};

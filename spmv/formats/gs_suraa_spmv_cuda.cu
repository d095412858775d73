/* gs_suraa_spmv_cuda.cu: SURAA's SpMV on the device: the group kernels and their launches. */
#include <stdint.h>

#include "gs_cuda_impl.h"
#include "gs_cuda_reduce.cuh"
#include "gs_suraa.h"
#include "gs_suraa_cuda_impl.cuh"

extern "C" cudaError_t gs_suraa_dp_spmv(int32_t n1, const int32_t *perm, const int32_t *rowptr,
                                        const int32_t *colind, const double *val, const double *x,
                                        double *y, double *part, unsigned int *cnt, cudaStream_t s);

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

/* ------------------------------------------------------------------ SpMV */

/* y = M*x: G1 (child grids, or blocks from the host), G2 (one vector launch over its runs),
 * G3 (one launch over its runs of L lanes), each non-empty group on its own stream: the one
 * with the most entries on gs_cuda_g.stream, the others forked from it and joined back (so a
 * matrix in one group costs one launch and no events); G1 launched first, as it ends last */
gs_status gs_suraa_cuda_spmv(const void *Mv, const double *x, double *y)
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
        s[i] = i == main_g ? gs_cuda_g.stream : gs_suraa_sx.s[i];
        fork |= use[i] && i != main_g;
    }
    if (fork) {
        GS_CUDA_CALL(cudaEventRecord(gs_suraa_sx.fork, gs_cuda_g.stream));
        for (int i = 0; i < 3; i++)
            if (use[i] && i != main_g) GS_CUDA_CALL(cudaStreamWaitEvent(s[i], gs_suraa_sx.fork, 0));
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
                GS_CUDA_CALL(cudaEventRecord(gs_suraa_sx.join[i], s[i]));
                GS_CUDA_CALL(cudaStreamWaitEvent(gs_cuda_g.stream, gs_suraa_sx.join[i], 0));
            }
done:
    return st;
}

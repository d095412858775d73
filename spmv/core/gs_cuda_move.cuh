/* gs_cuda_move.cuh: the flat copy of a matrix's entries between two layouts that hold each row's
 * entries in the same order, one after the other in the first (row pointers rp, nnz entries in
 * all) and starting anywhere in the second. Entry e of row r in the first layout is entry
 * e + shift(r, rp[r]) in the second. The DCSR -> CSR copy (a DCSR row's segment, gs_dcsr_cuda.cu)
 * and the SURAA conversions (a sorted row and its original, gs_suraa_cuda.cu) use it. Device code
 * and a launch helper: include from .cu files, after gs_cuda_impl.h. */
#ifndef GS_CUDA_MOVE_CUH
#define GS_CUDA_MOVE_CUH

#define GS_MOVE_UNROLL 4
#define GS_MOVE_TILE (GS_CUDA_THREADS * GS_MOVE_UNROLL)
#define GS_MOVE_ROWS 1024

/* A block takes GS_MOVE_TILE consecutive entries of the first layout; warp 0 finds the rows of
 * its first and last entries (gs_warp_row_of), the block stages their row pointers and shifts in
 * shared memory, and every thread moves its entries, GS_MOVE_UNROLL loads in flight before their
 * stores, each finding its row among the staged ones: the first layout's side is coalesced, the
 * other within a row. A tile spanning more than GS_MOVE_ROWS rows (empty rows) searches rp in
 * global memory instead. gather: out[e] = in[e + shift]; else out[e + shift] = in[e]. Shift:
 * `__device__ int32_t operator()(int32_t r, int32_t rp_r) const`. ncu on the H200: DCSR -> CSR of
 * 3D Poisson 7-point 100^3's A*P (3.9M entries) 43 us, A*A (24.6M entries, 700 MB of DRAM
 * traffic) 218 us, at the bandwidth; a warp per 32 rows took 82 and 224 us. */
template <class Shift>
static __global__ void __launch_bounds__(GS_CUDA_THREADS)
    gs_move_kernel(int32_t rows, int64_t nnz, const int32_t *__restrict__ rp, Shift shift,
                   int gather, const int32_t *__restrict__ ci, const double *__restrict__ v,
                   int32_t *__restrict__ nc, double *__restrict__ nv)
{
    __shared__ int32_t s_rp[GS_MOVE_ROWS + 1], s_sh[GS_MOVE_ROWS];
    __shared__ int32_t s_r0, s_nr;
    /* entries past rp[rows] have no row (a layout holding fewer than nnz: nothing to move) */
    const int64_t end = (int64_t)__ldg(rp + rows) < nnz ? (int64_t)__ldg(rp + rows) : nnz;
    const int64_t k0 = (int64_t)blockIdx.x * GS_MOVE_TILE;
    const int64_t k1 = k0 + GS_MOVE_TILE < end ? k0 + GS_MOVE_TILE : end;
    if (k0 >= k1) return;
    if (threadIdx.x < 32) {
        const int32_t r0 = gs_warp_row_of(rp, rows, k0);
        const int32_t r1 = gs_warp_row_of(rp, rows, k1 - 1);
        if (threadIdx.x == 0) s_r0 = r0, s_nr = r1 - r0 + 1;
    }
    __syncthreads();
    const int32_t r0 = s_r0, nr = s_nr;
    const bool staged = nr <= GS_MOVE_ROWS; /* block-uniform */
    if (staged) { /* an empty row's shift is not read (a DCSR row without a segment has none) */
        for (int t = threadIdx.x; t <= nr; t += blockDim.x) s_rp[t] = __ldg(rp + r0 + t);
        __syncthreads();
        for (int t = threadIdx.x; t < nr; t += blockDim.x)
            s_sh[t] = s_rp[t + 1] > s_rp[t] ? shift(r0 + t, s_rp[t]) : 0;
        __syncthreads();
    }
    int64_t at[GS_MOVE_UNROLL];
    int32_t c[GS_MOVE_UNROLL];
    double x[GS_MOVE_UNROLL];
#pragma unroll
    for (int u = 0; u < GS_MOVE_UNROLL; u++) {
        const int64_t e = k0 + u * GS_CUDA_THREADS + threadIdx.x;
        at[u] = -1;
        if (e >= k1) continue;
        int32_t lo, sh; /* the last (staged) row with rp <= e */
        if (staged) {
            lo = gs_last_le(0, nr - 1, e, [&](int32_t i) { return s_rp[i]; });
            sh = s_sh[lo];
        } else {
            lo = gs_last_le(r0, r0 + nr - 1, e, [rp](int32_t i) { return __ldg(rp + i); });
            sh = shift(lo, __ldg(rp + lo));
        }
        at[u] = e + sh;
        const int64_t from = gather ? at[u] : e;
        c[u] = __ldcs(ci + from);
        x[u] = __ldcs(v + from);
    }
#pragma unroll
    for (int u = 0; u < GS_MOVE_UNROLL; u++) {
        if (at[u] < 0) continue;
        const int64_t to = gather ? k0 + u * GS_CUDA_THREADS + threadIdx.x : at[u];
        nc[to] = c[u], nv[to] = x[u];
    }
}

/* gs_move_kernel over nnz > 0 entries on stream s */
template <class Shift>
static gs_status gs_move(int32_t rows, int64_t nnz, const int32_t *rp, Shift shift, int gather,
                         const int32_t *ci, const double *v, int32_t *nc, double *nv,
                         cudaStream_t s, const char *what)
{
    gs_status st = GS_OK;
    gs_move_kernel<<<(unsigned)((nnz + GS_MOVE_TILE - 1) / GS_MOVE_TILE), GS_CUDA_THREADS, 0, s>>>(
        rows, nnz, rp, shift, gather, ci, v, nc, nv);
    GS_CUDA_LAUNCHED(what);
done:
    return st;
}

#endif

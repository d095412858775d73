/* gs_spgemm_bins_cuda.cu: the bins' kernels of the device SpGEMM (see gs_spgemm_cuda.cu) and
 * their launches. Rows of at most 4096 products: a group of T threads per row forms the row's
 * products in a shared-memory table (hashed: bin_kernel, and for T <= 32 warp_bin_kernel without
 * block barriers; sorted in registers: sort_bin_kernel, the 33-64 bin), compacts it and writes each
 * entry at its rank among the row's columns, the rows taking segments of C from the bump pointer.
 * Rows whose columns overflow the 4096-slot table: tables in global memory, a CUB segmented sort,
 * a write (gs_spgemm_run_global_bin). */
#include <stdint.h>

#include <cub/cub.cuh>

#include "gs_spgemm_cuda_impl.cuh"

/* ---- the shared-memory bins ---- */

/* The sorted bin (33-64 products, sort_bin_kernel): blocks a multiprocessor (64 registers;
 * 5 made it spill and changed nothing, 3 was slower), chunks of A's entries loaded at once (1, 2
 * and 4 measured alike), lanes a row (16 instead of 8: 7-point A*A 0.91 -> 1.07 ms) */
#define SORT_BLOCKS 4
#define SORT_CH 2
#define SORT_T2 8

/* The row's products into its group's hash table (keys/vals, S = 2^LOGS slots): sub-groups of
 * G = 2^glog2 lanes take A's entries in turn, their lanes B's row (see bin_kernel). */
template <int LOGS>
static __device__ __forceinline__ void hash_row(const sg_args &a, int32_t row, int t, int T,
                                                int glog2, int32_t *keys, double *vals, int *ovf)
{
    constexpr int S = 1 << LOGS;
    const int G = 1 << glog2, nsub = T >> glog2, sub = t >> glog2, l = t & (G - 1);
    const int32_t ae = __ldg(a.arp + row + 1);
    for (int32_t ka = __ldg(a.arp + row) + sub; ka < ae; ka += nsub) {
        const int32_t k = __ldg(a.acol + ka);
        const double av = __ldg(a.aval + ka);
        const int32_t be = __ldg(a.brp + k + 1);
        for (int32_t kb = __ldg(a.brp + k) + l; kb < be; kb += G) {
            const int32_t c = __ldg(a.bcol + kb);
            const double v = av * __ldg(a.bval + kb);
            unsigned h = ((unsigned)c * 0x9E3779B1u) >> (32 - LOGS);
            for (int probe = 0;; probe++) {
                if (probe == S) { /* more distinct columns than slots (last bin only) */
                    *ovf = 1;
                    return;
                }
                const int32_t prev = atomicCAS(keys + h, -1, c);
                if (prev == -1 || prev == c) {
                    atomicAdd(vals + h, v);
                    break;
                }
                h = (h + 1) & (S - 1);
            }
        }
    }
}

/* product c, v into a table of S = 2^LOGS slots with a free slot for it (columns by atomicCAS,
 * values by atomicAdd) */
template <int LOGS>
static __device__ __forceinline__ void hash_add(int32_t c, double v, int32_t *keys, double *vals)
{
    constexpr int S = 1 << LOGS;
    unsigned h = ((unsigned)c * 0x9E3779B1u) >> (32 - LOGS);
    for (;;) {
        const int32_t prev = atomicCAS(keys + h, -1, c);
        if (prev == -1 || prev == c) {
            atomicAdd(vals + h, v);
            return;
        }
        h = (h + 1) & (S - 1);
    }
}

/* hash_row for the warp bins (T <= 32 lanes a row, at most S products, so a slot is always
 * free; row < 0: the group only takes part in the shuffles). The group's lanes first load A's
 * entries of the row, T at a time, each with its B row's bounds (two loads deep, all lanes at
 * once); the sub-groups of G lanes then take the entries in turn, two at a time, getting
 * (bounds, a_ik) by shuffle, so the loads of B's rows wait on nothing but the shuffles. In
 * hash_row every entry of A cost three loads in a row (A's column, B's bounds, B's entries)
 * before its products: on 3D Poisson 7-point, 4 rounds of them per row of A*A. */
template <int LOGS, int T>
static __device__ __forceinline__ void hash_row_warp(const sg_args &a, int32_t row, int t,
                                                     int glog2, int32_t *keys, double *vals)
{
    const unsigned full = 0xffffffffu;
    const int G = 1 << glog2, nsub = T >> glog2, sub = t >> glog2, l = t & (G - 1);
    int32_t as = 0, na = 0;
    if (row >= 0) as = __ldg(a.arp + row), na = __ldg(a.arp + row + 1) - as;
    const int nch = (int)__reduce_max_sync(full, (unsigned)((na + T - 1) / T));
    for (int ch = 0; ch < nch; ch++) {
        const int nin = na - ch * T < T ? na - ch * T : T; /* this chunk's entries (may be <= 0) */
        int32_t bs = 0, be = 0;
        double av = 0.0;
        if (t < nin) {
            const int32_t k = __ldg(a.acol + as + ch * T + t);
            av = __ldg(a.aval + as + ch * T + t);
            bs = __ldg(a.brp + k), be = __ldg(a.brp + k + 1);
        }
        const int iters =
            (int)__reduce_max_sync(full, (unsigned)(nin > 0 ? (nin + nsub - 1) / nsub : 0));
        for (int i = 0; i < iters; i += 2) {
            const int e0 = sub + i * nsub, e1 = e0 + nsub; /* e0 < T; e1 < T when i + 1 < iters */
            const int s1 = e1 < T ? e1 : 0;
            const int32_t b0 = __shfl_sync(full, bs, e0, T), x0 = __shfl_sync(full, be, e0, T);
            const int32_t b1 = __shfl_sync(full, bs, s1, T), x1 = __shfl_sync(full, be, s1, T);
            const double v0 = __shfl_sync(full, av, e0, T), v1 = __shfl_sync(full, av, s1, T);
            const bool ok0 = e0 < nin, ok1 = e1 < nin;
            int32_t kb0 = b0 + l, kb1 = b1 + l;
            /* the first product of each entry loaded together, then the rest */
            int32_t c0 = -1, c1 = -1;
            double p0 = 0.0, p1 = 0.0;
            if (ok0 && kb0 < x0) c0 = __ldg(a.bcol + kb0), p0 = v0 * __ldg(a.bval + kb0);
            if (ok1 && kb1 < x1) c1 = __ldg(a.bcol + kb1), p1 = v1 * __ldg(a.bval + kb1);
            if (c0 >= 0) hash_add<LOGS>(c0, p0, keys, vals);
            if (c1 >= 0) hash_add<LOGS>(c1, p1, keys, vals);
            if (ok0)
                for (kb0 += G; kb0 < x0; kb0 += G)
                    hash_add<LOGS>(__ldg(a.bcol + kb0), v0 * __ldg(a.bval + kb0), keys, vals);
            if (ok1)
                for (kb1 += G; kb1 < x1; kb1 += G)
                    hash_add<LOGS>(__ldg(a.bcol + kb1), v1 * __ldg(a.bval + kb1), keys, vals);
        }
    }
}

/* the row's m compacted entries to C from b0, each at its rank among the row's columns (so the
 * row comes out sorted); thread t of T. (Four keys a 16-byte load, four compares each, cut the
 * instructions of 7-point A*A's kernel by a few percent and its time by none: the kernel is
 * bound by L1 traffic, ncu 85% busy; and it took bin 6's kernel from 32 to 39 registers.) */
static __device__ __forceinline__ void write_ranked(const sg_args &a, const int32_t *keys,
                                                    const double *vals, int m, int t, int T,
                                                    long long b0)
{
    for (int q = t; q < m; q += T) {
        const int32_t ck = keys[q];
        int r = 0;
        for (int j = 0; j < m; j++) r += keys[j] < ck;
        a.ccol[b0 + r] = ck;
        a.cval[b0 + r] = vals[q];
    }
}

/* Rows with at most S = 2^LOGS products: RB groups of T threads per block, a group per row
 * (list[(block*RB + group)*stride]). The group's sub-groups of G = 2^glog2 lanes take A's
 * entries in turn, their lanes B's row: each product goes into the group's hash table (columns
 * by atomicCAS, values by atomicAdd; at most S distinct columns, so a free slot always exists).
 * Then the table is compacted, one thread allocates the whole block's rows from the bump
 * pointer (or, counting only, adds the sizes to the sample counters), and each entry lands at
 * its rank among the row's columns: C's rows come out sorted, without duplicates. */
template <int LOGS, int T, int RB>
__global__ void __launch_bounds__(T *RB)
    bin_kernel(sg_args a, const int32_t *__restrict__ list, int64_t n, int64_t stride,
               int count_only, int glog2, int bin)
{
    constexpr int S = 1 << LOGS, ITEMS = S / T;
    extern __shared__ __align__(16) unsigned char smem[]; /* RB*S values, then RB*S columns */
    double(*vals)[S] = reinterpret_cast<double(*)[S]>(smem);
    int32_t(*keys)[S] = reinterpret_cast<int32_t(*)[S]>(smem + (size_t)RB * S * sizeof(double));
    __shared__ int cnt[RB];
    __shared__ int32_t rowid[RB];
    __shared__ long long base[RB];
    const int g = threadIdx.x / T, t = threadIdx.x % T;
    const int64_t item = ((int64_t)blockIdx.x * RB + g) * stride;
    const int32_t row = item < n ? (list ? list[item] : (int32_t)item) : -1;
    for (int j = t; j < S; j += T) keys[g][j] = -1, vals[g][j] = 0.0;
    __shared__ int ovf[RB];
    if (t == 0) cnt[g] = 0, rowid[g] = row, ovf[g] = 0;
    __syncthreads();
    if (row >= 0) hash_row<LOGS>(a, row, t, T, glog2, keys[g], vals[g], &ovf[g]);
    __syncthreads();
    if (row >= 0 && ovf[g] && t == 0) { /* the row goes to the global-memory kernel */
        a.spill[atomicAdd(&a.ctl[C_SPILL], 1ull)] = row;
        rowid[g] = -1; /* read after the next barriers: no place, no write */
    }
    int32_t rk[ITEMS];
    double rv[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; i++) rk[i] = keys[g][t + i * T], rv[i] = vals[g][t + i * T];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
        if (rk[i] >= 0) {
            const int p = atomicAdd(&cnt[g], 1);
            keys[g][p] = rk[i];
            vals[g][p] = rv[i];
        }
    __syncthreads();
    if (threadIdx.x == 0) {
        long long tot = 0, nrows = 0;
        for (int q = 0; q < RB; q++) {
            base[q] = rowid[q] >= 0 ? tot : -1;
            if (rowid[q] >= 0) tot += cnt[q], nrows++;
        }
        if (count_only) {
            if (nrows) {
                atomicAdd(&a.ctl[C_SOUT + bin], (unsigned long long)tot);
                atomicAdd(&a.ctl[C_SROWS + bin], (unsigned long long)nrows);
            }
            for (int q = 0; q < RB; q++) base[q] = -1;
        } else if (nrows) {
            const long long addr = (long long)atomicAdd(a.top, (unsigned long long)tot);
            const int fits = addr + tot <= a.capacity;
            for (int q = 0; q < RB; q++) {
                const int32_t r = rowid[q];
                if (r < 0) continue;
                if (!fits) {
                    a.failed[atomicAdd(&a.ctl[C_NFAIL], 1ull)] = r;
                    atomicAdd(&a.ctl[C_NEED], (unsigned long long)cnt[q]);
                    base[q] = -1;
                } else {
                    base[q] += addr;
                    a.offsets[2 * (int64_t)r] = (int32_t)base[q];
                    a.offsets[2 * (int64_t)r + 1] = (int32_t)(base[q] + cnt[q]);
                    a.sizes[r] = cnt[q];
                }
            }
        }
    }
    __syncthreads();
    const long long b0 = base[g];
    if (row >= 0 && b0 >= 0) write_ranked(a, keys[g], vals[g], cnt[g], t, T, b0);
}

/* The rows of a 256-thread block of warp-bin groups (T lanes a row, lane t, the group's first
 * lane gl0; m entries in row, row < 0: none) take one bump-pointer allocation together: warp
 * scans of the sizes, two barriers, one global atomic (a single address serializes them: an
 * atomic per warp made the 7-point 256^3 A*P slower). Returns the row's first entry, its
 * segment and size set; -1 when the row is not written (none, counting only, or capacity
 * exhausted: then listed to be redone after C grows). Every thread of the block calls it. With
 * a.ch_addr, warp 0 also records the block's address and entries (its chunk); with
 * a.count_prod, the block's products (prods: each lane's share of its warp's) are added to
 * ctl[C_PROD + bin]. */
template <int T>
static __device__ long long block_alloc(const sg_args &a, int32_t row, int t, int gl0, int m,
                                        int count_only, int bin, unsigned prods = 0)
{
    __shared__ unsigned wsum[8], wprod[8];
    __shared__ long long wbase[8];
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (a.count_prod) { /* prods: the lane's share of its warp's products */
        const unsigned p = __reduce_add_sync(0xffffffffu, prods);
        if (lane == 0) wprod[w] = p;
    }
    /* each group's first lane: entries << 8 | 1 (a warp holds at most 4 rows of at most 128
     * entries), scanned over the groups' first lanes */
    const unsigned mine = (t == 0 && row >= 0) ? (unsigned)m << 8 | 1u : 0u;
    unsigned inc = mine;
#pragma unroll
    for (int d = T; d < 32; d <<= 1) {
        const unsigned y = __shfl_up_sync(0xffffffffu, inc, d);
        if (lane >= d) inc += y;
    }
    if (lane == 32 - T) wsum[w] = inc;
    __syncthreads();
    if (threadIdx.x < 32) { /* warp 0: the warps' scan, one atomic */
        const unsigned x = lane < 8 ? wsum[lane] : 0u;
        unsigned long long e = x >> 8, r = x & 0xffu;
#pragma unroll
        for (int d = 1; d < 8; d <<= 1) {
            const unsigned long long ye = __shfl_up_sync(0xffffffffu, e, d);
            const unsigned long long yr = __shfl_up_sync(0xffffffffu, r, d);
            if (lane >= d) e += ye, r += yr;
        }
        const unsigned long long tot = __shfl_sync(0xffffffffu, e, 7),
                                 rows = __shfl_sync(0xffffffffu, r, 7);
        long long addr = -1;
        if (a.count_prod) {
            unsigned long long p = lane < 8 ? wprod[lane] : 0u;
#pragma unroll
            for (int d = 4; d > 0; d >>= 1) p += __shfl_xor_sync(0xffffffffu, p, d);
            if (lane == 0 && p) atomicAdd(&a.ctl[C_PROD + bin], p);
        }
        if (lane == 0 && rows && count_only) {
            atomicAdd(&a.ctl[C_SOUT + bin], tot);
            atomicAdd(&a.ctl[C_SROWS + bin], rows);
        } else if (lane == 0 && rows) {
            addr = (long long)atomicAdd(a.top, tot);
            if (addr + (long long)tot > a.capacity) addr = -2;
        }
        if (a.ch_addr && lane == 0) /* every block of the launch, with rows or not */
            a.ch_addr[blockIdx.x] = addr >= 0 ? (int32_t)addr : 0,
            a.ch_tot[blockIdx.x] = addr >= 0 ? (int32_t)tot : 0;
        addr = __shfl_sync(0xffffffffu, addr, 0);
        if (lane < 8) wbase[lane] = addr < 0 ? addr : addr + (long long)(e - (x >> 8));
    }
    __syncthreads();
    const long long wb = wbase[w];
    const unsigned before = __shfl_sync(0xffffffffu, inc - mine, gl0) >> 8;
    if (row < 0) return -1;
    if (wb == -2 && t == 0) { /* capacity ran out: redone after C grows */
        a.failed[atomicAdd(&a.ctl[C_NFAIL], 1ull)] = row;
        atomicAdd(&a.ctl[C_NEED], (unsigned long long)m);
    }
    if (wb < 0) return -1;
    const long long b0 = wb + (long long)before;
    if (t == 0) {
        a.offsets[2 * (int64_t)row] = (int32_t)b0;
        a.offsets[2 * (int64_t)row + 1] = (int32_t)(b0 + m);
        a.sizes[row] = m;
    }
    return b0;
}

/* The same product as bin_kernel for groups of T <= 32 lanes (bins 1-3): a warp holds 32/T
 * rows and compacts each table with ballots, with no block barrier; the block's rows take one
 * allocation (block_alloc). Eight blocks a multiprocessor (32 registers, a few spilled; at 40
 * registers six fit): the kernel waits on its loads, and 7-point A*A went from 1.82-1.83x to
 * 1.91-1.92x cuSPARSE (two runs each). */
template <int LOGS, int T>
__global__ void __launch_bounds__(256, 8)
    warp_bin_kernel(sg_args a, const int32_t *__restrict__ list, int64_t n, int64_t stride,
                    int count_only, int glog2, int bin)
{
    /* each row's table S + T slots apart: with S apart the rows of a warp had their slot j in
     * the same bank (T = 8: four rows, a 4-way conflict on every access; ncu on 7-point 100^3
     * A*P: 2.4 times the ideal shared wavefronts, the kernel bound by them) */
    constexpr int S = 1 << LOGS, ITEMS = S / T, RB = 256 / T, SP = S + T;
    __shared__ int32_t keys[RB][SP];
    __shared__ double vals[RB][SP];
    const int g = threadIdx.x / T, t = threadIdx.x % T, lane = threadIdx.x & 31;
    const int gl0 = lane & ~(T - 1); /* the group's first lane in the warp */
    const unsigned gbits = T == 32 ? 0xffffffffu : ((1u << (T & 31)) - 1u);
    const int64_t item = ((int64_t)blockIdx.x * RB + g) * stride;
    const int32_t row = item < n ? (list ? list[item] : (int32_t)item) : -1;
    for (int j = t; j < S; j += T) keys[g][j] = -1, vals[g][j] = 0.0;
    __syncwarp();
    hash_row_warp<LOGS, T>(a, row, t, glog2, keys[g], vals[g]); /* every lane: shuffles */
    __syncwarp();
    int32_t rk[ITEMS];
    double rv[ITEMS];
    int rp[ITEMS], m = 0;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        rk[i] = keys[g][t + i * T], rv[i] = vals[g][t + i * T];
        const unsigned bal = (__ballot_sync(0xffffffffu, rk[i] >= 0) >> gl0) & gbits;
        rp[i] = m + __popc(bal & ((1u << t) - 1u));
        m += __popc(bal);
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
        if (rk[i] >= 0) keys[g][rp[i]] = rk[i], vals[g][rp[i]] = rv[i];
    __syncwarp();
    const long long b0 = block_alloc<T>(a, row, t, gl0, m, count_only, bin);
    if (b0 < 0) return;
    write_ranked(a, keys[g], vals[g], m, t, T, b0);
}

/* Rows of at most S = 2^LOGS products by sorting instead of hashing (the paper's form, sort
 * and reduce): T lanes a row, I = S / T products a lane, 256 / T rows a block. Each product gets
 * its place p in the row (A's entries in order, a scan of their B rows' lengths) and goes, without
 * atomics, to keys[p] = column << LOGS | p and vals[p]; the lanes take the keys back, I each,
 * sort them in registers (a bitonic network: compare-exchanges inside a lane, shuffles across
 * lanes), fetch each key's value from its place, and sum the runs of equal columns: in the lane,
 * then the run that goes on in the next lanes by a suffix scan of shuffles. A run's first entry
 * writes it; the row comes out sorted, without duplicates. Needs B's columns < 2^(32 - LOGS) - 1.
 */
template <int LOGS, int T>
__global__ void __launch_bounds__(256, SORT_BLOCKS)
    sort_bin_kernel(sg_args a, const int32_t *__restrict__ list, int64_t n, int64_t stride,
                    int count_only, int glog2, int bin)
{
    constexpr int S = 1 << LOGS, I = S / T, RB = 256 / T, SP = S + 8;
    constexpr int LT = T == 32 ? 5 : T == 16 ? 4 : T == 8 ? 3 : T == 4 ? 2 : 1; /* log2 T */
    constexpr uint32_t PAD = 0xffffffffu;
    const unsigned full = 0xffffffffu;
    __shared__ __align__(16) uint32_t keys[RB][SP];
    __shared__ double vals[RB][SP];
    const int g = threadIdx.x / T, t = threadIdx.x % T, lane = threadIdx.x & 31;
    const int gl0 = lane & ~(T - 1);
    uint32_t *const kg = keys[g];
    double *const vg = vals[g];
    const int32_t *__restrict__ bcol = a.bcol;
    const double *__restrict__ bval = a.bval;
    const int64_t item = ((int64_t)blockIdx.x * RB + g) * stride;
    const int32_t row = item < n ? (list ? list[item] : (int32_t)item) : -1;
    /* the products to their places: sub-groups of G lanes take A's entries, two at a time */
    const int G = 1 << glog2, lsub = LT - glog2, nsub = 1 << lsub, sub = t >> glog2;
    const int l = t & (G - 1);
    int32_t as = 0, na = 0, np = 0;
    if (row >= 0) as = __ldg(a.arp + row), na = __ldg(a.arp + row + 1) - as;
    const int nch = (int)__reduce_max_sync(full, (unsigned)((na + T - 1) >> LT));
    uint32_t k[I];
    /* Short rows (at most I entries of A, none of whose rows of B is longer than T: 3D Poisson
     * 7-point A*A, 27-point R (A P)): lane t forms product (entry e, B entry t) straight into
     * k[e], place t I + e, so the keys skip the round trip through shared memory and the
     * products' loop its bookkeeping (ncu: 566 of a warp's 1600 instructions were that loop).
     * Warp-uniform, as the shuffles need all lanes. */
    bool fast = false;
    int32_t fbs = 0, flen = 0;
    double fav = 0.0;
    if constexpr (T == I) {
        if (t < na && na <= I) {
            const int32_t kc = __ldg(a.acol + as + t);
            fav = __ldg(a.aval + as + t);
            fbs = __ldg(a.brp + kc), flen = __ldg(a.brp + kc + 1) - fbs;
        }
        fast = __all_sync(full, na <= I && flen <= T);
    }
    if (fast) {
#pragma unroll
        for (int e = 0; e < I; e++) {
            const int32_t b = __shfl_sync(full, fbs, e, T), nn = __shfl_sync(full, flen, e, T);
            const double v = __shfl_sync(full, fav, e, T);
            k[e] = PAD;
            if (t < nn) {
                k[e] = (uint32_t)__ldg(bcol + b + t) << LOGS | (uint32_t)(t * I + e);
                vg[t * I + e] = v * __ldg(bval + b + t);
            }
        }
    } else {
        /* SORT_CH chunks of T entries of A loaded at once, with their B rows' bounds: a row of A
         * of 27 entries (a Galerkin R) no longer waits on four chains of loads one after another */
        for (int ch0 = 0; ch0 < nch; ch0 += SORT_CH) {
            int32_t kk[SORT_CH], bs[SORT_CH], be[SORT_CH];
            double av[SORT_CH];
#pragma unroll
            for (int c = 0; c < SORT_CH; c++) {
                const int j = (ch0 + c) * T + t;
                kk[c] = -1, av[c] = 0.0;
                if (j < na) kk[c] = __ldg(a.acol + as + j), av[c] = __ldg(a.aval + as + j);
            }
#pragma unroll
            for (int c = 0; c < SORT_CH; c++) {
                bs[c] = 0, be[c] = 0;
                if (kk[c] >= 0) bs[c] = __ldg(a.brp + kk[c]), be[c] = __ldg(a.brp + kk[c] + 1);
            }
#pragma unroll
            for (int c = 0; c < SORT_CH; c++) {
                if (ch0 + c >= nch) break; /* warp-uniform */
                const int nin = na - (ch0 + c) * T < T ? na - (ch0 + c) * T : T;
                const int len = be[c] - bs[c];
                int inc = len;
#pragma unroll
                for (int d = 1; d < T; d <<= 1) {
                    const int y = __shfl_up_sync(full, inc, d, T);
                    if (t >= d) inc += y;
                }
                /* the entry's place and length in one word (both at most S <= 2^15) */
                const int ol = (np + inc - len) << 16 | len;
                np += __shfl_sync(full, inc, T - 1, T);
                const int iters = (int)__reduce_max_sync(
                    full, (unsigned)(nin > 0 ? (nin + nsub - 1) >> lsub : 0));
                for (int i = 0; i < iters; i += 2) {
                    const int e0 = sub + (i << lsub), e1 = e0 + nsub;
                    const int s1 = e1 < T ? e1 : 0;
                    const int32_t b0 = __shfl_sync(full, bs[c], e0, T);
                    const int32_t b1 = __shfl_sync(full, bs[c], s1, T);
                    const int ol0 = __shfl_sync(full, ol, e0, T),
                              ol1 = __shfl_sync(full, ol, s1, T);
                    const double v0 = __shfl_sync(full, av[c], e0, T);
                    const double v1 = __shfl_sync(full, av[c], s1, T);
                    const int m0 = e0 < nin ? ol0 & 0xffff : 0, m1 = e1 < nin ? ol1 & 0xffff : 0;
                    const int o0 = ol0 >> 16, o1 = ol1 >> 16;
                    for (int q = l; q < m0 || q < m1; q += G) {
                        uint32_t c0 = 0, c1 = 0;
                        double p0 = 0.0, p1 = 0.0;
                        if (q < m0)
                            c0 = (uint32_t)__ldg(bcol + b0 + q), p0 = v0 * __ldg(bval + b0 + q);
                        if (q < m1)
                            c1 = (uint32_t)__ldg(bcol + b1 + q), p1 = v1 * __ldg(bval + b1 + q);
                        if (q < m0) kg[o0 + q] = c0 << LOGS | (uint32_t)(o0 + q), vg[o0 + q] = p0;
                        if (q < m1) kg[o1 + q] = c1 << LOGS | (uint32_t)(o1 + q), vg[o1 + q] = p1;
                    }
                }
            }
        }
        __syncwarp();
        if constexpr (I == 8) {
            /* 16-byte loads, lanes 4-7 of the 8 taking their second half first: a quarter warp's
             * eight loads then cover all 32 banks (in place order, lane t's at 32 t bytes, lanes t
             * and t + 4 shared banks: 6-7 wavefronts a load where 1 is the ideal, ncu) */
            const int h = t & 4 ? 4 : 0;
            const uint4 x = *reinterpret_cast<const uint4 *>(kg + t * I + h);
            const uint4 y = *reinterpret_cast<const uint4 *>(kg + t * I + (h ^ 4));
            const uint32_t lo[4] = {h ? y.x : x.x, h ? y.y : x.y, h ? y.z : x.z, h ? y.w : x.w};
            const uint32_t hi[4] = {h ? x.x : y.x, h ? x.y : y.y, h ? x.z : y.z, h ? x.w : y.w};
#pragma unroll
            for (int e = 0; e < 4; e++) {
                k[e] = t * I + e < np ? lo[e] : PAD;
                k[e + 4] = t * I + e + 4 < np ? hi[e] : PAD;
            }
        } else {
#pragma unroll
            for (int e = 0; e < I; e++) k[e] = t * I + e < np ? kg[t * I + e] : PAD;
        }
    }
    __syncwarp(); /* the values' places are written */
    /* bitonic sort of the S keys ascending, place t * I + e in k[e] of lane t: each merge
     * first compares place p with its mirror p ^ (size - 1), then halves with p ^ st, every
     * compare ascending (no direction depending on the lane: a compare-exchange in a lane is a
     * min and a max, across lanes a shuffle and a min or max) */
#pragma unroll
    for (int size = 2; size <= S; size <<= 1) {
        if (size <= I) {
#pragma unroll
            for (int e = 0; e < I; e++)
                if ((e & (size >> 1)) == 0) {
                    const int f = e ^ (size - 1);
                    const uint32_t x = k[e], y = k[f];
                    k[e] = min(x, y), k[f] = max(x, y);
                }
        } else {
            const bool low = (t & (size / 2 / I)) == 0;
            uint32_t o[I];
#pragma unroll
            for (int e = 0; e < I; e++) o[e] = __shfl_xor_sync(full, k[e ^ (I - 1)], size / I - 1);
#pragma unroll
            for (int e = 0; e < I; e++) k[e] = low ? min(k[e], o[e]) : max(k[e], o[e]);
        }
#pragma unroll
        for (int st = size >> 2; st > 0; st >>= 1) {
            if (st >= I) {
                const bool low = (t & (st / I)) == 0;
#pragma unroll
                for (int e = 0; e < I; e++) {
                    const uint32_t o = __shfl_xor_sync(full, k[e], st / I);
                    k[e] = low ? min(k[e], o) : max(k[e], o);
                }
            } else {
#pragma unroll
                for (int e = 0; e < I; e++)
                    if ((e & st) == 0) {
                        const uint32_t x = k[e], y = k[e | st];
                        k[e] = min(x, y), k[e | st] = max(x, y);
                    }
            }
        }
    }
    /* values by place; run sums inside the lane (r[e]: from e to the end of its run here) */
    double r[I];
#pragma unroll
    for (int e = 0; e < I; e++) r[e] = k[e] != PAD ? vg[k[e] & (S - 1)] : 0.0;
#pragma unroll
    for (int e = I - 2; e >= 0; e--)
        if (k[e] >> LOGS == k[e + 1] >> LOGS) r[e] += r[e + 1];
    const uint32_t last = k[I - 1] >> LOGS, first = k[0] >> LOGS;
    const uint32_t prev = __shfl_up_sync(full, last, 1, T);
    /* a run that goes on in the next lanes: carry = what they add, x_t = A + B x_(t+1) */
    const uint32_t nfirst = __shfl_down_sync(full, first, 1, T);
    const double nsum = __shfl_down_sync(full, r[0], 1, T);
    const bool nwhole = __shfl_down_sync(full, (int)(first == last), 1, T) != 0;
    const bool link = t < T - 1 && k[I - 1] != PAD && nfirst == last;
    double carry = 0.0;
    if (__any_sync(full, link)) {
        double A = link ? nsum : 0.0;
        bool B = link && nwhole;
#pragma unroll
        for (int d = 1; d < T; d <<= 1) {
            const double A2 = __shfl_down_sync(full, A, d, T);
            const bool B2 = __shfl_down_sync(full, (int)B, d, T) != 0;
            if (t + d < T) A += B ? A2 : 0.0, B = B && B2;
        }
        carry = A;
    }
    unsigned heads = 0;
#pragma unroll
    for (int e = 0; e < I; e++) {
        const bool h =
            k[e] != PAD && (e == 0 ? (t == 0 || first != prev) : k[e] >> LOGS != k[e - 1] >> LOGS);
        heads |= (unsigned)h << e;
    }
    int hinc = __popc(heads);
#pragma unroll
    for (int d = 1; d < T; d <<= 1) {
        const int y = __shfl_up_sync(full, hinc, d, T);
        if (t >= d) hinc += y;
    }
    const int m = __shfl_sync(full, hinc, T - 1, T);
    const long long b0 = block_alloc<T>(a, row, t, gl0, m, count_only, bin,
                                        fast     ? (unsigned)flen
                                        : t == 0 ? np
                                                 : 0);
    /* the warp's rows are placed one after the other (block_alloc scans them in lane order; a
     * row < 0 is past the last and has no entries): staged in shared memory in that order, then
     * written by the whole warp, consecutive lanes to consecutive entries (written from the
     * registers a lane's entries spread over 4 times the sectors they need, ncu) */
    const long long wb = __shfl_sync(full, b0, 0);
    if (wb < 0) return; /* warp-uniform: counting, capacity exhausted, or no rows */
    const int tot = (int)__reduce_max_sync(full, b0 >= 0 ? (unsigned)(b0 + m - wb) : 0u);
    __syncwarp(); /* every lane has its values: the warp's tables become the stage */
    uint32_t *const sk = keys[g - g % (32 / T)];
    double *const sv = vals[g - g % (32 / T)];
    {
        const int at = (int)(b0 - wb) + hinc - __popc(heads);
        uint32_t *pk = sk + at;
        double *pv = sv + at;
#pragma unroll
        for (int e = 0; e < I; e++)
            if (heads >> e & 1u)
                *pk++ = k[e] >> LOGS, *pv++ = r[e] + (k[e] >> LOGS == last ? carry : 0.0);
    }
    __syncwarp();
    int32_t *const oc = a.ccol + wb;
    double *const ov = a.cval + wb;
    for (int q = lane; q < tot; q += 32) oc[q] = (int32_t)sk[q], ov[q] = sv[q];
}

/* a bin kernel's launch: blocks of rb rows over the n / stride rows it takes, and the lanes per
 * row of B (log2) capped at the T lanes of a row */
static gs_status bin_shape(int64_t n, int64_t stride, int rb, int T, int glog2, int *gl,
                           unsigned *blocks)
{
    int tl = 0;
    while ((1 << tl) < T) tl++;
    *gl = glog2 < tl ? glog2 : tl;
    const int64_t groups = (n + stride - 1) / stride, b = (groups + rb - 1) / rb;
    if (b > 2147483647LL) return GS_ERROR(GS_ERR_UNSUPPORTED, "SpGEMM: %lld rows", (long long)n);
    *blocks = (unsigned)b;
    return GS_OK;
}

/* a warp bin's launch: 256 / T rows a block, hashed (warp_bin_kernel) or sorted
 * (sort_bin_kernel) */
template <int LOGS, int T, bool SORTED>
static gs_status launch_warp_bin(const sg_args &a, const int32_t *list, int64_t n, int64_t stride,
                                 int count_only, int glog2, int bin)
{
    gs_status st = GS_OK;
    int gl;
    unsigned blocks;
    GS_CHECK(bin_shape(n, stride, 256 / T, T, glog2, &gl, &blocks));
    if constexpr (SORTED)
        sort_bin_kernel<LOGS, T>
            <<<blocks, 256, 0, gs_cuda_g.stream>>>(a, list, n, stride, count_only, gl, bin);
    else
        warp_bin_kernel<LOGS, T>
            <<<blocks, 256, 0, gs_cuda_g.stream>>>(a, list, n, stride, count_only, gl, bin);
    GS_CUDA_LAUNCHED(SORTED ? "spgemm_sort_bin" : "spgemm_warp_bin");
done:
    return st;
}

template <int LOGS, int T, int RB>
static gs_status launch_bin(const sg_args &a, const int32_t *list, int64_t n, int64_t stride,
                            int count_only, int glog2, int bin)
{
    gs_status st = GS_OK;
    int gl;
    unsigned blocks;
    const size_t smem = (size_t)RB * ((size_t)1 << LOGS) * 12;
    GS_CHECK(bin_shape(n, stride, RB, T, glog2, &gl, &blocks));
    if (smem > 32 * 1024) /* bin 8: 48 KB beside the static part, beyond the default limit */
        GS_CUDA_CALL(cudaFuncSetAttribute(bin_kernel<LOGS, T, RB>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    bin_kernel<LOGS, T, RB>
        <<<blocks, T * RB, smem, gs_cuda_g.stream>>>(a, list, n, stride, count_only, gl, bin);
    GS_CUDA_LAUNCHED("spgemm_bin");
done:
    return st;
}

/* the rows a block of warp bin b (1-3) takes, as gs_spgemm_run_shared_bin launches it */
int gs_spgemm_warp_bin_rows(int b, int32_t bcols)
{
    return b == 1 ? 256 / 8 : b == 2 ? (bcols < SORT_COLS(6) ? 256 / SORT_T2 : 256 / 16) : 256 / 32;
}

/* bin b in 1..8 over list[0..n): S = 2^(b+4) slots per row, 12 KB of table per block (24 KB
 * for bin 7, 48 KB for bin 8), 256 threads (512 for bin 8) */
gs_status gs_spgemm_run_shared_bin(int b, const sg_args &a, const int32_t *list, int64_t n,
                                   int64_t stride, int count_only, int glog2)
{
    switch (b) {
    case 1: return launch_warp_bin<5, 8, false>(a, list, n, stride, count_only, glog2, b);
    case 2:
        if (a.bcols < SORT_COLS(6))
            return launch_warp_bin<6, SORT_T2, true>(a, list, n, stride, count_only, glog2, b);
        return launch_warp_bin<6, 16, false>(a, list, n, stride, count_only, glog2, b);
    case 3: return launch_warp_bin<7, 32, false>(a, list, n, stride, count_only, glog2, b);
    case 4: return launch_bin<8, 64, 4>(a, list, n, stride, count_only, glog2, b);
    case 5: return launch_bin<9, 128, 2>(a, list, n, stride, count_only, glog2, b);
    case 6: return launch_bin<10, 256, 1>(a, list, n, stride, count_only, glog2, b);
    case 7: return launch_bin<11, 256, 1>(a, list, n, stride, count_only, glog2, b);
    default: return launch_bin<12, 512, 1>(a, list, n, stride, count_only, glog2, b);
    }
}

/* ---- the global-memory bin (4097+ products): a block per row, tables of H = 2^logH ---- */

/* the row's products into its global hash table, then compacted to ck/cv[b*H/2 ...];
 * beg/end delimit the compacted row for the segmented sort */
static __global__ void glob_hash_kernel(sg_args a, const int32_t *__restrict__ list, int64_t c0,
                                        int logH, int32_t *tk, double *tv, unsigned *ck, double *cv,
                                        int *beg, int *end)
{
    __shared__ int scnt;
    const int64_t H = (int64_t)1 << logH, half = H >> 1, b = blockIdx.x;
    const int32_t row = list[c0 + b];
    int32_t *kk = tk + b * H;
    double *vv = tv + b * H;
    for (int64_t j = threadIdx.x; j < H; j += blockDim.x) kk[j] = -1, vv[j] = 0.0;
    if (threadIdx.x == 0) scnt = 0;
    __syncthreads();
    const int lane = threadIdx.x & 31, nw = blockDim.x >> 5;
    const int32_t ae = a.arp[row + 1];
    for (int32_t ka = a.arp[row] + (threadIdx.x >> 5); ka < ae; ka += nw) {
        const int32_t k = a.acol[ka];
        const double av = a.aval[ka];
        const int32_t be = a.brp[k + 1];
        for (int32_t kb = a.brp[k] + lane; kb < be; kb += 32) {
            const int32_t c = a.bcol[kb];
            const double v = av * a.bval[kb];
            int64_t h = (int64_t)(((unsigned)c * 0x9E3779B1u) >> (32 - logH));
            for (;;) {
                const int32_t prev = atomicCAS(kk + h, -1, c);
                if (prev == -1 || prev == c) {
                    atomicAdd(vv + h, v);
                    break;
                }
                h = (h + 1) & (H - 1);
            }
        }
    }
    __syncthreads();
    for (int64_t j = threadIdx.x; j < H; j += blockDim.x) {
        const int32_t key = __ldcg(kk + j); /* written by atomics: read at L2 */
        if (key >= 0) {
            const int p = atomicAdd(&scnt, 1);
            ck[b * half + p] = (unsigned)key;
            cv[b * half + p] = __ldcg(vv + j);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        beg[b] = (int)(b * half);
        end[b] = (int)(b * half + scnt);
    }
}

/* a block per row: allocate the sorted row in C (or record the failure), copy it */
static __global__ void glob_write_kernel(sg_args a, const int32_t *__restrict__ list, int64_t c0,
                                         const int *__restrict__ beg, const int *__restrict__ end,
                                         const unsigned *__restrict__ sk,
                                         const double *__restrict__ sv)
{
    __shared__ long long base;
    const int64_t b = blockIdx.x;
    const int32_t row = list[c0 + b];
    const int m = end[b] - beg[b];
    if (threadIdx.x == 0) {
        const long long addr = (long long)atomicAdd(a.top, (unsigned long long)m);
        if (addr + m > a.capacity) {
            a.failed[atomicAdd(&a.ctl[C_NFAIL], 1ull)] = row;
            atomicAdd(&a.ctl[C_NEED], (unsigned long long)m);
            base = -1;
        } else {
            a.offsets[2 * (int64_t)row] = (int32_t)addr;
            a.offsets[2 * (int64_t)row + 1] = (int32_t)(addr + m);
            a.sizes[row] = m;
            base = addr;
        }
    }
    __syncthreads();
    if (base < 0) return;
    for (int q = threadIdx.x; q < m; q += blockDim.x) {
        a.ccol[base + q] = (int32_t)sk[beg[b] + q];
        a.cval[base + q] = sv[beg[b] + q];
    }
}

#define GLOB_BUDGET ((size_t)256 << 20) /* bytes of tables per chunk of last-bin rows */

/* the last bin over list[0..n): chunks of rows, each a hash kernel, a CUB segmented sort, a write
 */
gs_status gs_spgemm_run_global_bin(const sg_args &a, const int32_t *list, int64_t n,
                                   unsigned long long maxp, int32_t cols)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    int32_t *tk = NULL;
    double *tv = NULL, *cv = NULL, *sv = NULL;
    unsigned *ck = NULL, *sk = NULL;
    int *beg = NULL, *end = NULL;
    void *tmp = NULL;
    size_t bytes = 0, tbytes = 0;
    int logH = 12, bits = 1;
    int64_t H, half, m;
    const int64_t distinct = (int64_t)maxp < cols ? (int64_t)maxp : cols;
    while (((int64_t)1 << logH) < 2 * distinct) logH++;
    if (logH > 30) GS_FAIL(GS_ERR_UNSUPPORTED, "SpGEMM: a row with %llu products", maxp);
    while (((int64_t)1 << bits) < cols) bits++;
    H = (int64_t)1 << logH, half = H >> 1;
    m = (int64_t)(GLOB_BUDGET / (24 * (size_t)H));
    if (m < 1) m = 1;
    if (m > n) m = n;
    if (m * half > 2147483647LL) m = 2147483647LL / half;
    GS_CHECK(talloc((size_t)(m * H) * 4, "SpGEMM global tables", (void **)&tk));
    GS_CHECK(talloc((size_t)(m * H) * 8, "SpGEMM global tables", (void **)&tv));
    GS_CHECK(talloc((size_t)(m * half) * 4, "SpGEMM global rows", (void **)&ck));
    GS_CHECK(talloc((size_t)(m * half) * 8, "SpGEMM global rows", (void **)&cv));
    GS_CHECK(talloc((size_t)(m * half) * 4, "SpGEMM global rows", (void **)&sk));
    GS_CHECK(talloc((size_t)(m * half) * 8, "SpGEMM global rows", (void **)&sv));
    GS_CHECK(talloc((size_t)m * 4, "SpGEMM global offsets", (void **)&beg));
    GS_CHECK(talloc((size_t)m * 4, "SpGEMM global offsets", (void **)&end));
    GS_CUDA_CALL(cub::DeviceSegmentedRadixSort::SortPairs(
        NULL, tbytes, ck, sk, cv, sv, (int)(m * half), (int)m, beg, end, 0, bits, s));
    GS_CHECK(talloc(tbytes, "SpGEMM segmented sort scratch", &tmp));
    for (int64_t c0 = 0; c0 < n; c0 += m) {
        const int64_t mc = n - c0 < m ? n - c0 : m;
        glob_hash_kernel<<<(unsigned)mc, 512, 0, s>>>(a, list, c0, logH, tk, tv, ck, cv, beg, end);
        GS_CUDA_LAUNCHED("spgemm_glob_hash");
        bytes = tbytes;
        GS_CUDA_CALL(cub::DeviceSegmentedRadixSort::SortPairs(
            tmp, bytes, ck, sk, cv, sv, (int)(mc * half), (int)mc, beg, end, 0, bits, s));
        glob_write_kernel<<<(unsigned)mc, 256, 0, s>>>(a, list, c0, beg, end, sk, sv);
        GS_CUDA_LAUNCHED("spgemm_glob_write");
    }
done: /* the frees are stream-ordered (gs_cuda_free): no wait for the kernels */
    tfree(tk), tfree(tv), tfree(ck), tfree(cv), tfree(sk), tfree(sv), tfree(beg), tfree(end);
    tfree(tmp);
    return st;
}

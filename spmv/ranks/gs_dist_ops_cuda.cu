/* gs_dist_ops_cuda.cu: the data-parallel steps of the distributed setup on the device (the table
 * gs_dist_cuda_ops of gs_dist_ops.h), one-for-one with gs_dist_ops_host.c. The steps that walk
 * or copy rows (the split's count, sum, packing) give each row a group of lanes
 * (gs_cuda_rows.cuh: a coarse level's rows hold 20 to 60 entries, which a thread a row reads far
 * apart), the split's copy a thread an entry (level 0's rows hold 7), the others a thread a row
 * or an entry; a result whose size is not known beforehand is a
 * count kernel, a CUB prefix sum and a fill kernel, with one read of the total in between (the
 * compact form's halo list and the sorted distinct values: CUB's select, sort and unique). All
 * on gs_cuda_g.stream. The split into blocks is in gs_dist_ops_blocks_cuda.cu; row slices,
 * stacking, sums and triplets are the sparse toolkit's (spmv/spgemm/gs_sparse_cuda.cu). */
#include <stdint.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/functional>

#include "gs_cuda_impl.h"
#include "gs_cuda_rows.cuh"
#include "gs_cuda_scan.cuh"
#include "gs_cuda_signal.cuh"
#include "gs_dist_ops_cuda_impl.cuh"
#include "gs_mem.h"

/* ---- halo rows --------------------------------------------------------------------------- */

static __global__ void row_lengths_kernel(int64_t n, const int32_t *rp, const int32_t *idx,
                                          int32_t *len)
{
    FOR_EACH(i, n)
    {
        const int32_t r = idx ? idx[i] : (int32_t)i;
        len[i] = rp[r + 1] - rp[r];
    }
}

/* len[i] = the length of row idx[i] of A (idx NULL: row i) */
static gs_status cuda_row_lengths(const gs_csr *A, int64_t n, const int32_t *idx, int32_t *len)
{
    gs_status st = GS_OK;
    if (n > 0) LAUNCH(row_lengths_kernel, n, n, A->rowptr, idx, len);
done:
    return st;
}

template <int G>
static __global__ void pack_rows_kernel(int64_t n, const int32_t *rp, const int32_t *ci,
                                        const double *v, const int32_t *idx, const int64_t *off,
                                        int64_t base, int32_t nown, const int64_t *gmap,
                                        int64_t *gcol, double *val)
{
    const int lane = threadIdx.x & (G - 1);
    FOR_ROW_G(G, n)
    {
        const int32_t r = idx ? idx[i] : (int32_t)i;
        const int32_t q0 = rp[r], q1 = rp[r + 1];
        const int64_t p0 = off ? off[i] : q0;
        for (int32_t q = q0 + lane; q < q1; q += G) {
            const int32_t j = ci[q];
            gcol[p0 + q - q0] = j < nown ? base + j : gmap[j - nown];
            val[p0 + q - q0] = v[q];
        }
    }
}

/* rows idx[0..n) of A (idx NULL: 0..n) at off[i].. (off NULL: where A has them), columns as
 * global numbers (base + j, or gmap[j - nown]) */
static gs_status cuda_pack_rows(const gs_csr *A, int64_t n, const int32_t *idx, const int64_t *off,
                                int64_t base, int32_t nown, const int64_t *gmap, int64_t *gcol,
                                double *val)
{
    gs_status st = GS_OK;
    if (n > 0)
        LAUNCH_G(row_group(A->nnz, A->rows), n, pack_rows_kernel, n, A->rowptr, A->colind, A->val,
                 idx, off, base, nown, gmap, gcol, val);
done:
    return st;
}

static __global__ void first_entry_kernel(int32_t rows, const int32_t *rp, const int32_t *ci,
                                          const double *val, int64_t base, double *g, double *v)
{
    FOR_EACH(i, rows)
    {
        const int32_t q = rp[i];
        const bool has = rp[i + 1] > q;
        g[i] = has ? (double)(base + ci[q]) : -1.0;
        v[i] = has ? val[q] : 0.0;
    }
}

static gs_status cuda_first_entry(const gs_csr *A, int64_t base, double *g, double *v)
{
    gs_status st = GS_OK;
    if (A->rows > 0) LAUNCH(first_entry_kernel, A->rows, A->rows, A->rowptr, A->colind, A->val,
                            base, g, v);
done:
    return st;
}

static __global__ void scatter_add_kernel(int64_t n, const int32_t *idx, const double *x, double *y)
{
    FOR_EACH(i, n)
    {
        y[idx[i]] += x[i];
    }
}

/* y[idx[i]] += x[i] (the indices distinct: no atomics) */
static gs_status cuda_scatter_add(int64_t n, const int32_t *idx, const double *x, double *y)
{
    gs_status st = GS_OK;
    if (n > 0) LAUNCH(scatter_add_kernel, n, n, idx, x, y);
done:
    return st;
}

/* y[rows[i]] += row i . xh: a group of G lanes a row, its sum by shuffles; with signals
 * (sg.ctr not NULL), first every block waits for the neighbours' halo, and the last block to
 * finish says the halo buffer is free and counts the product done */
template <int G>
static __global__ void offd_add_kernel(int32_t n, const int32_t *rp, const int32_t *ci,
                                       const double *v, const int32_t *rows, const double *xh,
                                       double *y, gs_halo_signals sg)
{
    typedef unsigned long long ull;
    const ull k = sg.ctr ? gs_block_wait_flags((const ull *)sg.ctr, (const ull *)sg.flags,
                                               sg.nwait, 0)
                         : 0;
    const unsigned m = group_mask<G>();
    const int lane = threadIdx.x & (G - 1);
    FOR_ROW_G(G, n)
    {
        /* no block reads xh before its wait, so no stale copy of it is cached */
        const double s = group_row_dot<G>(rp, ci, v, i, lane, m, [=](int32_t j) { return xh[j]; });
        if (lane == 0) y[rows[i]] += s;
    }
    if (sg.ctr) /* this block's reads of the halo done: the last block says "ready" */
        gs_grid_signal_last(sg.ticket, (ull *const *)sg.ready_at, sg.nready, k, (ull *)sg.ctr);
}

static gs_status cuda_offd_add(const gs_csr *O, const int32_t *rows, const double *xh, double *y,
                               const gs_halo_signals *sg)
{
    gs_status st = GS_OK;
    gs_halo_signals none;
    memset(&none, 0, sizeof none);
    if (O->rows > 0 || sg) /* with signals, one block at least: the wait and the "free" */
        LAUNCH_G(row_group(O->nnz, O->rows), O->rows > 0 ? O->rows : 1, offd_add_kernel,
                 O->rows, O->rowptr, O->colind, O->val, rows, xh, y, sg ? *sg : none);
done:
    return st;
}

/* ---- compact form ------------------------------------------------------------------------ */

/* CUB's selection predicate: a global column outside [lo, hi) */
struct outside_range {
    int64_t lo, hi;
    __device__ bool operator()(int64_t g) const { return g < lo || g >= hi; }
};

/* the first place in sorted h[0..n) whose value is not below g */
static __device__ __forceinline__ int64_t lower_bound_i64(const int64_t *h, int64_t n, int64_t g)
{
    return gs_first_ge((int64_t)0, n, g, [h](int64_t i) { return h[i]; });
}

/* row i of the compact form: rp[i] = grp[i]; its own entries (g - col0), then its others
 * (ncols + their place in h) */
static __global__ void compact_fill_kernel(int32_t rows, const int64_t *grp, const int64_t *gcol,
                                           const double *gv, int64_t col0, int32_t ncols,
                                           const int64_t *h, int32_t nh, int32_t *rp, int32_t *ci,
                                           double *v)
{
    FOR_EACH(i, (int64_t)rows + 1)
    {
        rp[i] = (int32_t)grp[i];
        if (i == rows) continue;
        const int64_t q0 = grp[i], q1 = grp[i + 1];
        int32_t k = (int32_t)q0;
        for (int64_t q = q0; q < q1; q++) {
            const int64_t g = gcol[q];
            if (g >= col0 && g < col0 + ncols) ci[k] = (int32_t)(g - col0), v[k++] = gv[q];
        }
        for (int64_t q = q0; q < q1; q++) {
            const int64_t g = gcol[q];
            if (g < col0 || g >= col0 + ncols)
                ci[k] = ncols + (int32_t)lower_bound_i64(h, nh, g), v[k++] = gv[q];
        }
    }
}

/* a[0..*nh) = the sorted distinct columns of gcol[0..nnz) outside [col0, col0 + ncols) (a and b:
 * nnz each): select into a, sort into b, unique back into a; two reads of a count (cnt: two
 * device ints) */
static gs_status halo_columns(int32_t nnz, const int64_t *gcol, int64_t col0, int32_t ncols,
                              int64_t *a, int64_t *b, int32_t *cnt, int32_t *nh)
{
    gs_status st = GS_OK;
    const cudaStream_t s = gs_cuda_g.stream;
    const outside_range out = {col0, col0 + ncols};
    void *tmp = NULL;
    size_t bytes = 0;
    int32_t nsel = 0;
    *nh = 0;
    GS_CUDA_CALL(cub::DeviceSelect::If(NULL, bytes, gcol, a, cnt, nnz, out, s));
    GS_CHECK(gs_cuda_alloc(bytes, "halo select scratch", &tmp));
    GS_CUDA_CALL(cub::DeviceSelect::If(tmp, bytes, gcol, a, cnt, nnz, out, s));
    gs_cuda_free(tmp), tmp = NULL;
    GS_CHECK(gs_cuda_d2h(&nsel, cnt, sizeof nsel));
    if (nsel == 0) goto done;
    bytes = 0;
    GS_CUDA_CALL(cub::DeviceRadixSort::SortKeys(NULL, bytes, a, b, nsel, 0, 64, s));
    GS_CHECK(gs_cuda_alloc(bytes, "halo sort scratch", &tmp));
    GS_CUDA_CALL(cub::DeviceRadixSort::SortKeys(tmp, bytes, a, b, nsel, 0, 64, s));
    gs_cuda_free(tmp), tmp = NULL;
    bytes = 0;
    GS_CUDA_CALL(cub::DeviceSelect::Unique(NULL, bytes, b, a, cnt + 1, nsel, s));
    GS_CHECK(gs_cuda_alloc(bytes, "halo unique scratch", &tmp));
    GS_CUDA_CALL(cub::DeviceSelect::Unique(tmp, bytes, b, a, cnt + 1, nsel, s));
    GS_CHECK(gs_cuda_d2h(nh, cnt + 1, sizeof *nh));
done:
    gs_cuda_free(tmp);
    return st;
}

/* C = the rows with compact columns (own first, then the ascending distinct others); *halo
 * (host) those others: select, sort, unique, then a thread per row */
static gs_status cuda_compact(int32_t rows, const int64_t *rowptr, const int64_t *col,
                              const double *val, int64_t col0, int32_t ncols, gs_csr **C,
                              int64_t **halo, int32_t *nhalo)
{
    gs_status st = GS_OK;
    int64_t nnz = 0, *a = NULL, *b = NULL, *h = NULL;
    int32_t *rp = NULL, *ci = NULL, *cnt = NULL, nh = 0;
    double *v = NULL;
    *C = NULL, *halo = NULL, *nhalo = 0;
    if (rows < 0 || ncols < 0)
        GS_FAIL(GS_ERR_ARG, "compact: %d rows, %d own columns", (int)rows, (int)ncols);
    GS_CHECK(gs_cuda_d2h(&nnz, rowptr + rows, sizeof nnz));
    if (nnz > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "compact: %lld entries (below 2^31)", (long long)nnz);
    if (nnz > 0) {
        GS_CHECK(gs_cuda_alloc((size_t)nnz * sizeof *a, "halo columns", (void **)&a));
        GS_CHECK(gs_cuda_alloc((size_t)nnz * sizeof *b, "sorted halo columns", (void **)&b));
        GS_CHECK(gs_cuda_alloc(2 * sizeof *cnt, "halo counts", (void **)&cnt));
        GS_CHECK(halo_columns((int32_t)nnz, col, col0, ncols, a, b, cnt, &nh));
    }
    if ((int64_t)ncols + nh > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "compact: %d own and %d halo columns (below 2^31)", (int)ncols,
                (int)nh);
    GS_CHECK(gs_cuda_alloc_csr_arrays(rows, nnz, &rp, &ci, &v));
    LAUNCH(compact_fill_kernel, (int64_t)rows + 1, rows, rowptr, col, val, col0, ncols, a, nh, rp,
           ci, v);
    GS_CHECK(gs_alloc_array((size_t)nh + 1, sizeof *h, "halo columns", (void **)&h));
    if (nh > 0) GS_CHECK(gs_cuda_d2h(h, a, (size_t)nh * sizeof *h));
    st = gs_cuda_csr_adopt(rows, ncols + nh, (int32_t)nnz, rp, ci, v, C);
    rp = NULL, ci = NULL, v = NULL; /* adopted, or freed by the failed adopt */
    if (st != GS_OK) goto done;
    *halo = h, h = NULL;
    *nhalo = nh;
done:
    gs_cuda_free_csr_arrays(rp, ci, v);
    gs_cuda_free(a);
    gs_cuda_free(b);
    gs_cuda_free(cnt);
    gs_free(h);
    return st;
}

/* ---- sorted distinct values, column numbering, triplets --------------------------------- */


/* *out (host) and *dout (here) = the sorted distinct keys outside [lo, lo + nown): the others
 * selected into a scratch array, a radix sort over the bits below bound with keys and that
 * scratch as its two buffers, CUB's unique into whichever it left free; one read of the
 * selected count, one of the unique count and one of the values */
static gs_status cuda_sort_unique(int64_t *keys, int64_t n, int64_t lo, int32_t nown,
                                  int64_t bound, int64_t **out, int64_t **dout, int64_t *m)
{
    gs_status st = GS_OK;
    const cudaStream_t s = gs_cuda_g.stream;
    int64_t *b = NULL, *cnt = NULL, *h = NULL, *d = NULL, nu = 0, nsel = 0;
    void *tmp = NULL;
    size_t bytes = 0;
    *out = NULL, *m = 0;
    if (dout) *dout = NULL;
    if (n < 0 || n > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_ARG, "sort_unique: %lld keys (below 2^31)", (long long)n);
    if (n > 0) {
        GS_CHECK(gs_cuda_alloc((size_t)n * sizeof *b, "sort scratch keys", (void **)&b));
        GS_CHECK(gs_cuda_alloc(2 * sizeof *cnt, "unique count", (void **)&cnt));
        const outside_range o = {lo, lo + nown};
        GS_CUDA_CALL(cub::DeviceSelect::If(NULL, bytes, keys, b, cnt, (int32_t)n, o, s));
        GS_CHECK(gs_cuda_alloc(bytes, "key select scratch", &tmp));
        GS_CUDA_CALL(cub::DeviceSelect::If(tmp, bytes, keys, b, cnt, (int32_t)n, o, s));
        gs_cuda_free(tmp), tmp = NULL, bytes = 0;
        GS_CHECK(gs_cuda_d2h(&nsel, cnt, sizeof nsel));
    }
    if (nsel > 0) { /* non-negative keys: unsigned order is theirs */
        const int end_bit = bound > 1 ? gs_bits_of(bound - 1) : 1;
        cub::DoubleBuffer<uint64_t> kb((uint64_t *)b, (uint64_t *)keys);
        GS_CUDA_CALL(cub::DeviceRadixSort::SortKeys(NULL, bytes, kb, (int32_t)nsel, 0, end_bit, s));
        GS_CHECK(gs_cuda_alloc(bytes, "key sort scratch", &tmp));
        GS_CUDA_CALL(cub::DeviceRadixSort::SortKeys(tmp, bytes, kb, (int32_t)nsel, 0, end_bit, s));
        gs_cuda_free(tmp), tmp = NULL, bytes = 0;
        int64_t *sorted = (int64_t *)kb.Current(), *uniq = (int64_t *)kb.Alternate();
        GS_CUDA_CALL(cub::DeviceSelect::Unique(NULL, bytes, sorted, uniq, cnt + 1, (int32_t)nsel, s));
        GS_CHECK(gs_cuda_alloc(bytes, "key unique scratch", &tmp));
        GS_CUDA_CALL(cub::DeviceSelect::Unique(tmp, bytes, sorted, uniq, cnt + 1, (int32_t)nsel, s));
        GS_CHECK(gs_cuda_d2h(&nu, cnt + 1, sizeof nu));
        GS_CHECK(gs_alloc_array((size_t)nu + 1, sizeof *h, "unique keys", (void **)&h));
        if (nu > 0) GS_CHECK(gs_cuda_d2h(h, uniq, (size_t)nu * sizeof *h));
        if (dout) {
            GS_CHECK(gs_cuda_alloc(((size_t)nu + 1) * sizeof *d, "unique keys", (void **)&d));
            if (nu > 0) GS_CUDA_CALL(cudaMemcpyAsync(d, uniq, (size_t)nu * sizeof *d,
                                                     cudaMemcpyDeviceToDevice, s));
        }
    } else {
        GS_CHECK(gs_alloc_array(1, sizeof *h, "unique keys", (void **)&h));
        if (dout) GS_CHECK(gs_cuda_alloc(sizeof *d, "unique keys", (void **)&d));
    }
    *out = h, h = NULL;
    if (dout) *dout = d, d = NULL;
    *m = nu;
done:
    gs_cuda_free(tmp);
    gs_cuda_free(b);
    gs_cuda_free(cnt);
    gs_cuda_free(d);
    gs_free(h);
    return st;
}

static __global__ void map_cols_kernel(const int64_t *g, int64_t n, int64_t lo, int32_t nown,
                                       const int64_t *map, int64_t m, int32_t *out)
{
    FOR_EACH(i, n)
    {
        const int64_t x = g[i];
        out[i] = x >= lo && x < lo + nown ? (int32_t)(x - lo)
                                          : nown + (int32_t)lower_bound_i64(map, m, x);
    }
}

/* out[i] = g[i] - lo in the own window, else nown + the place of g[i] in map (binary search) */
static gs_status cuda_map_cols(const int64_t *g, int64_t n, int64_t lo, int32_t nown,
                               const int64_t *map, int64_t m, int32_t *out)
{
    gs_status st = GS_OK;
    if (n > 0) LAUNCH(map_cols_kernel, n, g, n, lo, nown, map, m, out);
done:
    return st;
}

/* ---- lengths and offsets of fetched rows --------------------------------------------------- */

static __global__ void lengths_kernel(int32_t rows, const int32_t *rp, double *len)
{
    FOR_EACH(i, rows)
    {
        len[i] = (double)(rp[i + 1] - rp[i]);
    }
}

static gs_status cuda_lengths(const gs_csr *A, double *len)
{
    gs_status st = GS_OK;
    if (A->rows > 0) LAUNCH(lengths_kernel, A->rows, A->rows, A->rowptr, len);
done:
    return st;
}

/* off[i] = the length of item i, off[n] = 0 (then scanned in place) */
static __global__ void lengths_i64_kernel(int64_t n, const int32_t *ilen, const double *dlen,
                                          int64_t *off)
{
    FOR_EACH(i, n + 1)
    {
        off[i] = i == n ? 0 : ilen ? (int64_t)ilen[i] : (int64_t)dlen[i];
    }
}

static gs_status cuda_offsets(int64_t n, const int32_t *ilen, const double *dlen, int64_t *off)
{
    gs_status st = GS_OK;
    LAUNCH(lengths_i64_kernel, n + 1, n, ilen, dlen, off);
    GS_CHECK(gs_cuda_exclusive_sum(off, off, n + 1, "offsets scan"));
done:
    return st;
}

static __global__ void narrow_kernel(int64_t n, const int64_t *g, int32_t *c)
{
    FOR_EACH(q, n) c[q] = (int32_t)g[q];
}

/* the rows' pointers from their lengths (a scan), the columns narrowed and each row sorted by
 * column with its values (a segmented radix sort) */
static gs_status cuda_csr_from_rows(int32_t rows, int32_t cols, const int32_t *len, int64_t n,
                                    const int64_t *gcol, const double *val, gs_csr **C)
{
    gs_status st = GS_OK;
    int32_t *rp = NULL, *ci = NULL, *c0 = NULL, total = 0;
    double *v = NULL;
    void *tmp = NULL;
    size_t bytes = 0;
    *C = NULL;
    if (n > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "rows of %lld entries (below 2^31)", (long long)n);
    GS_CHECK(gs_cuda_alloc_csr_arrays(rows, n, &rp, &ci, &v));
    if (rows > 0) {
        GS_CUDA_CALL(cudaMemcpyAsync(rp, len, (size_t)rows * sizeof *rp, cudaMemcpyDeviceToDevice,
                                     gs_cuda_g.stream));
        GS_CUDA_CALL(cudaMemsetAsync(rp + rows, 0, sizeof *rp, gs_cuda_g.stream));
    }
    GS_CHECK(gs_cuda_exclusive_sum(rp, rp, (int64_t)rows + 1, "row pointers scan"));
    GS_CHECK(gs_cuda_d2h(&total, rp + rows, sizeof total));
    if (total != n)
        GS_FAIL(GS_ERR_INTERNAL, "rows of %lld entries given %lld", (long long)total, (long long)n);
    if (n > 0) {
        int bits = 1;
        while (bits < 31 && ((int64_t)1 << bits) < (int64_t)cols) bits++;
        GS_CHECK(gs_cuda_alloc((size_t)n * sizeof *c0, "rows' columns", (void **)&c0));
        LAUNCH(narrow_kernel, n, n, gcol, c0);
        GS_CUDA_CALL(cub::DeviceSegmentedRadixSort::SortPairs(NULL, bytes, c0, ci, val, v, (int)n,
                                                              rows, rp, rp + 1, 0, bits,
                                                              gs_cuda_g.stream));
        GS_CHECK(gs_cuda_alloc(bytes + 1, "row sort scratch", &tmp));
        GS_CUDA_CALL(cub::DeviceSegmentedRadixSort::SortPairs(tmp, bytes, c0, ci, val, v, (int)n,
                                                              rows, rp, rp + 1, 0, bits,
                                                              gs_cuda_g.stream));
    }
    st = gs_cuda_csr_adopt(rows, cols, (int32_t)n, rp, ci, v, C);
    rp = NULL, ci = NULL, v = NULL; /* adopted, or freed by the failed adopt */
done:
    gs_cuda_free(c0);
    gs_cuda_free(tmp);
    gs_cuda_free_csr_arrays(rp, ci, v);
    return st;
}

static __global__ void row_index_kernel(int32_t rows, const int64_t *rp, const int32_t *map,
                                        int32_t *ri)
{
    FOR_EACH(i, rows)
    {
        const int32_t r = map ? map[i] : (int32_t)i;
        for (int64_t q = rp[i]; q < rp[i + 1]; q++) ri[q] = r;
    }
}

static gs_status cuda_row_index(int32_t rows, const int64_t *rowptr, const int32_t *map,
                                int32_t *ri)
{
    gs_status st = GS_OK;
    if (rows > 0) LAUNCH(row_index_kernel, rows, rows, rowptr, map, ri);
done:
    return st;
}

static __global__ void has_entry_kernel(int64_t n, const double *g, int64_t *off)
{
    FOR_EACH(i, n + 1)
    {
        off[i] = i < n && g[i] >= 0 ? 1 : 0;
    }
}

static __global__ void first_fill_kernel(int64_t n, const double *g, const double *v,
                                         const int64_t *off, int64_t *gcol, double *val)
{
    FOR_EACH(i, n)
    {
        if (g[i] >= 0) gcol[off[i]] = (int64_t)g[i], val[off[i]] = v[i];
    }
}

static gs_status cuda_first_entry_rows(int64_t n, const double *g, const double *v,
                                       int64_t *rowptr, int64_t *gcol, double *val)
{
    gs_status st = GS_OK;
    LAUNCH(has_entry_kernel, n + 1, n, g, rowptr);
    GS_CHECK(gs_cuda_exclusive_sum(rowptr, rowptr, n + 1, "entries scan"));
    if (n > 0) LAUNCH(first_fill_kernel, n, n, g, v, rowptr, gcol, val);
done:
    return st;
}

/* ---- the diagonal block with the halo lumped ------------------------------------------------ */

/* len[i] = row i's own entries (those before its first halo column); len[rows] = 0 */
static __global__ void own_count_kernel(int32_t rows, const int32_t *rp, const int32_t *ci,
                                        int32_t ncols, int32_t *len)
{
    FOR_EACH(i, (int64_t)rows + 1)
    {
        if (i == rows) {
            len[i] = 0;
        } else {
            const int32_t q0 = rp[i], q1 = rp[i + 1];
            len[i] = gs_first_ge(q0, q1, ncols, [ci](int32_t q) { return ci[q]; }) - q0;
        }
    }
}

/* row i's own entries copied to out position o[i], its halo entries' sum added to its diagonal */
static __global__ void lump_fill_kernel(int32_t rows, const int32_t *rp, const int32_t *ci,
                                        const double *v, const int32_t *o, int32_t *oci,
                                        double *ov)
{
    FOR_EACH(i, rows)
    {
        const int32_t q0 = rp[i], q1 = rp[i + 1], n = o[i + 1] - o[i], p = o[i];
        double h = 0.0;
        int32_t diag = -1;
        for (int32_t q = q0 + n; q < q1; q++) h += v[q];
        for (int32_t q = 0; q < n; q++) {
            oci[p + q] = ci[q0 + q];
            ov[p + q] = v[q0 + q];
            if (ci[q0 + q] == (int32_t)i) diag = p + q;
        }
        if (diag >= 0) ov[diag] += h;
    }
}

/* the own columns of C's rows, the halo's entries added into the diagonal (count, scan, one
 * read of the total, fill) */
static gs_status cuda_lump_halo(const gs_csr *C, int32_t ncols, gs_csr **out)
{
    gs_status st = GS_OK;
    int32_t *rp = NULL, *ci = NULL, nnz = 0;
    double *v = NULL;
    const int32_t rows = C->rows;
    *out = NULL;
    GS_CHECK(gs_cuda_alloc(((size_t)rows + 1) * sizeof(int32_t), "lumped row pointers",
                           (void **)&rp));
    LAUNCH(own_count_kernel, (int64_t)rows + 1, rows, C->rowptr, C->colind, ncols, rp);
    GS_CHECK(gs_cuda_exclusive_sum(rp, rp, (int64_t)rows + 1, "lumped rows scan"));
    GS_CHECK(gs_cuda_d2h(&nnz, rp + rows, sizeof nnz));
    {
        const size_t n = nnz > 0 ? (size_t)nnz : 1;
        GS_CHECK(gs_cuda_alloc(n * sizeof(int32_t), "lumped column indices", (void **)&ci));
        GS_CHECK(gs_cuda_alloc(n * sizeof(double), "lumped values", (void **)&v));
    }
    if (rows > 0) LAUNCH(lump_fill_kernel, rows, rows, C->rowptr, C->colind, C->val, rp, ci, v);
    st = gs_cuda_csr_adopt(rows, ncols, nnz, rp, ci, v, out);
    rp = NULL, ci = NULL, v = NULL;
done:
    gs_cuda_free_csr_arrays(rp, ci, v);
    return st;
}

extern "C" const gs_dist_ops gs_dist_cuda_ops = {
    gs_dist_cuda_split,       /* split */
    gs_dist_cuda_upload_split, /* upload_split */
    cuda_row_lengths, /* row_lengths */
    cuda_pack_rows,   /* pack_rows */
    cuda_first_entry, /* first_entry */
    cuda_scatter_add, /* scatter_add */
    cuda_offd_add,    /* offd_add */
    cuda_compact,     /* compact */
    cuda_sort_unique, /* sort_unique */
    cuda_map_cols,    /* map_cols */
    cuda_lengths,     /* lengths */
    cuda_offsets,     /* offsets */
    cuda_row_index,   /* row_index */
    cuda_csr_from_rows, /* csr_from_rows */
    cuda_first_entry_rows, /* first_entry_rows */
    cuda_lump_halo,   /* lump_halo */
};

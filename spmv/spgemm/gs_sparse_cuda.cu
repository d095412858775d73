/* gs_sparse_cuda.cu: the sparse toolkit's row slices, stacking, sums and triplets on the device
 * (gs_spgemm.h's gs_sparse_*; gs_sparse_host.c is the reference). A result whose size is not
 * known beforehand is a count kernel, a CUB prefix sum and a fill kernel with one read of the
 * total between them (the triplets' CSR: CUB's radix sort and reduce by key). All on
 * gs_cuda_g.stream. */
#include <stdint.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

#include "gs_cuda_impl.h"
#include "gs_cuda_rows.cuh"
#include "gs_cuda_scan.cuh"
#include "gs_spgemm_cuda_impl.cuh"

/* ---- remap, slice, stack ----------------------------------------------------------------- */

/* column j renumbered: kept below nown, else map[j - nown] (no map: nown is INT32_MAX) */
static __device__ __forceinline__ int32_t mapped(int32_t j, int32_t nown, const int32_t *map)
{
    return j < nown ? j : map[j - nown];
}

static __global__ void remap_kernel(int32_t nnz, const int32_t *ci, int32_t nown,
                                    const int32_t *map, int32_t *out)
{
    FOR_EACH(q, nnz) out[q] = mapped(ci[q], nown, map);
}

/* a gs_col_map's kernel arguments (none: nothing renumbered) */
static int32_t map_nown(const gs_col_map *m) { return m ? m->nown : INT32_MAX; }
static const int32_t *map_of(const gs_col_map *m) { return m ? m->map : NULL; }

/* out[i] = rp[i] - rp[0], i <= n (rp: the rows of a slice) */
static __global__ void rebase_kernel(int32_t n, const int32_t *rp, int32_t *out)
{
    const int32_t base = rp[0];
    FOR_EACH(i, (int64_t)n + 1)
    {
        out[i] = rp[i] - base;
    }
}

/* the nnz entries from rp[0] on (read here, so the host need not) */
static __global__ void slice_copy_kernel(int32_t nnz, const int32_t *rp, const int32_t *ci,
                                         const double *v, int32_t *oci, double *ov)
{
    const int32_t base = rp[0];
    FOR_EACH(q, nnz)
    {
        oci[q] = ci[base + q];
        ov[q] = v[base + q];
    }
}

/* out = rows [r0, r1) of A, rowptr rebased to 0 */
gs_status gs_sparse_cuda_row_slice(const gs_csr *A, int32_t r0, int32_t r1, gs_csr **out)
{
    gs_status st = GS_OK;
    int32_t *rp = NULL, *ci = NULL, nnz = 0;
    double *v = NULL;
    *out = NULL;
    if (r0 < 0 || r1 < r0 || r1 > A->rows)
        GS_FAIL(GS_ERR_ARG, "row slice [%d, %d) of a matrix of %d rows", (int)r0, (int)r1,
                (int)A->rows);
    GS_CHECK(gs_cuda_alloc(((size_t)(r1 - r0) + 1) * sizeof(int32_t), "slice row pointers",
                           (void **)&rp));
    LAUNCH(rebase_kernel, (int64_t)(r1 - r0) + 1, r1 - r0, A->rowptr + r0, rp);
    GS_CHECK(gs_cuda_d2h(&nnz, rp + (r1 - r0), sizeof nnz));
    {
        const size_t n = nnz > 0 ? (size_t)nnz : 1;
        GS_CHECK(gs_cuda_alloc(n * sizeof(int32_t), "slice column indices", (void **)&ci));
        GS_CHECK(gs_cuda_alloc(n * sizeof(double), "slice values", (void **)&v));
    }
    if (nnz > 0) LAUNCH(slice_copy_kernel, nnz, nnz, A->rowptr + r0, A->colind, A->val, ci, v);
    st = gs_cuda_csr_adopt(r1 - r0, A->cols, nnz, rp, ci, v, out);
    rp = NULL, ci = NULL, v = NULL;
done:
    gs_cuda_free_csr_arrays(rp, ci, v);
    return st;
}

/* *out = *A's first r rows around *A's arrays (its entry count read from the row pointers;
 * the row statistics measured again), *A's own state freed */
gs_status gs_sparse_cuda_row_prefix(gs_csr **A, int32_t r, gs_csr **out)
{
    gs_status st = GS_OK;
    gs_csr *M = *A;
    int32_t nnz = 0, *rp = NULL, *ci = NULL;
    double *v = NULL;
    const int32_t cols = M->cols;
    *out = NULL;
    *A = NULL;
    if (r < 0 || r > M->rows)
        GS_FAIL(GS_ERR_ARG, "row prefix of %d rows of a matrix of %d rows", (int)r,
                (int)M->rows);
    GS_CHECK(gs_cuda_d2h(&nnz, M->rowptr + r, sizeof nnz));
    rp = M->rowptr, ci = M->colind, v = M->val; /* the arrays kept, M's state freed */
    M->rowptr = M->colind = NULL;
    M->val = NULL;
    gs_csr_destroy(&M);
    st = gs_cuda_csr_adopt(r, cols, nnz, rp, ci, v, out); /* taken over, also on failure */
done:
    gs_csr_destroy(&M);
    return st;
}

/* out[i] = arp[i] for i <= arows, then brp[i - arows] + annz */
static __global__ void vcat_rowptr_kernel(int32_t arows, int32_t brows, const int32_t *arp,
                                          const int32_t *brp, int32_t annz, int32_t *out)
{
    FOR_EACH(i, (int64_t)arows + brows + 1)
    {
        out[i] = i <= arows ? arp[i] : brp[i - arows] + annz;
    }
}

/* out = A's rows (columns renumbered by am) over B's rows, cols columns (sizes known: nothing
 * waits) */
gs_status gs_sparse_cuda_vcat(const gs_csr *A, const gs_col_map *am, const gs_csr *B,
                              int32_t cols, gs_csr **out)
{
    gs_status st = GS_OK;
    int32_t *rp = NULL, *ci = NULL;
    double *v = NULL;
    const int64_t rows = (int64_t)A->rows + B->rows, nnz = (int64_t)A->nnz + B->nnz;
    const cudaStream_t s = gs_cuda_g.stream;
    *out = NULL;
    if ((!am && cols < A->cols) || cols < B->cols)
        GS_FAIL(GS_ERR_ARG, "vcat: %d columns for matrices of %d and %d", (int)cols, (int)A->cols,
                (int)B->cols);
    if (rows > GS_MAX_INDEX || nnz > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "vcat: %lld rows, %lld entries exceed 32-bit indices",
                (long long)rows, (long long)nnz);
    GS_CHECK(gs_cuda_alloc_csr_arrays(rows, nnz, &rp, &ci, &v));
    LAUNCH(vcat_rowptr_kernel, rows + 1, A->rows, B->rows, A->rowptr, B->rowptr, A->nnz, rp);
    if (A->nnz > 0) {
        const size_t n = (size_t)A->nnz;
        if (am)
            LAUNCH(remap_kernel, A->nnz, A->nnz, A->colind, am->nown, am->map, ci);
        else
            GS_CUDA_CALL(
                cudaMemcpyAsync(ci, A->colind, n * sizeof(int32_t), cudaMemcpyDeviceToDevice, s));
        GS_CUDA_CALL(cudaMemcpyAsync(v, A->val, n * sizeof(double), cudaMemcpyDeviceToDevice, s));
    }
    if (B->nnz > 0) {
        const size_t n = (size_t)B->nnz;
        GS_CUDA_CALL(cudaMemcpyAsync(ci + A->nnz, B->colind, n * sizeof(int32_t),
                                     cudaMemcpyDeviceToDevice, s));
        GS_CUDA_CALL(
            cudaMemcpyAsync(v + A->nnz, B->val, n * sizeof(double), cudaMemcpyDeviceToDevice, s));
    }
    st = gs_cuda_csr_adopt((int32_t)rows, cols, (int32_t)nnz, rp, ci, v, out);
    rp = NULL, ci = NULL, v = NULL;
done:
    gs_cuda_free_csr_arrays(rp, ci, v);
    return st;
}

/* ---- sum --------------------------------------------------------------------------------- */

/* the merge of row i of A (columns renumbered by nown, map) and B: its length; with oci, its
 * entries written from out position p (av, bv and ov are read and written only then) */
static __device__ int32_t merge_row(int32_t i, const int32_t *arp, const int32_t *aci,
                                    const double *av, int32_t nown, const int32_t *map,
                                    const int32_t *brp, const int32_t *bci, const double *bv,
                                    int32_t *oci, double *ov, int32_t p)
{
    int32_t qa = arp[i], ea = arp[i + 1], qb = brp[i], eb = brp[i + 1], n = 0;
    while (qa < ea || qb < eb) {
        const int32_t ja = qa < ea ? mapped(aci[qa], nown, map) : INT32_MAX;
        const int32_t jb = qb < eb ? bci[qb] : INT32_MAX;
        const int32_t j = ja < jb ? ja : jb;
        if (oci) { /* the fill pass (the count pass has no values) */
            oci[p + n] = j;
            ov[p + n] = ja != j ? bv[qb] : jb != j ? av[qa] : av[qa] + bv[qb];
        }
        qa += ja == j, qb += jb == j;
        n++;
    }
    return n;
}

/* len[i] = the length of row i of A + B; len[rows] = 0 (a row of one of them: its length) */
static __global__ void add_count_kernel(int32_t rows, const int32_t *arp, const int32_t *aci,
                                        int32_t nown, const int32_t *map, const int32_t *brp,
                                        const int32_t *bci, int32_t *len)
{
    FOR_EACH(i, (int64_t)rows + 1)
    {
        if (i == rows)
            len[i] = 0;
        else if (brp[i + 1] == brp[i] || arp[i + 1] == arp[i])
            len[i] = arp[i + 1] - arp[i] + brp[i + 1] - brp[i];
        else
            len[i] = merge_row(i, arp, aci, NULL, nown, map, brp, bci, NULL, NULL, NULL, 0);
    }
}

/* a group of G lanes a row: a row of A alone (its columns renumbered) or of B alone copied side
 * by side (the received entries of other ranks touch few rows), a row of both merged by the
 * group's first lane */
template <int G>
static __global__ void add_fill_kernel(int32_t rows, const int32_t *arp, const int32_t *aci,
                                       const double *av, int32_t nown, const int32_t *map,
                                       const int32_t *brp, const int32_t *bci, const double *bv,
                                       const int32_t *rp, int32_t *oci, double *ov)
{
    const int lane = threadIdx.x & (G - 1);
    FOR_ROW_G(G, rows)
    {
        const int32_t a0 = arp[i], a1 = arp[i + 1], b0 = brp[i], b1 = brp[i + 1], o = rp[i];
        if (b1 == b0) {
            for (int32_t q = a0 + lane; q < a1; q += G)
                oci[o + q - a0] = mapped(aci[q], nown, map), ov[o + q - a0] = av[q];
        } else if (a1 == a0) {
            for (int32_t q = b0 + lane; q < b1; q += G)
                oci[o + q - b0] = bci[q], ov[o + q - b0] = bv[q];
        } else if (lane == 0) {
            (void)merge_row((int32_t)i, arp, aci, av, nown, map, brp, bci, bv, oci, ov, o);
        }
    }
}

/* out = A' + B (A' = A with its columns renumbered by am): the union of the patterns (count,
 * scan, one read of the total, fill) */
gs_status gs_sparse_cuda_add(const gs_csr *A, const gs_col_map *am, const gs_csr *B,
                             gs_csr **out)
{
    gs_status st = GS_OK;
    int32_t *rp = NULL, *ci = NULL, nnz = 0;
    double *v = NULL;
    const int32_t rows = A->rows, nown = map_nown(am);
    const int32_t *map = map_of(am);
    *out = NULL;
    if (A->rows != B->rows || (!am && A->cols != B->cols))
        GS_FAIL(GS_ERR_ARG, "add: %d x %d plus %d x %d", (int)A->rows, (int)A->cols, (int)B->rows,
                (int)B->cols);
    GS_CHECK(gs_cuda_alloc(((size_t)rows + 1) * sizeof(int32_t), "sum row pointers", (void **)&rp));
    LAUNCH(add_count_kernel, (int64_t)rows + 1, rows, A->rowptr, A->colind, nown, map, B->rowptr,
           B->colind, rp);
    GS_CHECK(gs_cuda_exclusive_sum(rp, rp, (int64_t)rows + 1, "sum scan"));
    GS_CHECK(gs_cuda_d2h(&nnz, rp + rows, sizeof nnz));
    {
        const size_t n = nnz > 0 ? (size_t)nnz : 1;
        GS_CHECK(gs_cuda_alloc(n * sizeof(int32_t), "sum column indices", (void **)&ci));
        GS_CHECK(gs_cuda_alloc(n * sizeof(double), "sum values", (void **)&v));
    }
    if (rows > 0)
        LAUNCH_G(row_group(A->nnz, rows), rows, add_fill_kernel, rows, A->rowptr, A->colind,
                 A->val, nown, map, B->rowptr, B->colind, B->val, (const int32_t *)rp, ci, v);
    st = gs_cuda_csr_adopt(rows, B->cols, nnz, rp, ci, v, out);
    rp = NULL, ci = NULL, v = NULL;
done:
    gs_cuda_free_csr_arrays(rp, ci, v);
    return st;
}

/* ---- triplets ----------------------------------------------------------------------------- */

/* key[q] = ri[q] << cbits | ci[q]: a row-major order of the entries */
static __global__ void coo_key_kernel(int32_t n, const int32_t *ri, const int32_t *ci, int cbits,
                                      uint64_t *key)
{
    FOR_EACH(q, n)
    {
        key[q] = (uint64_t)(uint32_t)ri[q] << cbits | (uint32_t)ci[q];
    }
}

/* rp[i] = the first of the sorted distinct keys[0..nnz) in row i or beyond (binary search) */
static __global__ void coo_rowptr_kernel(int32_t rows, const uint64_t *key, int32_t nnz, int cbits,
                                         int32_t *rp)
{
    FOR_EACH(i, (int64_t)rows + 1)
    {
        const uint64_t first = (uint64_t)i << cbits;
        rp[i] = gs_first_ge((int32_t)0, nnz, first, [key](int32_t q) { return key[q]; });
    }
}

/* ci[q] = the column of key q (its low cbits bits) */
static __global__ void coo_col_kernel(int32_t nnz, const uint64_t *key, int cbits, int32_t *ci)
{
    FOR_EACH(q, nnz)
    {
        ci[q] = (int32_t)(key[q] & ((1ull << cbits) - 1));
    }
}

/* the n triplets sorted by key (kb, vb: their double buffers, values copied into vb's first)
 * and summed per key into their other halves; *nnz the distinct keys (one read) */
static gs_status coo_sort_sum(int32_t n, int end_bit, cub::DoubleBuffer<uint64_t> &kb,
                              cub::DoubleBuffer<double> &vb, int32_t *cnt, int32_t *nnz)
{
    gs_status st = GS_OK;
    const cudaStream_t s = gs_cuda_g.stream;
    const ::cuda::std::plus<double> sum = {};
    void *tmp = NULL;
    size_t bytes = 0;
    GS_CUDA_CALL(cub::DeviceRadixSort::SortPairs(NULL, bytes, kb, vb, n, 0, end_bit, s));
    GS_CHECK(gs_cuda_alloc(bytes, "triplet sort scratch", &tmp));
    GS_CUDA_CALL(cub::DeviceRadixSort::SortPairs(tmp, bytes, kb, vb, n, 0, end_bit, s));
    gs_cuda_free(tmp), tmp = NULL, bytes = 0;
    GS_CUDA_CALL(cub::DeviceReduce::ReduceByKey(NULL, bytes, kb.Current(), kb.Alternate(),
                                                vb.Current(), vb.Alternate(), cnt, sum, n, s));
    GS_CHECK(gs_cuda_alloc(bytes, "triplet sum scratch", &tmp));
    GS_CUDA_CALL(cub::DeviceReduce::ReduceByKey(tmp, bytes, kb.Current(), kb.Alternate(),
                                                vb.Current(), vb.Alternate(), cnt, sum, n, s));
    GS_CHECK(gs_cuda_d2h(nnz, cnt, sizeof *nnz));
done:
    gs_cuda_free(tmp);
    return st;
}

/* C = the triplets summed into rows x cols: 64-bit keys (row above the column's bits, only the
 * bits the sizes need sorted), a radix sort carrying the values, a sum per distinct key, then
 * row starts by binary search and columns from the low bits */
gs_status gs_sparse_cuda_coo_csr(int32_t rows, int32_t cols, int64_t n, const int32_t *ri,
                                 const int32_t *ci, const double *v, gs_csr **C)
{
    gs_status st = GS_OK;
    const cudaStream_t s = gs_cuda_g.stream;
    const int cbits = gs_bits_of((int64_t)cols - 1), rbits = gs_bits_of((int64_t)rows - 1);
    uint64_t *k0 = NULL, *k1 = NULL;
    double *v0 = NULL, *v1 = NULL, *cv = NULL;
    int32_t *cnt = NULL, *rp = NULL, *cc = NULL, nnz = 0;
    *C = NULL;
    if (rows < 0 || cols < 0 || n < 0)
        GS_FAIL(GS_ERR_ARG, "coo_csr: %d x %d from %lld triplets", (int)rows, (int)cols,
                (long long)n);
    if (n > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "coo_csr: %lld triplets (below 2^31)", (long long)n);
    if (n > 0) {
        const size_t kbytes = (size_t)n * sizeof(uint64_t), vbytes = (size_t)n * sizeof(double);
        GS_CHECK(gs_cuda_alloc(kbytes, "triplet keys", (void **)&k0));
        GS_CHECK(gs_cuda_alloc(kbytes, "sorted triplet keys", (void **)&k1));
        GS_CHECK(gs_cuda_alloc(vbytes, "triplet values", (void **)&v0));
        GS_CHECK(gs_cuda_alloc(vbytes, "sorted triplet values", (void **)&v1));
        GS_CHECK(gs_cuda_alloc(sizeof *cnt, "triplet key count", (void **)&cnt));
        LAUNCH(coo_key_kernel, n, (int32_t)n, ri, ci, cbits, k0);
        GS_CUDA_CALL(cudaMemcpyAsync(v0, v, vbytes, cudaMemcpyDeviceToDevice, s));
        cub::DoubleBuffer<uint64_t> kb(k0, k1);
        cub::DoubleBuffer<double> vb(v0, v1);
        /* at least one bit: a sort of no bits is left alone */
        const int end_bit = cbits + rbits > 0 ? cbits + rbits : 1;
        GS_CHECK(coo_sort_sum((int32_t)n, end_bit, kb, vb, cnt, &nnz));
        GS_CHECK(gs_cuda_alloc_csr_arrays(rows, nnz, &rp, &cc, &cv));
        const uint64_t *key = kb.Alternate();
        LAUNCH(coo_rowptr_kernel, (int64_t)rows + 1, rows, key, nnz, cbits, rp);
        if (nnz > 0) {
            LAUNCH(coo_col_kernel, nnz, nnz, key, cbits, cc);
            GS_CUDA_CALL(cudaMemcpyAsync(cv, vb.Alternate(), (size_t)nnz * sizeof(double),
                                         cudaMemcpyDeviceToDevice, s));
        }
    } else {
        GS_CHECK(gs_cuda_alloc_csr_arrays(rows, 0, &rp, &cc, &cv));
        GS_CUDA_CALL(cudaMemsetAsync(rp, 0, ((size_t)rows + 1) * sizeof(int32_t), s));
    }
    st = gs_cuda_csr_adopt(rows, cols, nnz, rp, cc, cv, C);
    rp = NULL, cc = NULL, cv = NULL; /* adopted, or freed by the failed adopt */
done:
    gs_cuda_free_csr_arrays(rp, cc, cv);
    gs_cuda_free(k0);
    gs_cuda_free(k1);
    gs_cuda_free(v0);
    gs_cuda_free(v1);
    gs_cuda_free(cnt);
    return st;
}

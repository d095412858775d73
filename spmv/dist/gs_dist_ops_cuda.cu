/* gs_dist_ops_cuda.cu: the data-parallel steps of the distributed setup on the device (the table
 * gs_dist_cuda_ops of gs_dist_ops.h), one-for-one with gs_dist_ops_host.c. The steps that walk
 * or copy rows (the split's count, sum, packing) give each row a group of lanes
 * (gs_cuda_rows.cuh: a coarse level's rows hold 20 to 60 entries, which a thread a row reads far
 * apart), the split's copy a thread an entry (level 0's rows hold 7), the others a thread a row
 * or an entry; a result whose size is not known beforehand is a
 * count kernel, a CUB prefix sum and a fill kernel, with one read of the total in between (the
 * compact form's halo list and the sorted distinct values: CUB's select, sort and unique; the
 * triplets' CSR: CUB's radix sort and reduce by key). All on gs_cuda_g.stream. */
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
#include "gs_dist_ops.h"
#include "gs_mem.h"
#include "gs_time.h"

#define FOR_EACH(i, n)                                                                             \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                      \
         i += (int64_t)blockDim.x * gridDim.x)

/* grid-stride launch on the backend's stream over n >= 1 items, checked */
#define LAUNCH(kernel, n, ...)                                                                     \
    do {                                                                                           \
        kernel<<<gs_cuda_grid(n), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(__VA_ARGS__);            \
        GS_CUDA_LAUNCHED(#kernel);                                                                 \
    } while (0)

/* device arrays of a new matrix, each of at least one element */
static gs_status alloc_csr_arrays(int64_t rows, int64_t nnz, int32_t **rp, int32_t **ci, double **v)
{
    gs_status st = GS_OK;
    const size_t n = nnz > 0 ? (size_t)nnz : 1;
    GS_CHECK(gs_cuda_alloc(((size_t)rows + 1) * sizeof(int32_t), "row pointers", (void **)rp));
    GS_CHECK(gs_cuda_alloc(n * sizeof(int32_t), "column indices", (void **)ci));
    GS_CHECK(gs_cuda_alloc(n * sizeof(double), "values", (void **)v));
done:
    return st;
}

static void free_csr_arrays(int32_t *rp, int32_t *ci, double *v)
{
    gs_cuda_free(rp);
    gs_cuda_free(ci);
    gs_cuda_free(v);
}

/* ---- split ------------------------------------------------------------------------------- */

/* key[i] = row i's entries below column ncols, plus 2^32 when it has others (rows sorted: the
 * own columns first); key[rows] = 0. One prefix sum of the keys gives both the diagonal
 * block's row pointers (the low halves) and each halo row's place among them (the high). */
template <int G>
static __global__ void split_count_kernel(int32_t rows, const int32_t *rp, const int32_t *ci,
                                          int32_t ncols, uint64_t *key)
{
    const unsigned m = group_mask<G>();
    const int lane = threadIdx.x & (G - 1);
    FOR_ROW_G(G, (int64_t)rows + 1)
    {
        int32_t c = 0, n = 0;
        if (i < rows) {
            const int32_t q0 = rp[i], e = rp[i + 1];
            n = e - q0;
            if (n > 0 && ci[e - 1] < ncols) /* no halo entry: the whole row */
                c = lane == 0 ? n : 0;
            else
                for (int32_t q = q0 + lane; q < e; q += G) c += ci[q] < ncols;
        }
        c = group_sum<G>(c, m);
        if (lane == 0) key[i] = (uint64_t)(uint32_t)c + ((uint64_t)(c < n) << 32);
    }
}

/* from the scanned keys: diag's row pointers drp, and for the o-th row with halo entries its
 * index orow[o] and the offset orp[o] of its first halo entry (C's entries before it less the
 * own ones); orp[nor] = the halo entries in all */
static __global__ void split_rows_kernel(int32_t rows, const int32_t *rp, const uint64_t *key,
                                         int32_t *drp, int32_t *orow, int32_t *orp)
{
    FOR_EACH(i, (int64_t)rows + 1)
    {
        const uint64_t k = key[i];
        const int32_t d = (int32_t)(uint32_t)k, o = (int32_t)(k >> 32);
        drp[i] = d;
        if (!orp) continue;
        if (i == rows)
            orp[o] = rp[i] - d;
        else if ((int32_t)(key[i + 1] >> 32) > o) /* row i has halo entries */
            orow[o] = (int32_t)i, orp[o] = rp[i] - d;
    }
}

/* entry q in [e0, e1) of C to its block, a thread an entry (read and written side by side): its
 * row by a search among the rows this block's entries span (found once a block). rp and drp: the
 * rows [0, rows] holding those entries (rp's values C's entry offsets); oci NULL: the halo
 * entries left out (they go later, to rows found then) */
#define SPLIT_PER 4 /* entries a thread */
static __global__ void split_fill_kernel(int32_t rows, int64_t e0, int64_t e1, const int32_t *rp,
                                         const int32_t *ci, const double *v, int32_t ncols,
                                         const int32_t *drp, int32_t *dci, double *dv,
                                         int32_t *oci, double *ov)
{
    __shared__ int32_t span[2];
    const int64_t per_block = (int64_t)blockDim.x * SPLIT_PER;
    for (int64_t b0 = e0 + (int64_t)blockIdx.x * per_block; b0 < e1;
         b0 += (int64_t)gridDim.x * per_block) {
        const int64_t b1 = b0 + per_block < e1 ? b0 + per_block : e1;
        if (threadIdx.x < 32) { /* the rows of entries b0 and b1 - 1, by warp 0 */
            const int32_t r0 = gs_warp_row_of(rp, rows, b0), r1 = gs_warp_row_of(rp, rows, b1 - 1);
            if (threadIdx.x == 0) span[0] = r0, span[1] = r1;
        }
        __syncthreads();
        const int32_t r0 = span[0], r1 = span[1];
        for (int64_t q = b0 + threadIdx.x; q < b1; q += blockDim.x) {
            const int32_t lo = gs_last_le(r0, r1, q, [rp](int32_t i) { return __ldg(rp + i); });
            const int32_t p = (int32_t)(q - __ldg(rp + lo)), d0 = __ldg(drp + lo),
                          dl = __ldg(drp + lo + 1) - d0, c = ci[q];
            const double x = v[q];
            if (p < dl) {
                dci[d0 + p] = c, dv[d0 + p] = x;
            } else if (oci) {
                const int32_t o = __ldg(rp + lo) - d0 + (p - dl);
                oci[o] = c - ncols, ov[o] = x;
            }
        }
        __syncthreads(); /* span[] read by all before the next chunk's */
    }
}

/* the fill over entries [e0, e1), the grid by their count */
static gs_status split_fill(int32_t rows, int64_t e0, int64_t e1, const int32_t *rp,
                            const int32_t *ci, const double *v, int32_t ncols, const int32_t *drp,
                            int32_t *dci, double *dv, int32_t *oci, double *ov)
{
    gs_status st = GS_OK;
    if (e1 <= e0) return GS_OK;
    const int64_t chunks = (e1 - e0 + GS_CUDA_THREADS * SPLIT_PER - 1) /
                           (GS_CUDA_THREADS * SPLIT_PER);
    split_fill_kernel<<<(unsigned)(chunks > 65536 ? 65536 : chunks), GS_CUDA_THREADS, 0,
                        gs_cuda_g.stream>>>(rows, e0, e1, rp, ci, v, ncols, drp, dci, dv, oci, ov);
    GS_CUDA_LAUNCHED("split_fill_kernel");
done:
    return st;
}

/* diag = C's columns < ncols, offd = the others shifted by -ncols in the rows that hold any
 * (NULL when nhalo == 0), orow those rows: a key a row, one prefix sum, one read of the totals,
 * the rows' pointers, then the entries a thread each */
static gs_status cuda_split(const gs_csr *C, int32_t ncols, int32_t nhalo, gs_csr **diag,
                            gs_csr **offd, int32_t *nor, int32_t **orow)
{
    gs_status st = GS_OK;
    const int32_t rows = C->rows;
    const int g = row_group(C->nnz, C->rows);
    int32_t *drp = NULL, *dci = NULL, *orp = NULL, *oci = NULL, *ix = NULL, dnnz = 0, no = 0;
    double *dv = NULL, *ov = NULL;
    uint64_t *key = NULL, tot = 0;
    gs_csr *D = NULL;
    *diag = NULL;
    if (offd) *offd = NULL;
    if (nor) *nor = 0;
    if (orow) *orow = NULL;
    if (ncols < 0 || nhalo < 0 || (nhalo > 0 && (!offd || !nor || !orow)))
        GS_FAIL(GS_ERR_ARG, "split: bad columns %d + halo %d", (int)ncols, (int)nhalo);
    GS_CHECK(gs_cuda_alloc(((size_t)rows + 1) * sizeof *key, "split row keys", (void **)&key));
    LAUNCH_G(g, (int64_t)rows + 1, split_count_kernel, rows, C->rowptr, C->colind, ncols, key);
    GS_CHECK(gs_cuda_exclusive_sum(key, key, (int64_t)rows + 1, "split scan"));
    GS_CHECK(gs_cuda_d2h(&tot, key + rows, sizeof tot));
    dnnz = (int32_t)(uint32_t)tot, no = (int32_t)(tot >> 32);
    if (nhalo == 0 && C->nnz > dnnz)
        GS_FAIL(GS_ERR_ARG, "split: %lld entries at column >= %d but no halo columns",
                (long long)(C->nnz - dnnz), (int)ncols);
    {
        const size_t dn = dnnz > 0 ? (size_t)dnnz : 1;
        GS_CHECK(gs_cuda_alloc(((size_t)rows + 1) * sizeof(int32_t), "split row pointers",
                               (void **)&drp));
        GS_CHECK(gs_cuda_alloc(dn * sizeof(int32_t), "split column indices", (void **)&dci));
        GS_CHECK(gs_cuda_alloc(dn * sizeof(double), "split values", (void **)&dv));
        if (nhalo > 0) {
            GS_CHECK(alloc_csr_arrays(no, C->nnz - dnnz, &orp, &oci, &ov));
            GS_CHECK(gs_cuda_alloc(((size_t)no + 1) * sizeof(int32_t), "split rows",
                                   (void **)&ix));
        }
    }
    LAUNCH(split_rows_kernel, (int64_t)rows + 1, rows, C->rowptr, key, drp, ix, orp);
    GS_CHECK(split_fill(rows, 0, C->nnz, C->rowptr, C->colind, C->val, ncols, drp, dci, dv, oci,
                        ov));
    st = gs_cuda_csr_adopt(rows, ncols, dnnz, drp, dci, dv, &D);
    drp = NULL, dci = NULL, dv = NULL; /* adopted, or freed by the failed adopt */
    if (st != GS_OK) goto done;
    if (nhalo > 0) {
        st = gs_cuda_csr_adopt(no, nhalo, C->nnz - dnnz, orp, oci, ov, offd);
        orp = NULL, oci = NULL, ov = NULL;
        if (st != GS_OK) goto done;
        *nor = no, *orow = ix, ix = NULL;
    }
    *diag = D, D = NULL;
done:
    gs_cuda_free(key);
    gs_cuda_free(ix);
    free_csr_arrays(drp, dci, dv);
    free_csr_arrays(orp, oci, ov);
    gs_csr_destroy(&D);
    return st;
}

/* the halo entries of the no rows that hold any (rows ix[o], their first at orp[o] among the
 * halo entries), after their rows' own entries */
static __global__ void split_halo_kernel(int32_t no, const int32_t *ix, const int32_t *orp,
                                         const int32_t *rp, const int32_t *ci, const double *v,
                                         int32_t ncols, const int32_t *drp, int32_t *oci,
                                         double *ov)
{
    FOR_EACH(o, no)
    {
        const int32_t i = ix[o], q0 = rp[i] + (drp[i + 1] - drp[i]), n = rp[i + 1] - q0;
        for (int32_t k = 0; k < n; k++)
            oci[orp[o] + k] = ci[q0 + k] - ncols, ov[orp[o] + k] = v[q0 + k];
    }
}

/* The upload and the split in parts of about this many entries: part k's count, prefix sum and
 * own entries run while part k + 1 travels, so what is left once the last part has arrived is
 * its share of the split, the halo rows and the total's read (the split of 3D Poisson's 16.8M
 * rows on each of four ranks was 1.6 ms after its 37 ms upload). Smaller uploads, or rows not
 * page-locked (the copy staged through the backend's buffers), go whole: upload, then split
 * (below four parts). */
#define UPSPLIT_PART ((int64_t)4 << 20)

/* that part size; GSOLVE_UPLOAD_SPLIT_PART=N (entries, >= 1) sets it (the tests: small parts) */
static int64_t upsplit_part(void)
{
    return gs_env_i64("GSOLVE_UPLOAD_SPLIT_PART", 1, UPSPLIT_PART);
}

static gs_status cuda_upload_split(const gs_csr *C, int32_t ncols, int32_t nhalo,
                                   gs_status (*meanwhile)(void *), void *arg, gs_csr **out,
                                   gs_csr **diag, gs_csr **offd, int32_t *nor, int32_t **orow)
{
    gs_status st = GS_OK, mst = GS_OK;
    int ran = 0; /* meanwhile has run (it may hold collectives: it runs on failure too) */
    const int32_t rows = C->rows;
    const int64_t nnz = C->nnz, part = upsplit_part();
    cudaStream_t s = gs_cuda_g.stream, cs = NULL;
    cudaEvent_t ready = NULL, *ev = NULL;
    int32_t *rp = NULL, *ci = NULL, *drp = NULL, *dci = NULL, *orp = NULL, *oci = NULL,
            *ix = NULL, dnnz = 0, no = 0, nparts = 0;
    double *v = NULL, *dv = NULL, *ov = NULL;
    uint64_t *keyc = NULL, *keys = NULL, tot = 0;
    void *tmp = NULL;
    size_t tmp_bytes = 0;
    double t0 = 0.0;
    gs_csr *M = NULL, *D = NULL;
    *out = *diag = NULL;
    if (offd) *offd = NULL;
    if (nor) *nor = 0;
    if (orow) *orow = NULL;
    if (ncols < 0 || nhalo < 0 || (nhalo > 0 && (!offd || !nor || !orow)) ||
        C->cols != ncols + nhalo)
        GS_FAIL(GS_ERR_ARG, "upload and split: bad columns %d + halo %d of %d", (int)ncols,
                (int)nhalo, (int)C->cols);
    if (nnz < 4 * part || rows < 1 ||
        !gs_cuda_host_pinned(C->rowptr, ((size_t)rows + 1) * sizeof(int32_t)) ||
        !gs_cuda_host_pinned(C->colind, (size_t)nnz * sizeof(int32_t)) ||
        !gs_cuda_host_pinned(C->val, (size_t)nnz * sizeof(double))) {
        ran = 1;
        GS_CHECK(gs_cuda_csr_upload(C, meanwhile, arg, &M));
        GS_CHECK(cuda_split(M, ncols, nhalo, diag, offd, nor, orow));
        *out = M, M = NULL;
        goto done;
    }
    nparts = (int32_t)((nnz + part - 1) / part);
    if (nparts > rows) nparts = rows;
    GS_CHECK(alloc_csr_arrays(rows, nnz, &rp, &ci, &v));
    GS_CHECK(alloc_csr_arrays(rows, nnz, &drp, &dci, &dv)); /* the own entries: at most nnz */
    GS_CHECK(gs_cuda_alloc(((size_t)rows + 1) * sizeof *keyc, "split row counts", (void **)&keyc));
    GS_CHECK(gs_cuda_alloc(((size_t)rows + 1) * sizeof *keys, "split row keys", (void **)&keys));
    { /* the prefix sums' scratch: the longest part's */
        size_t b = 0;
        GS_CUDA_CALL(cub::DeviceScan::ExclusiveScan(
            NULL, b, keyc, keys, cuda::std::plus<uint64_t>(),
            cub::FutureValue<uint64_t>(keys), (int64_t)rows + 1, s));
        tmp_bytes = b;
        GS_CHECK(gs_cuda_alloc(tmp_bytes, "split prefix sums", &tmp));
    }
    GS_CUDA_CALL(cudaMemsetAsync(keys, 0, sizeof *keys, s));
    GS_CHECK(gs_alloc_array((size_t)nparts, sizeof *ev, "upload events", (void **)&ev));
    memset(ev, 0, (size_t)nparts * sizeof *ev);
    GS_CUDA_CALL(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    GS_CUDA_CALL(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    for (int32_t k = 0; k < nparts; k++)
        GS_CUDA_CALL(cudaEventCreateWithFlags(&ev[k], cudaEventDisableTiming));
    GS_CUDA_CALL(cudaEventRecord(ready, s)); /* the allocations above, stream-ordered on s */
    t0 = gs_time_now();
    GS_CUDA_CALL(cudaStreamWaitEvent(cs, ready, 0));
    { /* every part's copies on cs; on s, each part's split once its copies are in */
        const int g = row_group(nnz, rows);
        int32_t r0 = 0;
        for (int32_t k = 0; k < nparts; k++) {
            /* rows up to the part's share of the entries (the last part: all that are left) */
            int32_t r1 = rows;
            if (k < nparts - 1 && r0 < rows) {
                const int64_t want = nnz / nparts * (k + 1);
                int32_t lo = r0 + 1, hi = rows;
                while (lo < hi) { /* the first row whose end reaches `want` */
                    const int32_t mid = lo + (hi - lo) / 2;
                    if ((int64_t)C->rowptr[mid] >= want)
                        hi = mid;
                    else
                        lo = mid + 1;
                }
                r1 = lo;
            }
            if (r1 <= r0) { /* no rows left (the parts before took them, and the total) */
                GS_CUDA_CALL(cudaEventRecord(ev[k], cs));
                continue;
            }
            const int64_t e0 = C->rowptr[r0], e1 = C->rowptr[r1];
            GS_CUDA_CALL(cudaMemcpyAsync(rp + r0, C->rowptr + r0,
                                         ((size_t)(r1 - r0) + 1) * sizeof(int32_t),
                                         cudaMemcpyHostToDevice, cs));
            if (e1 > e0) {
                GS_CUDA_CALL(cudaMemcpyAsync(ci + e0, C->colind + e0,
                                             (size_t)(e1 - e0) * sizeof(int32_t),
                                             cudaMemcpyHostToDevice, cs));
                GS_CUDA_CALL(cudaMemcpyAsync(v + e0, C->val + e0,
                                             (size_t)(e1 - e0) * sizeof(double),
                                             cudaMemcpyHostToDevice, cs));
            }
            GS_CUDA_CALL(cudaEventRecord(ev[k], cs));
            GS_CUDA_CALL(cudaStreamWaitEvent(s, ev[k], 0));
            /* counts of rows [r0, r1) (and 0 at r1, the next part's or the end's), their keys
             * after keys[r0] (the parts before), the own rows' pointers, the own entries */
            LAUNCH_G(g, (int64_t)(r1 - r0) + 1, split_count_kernel, r1 - r0, rp + r0, ci, ncols,
                     keyc + r0);
            GS_CUDA_CALL(cub::DeviceScan::ExclusiveScan(
                tmp, tmp_bytes, keyc + r0, keys + r0, cuda::std::plus<uint64_t>(),
                cub::FutureValue<uint64_t>(keys + r0), (int64_t)(r1 - r0) + 1, s));
            LAUNCH(split_rows_kernel, (int64_t)(r1 - r0) + 1, r1 - r0, rp + r0, keys + r0,
                   drp + r0, (int32_t *)NULL, (int32_t *)NULL);
            GS_CHECK(split_fill(r1 - r0, e0, e1, rp + r0, ci, v, ncols, drp + r0, dci, dv, NULL,
                                NULL));
            r0 = r1;
        }
    }
    if (meanwhile) mst = meanwhile(arg), ran = 1;
    /* the transfer: until the last part is in (what the upload line reports as such) */
    GS_CUDA_CALL(cudaEventSynchronize(ev[nparts - 1]));
    gs_cuda_h2d_account(gs_time_now() - t0);
    GS_CHECK(gs_cuda_d2h(&tot, keys + rows, sizeof tot)); /* waits for every part */
    if (mst != GS_OK) { /* meanwhile's error, as it set it */
        st = mst;
        goto done;
    }
    dnnz = (int32_t)(uint32_t)tot, no = (int32_t)(tot >> 32);
    if (nhalo == 0 && nnz > dnnz)
        GS_FAIL(GS_ERR_ARG, "split: %lld entries at column >= %d but no halo columns",
                (long long)(nnz - dnnz), (int)ncols);
    if (nhalo > 0) { /* the rows with halo entries, then those entries */
        GS_CHECK(alloc_csr_arrays(no, nnz - dnnz, &orp, &oci, &ov));
        GS_CHECK(gs_cuda_alloc(((size_t)no + 1) * sizeof(int32_t), "split rows", (void **)&ix));
        LAUNCH(split_rows_kernel, (int64_t)rows + 1, rows, rp, keys, drp, ix, orp);
        if (no > 0)
            LAUNCH(split_halo_kernel, no, no, ix, orp, rp, ci, v, ncols, drp, oci, ov);
    }
    st = gs_cuda_csr_adopt(rows, ncols + nhalo, (int32_t)nnz, rp, ci, v, &M);
    rp = NULL, ci = NULL, v = NULL;
    if (st != GS_OK) goto done;
    st = gs_cuda_csr_adopt(rows, ncols, dnnz, drp, dci, dv, &D);
    drp = NULL, dci = NULL, dv = NULL;
    if (st != GS_OK) goto done;
    if (nhalo > 0) {
        st = gs_cuda_csr_adopt(no, nhalo, (int32_t)(nnz - dnnz), orp, oci, ov, offd);
        orp = NULL, oci = NULL, ov = NULL;
        if (st != GS_OK) goto done;
        *nor = no, *orow = ix, ix = NULL;
    }
    *out = M, M = NULL;
    *diag = D, D = NULL;
done:
    if (st != GS_OK && cs) (void)cudaStreamSynchronize(cs); /* no copy left in flight */
    if (meanwhile && !ran) (void)meanwhile(arg);
    for (int32_t k = 0; ev && k < nparts; k++)
        if (ev[k]) (void)cudaEventDestroy(ev[k]);
    gs_free(ev);
    if (ready) (void)cudaEventDestroy(ready);
    if (cs) (void)cudaStreamDestroy(cs);
    gs_cuda_free(tmp);
    gs_cuda_free(keyc);
    gs_cuda_free(keys);
    gs_cuda_free(ix);
    free_csr_arrays(rp, ci, v);
    free_csr_arrays(drp, dci, dv);
    free_csr_arrays(orp, oci, ov);
    gs_csr_destroy(&M);
    gs_csr_destroy(&D);
    return st;
}

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
static gs_status cuda_row_slice(const gs_csr *A, int32_t r0, int32_t r1, gs_csr **out)
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
    free_csr_arrays(rp, ci, v);
    return st;
}

/* *out = *A's first r rows around *A's arrays (its entry count read from the row pointers;
 * the row statistics measured again), *A's own state freed */
static gs_status cuda_row_prefix(gs_csr **A, int32_t r, gs_csr **out)
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
static gs_status cuda_vcat(const gs_csr *A, const gs_col_map *am, const gs_csr *B, int32_t cols,
                           gs_csr **out)
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
    GS_CHECK(alloc_csr_arrays(rows, nnz, &rp, &ci, &v));
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
    free_csr_arrays(rp, ci, v);
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
static gs_status cuda_add(const gs_csr *A, const gs_col_map *am, const gs_csr *B, gs_csr **out)
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
    free_csr_arrays(rp, ci, v);
    return st;
}

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
    GS_CHECK(alloc_csr_arrays(rows, nnz, &rp, &ci, &v));
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
    free_csr_arrays(rp, ci, v);
    gs_cuda_free(a);
    gs_cuda_free(b);
    gs_cuda_free(cnt);
    gs_free(h);
    return st;
}

/* ---- sorted distinct values, column numbering, triplets --------------------------------- */

/* the bits that hold values 0..x (0 for x <= 0) */
static int bits_of(int64_t x)
{
    int b = 0;
    while (x > 0) b++, x >>= 1;
    return b;
}

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
        const int end_bit = bound > 1 ? bits_of(bound - 1) : 1;
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
static gs_status cuda_coo_csr(int32_t rows, int32_t cols, int64_t n, const int32_t *ri,
                              const int32_t *ci, const double *v, gs_csr **C)
{
    gs_status st = GS_OK;
    const cudaStream_t s = gs_cuda_g.stream;
    const int cbits = bits_of((int64_t)cols - 1), rbits = bits_of((int64_t)rows - 1);
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
        GS_CHECK(alloc_csr_arrays(rows, nnz, &rp, &cc, &cv));
        const uint64_t *key = kb.Alternate();
        LAUNCH(coo_rowptr_kernel, (int64_t)rows + 1, rows, key, nnz, cbits, rp);
        if (nnz > 0) {
            LAUNCH(coo_col_kernel, nnz, nnz, key, cbits, cc);
            GS_CUDA_CALL(cudaMemcpyAsync(cv, vb.Alternate(), (size_t)nnz * sizeof(double),
                                         cudaMemcpyDeviceToDevice, s));
        }
    } else {
        GS_CHECK(alloc_csr_arrays(rows, 0, &rp, &cc, &cv));
        GS_CUDA_CALL(cudaMemsetAsync(rp, 0, ((size_t)rows + 1) * sizeof(int32_t), s));
    }
    st = gs_cuda_csr_adopt(rows, cols, nnz, rp, cc, cv, C);
    rp = NULL, cc = NULL, cv = NULL; /* adopted, or freed by the failed adopt */
done:
    free_csr_arrays(rp, cc, cv);
    gs_cuda_free(k0);
    gs_cuda_free(k1);
    gs_cuda_free(v0);
    gs_cuda_free(v1);
    gs_cuda_free(cnt);
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
    GS_CHECK(alloc_csr_arrays(rows, n, &rp, &ci, &v));
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
    free_csr_arrays(rp, ci, v);
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

extern "C" const gs_dist_ops gs_dist_cuda_ops = {
    cuda_split,       /* split */
    cuda_upload_split, /* upload_split */
    cuda_row_slice,   /* row_slice */
    cuda_row_prefix,  /* row_prefix */
    cuda_vcat,        /* vcat */
    cuda_add,         /* add */
    cuda_row_lengths, /* row_lengths */
    cuda_pack_rows,   /* pack_rows */
    cuda_first_entry, /* first_entry */
    cuda_scatter_add, /* scatter_add */
    cuda_offd_add,    /* offd_add */
    cuda_compact,     /* compact */
    cuda_sort_unique, /* sort_unique */
    cuda_map_cols,    /* map_cols */
    cuda_coo_csr,     /* coo_csr */
    cuda_lengths,     /* lengths */
    cuda_offsets,     /* offsets */
    cuda_row_index,   /* row_index */
    cuda_csr_from_rows, /* csr_from_rows */
    cuda_first_entry_rows, /* first_entry_rows */
};

/* gs_dist_ops_blocks_cuda.cu: the distributed setup's split into blocks on the device (also while
 * the rows upload). */
#include <stdint.h>
#include <string.h>

#include <cuda/std/functional>

#include "gs_cuda_impl.h"
#include "gs_cuda_rows.cuh"
#include "gs_cuda_scan.cuh"
#include "gs_dist_ops_cuda_impl.cuh"
#include "gs_knob.h"
#include "gs_mem.h"
#include "gs_time.h"

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
gs_status gs_dist_cuda_split(const gs_csr *C, int32_t ncols, int32_t nhalo, gs_csr **diag,
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
            GS_CHECK(gs_cuda_alloc_csr_arrays(no, C->nnz - dnnz, &orp, &oci, &ov));
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
    gs_cuda_free_csr_arrays(drp, dci, dv);
    gs_cuda_free_csr_arrays(orp, oci, ov);
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
    return gs_knob_i64("GSOLVE_UPLOAD_SPLIT_PART", 1, UPSPLIT_PART);
}

gs_status gs_dist_cuda_upload_split(const gs_csr *C, int32_t ncols, int32_t nhalo,
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
        GS_CHECK(gs_dist_cuda_split(M, ncols, nhalo, diag, offd, nor, orow));
        *out = M, M = NULL;
        goto done;
    }
    nparts = (int32_t)((nnz + part - 1) / part);
    if (nparts > rows) nparts = rows;
    GS_CHECK(gs_cuda_alloc_csr_arrays(rows, nnz, &rp, &ci, &v));
    /* the own entries: at most nnz */
    GS_CHECK(gs_cuda_alloc_csr_arrays(rows, nnz, &drp, &dci, &dv));
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
        GS_CHECK(gs_cuda_alloc_csr_arrays(no, nnz - dnnz, &orp, &oci, &ov));
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
    gs_cuda_free_csr_arrays(rp, ci, v);
    gs_cuda_free_csr_arrays(drp, dci, dv);
    gs_cuda_free_csr_arrays(orp, oci, ov);
    gs_csr_destroy(&M);
    gs_csr_destroy(&D);
    return st;
}

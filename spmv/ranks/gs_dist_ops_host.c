/* gs_dist_ops_host.c: the data-parallel steps of the distributed setup on the host (the table
 * gs_dist_host_ops of gs_dist_ops.h): split of a compact matrix into its own and halo columns,
 * the halo row packing, the compact column form of a rank's rows with global columns, the sorted
 * distinct values of a list, global columns to compact ones (row slices, stacking, sums and
 * triplets are the sparse toolkit's: gs_spgemm.h).
 * Every step is the reference for gs_dist_ops_cuda.cu; each makes a per-row count, a prefix sum
 * and a per-row fill where the result's size is not known beforehand. */
#include <string.h>

#include "gs_dist.h"
#include "gs_dist_ops.h"
#include "gs_mem.h"

#define OMP_MIN 100000 /* below this, threads cost more than they save */

/* the first entry of row i of C at or beyond column ncols (rows sorted: one binary search) */
static int32_t split_point(const gs_csr *C, int32_t i, int32_t ncols)
{
    return gs_csr_lower_bound(C, i, ncols);
}

/* row i of C holds halo entries: more entries than its own len[i] */
static inline int has_halo(const gs_csr *C, const int32_t *len, int32_t i)
{
    return C->rowptr[i + 1] - C->rowptr[i] > len[i];
}

/* diag = C's columns < ncols, offd = the others shifted by -ncols in the rows that hold any
 * (NULL when nhalo == 0), orow those rows */
static gs_status host_split(const gs_csr *C, int32_t ncols, int32_t nhalo, gs_csr **diag,
                            gs_csr **offd, int32_t *nor, int32_t **orow)
{
    gs_status st = GS_OK;
    gs_csr *D = NULL, *O = NULL;
    int32_t *len = NULL, *ix = NULL, no = 0;
    const int32_t rows = C->rows;
    *diag = NULL;
    if (offd) *offd = NULL;
    if (nor) *nor = 0;
    if (orow) *orow = NULL;
    if (ncols < 0 || nhalo < 0 || (nhalo > 0 && (!offd || !nor || !orow)))
        GS_FAIL(GS_ERR_ARG, "split: bad columns %d + halo %d", (int)ncols, (int)nhalo);
    GS_CHECK(gs_alloc_array((size_t)rows + 1, sizeof *len, "split row lengths", (void **)&len));
#pragma omp parallel for schedule(static) if (rows > OMP_MIN)
    for (int32_t i = 0; i < rows; i++) len[i] = split_point(C, i, ncols) - C->rowptr[i];
    int64_t dnnz = 0;
    for (int32_t i = 0; i < rows; i++) {
        dnnz += len[i];
        no += has_halo(C, len, i);
    }
    const int64_t onnz = C->nnz - dnnz;
    if (nhalo == 0 && onnz > 0)
        GS_FAIL(GS_ERR_ARG, "split: %lld entries at column >= %d but no halo columns",
                (long long)onnz, (int)ncols);
    GS_CHECK(gs_csr_create(rows, ncols, dnnz, &D));
    for (int32_t i = 0; i < rows; i++) D->rowptr[i + 1] = D->rowptr[i] + len[i];
    if (nhalo > 0) { /* the halo entries before row i: all of C's less the own ones */
        GS_CHECK(gs_csr_create(no, nhalo, onnz, &O));
        GS_CHECK(gs_alloc_array((size_t)no + 1, sizeof *ix, "split rows", (void **)&ix));
        for (int32_t i = 0, k = 0; i < rows; i++)
            if (has_halo(C, len, i))
                ix[k] = i, O->rowptr[k++] = C->rowptr[i] - D->rowptr[i];
        O->rowptr[no] = (int32_t)onnz;
    }
#pragma omp parallel for schedule(static) if (rows > OMP_MIN)
    for (int32_t i = 0; i < rows; i++) {
        const int32_t q0 = C->rowptr[i], s = q0 + len[i];
        memcpy(D->colind + D->rowptr[i], C->colind + q0, (size_t)len[i] * sizeof(int32_t));
        memcpy(D->val + D->rowptr[i], C->val + q0, (size_t)len[i] * sizeof(double));
        if (!O) continue;
        for (int32_t q = s, p = q0 - D->rowptr[i]; q < C->rowptr[i + 1]; q++, p++) {
            O->colind[p] = C->colind[q] - ncols;
            O->val[p] = C->val[q];
        }
    }
    *diag = D, D = NULL;
    if (O) *offd = O, *nor = no, *orow = ix, O = NULL, ix = NULL;
done:
    gs_free(len);
    gs_free(ix);
    gs_csr_destroy(&D);
    gs_csr_destroy(&O);
    return st;
}


/* a copy of C (meanwhile first: gs_csr_upload_while's host copy), then host_split */
static gs_status host_upload_split(const gs_csr *C, int32_t ncols, int32_t nhalo,
                                   gs_status (*meanwhile)(void *), void *arg, gs_csr **out,
                                   gs_csr **diag, gs_csr **offd, int32_t *nor, int32_t **orow)
{
    gs_status st = GS_OK;
    gs_csr *M = NULL;
    *out = NULL;
    GS_CHECK(gs_csr_upload_while(C, GS_LOC_HOST, meanwhile, arg, &M));
    GS_CHECK(host_split(M, ncols, nhalo, diag, offd, nor, orow));
    *out = M, M = NULL;
done:
    gs_csr_destroy(&M);
    return st;
}

/* len[i] = the length of row idx[i] of A (idx NULL: row i) */
static gs_status host_row_lengths(const gs_csr *A, int64_t n, const int32_t *idx, int32_t *len)
{
#pragma omp parallel for schedule(static) if (n > OMP_MIN)
    for (int64_t i = 0; i < n; i++) {
        const int32_t r = idx ? idx[i] : (int32_t)i;
        len[i] = A->rowptr[r + 1] - A->rowptr[r];
    }
    return GS_OK;
}

/* rows idx[0..n) of A (idx NULL: 0..n) at off[i].. (off NULL: where A has them), columns as
 * global numbers (base + j, or gmap[j - nown]) */
static gs_status host_pack_rows(const gs_csr *A, int64_t n, const int32_t *idx, const int64_t *off,
                                int64_t base, int32_t nown, const int64_t *gmap, int64_t *gcol,
                                double *val)
{
#pragma omp parallel for schedule(static) if (n > OMP_MIN)
    for (int64_t i = 0; i < n; i++) {
        const int32_t r = idx ? idx[i] : (int32_t)i;
        const int32_t q0 = A->rowptr[r], q1 = A->rowptr[r + 1];
        int64_t p = off ? off[i] : q0;
        for (int32_t q = q0; q < q1; q++, p++) {
            const int32_t j = A->colind[q];
            gcol[p] = j < nown ? base + j : gmap[j - nown];
            val[p] = A->val[q];
        }
    }
    return GS_OK;
}

static gs_status host_first_entry(const gs_csr *A, int64_t base, double *g, double *v)
{
#pragma omp parallel for schedule(static) if (A->rows > OMP_MIN)
    for (int32_t i = 0; i < A->rows; i++) {
        const int32_t q = A->rowptr[i];
        const int has = A->rowptr[i + 1] > q;
        g[i] = has ? (double)(base + A->colind[q]) : -1.0;
        v[i] = has ? A->val[q] : 0.0;
    }
    return GS_OK;
}

/* y[idx[i]] += x[i] */
static gs_status host_scatter_add(int64_t n, const int32_t *idx, const double *x, double *y)
{
#pragma omp parallel for schedule(static) if (n > OMP_MIN)
    for (int64_t i = 0; i < n; i++) y[idx[i]] += x[i];
    return GS_OK;
}

static gs_status host_offd_add(const gs_csr *O, const int32_t *rows, const double *xh, double *y,
                               const gs_halo_signals *sg)
{
    const uint64_t k = sg ? *sg->ctr + 1 : 0;
    if (sg) /* nothing else writes these flags while the host runs this */
        for (int i = 0; i < sg->nwait; i++)
            if (sg->flags[i] < k)
                return GS_ERROR(GS_ERR_INTERNAL, "halo product: neighbour %d has not sent "
                                "product %llu", i, (unsigned long long)k);
#pragma omp parallel for schedule(static) if (O->nnz > OMP_MIN)
    for (int32_t i = 0; i < O->rows; i++) {
        double s = 0.0;
        for (int32_t q = O->rowptr[i]; q < O->rowptr[i + 1]; q++) s += O->val[q] * xh[O->colind[q]];
        y[rows[i]] += s;
    }
    if (sg) {
        for (int i = 0; i < sg->nready; i++) *sg->ready_at[i] = k;
        *sg->ctr = k;
    }
    return GS_OK;
}

#define CHUNK 65536 /* entries a task of the halo column collection scans */

/* 1 when global column g is one of [col0, col0 + ncols) */
static int is_own(int64_t g, int64_t col0, int32_t ncols)
{
    return g >= col0 && g < col0 + ncols;
}

/* *h (nh + 1 allocated) = the sorted distinct columns of col[0..nnz) outside the own range:
 * per-chunk counts, their prefix, a per-chunk fill, then one sort */
static gs_status collect_halo(int64_t nnz, const int64_t *col, int64_t col0, int32_t ncols,
                              int64_t **h, int64_t *nh)
{
    gs_status st = GS_OK;
    const int64_t nchunk = (nnz + CHUNK - 1) / CHUNK;
    int64_t *cnt = NULL, *v = NULL;
    GS_CHECK(gs_alloc_array((size_t)nchunk + 1, sizeof *cnt, "halo column counts", (void **)&cnt));
#pragma omp parallel for schedule(static) if (nnz > OMP_MIN)
    for (int64_t c = 0; c < nchunk; c++) {
        const int64_t q1 = (c + 1) * CHUNK < nnz ? (c + 1) * CHUNK : nnz;
        int64_t n = 0;
        for (int64_t q = c * CHUNK; q < q1; q++) n += !is_own(col[q], col0, ncols);
        cnt[c + 1] = n;
    }
    cnt[0] = 0;
    for (int64_t c = 0; c < nchunk; c++) cnt[c + 1] += cnt[c];
    GS_CHECK(gs_alloc_array((size_t)cnt[nchunk] + 1, sizeof *v, "halo columns", (void **)&v));
#pragma omp parallel for schedule(static) if (nnz > OMP_MIN)
    for (int64_t c = 0; c < nchunk; c++) {
        const int64_t q1 = (c + 1) * CHUNK < nnz ? (c + 1) * CHUNK : nnz;
        int64_t p = cnt[c];
        for (int64_t q = c * CHUNK; q < q1; q++)
            if (!is_own(col[q], col0, ncols)) v[p++] = col[q];
    }
    *nh = gs_dist_unique_i64(v, cnt[nchunk]);
    *h = v, v = NULL;
done:
    gs_free(cnt);
    gs_free(v);
    return st;
}

/* C = the rows with compact columns: own ones as j - col0 first, then ncols + the place in the
 * ascending halo list */
static gs_status host_compact(int32_t rows, const int64_t *rowptr, const int64_t *col,
                              const double *val, int64_t col0, int32_t ncols, gs_csr **C,
                              int64_t **halo, int32_t *nhalo)
{
    gs_status st = GS_OK;
    gs_csr *B = NULL;
    int64_t *h = NULL, nh = 0;
    *C = NULL, *halo = NULL, *nhalo = 0;
    if (rows < 0 || ncols < 0)
        GS_FAIL(GS_ERR_ARG, "compact: %d rows, %d own columns", (int)rows, (int)ncols);
    const int64_t nnz = rowptr[rows];
    if (nnz > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "compact: %lld entries (below 2^31)", (long long)nnz);
    GS_CHECK(collect_halo(nnz, col, col0, ncols, &h, &nh));
    if ((int64_t)ncols + nh > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "compact: %d own and %lld halo columns (below 2^31)",
                (int)ncols, (long long)nh);
    GS_CHECK(gs_csr_create(rows, ncols + nh, nnz, &B));
#pragma omp parallel for schedule(static) if (rows > OMP_MIN)
    for (int32_t i = 0; i <= rows; i++) B->rowptr[i] = (int32_t)rowptr[i];
#pragma omp parallel for schedule(static) if (nnz > OMP_MIN)
    for (int32_t i = 0; i < rows; i++) {
        /* own entries, then the others: each group ascending, so the row stays sorted */
        const int64_t q0 = rowptr[i], q1 = rowptr[i + 1];
        int32_t k = (int32_t)q0;
        for (int64_t q = q0; q < q1; q++)
            if (is_own(col[q], col0, ncols))
                B->colind[k] = (int32_t)(col[q] - col0), B->val[k++] = val[q];
        for (int64_t q = q0; q < q1; q++)
            if (!is_own(col[q], col0, ncols))
                B->colind[k] = ncols + (int32_t)gs_dist_find_i64(h, nh, col[q]),
                B->val[k++] = val[q];
    }
    *C = B, B = NULL;
    *halo = h, h = NULL;
    *nhalo = (int32_t)nh;
done:
    gs_csr_destroy(&B);
    gs_free(h);
    return st;
}

/* *out = the sorted distinct values of keys[0..n) (a copy: keys left as they are) */
static gs_status host_sort_unique(int64_t *keys, int64_t n, int64_t lo, int32_t nown,
                                  int64_t bound, int64_t **out, int64_t **dout, int64_t *m)
{
    gs_status st = GS_OK;
    int64_t *u = NULL, nu = 0;
    (void)bound;
    *out = NULL, *m = 0;
    if (dout) *dout = NULL;
    if (n < 0) GS_FAIL(GS_ERR_ARG, "sort_unique: %lld keys", (long long)n);
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *u, "unique keys", (void **)&u));
    for (int64_t i = 0; i < n; i++)
        if (!is_own(keys[i], lo, nown)) u[nu++] = keys[i];
    nu = gs_dist_unique_i64(u, nu);
    if (dout) GS_CHECK(gs_dist_copy_i64(u, nu, dout));
    *m = nu;
    *out = u, u = NULL;
done:
    gs_free(u);
    return st;
}

/* out[i] = g[i] - lo in the own window, else nown + the place of g[i] in map */
static gs_status host_map_cols(const int64_t *g, int64_t n, int64_t lo, int32_t nown,
                               const int64_t *map, int64_t m, int32_t *out)
{
#pragma omp parallel for schedule(static) if (n > OMP_MIN)
    for (int64_t i = 0; i < n; i++)
        out[i] = is_own(g[i], lo, nown) ? (int32_t)(g[i] - lo)
                                        : nown + (int32_t)gs_dist_find_i64(map, m, g[i]);
    return GS_OK;
}

static gs_status host_lengths(const gs_csr *A, double *len)
{
#pragma omp parallel for schedule(static) if (A->rows > OMP_MIN)
    for (int32_t i = 0; i < A->rows; i++) len[i] = (double)(A->rowptr[i + 1] - A->rowptr[i]);
    return GS_OK;
}

static gs_status host_offsets(int64_t n, const int32_t *ilen, const double *dlen, int64_t *off)
{
    off[0] = 0;
    for (int64_t i = 0; i < n; i++) off[i + 1] = off[i] + (ilen ? ilen[i] : (int64_t)dlen[i]);
    return GS_OK;
}

static gs_status host_row_index(int32_t rows, const int64_t *rowptr, const int32_t *map,
                                int32_t *ri)
{
#pragma omp parallel for schedule(static) if (rows > OMP_MIN)
    for (int32_t i = 0; i < rows; i++)
        for (int64_t q = rowptr[i]; q < rowptr[i + 1]; q++) ri[q] = map ? map[i] : i;
    return GS_OK;
}

static gs_status host_first_entry_rows(int64_t n, const double *g, const double *v,
                                       int64_t *rowptr, int64_t *gcol, double *val)
{
    int64_t ne = 0;
    rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        if (g[i] >= 0) gcol[ne] = (int64_t)g[i], val[ne++] = v[i];
        rowptr[i + 1] = ne;
    }
    return GS_OK;
}

static gs_status host_csr_from_rows(int32_t rows, int32_t cols, const int32_t *len, int64_t n,
                                   const int64_t *gcol, const double *val, gs_csr **C)
{
    gs_status st = GS_OK;
    gs_csr *A = NULL;
    *C = NULL;
    if (n > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "rows of %lld entries (below 2^31)", (long long)n);
    GS_CHECK(gs_csr_create(rows, cols, n, &A));
    A->rowptr[0] = 0;
    for (int32_t i = 0; i < rows; i++) A->rowptr[i + 1] = A->rowptr[i] + len[i];
    if (A->rowptr[rows] != n)
        GS_FAIL(GS_ERR_INTERNAL, "rows of %lld entries given %lld", (long long)A->rowptr[rows],
                (long long)n);
#pragma omp parallel for schedule(static) if (rows > OMP_MIN)
    for (int32_t i = 0; i < rows; i++) { /* each row sorted by column (insertion: the rows come
                                          * as a few sorted runs) */
        const int64_t q0 = A->rowptr[i], q1 = A->rowptr[i + 1];
        for (int64_t q = q0; q < q1; q++) {
            const int32_t c = (int32_t)gcol[q];
            const double x = val[q];
            int64_t p = q;
            for (; p > q0 && A->colind[p - 1] > c; p--) {
                A->colind[p] = A->colind[p - 1];
                A->val[p] = A->val[p - 1];
            }
            A->colind[p] = c, A->val[p] = x;
        }
    }
    *C = A, A = NULL;
done:
    gs_csr_destroy(&A);
    return st;
}

/* the own columns of C's rows, the halo's entries added into the diagonal (count, scan, fill) */
static gs_status host_lump_halo(const gs_csr *C, int32_t ncols, gs_csr **out)
{
    gs_status st = GS_OK;
    gs_csr *D = NULL;
    const int32_t rows = C->rows;
    int64_t nnz = 0;
    *out = NULL;
    for (int32_t i = 0; i < rows; i++) nnz += split_point(C, i, ncols) - C->rowptr[i];
    GS_CHECK(gs_csr_create(rows, ncols, nnz, &D));
    D->rowptr[0] = 0;
    for (int32_t i = 0; i < rows; i++)
        D->rowptr[i + 1] = D->rowptr[i] + split_point(C, i, ncols) - C->rowptr[i];
#pragma omp parallel for schedule(static) if (rows > OMP_MIN)
    for (int32_t i = 0; i < rows; i++) {
        const int32_t q0 = C->rowptr[i], qs = split_point(C, i, ncols), o = D->rowptr[i];
        double h = 0.0;
        int32_t diag = -1;
        for (int32_t q = qs; q < C->rowptr[i + 1]; q++) h += C->val[q];
        for (int32_t q = q0; q < qs; q++) {
            D->colind[o + q - q0] = C->colind[q];
            D->val[o + q - q0] = C->val[q];
            if (C->colind[q] == i) diag = o + q - q0;
        }
        if (diag >= 0) D->val[diag] += h;
    }
    *out = D, D = NULL;
done:
    gs_csr_destroy(&D);
    return st;
}

const gs_dist_ops gs_dist_host_ops = {
    .split = host_split,
    .upload_split = host_upload_split,
    .row_lengths = host_row_lengths,
    .pack_rows = host_pack_rows,
    .first_entry = host_first_entry,
    .scatter_add = host_scatter_add,
    .offd_add = host_offd_add,
    .compact = host_compact,
    .sort_unique = host_sort_unique,
    .map_cols = host_map_cols,
    .lengths = host_lengths,
    .offsets = host_offsets,
    .row_index = host_row_index,
    .csr_from_rows = host_csr_from_rows,
    .first_entry_rows = host_first_entry_rows,
    .lump_halo = host_lump_halo,
};

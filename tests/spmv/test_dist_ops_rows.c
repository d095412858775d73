/* The distributed setup's data-parallel steps (gs_dist_ops.h) on the rows and columns that
 * ranks exchange, reached through gs_backend_module(loc, GS_MODULE_DIST), against references
 * built here from triplets (gs_csr_from_coo) and plain loops, exact (test_dist_ops.c: split,
 * slices, stacking and sums): row lengths and row packing with and without a halo map, the
 * scatter-add, the off-diagonal product added into chosen rows (also signalled), the gather,
 * a CSR from rows given back to back, the compact column form of rows with global columns
 * (against triplets whose columns are numbered here, with own-column windows holding some,
 * none or all of the columns), the sorted distinct values of a list outside an own-column window
 * (repeats, sorted, empty, one, values above 2^32 and across 62 bits, every key own), global
 * columns to compact ones, and triplets to CSR (against gs_csr_from_coo: duplicates, sums of
 * zero, wide columns); random matrices with empty rows, and zero-row and zero-entry cases
 * throughout.
 *   test_dist_ops_rows [--gpu]   --gpu: the same through the device table, inputs uploaded and
 *   results downloaded (77 without a GPU). */
#include "test_dist_ops_util.h"

/* ---- the checks ---------------------------------------------------------------------------- */

/* row_lengths and pack_rows of n random rows (repeats allowed) of rows x (nown + nhalo) */
static void check_pack(int32_t rows, int32_t nown, int32_t nhalo, int64_t n, int per_row)
{
    char what[96];
    snprintf(what, sizeof what, "pack %lld rows of %d x (%d + %d)", (long long)n, rows, nown,
             nhalo);
    gs_csr *A = random_csr(rows, nown + nhalo, per_row), *dA = up(A);
    int32_t *idx = malloc((size_t)n * 4 + 4), *len = malloc((size_t)n * 4 + 4);
    int64_t *off = malloc((size_t)(n + 1) * 8), *gmap = malloc((size_t)nhalo * 8 + 8);
    const int64_t base = 1000000007LL;
    for (int64_t i = 0; i < n; i++) idx[i] = (int32_t)(next_u64() % (uint64_t)rows);
    for (int32_t h = 0; h < nhalo; h++) gmap[h] = 3 * base + 5 * h + (int64_t)(next_u64() % 5);
    int32_t *didx = put(idx, (size_t)n * 4), *dlen = room((size_t)n * 4);
    CHECK_OK(OPS->row_lengths(dA, n, didx, dlen));
    get(len, dlen, (size_t)n * 4);
    int ok = 1;
    off[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        ok = ok && len[i] == A->rowptr[idx[i] + 1] - A->rowptr[idx[i]];
        off[i + 1] = off[i] + A->rowptr[idx[i] + 1] - A->rowptr[idx[i]];
    }
    CHECK_MSG(ok, "%s: row lengths differ", what);
    const int64_t tot = off[n];
    int64_t *gcol = malloc((size_t)tot * 8 + 8), *doff = put(off, (size_t)(n + 1) * 8);
    double *val = malloc((size_t)tot * 8 + 8);
    int64_t *dgmap = nhalo > 0 ? put(gmap, (size_t)nhalo * 8) : NULL;
    int64_t *dgcol = room((size_t)tot * 8);
    double *dval = room((size_t)tot * 8);
    CHECK_OK(OPS->pack_rows(dA, n, didx, doff, base, nown, dgmap, dgcol, dval));
    get(gcol, dgcol, (size_t)tot * 8), get(val, dval, (size_t)tot * 8);
    for (int64_t i = 0, p = 0; ok && i < n; i++)
        for (int32_t q = A->rowptr[idx[i]]; ok && q < A->rowptr[idx[i] + 1]; q++, p++) {
            const int32_t j = A->colind[q];
            ok = gcol[p] == (j < nown ? base + j : gmap[j - nown]) && val[p] == A->val[q];
        }
    CHECK_MSG(ok, "%s (%s): packed rows differ", what, nhalo > 0 ? "gmap" : "no gmap");
    drop(didx), drop(dlen), drop(doff), drop(dgcol), drop(dval);
    if (dgmap) drop(dgmap);
    free(idx), free(len), free(off), free(gmap), free(gcol), free(val);
    gs_csr_destroy(&A), gs_csr_destroy(&dA);
}

/* row_lengths and pack_rows of every row in order (idx NULL), packed where A has them (off
 * NULL): the lengths are A's, the packed arrays A's columns (as global numbers) and values */
static void check_pack_all(int32_t rows, int32_t nown, int32_t nhalo, int per_row)
{
    char what[96];
    snprintf(what, sizeof what, "pack all rows of %d x (%d + %d)", rows, nown, nhalo);
    gs_csr *A = random_csr(rows, nown + nhalo, per_row), *dA = up(A);
    int32_t *len = malloc((size_t)rows * 4 + 4);
    int64_t *gmap = malloc((size_t)nhalo * 8 + 8), *gcol = malloc((size_t)A->nnz * 8 + 8);
    double *val = malloc((size_t)A->nnz * 8 + 8);
    const int64_t base = 1000000007LL;
    for (int32_t h = 0; h < nhalo; h++) gmap[h] = 3 * base + 5 * h + (int64_t)(next_u64() % 5);
    int32_t *dlen = room((size_t)rows * 4);
    int64_t *dgmap = nhalo > 0 ? put(gmap, (size_t)nhalo * 8) : NULL;
    int64_t *dgcol = room((size_t)A->nnz * 8);
    double *dval = room((size_t)A->nnz * 8);
    CHECK_OK(OPS->row_lengths(dA, rows, NULL, dlen));
    CHECK_OK(OPS->pack_rows(dA, rows, NULL, NULL, base, nown, dgmap, dgcol, dval));
    get(len, dlen, (size_t)rows * 4);
    get(gcol, dgcol, (size_t)A->nnz * 8), get(val, dval, (size_t)A->nnz * 8);
    int ok = 1;
    for (int32_t i = 0; i < rows; i++) ok = ok && len[i] == A->rowptr[i + 1] - A->rowptr[i];
    CHECK_MSG(ok, "%s: row lengths differ", what);
    for (int32_t q = 0; ok && q < A->nnz; q++) {
        const int32_t j = A->colind[q];
        ok = gcol[q] == (j < nown ? base + j : gmap[j - nown]) && val[q] == A->val[q];
    }
    CHECK_MSG(ok, "%s: packed rows differ", what);
    drop(dlen), drop(dgcol), drop(dval);
    if (dgmap) drop(dgmap);
    free(len), free(gmap), free(gcol), free(val);
    gs_csr_destroy(&A), gs_csr_destroy(&dA);
}

/* y[idx[i]] += x[i] for n distinct indices below m */
static void check_scatter(int64_t m, int64_t n)
{
    int32_t *perm = malloc((size_t)m * 4 + 4);
    double *x = malloc((size_t)n * 8 + 8), *y = malloc((size_t)m * 8 + 8);
    double *r = malloc((size_t)m * 8 + 8);
    for (int64_t i = 0; i < m; i++) perm[i] = (int32_t)i, y[i] = r[i] = rand_val();
    for (int64_t i = m - 1; i > 0; i--) { /* Fisher-Yates: the first n are distinct */
        int64_t k = (int64_t)(next_u64() % (uint64_t)(i + 1));
        int32_t t = perm[i];
        perm[i] = perm[k], perm[k] = t;
    }
    for (int64_t i = 0; i < n; i++) x[i] = rand_val(), r[perm[i]] += x[i];
    int32_t *didx = put(perm, (size_t)n * 4);
    double *dx = put(x, (size_t)n * 8), *dy = put(y, (size_t)m * 8);
    CHECK_OK(OPS->scatter_add(n, didx, dx, dy));
    get(y, dy, (size_t)m * 8);
    int ok = 1;
    for (int64_t i = 0; i < m; i++) ok = ok && y[i] == r[i];
    CHECK_MSG(ok, "scatter_add %lld of %lld: values differ", (long long)n, (long long)m);
    drop(didx), drop(dx), drop(dy);
    free(perm), free(x), free(y), free(r);
}

/* offd_add: a random off-diagonal block of n rows (nh halo columns) times the halo, added into
 * n distinct rows of y (m of them), against the sums in column order here: the host's to the
 * bit, the device's (sums in groups of lanes) to rounding. signals: through the signalled form
 * as product 7 (6 done), its neighbours' flags at 7 or past: every "ready" flag then holds 7,
 * the count of products done is 7 and the ticket is zero again */
static void check_offd_add_sg(int64_t m, int32_t n, int32_t nh, int per_row, int signals)
{
    enum { NB = 3 };
    const uint64_t done = 6, seq = 7, flags[NB] = {7, 9, 8}, zero[NB + 1] = {0, 0, 0, 0};
    uint64_t *dseq = NULL, *dflags = NULL, *dready = NULL, **dat = NULL;
    gs_halo_signals sg;
    if (signals) {
        uint64_t *at[NB];
        dseq = put(&done, sizeof done);
        dflags = put(flags, sizeof flags);
        dready = put(zero, sizeof zero); /* NB flags, then the ticket */
        for (int i = 0; i < NB; i++) at[i] = dready + i;
        dat = put(at, sizeof at);
        sg = (gs_halo_signals){NB, NB, dflags, dat, dseq, (unsigned *)(dready + NB)};
    }
    gs_csr *O = random_csr(n, nh, per_row), *dO = up(O);
    int32_t *perm = malloc((size_t)m * 4 + 4);
    double *xh = malloc((size_t)nh * 8 + 8), *y = malloc((size_t)m * 8 + 8);
    double *r = malloc((size_t)m * 8 + 8);
    for (int64_t i = 0; i < m; i++) perm[i] = (int32_t)i, y[i] = r[i] = rand_val();
    for (int64_t i = m - 1; i > 0; i--) {
        int64_t k = (int64_t)(next_u64() % (uint64_t)(i + 1));
        int32_t t = perm[i];
        perm[i] = perm[k], perm[k] = t;
    }
    for (int32_t j = 0; j < nh; j++) xh[j] = rand_val();
    for (int32_t i = 0; i < n; i++) {
        double sum = 0.0;
        for (int32_t q = O->rowptr[i]; q < O->rowptr[i + 1]; q++) sum += O->val[q] * xh[O->colind[q]];
        r[perm[i]] += sum;
    }
    int32_t *drows = put(perm, (size_t)n * 4);
    double *dx = put(xh, (size_t)nh * 8), *dy = put(y, (size_t)m * 8);
    CHECK_OK(OPS->offd_add(dO, drows, dx, dy, signals ? &sg : NULL));
    get(y, dy, (size_t)m * 8);
    int ok = 1;
    for (int64_t i = 0; i < m && ok; i++)
        ok = LOC == GS_LOC_HOST ? y[i] == r[i]
                                : fabs(y[i] - r[i]) <= 1e-13 * (1.0 + fabs(r[i])) * (per_row + 1);
    CHECK_MSG(ok, "offd_add of %d rows (%d a row) into %lld%s: values differ", (int)n, per_row,
              (long long)m, signals ? ", signalled" : "");
    if (signals) {
        uint64_t ready[NB + 1];
        get(ready, dready, sizeof ready);
        for (int i = 0; i < NB; i++)
            CHECK_MSG(ready[i] == seq, "offd_add of %d rows, signalled: ready flag %d holds "
                      "%llu, expected %llu", (int)n, i, (unsigned long long)ready[i],
                      (unsigned long long)seq);
        CHECK_MSG((unsigned)ready[NB] == 0, "offd_add of %d rows, signalled: ticket %u left",
                  (int)n, (unsigned)ready[NB]);
        uint64_t count = 0;
        get(&count, dseq, sizeof count);
        CHECK_MSG(count == seq, "offd_add of %d rows, signalled: %llu products counted done, "
                  "expected %llu", (int)n, (unsigned long long)count, (unsigned long long)seq);
        if (LOC == GS_LOC_HOST) { /* a neighbour behind: refused on the host, not waited for */
            uint64_t late[NB] = {7, 6, 8};
            memcpy(dflags, late, sizeof late);
            *dseq = done;
            CHECK_FAIL(OPS->offd_add(dO, drows, dx, dy, &sg), GS_ERR_INTERNAL, "has not sent");
        }
        drop(dseq), drop(dflags), drop(dready), drop(dat);
    }
    drop(drows), drop(dx), drop(dy);
    free(perm), free(xh), free(y), free(r);
    gs_csr_destroy(&O), gs_csr_destroy(&dO);
}

static void check_offd_add(int64_t m, int32_t n, int32_t nh, int per_row)
{
    check_offd_add_sg(m, n, nh, per_row, 0);
}

/* csr_from_rows: a random matrix's rows given back to back (lengths, int64 columns, values)
 * make the same matrix; with rot, each row's entries given rotated by a third of its length
 * (two sorted runs, as a gathered level's own and halo columns come), and sorted back */
static void check_csr_from_rows(int32_t rows, int32_t cols, int per_row, int rot)
{
    char what[96];
    snprintf(what, sizeof what, "csr_from_rows %d x %d (%d a row%s)", rows, cols, per_row,
             rot ? ", rotated" : "");
    gs_csr *A = random_csr(rows, cols, per_row), *C = NULL;
    int32_t *len = malloc((size_t)rows * 4 + 4);
    int64_t *g = malloc((size_t)A->nnz * 8 + 8);
    double *x = malloc((size_t)A->nnz * 8 + 8);
    for (int32_t i = 0; i < rows; i++) {
        const int32_t q0 = A->rowptr[i], k = A->rowptr[i + 1] - q0, sh = rot ? k / 3 : 0;
        len[i] = k;
        for (int32_t t = 0; t < k; t++) {
            g[q0 + t] = A->colind[q0 + (t + sh) % k];
            x[q0 + t] = A->val[q0 + (t + sh) % k];
        }
    }
    int32_t *dlen = put(len, (size_t)rows * 4);
    int64_t *dg = put(g, (size_t)A->nnz * 8);
    double *dv = put(x, (size_t)A->nnz * 8);
    CHECK_OK(OPS->csr_from_rows(rows, cols, dlen, A->nnz, dg, dv, &C));
    compare(C, A, what);
    gs_csr_destroy(&C);
    CHECK_FAIL(OPS->csr_from_rows(rows, cols, dlen, (int64_t)A->nnz + 1, dg, dv, &C),
               GS_ERR_INTERNAL, "given");
    CHECK(C == NULL);
    drop(dlen), drop(dg), drop(dv);
    free(len), free(g), free(x);
    gs_csr_destroy(&A);
}

/* the backend's gather (the halo values a rank sends): out[i] = x[idx[i]] */
static void check_gather(int64_t m, int64_t n)
{
    int32_t *idx = malloc((size_t)n * 4 + 4);
    double *x = malloc((size_t)m * 8 + 8), *out = malloc((size_t)n * 8 + 8);
    for (int64_t i = 0; i < m; i++) x[i] = rand_val();
    for (int64_t i = 0; i < n; i++) idx[i] = (int32_t)(next_u64() % (uint64_t)m);
    int32_t *didx = put(idx, (size_t)n * 4);
    double *dx = put(x, (size_t)m * 8), *dout = room((size_t)n * 8);
    CHECK_OK(gs_backend_get(LOC)->gather(n, didx, dx, dout));
    get(out, dout, (size_t)n * 8);
    int ok = 1;
    for (int64_t i = 0; i < n && ok; i++) ok = out[i] == x[idx[i]];
    CHECK_MSG(ok, "gather of %lld: values differ", (long long)n);
    drop(didx), drop(dx), drop(dout);
    free(idx), free(x), free(out);
}

/* rows x gcols with global columns: 0..2*per_row distinct ascending columns a row, every fifth
 * row empty */
static gs_gcsr *random_gcsr(int32_t rows, int64_t gcols, int per_row)
{
    gs_gcsr *A = NULL;
    int64_t cap = (int64_t)rows * 2 * per_row, n = 0;
    CHECK_OK(gs_gcsr_create(0, rows, rows, gcols, cap, &A));
    if (!A) return NULL;
    for (int32_t i = 0; i < rows; i++) {
        int len = i % 5 == 3 || gcols == 0 ? 0 : (int)(next_u64() % (uint64_t)(2 * per_row + 1));
        int64_t *c = A->col + n;
        for (int q = 0; q < len; q++) c[q] = (int64_t)(next_u64() % (uint64_t)gcols);
        n += gs_dist_unique_i64(c, len);
        for (int64_t q = A->rowptr[i]; q < n; q++) A->val[q] = rand_val();
        A->rowptr[i + 1] = n;
    }
    return A;
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* the reference compact form: the other columns sorted and made distinct here, every entry
 * renumbered (own: g - col0, other: ncols + its place) and the rows built from the triplets */
static gs_csr *ref_compact(const gs_gcsr *A, int64_t col0, int32_t ncols, int64_t **halo,
                           int32_t *nhalo)
{
    const int64_t nnz = A->rowptr[A->rows];
    int64_t *h = malloc((size_t)nnz * 8 + 8), nh = 0;
    for (int64_t q = 0; q < nnz; q++)
        if (A->col[q] < col0 || A->col[q] >= col0 + ncols) h[nh++] = A->col[q];
    qsort(h, (size_t)nh, 8, cmp_i64);
    int64_t m = 0;
    for (int64_t k = 0; k < nh; k++)
        if (m == 0 || h[k] != h[m - 1]) h[m++] = h[k];
    int32_t *ri = malloc((size_t)nnz * 4 + 4), *ci = malloc((size_t)nnz * 4 + 4);
    for (int32_t i = 0; i < A->rows; i++)
        for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            const int64_t g = A->col[q];
            ri[q] = i;
            if (g >= col0 && g < col0 + ncols) {
                ci[q] = (int32_t)(g - col0);
            } else {
                const int64_t *at = bsearch(&g, h, (size_t)m, 8, cmp_i64);
                ci[q] = ncols + (int32_t)(at - h);
            }
        }
    gs_csr *R = from_triplets(A->rows, (int64_t)ncols + m, nnz, ri, ci, A->val);
    free(ri), free(ci);
    *halo = h;
    *nhalo = (int32_t)m;
    return R;
}

/* compact of A's rows with own columns [col0, col0 + ncols) against ref_compact */
static void check_compact_of(const gs_gcsr *A, int64_t col0, int32_t ncols)
{
    char what[128];
    snprintf(what, sizeof what, "compact %d rows (%lld entries), own [%lld, %lld)", A->rows,
             (long long)A->rowptr[A->rows], (long long)col0, (long long)(col0 + ncols));
    const int64_t nnz = A->rowptr[A->rows];
    gs_csr *R = NULL, *C = NULL;
    int64_t *rh = NULL, *hh = NULL;
    int32_t rnh = 0, nh = -1;
    R = ref_compact(A, col0, ncols, &rh, &rnh);
    int64_t *drp = put(A->rowptr, ((size_t)A->rows + 1) * 8), *dcol = put(A->col, (size_t)nnz * 8);
    double *dval = put(A->val, (size_t)nnz * 8);
    CHECK_OK(OPS->compact(A->rows, drp, dcol, dval, col0, ncols, &C, &hh, &nh));
    if (R) compare(C, R, what);
    int ok = hh != NULL && nh == rnh;
    CHECK_MSG(ok, "%s: %d halo columns, expected %d", what, (int)nh, (int)rnh);
    for (int32_t k = 0; ok && k < rnh; k++) ok = hh[k] == rh[k];
    CHECK_MSG(ok, "%s: halo columns differ", what);
    drop(drp), drop(dcol), drop(dval);
    gs_csr_destroy(&R), gs_csr_destroy(&C), free(rh), gs_free(hh);
}

static void check_compact(int32_t rows, int64_t gcols, int per_row)
{
    gs_gcsr *A = random_gcsr(rows, gcols, per_row);
    if (!A) return;
    check_compact_of(A, gcols / 3, (int32_t)(gcols / 4));         /* a window in the middle */
    check_compact_of(A, 0, (int32_t)(gcols / 2));                 /* at the start */
    check_compact_of(A, gcols - gcols / 5, (int32_t)(gcols / 5)); /* at the end */
    check_compact_of(A, gcols / 2, 0);                            /* none own */
    check_compact_of(A, 0, (int32_t)gcols);                       /* all own */
    check_compact_of(A, gcols + 10, 7); /* beyond every column: none own */
    gs_gcsr_destroy(&A);
}

/* ncols + nhalo reaching 2^31 is refused, with nothing returned */
static void check_compact_refusal(void)
{
    gs_gcsr *A = random_gcsr(20, 100, 3);
    if (!A) return;
    const int64_t nnz = A->rowptr[A->rows];
    int64_t *drp = put(A->rowptr, ((size_t)A->rows + 1) * 8), *dcol = put(A->col, (size_t)nnz * 8);
    double *dval = put(A->val, (size_t)nnz * 8);
    int64_t *hh = NULL;
    gs_csr *C = NULL;
    int32_t nh = -1;
    CHECK(nnz > 0);
    CHECK_FAIL(OPS->compact(A->rows, drp, dcol, dval, 1000, INT32_MAX, &C, &hh, &nh),
               GS_ERR_UNSUPPORTED, "2^31");
    CHECK(C == NULL && hh == NULL && nh == 0);
    drop(drp), drop(dcol), drop(dval);
    gs_gcsr_destroy(&A);
}

/* the sorted distinct values of keys[0..n) outside [lo, lo + nown) (a copy sorted here: the
 * reference) against sort_unique's host and device lists */
static void check_sort_unique_of(const int64_t *keys, int64_t n, int64_t lo, int32_t nown,
                                 int64_t bound, const char *what)
{
    int64_t *r = malloc((size_t)n * 8 + 8), *dk = put(keys, (size_t)n * 8), *u = NULL, m = -1,
            nr = 0, *du = NULL;
    for (int64_t i = 0; i < n; i++)
        if (keys[i] < lo || keys[i] >= lo + nown) r[nr++] = keys[i];
    qsort(r, (size_t)nr, 8, cmp_i64);
    int64_t nd = 0;
    for (int64_t i = 0; i < nr; i++)
        if (nd == 0 || r[i] != r[nd - 1]) r[nd++] = r[i];
    CHECK_OK(OPS->sort_unique(dk, n, lo, nown, bound, &u, &du, &m));
    int ok = u != NULL && du != NULL && m == nd;
    CHECK_MSG(ok, "sort_unique %s: %lld values, expected %lld", what, (long long)m, (long long)nd);
    for (int64_t i = 0; ok && i < nd; i++) ok = u[i] == r[i];
    CHECK_MSG(ok, "sort_unique %s: values differ", what);
    if (ok && nd > 0) {
        int64_t *h = malloc((size_t)nd * 8);
        get(h, du, (size_t)nd * 8);
        for (int64_t i = 0; ok && i < nd; i++) ok = h[i] == r[i];
        CHECK_MSG(ok, "sort_unique %s: the copy where the keys live differs", what);
        free(h);
    }
    gs_free(u), u = NULL;
    drop(du), drop(dk);
    dk = put(keys, (size_t)n * 8); /* without the second copy */
    CHECK_OK(OPS->sort_unique(dk, n, lo, nown, bound, &u, NULL, &m));
    CHECK_MSG(u != NULL && m == nd, "sort_unique %s without its copy: %lld values", what,
              (long long)m);
    drop(dk), free(r), gs_free(u);
}

/* n keys base + (0..range) in random order, or base + 0, 3, 6, ... ascending (sorted), those in
 * [lo, lo + nown) left out */
static void check_sort_unique(int64_t n, int64_t base, uint64_t range, int sorted, int64_t lo,
                              int32_t nown)
{
    char what[128];
    snprintf(what, sizeof what, "of %lld keys (base %lld, range %llu%s, own [%lld, +%d))",
             (long long)n, (long long)base, (unsigned long long)range, sorted ? ", sorted" : "",
             (long long)lo, (int)nown);
    int64_t *k = malloc((size_t)n * 8 + 8), bound = 1;
    for (int64_t i = 0; i < n; i++) {
        k[i] = base + (sorted ? 3 * i : (int64_t)(next_u64() % range));
        if (k[i] + 1 > bound) bound = k[i] + 1;
    }
    check_sort_unique_of(k, n, lo, nown, bound, what);
    free(k);
}

/* n global columns, about half in the own window [lo, lo + nown), the others from a map of
 * about m ascending columns outside it */
static void check_map_cols(int64_t n, int64_t lo, int32_t nown, int64_t m)
{
    char what[96];
    snprintf(what, sizeof what, "map_cols %lld columns, own [%lld, %lld), map of ~%lld",
             (long long)n, (long long)lo, (long long)(lo + nown), (long long)m);
    int64_t *map = malloc((size_t)m * 8 + 8), *g = malloc((size_t)n * 8 + 8), nm = 0;
    int32_t *out = malloc((size_t)n * 4 + 4), *ref = malloc((size_t)n * 4 + 4);
    for (int64_t k = 0, c = 0; k < m; k++) { /* gaps of 1..5, stepping over the window */
        c += 1 + (int64_t)(next_u64() % 5);
        if (c >= lo && c < lo + nown) c = lo + nown + (int64_t)(next_u64() % 3);
        map[nm++] = c;
    }
    for (int64_t i = 0; i < n; i++) {
        const int own = nm == 0 || (nown > 0 && next_u64() % 2 == 0);
        const int64_t k = nm > 0 ? (int64_t)(next_u64() % (uint64_t)nm) : 0;
        const int32_t j = nown > 0 ? (int32_t)(next_u64() % (uint64_t)nown) : 0;
        g[i] = own ? lo + j : map[k];
        ref[i] = own ? j : nown + (int32_t)k;
    }
    int64_t *dg = put(g, (size_t)n * 8), *dmap = put(map, (size_t)nm * 8);
    int32_t *dout = room((size_t)n * 4);
    CHECK_OK(OPS->map_cols(dg, n, lo, nown, dmap, nm, dout));
    get(out, dout, (size_t)n * 4);
    int ok = 1;
    for (int64_t i = 0; ok && i < n; i++) ok = out[i] == ref[i];
    CHECK_MSG(ok, "%s: compact columns differ", what);
    drop(dg), drop(dmap), drop(dout);
    free(map), free(g), free(out), free(ref);
}

/* coo_csr of the triplets against gs_csr_from_coo */
static void check_coo_of(int32_t rows, int32_t cols, int64_t n, const int32_t *ri,
                         const int32_t *ci, const double *v, const char *what)
{
    gs_csr *R = from_triplets(rows, cols, n, ri, ci, v), *C = NULL;
    int32_t *dri = put(ri, (size_t)n * 4), *dci = put(ci, (size_t)n * 4);
    double *dv = put(v, (size_t)n * 8);
    CHECK_OK(gs_sparse_coo_csr(LOC, rows, cols, n, dri, dci, dv, &C));
    if (R) compare(C, R, what);
    drop(dri), drop(dci), drop(dv);
    gs_csr_destroy(&C), gs_csr_destroy(&R);
}

/* n random triplets of rows x cols in random order, every fifth row empty, columns drawn from
 * spread (<= cols) of them so that small spreads repeat; with cancel, each of the first half's
 * entries followed later by its negation (sums of zero, kept) */
static void check_coo(int32_t rows, int32_t cols, int64_t n, int32_t spread, int cancel)
{
    char what[128];
    snprintf(what, sizeof what, "coo_csr %d x %d from %lld triplets (columns from %d%s)", rows,
             cols, (long long)n, spread, cancel ? ", cancelling" : "");
    int64_t tot = cancel ? n + n / 2 : n;
    int32_t *ri = malloc((size_t)tot * 4 + 4), *ci = malloc((size_t)tot * 4 + 4);
    double *v = malloc((size_t)tot * 8 + 8);
    for (int64_t q = 0; q < n && rows > 0; q++) {
        int32_t i = (int32_t)(next_u64() % (uint64_t)rows);
        if (i % 5 == 3) i = rows > 4 ? i - 1 : 0;
        ri[q] = i;
        ci[q] = (int32_t)((next_u64() % (uint64_t)spread) * (uint64_t)(cols / spread));
        v[q] = rand_val();
    }
    for (int64_t q = n; q < tot; q++) ri[q] = ri[q - n], ci[q] = ci[q - n], v[q] = -v[q - n];
    check_coo_of(rows, cols, rows > 0 ? tot : 0, ri, ci, v, what);
    free(ri), free(ci), free(v);
}

int main(int argc, char **argv)
{
    const int st = dist_ops_start(argc, argv);
    if (st == 77) return 77;
    if (st) return gs_test_result("test_dist_ops_rows");

    check_pack(300, 200, 60, 80, 5);
    check_pack(300, 260, 0, 80, 5); /* gmap NULL: every column own */
    check_pack(300, 200, 60, 0, 5); /* no rows asked for */
    check_pack(40, 20, 10, 25, 0);  /* empty rows */
    check_pack(5000, 3000, 900, 4000, 8);
    check_pack(1500, 4000, 1200, 2000, 45); /* long rows */
    check_pack_all(300, 200, 60, 5);
    check_pack_all(300, 260, 0, 5);        /* gmap NULL: every column own */
    check_pack_all(40, 20, 10, 0);         /* empty rows */
    check_pack_all(1500, 4000, 1200, 45);  /* long rows */

    check_scatter(1000, 300);
    check_scatter(1000, 1000);
    check_scatter(10, 0);
    check_scatter(200000, 150000); /* above the host's OpenMP threshold */
    check_offd_add(1000, 300, 50, 3);
    check_offd_add(5000, 2000, 400, 40);     /* long rows: groups of lanes */
    check_offd_add(10, 0, 5, 2);             /* no rows */
    check_offd_add(300000, 200000, 9000, 6); /* above the host's OpenMP threshold */
    check_offd_add_sg(1000, 300, 50, 3, 1);   /* waits and "ready" in the same call */
    check_offd_add_sg(5000, 2000, 400, 40, 1);
    check_offd_add_sg(300000, 200000, 9000, 6, 1); /* many blocks: the last one signals */
    check_offd_add_sg(10, 0, 5, 2, 1);             /* no rows: still waits and signals */
    check_csr_from_rows(300, 200, 4, 0);
    check_csr_from_rows(2000, 50000, 40, 0);
    check_csr_from_rows(0, 10, 3, 0);
    check_csr_from_rows(300, 200, 4, 1);
    check_csr_from_rows(2000, 50000, 40, 1);
    check_gather(1000, 300);
    check_gather(10, 0); /* nothing to gather */
    check_gather(300000, 200000);

    check_compact(300, 1000, 5);
    check_compact(40, 30, 4);        /* dense: most columns in most rows */
    check_compact(60, 500, 0);       /* no entries */
    check_compact(0, 100, 3);        /* no rows */
    check_compact(30000, 200000, 6); /* above the host's OpenMP thresholds */
    check_compact_refusal();

    check_sort_unique(1000, 0, 50, 0, 0, 0);               /* repeats */
    check_sort_unique(5000, 7, 0, 1, 0, 0);                /* already sorted, distinct */
    check_sort_unique(0, 0, 1, 0, 0, 0);                   /* none */
    check_sort_unique(1, 123456789, 1, 0, 0, 0);           /* one */
    check_sort_unique(200000, 5LL << 40, 37, 0, 0, 0);     /* many, few distinct, above 2^32 */
    check_sort_unique(100000, 0, 1ULL << 62, 0, 0, 0);     /* wide: all 62 bits sorted */
    check_sort_unique(300000, 1LL << 33, 150000, 0, 0, 0); /* above the host's OpenMP threshold */
    check_sort_unique(300000, 0, 400000, 0, 100000, 150000); /* the own window left out */
    check_sort_unique(5000, 10, 0, 1, 0, 1 << 30);         /* every key own: none */
    check_sort_unique(70000, 1000, 3000, 0, 1000, 1);      /* one own column */

    check_map_cols(1000, 5000, 300, 400);    /* window between map columns */
    check_map_cols(1000, 0, 300, 400);       /* window at the start */
    check_map_cols(1000, 3LL << 32, 0, 400); /* none own */
    check_map_cols(1000, 1LL << 35, 300, 0); /* all own, no map */
    check_map_cols(0, 10, 5, 20);
    check_map_cols(200000, 1LL << 34, 90000, 60000); /* above the host's OpenMP threshold */

    check_coo(200, 150, 2000, 150, 0);      /* duplicates */
    check_coo(200, 150, 3000, 7, 0);        /* many duplicates a row */
    check_coo(200, 150, 2000, 150, 1);      /* cancellations to zero, kept */
    check_coo(1, 1, 9, 1, 1);               /* one entry: keys of no bits */
    check_coo(7, 1000003, 500, 1000003, 0); /* wide columns */
    check_coo(40, 30, 0, 1, 0);             /* no triplets */
    check_coo(0, 30, 0, 1, 0);              /* no rows */
    check_coo(0, 0, 0, 1, 0);
    check_coo(3000, 2500, 100000, 2500, 1); /* 150000 triplets */

    return gs_test_result(LOC == GS_LOC_HOST ? "test_dist_ops_rows" : "test_dist_ops_rows --gpu");
}

/* The distributed setup's data-parallel steps (gs_dist_ops.h), reached through
 * gs_backend_module(loc, GS_MODULE_DIST), against references built here from triplets
 * (gs_csr_from_coo) and plain loops, pattern and values exact: split of a compact matrix, column
 * remap with an increasing map (rows stay sorted), row slices (empty ones too), stacking with
 * differing column counts, sums with overlapping, disjoint and cancelling patterns, row lengths,
 * row packing with and without a halo map, the non-empty rows, the scatter-add, the
 * off-diagonal product added into chosen rows, the gather with its product count, a CSR from
 * rows given back to back, and the
 * compact column form of rows with global columns (against triplets whose columns are numbered
 * here, with own-column windows holding some, none or all of the columns), the sorted distinct
 * values of a list outside an own-column window (repeats, sorted, empty, one, values above 2^32
 * and across 62 bits, every key own), each entry's row from offsets (with and without a row
 * map), global columns to compact ones, and
 * triplets to CSR (against gs_csr_from_coo: duplicates, sums of zero, wide columns); random
 * matrices with empty rows, and zero-row and zero-entry cases throughout.
 *   test_dist_ops [--gpu]   --gpu: the same through the device table, inputs uploaded and
 *   results downloaded (77 without a GPU). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_dist.h"
#include "gs_dist_ops.h"
#include "gs_knob.h"
#include "gs_test.h"

static gs_loc LOC = GS_LOC_HOST;
static const gs_dist_ops *OPS;

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next_u64(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* a dyadic value in [-4, 4): every sum of two is exact */
static double rand_val(void)
{
    return (double)(int64_t)(next_u64() % 64) / 8.0 - 4.0;
}

/* ---- matrices and arrays at LOC ---------------------------------------------------------- */

static gs_csr *from_triplets(int64_t rows, int64_t cols, int64_t n, const int32_t *ri,
                             const int32_t *ci, const double *v)
{
    gs_csr *A = NULL;
    CHECK_OK(gs_csr_from_coo(rows, cols, n, ri, ci, v, &A));
    return A;
}

/* random rows x cols (cols > 0 unless per_row == 0), 0..2*per_row entries a row, every fifth
 * row empty */
static gs_csr *random_csr(int32_t rows, int32_t cols, int per_row)
{
    int64_t cap = (int64_t)rows * (2 * per_row + 1) + 1, n = 0;
    int32_t *ri = malloc((size_t)cap * 4), *ci = malloc((size_t)cap * 4);
    double *v = malloc((size_t)cap * 8);
    for (int32_t i = 0; i < rows && cols > 0; i++) {
        if (i % 5 == 3) continue;
        int len = (int)(next_u64() % (uint64_t)(2 * per_row + 1));
        for (int q = 0; q < len; q++, n++)
            ri[n] = i, ci[n] = (int32_t)(next_u64() % (uint64_t)cols), v[n] = rand_val();
    }
    gs_csr *A = from_triplets(rows, cols, n, ri, ci, v);
    free(ri), free(ci), free(v);
    return A;
}

/* A's entries as triplets (arrays of A->nnz + 1) */
static void triplets(const gs_csr *A, int32_t **ri, int32_t **ci, double **v)
{
    *ri = malloc((size_t)A->nnz * 4 + 4), *ci = malloc((size_t)A->nnz * 4 + 4);
    *v = malloc((size_t)A->nnz * 8 + 8);
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
            (*ri)[q] = i, (*ci)[q] = A->colind[q], (*v)[q] = A->val[q];
}

/* A's triplets, then B's with their rows moved down by boff; their count */
static int32_t both_triplets(const gs_csr *A, const gs_csr *B, int32_t boff, int32_t **ri,
                             int32_t **ci, double **v)
{
    const int32_t n = A->nnz + B->nnz;
    int32_t *bri, *bci;
    double *bv;
    triplets(A, ri, ci, v), triplets(B, &bri, &bci, &bv);
    *ri = realloc(*ri, (size_t)n * 4 + 4), *ci = realloc(*ci, (size_t)n * 4 + 4);
    *v = realloc(*v, (size_t)n * 8 + 8);
    for (int32_t q = 0; q < B->nnz; q++)
        (*ri)[A->nnz + q] = boff + bri[q], (*ci)[A->nnz + q] = bci[q], (*v)[A->nnz + q] = bv[q];
    free(bri), free(bci), free(bv);
    return n;
}

static gs_csr *up(const gs_csr *A)
{
    gs_csr *D = NULL;
    CHECK_OK(gs_csr_upload(A, LOC, &D));
    return D;
}

/* a copy of host array h (bytes) at LOC */
static void *put(const void *h, size_t bytes)
{
    const gs_backend_ops *b = gs_backend_get(LOC);
    void *p = NULL;
    CHECK_OK(b->alloc(bytes ? bytes : 1, "test array", &p));
    if (p && bytes) CHECK_OK(b->put(p, h, bytes));
    return p;
}

/* an unfilled array of bytes at LOC */
static void *room(size_t bytes)
{
    void *p = NULL;
    CHECK_OK(gs_backend_get(LOC)->alloc(bytes ? bytes : 1, "test output", &p));
    return p;
}

static void get(void *h, const void *p, size_t bytes)
{
    if (bytes) CHECK_OK(gs_backend_get(LOC)->get(h, p, bytes));
}

static void drop(void *p)
{
    gs_backend_get(LOC)->free(p);
}

/* C (at LOC, may be NULL after a failure) equals host R exactly; its rows sorted */
static void compare(const gs_csr *C, const gs_csr *R, const char *what)
{
    gs_csr *H = NULL;
    CHECK_MSG(C != NULL, "%s: no result", what);
    if (!C) return;
    CHECK_MSG(C->loc == LOC, "%s: result at the wrong location", what);
    CHECK_OK(gs_csr_download(C, &H));
    if (!H) return;
    int ok = H->rows == R->rows && H->cols == R->cols && H->nnz == R->nnz;
    CHECK_MSG(ok, "%s: %d x %d, nnz %d; expected %d x %d, nnz %d", what, H->rows, H->cols, H->nnz,
              R->rows, R->cols, R->nnz);
    for (int32_t i = 0; ok && i <= R->rows; i++) ok = H->rowptr[i] == R->rowptr[i];
    for (int32_t q = 0; ok && q < R->nnz; q++) ok = H->colind[q] == R->colind[q];
    CHECK_MSG(ok, "%s: pattern differs", what);
    for (int32_t q = 0; ok && q < R->nnz; q++) ok = H->val[q] == R->val[q];
    CHECK_MSG(ok, "%s: values differ", what);
    CHECK_OK(gs_csr_validate(H, what)); /* in range, rows sorted */
    gs_csr_destroy(&H);
}

/* ---- the checks ---------------------------------------------------------------------------- */

/* split of rows x (ncols + nhalo): diag, and offd in the rows with halo entries alone, their
 * indices */
static void check_split(int32_t rows, int32_t ncols, int32_t nhalo, int per_row)
{
    char what[96];
    snprintf(what, sizeof what, "split %d x (%d + %d), %d a row", rows, ncols, nhalo, per_row);
    gs_csr *C = random_csr(rows, ncols + nhalo, per_row), *dC = up(C), *D = NULL, *O = NULL;
    int32_t *ri, *ci, nd = 0, no = 0, nr = 0, got_nr = -1, *dorow = NULL;
    double *v;
    triplets(C, &ri, &ci, &v);
    int32_t *dri = malloc((size_t)C->nnz * 4 + 4), *dci = malloc((size_t)C->nnz * 4 + 4);
    int32_t *ori = malloc((size_t)C->nnz * 4 + 4), *oci = malloc((size_t)C->nnz * 4 + 4);
    int32_t *want = malloc((size_t)rows * 4 + 4), *place = malloc((size_t)rows * 4 + 4);
    double *dv = malloc((size_t)C->nnz * 8 + 8), *ov = malloc((size_t)C->nnz * 8 + 8);
    for (int32_t i = 0; i < rows; i++) place[i] = -1;
    for (int32_t q = 0; q < C->nnz; q++) /* triplets in row order */
        if (ci[q] >= ncols && place[ri[q]] < 0) place[ri[q]] = nr, want[nr++] = ri[q];
    for (int32_t q = 0; q < C->nnz; q++) {
        if (ci[q] < ncols)
            dri[nd] = ri[q], dci[nd] = ci[q], dv[nd++] = v[q];
        else
            ori[no] = place[ri[q]], oci[no] = ci[q] - ncols, ov[no++] = v[q];
    }
    gs_csr *RD = from_triplets(rows, ncols, nd, dri, dci, dv);
    gs_csr *RO = from_triplets(nr, nhalo, no, ori, oci, ov);
    CHECK_OK(OPS->split(dC, ncols, nhalo, &D, &O, &got_nr, &dorow));
    compare(D, RD, what);
    if (nhalo > 0) {
        CHECK_MSG(got_nr == nr, "%s: %d rows with halo entries, expected %d", what, got_nr, nr);
        if (got_nr == nr && dorow) {
            int32_t *orow = malloc((size_t)nr * 4 + 4);
            get(orow, dorow, (size_t)nr * 4);
            int ok = 1;
            for (int32_t k = 0; k < nr; k++) ok = ok && orow[k] == want[k];
            CHECK_MSG(ok, "%s: the rows with halo entries differ", what);
            free(orow);
        }
        compare(O, RO, what);
    } else {
        CHECK_MSG(O == NULL && dorow == NULL, "%s: offd made without halo columns", what);
    }
    if (dorow) drop(dorow);
    gs_csr_destroy(&D), gs_csr_destroy(&O), gs_csr_destroy(&RD), gs_csr_destroy(&RO);
    gs_csr_destroy(&C), gs_csr_destroy(&dC);
    free(ri), free(ci), free(v), free(dri), free(dci), free(dv), free(ori), free(oci), free(ov);
    free(want), free(place);
}

static int g_meanwhile_runs;
static gs_status count_meanwhile(void *arg)
{
    (void)arg;
    g_meanwhile_runs++;
    return GS_OK;
}

/* upload_split of host rows C (ncols + nhalo columns): C itself and split's blocks at LOC, the
 * host work run once; part > 0: the device in parts of that many entries (as many parts as C
 * has rows, or one row holding most entries: parts with no rows of their own) */
static void check_upload_split_of(gs_csr *C, int32_t ncols, int32_t nhalo, long part)
{
    char what[128], env[32];
    snprintf(what, sizeof what, "upload and split %d x (%d + %d), %d entries, parts of %ld",
             C->rows, ncols, nhalo, C->nnz, part);
    gs_csr *dC = up(C), *D = NULL, *O = NULL, *M = NULL, *D2 = NULL, *O2 = NULL;
    int32_t nr = -1, nr2 = -2, *orow = NULL, *orow2 = NULL;
    CHECK_OK(OPS->split(dC, ncols, nhalo, &D, &O, &nr, &orow)); /* the reference */
    snprintf(env, sizeof env, "%ld", part);
    if (part > 0) gs_knob_set("GSOLVE_UPLOAD_SPLIT_PART", env);
    g_meanwhile_runs = 0;
    CHECK_OK(OPS->upload_split(C, ncols, nhalo, count_meanwhile, NULL, &M, &D2, &O2, &nr2, &orow2));
    gs_knob_set("GSOLVE_UPLOAD_SPLIT_PART", NULL);
    CHECK_MSG(g_meanwhile_runs == 1, "%s: the host work ran %d times", what, g_meanwhile_runs);
    compare(M, C, what);
    gs_csr *HD = NULL, *HO = NULL;
    if (D) CHECK_OK(gs_csr_download(D, &HD));
    if (HD) compare(D2, HD, what);
    CHECK_MSG(nr2 == (nhalo > 0 ? nr : 0), "%s: %d rows with halo entries, expected %d", what,
              nr2, nr);
    if (nhalo > 0 && O && nr2 == nr) {
        CHECK_OK(gs_csr_download(O, &HO));
        if (HO) compare(O2, HO, what);
        int32_t *a = malloc((size_t)nr * 4 + 4), *b = malloc((size_t)nr * 4 + 4);
        get(a, orow, (size_t)nr * 4), get(b, orow2, (size_t)nr * 4);
        CHECK_MSG(memcmp(a, b, (size_t)nr * 4) == 0, "%s: the rows with halo entries differ",
                  what);
        free(a), free(b);
    } else if (nhalo == 0) {
        CHECK_MSG(O2 == NULL && orow2 == NULL, "%s: offd made without halo columns", what);
    }
    if (orow) drop(orow);
    if (orow2) drop(orow2);
    gs_csr_destroy(&HD), gs_csr_destroy(&HO);
    gs_csr_destroy(&D), gs_csr_destroy(&O), gs_csr_destroy(&D2), gs_csr_destroy(&O2);
    gs_csr_destroy(&M), gs_csr_destroy(&dC);
}

static void check_upload_split(int32_t rows, int32_t ncols, int32_t nhalo, int per_row, long part)
{
    gs_csr *C = random_csr(rows, ncols + nhalo, per_row);
    check_upload_split_of(C, ncols, nhalo, part);
    gs_csr_destroy(&C);
}

/* row 1 holds most entries: the parts after it have no rows left */
static void check_upload_split_skewed(int32_t rows, int32_t ncols, int32_t nhalo, long part)
{
    const int64_t big = 40 * part, n = big + 2 * (int64_t)rows;
    int32_t *ri = malloc((size_t)n * 4), *ci = malloc((size_t)n * 4);
    double *v = malloc((size_t)n * 8);
    int64_t k = 0;
    for (int64_t q = 0; q < big; q++)
        ri[k] = 1, ci[k] = (int32_t)(q % (ncols + nhalo)), v[k++] = rand_val();
    for (int32_t i = 0; i < rows; i++)
        for (int t = 0; t < 2; t++) {
            ri[k] = i, ci[k] = (int32_t)(next_u64() % (uint64_t)(ncols + nhalo));
            v[k++] = rand_val();
        }
    gs_csr *C = from_triplets(rows, ncols + nhalo, k, ri, ci, v);
    free(ri), free(ci), free(v);
    check_upload_split_of(C, ncols, nhalo, part);
    gs_csr_destroy(&C);
}

/* gs_knob_i64, which reads the part size above (and the plan lists' threshold): a whole decimal
 * integer of at least min, else the fallback; an unknown knob is refused */
static void check_env_i64(void)
{
    static const struct {
        const char *val; /* NULL: unset */
        int64_t min, want;
    } c[] = {
        {NULL, 1, -7},                     /* unset */
        {"", 1, -7},                       /* empty */
        {"12", 1, 12},
        {"0", 0, 0},                       /* at min */
        {"0", 1, -7},                      /* below min */
        {"-3", 0, -7},
        {"12x", 1, -7},                    /* trailing characters */
        {"x", 0, -7},                      /* not a number */
        {" 5", 1, 5},                      /* leading blanks, as strtoll takes them */
        {"9000000000", 0, 9000000000LL},   /* beyond 32 bits */
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        if (c[i].val)
            CHECK(gs_knob_set("GSOLVE_UPLOAD_SPLIT_PART", c[i].val) == GS_OK);
        else
            CHECK(gs_knob_set("GSOLVE_UPLOAD_SPLIT_PART", NULL) == GS_OK);
        const int64_t got = gs_knob_i64("GSOLVE_UPLOAD_SPLIT_PART", c[i].min, -7);
        CHECK_MSG(got == c[i].want, "gs_knob_i64(\"%s\", min %lld): %lld, expected %lld",
                  c[i].val ? c[i].val : "(unset)", (long long)c[i].min, (long long)got,
                  (long long)c[i].want);
    }
    CHECK(gs_knob_set("GSOLVE_UPLOAD_SPLIT_PART", NULL) == GS_OK);
    gs_error_clear();
    CHECK(gs_knob_set("GSOLVE_NO_SUCH_KNOB", "1") == GS_ERR_ARG);
    CHECK(strstr(gs_error_message(), "GSOLVE_NO_SUCH_KNOB") != NULL);
    gs_error_clear();
}

/* an increasing map of nhalo columns from nown on into [nown, cols), cols >= nown + nhalo (the
 * gaps spread over it) */
static int32_t *random_map(int32_t nown, int32_t nhalo, int32_t cols)
{
    int32_t *map = malloc((size_t)nhalo * 4 + 4);
    int32_t spare = cols - nown - nhalo;
    for (int32_t h = 0, j = nown; h < nhalo; h++, j++) {
        int32_t gap = spare > 0 ? (int32_t)(next_u64() % (uint64_t)(spare + 1)) : 0;
        spare -= gap, j += gap;
        map[h] = j;
    }
    return map;
}

/* A with its columns j >= nown renumbered map[j - nown], cols columns (built here) */
static gs_csr *remapped(const gs_csr *A, int32_t nown, const int32_t *map, int32_t cols)
{
    int32_t *ri, *ci;
    double *v;
    triplets(A, &ri, &ci, &v);
    for (int32_t q = 0; q < A->nnz; q++)
        if (ci[q] >= nown) ci[q] = map[ci[q] - nown];
    gs_csr *R = from_triplets(A->rows, cols, A->nnz, ri, ci, v);
    free(ri), free(ci), free(v);
    return R;
}

static void check_slice(const gs_csr *A, const gs_csr *dA, int32_t r0, int32_t r1)
{
    char what[96];
    snprintf(what, sizeof what, "row slice [%d, %d) of %d rows", r0, r1, A->rows);
    int32_t *ri, *ci, n = 0;
    double *v;
    triplets(A, &ri, &ci, &v);
    for (int32_t q = 0; q < A->nnz; q++)
        if (ri[q] >= r0 && ri[q] < r1) ri[n] = ri[q] - r0, ci[n] = ci[q], v[n++] = v[q];
    gs_csr *R = from_triplets(r1 - r0, A->cols, n, ri, ci, v), *B = NULL;
    CHECK_OK(OPS->row_slice(dA, r0, r1, &B));
    compare(B, R, what);
    gs_csr_destroy(&B), gs_csr_destroy(&R);
    free(ri), free(ci), free(v);
}

static void check_slices(int32_t rows, int32_t cols, int per_row)
{
    gs_csr *A = random_csr(rows, cols, per_row), *dA = up(A);
    check_slice(A, dA, 0, rows);
    check_slice(A, dA, 0, 0);
    check_slice(A, dA, rows, rows);
    for (int t = 0; t < 6 && rows > 0; t++) {
        int32_t a = (int32_t)(next_u64() % (uint64_t)(rows + 1));
        int32_t b = (int32_t)(next_u64() % (uint64_t)(rows + 1));
        check_slice(A, dA, a < b ? a : b, a < b ? b : a);
    }
    if (rows > 4) check_slice(A, dA, 3, 4); /* one row, empty (every fifth row is) */
    gs_csr_destroy(&A), gs_csr_destroy(&dA);
}

/* the first r rows of a copy of A, in the copy's arrays: the same as the slice [0, r) */
static void check_prefix(int32_t rows, int32_t cols, int per_row, int32_t r)
{
    char what[96];
    snprintf(what, sizeof what, "row prefix of %d of %d rows", r, rows);
    gs_csr *A = random_csr(rows, cols, per_row), *dA = up(A), *R = NULL, *B = NULL;
    CHECK_OK(gs_dist_host_ops.row_slice(A, 0, r, &R)); /* the host's, checked above */
    CHECK_OK(OPS->row_prefix(&dA, r, &B));
    CHECK_MSG(dA == NULL, "%s: the matrix taken over", what);
    compare(B, R, what);
    gs_csr_destroy(&B), gs_csr_destroy(&R), gs_csr_destroy(&A);
    dA = up(A = random_csr(rows, cols, per_row));
    CHECK_FAIL(OPS->row_prefix(&dA, rows + 1, &B), GS_ERR_ARG, "row prefix of");
    CHECK_MSG(!B && !dA, "%s: past the last row refused, the matrix freed", what);
    gs_csr_destroy(&A);
}

/* vcat of ra x ca over rb x cb into cols columns; with nhalo >= 0, A's columns from ca -
 * nhalo on renumbered by an increasing map into [ca - nhalo, cols) as they are copied */
static void check_vcat_map(int32_t ra, int32_t ca, int32_t nhalo, int32_t rb, int32_t cb,
                           int32_t cols, int per_row)
{
    char what[96];
    snprintf(what, sizeof what, "vcat %d x %d%s over %d x %d -> %d", ra, ca,
             nhalo >= 0 ? " (remapped)" : "", rb, cb, cols);
    gs_csr *A = random_csr(ra, ca, per_row), *B = random_csr(rb, cb, per_row), *Am = A;
    gs_csr *dA = up(A), *dB = up(B), *C = NULL;
    const int32_t nown = ca - (nhalo > 0 ? nhalo : 0);
    int32_t *map = nhalo >= 0 ? random_map(nown, nhalo, cols) : NULL, *dmap = NULL;
    gs_col_map am = {nown, NULL};
    if (map) {
        Am = remapped(A, nown, map, cols);
        am.map = dmap = put(map, (size_t)nhalo * 4);
    }
    int32_t *ri, *ci;
    double *v;
    const int32_t n = both_triplets(Am, B, ra, &ri, &ci, &v);
    gs_csr *R = from_triplets(ra + rb, cols, n, ri, ci, v);
    CHECK_OK(OPS->vcat(dA, map ? &am : NULL, dB, cols, &C));
    compare(C, R, what);
    if (Am != A) gs_csr_destroy(&Am);
    gs_csr_destroy(&C), gs_csr_destroy(&R), gs_csr_destroy(&A), gs_csr_destroy(&B);
    gs_csr_destroy(&dA), gs_csr_destroy(&dB);
    if (dmap) drop(dmap);
    free(map), free(ri), free(ci), free(v);
}

static void check_vcat(int32_t ra, int32_t ca, int32_t rb, int32_t cb, int32_t cols, int per_row)
{
    check_vcat_map(ra, ca, -1, rb, cb, cols, per_row);
}

/* A + B against the triplets of both (gs_csr_from_coo sums the shared ones, keeps zeros) */
static void check_add_pair(const gs_csr *A, const gs_csr *B, const char *what)
{
    gs_csr *dA = up(A), *dB = up(B), *C = NULL;
    int32_t *ri, *ci;
    double *v;
    const int32_t n = both_triplets(A, B, 0, &ri, &ci, &v);
    gs_csr *R = from_triplets(A->rows, A->cols, n, ri, ci, v);
    CHECK_OK(OPS->add(dA, NULL, dB, &C));
    compare(C, R, what);
    gs_csr_destroy(&C), gs_csr_destroy(&R), gs_csr_destroy(&dA), gs_csr_destroy(&dB);
    free(ri), free(ci), free(v);
}

/* A' + B, A (rows x (nown + nhalo)) renumbered by an increasing map into B's cols columns as
 * it is added (the coarse rows' sum): against the sum of A' made here and B */
static void check_add_map(int32_t rows, int32_t nown, int32_t nhalo, int32_t cols, int per_row)
{
    char what[96];
    snprintf(what, sizeof what, "add %d x (%d + %d) remapped into %d", rows, nown, nhalo, cols);
    gs_csr *A = random_csr(rows, nown + nhalo, per_row), *B = random_csr(rows, cols, per_row);
    int32_t *map = random_map(nown, nhalo, cols), *dmap = put(map, (size_t)nhalo * 4);
    gs_csr *Am = remapped(A, nown, map, cols), *dA = up(A), *dB = up(B), *C = NULL;
    int32_t *ri, *ci;
    double *v;
    const int32_t n = both_triplets(Am, B, 0, &ri, &ci, &v);
    gs_csr *R = from_triplets(rows, cols, n, ri, ci, v);
    const gs_col_map am = {nown, dmap};
    CHECK_OK(OPS->add(dA, &am, dB, &C));
    compare(C, R, what);
    gs_csr_destroy(&C), gs_csr_destroy(&R), gs_csr_destroy(&A), gs_csr_destroy(&B);
    gs_csr_destroy(&Am), gs_csr_destroy(&dA), gs_csr_destroy(&dB);
    drop(dmap), free(map), free(ri), free(ci), free(v);
}

/* M with only the entries whose column is even (keep 0) or odd (keep 1) */
static gs_csr *parity_part(const gs_csr *M, int keep)
{
    int32_t *ri, *ci, n = 0;
    double *v;
    triplets(M, &ri, &ci, &v);
    for (int32_t q = 0; q < M->nnz; q++)
        if ((ci[q] & 1) == keep) ri[n] = ri[q], ci[n] = ci[q], v[n++] = v[q];
    gs_csr *P = from_triplets(M->rows, M->cols, n, ri, ci, v);
    free(ri), free(ci), free(v);
    return P;
}

static void check_add(int32_t rows, int32_t cols, int per_row)
{
    char what[96];
    gs_csr *A = random_csr(rows, cols, per_row), *B = random_csr(rows, cols, per_row);
    snprintf(what, sizeof what, "add %d x %d (overlapping)", rows, cols);
    check_add_pair(A, B, what);
    gs_csr *E = parity_part(A, 0), *F = parity_part(B, 1);
    snprintf(what, sizeof what, "add %d x %d (disjoint)", rows, cols);
    check_add_pair(E, F, what);
    gs_csr *N = NULL; /* -A + half of B: every shared entry of A cancels to an explicit zero */
    CHECK_OK(gs_csr_copy(A, &N));
    for (int32_t q = 0; q < N->nnz; q++) N->val[q] = -N->val[q];
    snprintf(what, sizeof what, "add %d x %d (cancelling)", rows, cols);
    check_add_pair(A, N, what);
    gs_csr *Z = random_csr(rows, cols, 0);
    snprintf(what, sizeof what, "add %d x %d (empty + A)", rows, cols);
    check_add_pair(Z, A, what);
    check_add_pair(Z, Z, "add (both empty)");
    gs_csr_destroy(&A), gs_csr_destroy(&B), gs_csr_destroy(&E), gs_csr_destroy(&F);
    gs_csr_destroy(&N), gs_csr_destroy(&Z);
}

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

/* a tentative prolongator's rows (one entry a row, every fourth row empty) as the halo
 * exchange carries them: base + column (exactly, as a double) and value, -1 and 0 when empty */
static void check_first_entry(int32_t rows, int32_t cols, int64_t base)
{
    gs_csr *T = NULL;
    int32_t nnz = 0;
    for (int32_t i = 0; i < rows; i++) nnz += i % 4 != 1;
    CHECK_OK(gs_csr_create(rows, cols, nnz, &T));
    if (!T) return;
    T->rowptr[0] = 0;
    for (int32_t i = 0, q = 0; i < rows; i++) {
        if (i % 4 != 1) T->colind[q] = (int32_t)(next_u64() % (uint64_t)cols), T->val[q++] = rand_val();
        T->rowptr[i + 1] = q;
    }
    gs_csr *dT = up(T);
    double *g = calloc((size_t)rows + 1, 8), *v = calloc((size_t)rows + 1, 8);
    double *dg = put(g, (size_t)rows * 8 + 8), *dv = put(v, (size_t)rows * 8 + 8);
    CHECK_OK(OPS->first_entry(dT, base, dg, dv));
    get(g, dg, (size_t)rows * 8), get(v, dv, (size_t)rows * 8);
    int ok = 1;
    for (int32_t i = 0; i < rows; i++) {
        const int32_t q = T->rowptr[i];
        ok = ok && (i % 4 == 1 ? g[i] == -1.0 && v[i] == 0.0
                               : g[i] == (double)(base + T->colind[q]) && v[i] == T->val[q]);
    }
    CHECK_MSG(ok, "first_entry of %d rows, base %lld: values differ", rows, (long long)base);
    drop(dg), drop(dv);
    free(g), free(v);
    gs_csr_destroy(&T), gs_csr_destroy(&dT);
}

/* lengths of a random rows x cols matrix, their offsets from int32 and double lengths, each
 * entry's row from the offsets; first_entry_rows of n rows, every third one empty */
static void check_offsets(int32_t rows, int32_t cols, int per_row)
{
    char what[96];
    snprintf(what, sizeof what, "lengths, offsets and row index of %d rows", rows);
    gs_csr *A = random_csr(rows, cols, per_row), *dA = up(A);
    double *len = malloc((size_t)rows * 8 + 8), *dlen = room((size_t)rows * 8 + 8);
    int32_t *il = malloc((size_t)rows * 4 + 4), *ri = malloc((size_t)A->nnz * 4 + 4);
    int64_t *o1 = malloc((size_t)rows * 8 + 8), *o2 = malloc((size_t)rows * 8 + 8);
    int64_t *do1 = room((size_t)rows * 8 + 8), *do2 = room((size_t)rows * 8 + 8);
    int32_t *dri = room((size_t)A->nnz * 4 + 4);
    CHECK_OK(OPS->lengths(dA, dlen));
    get(len, dlen, (size_t)rows * 8);
    int ok = 1;
    for (int32_t i = 0; i < rows; i++) {
        il[i] = A->rowptr[i + 1] - A->rowptr[i];
        ok = ok && len[i] == (double)il[i];
    }
    CHECK_MSG(ok, "%s: lengths differ", what);
    int32_t *dil = put(il, (size_t)rows * 4);
    CHECK_OK(OPS->offsets(rows, dil, NULL, do1));
    CHECK_OK(OPS->offsets(rows, NULL, dlen, do2));
    get(o1, do1, (size_t)rows * 8 + 8), get(o2, do2, (size_t)rows * 8 + 8);
    for (int32_t i = 0; ok && i <= rows; i++) ok = o1[i] == A->rowptr[i] && o2[i] == A->rowptr[i];
    CHECK_MSG(ok, "%s: offsets differ", what);
    CHECK_OK(OPS->row_index(rows, do1, NULL, dri));
    get(ri, dri, (size_t)A->nnz * 4);
    for (int32_t i = 0; ok && i < rows; i++)
        for (int32_t q = A->rowptr[i]; ok && q < A->rowptr[i + 1]; q++) ok = ri[q] == i;
    CHECK_MSG(ok, "%s: rows of the entries differ", what);
    for (int32_t i = 0; i < rows; i++) il[i] = 3 * (rows - 1 - i) + 1; /* a row map */
    int32_t *dmap = put(il, (size_t)rows * 4);
    CHECK_OK(OPS->row_index(rows, do1, dmap, dri));
    get(ri, dri, (size_t)A->nnz * 4);
    for (int32_t i = 0; ok && i < rows; i++)
        for (int32_t q = A->rowptr[i]; ok && q < A->rowptr[i + 1]; q++) ok = ri[q] == il[i];
    CHECK_MSG(ok, "%s: mapped rows of the entries differ", what);
    drop(dmap);
    drop(dlen), drop(dil), drop(do1), drop(do2), drop(dri);
    free(len), free(il), free(ri), free(o1), free(o2);
    gs_csr_destroy(&A), gs_csr_destroy(&dA);
}

static void check_first_entry_rows(int64_t n, int64_t base)
{
    double *g = malloc((size_t)n * 8 + 8), *v = malloc((size_t)n * 8 + 8);
    int64_t *rp = malloc((size_t)n * 8 + 8), *gc = malloc((size_t)n * 8 + 8), ne = 0;
    double *val = malloc((size_t)n * 8 + 8);
    for (int64_t i = 0; i < n; i++) {
        g[i] = i % 3 == 2 ? -1.0 : (double)(base + (int64_t)(next_u64() % 100000));
        v[i] = rand_val();
    }
    double *dg = put(g, (size_t)n * 8), *dv = put(v, (size_t)n * 8);
    int64_t *drp = room((size_t)n * 8 + 8), *dgc = room((size_t)n * 8 + 8);
    double *dval = room((size_t)n * 8 + 8);
    CHECK_OK(OPS->first_entry_rows(n, dg, dv, drp, dgc, dval));
    get(rp, drp, (size_t)n * 8 + 8);
    ne = rp[n];
    get(gc, dgc, (size_t)ne * 8), get(val, dval, (size_t)ne * 8);
    int ok = rp[0] == 0;
    for (int64_t i = 0, e = 0; ok && i < n; i++) {
        if (g[i] >= 0) ok = rp[i + 1] == e + 1 && gc[e] == (int64_t)g[i] && val[e] == v[i], e++;
        else ok = rp[i + 1] == e;
    }
    CHECK_MSG(ok, "first_entry_rows of %lld rows, base %lld: rows differ", (long long)n,
              (long long)base);
    drop(dg), drop(dv), drop(drp), drop(dgc), drop(dval);
    free(g), free(v), free(rp), free(gc), free(val);
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

/* a split that finds halo entries where none are declared is refused */
static void check_split_refusal(void)
{
    gs_csr *C = random_csr(20, 10, 3), *dC = up(C), *D = NULL, *O = NULL;
    int32_t nr = -1, *orow = NULL;
    CHECK_FAIL(OPS->split(dC, 5, 0, &D, &O, &nr, &orow), GS_ERR_ARG, "no halo columns");
    CHECK(D == NULL && O == NULL && orow == NULL);
    gs_csr_destroy(&C), gs_csr_destroy(&dC);
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
    CHECK_OK(OPS->coo_csr(rows, cols, n, dri, dci, dv, &C));
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
    if (argc > 1 && strcmp(argv[1], "--gpu") == 0) {
        if (gs_backend_cuda_devices(NULL) == 0) return 77;
        CHECK_OK(gs_backend_cuda_init(0, NULL, 0));
        LOC = GS_LOC_DEVICE;
    }
    OPS = gs_backend_module(LOC, GS_MODULE_DIST);
    CHECK_MSG(OPS != NULL, "no gs_dist_ops table at the %s",
              LOC == GS_LOC_HOST ? "host" : "device");
    if (!OPS) return gs_test_result("test_dist_ops");

    check_split(200, 150, 37, 4);
    check_split(200, 150, 0, 4);
    check_split(120, 0, 40, 3); /* every column a halo one */
    check_split(0, 10, 5, 3);   /* no rows */
    check_split(50, 10, 5, 0);  /* no entries */
    check_split(3000, 2500, 700, 6);
    check_split(1000, 3000, 900, 40); /* long rows: groups of 16 and 32 lanes a row */
    check_split(400, 5000, 2000, 90);
    check_split(5000, 4000, 1000, 1);    /* many empty rows, one block's entries over many */
    check_split(200000, 150000, 20000, 3); /* many blocks of entries */
    check_split_refusal();
    check_first_entry(1000, 300, 0);
    check_first_entry(250000, 60000, 3000000000LL); /* global columns beyond 2^31 */
    check_first_entry(0, 10, 5);
    check_offsets(300, 200, 5);
    check_offsets(0, 10, 3);
    check_offsets(40, 30, 0);
    check_offsets(200000, 50000, 6); /* above the host's OpenMP threshold */
    check_first_entry_rows(1000, 0);
    check_first_entry_rows(300000, 3000000000LL); /* global columns beyond 2^31 */
    check_first_entry_rows(0, 5);

    check_vcat_map(200, 187, 37, 90, 300, 5000, 4); /* A's halo columns spread out */
    check_vcat_map(200, 187, 37, 90, 187, 187, 4);  /* the identity map */
    check_vcat_map(100, 80, 0, 50, 80, 80, 3);      /* nothing to remap */
    check_vcat_map(0, 15, 5, 40, 30, 30, 3);
    check_vcat_map(50, 15, 5, 0, 30, 30, 0);
    check_add_map(300, 200, 50, 900, 5);
    check_add_map(2000, 1500, 300, 1800, 12); /* the identity map */
    check_add_map(300, 9000, 400, 20000, 90); /* long rows */
    check_add_map(100, 80, 0, 80, 3);         /* nothing to remap */
    check_add_map(0, 10, 5, 30, 3);
    check_add_map(40, 30, 6, 50, 0);

    check_slices(300, 120, 4);
    check_slices(0, 10, 3);
    check_slices(40, 10, 0);
    /* rows of 1 MB and more (page-locked): the device in parts; small ones whole */
    check_upload_split(300000, 200000, 30000, 4, 50000);
    check_upload_split(300000, 200000, 30000, 4, 0);
    check_upload_split(300000, 230000, 0, 3, 70000);
    check_upload_split(280000, 5, 300000, 2, 20000); /* mostly halo entries */
    check_upload_split_skewed(300000, 100000, 2000, 30000);
    check_upload_split(500, 300, 40, 4, 100);
    check_upload_split(0, 10, 3, 3, 100);
    check_env_i64();
    check_prefix(300, 120, 4, 170);
    check_prefix(300, 120, 4, 0);
    check_prefix(300, 120, 4, 300);
    check_prefix(0, 10, 3, 0);

    check_vcat(150, 80, 90, 120, 130, 4); /* differing column counts, cols above both */
    check_vcat(150, 120, 90, 80, 120, 4);
    check_vcat(0, 30, 60, 40, 40, 3); /* no rows above */
    check_vcat(60, 40, 0, 30, 40, 3); /* none below */
    check_vcat(0, 5, 0, 5, 5, 3);
    check_vcat(30, 20, 40, 20, 20, 0);

    check_add(300, 200, 5);
    check_add(2000, 1500, 12);
    check_add(1000, 4000, 40); /* long rows */
    check_add(300, 9000, 90);
    check_add(0, 10, 3);
    check_add(40, 30, 0);

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

    return gs_test_result(LOC == GS_LOC_HOST ? "test_dist_ops" : "test_dist_ops --gpu");
}

/* The distributed setup's data-parallel steps (gs_dist_ops.h), reached through
 * gs_backend_module(loc, GS_MODULE_DIST), and the sparse toolkit's slices, stacking, sums and
 * triplets (gs_spgemm.h's gs_sparse_*, where the matrices live), against references built here from triplets
 * (gs_csr_from_coo) and plain loops, pattern and values exact: split of a compact matrix (also
 * uploaded in parts, with the part size's knob), a tentative prolongator's first entries, the
 * row lengths, their offsets and each entry's row from offsets (with and without a row map),
 * the non-empty rows, column remap with an increasing map (rows stay sorted), row slices (empty
 * ones too) and prefixes, stacking with differing column counts, and sums with overlapping,
 * disjoint and cancelling patterns; random matrices with empty rows, and zero-row and
 * zero-entry cases throughout. test_dist_ops_rows.c: the rows and columns that ranks exchange.
 *   test_dist_ops [--gpu]   --gpu: the same through the device table, inputs uploaded and
 *   results downloaded (77 without a GPU). */
#include "test_dist_ops_util.h"

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
    CHECK_OK(gs_sparse_row_slice(dA, r0, r1, &B));
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
    CHECK_OK(gs_sparse_host_row_slice(A, 0, r, &R)); /* the host's, checked above */
    CHECK_OK(gs_sparse_row_prefix(&dA, r, &B));
    CHECK_MSG(dA == NULL, "%s: the matrix taken over", what);
    compare(B, R, what);
    gs_csr_destroy(&B), gs_csr_destroy(&R), gs_csr_destroy(&A);
    dA = up(A = random_csr(rows, cols, per_row));
    CHECK_FAIL(gs_sparse_row_prefix(&dA, rows + 1, &B), GS_ERR_ARG, "row prefix of");
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
    CHECK_OK(gs_sparse_vcat(dA, map ? &am : NULL, dB, cols, &C));
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
    CHECK_OK(gs_sparse_add(dA, NULL, dB, &C));
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
    CHECK_OK(gs_sparse_add(dA, &am, dB, &C));
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

/* the own columns with each row's halo entries lumped into its diagonal (lump_halo), every row
 * with a diagonal entry: against the own triplets plus (i, i, the row's halo sum in row order) */
static void check_lump(int32_t rows, int32_t ncols, int32_t nhalo, int per_row)
{
    char what[96];
    snprintf(what, sizeof what, "lump_halo %d x (%d + %d), %d a row", rows, ncols, nhalo,
             per_row);
    gs_csr *C0 = random_csr(rows, ncols + nhalo, per_row), *C = NULL, *D = NULL;
    { /* a diagonal entry in every row (rows <= ncols) */
        int32_t *di = malloc((size_t)rows * 4 + 4);
        double *dv = malloc((size_t)rows * 8 + 8);
        for (int32_t i = 0; i < rows; i++) di[i] = i, dv[i] = 4.0 + i % 3;
        gs_csr *I = from_triplets(rows, ncols + nhalo, rows, di, di, dv);
        CHECK_OK(gs_sparse_host_add(C0, NULL, I, &C));
        gs_csr_destroy(&I), gs_csr_destroy(&C0), free(di), free(dv);
    }
    gs_csr *dC = up(C);
    const size_t cap = (size_t)C->nnz + (size_t)rows + 1;
    int32_t *ri = malloc(cap * 4), *ci = malloc(cap * 4), n = 0;
    double *v = malloc(cap * 8);
    for (int32_t i = 0; i < rows; i++) {
        double h = 0.0;
        int has_diag = 0;
        for (int32_t q = C->rowptr[i]; q < C->rowptr[i + 1]; q++) {
            if (C->colind[q] >= ncols) {
                h += C->val[q];
            } else {
                ri[n] = i, ci[n] = C->colind[q], v[n++] = C->val[q];
                has_diag |= C->colind[q] == i;
            }
        }
        if (has_diag) ri[n] = i, ci[n] = i, v[n++] = h; /* summed with the diagonal entry */
    }
    gs_csr *R = from_triplets(rows, ncols, n, ri, ci, v);
    CHECK_OK(OPS->lump_halo(dC, ncols, &D));
    compare(D, R, what);
    gs_csr_destroy(&D), gs_csr_destroy(&R), gs_csr_destroy(&C), gs_csr_destroy(&dC);
    free(ri), free(ci), free(v);
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

int main(int argc, char **argv)
{
    const int st = dist_ops_start(argc, argv);
    if (st == 77) return 77;
    if (st) return gs_test_result("test_dist_ops");

    check_split(200, 150, 37, 4);
    check_split(200, 150, 0, 4);
    check_split(120, 0, 40, 3); /* every column a halo one */
    check_split(0, 10, 5, 3);   /* no rows */
    check_split(50, 10, 5, 0);  /* no entries */
    check_split(3000, 2500, 700, 6);
    check_split(1000, 3000, 900, 40); /* long rows: groups of 16 and 32 lanes a row */
    check_lump(200, 200, 37, 6);
    check_lump(300, 400, 0, 5);  /* no halo: the diagonal block itself */
    check_lump(0, 10, 5, 3);     /* no rows */
    check_lump(2000, 2000, 500, 30);
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

    return gs_test_result(LOC == GS_LOC_HOST ? "test_dist_ops" : "test_dist_ops --gpu");
}

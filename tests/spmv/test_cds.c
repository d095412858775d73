/* test_cds.c: CDS through the format harness (fmt_test.h: exact round trips, SpMV against CSR on
 * every case, host and with --gpu device), then what is particular to CDS: the detected block
 * size and diagonal count, forced block sizes, the refusals and their messages, explicit zeros,
 * rectangular and odd-sized matrices, the byte model; and the known-offsets hint
 * (gs_format_params.cds_hint_*): with the feature pass's offsets the conversion gives exactly
 * the detected CDS (block size, offsets, every stored value, the round trip), and wrong or
 * unusable hints (an offset missing, one too many, one replaced, unsorted, out of the grid, a
 * block size that does not divide) still give exactly what detection gives. */
#include "fmt_test.h"
#include "gs_cds.h"
#include "gs_select.h"

/* the generated grid matrices must be taken; anything else may be refused */
static int expect_cds(const char *name, const gs_csr *A)
{
    (void)A;
    if (strncmp(name, "poisson-", 8) == 0 || strncmp(name, "anisotropic-", 12) == 0 ||
        strncmp(name, "convdiff-", 9) == 0)
        return 1;
    return -1;
}

static gs_csr *gen(const char *type, int64_t size, int stencil, int dof)
{
    gs_gen_params g;
    gs_csr *A = NULL;
    char desc[128];
    memset(&g, 0, sizeof g);
    g.type = type, g.size = size, g.stencil = stencil, g.dof = dof, g.seed = 1;
    g.epsilon = 0.01, g.velocity = 10.0, g.degree = 8.0, g.exponent = 2.2;
    if (gs_gen_matrix(&g, &A, desc, sizeof desc) != GS_OK) {
        fprintf(stderr, "test_cds: generator %s: %s\n", type, gs_error_message());
        exit(1);
    }
    return A;
}

/* A in CDS at loc (host A; uploaded for the device), NULL and the status on failure */
static gs_status make(const gs_csr *A, const gs_format_params *p, gs_loc loc, gs_spmat **M,
                      gs_csr **dA)
{
    *dA = NULL;
    if (loc == GS_LOC_DEVICE) {
        gs_status st = gs_csr_upload(A, GS_LOC_DEVICE, dA);
        if (st != GS_OK) return st;
        return gs_spmat_create(*dA, GS_FORMAT_CDS, p, M);
    }
    return gs_spmat_create(A, GS_FORMAT_CDS, p, M);
}

/* A must convert with block size b and K block diagonals, at loc */
static void check_shape(const char *what, const gs_csr *A, const gs_format_params *p, int b, int K,
                        gs_loc loc)
{
    gs_spmat *M = NULL;
    gs_csr *dA = NULL;
    gs_error_clear();
    gs_status st = make(A, p, loc, &M, &dA);
    CHECK_MSG(st == GS_OK, "%s: %s", what, gs_error_message());
    if (st == GS_OK) {
        const gs_cds *C = (const gs_cds *)M->M;
        char desc[160], want[32];
        CHECK_MSG(gs_cds_block_size(C) == b, "%s: b = %d, expected %d", what, gs_cds_block_size(C),
                  b);
        CHECK_MSG(gs_cds_diagonals(C) == K, "%s: %d block diagonals, expected %d", what,
                  gs_cds_diagonals(C), K);
        gs_spmat_describe(M, desc, sizeof desc);
        snprintf(want, sizeof want, "b=%d, %d block diag", b, K);
        CHECK_MSG(strstr(desc, want) != NULL, "%s: describe \"%s\"", what, desc);
        CHECK_NEAR(gs_spmat_bytes(M),
                   8.0 * (double)gs_cds_stored(C) + 8.0 * A->rows + 8.0 * A->cols, 1e-15);
        CHECK(gs_cds_stored(C) == (int64_t)K * b * A->rows);
        printf("  %-40s %s (%s)\n", what, desc, loc == GS_LOC_DEVICE ? "device" : "host");
    }
    gs_error_clear();
    gs_spmat_destroy(&M);
    gs_csr_destroy(&dA);
}

/* A must be refused at loc with a message containing substr */
static void check_refused(const char *what, const gs_csr *A, const gs_format_params *p,
                          const char *substr, gs_loc loc)
{
    gs_spmat *M = NULL;
    gs_csr *dA = NULL;
    gs_error_clear();
    gs_status st = make(A, p, loc, &M, &dA);
    CHECK_MSG(st == GS_ERR_UNSUPPORTED, "%s: got %s, expected a refusal", what, gs_status_str(st));
    CHECK_MSG(strstr(gs_error_message(), substr) != NULL, "%s: message \"%s\" lacks \"%s\"", what,
              gs_error_message(), substr);
    printf("  %-40s refused: %s\n", what, gs_error_message());
    gs_error_clear();
    gs_spmat_destroy(&M);
    gs_csr_destroy(&dA);
}

/* n x m band matrix with the given diagonals (j - i), entry (i, j) kept when keep(i, j); the
 * value of (i, j) is 0 (an explicit zero) when zero(i, j) */
static gs_csr *band(int32_t n, int32_t m, int nd, const int *diag, int (*keep)(int32_t, int32_t),
                    int (*zero)(int32_t, int32_t))
{
    int64_t cap = (int64_t)n * nd, k = 0;
    int32_t *ri = malloc((size_t)cap * 4 + 4), *ci = malloc((size_t)cap * 4 + 4);
    double *v = malloc((size_t)cap * 8 + 8);
    for (int32_t i = 0; i < n; i++)
        for (int d = 0; d < nd; d++) {
            int64_t j = (int64_t)i + diag[d];
            if (j < 0 || j >= m || (keep && !keep(i, (int32_t)j))) continue;
            ri[k] = i, ci[k] = (int32_t)j;
            v[k++] = zero && zero(i, (int32_t)j) ? 0.0 : 1.0 + 0.001 * (i % 97) - 0.01 * d;
        }
    gs_csr *A = fmt_from_coo(n, m, k, ri, ci, v);
    free(ri), free(ci), free(v);
    return A;
}

static int keep_30pct(int32_t i, int32_t j)
{
    return (((uint32_t)i * 2654435761u + (uint32_t)j * 40503u) >> 16) % 10 < 3;
}
static int zero_some(int32_t i, int32_t j)
{
    return (i + 2 * j) % 5 == 0;
}
static int keep_most(int32_t i, int32_t j)
{
    return (((uint32_t)i * 2246822519u + (uint32_t)j * 3266489917u) >> 20) % 11 != 0;
}

/* the CDS-specific checks at loc */
static void cds_checks(gs_loc loc)
{
    const int gpu = loc == GS_LOC_DEVICE; /* fmt_check_case: host, and device too */
    gs_format_params p, q;
    gs_csr *A;
    static const int tri[] = {-1, 0, 1}, five[] = {-40, -1, 0, 1, 40};
    static const int rect[] = {-3, 0, 2, 7};
    gs_format_params_default(&p);
    printf("CDS checks (%s)\n", loc == GS_LOC_DEVICE ? "device" : "host");

    /* detection: 8^3 grids have rows divisible by 1, 2, 3, 4, 6 and 8 (for dof 1, 2, 3, 4, 6) */
    static const int dofs[] = {1, 2, 3, 4, 6};
    for (int t = 0; t < 5; t++) {
        char what[64];
        A = gen("poisson", 8, 7, dofs[t]);
        snprintf(what, sizeof what, "poisson 7-pt 8^3 dof %d", dofs[t]);
        check_shape(what, A, &p, dofs[t], 7, loc);
        gs_csr_destroy(&A);
    }
    A = gen("poisson", 11, 7, 3); /* rows 3993: only b = 1 and 3 divide */
    check_shape("poisson 7-pt 11^3 dof 3", A, &p, 3, 7, loc);
    gs_csr_destroy(&A);
    A = gen("poisson", 12, 27, 1);
    check_shape("poisson 27-pt 12^3", A, &p, 1, 27, loc);
    gs_csr_destroy(&A);
    A = gen("poisson", 16, 9, 2);
    check_shape("poisson 9-pt 16^2 dof 2", A, &p, 2, 9, loc);
    gs_csr_destroy(&A);

    /* forced block sizes: b = 3 on dof 6 splits each block over 3 block diagonals (19 in all);
     * b = 12 (runtime-b kernel) pairs grid points, with much padding */
    A = gen("poisson", 8, 7, 6);
    q = p;
    q.cds_block = 3;
    q.cds_max_fill = 1.0;
    check_shape("dof 6 forced b=3", A, &q, 3, 19, loc);
    fmt_check_case("dof 6 forced b=3", A, GS_FORMAT_CDS, &q, gpu, NULL);
    q.cds_block = 12;
    q.cds_max_fill = 10.0;
    check_shape("dof 6 forced b=12", A, &q, 12, 7, loc);
    fmt_check_case("dof 6 forced b=12", A, GS_FORMAT_CDS, &q, gpu, NULL);
    q.cds_block = 5;
    check_refused("dof 6 forced b=5", A, &q, "does not divide", loc);
    q.cds_block = 65;
    check_refused("dof 6 forced b=65", A, &q, "larger than", loc);
    q.cds_block = 1;
    q.cds_max_fill = 0.25;
    check_refused("dof 6 forced b=1 (fill)", A, &q, "cds_max_fill", loc);
    gs_csr_destroy(&A);

    /* refusals: the power-law graph has far too many diagonals; a band with 30% of its
     * diagonals present pads too much, and passes with a larger fill limit */
    A = gen("powerlaw", 20000, 0, 1);
    check_refused("powerlaw 20000", A, &p, "block diagonals at every block size", loc);
    gs_csr_destroy(&A);
    A = band(1000, 1000, 5, five, keep_30pct, NULL);
    check_refused("5 diagonals, 30% present", A, &p, "exceeds spmv.cds_max_fill = 25.0%", loc);
    q = p;
    q.cds_max_fill = 3.0;
    check_shape("5 diagonals, 30% present, fill 300%", A, &q, 1, 5, loc);
    fmt_check_case("5 diagonals 30% fill 300%", A, GS_FORMAT_CDS, &q, gpu, NULL);
    gs_csr_destroy(&A);

    /* explicit zeros come back (fmt_check_case compares pattern and values exactly) */
    A = band(777, 777, 3, tri, keep_most, zero_some);
    {
        int zeros = 0;
        for (int32_t k = 0; k < A->nnz; k++) zeros += A->val[k] == 0.0;
        CHECK_MSG(zeros > 100, "the case has %d explicit zeros", zeros);
    }
    check_shape("tridiagonal with explicit zeros", A, &p, 1, 3, loc);
    fmt_check_case("explicit zeros 777", A, GS_FORMAT_CDS, &p, gpu, NULL);
    gs_csr_destroy(&A);

    /* rectangular both ways, sizes that no b > 1 divides */
    A = band(601, 907, 4, rect, NULL, NULL);
    check_shape("band 601 x 907", A, &p, 1, 4, loc);
    fmt_check_case("band 601x907", A, GS_FORMAT_CDS, &p, gpu, NULL);
    gs_csr_destroy(&A);
    A = band(907, 880, 4, rect, NULL, NULL);
    check_shape("band 907 x 880", A, &p, 1, 4, loc);
    fmt_check_case("band 907x880", A, GS_FORMAT_CDS, &p, gpu, NULL);
    gs_csr_destroy(&A);

    /* no entries: taken, with no diagonals; y = 0 */
    {
        static const int32_t r0[] = {0}, c0[] = {0};
        static const double v0[] = {0.0};
        A = fmt_from_coo(48, 36, 0, r0, c0, v0);
        check_shape("48 x 36 without entries", A, &p, 1, 0, loc);
        fmt_check_case("48x36 no entries", A, GS_FORMAT_CDS, &p, gpu, NULL);
        q = p;
        q.cds_block = 4;
        check_shape("48 x 36 without entries, b=4", A, &q, 4, 0, loc);
        gs_csr_destroy(&A);
    }
}

/* ---- the known-offsets hint ---- */

/* what a CDS matrix stores, at the host: b, K, ld, the offsets and the K*b*ld values */
typedef struct cds_image {
    int b, K;
    int64_t ld;
    int32_t off[GS_CDS_MAX_DIAGS];
    double *val;
} cds_image;

static void image_get(const gs_spmat *M, cds_image *im)
{
    const gs_cds *C = (const gs_cds *)M->M;
    const int64_t n = (int64_t)C->ndiag * C->b * C->ld;
    im->b = C->b, im->K = C->ndiag, im->ld = C->ld;
    memcpy(im->off, C->off, (size_t)C->ndiag * sizeof *im->off);
    im->val = malloc((size_t)n * sizeof *im->val + 8);
    if (M->loc == GS_LOC_HOST) {
        memcpy(im->val, C->val, (size_t)n * sizeof *im->val);
    } else if (n > 0) {
        gs_vec v = {n, C->val, GS_LOC_DEVICE, GS_F64};
        CHECK_OK(gs_vec_get_host(&v, im->val));
    }
}

/* M1 stores exactly what M0 stores, and gives back A exactly */
static void check_same_cds(const char *what, const gs_spmat *M0, const gs_spmat *M1,
                           const gs_csr *A)
{
    cds_image a, b;
    gs_csr *B = NULL, *H = NULL;
    image_get(M0, &a);
    image_get(M1, &b);
    const int shape = a.b == b.b && a.K == b.K && a.ld == b.ld;
    CHECK_MSG(shape, "%s: b=%d K=%d ld=%lld, detected b=%d K=%d ld=%lld", what, b.b, b.K,
              (long long)b.ld, a.b, a.K, (long long)a.ld);
    if (shape) {
        CHECK_MSG(memcmp(a.off, b.off, (size_t)a.K * sizeof *a.off) == 0, "%s: offsets differ",
                  what);
        CHECK_MSG(memcmp(a.val, b.val, (size_t)a.K * a.b * a.ld * sizeof *a.val) == 0,
                  "%s: stored values differ", what);
    }
    CHECK_OK(gs_spmat_to_csr(M1, &B));
    if (B && M1->loc == GS_LOC_DEVICE) CHECK_OK(gs_csr_download(B, &H));
    if (B) CHECK_MSG(fmt_csr_equal(A, H ? H : B, what, "hinted round trip"), "%s", what);
    gs_csr_destroy(&H);
    gs_csr_destroy(&B);
    free(a.val), free(b.val);
}

/* the conversion of A at loc under p plus the hint (b, K, off) must store exactly what the
 * detection under p0 stores (p0 = p when NULL), or both refuse with the same message; and it
 * must have taken the hint without detecting (taken = 1) or have detected (taken = 0) */
static void check_hinted(const char *what, const gs_csr *A, const gs_format_params *p,
                         const gs_format_params *p0, int b, int K, const int32_t *off, int taken,
                         gs_loc loc)
{
    long detections;
    gs_spmat *M0 = NULL, *M1 = NULL;
    gs_csr *dA0 = NULL, *dA1 = NULL;
    gs_format_params q = *p;
    char msg0[512] = "";
    q.cds_hint_block = b, q.cds_hint_ndiag = K, q.cds_hint_off = off;
    gs_error_clear();
    gs_status s0 = make(A, p0 ? p0 : p, loc, &M0, &dA0);
    gs_str_copy(msg0, sizeof msg0, gs_error_message());
    gs_error_clear();
    detections = gs_cds_detections();
    gs_status s1 = make(A, &q, loc, &M1, &dA1);
    detections = gs_cds_detections() - detections;
    CHECK_MSG(detections == !taken, "%s: %ld detections, expected %d", what, detections, !taken);
    CHECK_MSG(s0 == s1, "%s: hinted %s (%s), detected %s (%s)", what, gs_status_str(s1),
              gs_error_message(), gs_status_str(s0), msg0);
    if (s0 == GS_OK && s1 == GS_OK) check_same_cds(what, M0, M1, A);
    if (s0 != GS_OK && s0 == s1)
        CHECK_MSG(strcmp(msg0, gs_error_message()) == 0, "%s: hinted \"%s\", detected \"%s\"", what,
                  gs_error_message(), msg0);
    if (s1 == GS_OK) {
        char desc[160];
        gs_spmat_describe(M1, desc, sizeof desc);
        printf("  %-44s %s (%s)\n", what, desc, loc == GS_LOC_DEVICE ? "device" : "host");
    }
    gs_error_clear();
    gs_spmat_destroy(&M0);
    gs_spmat_destroy(&M1);
    gs_csr_destroy(&dA0);
    gs_csr_destroy(&dA1);
}

/* the feature pass's offsets (at loc) as the hint, as the selector passes them: the same CDS */
static void check_feature_hint(const char *what, const gs_csr *A, gs_loc loc)
{
    gs_format_params p;
    gs_features f;
    gs_csr *dA = NULL;
    gs_format_params_default(&p);
    if (loc == GS_LOC_DEVICE) CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
    CHECK_OK(gs_features_compute(dA ? dA : A, &f));
    gs_csr_destroy(&dA);
    CHECK_MSG(f.nblockdiags > 0, "%s: features found %d block diagonals", what, f.nblockdiags);
    if (f.nblockdiags <= 0) return;
    check_hinted(what, A, &p, NULL, f.block, f.nblockdiags, f.blockoff, 1, loc);
}

/* wrong hints on A, whose detection gives block size b and the K offsets off: each conversion
 * must end exactly as detection */
static void check_wrong_hints(const char *name, const gs_csr *A, int b, int K, const int32_t *off,
                              gs_loc loc)
{
    gs_format_params p, wide;
    int32_t h[GS_CDS_MAX_DIAGS + 1];
    char what[96];
    const int32_t nbc = A->cols / b,
                  extra = off[K - 1] + 1 <= nbc - 1 ? off[K - 1] + 1 : off[0] - 1;
    const int drops[3] = {0, K / 2, K - 1};
    gs_format_params_default(&p);
    wide = p;
    wide.cds_max_fill = 10.0; /* a hint with a diagonal too many passes the fill test */
#define HINT(label, params, bh, n)                                                                 \
    do {                                                                                           \
        snprintf(what, sizeof what, "%s, %s", name, label);                                        \
        check_hinted(what, A, params, NULL, bh, n, h, 0, loc);                                     \
    } while (0)
    for (int t = 0; t < 3; t++) { /* the first, a middle and the last offset missing */
        char label[48];
        int n = 0;
        if (t > 0 && drops[t] == drops[t - 1]) continue;
        for (int d = 0; d < K; d++)
            if (d != drops[t]) h[n++] = off[d];
        snprintf(label, sizeof label, "offset %d missing", off[drops[t]]);
        HINT(label, &p, b, n);
    }
    /* an offset A does not have (past the last or before the first): added, or replacing one */
    memcpy(h + (extra < off[0]), off, (size_t)K * sizeof *h);
    h[extra > off[0] ? K : 0] = extra;
    HINT("one offset too many", &wide, b, K + 1);
    memcpy(h, off, (size_t)K * sizeof *h);
    h[extra > off[0] ? K - 1 : 0] = extra;
    HINT("one offset replaced", &wide, b, K);
    memcpy(h, off, (size_t)K * sizeof *h);
    if (K > 1) {
        h[0] = off[1], h[1] = off[0];
        HINT("unsorted offsets", &p, b, K);
        h[1] = off[1]; /* off[1] twice */
        HINT("an offset twice", &p, b, K);
    }
    memcpy(h, off, (size_t)K * sizeof *h);
    h[K - 1] = nbc;
    HINT("an offset outside the grid", &p, b, K);
    memcpy(h, off, (size_t)K * sizeof *h);
    HINT("no offsets", &p, b, 0);
    HINT("too many offsets", &p, b, GS_CDS_MAX_DIAGS + 1);
    /* a block size that does not divide A: the hint is ignored (detection over every b) */
    HINT("a block size that does not divide", &p, A->rows % 5 != 0 ? 5 : 7, K);
#undef HINT
}

/* a hint at a block size detection would not choose: dof 3 at b = 1 (its scalar diagonals) is
 * taken (so the hint is used), equal to detection forced to b = 1; ignored under a forced other
 * block size; and refused by the fill like detection at b = 1 */
static void check_hint_block_size(gs_loc loc)
{
    gs_format_params q;
    gs_spmat *M = NULL;
    gs_csr *dA = NULL, *A = gen("poisson", 8, 7, 3);
    gs_format_params_default(&q);
    q.cds_block = 1, q.cds_max_fill = 1.0;
    gs_status st = make(A, &q, loc, &M, &dA);
    CHECK_OK(st);
    if (st == GS_OK) {
        const gs_cds *C = (const gs_cds *)M->M;
        int32_t off[GS_CDS_MAX_DIAGS];
        const int K = C->ndiag;
        gs_format_params r = q;
        memcpy(off, C->off, (size_t)K * sizeof *off);
        CHECK_MSG(C->b == 1 && K > 7, "dof 3 at b=1: b=%d, %d diagonals", C->b, K);
        r.cds_block = 0;
        check_hinted("dof 3, hint at b=1 (detection: b=3)", A, &r, &q, 1, K, off, 1, loc);
        r.cds_block = 3; /* a forced other block size: the hint is ignored */
        check_hinted("dof 3, hint b=1, cds_block=3", A, &r, NULL, 1, K, off, 0, loc);
        r.cds_block = 0, r.cds_max_fill = 0.25; /* the fill refuses b = 1: as detection */
        q.cds_max_fill = 0.25;
        check_hinted("dof 3, hint at b=1, fill 25%: refused", A, &r, &q, 1, K, off, 0, loc);
    }
    gs_spmat_destroy(&M);
    gs_csr_destroy(&dA);
    gs_csr_destroy(&A);
}

/* the hint at loc: the feature pass's offsets on the generators, wrong hints on a scalar and a
 * block stencil, hints at another block size */
static void hint_checks(gs_loc loc)
{
    gs_format_params p;
    gs_spmat *M = NULL;
    gs_csr *dA = NULL;
    static const struct {
        const char *name, *type;
        int size, stencil, dof;
    } g[] = {
        {"poisson 7-pt 12^3", "poisson", 12, 7, 1},
        {"poisson 27-pt 10^3", "poisson", 10, 27, 1},
        {"poisson 7-pt 9^3 dof 3", "poisson", 9, 7, 3},
        {"poisson 27-pt 12^3 dof 3", "poisson", 12, 27, 3},
        {"poisson 7-pt 8^3 dof 4", "poisson", 8, 7, 4},
        {"poisson 9-pt 30^2 dof 2", "poisson", 30, 9, 2},
        {"anisotropic 5-pt 64^2", "anisotropic", 64, 5, 1},
        {"convdiff 27-pt 12^3", "convdiff", 12, 27, 1},
    };
    printf("known-offsets hint (%s)\n", loc == GS_LOC_DEVICE ? "device" : "host");
    for (size_t t = 0; t < sizeof g / sizeof g[0]; t++) {
        gs_csr *A = gen(g[t].type, g[t].size, g[t].stencil, g[t].dof);
        check_feature_hint(g[t].name, A, loc);
        gs_csr_destroy(&A);
    }
    gs_format_params_default(&p);
    for (int t = 0; t < 2; t++) { /* wrong hints on a scalar and a block stencil */
        gs_csr *A = t == 0 ? gen("poisson", 10, 7, 1) : gen("poisson", 12, 27, 3);
        gs_status st = make(A, &p, loc, &M, &dA);
        CHECK_OK(st);
        if (st == GS_OK) {
            const gs_cds *C = (const gs_cds *)M->M;
            int32_t off[GS_CDS_MAX_DIAGS];
            const int b = C->b, K = C->ndiag;
            memcpy(off, C->off, (size_t)K * sizeof *off);
            gs_spmat_destroy(&M);
            check_wrong_hints(t == 0 ? "7-pt 10^3" : "27-pt 12^3 dof 3", A, b, K, off, loc);
        }
        gs_spmat_destroy(&M);
        gs_csr_destroy(&dA);
        gs_csr_destroy(&A);
    }
    check_hint_block_size(loc);
}

/* host conversion and to_csr with the k-th allocation failing, k = 1, 2, ...: every failure is
 * reported as out of memory and frees what it took. hint: 0 none, 1 the features' offsets,
 * 2 those less one (the fill finds it wrong, then detection) */
static void check_alloc_failures(int hint)
{
    gs_format_params p;
    gs_csr *A = gen("poisson", 6, 7, 3), *B = NULL;
    gs_features f;
    int done = 0;
    gs_format_params_default(&p);
    CHECK_OK(gs_features_compute(A, &f));
    if (hint) {
        p.cds_hint_block = f.block, p.cds_hint_off = f.blockoff;
        p.cds_hint_ndiag = f.nblockdiags - (hint == 2);
    }
    printf("allocation failures (host, %s)\n", hint == 0   ? "no hint"
                                               : hint == 1 ? "hint"
                                                           : "wrong hint");
    for (long k = 1; k < 100 && !done; k++) {
        long live = gs_mem_live();
        gs_spmat *M = NULL;
        gs_error_clear();
        gs_mem_fail_at(k);
        gs_status st = gs_spmat_create(A, GS_FORMAT_CDS, &p, &M);
        if (st == GS_OK) st = gs_spmat_to_csr(M, &B);
        gs_mem_fail_at(0);
        CHECK_MSG(st == GS_OK || st == GS_ERR_NOMEM, "allocation %ld: %s", k, gs_error_message());
        done = st == GS_OK;
        if (done) CHECK(fmt_csr_equal(A, B, "poisson dof 3", "round trip"));
        gs_csr_destroy(&B);
        gs_spmat_destroy(&M);
        CHECK_MSG(gs_mem_live() == live, "allocation %ld failing leaks %ld blocks", k,
                  gs_mem_live() - live);
        gs_error_clear();
    }
    CHECK(done);
    gs_csr_destroy(&A);
}

int main(int argc, char **argv)
{
    gs_format_params p;
    gs_format_params_default(&p);
    int gpu = argc > 1 && strcmp(argv[1], "--gpu") == 0;
    if (gpu) {
        if (gs_backend_cuda_devices(NULL) == 0) return 77;
        if (gs_backend_cuda_init(0, NULL, 0) != GS_OK) return 77;
    }
    fmt_test_run(GS_FORMAT_CDS, &p, gpu, expect_cds);
    cds_checks(GS_LOC_HOST);
    hint_checks(GS_LOC_HOST);
    check_alloc_failures(0);
    check_alloc_failures(1);
    check_alloc_failures(2);
    if (gpu) {
        cds_checks(GS_LOC_DEVICE);
        hint_checks(GS_LOC_DEVICE);
    }
    return gs_test_result(gpu ? "test_cds_gpu" : "test_cds");
}

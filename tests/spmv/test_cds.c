/* test_cds.c: CDS through the format harness (fmt_test.h: exact round trips, SpMV against CSR on
 * every case, host and with --gpu device), then what is particular to CDS: the detected block
 * size and diagonal count, forced block sizes, the refusals and their messages, explicit zeros,
 * rectangular and odd-sized matrices, the byte model. */
#include "fmt_test.h"
#include "gs_cds.h"

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

/* host conversion and to_csr with the k-th allocation failing, k = 1, 2, ...: every failure is
 * reported as out of memory and frees what it took */
static void check_alloc_failures(void)
{
    gs_format_params p;
    gs_csr *A = gen("poisson", 6, 7, 3), *B = NULL;
    int done = 0;
    gs_format_params_default(&p);
    printf("allocation failures (host)\n");
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
    check_alloc_failures();
    if (gpu) cds_checks(GS_LOC_DEVICE);
    return gs_test_result(gpu ? "test_cds_gpu" : "test_cds");
}

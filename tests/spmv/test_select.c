/* test_select.c: matrix features and the per-level format choice (gs_select.h).
 *
 * Host (always): features with known answers (7-point Poisson: 7 diagonals and the boundary's
 * row lengths counted independently; a dof-3 block matrix: block size 3 and 7 block diagonals;
 * a randomly permuted Poisson: not structured; empty rows; rectangular matrices; no entries),
 * the rule table on fixed feature vectors, forced formats, spmv.levels lists, fallback to csr,
 * cusparse refused on the host, "measure", SpMV of every result against the CSR reference, CDS
 * through the selector taking the features' block offsets (no detection in the conversion), and
 * allocation failures. With --gpu (label gpu; 77 without a device): the device features equal
 * the host ones field by field (block offsets included) on generated, hand-made and real
 * matrices, and the device selection (cusparse allowed, measure, levels, CDS from the features'
 * offsets) gives matrices whose SpMV matches the host's. */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_cds.h"
#include "gs_csr.h"
#include "gs_gen.h"
#include "gs_mm.h"
#include "gs_select.h"
#include "gs_test.h"

static gs_csr *gen(const char *type, int64_t size, int stencil, int dof)
{
    gs_gen_params g;
    gs_csr *A = NULL;
    char desc[128];
    memset(&g, 0, sizeof g);
    g.type = type, g.size = size, g.stencil = stencil, g.dof = dof, g.seed = 1;
    g.epsilon = 0.01, g.velocity = 10.0, g.degree = 8.0, g.exponent = 2.2;
    if (gs_gen_matrix(&g, &A, desc, sizeof desc) != GS_OK) {
        fprintf(stderr, "test_select: generator %s: %s\n", type, gs_error_message());
        exit(1);
    }
    return A;
}

static gs_csr *from_coo(int64_t rows, int64_t cols, int64_t nnz, const int32_t *ri,
                        const int32_t *ci, const double *v)
{
    gs_csr *A = NULL;
    if (gs_csr_from_coo(rows, cols, nnz, ri, ci, v, &A) != GS_OK) {
        fprintf(stderr, "test_select: cannot build a case: %s\n", gs_error_message());
        exit(1);
    }
    return A;
}

/* B = Q A Q^T for a random permutation Q (seed s) */
static gs_csr *permuted(const gs_csr *A, uint64_t s)
{
    int32_t *perm = malloc((size_t)A->rows * sizeof *perm);
    int32_t *ri = malloc((size_t)A->nnz * sizeof *ri), *ci = malloc((size_t)A->nnz * sizeof *ci);
    for (int32_t i = 0; i < A->rows; i++) perm[i] = i;
    for (int32_t i = A->rows - 1; i > 0; i--) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        int32_t j = (int32_t)((s >> 33) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
            ri[p] = perm[i], ci[p] = perm[A->colind[p]];
    gs_csr *B = from_coo(A->rows, A->cols, A->nnz, ri, ci, A->val);
    free(perm), free(ri), free(ci);
    return B;
}

/* n x m matrix with the given diagonals j - i, entries kept where keep(i) (NULL: all rows) */
static gs_csr *band(int32_t n, int32_t m, int nd, const int *diag, int (*keep)(int32_t))
{
    int64_t cap = (int64_t)n * nd + 1, k = 0;
    int32_t *ri = malloc((size_t)cap * 4), *ci = malloc((size_t)cap * 4);
    double *v = malloc((size_t)cap * 8);
    for (int32_t i = 0; i < n; i++)
        for (int d = 0; d < nd; d++) {
            int64_t j = (int64_t)i + diag[d];
            if (j < 0 || j >= m || (keep && !keep(i))) continue;
            ri[k] = i, ci[k] = (int32_t)j, v[k++] = 1.0 + 0.01 * d;
        }
    gs_csr *A = from_coo(n, m, k, ri, ci, v);
    free(ri), free(ci), free(v);
    return A;
}

/* M blocks of b rows; block row I's rows each hold one entry in block column I + 2 (I % m) + 1
 * (I when that is past the end), at the same row of the block: m + 1 block offsets, one entry
 * per row */
static gs_csr *scattered_blocks(int32_t M, int32_t b, int32_t m)
{
    const int64_t n = (int64_t)M * b;
    int32_t *ri = malloc((size_t)n * 4), *ci = malloc((size_t)n * 4);
    double *v = malloc((size_t)n * 8);
    for (int32_t I = 0; I < M; I++) {
        int32_t J = I + 2 * (I % m) + 1;
        if (J >= M) J = I;
        for (int32_t r = 0; r < b; r++)
            ri[I * b + r] = I * b + r, ci[I * b + r] = J * b + r, v[I * b + r] = 1.0 + r;
    }
    gs_csr *A = from_coo(n, n, n, ri, ci, v);
    free(ri), free(ci), free(v);
    return A;
}

/* of each row of A (3 entries) the (i % 3)-th entry, where the row has 3 */
static gs_csr *every_third(const gs_csr *A)
{
    int32_t *ri = malloc((size_t)A->rows * 4), *ci = malloc((size_t)A->rows * 4);
    double *v = malloc((size_t)A->rows * 8);
    int64_t k = 0;
    for (int32_t i = 0; i < A->rows; i++) {
        const int32_t p = A->rowptr[i], len = A->rowptr[i + 1] - p;
        if (len != 3) continue;
        ri[k] = i, ci[k] = A->colind[p + i % 3], v[k] = A->val[p + i % 3], k++;
    }
    gs_csr *B = from_coo(A->rows, A->cols, k, ri, ci, v);
    free(ri), free(ci), free(v);
    return B;
}

/* an AMG-like tentative prolongator: rows n, column i / agg (cols ceil(n / agg)) */
static gs_csr *aggregates(int32_t n, int32_t agg)
{
    int32_t *ri = malloc((size_t)n * 4), *ci = malloc((size_t)n * 4);
    double *v = malloc((size_t)n * 8);
    for (int32_t i = 0; i < n; i++) ri[i] = i, ci[i] = i / agg, v[i] = 1.0;
    gs_csr *A = from_coo(n, (n + agg - 1) / agg, n, ri, ci, v);
    free(ri), free(ci), free(v);
    return A;
}

/* one dense row among rows of 3 (the rest of the pattern random) */
static gs_csr *dense_row(int32_t n)
{
    int64_t cap = (int64_t)3 * n + n, k = 0;
    int32_t *ri = malloc((size_t)cap * 4), *ci = malloc((size_t)cap * 4);
    double *v = malloc((size_t)cap * 8);
    uint64_t s = 99;
    for (int32_t i = 0; i < n; i++) {
        int len = i == n / 2 ? n : 3;
        for (int t = 0; t < len; t++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            ri[k] = i, ci[k] = len == n ? t : (int32_t)((s >> 33) % (uint64_t)n), v[k++] = 1.0;
        }
    }
    gs_csr *A = from_coo(n, n, k, ri, ci, v);
    free(ri), free(ci), free(v);
    return A;
}

static int keep_third(int32_t i)
{
    return i % 3 != 1;
}
static int keep_sparse(int32_t i)
{
    return i % 50 == 7;
}

/* ---- features with known answers (host) ---- */

/* 7-point Poisson n^3: row lengths 1 + per axis (2 - [x at 0] - [x at n-1]), counted here */
static void check_poisson7(int n)
{
    gs_csr *A = gen("poisson", n, 7, 1);
    gs_features f;
    double s1 = 0, s2 = 0;
    int32_t mn = 99, mx = 0;
    for (int z = 0; z < n; z++)
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) {
                int c[3] = {x, y, z}, len = 1;
                for (int d = 0; d < 3; d++) len += 2 - (c[d] == 0) - (c[d] == n - 1);
                s1 += len, s2 += (double)len * len;
                mn = len < mn ? len : mn, mx = len > mx ? len : mx;
            }
    const double rows = (double)n * n * n, mean = s1 / rows;
    CHECK_OK(gs_features_compute(A, &f));
    CHECK(f.rows == (int64_t)rows && f.cols == f.rows);
    CHECK(f.nnz == 7LL * n * n * n - 6LL * n * n);
    CHECK_NEAR(f.mean, 7.0 - 6.0 / n, 1e-15); /* 7 - boundary */
    CHECK_NEAR(f.mean, mean, 1e-15);
    CHECK_NEAR(f.std, sqrt(s2 / rows - mean * mean), 1e-12);
    CHECK(f.min == mn && f.max == mx && f.min == 4 && f.max == 7);
    CHECK(f.empty_share == 0.0);
    CHECK_MSG(f.ndiags == 7, "ndiags %d", f.ndiags);
    CHECK_MSG(f.block == 1 && f.nblockdiags == 7, "block %d blockdiags %d", f.block, f.nblockdiags);
    CHECK_NEAR(f.cds_fill, 6.0 / (7.0 * n - 6.0), 1e-12); /* 7 n^3 stored for 7 n^3 - 6 n^2 */
    CHECK(f.bandwidth == (int64_t)n * n);
    CHECK(f.seconds >= 0.0);
    { /* the block offsets, ascending: what CDS stores */
        const int32_t want[7] = {-n * n, -n, -1, 0, 1, n, n * n};
        CHECK_MSG(memcmp(f.blockoff, want, sizeof want) == 0, "offsets %d %d %d %d %d %d %d",
                  f.blockoff[0], f.blockoff[1], f.blockoff[2], f.blockoff[3], f.blockoff[4],
                  f.blockoff[5], f.blockoff[6]);
    }
    { /* the same mean and std as the row statistics the driver prints */
        gs_row_stats rs;
        gs_csr_row_stats(A, &rs);
        CHECK_NEAR(f.mean, rs.mean, 1e-15);
        CHECK_NEAR(f.std, rs.std, 1e-15);
    }
    char d[256];
    gs_features_describe(&f, d, sizeof d);
    CHECK_MSG(strstr(d, "diags 7 block 1 blockdiags 7") != NULL, "describe: %s", d);
    CHECK_MSG(strstr(d, " cols ") == NULL, "square: no cols in %s", d);
    printf("  poisson 7-pt %d^3: %s\n", n, d);
    gs_csr_destroy(&A);
}

static void check_features_host(void)
{
    gs_features f;
    gs_csr *A;
    printf("features (host)\n");
    check_poisson7(10);
    check_poisson7(7);

    /* block matrices: dof 3 and 4 unknowns per point, 7 block diagonals */
    static const int dofs[] = {3, 4, 6};
    for (int t = 0; t < 3; t++) {
        A = gen("poisson", 8, 7, dofs[t]);
        CHECK_OK(gs_features_compute(A, &f));
        CHECK_MSG(f.block == dofs[t] && f.nblockdiags == 7, "dof %d: block %d, %d block diagonals",
                  dofs[t], f.block, f.nblockdiags);
        CHECK_NEAR(f.cds_fill, 7.0 * dofs[t] * A->rows / A->nnz - 1.0, 1e-12);
        CHECK(f.ndiags == -1 || f.ndiags > 7); /* the scalar diagonals are many more */
        static const int32_t want[7] = {-64, -8, -1, 0, 1, 8, 64}; /* block offsets on 8^3 */
        CHECK_MSG(memcmp(f.blockoff, want, sizeof want) == 0, "dof %d: block offsets", dofs[t]);
        gs_csr_destroy(&A);
    }
    A = gen("poisson", 12, 27, 1);
    CHECK_OK(gs_features_compute(A, &f));
    CHECK(f.ndiags == 27 && f.block == 1 && f.nblockdiags == 27 && f.max == 27 && f.min == 8);
    gs_csr_destroy(&A);

    /* a randomly permuted Poisson has the same row lengths but is not structured */
    {
        gs_csr *P = gen("poisson", 20, 7, 1);
        gs_features fp;
        A = permuted(P, 12345);
        CHECK_OK(gs_features_compute(P, &fp));
        CHECK_OK(gs_features_compute(A, &f));
        CHECK(f.nnz == fp.nnz && f.mean == fp.mean && f.std == fp.std && f.max == fp.max);
        CHECK_MSG(f.ndiags == -1, "permuted: %d diagonals", f.ndiags);
        CHECK_MSG(f.nblockdiags == -1 || f.cds_fill > 1.0, "permuted: %d block diagonals, fill %g",
                  f.nblockdiags, f.cds_fill);
        CHECK(f.bandwidth > 4 * fp.bandwidth);
        CHECK(gs_select_rule(&f, GS_LOC_DEVICE, NULL, 0) != GS_FORMAT_CDS);
        CHECK(gs_select_rule(&f, GS_LOC_HOST, NULL, 0) != GS_FORMAT_CDS);
        CHECK(gs_select_rule(&fp, GS_LOC_HOST, NULL, 0) == GS_FORMAT_CDS);
        gs_csr_destroy(&A);
        gs_csr_destroy(&P);
    }

    /* empty rows: a third of the rows of a tridiagonal 300 x 300 */
    {
        static const int tri[] = {-1, 0, 1};
        A = band(300, 300, 3, tri, keep_third);
        CHECK_OK(gs_features_compute(A, &f));
        CHECK_NEAR(f.empty_share, 100.0 / 300.0, 1e-15);
        CHECK(f.min == 0 && f.max == 3 && f.ndiags == 3 && f.bandwidth == 1);
        gs_row_stats rs;
        gs_csr_row_stats(A, &rs);
        CHECK_NEAR(f.mean, rs.mean, 1e-15);
        CHECK_NEAR(f.std, rs.std, 1e-15);
        gs_csr_destroy(&A);
    }

    /* rectangular both ways (601 is prime: b = 1 only), and an aggregation operator */
    {
        static const int rect[] = {-3, 0, 2, 7};
        char d[256];
        A = band(601, 907, 4, rect, NULL);
        CHECK_OK(gs_features_compute(A, &f));
        CHECK(f.rows == 601 && f.cols == 907 && f.ndiags == 4 && f.block == 1);
        CHECK(f.nblockdiags == 4 && f.bandwidth == 7);
        CHECK_NEAR(f.cds_fill, 4.0 * 601 / A->nnz - 1.0, 1e-12);
        gs_features_describe(&f, d, sizeof d);
        CHECK_MSG(strstr(d, "cols 907") != NULL, "describe: %s", d);
        gs_csr_destroy(&A);
        A = band(907, 880, 4, rect, NULL);
        CHECK_OK(gs_features_compute(A, &f));
        CHECK(f.rows == 907 && f.cols == 880 && f.ndiags == 4 && f.nblockdiags == 4);
        gs_csr_destroy(&A);
        A = aggregates(300, 3);
        CHECK_OK(gs_features_compute(A, &f));
        CHECK(f.rows == 300 && f.cols == 100 && f.mean == 1.0 && f.std == 0.0);
        CHECK(f.bandwidth == 299 - 99 && f.ndiags == -1);
        gs_csr_destroy(&A);
    }

    /* 71 block offsets, one entry per row at b = 4: every block size's CDS would store more than
     * twice the entries, so no block count is reported (gs_feat_cap), though 71 <= 128 */
    A = scattered_blocks(400, 4, 70);
    CHECK_OK(gs_features_compute(A, &f));
    CHECK_MSG(f.ndiags == -1 && f.nblockdiags == -1 && f.cds_fill == -1.0,
              "scattered blocks: diags %d block %d blockdiags %d fill %g", f.ndiags, f.block,
              f.nblockdiags, f.cds_fill);
    gs_csr_destroy(&A);
    /* at b = 1 the count goes on to GS_FEAT_MAX_DIAGS whatever the fill: 3 diagonals, one entry
     * per row, fill 2 */
    {
        static const int three[] = {-5, 0, 7};
        A = band(601, 601, 3, three, NULL);
        gs_csr *B = every_third(A);
        CHECK_OK(gs_features_compute(B, &f));
        CHECK_MSG(f.ndiags == 3 && f.block == 1 && f.nblockdiags == 3,
                  "one of three diagonals per row: diags %d block %d blockdiags %d", f.ndiags,
                  f.block, f.nblockdiags);
        CHECK_NEAR(f.cds_fill, 3.0 * 601 / B->nnz - 1.0, 1e-12);
        gs_csr_destroy(&A), gs_csr_destroy(&B);
    }

    /* one dense row: the offsets saturate the count (-1), the rest is exact */
    A = dense_row(3000);
    CHECK_OK(gs_features_compute(A, &f));
    CHECK(f.max == 3000 && f.min >= 1 && f.min <= 3 && f.ndiags == -1 && f.nblockdiags == -1);
    CHECK(f.cds_fill == -1.0 && f.bandwidth >= 1500);
    gs_csr_destroy(&A);

    /* no entries, and no rows */
    {
        static const int32_t r0[] = {0}, c0[] = {0};
        static const double v0[] = {0.0};
        A = from_coo(48, 36, 0, r0, c0, v0);
        CHECK_OK(gs_features_compute(A, &f));
        CHECK(f.rows == 48 && f.nnz == 0 && f.mean == 0.0 && f.empty_share == 1.0);
        CHECK(f.ndiags == 0 && f.nblockdiags == 0 && f.cds_fill == 0.0 && f.bandwidth == 0);
        gs_csr_destroy(&A);
        A = from_coo(0, 5, 0, r0, c0, v0);
        CHECK_OK(gs_features_compute(A, &f));
        CHECK(f.rows == 0 && f.cols == 5 && f.mean == 0.0 && f.std == 0.0);
        gs_csr_destroy(&A);
    }
}

/* the features say what CDS's conversion does: it takes A exactly when the features have a
 * block count and a fill within spmv.cds_max_fill, with the same b and block diagonals */
static void check_cds_agrees(const char *what, gs_csr *A)
{
    gs_features f;
    gs_format_params p;
    gs_spmat *M = NULL;
    gs_format_params_default(&p);
    CHECK_OK(gs_features_compute(A, &f));
    const int takes = f.nblockdiags >= 0 && f.cds_fill <= p.cds_max_fill;
    gs_status st = gs_spmat_create(A, GS_FORMAT_CDS, &p, &M);
    CHECK_MSG((st == GS_OK) == takes, "%s: features say CDS %s (K %d, fill %g), CDS: %s", what,
              takes ? "takes it" : "refuses", f.nblockdiags, f.cds_fill,
              st == GS_OK ? "took it" : gs_error_message());
    if (st == GS_OK) {
        const gs_cds *C = (const gs_cds *)M->M;
        CHECK_MSG(gs_cds_block_size(C) == f.block && gs_cds_diagonals(C) == f.nblockdiags,
                  "%s: CDS b=%d K=%d, features b=%d K=%d", what, gs_cds_block_size(C),
                  gs_cds_diagonals(C), f.block, f.nblockdiags);
        CHECK_NEAR((double)gs_cds_stored(C) / A->nnz - 1.0, f.cds_fill, 1e-12);
        if (gs_cds_diagonals(C) == f.nblockdiags)
            CHECK_MSG(memcmp(C->off, f.blockoff, (size_t)f.nblockdiags * sizeof *C->off) == 0,
                      "%s: CDS offsets differ from the features'", what);
    }
    gs_error_clear();
    gs_spmat_destroy(&M);
    gs_csr_destroy(&A);
}

static void check_cds_alignment(void)
{
    static const int five[] = {-40, -1, 0, 1, 40}, rect[] = {-3, 0, 2, 7};
    printf("features against CDS's detection\n");
    check_cds_agrees("poisson 7-pt 12^3", gen("poisson", 12, 7, 1));
    check_cds_agrees("poisson 27-pt 10^3", gen("poisson", 10, 27, 1));
    check_cds_agrees("poisson 7-pt 8^3 dof 2", gen("poisson", 8, 7, 2));
    check_cds_agrees("poisson 7-pt 8^3 dof 6", gen("poisson", 8, 7, 6));
    check_cds_agrees("poisson 9-pt 30^2 dof 3", gen("poisson", 30, 9, 3));
    check_cds_agrees("anisotropic 9-pt 64^2", gen("anisotropic", 64, 9, 1));
    check_cds_agrees("powerlaw 5000", gen("powerlaw", 5000, 0, 1));
    check_cds_agrees("band 5 diagonals, 1/3 rows", band(1200, 1200, 5, five, keep_third));
    check_cds_agrees("band 601 x 907", band(601, 907, 4, rect, NULL));
    check_cds_agrees("aggregates 960 x 320", aggregates(960, 3));
    {
        gs_csr *P = gen("poisson", 10, 7, 2);
        check_cds_agrees("permuted poisson dof 2", permuted(P, 5));
        gs_csr_destroy(&P);
    }
}

/* ---- the rule table on fixed feature vectors ---- */

static gs_features feat(double mean, double std, int32_t nblockdiags, double fill)
{
    gs_features f;
    memset(&f, 0, sizeof f);
    f.rows = 2000000, f.cols = f.rows, f.nnz = (int64_t)(mean * f.rows);
    f.mean = mean, f.std = std, f.nblockdiags = nblockdiags, f.cds_fill = fill;
    f.ndiags = nblockdiags, f.block = 1, f.max = (int32_t)(mean + 4 * std);
    return f;
}

static void check_rule(const char *what, gs_features f, gs_loc loc, gs_format want,
                       const char *text)
{
    char reason[160];
    gs_format got = gs_select_rule(&f, loc, reason, sizeof reason);
    CHECK_MSG(got == want, "%s (%s): %s, expected %s (%s)", what, loc ? "device" : "host",
              gs_format_name(got), gs_format_name(want), reason);
    CHECK_MSG(strstr(reason, text) != NULL, "%s: reason \"%s\" lacks \"%s\"", what, reason, text);
}

static void check_rules(void)
{
    printf("rule table\n");
    int nloc[2] = {0, 0};
    for (int i = 0;; i++) {
        unsigned locs = 0;
        gs_format fmt;
        const char *t = gs_select_rule_row(i, &locs, &fmt);
        if (!t) break;
        printf("  %d. %-64s -> %s (%s%s)\n", i + 1, t, gs_format_name(fmt),
               locs & (1u << GS_LOC_HOST) ? "host " : "",
               locs & (1u << GS_LOC_DEVICE) ? "gpu" : "");
        CHECK(strlen(t) > 0 && locs != 0);
        CHECK_MSG(!(fmt == GS_FORMAT_CUSPARSE && (locs & (1u << GS_LOC_HOST))),
                  "rule %d gives cusparse on the host", i + 1);
        for (int l = 0; l < 2; l++) nloc[l] += (locs >> l) & 1u;
    }
    CHECK(nloc[GS_LOC_HOST] >= 2 && nloc[GS_LOC_DEVICE] >= 2);
    /* vectors of the measured matrices (bench/results) */
    gs_features block4 = feat(27.62, 1.21, 7, 0.014);
    block4.block = 4;
    const gs_features stencil = feat(6.95, 0.21, 7, 0.007);
    gs_features powerlaw = feat(8.99, 29.37, -1, -1.0);
    const gs_features cryg = feat(4.94, 0.24, 8, 0.62);
    const gs_features cyl = feat(19.43, 1.40, -1, -1.0), ginkgo = feat(8.77, 0.81, -1, -1.0);
    const gs_features pushpull = feat(49.08, 46.53, -1, -1.0);
    const gs_loc H = GS_LOC_HOST, D = GS_LOC_DEVICE;
    powerlaw.max = 2916; /* 1M rows: hubs of 324 x the mean row */
    check_rule("7-point stencil", stencil, D, GS_FORMAT_CDS, "structured");
    check_rule("7-point stencil", stencil, H, GS_FORMAT_CDS, "structured");
    check_rule("dof 4 stencil", block4, D, GS_FORMAT_CDS, "blockdiags 7");
    check_rule("dof 4 stencil", block4, H, GS_FORMAT_SURAA, "long rows"); /* CDS b = 1 only */
    check_rule("power law", powerlaw, D, GS_FORMAT_CUSPARSE, "std >");
    check_rule("power law", powerlaw, H, GS_FORMAT_SURAA, "std >");
    check_rule("8 diagonals, 62% fill", cryg, D, GS_FORMAT_CSR, "default");
    check_rule("8 diagonals, 62% fill", cryg, H, GS_FORMAT_CSR, "default");
    check_rule("long even rows", cyl, D, GS_FORMAT_CMRS, "mean >=");
    check_rule("long even rows", cyl, H, GS_FORMAT_SURAA, "long rows");
    check_rule("short even rows", ginkgo, D, GS_FORMAT_CSR, "default");
    { /* isooctane_A x10000 and zenios x500: uneven, the longest row a few times the mean */
        gs_features iso = feat(42.6, 53.8, -1, -1.0), zen = feat(9.46, 10.87, -1, -1.0);
        iso.max = 144, zen.max = 47;
        check_rule("uneven, bounded rows", iso, D, GS_FORMAT_CMRS, "max <=");
        check_rule("uneven, bounded rows", zen, D, GS_FORMAT_CMRS, "max <=");
        check_rule("uneven, bounded rows", zen, H, GS_FORMAT_SURAA, "std >");
        zen.max = 152; /* 16.07 x the mean */
        check_rule("uneven, longest 16.07 x mean", zen, D, GS_FORMAT_CUSPARSE, "std >");
        zen.max = 47, zen.nnz = 1499999;
        check_rule("uneven, bounded, 1499999 entries", zen, D, GS_FORMAT_CUSPARSE, "std >");
    }
    { /* bips98_606 x200 and west2021 x800: short rows of spread lengths */
        const gs_features bips = feat(4.87, 3.29, -1, -1.0), west = feat(3.64, 2.39, -1, -1.0);
        gs_features few = bips;
        check_rule("short uneven rows", bips, D, GS_FORMAT_SURAA, "short uneven");
        check_rule("short uneven rows", west, D, GS_FORMAT_SURAA, "short uneven");
        check_rule("short uneven rows", bips, H, GS_FORMAT_CSR, "default");
        check_rule("std = mean / 2", feat(4.0, 2.0, -1, -1.0), D, GS_FORMAT_CSR, "default");
        check_rule("mean 8", feat(8.0, 5.0, -1, -1.0), D, GS_FORMAT_CSR, "default");
        few.nnz = 1499999;
        check_rule("short uneven, 1499999 entries", few, D, GS_FORMAT_CSR, "default");
    }
    check_rule("short even rows", ginkgo, H, GS_FORMAT_CSR, "default");
    check_rule("long uneven rows", pushpull, D, GS_FORMAT_CMRS, "mean >=");
    check_rule("long uneven rows", pushpull, H, GS_FORMAT_SURAA, "mean >=");
    /* edges: std == mean is not "uneven"; fill just above the limit is not structured; an
     * empty matrix (no diagonals, nothing stored) is structured; small ones stay in CSR on the
     * GPU, whatever their structure */
    check_rule("std = mean", feat(9.0, 9.0, -1, -1.0), D, GS_FORMAT_CSR, "default");
    {
        gs_features f = feat(9.0, 9.01, -1, -1.0);
        f.max = 145; /* > 16 x mean */
        check_rule("std > mean", f, D, GS_FORMAT_CUSPARSE, "std");
    }
    check_rule("std = mean, short rows", feat(5.0, 5.0, -1, -1.0), D, GS_FORMAT_SURAA,
               "short uneven");
    check_rule("fill 0.26", feat(5.0, 0.1, 5, 0.26), D, GS_FORMAT_CSR, "default");
    check_rule("fill 0.25", feat(5.0, 0.1, 5, 0.25), D, GS_FORMAT_CDS, "structured");
    check_rule("129 block diagonals", feat(5.0, 0.1, 129, 0.0), D, GS_FORMAT_CSR, "default");
    check_rule("no entries", feat(0.0, 0.0, 0, 0.0), H, GS_FORMAT_CDS, "structured");
    {
        gs_features small = stencil, uneven = powerlaw, edge = stencil, coarse = cyl;
        small.rows = 8000, uneven.rows = 200000, edge.rows = 30000, coarse.rows = 20000;
        check_rule("small stencil", small, D, GS_FORMAT_CSR, "small");
        check_rule("small coarse level", coarse, D, GS_FORMAT_CSR, "small");
        check_rule("30000-row stencil", edge, D, GS_FORMAT_CDS, "structured");
        check_rule("small stencil", small, H, GS_FORMAT_CDS, "structured");
        /* uneven rows: SURAA up to a size from enough entries for its conversion (rows
         * < 500000, nnz >= 1500000), cuSPARSE otherwise; on the host SURAA at every size */
        uneven.nnz = 1797080;
        check_rule("power law 200000", uneven, D, GS_FORMAT_SURAA, "rows <");
        check_rule("power law 200000", uneven, H, GS_FORMAT_SURAA, "std >");
        uneven.nnz = 1500000;
        check_rule("power law, 1500000 entries", uneven, D, GS_FORMAT_SURAA, "nnz >=");
        uneven.nnz = 1499999;
        check_rule("power law, 1499999 entries", uneven, D, GS_FORMAT_CUSPARSE, "std >");
        check_rule("power law, 1499999 entries", uneven, H, GS_FORMAT_SURAA, "std >");
        uneven.rows = 500, uneven.nnz = 4495;
        check_rule("power law 500", uneven, D, GS_FORMAT_CUSPARSE, "std >");
        check_rule("power law 500", uneven, H, GS_FORMAT_SURAA, "std >");
    }
}

/* ---- selection ---- */

/* M's SpMV against the CSR reference on the host (A host), at M's location */
/* a selection request for format and levels with the default parameters */
static gs_select_request request(const char *format, const char *levels)
{
    gs_select_request rq;
    memset(&rq, 0, sizeof rq);
    rq.format = format, rq.levels = levels;
    gs_format_params_default(&rq.params);
    return rq;
}

static void check_spmv(const char *what, const gs_spmat *M, const gs_csr *A)
{
    gs_vec *x = NULL, *y = NULL;
    double *xh = malloc((size_t)(A->cols + 1) * 8), *yh = malloc((size_t)(A->rows + 1) * 8);
    double *r = malloc((size_t)(A->rows + 1) * 8), d = 0, s = 0;
    gs_gen_random_vector(3, xh, A->cols);
    gs_csr_spmv_host(A, xh, r);
    CHECK_OK(gs_vec_create(A->cols, M->loc, &x));
    CHECK_OK(gs_vec_create(A->rows, M->loc, &y));
    if (x && y) {
        CHECK_OK(gs_vec_set_host(x, xh));
        CHECK_OK(gs_spmat_spmv(M, x, y));
        CHECK_OK(gs_vec_get_host(y, yh));
        for (int32_t i = 0; i < A->rows; i++)
            d += (yh[i] - r[i]) * (yh[i] - r[i]), s += r[i] * r[i];
        CHECK_MSG(sqrt(d) <= 1e-12 * sqrt(s) + 1e-300, "%s: SpMV differs by %g (relative)", what,
                  s > 0 ? sqrt(d / s) : sqrt(d));
    }
    gs_vec_destroy(&x);
    gs_vec_destroy(&y);
    free(xh), free(yh), free(r);
}

/* select A (host; dA its copy at loc, or A itself) with format/levels at `level`; the result
 * must be `want` (or any when GS_FORMAT_COUNT) with a reason containing `text` */
static void check_select(const char *what, const gs_csr *A, const gs_csr *dA, const char *format,
                         const char *levels, int level, gs_format want, const char *text)
{
    gs_select_request rq = request(format, levels);
    gs_select_result res;
    gs_spmat *M = NULL;
    gs_error_clear();
    gs_status st = gs_select_spmat(dA, level, &rq, &M, &res);
    CHECK_MSG(st == GS_OK, "%s: %s", what, gs_error_message());
    if (st == GS_OK) {
        CHECK_MSG(want == GS_FORMAT_COUNT || res.format == want, "%s: %s, expected %s (%s)", what,
                  gs_format_name(res.format), gs_format_name(want), res.reason);
        CHECK(M && M->format == res.format && M->loc == dA->loc);
        CHECK_MSG(strstr(res.reason, text) != NULL, "%s: reason \"%s\" lacks \"%s\"", what,
                  res.reason, text);
        /* the fallback flag, which the driver warns on, marks exactly the csr fallback */
        CHECK_MSG(res.fell_back == (strstr(res.reason, "refused, csr runs") != NULL),
                  "%s: fell_back %d, reason \"%s\"", what, res.fell_back, res.reason);
        CHECK(res.feat.rows == A->rows && res.feat.nnz == A->nnz && res.feature_s >= 0.0);
        CHECK(res.convert_s >= 0.0);
        printf("  %-34s %-8s %s\n", what, gs_format_name(res.format), res.reason);
        check_spmv(what, M, A);
    }
    gs_error_clear();
    gs_spmat_destroy(&M);
}

static void check_select_fails(const char *what, const gs_csr *dA, const char *format,
                               const char *levels, int level, const char *text)
{
    gs_select_request rq = request(format, levels);
    gs_select_result res;
    gs_spmat *M = NULL;
    CHECK_FAIL(gs_select_spmat(dA, level, &rq, &M, &res), GS_ERR_CONFIG, text);
    CHECK(M == NULL);
    printf("  %-34s refused as asked\n", what);
}

/* what the rule table gives for host matrix A at loc */
static gs_format rule_for(const gs_csr *A, gs_loc loc)
{
    gs_features f;
    CHECK_OK(gs_features_compute(A, &f));
    return gs_select_rule(&f, loc, NULL, 0);
}

/* CDS through the selector (format "cds", or "measure") takes the features' block offsets:
 * the conversion detects nothing, and its offsets are the features' */
static void check_select_cds_hint(const char *what, const gs_csr *A, const gs_csr *dA,
                                  const char *format)
{
    gs_select_request rq = request(format, NULL);
    gs_select_result res;
    gs_spmat *M = NULL;
    const long before = gs_cds_detections();
    CHECK_OK(gs_select_spmat(dA, 0, &rq, &M, &res));
    const long detections = gs_cds_detections() - before;
    CHECK_MSG(detections == 0, "%s: the CDS conversion detected %ld times", what, detections);
    if (M && M->format == GS_FORMAT_CDS) {
        const gs_cds *C = (const gs_cds *)M->M;
        CHECK(gs_cds_block_size(C) == res.feat.block && C->ndiag == res.feat.nblockdiags);
        CHECK(memcmp(C->off, res.feat.blockoff, (size_t)C->ndiag * sizeof *C->off) == 0);
        printf("  %-34s cds, no detection (%s)\n", what, res.reason);
        check_spmv(what, M, A);
    }
    CHECK_MSG(M && (strcmp(format, "cds") != 0 || M->format == GS_FORMAT_CDS), "%s: %s", what,
              M ? gs_format_name(M->format) : "nothing");
    gs_spmat_destroy(&M);
}

/* the choices at loc on a stencil, its permutation, a rectangular and an uneven matrix */
static void check_selection(gs_loc loc)
{
    const long live = gs_mem_live();
    gs_csr *P = gen("poisson", 16, 7, 1), *Q = permuted(P, 777), *R = aggregates(999, 3);
    gs_csr *W = gen("powerlaw", 20000, 0, 1);
    gs_csr *dP = P, *dQ = Q, *dR = R, *dW = W;
    const int dev = loc == GS_LOC_DEVICE;
    printf("selection (%s)\n", dev ? "device" : "host");
    if (dev) {
        dP = dQ = dR = dW = NULL;
        CHECK_OK(gs_csr_upload(P, loc, &dP));
        CHECK_OK(gs_csr_upload(Q, loc, &dQ));
        CHECK_OK(gs_csr_upload(R, loc, &dR));
        CHECK_OK(gs_csr_upload(W, loc, &dW));
        if (!dP || !dQ || !dR || !dW) goto done;
    }
    check_select("auto, stencil", P, dP, "auto", NULL, 0, rule_for(P, loc),
                 dev ? "auto GPU rule" : "auto host rule 3, structured");
    check_select("NULL format = auto", P, dP, NULL, "", 3, rule_for(P, loc), "auto");
    check_select("auto, permuted", Q, dQ, "auto", NULL, 0, rule_for(Q, loc), "auto");
    check_select("auto, rectangular 999x333", R, dR, "auto", NULL, 1, rule_for(R, loc), "auto");
    check_select("auto, power law", W, dW, "auto", NULL, 0, rule_for(W, loc),
                 dev ? "auto GPU rule" : "uneven");
    CHECK(rule_for(Q, loc) != GS_FORMAT_CDS);
    check_select("forced cmrs", P, dP, "cmrs", NULL, 0, GS_FORMAT_CMRS, "forced by spmv.format");
    check_select("forced suraa, rectangular", R, dR, "suraa", NULL, 0, GS_FORMAT_SURAA, "forced");
    check_select("forced cds, permuted: csr", Q, dQ, "cds", NULL, 0, GS_FORMAT_CSR, "cds refused");
    check_select("levels[0]", P, dP, "auto", "cds, cmrs ,csr", 0, GS_FORMAT_CDS,
                 "forced by spmv.levels[0]");
    check_select("levels[1]", P, dP, "auto", "cds, cmrs ,csr", 1, GS_FORMAT_CMRS,
                 "forced by spmv.levels[1]");
    check_select("levels[7]: the last repeated", P, dP, "cmrs", "[\"cds\", \"suraa\"]", 7,
                 GS_FORMAT_SURAA, "forced by spmv.levels[1]");
    check_select("levels auto entry", Q, dQ, "cds", "csr,auto", 1, rule_for(Q, loc),
                 "spmv.levels[1] = auto: auto");
    check_select("measure, stencil", P, dP, "measure", NULL, 0, GS_FORMAT_COUNT, "measured (us):");
    check_select_cds_hint("forced cds, stencil: hint", P, dP, "cds");
    check_select_cds_hint("measure, stencil: hint", P, dP, "measure");
    {
        gs_csr *B = gen("poisson", 12, 27, 3), *dB = B;
        if (dev) CHECK_OK(gs_csr_upload(B, loc, &dB));
        if (dB) check_select_cds_hint("forced cds, 27-pt dof 3: hint", B, dB, "cds");
        if (dev) gs_csr_destroy(&dB);
        gs_csr_destroy(&B);
    }
    check_select("measure, permuted", Q, dQ, "measure", NULL, 0, GS_FORMAT_COUNT, "cds refused");
    check_select("levels measure entry", R, dR, "auto", "measure", 2, GS_FORMAT_COUNT,
                 "spmv.levels[0] = measure");
    if (dev) {
        check_select("forced cusparse", Q, dQ, "cusparse", NULL, 0, GS_FORMAT_CUSPARSE, "forced");
        check_select("measure, power law", W, dW, "measure", NULL, 0, GS_FORMAT_COUNT, "cusparse");
    } else {
        check_select_fails("forced cusparse on the host", dP, "cusparse", NULL, 0,
                           "spmv.format = \"cusparse\" runs on the GPU only");
        check_select_fails("levels cusparse on the host", dP, "auto", "csr,cusparse", 4,
                           "spmv.levels[1] = \"cusparse\"");
        check_select("measure, power law (host)", W, dW, "measure", NULL, 0, GS_FORMAT_COUNT,
                     "csr");
    }
    check_select_fails("unknown format", dP, "blocked", NULL, 0, "spmv.format = \"blocked\"");
    check_select_fails("unknown level format", dP, "auto", "csr,ell", 1, "spmv.levels[1]");
    { /* measure keeps the fastest: its reason lists the times in ascending order */
        gs_select_request rq = request("measure", NULL);
        gs_select_result res;
        gs_spmat *M = NULL;
        CHECK_OK(gs_select_spmat(dP, 0, &rq, &M, &res));
        if (M) {
            const char *first = strstr(res.reason, ": ");
            CHECK_MSG(first && strncmp(first + 2, gs_format_name(res.format),
                                       strlen(gs_format_name(res.format))) == 0,
                      "kept %s, reason %s", gs_format_name(res.format), res.reason);
            CHECK(res.measure_s > 0.0 && res.measure_s >= res.convert_s);
            CHECK(strstr(res.reason, "csr") && strstr(res.reason, "cmrs") &&
                  strstr(res.reason, "suraa") && strstr(res.reason, "cds"));
            CHECK(dev == (strstr(res.reason, "cusparse") != NULL));
        }
        gs_spmat_destroy(&M);
    }
done:
    if (dev) {
        gs_csr_destroy(&dP);
        gs_csr_destroy(&dQ);
        gs_csr_destroy(&dR);
        gs_csr_destroy(&dW);
    }
    gs_csr_destroy(&P);
    gs_csr_destroy(&Q);
    gs_csr_destroy(&R);
    gs_csr_destroy(&W);
    CHECK_MSG(gs_mem_live() == live, "selection leaks %ld host blocks", gs_mem_live() - live);
}

/* gs_select_spmat on the host with the k-th allocation failing: out of memory reported, nothing
 * kept, nothing leaked */
static void check_alloc_failures(const char *format)
{
    gs_csr *A = gen("poisson", 6, 7, 2);
    gs_select_request rq = request(format, NULL);
    int done = 0;
    printf("allocation failures (host, %s)\n", format);
    for (long k = 1; k < 400 && !done; k++) {
        long live = gs_mem_live();
        gs_spmat *M = NULL;
        gs_select_result res;
        gs_error_clear();
        gs_mem_fail_at(k);
        gs_status st = gs_select_spmat(A, 0, &rq, &M, &res);
        gs_mem_fail_at(0);
        CHECK_MSG(st == GS_OK || st == GS_ERR_NOMEM, "allocation %ld: %s", k, gs_error_message());
        CHECK(st == GS_OK || M == NULL);
        done = st == GS_OK;
        gs_spmat_destroy(&M);
        CHECK_MSG(gs_mem_live() == live, "allocation %ld failing leaks %ld blocks", k,
                  gs_mem_live() - live);
        gs_error_clear();
    }
    CHECK(done);
    gs_csr_destroy(&A);
}

/* ---- device features equal the host's ---- */

static void check_same(const char *what, const gs_csr *A)
{
    gs_features h, d;
    gs_csr *dA = NULL;
    CHECK_OK(gs_features_compute(A, &h));
    CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
    if (!dA) return;
    CHECK_OK(gs_features_compute(dA, &d));
    gs_csr_destroy(&dA);
    const int same = h.rows == d.rows && h.cols == d.cols && h.nnz == d.nnz && h.mean == d.mean &&
                     h.std == d.std && h.min == d.min && h.max == d.max &&
                     h.empty_share == d.empty_share && h.ndiags == d.ndiags && h.block == d.block &&
                     h.nblockdiags == d.nblockdiags && h.cds_fill == d.cds_fill &&
                     h.bandwidth == d.bandwidth;
    const size_t offs = h.nblockdiags > 0 ? (size_t)h.nblockdiags * sizeof *h.blockoff : 0;
    CHECK_MSG(!same || memcmp(h.blockoff, d.blockoff, offs) == 0, "%s: block offsets differ", what);
    char hs[256], ds[256];
    gs_features_describe(&h, hs, sizeof hs);
    gs_features_describe(&d, ds, sizeof ds);
    CHECK_MSG(same, "%s: host   %s\n                 device %s", what, hs, ds);
    printf("  %-28s %s (device %.3f ms)\n", what, ds, 1e3 * d.seconds);
}

static void check_device_features(void)
{
    static const int rect[] = {-3, 0, 2, 7}, tri[] = {-1, 0, 1};
    static const int32_t r0[] = {0}, c0[] = {0};
    static const double v0[] = {0.0};
    gs_csr *A;
    printf("device features against the host\n");
#define SAME(what, expr)                                                                           \
    do {                                                                                           \
        A = (expr);                                                                                \
        check_same(what, A);                                                                       \
        gs_csr_destroy(&A);                                                                        \
    } while (0)
    SAME("poisson 7-pt 10^3", gen("poisson", 10, 7, 1));
    SAME("poisson 7-pt 64^3", gen("poisson", 64, 7, 1));
    SAME("poisson 27-pt 12^3", gen("poisson", 12, 27, 1));
    SAME("poisson 7-pt 8^3 dof 3", gen("poisson", 8, 7, 3));
    SAME("poisson 7-pt 10^3 dof 6", gen("poisson", 10, 7, 6));
    SAME("poisson 9-pt 40^2 dof 2", gen("poisson", 40, 9, 2));
    SAME("anisotropic 5-pt 100^2", gen("anisotropic", 100, 5, 1));
    SAME("convdiff 27-pt 16^3", gen("convdiff", 16, 27, 1));
    SAME("powerlaw 20000", gen("powerlaw", 20000, 0, 1));
    SAME("powerlaw 300000", gen("powerlaw", 300000, 0, 1));
    {
        gs_csr *P = gen("poisson", 30, 7, 1);
        SAME("permuted poisson 30^3", permuted(P, 4242));
        gs_csr_destroy(&P);
    }
    SAME("band 601 x 907", band(601, 907, 4, rect, NULL));
    SAME("scattered blocks (fill over the cap)", scattered_blocks(400, 4, 70));
    SAME("band 907 x 880", band(907, 880, 4, rect, NULL));
    SAME("tridiagonal, 1/3 rows empty", band(3000, 3000, 3, tri, keep_third));
    SAME("tridiagonal, 49/50 rows empty", band(50000, 50000, 3, tri, keep_sparse));
    SAME("aggregates 99999 x 33333", aggregates(99999, 3));
    SAME("one dense row of 5000", dense_row(5000));
    SAME("48 x 36 without entries", from_coo(48, 36, 0, r0, c0, v0));
    SAME("1 x 1", band(1, 1, 1, tri + 1, NULL));
#undef SAME
    const char *dir = getenv("GS_MATRICES");
    DIR *dd = dir ? opendir(dir) : NULL;
    struct dirent *e;
    int nreal = 0;
    while (dd && (e = readdir(dd)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".mtx") != 0) continue;
        char path[1024];
        gs_mm_info info;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (gs_mm_read(path, &A, &info) != GS_OK) { /* complex, or a vector file */
            gs_error_clear();
            continue;
        }
        check_same(e->d_name, A);
        gs_csr_destroy(&A);
        nreal++;
    }
    if (dd) closedir(dd);
    printf("  %d real matrices compared\n", nreal);
}

/* ---- the speculative CDS fill beside the device feature pass (gs_cds.h) ---- */
#ifdef GS_HAVE_CUDA

static int same_csr(const gs_csr *A, const gs_csr *B)
{
    return A->rows == B->rows && A->cols == B->cols && A->nnz == B->nnz &&
           memcmp(A->rowptr, B->rowptr, (size_t)(A->rows + 1) * sizeof *A->rowptr) == 0 &&
           memcmp(A->colind, B->colind, (size_t)A->nnz * sizeof *A->colind) == 0 &&
           memcmp(A->val, B->val, (size_t)A->nnz * sizeof *A->val) == 0;
}

/* device "auto" on A (consumed): format want, the speculative fill taken `adopted` times, the
 * SpMV right and the kept format back to CSR exactly A; fail_at > 0: the fail_at-th device
 * allocation of the selection fails first (the speculation's: the selection still succeeds) */
static void check_spec(const char *what, gs_csr *A, gs_format want, int adopted, long fail_at)
{
    gs_csr *dA = NULL, *back = NULL, *hb = NULL;
    gs_select_request rq = request("auto", NULL);
    gs_select_result res;
    gs_spmat *M = NULL;
    CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
    if (dA) {
        const long before = gs_cds_spec_adoptions();
        if (fail_at > 0) gs_backend_cuda_fail_at(fail_at);
        CHECK_OK(gs_select_spmat(dA, 0, &rq, &M, &res));
        gs_backend_cuda_fail_at(0);
        const long got = gs_cds_spec_adoptions() - before;
        CHECK_MSG(M && res.format == want, "%s: %s, expected %s (%s)", what,
                  M ? gs_format_name(res.format) : "nothing", gs_format_name(want), res.reason);
        CHECK_MSG(got == adopted, "%s: the speculative fill taken %ld times, expected %d", what,
                  got, adopted);
        /* a taken fill's time is the conversion's */
        CHECK_MSG(res.feature_s > 0.0 && res.convert_s > 0.0 && res.feat.seconds == res.feature_s,
                  "%s: features %g s, conversion %g s", what, res.feature_s, res.convert_s);
        if (M) check_spmv(what, M, A);
        if (M && M->format != GS_FORMAT_CSR && M->format != GS_FORMAT_CUSPARSE) {
            /* (CSR and cuSPARSE keep the matrix as given) */
            CHECK_OK(gs_spmat_to_csr(M, &back));
            if (back) CHECK_OK(gs_csr_download(back, &hb));
            CHECK_MSG(hb && same_csr(A, hb), "%s: CSR -> %s -> CSR differs", what,
                      gs_format_name(res.format));
        }
        /* the diagonals' place in the scratch is back at rest */
        CHECK_MSG(gs_cds_spec_scratch_count() == 0, "%s: the scratch holds %ld diagonals", what,
                  gs_cds_spec_scratch_count());
        printf("  %-34s %-8s taken %ld (%s)\n", what, gs_format_name(res.format), got, res.reason);
    }
    gs_error_clear();
    gs_spmat_destroy(&M);
    gs_csr_destroy(&hb);
    gs_csr_destroy(&back);
    gs_csr_destroy(&dA);
    gs_csr_destroy(&A);
}

static void check_speculation(void)
{
    printf("speculative CDS fill (device auto)\n");
    check_spec("7-point 32^3", gen("poisson", 32, 7, 1), GS_FORMAT_CDS, 1, 0);
    /* uneven rows: the pass saturates, the queued fill does nothing, cuSPARSE runs (too few
     * entries for SURAA's conversion) */
    check_spec("power law 40000", gen("powerlaw", 40000, 0, 1), GS_FORMAT_CUSPARSE, 0, 0);
    check_spec("7-point 32^3 again", gen("poisson", 32, 7, 1), GS_FORMAT_CDS, 1, 0);
    check_spec("anisotropic 9-point 256^2", gen("anisotropic", 256, 9, 1), GS_FORMAT_CDS, 1, 0);
    /* dof 2: 21 diagonals at block size 1, more than the 15 the arrays hold: block size 2 by
     * the ordinary fill */
    check_spec("7-point 26^3 dof 2", gen("poisson", 26, 7, 2), GS_FORMAT_CDS, 0, 0);
    /* each of the speculation's three allocations fails in turn: the selection goes on
     * without it (the ordinary fill), the scratch is cleared, and a pass that lists nothing
     * (dof 2) and the next stencil work as before */
    for (long k = 1; k <= 3; k++) {
        char what[64];
        snprintf(what, sizeof what, "7-point 32^3, allocation %ld fails", k);
        check_spec(what, gen("poisson", 32, 7, 1), GS_FORMAT_CDS, 0, k);
        check_spec("7-point 26^3 dof 2 after", gen("poisson", 26, 7, 2), GS_FORMAT_CDS, 0, 0);
    }
    check_spec("7-point 32^3 after", gen("poisson", 32, 7, 1), GS_FORMAT_CDS, 1, 0);
    /* small: the rules give csr, no speculation */
    check_spec("7-point 16^3", gen("poisson", 16, 7, 1), GS_FORMAT_CSR, 0, 0);
}
#endif

int main(int argc, char **argv)
{
    const int gpu = argc > 1 && strcmp(argv[1], "--gpu") == 0;
    if (gpu) {
        if (gs_backend_cuda_devices(NULL) == 0) return 77;
        if (gs_backend_cuda_init(0, NULL, 0) != GS_OK) return 77;
        check_device_features();
        check_selection(GS_LOC_DEVICE);
#ifdef GS_HAVE_CUDA
        check_speculation();
#endif
        return gs_test_result("test_select_gpu");
    }
    check_features_host();
    check_cds_alignment();
    check_rules();
    check_selection(GS_LOC_HOST);
    check_alloc_failures("auto");
    check_alloc_failures("measure");
    return gs_test_result("test_select");
}

/* test_gen.c: the problem generators: closed-form sizes, exact entries, symmetry, block
 * structure, row sums, determinism, parameter errors and leak-free failure paths. */
#include <stdint.h>

#include "gs_csr.h"
#include "gs_gen.h"
#include "gs_mem.h"
#include "gs_test.h"

/* parameters with the test defaults: epsilon 0.25, velocity 3, degree 8, exponent 2.5, seed 1 */
static gs_gen_params params(const char *type, int64_t size, int stencil, int dof)
{
    gs_gen_params p = {.type = type,
                       .size = size,
                       .stencil = stencil,
                       .dof = dof,
                       .seed = 1,
                       .epsilon = 0.25,
                       .velocity = 3.0,
                       .degree = 8.0,
                       .exponent = 2.5};
    return p;
}

/* generate (must succeed) and validate the structure; NULL on failure */
static gs_csr *gen(const gs_gen_params *p, char *desc, size_t len)
{
    gs_csr *A = NULL;
    char buf[200];
    CHECK_OK(gs_gen_matrix(p, &A, desc ? desc : buf, desc ? len : sizeof buf));
    if (A) CHECK_OK(gs_csr_validate(A, "generated"));
    return A;
}

/* A(i, j); *found says whether it is stored */
static double entry(const gs_csr *A, int32_t i, int32_t j, int *found)
{
    for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->colind[k] == j) {
            if (found) *found = 1;
            return A->val[k];
        }
    if (found) *found = 0;
    return 0.0;
}

static int32_t row_len(const gs_csr *A, int32_t i)
{
    return A->rowptr[i + 1] - A->rowptr[i];
}

/* row i is exactly cols[0..n-1] with values vals[0..n-1] */
static void check_row(const gs_csr *A, int32_t i, int n, const int32_t *cols, const double *vals)
{
    CHECK_MSG(row_len(A, i) == n, "row %d has %d entries, expected %d", i, row_len(A, i), n);
    if (row_len(A, i) != n) return;
    for (int k = 0; k < n; k++) {
        int32_t c = A->colind[A->rowptr[i] + k];
        double v = A->val[A->rowptr[i] + k];
        CHECK_MSG(c == cols[k] && v == vals[k], "row %d entry %d: (%d, %g), expected (%d, %g)", i,
                  k, c, v, cols[k], vals[k]);
    }
}

/* A == A^T exactly */
static int is_symmetric(const gs_csr *A)
{
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int found;
            double t = entry(A, A->colind[k], i, &found);
            if (!found || t != A->val[k]) return 0;
        }
    return 1;
}

/* sum of row i */
static double row_sum(const gs_csr *A, int32_t i)
{
    double s = 0.0;
    for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += A->val[k];
    return s;
}

/* closed-form nnz of the scalar stencil on an n^d grid */
static int64_t stencil_nnz(int stencil, int64_t n)
{
    switch (stencil) {
    case 5: return 5 * n * n - 4 * n;
    case 9: return (3 * n - 2) * (3 * n - 2);
    case 7: return 7 * n * n * n - 6 * n * n;
    default: return (3 * n - 2) * (3 * n - 2) * (3 * n - 2);
    }
}

static const char *const grid_types[] = {"poisson", "anisotropic", "convdiff"};
static const int stencils[] = {5, 9, 7, 27};

/* rows and nnz against the closed forms, for every grid type, stencil, size and dof 1, 3 */
static void test_counts(void)
{
    long live0 = gs_mem_live();
    for (int t = 0; t < 3; t++)
        for (int s = 0; s < 4; s++)
            for (int64_t n = 1; n <= 6; n++)
                for (int dof = 1; dof <= 3; dof += 2) {
                    gs_gen_params p = params(grid_types[t], n, stencils[s], dof);
                    gs_csr *A = gen(&p, NULL, 0);
                    if (!A) continue;
                    int64_t pts = stencils[s] == 7 || stencils[s] == 27 ? n * n * n : n * n;
                    CHECK_MSG(A->rows == pts * dof && A->cols == A->rows, "%s %d-pt n=%lld",
                              grid_types[t], stencils[s], (long long)n);
                    CHECK_MSG(A->nnz == stencil_nnz(stencils[s], n) * dof * dof,
                              "%s %d-pt n=%lld dof %d: nnz %d", grid_types[t], stencils[s],
                              (long long)n, dof, A->nnz);
                    gs_csr_destroy(&A);
                    CHECK(gs_mem_live() == live0);
                }
}

/* descriptions of each type */
static void test_desc(void)
{
    struct {
        gs_gen_params p;
        const char *want;
    } cases[] = {
        {params("poisson", 4, 7, 1), "poisson 3D 7-point 4^3"},
        {params("poisson", 4, 7, 3), "poisson 3D 7-point 4^3 dof 3"},
        {params("poisson", 10, 9, 1), "poisson 2D 9-point 10^2"},
        {params("anisotropic", 4, 5, 1), "anisotropic 2D 5-point 4^2 epsilon 0.25"},
        {params("convdiff", 3, 27, 2), "convdiff 3D 27-point 3^3 dof 2 velocity 3"},
        {params("powerlaw", 100, 0, 1), "powerlaw 100 nodes degree 8 exponent 2.5 seed 1"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char desc[200] = "junk";
        gs_csr *A = gen(&cases[c].p, desc, sizeof desc);
        CHECK_MSG(strcmp(desc, cases[c].want) == 0, "desc \"%s\", expected \"%s\"", desc,
                  cases[c].want);
        gs_csr_destroy(&A);
    }
    char small[8];
    gs_gen_params p = params("poisson", 4, 7, 1);
    gs_csr *A = gen(&p, small, sizeof small);
    CHECK(strcmp(small, "poisson") == 0); /* truncated, terminated */
    gs_csr_destroy(&A);
}

/* one row as it must be stored, exactly */
typedef struct row_case {
    int32_t row;
    int n;
    int32_t cols[27];
    double vals[27];
} row_case;

#define NCASES(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* generate p and compare the listed rows; returns A for more checks (caller destroys) */
static gs_csr *check_rows(gs_gen_params p, const row_case *rc, int count)
{
    gs_csr *A = gen(&p, NULL, 0);
    for (int c = 0; A && c < count; c++) check_row(A, rc[c].row, rc[c].n, rc[c].cols, rc[c].vals);
    return A;
}

/* poisson rows by hand: corner, edge, interior (2D index x + 4y, 3D index x + 3y + 9z) */
static void test_poisson_entries(void)
{
    static const row_case r5[] = {{0, 3, {0, 1, 4}, {4, -1, -1}},
                                  {1, 4, {0, 1, 2, 5}, {-1, 4, -1, -1}},
                                  {5, 5, {1, 4, 5, 6, 9}, {-1, -1, 4, -1, -1}},
                                  {15, 3, {11, 14, 15}, {-1, -1, 4}}};
    static const row_case r9[] = {
        {0, 4, {0, 1, 4, 5}, {8, -1, -1, -1}},
        {1, 6, {0, 1, 2, 4, 5, 6}, {-1, 8, -1, -1, -1, -1}},
        {5, 9, {0, 1, 2, 4, 5, 6, 8, 9, 10}, {-1, -1, -1, -1, 8, -1, -1, -1, -1}}};
    static const row_case r7[] = {
        {0, 4, {0, 1, 3, 9}, {6, -1, -1, -1}},
        {1, 5, {0, 1, 2, 4, 10}, {-1, 6, -1, -1, -1}},
        {4, 6, {1, 3, 4, 5, 7, 13}, {-1, -1, 6, -1, -1, -1}},
        {13, 7, {4, 10, 12, 13, 14, 16, 22}, {-1, -1, -1, 6, -1, -1, -1}}};
    static const row_case r27[] = {
        {0, 8, {0, 1, 3, 4, 9, 10, 12, 13}, {26, -1, -1, -1, -1, -1, -1, -1}}};
    gs_csr *A = check_rows(params("poisson", 4, 5, 1), r5, NCASES(r5));
    gs_csr_destroy(&A);
    A = check_rows(params("poisson", 4, 9, 1), r9, NCASES(r9));
    gs_csr_destroy(&A);
    A = check_rows(params("poisson", 3, 7, 1), r7, NCASES(r7));
    gs_csr_destroy(&A);
    A = check_rows(params("poisson", 3, 27, 1), r27, NCASES(r27));
    if (A) { /* the centre couples to all 27 points */
        CHECK(row_len(A, 13) == 27);
        for (int32_t j = 0; j < 27 && row_len(A, 13) == 27; j++)
            CHECK(A->colind[A->rowptr[13] + j] == j &&
                  A->val[A->rowptr[13] + j] == (j == 13 ? 26 : -1));
    }
    gs_csr_destroy(&A);
}

/* anisotropic (epsilon 0.25) rows by hand: x couplings -0.25, xy -0.625, xyz -0.75 */
static void test_aniso_entries(void)
{
    static const row_case r5[] = {{0, 3, {0, 1, 4}, {2.5, -0.25, -1}},
                                  {5, 5, {1, 4, 5, 6, 9}, {-1, -0.25, 2.5, -0.25, -1}}};
    static const row_case r9[] = {{0, 4, {0, 1, 4, 5}, {5, -0.25, -1, -0.625}},
                                  {5,
                                   9,
                                   {0, 1, 2, 4, 5, 6, 8, 9, 10},
                                   {-0.625, -1, -0.625, -0.25, 5, -0.25, -0.625, -1, -0.625}}};
    static const row_case r7[] = {
        {13, 7, {4, 10, 12, 13, 14, 16, 22}, {-1, -1, -0.25, 4.5, -0.25, -1, -1}}};
    gs_csr *A = check_rows(params("anisotropic", 4, 5, 1), r5, NCASES(r5));
    gs_csr_destroy(&A);
    A = check_rows(params("anisotropic", 4, 9, 1), r9, NCASES(r9));
    gs_csr_destroy(&A);
    A = check_rows(params("anisotropic", 3, 7, 1), r7, NCASES(r7));
    gs_csr_destroy(&A);
    gs_gen_params p = params("anisotropic", 3, 27, 1);
    A = gen(&p, NULL, 0);
    if (A) {
        CHECK(row_len(A, 13) == 27);
        CHECK(entry(A, 13, 13, NULL) == 19.5); /* 2(0.25) + 4(1) + 8(0.625) + 4(1) + 8(0.75) */
        CHECK(entry(A, 13, 14, NULL) == -0.25 && entry(A, 13, 12, NULL) == -0.25);
        CHECK(entry(A, 13, 16, NULL) == -1 && entry(A, 13, 22, NULL) == -1);
        CHECK(entry(A, 13, 25, NULL) == -1);     /* (0, 1, 1) */
        CHECK(entry(A, 13, 17, NULL) == -0.625); /* (1, 1, 0) */
        CHECK(entry(A, 13, 23, NULL) == -0.625); /* (1, 0, 1) */
        CHECK(entry(A, 13, 26, NULL) == -0.75 && entry(A, 13, 0, NULL) == -0.75);
        CHECK(entry(A, 0, 0, NULL) == 19.5 && row_len(A, 0) == 8);
        CHECK(row_sum(A, 13) == 0.0);
    }
    gs_csr_destroy(&A);
}

/* convdiff rows by hand: n = 3 so h = 1/4; velocity 3 -> vh = 0.75, velocity 4 -> vh = 1 */
static void test_convdiff_entries(void)
{
    static const row_case r5[] = {{0, 3, {0, 1, 3}, {5.5, -1, -1}},
                                  {4, 5, {1, 3, 4, 5, 7}, {-1.75, -1.75, 5.5, -1, -1}},
                                  {8, 3, {5, 7, 8}, {-1.75, -1.75, 5.5}}};
    static const row_case r5neg[] = {{4, 5, {1, 3, 4, 5, 7}, {-1, -1, 5.5, -1.75, -1.75}}};
    static const row_case r9[] = {
        {4, 9, {0, 1, 2, 3, 4, 5, 6, 7, 8}, {-1, -1.75, -1, -1.75, 9.5, -1, -1, -1, -1}}};
    static const row_case r7[] = {{13, 7, {4, 10, 12, 13, 14, 16, 22}, {-2, -2, -2, 9, -1, -1, -1}},
                                  {0, 4, {0, 1, 3, 9}, {9, -1, -1, -1}}};
    gs_gen_params p = params("convdiff", 3, 5, 1);
    gs_csr *A = check_rows(p, r5, NCASES(r5));
    if (A) CHECK(!is_symmetric(A) && entry(A, 4, 3, NULL) == -1.75 && entry(A, 3, 4, NULL) == -1);
    gs_csr_destroy(&A);
    p.velocity = -3.0; /* upwind is now the +x, +y neighbour */
    A = check_rows(p, r5neg, NCASES(r5neg));
    gs_csr_destroy(&A);
    A = check_rows(params("convdiff", 3, 9, 1), r9, NCASES(r9));
    if (A) CHECK(!is_symmetric(A));
    gs_csr_destroy(&A);
    p = params("convdiff", 3, 7, 1);
    p.velocity = 4.0;
    A = check_rows(p, r7, NCASES(r7));
    gs_csr_destroy(&A);
    p.stencil = 27;
    A = gen(&p, NULL, 0);
    if (A) {
        CHECK(row_len(A, 13) == 27 && entry(A, 13, 13, NULL) == 29);
        CHECK(entry(A, 13, 12, NULL) == -2 && entry(A, 13, 10, NULL) == -2);
        CHECK(entry(A, 13, 4, NULL) == -2 && entry(A, 13, 14, NULL) == -1);
        CHECK(entry(A, 13, 0, NULL) == -1 && entry(A, 13, 26, NULL) == -1);
        CHECK(row_sum(A, 13) == 0.0 && !is_symmetric(A));
    }
    gs_csr_destroy(&A);
}

/* every grid type and stencil on 7^d (h = 1/8 keeps convdiff exact): rows with the full
 * stencil sum to 0, boundary rows to > 0 (poisson: exactly the number of missing neighbours);
 * poisson and anisotropic are symmetric, convdiff is not; convdiff at velocity 0 is poisson */
static void test_sums_symmetry(void)
{
    long live0 = gs_mem_live();
    for (int t = 0; t < 3; t++)
        for (int s = 0; s < 4; s++) {
            gs_gen_params p = params(grid_types[t], 7, stencils[s], 1);
            gs_csr *A = gen(&p, NULL, 0);
            if (!A) continue;
            int bad = 0;
            for (int32_t i = 0; i < A->rows; i++) {
                int32_t len = row_len(A, i);
                double sum = row_sum(A, i);
                if (len == stencils[s] ? sum != 0.0 : !(sum > 0.0)) bad++;
                if (t == 0 && sum != stencils[s] - len) bad++;
            }
            CHECK_MSG(bad == 0, "%s %d-point: %d rows with a wrong sum", grid_types[t], stencils[s],
                      bad);
            CHECK_MSG(is_symmetric(A) == (t != 2), "%s %d-point symmetry", grid_types[t],
                      stencils[s]);
            gs_csr_destroy(&A);
        }
    for (int s = 0; s < 4; s++) {
        gs_gen_params p = params("convdiff", 5, stencils[s], 2),
                      q = params("poisson", 5, stencils[s], 2);
        p.velocity = 0.0;
        gs_csr *A = gen(&p, NULL, 0), *B = gen(&q, NULL, 0);
        CHECK(A && B && A->nnz == B->nnz);
        if (A && B && A->nnz == B->nnz) {
            CHECK(memcmp(A->rowptr, B->rowptr, sizeof(int32_t) * ((size_t)A->rows + 1)) == 0);
            CHECK(memcmp(A->colind, B->colind, sizeof(int32_t) * (size_t)A->nnz) == 0);
            CHECK(memcmp(A->val, B->val, sizeof(double) * (size_t)A->nnz) == 0);
        }
        gs_csr_destroy(&A);
        gs_csr_destroy(&B);
    }
    CHECK(gs_mem_live() == live0);
}

/* A (dof 3) against L (dof 1): A(3p+a, 3q+b) = L(p,q) 0.5^|a-b| for every stored L(p,q),
 * row lengths 3x, nnz 9x (so nothing else is stored); symmetry as for dof 1 */
static void check_blocks(const gs_csr *L, const gs_csr *A, int dof)
{
    static const double pw[] = {1.0, 0.5, 0.25};
    int bad = 0;
    CHECK(A->rows == L->rows * dof && A->nnz == L->nnz * dof * dof);
    if (A->rows != L->rows * dof) return;
    for (int32_t p = 0; p < L->rows; p++)
        for (int a = 0; a < dof; a++) {
            if (row_len(A, p * dof + a) != row_len(L, p) * dof) bad++;
            for (int32_t k = L->rowptr[p]; k < L->rowptr[p + 1]; k++)
                for (int b = 0; b < dof; b++) {
                    int found;
                    double v = entry(A, p * dof + a, L->colind[k] * dof + b, &found);
                    if (!found || v != L->val[k] * pw[a > b ? a - b : b - a]) bad++;
                }
        }
    CHECK_MSG(bad == 0, "%d wrong block entries or row lengths", bad);
}

static void test_dof(void)
{
    long live0 = gs_mem_live();
    for (int t = 0; t < 3; t++)
        for (int s = 0; s < 4; s++) {
            gs_gen_params p = params(grid_types[t], 3, stencils[s], 1);
            gs_csr *L = gen(&p, NULL, 0);
            p.dof = 3;
            gs_csr *A = gen(&p, NULL, 0);
            if (L && A) {
                check_blocks(L, A, 3);
                CHECK_MSG(is_symmetric(A) == (t != 2), "%s %d-point dof 3 symmetry", grid_types[t],
                          stencils[s]);
            }
            gs_csr_destroy(&L);
            gs_csr_destroy(&A);
        }
    /* one row spelled out: 2D 5-point n = 2 dof 2, row 0 = point 0 component 0 */
    static const row_case r[] = {{0, 6, {0, 1, 2, 3, 4, 5}, {4, 2, -1, -0.5, -1, -0.5}}};
    gs_csr *A = check_rows(params("poisson", 2, 5, 2), r, NCASES(r));
    gs_csr_destroy(&A);
    CHECK(gs_mem_live() == live0);
}

/* order-dependent checksum of the arrays (values are small integers for powerlaw) */
static uint64_t checksum(const gs_csr *A)
{
    uint64_t h = 1469598103934665603ULL;
    for (int32_t i = 0; i <= A->rows; i++) h = (h ^ (uint64_t)A->rowptr[i]) * 1099511628211ULL;
    for (int32_t k = 0; k < A->nnz; k++) {
        h = (h ^ (uint64_t)A->colind[k]) * 1099511628211ULL;
        h = (h ^ (uint64_t)(int64_t)A->val[k]) * 1099511628211ULL;
    }
    return h;
}

static int same_matrix(const gs_csr *A, const gs_csr *B)
{
    return A->rows == B->rows && A->nnz == B->nnz &&
           memcmp(A->rowptr, B->rowptr, sizeof(int32_t) * ((size_t)A->rows + 1)) == 0 &&
           memcmp(A->colind, B->colind, sizeof(int32_t) * (size_t)A->nnz) == 0 &&
           memcmp(A->val, B->val, sizeof(double) * (size_t)A->nnz) == 0;
}

/* graph Laplacian + I: off-diagonals negative integers, diagonal = 1 + sum |off| exactly */
static void check_laplacian(const gs_csr *A)
{
    int bad = 0;
    for (int32_t i = 0; i < A->rows; i++) {
        double diag = 0.0, off = 0.0;
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            double v = A->val[k];
            if (A->colind[k] == i)
                diag = v;
            else if (v < 0 && v == floor(v))
                off -= v;
            else
                bad++;
        }
        if (diag != 1.0 + off || row_sum(A, i) != 1.0) bad++;
    }
    CHECK_MSG(bad == 0, "%d rows are not rows of D - W + I", bad);
}

static void test_powerlaw(void)
{
    long live0 = gs_mem_live();
    gs_gen_params p = params("powerlaw", 2000, 0, 1);
    gs_csr *A = gen(&p, NULL, 0), *B = gen(&p, NULL, 0), *C = NULL;
    p.seed = 2;
    C = gen(&p, NULL, 0);
    if (A && B && C) {
        gs_row_stats rs;
        gs_csr_row_stats(A, &rs);
        CHECK(A->rows == 2000 && A->cols == 2000);
        CHECK(same_matrix(A, B));
        CHECK(!same_matrix(A, C));
        CHECK(is_symmetric(A) && is_symmetric(C));
        check_laplacian(A);
        check_laplacian(C);
        /* mean degree near 8 (self loops dropped, multi-edges merged), heavy tail */
        double mean_deg = (double)(A->nnz - A->rows) / A->rows;
        CHECK_MSG(mean_deg > 6.0 && mean_deg <= 8.0, "mean degree %g", mean_deg);
        CHECK_MSG(rs.max > 8 * rs.mean && rs.std > rs.mean, "max %d mean %g std %g", rs.max,
                  rs.mean, rs.std);
        CHECK(rs.min >= 1 && rs.rows_without_diag == 0);
        CHECK(row_len(A, 0) > 5 * rs.mean && row_len(A, 1999) < rs.mean);
        /* golden value, cross-checked against an independent Python version of the sampler */
        CHECK_MSG(checksum(A) == 0x1ca2f7c10eb4d8e3ULL, "checksum 0x%016llx",
                  (unsigned long long)checksum(A));
    }
    gs_csr_destroy(&A);
    gs_csr_destroy(&B);
    gs_csr_destroy(&C);
    p = params("powerlaw", 1, 0, 1); /* one node: every draw is a self loop, A = [1] */
    A = gen(&p, NULL, 0);
    if (A) CHECK(A->rows == 1 && A->nnz == 1 && A->val[0] == 1.0);
    gs_csr_destroy(&A);
    p = params("powerlaw", 300, 0, 1);
    p.exponent = 3.5;
    p.degree = 3;
    A = gen(&p, NULL, 0);
    if (A) {
        CHECK(is_symmetric(A));
        check_laplacian(A);
    }
    gs_csr_destroy(&A);
    CHECK(gs_mem_live() == live0);
}

/* x^T A x > 0 for a few random x */
static void check_pd(const gs_csr *A, const char *what)
{
    double *x = malloc(sizeof(double) * (size_t)A->rows);
    double *y = malloc(sizeof(double) * (size_t)A->rows);
    for (uint64_t seed = 1; x && y && seed <= 4; seed++) {
        gs_gen_random_vector(seed, x, A->rows);
        gs_csr_spmv_host(A, x, y);
        double q = 0.0;
        for (int32_t i = 0; i < A->rows; i++) q += x[i] * y[i];
        CHECK_MSG(q > 0.0, "%s: x^T A x = %g for seed %llu", what, q, (unsigned long long)seed);
    }
    free(x);
    free(y);
}

static void test_positive_definite(void)
{
    for (int t = 0; t < 3; t++)
        for (int s = 0; s < 4; s++)
            for (int dof = 1; dof <= 3; dof += 2) {
                gs_gen_params p = params(grid_types[t], 6, stencils[s], dof);
                p.epsilon = 1e-3;
                char desc[200];
                gs_csr *A = gen(&p, desc, sizeof desc);
                if (A) check_pd(A, desc);
                gs_csr_destroy(&A);
            }
    gs_gen_params p = params("powerlaw", 5000, 0, 1);
    gs_csr *A = gen(&p, NULL, 0);
    if (A) check_pd(A, "powerlaw");
    gs_csr_destroy(&A);
}

/* splitmix64 stream: the reference first outputs for seed 0, range, prefix property */
static void test_random_vector(void)
{
    const uint64_t ref[3] = {0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL, 0x06c45d188009454fULL};
    double x[3], *big = malloc(sizeof(double) * 300000), *b2 = malloc(sizeof(double) * 300000);
    gs_gen_random_vector(0, x, 3);
    for (int i = 0; i < 3; i++)
        CHECK_MSG(x[i] == 2.0 * ((double)(ref[i] >> 11) * 0x1.0p-53) - 1.0, "x[%d] = %.17g", i,
                  x[i]);
    if (!big || !b2) {
        CHECK(!"out of memory");
        free(big);
        free(b2);
        return;
    }
    gs_gen_random_vector(42, big, 300000); /* large enough to run threaded */
    gs_gen_random_vector(42, x, 3);
    CHECK(x[0] == big[0] && x[1] == big[1] && x[2] == big[2]);
    gs_gen_random_vector(43, b2, 300000);
    double sum = 0.0, lo = 1.0, hi = -1.0;
    int differ = 0;
    for (int i = 0; i < 300000; i++) {
        sum += big[i];
        lo = big[i] < lo ? big[i] : lo;
        hi = big[i] > hi ? big[i] : hi;
        differ += big[i] != b2[i];
    }
    CHECK(lo >= -1.0 && hi < 1.0 && lo < -0.999 && hi > 0.999);
    CHECK_MSG(fabs(sum / 300000) < 0.01, "mean %g", sum / 300000);
    CHECK(differ > 299000);
    free(big);
    free(b2);
}

/* the call fails with code and a message containing substr, leaving nothing behind */
static void check_error(const gs_gen_params *p, gs_status code, const char *substr)
{
    long live0 = gs_mem_live();
    gs_csr dummy, *A = &dummy; /* must be reset to NULL */
    char desc[64] = "junk";
    CHECK_FAIL(gs_gen_matrix(p, &A, desc, sizeof desc), code, substr);
    CHECK(A == NULL && desc[0] == '\0');
    CHECK(gs_mem_live() == live0);
}

static void test_errors(void)
{
    gs_gen_params p = params("foo", 4, 7, 1);
    check_error(
        &p, GS_ERR_ARG,
        "unknown generator type 'foo': expected poisson, anisotropic, convdiff, powerlaw, jumps, "
        "rotated or elasticity");
    p.type = NULL;
    check_error(&p, GS_ERR_ARG, "unknown generator type");
    /* the registry: problem.generate.type's choices in their order, each found by its name */
    CHECK(strcmp(gs_gen_choices(), "poisson|anisotropic|convdiff|powerlaw|jumps|rotated|"
                                   "elasticity") == 0);
    for (int i = 0; gs_gen_at(i); i++)
        CHECK(gs_gen_find(gs_gen_at(i)->name) == gs_gen_at(i) && gs_gen_at(i)->help[0] &&
              gs_gen_at(i)->build);
    CHECK(gs_gen_find("foo") == NULL && gs_gen_find(NULL) == NULL);
    p = params("poisson", 4, 6, 1);
    check_error(&p, GS_ERR_ARG, "stencil 6: expected 5 or 9 (2D), 7 or 27 (3D)");
    p = params("convdiff", 0, 7, 1);
    check_error(&p, GS_ERR_ARG, "convdiff: size 0: expected at least 1");
    p = params("poisson", -3, 5, 1);
    check_error(&p, GS_ERR_ARG, "size -3");
    p = params("poisson", 4, 7, 0);
    check_error(&p, GS_ERR_ARG, "dof 0: expected at least 1");
    p = params("anisotropic", 4, 7, 1);
    p.epsilon = 0.0;
    check_error(&p, GS_ERR_ARG, "epsilon 0: expected a finite value > 0");
    p.epsilon = -1.0;
    check_error(&p, GS_ERR_ARG, "epsilon -1");
    p = params("convdiff", 4, 7, 1);
    p.velocity = NAN;
    check_error(&p, GS_ERR_ARG, "velocity");
    p = params("powerlaw", 100, 0, 3);
    check_error(&p, GS_ERR_ARG, "dof 3: dof applies to the grid types only");
    p.dof = 1;
    p.exponent = 2.0;
    check_error(&p, GS_ERR_ARG, "exponent 2: expected a value > 2");
    p.exponent = 2.5;
    p.degree = 0.0;
    check_error(&p, GS_ERR_ARG, "degree 0");
    p.degree = -1.0;
    check_error(&p, GS_ERR_ARG, "degree -1");
    p = params("powerlaw", 0, 0, 1);
    check_error(&p, GS_ERR_ARG, "powerlaw: size 0");
    CHECK_FAIL(gs_gen_matrix(NULL, &(gs_csr *){NULL}, NULL, 0), GS_ERR_ARG, "no generator");
}

/* problems at or beyond 2^31 rows or nonzeros, refused before allocating anything */
static void test_limits(void)
{
    gs_gen_params p = params("poisson", 2000, 7, 1);
    check_error(&p, GS_ERR_UNSUPPORTED, "poisson 3D 7-point 2000^3: 8e+09 rows");
    p = params("poisson", 50000, 5, 1);
    check_error(&p, GS_ERR_UNSUPPORTED, "2.5e+09 rows");
    p = params("poisson", (int64_t)1 << 40, 27, 1); /* n^3 overflows int64 */
    check_error(&p, GS_ERR_UNSUPPORTED, "rows");
    p = params("poisson", 500, 27, 1); /* 1.25e8 rows, 3.36e9 nonzeros */
    check_error(&p, GS_ERR_UNSUPPORTED, "3.362e+09 nonzeros");
    p = params("anisotropic", 100, 7, 20); /* 2e7 rows, 2.78e9 nonzeros */
    check_error(&p, GS_ERR_UNSUPPORTED, "nonzeros");
    p = params("poisson", 46341, 5, 1); /* 46341^2 = 2147488281 rows */
    check_error(&p, GS_ERR_UNSUPPORTED, "rows");
    p = params("powerlaw", 3000000000LL, 0, 1);
    check_error(&p, GS_ERR_UNSUPPORTED, "powerlaw 3000000000 nodes");
    p = params("powerlaw", 10000, 0, 1);
    p.degree = 1e6;
    check_error(&p, GS_ERR_UNSUPPORTED, "nonzeros");
}

/* the k-th allocation fails: NOMEM, nothing leaked, until the call succeeds */
static void test_alloc_failures(void)
{
    gs_gen_params cases[] = {params("poisson", 3, 7, 2), params("convdiff", 4, 9, 1),
                             params("powerlaw", 200, 0, 1)};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        long live0 = gs_mem_live();
        int k, failures = 0;
        for (k = 1; k < 100; k++) {
            gs_csr *A = NULL;
            gs_error_clear();
            gs_mem_fail_at(k);
            gs_status st = gs_gen_matrix(&cases[c], &A, NULL, 0);
            gs_mem_fail_at(0);
            gs_error_clear();
            if (st == GS_OK) {
                gs_csr_destroy(&A);
                break;
            }
            failures++;
            CHECK_MSG(st == GS_ERR_NOMEM && A == NULL, "case %zu, allocation %d: %s", c, k,
                      gs_status_str(st));
            CHECK_MSG(gs_mem_live() == live0, "case %zu, allocation %d leaks", c, k);
        }
        CHECK_MSG(k < 100 && failures >= 3, "case %zu: %d failures", c, failures);
        CHECK(gs_mem_live() == live0);
    }
}

/* ------------------------------------------------------------------ grids that are not cubic */

/* p with the grid nx x ny [x nz] (0: size) */
static gs_gen_params grid(gs_gen_params p, int64_t nx, int64_t ny, int64_t nz)
{
    p.nx = nx;
    p.ny = ny;
    p.nz = nz;
    return p;
}

/* every row of poisson (stencil 5, 9, 7 or 27, dof 1) on an nx x ny [x nz] grid against the
 * stencil: point x + nx*(y + ny*z) couples to each stencil neighbour inside the grid, in
 * column order, by -1, and to itself by 2 dim (axis stencil) or 3^dim - 1 (full one) */
static void check_poisson_grid(int stencil, int64_t nx, int64_t ny, int64_t nz)
{
    int dim = stencil == 7 || stencil == 27 ? 3 : 2, full = stencil == 9 || stencil == 27;
    int64_t n[3] = {nx, ny, dim == 3 ? nz : 1}, pts = n[0] * n[1] * n[2];
    gs_gen_params p = grid(params("poisson", 2, stencil, 1), nx, ny, dim == 3 ? nz : 0);
    gs_csr *A = gen(&p, NULL, 0);
    int bad = 0;
    if (!A) return;
    CHECK_MSG(A->rows == pts, "poisson %d-pt %lldx%lldx%lld: %d rows", stencil, (long long)nx,
              (long long)ny, (long long)nz, A->rows);
    for (int32_t i = 0; i < A->rows && A->rows == pts; i++) {
        int64_t x = i % nx, y = i / nx % ny, z = i / (nx * ny);
        int32_t k = A->rowptr[i];
        int zr = dim == 3;
        for (int dz = -zr; dz <= zr; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int l1 = abs(dx) + abs(dy) + abs(dz);
                    if (!full && l1 > 1) continue;
                    if (x + dx < 0 || x + dx >= n[0] || y + dy < 0 || y + dy >= n[1] ||
                        z + dz < 0 || z + dz >= n[2])
                        continue;
                    int32_t j = (int32_t)(x + dx + nx * (y + dy + ny * (z + dz)));
                    double v = l1 == 0 ? (full ? (dim == 3 ? 26 : 8) : 2 * dim) : -1;
                    if (k >= A->rowptr[i + 1] || A->colind[k] != j || A->val[k] != v) bad++;
                    k++;
                }
        if (k != A->rowptr[i + 1]) bad++;
    }
    CHECK_MSG(bad == 0, "poisson %d-pt %lldx%lldx%lld: %d wrong entries", stencil, (long long)nx,
              (long long)ny, (long long)nz, bad);
    gs_csr_destroy(&A);
}

/* nx, ny, nz: 0 is size; 3x4x5 by hand; every stencil against the brute-force rows; counts
 * against the closed forms; descriptions; the other grid types; errors and limits */
static void test_extents(void)
{
    long live0 = gs_mem_live();
    /* poisson 7-point 3x4x5: N = 60, 7N - 2(ny nz + nx nz + nx ny) = 420 - 94 = 326 */
    static const row_case r7[] = {
        {0, 4, {0, 1, 3, 12}, {6, -1, -1, -1}},                            /* corner (0,0,0) */
        {16, 7, {4, 13, 15, 16, 17, 19, 28}, {-1, -1, -1, 6, -1, -1, -1}}, /* (1,1,1) */
        {59, 4, {47, 56, 58, 59}, {-1, -1, -1, 6}}};                       /* corner (2,3,4) */
    char desc[200];
    gs_gen_params p = grid(params("poisson", 7, 7, 1), 3, 4, 5);
    gs_csr *A = check_rows(p, r7, NCASES(r7));
    if (A) {
        CHECK(A->rows == 60 && A->nnz == 7 * 60 - 2 * (4 * 5 + 3 * 5 + 3 * 4) && A->nnz == 326);
        CHECK(is_symmetric(A));
    }
    gs_csr_destroy(&A);
    for (int s = 0; s < 4; s++) {
        check_poisson_grid(stencils[s], 3, 4, 5);
        check_poisson_grid(stencils[s], 5, 2, 3);
        check_poisson_grid(stencils[s], 1, 6, 2);
        check_poisson_grid(stencils[s], 4, 1, 1);
    }
    /* counts: rows nx ny [nz] dof, nnz of the closed forms, for every grid type and dof */
    for (int t = 0; t < 3; t++)
        for (int s = 0; s < 4; s++)
            for (int dof = 1; dof <= 2; dof++) {
                int three = stencils[s] == 7 || stencils[s] == 27;
                int64_t nx = 4, ny = 2, nz = three ? 3 : 1, pts = nx * ny * nz, nnz;
                if (stencils[s] == 9 || stencils[s] == 27)
                    nnz = (3 * nx - 2) * (3 * ny - 2) * (three ? 3 * nz - 2 : 1);
                else
                    nnz = (2 * (three ? 3 : 2) + 1) * pts -
                          2 * (ny * nz + nx * nz + (three ? nx * ny : 0));
                p = grid(params(grid_types[t], 9, stencils[s], dof), nx, ny, three ? nz : 0);
                A = gen(&p, NULL, 0);
                if (A)
                    CHECK_MSG(A->rows == pts * dof && A->nnz == nnz * dof * dof,
                              "%s %d-pt 4x2x%lld dof %d: %d rows, %d nnz", grid_types[t],
                              stencils[s], (long long)nz, dof, A->rows, A->nnz);
                gs_csr_destroy(&A);
            }
    /* unset, or set to size: the cubic matrix and description bit for bit */
    for (int t = 0; t < 3; t++)
        for (int s = 0; s < 4; s++) {
            int three = stencils[s] == 7 || stencils[s] == 27;
            char d0[200], d1[200], d2[200];
            gs_gen_params q = params(grid_types[t], 4, stencils[s], 2);
            gs_csr *A0 = gen(&q, d0, sizeof d0);
            gs_gen_params q1 = grid(q, 4, 4, three ? 4 : 0), q2 = grid(q, 0, 4, 0);
            gs_csr *A1 = gen(&q1, d1, sizeof d1), *A2 = gen(&q2, d2, sizeof d2);
            if (A0 && A1 && A2)
                CHECK_MSG(same_matrix(A0, A1) && same_matrix(A0, A2) && strcmp(d0, d1) == 0 &&
                              strcmp(d0, d2) == 0,
                          "%s %d-pt: nx, ny, nz = size differs from the cubic grid (%s, %s)",
                          grid_types[t], stencils[s], d0, d1);
            gs_csr_destroy(&A0);
            gs_csr_destroy(&A1);
            gs_csr_destroy(&A2);
        }
    /* descriptions */
    struct {
        gs_gen_params p;
        const char *want;
    } cases[] = {
        {grid(params("poisson", 7, 7, 1), 3, 4, 5), "poisson 3D 7-point 3x4x5"},
        {grid(params("poisson", 4, 7, 1), 0, 0, 8), "poisson 3D 7-point 4x4x8"},
        {grid(params("poisson", 4, 27, 3), 2, 0, 0), "poisson 3D 27-point 2x4x4 dof 3"},
        {grid(params("poisson", 4, 7, 1), 4, 4, 4), "poisson 3D 7-point 4^3"},
        {grid(params("anisotropic", 4, 5, 1), 0, 6, 0), "anisotropic 2D 5-point 4x6 epsilon 0.25"},
        {grid(params("convdiff", 4, 9, 1), 3, 3, 0), "convdiff 2D 9-point 3^2 velocity 3"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        A = gen(&cases[c].p, desc, sizeof desc);
        CHECK_MSG(strcmp(desc, cases[c].want) == 0, "desc \"%s\", expected \"%s\"", desc,
                  cases[c].want);
        gs_csr_destroy(&A);
    }
    /* anisotropic 3x2 (5-point): epsilon stays on the x couplings; convdiff 3x2: h = 1/(3+1)
     * from the longest extent, so the rows of point (1,1) are those of the 3^2 grid's point
     * (1,1) without the y+1 neighbour */
    static const row_case ra[] = {{4, 4, {1, 3, 4, 5}, {-1, -0.25, 2.5, -0.25}}};
    A = check_rows(grid(params("anisotropic", 9, 5, 1), 3, 2, 0), ra, NCASES(ra));
    if (A) CHECK(A->rows == 6 && is_symmetric(A));
    gs_csr_destroy(&A);
    static const row_case rc[] = {{4, 4, {1, 3, 4, 5}, {-1.75, -1.75, 5.5, -1}},
                                  {0, 3, {0, 1, 3}, {5.5, -1, -1}}};
    A = check_rows(grid(params("convdiff", 9, 5, 1), 3, 2, 0), rc, NCASES(rc));
    gs_csr_destroy(&A);
    /* errors: nz on a 2D grid, negative extents, powerlaw */
    p = grid(params("poisson", 4, 5, 1), 0, 0, 3);
    check_error(&p, GS_ERR_ARG, "poisson: nz 3: the grid is 2D (nx, ny only), expected 0");
    p = grid(params("convdiff", 4, 7, 1), 0, -2, 0);
    check_error(&p, GS_ERR_ARG, "convdiff: ny -2: expected at least 1 grid point");
    p = grid(params("powerlaw", 100, 0, 1), 5, 0, 0);
    check_error(&p, GS_ERR_ARG, "powerlaw: nx 5: a graph has no grid extents");
    p = grid(params("powerlaw", 100, 0, 1), 0, 0, 2);
    check_error(&p, GS_ERR_ARG, "powerlaw: nz 2");
    /* the 32-bit limits from nx ny nz: 2048 x 1024 x 1024 = 2^31 rows; 1000 x 1000 x 2000
     * points fit 2^31 - 1 but not their 7-point nonzeros */
    p = grid(params("poisson", 1024, 7, 1), 2048, 0, 0);
    check_error(&p, GS_ERR_UNSUPPORTED, "poisson 3D 7-point 2048x1024x1024: 2.147e+09 rows");
    p = grid(params("poisson", 1000, 7, 1), 0, 0, 2000);
    check_error(&p, GS_ERR_UNSUPPORTED, "poisson 3D 7-point 1000x1000x2000: 1.399e+10 nonzeros");
    p = grid(params("poisson", 2, 5, 1), 50000, 50000, 0);
    check_error(&p, GS_ERR_UNSUPPORTED, "2.5e+09 rows");
    CHECK(gs_mem_live() == live0);
}

int main(void)
{
    long live0 = gs_mem_live();
    test_counts();
    test_desc();
    test_poisson_entries();
    test_aniso_entries();
    test_convdiff_entries();
    test_sums_symmetry();
    test_dof();
    test_powerlaw();
    test_positive_definite();
    test_random_vector();
    test_errors();
    test_limits();
    test_extents();
    test_alloc_failures();
    CHECK(gs_mem_live() == live0);
    return gs_test_result("test_gen");
}

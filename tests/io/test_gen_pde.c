/* test_gen_pde.c: the generators of the AMG problem classes (io/gs_gen_pde.c): jumps against
 * coefficients drawn here from an independent xoshiro256** and the harmonic-mean formula;
 * rotated against the Q1 Laplacian and PyAMG's FE stencil; elasticity against hand-computed Q1
 * entries, symmetry, and A times the rigid-body modes; determinism, descriptions, parameter
 * errors, the 32-bit limits and leak-free failure paths. */
#include <stdint.h>

#include "gs_csr.h"
#include "gs_gen.h"
#include "gs_mem.h"
#include "gs_test.h"

#define PI 3.14159265358979323846

/* the defaults of the configuration keys */
static gs_gen_params params(const char *type, int64_t size, int stencil)
{
    gs_gen_params p = {.type = type,
                       .size = size,
                       .stencil = stencil,
                       .dof = 1,
                       .seed = 1,
                       .epsilon = 0.001,
                       .contrast = 1000.0,
                       .block = 8,
                       .angle = 22.5,
                       .E = 1.0,
                       .nu = 0.3};
    return p;
}

/* generate (must succeed), validate the structure (columns sorted and unique) */
static gs_csr *gen(const gs_gen_params *p, double **B, int *k, int *bs)
{
    gs_csr *A = NULL;
    char desc[200];
    CHECK_OK(gs_gen_problem(p, &A, B, k, bs, desc, sizeof desc));
    if (A) CHECK_OK(gs_csr_validate(A, desc));
    return A;
}

/* A(i, j) (0 when not stored); *found says whether it is stored */
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

static int same_matrix(const gs_csr *A, const gs_csr *B)
{
    return A->rows == B->rows && A->nnz == B->nnz &&
           memcmp(A->rowptr, B->rowptr, sizeof(int32_t) * ((size_t)A->rows + 1)) == 0 &&
           memcmp(A->colind, B->colind, sizeof(int32_t) * (size_t)A->nnz) == 0 &&
           memcmp(A->val, B->val, sizeof(double) * (size_t)A->nnz) == 0;
}

/* x^T A x > 0 for a few random x */
static void check_pd(const gs_csr *A, const char *what)
{
    double *x = malloc(sizeof(double) * (size_t)A->rows);
    double *y = malloc(sizeof(double) * (size_t)A->rows);
    for (uint64_t seed = 1; x && y && seed <= 3; seed++) {
        gs_gen_random_vector(seed, x, A->rows);
        gs_csr_spmv_host(A, x, y);
        double q = 0.0;
        for (int32_t i = 0; i < A->rows; i++) q += x[i] * y[i];
        CHECK_MSG(q > 0.0, "%s: x^T A x = %g for seed %llu", what, q, (unsigned long long)seed);
    }
    free(x);
    free(y);
}

/* ------------------------------------------------------------------ an independent stream */

/* splitmix64 then xoshiro256** (Blackman and Vigna's reference algorithms), written again */
typedef struct ref_rng {
    uint64_t s[4];
} ref_rng;

static uint64_t ref_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t ref_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t ref_next(ref_rng *r)
{
    uint64_t *s = r->s, out = ref_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = ref_rotl(s[3], 45);
    return out;
}

/* k for every point of an nx x ny x nz grid: cube after cube (x fastest), {1/c, 1,
 * c}[floor(3u)] */
static void ref_coefficients_grid(uint64_t seed, int64_t nx, int64_t ny, int64_t nz, int64_t b,
                                  double c, double *k)
{
    ref_rng r;
    int64_t bx = (nx + b - 1) / b, by = (ny + b - 1) / b, bz = (nz + b - 1) / b;
    double *cube = malloc(sizeof(double) * (size_t)(bx * by * bz));
    const double v[3] = {1.0 / c, 1.0, c};
    for (int i = 0; i < 4; i++) r.s[i] = ref_splitmix(&seed);
    for (int64_t q = 0; q < bx * by * bz; q++)
        cube[q] = v[(int)(3.0 * ((double)(ref_next(&r) >> 11) * 0x1.0p-53))];
    for (int64_t z = 0; z < nz; z++)
        for (int64_t y = 0; y < ny; y++)
            for (int64_t x = 0; x < nx; x++)
                k[x + nx * (y + ny * z)] = cube[x / b + bx * (y / b + by * (z / b))];
    free(cube);
}

/* the same on an n^3 grid */
static void ref_coefficients(uint64_t seed, int64_t n, int64_t b, double c, double *k)
{
    ref_coefficients_grid(seed, n, n, n, b, c, k);
}

/* ------------------------------------------------------------------ jumps */

/* every entry of jumps (n, block, contrast, seed) against the formula over the reference
 * coefficients: couplings -2 k_i k_j / (k_i + k_j) exactly, the diagonal the sum of the six
 * faces (k_i for a face out of the grid) */
static void check_jumps_grid(int64_t nx, int64_t ny, int64_t nz, int64_t block, double contrast,
                             uint64_t seed)
{
    /* a cubic grid through size with nx, ny, nz unset; any other through nx, ny, nz */
    int cubic = nx == ny && ny == nz;
    gs_gen_params p = params("jumps", cubic ? nx : 2, 7);
    if (!cubic) p.nx = nx, p.ny = ny, p.nz = nz;
    p.block = block;
    p.contrast = contrast;
    p.seed = seed;
    gs_csr *A = gen(&p, NULL, NULL, NULL);
    double *k = malloc(sizeof(double) * (size_t)(nx * ny * nz));
    int bad = 0;
    if (!A || !k) goto out;
    ref_coefficients_grid(seed, nx, ny, nz, block, contrast, k);
    CHECK(A->rows == nx * ny * nz &&
          A->nnz == 7 * nx * ny * nz - 2 * (ny * nz + nx * nz + nx * ny));
    for (int64_t z = 0; z < nz; z++)
        for (int64_t y = 0; y < ny; y++)
            for (int64_t x = 0; x < nx; x++) {
                int32_t i = (int32_t)(x + nx * (y + ny * z)), len = 1;
                const int64_t at[6][3] = {{x - 1, y, z}, {x + 1, y, z}, {x, y - 1, z},
                                          {x, y + 1, z}, {x, y, z - 1}, {x, y, z + 1}};
                double diag = 0.0;
                for (int f = 0; f < 6; f++) {
                    const int64_t *q = at[f];
                    if (q[0] < 0 || q[0] >= nx || q[1] < 0 || q[1] >= ny || q[2] < 0 ||
                        q[2] >= nz) {
                        diag += k[i];
                        continue;
                    }
                    int32_t j = (int32_t)(q[0] + nx * (q[1] + ny * q[2]));
                    double w = 2.0 * (k[i] * k[j]) / (k[i] + k[j]);
                    int found;
                    if (entry(A, i, j, &found) != -w || !found) bad++;
                    diag += w;
                    len++;
                }
                if (A->rowptr[i + 1] - A->rowptr[i] != len) bad++;
                if (fabs(entry(A, i, i, NULL) - diag) > 1e-14 * diag) bad++;
            }
    CHECK_MSG(bad == 0, "jumps %lldx%lldx%lld block %lld contrast %g seed %llu: %d wrong entries",
              (long long)nx, (long long)ny, (long long)nz, (long long)block, contrast,
              (unsigned long long)seed, bad);
    CHECK(is_symmetric(A));
out:
    free(k);
    gs_csr_destroy(&A);
}

static void check_jumps(int64_t n, int64_t block, double contrast, uint64_t seed)
{
    check_jumps_grid(n, n, n, block, contrast, seed);
}

/* 2^3, block 1, seed 4: every point has three faces out of the grid, so the diagonal plus the
 * row's couplings is 3 k_i; that k_i is one of 1/c, 1, c, the one drawn for its cube (golden
 * values from a third, Python, xoshiro256**: 1/c, c, 1, c, 1/c, 1, 1, c), and every coupling is
 * minus the harmonic mean of the two points' k */
static void test_jumps_tiny(void)
{
    const double c = 1000.0;
    const double golden[8] = {1 / c, c, 1, c, 1 / c, 1, 1, c};
    gs_gen_params p = params("jumps", 2, 7);
    p.block = 1;
    p.seed = 4;
    gs_csr *A = gen(&p, NULL, NULL, NULL);
    double kref[8], kmat[8];
    ref_coefficients(4, 2, 1, c, kref);
    for (int i = 0; i < 8; i++) CHECK(kref[i] == golden[i]);
    if (!A) return;
    CHECK(A->rows == 8 && A->nnz == 32);
    int seen[3] = {0, 0, 0};
    for (int32_t i = 0; i < 8; i++) {
        double s = 0.0;
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) s += A->val[q];
        kmat[i] = s / 3.0;
        int which = -1;
        for (int v = 0; v < 3; v++) {
            double want = v == 0 ? 1.0 / c : v == 1 ? 1.0 : c;
            if (fabs(kmat[i] - want) <= 1e-12 * want) which = v;
        }
        CHECK_MSG(which >= 0, "point %d: k = %.17g is not 1/c, 1 or c", i, kmat[i]);
        if (which >= 0) seen[which]++;
        CHECK_MSG(fabs(kmat[i] - kref[i]) <= 1e-12 * kref[i], "point %d: k %.17g, drawn %.17g", i,
                  kmat[i], kref[i]);
    }
    for (int32_t i = 0; i < 8; i++)
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            int32_t j = A->colind[q];
            if (j == i) continue;
            double w = 2.0 * (kref[i] * kref[j]) / (kref[i] + kref[j]);
            CHECK_MSG(A->val[q] == -w, "(%d, %d) = %.17g, expected %.17g", i, j, A->val[q], -w);
        }
    CHECK(seen[0] == 2 && seen[1] == 3 && seen[2] == 3);
    gs_csr_destroy(&A);
}

static void test_jumps(void)
{
    long live0 = gs_mem_live();
    test_jumps_tiny();
    check_jumps(3, 2, 1000.0, 1); /* partial cubes */
    check_jumps(5, 2, 1e6, 3);
    check_jumps(6, 4, 10.0, 42);
    check_jumps(4, 1, 1000.0, 1);
    check_jumps(1, 8, 1000.0, 1);  /* one point: 6 faces out, A = [6 k] */
    check_jumps(9, 20, 1000.0, 5); /* one cube larger than the grid */
    /* grids that are not cubic: cubes numbered x fastest over ceil(n_d / block) per direction */
    check_jumps_grid(3, 4, 5, 2, 1000.0, 1);
    check_jumps_grid(7, 2, 3, 2, 1e6, 3);
    check_jumps_grid(2, 9, 4, 3, 10.0, 42);
    check_jumps_grid(5, 5, 1, 1, 1000.0, 7);
    /* contrast 1 is the 7-point Poisson matrix exactly; stencil and dof keys aside */
    gs_gen_params p = params("jumps", 5, 27), q = params("poisson", 5, 7);
    q.dof = 1;
    p.contrast = 1.0;
    gs_csr *A = gen(&p, NULL, NULL, NULL), *P = gen(&q, NULL, NULL, NULL);
    if (A && P) CHECK(same_matrix(A, P));
    gs_csr_destroy(&A);
    gs_csr_destroy(&P);
    /* determinism: same seed same matrix, another seed another matrix; all three values drawn */
    p = params("jumps", 12, 7);
    p.block = 3;
    gs_csr *A1 = gen(&p, NULL, NULL, NULL), *A2 = gen(&p, NULL, NULL, NULL), *A3 = NULL;
    p.seed = 2;
    A3 = gen(&p, NULL, NULL, NULL);
    if (A1 && A2 && A3) {
        CHECK(same_matrix(A1, A2));
        CHECK(!same_matrix(A1, A3) && A1->nnz == A3->nnz);
        int seen[3] = {0, 0, 0};
        for (int32_t i = 0; i < A1->rows; i++) {
            double d = entry(A1, i, i, NULL);
            seen[d < 0.1 ? 0 : d < 100 ? 1 : 2]++;
        }
        CHECK_MSG(seen[0] && seen[1] && seen[2], "diagonal classes %d %d %d", seen[0], seen[1],
                  seen[2]);
        check_pd(A1, "jumps 12^3");
    }
    gs_csr_destroy(&A1);
    gs_csr_destroy(&A2);
    gs_csr_destroy(&A3);
    CHECK(gs_mem_live() == live0);
}

/* ------------------------------------------------------------------ rotated */

/* PyAMG's diffusion_stencil_2d(epsilon, theta, 'FE') (pyamg/gallery/diffusion.py), written
 * again: sten[i][j] with i along its first axis */
static void pyamg_fe(double eps, double theta, double sten[3][3])
{
    double C = cos(theta), S = sin(theta), CS = C * S, CC = C * C, SS = S * S;
    double a = (-1 * eps - 1) * CC + (-1 * eps - 1) * SS + (3 * eps - 3) * CS;
    double b = (2 * eps - 4) * CC + (-4 * eps + 2) * SS;
    double c = (-1 * eps - 1) * CC + (-1 * eps - 1) * SS + (-3 * eps + 3) * CS;
    double d = (-4 * eps + 2) * CC + (2 * eps - 4) * SS;
    double e = (8 * eps + 8) * CC + (8 * eps + 8) * SS;
    double s[3][3] = {{a, b, c}, {d, e, d}, {c, b, a}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) sten[i][j] = s[i][j] / 6.0;
}

/* the centre row (1,1) of rotated 3^2: entry (dx, dy) against PyAMG's sten[dx+1][dy+1] and
 * against the formula of gs_gen.h, to 1e-14 of the diagonal */
static void check_rotated(double eps, double angle)
{
    gs_gen_params p = params("rotated", 3, 9);
    p.epsilon = eps;
    p.angle = angle;
    gs_csr *A = gen(&p, NULL, NULL, NULL);
    if (!A) return;
    double t = angle * PI / 180.0, c = cos(t), s = sin(t), sten[3][3];
    double a = c * c + eps * s * s, d = s * s + eps * c * c, b = (1 - eps) * c * s;
    double mine[3][3] = {{-(a + d) / 6 - b / 2, (a - 2 * d) / 3, -(a + d) / 6 + b / 2},
                         {(d - 2 * a) / 3, 4 * (a + d) / 3, (d - 2 * a) / 3},
                         {-(a + d) / 6 + b / 2, (a - 2 * d) / 3, -(a + d) / 6 - b / 2}};
    pyamg_fe(eps, t, sten); /* mine[dy+1][dx+1] */
    double diag = entry(A, 4, 4, NULL), sum = 0.0;
    CHECK(A->rowptr[5] - A->rowptr[4] == 9);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            double v = entry(A, 4, 4 + dx + 3 * dy, NULL);
            sum += v;
            CHECK_MSG(fabs(v - sten[dx + 1][dy + 1]) <= 1e-14 * diag,
                      "eps %g angle %g (%d, %d): %.17g, PyAMG %.17g", eps, angle, dx, dy, v,
                      sten[dx + 1][dy + 1]);
            CHECK_MSG(fabs(v - mine[dy + 1][dx + 1]) <= 1e-14 * diag,
                      "eps %g angle %g (%d, %d): %.17g, formula %.17g", eps, angle, dx, dy, v,
                      mine[dy + 1][dx + 1]);
        }
    CHECK_MSG(fabs(sum) <= 1e-14 * diag, "row sum %g", sum);
    CHECK(is_symmetric(A));
    gs_csr_destroy(&A);
}

/* rotated on nx x ny: (3nx-2)(3ny-2) nonzeros, symmetric, every entry the one of the square
 * grid of the longer side at the same node pair (the stencil does not depend on the grid) */
static void check_rotated_grid(int64_t nx, int64_t ny)
{
    int64_t m = nx > ny ? nx : ny;
    gs_gen_params p = params("rotated", 2, 9), c = params("rotated", m, 9);
    p.nx = nx, p.ny = ny;
    gs_csr *A = gen(&p, NULL, NULL, NULL), *C = gen(&c, NULL, NULL, NULL);
    if (A && C) {
        CHECK(A->rows == nx * ny && A->nnz == (3 * nx - 2) * (3 * ny - 2) && is_symmetric(A));
        int bad = 0;
        for (int32_t i = 0; i < A->rows; i++)
            for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
                int32_t j = A->colind[q];
                int32_t ci = (int32_t)(i % nx + m * (i / nx)),
                        cj = (int32_t)(j % nx + m * (j / nx));
                int found = 0;
                if (A->val[q] != entry(C, ci, cj, &found) || !found) bad++;
            }
        CHECK_MSG(bad == 0, "rotated %lldx%lld: %d entries differ", (long long)nx, (long long)ny,
                  bad);
    }
    gs_csr_destroy(&A);
    gs_csr_destroy(&C);
}

static void test_rotated(void)
{
    long live0 = gs_mem_live();
    /* angle 0, epsilon 1: the Q1 Laplacian, 8/3 and -1/3 exactly */
    gs_gen_params p = params("rotated", 4, 9);
    p.angle = 0.0;
    p.epsilon = 1.0;
    gs_csr *A = gen(&p, NULL, NULL, NULL);
    if (A) {
        CHECK(A->rows == 16 && A->nnz == 100);
        int bad = 0;
        for (int32_t i = 0; i < 16; i++)
            for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
                if (A->val[q] != (A->colind[q] == i ? 8.0 / 3.0 : -1.0 / 3.0)) bad++;
        CHECK_MSG(bad == 0, "%d entries are not 8/3 or -1/3", bad);
        CHECK(A->rowptr[1] == 4 && A->rowptr[6] - A->rowptr[5] == 9); /* corner, interior */
        static const int32_t cols5[9] = {0, 1, 2, 4, 5, 6, 8, 9, 10};
        for (int q = 0; q < 9 && A->rowptr[6] - A->rowptr[5] == 9; q++)
            CHECK(A->colind[A->rowptr[5] + q] == cols5[q]);
    }
    gs_csr_destroy(&A);
    check_rotated(0.001, 22.5);
    check_rotated(0.1, 60.0);
    check_rotated(1e-6, -30.0);
    check_rotated(1.0, 45.0);
    check_rotated(0.01, 0.0);
    check_rotated_grid(5, 3);
    check_rotated_grid(2, 7);
    check_rotated_grid(1, 4);
    /* angle 0: a = 1, d = epsilon, b = 0: x neighbours (epsilon - 2)/3, y neighbours
     * (1 - 2 epsilon)/3, exactly; the stencil key is ignored */
    p = params("rotated", 5, 7);
    p.angle = 0.0;
    p.epsilon = 0.25;
    A = gen(&p, NULL, NULL, NULL);
    p.stencil = 9;
    gs_csr *B = gen(&p, NULL, NULL, NULL);
    if (A && B) {
        CHECK(same_matrix(A, B));
        CHECK(entry(A, 12, 13, NULL) == (0.25 - 2.0) / 3.0);
        CHECK(entry(A, 12, 17, NULL) == (1.0 - 0.5) / 3.0);
        CHECK(entry(A, 12, 12, NULL) == 4.0 * 1.25 / 3.0);
        CHECK(entry(A, 12, 18, NULL) == -1.25 / 6.0 && entry(A, 12, 16, NULL) == -1.25 / 6.0);
    }
    gs_csr_destroy(&A);
    gs_csr_destroy(&B);
    p = params("rotated", 40, 9);
    A = gen(&p, NULL, NULL, NULL);
    if (A) {
        CHECK(A->nnz == 118 * 118 && is_symmetric(A));
        check_pd(A, "rotated 40^2");
    }
    gs_csr_destroy(&A);
    CHECK(gs_mem_live() == live0);
}

/* ------------------------------------------------------------------ elasticity */

/* rows of nodes whose 3^d neighbours are all interior: |(A r)_i| <= 1e-12 sum_j |a_ij r_j|
 * for every rigid-body mode r; on the rows next to the clamped boundary some mode is not
 * annihilated (the clamp holds it) */
static void check_modes_grid(const gs_csr *A, const double *B, int k, int d, int64_t nx, int64_t ny,
                             int64_t nz)
{
    int bad = 0, held = 0;
    int64_t n = nx;
    for (int32_t i = 0; i < A->rows; i++) {
        int64_t node = i / d, x = node % nx, y = node / nx % ny, z = d == 3 ? node / (nx * ny) : 1;
        int inner = x > 0 && x < nx - 1 && y > 0 && y < ny - 1 && z > 0 && (d == 2 || z < nz - 1);
        for (int c = 0; c < k; c++) {
            const double *r = B + (size_t)c * A->rows;
            double s = 0.0, m = 0.0;
            for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
                s += A->val[q] * r[A->colind[q]];
                m += fabs(A->val[q] * r[A->colind[q]]);
            }
            if (inner && fabs(s) > 1e-12 * m) bad++;
            if (!inner && fabs(s) > 1e-6 * m) held++;
        }
    }
    CHECK_MSG(bad == 0, "elasticity %dD %lld: %d interior rows where A r != 0", d, (long long)n,
              bad);
    CHECK_MSG(held > 0, "elasticity %dD: the boundary rows annihilate every mode", d);
}

static void check_modes(const gs_csr *A, const double *B, int k, int d, int64_t n)
{
    check_modes_grid(A, B, k, d, n, n, n);
}

/* elasticity on an nx x ny [x nz] grid: rows d nx ny [nz], nnz d^2 prod (3 n_k - 2), exact
 * symmetry, the modes at the last node ((nx h, ny h[, nz h]), h = 1/(max n_k + 1)) and
 * annihilated inside; entries scaled as on the cubic grid of the longest side; the block of
 * each node pair the one of the cubic grid where both grids hold the pair */
static void check_elasticity_grid(int64_t nx, int64_t ny, int64_t nz, int stencil)
{
    int d = stencil == 7 || stencil == 27 ? 3 : 2;
    int64_t n[3] = {nx, ny, d == 3 ? nz : 1}, m = nx > ny ? nx : ny;
    if (d == 3 && nz > m) m = nz;
    gs_gen_params p = params("elasticity", 2, stencil), c = params("elasticity", m, stencil);
    p.nx = nx, p.ny = ny, p.nz = d == 3 ? nz : 0;
    double *B = NULL;
    int k = -1, bs = -1;
    gs_csr *A = gen(&p, &B, &k, &bs), *C = gen(&c, NULL, NULL, NULL);
    if (A && B && C) {
        int64_t pat = (3 * n[0] - 2) * (3 * n[1] - 2) * (d == 3 ? 3 * n[2] - 2 : 1);
        CHECK(A->rows == d * n[0] * n[1] * n[2] && A->nnz == d * d * pat);
        CHECK(k == (d == 2 ? 3 : 6) && bs == d && is_symmetric(A));
        double h = 1.0 / (double)(m + 1), X = (double)nx * h, Y = (double)ny * h;
        size_t N = (size_t)A->rows, last = N - (size_t)d;
        CHECK(B[d * N + last] == -Y && B[d * N + last + 1] == X);
        if (d == 3)
            CHECK(B[4 * N + last + 1] == -(double)nz * h && B[5 * N + last] == (double)nz * h);
        int bad = 0;
        for (int32_t i = 0; i < A->rows; i++) {
            int64_t node = i / d, a = i % d, x = node % nx, y = node / nx % ny;
            int64_t z = node / (nx * ny), ci = ((x + m * (y + m * z)) * d + a);
            for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
                int64_t col = A->colind[q], cn = col / d, cb = col % d;
                int64_t cx = cn % nx, cy = cn / nx % ny, cz = cn / (nx * ny);
                int64_t cj = (cx + m * (cy + m * cz)) * d + cb;
                if (A->val[q] != entry(C, (int32_t)ci, (int32_t)cj, NULL)) bad++;
            }
        }
        CHECK_MSG(bad == 0, "elasticity %dD %lldx%lldx%lld: %d entries differ from %lld^%d's", d,
                  (long long)nx, (long long)ny, (long long)nz, bad, (long long)m, d);
        if (nx >= 3 && ny >= 3 && (d == 2 || nz >= 3)) check_modes_grid(A, B, k, d, nx, ny, n[2]);
    }
    gs_csr_destroy(&A);
    gs_csr_destroy(&C);
    gs_free(B);
}

/* rows d n^d, nnz d^2 (3n-2)^d, exact symmetry, positive diagonal, the modes (values at the
 * first node: (h, h[, h])), block size d */
static void check_elasticity(int64_t n, int stencil)
{
    gs_gen_params p = params("elasticity", n, stencil);
    double *B = NULL;
    int k = -1, bs = -1, d = stencil == 7 || stencil == 27 ? 3 : 2;
    gs_csr *A = gen(&p, &B, &k, &bs);
    if (!A || !B) {
        gs_csr_destroy(&A);
        gs_free(B);
        return;
    }
    int64_t pat = d == 2 ? (3 * n - 2) * (3 * n - 2) : (3 * n - 2) * (3 * n - 2) * (3 * n - 2);
    CHECK(A->rows == d * (d == 2 ? n * n : n * n * n) && A->nnz == d * d * pat);
    CHECK(k == (d == 2 ? 3 : 6) && bs == d);
    CHECK(is_symmetric(A));
    int bad = 0;
    for (int32_t i = 0; i < A->rows; i++)
        if (!(entry(A, i, i, NULL) > 0.0)) bad++;
    CHECK(bad == 0);
    double h = 1.0 / (double)(n + 1);
    size_t N = (size_t)A->rows;
    CHECK(B[0] == 1.0 && B[1] == 0.0 && B[N + 0] == 0.0 && B[N + 1] == 1.0);
    CHECK(B[d * N + 0] == -h && B[d * N + 1] == h); /* (-y, x) at node (h, h[, h]) */
    if (d == 3 && n > 1) {
        size_t last = N - 3; /* node (n h, n h, n h) */
        double X = (double)n * h;
        CHECK(B[2 * N + 2] == 1.0 && B[3 * N + last] == -X && B[3 * N + last + 1] == X);
        CHECK(B[4 * N + last] == 0.0 && B[4 * N + last + 1] == -X && B[4 * N + last + 2] == X);
        CHECK(B[5 * N + last] == X && B[5 * N + last + 1] == 0.0 && B[5 * N + last + 2] == -X);
    }
    if (n >= 3) check_modes(A, B, k, d, n);
    gs_csr_destroy(&A);
    gs_free(B);
}

static void test_elasticity(void)
{
    long live0 = gs_mem_live();
    check_elasticity(1, 5);
    check_elasticity(4, 5);
    check_elasticity(7, 9);
    check_elasticity(1, 7);
    check_elasticity(3, 27);
    check_elasticity(6, 7);
    check_elasticity_grid(3, 5, 0, 5);
    check_elasticity_grid(6, 3, 0, 9);
    check_elasticity_grid(3, 4, 5, 7);
    check_elasticity_grid(4, 2, 3, 27);
    /* Q1 entries by hand, lambda = E nu/((1+nu)(1-2nu)), mu = E/(2(1+nu)). 2D (unit-square
     * elements, h cancels): centre 4(lambda + 3 mu)/3; x neighbour xx -(2 lambda + 3 mu)/3,
     * yy lambda/3, xy 0; (1,1) neighbour xy -(lambda + mu)/4. 3D: centre 8h(lambda + 4mu)/9 */
    double E = 1.0, nu = 0.3, lam = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
    gs_gen_params p = params("elasticity", 3, 9);
    gs_csr *A = gen(&p, NULL, NULL, NULL);
    if (A) { /* node 4 = (1,1): rows 8 (x), 9 (y); node 5 its x neighbour, node 8 the (1,1) */
        CHECK_NEAR(entry(A, 8, 8, NULL), 4 * (lam + 3 * mu) / 3, 1e-14);
        CHECK_NEAR(entry(A, 8, 10, NULL), -(2 * lam + 3 * mu) / 3, 1e-14);
        CHECK_NEAR(entry(A, 9, 11, NULL), lam / 3, 1e-14);
        CHECK(entry(A, 8, 11, NULL) == 0.0 && entry(A, 8, 9, NULL) == 0.0);
        CHECK_NEAR(entry(A, 8, 17, NULL), -(lam + mu) / 4, 1e-14);
        CHECK_NEAR(entry(A, 8, 13, NULL), (lam + mu) / 4, 1e-14); /* node 6 = (0, 2) */
    }
    gs_csr_destroy(&A);
    p = params("elasticity", 3, 27);
    A = gen(&p, NULL, NULL, NULL);
    if (A) { /* node 13 = (1,1,1) */
        CHECK_NEAR(entry(A, 39, 39, NULL), 8 * 0.25 * (lam + 4 * mu) / 9, 1e-14);
        CHECK(A->rowptr[40] - A->rowptr[39] == 81);
    }
    gs_csr_destroy(&A);
    /* E scales the matrix exactly; the stencil key picks only the dimension */
    p = params("elasticity", 5, 5);
    A = gen(&p, NULL, NULL, NULL);
    p.stencil = 9;
    gs_csr *B9 = gen(&p, NULL, NULL, NULL);
    p.E = 2.0;
    gs_csr *A2 = gen(&p, NULL, NULL, NULL);
    if (A && B9 && A2) {
        CHECK(same_matrix(A, B9));
        int bad = A2->nnz != A->nnz;
        for (int32_t q = 0; !bad && q < A->nnz; q++) bad += A2->val[q] != 2.0 * A->val[q];
        CHECK(bad == 0);
        check_pd(A, "elasticity 2D 5^2");
    }
    gs_csr_destroy(&A);
    gs_csr_destroy(&B9);
    gs_csr_destroy(&A2);
    p = params("elasticity", 4, 7);
    p.nu = -0.5;
    A = gen(&p, NULL, NULL, NULL);
    if (A) check_pd(A, "elasticity 3D 4^3 nu -0.5");
    gs_csr_destroy(&A);
    CHECK(gs_mem_live() == live0);
}

/* ------------------------------------------------------------------ the interface */

/* p with the grid nx x ny [x nz] (0: size) */
static gs_gen_params grid(gs_gen_params p, int64_t nx, int64_t ny, int64_t nz)
{
    p.nx = nx;
    p.ny = ny;
    p.nz = nz;
    return p;
}

/* descriptions, block sizes and the near-nullspace of the types without one */
static void test_interface(void)
{
    struct {
        gs_gen_params p;
        const char *want;
        int bs;
    } cases[] = {
        {params("jumps", 4, 7), "jumps 3D 7-point 4^3 contrast 1000 block 8 seed 1", 1},
        {params("rotated", 6, 9), "rotated 2D 9-point Q1 6^2 epsilon 0.001 angle 22.5", 1},
        {params("elasticity", 5, 9), "elasticity 2D Q1 plane strain 5^2 E 1 nu 0.3", 2},
        {params("elasticity", 3, 7), "elasticity 3D Q1 3^3 E 1 nu 0.3", 3},
        {params("poisson", 3, 7), "poisson 3D 7-point 3^3", 1},
        {grid(params("jumps", 4, 7), 3, 0, 5),
         "jumps 3D 7-point 3x4x5 contrast 1000 block 8 seed 1", 1},
        {grid(params("jumps", 4, 7), 4, 4, 4), "jumps 3D 7-point 4^3 contrast 1000 block 8 seed 1",
         1},
        {grid(params("rotated", 6, 9), 0, 2, 0),
         "rotated 2D 9-point Q1 6x2 epsilon 0.001 angle 22.5", 1},
        {grid(params("elasticity", 5, 9), 3, 0, 0), "elasticity 2D Q1 plane strain 3x5 E 1 nu 0.3",
         2},
        {grid(params("elasticity", 3, 7), 0, 2, 0), "elasticity 3D Q1 3x2x3 E 1 nu 0.3", 3},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char desc[200] = "junk";
        gs_csr *A = NULL;
        double *B = (double *)&desc; /* must be reset */
        int k = -1, bs = -1;
        CHECK_OK(gs_gen_problem(&cases[c].p, &A, &B, &k, &bs, desc, sizeof desc));
        CHECK_MSG(strcmp(desc, cases[c].want) == 0, "desc \"%s\", expected \"%s\"", desc,
                  cases[c].want);
        CHECK_MSG(bs == cases[c].bs, "%s: block size %d", desc, bs);
        if (cases[c].bs == 1) CHECK(B == NULL && k == 0);
        gs_csr_destroy(&A);
        gs_free(B);
    }
    gs_gen_params p = params("poisson", 3, 5);
    p.dof = 3;
    int bs = 0;
    gs_csr *A = NULL;
    CHECK_OK(gs_gen_problem(&p, &A, NULL, NULL, &bs, NULL, 0));
    CHECK(bs == 3 && A && A->rows == 27);
    gs_csr_destroy(&A);
    p = params("elasticity", 3, 9); /* the matrix alone, as gs_gen_matrix gives it */
    char desc[64];
    CHECK_OK(gs_gen_matrix(&p, &A, desc, sizeof desc));
    CHECK(A && A->rows == 18);
    gs_csr_destroy(&A);
}

/* the call fails with code and a message containing substr, leaving nothing behind */
static void check_error(const gs_gen_params *p, gs_status code, const char *substr)
{
    long live0 = gs_mem_live();
    gs_csr dummy, *A = &dummy;
    double *B = (double *)&dummy;
    int k = 5, bs = 5;
    char desc[64] = "junk";
    CHECK_FAIL(gs_gen_problem(p, &A, &B, &k, &bs, desc, sizeof desc), code, substr);
    CHECK(A == NULL && B == NULL && k == 0 && desc[0] == '\0');
    CHECK(gs_mem_live() == live0);
}

static void test_errors(void)
{
    gs_gen_params p = params("jumps", 4, 7);
    p.contrast = 0.5;
    check_error(&p, GS_ERR_ARG, "jumps: contrast 0.5: expected a value in 1..1e150");
    p.contrast = NAN;
    check_error(&p, GS_ERR_ARG, "jumps: contrast nan");
    p = params("jumps", 4, 7);
    p.block = 0;
    check_error(&p, GS_ERR_ARG, "jumps: block 0: expected at least 1");
    p = params("jumps", 0, 7);
    check_error(&p, GS_ERR_ARG, "jumps: size 0");
    p = params("rotated", 4, 9);
    p.dof = 2;
    check_error(&p, GS_ERR_ARG, "rotated: dof 2: dof applies to poisson, anisotropic and convdiff");
    p.dof = 1;
    p.epsilon = 0.0;
    check_error(&p, GS_ERR_ARG, "rotated: epsilon 0: expected a finite value > 0");
    p.epsilon = 0.1;
    p.angle = INFINITY;
    check_error(&p, GS_ERR_ARG, "rotated: angle inf");
    p = params("elasticity", 4, 6);
    check_error(&p, GS_ERR_ARG,
                "elasticity: stencil 6: expected 5 or 9 (2D, Q1 quadrilaterals) or 7 or 27 (3D");
    p = params("elasticity", 4, 5);
    p.nu = 0.5;
    check_error(&p, GS_ERR_ARG, "elasticity: nu 0.5: expected a Poisson ratio in (-1, 0.5)");
    p.nu = -1.0;
    check_error(&p, GS_ERR_ARG, "nu -1");
    p.nu = 0.3;
    p.E = 0.0;
    check_error(&p, GS_ERR_ARG, "elasticity: E 0: expected a finite Young's modulus > 0");
    p = params("elastic", 4, 5);
    check_error(&p, GS_ERR_ARG,
                "expected poisson, anisotropic, convdiff, powerlaw, jumps, "
                "rotated or elasticity");
    /* the 32-bit limits, before any allocation */
    p = params("jumps", 1291, 7);
    check_error(&p, GS_ERR_UNSUPPORTED,
                "jumps 3D 7-point 1291^3 contrast 1000 block 8 seed 1: "
                "2.152e+09 rows: the 32-bit index limit is 2^31 - 1");
    p = params("jumps", 700, 7);
    check_error(&p, GS_ERR_UNSUPPORTED, "2.398e+09 nonzeros");
    p = params("rotated", 46341, 9);
    check_error(&p, GS_ERR_UNSUPPORTED, "rows");
    p = params("rotated", 20000, 9);
    check_error(&p, GS_ERR_UNSUPPORTED, "3.6e+09 nonzeros");
    p = params("elasticity", 33000, 5);
    check_error(&p, GS_ERR_UNSUPPORTED, "2.178e+09 rows");
    p = params("elasticity", 300, 27);
    check_error(&p, GS_ERR_UNSUPPORTED, "nonzeros");
    p = params("elasticity", (int64_t)1 << 40, 7);
    check_error(&p, GS_ERR_UNSUPPORTED, "rows");
    /* nx, ny, nz: nz on the 2D types, extents below 1, the limits from their product */
    p = grid(params("rotated", 4, 9), 0, 0, 3);
    check_error(&p, GS_ERR_ARG, "rotated: nz 3: the grid is 2D (nx, ny only), expected 0");
    p = grid(params("elasticity", 4, 9), 0, 0, 2);
    check_error(&p, GS_ERR_ARG, "elasticity: nz 2: the grid is 2D");
    p = grid(params("jumps", 4, 7), 0, 0, -1);
    check_error(&p, GS_ERR_ARG, "jumps: nz -1: expected at least 1 grid point");
    p = grid(params("jumps", 1024, 7), 2048, 0, 0);
    check_error(&p, GS_ERR_UNSUPPORTED,
                "jumps 3D 7-point 2048x1024x1024 contrast 1000 block 8 "
                "seed 1: 2.147e+09 rows");
    p = grid(params("jumps", 700, 7), 0, 0, 800); /* 3.92e8 rows, 2.741e9 nonzeros */
    check_error(&p, GS_ERR_UNSUPPORTED,
                "jumps 3D 7-point 700x700x800 contrast 1000 block 8 seed 1: "
                "2.741e+09 nonzeros");
    p = grid(params("rotated", 4, 9), 100000, 30000, 0);
    check_error(&p, GS_ERR_UNSUPPORTED, "rotated 2D 9-point Q1 100000x30000 epsilon");
    p = grid(params("elasticity", 200, 27), 0, 0, 400);
    check_error(&p, GS_ERR_UNSUPPORTED, "elasticity 3D Q1 200x200x400 E 1 nu 0.3: ");
}

/* the k-th allocation fails: NOMEM, nothing leaked, until the call succeeds */
static void test_alloc_failures(void)
{
    gs_gen_params cases[] = {params("jumps", 5, 7), params("rotated", 5, 9),
                             params("elasticity", 4, 5), params("elasticity", 3, 7)};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        long live0 = gs_mem_live();
        int k, failures = 0;
        for (k = 1; k < 100; k++) {
            gs_csr *A = NULL;
            double *B = NULL;
            int nk = 0;
            gs_error_clear();
            gs_mem_fail_at(k);
            gs_status st = gs_gen_problem(&cases[c], &A, &B, &nk, NULL, NULL, 0);
            gs_mem_fail_at(0);
            gs_error_clear();
            if (st == GS_OK) {
                gs_csr_destroy(&A);
                gs_free(B);
                break;
            }
            failures++;
            CHECK_MSG(st == GS_ERR_NOMEM && A == NULL && B == NULL, "case %zu, allocation %d: %s",
                      c, k, gs_status_str(st));
            CHECK_MSG(gs_mem_live() == live0, "case %zu, allocation %d leaks", c, k);
        }
        CHECK_MSG(k < 100 && failures >= 2, "case %zu: %d failures", c, failures);
        CHECK(gs_mem_live() == live0);
    }
}

int main(void)
{
    long live0 = gs_mem_live();
    test_jumps();
    test_rotated();
    test_elasticity();
    test_interface();
    test_errors();
    test_alloc_failures();
    CHECK(gs_mem_live() == live0);
    return gs_test_result("test_gen_pde");
}

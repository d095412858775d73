/* test_minres.c: MINRES on symmetric indefinite problems (shifted 2D and 3D Laplacians with a
 * few negative eigenvalues, where CG fails) and on SPD ones (where it takes CG's count), with
 * no preconditioner and with Jacobi; a preconditioner that is not positive definite ends as
 * "indefinite_preconditioner"; and the constant null space (nullspace_constant) for every method
 * on a Neumann Laplacian: converged, x orthogonal to the constant. The true residual is
 * recomputed here from the CSR arrays. */
#include "kry_test.h"

#define RTOL 1e-10

/* A - shift I for A = the 5-point 2D (dim 2, N x N) or 7-point 3D (N^3) Dirichlet Laplacian */
static gs_csr *shifted_lap(int dim, int N, double shift)
{
    coo c = {0};
    const int n = dim == 2 ? N * N : N * N * N, nz = dim == 2 ? 1 : N;
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < N; y++)
            for (int x = 0; x < N; x++) {
                int i = (z * N + y) * N + x;
                if (dim == 3 && z > 0) coo_add(&c, i, i - N * N, -1.0);
                if (y > 0) coo_add(&c, i, i - N, -1.0);
                if (x > 0) coo_add(&c, i, i - 1, -1.0);
                coo_add(&c, i, i, 2.0 * dim - shift);
                if (x < N - 1) coo_add(&c, i, i + 1, -1.0);
                if (y < N - 1) coo_add(&c, i, i + N, -1.0);
                if (dim == 3 && z < N - 1) coo_add(&c, i, i + N * N, -1.0);
            }
    return coo_finish(&c, n, n);
}

/* -Laplace with Neumann boundary on an N x N grid (rows sum to 0, null space: constants) */
static gs_csr *neumann2d(int N)
{
    coo c = {0};
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            int i = y * N + x, deg = 0;
            if (x > 0) coo_add(&c, i, i - 1, -1.0), deg++;
            if (x < N - 1) coo_add(&c, i, i + 1, -1.0), deg++;
            if (y > 0) coo_add(&c, i, i - N, -1.0), deg++;
            if (y < N - 1) coo_add(&c, i, i + N, -1.0), deg++;
            coo_add(&c, i, i, deg);
        }
    return coo_finish(&c, N * N, N * N);
}

/* Solve and check: reason, the recomputed true residual <= rtol, iterations in [lo, hi], no
 * memory kept; returns the iterations */
static int solves(const char *what, gs_krylov_params p, const gs_csr *A, int jacobi,
                  const double *b, int lo, int hi)
{
    long live = gs_mem_live();
    gs_krylov_result r;
    mon m = {0};
    double *x = calloc((size_t)A->rows, sizeof *x);
    p.monitor = mon_cb;
    p.monitor_ctx = &m;
    CHECK_OK(kry_solve(&p, A, jacobi, b, NULL, x, &r));
    double rel = true_relres(A, b, x);
    printf("%-40s %-7s %-6s its %4d  true relres %.2e  (%s) %s\n", what, kname(p.type),
           jacobi ? "jacobi" : "none", r.iterations, rel, gs_reason_name(r.reason), r.detail);
    CHECK_MSG(r.reason == GS_CONVERGED_RTOL, "%s: reason %s: %s", what, gs_reason_name(r.reason),
              r.detail);
    CHECK_MSG(rel <= p.rtol, "%s: true relres %.3e > %.1e", what, rel, p.rtol);
    CHECK_MSG(r.iterations >= lo && r.iterations <= hi, "%s: %d iterations, expected %d..%d", what,
              r.iterations, lo, hi);
    CHECK(m.in_order && m.last == r.iterations);
    CHECK(gs_mem_live() == live);
    free(x);
    return r.iterations;
}

/* symmetric indefinite: MINRES converges where CG meets p.Ap <= 0 */
static void test_indefinite(void)
{
    static double b[1000];
    struct {
        int dim, N;
        double shift;
        int negative, lo, hi;
    } cases[] = {
        {2, 20, 0.15, 3, 70, 110}, /* eigenvalues 0.0447, 0.1117 (twice) below the shift */
        {3, 10, 0.60, 4, 50, 85},  /* 0.2430, 0.4795 (three times) below the shift */
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        gs_csr *A = shifted_lap(cases[t].dim, cases[t].N, cases[t].shift);
        char what[96];
        fill_rand(b, A->rows, 11 + (unsigned)t);
        snprintf(what, sizeof what, "%dD Laplacian - %.2f I (%d negative)", cases[t].dim,
                 cases[t].shift, cases[t].negative);
        gs_krylov_params p = kparams(GS_KRYLOV_MINRES, RTOL, 2000);
        /* Jacobi is a scaling here (constant diagonal 2 dim - shift > 0): the same count */
        int its = solves(what, p, A, 0, b, cases[t].lo, cases[t].hi);
        solves(what, p, A, 1, b, its - 2, its + 2);
        gs_krylov_result r;
        p.type = GS_KRYLOV_CG;
        CHECK_OK(kry_solve(&p, A, 0, b, NULL, NULL, &r));
        CHECK_MSG(r.reason == GS_DIVERGED_INDEFINITE_MATRIX, "CG on %s: %s", what,
                  gs_reason_name(r.reason));
        gs_csr_destroy(&A);
    }
}

/* SPD: MINRES minimises ||r|| over CG's Krylov space, so it takes CG's count within a few */
static void test_spd(void)
{
    static double b[400];
    gs_csr *A = mat_cd2d(20, 0.0, 1.0); /* diagonal 4 + (i mod 3): Jacobi is not a scaling */
    fill_rand(b, 400, 5);
    for (int jac = 0; jac < 2; jac++) {
        gs_krylov_params p = kparams(GS_KRYLOV_CG, RTOL, 1000);
        int cg = solves("2D Laplacian + diag, SPD", p, A, jac, b, 10, 200);
        p.type = GS_KRYLOV_MINRES;
        solves("2D Laplacian + diag, SPD", p, A, jac, b, cg - 6, cg + 2);
    }
    /* four distinct eigenvalues: the Krylov space is exhausted after 4 steps */
    double d[100];
    const double ev[4] = {-3.0, -1.0, 2.0, 5.0};
    for (int i = 0; i < 100; i++) d[i] = ev[i % 4];
    gs_csr *D = mat_diag(100, d);
    fill_rand(b, 100, 6);
    solves("diag, 4 distinct eigenvalues (2 < 0)", kparams(GS_KRYLOV_MINRES, RTOL, 100), D, 0, b,
           4, 4);
    gs_csr_destroy(&D);
    gs_csr_destroy(&A);
}

/* Jacobi of a diagonal with both signs is not positive definite: r.M^-1 r < 0 at the start */
static void test_indefinite_pc(void)
{
    long live = gs_mem_live();
    double d[10], b[10];
    for (int i = 0; i < 10; i++) d[i] = i % 2 ? -1.0 - i : 1.0 + i, b[i] = i % 2 ? 3.0 : 0.1;
    gs_csr *A = mat_diag(10, d);
    gs_krylov_params p = kparams(GS_KRYLOV_MINRES, RTOL, 100);
    gs_krylov_result r;
    CHECK_OK(kry_solve(&p, A, 1, b, NULL, NULL, &r));
    printf("MINRES + Jacobi of diag(+-): %s: %s\n", gs_reason_name(r.reason), r.detail);
    CHECK(r.reason == GS_DIVERGED_INDEFINITE_PC);
    CHECK(strstr(r.detail, "symmetric positive definite preconditioner") != NULL);
    CHECK(r.iterations == 0);
    /* max_iters ends it with the iterations done */
    gs_csr *L = shifted_lap(2, 20, 0.15);
    static double bb[400];
    fill_rand(bb, 400, 3);
    p.max_iters = 5;
    CHECK_OK(kry_solve(&p, L, 0, bb, NULL, NULL, &r));
    CHECK(r.reason == GS_DIVERGED_MAX_ITERS && r.iterations == 5);
    gs_csr_destroy(&L);
    gs_csr_destroy(&A);
    CHECK(gs_mem_live() == live);
}

/* nullspace_constant: a consistent b (mean 0) and x0 with a constant part; every method
 * converges and x comes back orthogonal to the constant */
static void test_nullspace(void)
{
    static double b[400], x0[400], x[400];
    gs_csr *A = neumann2d(20);
    fill_rand(b, 400, 9);
    double mean = 0.0;
    for (int i = 0; i < 400; i++) mean += b[i] / 400.0;
    for (int i = 0; i < 400; i++) b[i] -= mean, x0[i] = 5.0 + 0.01 * (i % 7);
    const gs_krylov_type types[] = {GS_KRYLOV_CG, GS_KRYLOV_BICGSTAB, GS_KRYLOV_GMRES,
                                    GS_KRYLOV_FGMRES, GS_KRYLOV_MINRES};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (int jac = 0; jac < 2; jac++) {
            long live = gs_mem_live();
            gs_krylov_params p = kparams(types[t], RTOL, 2000);
            p.nullspace_constant = 1;
            gs_krylov_result r;
            CHECK_OK(kry_solve(&p, A, jac, b, x0, x, &r));
            double rel = true_relres(A, b, x), s = 0.0, xx = 0.0;
            for (int i = 0; i < 400; i++) s += x[i], xx += x[i] * x[i];
            printf("Neumann 20x20, constant null space  %-8s %-6s its %4d relres %.2e  "
                   "1.x / (||1|| ||x||) %.1e (%s)\n",
                   kname(p.type), jac ? "jacobi" : "none", r.iterations, rel, fabs(s) / sqrt(400 * xx),
                   gs_reason_name(r.reason));
            CHECK_MSG(r.reason == GS_CONVERGED_RTOL, "%s: %s: %s", kname(p.type),
                      gs_reason_name(r.reason), r.detail);
            CHECK(rel <= RTOL);
            CHECK(r.iterations >= 20 && r.iterations <= 400);
            CHECK_MSG(fabs(s) <= 1e-12 * sqrt(400 * xx), "%s: x.1 = %g", kname(p.type), s);
            CHECK(gs_mem_live() == live);
        }
    gs_csr_destroy(&A);
}

int main(void)
{
    long live = gs_mem_live();
    CHECK(gs_krylov_at(GS_KRYLOV_MINRES) == gs_krylov_find("minres"));
    CHECK(strstr(gs_krylov_choices(), "minres") != NULL);
    test_spd();
    test_indefinite();
    test_indefinite_pc();
    test_nullspace();
    CHECK(gs_mem_live() == live);
    return gs_test_result("test_minres");
}

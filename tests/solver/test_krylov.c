/* test_krylov.c: each Krylov method converges on its natural problem, with the true residual
 * recomputed here, the reason, and an iteration count in a range justified by theory (exact
 * arithmetic bounds) or by a comparison between methods. */
#include "kry_test.h"

#define RTOL 1e-10

/* Solve, check convergence (reason rtol, true relative residual <= rtol, monitor order) and
 * the iteration range [lo, hi]; returns the iteration count. */
static int converges(const char *what, gs_krylov_params p, const gs_csr *A, int jacobi,
                     const double *b, int lo, int hi, double *xout)
{
    long live = gs_mem_live();
    gs_krylov_result res;
    mon m = {0};
    double *x = calloc((size_t)A->rows, sizeof *x);
    p.monitor = mon_cb;
    p.monitor_ctx = &m;
    CHECK_OK(kry_solve(&p, A, jacobi, b, NULL, x, &res));
    double rel = true_relres(A, b, x);
    printf("%-44s %-8s its %4d  true relres %.2e  (%s)\n", what, kname(p.type), res.iterations, rel,
           gs_reason_name(res.reason));
    CHECK_MSG(res.reason == GS_CONVERGED_RTOL, "%s: reason %s: %s", what,
              gs_reason_name(res.reason), res.detail);
    CHECK_MSG(rel <= p.rtol, "%s: true relres %.3e > %.1e", what, rel, p.rtol);
    CHECK_MSG(res.iterations >= lo && res.iterations <= hi, "%s: %d iterations, expected %d..%d",
              what, res.iterations, lo, hi);
    CHECK_MSG(m.in_order && m.calls >= res.iterations + 1 && m.last == res.iterations,
              "%s: monitor calls %d, last %d, in order %d", what, m.calls, m.last, m.in_order);
    CHECK_NEAR(m.first, res.rnorm0, 1e-14);
    CHECK(res.rnorm <= fmax(p.rtol * res.bnorm, p.atol));
    CHECK(gs_mem_live() == live);
    if (xout) memcpy(xout, x, (size_t)A->rows * sizeof *x);
    free(x);
    return res.iterations;
}

/* CG on SPD problems */
static void test_cg(void)
{
    enum { N1 = 64 };
    double b[400];
    gs_krylov_params p = kparams(GS_KRYLOV_CG, RTOL, 1000);

    /* 1D Laplacian, random b (all n eigencomponents): at most n iterations in exact
     * arithmetic; its condition number ~ 4n^2/pi^2 makes the sqrt(kappa) bound weaker (~500).
     * n distinct eigenvalues and rtol 1e-10 leave little slack below n (64 measured). */
    gs_csr *A = mat_lap1d(N1, 1.0);
    fill_rand(b, N1, 1);
    int cg1 = converges("1D Laplacian n=64", p, A, 0, b, N1 - 8, N1, NULL);
    /* GMRES minimises ||r|| over the same Krylov space, so it can not need more steps. */
    p.type = GS_KRYLOV_GMRES;
    p.restart = N1;
    converges("1D Laplacian n=64 (full GMRES <= CG)", p, A, 0, b, N1 - 8, cg1, NULL);
    gs_csr_destroy(&A);

    /* diagonal with 4 distinct eigenvalues: CG's minimal polynomial argument gives exactly 4 */
    double d[100];
    const double ev[4] = {1.0, 2.0, 5.0, 10.0};
    for (int i = 0; i < 100; i++) d[i] = ev[i % 4];
    A = mat_diag(100, d);
    fill_rand(b, 100, 2);
    p = kparams(GS_KRYLOV_CG, RTOL, 1000);
    converges("diag, 4 distinct eigenvalues", p, A, 0, b, 4, 4, NULL);
    /* Jacobi makes M^-1 A = I: one iteration */
    converges("diag + Jacobi", p, A, 1, b, 1, 1, NULL);
    gs_csr_destroy(&A);

    /* 2D Laplacian 20x20: ||r_k||/||r_0|| <= 2 sqrt(kappa) ((sqrt(kappa)-1)/(sqrt(kappa)+1))^k
     * gives the upper bound; Jacobi (constant diagonal 4) is a scaling: same iterations. */
    const int N = 20;
    A = mat_cd2d(N, 0.0, 0.0);
    fill_rand(b, N * N, 3);
    const double pi = 3.14159265358979323846, th = pi / (2.0 * (N + 1));
    double lmin = 8 * pow(sin(th), 2), lmax = 8 * pow(cos(th), 2);
    double sk = sqrt(lmax / lmin);
    int bound = (int)ceil(log(2 * sk / RTOL) / -log((sk - 1) / (sk + 1)));
    printf("CG bound from sqrt(kappa) = %.1f: %d iterations\n", sk, bound);
    int cg2 = converges("2D Laplacian 20x20", p, A, 0, b, bound / 3, bound, NULL);
    converges("2D Laplacian 20x20 + Jacobi (a scaling)", p, A, 1, b, cg2 - 1, cg2 + 1, NULL);
    gs_csr_destroy(&A);
}

/* GMRES and FGMRES on nonsymmetric problems */
static void test_gmres(void)
{
    double b[400], x1[400], x2[400];
    gs_krylov_params p = kparams(GS_KRYLOV_GMRES, RTOL, 1000);

    /* restart >= n: at most n steps (the Krylov space fills R^n) */
    gs_csr *A = mat_cd1d(40, 0.8);
    fill_rand(b, 40, 4);
    p.restart = 50;
    converges("1D convection-diffusion n=40, restart 50", p, A, 0, b, 20, 40, NULL);
    p.type = GS_KRYLOV_FGMRES;
    converges("1D convection-diffusion n=40, restart 50", p, A, 0, b, 20, 40, NULL);
    gs_csr_destroy(&A);

    /* nonsymmetric, diagonalisable, 3 distinct eigenvalues (2x2 blocks [[1,1],[0,2]] and 3's):
     * the minimal polynomial has degree 3, so exactly 3 steps */
    enum { NB = 30 };
    double *a = calloc(NB * NB, sizeof *a);
    for (int i = 0; i < 20; i += 2) {
        a[i * NB + i] = 1.0;
        a[i * NB + i + 1] = 1.0;
        a[(i + 1) * NB + i + 1] = 2.0;
    }
    for (int i = 20; i < NB; i++) a[i * NB + i] = 3.0;
    A = mat_dense(NB, a);
    free(a);
    fill_rand(b, NB, 5);
    p = kparams(GS_KRYLOV_GMRES, RTOL, 1000);
    converges("3 distinct eigenvalues (nonsymmetric)", p, A, 0, b, 3, 3, NULL);
    p.type = GS_KRYLOV_FGMRES;
    converges("3 distinct eigenvalues (nonsymmetric)", p, A, 0, b, 3, 3, NULL);
    gs_csr_destroy(&A);

    /* 2D convection-diffusion 20x20 with a variable diagonal: FGMRES with a fixed
     * preconditioner builds the same Krylov space as GMRES, so the same count and solution;
     * restarted GMRES(10) can not beat full GMRES */
    A = mat_cd2d(20, 0.6, 0.5);
    fill_rand(b, 400, 6);
    p = kparams(GS_KRYLOV_GMRES, RTOL, 2000);
    p.restart = 400;
    int full = converges("2D conv-diff 20x20, full GMRES", p, A, 0, b, 30, 120, NULL);
    p.restart = 10;
    converges("2D conv-diff 20x20, GMRES(10)", p, A, 0, b, full, 2 * full, NULL);
    p.restart = 400;
    /* the diagonal varies by 25% only: Jacobi moves the count by at most ~10% */
    int fullj = converges("2D conv-diff 20x20, full GMRES + Jacobi", p, A, 1, b, full * 9 / 10,
                          full * 11 / 10, NULL);
    p.restart = 20;
    int g = converges("2D conv-diff 20x20, GMRES(20) + Jacobi", p, A, 1, b, fullj, 2 * fullj, x1);
    p.type = GS_KRYLOV_FGMRES;
    converges("2D conv-diff 20x20, FGMRES(20) + Jacobi", p, A, 1, b, g, g, x2);
    double dmax = 0.0, xmax = 0.0;
    for (int i = 0; i < 400; i++) {
        dmax = fmax(dmax, fabs(x1[i] - x2[i]));
        xmax = fmax(xmax, fabs(x1[i]));
    }
    CHECK_MSG(dmax <= 1e-8 * xmax, "GMRES and FGMRES solutions differ by %.3e", dmax);
    gs_csr_destroy(&A);
}

/* BiCGStab: its i-th iterate lies in x0 + K_2i(A M^-1, r0), where full (right preconditioned)
 * GMRES is optimal, so 2 * its >= GMRES steps (one less for the half-step exit); the upper
 * bounds (the GMRES step count, i.e. at most twice GMRES's products) are measured ones. */
static void test_bicgstab(void)
{
    double b[400];
    gs_csr *A = mat_cd2d(20, 0.6, 0.5);
    fill_rand(b, 400, 7);
    gs_krylov_params p = kparams(GS_KRYLOV_GMRES, RTOL, 2000);
    p.restart = 400;
    int full = converges("2D conv-diff 20x20, full GMRES", p, A, 0, b, 30, 120, NULL);
    /* the diagonal varies by 25% only: Jacobi moves the count by at most ~10% */
    int fullj = converges("2D conv-diff 20x20, full GMRES + Jacobi", p, A, 1, b, full * 9 / 10,
                          full * 11 / 10, NULL);
    p.type = GS_KRYLOV_BICGSTAB;
    converges("2D conv-diff 20x20", p, A, 0, b, (full - 1) / 2, full, NULL);
    converges("2D conv-diff 20x20 + Jacobi", p, A, 1, b, (fullj - 1) / 2, fullj, NULL);
    gs_csr_destroy(&A);

    /* symmetric positive definite too */
    A = mat_lap1d(64, 1.0);
    fill_rand(b, 64, 8);
    p.type = GS_KRYLOV_GMRES;
    int g1 = converges("1D Laplacian n=64, full GMRES", p, A, 0, b, 56, 64, NULL);
    p.type = GS_KRYLOV_BICGSTAB;
    converges("1D Laplacian n=64", p, A, 0, b, (g1 - 1) / 2, 2 * g1, NULL);
    gs_csr_destroy(&A);

    /* diagonal with 2 distinct eigenvalues: the BiCG (Lanczos) part terminates after 2 steps
     * of the minimal polynomial's degree, so s = 0 at the half step of iteration 2; with
     * Jacobi, M^-1 A = I and s = 0 already at the half step of iteration 1 */
    double d[50];
    for (int i = 0; i < 50; i++) d[i] = i % 2 ? 3.0 : 1.0;
    A = mat_diag(50, d);
    fill_rand(b, 50, 9);
    converges("diag, 2 distinct eigenvalues", p, A, 0, b, 2, 2, NULL);
    converges("diag + Jacobi (half step exit)", p, A, 1, b, 1, 1, NULL);
    gs_csr_destroy(&A);
}

/* Stopping bounds: atol met first -> atol; a converged initial guess -> 0 iterations */
static void test_stopping(void)
{
    enum { N = 32 };
    double b[N], x[N], x0[N], d[N];
    for (int i = 0; i < N; i++) d[i] = (double)(1 << (i % 4)); /* 1, 2, 4, 8: exact inverses */
    gs_csr *A = mat_diag(N, d);
    fill_rand(b, N, 10);
    for (int i = 0; i < N; i++) x0[i] = b[i] / d[i];
    for (int t = GS_KRYLOV_CG; t <= GS_KRYLOV_FGMRES; t++) {
        gs_krylov_params p = kparams((gs_krylov_type)t, 1e-12, 100);
        gs_krylov_result res;
        mon m = {0};
        p.monitor = mon_cb;
        p.monitor_ctx = &m;
        CHECK_OK(kry_solve(&p, A, 0, b, x0, x, &res));
        CHECK_MSG(res.reason == GS_CONVERGED_RTOL && res.iterations == 0 && m.calls == 1,
                  "%s exact x0: %s, %d its, %d monitor calls", kname(p.type),
                  gs_reason_name(res.reason), res.iterations, m.calls);
        CHECK(res.rnorm0 == 0.0);
    }
    gs_csr_destroy(&A);
    /* rtol = 0: only atol can stop it */
    A = mat_lap1d(N, 1.0);
    for (int t = GS_KRYLOV_CG; t <= GS_KRYLOV_FGMRES; t++) {
        gs_krylov_params p = kparams((gs_krylov_type)t, 0.0, 100);
        gs_krylov_result res;
        p.atol = 1e-6;
        CHECK_OK(kry_solve(&p, A, 1, b, NULL, x, &res));
        CHECK_MSG(res.reason == GS_CONVERGED_ATOL, "%s: %s", kname(p.type),
                  gs_reason_name(res.reason));
        CHECK(res.rnorm <= 1e-6 && true_relres(A, b, x) * res.bnorm <= 1e-6);
        /* both bounds set, the relative one the larger: rtol */
        p.rtol = 1e-3;
        CHECK_OK(kry_solve(&p, A, 1, b, NULL, x, &res));
        CHECK(res.reason == GS_CONVERGED_RTOL);
    }
    gs_csr_destroy(&A);
}

int main(void)
{
    long live = gs_mem_live();
    test_cg();
    test_gmres();
    test_bicgstab();
    test_stopping();
    CHECK(gs_mem_live() == live);
    return gs_test_result("test_krylov");
}

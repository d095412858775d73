/* test_krylov_reasons.c: every way a Krylov solve ends (breakdowns, indefiniteness, NaN,
 * stagnation, maximum iterations, b = 0, happy breakdown) and the argument checks. */
#include "kry_test.h"
#include "gs_krylov_impl.h"

/* Solve and check the reason (and the detail mentions `in_detail` when given) */
static gs_krylov_result ends(const char *what, gs_krylov_params p, const gs_csr *A, int jacobi,
                             const double *b, const double *x0, double *x, gs_reason want,
                             const char *in_detail)
{
    long live = gs_mem_live();
    gs_krylov_result res;
    mon m = {0};
    p.monitor = mon_cb;
    p.monitor_ctx = &m;
    CHECK_OK(kry_solve(&p, A, jacobi, b, x0, x, &res));
    printf("%-40s %-8s %-26s its %3d  %s\n", what, kname(p.type), gs_reason_name(res.reason),
           res.iterations, res.detail);
    CHECK_MSG(res.reason == want, "%s %s: reason %s (%s), expected %s", what, kname(p.type),
              gs_reason_name(res.reason), res.detail, gs_reason_name(want));
    if (in_detail)
        CHECK_MSG(strstr(res.detail, in_detail), "%s: detail \"%s\" lacks \"%s\"", what, res.detail,
                  in_detail);
    CHECK_MSG(m.calls >= 1 && m.in_order, "%s: monitor calls %d, in order %d", what, m.calls,
              m.in_order);
    CHECK(gs_mem_live() == live);
    return res;
}

/* CG: indefinite and negative definite matrices, negative definite preconditioner */
static void test_cg_indefinite(void)
{
    enum { N = 20 };
    double b[N], d[N];
    gs_krylov_params p = kparams(GS_KRYLOV_CG, 1e-10, 100);
    for (int i = 0; i < N; i++) {
        d[i] = i % 2 ? -2.0 : 1.0;
        b[i] = 1.0;
    }
    /* p0 = b = ones: p.Ap = sum(d) = -10 < 0 at iteration 1 */
    gs_csr *A = mat_diag(N, d);
    gs_krylov_result r = ends("indefinite diagonal", p, A, 0, b, NULL, NULL,
                              GS_DIVERGED_INDEFINITE_MATRIX, "p.Ap = -1.000e+01");
    CHECK(r.iterations == 1);
    gs_csr_destroy(&A);

    /* A = -L: p.Ap = -b.Lb < 0 at once */
    A = mat_lap1d(N, -1.0);
    fill_rand(b, N, 1);
    r = ends("negative definite", p, A, 0, b, NULL, NULL, GS_DIVERGED_INDEFINITE_MATRIX,
             "<= 0 at iteration 1");
    CHECK(r.iterations == 1);
    /* With Jacobi, M^-1 = D^-1 is negative definite too: r.z = r.D^-1 r < 0 is seen before
     * the first product with A (M^-1 A is in fact SPD, but CG needs M SPD), so the
     * preconditioner is reported, at iteration 0. */
    r = ends("negative definite + Jacobi", p, A, 1, b, NULL, NULL, GS_DIVERGED_INDEFINITE_PC,
             "r.z = ");
    CHECK(r.iterations == 0);
    gs_csr_destroy(&A);
}

/* b = 0: x = 0 exactly, 0 iterations, for every method; rnorm0 is ||A x0|| */
static void test_zero_rhs(void)
{
    enum { N = 10 };
    double b[N] = {0}, x0[N], x[N];
    gs_csr *A = mat_lap1d(N, 1.0);
    for (int t = GS_KRYLOV_CG; t <= GS_KRYLOV_FGMRES; t++) {
        fill_rand(x0, N, 2);
        gs_krylov_result r = ends("b = 0", kparams((gs_krylov_type)t, 1e-8, 10), A, 1, b, x0, x,
                                  GS_CONVERGED_ZERO_RHS, NULL);
        int zero = 1;
        for (int i = 0; i < N; i++) zero &= x[i] == 0.0;
        CHECK(zero && r.iterations == 0 && r.bnorm == 0.0 && r.rnorm == 0.0 && r.rnorm0 > 0.0);
    }
    gs_csr_destroy(&A);
}

/* maximum iterations reached (and max_iters = 0) */
static void test_max_iters(void)
{
    enum { N = 100 };
    double b[N], x[N];
    gs_csr *A = mat_lap1d(N, 1.0);
    fill_rand(b, N, 3);
    for (int t = GS_KRYLOV_CG; t <= GS_KRYLOV_FGMRES; t++) {
        gs_krylov_params p = kparams((gs_krylov_type)t, 1e-12, 7);
        p.restart = 3;
        gs_krylov_result r =
            ends("max iterations 7", p, A, 0, b, NULL, x, GS_DIVERGED_MAX_ITERS, "after 7");
        CHECK(r.iterations == 7 && r.rnorm < r.rnorm0);
        /* the reported norm is the last one computed; GMRES ends on a restart, so it is the
         * true residual there */
        if (t >= GS_KRYLOV_GMRES) CHECK_NEAR(r.rnorm, true_relres(A, b, x) * r.bnorm, 1e-10);
        p.max_iters = 0;
        r = ends("max iterations 0", p, A, 0, b, NULL, x, GS_DIVERGED_MAX_ITERS, NULL);
        CHECK(r.iterations == 0 && r.rnorm == r.rnorm0);
    }
    gs_csr_destroy(&A);
}

/* BiCGStab: A = [[0,1],[1,0]], b = e1: r_hat = r = e1, v = A e1 = e2, r_hat.v = 0 */
static void test_bicgstab_breakdown(void)
{
    const double a[4] = {0, 1, 1, 0}, b[2] = {1, 0};
    gs_csr *A = mat_dense(2, a);
    gs_krylov_result r = ends("swap matrix", kparams(GS_KRYLOV_BICGSTAB, 1e-10, 10), A, 0, b, NULL,
                              NULL, GS_DIVERGED_BREAKDOWN, "r_hat.v = 0");
    CHECK(r.iterations == 1);
    /* GMRES solves it: the Krylov space {e1, e2} is all of R^2 */
    double x[2];
    r = ends("swap matrix", kparams(GS_KRYLOV_GMRES, 1e-10, 10), A, 0, b, NULL, x,
             GS_CONVERGED_RTOL, NULL);
    CHECK(r.iterations == 2 && fabs(x[0]) < 1e-14 && fabs(x[1] - 1.0) < 1e-14);
    gs_csr_destroy(&A);
}

/* GMRES happy breakdown: b an eigenvector, the Krylov space is invariant after one step and
 * the solution is exact */
static void test_happy_breakdown(void)
{
    enum { N = 6 };
    double d[N], b[N] = {0}, x[N];
    for (int i = 0; i < N; i++) d[i] = i + 1.0;
    b[2] = 5.0;
    gs_csr *A = mat_diag(N, d);
    for (int t = GS_KRYLOV_GMRES; t <= GS_KRYLOV_FGMRES; t++) {
        gs_krylov_result r = ends("eigenvector b", kparams((gs_krylov_type)t, 1e-14, 10), A, 0, b,
                                  NULL, x, GS_CONVERGED_RTOL, NULL);
        CHECK(r.iterations == 1 && fabs(x[2] - 5.0 / 3.0) <= 1e-15 && r.rnorm <= 1e-14);
        for (int i = 0; i < N; i++)
            if (i != 2) CHECK(x[i] == 0.0);
    }
    gs_csr_destroy(&A);
    /* identity, random b: x = b after one step */
    for (int i = 0; i < N; i++) d[i] = 1.0;
    A = mat_diag(N, d);
    fill_rand(b, N, 4);
    gs_krylov_result r = ends("identity", kparams(GS_KRYLOV_GMRES, 1e-14, 10), A, 0, b, NULL, x,
                              GS_CONVERGED_RTOL, NULL);
    CHECK(r.iterations == 1 && true_relres(A, b, x) <= 1e-15);
    gs_csr_destroy(&A);
}

/* NaN in b or in x0 -> nan, for every method */
static void test_nan(void)
{
    enum { N = 8 };
    double b[N], x0[N] = {0};
    gs_csr *A = mat_lap1d(N, 1.0);
    for (int t = GS_KRYLOV_CG; t <= GS_KRYLOV_FGMRES; t++) {
        gs_krylov_params p = kparams((gs_krylov_type)t, 1e-8, 10);
        fill_rand(b, N, 5);
        b[3] = NAN;
        gs_krylov_result r =
            ends("NaN in b", p, A, 0, b, NULL, NULL, GS_DIVERGED_NAN, "right-hand side");
        CHECK(r.iterations == 0);
        b[3] = 1.0;
        x0[5] = INFINITY;
        r = ends("Inf in x0", p, A, 0, b, x0, NULL, GS_DIVERGED_NAN, "initial guess");
        x0[5] = 0.0;
    }
    gs_csr_destroy(&A);
}

/* GMRES(1) on a cyclic permutation, b = e1: A r is orthogonal to r, so each restart cycle
 * keeps x; the residual stays 1 and stagnation ends it after stag_window iterations */
static void test_stagnation(void)
{
    enum { N = 8 };
    double a[N * N] = {0}, b[N] = {1.0};
    for (int i = 0; i < N; i++) a[((i + 1) % N) * N + i] = 1.0;
    gs_csr *A = mat_dense(N, a);
    gs_krylov_params p = kparams(GS_KRYLOV_GMRES, 1e-8, 100);
    p.restart = 1;
    p.stag_window = 10;
    gs_krylov_result r =
        ends("GMRES(1), permutation", p, A, 0, b, NULL, NULL, GS_DIVERGED_STAGNATION, "0.1%");
    CHECK(r.iterations == 10 && fabs(r.rnorm - 1.0) < 1e-14);
    p.stag_window = 0; /* off: runs to the limit */
    r = ends("GMRES(1), permutation, no window", p, A, 0, b, NULL, NULL, GS_DIVERGED_MAX_ITERS,
             NULL);
    CHECK(r.iterations == 100);
    /* full GMRES needs the whole space: N steps */
    p.restart = N;
    r = ends("GMRES(8), permutation", p, A, 0, b, NULL, NULL, GS_CONVERGED_RTOL, NULL);
    CHECK(r.iterations == N);
    gs_csr_destroy(&A);
}

/* rtol below attainable accuracy: the recursive residual of CG keeps falling, the true one
 * stalls near eps*||A||*||x||; three refuted claims end it as stagnation */
static void test_attainable(void)
{
    enum { N = 100 };
    double b[N], x[N];
    gs_csr *A = mat_lap1d(N, 1.0);
    fill_rand(b, N, 6);
    for (int t = GS_KRYLOV_CG; t <= GS_KRYLOV_BICGSTAB; t++) {
        gs_krylov_params p = kparams((gs_krylov_type)t, 1e-22, 5000);
        gs_krylov_result r = ends("rtol 1e-22", p, A, 0, b, NULL, x, GS_DIVERGED_STAGNATION,
                                  "(attainable accuracy)");
        CHECK(r.iterations < 5000 && true_relres(A, b, x) < 1e-10);
    }
    gs_csr_destroy(&A);
}

/* The true residual's check (gs_krylov_confirm) on A = I, b = ones(4) (tol = 1e-8 ||b||): a
 * claim refuted just above tol (1.05 tol) does not end the solve and aims the recurrence below
 * tol by the gap, so a recurrence at 0.9 tol no longer counts as met; a true residual of
 * 0.5 tol then converges; a refutation far above tol (3 tol) leaves the recurrence's target. */
static void set_gap(gs_vec *x, double e)
{
    double h[4];
    for (int i = 0; i < 4; i++) h[i] = 1.0 - e / 2.0; /* ||b - x|| = e */
    CHECK_OK(gs_vec_set_host(x, h));
}

static void test_confirm_gap(void)
{
    const double d[4] = {1.0, 1.0, 1.0, 1.0};
    gs_csr *A = mat_diag(4, d);
    gs_linop op = csr_linop(A);
    gs_vec *b = NULL, *x = NULL, *r = NULL;
    CHECK_OK(gs_vec_create(4, GS_LOC_HOST, &b));
    CHECK_OK(gs_vec_create(4, GS_LOC_HOST, &x));
    CHECK_OK(gs_vec_create(4, GS_LOC_HOST, &r));
    CHECK_OK(gs_vec_fill(1.0, b));
    gs_krylov_params p = kparams(GS_KRYLOV_CG, 1e-8, 10);
    for (int far = 0; far < 2; far++) {
        gs_krylov_result res;
        memset(&res, 0, sizeof res);
        res.bnorm = 2.0;
        gs_krylov_state k = {.p = &p, .A = &op, .b = b, .x = x, .res = &res};
        k.tol = k.rec_tol = 2e-8;
        k.refuted = HUGE_VAL;
        int ended = -1;
        set_gap(x, (far ? 3.0 : 1.05) * k.tol);
        CHECK_OK(gs_krylov_confirm(&k, r, &ended));
        CHECK_MSG(ended == 0, "a refuted claim (%s tol) ended the solve", far ? "3" : "1.05");
        if (far) {
            CHECK_MSG(k.rec_tol == k.tol, "3 tol: the recurrence's target moved to %g tol",
                      k.rec_tol / k.tol);
            continue;
        }
        CHECK_MSG(k.rec_tol < 0.5 * k.tol && !gs_krylov_met(&k, 0.9 * k.tol) &&
                      gs_krylov_met(&k, 0.4 * k.tol),
                  "1.05 tol: the recurrence's target is %g tol, expected below 0.5 tol",
                  k.rec_tol / k.tol);
        set_gap(x, 0.5 * k.tol);
        CHECK_OK(gs_krylov_confirm(&k, r, &ended));
        CHECK_MSG(ended == 1 && res.reason == GS_CONVERGED_RTOL,
                  "0.5 tol: ended %d, reason %s", ended, gs_reason_name(res.reason));
    }
    gs_vec_destroy(&b);
    gs_vec_destroy(&x);
    gs_vec_destroy(&r);
    gs_csr_destroy(&A);
}

/* bad arguments are errors, with a message naming the parameter */
static void test_args(void)
{
    enum { N = 4 };
    long live = gs_mem_live();
    gs_csr *A = mat_lap1d(N, 1.0);
    gs_vec *b = NULL, *x = NULL, *x5 = NULL;
    CHECK_OK(gs_vec_create(N, GS_LOC_HOST, &b));
    CHECK_OK(gs_vec_create(N, GS_LOC_HOST, &x));
    CHECK_OK(gs_vec_create(N + 1, GS_LOC_HOST, &x5));
    gs_linop op = csr_linop(A), M5 = op;
    M5.n = N + 1;
    gs_krylov_result res;
    gs_krylov_params p = kparams(GS_KRYLOV_CG, -1.0, 10);
    CHECK_FAIL(gs_krylov_solve(&p, &op, NULL, b, x, &res), GS_ERR_ARG, "rtol");
    p = kparams(GS_KRYLOV_CG, 1e-8, 10);
    p.atol = -1e-3;
    CHECK_FAIL(gs_krylov_solve(&p, &op, NULL, b, x, &res), GS_ERR_ARG, "atol");
    p = kparams(GS_KRYLOV_BICGSTAB, 1e-8, -1);
    CHECK_FAIL(gs_krylov_solve(&p, &op, NULL, b, x, &res), GS_ERR_ARG, "max_iters");
    p = kparams(GS_KRYLOV_FGMRES, 1e-8, 10);
    p.restart = 0;
    CHECK_FAIL(gs_krylov_solve(&p, &op, NULL, b, x, &res), GS_ERR_ARG, "restart");
    p.type = GS_KRYLOV_CG; /* restart is GMRES's only */
    CHECK_OK(gs_krylov_solve(&p, &op, NULL, b, x, &res));
    p = kparams(GS_KRYLOV_GMRES, 1e-8, 10);
    CHECK_FAIL(gs_krylov_solve(&p, &op, NULL, b, x5, &res), GS_ERR_ARG, "size mismatch");
    CHECK_FAIL(gs_krylov_solve(&p, &op, &M5, b, x, &res), GS_ERR_ARG, "preconditioner");
    CHECK_FAIL(gs_krylov_solve(&p, &op, NULL, NULL, x, &res), GS_ERR_ARG, "missing");
    gs_vec_destroy(&b);
    gs_vec_destroy(&x);
    gs_vec_destroy(&x5);
    gs_csr_destroy(&A);
    CHECK(gs_mem_live() == live);
}

/* A signal handler's flag, raised by the monitor at iteration `at` (0: before the solve) */
typedef struct stopper {
    volatile sig_atomic_t flag;
    int at;
    double bnorm, last; /* the residual norm of the last monitor call */
} stopper;

static void stop_cb(void *ctx, int it, double rnorm)
{
    stopper *s = ctx;
    s->last = rnorm;
    if (it == s->at) s->flag = SIGTERM;
}

/* The interrupt flag stops every method after the iteration it is raised in (or at once when
 * raised before), with x the iterate reached: its true residual is the last one monitored. */
static void test_interrupt(void)
{
    enum { N = 24 };
    double b[N * N], x[N * N];
    fill_rand(b, N * N, 5);
    for (int t = GS_KRYLOV_CG; t <= GS_KRYLOV_FGMRES; t++) {
        gs_csr *A = mat_cd2d(N, t == GS_KRYLOV_CG ? 0.0 : 1.0, 0.5);
        for (int jac = 0; jac <= 1; jac++)
            for (int at = 0; at <= 7; at += 7) {
                long live = gs_mem_live();
                stopper s = {.flag = at == 0 ? SIGINT : 0, .at = at > 0 ? at : -1};
                gs_krylov_params p = kparams((gs_krylov_type)t, 1e-12, 500);
                gs_krylov_result r;
                p.monitor = stop_cb;
                p.monitor_ctx = &s;
                p.interrupt = &s.flag;
                CHECK_OK(kry_solve(&p, A, jac, b, NULL, x, &r));
                CHECK_MSG(r.reason == GS_STOPPED_INTERRUPTED && r.iterations == at,
                          "%s jacobi %d, flag at %d: %s after %d iterations", kname(p.type), jac,
                          at, gs_reason_name(r.reason), r.iterations);
                double rel = true_relres(A, b, x), mon = s.last / r.bnorm;
                CHECK_MSG(at == 0 ? rel == 1.0 : rel < 0.9 && fabs(rel - mon) <= 1e-6 * mon,
                          "%s jacobi %d, stopped at %d: x's residual %.6e, monitored %.6e",
                          kname(p.type), jac, at, rel, mon);
                CHECK(strstr(r.detail, "at iteration") != NULL);
                CHECK(gs_mem_live() == live);
            }
        gs_csr_destroy(&A);
    }
}

/* dtol: A = diag(1, -0.999), b = (1, 1): CG's first step has alpha = b.b / b.Ab = 2000, so
 * ||r_1|| = 1999 sqrt(2), 1999 times ||r_0||: diverged at iteration 1 with dtol 100 (CG and
 * BiCGStab, whose first half step is the same); dtol 0 is off, and 1e5 lets it go on */
static void test_dtol(void)
{
    double d[2] = {1.0, -0.999}, b[2] = {1.0, 1.0};
    gs_csr *A = mat_diag(2, d);
    gs_krylov_params p = kparams(GS_KRYLOV_CG, 1e-10, 50);
    p.dtol = 100.0;
    gs_krylov_result r = ends("diag(1, -0.999), dtol 100", p, A, 0, b, NULL, NULL,
                              GS_DIVERGED_DTOL, "times the initial");
    CHECK(r.iterations == 1);
    CHECK(strstr(r.detail, "(dtol 100)") != NULL);
    CHECK(r.rnorm > 100.0 * r.rnorm0);
    p.type = GS_KRYLOV_BICGSTAB;
    ends("diag(1, -0.999), dtol 100", p, A, 0, b, NULL, NULL, GS_DIVERGED_DTOL,
         "times the initial");
    p.type = GS_KRYLOV_CG;
    for (int off = 0; off < 2; off++) { /* dtol 0 (off) or 1e5: not diverged */
        p.dtol = off ? 0.0 : 1e5;
        CHECK_OK(kry_solve(&p, A, 0, b, NULL, NULL, &r));
        CHECK_MSG(r.reason != GS_DIVERGED_DTOL, "dtol %g: %s", p.dtol, gs_reason_name(r.reason));
    }
    p.dtol = -1.0;
    CHECK(kry_solve(&p, A, 0, b, NULL, NULL, &r) == GS_ERR_ARG);
    gs_error_clear();
    gs_csr_destroy(&A);
}

static void test_names(void)
{
    const gs_reason all[] = {GS_REASON_NONE,
                             GS_CONVERGED_RTOL,
                             GS_CONVERGED_ATOL,
                             GS_CONVERGED_ZERO_RHS,
                             GS_DIVERGED_MAX_ITERS,
                             GS_DIVERGED_BREAKDOWN,
                             GS_DIVERGED_NAN,
                             GS_DIVERGED_INDEFINITE_MATRIX,
                             GS_DIVERGED_INDEFINITE_PC,
                             GS_DIVERGED_STAGNATION,
                             GS_STOPPED_INTERRUPTED,
                             GS_DIVERGED_DTOL};
    const char *names[] = {"none",
                           "rtol",
                           "atol",
                           "zero_rhs",
                           "max_iters",
                           "breakdown",
                           "nan",
                           "indefinite_matrix",
                           "indefinite_preconditioner",
                           "stagnation",
                           "interrupted",
                           "diverged"};
    for (int i = 0; i < 12; i++) {
        CHECK(strcmp(gs_reason_name(all[i]), names[i]) == 0);
        const char *s = gs_reason_str(all[i]);
        CHECK(all[i] <= 0 || strncmp(s, "converged", 9) == 0);
        CHECK(all[i] >= 0 || all[i] == GS_STOPPED_INTERRUPTED ||
              strncmp(s, "did not converge", 16) == 0);
    }
    CHECK(strcmp(gs_reason_str(GS_STOPPED_INTERRUPTED), "interrupted") == 0);
}

int main(void)
{
    test_confirm_gap();
    long live = gs_mem_live();
    test_cg_indefinite();
    test_dtol();
    test_zero_rhs();
    test_max_iters();
    test_bicgstab_breakdown();
    test_happy_breakdown();
    test_nan();
    test_stagnation();
    test_attainable();
    test_args();
    test_interrupt();
    test_names();
    CHECK(gs_mem_live() == live);
    return gs_test_result("test_krylov_reasons");
}

/* test_solve_faults.c: numerical faults and degenerate sizes, from the Krylov methods up to a
 * whole solve (gs_problem_load + gs_driver_solve on the host), each asserting the reason code
 * (or the error status) and the message:
 *  - NaN or Inf in the matrix: reason nan before any iteration, for every method;
 *  - singular matrices: an inconsistent system never "converges" (CG: indefinite matrix,
 *    BiCGStab and GMRES: breakdown), a consistent one converges;
 *  - an indefinite matrix with a positive diagonal under Jacobi-CG: indefinite matrix;
 *  - a zero or missing diagonal with Jacobi: a clear input error naming the file and row;
 *  - 0-row and 1-row systems through the whole solve (Jacobi, AMG and no preconditioner).
 * (Breakdowns, happy breakdown, stagnation, NaN in b and x0: test_krylov_reasons.c; NaN in
 * the files: tests/io/test_io_faults.c.) */
#include <unistd.h>

#include "gs_app_run.h"
#include "gs_driver.h"
#include "kry_test.h"

static char g_dir[] = "/tmp/gs_solve_faults_XXXXXX";

/* Solve with method t (and Jacobi or not); returns the result, checks status OK. */
static gs_krylov_result solve(const char *what, gs_krylov_type t, const gs_csr *A, int jacobi,
                              const double *b, double *x)
{
    gs_krylov_result r;
    gs_krylov_params p = kparams(t, 1e-10, 50);
    long live = gs_mem_live();
    memset(&r, 0, sizeof r);
    CHECK_OK(kry_solve(&p, A, jacobi, b, NULL, x, &r));
    CHECK(gs_mem_live() == live);
    printf("%-36s %-8s %-18s its %2d  %s\n", what, kname(t), gs_reason_name(r.reason), r.iterations,
           r.detail);
    return r;
}

/* NaN or Inf stored in A: ||b - A x0|| is NaN, reported before the first iteration. */
static void test_nonfinite_matrix(void)
{
    const double bad[2] = {NAN, INFINITY};
    double b[2] = {1, 1}, x[2];
    for (int k = 0; k < 2; k++) {
        double a[4] = {2, 1, 1, 2};
        a[1] = bad[k];
        gs_csr *A = mat_dense(2, a);
        for (int t = GS_KRYLOV_CG; t <= GS_KRYLOV_FGMRES; t++) {
            gs_krylov_result r = solve(k ? "Inf in A" : "NaN in A", (gs_krylov_type)t, A, 0, b, x);
            CHECK_MSG(r.reason == GS_DIVERGED_NAN && r.iterations == 0, "%s: %s after %d",
                      kname((gs_krylov_type)t), gs_reason_name(r.reason), r.iterations);
            CHECK_MSG(strstr(r.detail, "the initial guess or the matrix has NaN/Inf entries"),
                      "detail: %s", r.detail);
        }
        gs_csr_destroy(&A);
    }
}

/* A = [[1, -1], [-1, 1]] (positive semidefinite, singular). b = (1, 1) is not in its range:
 * no method may claim convergence. b = (1, -1) is: every method solves it in one step. */
static void test_singular(void)
{
    const double a[4] = {1, -1, -1, 1}, b_out[2] = {1, 1}, b_in[2] = {1, -1};
    static const gs_reason want[] = {GS_DIVERGED_INDEFINITE_MATRIX, GS_DIVERGED_BREAKDOWN,
                                     GS_DIVERGED_BREAKDOWN, GS_DIVERGED_BREAKDOWN};
    static const char *const detail[] = {"p.Ap = 0.000e+00 <= 0", "r_hat.v = 0",
                                         "singular Hessenberg matrix",
                                         "singular Hessenberg matrix"};
    gs_csr *A = mat_dense(2, a);
    double x[2];
    for (int jac = 0; jac <= 1; jac++)
        for (int t = GS_KRYLOV_CG; t <= GS_KRYLOV_FGMRES; t++) {
            gs_krylov_result r =
                solve(jac ? "singular, b not in range, Jacobi" : "singular, b not in range",
                      (gs_krylov_type)t, A, jac, b_out, x);
            CHECK_MSG(r.reason == want[t], "%s: %s, expected %s", kname((gs_krylov_type)t),
                      gs_reason_name(r.reason), gs_reason_name(want[t]));
            CHECK_MSG(strstr(r.detail, detail[t]), "%s: detail '%s' lacks '%s'",
                      kname((gs_krylov_type)t), r.detail, detail[t]);
            CHECK(r.iterations == 1);
        }
    for (int t = GS_KRYLOV_CG; t <= GS_KRYLOV_FGMRES; t++) {
        gs_krylov_result r = solve("singular, b in range", (gs_krylov_type)t, A, 0, b_in, x);
        CHECK(r.reason == GS_CONVERGED_RTOL && r.iterations == 1);
        CHECK(true_relres(A, b_in, x) <= 1e-14);
    }
    gs_csr_destroy(&A);
}

/* A = [[1, 2], [2, 1]] (eigenvalues 3 and -1) has a positive diagonal, so Jacobi is accepted;
 * from b = e1 CG meets p.Ap = -12 < 0 at iteration 2 and says so. */
static void test_indefinite_jacobi(void)
{
    const double a[4] = {1, 2, 2, 1}, b[2] = {1, 0};
    double x[2];
    gs_csr *A = mat_dense(2, a);
    gs_krylov_result r = solve("indefinite, positive diagonal, Jacobi", GS_KRYLOV_CG, A, 1, b, x);
    CHECK_MSG(r.reason == GS_DIVERGED_INDEFINITE_MATRIX && r.iterations == 2, "%s after %d",
              gs_reason_name(r.reason), r.iterations);
    CHECK_MSG(strstr(r.detail, "p.Ap = -1.200e+01 <= 0 at iteration 2"), "detail: %s", r.detail);
    /* GMRES solves it: the matrix is nonsingular */
    r = solve("indefinite, positive diagonal, Jacobi", GS_KRYLOV_GMRES, A, 1, b, x);
    CHECK(r.reason == GS_CONVERGED_RTOL && true_relres(A, b, x) <= 1e-10);
    gs_csr_destroy(&A);
}

/* ------------------------------------------------------------------ whole solves */

static const char *fixture(const char *name, const char *text)
{
    static char buf[4][320];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", g_dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) fputs(text, f), fclose(f);
    return p;
}

/* Load the matrix file and solve it on the host with solver `type` and `pc`; *run holds the
 * result (release it), the problem is destroyed here. */
static gs_status whole(const char *path, const char *type, const char *pc, gs_run *run)
{
    gs_config c;
    gs_problem *p = NULL;
    char set[3][400];
    gs_status st = GS_OK;
    memset(run, 0, sizeof *run);
    gs_config_defaults(&c);
    snprintf(set[0], sizeof set[0], "problem.matrix=%s", path);
    snprintf(set[1], sizeof set[1], "solver.type=%s", type);
    snprintf(set[2], sizeof set[2], "solver.preconditioner=%s", pc);
    for (int i = 0; i < 3; i++) GS_CHECK(gs_config_set(&c, set[i]));
    GS_CHECK(gs_config_set(&c, "run.backend=host"));
    GS_CHECK(gs_config_set(&c, "output.verbosity=0"));
    GS_CHECK(gs_config_check(&c));
    GS_CHECK(gs_problem_load(&c, &p));
    GS_CHECK(gs_app_solve(&c, p, run, stdout));
done:
    gs_problem_destroy(&p);
    return st;
}

static void test_sizes(void)
{
    gs_run run;
    long live = gs_mem_live();
    const char *empty = fixture("empty.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                             "0 0 0\n");
    const char *one = fixture("one.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                         "1 1 1\n1 1 4\n");
    const char *one0 = fixture("one0.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                           "1 1 0\n");
    const char *types[] = {"cg", "bicgstab", "gmres", "fgmres"};
    for (int t = 0; t < 4; t++) {
        /* 0 x 0: b is empty, so x = 0 (empty) is exact */
        CHECK_OK(whole(empty, types[t], "jacobi", &run));
        CHECK_MSG(run.res.converged && strcmp(run.res.reason, "zero_rhs") == 0 &&
                      run.res.iterations == 0 && run.res.rows == 0 && run.res.rel_residual == 0.0,
                  "%s on 0 x 0: %s after %d, relres %g", types[t], run.res.reason,
                  run.res.iterations, run.res.rel_residual);
        gs_run_release(&run);
        /* 1 x 1: [4] x = 1 in one step, x = 0.25 */
        CHECK_OK(whole(one, types[t], "jacobi", &run));
        CHECK_MSG(run.res.converged && strcmp(run.res.reason, "rtol") == 0 &&
                      run.res.iterations == 1 && run.x && fabs(run.x[0] - 0.25) <= 1e-15,
                  "%s on 1 x 1: %s after %d", types[t], run.res.reason, run.res.iterations);
        gs_run_release(&run);
        /* ... and with AMG: one level, which the dense inverse solves exactly */
        CHECK_OK(whole(one, types[t], "amg", &run));
        CHECK_MSG(run.res.converged && strcmp(run.res.reason, "rtol") == 0 &&
                      run.res.iterations == 1 && run.x && fabs(run.x[0] - 0.25) <= 1e-15,
                  "%s-amg on 1 x 1: %s after %d", types[t], run.res.reason, run.res.iterations);
        gs_run_release(&run);
        /* 0 x 0 with AMG: a hierarchy of one empty level, x = 0 */
        CHECK_OK(whole(empty, types[t], "amg", &run));
        CHECK_MSG(run.res.converged && strcmp(run.res.reason, "zero_rhs") == 0 &&
                      run.res.iterations == 0 && run.res.rows == 0,
                  "%s-amg on 0 x 0: %s after %d", types[t], run.res.reason, run.res.iterations);
        gs_run_release(&run);
        /* 1 x 1 zero matrix: Jacobi refuses it with the file and row */
        gs_error_clear();
        CHECK_FAIL(whole(one0, types[t], "jacobi", &run), GS_ERR_INPUT,
                   "one0.mtx: row 1 has no diagonal entry; Jacobi needs a nonzero diagonal");
        gs_run_release(&run);
        /* ... and without a preconditioner, no method pretends to solve it */
        CHECK_OK(whole(one0, types[t], "none", &run));
        CHECK_MSG(!run.res.converged &&
                      strcmp(run.res.reason, t == 0 ? "indefinite_matrix" : "breakdown") == 0,
                  "%s on the 1 x 1 zero matrix: %s (%s)", types[t], run.res.reason,
                  run.res.reason_text);
        gs_run_release(&run);
    }
    /* an explicitly stored zero on the diagonal */
    const char *zd = fixture("zero_diag.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                              "3 3 5\n1 1 2\n2 2 0\n3 3 2\n2 1 1\n1 2 1\n");
    CHECK_FAIL(whole(zd, "cg", "jacobi", &run), GS_ERR_INPUT,
               "zero_diag.mtx: row 2 has a zero diagonal entry; Jacobi needs a nonzero diagonal");
    gs_run_release(&run);
    CHECK(gs_mem_live() == live);
}

int main(void)
{
    CHECK(mkdtemp(g_dir) != NULL);
    long live = gs_mem_live();
    test_nonfinite_matrix();
    test_singular();
    test_indefinite_jacobi();
    test_sizes();
    CHECK(gs_mem_live() == live);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    CHECK(system(cmd) == 0);
    return gs_test_result("test_solve_faults");
}

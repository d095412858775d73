/* Host CG on 3D Poisson 7-point 64^3, b = ones, x0 = 0, rtol 1e-8 takes the textbook count.
 * Reference: scipy 1.17.1 sparse.linalg.cg on the same system takes 159 iterations
 * (tests/data/scipy_cg_reference.py). Jacobi with a constant diagonal only scales the
 * residual, so CG + Jacobi must take the same count. */
#include "gs_test_solve.h"

#define SCIPY_ITERS 159

static void run(const char *precond)
{
    gs_config c;
    gs_problem *p = NULL;
    gs_run r;
    char pc[64];
    snprintf(pc, sizeof pc, "solver.preconditioner=%s", precond);
    CHECK_OK(test_config(&c, "problem.generate.type=poisson", "problem.generate.size=64",
                         "problem.generate.stencil=7", "run.backend=host", "solver.type=cg",
                         "solver.rtol=1e-8", pc, NULL));
    CHECK_OK(gs_problem_load(&c, &p));
    if (!p) return;
    CHECK_OK(gs_app_solve(&c, p, &r, stdout));
    CHECK(r.res.converged == 1);
    CHECK_MSG(abs(r.res.iterations - SCIPY_ITERS) <= 3, "%s: %d iterations, scipy takes %d",
              precond, r.res.iterations, SCIPY_ITERS);
    double rel = test_true_residual(p->A, p->b, r.x);
    CHECK_MSG(rel <= 1e-8, "true residual %g", rel);
    CHECK_NEAR(rel, r.res.rel_residual, 1e-6);
    printf("%s: %d iterations, true residual %.3e\n", precond, r.res.iterations, rel);
    gs_run_release(&r);
    gs_problem_destroy(&p);
}

int main(void)
{
    long live = gs_mem_live();
    run("none");
    run("jacobi");
    CHECK(gs_mem_live() == live);
    return gs_test_result("test_poisson_cg");
}

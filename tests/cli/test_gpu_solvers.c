/* Device solves against host solves: each solver on generated problems and real matrices
 * must give the same reason and an iteration count within 2% or 2 of the host's, and the
 * true residual recomputed here on the host must meet the tolerance. Skipped (77) without a
 * GPU. */
#include "gs_backend.h"
#include "gs_test_solve.h"

typedef struct solve_case {
    const char *name, *matrix, *gen, *solver, *precond, *format;
    int chaotic; /* so ill-conditioned that rounding moves the count (checked: reason, residual) */
} solve_case;

static const solve_case CASES[] = {
    {"poisson7-cg-jacobi", NULL, "poisson:7:32", "cg", "jacobi", "auto", 0},
    {"poisson7-cg-none-own", NULL, "poisson:7:32", "cg", "none", "csr", 0},
    {"poisson27-cg", NULL, "poisson:27:24", "cg", "jacobi", "cusparse", 0},
    {"poisson7-cg-amg-cusparse", NULL, "poisson:7:32", "cg", "amg", "cusparse", 0}, /* graph */
    {"convdiff-gmres", NULL, "convdiff:7:24", "gmres", "jacobi", "auto", 0},
    {"convdiff-fgmres", NULL, "convdiff:7:24", "fgmres", "jacobi", "csr", 0},
    {"convdiff-bicgstab", NULL, "convdiff:7:24", "bicgstab", "jacobi", "auto", 0},
    {"powerlaw-cg", NULL, "powerlaw:0:20000", "cg", "jacobi", "csr", 0},
    {"nos6-cg", "nos6.mtx", NULL, "cg", "jacobi", "auto", 0},
    {"bcsstk13-cg", "bcsstk13.mtx", NULL, "cg", "jacobi", "auto", 1}, /* cond 1.1e10 */
    {"ani4-cg", "ani4.mtx", NULL, "cg", "jacobi", "auto", 0},
    {"ginkgo-cg", "ginkgo_multigrid_A6525.mtx", NULL, "cg", "jacobi", "cusparse", 0},
    {"2dcyl1-gmres", "2dcyl1.mtx", NULL, "gmres", "jacobi", "auto", 0},
    {"BentPipe-bicgstab", "BentPipe2D100.mtx", NULL, "bicgstab", "jacobi", "auto", 0},
};

/* Solve one case on `backend`; 0 when it could not be set up. */
static int run_case(const solve_case *sc, const char *backend, gs_run *r, gs_problem **p)
{
    gs_config c;
    char kv[8][1100];
    int n = 0;
    if (sc->matrix) {
        const char *dir = getenv("GS_MATRICES");
        if (!dir || !*dir) return 0; /* no real matrices here: the case is skipped */
        snprintf(kv[n++], sizeof kv[0], "problem.matrix=%s/%s", dir, sc->matrix);
    } else {
        char type[32];
        int stencil = 0, size = 0;
        sscanf(sc->gen, "%31[^:]:%d:%d", type, &stencil, &size);
        snprintf(kv[n++], sizeof kv[0], "problem.generate.type=%s", type);
        snprintf(kv[n++], sizeof kv[0], "problem.generate.size=%d", size);
        if (stencil) snprintf(kv[n++], sizeof kv[0], "problem.generate.stencil=%d", stencil);
    }
    snprintf(kv[n++], sizeof kv[0], "solver.type=%s", sc->solver);
    snprintf(kv[n++], sizeof kv[0], "solver.preconditioner=%s", sc->precond);
    snprintf(kv[n++], sizeof kv[0], "spmv.format=%s", sc->format);
    snprintf(kv[n++], sizeof kv[0], "run.backend=%s", backend);
    gs_config_defaults(&c);
    c.output.verbosity = 0;
    c.solver.max_iters = 5000;
    for (int i = 0; i < n; i++) CHECK_OK(gs_config_set(&c, kv[i]));
    if (strcmp(backend, "host") == 0) gs_str_copy(c.spmv.format, sizeof c.spmv.format, "auto");
    CHECK_OK(gs_problem_load(&c, p));
    if (!*p) return 0;
    gs_status st = gs_app_solve(&c, *p, r, stdout);
    CHECK_MSG(st == GS_OK, "%s on %s: %s", sc->name, backend, gs_error_message());
    gs_error_clear();
    return st == GS_OK;
}

int main(void)
{
    if (gs_backend_cuda_devices(NULL) == 0) {
        printf("no GPU: skipped\n");
        return 77;
    }
    long live = gs_mem_live();
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const solve_case *sc = &CASES[i];
        gs_run h, d;
        gs_problem *ph = NULL, *pd = NULL;
        memset(&h, 0, sizeof h);
        memset(&d, 0, sizeof d);
        if (run_case(sc, "host", &h, &ph) && run_case(sc, "cuda", &d, &pd)) {
            int tol = h.res.iterations / 50 > 2 ? h.res.iterations / 50 : 2;
            double rel = test_true_residual(pd->A, pd->b, d.x);
            printf("%-20s host %s %5d its %.2e | %s %s %5d its %.2e (%s)  %.1f ms vs %.1f ms\n",
                   sc->name, h.res.reason, h.res.iterations, h.res.rel_residual, d.res.backend,
                   d.res.reason, d.res.iterations, rel, d.res.format, 1e3 * d.res.solve_s,
                   1e3 * h.res.solve_s);
            CHECK_MSG(strcmp(d.res.backend, "cuda") == 0, "%s ran on %s", sc->name,
                      d.res.backend);
            CHECK_MSG(strcmp(h.res.reason, d.res.reason) == 0, "%s: reason %s vs %s", sc->name,
                      d.res.reason, h.res.reason);
            CHECK_MSG(sc->chaotic || abs(h.res.iterations - d.res.iterations) <= tol,
                      "%s: %d device iterations vs %d host", sc->name, d.res.iterations,
                      h.res.iterations);
            if (d.res.converged) CHECK_MSG(rel <= 1e-8 * 1.01, "%s: true residual %g", sc->name, rel);
            CHECK_NEAR(rel, d.res.rel_residual, 1e-6);
        }
        gs_run_release(&h);
        gs_run_release(&d);
        gs_problem_destroy(&ph);
        gs_problem_destroy(&pd);
    }
    CHECK(gs_mem_live() == live);
    return gs_test_result("test_gpu_solvers");
}

/* MINRES and problem.nullspace = "constant" on the device against the host: MINRES with none,
 * Jacobi and AMG on 3D Poisson (SPD) and on a shifted 2D Laplacian (symmetric indefinite,
 * tests/data/solver/shifted2d_20.mtx); CG, MINRES and GMRES with AMG or Jacobi on a singular 2D
 * Neumann Laplacian (neumann2d_20.mtx) with a random b made consistent; and the same Neumann
 * system without it: diverged on both, with the hint. The same reason and an iteration count
 * within 2% or 2 of the host's, the true residual recomputed here on the host (against the
 * projected b where b was projected), the projection's size alike. Skipped (77) without a GPU. */
#include "gs_backend.h"
#include "gs_test_solve.h"

typedef struct minres_case {
    const char *name, *matrix, *solver, *precond, *set; /* set: one more key=value, or NULL */
    const char *reason;
} minres_case;

static const minres_case CASES[] = {
    {"poisson7-minres-none", NULL, "minres", "none", NULL, "rtol"},
    {"poisson7-minres-jacobi", NULL, "minres", "jacobi", NULL, "rtol"},
    {"poisson7-minres-amg", NULL, "minres", "amg", NULL, "rtol"},
    {"shifted-minres-none", "shifted2d_20.mtx", "minres", "none", NULL, "rtol"},
    {"shifted-minres-jacobi", "shifted2d_20.mtx", "minres", "jacobi", NULL, "rtol"},
    {"neumann-cg-amg", "neumann2d_20.mtx", "cg", "amg", "problem.nullspace=constant", "rtol"},
    {"neumann-minres-amg", "neumann2d_20.mtx", "minres", "amg", "problem.nullspace=constant",
     "rtol"},
    {"neumann-gmres-jacobi", "neumann2d_20.mtx", "gmres", "jacobi", "problem.nullspace=constant",
     "rtol"},
    {"neumann-cg-jacobi-none", "neumann2d_20.mtx", "cg", "jacobi", NULL, "diverged"},
};

/* Solve one case on `backend`; 0 when it could not be set up. */
static int run_case(const minres_case *sc, const char *backend, gs_run *r, gs_problem **p)
{
    gs_config c;
    char kv[8][1100];
    int n = 0;
    const char *dir = getenv("GS_TEST_DATA");
    if (sc->matrix) {
        if (!dir || !*dir) return 0;
        snprintf(kv[n++], sizeof kv[0], "problem.matrix=%s/solver/%s", dir, sc->matrix);
        snprintf(kv[n++], sizeof kv[0], "problem.rhs=random");
    } else {
        snprintf(kv[n++], sizeof kv[0], "problem.generate.type=poisson");
        snprintf(kv[n++], sizeof kv[0], "problem.generate.size=32");
    }
    snprintf(kv[n++], sizeof kv[0], "solver.type=%s", sc->solver);
    snprintf(kv[n++], sizeof kv[0], "solver.preconditioner=%s", sc->precond);
    snprintf(kv[n++], sizeof kv[0], "run.backend=%s", backend);
    if (sc->set) snprintf(kv[n++], sizeof kv[0], "%s", sc->set);
    gs_config_defaults(&c);
    c.output.verbosity = 0;
    c.solver.max_iters = 2000;
    for (int i = 0; i < n; i++) CHECK_OK(gs_config_set(&c, kv[i]));
    CHECK_OK(gs_problem_load(&c, p));
    if (!*p) return 0;
    gs_status st = gs_app_solve(&c, *p, r, stdout);
    CHECK_MSG(st == GS_OK, "%s on %s: %s", sc->name, backend, gs_error_message());
    gs_error_clear();
    return st == GS_OK;
}

/* ||b_used - A x|| / ||b_used||, b_used = b less its mean when b was projected */
static double residual(const gs_problem *p, const gs_run *r, int projected)
{
    const int64_t n = p->A->rows;
    double *b = malloc((size_t)n * sizeof *b), mean = 0.0;
    for (int64_t i = 0; i < n; i++) mean += p->b[i] / (double)n;
    for (int64_t i = 0; i < n; i++) b[i] = p->b[i] - (projected ? mean : 0.0);
    double rel = test_true_residual(p->A, b, r->x);
    free(b);
    return rel;
}

int main(void)
{
    if (gs_backend_cuda_devices(NULL) == 0) {
        printf("no GPU: skipped\n");
        return 77;
    }
    long live = gs_mem_live();
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const minres_case *sc = &CASES[i];
        const int projected = sc->set && strstr(sc->set, "constant");
        gs_run h, d;
        gs_problem *ph = NULL, *pd = NULL;
        memset(&h, 0, sizeof h);
        memset(&d, 0, sizeof d);
        if (run_case(sc, "host", &h, &ph) && run_case(sc, "cuda", &d, &pd)) {
            int tol = h.res.iterations / 50 > 2 ? h.res.iterations / 50 : 2;
            double rel = residual(pd, &d, projected);
            printf("%-24s host %s %5d its %.2e | %s %s %5d its %.2e\n", sc->name, h.res.reason,
                   h.res.iterations, h.res.rel_residual, d.res.backend, d.res.reason,
                   d.res.iterations, rel);
            CHECK_MSG(strcmp(d.res.backend, "cuda") == 0, "%s ran on %s", sc->name,
                      d.res.backend);
            CHECK_MSG(!strcmp(h.res.reason, sc->reason) && !strcmp(d.res.reason, sc->reason),
                      "%s: reason %s (host) and %s (device), expected %s", sc->name, h.res.reason,
                      d.res.reason, sc->reason);
            if (d.res.converged) { /* a diverging run's count is rounding's: not compared */
                CHECK_MSG(abs(h.res.iterations - d.res.iterations) <= tol,
                          "%s: %d device iterations vs %d host", sc->name, d.res.iterations,
                          h.res.iterations);
                CHECK_MSG(rel <= 1e-8 * 1.01, "%s: true residual %g", sc->name, rel);
                CHECK_NEAR(rel, d.res.rel_residual, 1e-6);
            }
            if (projected) CHECK_NEAR(d.nullspace_shift, h.nullspace_shift, 1e-12);
            if (!d.res.converged)
                CHECK(strstr(d.hint, "A annihilates the constant vector") != NULL);
        }
        gs_run_release(&h);
        gs_run_release(&d);
        gs_problem_destroy(&ph);
        gs_problem_destroy(&pd);
    }
    CHECK(gs_mem_live() == live);
    return gs_test_result("test_gpu_minres");
}

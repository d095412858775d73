/* test_combinations host|cuda: every Krylov method x preconditioner {none, jacobi, amg} x SpMV
 * format {auto, measure, each registered format the backend runs} and, under AMG, x cycle {V, W}
 * x smoother, on three small problems, each solve configured with --set-style keys and run by
 * gs_driver_solve as gsolve runs it. Every run must return GS_OK (gsolve's exit 1 is a failure
 * here) and end with a reason: converged with the true ||b - Ax||/||b|| recomputed here within
 * rtol and equal to the reported one, in an iteration range, on the backend asked for, in the
 * format forced (or csr where that format refused a level); CG and MINRES on the nonsymmetric
 * problem may end with a reason instead. The full product runs, no pairwise subset needed: the host's 576
 * solves take about 6 s on 2 cores, the 672 with cusparse about 8 s on an H100. The cuda run exits
 * 77 (skipped) without a GPU. */
#include "gs_backend.h"
#include "gs_krylov.h"
#include "gs_smoother.h"
#include "gs_spmat.h"
#include "gs_test_solve.h"
#include "gs_time.h"

typedef struct problem {
    const char *name, *type; /* problem.generate.type */
    int size, stencil;       /* problem.generate.size, .stencil (0: the generator's own) */
    int symmetric;           /* else CG may end with a reason (indefinite, breakdown, ...) */
    int max_its_amg, max_its_one_level; /* bounds of a converged run (~1.5x the host's most) */
} problem;

/* Host iterations to 1e-8 (least..most over methods, formats, cycles, smoothers): Poisson AMG
 * 4..18, none/jacobi 30..40; rotated AMG 12..47, 180..410; convdiff AMG 6..21, 79..233 (CG:
 * indefinite_matrix after 7..13); the H100's the same. Each AMG hierarchy has 3 levels
 * (convdiff 32^2 has 2, where a W-cycle is a V-cycle). */
static const problem PROBLEMS[] = {
    {"poisson3d-16", "poisson", 16, 7, 1, 30, 80},
    {"rotated-48", "rotated", 48, 0, 1, 75, 620},
    {"convdiff2d-40", "convdiff", 40, 5, 0, 35, 350},
};
#define NPROBLEMS (int)(sizeof PROBLEMS / sizeof PROBLEMS[0])

static const char *const PRECONDS[] = {"none", "jacobi", "amg"};
static const char *const CYCLES[] = {"V", "W"};

typedef struct combo {
    const problem *pb;
    const char *solver, *precond, *format, *cycle, *smoother, *backend;
    char name[160];
} combo;

/* Apply one "key=value" (a failure is the combination's). */
static void set_key(gs_config *c, const combo *k, const char *key, const char *value)
{
    char kv[160];
    snprintf(kv, sizeof kv, "%s=%s", key, value);
    gs_status st = gs_config_set(c, kv);
    CHECK_MSG(st == GS_OK, "%s: %s: %s", k->name, kv, gs_error_message());
    gs_error_clear();
}

/* Every level's format (res.formats, "cds,csr") is f, or csr where f refused the level. */
static int formats_forced(const char *formats, const char *f)
{
    char one[32];
    for (int i = 0; gs_config_list_item(formats, i, one, sizeof one); i++)
        if (strcmp(one, f) != 0 && strcmp(one, "csr") != 0) return 0;
    return 1;
}

/* The result of a solve that returned GS_OK: an honest ending, checked independently. */
static void check_run(const combo *k, const gs_problem *p, const gs_config *c, const gs_run *r)
{
    const gs_result *res = &r->res;
    int amg = strcmp(k->precond, "amg") == 0;
    double rel = test_true_residual(p->A, p->b, r->x);
    CHECK_MSG(strcmp(res->reason, "none") != 0 && strcmp(res->reason, "interrupted") != 0 &&
                  res->reason_text[0] != '\0',
              "%s: ended without a reason (\"%s\")", k->name, res->reason);
    CHECK_MSG(isfinite(rel) || !res->converged, "%s: converged, true residual %g", k->name, rel);
    /* the same up to rounding (the device sums in another order): 1e-6 of it or 1e-12 of ||b|| */
    if (isfinite(rel))
        CHECK_MSG(fabs(rel - res->rel_residual) <= 1e-6 * rel + 1e-12,
                  "%s: true residual %.6e, reported %.6e", k->name, rel, res->rel_residual);
    CHECK_MSG(strcmp(res->backend, k->backend) == 0, "%s: ran on %s", k->name, res->backend);
    if (strcmp(k->format, "auto") != 0 && strcmp(k->format, "measure") != 0)
        CHECK_MSG(formats_forced(res->formats, k->format), "%s: levels ran in %s", k->name,
                  res->formats);
    if (amg)
        CHECK_MSG(res->levels >= 3, "%s: %d AMG levels (a W-cycle needs 3 to differ)", k->name,
                  res->levels);
    /* CG and MINRES are for symmetric A: on the nonsymmetric problem a reason is enough */
    if (!k->pb->symmetric && (strcmp(k->solver, "cg") == 0 || strcmp(k->solver, "minres") == 0))
        return;
    int most = amg ? k->pb->max_its_amg : k->pb->max_its_one_level;
    CHECK_MSG(res->converged == 1, "%s: %s", k->name, res->reason_text);
    if (!res->converged) return;
    CHECK_MSG(rel <= c->solver.rtol * (1 + 1e-6), "%s: converged, true residual %.3e > rtol %g",
              k->name, rel, c->solver.rtol);
    CHECK_MSG(res->iterations >= 1 && res->iterations <= most, "%s: %d iterations, expected 1..%d",
              k->name, res->iterations, most);
}

/* Configure and solve one combination on the loaded problem p. */
static void run_combo(const combo *k, const gs_config *base, const gs_problem *p, int verbose)
{
    gs_config c = *base;
    gs_run r;
    memset(&r, 0, sizeof r);
    set_key(&c, k, "solver.type", k->solver);
    set_key(&c, k, "solver.preconditioner", k->precond);
    set_key(&c, k, "spmv.format", k->format);
    set_key(&c, k, "amg.cycle", k->cycle);
    set_key(&c, k, "amg.smoother", k->smoother);
    set_key(&c, k, "run.backend", k->backend);
    gs_status st = gs_config_check(&c);
    CHECK_MSG(st == GS_OK, "%s: config: %s", k->name, gs_error_message());
    double t0 = gs_time_now();
    if (st == GS_OK) st = gs_app_solve(&c, p, &r, NULL);
    CHECK_MSG(st == GS_OK, "%s: %s: %s (%s)", k->name, gs_status_str(st), gs_error_message(),
              gs_error_trace_str());
    gs_error_clear();
    if (st == GS_OK) check_run(k, p, &c, &r);
    if (verbose)
        printf("%-52s %-10s %4d its %.2e  %-22s %6.1f ms\n", k->name, r.res.reason,
               r.res.iterations, r.res.rel_residual, r.res.formats, 1e3 * (gs_time_now() - t0));
    gs_run_release(&r);
}

/* One (solver, preconditioner, format) on problem pb, under AMG with every cycle x smoother (the
 * defaults elsewhere: they matter under AMG only); returns how many ran. */
static int run_triple(const problem *pb, const gs_problem *p, const gs_config *base,
                      const char *solver, const char *precond, const char *format,
                      const char *backend, int verbose)
{
    int amg = strcmp(precond, "amg") == 0, n = 0;
    for (int cy = 0; cy < (amg ? 2 : 1); cy++)
        for (int sm = 0; amg ? gs_smoother_at(sm) != NULL : sm < 1; sm++, n++) {
            combo k = {.pb = pb,
                       .solver = solver,
                       .precond = precond,
                       .format = format,
                       .cycle = CYCLES[cy],
                       .backend = backend};
            k.smoother = amg ? gs_smoother_at(sm)->name : gs_smoother_default()->name;
            if (amg)
                snprintf(k.name, sizeof k.name, "%s %s amg(%s, %s) %s on %s", pb->name, solver,
                         k.cycle, k.smoother, format, backend);
            else
                snprintf(k.name, sizeof k.name, "%s %s %s %s on %s", pb->name, solver, precond,
                         format, backend);
            run_combo(&k, base, p, verbose);
        }
    return n;
}

/* Every combination on problem pb, loaded once; returns how many ran. */
static int run_problem(const problem *pb, const char *backend, const char *const *formats,
                       int nformats, int verbose)
{
    gs_config base;
    gs_problem *p = NULL;
    char kv[64];
    int n = 0;
    gs_config_defaults(&base);
    base.output.verbosity = 0;
    snprintf(kv, sizeof kv, "run.backend=%s", backend);
    CHECK_OK(gs_config_set(&base, kv));
    snprintf(kv, sizeof kv, "problem.generate.type=%s", pb->type);
    CHECK_OK(gs_config_set(&base, kv));
    snprintf(kv, sizeof kv, "problem.generate.size=%d", pb->size);
    CHECK_OK(gs_config_set(&base, kv));
    snprintf(kv, sizeof kv, "problem.generate.stencil=%d", pb->stencil);
    if (pb->stencil) CHECK_OK(gs_config_set(&base, kv));
    CHECK_OK(gs_problem_load(&base, &p));
    if (!p) return 0;
    for (int s = 0; gs_krylov_at(s); s++)
        for (int pc = 0; pc < 3; pc++)
            for (int f = 0; f < nformats; f++)
                n += run_triple(pb, p, &base, gs_krylov_at(s)->name, PRECONDS[pc], formats[f],
                                backend, verbose);
    gs_problem_destroy(&p);
    return n;
}

int main(int argc, char **argv)
{
    const char *backend = argc > 1 ? argv[1] : "host";
    int verbose = argc > 2 && strcmp(argv[2], "-v") == 0;
    const char *formats[32];
    int nformats = 0, gpu = strcmp(backend, "cuda") == 0, n = 0;
    if (!gpu && strcmp(backend, "host") != 0) {
        fprintf(stderr, "usage: test_combinations host|cuda [-v]\n");
        return 2;
    }
    if (gpu && gs_backend_cuda_devices(NULL) == 0) {
        printf("no GPU: skipped\n");
        return 77;
    }
    /* as gsolve starts: the GPU first, so that the matrices are made in page-locked memory */
    if (gpu) gs_backend_cuda_start("cuda", 0);
    long live = gs_mem_live();
    double t0 = gs_time_now();
    formats[nformats++] = "auto";
    formats[nformats++] = "measure";
    for (int i = 0; gs_format_at(i) && nformats < 32; i++)
        if (gpu || !gs_format_at(i)->device_only) formats[nformats++] = gs_format_at(i)->name;
    for (int i = 0; i < NPROBLEMS; i++)
        n += run_problem(&PROBLEMS[i], backend, formats, nformats, verbose);
    printf("%d combinations on %s in %.1f s\n", n, backend, gs_time_now() - t0);
    CHECK(gs_mem_live() == live);
    return gs_test_result(gpu ? "test_combinations (cuda)" : "test_combinations (host)");
}

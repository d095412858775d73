/* The shared real matrices: each is read, then solved as matrix_expectations.tsv records
 * (CG + Jacobi for the SPD ones, GMRES + Jacobi for the others), asserting the reason, the
 * iteration range and the true residual recomputed here; then the same matrix written to
 * HDF5 and read back must give the same iterations and residual.
 *
 * usage: test_matrix_suite EXPECTATIONS.tsv FILE   (one matrix)
 *        test_matrix_suite EXPECTATIONS.tsv --check-all (every *.mtx has a line)
 * TSV columns: file solver precond rhs max_iters expect iters_min iters_max why
 * A file "name#tag" is another run of file "name".
 * expect: a reason name (rtol, max_iters, ...), "error:TEXT" (solve refused with TEXT in
 * the message) or "read" (a vector file: read only). */
#include <dirent.h>
#include <unistd.h>

#include "gs_h5.h"
#include "gs_mm.h"
#include "gs_test_solve.h"

typedef struct row {
    char file[128], solver[16], precond[16], rhs[128], max_iters[16], expect[128];
    int imin, imax;
} row;

static int find_row(const char *tsv, const char *file, row *r)
{
    FILE *f = fopen(tsv, "r");
    char line[2048];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        found =
            sscanf(line, "%127[^\t]\t%15[^\t]\t%15[^\t]\t%127[^\t]\t%15[^\t]\t%127[^\t]\t%d\t%d",
                   r->file, r->solver, r->precond, r->rhs, r->max_iters, r->expect, &r->imin,
                   &r->imax) == 8 &&
            strcmp(r->file, file) == 0;
    }
    if (f) fclose(f);
    return found;
}

/* Solve `path` as the row says; returns 0 when the run could not be made. */
static int solve(const row *w, const char *path, const char *dir, gs_run *run, gs_problem **p)
{
    gs_config c;
    char kv[5][1200];
    snprintf(kv[0], sizeof kv[0], "problem.matrix=%s", path);
    snprintf(kv[1], sizeof kv[1], "solver.type=%s", w->solver);
    snprintf(kv[2], sizeof kv[2], "solver.preconditioner=%s", w->precond);
    if (strcmp(w->rhs, "auto") == 0 || strcmp(w->rhs, "ones") == 0)
        snprintf(kv[3], sizeof kv[3], "problem.rhs=%s", w->rhs);
    else
        snprintf(kv[3], sizeof kv[3], "problem.rhs=%s/%s", dir, w->rhs);
    snprintf(kv[4], sizeof kv[4], "solver.max_iters=%s", w->max_iters);
    CHECK_OK(test_config(&c, kv[0], kv[1], kv[2], kv[3], kv[4], "run.backend=host",
                         "solver.rtol=1e-8", NULL));
    gs_status st = gs_problem_load(&c, p);
    if (st == GS_OK) st = gs_app_solve(&c, *p, run, stdout);
    if (strncmp(w->expect, "error:", 6) == 0) {
        CHECK_MSG(st != GS_OK && strstr(gs_error_message(), w->expect + 6),
                  "%s: expected an error with '%s', got %s: %s", w->file, w->expect + 6,
                  gs_status_str(st), gs_error_message());
        gs_error_clear();
        return 0;
    }
    CHECK_MSG(st == GS_OK, "%s: %s", w->file, gs_error_message());
    gs_error_clear();
    return st == GS_OK;
}

static void check_one(const char *tsv, const char *name)
{
    row w;
    char path[1024], h5[1100], file[128];
    const char *dir = getenv("GS_MATRICES");
    CHECK_MSG(find_row(tsv, name, &w), "%s has no line in %s", name, tsv);
    gs_str_copy(file, sizeof file, name); /* "file#tag": a second run of the same file */
    if (strchr(file, '#')) *strchr(file, '#') = '\0';
    if (!dir || strcmp(w.expect, "read") == 0) {
        double *v = NULL;
        int64_t n = 0;
        snprintf(path, sizeof path, "%s/%s", dir, file);
        CHECK_OK(gs_mm_read_vector(path, -1, &v, &n));
        CHECK(n > 0);
        gs_free(v);
        return;
    }
    snprintf(path, sizeof path, "%s/%s", dir, file);
    gs_run r1, r2;
    gs_problem *p1 = NULL, *p2 = NULL;
    memset(&r1, 0, sizeof r1);
    memset(&r2, 0, sizeof r2);
    if (solve(&w, path, dir, &r1, &p1)) {
        double rel = test_true_residual(p1->A, p1->b, r1.x);
        printf("%s: %s+%s: %s after %d iterations, true residual %.3e\n", file, w.solver, w.precond,
               r1.res.reason, r1.res.iterations, rel);
        CHECK_MSG(strcmp(r1.res.reason, w.expect) == 0, "%s: reason %s (%s), expected %s", file,
                  r1.res.reason, r1.res.reason_text, w.expect);
        CHECK_MSG(r1.res.iterations >= w.imin && r1.res.iterations <= w.imax,
                  "%s: %d iterations, expected %d..%d", file, r1.res.iterations, w.imin, w.imax);
        if (r1.res.converged) CHECK_MSG(rel < 1e-7, "%s: true residual %g", file, rel);
        CHECK_NEAR(rel, r1.res.rel_residual, 1e-6);
        /* the same matrix through HDF5 */
        snprintf(h5, sizeof h5, "/tmp/gs_suite_%d.h5", (int)getpid());
        CHECK_OK(gs_h5_write_csr(h5, "/", p1->A));
        if (solve(&w, h5, dir, &r2, &p2)) {
            CHECK_MSG(r2.res.iterations == r1.res.iterations, "%s: HDF5 %d vs MM %d iterations",
                      file, r2.res.iterations, r1.res.iterations);
            CHECK_NEAR(r2.res.rel_residual, r1.res.rel_residual, 1e-12);
            CHECK(strcmp(r2.res.reason, r1.res.reason) == 0);
        }
        unlink(h5);
    }
    gs_run_release(&r1);
    gs_run_release(&r2);
    gs_problem_destroy(&p1);
    gs_problem_destroy(&p2);
}

/* Every top-level .mtx of the collection has an expectation line. */
static void check_all(const char *tsv)
{
    const char *dir = getenv("GS_MATRICES");
    DIR *d = dir ? opendir(dir) : NULL;
    struct dirent *e;
    row w;
    CHECK(d != NULL);
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 4 && strcmp(e->d_name + n - 4, ".mtx") == 0)
            CHECK_MSG(find_row(tsv, e->d_name, &w), "%s has no line in %s", e->d_name, tsv);
    }
    if (d) closedir(d);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_matrix_suite EXPECTATIONS.tsv FILE|--check-all\n");
        return 2;
    }
    long live = gs_mem_live();
    if (strcmp(argv[2], "--check-all") == 0)
        check_all(argv[1]);
    else
        check_one(argv[1], argv[2]);
    CHECK(gs_mem_live() == live);
    return gs_test_result(argv[2]);
}

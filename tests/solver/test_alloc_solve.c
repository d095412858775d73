/* test_alloc_solve.c: a whole host solve (read a Matrix Market file, Jacobi-CG, write the CSV
 * row, the HDF5 record, the residual history and the solution) with the k-th host allocation
 * failing, k = 1, 2, ... until a run makes fewer than k allocations. Every run that fails must
 * fail with GS_ERR_NOMEM (exit code 1) and a message saying how many bytes were asked, free
 * everything it took and leave no temporary file behind; the last run must converge. (A
 * failure the driver absorbs, such as the residual history it keeps on a best-effort basis,
 * may end in success; such runs are counted.) */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "gs_app_run.h"
#include "gs_driver.h"
#include "gs_mem.h"
#include "gs_test.h"

static char g_dir[] = "/tmp/gs_alloc_solve_XXXXXX";
static char g_mtx[300], g_set[5][340];

/* The 2D Laplacian on an n x n grid, lower triangle, as "coordinate real symmetric". */
static void write_matrix(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    int N = n * n, nnz = N + 2 * (n - 1) * n; /* diagonal, x and y couplings */
    fprintf(f, "%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n", N, N, nnz);
    for (int i = 0; i < N; i++) {
        fprintf(f, "%d %d 4\n", i + 1, i + 1);
        if (i % n > 0) fprintf(f, "%d %d -1\n", i + 1, i);
        if (i >= n) fprintf(f, "%d %d -1\n", i + 1, i + 1 - n);
    }
    fclose(f);
}

/* Remove the outputs of a run. */
static void clear_outputs(void)
{
    const char *names[] = {"runs.csv", "run.h5", "run.h5.tmp", "hist.csv", "x.mtx"};
    char p[400];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", g_dir, names[i]);
        unlink(p);
    }
}

/* No temporary file (*.tmp) in the folder. */
static int no_temporaries(void)
{
    DIR *d = opendir(g_dir);
    int ok = 1;
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n > 4 && strcmp(e->d_name + n - 4, ".tmp") == 0) ok = 0;
    }
    closedir(d);
    return ok;
}

/* The whole run, as gsolve does it: config, problem, solve, outputs. */
static gs_status full_solve(int *converged, int *iterations)
{
    gs_config c;
    gs_problem *p = NULL;
    gs_run run;
    gs_status st = GS_OK;
    memset(&run, 0, sizeof run);
    gs_config_defaults(&c);
    GS_CHECK(gs_config_set(&c, g_set[0]));
    for (int i = 1; i < 5; i++) GS_CHECK(gs_config_set(&c, g_set[i]));
    GS_CHECK(gs_config_set(&c, "solver.type=cg"));
    GS_CHECK(gs_config_set(&c, "solver.preconditioner=jacobi"));
    GS_CHECK(gs_config_set(&c, "run.backend=host"));
    GS_CHECK(gs_config_set(&c, "spmv.format=csr")); /* the same path whatever auto picks */
    GS_CHECK(gs_config_set(&c, "output.verbosity=0"));
    GS_CHECK(gs_config_check(&c));
    GS_CHECK(gs_problem_load(&c, &p));
    GS_CHECK(gs_app_solve(&c, p, &run, stdout));
    GS_CHECK(gs_app_write_outputs(&c, &run));
    *converged = run.res.converged;
    *iterations = run.res.iterations;
done:
    gs_run_release(&run);
    gs_problem_destroy(&p);
    return st;
}

/* "out of memory ... N bytes ...": the message says how much was asked. */
static int says_bytes(const char *msg)
{
    const char *b = strstr(msg, " bytes");
    if (!strstr(msg, "out of memory") || !b) return 0;
    while (b > msg && b[-1] >= '0' && b[-1] <= '9') b--;
    return b[0] >= '0' && b[0] <= '9';
}

int main(void)
{
    CHECK(mkdtemp(g_dir) != NULL);
    snprintf(g_mtx, sizeof g_mtx, "%s/lap2d.mtx", g_dir);
    write_matrix(g_mtx, 8);
    snprintf(g_set[0], sizeof g_set[0], "problem.matrix=%s", g_mtx);
    snprintf(g_set[1], sizeof g_set[1], "output.csv=%s/runs.csv", g_dir);
    snprintf(g_set[2], sizeof g_set[2], "output.hdf5=%s/run.h5", g_dir);
    snprintf(g_set[3], sizeof g_set[3], "output.history=%s/hist.csv", g_dir);
    snprintf(g_set[4], sizeof g_set[4], "output.solution=%s/x.mtx", g_dir);

    long live = gs_mem_live();
    int converged = 0, its = 0, absorbed = 0, failed = 0;
    long k = 1, made = 0;
    for (;; k++) {
        clear_outputs();
        gs_error_clear();
        long before = gs_mem_count();
        gs_mem_fail_at(k);
        gs_status st = full_solve(&converged, &its);
        gs_mem_fail_at(0);
        made = gs_mem_count() - before;
        const char *msg = gs_error_message();
        CHECK_MSG(gs_mem_live() == live, "allocation %ld failed: %ld blocks leaked", k,
                  gs_mem_live() - live);
        CHECK_MSG(no_temporaries(), "allocation %ld failed: a temporary file is left", k);
        if (k > made) { /* nothing was injected: the run is whole */
            CHECK_MSG(st == GS_OK && converged && its > 0, "the run without a failure: %s, %s",
                      gs_status_str(st), msg);
            break;
        }
        CHECK_MSG(st == GS_OK || st == GS_ERR_NOMEM, "allocation %ld failed: status %s: %s", k,
                  gs_status_str(st), msg);
        if (st == GS_ERR_NOMEM) {
            failed++;
            CHECK_MSG(says_bytes(msg), "allocation %ld failed: message without a size: %s", k, msg);
            CHECK(gs_status_exit_code(st) == 1);
        } else {
            absorbed++;
        }
        if (k > 100000) break;
    }
    printf("a whole solve makes %ld host allocations; failing each in turn: %d runs reported "
           "out of memory, %d absorbed the failure\n",
           made, failed, absorbed);
    CHECK(made > 20 && failed > 20);
    gs_error_clear();
    clear_outputs();
    unlink(g_mtx);
    CHECK(rmdir(g_dir) == 0);
    return gs_test_result("test_alloc_solve");
}

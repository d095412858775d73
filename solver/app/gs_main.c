/* gs_main.c: the gsolve command line.
 *
 *   gsolve CONFIG [--set key=value ...]   solve
 *   gsolve --inspect FILE [--set problem.group=G]
 *   gsolve CONFIG --export FILE             write the problem's A and b for other tools
 *   gsolve BATCH.cfg [--case N] [--list] [--force] [--set key=value ...]   a batch
 *   gsolve report RESULTS_DIR [--no-plots]  merge a batch's results: tables and plots
 *   gsolve CONFIG [--case N] [--set ...] --print-config   the effective configuration
 *   gsolve --help-config [KEY|GROUP] | --version | --help
 *
 *   mpirun -np N gsolve CONFIG            one system across N MPI ranks (rank 0 prints)
 *
 * Exit codes: 0 converged, 3 ran but did not converge, 2 bad input/config/usage,
 * 1 runtime failure, 130 / 143 stopped by SIGINT / SIGTERM (the run so far recorded).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gs_app_run.h"
#include "gs_backend.h"
#include "gs_batch.h"
#include "gs_comm.h"
#include "gs_dist_op.h"
#include "gs_config.h"
#include "gs_driver.h"
#include "gs_h5.h"
#include "gs_host.h"
#include "gs_ij.h"
#include "gs_mem.h"
#include "gs_mm.h"
#include "gs_problem.h"
#include "gs_problem_dist.h"
#include "gs_report.h"
#include "gs_results.h"
#include "gs_version.h"

#define EXIT_NOT_CONVERGED 3
#define EXIT_USAGE 2

static void usage(FILE *f)
{
    fprintf(f, "usage: gsolve CONFIG [--set key=value ...]\n"
               "       gsolve --inspect FILE [--set problem.group=GROUP]\n"
               "       gsolve CONFIG --export FILE.mtx|FILE.mtx.gz|FILE.h5|FILE.ij   (write A and\n"
               "         b, no solve: FILE.mtx and FILE_b.mtx; FILE.h5 with dataset b; hypre's IJ\n"
               "         files FILE.ij.00000 and FILE_b.ij.00000, ij -fromfile FILE.ij\n"
               "         -rhsfromfile FILE_b.ij); gsolve reads each back as problem.matrix/rhs\n"
               "       gsolve BATCH.cfg [--case N] [--list] [--force] [--set key=value ...]\n"
               "       gsolve report RESULTS_DIR [--no-plots]\n"
               "       gsolve CONFIG [--case N] [--set key=value ...] --print-config\n"
               "       gsolve --help-config [KEY|GROUP] | --version | --help\n"
               "       mpirun -np N gsolve CONFIG [--set ...]   one system across N MPI ranks\n"
               "Solves A x = b as the libconfig file CONFIG describes; --set overrides keys.\n"
               "--print-config prints every key with its value (defaults included, paths made\n"
               "absolute) as a config file that gsolve runs again: of a batch, the same batch\n"
               "(its cases included); with --case N, that case as one run.\n"
               "--help-config KEY prints one key (or a group: amg, problem.generate).\n"
               "A config with batch.cases runs every (case, format, repeat): --case N (or\n"
               "SLURM_ARRAY_TASK_ID) runs case N only, --list prints the cases, --force runs\n"
               "again what is already recorded. report merges the results: tables and plots.\n"
               "Output: the header (problem, solver, format, backend, threads) before the\n"
               "iterations, the summary after; output.monitor = N prints the residual every N\n"
               "iterations. SIGINT or SIGTERM stops the solve at its next iteration: the\n"
               "summary is printed and the CSV row and HDF5 record are written (a batch stops\n"
               "and runs that run again when started again); a second signal ends at once.\n"
               "Exit codes: 0 converged, 3 not converged, 2 bad input/config/usage, 1 runtime "
               "failure,\n130 interrupted by SIGINT, 143 by SIGTERM.\n");
}

/* Print the recorded failure in one line (and its trace at verbosity >= 2); exit code. */
static int fail(gs_status st, int verbosity)
{
    const char *msg = gs_error_message();
    if (gs_comm_rank() != 0) return gs_status_exit_code(st); /* rank 0 says it, once */
    fprintf(stderr, "gsolve: error: %s\n", msg[0] ? msg : gs_status_str(st));
    if (verbosity >= 2 && gs_error_trace_str()[0])
        fprintf(stderr, "gsolve: trace: %s\n", gs_error_trace_str());
    return gs_status_exit_code(st);
}

#define SYM_TOL 1e-12 /* --inspect: |a_ij - a_ji| <= SYM_TOL * max(|a_ij|, |a_ji|) is symmetric */

/* --inspect of a square matrix: its symmetry, judged entry by entry relative to the entries. */
static gs_status print_symmetry(const gs_csr *A)
{
    gs_status st = GS_OK;
    gs_csr_asymmetry d;
    if (A->rows != A->cols) {
        printf("numerically symmetric: no (not square)\n");
        return GS_OK;
    }
    GS_CHECK(gs_csr_asymmetry_of(A, &d));
    double rel = d.rel;
    int pattern = d.pattern;
    if (rel == 0.0)
        printf("numerically symmetric: yes (exactly%s)\n",
               pattern ? "" : "; explicit zeros make the stored pattern differ");
    else if (rel <= SYM_TOL)
        printf("numerically symmetric: yes (to %.2g relative: |a_ij - a_ji| <= %.0e * "
               "max(|a_ij|, |a_ji|))\n",
               rel, SYM_TOL);
    else
        printf("numerically symmetric: %s (a_ij and a_ji differ by %.2g relative at row %d, "
               "column %d, counted from 1; tolerance %.0e)\n",
               pattern ? "pattern only" : "no", rel, d.i + 1, d.j + 1, SYM_TOL);
done:
    return st;
}

/* --inspect of a vector (a dense array of one column or one row, an IJ vector): its length and
 * values, v[0..nv) the ones stored (the rest of the rows x cols are zeros). */
static void print_vector(const char *path, const char *layout, int64_t rows, int64_t cols,
                         const double *v, int64_t nv)
{
    int64_t len = rows * cols, nz = 0;
    double sum2 = 0.0, lo = nv < len ? 0.0 : INFINITY, hi = -lo;
    for (int64_t k = 0; k < nv; k++) {
        sum2 += v[k] * v[k];
        lo = fmin(lo, v[k]);
        hi = fmax(hi, v[k]);
        nz += v[k] != 0.0;
    }
    printf("file: %s\nformat: %s\nobject: vector (%lld x %lld)\nlength: %lld\nnonzeros: %lld\n",
           path, layout, (long long)rows, (long long)cols, (long long)len, (long long)nz);
    if (len > 0) printf("norm2: %.6g\nmin: %.6g\nmax: %.6g\n", sqrt(sum2), lo, hi);
}

/* --inspect of hypre IJ files that hold a vector ("jlower jupper" first): 1 when they do
 * (and nothing printed, the error cleared, when they do not) */
static int inspect_ij_vector(const char *path)
{
    double *x = NULL;
    int64_t n = 0;
    if (!gs_ij_is_ij(path)) return 0;
    if (gs_ij_read_vector(path, -1, &x, &n) != GS_OK) {
        gs_error_clear();
        return 0;
    }
    print_vector(path, "hypre ij", n, 1, x, n);
    gs_free(x);
    return 1;
}

/* --inspect: describe a matrix or vector file. */
static int inspect(const char *path, const gs_config *c)
{
    gs_csr *A = NULL;
    char field[16] = "", sym[24] = "", layout[32] = "";
    int nmat = -1; /* HDF5: its matrices and datasets; several: choose with problem.group */
    if (!c->problem.group[0] && gs_h5_list_matrices(path, stdout, &nmat) == GS_OK && nmat > 1)
        return 0;
    gs_status st = gs_matrix_read(path, c->problem.group, &A, field, sym, layout);
    if (st != GS_OK && inspect_ij_vector(path)) return 0;
    if (st != GS_OK && gs_ij_is_ij(path)) /* neither: the matrix's error again */
        st = gs_matrix_read(path, c->problem.group, &A, field, sym, layout);
    if (st != GS_OK) return fail(st, (int)c->output.verbosity);
    int dense = strcmp(layout, "npy") == 0 || strcmp(layout, "hdf5 dataset") == 0 ||
                strcmp(layout, "matrix market array") == 0;
    if (dense && (A->cols == 1 || A->rows == 1)) {
        print_vector(path, layout, A->rows, A->cols, A->val, A->nnz);
        gs_csr_destroy(&A);
        return 0;
    }
    gs_row_stats rs;
    gs_csr_row_stats(A, &rs);
    printf("file: %s\nformat: %s\nrows: %d\ncols: %d\nnnz: %d\nfield: %s\nsymmetry: %s\n", path,
           layout, A->rows, A->cols, A->nnz, field, sym);
    st = print_symmetry(A);
    if (st != GS_OK) {
        gs_csr_destroy(&A);
        return fail(st, (int)c->output.verbosity);
    }
    printf("nnz per row: mean %.4g std %.4g min %d max %d\n", rs.mean, rs.std, rs.min, rs.max);
    printf("empty rows: %lld\nrows without diagonal: %lld\n", (long long)rs.empty_rows,
           (long long)rs.rows_without_diag);
    gs_csr_destroy(&A);
    return 0;
}

/* --export FILE: write the configured problem's matrix and b for other tools, and say each file
 * written. FILE.h5 holds b as a dataset; Matrix Market gets b in FILE's name with "_b" before
 * ".mtx"; FILE.ij is hypre's IJ format, A as FILE.ij.00000 and b as FILE_b.ij.00000 (hypre's ij
 * driver: -fromfile FILE.ij -rhsfromfile FILE_b.ij). Any other name is refused. */
static int export_problem(const gs_config *c, const char *path)
{
    gs_problem *p = NULL;
    char a[2048], b[2048] = "";
    size_t n = strlen(path);
    int ij = n > 3 && strcmp(path + n - 3, ".ij") == 0,
        h5 = n > 3 && strcmp(path + n - 3, ".h5") == 0;
    size_t stem = n > 7 && strcmp(path + n - 7, ".mtx.gz") == 0 ? n - 7
                  : n > 4 && strcmp(path + n - 4, ".mtx") == 0  ? n - 4
                  : ij                                          ? n - 3
                                                                : 0;
    gs_status st = gs_config_check(c);
    if (st == GS_OK && !stem && !h5)
        st = GS_ERROR(GS_ERR_CONFIG,
                      "--export %s: expected FILE.mtx, FILE.mtx.gz (Matrix Market), FILE.h5 "
                      "(HDF5) or FILE.ij (hypre's IJ format)",
                      path);
    if (st == GS_OK) st = gs_problem_load(c, &p);
    snprintf(a, sizeof a, ij ? "%s.00000" : "%s", path);
    if (!h5) snprintf(b, sizeof b, ij ? "%.*s_b.ij.00000" : "%.*s_b.mtx", (int)stem, path);
    if (st == GS_OK && ij) {
        st = gs_ij_write(a, p->A);
        if (st == GS_OK) st = gs_ij_write_vector(b, p->b, p->A->rows);
    } else if (st == GS_OK && h5) {
        st = gs_h5_write_problem(path, "/", p->A, p->b);
    } else if (st == GS_OK) {
        st = gs_mm_write(path, p->A);
        if (st == GS_OK) st = gs_mm_write_vector(b, p->b, p->A->rows);
    }
    if (st == GS_OK) {
        printf("wrote %s: %d x %d, %d nonzeros%s\n", a, p->A->rows, p->A->cols, p->A->nnz,
               h5 ? ", and its right-hand side as dataset b" : "");
        if (b[0]) printf("wrote %s: the right-hand side b, %d entries\n", b, p->A->rows);
        if (ij)
            printf("hypre: ij -fromfile %s -rhsfromfile %.*s_b.ij; gsolve: problem.matrix = "
                   "\"%s\", problem.rhs = \"%.*s_b.ij\"\n",
                   path, (int)stem, path, path, (int)stem, path);
    }
    gs_problem_destroy(&p);
    return st == GS_OK ? 0 : fail(st, (int)c->output.verbosity);
}

/* The run's configuration while its problem is read: the sized hook's (pool_ahead) */
static const gs_config *g_loading;

/* gs_problem_sized's hook: the device pool grown toward what the setup will want while the
 * rest of the problem is read (gs_driver_pool_estimate, gs_backend_pool_prepare) */
static void pool_ahead(int64_t rows, int64_t nnz)
{
    if (g_loading && strcmp(g_loading->run.backend, "host") != 0)
        gs_backend_pool_prepare(gs_driver_pool_estimate(g_loading, rows, nnz, gs_comm_size()));
}

/* Solve with the configuration: the header before the iterations, the summary after; write
 * the outputs. A caught SIGINT/SIGTERM stops the solve, which is still summarised and recorded;
 * the exit code is then 128 + the signal. */
static int solve(const gs_config *c)
{
    gs_problem *p = NULL;
    gs_run run;
    char why[96];
    int verbosity = (int)c->output.verbosity;
    memset(&run, 0, sizeof run);
    gs_status st = gs_config_check(c);
    if (st == GS_OK) st = gs_results_check_outputs(c); /* before a long read and solve */
    /* the GPU first: the matrix is then read into page-locked memory (one direct upload) */
    if (st == GS_OK) gs_backend_cuda_start(c->run.backend, (int)c->run.device);
    if (st == GS_OK) gs_host_threads(c->run.threads, why, sizeof why);
    int64_t steps = 1;
    if (st == GS_OK) st = gs_app_sequence_steps(c, &steps);
    if (st == GS_OK && steps > 1) {
        gs_host_catch_signals();
        return gs_app_sequence(c, steps, fail);
    }
    g_loading = c;
    gs_problem_set_sized_hook(pool_ahead);
    if (st == GS_OK) st = gs_problem_load(c, &p);
    gs_problem_set_sized_hook(NULL);
    g_loading = NULL;
    if (st == GS_OK) gs_host_catch_signals();
    if (st == GS_OK) st = gs_app_solve(c, p, &run, stdout);
    if (st != GS_OK) {
        int code = fail(st, verbosity);
        gs_run_release(&run);
        gs_problem_destroy(&p);
        return code;
    }
    if (verbosity >= 1) gs_app_print_summary(c, p, &run, stdout);
    fflush(stdout);
    st = gs_app_write_outputs(c, &run);
    int code = st != GS_OK ? fail(st, verbosity) : run.res.converged ? 0 : EXIT_NOT_CONVERGED;
    if (code == EXIT_NOT_CONVERGED) {
        fprintf(stderr, "gsolve: %s\n", run.res.reason_text);
        for (const char *h = run.hint; *h;) {
            size_t n = strcspn(h, "\n");
            fprintf(stderr, "gsolve: hint: %.*s\n", (int)n, h);
            h += n + (h[n] == '\n');
        }
    }
    if (gs_host_signal()) code = 128 + gs_host_signal();
    gs_run_release(&run);
    gs_problem_destroy(&p);
    return code;
}

/* The solve across MPI ranks (mpirun -np N, N > 1): rank 0 reads the problem and speaks; every
 * rank runs on GPU run.device + its rank on the node (modulo the node's GPUs) and ends with the
 * same exit code. */
static int solve_dist(const gs_config *c0)
{
#ifdef M_MMAP_THRESHOLD
    /* the distributed setup makes and frees many large host arrays; kept in the heap, a freed
     * one is reused instead of each new one being mapped and zeroed page by page again (a
     * quarter of the setup's time otherwise) */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    gs_problem *p = NULL;
    gs_dproblem *d = NULL;
    gs_run run;
    char why[96];
    gs_config *c = malloc(sizeof *c);
    int verbosity = (int)c0->output.verbosity, me = gs_comm_rank();
    memset(&run, 0, sizeof run);
    gs_status st = c ? GS_OK
                     : GS_ERROR(GS_ERR_NOMEM, "out of memory: the configuration (%zu bytes)",
                                sizeof *c);
    if (st == GS_OK) {
        *c = *c0;
        st = gs_config_check(c);
    }
    int64_t steps = 1;
    if (st == GS_OK) st = gs_app_sequence_steps(c, &steps);
    if (st == GS_OK && steps > 1)
        st = GS_ERROR(GS_ERR_CONFIG, "a sequence (problem.steps = %lld) runs in one process; "
                      "across MPI ranks each run solves one system", (long long)steps);
    if (st == GS_OK && me == 0) st = gs_results_check_outputs(c); /* rank 0 writes them */
    if (st == GS_OK && strcmp(c->run.backend, "host") != 0) {
        int ndev = gs_backend_cuda_devices(NULL);
        if (ndev > 0) c->run.device = (c->run.device + gs_comm_local_rank()) % ndev;
        gs_backend_cuda_start(c->run.backend, (int)c->run.device);
        if (verbosity >= 3)
            fprintf(stderr, "rank %d: GPU %d of the %d its node has\n", me, (int)c->run.device,
                    ndev);
    }
    if (st == GS_OK) gs_host_threads(c->run.threads, why, sizeof why);
    st = gs_comm_agree(st);
    g_loading = c;
    gs_problem_set_sized_hook(pool_ahead);
    if (st == GS_OK) st = gs_problem_load_dist(c, &p, &d);
    gs_problem_set_sized_hook(NULL);
    g_loading = NULL;
    if (st == GS_OK) gs_host_catch_signals();
    if (st == GS_OK) st = gs_app_solve_dist(c, p, d, &run, stdout);
    if (st != GS_OK) {
        int code = fail(st, verbosity);
        gs_run_release(&run);
        gs_problem_destroy(&p);
        gs_dproblem_destroy(&d);
        free(c);
        return code;
    }
    if (me == 0 && verbosity >= 1) gs_app_print_summary(c, p, &run, stdout);
    fflush(stdout);
    if (me == 0) st = gs_app_write_outputs(c, &run);
    st = gs_comm_agree(st);
    gs_dist_peers_release(GS_LOC_DEVICE); /* every rank here, in step */
    int code = st != GS_OK ? fail(st, verbosity) : run.res.converged ? 0 : EXIT_NOT_CONVERGED;
    if (code == EXIT_NOT_CONVERGED && me == 0) {
        fprintf(stderr, "gsolve: %s\n", run.res.reason_text);
        for (const char *h = run.hint; *h;) {
            size_t n = strcspn(h, "\n");
            fprintf(stderr, "gsolve: hint: %.*s\n", (int)n, h);
            h += n + (h[n] == '\n');
        }
    }
    if (run.res.reason[0] && strcmp(run.res.reason, "interrupted") == 0 && gs_host_signal())
        code = 128 + gs_host_signal();
    gs_run_release(&run);
    gs_problem_destroy(&p);
    gs_dproblem_destroy(&d);
    free(c);
    return code;
}

/* gsolve report DIR [--no-plots]: tables (printed, report.csv, report.md, report_summary.csv)
 * and plots; exit 2 when there is nothing to report or the plotting tool GSOLVE_PLOTTER names
 * cannot run (the tables are still written); no plotting tool found is a note. */
static int report(int argc, char **argv)
{
    const char *dir = NULL;
    int plots = 1, code = 0;
    gs_report *r = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-plots") == 0)
            plots = 0;
        else if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "gsolve: error: report: unexpected '%s' (usage: gsolve report "
                    "RESULTS_DIR [--no-plots])\n", argv[i]);
            return EXIT_USAGE;
        } else
            dir = argv[i];
    }
    if (!dir) {
        fprintf(stderr, "gsolve: error: report needs RESULTS_DIR (batch.results of the batch)\n");
        return EXIT_USAGE;
    }
    gs_status st = gs_report_load(dir, -1, &r);
    if (st == GS_OK && gs_report_runs(r) == 0)
        st = GS_ERROR(GS_ERR_INPUT, "%s: no batch results (case-NNN.csv files) found", dir);
    if (st == GS_OK) {
        gs_report_print(r, stdout);
        st = gs_report_write(r, dir);
    }
    if (st == GS_OK)
        printf("tables: %s/report.csv, %s/report.md, %s/report_summary.csv\n", dir, dir, dir);
    if (st == GS_OK && plots) {
        fflush(stdout);
        st = gs_report_plot(r, dir, stdout);
    }
    if (st != GS_OK) code = fail(st, 1);
    gs_report_destroy(&r);
    return code;
}

/* The --set assignments of the command line, in order (o->sets; free it). */
static gs_status collect_sets(int argc, char **argv, gs_batch_opts *o)
{
    int n = 0;
    const char **sets = malloc((size_t)argc * sizeof *sets);
    if (!sets)
        return GS_ERROR(GS_ERR_NOMEM,
                        "out of memory: could not allocate %zu bytes for the --set list",
                        (size_t)argc * sizeof *sets);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--set") == 0)
            sets[n++] = argv[++i];
        else if (strncmp(argv[i], "--set=", 6) == 0)
            sets[n++] = argv[i] + 6;
        else if (strcmp(argv[i], "--case") == 0 || strcmp(argv[i], "--inspect") == 0 ||
                 strcmp(argv[i], "--export") == 0)
            i++;
    }
    o->sets = sets;
    o->nsets = n;
    return GS_OK;
}

/* Batch mode: the file's configuration (without --set) and the options. */
static int batch(const gs_config *file_cfg, gs_batch_opts *o, int list, int argc, char **argv)
{
    int code = 0;
    gs_status st = collect_sets(argc, argv, o);
    if (st == GS_OK)
        st = list ? gs_batch_list(file_cfg, o, stdout) : gs_batch_run(file_cfg, o, &code);
    if (st != GS_OK) code = fail(st, (int)file_cfg->output.verbosity);
    free((void *)o->sets);
    return code;
}

/* A batch's --print-config: its top level (--set applied) and every case, as a file that
 * gsolve runs as the same batch (*text; gs_free it). */
static gs_status batch_text(const gs_config *file_cfg, const gs_batch_opts *o, gs_config *base,
                            char **text)
{
    int64_t n = file_cfg->batch.cases;
    gs_config *cases = calloc((size_t)n, sizeof *cases);
    gs_status st = cases ? GS_OK
                         : GS_ERROR(GS_ERR_NOMEM,
                                    "out of memory: could not allocate %zu bytes for %lld case "
                                    "configurations",
                                    (size_t)n * sizeof *cases, (long long)n);
    *base = *file_cfg;
    for (int k = 0; k < o->nsets && st == GS_OK; k++) st = gs_config_set(base, o->sets[k]);
    for (int64_t i = 0; i < n && st == GS_OK; i++)
        st = gs_batch_case_config(file_cfg, o, i, &cases[i]);
    if (st == GS_OK) st = gs_config_to_text_batch(base, n, cases, text);
    free(cases);
    return st;
}

/* --print-config: the effective configuration (the file, a batch case, --set) as a libconfig
 * file that gsolve reads back into the same run; of a batch without --case, the same batch. */
static int print_config(const gs_config *file_cfg, gs_batch_opts *o, int argc, char **argv)
{
    gs_config *c = malloc(sizeof *c);
    char *text = NULL;
    gs_status st = c ? collect_sets(argc, argv, o)
                     : GS_ERROR(GS_ERR_NOMEM,
                                "out of memory: could not allocate %zu bytes for the "
                                "configuration",
                                sizeof *c);
    if (st == GS_OK && file_cfg->batch.cases > 0 && o->only_case >= 0) {
        st = gs_batch_case_config(file_cfg, o, o->only_case, c);
    } else if (st == GS_OK && file_cfg->batch.cases > 0) {
        st = batch_text(file_cfg, o, c, &text);
    } else if (st == GS_OK) {
        *c = *file_cfg;
        for (int k = 0; k < o->nsets && st == GS_OK; k++) st = gs_config_set(c, o->sets[k]);
    }
    if (st == GS_OK && !text) st = gs_config_to_text(c, &text);
    if (st == GS_OK) fputs(text, stdout);
    int code = st == GS_OK ? 0 : fail(st, (int)file_cfg->output.verbosity);
    gs_free(text);
    free((void *)o->sets);
    free(c);
    return code;
}

/* A waiting OpenMP thread spins (libgomp: 300,000 turns) against whatever else runs on the
 * node; OMP_WAIT_POLICY=PASSIVE makes it sleep. libgomp reads the variable when it is loaded,
 * before main, so gsolve sets it and runs itself again, once (a value the user set is kept; if
 * the new start fails, this one goes on as it is). Under a tool that does not follow exec
 * (valgrind without --trace-children=yes), set OMP_WAIT_POLICY first. */
static void passive_wait(char **argv)
{
#ifdef _OPENMP
    if (getenv("OMP_WAIT_POLICY") || setenv("OMP_WAIT_POLICY", "PASSIVE", 1) != 0) return;
    execv("/proc/self/exe", argv);
    unsetenv("OMP_WAIT_POLICY");
#else
    (void)argv;
#endif
}

static int run_command(int argc, char **argv);

int main(int argc, char **argv)
{
    passive_wait(argv);
    gs_app_log_to_stderr();  /* the library's warnings and traces */
    if (gs_host_knobs_from_env() != GS_OK) return fail(GS_ERR_CONFIG, 1);
    /* under mpirun or srun: MPI starts, rank 0 alone prints to stdout */
    if (gs_host_mpi_init(&argc, &argv) && gs_comm_rank() != 0 &&
        !freopen("/dev/null", "w", stdout))
        return 1;
    int code = run_command(argc, argv);
    fflush(stdout);
    gs_comm_finalize();
    return code;
}

static int run_command(int argc, char **argv)
{
    gs_config c;
    /* under SLURM or a pipe, each line as it is written (the header before a long solve) */
    if (!isatty(STDOUT_FILENO)) setvbuf(stdout, NULL, _IOLBF, 0);
    const char *config_path = NULL, *inspect_path = NULL, *export_path = NULL;
    int list = 0, batch_opt = 0, print_cfg = 0;
    gs_batch_opts bo = {-1, 0, NULL, 0};
    if (argc >= 2 && strcmp(argv[1], "report") == 0) return report(argc - 1, argv + 1);
    gs_config_defaults(&c);
    /* pass 1: the config file and the mode; pass 2: --set on top of the file */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            char features[512];
            gs_version_features(features, sizeof features);
            printf("gsolve %s\n%s", gs_version_string(), features);
            return 0;
        } else if (strcmp(a, "--help-config") == 0) {
            if (i + 1 < argc && argv[i + 1][0] != '-') {
                gs_out o = gs_app_file_out(stdout);
                gs_status st = gs_config_print_help_key(&o, argv[i + 1]);
                return st == GS_OK ? 0 : fail(st, 1);
            }
            gs_out o = gs_app_file_out(stdout);
            gs_config_print_help(&o);
            return 0;
        } else if (strcmp(a, "--print-config") == 0) {
            print_cfg = 1;
        } else if (strcmp(a, "--inspect") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gsolve: error: --inspect needs a FILE\n");
                return EXIT_USAGE;
            }
            inspect_path = argv[++i];
        } else if (strcmp(a, "--export") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gsolve: error: --export needs a FILE\n");
                return EXIT_USAGE;
            }
            export_path = argv[++i];
        } else if (strcmp(a, "--set") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gsolve: error: --set needs key=value\n");
                return EXIT_USAGE;
            }
            i++;
        } else if (strncmp(a, "--set=", 6) == 0) {
            continue;
        } else if (strcmp(a, "--list") == 0) {
            list = batch_opt = 1;
        } else if (strcmp(a, "--force") == 0) {
            bo.force = batch_opt = 1;
        } else if (strcmp(a, "--case") == 0) {
            char *end = NULL;
            if (i + 1 < argc) bo.only_case = strtoll(argv[i + 1], &end, 10);
            if (i + 1 >= argc || end == argv[i + 1] || *end || bo.only_case < 0) {
                fprintf(stderr, "gsolve: error: --case needs a case number (0, 1, ...)\n");
                return EXIT_USAGE;
            }
            i++;
            batch_opt = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gsolve: error: unknown option '%s'\n", a);
            usage(stderr);
            return EXIT_USAGE;
        } else if (config_path) {
            fprintf(stderr, "gsolve: error: more than one config file ('%s', '%s')\n", config_path,
                    a);
            return EXIT_USAGE;
        } else {
            config_path = a;
        }
    }
    if (!config_path && !inspect_path && argc < 2) {
        fprintf(stderr, "gsolve: error: no configuration given\n");
        usage(stderr);
        return EXIT_USAGE;
    }
    gs_status st = GS_OK;
    if (config_path) st = gs_config_load(&c, config_path);
    if (st == GS_OK && print_cfg) return print_config(&c, &bo, argc, argv);
    if (st == GS_OK && c.batch.cases > 0 && gs_comm_size() > 1 && !print_cfg) {
        if (gs_comm_rank() == 0)
            fprintf(stderr, "gsolve: error: %s is a batch config: a batch runs one process a run "
                    "(SLURM arrays spread its cases); run one configuration under mpirun\n",
                    config_path);
        return EXIT_USAGE;
    }
    if (st == GS_OK && c.batch.cases > 0) return batch(&c, &bo, list, argc, argv);
    if (st == GS_OK && batch_opt) {
        fprintf(stderr, "gsolve: error: --case, --list and --force need a batch config (one "
                "with batch.cases)\n");
        return EXIT_USAGE;
    }
    for (int i = 1; i < argc && st == GS_OK; i++) {
        if (strcmp(argv[i], "--set") == 0)
            st = gs_config_set(&c, argv[++i]);
        else if (strncmp(argv[i], "--set=", 6) == 0)
            st = gs_config_set(&c, argv[i] + 6);
        else if (strcmp(argv[i], "--inspect") == 0 || strcmp(argv[i], "--export") == 0)
            i++;
    }
    if (st != GS_OK) return fail(st, (int)c.output.verbosity);
    if ((inspect_path || export_path) && gs_comm_rank() != 0) return 0; /* rank 0 does it */
    if (inspect_path) return inspect(inspect_path, &c);
    if (export_path) return export_problem(&c, export_path);
    return gs_comm_size() > 1 ? solve_dist(&c) : solve(&c);
}

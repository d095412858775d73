/* gs_app_run.c: one solve as the gsolve program runs it (gs_app_run.h). */
#include "gs_app_run.h"

#include <stdio.h>
#include <string.h>

#include "gs_host.h"
#include "gs_mm.h"
#include "gs_results.h"

static void file_put(void *ctx, const char *text)
{
    fputs(text, (FILE *)ctx);
}

gs_out gs_app_file_out(FILE *f)
{
    gs_out o = {f ? file_put : NULL, f};
    return o;
}

static void log_stderr(void *user, int level, const char *msg)
{
    (void)user;
    if (level == GS_LOG_INFO) /* traces and profiles: as they are */
        fprintf(stderr, "%s\n", msg);
    else
        fprintf(stderr, "gsolve: %s%s\n", level == GS_LOG_ERROR ? "error: " : "", msg);
}

void gs_app_log_to_stderr(void)
{
    gs_log_set(log_stderr, NULL, NULL, NULL);
}

/* the record's context and configuration text, once the driver is done */
gs_status gs_app_complete(const gs_config *c, gs_run *run)
{
    gs_results_set_context(&run->res, c); /* what produced it, for the CSV row and record */
    gs_driver_context_amg(run->amg, &run->res);
    gs_status st = gs_config_to_text(c, &run->config_text);
    run->res.config_text = run->config_text;
    return st;
}

gs_driver_io gs_app_io(const gs_config *c, FILE *out, char *why, size_t len)
{
    gs_driver_io io;
    memset(&io, 0, sizeof io);
    io.out = gs_app_file_out(out);
    io.interrupt = gs_host_interrupt_flag();
    io.threads = gs_host_threads(c->run.threads, why, len);
    io.threads_why = why;
    io.threads_exact = strcmp(why, "OMP_NUM_THREADS") == 0; /* the user's count, as asked */
    return io;
}

gs_status gs_app_solve(const gs_config *c, const gs_problem *p, gs_run *run, FILE *out)
{
    char why[96];
    gs_driver_io io = gs_app_io(c, out, why, sizeof why);
    gs_status st = gs_driver_solve(c, p, run, &io);
    if (out) fflush(out);
    run->out = NULL; /* io ends here */
    return st == GS_OK ? gs_app_complete(c, run) : st;
}

gs_status gs_app_solve_dist(const gs_config *c, const gs_problem *p, const struct gs_dproblem *d,
                            gs_run *run, FILE *out)
{
    char why[96];
    gs_driver_io io = gs_app_io(c, out, why, sizeof why);
    gs_status st = gs_driver_solve_dist(c, p, d, run, &io);
    if (out) fflush(out);
    run->out = NULL;
    return st == GS_OK && p ? gs_app_complete(c, run) : st;
}

void gs_app_print_summary(const gs_config *c, const gs_problem *p, const gs_run *run, FILE *out)
{
    gs_out o = gs_app_file_out(out);
    gs_driver_print_summary(c, p, run, &o);
}

void gs_app_numbered_path(const char *path, const char *tag, int64_t k, char *out, size_t len)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash)) dot = path + strlen(path);
    snprintf(out, len, "%.*s_%s%lld%s", (int)(dot - path), path, tag, (long long)k, dot);
}

/* several right-hand sides: a CSV row and an HDF5 record per column (extra field rhs_column; the
 * record under the column's name: "_rhsJ" before the extension), the solutions as one n x k
 * Matrix Market array */
static gs_status write_columns(const gs_config *c, const gs_run *run)
{
    gs_status st = GS_OK;
    const int64_t n = run->res.cols;
    gs_result r = run->res;
    char col[24], path[GS_CFG_STR + 32];
    const char *names[1] = {"rhs_column"}, *values[1] = {col};
    for (int j = 0; j < run->nrhs; j++) {
        snprintf(col, sizeof col, "%d", j);
        r.iterations = run->col_it[j];
        r.converged = run->col_conv[j];
        r.rel_residual = run->col_res[j];
        r.x = run->x + (size_t)j * (size_t)n;
        if (c->output.csv[0]) GS_CHECK(gs_results_csv_append_ext(c->output.csv, &r, 1, names, values));
        if (c->output.hdf5[0]) {
            gs_app_numbered_path(c->output.hdf5, "rhs", j, path, sizeof path);
            GS_CHECK(gs_results_hdf5_write_ext(path, &r, 1, names, values));
        }
    }
    if (c->output.history[0]) GS_CHECK(gs_results_history_write(c->output.history, &run->res));
    if (c->output.solution[0])
        GS_CHECK(gs_mm_write_array(c->output.solution, run->x, n, run->nrhs));
done:
    return st;
}

gs_status gs_app_write_outputs(const gs_config *c, const gs_run *run)
{
    gs_status st = GS_OK;
    if (run->nrhs > 1) return write_columns(c, run);
    if (c->output.csv[0]) GS_CHECK(gs_results_csv_append(c->output.csv, &run->res));
    if (c->output.hdf5[0]) GS_CHECK(gs_results_hdf5_write(c->output.hdf5, &run->res));
    if (c->output.history[0]) GS_CHECK(gs_results_history_write(c->output.history, &run->res));
    if (c->output.solution[0])
        GS_CHECK(gs_mm_write_vector(c->output.solution, run->x, run->res.cols));
done:
    return st;
}

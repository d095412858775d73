/* gs_app_run.c: one solve as the gsolve program runs it (gs_app_run.h). */
#include "gs_app_run.h"

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

gs_status gs_app_write_outputs(const gs_config *c, const gs_run *run)
{
    gs_status st = GS_OK;
    if (c->output.csv[0]) GS_CHECK(gs_results_csv_append(c->output.csv, &run->res));
    if (c->output.hdf5[0]) GS_CHECK(gs_results_hdf5_write(c->output.hdf5, &run->res));
    if (c->output.history[0]) GS_CHECK(gs_results_history_write(c->output.history, &run->res));
    if (c->output.solution[0])
        GS_CHECK(gs_mm_write_vector(c->output.solution, run->x, run->res.cols));
done:
    return st;
}

/* gs_app_run.h: one solve as the gsolve program runs it: the library's driver with the
 * program's console (a FILE), signals, host threads and log, the record completed with the
 * program's context (settings, provenance, the configuration as text), and its output files. */
#ifndef GS_APP_RUN_H
#define GS_APP_RUN_H

#include <stdio.h>

#include "gs_config.h"
#include "gs_driver.h"
#include "gs_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A gs_out writing to f (NULL: nowhere). */
gs_out gs_app_file_out(FILE *f);

/* The library's log to stderr as "gsolve: warning: ..." (notes plain), on this thread. */
void gs_app_log_to_stderr(void);

/* gs_driver_solve with out as console (NULL: none), the caught signals (gs_host.h) and the host
 * threads the job has; then the record's context and configuration text. */
gs_status gs_app_solve(const gs_config *c, const gs_problem *p, gs_run *run, FILE *out);

/* The same across MPI ranks (gs_driver_solve_dist). */
struct gs_dproblem;
gs_status gs_app_solve_dist(const gs_config *c, const gs_problem *p, const struct gs_dproblem *d,
                            gs_run *run, FILE *out);

/* The console summary of a finished run to out. */
void gs_app_print_summary(const gs_config *c, const gs_problem *p, const gs_run *run, FILE *out);

/* Write the outputs the configuration names (CSV, HDF5, history, solution). */
gs_status gs_app_write_outputs(const gs_config *c, const gs_run *run);

#ifdef __cplusplus
}
#endif
#endif

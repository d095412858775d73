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

/* The driver's io for the program: console out (NULL: none), the caught signals, the host
 * threads (why, len >= 96: where their count came from). */
gs_driver_io gs_app_io(const gs_config *c, FILE *out, char *why, size_t len);

/* The record's context (settings, provenance) and configuration text, after a solve. */
gs_status gs_app_complete(const gs_config *c, gs_run *run);

/* The steps a configuration solves (problem.steps, or problem.sequence's files); a config error
 * when the two disagree (gs_app_seq.c). */
gs_status gs_app_sequence_steps(const gs_config *c, int64_t *steps);

/* Solve the configuration's sequence of `steps` systems of one pattern in one process: one
 * setup, then each step's values with the setup kept as amg.reuse says; a console line, a CSV
 * row (columns step and setup) and the record, history and solution of every step (their paths
 * with the step's number in a printf field, else "_stepK" before the extension), then the setup
 * time saved. The exit code: 0 when every step converged, 3 when one did not, fail(st,
 * verbosity)'s on an error, 128 + the signal when stopped. */
int gs_app_sequence(const gs_config *c, int64_t steps, int (*fail)(gs_status, int));

/* path with "_TAGk" before its extension (out.h5, "rhs", 2: out_rhs2.h5): an output file of one
 * step or column */
void gs_app_numbered_path(const char *path, const char *tag, int64_t k, char *out, size_t len);

/* Write the outputs the configuration names (CSV, HDF5, history, solution). */
gs_status gs_app_write_outputs(const gs_config *c, const gs_run *run);

#ifdef __cplusplus
}
#endif
#endif

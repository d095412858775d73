/* gs_driver.h: one solve from a configuration: backend choice, preconditioner setup, the
 * Krylov iterations, the true residual, timings and the result record. */
#ifndef GS_DRIVER_H
#define GS_DRIVER_H

#include <stdio.h>

#include "gs_amg.h"
#include "gs_config.h"
#include "gs_problem.h"
#include "gs_results.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_run {
    gs_result res; /* fields point into the arrays below */
    double *x;     /* solution on the host */
    double *hist, *hist_t;
    int *hist_it;
    int64_t hist_len, hist_cap;
    char *config_text;
    int verbosity;
    double t_solve0;
    double upload_s; /* host -> device copy of A, part of setup_s */
    double transfer_s;    /* the copy alone within upload_s */
    double convert_s;     /* conversion of A into the SpMV format, part of setup_s */
    char format_desc[160]; /* the format's description of the stored matrix */
    char format_reason[160]; /* why the selector chose it */
    gs_amg_report *amg;    /* the AMG hierarchy's report (AMG runs), else NULL */
    gs_level_info *levels; /* res.levels entries, res.level_info points here */
} gs_run;

/* Solve problem p as c says; run->res is filled (non-convergence is a result, not an error).
 * Messages about the backend choice go to stderr; progress (verbosity >= 2) to out. */
gs_status gs_driver_solve(const gs_config *c, const gs_problem *p, gs_run *run, FILE *out);

/* Print the console summary of a finished run. */
void gs_driver_print_summary(const gs_config *c, const gs_problem *p, const gs_run *run, FILE *out);

/* Write the outputs the configuration names (CSV, HDF5, history, solution). */
gs_status gs_driver_write_outputs(const gs_config *c, const gs_run *run);

/* Free what the run holds (not the struct itself). */
void gs_run_release(gs_run *run);

#ifdef __cplusplus
}
#endif
#endif

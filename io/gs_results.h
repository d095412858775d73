/* gs_results.h: what one run produced, and the files it goes to: a CSV row, an HDF5 record,
 * a residual-history CSV. The field set is the contract scripts rely on (DESIGN.md). */
#ifndef GS_RESULTS_H
#define GS_RESULTS_H

#include <stdint.h>

#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_result {
    char case_name[256];
    char matrix[1024];
    char solver[16], preconditioner[16], format[32];
    char reason[32];       /* one word: rtol, max_iters, ... */
    char reason_text[256]; /* a phrase with details */
    char backend[16], device[128];
    int64_t rows, cols, nnz;
    int levels;
    int iterations;
    int converged;
    double rel_residual; /* recomputed true ||b - A x|| / ||b|| */
    double error;        /* ||x - x_exact|| / ||x_exact||, or -1 when unknown */
    double read_s, setup_s, solve_s, total_s; /* total = setup + solve */
    const double *x;                          /* solution, cols values (borrowed) */
    const double *history;                    /* residual norms, history_len values (borrowed) */
    const double *history_time;               /* seconds since the solve began (borrowed) */
    const int *history_iter;                  /* iteration number of each entry (borrowed) */
    int64_t history_len;
    double bnorm;
    const char *config_text; /* the configuration used (borrowed) */
} gs_result;

/* Append one row (and the header when the file is new or empty) in one locked write. */
gs_status gs_results_csv_append(const char *path, const gs_result *r);

/* Write the HDF5 record: datasets x, residual_history, residual_time,
 * residual_iteration; every CSV field as an
 * attribute, plus the configuration and versions. Written under a temporary name, then
 * renamed. */
gs_status gs_results_hdf5_write(const char *path, const gs_result *r);

/* Write the residual history as CSV: iteration,residual,rel_residual,time_s. */
gs_status gs_results_history_write(const char *path, const gs_result *r);

#ifdef __cplusplus
}
#endif
#endif

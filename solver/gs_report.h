/* gs_report.h: a batch's result files (RES/case-NNN.csv, written by gs_batch) merged into a
 * comparison per case: for each format, the median, min and max over the counted repeats of
 * iterations, setup, solve and total time, the speedup over CSR, the best format marked, what
 * the runs record of their settings (and which settings differ between them); as text, CSV
 * and Markdown, and PNG plots (residual against iteration and time per case; time to solution
 * per case and format, setup stacked under solve, whiskers from min to max, a format without a
 * converged run drawn as a red cross with its reason) drawn by gnuplot, or by python3 with
 * matplotlib when gnuplot is missing.
 *
 * The last row of a (case, format, repeat) wins (a --force rerun replaces older ones); a torn
 * last row is ignored with a note. Warmup rows (warmup = 1) are not counted. A run marker
 * (RES/case-NNN/FORMAT-R.running) left by a process that died during the run is reported as
 * a crashed run, unless a process holds the case's lock (runs it now). Columns are read by
 * name: files of older versions, without the newer columns, are read as well. */
#ifndef GS_REPORT_H
#define GS_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_report gs_report;

/* Read RES/case-NNN.csv for case only_case, or every case file when only_case < 0. */
gs_status gs_report_load(const char *dir, int64_t only_case, gs_report **out);

/* Number of runs read. */
int64_t gs_report_runs(const gs_report *r);

/* The tables as text. */
void gs_report_print(const gs_report *r, FILE *out);

/* DIR/report.csv and DIR/report.md (each written, then renamed). */
gs_status gs_report_write(const gs_report *r, const char *dir);

/* DIR/plots/CASE-residual.png per case and DIR/plots/time_to_solution.png, with the data and
 * the script beside them. GS_ERR_UNSUPPORTED (message says what to install) when neither
 * gnuplot nor python3 with matplotlib is found; GSOLVE_PLOTTER=gnuplot|matplotlib|none
 * chooses. The paths of the PNGs written are listed on out. */
gs_status gs_report_plot(const gs_report *r, const char *dir, FILE *out);

void gs_report_destroy(gs_report **r);

#ifdef __cplusplus
}
#endif
#endif

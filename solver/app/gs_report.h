/* gs_report.h: a batch's result files (RES/case-NNN.csv, written by gs_batch) merged into a
 * comparison per case: for each entry, the median, min and max over the counted repeats of
 * iterations, setup, solve and total time, the speedup over the reference format (the batch's
 * first: expected.csv's first row, else the first run read), the best entry marked, what the
 * runs record of their settings (and which settings differ between them); then the runs that
 * RES/expected.csv lists and the results lack (not run, N of M repeats, crashed), and a summary
 * across cases (per entry: cases converged, wins, geometric-mean speedup); as text, CSV
 * (report.csv, report_summary.csv) and Markdown, and PNG plots (residual against iteration and
 * time per case; time to solution per case and entry, setup stacked under solve on a linear
 * axis and a dot on a log one, whiskers from min to max, an entry without a converged run
 * drawn as a red cross with its reason; the speedup over the reference per case and its
 * geometric mean) drawn by gnuplot, or by python3 with matplotlib when gnuplot is missing.
 *
 * An entry is a requested format as it ran: a fallback is named by what ran ("csr (asked
 * cds)"), and a request with runs under more than one settings hash (the CSV column settings)
 * is one entry per hash ("csr [settings 1a2b3c4d]"), never mixed. The last row of a (case,
 * format, repeat, settings) wins (a --force rerun replaces older ones); a torn last row is
 * ignored with a note. Warmup rows (warmup = 1) are not counted. A run marker
 * (RES/case-NNN/FORMAT-R.running) left by a process that died during the run is reported as
 * a crashed run, unless a process holds the case's lock (runs it now). Columns are read by
 * name: files of older versions, without the newer columns, are read as well (without
 * expected.csv nothing is said of runs missing). */
#ifndef GS_REPORT_H
#define GS_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_report gs_report;

/* Read RES/case-NNN.csv for case only_case, or every case file when only_case < 0, and
 * RES/expected.csv (its rows of that case). */
gs_status gs_report_load(const char *dir, int64_t only_case, gs_report **out);

/* Number of runs read. */
int64_t gs_report_runs(const gs_report *r);

/* The tables as text; the runs missing and (over more than one case) the summary. A request
 * under several settings hashes is said in one warning line on stderr. */
void gs_report_print(const gs_report *r, FILE *out);

/* DIR/report.csv, DIR/report.md and DIR/report_summary.csv (each written, then renamed). */
gs_status gs_report_write(const gs_report *r, const char *dir);

/* DIR/plots/CASE-residual.png per case, DIR/plots/time_to_solution.png and
 * DIR/plots/speedup.png, with the data and the script beside them. GSOLVE_PLOTTER=none: no
 * plots; unset: gnuplot, else python3 with matplotlib, else no plots with a note on stderr
 * (GS_OK both); GSOLVE_PLOTTER=gnuplot|matplotlib names the one to use, GS_ERR_UNSUPPORTED
 * (message says what to install) when it cannot run. The paths of the PNGs written are listed
 * on out. */
gs_status gs_report_plot(const gs_report *r, const char *dir, FILE *out);

void gs_report_destroy(gs_report **r);

#ifdef __cplusplus
}
#endif
#endif

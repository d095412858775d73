/* gs_results.h: what one run produced, and the files it goes to: a CSV row, an HDF5 record,
 * a residual-history CSV. The field set is the contract scripts rely on (docs/design.md). */
#ifndef GS_RESULTS_H
#define GS_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "gs_result.h"
#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gs_config;

/* Fill r->context from the configuration the run used, the host threads now in force and the
 * current time (call it once the solve has ended). */
void gs_results_set_context(gs_result *r, const struct gs_config *c);

/* The current time as ISO 8601 UTC, "2026-11-25T15:40:11Z" (len >= 21). */
void gs_results_timestamp(char *out, size_t len);

/* Append one row (and the header when the file is new or empty) in one locked write. The
 * columns: the standard ones, the extra ones of _ext, then the context's (rtol, atol,
 * max_iters, restart, threads, the amg_ keys, version, commit, timestamp, profile, ranks,
 * comm_setup_s, comm_solve_s, device_peak_gb), then settings and the provenance (host, cpu,
 * gpu, gpu_driver, cuda, mpi, hdf5, rhs, x0). A file begun by another gsolve version keeps its
 * columns in their places: the row is written in that header's order, a column this version
 * lacks is left empty, and the columns the file lacks are added at its end (its rows get them
 * empty; the file rewritten and renamed into place under the appends' lock). */
gs_status gs_results_csv_append(const char *path, const gs_result *r);

/* Write the HDF5 record: datasets x, residual_history, residual_time,
 * residual_iteration; every CSV field as an
 * attribute, plus the configuration and versions. Written under a temporary name, then
 * renamed. */
gs_status gs_results_hdf5_write(const char *path, const gs_result *r);

/* Write the residual history as CSV: iteration,residual,rel_residual,time_s. */
gs_status gs_results_history_write(const char *path, const gs_result *r);

/* The same row and record with n extra fields after the standard ones (batch runs: names[i]
 * becomes a column, or a string attribute of the record, with values[i]). */
gs_status gs_results_csv_append_ext(const char *path, const gs_result *r, int n,
                                    const char *const *names, const char *const *values);
gs_status gs_results_hdf5_write_ext(const char *path, const gs_result *r, int n,
                                    const char *const *names, const char *const *values);

/* A CSV file read whole: header and rows of fields (quoted fields undone). A last record
 * without its newline (a torn write) is left out and counted in torn_bytes; a row with
 * another number of fields than the header is left out and counted in bad_rows. */
typedef struct gs_csv_table {
    int ncols;
    int64_t nrows;
    char **cells; /* (nrows + 1) x ncols: row 0 is the header */
    char *text;   /* the fields' storage */
    int64_t torn_bytes, bad_rows;
} gs_csv_table;

/* Read path (a missing or empty file gives an empty table: ncols = nrows = 0). */
gs_status gs_results_csv_read(const char *path, gs_csv_table **out);
/* The column named name, or -1. */
int gs_csv_table_col(const gs_csv_table *t, const char *name);
/* Field (row, column name), "" when the column is absent; row in 0..nrows-1. */
const char *gs_csv_table_get(const gs_csv_table *t, int64_t row, const char *name);
void gs_csv_table_destroy(gs_csv_table **t);

/* Cut a torn last record (no newline: a write cut short by a crash) off path, under the same
 * lock as the appends; *dropped = bytes removed (0 when the file ends cleanly or is absent). */
gs_status gs_results_csv_repair(const char *path, int64_t *dropped);

/* Remove the rows of path whose field `column` is `value` (a batch's interrupted runs before
 * they run again), under the appends' lock; the rest is rewritten and renamed into place.
 * *dropped = rows removed (0: the file is left as it is; absent is fine). */
gs_status gs_results_csv_drop(const char *path, const char *column, const char *value,
                              int64_t *dropped);

/* One condition on a row: its field `column` is `value` (differ = 0) or is not (differ = 1);
 * an absent column reads as "". */
typedef struct gs_csv_match {
    const char *column, *value;
    int differ;
} gs_csv_match;

/* The same for the rows that meet all n conditions (a batch's rows of one case and format
 * recorded under other settings). */
gs_status gs_results_csv_drop_where(const char *path, int n, const gs_csv_match *m,
                                    int64_t *dropped);

/* Every output path of c (output.csv, output.hdf5, output.history, output.solution) checked
 * before any work: its folder exists and is writable, the path is not a folder. A failure is a
 * GS_ERR_CONFIG error naming the key, the path and what is wrong. */
gs_status gs_results_check_outputs(const struct gs_config *c);

#ifdef __cplusplus
}
#endif
#endif

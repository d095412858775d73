/* gs_batch.h: batch runs: every (case, format, repeat) of a batch configuration, one case per
 * SLURM array task when asked, results that survive a killed job.
 *
 * Result files, in batch.results (RES):
 *   RES/expected.csv                   the manifest: every (case, requested format) of the whole
 *                                      batch, case_index,case,requested_format,repeats,warmup,
 *                                      settings; written by every invocation (--case N and array
 *                                      tasks too) beside itself and renamed into place
 *   RES/case-NNN.csv                   one row per run (the contract's columns, then case_index,
 *                                      requested_format, repeat, status, message, record,
 *                                      warmup, then the context: rtol, ..., timestamp, ...,
 *                                      settings, the provenance: host, cpu, gpu, gpu_driver,
 *                                      cuda, mpi, hdf5, rhs, x0), appended in one locked write
 *                                      after the run's files exist
 *   RES/case-NNN/FORMAT.settings       the settings text the rows of (case, FORMAT) ran with
 *   RES/case-NNN/FORMAT-R.h5           the HDF5 record of that run (written, then renamed)
 *   RES/case-NNN/FORMAT-R.history.csv  its residual history (written, then renamed)
 *   RES/case-NNN/FORMAT-R.running      while run R is under way: case, format, repeat, start
 *                                      time, pid and host; left behind by a crash, it tells
 *                                      the report which run died (removed once the row is in)
 *   RES/case-NNN.lock                  held while a process runs case NNN
 * Warmup runs are FORMAT-wK, recorded with repeat = -K and warmup = 1.
 * One file per case, so array tasks never share a file. The CSV row is the commit point: a run
 * killed before it is run again, and so is a failed one (its row is dropped on rerun); a torn
 * last row (a write cut by a crash) is cut off on rerun. Input files enter the settings by
 * resolved path, size and modification time.
 * A run is recorded when a row of its (case, requested format, repeat) carries its settings
 * hash (gs_config_settings of the case's configuration with --set applied and spmv.format the
 * requested format; output.* but output.profile, batch.* and the name left out). Rows of that
 * (case, format) under another hash are dropped before it runs again (its files are made
 * again), in one line that names the case and the keys changed (from FORMAT.settings).
 * Rows of another case name in case-NNN.csv (cases reordered or renamed) are dropped first.
 * A case whose problem cannot be read is said once (the case and the resolved path); its
 * pending counted runs are recorded as failed with that message, without warmups.
 */
#ifndef GS_BATCH_H
#define GS_BATCH_H

#include <stdint.h>
#include <stdio.h>

#include "gs_config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_batch_opts {
    int64_t only_case;       /* -1: every case, unless SLURM_ARRAY_TASK_ID names one */
    int force;               /* run (case, format, repeat) triples already recorded again */
    const char *const *sets; /* --set assignments, applied over every case (borrowed) */
    int nsets;
} gs_batch_opts;

/* The configuration of case i (0-based): the file's top-level keys, the case, then the --set
 * assignments; problem.name holds the case's name. Checked (gs_config_check). */
gs_status gs_batch_case_config(const gs_config *file_cfg, const gs_batch_opts *o, int64_t i,
                               gs_config *out);

/* Print "N name what" per case and '#' lines with formats, repeats, results and the array. */
gs_status gs_batch_list(const gs_config *file_cfg, const gs_batch_opts *o, FILE *out);

/* Run the batch (or the one case asked for) and print progress and the comparison table.
 * *exit_code: 0 when every run converged, 3 when some did not or failed (each recorded). A
 * failure returned is about the batch itself (bad config: exit 2; results not writable: 1). */
gs_status gs_batch_run(const gs_config *file_cfg, const gs_batch_opts *o, int *exit_code);

/* The same with `warmup` runs of each (case, format) before its counted repeats: recorded with
 * warmup = 1 and left out of the report's statistics, made again whenever a counted repeat of
 * that (case, format) runs (a warm process is what they are for). */
gs_status gs_batch_run_warmup(const gs_config *file_cfg, const gs_batch_opts *o, int warmup,
                              int *exit_code);

#ifdef __cplusplus
}
#endif
#endif

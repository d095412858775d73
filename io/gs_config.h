/* gs_config.h: the configuration file: a libconfig file read into a gs_config through the
 * library's key table (gs_keys.h), overridden by --set key=value, and written back.
 *
 * Unknown keys, wrong types and out-of-range values are errors that name the key and the
 * place (file:line, or --set). Relative input paths in a file (problem.matrix, problem.rhs,
 * problem.x0) are taken relative to that file's folder; output paths relative to the working
 * directory.
 *
 * A batch file has a batch group: batch.cases, a list of groups, one per case, each with any
 * of: name = "..."; matrix = "file"; generate = { ... } (problem.generate); set = ["key=value",
 * ...]; and groups like those at the top level (problem = {...}; solver = {...}; ...). The
 * top-level keys are every case's defaults. batch.formats is a list of strings.
 */
#ifndef GS_CONFIG_H
#define GS_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "gs_keys.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Read a libconfig file over the current values. */
gs_status gs_config_load(gs_config *c, const char *path);

/* Checks across keys (a matrix or a generator, not both, ...). */
gs_status gs_config_check(const gs_config *c);

/* Apply entry `index` (0-based) of batch.cases in the file c->source over *c; a case that names
 * a matrix drops an inherited generator and the other way round. problem.name gets the case's
 * name when it has one. */
gs_status gs_config_apply_case(gs_config *c, int64_t index);

/* Resolve an input path given in the config: absolute or relative to base_dir. */
void gs_config_input_path(const gs_config *c, const char *path, char *out, size_t len);

/* The generators' registry into the key table (done as the program starts). */
void gs_config_register_app(void);

/* Every key and its value as a libconfig file that gs_config_load reads back into the same
 * configuration (--print-config, the result records): groups as "group = { key = value; };",
 * defaults included, relative paths made absolute (inputs against base_dir, outputs against the
 * working directory), batch.cases as a comment (the text is one run's; of a batch's case, the
 * header says which case). gs_free the result. */
gs_status gs_config_to_text(const gs_config *c, char **out);

/* A batch as a libconfig file that gs_config_load reads back into the same batch: base (the
 * top level, --set applied) as gs_config_to_text writes it, then batch.cases as ncases groups,
 * each the name of cases[i] (gs_batch_case_config) and the keys where it differs from base. */
gs_status gs_config_to_text_batch(const gs_config *base, int64_t ncases, const gs_config *cases,
                                  char **out);

/* The settings that shape a run's numbers, as text: one "key = value;" line per key whose value
 * is not its default, in the key table's order; left out are problem.name, output.* (paths,
 * verbosity, monitor) except output.profile, and batch.*; a path to an existing file is
 * resolved and followed by the file's size and modification time in a comment. hash = FNV-1a 64
 * of the text as 16 hex digits (a batch's results are keyed by it). gs_free *out. */
gs_status gs_config_settings(const gs_config *c, char **out, char hash[17]);

#ifdef __cplusplus
}
#endif
#endif

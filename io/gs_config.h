/* gs_config.h: gsolve's configuration: one declared table of keys (type, default, range,
 * help), read from a libconfig file and overridden by --set key=value.
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

#include "gs_spmat.h"
#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_CFG_STR 1024

typedef char gs_cfg_str[GS_CFG_STR];

typedef struct gs_config {
    struct {
        gs_cfg_str name, matrix, group, rhs, x0, nullspace;
        struct {
            gs_cfg_str type;
            int64_t size, nx, ny, nz, stencil, dof, seed, block;
            double epsilon, velocity, degree, exponent, contrast, angle, E, nu;
        } generate;
    } problem;
    struct {
        gs_cfg_str type, preconditioner;
        double rtol, atol, dtol;
        int64_t max_iters, restart, stagnation_window;
    } solver;
    struct {
        gs_cfg_str method, galerkin, aggregation, cycle, smoother, strength, restriction;
        double theta, smoother_omega, prolongator_omega, chebyshev_ratio, classical_theta,
            interp_trunc;
        int64_t interp_max_elements, max_levels, coarse_size, presweeps, postsweeps, chebyshev_degree,
            coarse_chebyshev_degree, block_size, smooth_prolongator, filter, gather_rows;
    } amg;
    struct {
        gs_cfg_str format, levels;
        gs_format_params params; /* the formats' tuning keys (gs_format_key, gs_spmat.h) */
    } spmv;
    struct {
        gs_cfg_str backend;
        int64_t device, threads;
    } run;
    struct {
        gs_cfg_str csv, hdf5, history, solution;
        int64_t verbosity, monitor, profile;
    } output;
    struct {
        gs_cfg_str formats; /* comma-separated list ("" = spmv.format alone) */
        gs_cfg_str results; /* folder of the result files */
        int64_t repeats, warmup;
        int64_t cases; /* how many entries batch.cases has (0: not a batch); read them with
                        * gs_config_apply_case */
    } batch;
    gs_cfg_str source;   /* the config file read ("" when none) */
    gs_cfg_str base_dir; /* its folder, for relative input paths ("" = working directory) */
} gs_config;

/* Every key at its default. */
void gs_config_defaults(gs_config *c);

/* Read a libconfig file over the current values. */
gs_status gs_config_load(gs_config *c, const char *path);

/* Apply "key=value" (value parsed by the key's type; strings with or without quotes). */
gs_status gs_config_set(gs_config *c, const char *assignment);

/* Checks across keys (a matrix or a generator, not both, ...). */
gs_status gs_config_check(const gs_config *c);

/* Apply entry `index` (0-based) of batch.cases in the file c->source over *c; a case that names
 * a matrix drops an inherited generator and the other way round. problem.name gets the case's
 * name when it has one. */
gs_status gs_config_apply_case(gs_config *c, int64_t index);

/* Element i of a list-valued key's text ("a,b,c"): 1 and out filled, or 0 past the end. */
int gs_config_list_item(const char *list, int i, char *out, size_t len);

/* Resolve an input path given in the config: absolute or relative to base_dir. */
void gs_config_input_path(const gs_config *c, const char *path, char *out, size_t len);

/* problem.nullspace: 1 when it is "constant" (A annihilates the constant vector); the
 * near-nullspace file it names, NULL for "none", "" and "constant". */
int gs_config_nullspace_constant(const gs_config *c);
const char *gs_config_nullspace_file(const gs_config *c);

/* The table for --help-config; the entry of one key, or of every key of a group ("amg",
 * "problem.generate"), a key whose choices come from a registry (formats, Krylov methods,
 * smoothers, Galerkin methods, generators) followed by one help line per registered entry: an
 * unknown topic is a GS_ERR_CONFIG error naming the keys close to it. */
void gs_config_print_help(FILE *f);
gs_status gs_config_print_help_key(FILE *f, const char *topic);

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

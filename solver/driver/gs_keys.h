/* gs_keys.h: gsolve's settings: one declared table of keys (type, default, range, choices,
 * help) over the gs_config struct, owned by the library. gsolve_set (gsolve.h) and the
 * application's configuration file reader feed it; every value is checked here, and a wrong one
 * is a GS_ERR_CONFIG error naming the key and the place.
 *
 * The groups solver, amg, spmv, run and output.profile/verbosity/monitor shape a solve; problem,
 * output (files) and batch are the application's, kept in the same table so that a file and
 * --set speak one language.
 */
#ifndef GS_KEYS_H
#define GS_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "gs_log.h"
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
            double epsilon, velocity, degree, exponent, contrast, angle, E, nu, drift;
        } generate;
        gs_cfg_str sequence; /* the steps' matrix files "a,b,c" (K_LIST) */
        int64_t steps;
        int64_t step; /* the step being loaded (set by the application, not a key) */
    } problem;
    struct {
        gs_cfg_str type, preconditioner;
        double rtol, atol, dtol;
        int64_t max_iters, restart, stagnation_window;
    } solver;
    struct {
        gs_cfg_str method, galerkin, aggregation, cycle, smoother, strength, restriction, reuse;
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

/* Apply "key=value" (value parsed by the key's type; strings with or without quotes); where
 * names the place in messages ("file:line"; NULL: "--set KEY"). */
gs_status gs_config_assign(gs_config *c, const char *assignment, const char *where);
/* gs_config_assign(c, assignment, NULL) */
gs_status gs_config_set(gs_config *c, const char *assignment);

/* Element i of a list-valued key's text ("a,b,c"): 1 and out filled, or 0 past the end. */
int gs_config_list_item(const char *list, int i, char *out, size_t len);

/* problem.nullspace: 1 when it is "constant" (A annihilates the constant vector); the
 * near-nullspace file it names, NULL for "none", "" and "constant". */
int gs_config_nullspace_constant(const gs_config *c);
const char *gs_config_nullspace_file(const gs_config *c);

/* The table for --help-config; the entry of one key, or of every key of a group ("amg",
 * "problem.generate"), a key whose choices come from a registry (formats, Krylov methods,
 * smoothers, Galerkin methods, generators) followed by one help line per registered entry: an
 * unknown topic is a GS_ERR_CONFIG error naming the keys close to it. */
void gs_config_print_help(const gs_out *f);
gs_status gs_config_print_help_key(const gs_out *f, const char *topic);

/* The problem generators' registry behind problem.generate.type's choices: the application's
 * (its generators register here; without them no generator is a valid choice). */
void gs_config_set_generators(const char *(*choices)(void),
                              int (*at)(int i, const char **name, const char **help));

/* ---- the table itself, for the configuration file reader and writer ---- */

/* K_LIST: a list of strings, kept as "a,b,c"; K_CASES: the batch's list of case groups, kept
 * as its length (the entries are read again from the file by gs_config_apply_case). */
typedef enum key_type { K_STR, K_INT, K_FLOAT, K_LIST, K_CASES } key_type;

typedef struct key_def {
    const char *key;
    key_type type;
    size_t off;
    const char *def;     /* default, as text */
    double min, max;     /* numeric range */
    const char *choices; /* "a|b|c" for strings with fixed values, "@registry", or NULL */
    const char *help;
} key_def;

/* The key table (the rows with the formats' tuning keys in place) and its length. */
const key_def *gs_config_keys(size_t *n);
/* The format's tuning key behind k (its value lives in spmv.params), or NULL. */
const gs_format_key *gs_config_format_key(const key_def *k);
/* The key named `key`, or NULL. */
const key_def *gs_config_find_key(const char *key);
/* The error for an unknown key at where, with the closest known key as a hint. */
gs_status gs_config_unknown_key(const char *where, const char *key);
/* "a string", "an integer", ... for messages */
const char *gs_config_type_name(key_type t);
/* k's choices "a|b|c" (a registry's names for "@..."), or NULL */
const char *gs_config_key_choices(const key_def *k);
/* Store a value into c after checking it (where: the place, for messages): a string, a list
 * joined as "a,b", a number, or text parsed by the key's type. */
gs_status gs_config_store_str(gs_config *c, const key_def *k, const char *v, const char *where);
gs_status gs_config_store_list(gs_config *c, const key_def *k, const char *joined,
                               const char *where);
gs_status gs_config_store_num(gs_config *c, const key_def *k, double v, const char *where);
gs_status gs_config_store_text(gs_config *c, const key_def *k, const char *text,
                               const char *where);
/* Levenshtein distance of two short strings (99 beyond 63 characters) */
int gs_config_edit_distance(const char *a, const char *b);

#ifdef __cplusplus
}
#endif
#endif

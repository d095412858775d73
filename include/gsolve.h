/* gsolve.h: the gsolve library's C API.
 *
 * gsolve solves sparse linear systems A x = b with Krylov methods (CG, MINRES, BiCGStab,
 * GMRES, FGMRES) preconditioned by Jacobi or algebraic multigrid (smoothed aggregation or
 * classical, chosen from the matrix), on an NVIDIA GPU when there is one and on the host
 * otherwise. Each level's SpMV runs in the sparse format chosen for its matrix.
 *
 *     gsolve_t *s = NULL;
 *     gsolve_create(&s);
 *     gsolve_set(s, "solver.preconditioner", "amg");
 *     gsolve_set_matrix_csr(s, n, rowptr, cols, vals, GSOLVE_HOST);
 *     gsolve_setup(s);
 *     int rc = gsolve_solve(s, 1, b, x, GSOLVE_HOST);   // x: initial guess in, solution out
 *     if (rc != GSOLVE_OK) fprintf(stderr, "%s\n", gsolve_error(s));
 *     gsolve_destroy(&s);
 *
 * Settings are the keys of the gsolve program's configuration files, with the same types,
 * ranges, defaults and messages (`gsolve --help-config` lists them): solver.*, amg.*, spmv.*,
 * run.*, output.profile, problem.nullspace. Every function returns a code below; on a failure
 * gsolve_error gives the message. The library never prints, never exits and never reads the
 * environment; messages go to the log callback set with gsolve_set_log (none by default).
 *
 * One context is used by one thread at a time; contexts are independent and several may live
 * in one process. The GPU, when used, is the process's (run.device picks it).
 */
#ifndef GSOLVE_H
#define GSOLVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GSOLVE_VERSION_MAJOR 0
#define GSOLVE_VERSION_MINOR 1
#define GSOLVE_VERSION_PATCH 0
#define GSOLVE_VERSION_STRING "0.1.0"

#if defined(GSOLVE_BUILDING) && defined(__GNUC__)
#define GSOLVE_API __attribute__((visibility("default")))
#else
#define GSOLVE_API
#endif

/* Return codes, as the gsolve program's exit codes. */
enum {
    GSOLVE_OK = 0,            /* done (a solve: converged) */
    GSOLVE_ERROR = 1,         /* a runtime failure: memory, the GPU, an internal error */
    GSOLVE_BAD_INPUT = 2,     /* a bad argument, key, value or matrix */
    GSOLVE_NOT_CONVERGED = 3  /* the solve ended without reaching its tolerance */
};

/* Where arrays handed to the library live. */
enum {
    GSOLVE_HOST = 0,  /* host memory */
    GSOLVE_DEVICE = 1 /* the GPU's memory (run.device); the run must be on the GPU */
};

/* Log levels of the messages passed to the log callback. */
enum { GSOLVE_LOG_ERROR = 0, GSOLVE_LOG_WARN = 1, GSOLVE_LOG_INFO = 2 };

typedef struct gsolve gsolve_t;
typedef void (*gsolve_log_fn)(void *user, int level, const char *message);

/* "0.1.0 (commit, backends)": the library's version and what it was built with. */
GSOLVE_API const char *gsolve_version(void);

/* A new context with every key at its default (*s NULL on failure: GSOLVE_ERROR). */
GSOLVE_API int gsolve_create(gsolve_t **s);
/* Free the context and everything it holds; *s becomes NULL. NULL and *s NULL are fine. */
GSOLVE_API void gsolve_destroy(gsolve_t **s);

/* Set one key from its text ("amg.theta", "0.25"; strings with or without quotes). A changed
 * key takes effect at the next gsolve_setup. GSOLVE_BAD_INPUT for an unknown key (with the
 * closest one), a wrong type, a value out of range or not among the choices. */
GSOLVE_API int gsolve_set(gsolve_t *s, const char *key, const char *value);
/* The current value of a key as text into buf (len bytes). */
GSOLVE_API int gsolve_get_key(const gsolve_t *s, const char *key, char *buf, size_t len);

/* Messages (warnings such as a format falling back, traces) go to fn(user, level, message)
 * during this context's calls; NULL: dropped (the default). */
GSOLVE_API int gsolve_set_log(gsolve_t *s, gsolve_log_fn fn, void *user);

/* The n x n matrix in CSR form: rowptr (n + 1 entries, rowptr[0] = 0), column indices cols
 * and values vals (rowptr[n] entries each), 0-based; columns within a row in any order,
 * duplicates summed. where: GSOLVE_HOST or GSOLVE_DEVICE (device arrays are checked and kept on
 * the device; only a device CSR whose rows are not sorted goes through the host to be sorted).
 * The arrays are copied; the caller keeps them. A malformed CSR (rowptr not increasing, a
 * column outside 0..n-1, a value not finite, sizes beyond 2^31 - 1 entries) is
 * GSOLVE_BAD_INPUT naming the row. The previous setup is dropped. */
GSOLVE_API int gsolve_set_matrix_csr(gsolve_t *s, int64_t n, const int64_t *rowptr,
                                     const int32_t *cols, const double *vals, int where);

/* The same with 32-bit row pointers (scipy's, cuSPARSE's and most assemblers' CSR): no
 * widened copy of rowptr is needed. */
GSOLVE_API int gsolve_set_matrix_csr32(gsolve_t *s, int64_t n, const int32_t *rowptr,
                                       const int32_t *cols, const double *vals, int where);

/* The AMG's near-nullspace: k vectors of n values, one after another, on the host (rigid-body
 * modes for elasticity); k = 0 drops them. Used by smoothed aggregation at the next setup. */
GSOLVE_API int gsolve_set_nullspace(gsolve_t *s, int k, const double *vectors);

/* Build what the solves need: the backend, the SpMV formats, the preconditioner (the AMG
 * hierarchy). gsolve_solve sets up itself when needed. */
GSOLVE_API int gsolve_setup(gsolve_t *s);

/* New values for the matrix of the same pattern (rowptr[n] values, in the order given to
 * gsolve_set_matrix_csr; where as above). The next gsolve_setup or solve sets up again keeping
 * what the key amg.reuse says: "auto" (the default) keeps every AMG level's prolongator and
 * restriction and remakes the coarse operators' values in their patterns, the smoothers and the
 * coarse solve, while the solves take at most 1.25x the iterations of the first solve after the
 * last full setup, and makes a full setup otherwise; "prolongator" always keeps them; "values"
 * keeps the coarsening (the aggregates and tentative prolongators, P smoothed anew; classical
 * AMG's C/F splittings, P and R made anew); "none" always sets up in full. gsolve_get_text "setup" says
 * which ran ("full", "prolongator" or "values"). */
GSOLVE_API int gsolve_update_values(gsolve_t *s, const double *vals, int where);

/* Solve A x = b for nrhs right-hand sides: b and x hold nrhs columns of n values one after
 * another; x holds the initial guesses and receives the solutions. where: GSOLVE_HOST or
 * GSOLVE_DEVICE for both. GSOLVE_OK when every column converged, GSOLVE_NOT_CONVERGED when one
 * did not (its solution is still returned), else an error code. */
GSOLVE_API int gsolve_solve(gsolve_t *s, int nrhs, const double *b, double *x, int where);

/* z = M r: the preconditioner once (one AMG cycle from a zero guess; Jacobi's D^-1 r; z = r
 * for none) for nrhs columns, after a setup (made here when needed); r and z as gsolve_solve's
 * b and x. For using gsolve's AMG inside another Krylov method. */
GSOLVE_API int gsolve_apply(gsolve_t *s, int nrhs, const double *r, double *z, int where);

/* A number from the last setup and solve: "iterations", "residual" (true ||b - Ax|| / ||b||),
 * "converged" (1 or 0), "setup_s" (the last setup, full or not), "full_setup_s" (the last full
 * one), "solve_s", "levels", "operator_complexity", "grid_complexity", "rows", "nnz"; the AMG's
 * work since the context's last full setup of a new pattern: "setups" (full), "resetups"
 * (gsolve_update_values), "coarsenings", "prolongators", "galerkin_products" (made with their
 * pattern), "galerkin_values" (into a kept pattern), 0 without AMG. With several right-hand sides: the most iterations, the
 * largest residual, converged when all did, the total solve time; "iterations:J",
 * "residual:J", "converged:J" give column J's; "level_rows:L", "level_nnz:L" level L's size
 * (L < levels); "device_to_host_bytes": the arrays the process has copied from the GPU to the
 * host so far (vectors, matrices; not the reductions' few numbers). GSOLVE_BAD_INPUT for an unknown name. */
GSOLVE_API int gsolve_get(const gsolve_t *s, const char *name, double *value);

/* A text from the last setup and solve ("" when unknown or not made yet): "setup" ("full",
 * "prolongator" or "values": what the last setup kept), "reused" (the AMG's sentence on it),
 * "reason" (one word: rtol, max_iters, ...), "reason_text" (a sentence), "solver",
 * "preconditioner", "format" (level 0's SpMV format), "formats" (every level's), "backend" (host
 * or cuda), "device",
 * "amg_method" (sa or classical, what ran), "level_format:L". NULL for an unknown name (and
 * gsolve_error says so). */
GSOLVE_API const char *gsolve_get_text(const gsolve_t *s, const char *name);

/* The report of the last solve as text: the console summary of the gsolve program (problem,
 * solver, result, residual, times, format, the AMG levels). "" before the first solve. */
GSOLVE_API const char *gsolve_report(const gsolve_t *s);

/* The message of the last failure of this context ("" when the last call succeeded). */
GSOLVE_API const char *gsolve_error(const gsolve_t *s);

/* A diagnostic setting of the process (fault injection, traces; the gsolve program takes them
 * from GSOLVE_* environment variables of the same names); value NULL unsets it. */
GSOLVE_API int gsolve_set_diagnostic(const char *name, const char *value);

#ifdef __cplusplus
}
#endif
#endif

/* gs_krylov.h: CG, BiCGStab, GMRES(m) and FGMRES, written once over linear operators and the
 * vector operations of gs_vec.h, so they run on whichever backend holds the data.
 *
 * Stopping: ||r|| <= max(rtol * ||b||, atol). Not converging is a result (a negative reason),
 * not an error: gs_krylov_solve returns GS_OK with res->reason set, and fails only for a
 * runtime error (allocation, backend). A claimed convergence is confirmed against the true
 * residual b - A x before it is reported.
 */
#ifndef GS_KRYLOV_H
#define GS_KRYLOV_H

#include "gs_vec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y = Op(x): a matrix in some format, a preconditioner, ... ctx is borrowed. apply_dots, when
 * not NULL, also returns out[i] = a[i].b[i] (i < k <= GS_MAX_DOTS; a[i] or b[i] may be y)
 * computed inside the same pass, which saves CG a reduction kernel per iteration. */
typedef struct gs_linop {
    int64_t n;
    void *ctx;
    gs_status (*apply)(void *ctx, const gs_vec *x, gs_vec *y);
    gs_status (*apply_dots)(void *ctx, const gs_vec *x, gs_vec *y, int k, const gs_vec *const *a,
                            const gs_vec *const *b, double *out);
} gs_linop;

typedef enum gs_krylov_type {
    GS_KRYLOV_CG = 0,
    GS_KRYLOV_BICGSTAB,
    GS_KRYLOV_GMRES,
    GS_KRYLOV_FGMRES
} gs_krylov_type;

/* Why a solve ended: positive converged, negative diverged. */
typedef enum gs_reason {
    GS_REASON_NONE = 0,
    GS_CONVERGED_RTOL = 1,
    GS_CONVERGED_ATOL = 2,
    GS_CONVERGED_ZERO_RHS = 3, /* b = 0: x = 0 is exact */
    GS_DIVERGED_MAX_ITERS = -1,
    GS_DIVERGED_BREAKDOWN = -2,
    GS_DIVERGED_NAN = -3,
    GS_DIVERGED_INDEFINITE_MATRIX = -4,
    GS_DIVERGED_INDEFINITE_PC = -5,
    GS_DIVERGED_STAGNATION = -6
} gs_reason;

/* A one-word name for CSV files ("rtol", "max_iters", ...) and a phrase for people. */
const char *gs_reason_name(gs_reason r);
const char *gs_reason_str(gs_reason r);

typedef struct gs_krylov_params {
    gs_krylov_type type;
    double rtol, atol;
    int max_iters;    /* iterations (GMRES: inner steps in all) */
    int restart;      /* GMRES/FGMRES restart length m */
    int stag_window;  /* stagnation: no 0.1% gain of the best residual in this many iterations,
                         or in the last quarter of the run when that is longer (0 = off) */
    /* called with iteration 0 (initial residual) and after every iteration, may be NULL */
    void (*monitor)(void *ctx, int iteration, double rnorm);
    void *monitor_ctx;
} gs_krylov_params;

typedef struct gs_krylov_result {
    gs_reason reason;
    int iterations;
    double bnorm;  /* ||b|| */
    double rnorm0; /* ||b - A x0|| */
    double rnorm;  /* last residual norm the method computed */
    char detail[160]; /* one line more about the ending (which quantity broke down, ...) */
} gs_krylov_result;

/* Solve A x = b with preconditioner M (NULL for none; right preconditioning for BiCGStab and
 * GMRES, symmetric use for CG). x holds the initial guess on entry. */
gs_status gs_krylov_solve(const gs_krylov_params *p, const gs_linop *A, const gs_linop *M,
                          const gs_vec *b, gs_vec *x, gs_krylov_result *res);

#ifdef __cplusplus
}
#endif
#endif

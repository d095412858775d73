/* gs_krylov.h: CG, BiCGStab, GMRES(m), FGMRES and MINRES, written once over linear operators
 * and the vector operations of gs_vec.h, so they run on whichever backend holds the data.
 *
 * Stopping: ||r|| <= max(rtol * ||b||, atol); diverged when ||r|| > dtol ||r0||. Not converging is a result (a negative reason),
 * not an error: gs_krylov_solve returns GS_OK with res->reason set, and fails only for a
 * runtime error (allocation, backend). A claimed convergence is confirmed against the true
 * residual b - A x before it is reported.
 */
#ifndef GS_KRYLOV_H
#define GS_KRYLOV_H

#include <signal.h>

#include "gs_linop.h"
#include "gs_vec.h"

#ifdef __cplusplus
extern "C" {
#endif


/* The built-in methods by their place in the registry (gs_krylov_reg.c); a method added later
 * is reached by name (gs_krylov_find) and its place. */
typedef enum gs_krylov_type {
    GS_KRYLOV_CG = 0,
    GS_KRYLOV_BICGSTAB,
    GS_KRYLOV_GMRES,
    GS_KRYLOV_FGMRES,
    GS_KRYLOV_MINRES
} gs_krylov_type;

struct gs_krylov_state; /* the protocol's state (gs_krylov_impl.h) */

/* A Krylov method as registered: each method's file defines one (gs_cg.c: gs_krylov_cg), and
 * gs_krylov_reg.c lists them. The config key solver.type and --help-config read the list. */
typedef struct gs_krylov_method {
    const char *name; /* the value of solver.type */
    const char *help; /* one line for --help-config */
    int restarted;    /* takes solver.restart (restart >= 1 is checked) */
    int monotone;     /* its residual norm never rises: the stagnation window runs from the
                         start (else after the first gain) */
    gs_status (*solve)(struct gs_krylov_state *k);
} gs_krylov_method;

/* The i-th registered method (i = its type; NULL past the end), the one named name (NULL: none),
 * and "a|b|c" of their names (for the config table). */
const gs_krylov_method *gs_krylov_at(int i);
const gs_krylov_method *gs_krylov_find(const char *name);
int gs_krylov_index(const gs_krylov_method *m);
const char *gs_krylov_choices(void);

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
    GS_DIVERGED_STAGNATION = -6,
    GS_STOPPED_INTERRUPTED = -7, /* the caller's interrupt flag was raised (a signal): x holds
                                    the iterate reached */
    GS_DIVERGED_DTOL = -8 /* ||r_k|| > dtol ||r_0||: the residual grew beyond the divergence
                             tolerance */
} gs_reason;

/* A one-word name for CSV files ("rtol", "max_iters", ...) and a phrase for people (the
 * negative ones but interrupted start "did not converge: "). */
const char *gs_reason_name(gs_reason r);
const char *gs_reason_str(gs_reason r);

typedef struct gs_krylov_params {
    gs_krylov_type type; /* the method's place in the registry (gs_krylov_at) */
    double rtol, atol;
    double dtol;      /* stop as diverged when a residual norm exceeds dtol ||r0|| (0: off) */
    int max_iters;    /* iterations (GMRES: inner steps in all) */
    int restart;      /* GMRES/FGMRES restart length m */
    int stag_window;  /* stagnation: no 0.1% gain of the best residual in this many iterations,
                         or in the last quarter of the run when that is longer (0 = off) */
    /* called with iteration 0 (initial residual) and after every iteration, may be NULL */
    void (*monitor)(void *ctx, int iteration, double rnorm);
    void *monitor_ctx;
    /* read at the start and after every iteration: nonzero stops the solve there with
       GS_STOPPED_INTERRUPTED (a flag a signal handler sets; borrowed, may be NULL) */
    const volatile sig_atomic_t *interrupt;
    /* A 1 = 0 (a singular operator whose null space is the constant vector): x0, every
       residual b - A x and every M^-1 output are projected orthogonal to the constant, and so
       is x at the end; b must be consistent (orthogonal to the constant: the caller projects
       it). Under a reduction across processes (gs_vec_set_reduce) the constant is global. */
    int nullspace_constant;
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
 * GMRES, symmetric use for CG and MINRES, which need M symmetric positive definite). x holds
 * the initial guess on entry. */
gs_status gs_krylov_solve(const gs_krylov_params *p, const gs_linop *A, const gs_linop *M,
                          const gs_vec *b, gs_vec *x, gs_krylov_result *res);

/* An operator on blocks of k columns (gs_vec.h: n k values, entry (i, c) at i k + c): Y = op
 * X. */
typedef struct gs_block_op {
    void *ctx;
    gs_status (*apply)(void *ctx, int k, const gs_vec *X, gs_vec *Y);
} gs_block_op;

/* CG on k <= GS_BLOCK_MAX right-hand sides at once (gs_cg_block.c): the columns of B (n k
 * values) solved into X's (their initial guesses on entry), each column its own recurrence and
 * its own stop (rtol, atol, dtol, max_iters; the interrupt flag; no monitor, no stagnation test,
 * no null-space projection), the products with A and M (NULL: none) once per iteration for all
 * columns. res: k results. */
gs_status gs_cg_block(const gs_krylov_params *p, int64_t n, int k, const gs_block_op *A,
                      const gs_block_op *M, const gs_vec *B, gs_vec *X, gs_krylov_result *res);

#ifdef __cplusplus
}
#endif
#endif

/* gs_krylov_impl.h: what the Krylov methods share, internal to solver/ (gs_krylov.c holds the
 * driver and these helpers; gs_cg.c, gs_bicgstab.c, gs_gmres.c and gs_minres.c hold one method
 * each). A singular operator with the constant as its null space (nullspace_constant) is
 * handled here, not by the methods: the residuals and preconditioned vectors they get through
 * gs_krylov_residual and gs_krylov_apply_M are projected orthogonal to the constant.
 *
 * Every method follows the same protocol:
 *   r = b - A x0 (gs_krylov_residual), gs_krylov_start: monitor(0), NaN / already converged /
 *   interrupt flag; each iteration: gs_krylov_step (records it, monitor, NaN check, divergence
 *   beyond dtol, the interrupt flag: x must then hold the iterate reached); when the recursive
 *   residual meets the bound, gs_krylov_confirm computes the true residual and either reports
 *   convergence or hands back b - A x to restart the recurrence from (residual replacement);
 *   otherwise gs_krylov_stagnated; after the last iteration gs_krylov_max_iters.
 * The helpers returning int return 1 when the solve has ended (res->reason set).
 */
#ifndef GS_KRYLOV_IMPL_H
#define GS_KRYLOV_IMPL_H

#include "gs_krylov.h"

/* A claimed convergence that the true residual refutes this many times in a row, each time
 * without halving it, ends the solve as stagnation (attainable accuracy). */
#define GS_KRYLOV_MAX_REPLACEMENTS 3

/* One solve: the problem, the stopping bound and the bookkeeping shared by the methods. */
typedef struct gs_krylov_state {
    const gs_krylov_params *p;
    const gs_linop *A;
    const gs_linop *M; /* NULL: no preconditioner */
    const gs_vec *b;
    gs_vec *x;
    gs_krylov_result *res;
    double tol;       /* max(rtol * ||b||, atol) */
    double rec_tol;   /* what the recurrence's residual must reach before the true one is
                       * checked: tol, lowered after a refutation by the gap it showed */
    double stag_ref;  /* residual norm at the last gain of at least 0.1% */
    int stag_it;      /* iteration of that gain */
    int stag_armed;   /* the window runs: from the start for GMRES (monotone residual), after
                         the first gain for CG and BiCGStab, whose residual may rise above
                         ||r0|| for thousands of iterations before converging (bcsstk25) */
    int replacements; /* refutations in a row without halving the true residual */
    double refuted;   /* true residual norm at the last refutation */
    gs_vec *ones;     /* p->nullspace_constant: the constant vector of ones (else NULL) */
    double nones;     /* ones.ones: the global length */
} gs_krylov_state;

/* The methods (gs_krylov_method.solve, one file each): each allocates its work vectors on
 * b->loc and frees them on every path. */

/* y = A x; y = M^-1 x (y = x without a preconditioner; nothing to do when y == x), projected
 * orthogonal to the constant when p->nullspace_constant. */
gs_status gs_krylov_apply_A(const gs_krylov_state *k, const gs_vec *x, gs_vec *y);
gs_status gs_krylov_apply_M(const gs_krylov_state *k, const gs_vec *x, gs_vec *y);

/* r = b - A x (projected as gs_krylov_apply_M's output), *rnorm = ||r|| */
gs_status gs_krylov_residual(const gs_krylov_state *k, gs_vec *r, double *rnorm);

/* Record ||r0||, call monitor(0); ends the solve on NaN/Inf, an already converged guess or a
 * raised interrupt flag. */
int gs_krylov_start(gs_krylov_state *k, double rnorm0);

/* Record iteration `it` with residual norm rnorm, call the monitor; ends on NaN/Inf, with
 * GS_DIVERGED_DTOL when rnorm > dtol ||r0||, and with GS_STOPPED_INTERRUPTED when the caller's
 * interrupt flag is up (unless rnorm meets the bound: that claim is confirmed first). */
int gs_krylov_step(gs_krylov_state *k, int it, double rnorm);

/* 1 when rnorm meets max(rtol*||b||, atol) */
int gs_krylov_met(const gs_krylov_state *k, double rnorm);

/* The recursive residual met the bound: r = b - A x and check it. *ended = 1 when converged
 * or refuted GS_KRYLOV_MAX_REPLACEMENTS times (stagnation); else restart from r. */
gs_status gs_krylov_confirm(gs_krylov_state *k, gs_vec *r, int *ended);

/* Set the converged reason (rtol or atol, by which bound rnorm meets). */
void gs_krylov_converged(gs_krylov_state *k, double rnorm);

/* Stagnation test after iteration it (off when stag_window is 0). */
int gs_krylov_stagnated(gs_krylov_state *k, int it, double rnorm);

/* End with reason and a one-line detail (printf-style). */
void gs_krylov_end(gs_krylov_state *k, gs_reason reason, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* x -= (x.1 / 1.1) 1 when p->nullspace_constant (else nothing) */
gs_status gs_krylov_project(const gs_krylov_state *k, gs_vec *x);

/* End with GS_DIVERGED_MAX_ITERS (the loop ran out). */
void gs_krylov_max_iters(gs_krylov_state *k);

#endif

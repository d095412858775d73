/* gs_krylov.c: the Krylov driver (argument checks, b = 0, dispatch), reason names, and the
 * stopping, monitoring and residual-replacement logic every method shares. */
#include "gs_krylov.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "gs_krylov_impl.h"

#define STAG_GAIN 1e-3 /* a gain of the best residual below 0.1% does not count */

const char *gs_reason_name(gs_reason r)
{
    switch (r) {
    case GS_REASON_NONE: return "none";
    case GS_CONVERGED_RTOL: return "rtol";
    case GS_CONVERGED_ATOL: return "atol";
    case GS_CONVERGED_ZERO_RHS: return "zero_rhs";
    case GS_DIVERGED_MAX_ITERS: return "max_iters";
    case GS_DIVERGED_BREAKDOWN: return "breakdown";
    case GS_DIVERGED_NAN: return "nan";
    case GS_DIVERGED_INDEFINITE_MATRIX: return "indefinite_matrix";
    case GS_DIVERGED_INDEFINITE_PC: return "indefinite_preconditioner";
    case GS_DIVERGED_STAGNATION: return "stagnation";
    case GS_STOPPED_INTERRUPTED: return "interrupted";
    case GS_DIVERGED_DTOL: return "diverged";
    }
    return "unknown";
}

const char *gs_reason_str(gs_reason r)
{
    switch (r) {
    case GS_REASON_NONE: return "not solved";
    case GS_CONVERGED_RTOL: return "converged (relative residual)";
    case GS_CONVERGED_ATOL: return "converged (absolute residual)";
    case GS_CONVERGED_ZERO_RHS: return "converged (zero right-hand side, x = 0)";
    case GS_DIVERGED_MAX_ITERS: return "did not converge: maximum iterations reached";
    case GS_DIVERGED_BREAKDOWN: return "did not converge: breakdown";
    case GS_DIVERGED_NAN: return "did not converge: NaN or Inf in the residual";
    case GS_DIVERGED_INDEFINITE_MATRIX: return "did not converge: matrix is not positive definite";
    case GS_DIVERGED_INDEFINITE_PC:
        return "did not converge: preconditioner is not positive definite";
    case GS_DIVERGED_STAGNATION: return "did not converge: stagnation";
    case GS_STOPPED_INTERRUPTED: return "interrupted";
    case GS_DIVERGED_DTOL:
        return "did not converge: diverged (the residual grew beyond dtol times the initial one)";
    }
    return "unknown reason";
}

/* ---- helpers shared by the methods ---- */

/* y = A x */
gs_status gs_krylov_apply_A(const gs_krylov_state *k, const gs_vec *x, gs_vec *y)
{
    return k->A->apply(k->A->ctx, x, y);
}

/* x -= (x.1 / 1.1) 1: x orthogonal to the constant (only for nullspace_constant) */
gs_status gs_krylov_project(const gs_krylov_state *k, gs_vec *x)
{
    gs_status st = GS_OK;
    double s = 0.0;
    if (!k->ones) return GS_OK;
    GS_CHECK(gs_vec_dot(k->ones, x, &s));
    if (s != 0.0) GS_CHECK(gs_vec_axpy(-s / k->nones, k->ones, x));
done:
    return st;
}

/* y = M^-1 x, or y = x without a preconditioner; projected for nullspace_constant */
gs_status gs_krylov_apply_M(const gs_krylov_state *k, const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    if (k->M)
        GS_CHECK(k->M->apply(k->M->ctx, x, y));
    else if (x != y)
        GS_CHECK(gs_vec_copy(x, y));
    GS_CHECK(gs_krylov_project(k, y));
done:
    return st;
}

/* r = b - A x (projected for nullspace_constant), *rnorm = ||r|| */
gs_status gs_krylov_residual(const gs_krylov_state *k, gs_vec *r, double *rnorm)
{
    gs_status st = GS_OK;
    GS_CHECK(gs_krylov_apply_A(k, k->x, r));
    GS_CHECK(gs_vec_axpby(1.0, k->b, -1.0, r));
    GS_CHECK(gs_krylov_project(k, r));
    GS_CHECK(gs_vec_nrm2(r, rnorm));
done:
    return st;
}

void gs_krylov_end(gs_krylov_state *k, gs_reason reason, const char *fmt, ...)
{
    k->res->reason = reason;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->res->detail, sizeof k->res->detail, fmt, ap);
    va_end(ap);
}

int gs_krylov_met(const gs_krylov_state *k, double rnorm)
{
    return rnorm <= k->rec_tol;
}

void gs_krylov_converged(gs_krylov_state *k, double rnorm)
{
    int rel = k->p->rtol > 0.0 && rnorm <= k->p->rtol * k->res->bnorm;
    k->res->reason = rel ? GS_CONVERGED_RTOL : GS_CONVERGED_ATOL;
    k->res->detail[0] = '\0';
}

/* NaN/Inf in a residual norm ends the solve; the detail says where it came from */
static int check_finite(gs_krylov_state *k, int it, double rnorm)
{
    if (isfinite(rnorm)) return 0;
    if (!isfinite(k->res->bnorm))
        gs_krylov_end(k, GS_DIVERGED_NAN, "||b|| = %g: the right-hand side has NaN/Inf entries",
                      k->res->bnorm);
    else if (it == 0)
        gs_krylov_end(k, GS_DIVERGED_NAN,
                      "||b - A x0|| = %g: the initial guess or the matrix has NaN/Inf entries",
                      rnorm);
    else
        gs_krylov_end(k, GS_DIVERGED_NAN, "residual norm %g at iteration %d", rnorm, it);
    return 1;
}

/* The caller's interrupt flag raised: stop here (unless this residual meets the bound: then the
 * claim is confirmed first, and the next step stops) */
static int check_interrupt(gs_krylov_state *k, int it, double rnorm)
{
    if (!k->p->interrupt || !*k->p->interrupt || gs_krylov_met(k, rnorm)) return 0;
    gs_krylov_end(k, GS_STOPPED_INTERRUPTED, "at iteration %d, relative residual %.3e", it,
                  rnorm / k->res->bnorm);
    return 1;
}

int gs_krylov_start(gs_krylov_state *k, double rnorm0)
{
    k->res->rnorm0 = k->res->rnorm = rnorm0;
    k->res->iterations = 0;
    k->stag_ref = rnorm0;
    k->stag_it = 0;
    k->stag_armed = gs_krylov_at(k->p->type)->monotone;
    k->replacements = 0;
    k->refuted = HUGE_VAL;
    if (k->p->monitor) k->p->monitor(k->p->monitor_ctx, 0, rnorm0);
    if (check_finite(k, 0, rnorm0)) return 1;
    if (gs_krylov_met(k, rnorm0)) {
        gs_krylov_converged(k, rnorm0);
        return 1;
    }
    return check_interrupt(k, 0, rnorm0);
}

/* ||r|| > dtol ||r0|| ends the solve as diverged (dtol 0: never) */
static int check_dtol(gs_krylov_state *k, int it, double rnorm)
{
    const double r0 = k->res->rnorm0;
    if (!(k->p->dtol > 0.0) || !(rnorm > k->p->dtol * r0)) return 0;
    gs_krylov_end(k, GS_DIVERGED_DTOL,
                  "residual norm %.3e at iteration %d is %.3g times the initial %.3e (dtol %g)",
                  rnorm, it, rnorm / r0, r0, k->p->dtol);
    return 1;
}

int gs_krylov_step(gs_krylov_state *k, int it, double rnorm)
{
    k->res->iterations = it;
    k->res->rnorm = rnorm;
    if (k->p->monitor) k->p->monitor(k->p->monitor_ctx, it, rnorm);
    return check_finite(k, it, rnorm) || check_dtol(k, it, rnorm) ||
           check_interrupt(k, it, rnorm);
}

/* "relative residual 3.2e-05 > rtol 1e-08", or the absolute form when atol is the bound */
static void bound_text(const gs_krylov_state *k, double rnorm, const char *what, char *out,
                       size_t len)
{
    double bn = k->res->bnorm;
    if (k->p->rtol * bn >= k->p->atol)
        snprintf(out, len, "relative %s %.3e > rtol %g", what, rnorm / bn, k->p->rtol);
    else
        snprintf(out, len, "%s %.3e > atol %g", what, rnorm, k->p->atol);
}

gs_status gs_krylov_confirm(gs_krylov_state *k, gs_vec *r, int *ended)
{
    gs_status st = GS_OK;
    double tnorm = 0.0;
    *ended = 0;
    GS_CHECK(gs_krylov_residual(k, r, &tnorm));
    k->res->rnorm = tnorm;
    if (check_finite(k, k->res->iterations, tnorm)) {
        *ended = 1;
    } else if (tnorm <= k->tol) {
        gs_krylov_converged(k, tnorm);
        *ended = 1;
    } else {
        /* refuted: restart from the true residual; when it is just above tol (within 2x),
         * the recurrence is aimed below tol by the gap it showed, so the next pass ends below
         * it instead of stopping there again; give up only when refutations keep coming
         * without the true residual halving in between */
        if (tnorm < 2.0 * k->tol) k->rec_tol = fmin(k->rec_tol, 0.5 * k->tol * (k->tol / tnorm));
        k->replacements = tnorm < 0.5 * k->refuted ? 1 : k->replacements + 1;
        k->refuted = fmin(tnorm, k->refuted);
        if (k->replacements < GS_KRYLOV_MAX_REPLACEMENTS) return GS_OK;
        char b[96];
        bound_text(k, tnorm, "true residual", b, sizeof b);
        gs_krylov_end(k, GS_DIVERGED_STAGNATION,
                      "%s after %d iterations: the recurrence claims convergence that the true "
                      "residual refutes (attainable accuracy)",
                      b, k->res->iterations);
        *ended = 1;
    }
done:
    return st;
}

int gs_krylov_stagnated(gs_krylov_state *k, int it, double rnorm)
{
    if (rnorm < (1.0 - STAG_GAIN) * k->stag_ref) {
        k->stag_ref = rnorm;
        k->stag_it = it;
        k->stag_armed = 1;
        return 0;
    }
    /* the window grows with the run (a quarter of it): ill-conditioned CG has plateaus that
     * scale with its length (bcsstk25: ~1000 iterations without gain near iteration 14000) */
    int w = k->p->stag_window;
    if (w <= 0 || !k->stag_armed) return 0;
    if (it / 4 > w) w = it / 4;
    if (it - k->stag_it < w) return 0;
    double bn = k->res->bnorm;
    if (k->stag_it == 0)
        gs_krylov_end(k, GS_DIVERGED_STAGNATION,
                      "relative residual %.3e after %d iterations, never 0.1%% below its start "
                      "%.3e: the preconditioned operator makes no progress",
                      rnorm / bn, it, k->stag_ref / bn);
    else
        gs_krylov_end(k, GS_DIVERGED_STAGNATION,
                      "relative residual %.3e after %d iterations, not 0.1%% below %.3e (reached "
                      "at iteration %d) in the last %d",
                      rnorm / bn, it, k->stag_ref / bn, k->stag_it, it - k->stag_it);
    return 1;
}

void gs_krylov_max_iters(gs_krylov_state *k)
{
    char b[96];
    bound_text(k, k->res->rnorm, "residual", b, sizeof b);
    gs_krylov_end(k, GS_DIVERGED_MAX_ITERS, "%s after %d iterations", b, k->res->iterations);
}

/* ---- the driver ---- */

/* Refuse what the methods cannot run: bad tolerances or sizes, a missing operator. */
static gs_status check_args(const gs_krylov_params *p, const gs_linop *A, const gs_linop *M,
                            const gs_vec *b, const gs_vec *x, gs_krylov_result *res)
{
    gs_status st = GS_OK;
    if (!p || !A || !b || !x || !res || !A->apply)
        GS_FAIL(GS_ERR_ARG, "krylov: missing argument (params, A, b, x and result are needed)");
    if (!gs_krylov_at(p->type)) GS_FAIL(GS_ERR_ARG, "krylov: unknown method %d", (int)p->type);
    if (!(p->rtol >= 0.0)) GS_FAIL(GS_ERR_ARG, "krylov: rtol = %g, expected >= 0", p->rtol);
    if (!(p->atol >= 0.0)) GS_FAIL(GS_ERR_ARG, "krylov: atol = %g, expected >= 0", p->atol);
    if (!(p->dtol >= 0.0)) GS_FAIL(GS_ERR_ARG, "krylov: dtol = %g, expected >= 0", p->dtol);
    if (p->max_iters < 0)
        GS_FAIL(GS_ERR_ARG, "krylov: max_iters = %d, expected >= 0", p->max_iters);
    if (p->stag_window < 0)
        GS_FAIL(GS_ERR_ARG, "krylov: stag_window = %d, expected >= 0", p->stag_window);
    if (gs_krylov_at(p->type)->restarted && p->restart < 1)
        GS_FAIL(GS_ERR_ARG, "krylov: %s restart = %d, expected >= 1", gs_krylov_at(p->type)->name,
                p->restart);
    if (A->n != b->n || x->n != b->n)
        GS_FAIL(GS_ERR_ARG, "krylov: size mismatch: A is %lld x %lld, b has %lld, x has %lld",
                (long long)A->n, (long long)A->n, (long long)b->n, (long long)x->n);
    if (M && (!M->apply || M->n != b->n))
        GS_FAIL(GS_ERR_ARG, "krylov: preconditioner of size %lld for a system of size %lld",
                (long long)M->n, (long long)b->n);
    if (b->loc != x->loc) GS_FAIL(GS_ERR_ARG, "krylov: b and x live in different memories");
done:
    return st;
}

/* b = 0: x = 0 is exact; rnorm0 still reports ||b - A x0|| for the initial guess */
static gs_status zero_rhs(gs_krylov_state *k)
{
    gs_status st = GS_OK;
    gs_vec *r = NULL;
    double rnorm0 = 0.0;
    GS_CHECK(gs_vec_create(k->b->n, k->b->loc, &r));
    GS_CHECK(gs_krylov_residual(k, r, &rnorm0));
    GS_CHECK(gs_vec_fill(0.0, k->x));
    k->res->rnorm0 = rnorm0;
    k->res->rnorm = 0.0;
    if (k->p->monitor) k->p->monitor(k->p->monitor_ctx, 0, 0.0);
    gs_krylov_end(k, GS_CONVERGED_ZERO_RHS, "b = 0, so x = 0 is the exact solution");
done:
    gs_vec_destroy(&r);
    return st;
}

gs_status gs_krylov_solve(const gs_krylov_params *p, const gs_linop *A, const gs_linop *M,
                          const gs_vec *b, gs_vec *x, gs_krylov_result *res)
{
    gs_status st = GS_OK;
    gs_krylov_state k = {.p = p, .A = A, .M = M, .b = b, .x = x, .res = res};
    GS_CHECK(check_args(p, A, M, b, x, res));
    *res = (gs_krylov_result){.reason = GS_REASON_NONE};
    if (p->nullspace_constant) { /* x0 and every residual orthogonal to the constant */
        GS_CHECK(gs_vec_create(b->n, b->loc, &k.ones));
        GS_CHECK(gs_vec_fill(1.0, k.ones));
        GS_CHECK(gs_vec_dot(k.ones, k.ones, &k.nones));
        GS_CHECK(gs_krylov_project(&k, x));
    }
    GS_CHECK(gs_vec_nrm2(b, &res->bnorm));
    k.tol = fmax(p->rtol * res->bnorm, p->atol);
    k.rec_tol = k.tol;
    if (res->bnorm == 0.0) {
        GS_CHECK(zero_rhs(&k));
        goto done;
    }
    GS_CHECK(gs_krylov_at(p->type)->solve(&k));
    GS_CHECK(gs_krylov_project(&k, x)); /* the constant part the rounding let in */
done:
    gs_vec_destroy(&k.ones);
    return st;
}

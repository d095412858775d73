/* gs_bicgstab.c: BiCGStab (van der Vorst) with right preconditioning, A M^-1 u = b, x = M^-1 u,
 * written over gs_linop and gs_vec operations.
 *
 * One iteration = two products with A (and M^-1). Reductions are grouped: r_hat.v; then
 * s.s, t.s, t.t together; then r.r, r_hat.r together (three synchronizations on a device).
 * Grouping s.s with t.s and t.t computes t even when s already meets the bound, which costs
 * one extra product, on the last iteration only.
 */
#include <math.h>

#include "gs_krylov_impl.h"

typedef struct bicg {
    gs_vec *r, *rh, *p, *v, *ph, *s, *sh, *t; /* ph, sh alias p, s without a preconditioner */
    gs_vec *phbuf, *shbuf;
    double rho, rho_old, alpha, omega;
    int fresh; /* p = r on the next iteration (start or residual replacement) */
} bicg;

/* Start the recurrence from the residual in w->r: r_hat = r, rho = r.r */
static gs_status restart(bicg *w)
{
    gs_status st = GS_OK;
    GS_CHECK(gs_vec_copy(w->r, w->rh));
    GS_CHECK(gs_vec_dot(w->rh, w->r, &w->rho));
    w->fresh = 1;
done:
    return st;
}

/* p = r + beta (p - omega v), ph = M^-1 p, v = A ph, alpha = rho / r_hat.v, s = r - alpha v */
static gs_status first_half(gs_krylov_state *k, bicg *w, int it, int *ended)
{
    gs_status st = GS_OK;
    double rv = 0.0;
    if (w->fresh) {
        GS_CHECK(gs_vec_copy(w->r, w->p));
    } else {
        double beta = (w->rho / w->rho_old) * (w->alpha / w->omega);
        GS_CHECK(gs_vec_axpby(-w->omega, w->v, 1.0, w->p));
        GS_CHECK(gs_vec_axpby(1.0, w->r, beta, w->p));
    }
    GS_CHECK(gs_krylov_apply_M(k, w->p, w->ph));
    GS_CHECK(gs_krylov_apply_A(k, w->ph, w->v));
    GS_CHECK(gs_vec_dot(w->rh, w->v, &rv));
    k->res->iterations = it;
    if (!isfinite(rv) || rv == 0.0) {
        gs_krylov_end(k, isfinite(rv) ? GS_DIVERGED_BREAKDOWN : GS_DIVERGED_NAN,
                      "r_hat.v = %g at iteration %d (rho = %.3e)", rv, it, w->rho);
        *ended = 1;
        goto done;
    }
    w->alpha = w->rho / rv;
    GS_CHECK(gs_vec_copy(w->r, w->s));
    GS_CHECK(gs_vec_axpy(-w->alpha, w->v, w->s));
done:
    return st;
}

/* The bound met by a residual: confirm with b - A x or restart from it */
static gs_status confirm(gs_krylov_state *k, bicg *w, int *ended)
{
    gs_status st = GS_OK;
    GS_CHECK(gs_krylov_confirm(k, w->r, ended));
    if (!*ended) GS_CHECK(restart(w));
done:
    return st;
}

/* s met the bound (or t = 0): x += alpha ph is the iterate; r = s */
static gs_status half_exit(gs_krylov_state *k, bicg *w, int it, double snorm, double tt, int *ended)
{
    gs_status st = GS_OK;
    GS_CHECK(gs_vec_axpy(w->alpha, w->ph, k->x));
    GS_CHECK(gs_vec_copy(w->s, w->r));
    if (gs_krylov_step(k, it, snorm)) {
        *ended = 1;
    } else if (gs_krylov_met(k, snorm)) {
        GS_CHECK(confirm(k, w, ended));
    } else {
        gs_krylov_end(k, GS_DIVERGED_BREAKDOWN,
                      "t.t = %g at iteration %d: A M^-1 s = 0 with ||s|| = %.3e", tt, it, snorm);
        *ended = 1;
    }
done:
    return st;
}

/* The checks closing an iteration with residual norm rnorm and new rho = r_hat.r */
static gs_status close_iteration(gs_krylov_state *k, bicg *w, int it, double rnorm, double rho_new,
                                 int *ended)
{
    gs_status st = GS_OK;
    if (gs_krylov_step(k, it, rnorm)) {
        *ended = 1;
    } else if (gs_krylov_met(k, rnorm)) {
        GS_CHECK(confirm(k, w, ended));
    } else if (gs_krylov_stagnated(k, it, rnorm)) {
        *ended = 1;
    } else if (w->omega == 0.0) {
        gs_krylov_end(k, GS_DIVERGED_BREAKDOWN, "omega = t.s / t.t = 0 at iteration %d", it);
        *ended = 1;
    } else if (rho_new == 0.0) {
        gs_krylov_end(k, GS_DIVERGED_BREAKDOWN,
                      "rho = r_hat.r = 0 at iteration %d with ||r|| = %.3e", it, rnorm);
        *ended = 1;
    } else {
        w->rho_old = w->rho;
        w->rho = rho_new;
        w->fresh = 0;
    }
done:
    return st;
}

/* One iteration: both half steps and the checks; *ended = 1 when the solve ends */
static gs_status iteration(gs_krylov_state *k, bicg *w, int it, int *ended)
{
    gs_status st = GS_OK;
    double ss = 0.0, ts = 0.0, tt = 0.0, rr = 0.0, rho_new = 0.0;
    GS_CHECK(first_half(k, w, it, ended));
    if (*ended) goto done;
    GS_CHECK(gs_krylov_apply_M(k, w->s, w->sh));
    GS_CHECK(gs_krylov_apply_A(k, w->sh, w->t));
    const gs_vec *a3[3] = {w->s, w->t, w->t}, *b3[3] = {w->s, w->s, w->t};
    double d3[3];
    GS_CHECK(gs_vec_dots(3, a3, b3, d3)); /* one fused reduction */
    ss = d3[0];
    ts = d3[1];
    tt = d3[2];
    double snorm = sqrt(ss);
    if (gs_krylov_met(k, snorm) || tt == 0.0) {
        GS_CHECK(half_exit(k, w, it, snorm, tt, ended));
        goto done;
    }
    w->omega = ts / tt;
    GS_CHECK(gs_vec_axpy(w->alpha, w->ph, k->x));
    GS_CHECK(gs_vec_axpy(w->omega, w->sh, k->x));
    GS_CHECK(gs_vec_copy(w->s, w->r));
    GS_CHECK(gs_vec_axpy(-w->omega, w->t, w->r));
    const gs_vec *a2[2] = {w->r, w->rh}, *b2[2] = {w->r, w->r};
    double d2[2];
    GS_CHECK(gs_vec_dots(2, a2, b2, d2)); /* one fused reduction */
    rr = d2[0];
    rho_new = d2[1];
    GS_CHECK(close_iteration(k, w, it, sqrt(rr), rho_new, ended));
done:
    return st;
}

static void free_vecs(bicg *w)
{
    gs_vec **all[] = {&w->r, &w->rh, &w->p, &w->v, &w->s, &w->t, &w->phbuf, &w->shbuf};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) gs_vec_destroy(all[i]);
}

static gs_status bicgstab_solve(gs_krylov_state *k)
{
    gs_status st = GS_OK;
    bicg w = {0};
    double rnorm = 0.0;
    int ended = 0;
    const int64_t n = k->b->n;
    const gs_loc loc = k->b->loc;
    gs_vec **own[] = {&w.r, &w.rh, &w.p, &w.v, &w.s, &w.t};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) GS_CHECK(gs_vec_create(n, loc, own[i]));
    if (k->M) {
        GS_CHECK(gs_vec_create(n, loc, &w.phbuf));
        GS_CHECK(gs_vec_create(n, loc, &w.shbuf));
    }
    w.ph = k->M ? w.phbuf : w.p;
    w.sh = k->M ? w.shbuf : w.s;
    GS_CHECK(gs_krylov_residual(k, w.r, &rnorm));
    if (gs_krylov_start(k, rnorm)) goto done;
    GS_CHECK(restart(&w));
    for (int it = 1; it <= k->p->max_iters && !ended; it++) GS_CHECK(iteration(k, &w, it, &ended));
    if (!ended) gs_krylov_max_iters(k);
done:
    free_vecs(&w);
    return st;
}

const gs_krylov_method gs_krylov_bicgstab = {
    .name = "bicgstab",
    .help = "BiCGStab with right preconditioning (nonsymmetric A)",
    .solve = bicgstab_solve,
};

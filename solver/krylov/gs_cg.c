/* gs_cg.c: preconditioned conjugate gradients (A symmetric positive definite, M symmetric
 * positive definite), written over gs_linop and gs_vec operations.
 *
 * Chronopoulos-Gear form: one fused reduction (r.z, w.z, r.r) and one fused update per
 * iteration, so a device backend synchronizes once per iteration.
 */
#include <math.h>

#include "gs_krylov_impl.h"

typedef struct cg_vecs {
    gs_vec *r, *u, *w, *p, *s; /* u = M^-1 r aliases r without a preconditioner; w = A u;
                                  s = A p by recurrence */
} cg_vecs;

/* r.z must be positive for the recurrence to go on; returns 1 when the solve ends */
static int check_rz(gs_krylov_state *k, double rz, int it)
{
    if (!isfinite(rz)) {
        gs_krylov_end(k, GS_DIVERGED_NAN, "r.z = %g at iteration %d", rz, it);
        return 1;
    }
    if (rz < 0.0) {
        gs_krylov_end(k, GS_DIVERGED_INDEFINITE_PC, "r.z = %.3e < 0 at iteration %d", rz, it);
        return 1;
    }
    if (rz == 0.0) {
        gs_krylov_end(k, GS_DIVERGED_BREAKDOWN,
                      "r.z = 0 with ||r|| = %.3e at iteration %d: the preconditioner is singular",
                      k->res->rnorm, it);
        return 1;
    }
    return 0;
}

/* p.Ap must be positive; returns 1 when the solve ends */
static int check_pq(gs_krylov_state *k, double pq, int it)
{
    k->res->iterations = it;
    if (!isfinite(pq)) {
        gs_krylov_end(k, GS_DIVERGED_NAN, "p.Ap = %g at iteration %d", pq, it);
        return 1;
    }
    if (pq <= 0.0) {
        gs_krylov_end(k, GS_DIVERGED_INDEFINITE_MATRIX, "p.Ap = %.3e <= 0 at iteration %d", pq, it);
        return 1;
    }
    return 0;
}

/* u = M^-1 r, w = A u and the one fused reduction of an iteration:
 * g[0] = r.u (gamma), g[1] = w.u (delta), g[2] = r.r */
static gs_status reduce(const gs_krylov_state *k, cg_vecs *v, double g[3])
{
    gs_status st = GS_OK;
    const gs_vec *x[3] = {v->r, v->w, v->r}, *y[3] = {v->u, v->u, v->r};
    GS_CHECK(gs_krylov_apply_M(k, v->r, v->u));
    if (k->A->apply_dots) {
        GS_CHECK(k->A->apply_dots(k->A->ctx, v->u, v->w, 3, x, y, g)); /* fused into the SpMV */
    } else {
        GS_CHECK(gs_krylov_apply_A(k, v->u, v->w));
        GS_CHECK(gs_vec_dots(3, x, y, g));
    }
done:
    return st;
}

/* Chronopoulos-Gear CG: the same iterates as textbook PCG in exact arithmetic, with the
 * three reductions of an iteration fused into one (one device-to-host synchronization) and
 * the four vector updates fused into one pass. p.Ap = delta - beta gamma / alpha_old. */
static gs_status iterate(gs_krylov_state *k, cg_vecs *v)
{
    gs_status st = GS_OK;
    double gamma_old = 1.0, alpha_old = 1.0, g[3];
    int it = 0, fresh = 1; /* fresh: the recurrence (re)starts from r here */
    for (;;) {
        GS_CHECK(reduce(k, v, g));
        if (it > 0 && !fresh) {
            double rnorm = sqrt(g[2]);
            if (gs_krylov_step(k, it, rnorm)) goto done;
            if (gs_krylov_met(k, rnorm)) {
                int ended = 0;
                GS_CHECK(gs_krylov_confirm(k, v->r, &ended));
                if (ended) goto done;
                fresh = 1; /* residual replacement: r = b - A x, start the recurrence again */
                continue;
            }
            if (gs_krylov_stagnated(k, it, rnorm)) goto done;
        }
        if (it >= k->p->max_iters) {
            gs_krylov_max_iters(k);
            goto done;
        }
        if (check_rz(k, g[0], it)) goto done;
        double beta = fresh ? 0.0 : g[0] / gamma_old;
        double pq = fresh ? g[1] : g[1] - beta * g[0] / alpha_old;
        if (check_pq(k, pq, it + 1)) goto done;
        double alpha = g[0] / pq;
        GS_CHECK(gs_vec_cg_update(alpha, beta, v->u, v->w, v->p, v->s, k->x, v->r));
        gamma_old = g[0];
        alpha_old = alpha;
        fresh = 0;
        it++;
    }
done:
    return st;
}

static gs_status cg_solve(gs_krylov_state *k)
{
    gs_status st = GS_OK;
    const int64_t n = k->b->n;
    const gs_loc loc = k->b->loc;
    cg_vecs v = {0};
    gs_vec *ubuf = NULL;
    double rnorm = 0.0;
    GS_CHECK(gs_vec_create(n, loc, &v.r));
    GS_CHECK(gs_vec_create(n, loc, &v.w));
    GS_CHECK(gs_vec_create(n, loc, &v.p));
    GS_CHECK(gs_vec_create(n, loc, &v.s));
    if (k->M) GS_CHECK(gs_vec_create(n, loc, &ubuf));
    v.u = k->M ? ubuf : v.r;
    GS_CHECK(gs_krylov_residual(k, v.r, &rnorm));
    if (gs_krylov_start(k, rnorm)) goto done;
    GS_CHECK(iterate(k, &v));
done:
    gs_vec_destroy(&v.r);
    gs_vec_destroy(&v.w);
    gs_vec_destroy(&v.p);
    gs_vec_destroy(&v.s);
    gs_vec_destroy(&ubuf);
    return st;
}

const gs_krylov_method gs_krylov_cg = {
    .name = "cg",
    .help = "preconditioned CG (symmetric positive definite A and M), one reduction an iteration",
    .solve = cg_solve,
};

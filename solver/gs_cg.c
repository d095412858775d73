/* gs_cg.c: preconditioned conjugate gradients (A symmetric positive definite, M symmetric
 * positive definite), written over gs_linop and gs_vec operations.
 *
 * The two reductions of an iteration (r.z for beta and r.r for the stopping test) are taken
 * next to each other after all vector updates, so a device backend needs one synchronization
 * per iteration besides p.Ap.
 */
#include <math.h>

#include "gs_krylov_impl.h"

typedef struct cg_vecs {
    gs_vec *r, *z, *p, *q; /* z aliases r without a preconditioner */
} cg_vecs;

/* *rz = r.z, *rr = r.r: the fused pair of reductions of one iteration */
static gs_status dot_pair(const cg_vecs *v, double *rz, double *rr)
{
    gs_status st = GS_OK;
    GS_CHECK(gs_vec_dot(v->r, v->z, rz));
    if (v->z == v->r)
        *rr = *rz;
    else
        GS_CHECK(gs_vec_dot(v->r, v->r, rr));
done:
    return st;
}

/* r.z must be positive for the recurrence to go on; returns 1 when the solve ends */
static int check_rz(gs_krylov_state *k, double rz, int it)
{
    if (!isfinite(rz)) {
        gs_krylov_end(k, GS_DIVERGED_NAN, "r.z = %g at iteration %d", rz, it);
        return 1;
    }
    if (rz < 0.0) {
        gs_krylov_end(k, GS_DIVERGED_INDEFINITE_PC,
                      "r.z = %.3e < 0 at iteration %d: the preconditioner is not positive "
                      "definite",
                      rz, it);
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
        gs_krylov_end(k, GS_DIVERGED_INDEFINITE_MATRIX,
                      "p.Ap = %.3e <= 0 at iteration %d: the matrix is not positive definite", pq,
                      it);
        return 1;
    }
    return 0;
}

/* (Re)start the recurrence from the residual in v->r: z = M^-1 r, p = z, *rz = r.z */
static gs_status restart(const gs_krylov_state *k, cg_vecs *v, double *rz)
{
    gs_status st = GS_OK;
    GS_CHECK(gs_krylov_apply_M(k, v->r, v->z));
    GS_CHECK(gs_vec_dot(v->r, v->z, rz));
    GS_CHECK(gs_vec_copy(v->z, v->p));
done:
    return st;
}

/* The iterations after the start; *rz holds r.z of the current residual */
static gs_status iterate(gs_krylov_state *k, cg_vecs *v, double rz)
{
    gs_status st = GS_OK;
    for (int it = 1; it <= k->p->max_iters; it++) {
        double pq = 0.0, rz_new = 0.0, rr = 0.0;
        GS_CHECK(gs_krylov_apply_A(k, v->p, v->q));
        GS_CHECK(gs_vec_dot(v->p, v->q, &pq));
        if (check_pq(k, pq, it)) goto done;
        double alpha = rz / pq;
        GS_CHECK(gs_vec_axpy(alpha, v->p, k->x));
        GS_CHECK(gs_vec_axpy(-alpha, v->q, v->r));
        GS_CHECK(gs_krylov_apply_M(k, v->r, v->z));
        GS_CHECK(dot_pair(v, &rz_new, &rr));
        double rnorm = sqrt(rr);
        if (gs_krylov_step(k, it, rnorm)) goto done;
        if (gs_krylov_met(k, rnorm)) {
            int ended = 0;
            GS_CHECK(gs_krylov_confirm(k, v->r, &ended));
            if (ended) goto done;
            GS_CHECK(restart(k, v, &rz)); /* residual replacement */
            if (check_rz(k, rz, it)) goto done;
            continue;
        }
        if (gs_krylov_stagnated(k, it, rnorm)) goto done;
        if (check_rz(k, rz_new, it)) goto done;
        GS_CHECK(gs_vec_axpby(1.0, v->z, rz_new / rz, v->p)); /* p = z + beta p */
        rz = rz_new;
    }
    gs_krylov_max_iters(k);
done:
    return st;
}

gs_status gs_cg_solve(gs_krylov_state *k)
{
    gs_status st = GS_OK;
    const int64_t n = k->b->n;
    const gs_loc loc = k->b->loc;
    cg_vecs v = {0};
    gs_vec *zbuf = NULL;
    double rnorm = 0.0, rz = 0.0;
    GS_CHECK(gs_vec_create(n, loc, &v.r));
    GS_CHECK(gs_vec_create(n, loc, &v.p));
    GS_CHECK(gs_vec_create(n, loc, &v.q));
    if (k->M) GS_CHECK(gs_vec_create(n, loc, &zbuf));
    v.z = k->M ? zbuf : v.r;
    GS_CHECK(gs_krylov_residual(k, v.r, &rnorm));
    if (gs_krylov_start(k, rnorm)) goto done;
    GS_CHECK(restart(k, &v, &rz));
    if (check_rz(k, rz, 0)) goto done;
    GS_CHECK(iterate(k, &v, rz));
done:
    gs_vec_destroy(&v.r);
    gs_vec_destroy(&v.p);
    gs_vec_destroy(&v.q);
    gs_vec_destroy(&zbuf);
    return st;
}

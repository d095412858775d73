/* gs_minres.c: preconditioned MINRES (Paige and Saunders 1975) for a symmetric A that may be
 * indefinite, with a symmetric positive definite preconditioner M, written over gs_linop and
 * gs_vec operations.
 *
 * The Lanczos process on M^-1 A in the M inner product, its tridiagonal T factored by Givens
 * rotations as it grows: x_k minimises ||b - A x||_{M^-1} over the Krylov space (the variable
 * names follow Choi and Saunders' reference code). The protocol stops on the 2-norm, which the
 * recurrence r_k = s_k^2 r_{k-1} - (phibar_k c_k / beta_{k+1}) q_{k+1} gives (q_{k+1} the
 * unscaled Lanczos vector r2): ||r_k||^2 from r_{k-1}.r_{k-1}, r_{k-1}.r2 and r2.r2, which
 * ride in the iteration's two reductions. One SpMV, one M^-1 and two synchronizations an
 * iteration.
 */
#include <math.h>

#include "gs_krylov_impl.h"

typedef struct minres {
    gs_vec *r;          /* the residual b - A x by the recurrence above */
    gs_vec *r1, *r2, *y; /* the Lanczos vectors: r2 the newest, y = M^-1 r2 */
    gs_vec *v, *w, *w1, *w2; /* v = y / beta; w the search directions (R^-1 applied to V) */
    double beta, oldb, dbar, epsln, phibar, cs, sn;
} minres;

/* r.M^-1 r = ry must not be negative (beyond rounding against scale, the previous one); at a
 * (re)start it must be positive, else M^-1 is singular; within the iterations 0 means the
 * Krylov space is invariant. Returns 1 when the solve ends. */
static int check_ry(gs_krylov_state *k, double ry, double rnorm, double scale, int it, int fresh)
{
    if (!isfinite(ry)) {
        gs_krylov_end(k, GS_DIVERGED_NAN, "r.M^-1 r = %g at iteration %d", ry, it);
        return 1;
    }
    if (ry < 0.0 && -ry > 1e-14 * scale) { /* below: rounding of an exhausted space */
        gs_krylov_end(k, GS_DIVERGED_INDEFINITE_PC,
                      "r.M^-1 r = %.3e < 0 at iteration %d: MINRES needs a symmetric positive "
                      "definite preconditioner",
                      ry, it);
        return 1;
    }
    if (ry <= 0.0 && fresh && rnorm > 0.0) {
        gs_krylov_end(k, GS_DIVERGED_BREAKDOWN,
                      "r.M^-1 r = 0 with ||r|| = %.3e at iteration %d: the preconditioner is "
                      "singular",
                      rnorm, it);
        return 1;
    }
    return 0;
}

/* Start the Lanczos process from the residual in m->r (norm rnorm) at iteration it */
static gs_status restart(gs_krylov_state *k, minres *m, double rnorm, int it, int *ended)
{
    gs_status st = GS_OK;
    double ry = 0.0;
    GS_CHECK(gs_vec_copy(m->r, m->r2));
    GS_CHECK(gs_krylov_apply_M(k, m->r2, m->y));
    GS_CHECK(gs_vec_dot(m->r2, m->y, &ry));
    *ended = check_ry(k, ry, rnorm, 0.0, it, 1);
    if (*ended) {
        k->res->iterations = it;
        goto done;
    }
    GS_CHECK(gs_vec_fill(0.0, m->w));
    GS_CHECK(gs_vec_fill(0.0, m->w2));
    m->beta = sqrt(ry);
    m->oldb = m->dbar = m->epsln = m->sn = 0.0;
    m->cs = -1.0;
    m->phibar = m->beta;
done:
    return st;
}

/* The Lanczos step: r2 = A v - alpha r2 - beta/oldb r1 (the vectors rotated: r1 <- r2), y =
 * M^-1 r2; d = {alpha, r.r, r2.y, r2.r2, r.r2} from two fused reductions */
static gs_status lanczos(gs_krylov_state *k, minres *m, double d[5])
{
    gs_status st = GS_OK;
    GS_CHECK(gs_vec_axpby(1.0 / m->beta, m->y, 0.0, m->v));
    GS_CHECK(gs_krylov_apply_A(k, m->v, m->y));
    if (m->oldb != 0.0) GS_CHECK(gs_vec_axpy(-m->beta / m->oldb, m->r1, m->y));
    const gs_vec *a2[2] = {m->v, m->r}, *b2[2] = {m->y, m->r};
    GS_CHECK(gs_vec_dots(2, a2, b2, d)); /* alpha = v.y, r.r */
    GS_CHECK(gs_vec_axpy(-d[0] / m->beta, m->r2, m->y));
    gs_vec *t = m->r1;
    m->r1 = m->r2;
    m->r2 = m->y;
    m->y = t;
    GS_CHECK(gs_krylov_apply_M(k, m->r2, m->y));
    const gs_vec *a3[3] = {m->r2, m->r2, m->r}, *b3[3] = {m->y, m->r2, m->r2};
    GS_CHECK(gs_vec_dots(3, a3, b3, d + 2));
done:
    return st;
}

/* One iteration: the Lanczos step, the next rotation, x += phi w, the residual by recurrence
 * and its norm. *ended = 1 when a breakdown ends the solve. */
static gs_status iteration(gs_krylov_state *k, minres *m, int it, double *rnorm, int *ended)
{
    gs_status st = GS_OK;
    double d[5];
    GS_CHECK(lanczos(k, m, d));
    const double alfa = d[0], rr = d[1], ry = d[2], r22 = d[3], rr2 = d[4];
    k->res->iterations = it;
    if ((*ended = check_ry(k, ry, k->res->rnorm, m->beta * m->beta, it, 0))) goto done;
    m->oldb = m->beta;
    m->beta = ry > 0.0 ? sqrt(ry) : 0.0; /* 0: the Krylov space is invariant */
    const double oldeps = m->epsln;
    const double delta = m->cs * m->dbar + m->sn * alfa;
    const double gbar = m->sn * m->dbar - m->cs * alfa;
    m->epsln = m->sn * m->beta;
    m->dbar = -m->cs * m->beta;
    const double gamma = hypot(gbar, m->beta);
    if (!(gamma > 0.0)) {
        gs_krylov_end(k, isfinite(gamma) ? GS_DIVERGED_BREAKDOWN : GS_DIVERGED_NAN,
                      "singular tridiagonal (gamma = %g) at iteration %d: A is singular on the "
                      "Krylov space",
                      gamma, it);
        *ended = 1;
        goto done;
    }
    m->cs = gbar / gamma;
    m->sn = m->beta / gamma;
    const double phi = m->cs * m->phibar;
    m->phibar *= m->sn;
    /* w = (v - oldeps w1 - delta w2) / gamma, after w1 <- w2 <- w */
    gs_vec *t = m->w1;
    m->w1 = m->w2;
    m->w2 = m->w;
    m->w = t;
    const double c[2] = {oldeps / gamma, delta / gamma};
    const gs_vec *W[2] = {m->w1, m->w2};
    GS_CHECK(gs_vec_axpby(1.0 / gamma, m->v, 0.0, m->w));
    GS_CHECK(gs_vec_maxpy(2, c, W, m->w));
    GS_CHECK(gs_vec_axpy(phi, m->w, k->x));
    /* r = s^2 r - a r2 and its norm from the dots (rounding can make it slightly negative) */
    const double s2 = m->sn * m->sn, a = m->beta > 0.0 ? m->phibar * m->cs / m->beta : 0.0;
    const double nr2 = s2 * s2 * rr - 2.0 * s2 * a * rr2 + a * a * r22;
    GS_CHECK(gs_vec_axpby(-a, m->r2, s2, m->r));
    *rnorm = nr2 > 0.0 ? sqrt(nr2) : 0.0;
done:
    return st;
}

/* Iterations until an ending; m->r holds b - A x0 */
static gs_status iterate(gs_krylov_state *k, minres *m, double rnorm)
{
    gs_status st = GS_OK;
    int ended = 0;
    GS_CHECK(restart(k, m, rnorm, 0, &ended));
    for (int it = 1; it <= k->p->max_iters && !ended; it++) {
        GS_CHECK(iteration(k, m, it, &rnorm, &ended));
        if (ended || gs_krylov_step(k, it, rnorm)) goto done;
        if (gs_krylov_met(k, rnorm)) {
            GS_CHECK(gs_krylov_confirm(k, m->r, &ended));
            if (!ended) GS_CHECK(restart(k, m, k->res->rnorm, it, &ended)); /* replacement */
            continue;
        }
        if (gs_krylov_stagnated(k, it, rnorm)) goto done;
    }
    if (!ended) gs_krylov_max_iters(k);
done:
    return st;
}

static gs_status minres_solve(gs_krylov_state *k)
{
    gs_status st = GS_OK;
    minres m = {0};
    double rnorm = 0.0;
    const int64_t n = k->b->n;
    const gs_loc loc = k->b->loc;
    gs_vec **all[] = {&m.r, &m.r1, &m.r2, &m.y, &m.v, &m.w, &m.w1, &m.w2};
    const size_t nall = sizeof all / sizeof all[0];
    for (size_t i = 0; i < nall; i++) GS_CHECK(gs_vec_create(n, loc, all[i]));
    GS_CHECK(gs_krylov_residual(k, m.r, &rnorm));
    if (gs_krylov_start(k, rnorm)) goto done;
    GS_CHECK(iterate(k, &m, rnorm));
done:
    for (size_t i = 0; i < nall; i++) gs_vec_destroy(all[i]);
    return st;
}

const gs_krylov_method gs_krylov_minres = {
    .name = "minres",
    .help = "preconditioned MINRES: symmetric A, indefinite allowed; M must be symmetric "
            "positive definite (none, jacobi with a positive diagonal, amg)",
    .solve = minres_solve,
};

/* gs_gmres.c: GMRES(m) with right preconditioning and FGMRES (flexible: Z_j = M^-1 V_j kept,
 * x += Z y), Arnoldi by classical Gram-Schmidt twice (CGS2), each sweep's coefficients and
 * norm from one fused reduction (two synchronizations per inner step on a device); Givens
 * rotations on the Hessenberg matrix.
 *
 * The Krylov basis lives with the data (gs_vec on b->loc); the small dense work (Hessenberg,
 * rotations, g, y) lives on the host. Each restart starts from the true residual b - A x, which
 * is also how a claimed convergence is confirmed.
 */
#include <math.h>

#include "gs_krylov_impl.h"

#define REORTH 0.1  /* reorthogonalise when ||w|| fell below this fraction of ||A z|| */
#define HAPPY 1e-14 /* h_{j+1,j} <= HAPPY ||A z||: the Krylov space is invariant */

typedef struct gmres_ws {
    int m, flexible, nz;
    gs_vec **V; /* m + 1 basis vectors */
    gs_vec **Z; /* nz: m for FGMRES, 1 scratch for GMRES with M, 0 without */
    gs_vec *u;  /* V y before M^-1 is applied (GMRES with M) */
    double *H;  /* (m + 1) x m by columns; upper triangular R after the rotations */
    double *cs, *sn, *g, *y;
    double *d; /* m + 1: the fused reduction of a Gram-Schmidt sweep */
} gmres_ws;

#define HH(w, i, j) ((w)->H[(size_t)(j) * (size_t)((w)->m + 1) + (size_t)(i)])

enum { CYCLE_RESTART, CYCLE_CLAIM, CYCLE_END };

static void ws_free(gmres_ws *w)
{
    for (int i = 0; w->V && i <= w->m; i++) gs_vec_destroy(&w->V[i]);
    for (int i = 0; w->Z && i < w->nz; i++) gs_vec_destroy(&w->Z[i]);
    gs_vec_destroy(&w->u);
    double **arrs[] = {&w->H, &w->cs, &w->sn, &w->g, &w->y, &w->d};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) {
        gs_free(*arrs[i]);
        *arrs[i] = NULL;
    }
    gs_free(w->V);
    gs_free(w->Z);
    w->V = w->Z = NULL;
}

/* Basis and work for restart length m on b's location */
static gs_status ws_create(const gs_krylov_state *k, int m, int flexible, gmres_ws *w)
{
    gs_status st = GS_OK;
    const int64_t n = k->b->n;
    const gs_loc loc = k->b->loc;
    const size_t m1 = (size_t)m + 1;
    *w = (gmres_ws){.m = m, .flexible = flexible};
    w->nz = flexible && k->M ? m : (k->M ? 1 : 0);
    GS_CHECK(gs_alloc_array(m1, sizeof *w->V, "GMRES basis", (void **)&w->V));
    for (size_t i = 0; i < m1; i++) w->V[i] = NULL;
    GS_CHECK(
        gs_alloc_array(w->nz ? (size_t)w->nz : 1, sizeof *w->Z, "FGMRES basis", (void **)&w->Z));
    for (int i = 0; i < w->nz; i++) w->Z[i] = NULL;
    for (size_t i = 0; i < m1; i++) GS_CHECK(gs_vec_create(n, loc, &w->V[i]));
    for (int i = 0; i < w->nz; i++) GS_CHECK(gs_vec_create(n, loc, &w->Z[i]));
    if (k->M && !flexible) GS_CHECK(gs_vec_create(n, loc, &w->u));
    GS_CHECK(gs_alloc_array(m1 * (size_t)m, sizeof(double), "GMRES Hessenberg", (void **)&w->H));
    GS_CHECK(gs_alloc_array((size_t)m, sizeof(double), "GMRES rotations", (void **)&w->cs));
    GS_CHECK(gs_alloc_array((size_t)m, sizeof(double), "GMRES rotations", (void **)&w->sn));
    GS_CHECK(gs_alloc_array(m1, sizeof(double), "GMRES rhs", (void **)&w->g));
    GS_CHECK(gs_alloc_array((size_t)m, sizeof(double), "GMRES solution", (void **)&w->y));
    GS_CHECK(gs_alloc_array(m1, sizeof(double), "GMRES coefficients", (void **)&w->d));
done:
    return st;
}

/* One classical Gram-Schmidt sweep of V[j+1] against V[0..j] as one fused reduction (the
 * coefficients and ||V[j+1]||^2 together) and one multi-axpy; the coefficients are added to
 * column j. *before = ||V[j+1]|| before the sweep, *after = after it by Pythagoras. */
static gs_status cgs_pass(gmres_ws *w, int j, double *before, double *after)
{
    gs_status st = GS_OK;
    double *h = w->y; /* scratch: m >= j + 1 entries, filled again by update_x */
    double hh = 0.0, ww = 0.0, *d = w->d;
    GS_CHECK(gs_vec_mdot(j + 2, (const gs_vec *const *)w->V, w->V[j + 1], d));
    for (int i = 0; i <= j; i++) {
        h[i] = d[i];
        hh += d[i] * d[i];
        HH(w, i, j) += d[i];
    }
    ww = d[j + 1];
    GS_CHECK(gs_vec_maxpy(j + 1, h, (const gs_vec *const *)w->V, w->V[j + 1]));
    *before = sqrt(fmax(ww, 0.0));
    *after = sqrt(fmax(ww - hh, 0.0));
done:
    return st;
}

/* Arnoldi step j: V[j+1] = A M^-1 V[j] orthonormalised by two classical Gram-Schmidt sweeps
 * (CGS2: as orthogonal as modified Gram-Schmidt, two synchronizations per step instead of
 * j + 2); the norm by Pythagoras unless the second sweep still cancelled, then exactly.
 * *happy when the new direction vanishes (the Krylov space is invariant). */
static gs_status arnoldi(const gs_krylov_state *k, gmres_ws *w, int j, int *happy)
{
    gs_status st = GS_OK;
    const gs_vec *z = w->V[j];
    double w0 = 0.0, hn = 0.0, w1 = 0.0;
    if (k->M) {
        gs_vec *zj = w->flexible ? w->Z[j] : w->Z[0];
        GS_CHECK(gs_krylov_apply_M(k, w->V[j], zj));
        z = zj;
    }
    GS_CHECK(gs_krylov_apply_A(k, z, w->V[j + 1]));
    for (int i = 0; i <= j + 1; i++) HH(w, i, j) = 0.0;
    GS_CHECK(cgs_pass(w, j, &w0, &hn));
    GS_CHECK(cgs_pass(w, j, &w1, &hn)); /* CGS2: twice is enough */
    if (hn < REORTH * w1) GS_CHECK(gs_vec_nrm2(w->V[j + 1], &hn));
    HH(w, j + 1, j) = hn;
    *happy = hn <= HAPPY * w0;
    if (!*happy) GS_CHECK(gs_vec_scal(1.0 / hn, w->V[j + 1]));
done:
    return st;
}

/* Apply the earlier rotations to column j, make and apply rotation j (to H and g).
 * Returns 0 when the least-squares problem is singular. */
static int givens(gmres_ws *w, int j)
{
    for (int i = 0; i < j; i++) {
        double a = HH(w, i, j), b = HH(w, i + 1, j);
        HH(w, i, j) = w->cs[i] * a + w->sn[i] * b;
        HH(w, i + 1, j) = -w->sn[i] * a + w->cs[i] * b;
    }
    double a = HH(w, j, j), b = HH(w, j + 1, j), r = hypot(a, b);
    if (r == 0.0) return 0;
    w->cs[j] = a / r;
    w->sn[j] = b / r;
    HH(w, j, j) = r;
    HH(w, j + 1, j) = 0.0;
    w->g[j + 1] = -w->sn[j] * w->g[j];
    w->g[j] = w->cs[j] * w->g[j];
    return 1;
}

/* x += M^-1 V y (GMRES) or x += Z y (FGMRES), y = R^-1 g over the first nk columns */
static gs_status update_x(const gs_krylov_state *k, gmres_ws *w, int nk)
{
    gs_status st = GS_OK;
    for (int i = nk - 1; i >= 0; i--) {
        double s = w->g[i];
        for (int l = i + 1; l < nk; l++) s -= HH(w, i, l) * w->y[l];
        w->y[i] = s / HH(w, i, i);
    }
    if (w->flexible && k->M) {
        for (int i = 0; i < nk; i++) GS_CHECK(gs_vec_axpy(w->y[i], w->Z[i], k->x));
    } else if (!k->M) {
        for (int i = 0; i < nk; i++) GS_CHECK(gs_vec_axpy(w->y[i], w->V[i], k->x));
    } else if (nk > 0) {
        GS_CHECK(gs_vec_axpby(w->y[0], w->V[0], 0.0, w->u));
        for (int i = 1; i < nk; i++) GS_CHECK(gs_vec_axpy(w->y[i], w->V[i], w->u));
        GS_CHECK(gs_krylov_apply_M(k, w->u, w->Z[0]));
        GS_CHECK(gs_vec_axpy(1.0, w->Z[0], k->x));
    }
done:
    return st;
}

/* One restart cycle from the residual r = V[0] with norm beta; *it counts inner steps */
static gs_status cycle(gs_krylov_state *k, gmres_ws *w, double beta, int *it, int *out)
{
    gs_status st = GS_OK;
    int j = 0, happy = 0;
    *out = CYCLE_RESTART;
    GS_CHECK(gs_vec_scal(1.0 / beta, w->V[0]));
    w->g[0] = beta;
    for (int i = 1; i <= w->m; i++) w->g[i] = 0.0;
    for (j = 0; j < w->m && *it < k->p->max_iters; j++) {
        ++*it;
        GS_CHECK(arnoldi(k, w, j, &happy));
        if (!givens(w, j)) {
            k->res->iterations = *it;
            gs_krylov_end(k, GS_DIVERGED_BREAKDOWN,
                          "singular Hessenberg matrix at step %d: A M^-1 is singular on the "
                          "Krylov space",
                          *it);
            *out = CYCLE_END;
            break;
        }
        double rnorm = fabs(w->g[j + 1]);
        if (gs_krylov_step(k, *it, rnorm)) {
            *out = CYCLE_END;
            goto done; /* NaN/Inf: leave x as it was at the restart */
        }
        if (happy || gs_krylov_met(k, rnorm)) {
            *out = CYCLE_CLAIM;
            j++;
            break;
        }
        if (gs_krylov_stagnated(k, *it, rnorm)) {
            *out = CYCLE_END;
            j++;
            break;
        }
    }
    GS_CHECK(update_x(k, w, j));
done:
    return st;
}

/* Restart cycles until an ending; V[0] holds b - A x at each restart */
static gs_status outer(gs_krylov_state *k, gmres_ws *w)
{
    gs_status st = GS_OK;
    int it = 0, out = CYCLE_RESTART, ended = 0;
    double beta = 0.0;
    GS_CHECK(gs_krylov_residual(k, w->V[0], &beta));
    if (gs_krylov_start(k, beta)) goto done;
    for (;;) {
        if (it >= k->p->max_iters) {
            gs_krylov_max_iters(k);
            break;
        }
        GS_CHECK(cycle(k, w, beta, &it, &out));
        if (out == CYCLE_END) break;
        if (out == CYCLE_CLAIM) {
            GS_CHECK(gs_krylov_confirm(k, w->V[0], &ended));
            if (ended) break;
            beta = k->res->rnorm;
            continue;
        }
        GS_CHECK(gs_krylov_residual(k, w->V[0], &beta));
        k->res->rnorm = beta;
        if (!isfinite(beta)) {
            gs_krylov_end(k, GS_DIVERGED_NAN, "true residual norm %g at restart (step %d)", beta,
                          it);
            break;
        }
        if (gs_krylov_met(k, beta)) {
            gs_krylov_converged(k, beta);
            break;
        }
    }
done:
    return st;
}

gs_status gs_gmres_solve(gs_krylov_state *k, int flexible)
{
    gs_status st = GS_OK;
    gmres_ws w = {0};
    int64_t n = k->b->n;
    int m = (int64_t)k->p->restart < n ? k->p->restart : (int)n;
    GS_CHECK(ws_create(k, m > 0 ? m : 1, flexible, &w));
    GS_CHECK(outer(k, &w));
done:
    ws_free(&w);
    return st;
}

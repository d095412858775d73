/* gs_gmres.c: GMRES(m) with right preconditioning and FGMRES (flexible: Z_j = M^-1 V_j kept,
 * x += Z y), Arnoldi by classical Gram-Schmidt twice with the second sweep delayed by one step
 * (DCGS2, Bielich, Langou, Thomas, Swirydowicz, Yamazaki and Boman 2022): one fused reduction
 * per inner step, so one synchronization per step on a device; Givens rotations on the
 * Hessenberg matrix. The price of the delay: a step's residual norm is known one step later,
 * so a converged cycle has done one SpMV more than its Krylov dimension.
 *
 * The Krylov basis lives with the data (gs_vec on b->loc); the small dense work (Hessenberg,
 * rotations, g, y) lives on the host. Each restart starts from the true residual b - A x, which
 * is also how a claimed convergence is confirmed.
 */
#include <math.h>
#include <string.h>

#include "gs_krylov_impl.h"

#define HAPPY 1e-14 /* h_{j+1,j} <= HAPPY ||A z||: the Krylov space is invariant */

typedef struct gmres_ws {
    int m, flexible, nz;
    gs_vec **V; /* m + 1 basis vectors */
    gs_vec **Z; /* nz: m for FGMRES, 1 scratch for GMRES with M, 0 without */
    gs_vec *u;  /* V y before M^-1 is applied (GMRES with M) */
    double *H;  /* (m + 1) x m by columns; upper triangular R after the rotations */
    double *Hr; /* the same columns as Arnoldi makes them, before rotations */
    double *cs, *sn, *g, *y;
    double *d;  /* 2 (m + 1): the fused reduction of an Arnoldi step */
    double *vt; /* m + 1: V^T w of an Arnoldi step */
} gmres_ws;

#define HH(w, i, j) ((w)->H[(size_t)(j) * (size_t)((w)->m + 1) + (size_t)(i)])
#define HR(w, i, j) ((w)->Hr[(size_t)(j) * (size_t)((w)->m + 1) + (size_t)(i)])

enum { CYCLE_RESTART, CYCLE_CLAIM, CYCLE_END };

static void ws_free(gmres_ws *w)
{
    for (int i = 0; w->V && i <= w->m; i++) gs_vec_destroy(&w->V[i]);
    for (int i = 0; w->Z && i < w->nz; i++) gs_vec_destroy(&w->Z[i]);
    gs_vec_destroy(&w->u);
    double **arrs[] = {&w->H, &w->Hr, &w->cs, &w->sn, &w->g, &w->y, &w->d, &w->vt};
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
    GS_CHECK(gs_alloc_array(m1 * (size_t)m, sizeof(double), "GMRES Hessenberg", (void **)&w->Hr));
    /* below the subdiagonal stays zero: the Arnoldi step reads whole columns of Hr */
    memset(w->H, 0, m1 * (size_t)m * sizeof(double));
    memset(w->Hr, 0, m1 * (size_t)m * sizeof(double));
    GS_CHECK(gs_alloc_array((size_t)m, sizeof(double), "GMRES rotations", (void **)&w->cs));
    GS_CHECK(gs_alloc_array((size_t)m, sizeof(double), "GMRES rotations", (void **)&w->sn));
    GS_CHECK(gs_alloc_array(m1, sizeof(double), "GMRES rhs", (void **)&w->g));
    GS_CHECK(gs_alloc_array((size_t)m, sizeof(double), "GMRES solution", (void **)&w->y));
    GS_CHECK(gs_alloc_array(2 * m1, sizeof(double), "GMRES coefficients", (void **)&w->d));
    GS_CHECK(gs_alloc_array(m1, sizeof(double), "GMRES coefficients", (void **)&w->vt));
done:
    return st;
}

/* Arnoldi step j of DCGS2. On entry V[0..j-1] are orthonormal and V[j] is A M^-1 V[j-1] after
 * one classical Gram-Schmidt sweep, its coefficients in column j-1 of Hr (V[0] = r/beta when
 * j = 0). Unless `last`, w = A M^-1 V[j] goes into V[j+1]. One fused reduction gives
 * s = V[0..j-1].V[j], rho = V[j].V[j] and the projections of w; then V[j] is swept a second
 * time and normalised (alpha = sqrt(rho - s.s), by Pythagoras), which completes column j-1, and
 * w, rewritten in terms of the normalised V[j], gets its first sweep and becomes the new V[j+1].
 * *done_col: column j-1 is complete (j >= 1); *happy: the Krylov space is invariant. */
static gs_status dcgs2_step(const gs_krylov_state *k, gmres_ws *w, int j, int last, int *happy)
{
    gs_status st = GS_OK;
    const gs_vec *const *V = (const gs_vec *const *)w->V;
    double *d = w->d, *sv = w->y; /* d: 2 (j + 1) sums; sv: s (y is refilled by update_x) */
    double alpha = 1.0, t = 0.0;
    *happy = 0;
    if (!last) {
        const gs_vec *z = w->V[j];
        if (k->M) {
            gs_vec *zj = w->flexible ? w->Z[j] : w->Z[0];
            GS_CHECK(gs_krylov_apply_M(k, w->V[j], zj));
            z = zj;
        }
        GS_CHECK(gs_krylov_apply_A(k, z, w->V[j + 1]));
    }
    if (j == 0) { /* V[0] is normalised: only w's projection */
        GS_CHECK(gs_vec_mdot(1, V, w->V[1], d));
        t = d[0];
    } else {
        if (last)
            GS_CHECK(gs_vec_mdot(j + 1, V, w->V[j], d));
        else
            GS_CHECK(gs_vec_mdot2(j + 1, V, w->V[j], w->V[j + 1], d));
        double ss = 0.0, rho = d[j], col = 0.0;
        for (int i = 0; i < j; i++) {
            sv[i] = d[i];
            ss += d[i] * d[i];
        }
        GS_CHECK(gs_vec_maxpy(j, sv, V, w->V[j])); /* the second sweep of V[j] */
        if (rho - ss > 0.25 * rho)
            alpha = sqrt(rho - ss);
        else /* the first sweep cancelled badly: the norm exactly (one more reduction) */
            GS_CHECK(gs_vec_nrm2(w->V[j], &alpha));
        for (int i = 0; i < j; i++) {
            HR(w, i, j - 1) += sv[i];
            col += HR(w, i, j - 1) * HR(w, i, j - 1);
        }
        HR(w, j, j - 1) = alpha;
        *happy = alpha <= HAPPY * sqrt(col + alpha * alpha); /* ||A M^-1 V[j-1]|| */
        if (*happy || last) goto done;
        GS_CHECK(gs_vec_scal(1.0 / alpha, w->V[j]));
        if (w->flexible && k->M) { /* A Z[j] = A M^-1 V[j] for the normalised V[j] */
            GS_CHECK(gs_vec_maxpy(j, sv, (const gs_vec *const *)w->Z, w->Z[j]));
            GS_CHECK(gs_vec_scal(1.0 / alpha, w->Z[j]));
        }
        /* V[i].w: z_i for i < j, and (t - s.z) / alpha against the normalised V[j] */
        t = d[2 * j + 1];
        for (int i = 0; i < j; i++) t -= sv[i] * d[j + 1 + i];
        t /= alpha;
    }
    /* w = A M^-1 (alpha V[j] + V s): column j = (V^T w - H s) / alpha; V[j+1] = (w - V V^T w)
     * / alpha, its first sweep */
    double *vt = w->vt;
    for (int i = 0; i < j; i++) vt[i] = d[j + 1 + i];
    vt[j] = t;
    for (int i = 0; i <= j; i++) {
        double hs = 0.0;
        for (int l = 0; l < j; l++) hs += HR(w, i, l) * sv[l];
        HR(w, i, j) = (vt[i] - hs) / alpha;
    }
    HR(w, j + 1, j) = 0.0;
    GS_CHECK(gs_vec_maxpy(j + 1, vt, V, w->V[j + 1]));
    if (alpha != 1.0) GS_CHECK(gs_vec_scal(1.0 / alpha, w->V[j + 1]));
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

/* One restart cycle from the residual r = V[0] with norm beta; *it counts Krylov dimensions
 * (completed Hessenberg columns). Step j completes column j-1 and starts column j, unless the
 * cycle or the iteration budget ends there. */
static gs_status cycle(gs_krylov_state *k, gmres_ws *w, double beta, int *it, int *out)
{
    gs_status st = GS_OK;
    int nk = 0, happy = 0;
    *out = CYCLE_RESTART;
    GS_CHECK(gs_vec_scal(1.0 / beta, w->V[0]));
    w->g[0] = beta;
    for (int i = 1; i <= w->m; i++) w->g[i] = 0.0;
    for (int j = 0; j <= w->m; j++) {
        int last = j == w->m || (j > 0 && *it + 1 >= k->p->max_iters);
        GS_CHECK(dcgs2_step(k, w, j, last, &happy));
        if (j == 0) continue;
        nk = j; /* column j-1 is complete: rotate a copy */
        ++*it;
        for (int i = 0; i <= j; i++) HH(w, i, j - 1) = HR(w, i, j - 1);
        if (!givens(w, j - 1)) {
            k->res->iterations = *it;
            gs_krylov_end(k, GS_DIVERGED_BREAKDOWN,
                          "singular Hessenberg matrix at step %d: A M^-1 is singular on the "
                          "Krylov space",
                          *it);
            *out = CYCLE_END;
            nk = j - 1;
            break;
        }
        double rnorm = fabs(w->g[j]);
        if (gs_krylov_step(k, *it, rnorm)) {
            *out = CYCLE_END;
            if (k->res->reason == GS_STOPPED_INTERRUPTED) break; /* x gets this cycle's part */
            goto done; /* NaN/Inf: leave x as it was at the restart */
        }
        if (happy || gs_krylov_met(k, rnorm)) {
            *out = CYCLE_CLAIM;
            break;
        }
        if (gs_krylov_stagnated(k, *it, rnorm)) {
            *out = CYCLE_END;
            break;
        }
        if (last) break;
    }
    GS_CHECK(update_x(k, w, nk));
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

static gs_status gmres_solve(gs_krylov_state *k, int flexible)
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

static gs_status gmres_plain(gs_krylov_state *k) { return gmres_solve(k, 0); }
static gs_status gmres_flexible(gs_krylov_state *k) { return gmres_solve(k, 1); }

const gs_krylov_method gs_krylov_gmres = {
    .name = "gmres",
    .help = "GMRES(m), m = solver.restart, right preconditioning",
    .restarted = 1,
    .monotone = 1,
    .solve = gmres_plain,
};

const gs_krylov_method gs_krylov_fgmres = {
    .name = "fgmres",
    .help = "flexible GMRES(m) for a preconditioner that changes between applications",
    .restarted = 1,
    .monotone = 1,
    .solve = gmres_flexible,
};

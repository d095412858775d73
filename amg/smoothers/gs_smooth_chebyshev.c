/* gs_smooth_chebyshev.c: the Chebyshev polynomial in D^-1 A that damps [hi / r, hi], hi = 1.1
 * rho(D^-1 A) (the Lanczos estimate), of degree chebyshev_degree on levels 0 and 1 and
 * coarse_chebyshev_degree below where the level is cheap. */
#include <stdio.h>
#include <string.h>

#include "gs_smoother.h"

#define CHEB_COARSE_LEVEL 2 /* the first level of coarse_chebyshev_degree */
#define CHEB_CHEAP 0.1      /* ... where the level holds at most this share of level 0's entries */

/* Levels 0 and 1 hold most of the cycle's bytes (3D Poisson 7-point: 100% and 43% of level 0's
 * nonzeros), the levels below about 1% each, where a kernel costs its launch: a higher degree
 * there is cheap, and it makes up for the weak coarse correction of their large aggregates
 * (MIS(2) on a level-1 stencil of ~33 points: 70 rows per aggregate, then ~130 into the
 * coarsest level). A degree-d polynomial damps [hi / d^2, hi] to about 1/4 (1 / T_d(1 + 2 /
 * (d^2 - 1)) = 0.25 for d = 3 and 0.26 for d = 10), so the interval widens with the degree.
 * Classical AMG coarsens more slowly (spe10 at 1.5M rows: levels 2 and 3 hold 55% and 37% of level
 * 0's entries); a level above CHEB_CHEAP of them keeps chebyshev_degree (degree 10 there made the
 * solve 27 ms against 18 ms on the H200, for one iteration less). */
int gs_amg_level_degree(const gs_amg_params *p, int l, double share)
{
    l += p->first_level;
    return l >= CHEB_COARSE_LEVEL && p->coarse_chebyshev_degree > 0 && share <= CHEB_CHEAP
               ? p->coarse_chebyshev_degree
               : p->chebyshev_degree;
}

double gs_amg_level_ratio(const gs_amg_params *p, int degree)
{
    double d2 = (double)degree * degree;
    return p->chebyshev_ratio > d2 ? p->chebyshev_ratio : d2;
}

typedef struct cheb_state {
    int degree;
    double lo, hi;
} cheb_state;

/* the level's degree and interval */
static gs_status cheb_setup(const gs_smoother_level *L, void **state)
{
    gs_status st = GS_OK;
    cheb_state *s = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *s, "Chebyshev smoother", (void **)&s));
    s->degree = gs_amg_level_degree(L->p, L->level, L->share);
    s->hi = 1.1 * L->rho;
    s->lo = s->hi / gs_amg_level_ratio(L->p, s->degree);
    *state = s;
done:
    return st;
}

/* x = x + p(D^-1 A) D^-1 (b - A x) by the three-term recurrence, one SpMV a degree */
static gs_status cheb_apply(const void *state, const gs_smoother_level *L, const gs_vec *b,
                            gs_vec *x, int x_zero, int post)
{
    gs_status st = GS_OK;
    (void)post;
    const cheb_state *s = state;
    int64_t n = b->n;
    double theta = 0.5 * (s->hi + s->lo), delta = 0.5 * (s->hi - s->lo);
    double sigma = theta / delta, rho = 1.0 / sigma;
    for (int k = 0; k < s->degree; k++) {
        int xz = x_zero && k == 0;
        if (!xz) GS_CHECK(gs_spmat_spmv(L->MA, x, L->y));
        if (k == 0) {
            GS_CHECK(L->ops->smooth_step(n, L->dinv, b->data, xz ? NULL : L->y->data, 0.0,
                                         1.0 / theta, L->d->data, x->data, xz));
        } else {
            double rn = 1.0 / (2.0 * sigma - rho);
            GS_CHECK(L->ops->smooth_step(n, L->dinv, b->data, L->y->data, rn * rho,
                                         2.0 * rn / delta, L->d->data, x->data, 0));
            rho = rn;
        }
    }
done:
    return st;
}

/* the same on k columns */
static gs_status cheb_apply_block(const void *state, const gs_smoother_level *L, int k,
                                  const gs_vec *B, gs_vec *X, gs_vec *Y, gs_vec *D, int x_zero,
                                  int post)
{
    gs_status st = GS_OK;
    (void)post;
    const cheb_state *s = state;
    const int64_t n = L->A->rows;
    double theta = 0.5 * (s->hi + s->lo), delta = 0.5 * (s->hi - s->lo);
    double sigma = theta / delta, rho = 1.0 / sigma;
    for (int q = 0; q < s->degree; q++) {
        int xz = x_zero && q == 0;
        if (!xz) GS_CHECK(gs_block_spmm(L->A, k, X, Y));
        if (q == 0) {
            GS_CHECK(gs_block_smooth(n, k, L->dinv, B, xz ? NULL : Y, 0.0, 1.0 / theta, D, X, xz));
        } else {
            double rn = 1.0 / (2.0 * sigma - rho);
            GS_CHECK(gs_block_smooth(n, k, L->dinv, B, Y, rn * rho, 2.0 * rn / delta, D, X, 0));
            rho = rn;
        }
    }
done:
    return st;
}

/* degree SpMVs and steps a sweep; from x = 0 the first without its SpMV */
static double cheb_bytes(const void *state, const gs_smoother_level *L, int x_zero)
{
    const cheb_state *s = state;
    return gs_smoother_jacobi_bytes(L, x_zero) +
           (double)(s->degree - 1) * gs_smoother_jacobi_bytes(L, 0);
}

static void cheb_destroy(void *state, const gs_backend_ops *be)
{
    (void)be;
    gs_free(state);
}

/* ", Chebyshev degree 3 on [hi/30, hi], small levels >= 2: 10 on [hi/100, hi]" (small: at most
 * CHEB_CHEAP of level 0's entries) */
static void cheb_describe(const gs_amg_params *p, int nlev, char *buf, size_t len)
{
    int d0 = gs_amg_level_degree(p, 0, 1.0), dc = gs_amg_level_degree(p, CHEB_COARSE_LEVEL, 0.0);
    size_t n = (size_t)snprintf(buf, len, ", Chebyshev degree %d on [hi/%g, hi]", d0,
                                gs_amg_level_ratio(p, d0));
    if (dc != d0 && nlev > CHEB_COARSE_LEVEL + 1 && n < len)
        snprintf(buf + n, len - n, ", small levels >= %d: %d on [hi/%g, hi]", CHEB_COARSE_LEVEL, dc,
                 gs_amg_level_ratio(p, dc));
}

const gs_smoother gs_smoother_chebyshev = {
    .name = "chebyshev",
    .label = "Chebyshev",
    .help = "Chebyshev polynomial in D^-1 A (amg.chebyshev_degree, amg.coarse_chebyshev_degree, "
            "amg.chebyshev_ratio)",
    .setup = cheb_setup,
    .apply = cheb_apply,
    .destroy = cheb_destroy,
    .apply_block = cheb_apply_block,
    .bytes = cheb_bytes,
    .describe = cheb_describe,
};

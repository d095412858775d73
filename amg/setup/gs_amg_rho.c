/* gs_amg_rho.c: rho(D^-1 A), the spectral radius the smoothers and the prolongator smoothing
 * scale by, from a few Lanczos steps on D^-1/2 A D^-1/2. */
#include <math.h>

#include "gs_amg_internal.h"

/* the largest eigenvalue of the symmetric tridiagonal (a, b) of order m, by bisection on the
 * Sturm count */
static double tridiag_max(const double *a, const double *b, int m)
{
    double lo = a[0], hi = a[0];
    for (int i = 0; i < m; i++) {
        double r = (i > 0 ? fabs(b[i - 1]) : 0.0) + (i + 1 < m ? fabs(b[i]) : 0.0);
        if (a[i] - r < lo) lo = a[i] - r;
        if (a[i] + r > hi) hi = a[i] + r;
    }
    for (int it = 0; it < 100; it++) {
        double x = 0.5 * (lo + hi), q = 1.0;
        int below = 0; /* eigenvalues below x */
        for (int i = 0; i < m; i++) {
            q = a[i] - x - (i > 0 ? b[i - 1] * b[i - 1] / q : 0.0);
            if (q == 0.0) q = -1e-300;
            if (q < 0) below++;
        }
        if (below == m)
            hi = x;
        else
            lo = x;
    }
    return hi;
}

/* Lanczos on D^-1/2 A D^-1/2 from a hashed random start: per step one scaled SpMV, one
 * two-dot reduction (the only synchronization) and one three-term update. With M (A in its
 * SpMV format, the finest level's: a CDS stencil runs at twice the CSR speed) the scaled SpMV
 * is M's SpMV of t = s .* v, which the update also writes, and one product by s. */
gs_status gs_amg_estimate_rho(gs_amg *amg, const gs_csr *A, const gs_spmat *M,
                              const double *sqrt_dinv, double *rho)
{
    return gs_amg_estimate_rho_steps(amg, A, M, sqrt_dinv, GS_AMG_RHO_STEPS, rho, NULL);
}

gs_status gs_amg_estimate_rho_steps(gs_amg *amg, const gs_csr *A, const gs_spmat *M,
                                    const double *sqrt_dinv, int steps, double *rho,
                                    double *rho_short)
{
    gs_status st = GS_OK;
    int32_t n = A->rows;
    gs_vec *v = NULL, *w = NULL, *vp = NULL, *t = NULL;
    const gs_vec s = {n, (double *)sqrt_dinv, amg->loc, GS_F64};
    double al[GS_AMG_RHO_STEPS] = {0}, be[GS_AMG_RHO_STEPS] = {0}, beta = 0.0, nrm;
    int m = 0;
    if (steps < 1 || steps > GS_AMG_RHO_STEPS) steps = GS_AMG_RHO_STEPS;
    GS_CHECK(gs_vec_create(n, amg->loc, &v));
    GS_CHECK(gs_vec_create(n, amg->loc, &w));
    GS_CHECK(gs_vec_create(n, amg->loc, &vp));
    GS_CHECK(gs_vec_fill(0.0, vp));
    GS_CHECK(amg->ops->fill_random(n, 12345u, v->data));
    GS_CHECK(gs_vec_nrm2(v, &nrm));
    if (nrm == 0.0) {
        *rho = 0.0;
        if (rho_short) *rho_short = 0.0;
        goto done;
    }
    GS_CHECK(gs_vec_scal(1.0 / nrm, v));
    if (M) {
        GS_CHECK(gs_vec_create(n, amg->loc, &t));
        GS_CHECK(gs_vec_pmul(&s, v, t));
    }
    const int64_t dim = amg->rho_rows > 0 ? amg->rho_rows : n;
    for (int j = 0; j < steps && j < dim; j++) {
        if (M) {
            GS_CHECK(gs_spmat_spmv(M, t, w));
            GS_CHECK(gs_vec_pmul(&s, w, w));
        } else {
            GS_CHECK(amg->ops->scaled_spmv(A, sqrt_dinv, v->data, w->data));
        }
        const gs_vec *xs[2] = {w, w}, *ys[2] = {v, w};
        double dd[2];
        GS_CHECK(gs_vec_dots(2, xs, ys, dd)); /* alpha = w.v, ||w||^2 in one reduction */
        double alpha = dd[0];
        /* ||w - alpha v - beta vp||^2 = ||w||^2 - alpha^2 - beta^2 for orthonormal v, vp */
        double b2 = dd[1] - alpha * alpha - beta * beta;
        al[m] = alpha;
        m++;
        if (!(b2 > 1e-12 * dd[1])) break; /* an invariant subspace (or rounding): T is exact */
        double bn = sqrt(b2);
        /* the next basis vector into vp, then v and vp swap roles */
        GS_CHECK(amg->ops->lanczos_update(n, w->data, v->data, alpha, beta, 1.0 / bn, vp->data,
                                          sqrt_dinv, t ? t->data : NULL));
        gs_vec *tmp = vp;
        vp = v;
        v = tmp;
        beta = bn;
        be[m - 1] = beta;
    }
    *rho = tridiag_max(al, be, m);
    if (rho_short) *rho_short = m >= GS_AMG_RHO_SHORT ? tridiag_max(al, be, GS_AMG_RHO_SHORT) : 0.0;
done:
    gs_vec_destroy(&v);
    gs_vec_destroy(&w);
    gs_vec_destroy(&vp);
    gs_vec_destroy(&t);
    return st;
}

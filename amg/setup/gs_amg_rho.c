/* gs_amg_rho.c: rho(D^-1 A), the spectral radius the smoothers and the prolongator smoothing
 * scale by, from a few Lanczos steps on D^-1/2 A D^-1/2. */
#include <math.h>
#include <string.h>

#include "gs_amg_internal.h"

#define LANCZOS_STEPS 12

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

/* one operator's Lanczos: its basis vectors, t = s .* v for M's SpMV, the tridiagonal so far */
typedef struct {
    const gs_csr *A;
    const gs_spmat *M;
    const double *sq;
    gs_vec *v, *w, *vp, *t;
    double al[LANCZOS_STEPS], be[LANCZOS_STEPS], beta;
    int m, live;
} lanczos;

static void lanczos_free(lanczos *z)
{
    gs_vec_destroy(&z->v);
    gs_vec_destroy(&z->w);
    gs_vec_destroy(&z->vp);
    gs_vec_destroy(&z->t);
}

/* Lanczos on D^-1/2 A D^-1/2 from a hashed random start: per step one scaled SpMV, one
 * two-dot reduction (the only synchronization) and one three-term update. With M (A in its
 * SpMV form, the finest level's: a CDS stencil runs at twice the CSR speed) the scaled SpMV
 * is M's SpMV of t = s .* v, which the update also writes, and one product by s. Several
 * operators (of one size) step together: their SpMVs, then one reduction of all their dots,
 * which across MPI ranks is one synchronization a step for all of them. */
gs_status gs_amg_estimate_rhos(gs_amg *amg, int k, const gs_csr *const *A,
                               const gs_spmat *const *M, const double *const *sqrt_dinv,
                               double *rho)
{
    gs_status st = GS_OK;
    lanczos z[2];
    double nrm[2];
    int32_t n = A[0]->rows;
    memset(z, 0, sizeof z);
    if (k < 1 || k > 2) return GS_ERROR(GS_ERR_INTERNAL, "rho: %d operators at once", k);
    for (int i = 0; i < k; i++) {
        z[i].A = A[i], z[i].M = M[i], z[i].sq = sqrt_dinv[i];
        rho[i] = 0.0;
        GS_CHECK(gs_vec_create(n, amg->loc, &z[i].v));
        GS_CHECK(gs_vec_create(n, amg->loc, &z[i].w));
        GS_CHECK(gs_vec_create(n, amg->loc, &z[i].vp));
        GS_CHECK(gs_vec_fill(0.0, z[i].vp));
        GS_CHECK(amg->ops->fill_random(n, 12345u, z[i].v->data));
    }
    for (int i = 0; i < k; i++) {
        GS_CHECK(gs_vec_nrm2(z[i].v, &nrm[i]));
        z[i].live = nrm[i] > 0.0;
        if (!z[i].live) continue;
        GS_CHECK(gs_vec_scal(1.0 / nrm[i], z[i].v));
        if (z[i].M) {
            const gs_vec s = {n, (double *)z[i].sq, amg->loc};
            GS_CHECK(gs_vec_create(n, amg->loc, &z[i].t));
            GS_CHECK(gs_vec_pmul(&s, z[i].v, z[i].t));
        }
    }
    const int64_t dim = amg->rho_rows > 0 ? amg->rho_rows : n;
    for (int j = 0; j < LANCZOS_STEPS && j < dim; j++) {
        const gs_vec *xs[4], *ys[4];
        double dd[4];
        int nd = 0, on[2];
        for (int i = 0; i < k; i++) {
            lanczos *q = &z[i];
            if (!q->live) continue;
            if (q->M) {
                const gs_vec s = {n, (double *)q->sq, amg->loc};
                GS_CHECK(gs_spmat_spmv(q->M, q->t, q->w));
                GS_CHECK(gs_vec_pmul(&s, q->w, q->w));
            } else {
                GS_CHECK(amg->ops->scaled_spmv(q->A, q->sq, q->v->data, q->w->data));
            }
            /* alpha = w.v, ||w||^2 */
            xs[nd] = q->w, ys[nd] = q->v, xs[nd + 1] = q->w, ys[nd + 1] = q->w;
            on[nd / 2] = i;
            nd += 2;
        }
        if (nd == 0) break;
        GS_CHECK(gs_vec_dots(nd, xs, ys, dd)); /* every operator's in one reduction */
        for (int c = 0; c < nd / 2; c++) {
            lanczos *q = &z[on[c]];
            double alpha = dd[2 * c];
            /* ||w - alpha v - beta vp||^2 = ||w||^2 - alpha^2 - beta^2 for orthonormal v, vp */
            double b2 = dd[2 * c + 1] - alpha * alpha - q->beta * q->beta;
            q->al[q->m] = alpha;
            q->m++;
            if (!(b2 > 1e-12 * dd[2 * c + 1])) { /* an invariant subspace (or rounding) */
                q->live = 0;
                continue;
            }
            double bn = sqrt(b2);
            /* the next basis vector into vp, then v and vp swap roles */
            GS_CHECK(amg->ops->lanczos_update(n, q->w->data, q->v->data, alpha, q->beta,
                                              1.0 / bn, q->vp->data, q->sq,
                                              q->t ? q->t->data : NULL));
            gs_vec *tmp = q->vp;
            q->vp = q->v;
            q->v = tmp;
            q->beta = bn;
            q->be[q->m - 1] = bn;
        }
    }
    for (int i = 0; i < k; i++) rho[i] = z[i].m > 0 ? tridiag_max(z[i].al, z[i].be, z[i].m) : 0.0;
done:
    for (int i = 0; i < k; i++) lanczos_free(&z[i]);
    return st;
}

gs_status gs_amg_estimate_rho(gs_amg *amg, const gs_csr *A, const gs_spmat *M,
                              const double *sqrt_dinv, double *rho)
{
    return gs_amg_estimate_rhos(amg, 1, &A, &M, &sqrt_dinv, rho);
}

/* gs_backend_host.c: the host backend, plain C11 loops (OpenMP where it pays). */
#include <math.h>
#include <string.h>

#include "gs_backend.h"

#define OMP_MIN 50000 /* below this, threads cost more than they save */

static gs_status host_alloc(size_t bytes, const char *what, void **out)
{
    return gs_alloc_array(bytes, 1, what, out);
}

static void host_free(void *p)
{
    gs_free(p);
}

static gs_status host_fill(double a, gs_vec *x)
{
    double *v = x->data;
#pragma omp parallel for schedule(static) if (x->n > OMP_MIN)
    for (int64_t i = 0; i < x->n; i++) v[i] = a;
    return GS_OK;
}

/* out = x.y with a fixed blocking so the sum does not depend on the thread count */
static gs_status host_dot(const gs_vec *x, const gs_vec *y, double *out)
{
    const double *a = x->data, *b = y->data;
    const int64_t n = x->n, blk = 4096;
    const int64_t nb = (n + blk - 1) / blk;
    double s = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : s) if (n > OMP_MIN)
    for (int64_t q = 0; q < nb; q++) {
        double t = 0.0;
        int64_t e = (q + 1) * blk < n ? (q + 1) * blk : n;
        for (int64_t i = q * blk; i < e; i++) t += a[i] * b[i];
        s += t;
    }
    *out = s;
    return GS_OK;
}

static gs_status host_axpby(double a, const gs_vec *x, double b, gs_vec *y)
{
    const double *xv = x->data;
    double *yv = y->data;
    if (b == 0.0) {
#pragma omp parallel for schedule(static) if (x->n > OMP_MIN)
        for (int64_t i = 0; i < x->n; i++) yv[i] = a * xv[i];
    } else if (b == 1.0) {
#pragma omp parallel for schedule(static) if (x->n > OMP_MIN)
        for (int64_t i = 0; i < x->n; i++) yv[i] += a * xv[i];
    } else {
#pragma omp parallel for schedule(static) if (x->n > OMP_MIN)
        for (int64_t i = 0; i < x->n; i++) yv[i] = a * xv[i] + b * yv[i];
    }
    return GS_OK;
}

/* dst = src, bytes (every direction is a copy in host memory) */
static gs_status host_bytes(void *dst, const void *src, size_t bytes)
{
    if (bytes && dst != src) memcpy(dst, src, bytes);
    return GS_OK;
}

static gs_status host_copy(const gs_vec *x, gs_vec *y)
{
    if (x != y) memcpy(y->data, x->data, (size_t)x->n * sizeof(double));
    return GS_OK;
}

static gs_status host_pmul(const gs_vec *d, const gs_vec *x, gs_vec *y)
{
    const double *dv = d->data, *xv = x->data;
    double *yv = y->data;
#pragma omp parallel for schedule(static) if (x->n > OMP_MIN)
    for (int64_t i = 0; i < x->n; i++) yv[i] = dv[i] * xv[i];
    return GS_OK;
}

static gs_status host_all_finite(const gs_vec *x, int *out)
{
    int ok = 1;
    for (int64_t i = 0; i < x->n && ok; i++) ok = isfinite(x->data[i]);
    *out = ok;
    return GS_OK;
}

static gs_status host_csr_spmv(const gs_csr *A, const gs_vec *x, gs_vec *y)
{
    gs_csr_spmv_host(A, x->data, y->data);
    return GS_OK;
}

/* out[i] = x[i].y[i] in one pass, blocked like host_dot so sums do not depend on threads */
static gs_status host_dots(int k, const gs_vec *const *x, const gs_vec *const *y, double *out)
{
    const int64_t n = x[0]->n, blk = 4096, nb = (n + blk - 1) / blk;
    double s[GS_MAX_DOTS] = {0};
    for (int i = 0; i < k; i++) s[i] = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : s[:GS_MAX_DOTS]) if (n > OMP_MIN)
    for (int64_t q = 0; q < nb; q++) {
        int64_t e = (q + 1) * blk < n ? (q + 1) * blk : n;
        for (int i = 0; i < k; i++) {
            const double *a = x[i]->data, *b = y[i]->data;
            double t = 0.0;
            for (int64_t j = q * blk; j < e; j++) t += a[j] * b[j];
            s[i] += t;
        }
    }
    for (int i = 0; i < k; i++) out[i] = s[i];
    return GS_OK;
}

/* p = u + beta p, s = w + beta s, x += alpha p, r -= alpha s, one pass */
static gs_status host_cg_update(double alpha, double beta, const gs_vec *u, const gs_vec *w,
                                gs_vec *p, gs_vec *s, gs_vec *x, gs_vec *r)
{
    const double *uv = u->data, *wv = w->data;
    double *pv = p->data, *sv = s->data, *xv = x->data, *rv = r->data;
#pragma omp parallel for schedule(static) if (x->n > OMP_MIN)
    for (int64_t i = 0; i < x->n; i++) {
        double pi = uv[i] + beta * pv[i], si = wv[i] + beta * sv[i];
        pv[i] = pi;
        sv[i] = si;
        xv[i] += alpha * pi;
        rv[i] -= alpha * si;
    }
    return GS_OK;
}

/* out[i] = V[i].w, blocked like host_dot */
static gs_status host_mdot(int k, const gs_vec *const *V, const gs_vec *w, double *out)
{
    for (int i = 0; i < k; i++) host_dot(V[i], w, &out[i]);
    return GS_OK;
}

/* out[i] = V[i].a, out[k + i] = V[i].b */
static gs_status host_mdot2(int k, const gs_vec *const *V, const gs_vec *a, const gs_vec *b,
                            double *out)
{
    for (int i = 0; i < k; i++) {
        host_dot(V[i], a, &out[i]);
        host_dot(V[i], b, &out[k + i]);
    }
    return GS_OK;
}

/* y -= sum_i c[i] V[i] */
static gs_status host_maxpy(int k, const double *c, const gs_vec *const *V, gs_vec *y)
{
    double *yv = y->data;
#pragma omp parallel for schedule(static) if (y->n > OMP_MIN)
    for (int64_t j = 0; j < y->n; j++) {
        double t = yv[j];
        for (int i = 0; i < k; i++) t -= c[i] * V[i]->data[j];
        yv[j] = t;
    }
    return GS_OK;
}

/* y = A x, then the dots (the host gains nothing from fusing; same results as separate) */
static gs_status host_csr_spmv_dots(const gs_csr *A, const gs_vec *x, gs_vec *y, int k,
                                    const gs_vec *const *a, const gs_vec *const *b, double *out)
{
    gs_csr_spmv_host(A, x->data, y->data);
    return host_dots(k, a, b, out);
}

static gs_status host_csr_copy(const gs_csr *A, gs_csr **out) { return gs_csr_copy(A, out); }

static gs_status host_csr_upload(const gs_csr *A, gs_status (*meanwhile)(void *), void *arg,
                                 gs_csr **out)
{
    gs_status st = meanwhile ? meanwhile(arg) : GS_OK;
    return st == GS_OK ? gs_csr_copy(A, out) : st;
}

static void host_csr_free(gs_csr *A)
{
    gs_free(A->rowptr);
    gs_free(A->colind);
    gs_free(A->val);
    A->rowptr = A->colind = NULL;
    A->val = NULL;
}

static gs_status host_sync(void) { return GS_OK; }

static gs_status host_gather(int64_t n, const int32_t *idx, const double *x, double *out)
{
    for (int64_t i = 0; i < n; i++) out[i] = x[idx[i]];
    return GS_OK;
}

/* ---- blocks: k columns held row by row (gs_vec.h's gs_block_*) ---- */

static gs_status host_block_spmm(const gs_csr *A, int k, const double *X, double *Y)
{
#pragma omp parallel for schedule(static) if (A->rows > 20000)
    for (int32_t i = 0; i < A->rows; i++) {
        double s[GS_BLOCK_MAX];
        for (int c = 0; c < k; c++) s[c] = 0.0;
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            const double a = A->val[q];
            const double *x = X + (int64_t)A->colind[q] * k;
            for (int c = 0; c < k; c++) s[c] += a * x[c];
        }
        for (int c = 0; c < k; c++) Y[(int64_t)i * k + c] = s[c];
    }
    return GS_OK;
}

static gs_status host_block_dots(int64_t n, int k, int m, const double *const *X,
                                 const double *const *Y, double *out)
{
    for (int j = 0; j < m; j++)
        for (int c = 0; c < k; c++) {
            double s = 0.0;
#pragma omp parallel for reduction(+ : s) schedule(static) if (n > 20000)
            for (int64_t i = 0; i < n; i++) s += X[j][i * k + c] * Y[j][i * k + c];
            out[j * k + c] = s;
        }
    return GS_OK;
}

static gs_status host_block_axpby(int64_t n, int k, const double *a, const double *X,
                                  const double *b, double *Y)
{
#pragma omp parallel for schedule(static) if (n > 20000)
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < k; c++) {
            const int64_t e = i * k + c;
            Y[e] = b[c] == 0.0 ? a[c] * X[e] : a[c] * X[e] + b[c] * Y[e];
        }
    return GS_OK;
}

static gs_status host_block_smooth(int64_t n, int k, const double *dinv, const double *B,
                                   const double *Yv, double a, double c, double *D, double *X,
                                   int x_zero)
{
#pragma omp parallel for schedule(static) if (n > 20000)
    for (int64_t i = 0; i < n; i++)
        for (int col = 0; col < k; col++) {
            const int64_t e = i * k + col;
            const double r = dinv[i] * (B[e] - (Yv ? Yv[e] : 0.0));
            const double d = a != 0.0 ? a * D[e] + c * r : c * r;
            D[e] = d;
            X[e] = x_zero ? d : X[e] + d;
        }
    return GS_OK;
}

static gs_status host_block_pack(int64_t n, int k, const double *cols, double *X, int unpack)
{
#pragma omp parallel for schedule(static) if (n > 20000)
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < k; c++) {
            if (unpack) ((double *)cols)[(int64_t)c * n + i] = X[i * k + c];
            else X[i * k + c] = cols[(int64_t)c * n + i];
        }
    return GS_OK;
}

const gs_backend_ops gs_backend_host_ops = {
    .name = "host",
    .alloc = host_alloc,
    .free = host_free,
    .fill = host_fill,
    .dot = host_dot,
    .axpby = host_axpby,
    .copy = host_copy,
    .pmul = host_pmul,
    .all_finite = host_all_finite,
    .dots = host_dots,
    .cg_update = host_cg_update,
    .mdot = host_mdot,
    .maxpy = host_maxpy,
    .csr_spmv_dots = host_csr_spmv_dots,
    .csr_spmv = host_csr_spmv,
    .csr_spmv_own = host_csr_spmv,
    .block_spmm = host_block_spmm,
    .block_dots = host_block_dots,
    .block_axpby = host_block_axpby,
    .block_smooth = host_block_smooth,
    .block_pack = host_block_pack,
    .csr_upload = host_csr_upload,
    .csr_free = host_csr_free,
    .sync = host_sync,
    .mdot2 = host_mdot2,
    .csr_download = host_csr_copy, /* a copy either way */
    .put = host_bytes,
    .get = host_bytes,
    .move = host_bytes,
    .gather = host_gather,
};

/* gs_vec.c: vectors and their operations, dispatched on location. */
#include "gs_vec.h"

#include <math.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_buf.h"

static gs_status ops_for(gs_loc loc, gs_dtype type, const gs_backend_ops **out)
{
    *out = gs_backend_for(loc, type);
    if (!*out && type != GS_F64)
        return GS_ERROR(GS_ERR_UNSUPPORTED, "vectors of value type %d have no kernels", (int)type);
    if (!*out)
        return GS_ERROR(GS_ERR_UNSUPPORTED, "no backend for %s data in this build",
                        loc == GS_LOC_HOST ? "host" : "device");
    return GS_OK;
}

static gs_vec_reduce_fn g_reduce;
static int g_local;

void gs_vec_set_reduce(gs_vec_reduce_fn fn) { g_reduce = fn; }
void gs_vec_local_begin(void) { g_local++; }
void gs_vec_local_end(void) { g_local--; }

/* the local results of a reduction summed over the processes (when distributed) */
static gs_status reduce(gs_status st, double *v, int k)
{
    if (!g_reduce || g_local > 0) return st;
    return g_reduce(st, v, k);
}

/* the table of vector v (its location and value type) */
#define OPS_V(v)                                                                                   \
    const gs_backend_ops *ops;                                                                     \
    gs_status ops_st_ = ops_for((v)->loc, (v)->type, &ops);                                        \
    if (ops_st_ != GS_OK) return ops_st_

gs_status gs_vec_create(int64_t n, gs_loc loc, gs_vec **out)
{
    gs_status st = GS_OK;
    gs_vec *x = NULL;
    *out = NULL;
    const gs_vec shape = {.n = n, .loc = loc, .type = GS_F64};
    OPS_V(&shape);
    GS_CHECK(gs_alloc_array(1, sizeof *x, "vector", (void **)&x));
    *x = shape;
    x->data = NULL;
    st = ops->alloc((size_t)(n > 0 ? n : 1) * sizeof(double), "vector values", (void **)&x->data);
    if (st != GS_OK) {
        gs_free(x);
        x = NULL;
        GS_CHECK(st);
    }
    GS_CHECK(ops->fill(0.0, x));
    *out = x;
    x = NULL;
done:
    gs_vec_destroy(&x);
    return st;
}

void gs_vec_destroy(gs_vec **x)
{
    if (!x || !*x) return;
    const gs_backend_ops *ops = gs_backend_get((*x)->loc);
    if (ops) ops->free((*x)->data);
    gs_free(*x);
    *x = NULL;
}

gs_status gs_vec_dot(const gs_vec *x, const gs_vec *y, double *out)
{
    OPS_V(x);
    return reduce(ops->dot(x, y, out), out, 1);
}

gs_status gs_vec_nrm2(const gs_vec *x, double *out)
{
    OPS_V(x);
    double d = 0.0;
    gs_status st = reduce(ops->dot(x, x, &d), &d, 1);
    *out = sqrt(d);
    return st;
}

gs_status gs_vec_axpy(double a, const gs_vec *x, gs_vec *y)
{
    OPS_V(x);
    return ops->axpby(a, x, 1.0, y);
}

gs_status gs_vec_axpby(double a, const gs_vec *x, double b, gs_vec *y)
{
    OPS_V(x);
    return ops->axpby(a, x, b, y);
}

gs_status gs_vec_copy(const gs_vec *x, gs_vec *y)
{
    OPS_V(x);
    return ops->copy(x, y);
}

gs_status gs_vec_fill(double a, gs_vec *x)
{
    OPS_V(x);
    return ops->fill(a, x);
}

gs_status gs_vec_scal(double a, gs_vec *x)
{
    OPS_V(x);
    return ops->axpby(0.0, x, a, x);
}

gs_status gs_vec_pmul(const gs_vec *d, const gs_vec *x, gs_vec *y)
{
    OPS_V(x);
    return ops->pmul(d, x, y);
}

gs_status gs_vec_dots(int k, const gs_vec *const *x, const gs_vec *const *y, double *out)
{
    if (k < 1 || k > GS_MAX_DOTS)
        return GS_ERROR(GS_ERR_ARG, "gs_vec_dots: %d products, expected 1..%d", k, GS_MAX_DOTS);
    OPS_V(x[0]);
    return reduce(ops->dots(k, x, y, out), out, k);
}

gs_status gs_vec_cg_update(double alpha, double beta, const gs_vec *u, const gs_vec *w,
                           gs_vec *p, gs_vec *s, gs_vec *x, gs_vec *r)
{
    OPS_V(x);
    return ops->cg_update(alpha, beta, u, w, p, s, x, r);
}

gs_status gs_vec_mdot(int k, const gs_vec *const *V, const gs_vec *w, double *out)
{
    if (k < 1) return GS_ERROR(GS_ERR_ARG, "gs_vec_mdot: %d vectors, expected >= 1", k);
    OPS_V(w);
    return reduce(ops->mdot(k, V, w, out), out, k);
}

gs_status gs_vec_mdot2(int k, const gs_vec *const *V, const gs_vec *a, const gs_vec *b,
                       double *out)
{
    if (k < 1) return GS_ERROR(GS_ERR_ARG, "gs_vec_mdot2: %d vectors, expected >= 1", k);
    OPS_V(a);
    return reduce(ops->mdot2(k, V, a, b, out), out, 2 * k);
}

gs_status gs_vec_maxpy(int k, const double *c, const gs_vec *const *V, gs_vec *y)
{
    if (k < 1) return GS_OK;
    OPS_V(y);
    return ops->maxpy(k, c, V, y);
}

gs_status gs_vec_all_finite(const gs_vec *x, int *out)
{
    OPS_V(x);
    gs_status st = ops->all_finite(x, out);
    double bad = *out ? 0.0 : 1.0; /* finite everywhere: no process holds a bad entry */
    st = reduce(st, &bad, 1);
    *out = bad == 0.0;
    return st;
}

/* both through gs_buf_copy, the one copy between locations */
gs_status gs_vec_set_host(gs_vec *x, const double *src)
{
    OPS_V(x);
    (void)ops;
    if (x->n <= 0) return GS_OK;
    const gs_buf from = {(void *)src, x->n, GS_F64, GS_LOC_HOST};
    gs_buf to = {x->data, x->n, GS_F64, x->loc};
    return gs_buf_copy(&from, &to);
}

gs_status gs_vec_get_host(const gs_vec *x, double *dst)
{
    OPS_V(x);
    (void)ops;
    if (x->n <= 0) return GS_OK;
    const gs_buf from = {x->data, x->n, GS_F64, x->loc};
    gs_buf to = {dst, x->n, GS_F64, GS_LOC_HOST};
    return gs_buf_copy(&from, &to);
}

/* ---- blocks ---- */

static gs_status block_check(int k, const char *who)
{
    if (k < 1 || k > GS_BLOCK_MAX)
        return GS_ERROR(GS_ERR_ARG, "%s: %d columns, expected 1..%d", who, k, GS_BLOCK_MAX);
    return GS_OK;
}

gs_status gs_block_spmm(const gs_csr *A, int k, const gs_vec *X, gs_vec *Y)
{
    gs_status st = block_check(k, "gs_block_spmm");
    if (st != GS_OK) return st;
    if (X->n != (int64_t)A->cols * k || Y->n != (int64_t)A->rows * k)
        return GS_ERROR(GS_ERR_ARG, "gs_block_spmm: %d x %d matrix, %d columns, X of %lld values "
                        "and Y of %lld", A->rows, A->cols, k, (long long)X->n, (long long)Y->n);
    if (A->loc != X->loc || A->loc != Y->loc)
        return GS_ERROR(GS_ERR_ARG, "gs_block_spmm: matrix and blocks live in different places");
    OPS_V(X);
    return ops->block_spmm(A, k, X->data, Y->data);
}

gs_status gs_block_dots(int64_t n, int k, int m, const gs_vec *const *X, const gs_vec *const *Y,
                        double *out)
{
    const double *x[3], *y[3];
    gs_status st = block_check(k, "gs_block_dots");
    if (st != GS_OK) return st;
    if (m < 1 || m > 3) return GS_ERROR(GS_ERR_ARG, "gs_block_dots: %d pairs, expected 1..3", m);
    for (int j = 0; j < m; j++) x[j] = X[j]->data, y[j] = Y[j]->data;
    OPS_V(X[0]);
    return reduce(ops->block_dots(n, k, m, x, y, out), out, m * k);
}

gs_status gs_block_axpby(int64_t n, int k, const double *a, const gs_vec *X, const double *b,
                         gs_vec *Y)
{
    gs_status st = block_check(k, "gs_block_axpby");
    if (st != GS_OK) return st;
    OPS_V(Y);
    return ops->block_axpby(n, k, a, X->data, b, Y->data);
}

gs_status gs_block_smooth(int64_t n, int k, const double *dinv, const gs_vec *B, const gs_vec *Y,
                          double a, double c, gs_vec *D, gs_vec *X, int x_zero)
{
    gs_status st = block_check(k, "gs_block_smooth");
    if (st != GS_OK) return st;
    OPS_V(X);
    return ops->block_smooth(n, k, dinv, B->data, Y ? Y->data : NULL, a, c, D->data, X->data,
                             x_zero);
}

gs_status gs_block_pack(int64_t n, int k, gs_vec *cols, gs_vec *X, int unpack)
{
    gs_status st = block_check(k, "gs_block_pack");
    if (st != GS_OK) return st;
    if (cols->n != n * k || X->n != n * k || cols->loc != X->loc)
        return GS_ERROR(GS_ERR_ARG, "gs_block_pack: %lld and %lld values for %lld x %d",
                        (long long)cols->n, (long long)X->n, (long long)n, k);
    OPS_V(X);
    return ops->block_pack(n, k, cols->data, X->data, unpack);
}

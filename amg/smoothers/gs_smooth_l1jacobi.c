/* gs_smooth_l1jacobi.c: l1-Jacobi, x = x + D_l1^-1 (b - A x) with D_l1 = diag(sum_j |a_ij|):
 * convergent without a damping factor for any symmetric positive definite A. */
#include "gs_smoother.h"

typedef struct l1_state {
    double *dinv; /* 1 / sum_j |a_ij| at the level's location */
} l1_state;

static void l1_destroy(void *state, const gs_backend_ops *be)
{
    l1_state *s = state;
    if (!s) return;
    if (s->dinv) be->free(s->dinv);
    gs_free(s);
}

gs_status gs_smoother_l1_dinv(const gs_smoother_level *L, double **dinv)
{
    gs_status st = GS_OK;
    int64_t bad = 0, first = -1;
    double *d = NULL;
    GS_CHECK(L->be->alloc(((size_t)L->A->rows + 1) * sizeof(double), "AMG l1 diagonal",
                          (void **)&d));
    GS_CHECK(L->ops->diag_inv(L->A, 1, d, NULL, &bad, &first));
    *dinv = d;
    d = NULL;
done:
    if (d) L->be->free(d);
    return st;
}

/* the l1 row sums' inverses where A lives */
static gs_status l1_setup(const gs_smoother_level *L, void **state)
{
    gs_status st = GS_OK;
    l1_state *s = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *s, "l1-Jacobi smoother", (void **)&s));
    s->dinv = NULL;
    GS_CHECK(gs_smoother_l1_dinv(L, &s->dinv));
    *state = s;
    s = NULL;
done:
    l1_destroy(s, L->be);
    return st;
}

/* x = x + D_l1^-1 (b - A x) */
static gs_status l1_apply(const void *state, const gs_smoother_level *L, const gs_vec *b,
                          gs_vec *x, int x_zero, int post)
{
    const l1_state *s = state;
    (void)post;
    return gs_smoother_jacobi_sweep(L, s->dinv, 1.0, b, x, x_zero);
}

static gs_status l1_apply_block(const void *state, const gs_smoother_level *L, int k,
                                const gs_vec *B, gs_vec *X, gs_vec *Y, gs_vec *D, int x_zero,
                                int post)
{
    const l1_state *s = state;
    (void)post;
    return gs_smoother_jacobi_sweep_block(L, s->dinv, 1.0, k, B, X, Y, D, x_zero);
}

static double l1_bytes(const void *state, const gs_smoother_level *L, int x_zero)
{
    (void)state;
    return gs_smoother_jacobi_bytes(L, x_zero);
}

const gs_smoother gs_smoother_l1jacobi = {
    .name = "l1jacobi",
    .label = "l1-Jacobi",
    .help = "l1-Jacobi: D^-1 replaced by 1 / sum_j |a_ij|, no damping factor",
    .whole_rows = 1,
    .setup = l1_setup,
    .apply = l1_apply,
    .destroy = l1_destroy,
    .apply_block = l1_apply_block,
    .bytes = l1_bytes,
};

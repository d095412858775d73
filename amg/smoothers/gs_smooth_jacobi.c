/* gs_smooth_jacobi.c: weighted Jacobi, x = x + omega D^-1 (b - A x), omega = amg.smoother_omega
 * or 4/3 / rho(D^-1 A). */
#include "gs_mem.h"
#include "gs_smoother.h"

typedef struct jacobi_state {
    double omega;
} jacobi_state;

/* omega from the key, else 4/3 / rho (0 when rho is 0: the sweep changes nothing) */
static gs_status jacobi_setup(const gs_smoother_level *L, void **state)
{
    gs_status st = GS_OK;
    jacobi_state *s = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *s, "Jacobi smoother", (void **)&s));
    s->omega = L->p->smoother_omega > 0 ? L->p->smoother_omega
               : L->rho > 0             ? (4.0 / 3.0) / L->rho
                                        : 0.0;
    *state = s;
done:
    return st;
}

gs_status gs_smoother_jacobi_sweep(const gs_smoother_level *L, const double *dinv, double w,
                                   const gs_vec *b, gs_vec *x, int x_zero)
{
    gs_status st = GS_OK;
    if (!x_zero) GS_CHECK(gs_spmat_spmv(L->MA, x, L->y));
    GS_CHECK(L->ops->smooth_step(b->n, dinv, b->data, x_zero ? NULL : L->y->data, 0.0, w,
                                 L->d->data, x->data, x_zero));
done:
    return st;
}

gs_status gs_smoother_jacobi_sweep_block(const gs_smoother_level *L, const double *dinv, double w,
                                         int k, const gs_vec *B, gs_vec *X, gs_vec *Y, gs_vec *D,
                                         int x_zero)
{
    gs_status st = GS_OK;
    if (!x_zero) GS_CHECK(gs_block_spmm(L->A, k, X, Y));
    GS_CHECK(gs_block_smooth(L->A->rows, k, dinv, B, x_zero ? NULL : Y, 0.0, w, D, X, x_zero));
done:
    return st;
}

double gs_smoother_jacobi_bytes(const gs_smoother_level *L, int x_zero)
{
    const double n = (double)L->A->rows;
    return x_zero ? 4.0 * 8.0 * n : gs_spmat_bytes(L->MA) + 7.0 * 8.0 * n;
}

static double jacobi_bytes(const void *state, const gs_smoother_level *L, int x_zero)
{
    (void)state;
    return gs_smoother_jacobi_bytes(L, x_zero);
}

static gs_status jacobi_apply_block(const void *state, const gs_smoother_level *L, int k,
                                    const gs_vec *B, gs_vec *X, gs_vec *Y, gs_vec *D, int x_zero,
                                    int post)
{
    const jacobi_state *s = state;
    (void)post;
    return gs_smoother_jacobi_sweep_block(L, L->dinv, s->omega, k, B, X, Y, D, x_zero);
}

/* x = x + omega D^-1 (b - A x) */
static gs_status jacobi_apply(const void *state, const gs_smoother_level *L, const gs_vec *b,
                              gs_vec *x, int x_zero, int post)
{
    const jacobi_state *s = state;
    (void)post;
    return gs_smoother_jacobi_sweep(L, L->dinv, s->omega, b, x, x_zero);
}

static void jacobi_destroy(void *state, const gs_backend_ops *be)
{
    (void)be;
    gs_free(state);
}

const gs_smoother gs_smoother_jacobi = {
    .name = "jacobi",
    .label = "weighted Jacobi",
    .help = "weighted Jacobi, omega = amg.smoother_omega or 4/3 / rho(D^-1 A)",
    .setup = jacobi_setup,
    .apply = jacobi_apply,
    .destroy = jacobi_destroy,
    .apply_block = jacobi_apply_block,
    .bytes = jacobi_bytes,
};

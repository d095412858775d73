/* gs_smooth_gs.c: two-stage Gauss-Seidel. A sweep is x = x + g with g an approximation of
 * (D + L)^-1 r, r = b - A x (L the strictly lower part of A, D the l1 diagonal sum_j |a_ij|),
 * from inner Jacobi steps on the triangular system: g_0 = D^-1 r, g_k = D^-1 (r - L g_(k-1)).
 * With a_ii in D the sweep diverges on matrices far from M-matrices (SUPG, P1 on unstructured
 * meshes); the l1 diagonal keeps it convergent. Pre-smoothing sweeps go forward (D + L),
 * post-smoothing sweeps backward (D + U): for a symmetric A the V-cycle stays symmetric. Every
 * step reads only the previous g, so rows are independent (the GPU runs them in parallel and
 * gives the host's result). Under MPI the triangles are the rank's own block and D sums the
 * whole rows (hybrid Gauss-Seidel). */
#include "gs_mem.h"
#include "gs_smoother.h"

enum { GS_INNER = 1 }; /* the inner Jacobi steps after g_0 */

typedef struct gs_state {
    double *g;    /* the other iterate of the inner steps, at the level's location */
    double *dinv; /* 1 / sum_j |a_ij| */
} gs_state;

static void gs_destroy(void *state, const gs_backend_ops *be)
{
    gs_state *s = state;
    if (!s) return;
    if (s->g) be->free(s->g);
    if (s->dinv) be->free(s->dinv);
    gs_free(s);
}

static gs_status gs_setup(const gs_smoother_level *L, void **state)
{
    gs_status st = GS_OK;
    gs_state *s = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *s, "Gauss-Seidel smoother", (void **)&s));
    s->g = s->dinv = NULL;
    GS_CHECK(L->be->alloc(((size_t)L->A->rows + 1) * sizeof(double), "AMG Gauss-Seidel iterate",
                          (void **)&s->g));
    GS_CHECK(gs_smoother_l1_dinv(L, &s->dinv));
    *state = s;
    s = NULL;
done:
    gs_destroy(s, L->be);
    return st;
}

/* x = x + g, g = (I - D^-1 T)^k D^-1 r summed as the inner steps, T = L (post: U) */
static gs_status gs_apply(const void *state, const gs_smoother_level *L, const gs_vec *b, gs_vec *x,
                          int x_zero, int post)
{
    gs_status st = GS_OK;
    const gs_state *s = state;
    const double *y = NULL;
    double *g[2] = {L->d->data, s->g};
    if (!x_zero) {
        GS_CHECK(gs_spmat_spmv(L->MA, x, L->y));
        y = L->y->data;
    }
    GS_CHECK(L->ops->gs_stage(L->A, post, s->dinv, b->data, y, NULL, g[0], NULL, 0));
    for (int k = 1; k <= GS_INNER; k++) {
        const int last = k == GS_INNER;
        GS_CHECK(L->ops->gs_stage(L->A, post, s->dinv, b->data, y, g[(k - 1) % 2],
                                  last ? NULL : g[k % 2], last ? x->data : NULL, x_zero));
    }
done:
    return st;
}

const gs_smoother gs_smoother_gs = {
    .name = "gs",
    .label = "two-stage Gauss-Seidel",
    .help = "two-stage Gauss-Seidel with the l1 diagonal: (D + L)^-1 by an inner Jacobi "
            "step, forward before the coarse correction and backward after it",
    .whole_rows = 1,
    .reads_csr = 1,
    .setup = gs_setup,
    .apply = gs_apply,
    .destroy = gs_destroy,
};

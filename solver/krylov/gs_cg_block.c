/* gs_cg_block.c: preconditioned conjugate gradients on k right-hand sides at once (gs_krylov.h,
 * gs_cg_block): k independent CG recurrences advanced together, so that each iteration's
 * products with A and M are block products (every matrix read once for all columns) and the
 * dot products of all columns share one reduction. Each column has its own scalars and stops at
 * its own tolerance: a finished column's step lengths are zero from then on. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_krylov.h"

#define COLS GS_BLOCK_MAX

/* column c ends with reason r (and its detail) */
static void end_col(gs_krylov_result *res, int *active, int c, gs_reason r, const char *what,
                    double v, int it)
{
    active[c] = 0;
    res[c].reason = r;
    if (what) snprintf(res[c].detail, sizeof res[c].detail, "%s = %.3e at iteration %d", what, v, it);
}

/* the reason of a column whose residual reached its goal */
static gs_reason reached(const gs_krylov_params *p, const gs_krylov_result *r)
{
    return r->rnorm <= p->rtol * r->bnorm ? GS_CONVERGED_RTOL : GS_CONVERGED_ATOL;
}

/* Y = A X or M^-1 X (M NULL: Y = X) */
static gs_status apply(const gs_block_op *op, int k, const gs_vec *X, gs_vec *Y)
{
    if (op) return op->apply(op->ctx, k, X, Y);
    return gs_vec_copy(X, Y);
}

gs_status gs_cg_block(const gs_krylov_params *p, int64_t n, int k, const gs_block_op *A,
                      const gs_block_op *M, const gs_vec *B, gs_vec *X, gs_krylov_result *res)
{
    gs_status st = GS_OK;
    gs_vec *R = NULL, *Z = NULL, *P = NULL, *W = NULL;
    int active[COLS], left = 0;
    double one[COLS], mone[COLS], zero[COLS], alpha[COLS], malpha[COLS], beta[COLS];
    double rz[COLS], g[3 * COLS], goal[COLS];
    if (k < 1 || k > COLS)
        return GS_ERROR(GS_ERR_ARG, "block CG: %d right-hand sides, expected 1..%d", k, COLS);
    if (B->n != n * k || X->n != n * k)
        return GS_ERROR(GS_ERR_ARG, "block CG: blocks of %lld and %lld values for %lld rows x %d",
                        (long long)B->n, (long long)X->n, (long long)n, k);
    memset(res, 0, (size_t)k * sizeof *res);
    for (int c = 0; c < k; c++) one[c] = 1.0, mone[c] = -1.0, zero[c] = 0.0;
    GS_CHECK(gs_vec_create(n * k, X->loc, &R));
    GS_CHECK(gs_vec_create(n * k, X->loc, &Z));
    GS_CHECK(gs_vec_create(n * k, X->loc, &P));
    GS_CHECK(gs_vec_create(n * k, X->loc, &W));
    { /* ||b|| per column, then r = b - A x */
        const gs_vec *xs[1] = {B}, *ys[1] = {B};
        GS_CHECK(gs_block_dots(n, k, 1, xs, ys, g));
    }
    GS_CHECK(apply(A, k, X, R));
    GS_CHECK(gs_block_axpby(n, k, one, B, mone, R));
    GS_CHECK(apply(M, k, R, Z));
    for (int c = 0; c < k; c++) {
        res[c].bnorm = sqrt(g[c]);
        goal[c] = fmax(p->rtol * res[c].bnorm, p->atol);
        active[c] = 1;
    }
    {
        const gs_vec *xs[2] = {R, R}, *ys[2] = {Z, R};
        GS_CHECK(gs_block_dots(n, k, 2, xs, ys, g));
    }
    for (int c = 0; c < k; c++) {
        rz[c] = g[c];
        res[c].rnorm0 = res[c].rnorm = sqrt(g[k + c]);
        if (res[c].bnorm == 0.0) { /* x = 0 is exact */
            end_col(res, active, c, GS_CONVERGED_ZERO_RHS, NULL, 0, 0);
        } else if (res[c].rnorm <= goal[c]) {
            end_col(res, active, c, reached(p, &res[c]), NULL, 0, 0);
        } else if (!isfinite(rz[c]) || rz[c] <= 0.0) {
            end_col(res, active, c, rz[c] < 0 ? GS_DIVERGED_INDEFINITE_PC : GS_DIVERGED_BREAKDOWN,
                    "r.z", rz[c], 0);
        }
    }
    { /* b = 0 columns: x = 0 */
        double keep[COLS];
        int any = 0;
        for (int c = 0; c < k; c++) keep[c] = res[c].bnorm == 0.0 ? 0.0 : 1.0, any |= keep[c] == 0.0;
        if (any) GS_CHECK(gs_block_axpby(n, k, zero, X, keep, X));
    }
    GS_CHECK(gs_vec_copy(Z, P));
    for (int c = 0; c < k; c++) left += active[c];
    for (int it = 1; left > 0 && it <= p->max_iters; it++) {
        if (p->interrupt && *p->interrupt) {
            for (int c = 0; c < k; c++)
                if (active[c]) end_col(res, active, c, GS_STOPPED_INTERRUPTED, NULL, 0, it - 1);
            break;
        }
        GS_CHECK(apply(A, k, P, W));
        {
            const gs_vec *xs[1] = {P}, *ys[1] = {W};
            GS_CHECK(gs_block_dots(n, k, 1, xs, ys, g));
        }
        for (int c = 0; c < k; c++) {
            alpha[c] = 0.0;
            if (!active[c]) continue;
            if (!isfinite(g[c]) || g[c] <= 0.0)
                end_col(res, active, c, isfinite(g[c]) ? GS_DIVERGED_INDEFINITE_MATRIX
                                                       : GS_DIVERGED_NAN, "p.Ap", g[c], it);
            else
                alpha[c] = rz[c] / g[c];
        }
        for (int c = 0; c < k; c++) malpha[c] = -alpha[c];
        GS_CHECK(gs_block_axpby(n, k, alpha, P, one, X));
        GS_CHECK(gs_block_axpby(n, k, malpha, W, one, R));
        GS_CHECK(apply(M, k, R, Z));
        {
            const gs_vec *xs[2] = {R, R}, *ys[2] = {Z, R};
            GS_CHECK(gs_block_dots(n, k, 2, xs, ys, g));
        }
        for (int c = 0; c < k; c++) {
            beta[c] = 0.0;
            if (!active[c]) continue;
            res[c].iterations = it;
            res[c].rnorm = sqrt(g[k + c]);
            if (!isfinite(res[c].rnorm)) {
                end_col(res, active, c, GS_DIVERGED_NAN, "||r||", res[c].rnorm, it);
            } else if (res[c].rnorm <= goal[c]) {
                end_col(res, active, c, reached(p, &res[c]), NULL, 0, it);
            } else if (p->dtol > 0 && res[c].rnorm > p->dtol * res[c].rnorm0) {
                end_col(res, active, c, GS_DIVERGED_DTOL, "||r||", res[c].rnorm, it);
            } else if (!isfinite(g[c]) || g[c] <= 0.0) {
                end_col(res, active, c, g[c] < 0 ? GS_DIVERGED_INDEFINITE_PC
                                                 : GS_DIVERGED_BREAKDOWN, "r.z", g[c], it);
            } else {
                beta[c] = g[c] / rz[c];
                rz[c] = g[c];
            }
        }
        GS_CHECK(gs_block_axpby(n, k, one, Z, beta, P));
        left = 0;
        for (int c = 0; c < k; c++) left += active[c];
    }
    for (int c = 0; c < k; c++)
        if (active[c]) end_col(res, active, c, GS_DIVERGED_MAX_ITERS, NULL, 0, p->max_iters);
done:
    gs_vec_destroy(&R);
    gs_vec_destroy(&Z);
    gs_vec_destroy(&P);
    gs_vec_destroy(&W);
    return st;
}

/* gs_amg_cycle_block.c: the V or W cycle on k columns at once (gs_amg_apply_block): the
 * cycle of gs_amg_cycle.c with blocks (gs_vec.h) in place of vectors, every product a block
 * product over the level's CSR (A, P, R, the coarsest inverse), so each matrix is read once for
 * all k columns. */
#include <string.h>

#include "gs_amg_internal.h"

int gs_amg_has_block(const gs_amg *amg)
{
    return amg && amg->nlev > 0 && !amg->tail.solve && amg->p.smoother &&
           amg->p.smoother->apply_block;
}

/* the levels' block vectors for k columns (made anew when k grows) */
static gs_status block_vectors(gs_amg *amg, int k)
{
    gs_status st = GS_OK;
    if (amg->block_k >= k) return GS_OK;
    for (int l = 0; l < amg->nlev; l++) {
        gs_amg_level *L = &amg->lev[l];
        const int64_t n = (int64_t)L->A->rows * k;
        gs_vec **v[5] = {&L->kx, &L->kb, &L->kr, &L->ky, &L->kd};
        for (int i = 0; i < 5; i++) {
            gs_vec_destroy(v[i]);
            if (l == 0 && i < 2) continue; /* level 0's are the caller's */
            GS_CHECK(gs_vec_create(n, amg->loc, v[i]));
        }
    }
    amg->block_k = k;
done:
    return st;
}

/* a block view of k columns of a level's n rows on the block vector v (which may hold more) */
static gs_vec view(const gs_vec *v, int64_t n, int k)
{
    gs_vec w = *v;
    w.n = n * k;
    return w;
}

static gs_status smooth(gs_amg *amg, int l, int k, const gs_vec *B, gs_vec *X, int x_zero,
                        int sweeps, int post)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[l];
    const int64_t n = L->A->rows;
    gs_vec Y = view(L->ky, n, k), D = view(L->kd, n, k);
    for (int s = 0; s < sweeps; s++, x_zero = 0)
        GS_CHECK(amg->p.smoother->apply_block(L->smooth, &L->sl, k, B, X, &Y, &D, x_zero, post));
done:
    return st;
}

static gs_status cycle(gs_amg *amg, int l, int k, const gs_vec *B, gs_vec *X, int x_zero)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[l];
    const int64_t n = L->A->rows;
    double one[GS_BLOCK_MAX], mone[GS_BLOCK_MAX], zero[GS_BLOCK_MAX];
    for (int c = 0; c < k; c++) one[c] = 1.0, mone[c] = -1.0, zero[c] = 0.0;
    if (l == amg->nlev - 1) {
        if (amg->cinv) return gs_block_spmm(amg->cinv, k, B, X);
        for (int s = 0; s < 8 && st == GS_OK; s++, x_zero = 0) /* as the one-vector cycle */
            st = smooth(amg, l, k, B, X, x_zero, 1, s % 2);
        return st;
    }
    gs_amg_level *C = &amg->lev[l + 1];
    const int64_t nc = C->A->rows;
    gs_vec R = view(L->kr, n, k), Y = view(L->ky, n, k);
    gs_vec CB = view(C->kb, nc, k), CX = view(C->kx, nc, k);
    const int pre = amg->p.presweeps;
    GS_CHECK(smooth(amg, l, k, B, X, x_zero, pre, 0));
    if (pre == 0 && x_zero) {
        GS_CHECK(gs_block_spmm(L->R, k, B, &CB));
    } else {
        GS_CHECK(gs_block_spmm(L->A, k, X, &R));
        GS_CHECK(gs_block_axpby(n, k, one, B, mone, &R)); /* R = B - A X */
        GS_CHECK(gs_block_spmm(L->R, k, &R, &CB));
    }
    GS_CHECK(cycle(amg, l + 1, k, &CB, &CX, 1));
    if (amg->p.cycle_w && l + 1 < amg->nlev - 1) GS_CHECK(cycle(amg, l + 1, k, &CB, &CX, 0));
    GS_CHECK(gs_block_spmm(L->P, k, &CX, &Y));
    GS_CHECK(gs_block_axpby(n, k, one, &Y, pre == 0 && x_zero ? zero : one, X));
    GS_CHECK(smooth(amg, l, k, B, X, 0, amg->p.postsweeps, 1));
done:
    return st;
}

gs_status gs_amg_apply_block(gs_amg *amg, int k, const gs_vec *R, gs_vec *Z)
{
    if (amg->p.drop_csr)
        return GS_ERROR(GS_ERR_ARG, "amg: this hierarchy freed its CSR copies after the setup "
                        "(amg drop_csr: one solve of one vector); a block cycle needs them");
    if (amg->tail.solve)
        return GS_ERROR(GS_ERR_UNSUPPORTED, "amg: the block cycle runs on one process; across "
                        "MPI ranks the columns are solved one at a time");
    gs_status st = GS_OK;
    if (!gs_amg_has_block(amg))
        return GS_ERROR(GS_ERR_UNSUPPORTED, "amg: the smoother %s has no block form",
                        amg && amg->p.smoother ? amg->p.smoother->name : "?");
    if (k < 1 || k > GS_BLOCK_MAX)
        return GS_ERROR(GS_ERR_ARG, "amg: %d columns, expected 1..%d", k, GS_BLOCK_MAX);
    const int64_t n = amg->lev[0].A->rows;
    if (R->n != n * k || Z->n != n * k)
        return GS_ERROR(GS_ERR_ARG, "amg: blocks of %lld and %lld values for %lld rows x %d",
                        (long long)R->n, (long long)Z->n, (long long)n, k);
    GS_CHECK(block_vectors(amg, k));
    GS_CHECK(cycle(amg, 0, k, R, Z, 1));
done:
    return st;
}

/* gs_amg_cycle.c: the V or W cycle over the hierarchy, replayed as a CUDA graph on the device
 * (recorded once per pair of vectors), and the preconditioner as an operator. */
#include <string.h>

#include "gs_amg_internal.h"
#include "gs_time.h"

const char *const gs_amg_prof_op_names[GS_PROF_OPS] = {"smoother", "residual", "restriction",
                                                       "prolongation", "coarse solve"};

void gs_amg_profile_enable(gs_amg *amg, int on)
{
    amg->profiling = on;
    memset(&amg->prof, 0, sizeof amg->prof);
    amg->prof.levels = amg->nlev;
}

const gs_amg_profile *gs_amg_get_profile(const gs_amg *amg) { return &amg->prof; }

/* profiling: the time now, the backend's work done (0 when not profiling) */
static double prof_now(const gs_amg *amg)
{
    if (!amg->profiling) return 0.0;
    (void)amg->be->sync();
    return gs_time_now();
}

static void prof_add(gs_amg *amg, int l, gs_amg_prof_op op, double t0, double bytes)
{
    if (!amg->profiling) return;
    amg->prof.seconds[l][op] += prof_now(amg) - t0;
    amg->prof.calls[l][op]++;
    amg->prof.bytes[l][op] += bytes;
}

/* bytes of `sweeps` sweeps of level l's smoother, the first from x = 0 when x_zero (0: not
 * counted) */
static double smooth_bytes(const gs_amg *amg, int l, int sweeps, int x_zero)
{
    const gs_amg_level *L = &amg->lev[l];
    if (!amg->profiling || !amg->p.smoother->bytes || !L->smooth || sweeps < 1) return 0.0;
    return amg->p.smoother->bytes(L->smooth, &L->sl, x_zero) +
           (sweeps - 1) * amg->p.smoother->bytes(L->smooth, &L->sl, 0);
}

/* sweeps of the level's smoother on A x = b; x_zero: x is zero on entry (not read); post: the
 * post-smoothing (an ordered smoother's backward sweeps) */
static gs_status smooth(gs_amg *amg, int l, const gs_vec *b, gs_vec *x, int x_zero, int sweeps,
                        int post)
{
    gs_status st = GS_OK;
    const gs_amg_level *L = &amg->lev[l];
    double t0 = prof_now(amg), bytes = smooth_bytes(amg, l, sweeps, x_zero);
    for (int s = 0; s < sweeps; s++, x_zero = 0)
        GS_CHECK(amg->p.smoother->apply(L->smooth, &L->sl, b, x, x_zero, post));
    if (sweeps > 0) prof_add(amg, l, GS_PROF_SMOOTH, t0, bytes);
done:
    return st;
}

static gs_status cycle(gs_amg *amg, int l, const gs_vec *b, gs_vec *x, int x_zero)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[l];
    double t0 = prof_now(amg);
    if (l == amg->nlev - 1) {
        const double cb = amg->Mc ? gs_spmat_bytes(amg->Mc) : smooth_bytes(amg, l, 8, x_zero);
        if (amg->Mc)
            st = gs_spmat_spmv(amg->Mc, b, x);
        else /* 8 sweeps, forward and backward in turn, counted as the coarse solve */
            for (int s = 0; s < 8 && st == GS_OK; s++, x_zero = 0)
                st = amg->p.smoother->apply(L->smooth, &L->sl, b, x, x_zero, s % 2);
        prof_add(amg, l, GS_PROF_COARSE, t0, amg->profiling ? cb : 0.0);
        return st;
    }
    gs_amg_level *C = &amg->lev[l + 1];
    int pre = amg->p.presweeps;
    GS_CHECK(smooth(amg, l, b, x, x_zero, pre, 0));
    if (pre == 0 && x_zero) {
        t0 = prof_now(amg);
        GS_CHECK(gs_spmat_spmv(L->MR, b, C->b));
        prof_add(amg, l, GS_PROF_RESTRICT, t0, amg->profiling ? gs_spmat_bytes(L->MR) : 0.0);
    } else {
        t0 = prof_now(amg);
        GS_CHECK(gs_spmat_spmv(L->MA, x, L->r));
        GS_CHECK(gs_vec_axpby(1.0, b, -1.0, L->r));
        prof_add(amg, l, GS_PROF_RESIDUAL, t0,
                 amg->profiling ? gs_spmat_bytes(L->MA) + 3.0 * 8.0 * (double)L->A->rows : 0.0);
        t0 = prof_now(amg);
        GS_CHECK(gs_spmat_spmv(L->MR, L->r, C->b));
        prof_add(amg, l, GS_PROF_RESTRICT, t0, amg->profiling ? gs_spmat_bytes(L->MR) : 0.0);
    }
    GS_CHECK(cycle(amg, l + 1, C->b, C->x, 1));
    if (amg->p.cycle_w && l + 1 < amg->nlev - 1) GS_CHECK(cycle(amg, l + 1, C->b, C->x, 0));
    t0 = prof_now(amg);
    GS_CHECK(gs_spmat_spmv(L->MP, C->x, L->y));
    if (pre == 0 && x_zero)
        GS_CHECK(gs_vec_copy(L->y, x));
    else
        GS_CHECK(gs_vec_axpy(1.0, L->y, x));
    prof_add(amg, l, GS_PROF_PROLONG, t0,
             amg->profiling ? gs_spmat_bytes(L->MP) + 8.0 * (double)L->A->rows *
                                                       (pre == 0 && x_zero ? 2.0 : 3.0)
                            : 0.0);
    GS_CHECK(smooth(amg, l, b, x, 0, amg->p.postsweeps, 1));
done:
    return st;
}

#define GRAPH_MAX_CAPTURES 3 /* vector pairs recorded before the plain cycle is kept */

gs_status gs_amg_apply(gs_amg *amg, const gs_vec *r, gs_vec *z)
{
    gs_status st = GS_OK;
    const gs_amg_ops *ops = amg->ops;
    if (!ops->graph_begin || amg->graph_off || amg->profiling) return cycle(amg, 0, r, z, 1);
    if (!amg->graph || amg->graph_r != r->data || amg->graph_z != z->data) {
        /* a new pair: record the cycle's kernels once (nothing runs while recording) */
        ops->graph_destroy(amg->graph);
        amg->graph = NULL;
        if (++amg->graph_captures > GRAPH_MAX_CAPTURES) {
            amg->graph_off = 1;
            return cycle(amg, 0, r, z, 1);
        }
        st = ops->graph_begin();
        if (st == GS_OK) {
            gs_status sc = cycle(amg, 0, r, z, 1);
            st = ops->graph_end(&amg->graph);
            if (sc != GS_OK) st = sc;
        }
        amg->graph_r = r->data;
        amg->graph_z = z->data;
    }
    if (st == GS_OK) st = ops->graph_launch(amg->graph);
    if (st != GS_OK) { /* not recorded, or refused on replay: the plain cycle from now on (a
                        * sticky device fault fails it again and is returned) */
        gs_error_clear();
        ops->graph_destroy(amg->graph);
        amg->graph = NULL;
        amg->graph_off = 1;
        return cycle(amg, 0, r, z, 1);
    }
    return GS_OK;
}

static gs_status linop_apply(void *ctx, const gs_vec *x, gs_vec *y)
{
    return gs_amg_apply(ctx, x, y);
}

gs_linop gs_amg_linop(gs_amg *amg)
{
    gs_linop op = {amg->lev[0].A->rows, amg, linop_apply, NULL};
    return op;
}

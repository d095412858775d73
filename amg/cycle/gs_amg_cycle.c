/* gs_amg_cycle.c: the V or W cycle over the hierarchy, on one process or across MPI ranks
 * (whose levels' products exchange halos, the coarsest level the gathered tail), replayed as
 * CUDA graphs on the device (recorded once per pair of vectors), and the preconditioner as an
 * operator. */
#include <string.h>

#include "gs_amg_internal.h"
#include "gs_comm.h"
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

/* the coarsest level's solve: its dense inverse, 8 smoothing sweeps (forward and backward in
 * turn), or across ranks the gathered tail */
static gs_status coarse(gs_amg *amg, const gs_vec *b, gs_vec *x, int x_zero)
{
    gs_status st = GS_OK;
    const int l = amg->nlev - 1;
    const gs_amg_level *L = &amg->lev[l];
    double t0 = prof_now(amg), cb = 0.0;
    if (amg->tail.solve) {
        st = amg->tail.solve(amg->tail.ctx, b, x, amg->recording);
    } else if (amg->Mc) {
        cb = gs_spmat_bytes(amg->Mc);
        st = gs_spmat_spmv(amg->Mc, b, x);
    } else {
        cb = smooth_bytes(amg, l, 8, x_zero);
        for (int s = 0; s < 8 && st == GS_OK; s++, x_zero = 0)
            st = amg->p.smoother->apply(L->smooth, &L->sl, b, x, x_zero, s % 2);
    }
    prof_add(amg, l, GS_PROF_COARSE, t0, amg->profiling ? cb : 0.0);
    return st;
}

/* level l's way down: its pre-smoothing of x (zero on entry when x_zero) and the restriction of
 * its residual into the next level's b */
static gs_status down(gs_amg *amg, int l, const gs_vec *b, gs_vec *x, int x_zero)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[l], *C = &amg->lev[l + 1];
    const int pre = amg->p.presweeps;
    double t0;
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
done:
    return st;
}

/* level l's way up: the next level's correction prolongated into x (x_zero: x was zero when
 * the level began, and no pre-smoothing changed it) and the post-smoothing */
static gs_status up(gs_amg *amg, int l, const gs_vec *b, gs_vec *x, int x_zero)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[l], *C = &amg->lev[l + 1];
    const int fresh = amg->p.presweeps == 0 && x_zero;
    double t0 = prof_now(amg);
    GS_CHECK(gs_spmat_spmv(L->MP, C->x, L->y));
    if (fresh)
        GS_CHECK(gs_vec_copy(L->y, x));
    else
        GS_CHECK(gs_vec_axpy(1.0, L->y, x));
    prof_add(amg, l, GS_PROF_PROLONG, t0,
             amg->profiling ? gs_spmat_bytes(L->MP) + 8.0 * (double)L->A->rows *
                                                       (fresh ? 2.0 : 3.0)
                            : 0.0);
    GS_CHECK(smooth(amg, l, b, x, 0, amg->p.postsweeps, 1));
done:
    return st;
}

static gs_status cycle(gs_amg *amg, int l, const gs_vec *b, gs_vec *x, int x_zero)
{
    gs_status st = GS_OK;
    if (l == amg->nlev - 1) return coarse(amg, b, x, x_zero);
    gs_amg_level *C = &amg->lev[l + 1];
    GS_CHECK(down(amg, l, b, x, x_zero));
    GS_CHECK(cycle(amg, l + 1, C->b, C->x, 1));
    if (amg->p.cycle_w && l + 1 < amg->nlev - 1) GS_CHECK(cycle(amg, l + 1, C->b, C->x, 0));
    GS_CHECK(up(amg, l, b, x, x_zero));
done:
    return st;
}

/* the V cycle's way down every level above the coarsest (each x starts at zero), and back up:
 * recorded as two graphs where the coarsest level's solve cannot be recorded */
static gs_status down_all(gs_amg *amg, const gs_vec *r, gs_vec *z)
{
    gs_status st = GS_OK;
    for (int l = 0; l < amg->nlev - 1; l++)
        GS_CHECK(down(amg, l, l ? amg->lev[l].b : r, l ? amg->lev[l].x : z, 1));
done:
    return st;
}

static gs_status up_all(gs_amg *amg, const gs_vec *r, gs_vec *z)
{
    gs_status st = GS_OK;
    for (int l = amg->nlev - 2; l >= 0; l--)
        GS_CHECK(up(amg, l, l ? amg->lev[l].b : r, l ? amg->lev[l].x : z, 1));
done:
    return st;
}

static gs_status whole_cycle(gs_amg *amg, const gs_vec *r, gs_vec *z)
{
    return cycle(amg, 0, r, z, 1);
}

#define GRAPH_MAX_CAPTURES 3 /* vector pairs recorded before the plain cycle is kept */

/* the cycle as graphs: none (0), one of the whole cycle (1), or the V cycle's way down and
 * way up around a tail that cannot be recorded (2) */
static int graph_form(const gs_amg *amg)
{
    if (!amg->ops->graph_begin || amg->graph_off || amg->profiling) return 0;
    if (!amg->tail.solve) return 1;
    if (amg->nlev < 2 || !amg->tail.record(amg->tail.ctx)) return 0;
    if (amg->tail.whole(amg->tail.ctx)) return 1;
    return amg->p.cycle_w ? 0 : 2;
}

/* record part of the cycle into *g; nothing runs while recording */
static gs_status record(gs_amg *amg, gs_status (*part)(gs_amg *, const gs_vec *, gs_vec *),
                        const gs_vec *r, gs_vec *z, void **g)
{
    gs_status st = amg->ops->graph_begin();
    if (st == GS_OK) {
        amg->recording = 1;
        gs_status sc = part(amg, r, z);
        amg->recording = 0;
        st = amg->ops->graph_end(g);
        if (sc != GS_OK) st = sc;
    }
    return st;
}

static void graphs_destroy(gs_amg *amg)
{
    if (!amg->ops || !amg->ops->graph_destroy) return;
    amg->ops->graph_destroy(amg->graph);
    amg->ops->graph_destroy(amg->graph_up);
    amg->graph = amg->graph_up = NULL;
}

/* the cycle replayed from its graphs (recorded once per pair of vectors); *ran 0: the plain
 * cycle is to run instead, from now on. Across ranks the products' counters and flags live on
 * the device, so a rank that records and one that does not stay in step. */
static gs_status graph_cycle(gs_amg *amg, int form, const gs_vec *r, gs_vec *z, int *ran)
{
    gs_status st = GS_OK;
    *ran = 0;
    if (!amg->graph || amg->graph_r != r->data || amg->graph_z != z->data) {
        graphs_destroy(amg);
        if (++amg->graph_captures > GRAPH_MAX_CAPTURES) {
            amg->graph_off = 1;
            return GS_OK;
        }
        st = form == 1 ? record(amg, whole_cycle, r, z, &amg->graph)
                       : record(amg, down_all, r, z, &amg->graph);
        if (st == GS_OK && form == 2) st = record(amg, up_all, r, z, &amg->graph_up);
        amg->graph_r = r->data;
        amg->graph_z = z->data;
        if (st != GS_OK) { /* not recorded (nothing ran): the plain cycle from now on */
            gs_error_clear();
            graphs_destroy(amg);
            amg->graph_off = 1;
            return GS_OK;
        }
    }
    st = amg->ops->graph_launch(amg->graph);
    if (st == GS_OK && amg->graph_up) { /* the way down has run: no plain cycle after it */
        GS_CHECK(coarse(amg, amg->lev[amg->nlev - 1].b, amg->lev[amg->nlev - 1].x, 1));
        GS_CHECK(amg->ops->graph_launch(amg->graph_up));
    }
    if (st != GS_OK) {
        if (amg->tail.solve) return st; /* across ranks: the others would not repeat the cycle's
                                         * exchanges with this rank (the run ends) */
        /* refused on replay: the plain cycle from now on (a sticky device fault fails it
         * again and is returned) */
        gs_error_clear();
        graphs_destroy(amg);
        amg->graph_off = 1;
        return GS_OK;
    }
    *ran = 1;
done:
    return st;
}

gs_status gs_amg_apply(gs_amg *amg, const gs_vec *r, gs_vec *z)
{
    gs_status st = GS_OK;
    int ran = 0;
    const int form = graph_form(amg);
    if (form) st = graph_cycle(amg, form, r, z, &ran);
    if (st == GS_OK && !ran) st = cycle(amg, 0, r, z, 1);
    if (st != GS_OK && amg->tail.solve)
        gs_comm_fatal(st); /* across ranks: the others wait in this cycle's exchanges */
    return st;
}

void gs_amg_graphs_destroy(gs_amg *amg) { graphs_destroy(amg); }

static gs_status linop_apply(void *ctx, const gs_vec *x, gs_vec *y)
{
    return gs_amg_apply(ctx, x, y);
}

gs_linop gs_amg_linop(gs_amg *amg)
{
    gs_linop op = {amg->lev[0].A->rows, amg, linop_apply, NULL};
    return op;
}

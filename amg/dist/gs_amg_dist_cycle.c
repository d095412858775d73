/* gs_amg_dist_cycle.c: the cycle of the distributed AMG (gs_amg_dist.h), plain or as graphs. */
#include "gs_amg_dist.h"

#include <string.h>

#include "gs_amg_dist_impl.h"
#include "gs_comm.h"
#include "gs_knob.h"

/* the gathered level: every rank's part of b into the whole b, the one-process cycle (its own
 * graph unless in_graph: recorded into the caller's), this rank's part of its x */
static gs_status tail_cycle(gs_amg_dist *amg, const gs_vec *b, gs_vec *x, int in_graph)
{
    gs_status st = GS_OK;
    const dlevel *L = &amg->lev[amg->nd];
    const int me = gs_comm_rank();
    const int64_t row0 = L->part->start[me], n = b->n, total = amg->tb->n;
    if (amg->TG) { /* the others' parts as TG's halo: those below row0, then those above */
        double *tb = amg->tb->data;
        const size_t d = sizeof(double);
        GS_CHECK(gs_dist_op_halo(amg->TG, b->data, amg->th));
        if (row0 > 0) GS_CHECK(amg->be->move(tb, amg->th, (size_t)row0 * d));
        if (n > 0) GS_CHECK(amg->be->move(tb + row0, b->data, (size_t)n * d));
        if (total > row0 + n)
            GS_CHECK(amg->be->move(tb + row0 + n, amg->th + row0, (size_t)(total - row0 - n) * d));
    } else {
        GS_CHECK(gs_vec_get_host(b, amg->hpart));
        GS_CHECK(gs_comm_allgatherv(amg->hpart, (size_t)n * sizeof(double), amg->hb,
                                    amg->gbytes));
        GS_CHECK(gs_vec_set_host(amg->tb, amg->hb));
    }
    const int off = amg->tail->graph_off;
    if (in_graph) amg->tail->graph_off = 1; /* no capture inside a capture */
    gs_vec_local_begin();
    st = gs_amg_apply(amg->tail, amg->tb, amg->tx);
    gs_vec_local_end();
    amg->tail->graph_off = off;
    GS_CHECK(st);
    /* this rank's part of the whole x where both live: no wait for the tail here */
    GS_CHECK(amg->be->move(x->data, amg->tx->data + row0, (size_t)n * sizeof(double)));
done:
    return st;
}

/* level l's pre-smoothing of x (zero on entry when x_zero) and the restriction of its residual
 * into the next level's b */
static gs_status down(gs_amg_dist *amg, int l, const gs_vec *b, gs_vec *x, int x_zero)
{
    gs_status st = GS_OK;
    dlevel *L = &amg->lev[l], *C = &amg->lev[l + 1];
    const gs_smoother *sm = amg->p.smoother;
    const int pre = amg->p.presweeps;
    for (int s = 0; s < pre; s++, x_zero = 0)
        GS_CHECK(sm->apply(L->smooth, &L->sl, b, x, x_zero, 0));
    if (pre == 0 && x_zero) {
        GS_CHECK(gs_spmat_spmv(gs_dist_op_spmat(L->DR), b, C->b));
    } else {
        GS_CHECK(gs_spmat_spmv(gs_dist_op_spmat(L->DA), x, L->r));
        GS_CHECK(gs_vec_axpby(1.0, b, -1.0, L->r));
        GS_CHECK(gs_spmat_spmv(gs_dist_op_spmat(L->DR), L->r, C->b));
    }
done:
    return st;
}

/* the next level's correction prolongated into x (x_zero: x was zero when level l began, and
 * no pre-smoothing changed it) and the post-smoothing */
static gs_status up(gs_amg_dist *amg, int l, const gs_vec *b, gs_vec *x, int x_zero)
{
    gs_status st = GS_OK;
    dlevel *L = &amg->lev[l], *C = &amg->lev[l + 1];
    const gs_smoother *sm = amg->p.smoother;
    GS_CHECK(gs_spmat_spmv(gs_dist_op_spmat(L->DP), C->x, L->y));
    if (amg->p.presweeps == 0 && x_zero)
        GS_CHECK(gs_vec_copy(L->y, x));
    else
        GS_CHECK(gs_vec_axpy(1.0, L->y, x));
    for (int s = 0; s < amg->p.postsweeps; s++)
        GS_CHECK(sm->apply(L->smooth, &L->sl, b, x, 0, 1));
done:
    return st;
}

static gs_status cycle(gs_amg_dist *amg, int l, const gs_vec *b, gs_vec *x, int x_zero)
{
    gs_status st = GS_OK;
    if (l == amg->nd) return tail_cycle(amg, b, x, 0);
    dlevel *C = &amg->lev[l + 1];
    GS_CHECK(down(amg, l, b, x, x_zero));
    GS_CHECK(cycle(amg, l + 1, C->b, C->x, 1));
    if (amg->p.cycle_w && l + 1 < amg->nd) GS_CHECK(cycle(amg, l + 1, C->b, C->x, 0));
    GS_CHECK(up(amg, l, b, x, x_zero));
done:
    return st;
}

/* the V cycle's way down the distributed levels (each x starts at zero), and back up */
static gs_status down_all(gs_amg_dist *amg, const gs_vec *r, gs_vec *z)
{
    gs_status st = GS_OK;
    for (int l = 0; l < amg->nd; l++)
        GS_CHECK(down(amg, l, l ? amg->lev[l].b : r, l ? amg->lev[l].x : z, 1));
done:
    return st;
}

static gs_status up_all(gs_amg_dist *amg, const gs_vec *r, gs_vec *z)
{
    gs_status st = GS_OK;
    for (int l = amg->nd - 1; l >= 0; l--)
        GS_CHECK(up(amg, l, l ? amg->lev[l].b : r, l ? amg->lev[l].x : z, 1));
done:
    return st;
}

/* the whole V cycle, recorded as one graph: the way down, the gathered tail, the way up */
static gs_status whole_cycle(gs_amg_dist *amg, const gs_vec *r, gs_vec *z)
{
    gs_status st = GS_OK;
    GS_CHECK(down_all(amg, r, z));
    GS_CHECK(tail_cycle(amg, amg->lev[amg->nd].b, amg->lev[amg->nd].x, 1));
    GS_CHECK(up_all(amg, r, z));
done:
    return st;
}

#define GRAPH_MAX_CAPTURES 3 /* vector pairs recorded before the plain cycle is kept */

/* a V cycle whose every distributed product is signalled on the device (GSOLVE_DIST_GRAPH=0:
 * never) */
static int graph_wanted(const gs_amg_dist *amg)
{
    const char *e = gs_knob("GSOLVE_DIST_GRAPH");
    if (amg->graph_off || amg->p.cycle_w || amg->nd < 1 || !amg->ops->graph_begin ||
        (e && strcmp(e, "0") == 0))
        return 0;
    for (int l = 0; l < amg->nd; l++)
        if (!gs_dist_op_graph_safe(amg->lev[l].DA) || !gs_dist_op_graph_safe(amg->lev[l].DP) ||
            !gs_dist_op_graph_safe(amg->lev[l].DR))
            return 0;
    return 1;
}

/* record part (down_all or up_all) into *g; nothing runs while recording */
static gs_status record(gs_amg_dist *amg, gs_status (*part)(gs_amg_dist *, const gs_vec *,
                                                            gs_vec *),
                        const gs_vec *r, gs_vec *z, void **g)
{
    gs_status st = amg->ops->graph_begin();
    if (st == GS_OK) {
        gs_status sc = part(amg, r, z);
        st = amg->ops->graph_end(g);
        if (sc != GS_OK) st = sc;
    }
    return st;
}

/* the V cycle as one graph launch where the tail's gather is signalled on the device, else as
 * two around the gathered tail. The products' counters and flags live on the device, so a rank
 * that records and one that does not stay in step. */
static gs_status graph_cycle(gs_amg_dist *amg, const gs_vec *r, gs_vec *z, int *ran)
{
    gs_status st = GS_OK;
    const gs_amg_ops *ops = amg->ops;
    const int whole = gs_dist_op_graph_safe(amg->TG);
    *ran = 0;
    if (!amg->gdown || amg->graph_r != r->data || amg->graph_z != z->data) {
        ops->graph_destroy(amg->gdown);
        ops->graph_destroy(amg->gup);
        amg->gdown = amg->gup = NULL;
        if (++amg->graph_captures > GRAPH_MAX_CAPTURES) {
            amg->graph_off = 1;
            return GS_OK;
        }
        if (whole ? record(amg, whole_cycle, r, z, &amg->gdown) != GS_OK
                  : (record(amg, down_all, r, z, &amg->gdown) != GS_OK ||
                     record(amg, up_all, r, z, &amg->gup) != GS_OK)) { /* the plain cycle */
            gs_error_clear();
            ops->graph_destroy(amg->gdown);
            ops->graph_destroy(amg->gup);
            amg->gdown = amg->gup = NULL;
            amg->graph_off = 1;
            return GS_OK;
        }
        amg->graph_r = r->data;
        amg->graph_z = z->data;
    }
    *ran = 1;
    GS_CHECK(ops->graph_launch(amg->gdown));
    if (amg->gup) {
        GS_CHECK(tail_cycle(amg, amg->lev[amg->nd].b, amg->lev[amg->nd].x, 0));
        GS_CHECK(ops->graph_launch(amg->gup));
    }
done:
    return st;
}

gs_status gs_amg_dist_apply(gs_amg_dist *amg, const gs_vec *r, gs_vec *z)
{
    gs_status st = GS_OK;
    int ran = 0;
    if (graph_wanted(amg)) st = graph_cycle(amg, r, z, &ran);
    if (st == GS_OK && !ran) st = cycle(amg, 0, r, z, 1);
    if (st != GS_OK) gs_comm_fatal(st); /* the other ranks wait in this cycle's exchanges */
    return st;
}

static gs_status linop_apply(void *ctx, const gs_vec *x, gs_vec *y)
{
    return gs_amg_dist_apply(ctx, x, y);
}

gs_linop gs_amg_dist_linop(gs_amg_dist *amg)
{
    gs_linop op = {amg->lev[0].A->rows, amg, linop_apply, NULL};
    return op;
}

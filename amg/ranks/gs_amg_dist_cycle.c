/* gs_amg_dist_cycle.c: the gathered tail's part in the cycle of a hierarchy across ranks (the
 * cycle itself is gs_amg_cycle.c's, on one process and across ranks alike). */
#include "gs_amg_dist.h"

#include <string.h>

#include "gs_amg_dist_impl.h"
#include "gs_comm.h"
#include "gs_knob.h"

/* the gathered level: every rank's part of b into the whole b, the one-process cycle (its own
 * graph unless in_graph: recorded into the caller's), this rank's part of its x */
static gs_status tail_solve(void *ctx, const gs_vec *b, gs_vec *x, int in_graph)
{
    gs_status st = GS_OK;
    gs_amg_dist *amg = ctx;
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

/* the cycle may be recorded as graphs where every distributed product is signalled on the
 * device (GSOLVE_DIST_GRAPH=0: never), a V cycle */
static int tail_record(const void *ctx)
{
    const gs_amg_dist *amg = ctx;
    const char *e = gs_knob("GSOLVE_DIST_GRAPH");
    if (amg->p.cycle_w || (e && strcmp(e, "0") == 0)) return 0;
    for (int l = 0; l < amg->nd; l++)
        if (!gs_dist_op_graph_safe(amg->lev[l].DA) || !gs_dist_op_graph_safe(amg->lev[l].DP) ||
            !gs_dist_op_graph_safe(amg->lev[l].DR))
            return 0;
    return 1;
}

/* the tail's gather is signalled on the device: the whole cycle is one graph */
static int tail_whole(const void *ctx)
{
    return gs_dist_op_graph_safe(((const gs_amg_dist *)ctx)->TG);
}

static void tail_destroy(void *ctx) { gs_amg_dist_free(ctx); }

void gs_amg_dist_set_tail(gs_amg_dist *amg)
{
    amg->h->tail = (gs_amg_tail){.ctx = amg, .solve = tail_solve, .record = tail_record,
                                 .whole = tail_whole, .destroy = tail_destroy};
}

/* gs_amg_coarsen.c: one level's coarsening: strength, aggregates, tentative prolongator and the
 * coarse near-nullspace, where A lives for MIS(2) and nodes of at most 8 unknowns (both
 * backends: scalar weights, or the QR of k vectors per aggregate), else on a host copy. */
#include <string.h>

#include "gs_amg_internal.h"
#include "gs_buf.h"

/* a copy at `to` of n doubles at `from`, in that backend's memory (freed with its free) */
static gs_status clone_doubles(const double *src, gs_loc from, gs_loc to, int64_t n, double **out)
{
    gs_status st = GS_OK;
    gs_buf *dst = NULL;
    const gs_buf s = {(void *)src, n, GS_F64, from};
    GS_CHECK(gs_buf_clone(&s, to, "AMG near-nullspace", &dst));
    *out = dst->data;
    dst->data = NULL;
done:
    gs_buf_destroy(&dst);
    return st;
}

/* Aggregates and the tentative prolongator of level l where A lives (MIS(2), nodes of at most
 * 8 unknowns), else on a host copy. B (k vectors, at *B_loc) is replaced by the coarse one. */
gs_status gs_amg_coarsen(gs_amg *amg, int l, int b, double **B, gs_loc *B_loc, int *k,
                         gs_csr **T, int32_t *nagg_out, int *one_per_row, double *ph)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[l];
    const gs_csr *A = L->A;
    gs_csr *S = NULL, *hA = NULL, *hT = NULL;
    double *Bc = NULL, *Bw = NULL;
    int32_t nagg = 0;
    double t0, t1, t2;
    /* where: A's location for MIS(2) and nodes of at most 8 unknowns, else the host; weights:
     * the near-nullspace is one vector per unknown of a node, kept as node weights (the
     * default, or one given vector on a scalar matrix), so T has one entry a row; else the QR
     * of k vectors on each aggregate */
    const gs_loc where = amg->p.aggregation == GS_AGG_MIS2 && b <= 8 ? amg->loc : GS_LOC_HOST;
    const gs_amg_ops *ops = where == amg->loc ? amg->ops : &gs_amg_host_ops;
    const gs_backend_ops *be = gs_backend_get(where);
    const int weights = amg->p.nullspace ? *k == 1 && b == 1 : *k == b;
    *one_per_row = weights;
    GS_CHECK(gs_amg_sync(amg, &t0));
    if (where != A->loc) GS_CHECK(gs_csr_download(A, &hA));
    const gs_csr *Aw = hA ? hA : A;
    L->nodes = A->rows / b;
    GS_CHECK(ops->strength(Aw, amg->p.theta, b, amg->p.strength, &S));
    gs_amg_trace(amg, l, "strength");
    GS_CHECK(gs_amg_sync(amg, &t1));
    GS_CHECK(gs_buf_create(L->nodes, GS_I32, where, "aggregates", &L->agg));
    if (amg->p.aggregation == GS_AGG_STANDARD)
        GS_CHECK(gs_amg_standard_aggregate(S, L->agg->data, &nagg));
    else
        GS_CHECK(ops->mis2_aggregate(S, L->agg->data, &nagg));
    gs_amg_trace(amg, l, "aggregation");
    GS_CHECK(gs_amg_sync(amg, &t2));
    ph[GS_AMG_PHASE_STRENGTH] += t1 - t0;
    ph[GS_AMG_PHASE_AGGREGATE] += t2 - t1;
    *nagg_out = nagg;
    if (nagg == 0) goto done; /* nothing to coarsen: this level is the coarsest */
    /* this level's near-nullspace at `where` (NULL: the default, as weights or explicit) */
    const double *Bl = *B;
    int64_t nB = weights ? L->nodes : (int64_t)A->rows * *k;
    if (!*B && !weights) {
        double *own = NULL;
        GS_CHECK(gs_amg_block_nullspace(L->nodes, b, NULL, &own));
        st = clone_doubles(own, GS_LOC_HOST, where, nB, &Bw);
        gs_free(own);
        GS_CHECK(st);
        Bl = Bw;
    } else if (*B && *B_loc != where) {
        GS_CHECK(clone_doubles(*B, *B_loc, where, nB, &Bw));
        Bl = Bw;
    }
    if (weights) {
        GS_CHECK(be->alloc((size_t)nagg * sizeof(double) + 1, "coarse nullspace", (void **)&Bc));
        GS_CHECK(ops->tentative(L->nodes, b, L->agg->data, nagg, Bl, &hT, Bc));
    } else {
        GS_CHECK(be->alloc((size_t)nagg * (size_t)*k * (size_t)*k * sizeof(double) + 1,
                           "coarse nullspace", (void **)&Bc));
        GS_CHECK(ops->tentative_qr(L->nodes, b, L->agg->data, nagg, Bl, *k, &hT, Bc));
        /* the coarse level's nodes hold k unknowns: *k stays, its block size becomes k */
    }
    if (where != amg->loc)
        GS_CHECK(gs_csr_upload(hT, amg->loc, T));
    else {
        *T = hT;
        hT = NULL;
    }
    if (*B) gs_backend_get(*B_loc)->free(*B);
    *B = Bc;
    *B_loc = where;
    Bc = NULL;
done:
    if (Bw) be->free(Bw);
    if (Bc) be->free(Bc);
    gs_csr_destroy(&S);
    gs_csr_destroy(&hA);
    gs_csr_destroy(&hT);
    return st;
}

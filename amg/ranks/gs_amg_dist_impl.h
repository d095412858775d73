/* gs_amg_dist_impl.h: what the files of the distributed AMG (gs_amg_dist.h) share: the
 * hierarchy's struct and the setup's steps. Not a public header.
 *   gs_amg_dist.c           the setup of the distributed levels, the gathered tail, the report
 *   gs_amg_dist_galerkin.c  P = S T and A_c = P^T (A P) with the rows other ranks own
 *   gs_amg_dist_cycle.c     the gathered tail's solve in the cycle (gs_amg_cycle.c's) */
#ifndef GS_AMG_DIST_IMPL_H
#define GS_AMG_DIST_IMPL_H

#include "gs_amg_dist.h"
#include "gs_amg_internal.h"
#include "gs_dist_ops.h"

/* what a distributed level has beside its gs_amg_level (the cycle's: its operators' SpMV views,
 * diagonal, smoother, vectors) */
typedef struct dlevel {
    const gs_gcsr *A;        /* level 0's rows with global columns (the caller's) */
    gs_part *part;           /* this level's rows */
    gs_dist_op *DAown, *DP, *DR;
    const gs_dist_op *DA;
    const gs_csr *Al1;       /* the whole rows at loc for a whole_rows smoother (borrowed) */
} dlevel;

/* the hierarchy's parts that only ranks have: the distributed operators, the gathered level and
 * its hierarchy; held by the hierarchy h as its tail (gs_amg_tail), freed with it */
struct gs_amg_dist {
    gs_amg_params p;
    gs_loc loc;
    const gs_backend_ops *be;
    const gs_amg_ops *ops;
    gs_amg *h;              /* the hierarchy: levels 0..nd (nd: the gathered one), the cycle's */
    int nd;                 /* distributed levels; level nd is the gathered one */
    dlevel lev[GS_AMG_MAX_LEVELS];
    gs_csr *tailA;          /* the gathered level, at loc */
    gs_amg *tail;           /* its hierarchy (every rank the same) */
    gs_vec *tb, *tx;        /* the whole gathered level's vectors, at loc */
    /* the other ranks' parts of the gathered level's b, each cycle: the halo of an operator
     * with no entries whose halo is every row this rank does not own (NULL on one rank), and
     * that halo at loc. Where its exchange is signalled on the device, the whole V cycle is
     * recorded as one graph; otherwise the way down and the way up as two around the tail. */
    gs_dist_op *TG;
    double *th;
    double *hb, *hpart;     /* host staging without TG: whole b, this rank's part of it */
    int64_t nnz0;           /* level 0's nonzeros over all ranks (the smoother's level share) */
    int64_t gather_rows;    /* a level of at most this many rows in all is gathered */
    gs_part *cpart;         /* during the setup: the coarse rows of the level being built */
    size_t *gbytes;         /* every rank's part of the gathered level, in bytes */
};

/* amg.trace: the setup step `what` of level l timed over the ranks (gs_amg_dist.c) */
void gs_amg_dist_trace(const gs_amg_dist *amg, int l, const char *what);

/* the data-parallel steps where the hierarchy lives (gs_amg_dist.c) */
const gs_dist_ops *gs_amg_dist_dops(const gs_amg_dist *amg);

/* n host values of `size` bytes into a new array at loc (gs_amg_dist.c) */
gs_status gs_amg_dist_to_loc(const gs_amg_dist *amg, const void *h, int64_t n, size_t size,
                             const char *what, void **out);

/* P = S T of level l and its SpMV form (gs_amg_dist_galerkin.c) */
gs_status gs_amg_dist_prolongator(gs_amg_dist *amg, int l, const gs_csr *S, gs_csr **T, int one,
                                  const gs_part *cpart);

/* A_c = P^T (A P) of level l in its SpMV form (gs_amg_dist_galerkin.c) */
gs_status gs_amg_dist_galerkin(gs_amg_dist *amg, int l, const gs_part *cpart, gs_dist_op **out);

/* the tail's hooks for the hierarchy (gs_amg_dist_cycle.c): its solve, whether the cycle may be
 * recorded, whether the solve may be recorded in it; the dist parts freed */
void gs_amg_dist_set_tail(gs_amg_dist *amg);
void gs_amg_dist_free(gs_amg_dist *amg);

#endif

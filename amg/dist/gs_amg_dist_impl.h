/* gs_amg_dist_impl.h: what the files of the distributed AMG (gs_amg_dist.h) share: the
 * hierarchy's struct and the setup's steps. Not a public header.
 *   gs_amg_dist.c           the setup of the distributed levels, the gathered tail, the report
 *   gs_amg_dist_galerkin.c  P = S T and A_c = P^T (A P) with the rows other ranks own
 *   gs_amg_dist_cycle.c     the cycle (plain, or recorded as CUDA graphs) */
#ifndef GS_AMG_DIST_IMPL_H
#define GS_AMG_DIST_IMPL_H

#include "gs_amg_dist.h"
#include "gs_amg_internal.h"
#include "gs_dist_ops.h"

typedef struct dlevel {
    const gs_gcsr *A;        /* level 0's rows with global columns (the caller's) */
    gs_part *part;           /* this level's rows */
    gs_dist_op *DAown, *DP, *DR;
    const gs_dist_op *DA;
    const gs_csr *Al1;       /* the whole rows at loc for a whole_rows smoother (borrowed) */
    double *dinv;            /* at loc */
    gs_smoother_level sl;
    void *smooth;
    gs_vec *x, *b, *r, *y, *d;
    double rho;
} dlevel;

struct gs_amg_dist {
    gs_amg_params p;
    gs_loc loc;
    const gs_backend_ops *be;
    const gs_amg_ops *ops;
    gs_amg *shell;          /* the one-process helpers' view of a level (coarsening, rho) */
    int nd;                 /* distributed levels; level nd is the gathered one */
    dlevel lev[GS_AMG_MAX_LEVELS];
    gs_csr *tailA;          /* the gathered level, at loc */
    gs_amg *tail;           /* its hierarchy (every rank the same) */
    gs_vec *tb, *tx;        /* the whole gathered level's vectors, at loc */
    /* the other ranks' parts of the gathered level's b, each cycle: the halo of an operator
     * with no entries whose halo is every row this rank does not own (NULL on one rank), and
     * that halo at loc */
    gs_dist_op *TG;
    double *th;
    /* the V cycle recorded as CUDA graphs, for the vectors graph_r, graph_z: where TG's
     * exchange is signalled on the device, the whole cycle in gdown; otherwise the distributed
     * levels' way down (pre-smoothing, restrictions) in gdown and their way up in gup, the
     * gathered tail between them */
    void *gdown, *gup;
    const double *graph_r, *graph_z;
    int graph_captures, graph_off;
    double *hb, *hpart;     /* host staging without TG: whole b, this rank's part of it */
    int64_t nnz0;           /* level 0's nonzeros over all ranks (the smoother's level share) */
    size_t *gbytes;         /* every rank's part of the gathered level, in bytes */
    gs_amg_report rep;
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

#endif

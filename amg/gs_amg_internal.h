/* gs_amg_internal.h: the hierarchy's struct, shared by the setup pipeline (setup/), the
 * coarsening (coarsen/), the coarse solve (coarse/) and the cycle (cycle/). Not a public
 * header: callers use gs_amg.h. */
#ifndef GS_AMG_INTERNAL_H
#define GS_AMG_INTERNAL_H

#include "gs_amg.h"
#include "gs_amg_ops.h"
#include "gs_backend.h"
#include "gs_buf.h"
#include "gs_smoother.h"

#define GS_AMG_DENSE_MAX 4096 /* the coarsest level is inverted densely up to this many rows */

typedef struct gs_amg_level {
    const gs_csr *A; /* level 0: the caller's; else Aown */
    gs_csr *Aown, *P, *R;
    gs_spmat *MA, *MP, *MR;
    double *dinv;    /* 1 / a_ii, at loc */
    gs_smoother_level sl; /* the level as its smoother sees it */
    int rho_known;   /* rho was estimated (level_diag ran) */
    void *smooth;    /* the smoother's state (NULL: the level is not smoothed) */
    gs_vec *x, *b;   /* levels >= 1 (level 0 uses the caller's vectors) */
    gs_vec *r, *y, *d;
    int ops_borrowed; /* MA, MP, MR are views of the distributed operators (amg/ranks frees them) */
    gs_buf *agg;     /* aggregate of every node (int32, host or device) */
    /* the block cycle's vectors (gs_amg_apply_block): amg->block_k columns of the level's rows
     * (kx, kb from level 1 down), NULL until a block cycle runs */
    gs_vec *kx, *kb, *kr, *ky, *kd;
    /* kept for a re-setup that smooths P anew (amg.reuse = values, p.keep_tentative): the
     * tentative prolongator, the filter's near-nullspace weights (NULL: none used), whether T has
     * one entry a row; the level's unknowns a node and near-nullspace vectors */
    gs_csr *T;
    gs_buf *Bw;
    int one_per_row, bk, kk;
    int pmax; /* classical AMG: the entries a row of P kept (after the growth check) */
    int32_t nodes;
    double rho;
    /* the last full estimate's rho and its estimate after GS_AMG_RHO_SHORT steps from the same
     * start: a re-setup runs the short estimate and scales rho_full by its change */
    double rho_full, rho_short;
} gs_amg_level;

/* The coarsest level's solve where the hierarchy's levels are split across MPI ranks: the
 * gathered tail (amg/ranks), whose state ctx the hierarchy holds. solve: x on this rank's rows of
 * the coarsest level from its b (in_graph: while the cycle is being recorded as a graph);
 * record: whether the cycle may be recorded as a graph at all (every product signalled on the
 * device); whole: whether the solve may be recorded inside it (else the V cycle is recorded as
 * two graphs around it); destroy: frees ctx, after the levels. */
typedef struct gs_amg_tail {
    void *ctx;
    gs_status (*solve)(void *ctx, const gs_vec *b, gs_vec *x, int in_graph);
    int (*record)(const void *ctx);
    int (*whole)(const void *ctx);
    void (*destroy)(void *ctx);
} gs_amg_tail;

struct gs_amg {
    gs_amg_params p;
    gs_loc loc;
    const gs_backend_ops *be;
    const gs_amg_ops *ops;
    int nlev;
    gs_amg_level lev[GS_AMG_MAX_LEVELS];
    gs_csr *cinv;    /* dense inverse of the coarsest matrix, as CSR at loc (NULL: smoothing) */
    gs_spmat *Mc;
    gs_amg_report rep;
    double trace_t; /* the last trace point */
    /* the cycle as a graph (device): recorded for one pair of vectors, replayed while the
     * caller passes the same pair (CG does); off after a failed capture or too many pairs */
    void *graph;
    void *graph_up; /* with a tail that cannot be recorded: the V cycle's way up (graph: down) */
    const double *graph_r, *graph_z;
    int graph_captures, graph_off;
    int recording; /* the cycle is being recorded into a graph */
    gs_amg_tail tail; /* across ranks: the gathered levels (tail.solve NULL: one process) */
    int profiling;        /* gs_amg_profile_enable */
    int irregular;        /* the finest matrix has rows of very different lengths (choose) */
    int64_t rho_rows;     /* rows of the whole operator when its rows are split across ranks
                           * (the Lanczos steps stop at it on every rank alike); 0: A's */
    gs_amg_profile prof;
    int block_k; /* the columns the block vectors of the levels hold (0: none yet) */
    /* what a re-setup (gs_amg_resetup) needs of the setup: the formats' tuning, the matrix's
     * name for messages, the coarse constant the pseudo-inverse projects out (host, NULL: none) */
    gs_format_params fmt;
    char where[256];
    gs_spgemm_method m; /* the Galerkin method the setup resolved */
    double *zc;
    int resetting; /* inside gs_amg_resetup: rho by the short Lanczos estimate */
    int64_t dropped_bytes; /* CSR arrays freed after their formats were made (p.drop_csr) */
};

/* the data-parallel steps at loc (gs_backend.c's registry) */
static inline const gs_amg_ops *gs_amg_ops_at(gs_loc loc)
{
    return (const gs_amg_ops *)gs_backend_module(loc, GS_MODULE_AMG);
}

/* The setup's steps that depend on where a level's rows live: the hierarchy's own on one
 * process (setup/gs_amg_setup.c), the distributed operators' across ranks (amg/ranks). The loop
 * of gs_amg_levels runs them level by level, times them into the phases and counts them.
 *   rows        level l's rows in all (across ranks)
 *   ends        1: the levels end before level l's smoother (n its rows, last: no coarser level
 *               is wanted there); the caller finishes level l (coarse solve, or gathering)
 *   diag        level l's diagonal (the finest's checked: where names the matrix), rho, smoother
 *   smoothing   the prolongator smoothing's I - omega / rho D^-1 F (smoothed aggregation)
 *   coarsen     the tentative prolongator T (smoothed aggregation: B, B_loc, k become the coarse
 *               near-nullspace) or classical AMG's P; *nc the coarse rows in all (0 or n: no
 *               coarsening); *made: P, R and level l + 1's operator were made too
 *   prolongator P = S T (S NULL: P = T; both taken) and R
 *   galerkin    level l + 1's operator
 *   next        after level l + 1's operator and its phase time (NULL: nothing) */
typedef struct gs_amg_steps {
    void *ctx;
    int64_t (*rows)(void *ctx, const gs_amg *amg, int l);
    int (*ends)(void *ctx, const gs_amg *amg, int l, int64_t n, int last);
    gs_status (*diag)(void *ctx, gs_amg *amg, int l, const char *where);
    gs_status (*smoothing)(void *ctx, gs_amg *amg, int l, int b, int k, const double *B,
                           gs_loc B_loc, gs_csr **S);
    gs_status (*coarsen)(void *ctx, gs_amg *amg, int l, int b, double **B, gs_loc *B_loc, int *k,
                         gs_csr **T, int64_t *nc, int *one_per_row, int *made, double *ph);
    gs_status (*prolongator)(void *ctx, gs_amg *amg, int l, gs_csr **S, gs_csr **T,
                             int one_per_row);
    gs_status (*galerkin)(void *ctx, gs_amg *amg, int l);
    gs_status (*next)(void *ctx, gs_amg *amg, int l, double *ph);
} gs_amg_steps;

/* The levels of amg from level 0 (its operator in place) down (setup/gs_amg_levels.c): b the
 * finest level's unknowns a node, k its near-nullspace vectors B at B_loc (NULL: the default);
 * on return amg->nlev - 1 is the level where they ended, *b and *k its (or, when it did not
 * coarsen, *k the coarse one), *B_level the level B describes. */
gs_status gs_amg_levels(gs_amg *amg, const gs_amg_steps *s, int *b, int *k, double **B,
                        gs_loc *B_loc, int *B_level, const char *where, double *ph);

/* The report's description of the cycle and the hierarchy's method (setup/gs_amg_report.c):
 * b0, k0 the finest level's unknowns a node and near-nullspace vectors; ranks 0 on one process
 * (galerkin names the product), else the ranks, nd the levels across them. */
void gs_amg_describe(gs_amg *amg, int b0, int k0, gs_spgemm_method galerkin, int ranks, int nd);

/* the cycle's graphs freed (cycle/gs_amg_cycle.c) */
void gs_amg_graphs_destroy(gs_amg *amg);

/* wait for the backend, then *t = now */
gs_status gs_amg_sync(const gs_amg *amg, double *t);
/* amg->p.trace: one line per setup step on stderr (synchronizes); what NULL starts the clock */
void gs_amg_trace(gs_amg *amg, int l, const char *what);

/* level l's D^-1 (checked on the finest level: `where` names the matrix) and rho(D^-1 A); its
 * smoother's state (after the diagonal); the SpMV form of a level's operator M in the format
 * the selector picks (amg->p.select; else gsolve's CSR), its name into fmt and for A the
 * report's reason (gs_amg_setup.c) */
gs_status gs_amg_level_diag(gs_amg *amg, int l, const char *where);
/* the prolongator smoothing's I - omega / rho D^-1 A of level l (b unknowns a node, k
 * near-nullspace vectors B at B_loc, the filter's weights when b = k = 1) */
gs_status gs_amg_smoothing_matrix(gs_amg *amg, int l, int b, int k, const double *B,
                                  gs_loc B_loc, gs_csr **Sj);
gs_status gs_amg_level_smoother(gs_amg *amg, int l);

/* rho(D^-1 A) by Lanczos on D^-1/2 A D^-1/2 (setup/gs_amg_rho.c); M: A's SpMV form or NULL.
 * _steps: at most `steps` steps; *rho_short (NULL: not wanted) the estimate after the first
 * GS_AMG_RHO_SHORT of them, 0 where fewer ran (an invariant subspace: *rho is exact) */
#define GS_AMG_RHO_STEPS 12
#define GS_AMG_RHO_SHORT 5
gs_status gs_amg_estimate_rho(gs_amg *amg, const gs_csr *A, const gs_spmat *M,
                              const double *sqrt_dinv, double *rho);
gs_status gs_amg_estimate_rho_steps(gs_amg *amg, const gs_csr *A, const gs_spmat *M,
                                    const double *sqrt_dinv, int steps, double *rho,
                                    double *rho_short);

/* Aggregates and the tentative prolongator of level l (coarsen/gs_amg_coarsen.c): where A lives
 * for MIS(2) and nodes of at most 8 unknowns, else on a host copy. B (k vectors, at *B_loc) is
 * replaced by the coarse one; one_per_row: T has at most one entry a row. */
gs_status gs_amg_coarsen(gs_amg *amg, int l, int b, double **B, gs_loc *B_loc, int *k,
                         gs_csr **T, int32_t *nagg, int *one_per_row, double *ph);

/* the entries a row of classical AMG's P keeps before its growth check: amg.interp_max_elements,
 * or when 0, 1 on irregular rows and 4 otherwise */
static inline int gs_amg_interp_max(const gs_amg *amg)
{
    return amg->p.interp_max_elements > 0 ? amg->p.interp_max_elements : amg->irregular ? 1 : 4;
}

/* Classical AMG's coarsening of level l (coarsen/gs_amg_classical.c): the C/F splitting into
 * the level's agg (the coarse index of each C point, -1 for F), its P and R = P^T and the next
 * level's Aown (products by m); *nc the C points (0 or all: no coarsening, P left NULL). */
gs_status gs_amg_classical(gs_amg *amg, int l, gs_spgemm_method m, int32_t *nc, double *ph);
/* Level l's P and R (and level l + 1's Aown) anew from the new values on the kept C/F
 * splitting (L->agg, the coarse level's rows) with the truncation the setup settled on (L->pmax):
 * classical AMG's re-setup for amg.reuse = values */
gs_status gs_amg_classical_values(gs_amg *amg, int l, gs_spgemm_method m, double *ph);
/* The same splitting and its truncated interpolation alone (no growth check, R or Galerkin
 * product: the distributed hierarchy makes those across ranks): *P NULL when level l does not
 * coarsen */
gs_status gs_amg_classical_p(gs_amg *amg, int l, gs_spgemm_method m, int32_t *nc, gs_csr **P,
                             double *ph);

/* |y'Ax - x'Ay| / (|y| |Ax|) for random x and y (MA: A's SpMV form over n rows, the first
 * numbered row0 in the whole matrix, so every split of the rows draws the same vectors; under
 * MPI the dots are global): ~1e-16 when A is symmetric, about the relative size of its skew part
 * otherwise; symmetric at or below GS_AMG_SKEW_TOL. */
#define GS_AMG_SKEW_TOL 1e-10
gs_status gs_amg_skew_ratio(const gs_amg *amg, const gs_spmat *MA, int64_t n, int64_t row0,
                           double *out);
/* The smoother left open, for a matrix that is symmetric or not: Chebyshev, or l1-Jacobi with
 * twice the sweeps asked; "smoother NAME: why" appended to choice (len its size). */
void gs_amg_choose_smoother(gs_amg_params *p, int symmetric, char *choice, size_t len);
/* amg.aggregation = auto settled for nodes of b unknowns (the report's choice line says so) */
void gs_amg_choose_aggregation(gs_amg *amg, int b);

/* The method and smoother the setup runs when the parameters leave them to it
 * (setup/gs_amg_choose.c): measured on the finest matrix A (MA its SpMV form, dinv its inverse
 * diagonal, its row statistics already in the report's level 0; its symmetry and coefficient
 * variation), written into amg->p, amg->irregular and the report's choice. Across ranks (ranks
 * nonzero; collective): A is this rank's diagonal block, row0 its first row, MA the distributed
 * operator's view, the statistics those of all ranks; the same choice on every rank. */
gs_status gs_amg_choose(gs_amg *amg, const gs_csr *A, const gs_spmat *MA, const double *dinv,
                        int b, int64_t row0, int ranks);

/* The coarsest level's solve (coarse/gs_amg_coarse.c): its dense inverse when small enough
 * (the pseudo-inverse projecting out z when z, host, is given), else smoothing sweeps; fills
 * the report's coarse_desc. */
gs_status gs_amg_coarse_setup(gs_amg *amg, const double *z, double *ph);

#endif

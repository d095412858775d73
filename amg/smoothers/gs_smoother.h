/* gs_smoother.h: the AMG smoothers, one descriptor each in one registry (gs_smoother_reg.c).
 *
 * A smoother is a file in amg/smoothers/ that defines one gs_smoother (name, setup, apply,
 * destroy) over the level it is given; adding one is that file plus one line in the registry.
 * The config key amg.smoother, --help-config and the AMG description read the registry.
 */
#ifndef GS_SMOOTHER_H
#define GS_SMOOTHER_H

#include <stddef.h>

#include "gs_amg.h"
#include "gs_amg_ops.h"
#include "gs_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One level as a smoother sees it (arrays at the level's location; borrowed). */
typedef struct gs_smoother_level {
    const gs_amg_params *p;
    const gs_amg_ops *ops;   /* the backend's data-parallel steps (smooth_step, diag_inv) */
    const gs_backend_ops *be;
    int level;
    const gs_csr *A;
    const gs_spmat *MA;      /* A in its SpMV format */
    const double *dinv;      /* 1 / a_ii */
    double rho;              /* rho(D^-1 A), the Lanczos estimate */
    double share;            /* the level's nonzeros over the finest level's (0: not known) */
    gs_vec *y, *d;           /* work vectors of the level (set before the first apply) */
} gs_smoother_level;

struct gs_smoother {
    const char *name;  /* the value of amg.smoother */
    const char *label; /* for the AMG description: "weighted Jacobi" */
    const char *help;  /* one line for --help-config */
    /* setup reads the level's whole rows (l1 row sums): across MPI ranks it is given the rank's
     * rows with their halo columns after the own ones (compact), else the diagonal block */
    int whole_rows;
    /* apply reads the level's CSR (L->A's arrays), not only its format */
    int reads_csr;
    /* the level's state (weights, bounds, its own diagonal), freed by destroy */
    gs_status (*setup)(const gs_smoother_level *L, void **state);
    /* one sweep on A x = b; x_zero: x is zero on entry (not read); post: a post-smoothing
     * sweep (an ordered smoother runs backward there, so that the cycle stays symmetric) */
    gs_status (*apply)(const void *state, const gs_smoother_level *L, const gs_vec *b, gs_vec *x,
                       int x_zero, int post);
    void (*destroy)(void *state, const gs_backend_ops *be);
    /* the same sweep on k columns at once (gs_vec.h's blocks: B, X of n k values; Y, D work
     * blocks of as many), the level's products by gs_block_spmm on L->A; NULL: the smoother has
     * no block form (the multi-vector solve then runs column by column) */
    gs_status (*apply_block)(const void *state, const gs_smoother_level *L, int k,
                             const gs_vec *B, gs_vec *X, gs_vec *Y, gs_vec *D, int x_zero,
                             int post);
    /* the bytes one sweep moves on the level (its SpMVs by the format's byte model, 8 a vector
     * entry of its vector steps), from x = 0 when x_zero; NULL: not counted */
    double (*bytes)(const void *state, const gs_smoother_level *L, int x_zero);
    /* words appended to the AMG description (may be NULL): ", Chebyshev degree 3 ..." */
    void (*describe)(const gs_amg_params *p, int nlev, char *buf, size_t len);
};

/* x = x + w diag(dinv) (b - A x) on level L (x_zero: x is zero on entry): the sweep that weighted
 * Jacobi (dinv = 1 / a_ii) and l1-Jacobi (dinv = 1 / sum_j |a_ij|, w = 1) share
 * (gs_smooth_jacobi.c) */
gs_status gs_smoother_jacobi_sweep(const gs_smoother_level *L, const double *dinv, double w,
                                   const gs_vec *b, gs_vec *x, int x_zero);
/* the bytes of one sweep of gs_smoother_jacobi_sweep: an SpMV and the step (dinv, b, y, d, x
 * read; d, x written); from x = 0 (x_zero): no SpMV, dinv and b read, d and x written */
double gs_smoother_jacobi_bytes(const gs_smoother_level *L, int x_zero);
/* the same on k columns (apply_block's arguments) */
gs_status gs_smoother_jacobi_sweep_block(const gs_smoother_level *L, const double *dinv, double w,
                                         int k, const gs_vec *B, gs_vec *X, gs_vec *Y, gs_vec *D,
                                         int x_zero);

/* *dinv = 1 / sum_j |a_ij| over the rows of L->A, allocated where the level lives (freed with
 * L->be->free): the l1 diagonal that l1-Jacobi and Gauss-Seidel divide by */
gs_status gs_smoother_l1_dinv(const gs_smoother_level *L, double **dinv);

/* The registered smoothers: the i-th (NULL past the end), the one named name (NULL: none), the
 * default (Chebyshev), and "a|b|c" of their names (for the config table). */
const gs_smoother *gs_smoother_at(int i);
const gs_smoother *gs_smoother_find(const char *name);
const gs_smoother *gs_smoother_default(void);
const char *gs_smoother_choices(void);

#ifdef __cplusplus
}
#endif
#endif

/* gs_amg_ops.h: the data-parallel steps of the AMG setup and cycle, one table per backend
 * (amg/ops/gs_amg_host.c, amg/ops/gs_amg_cuda.cu), and the host-only steps of the general setup (block
 * systems, several near-nullspace vectors, the standard aggregation). Not a public header.
 *
 * Arrays are at the table's location. The device table implements the scalar setup (one
 * unknown per node, one nullspace vector, MIS(2)); amg/coarsen/gs_amg_coarsen.c runs the general case through the
 * host functions below on a host copy.
 */
#ifndef GS_AMG_OPS_H
#define GS_AMG_OPS_H

#include <math.h>
#include <stdint.h>

#include "gs_amg.h"
#include "gs_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MIS(2) node states; a node's priority key is state << 62 | hash(i) << 32 | i */
enum { GS_MIS_OUT = 0, GS_MIS_UNDECIDED = 1, GS_MIS_IN = 2 };

#ifdef __CUDACC__
#define GS_AMG_HD __host__ __device__
#else
#define GS_AMG_HD
#endif

/* The priority hash both backends use (the same aggregates on host and device). */
static inline GS_AMG_HD uint32_t gs_amg_hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x & 0x3fffffffU;
}

/* the size of coupling a_ij in the strength and filter tests: |a_ij|, or with sign set
 * -a_ij sign(a_ii) (a coupling of the diagonal's sign counts as weak) */
static inline GS_AMG_HD double gs_amg_coupling(double aij, double aii, int sign)
{
    return sign ? (aii < 0 ? aij : -aij) : fabs(aij);
}

typedef struct gs_amg_ops {
    /* S: the strength graph of square A over nodes of b unknowns (pattern only: val NULL,
     * diagonal left out). b > 1: J in row I when I != J and ||A_IJ|| > theta sqrt(||A_II||
     * ||A_JJ||) (Frobenius norms; theta = 0: every stored nonzero block). b = 1, measure
     * GS_STRENGTH_SYMMETRIC: |a_ij| > theta sqrt(|a_ii a_jj|); GS_STRENGTH_ROWMAX: c_ij > 0 and
     * c_ij > theta max(m_i, m_j), with c_ij = gs_amg_coupling(a_ij, a_ii, 1) and m_i the largest
     * c_ik of row i (symmetric for symmetric A; scale-free, so a 27-point row is not weaker
     * than a 7-point one). The device handles b <= 8, the host any b (gs_amg_strength_block) */
    gs_status (*strength)(const gs_csr *A, double theta, int b, int measure, gs_csr **S);
    /* F: square A (b = 1) without the couplings that are small in their row (c_ij <= theta
     * m_i: c_ij = gs_amg_coupling(a_ij, a_ii, sign), sign for GS_STRENGTH_ROWMAX, m_i the
     * largest c_ik of row i), each row's dropped entries lumped to its diagonal so that
     * F w = A w for the near-nullspace vector w (w NULL: ones, the row sums kept):
     * f_ii = a_ii + sum_dropped a_ij w_j / w_i. A row whose lumped diagonal would change sign or
     * lose more than half its size (or where w_i = 0) stays whole. The prolongator smoothing's
     * matrix. The test is relative to row i alone, not symmetric, so that a small coefficient
     * next to a large one keeps its coupling to it (the large side's row drops it). *F = NULL
     * when nothing is dropped (F = A) */
    gs_status (*filter)(const gs_csr *A, double theta, int measure, const double *w, gs_csr **F);
    /* agg[i] in [0, nagg) or -1 (no strong neighbour), i < S->rows */
    gs_status (*mis2_aggregate)(const gs_csr *S, int32_t *agg, int32_t *nagg);
    /* the tentative prolongator of the near-nullspace "one vector per unknown of a node, node
     * weight w_I on that unknown" (w NULL: ones; b = 1: the vector w): P(I b + r, a b + r) =
     * w_I / ||w_a|| for node I of aggregate a, and the coarse weights wc[a] = ||w_a|| (the R
     * factors of the QR, which keep that form) */
    gs_status (*tentative)(int32_t nodes, int b, const int32_t *agg, int32_t nagg,
                           const double *w, gs_csr **P, double *wc);
    /* the tentative prolongator of k vectors (B: n x k column-major at the table's location,
     * n = nodes * b) by a QR on each aggregate (members in node order, modified Gram-Schmidt):
     * P is n x nagg*k without exact zeros, Bc (nagg*k x k column-major) the R factors */
    gs_status (*tentative_qr)(int32_t nodes, int b, const int32_t *agg, int32_t nagg,
                              const double *B, int k, gs_csr **P, double *Bc);
    /* dinv[i] = 1 / a_ii (l1: 1 / sum_j |a_ij|); rows with a zero or missing diagonal get 0
     * and are counted in *bad, the first in *first_bad (-1 when none) */
    gs_status (*diag_inv)(const gs_csr *A, int l1, double *dinv, double *sqrt_dinv,
                          int64_t *bad, int64_t *first_bad);
    /* sqrt_dinv (may be NULL) receives sqrt(|dinv|) */
    /* Sj = I - w diag(dinv) A, A's pattern (every row of A holds its diagonal) */
    gs_status (*jacobi_matrix)(const gs_csr *A, const double *dinv, double w, gs_csr **Sj);
    /* r = dinv .* (b - y) (y NULL: y = 0); d = a d + c r (a = 0: d is not read);
     * x = x + d (x_zero: x = d) */
    gs_status (*smooth_step)(int64_t n, const double *dinv, const double *b, const double *y,
                             double a, double c, double *d, double *x, int x_zero);
    /* one stage of two-stage Gauss-Seidel on square A: g = dinv .* (b - y - T gin), T the
     * strictly lower part of A (upper: the strictly upper part; columns >= rows, a rank's halo,
     * left out), y NULL: 0, gin NULL: T gin = 0; g NULL: not stored; x not NULL: x = x + g
     * (x_zero: x = g). Rows read gin only, so every row is independent */
    gs_status (*gs_stage)(const gs_csr *A, int upper, const double *dinv, const double *b,
                          const double *y, const double *gin, double *g, double *x, int x_zero);
    /* x[i] = a uniform value in [-1, 1) from hash(i + seed) */
    gs_status (*fill_random)(int64_t n, uint32_t seed, double *x);
    /* nonzeros per row of A: mean, standard deviation, max */
    gs_status (*row_stats)(const gs_csr *A, double *mean, double *std, int32_t *max);
    /* C = S T for a T with at most one entry per row (the tentative prolongator of the
     * data-parallel path): the structural product, rows sorted, as gs_spgemm gives it */
    gs_status (*times_tentative)(const gs_csr *S, const gs_csr *T, gs_csr **C);
    /* the Lanczos steps of rho(D^-1 A): y = s .* (A (s .* x)) with s = sqrt(dinv), and the
     * three-term update vp = c (w - a v - b vp), with t = s .* vp (the next SpMV's input) when
     * t is not NULL */
    gs_status (*scaled_spmv)(const gs_csr *A, const double *s, const double *x, double *y);
    gs_status (*lanczos_update)(int64_t n, const double *w, const double *v, double a, double b,
                                double c, double *vp, const double *s, double *t);
    /* ---- classical AMG (amg/coarsen/gs_amg_classical.c; the host reference in
     * amg/coarsen/gs_amg_classical_host.c): S is the classical strength graph, row i the j that
     * i strongly depends on (c_ij > theta m_i, row by row), sorted */
    /* PMIS C/F splitting in synchronous rounds: a point nobody depends on is F; an undecided
     * point whose (influence count, hash, index) is larger than every undecided neighbour's in
     * S and S^T becomes C, and the undecided points depending on a C point become F; a dense
     * row of A (more than dense entries, 0: none) is F from the start.
     * cmap[i]: the coarse index of C point i (C points numbered in index order), -1 for F */
    gs_status (*pmis)(const gs_csr *S, const gs_csr *A, int32_t dense, int32_t *cmap,
                      int32_t *nc);
    /* the classical strength graph (c_ij > 0 and c_ij > theta m_i, m_i the largest c_ik of row
     * i: relative to row i alone, not symmetric) where a dense row of A (more than
     * dense entries; 0: none) has no strong couplings and is no row's strong neighbour: PMIS
     * makes it an F point that interpolates from nothing (the smoother alone corrects it), so
     * its long row does not spread into every coarse row near it */
    gs_status (*classical_strength)(const gs_csr *A, double theta, int32_t dense, gs_csr **S);
    /* the extended+i interpolation of F points in two products: AFC (rows x nc): row i of an F
     * point holds its strong C couplings a_ij at column cmap[j], beta[i] their sum (C rows
     * empty, beta 0); then M (rows x rows): row i of an F point holds 1 at (i, i) and
     * a_ik / (beta_k + a~_ki) for each strong F neighbour k (a~_ki = a_ki when its sign is
     * opposite to a_kk's, else 0; a zero denominator drops the entry into the diagonal), and
     * d[i] = a_ii + its weak couplings + the dropped ones + sum_k a_ik a~_ki / (beta_k + a~_ki)
     * (gs_amg_ff_diag: at least a quarter of a_ii, on its side); C rows empty */
    gs_status (*classical_fc)(const gs_csr *A, const gs_csr *S, const int32_t *cmap, int32_t nc,
                              gs_csr **AFC, double *beta);
    gs_status (*classical_ff)(const gs_csr *A, const gs_csr *S, const int32_t *cmap,
                              const double *beta, gs_csr **M, double *d);
    /* P (rows x nc) from X = M AFC: a C row holds 1 at cmap[i]; an F row w = -X_i / d[i]
     * without zeros, truncated to its pmax largest (0: all; ties to the lower column) of size at
     * least trunc max |w| and rescaled to keep its sum; rows sorted */
    gs_status (*classical_p)(const gs_csr *X, const int32_t *cmap, const double *d, int32_t nc,
                             int pmax, double trunc, gs_csr **P);
    /* over A's off-diagonal entries (i, j) (those next to a zero dinv left out): the share
     * whose diagonals differ by more than 2x (|dinv_i / dinv_j| outside [1/2, 2]: how much the
     * coefficients vary between neighbours, 0 on a constant-coefficient stencil), and the
     * share of the diagonal's sign (a_ij dinv_i > 0: positive couplings, as finite elements on
     * unstructured meshes have) */
    gs_status (*variation)(const gs_csr *A, const double *dinv, double *varied,
                           double *positive);
    /* the cycle recorded once and replayed (NULL on the host): begin capturing the stream's
     * work, end it into an executable graph (also after a failure inside), replay, free */
    gs_status (*graph_begin)(void);
    gs_status (*graph_end)(void **exec);
    gs_status (*graph_launch)(void *exec);
    void (*graph_destroy)(void *exec);
} gs_amg_ops;

/* one table per backend (gs_amg_host.c, gs_amg_cuda.cu), listed in spmv/core/gs_backend.c; the
 * AMG reaches them through gs_backend_module(loc, GS_MODULE_AMG) */
extern const gs_amg_ops gs_amg_host_ops;

/* row i (of row pointers rp) is dense: more than `dense` entries (0: no row is) */
static inline GS_AMG_HD int gs_amg_dense_row(const int32_t *rp, int32_t dense, int64_t i)
{
    return dense > 0 && rp[i + 1] - rp[i] > dense;
}

/* the classical steps on the host (amg/coarsen/gs_amg_classical_host.c), as gs_amg_ops says */
gs_status gs_amg_pmis_host(const gs_csr *S, const gs_csr *A, int32_t dense, int32_t *cmap,
                           int32_t *nc);
/* (in amg/coarsen/gs_amg_coarsen_host.c, beside the other strength measures) */
gs_status gs_amg_classical_strength_host(const gs_csr *A, double theta, int32_t dense,
                                         gs_csr **S);
gs_status gs_amg_classical_fc_host(const gs_csr *A, const gs_csr *S, const int32_t *cmap,
                                   int32_t nc, gs_csr **AFC, double *beta);
gs_status gs_amg_classical_ff_host(const gs_csr *A, const gs_csr *S, const int32_t *cmap,
                                   const double *beta, gs_csr **M, double *d);
gs_status gs_amg_classical_p_host(const gs_csr *X, const int32_t *cmap, const double *d,
                                  int32_t nc, int pmax, double trunc, gs_csr **P);
gs_status gs_amg_variation_host(const gs_csr *A, const double *dinv, double *varied,
                                 double *positive);

/* the PMIS priority of point i with influence count c: larger wins (host and device alike) */
static inline GS_AMG_HD uint64_t gs_amg_pmis_prio(int32_t c, int32_t i)
{
    return (uint64_t)(uint32_t)c << 32 | (uint64_t)gs_amg_hash((uint32_t)i) << 2;
}
static inline GS_AMG_HD int gs_amg_pmis_above(uint64_t pa, int32_t a, uint64_t pb, int32_t b)
{
    return pa > pb || (pa == pb && a > b);
}

/* the extended+i diagonal d of an F row from its sum di and a_ii: kept on a_ii's side of zero
 * and at least a quarter of its size (lumped weak couplings of the other sign can nearly cancel
 * a_ii, and 1 / d scales the whole row of P) */
static inline GS_AMG_HD double gs_amg_ff_diag(double di, double aii)
{
    return aii > 0 ? fmax(di, 0.25 * aii) : fmin(di, 0.25 * aii);
}

/* whether a classical P entry (size s, column c) ranks above another (size t, column e) in the
 * truncation: larger first, ties to the lower column */
static inline GS_AMG_HD int gs_amg_trunc_above(double s, int32_t c, double t, int32_t e)
{
    return s > t || (s == t && c < e);
}

/* The general host steps (amg/coarsen/gs_amg_coarsen_host.c; the dense inverse in
 * amg/coarse/gs_amg_coarse.c). */
/* the strength step of the host table (gs_amg_ops.strength), any b: on the node graph of a
 * block matrix (b unknowns per node, rows a multiple of b) node J is a strong neighbour of I
 * when ||A_IJ||_F > theta sqrt(||A_II||_F ||A_JJ||_F) */
gs_status gs_amg_strength_block(const gs_csr *A, int b, double theta, int measure, gs_csr **S);
/* the filter step of the host table (see gs_amg_ops.filter) */
gs_status gs_amg_filter_host(const gs_csr *A, double theta, int measure, const double *w,
                             gs_csr **F);
/* *B (host, nodes*b x b column-major): vector c is w_I (w NULL: 1) on unknown c of every node
 * I, 0 elsewhere (the default near-nullspace of a block system, and the form it keeps) */
gs_status gs_amg_block_nullspace(int32_t nodes, int b, const double *w, double **B);
/* PyAMG's standard aggregation (three sequential passes) */
gs_status gs_amg_standard_aggregate(const gs_csr *S, int32_t *agg, int32_t *nagg);
/* tentative prolongator of k vectors (B: n x k column-major, n = nodes * b) by a QR on each
 * aggregate: P is n x nagg*k, Bc (nagg*k x k column-major) the R factors */
gs_status gs_amg_tentative_qr(int32_t nodes, int b, const int32_t *agg, int32_t nagg,
                              const double *B, int k, gs_csr **P, double *Bc);
/* the inverse of the dense n x n matrix A (host CSR), row-major into inv, by LU with partial
 * pivoting; a pivot below 1e-13 of the largest entry counts as a zero direction (its part of
 * the inverse is 0) and *rank says how many pivots were kept */
gs_status gs_amg_dense_inverse(const gs_csr *A, double *inv, int *rank);
/* the pseudo-inverse of the dense n x n symmetric matrix A (host CSR) whose null space is
 * spanned by z (host, n entries): X = (A + s u u^T)^-1 - u u^T / s, u = z / ||z||, s = A's
 * largest entry, row-major into inv; then X u = 0 and A X b = b for every b orthogonal to u,
 * with no tiny pivot to detect (the update makes the matrix regular) */
gs_status gs_amg_dense_pinv(const gs_csr *A, const double *z, double *inv, int *rank);

#ifdef __cplusplus
}
#endif
#endif

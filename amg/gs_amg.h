/* gs_amg.h: smoothed-aggregation algebraic multigrid (Vanek, Mandel, Brezina; in the parallel
 * form of Bell, Dalton and Olson 2012, which the DCSR paper's Algorithm 5 builds on), used as the
 * preconditioner of the Krylov methods.
 *
 * Setup, level by level, where A lives (host or device; the same algorithm code, with the
 * data-parallel steps in amg/ops/gs_amg_host.c and amg/ops/gs_amg_cuda.cu; docs/design.md maps
 * the folders: setup/ the per-level pipeline, coarsen/ strength, aggregation and tentative P,
 * smoothers/ one file per smoother and their registry, coarse/ the coarse solve, cycle/ the
 * cycle):
 *   1. strength (gs_amg_strength): by default "rowmax": with c_ij = -a_ij sign(a_ii), j is a
 *      strong neighbour of i when c_ij > theta max(m_i, m_j), m_i the largest c_ik of row i:
 *      scale-free (a 27-point row counts like a 7-point one), couplings of the diagonal's sign
 *      are weak, and a coupling across a coefficient jump is weak for the large side's row and
 *      so for both; "symmetric": |a_ij| > theta sqrt(|a_ii a_jj|). On the node graph, with
 *      block norms, when a grid point holds several unknowns;
 *   2. aggregation: roots form a distance-2 maximal independent set, found in synchronous
 *      rounds from hashed priorities (deterministic: the host and the GPU find the same
 *      aggregates); each other node joins the root next to it, then the remaining ones join a
 *      neighbour's aggregate. Nodes without strong neighbours are left out (a zero row of P).
 *      "standard" is PyAMG's sequential greedy rule instead (host), the default of a setup on
 *      the host for nodes of at most 2 unknowns (gs_amg_choose_aggregation);
 *   3. tentative prolongator: the near-nullspace B restricted to each aggregate, orthonormalised
 *      (QR); its R factors are the next level's B;
 *   4. prolongator smoothing P = (I - omega/rho D^-1 A) P_tent, rho(D^-1 A) from a few Lanczos
 *      steps; with theta > 0 on a scalar level, A is the filtered matrix (a row's couplings at
 *      most t x its largest dropped and lumped to the diagonal so that the near-nullspace is
 *      kept; t = theta on level 0, a quarter of it a level below) with its own rho, which keeps
 *      P from spreading along weak directions (Vanek, Mandel, Brezina 1996);
 *   5. R = P^T, A_c = R (A P) through gs_spgemm (DCSR row-binned on the device, or cuSPARSE, or
 *      the host product);
 *   6. every level's A, P and R converted to the SpMV format the selector picks for it
 *      (gs_select_spmat with the caller's request, parsed once);
 *   7. the coarsest matrix (at most coarse_size rows, or the last of max_levels) inverted by a
 *      dense LU factorization with partial pivoting, once; the cycle applies the inverse.
 * Cycle: V or W, with a smoother from the registry (gs_smoother.h: weighted Jacobi, l1-Jacobi,
 * Chebyshev on D^-1 A with bounds from the same Lanczos estimate, degree chebyshev_degree on
 * levels 0 and 1 and coarse_chebyshev_degree below, where the SpMVs are cheap), pre- and
 * post-smoothing with the same operator, so the preconditioner is symmetric when A is (CG).
 */
#ifndef GS_AMG_H
#define GS_AMG_H

#include <stdint.h>
#include <stdio.h>

#include "gs_csr.h"
#include "gs_linop.h"
#include "gs_log.h"
#include "gs_select.h"
#include "gs_spgemm.h"
#include "gs_spmat.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_smoother gs_smoother; /* a registered smoother (gs_smoother.h) */
/* AUTO: chosen at the setup (gs_amg_choose_aggregation): STANDARD on the host for nodes of at
 * most 2 unknowns, MIS2 otherwise */
typedef enum gs_amg_aggregation {
    GS_AGG_MIS2 = 0,
    GS_AGG_STANDARD,
    GS_AGG_AUTO
} gs_amg_aggregation;
/* the strength test (gs_amg_ops.h): symmetric: |a_ij| > theta sqrt(|a_ii a_jj|); rowmax: with
 * c_ij = -a_ij sign(a_ii) (couplings of the diagonal's sign are weak), c_ij > theta max(m_i, m_j),
 * m_i the largest c_ik of row i */
typedef enum gs_amg_strength { GS_STRENGTH_SYMMETRIC = 0, GS_STRENGTH_ROWMAX } gs_amg_strength;
/* the AMG method: smoothed aggregation, or classical (Ruge-Stueben) AMG with PMIS coarsening and
 * extended+i interpolation (amg/coarsen/gs_amg_classical.c); AUTO: chosen from the finest
 * matrix (gs_amg_choose: its symmetry, row-length spread, block size and near-nullspace) */
typedef enum gs_amg_method {
    GS_AMG_METHOD_AUTO = 0,
    GS_AMG_METHOD_SA,
    GS_AMG_METHOD_CLASSICAL
} gs_amg_method;

/* classical AMG's restriction: R = P^T (Galerkin), or R = Q^T with Q the extended+i
 * interpolation of A^T on the same C/F splitting (Petrov-Galerkin: for a nonsymmetric A, R follows
 * what the smoother leaves of A^T's error as P follows A's); AUTO: Q^T for a nonsymmetric matrix
 * without irregular rows (gs_amg_choose), P^T otherwise */
typedef enum gs_amg_restriction {
    GS_AMG_RESTRICT_AUTO = 0,
    GS_AMG_RESTRICT_PT,
    GS_AMG_RESTRICT_AT
} gs_amg_restriction;

#define GS_AMG_MAX_LEVELS 50

/* What a setup with new values of the same pattern keeps (amg.reuse, gs_amg_resetup):
 * PROLONGATOR: every level's P and R, and the coarse operators' patterns (their values by
 * gs_galerkin_values); VALUES: the aggregates and tentative prolongators (smoothed aggregation
 * with keep_tentative; P smoothed with the new values, the coarse operators made anew);
 * NONE: nothing (a full setup); AUTO: the caller's policy (the driver keeps
 * the prolongator while the iterations stay within GS_AMG_REUSE_GROWTH x those after the last
 * full setup). */
typedef enum gs_amg_reuse {
    GS_AMG_REUSE_AUTO = 0,
    GS_AMG_REUSE_VALUES,
    GS_AMG_REUSE_PROLONGATOR,
    GS_AMG_REUSE_NONE
} gs_amg_reuse;
#define GS_AMG_REUSE_GROWTH 1.25

/* Which operator of a level a format is chosen for. */
/* The named choices of the amg.* keys (gs_amg_choices.c): per choice point a table of name,
 * help line and the setting it stands for (a gs_amg_method, gs_amg_strength, ... value; for the
 * cycle 1 = W). */
typedef enum gs_amg_choice_kind {
    GS_AMG_CHOICE_METHOD = 0,
    GS_AMG_CHOICE_STRENGTH,
    GS_AMG_CHOICE_AGGREGATION,
    GS_AMG_CHOICE_CYCLE,
    GS_AMG_CHOICE_RESTRICTION,
    GS_AMG_CHOICE_REUSE,
    GS_AMG_CHOICES
} gs_amg_choice_kind;
typedef struct gs_amg_choice {
    const char *name, *help;
    int value;
} gs_amg_choice;
/* entry i of kind k (NULL past the end); the entry named `name` (NULL: none); "a|b|c" */
const gs_amg_choice *gs_amg_choice_at(gs_amg_choice_kind k, int i);
const gs_amg_choice *gs_amg_choice_find(gs_amg_choice_kind k, const char *name);
const char *gs_amg_choice_list(gs_amg_choice_kind k);
/* the name of the entry of kind k standing for `value` ("?" for none) */
const char *gs_amg_choice_name(gs_amg_choice_kind k, int value);

typedef enum gs_amg_op_kind { GS_AMG_OP_A = 0, GS_AMG_OP_P, GS_AMG_OP_R } gs_amg_op_kind;

/* Setup phases reported apart (seconds): the AMG's own; io's result record names its columns
 * after them (the driver copies them across) */
typedef enum gs_amg_phase {
    GS_AMG_PHASE_STRENGTH = 0,
    GS_AMG_PHASE_AGGREGATE,
    GS_AMG_PHASE_PROLONG,
    GS_AMG_PHASE_RAP,
    GS_AMG_PHASE_CONVERT,
    GS_AMG_PHASE_COARSE,
    GS_AMG_PHASES
} gs_amg_phase;
extern const char *const gs_amg_phase_names[GS_AMG_PHASES]; /* "strength", "aggregation", ... */

typedef struct gs_amg_params {
    gs_amg_method method;
    double theta;
    gs_amg_strength strength;
    int filter;                /* theta > 0, one unknown a node: smooth the prolongator with the
                                * filtered matrix (weak couplings lumped to the diagonal) */
    gs_amg_aggregation aggregation;
    int max_levels;
    int64_t coarse_size;
    gs_spgemm_method galerkin; /* AUTO: DCSR on the device, HOST on the host */
    int cycle_w;               /* 0: V, 1: W */
    const gs_smoother *smoother; /* NULL: auto, Chebyshev when the finest A is symmetric, else
                                  * l1-Jacobi (Chebyshev assumes a real spectrum) */
    /* classical AMG: strength -a_ij sign(a_ii) > classical_theta max_k (-a_ik sign(a_ii)) (row
     * by row); each row of P keeps at most interp_max_elements entries (0: 4, or 1 when the
     * finest matrix has irregular rows) of size at least interp_trunc x its largest, rescaled to
     * the row's sum */
    double classical_theta;
    gs_amg_restriction restriction;
    int interp_max_elements;
    double interp_trunc;
    double smoother_omega;     /* weighted Jacobi damping; 0: 4/3 / rho */
    int chebyshev_degree;
    int coarse_chebyshev_degree; /* degree on levels >= 2 (their SpMVs are cheap); 0: the same */
    double chebyshev_ratio;    /* Chebyshev interval [hi / r, hi], hi = 1.1 rho(D^-1 A),
                                * r = max(chebyshev_ratio, degree^2) */
    int presweeps, postsweeps;
    int block_size;            /* unknowns per grid point (1: scalar) */
    int smooth_prolongator;
    double prolongator_omega;  /* P = (I - prolongator_omega / rho D^-1 A) P_tent */
    const double *nullspace;   /* host, rows x nullspace_k, column-major; NULL: constants */
    int nullspace_k;
    int nullspace_constant;    /* A 1 = 0 (rows summing to zero): the coarsest level's solve is
                                * the pseudo-inverse that projects out the constant's coarse
                                * form (B_c c, c the coefficients of the constant in B) */
    /* how every level's A, P and R get their SpMV format (borrowed, read during gs_amg_setup
     * only; parsed once by the caller); NULL: gsolve's CSR kernel everywhere */
    const gs_select_request *select;
    int trace;                 /* print every setup step's time to stderr (and each operator's
                                * format choice) */
    /* free the arrays of the CSR copies the one-vector cycle does not read, each as soon as
     * its level's format is made (the operators whose format is its own layout: CDS, CMRS,
     * SURAA), so that they never sit beside the formats: GS_AMG_DROP_OWN the AMG's own (A of
     * the levels below the finest, R), GS_AMG_DROP_ALL the finest level's A too (the caller's
     * matrix, whose arrays the caller then reads no more; its sizes stay). Afterwards the
     * hierarchy takes no re-setup and no block cycle (both refuse). Not with a smoother that
     * reads the CSR (Gauss-Seidel): A stays then. 0: keep all (a re-setup or several
     * right-hand sides may follow). */
    int drop_csr;
    int keep_tentative;        /* keep each level's tentative prolongator (and the filter's
                                * weights) for a re-setup that smooths P anew
                                * (GS_AMG_REUSE_VALUES) */
    int first_level;           /* the number of this hierarchy's finest level in a larger one
                                * (the levels gathered below distributed ones, gs_amg_dist.h):
                                * the per-level choices (Chebyshev degree, filter threshold,
                                * spmv.levels) and the diagonal check of the user's matrix count
                                * from it; 0 normally */
} gs_amg_params;

enum { GS_AMG_DROP_NONE = 0, GS_AMG_DROP_OWN = 1, GS_AMG_DROP_ALL = 2 };

void gs_amg_params_default(gs_amg_params *p);

/* 1 when a setup with drop_csr = GS_AMG_DROP_ALL of a finest matrix of csr_bytes at loc makes
 * that level's format after its Galerkin product (a CSR view serving the steps before): on the
 * device, where the CSR takes more than 1/16 of its memory (GSOLVE_AMG_DEFER overrides, on the
 * host too: the tests' way to run the deferred order there) */
int gs_amg_defers_finest(double csr_bytes, gs_loc loc);

/* The Chebyshev smoother of level l holding share of level 0's nonzeros: its degree, and the
 * ratio of its interval's bounds for a degree (the same on the host and the device). */
int gs_amg_level_degree(const gs_amg_params *p, int l, double share);
double gs_amg_level_ratio(const gs_amg_params *p, int degree);

/* One level as reported. */
typedef struct gs_amg_level_report {
    int32_t rows, cols;
    int64_t nnz;
    double mean, std; /* nonzeros per row of A */
    int32_t max;
    double rho;       /* the largest eigenvalue of D^-1 A by Lanczos (the smoothers' scale) */
    int rho_known;    /* rho was estimated (not on a coarsest level the dense solve takes) */
    char format[16], format_p[16], format_r[16];
    char reason[GS_REASON_LEN];
    int fell_back; /* A's chosen format refused it, so csr runs (reason says why) */
    /* a level split across MPI ranks: the least and most rows and nonzeros one rank holds
     * (0 when the level is on one process) */
    int64_t rank_rows_min, rank_rows_max, rank_nnz_min, rank_nnz_max;
} gs_amg_level_report;

typedef struct gs_amg_report {
    int levels;
    gs_amg_level_report level[GS_AMG_MAX_LEVELS];
    double operator_complexity, grid_complexity;
    double phase_s[GS_AMG_PHASES]; /* setup split by phase (gs_amg_phase) */
    double setup_s;
    char coarse_desc[160]; /* "dense LU inverse, 112 x 112" */
    gs_amg_method method;  /* the method that ran (SA or classical) */
    gs_amg_aggregation aggregation; /* smoothed aggregation's rule that ran (MIS2 or STANDARD) */
    gs_amg_restriction restriction; /* classical AMG's restriction that ran (PT or AT) */
    char smoother[16];     /* the smoother that ran (its amg.smoother name) */
    int presweeps, postsweeps; /* the sweeps that ran */
    char choice[320];      /* what the setup chose from the matrix and why (empty: nothing to
                            * choose: every choice was given) */
    char desc[256];        /* "V cycle, Chebyshev, 1+1 sweeps, mis2 aggregation ..." */
    /* the work of this hierarchy's setups so far, counted (a full setup, then re-setups with
     * new values, gs_amg_resetup): full setups, re-setups, levels coarsened (aggregation or
     * C/F splitting), prolongators built, Galerkin products made with their pattern, and made
     * into a kept pattern */
    int64_t setups, resetups, coarsenings, prolongators, galerkin_products, galerkin_values;
    char reused[200]; /* what the last setup kept ("": it was a full setup) */
} gs_amg_report;

/* Where the cycle's time goes, per level and operation (gs_amg_profile_enable): smoother
 * sweeps, the residual b - A x (one SpMV of the level's A), the restriction R r, the
 * prolongation P x (with its update of x), and the coarsest level's solve. */
typedef enum gs_amg_prof_op {
    GS_PROF_SMOOTH = 0,
    GS_PROF_RESIDUAL,
    GS_PROF_RESTRICT,
    GS_PROF_PROLONG,
    GS_PROF_COARSE,
    GS_PROF_OPS
} gs_amg_prof_op;
extern const char *const gs_amg_prof_op_names[GS_PROF_OPS]; /* "smoother", "residual", ... */

typedef struct gs_amg_profile {
    int levels;
    int64_t calls[GS_AMG_MAX_LEVELS][GS_PROF_OPS];
    double seconds[GS_AMG_MAX_LEVELS][GS_PROF_OPS];
    /* the bytes the operations moved by the formats' byte models (gs_spmat_bytes: matrix and
     * vectors of each SpMV) and 8 a vector entry read or written by the vector steps; 0 where
     * not counted (a smoother without a byte model) */
    double bytes[GS_AMG_MAX_LEVELS][GS_PROF_OPS];
} gs_amg_profile;

typedef struct gs_amg gs_amg;

/* Build the hierarchy of A (square; host or device; borrowed, must outlive the result).
 * `where` names the matrix for messages. */
gs_status gs_amg_setup(const gs_csr *A, const gs_amg_params *p, const char *where, gs_amg **out);
void gs_amg_destroy(gs_amg **amg);

/* A re-setup after the values of the finest matrix changed in place (the A given to
 * gs_amg_setup, same pattern): how = GS_AMG_REUSE_PROLONGATOR keeps every level's P and R and
 * recomputes the coarse operators into their patterns (gs_galerkin_values), every level's SpMV
 * form in the format it had, its diagonal, rho and smoother, and the coarse solve. The report's
 * setup_s, phases, rho and reused say what the re-setup did. Level 0's SpMV form (gs_amg_level_op)
 * is a new object afterwards. A failure leaves the hierarchy unusable: destroy it and set up
 * anew. */
gs_status gs_amg_resetup(gs_amg *amg, gs_amg_reuse how);
/* 1 when gs_amg_resetup(amg, GS_AMG_REUSE_VALUES) can run: smoothed aggregation set up with
 * keep_tentative */
int gs_amg_can_resetup_values(const gs_amg *amg);

const gs_amg_report *gs_amg_get_report(const gs_amg *amg);

/* Host copies of level l's operators (for tests); any output may be NULL. agg receives the
 * aggregate of every node of level l (-1: none) as a host array of rows / block entries that
 * the caller frees with gs_free; P and R are NULL on the coarsest level. */
gs_status gs_amg_level_download(const gs_amg *amg, int l, gs_csr **A, gs_csr **P, gs_csr **R,
                                int32_t **agg, int32_t *nnodes);

/* The SpMV form of level l's A (borrowed from the hierarchy). */
const gs_spmat *gs_amg_level_op(const gs_amg *amg, int l);

/* Time every operation of the cycle (on: the device is synchronized around each one and the
 * cycle is not replayed as a CUDA graph, so a profiled solve runs slower than a plain one; off,
 * the default: no cost). Enabling clears the counts. */
void gs_amg_profile_enable(gs_amg *amg, int on);
const gs_amg_profile *gs_amg_get_profile(const gs_amg *amg);

/* z = M^-1 r: one cycle from a zero initial guess. */
gs_status gs_amg_apply(gs_amg *amg, const gs_vec *r, gs_vec *z);

/* Z = M^-1 R for k columns at once (gs_vec.h's blocks: R and Z of n k values, entry (i, c) at
 * i k + c): the cycle with every product a block product over each level's CSR
 * (gs_block_spmm), from a zero initial guess. GS_ERR_UNSUPPORTED when the smoother has no block
 * form (gs_smoother.h) or the hierarchy spans MPI ranks: apply column by column then. */
gs_status gs_amg_apply_block(gs_amg *amg, int k, const gs_vec *R, gs_vec *Z);
/* 1 when gs_amg_apply_block can run on this hierarchy */
int gs_amg_has_block(const gs_amg *amg);

/* The preconditioner as an operator (borrows amg). */
gs_linop gs_amg_linop(gs_amg *amg);

/* Print the level table, complexities and setup phases (the console's AMG block). */
void gs_amg_report_print(const gs_amg_report *r, const gs_out *out);

#ifdef __cplusplus
}
#endif
#endif

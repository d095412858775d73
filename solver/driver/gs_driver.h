/* gs_driver.h: one solve from a configuration: backend choice, preconditioner setup, the
 * Krylov iterations, the true residual, timings and the result record. */
#ifndef GS_DRIVER_H
#define GS_DRIVER_H

#include <signal.h>

#include "gs_amg.h"
#include "gs_keys.h"
#include "gs_log.h"
#include "gs_result.h"
#include "gs_system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the caller gives a solve beside configuration and system. */
typedef struct gs_driver_io {
    gs_out out; /* the header and the iteration lines as the run goes (fn NULL: nowhere) */
    const volatile sig_atomic_t *interrupt; /* raised (a signal's number): the iterations stop
                                             * with reason "interrupted" (NULL: never) */
    int threads;             /* host threads when run.threads is 0 (0: OpenMP's default) */
    const char *threads_why; /* where that count came from ("": OpenMP's default) */
    int threads_exact;       /* the user asked for that count: not reduced on small problems */
    int one_shot; /* one solve of one vector follows the setup, and no re-setup: the setup frees
                   * the CSR copies whose formats do not read them (gs_amg_params.drop_csr, and
                   * the matrix's device copy beside its SpMV format) */
} gs_driver_io;

typedef struct gs_run {
    gs_result res; /* fields point into the arrays below */
    double *x;     /* solution on the host */
    double *hist, *hist_t;
    int *hist_it;
    int64_t hist_len, hist_cap;
    char *config_text;
    int verbosity;
    double t_solve0;
    double upload_s;         /* host -> device copy of A, part of setup_s */
    double transfer_s;       /* the copy alone within upload_s */
    double pool_wait_s;      /* the setup's wait for the device pool grown ahead (the slowest
                              * rank's), part of setup_s */
    double convert_s;        /* conversion of A into the SpMV format, part of setup_s */
    char format_desc[160];   /* the format's description of the stored matrix */
    char format_reason[GS_REASON_LEN]; /* why the selector chose it */
    gs_amg_report *amg;      /* the AMG hierarchy's report (AMG runs), else NULL */
    gs_level_info *levels;   /* res.levels entries, res.level_info points here */
    const gs_out *out;       /* the header and the iteration lines go here (NULL: nowhere) */
    int monitor_every;       /* output.monitor: an iteration line every this many (0: off) */
    int threads;             /* host threads the run used */
    char threads_why[96];    /* where that count came from */
    char hint[768];          /* what to try after a failed solve, one line each ("": none) */
    double nullspace_shift;  /* problem.nullspace = "constant": ||b_proj - b|| / ||b|| (the
                              * projection of b orthogonal to the constant); -1: none */
    /* output.profile: the Krylov method's A SpMV and preconditioner applications (calls,
     * seconds, synchronized), the AMG cycle's split by level (NULL: no AMG), the compact form
     * the CSV and the record hold ("" when not profiled) */
    int profiled;
    int64_t prof_calls[2];
    double prof_s[2];
    /* the bytes they moved (the formats' byte models; [1]: the AMG cycle's, 0 when not
     * counted), the Krylov method's vector bytes (CG's; 0: not counted), the backend's copy
     * bandwidth (bytes/s, gs_backend_copy_bandwidth): the roofline of the profile */
    double prof_bytes[2], prof_vec_bytes, copy_bw;
    gs_amg_profile *amg_prof;
    char *profile;
    /* under MPI (res.ranks > 1): the least and most rows and nonzeros of one rank, and how halos
     * travel ("page-locked host staging" or "CUDA-aware MPI"; "" on the host) */
    int64_t rank_rows[2], rank_nnz[2];
    char comm_desc[160];
    /* several right-hand sides (problem.rhs with nrhs > 1 columns): each column's iterations,
     * whether it converged, its true residual; whether they ran together (block CG) */
    int nrhs, together;
    /* device memory (bytes; 0 on the host): the most in use during the setup (of rank 0 under
     * MPI), and what the device pool held at the solve's end (in use or kept for reuse) */
    size_t mem_setup_peak, mem_pool;
    int *col_it, *col_conv;
    double *col_res;
} gs_run;

/* Solve problem p as c says; run->res is filled (non-convergence is a result, not an error).
 * Messages about the backend choice go to the log (gs_log.h). To io->out, as the run goes: the
 * header (verbosity >= 1) once the setup is done, before the first iteration; the iteration
 * lines (every 10 at verbosity 2, every one at 3, every output.monitor). io->interrupt raised
 * stops the iterations: reason "interrupted", x and the history as far as they got. The
 * caller completes the record's context (the application: gs_results_set_context, then
 * gs_driver_context_amg). */
gs_status gs_driver_solve(const gs_config *c, const gs_problem *p, gs_run *run,
                          const gs_driver_io *io);

/* The same in two steps, for solves that share a setup: gs_driver_setup does everything up to
 * the first iteration that does not depend on b and x0 (backend, upload, formats,
 * preconditioner; run->res.setup_s); gs_driver_run solves with b and the initial guess x (n
 * values each, on the host for where = GS_LOC_HOST, else in device memory), x overwritten with
 * the solution, run->res filled for this solve. */
typedef struct gs_engine gs_engine;
gs_status gs_driver_setup(const gs_config *c, const gs_problem *p, gs_run *run,
                          const gs_driver_io *io, gs_engine **out);
gs_status gs_driver_run(gs_engine *e, const gs_config *c, const gs_problem *p, gs_run *run,
                        const gs_driver_io *io, const double *b, double *x, gs_loc where);
void gs_engine_destroy(gs_engine **e);
/* z = M r: the preconditioner once (one AMG cycle from z = 0; Jacobi's D^-1 r; r for none), r
 * and z n values on the host (where = GS_LOC_HOST) or in device memory */
gs_status gs_engine_precondition(gs_engine *e, const double *r, double *z, gs_loc where);
/* the engine's AMG hierarchy (NULL without AMG) */
gs_amg *gs_engine_amg(const gs_engine *e);
/* The setup again after the matrix's values changed (p->A's in place, or p->A_dev's; the same
 * pattern as at gs_driver_setup): with AMG, amg.reuse decides what is kept (prolongator: every
 * level's P and R, gs_amg_resetup; none: a full setup; auto: the prolongator while the last
 * solve took at most GS_AMG_REUSE_GROWTH x the iterations of the first solve after the last
 * full setup); other preconditioners are made anew. run is filled as gs_driver_setup fills it.
 * A failure leaves e unusable: destroy it. */
gs_status gs_driver_update(gs_engine *e, const gs_config *c, const gs_problem *p, gs_run *run,
                           const gs_driver_io *io);
/* Several right-hand sides at once (gs_driver_block.c): 1 when e can solve them together (CG
 * with AMG whose smoother has a block form, or with no preconditioner; no null-space
 * projection). gs_driver_run_block solves the k <= GS_BLOCK_MAX columns of B (n values each, one
 * after another, at where) into X's (their initial guesses on entry) by block CG, one block
 * product with A and one block cycle an iteration for all columns, each column to its own
 * tolerance; per column its iterations, whether it converged and its true residual ||b - Ax|| /
 * ||b||; run->res: the most iterations, the largest residual, the reason of the worst column,
 * the time of the whole block. */
int gs_engine_block_ok(const gs_engine *e, const gs_config *c);
/* The nrhs columns of p->b (x0 the initial guess of each), together GS_BLOCK_MAX at a time where
 * the engine can, else one after another: run->x (cols x nrhs), run's per-column arrays, run->res
 * over all of them (the most iterations, the largest residual, converged when all did, the
 * solve time of all). */
gs_status gs_driver_run_columns(gs_engine *e, const gs_config *c, const gs_problem *p,
                                gs_run *run, const gs_driver_io *io);
gs_status gs_driver_run_block(gs_engine *e, const gs_config *c, const gs_problem *p, gs_run *run,
                              const gs_driver_io *io, int k, const double *B, double *X,
                              gs_loc where, int *its, int *conv, double *resid);
/* what the last setup of e was ("full" or "prolongator"), and the last full setup's seconds */
const char *gs_engine_setup_kind(const gs_engine *e);
double gs_engine_full_setup_s(const gs_engine *e);

/* The device memory (bytes) the setup of a matrix of `rows` rows and `nnz` entries on this
 * process is expected to hold at its peak, under configuration c with `ranks` ranks: what
 * gsolve grows the device pool to while the problem is read (gs_backend_pool_prepare). A
 * multiple of the matrix's CSR bytes measured on the high-water marks of 3D Poisson's AMG setup
 * (one GPU 5.4x, four ranks 8.2x, both at 16.8M rows a GPU and at 4.2M:
 * bench/results/mpi_scaling_h200x4_2026-11-26b.md and 2026-11-26c.md), more for block
 * systems with several near-nullspace vectors (11x with 3, 34x with 6:
 * bench/results/amg_classes_2026-11-26j.md); 3.6x for one vector on one GPU where the finest
 * format is deferred (gs_amg_defers_finest: 3D Poisson 512^3 and 640^3 peak at 3.3x,
 * bench/results/memory_h200_2026-11-30.md); without AMG the SpMV form and the vectors (2x).
 * What a setup wants beyond it, it grows itself. */
size_t gs_driver_pool_estimate(const gs_config *c, int64_t rows, int64_t nnz, int ranks);

/* The same solve across the MPI ranks (gs_comm.h, more than one): d holds this rank's rows, p
 * the problem's description on rank 0 (NULL on the others; p->A may be NULL), as
 * gs_problem_load_dist gives them. Rank 0 prints the header and the iteration lines to out and
 * receives the gathered solution (run->x); run->res is the same on every rank, so every rank
 * exits alike. A failure on any rank is every rank's (gs_comm_agree). */
struct gs_dproblem;
gs_status gs_driver_solve_dist(const gs_config *c, const gs_problem *p,
                               const struct gs_dproblem *d, gs_run *run, const gs_driver_io *io);

/* The header: problem, solver, preconditioner, format, backend and threads (gs_driver_solve
 * prints it before the iterations). */
void gs_driver_print_header(const gs_config *c, const gs_problem *p, const gs_run *run,
                            const gs_out *out);

/* Print the rest of the console summary of a finished run: result, residual, times, format
 * and AMG details, hints. */
void gs_driver_print_summary(const gs_config *c, const gs_problem *p, const gs_run *run,
                             const gs_out *out);

/* the run's arrays (x, history) into run->res, for the outputs */
void gs_driver_attach_record(gs_run *run);

/* Free what the run holds (not the struct itself). */
void gs_run_release(gs_run *run);

/* The host threads of a run of `rows` rows: run.threads when > 0, else io's count (OpenMP's
 * default when 0), at most one thread per GS_DRIVER_ROWS_PER_THREAD rows; OpenMP's count is
 * set to it; why (len >= 64) says where it came from. 1 without OpenMP. */
#define GS_DRIVER_ROWS_PER_THREAD 20000
int gs_driver_threads(const gs_config *c, const gs_driver_io *io, int64_t rows, char *why,
                      size_t len);

/* the AMG settings that ran (a: the run's report, may be NULL) over the configuration's in r's
 * context: the smoother and sweeps chosen from the matrix, "pmis" when classical AMG ran */
void gs_driver_context_amg(const gs_amg_report *a, gs_result *r);

#ifdef __cplusplus
}
#endif
#endif

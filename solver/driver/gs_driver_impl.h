/* gs_driver_impl.h: the parts of one solve that the one-process driver (gs_driver.c) and the
 * MPI driver (gs_driver_dist.c) share. Not a public header. */
#ifndef GS_DRIVER_IMPL_H
#define GS_DRIVER_IMPL_H

#include "gs_backend.h"
#include "gs_driver.h"
#include "gs_krylov.h"
#include "gs_precond.h"
#include "gs_select.h"

/* run.backend = auto | host | cuda on CUDA device c->run.device; fills r's backend, device */
gs_status gs_driver_choose_backend(const gs_config *c, gs_loc *loc, gs_result *r);
/* the selector's request from the spmv keys */
gs_select_request gs_driver_select_request(const gs_config *c);
/* the amg keys as AMG parameters (p: the block size of a generated problem) */
gs_status gs_driver_amg_params(const gs_config *c, const gs_problem *p, gs_amg_params *ap);
/* an AMG hierarchy's report into the run's record: level table, formats, complexities, phases */
gs_status gs_driver_record_amg(const gs_amg_report *r, gs_run *run);
/* the Krylov method's parameters from the solver keys, with the monitor (history and iteration
 * lines into run) and the flag that stops the solve */
gs_krylov_params gs_driver_krylov_params(const gs_config *c, gs_run *run,
                                         const volatile sig_atomic_t *interrupt);
/* the Krylov monitor: history and iteration lines (ctx: the gs_run) */
void gs_driver_monitor(void *ctx, int it, double rnorm);
/* the result's identification fields from configuration and problem */
void gs_driver_describe(const gs_config *c, const gs_problem *p, gs_result *r);
/* the reason as a word and a sentence, converged, iterations (sig: the signal that interrupted
 * the solve, 0: none) */
void gs_driver_record_reason(const gs_krylov_result *kr, int sig, gs_result *r);
/* what to try after a failed solve (p: the whole problem) */
void gs_driver_hints(const gs_config *c, const gs_problem *p, const gs_krylov_result *kr,
                     gs_run *run);
/* ||b - A x|| / ||b|| from scratch (w: work vector) */
gs_status gs_driver_true_residual(const gs_linop *A, const gs_vec *b, const gs_vec *x, gs_vec *w,
                                  double bnorm, double *out);
/* problem.nullspace = "constant": b projected orthogonal to the constant vector, the shift
 * into run->nullspace_shift (-1 otherwise) */
gs_status gs_driver_project_rhs(const gs_config *c, gs_vec *b, gs_run *run);
/* ||x - x_exact|| / ||x_exact|| on the host */
double gs_driver_solution_error(const double *x, const double *xe, int64_t n);

/* A's SpMV form for the Krylov method (op->M made or borrowed, its description into run) */
typedef struct spmv_op {
    gs_spmat *M;
    int borrowed; /* M belongs to someone else (the AMG hierarchy's finest level) */
    gs_spmat_op op; /* the operator's context (gs_spmat_linop: fused dots with the CSR kernel) */
} spmv_op;
gs_status gs_driver_make_spmv(const gs_config *c, const gs_csr *dA, spmv_op *op, gs_run *run);

/* What a setup leaves for the solves: where they run, A's SpMV form, the preconditioner and
 * the vectors. */
struct gs_engine {
    gs_loc loc;
    int64_t n;
    gs_csr *dA;      /* A on the device (NULL on the host, or borrowed: p->A_dev) */
    int dA_borrowed;
    gs_amg *amg;     /* the preconditioner's hierarchy (borrowed from pc), or NULL */
    gs_pc_build pc;  /* the preconditioner (gs_precond.h) */
    spmv_op aop;
    gs_linop Aop, M;
    int have_M;
    gs_vec *b, *x, *w;
    double setup_s; /* the setup's seconds (upload, formats, preconditioner, vectors) */
    /* amg.reuse = auto: the iterations of the first solve after the last full setup (0: none
     * yet) and of the last solve */
    int full_it, last_it;
    double full_setup_s; /* the last full setup's seconds */
    size_t mem_setup_peak; /* the most device memory in use during the last setup (bytes) */
    int one_shot; /* gs_driver_io's: the setup frees the CSR copies the one solve does not read */
    char setup_kind[16]; /* what the last setup was: "full" or "prolongator" */
};

/* a setup's record begun: run zeroed, the output settings and io's console, the identification
 * fields, the matrix's size (when p holds one) and the host threads */
void gs_driver_record_begin(const gs_config *c, const gs_problem *p, gs_run *run,
                            const gs_driver_io *io);

/* run's device memory: the setup's peak (setup_peak), the peak since the setup began and the
 * pool's bytes now (gs_backend_mem), at a solve's end */
void gs_driver_mem_record(gs_run *run, size_t setup_peak);

/* output.profile (or verbosity 2): every application of A and M timed, the device synchronized
 * around each (*A, and *Mp when not NULL, replaced by timed operators kept in tA, tM and M,
 * which must outlive the solve), amg's cycle split by level and operation; after the solve,
 * gs_driver_profile_end fills the run's profile (a_bytes: one SpMV's bytes, n the rows, for the
 * roofline), the same on one process and across ranks (each rank times its own work; rank 0's
 * is printed). Nothing when not profiled. */
typedef struct gs_driver_timed {
    gs_linop inner;
    const gs_backend_ops *be;
    int64_t *calls;
    double *seconds;
} gs_driver_timed;
void gs_driver_profile_begin(const gs_config *c, gs_run *run, gs_amg *amg, gs_loc loc,
                             gs_driver_timed *tA, gs_driver_timed *tM, gs_linop *A,
                             gs_linop *M, gs_linop **Mp);
gs_status gs_driver_profile_end(const gs_config *c, gs_run *run, gs_amg *amg, gs_loc loc,
                                double a_bytes, int64_t n, int iterations);

/* the engine's preconditioner built (the one it had destroyed first) from its matrix (e->dA or
 * p->A), then its A operator: the preconditioner's (AMG's finest level) or one made by the spmv
 * keys; where names the matrix in messages */
gs_status gs_driver_engine_pc(gs_engine *e, const gs_config *c, const gs_problem *p,
                              const char *where, gs_run *run);
gs_status gs_driver_engine_op(gs_engine *e, const gs_config *c, const gs_problem *p, gs_run *run);

#endif

/* gs_driver.c: from configuration and problem to a solved system and its record. */
#include "gs_driver.h"

#include <math.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gs_backend.h"
#include "gs_time.h"
#include "gs_jacobi.h"
#include "gs_krylov.h"
#include "gs_mm.h"

/* y = A*x for a CSR matrix on the backend of x, through the library kernel (cuSPARSE on
 * the GPU) or the backend's own kernel */
typedef struct csr_op {
    const gs_csr *A;
    gs_status (*spmv)(const gs_csr *A, const gs_vec *x, gs_vec *y);
    gs_status (*spmv_dots)(const gs_csr *A, const gs_vec *x, gs_vec *y, int k,
                           const gs_vec *const *a, const gs_vec *const *b, double *out);
} csr_op;

static gs_status csr_apply(void *ctx, const gs_vec *x, gs_vec *y)
{
    const csr_op *op = ctx;
    return op->spmv(op->A, x, y);
}

static gs_status csr_apply_dots(void *ctx, const gs_vec *x, gs_vec *y, int k,
                                const gs_vec *const *a, const gs_vec *const *b, double *out)
{
    const csr_op *op = ctx;
    return op->spmv_dots(op->A, x, y, k, a, b, out);
}

/* Pick where the solve runs: run.backend = auto | host | cuda. */
static gs_status choose_backend(const gs_config *c, gs_loc *loc, gs_result *r)
{
    const char *why = NULL;
    int ndev = gs_backend_cuda_devices(&why);
    *loc = GS_LOC_HOST;
    gs_str_copy(r->backend, sizeof r->backend, "host");
    gs_str_copy(r->device, sizeof r->device, "cpu");
    if (strcmp(c->run.backend, "host") == 0) return GS_OK;
    if (ndev > 0) {
        gs_status st = gs_backend_cuda_init((int)c->run.device, r->device, sizeof r->device);
        if (st == GS_OK) {
            *loc = GS_LOC_DEVICE;
            gs_str_copy(r->backend, sizeof r->backend, "cuda");
            return GS_OK;
        }
        why = gs_error_message();
        if (strcmp(c->run.backend, "cuda") == 0) return st; /* the message says why */
        fprintf(stderr, "gsolve: the GPU cannot be used (%s): running on the host\n", why);
        gs_error_clear();
        gs_str_copy(r->device, sizeof r->device, "cpu");
        return GS_OK;
    }
    if (strcmp(c->run.backend, "cuda") == 0)
        return GS_ERROR(GS_ERR_CUDA, "run.backend = \"cuda\" but the GPU cannot be used: %s",
                        why ? why : "unknown reason");
    fprintf(stderr, "gsolve: no usable GPU (%s): running on the host\n", why ? why : "none found");
    return GS_OK;
}

/* The SpMV of spmv.format on the chosen backend; the name recorded in the results. */
static gs_status choose_spmv(const gs_config *c, const gs_csr *A, gs_loc loc, csr_op *op,
                             gs_result *r)
{
    const gs_backend_ops *ops = gs_backend_get(loc);
    const char *f = c->spmv.format;
    if (strcmp(f, "cusparse") == 0 && loc != GS_LOC_DEVICE)
        return GS_ERROR(GS_ERR_CONFIG, "spmv.format = \"cusparse\" needs the GPU backend, and "
                                       "this run is on the host");
    /* auto on the GPU: gsolve's CSR kernel, 1.04-1.40x faster than cuSPARSE on every stencil
     * and block matrix measured (bench/results/spmv_h200_2026-11-21.md), except with high
     * row-length variance (power-law graph, std > mean: 0.63x), where cuSPARSE is kept */
    int library = loc == GS_LOC_DEVICE && strcmp(f, "cusparse") == 0;
    if (loc == GS_LOC_DEVICE && strcmp(f, "auto") == 0) {
        gs_row_stats rs;
        gs_csr_row_stats(A, &rs);
        library = rs.std > rs.mean;
    }
    op->spmv = library ? ops->csr_spmv : ops->csr_spmv_own;
    op->spmv_dots = library ? NULL : ops->csr_spmv_dots; /* own kernel: reductions fused */
    gs_str_copy(r->format, sizeof r->format, library ? "cusparse" : "csr");
    return GS_OK;
}

/* Record one residual norm (and print it at verbosity >= 2). */
static void monitor(void *ctx, int it, double rnorm)
{
    gs_run *run = ctx;
    if (run->hist_len == run->hist_cap) {
        int64_t cap = run->hist_cap ? 2 * run->hist_cap : 256;
        double *h = gs_realloc(run->hist, (size_t)cap * sizeof *h);
        if (h) run->hist = h;
        double *t = gs_realloc(run->hist_t, (size_t)cap * sizeof *t);
        if (t) run->hist_t = t;
        int *i = gs_realloc(run->hist_it, (size_t)cap * sizeof *i);
        if (i) run->hist_it = i;
        if (!h || !t || !i) return; /* history is best effort; the solve goes on */
        run->hist_cap = cap;
    }
    run->hist[run->hist_len] = rnorm;
    run->hist_t[run->hist_len] = gs_time_now() - run->t_solve0;
    run->hist_it[run->hist_len] = it;
    run->hist_len++;
    if (run->verbosity >= 3 || (run->verbosity >= 2 && it % 10 == 0)) {
        double bn = run->res.bnorm > 0 ? run->res.bnorm : 1.0;
        printf("  iter %6d  residual %.6e  rel %.6e\n", it, rnorm, rnorm / bn);
    }
}

static gs_krylov_type krylov_type(const char *s)
{
    if (strcmp(s, "bicgstab") == 0) return GS_KRYLOV_BICGSTAB;
    if (strcmp(s, "gmres") == 0) return GS_KRYLOV_GMRES;
    if (strcmp(s, "fgmres") == 0) return GS_KRYLOV_FGMRES;
    return GS_KRYLOV_CG;
}

/* Fill the identification fields of the result from configuration and problem. */
static void describe(const gs_config *c, const gs_problem *p, gs_result *r)
{
    gs_str_copy(r->case_name, sizeof r->case_name, p->name);
    gs_str_copy(r->matrix, sizeof r->matrix, p->matrix);
    gs_str_copy(r->solver, sizeof r->solver, c->solver.type);
    gs_str_copy(r->preconditioner, sizeof r->preconditioner, c->solver.preconditioner);
    r->rows = p->A->rows;
    r->cols = p->A->cols;
    r->nnz = p->A->nnz;
    r->levels = 1;
    r->error = -1.0;
    r->read_s = p->read_s;
}

/* The reason as one word and as a sentence with the method's detail. */
static void record_reason(const gs_krylov_result *kr, gs_result *r)
{
    gs_str_copy(r->reason, sizeof r->reason, gs_reason_name(kr->reason));
    if (kr->detail[0])
        snprintf(r->reason_text, sizeof r->reason_text, "%s: %s", gs_reason_str(kr->reason),
                 kr->detail);
    else
        gs_str_copy(r->reason_text, sizeof r->reason_text, gs_reason_str(kr->reason));
    r->converged = kr->reason > 0;
    r->iterations = kr->iterations;
}

/* ||b - A x|| / ||b|| recomputed from scratch (||b - A x|| when b = 0). */
static gs_status true_residual(const gs_linop *A, const gs_vec *b, const gs_vec *x, gs_vec *w,
                               double bnorm, double *out)
{
    gs_status st = GS_OK;
    double rn = 0.0;
    GS_CHECK(A->apply(A->ctx, x, w));
    GS_CHECK(gs_vec_axpby(1.0, b, -1.0, w));
    GS_CHECK(gs_vec_nrm2(w, &rn));
    *out = bnorm > 0 ? rn / bnorm : rn;
done:
    return st;
}

/* ||x - x_exact|| / ||x_exact|| on the host. */
static double solution_error(const double *x, const double *xe, int64_t n)
{
    double d = 0.0, e = 0.0;
    for (int64_t i = 0; i < n; i++) {
        d += (x[i] - xe[i]) * (x[i] - xe[i]);
        e += xe[i] * xe[i];
    }
    return e > 0 ? sqrt(d / e) : sqrt(d);
}

gs_status gs_driver_solve(const gs_config *c, const gs_problem *p, gs_run *run, FILE *out)
{
    gs_status st = GS_OK;
    gs_vec *b = NULL, *x = NULL, *w = NULL;
    gs_jacobi *J = NULL;
    gs_csr *dA = NULL; /* A on the device */
    gs_linop M, *Mp = NULL;
    gs_loc loc;
    const gs_csr *A = p->A;
    const char *where = p->source[0] ? p->source : p->matrix;
    (void)out;
    memset(run, 0, sizeof *run);
    run->verbosity = (int)c->output.verbosity;
    describe(c, p, &run->res);
    if (A->rows != A->cols)
        GS_FAIL(GS_ERR_INPUT, "%s: the matrix is %d x %d; the solvers need a square matrix", where,
                A->rows, A->cols);
    if (strcmp(c->solver.preconditioner, "amg") == 0)
        GS_FAIL(GS_ERR_UNSUPPORTED,
                "solver.preconditioner = \"amg\": smoothed-aggregation AMG is not in this "
                "version of gsolve yet; use \"jacobi\" or \"none\"");
#ifdef _OPENMP
    if (c->run.threads > 0) omp_set_num_threads((int)c->run.threads);
#endif
    GS_CHECK(choose_backend(c, &loc, &run->res));
    csr_op aop = {NULL, NULL, NULL};
    GS_CHECK(choose_spmv(c, A, loc, &aop, &run->res));
    gs_linop Aop = {A->rows, &aop, csr_apply, aop.spmv_dots ? csr_apply_dots : NULL};

    double t0 = gs_time_now();
    if (loc != GS_LOC_HOST) {
        GS_CHECK(gs_csr_upload(A, loc, &dA));
        GS_CHECK(gs_backend_get(loc)->sync());
        run->upload_s = gs_time_now() - t0;
    }
    aop.A = dA ? dA : A;
    GS_CHECK(gs_vec_create(A->rows, loc, &b));
    GS_CHECK(gs_vec_create(A->rows, loc, &x));
    GS_CHECK(gs_vec_create(A->rows, loc, &w));
    GS_CHECK(gs_vec_set_host(b, p->b));
    GS_CHECK(gs_vec_set_host(x, p->x0));
    if (strcmp(c->solver.preconditioner, "jacobi") == 0) {
        GS_CHECK(gs_jacobi_create(A, loc, where, &J));
        M = gs_jacobi_linop(J);
        Mp = &M;
    }
    GS_CHECK(gs_backend_get(loc)->sync());
    run->res.setup_s = gs_time_now() - t0;

    gs_krylov_params kp = {
        .type = krylov_type(c->solver.type),
        .rtol = c->solver.rtol,
        .atol = c->solver.atol,
        .max_iters = (int)c->solver.max_iters,
        .restart = (int)c->solver.restart,
        .stag_window = (int)c->solver.stagnation_window,
        .monitor = monitor,
        .monitor_ctx = run,
    };
    gs_krylov_result kr;
    GS_CHECK(gs_vec_nrm2(b, &run->res.bnorm));
    run->t_solve0 = gs_time_now();
    GS_CHECK(gs_krylov_solve(&kp, &Aop, Mp, b, x, &kr));
    GS_CHECK(gs_backend_get(loc)->sync());
    run->res.solve_s = gs_time_now() - run->t_solve0;
    run->res.total_s = run->res.setup_s + run->res.solve_s;
    record_reason(&kr, &run->res);

    GS_CHECK(true_residual(&Aop, b, x, w, run->res.bnorm, &run->res.rel_residual));
    GS_CHECK(gs_alloc_array((size_t)A->cols, sizeof(double), "solution", (void **)&run->x));
    GS_CHECK(gs_vec_get_host(x, run->x));
    if (p->x_exact) run->res.error = solution_error(run->x, p->x_exact, A->cols);
    GS_CHECK(gs_config_to_text(c, &run->config_text));
    run->res.x = run->x;
    run->res.history = run->hist;
    run->res.history_time = run->hist_t;
    run->res.history_iter = run->hist_it;
    run->res.history_len = run->hist_len;
    run->res.config_text = run->config_text;
done:
    gs_vec_destroy(&b);
    gs_vec_destroy(&x);
    gs_vec_destroy(&w);
    gs_jacobi_destroy(&J);
    gs_csr_destroy(&dA);
    return st;
}

void gs_driver_print_summary(const gs_config *c, const gs_problem *p, const gs_run *run, FILE *out)
{
    const gs_result *r = &run->res;
    gs_row_stats rs;
    gs_csr_row_stats(p->A, &rs);
    fprintf(out, "problem   %s\n", p->matrix);
    fprintf(out, "          rows %lld  cols %lld  nnz %lld  per row: mean %.2f std %.2f max %d\n",
            (long long)r->rows, (long long)r->cols, (long long)r->nnz, rs.mean, rs.std, rs.max);
    fprintf(out, "          rhs %s  x0 %s\n", p->rhs, p->x0_desc);
    fprintf(out, "solver    %s  preconditioner %s  format %s  backend %s (%s)\n", r->solver,
            r->preconditioner, r->format, r->backend, r->device);
    fprintf(out, "          rtol %g  atol %g  max_iters %lld", c->solver.rtol, c->solver.atol,
            (long long)c->solver.max_iters);
    if (strstr(r->solver, "gmres")) fprintf(out, "  restart %lld", (long long)c->solver.restart);
    fputc('\n', out);
    fprintf(out, "result    %s after %d iterations\n", r->reason_text, r->iterations);
    fprintf(out, "residual  true ||b-Ax||/||b|| = %.3e\n", r->rel_residual);
    if (r->error >= 0) fprintf(out, "error     ||x-x_exact||/||x_exact|| = %.3e\n", r->error);
    fprintf(out, "time      read %.3f s  setup %.3f s  solve %.3f s  total %.3f s", r->read_s,
            r->setup_s, r->solve_s, r->total_s);
    if (r->iterations > 0)
        fprintf(out, "  (%.3f ms per iteration)", 1e3 * r->solve_s / r->iterations);
    fputc('\n', out);
    if (run->upload_s > 0) {
        double mb = (12.0 * (double)r->nnz + 4.0 * ((double)r->rows + 1)) / 1e6;
        fprintf(out, "upload    matrix %.1f MB in %.2f ms (%.1f GB/s), part of setup\n", mb,
                1e3 * run->upload_s, mb / 1e3 / run->upload_s);
    }
}

gs_status gs_driver_write_outputs(const gs_config *c, const gs_run *run)
{
    gs_status st = GS_OK;
    if (c->output.csv[0]) GS_CHECK(gs_results_csv_append(c->output.csv, &run->res));
    if (c->output.hdf5[0]) GS_CHECK(gs_results_hdf5_write(c->output.hdf5, &run->res));
    if (c->output.history[0]) GS_CHECK(gs_results_history_write(c->output.history, &run->res));
    if (c->output.solution[0])
        GS_CHECK(gs_mm_write_vector(c->output.solution, run->x, run->res.cols));
done:
    return st;
}

void gs_run_release(gs_run *run)
{
    gs_free(run->x);
    gs_free(run->hist);
    gs_free(run->hist_t);
    gs_free(run->hist_it);
    gs_free(run->config_text);
    memset(run, 0, sizeof *run);
}

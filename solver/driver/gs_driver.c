/* gs_driver.c: from configuration and problem to a solved system and its record. */
#include "gs_driver.h"
#include "gs_driver_impl.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gs_amg.h"
#include "gs_backend.h"
#include "gs_buf.h"
#include "gs_comm.h"
#include "gs_dist_op.h"
#include "gs_jacobi.h"
#include "gs_log.h"
#include "gs_precond.h"
#include "gs_krylov.h"
#include "gs_select.h"
#include "gs_smoother.h"
#include "gs_spmat.h"
#include "gs_time.h"

const char *const gs_phase_names[GS_PHASES] = {"strength",    "aggregation", "prolongator",
                                               "rap",         "convert",     "coarse"};

/* A in the chosen SpMV format, as the Krylov method's operator */


static gs_status timed_apply(void *ctx, const gs_vec *x, gs_vec *y)
{
    gs_driver_timed *t = ctx;
    gs_status st = t->be->sync();
    double t0 = gs_time_now();
    if (st == GS_OK) st = t->inner.apply(t->inner.ctx, x, y);
    if (st == GS_OK) st = t->be->sync();
    *t->seconds += gs_time_now() - t0;
    ++*t->calls;
    return st;
}

static gs_status timed_apply_dots(void *ctx, const gs_vec *x, gs_vec *y, int k,
                                  const gs_vec *const *a, const gs_vec *const *b, double *out)
{
    gs_driver_timed *t = ctx;
    gs_status st = t->be->sync();
    double t0 = gs_time_now();
    if (st == GS_OK) st = t->inner.apply_dots(t->inner.ctx, x, y, k, a, b, out);
    if (st == GS_OK) st = t->be->sync();
    *t->seconds += gs_time_now() - t0;
    ++*t->calls;
    return st;
}

static gs_linop timed(gs_driver_timed *t, gs_linop inner, const gs_backend_ops *be, int64_t *calls,
                      double *seconds)
{
    *t = (gs_driver_timed){inner, be, calls, seconds};
    gs_linop op = {inner.n, t, timed_apply, inner.apply_dots ? timed_apply_dots : NULL};
    return op;
}

/* the profiled solve's time outside A and the preconditioner: the Krylov vector work */
static double vector_seconds(const gs_run *run)
{
    double v = run->res.solve_s - run->prof_s[0] - run->prof_s[1];
    return v > 0 ? v : 0.0;
}

/* the compact profile of a finished run: "krylov:A=ms/calls;krylov:M=...;krylov:vector=ms;
 * L0:smoother=ms/calls;..." (operations that ran) */
static gs_status profile_text(gs_run *run)
{
    gs_status st = GS_OK;
    size_t cap = 64 + (size_t)GS_AMG_MAX_LEVELS * GS_PROF_OPS * 48, len = 0;
    gs_free(run->profile);
    run->profile = NULL;
    GS_CHECK(gs_alloc_array(cap, 1, "profile", (void **)&run->profile));
    len += (size_t)snprintf(run->profile + len, cap - len, "krylov:A=%.4f/%lld;",
                            1e3 * run->prof_s[0], (long long)run->prof_calls[0]);
    if (run->prof_calls[1] > 0)
        len += (size_t)snprintf(run->profile + len, cap - len, "krylov:M=%.4f/%lld;",
                                1e3 * run->prof_s[1], (long long)run->prof_calls[1]);
    len += (size_t)snprintf(run->profile + len, cap - len, "krylov:vector=%.4f",
                            1e3 * vector_seconds(run));
    for (int l = 0; run->amg_prof && l < run->amg_prof->levels; l++)
        for (int o = 0; o < GS_PROF_OPS; o++)
            if (run->amg_prof->calls[l][o] > 0 && len < cap)
                len += (size_t)snprintf(run->profile + len, cap - len, ";L%d:%s=%.4f/%lld", l,
                                        gs_amg_prof_op_names[o], 1e3 * run->amg_prof->seconds[l][o],
                                        (long long)run->amg_prof->calls[l][o]);
done:
    return st;
}

/* a profile row's roofline columns: the bytes moved, their rate and its share of the copy
 * bandwidth ("" when the bytes are not counted) */
static void roof(const gs_run *run, double bytes, double seconds, char *buf, size_t len)
{
    buf[0] = '\0';
    if (bytes <= 0 || seconds <= 0) return;
    const double gbs = bytes / seconds / 1e9;
    if (run->copy_bw > 0)
        snprintf(buf, len, "  %10.1f  %7.1f  %5.1f%%", bytes / 1e6, gbs,
                 100.0 * bytes / seconds / run->copy_bw);
    else
        snprintf(buf, len, "  %10.1f  %7.1f", bytes / 1e6, gbs);
}

/* the profile table of the summary */
static void print_profile(const gs_run *run, const gs_out *out)
{
    const double T = run->res.solve_s > 0 ? run->res.solve_s : 1.0;
    const double vec = vector_seconds(run);
    char r[96];
    gs_outf(out, "profile   the solve's %.3f ms by operation (the device synchronized around each: "
                 "slower than an unprofiled solve); bytes by the formats' byte models, their rate "
                 "and its share of the measured copy bandwidth (%.0f GB/s)\n",
            1e3 * run->res.solve_s, run->copy_bw / 1e9);
    gs_outf(out, "          level  operation          calls     time ms   share    bytes MB     GB/s   "
                 "of copy\n");
    roof(run, run->prof_bytes[0], run->prof_s[0], r, sizeof r);
    gs_outf(out, "          -      A SpMV (Krylov)  %7lld  %10.3f  %5.1f%%%s\n",
            (long long)run->prof_calls[0], 1e3 * run->prof_s[0], 100.0 * run->prof_s[0] / T, r);
    if (run->prof_calls[1] > 0) {
        roof(run, run->prof_bytes[1], run->prof_s[1], r, sizeof r);
        gs_outf(out, "          -      preconditioner   %7lld  %10.3f  %5.1f%%%s%s\n",
                (long long)run->prof_calls[1], 1e3 * run->prof_s[1], 100.0 * run->prof_s[1] / T,
                r, run->amg_prof ? "  (the cycle, split below)" : "");
    }
    for (int l = 0; run->amg_prof && l < run->amg_prof->levels; l++)
        for (int o = 0; o < GS_PROF_OPS; o++)
            if (run->amg_prof->calls[l][o] > 0) {
                roof(run, run->amg_prof->bytes[l][o], run->amg_prof->seconds[l][o], r, sizeof r);
                gs_outf(out, "          %-5d  %-15s  %7lld  %10.3f  %5.1f%%%s\n", l,
                        gs_amg_prof_op_names[o], (long long)run->amg_prof->calls[l][o],
                        1e3 * run->amg_prof->seconds[l][o],
                        100.0 * run->amg_prof->seconds[l][o] / T, r);
            }
    roof(run, run->prof_vec_bytes, vec, r, sizeof r);
    gs_outf(out, "          -      Krylov vectors         -  %10.3f  %5.1f%%%s  (the rest: dots, "
                 "updates, the method's own work)\n", 1e3 * vec, 100.0 * vec / T, r);
    const int its = run->res.iterations;
    const double total = run->prof_bytes[0] + run->prof_bytes[1] + run->prof_vec_bytes;
    if (its > 0 && run->copy_bw > 0 && (run->prof_bytes[1] > 0) == (run->prof_calls[1] > 0) &&
        run->prof_vec_bytes > 0) {
        const double floor_s = total / its / run->copy_bw, it_s = run->res.solve_s / its;
        gs_outf(out, "roofline  %.1f MB an iteration: %.3f ms at the copy bandwidth; the profiled "
                     "solve took %.3f ms an iteration, %.2fx that floor\n",
                total / its / 1e6, 1e3 * floor_s, 1e3 * it_s, it_s / floor_s);
    }
}

/* Pick where the solve runs: run.backend = auto | host | cuda. */
gs_status gs_driver_choose_backend(const gs_config *c, gs_loc *loc, gs_result *r)
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
        if (gs_comm_rank() == 0)
            gs_log(GS_LOG_WARN, "the GPU cannot be used (%s): running on the host", why);
        gs_error_clear();
        gs_str_copy(r->device, sizeof r->device, "cpu");
        return GS_OK;
    }
    if (strcmp(c->run.backend, "cuda") == 0)
        return GS_ERROR(GS_ERR_CUDA, "run.backend = \"cuda\" but the GPU cannot be used: %s",
                        why ? why : "unknown reason");
    if (gs_comm_rank() == 0)
        gs_log(GS_LOG_WARN, "no usable GPU (%s): running on the host", why ? why : "none found");
    return GS_OK;
}

/* The selector's request from the spmv keys (the formats' tuning keys are stored in
 * spmv.params as the config reads them). */
gs_select_request gs_driver_select_request(const gs_config *c)
{
    gs_select_request rq;
    rq.format = c->spmv.format;
    rq.levels = c->spmv.levels;
    rq.params = c->spmv.params;
    return rq;
}

/* A chosen format the matrix cannot take: say so in the log (the selector ran csr). */
static void warn_fallback(const gs_select_result *sr)
{
    if (sr->fell_back) gs_log(GS_LOG_WARN, "%s", sr->reason);
}

/* Convert dA (the matrix on the run's backend) into the format the selector picks (spmv.format,
 * spmv.levels[0]); records the format that runs and why. */
gs_status gs_driver_make_spmv(const gs_config *c, const gs_csr *dA, spmv_op *op, gs_run *run)
{
    gs_status st = GS_OK;
    gs_select_request rq = gs_driver_select_request(c);
    gs_select_result sr;
    GS_CHECK(gs_select_spmat(dA, 0, &rq, &op->M, &sr));
    warn_fallback(&sr);
    gs_str_copy(run->res.format, sizeof run->res.format, gs_format_name(sr.format));
    gs_str_copy(run->res.formats, sizeof run->res.formats, gs_format_name(sr.format));
    gs_spmat_describe(op->M, run->format_desc, sizeof run->format_desc);
    run->convert_s = sr.feature_s + sr.convert_s + sr.measure_s;
    run->res.phase_s[GS_PHASE_CONVERT] = run->convert_s; /* the one phase of a one-level solve */
    gs_free(run->levels); /* a table of an earlier operator */
    run->levels = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *run->levels, "level table", (void **)&run->levels));
    memset(run->levels, 0, sizeof *run->levels);
    run->levels->rows = sr.feat.rows;
    run->levels->nnz = sr.feat.nnz;
    run->levels->mean = sr.feat.mean;
    run->levels->std = sr.feat.std;
    run->levels->max = sr.feat.max;
    gs_str_copy(run->levels->format, sizeof run->levels->format, gs_format_name(sr.format));
    gs_str_copy(run->levels->reason, sizeof run->levels->reason, sr.reason);
    gs_str_copy(run->format_reason, sizeof run->format_reason, sr.reason);
    run->res.level_info = run->levels;
done:
    return st;
}


/* the setting an amg.* key's value stands for (the key table checked the name: the first
 * entry, the default's, for one it does not know) */
static int amg_choice(gs_amg_choice_kind k, const char *name)
{
    const gs_amg_choice *ch = gs_amg_choice_find(k, name);
    return ch ? ch->value : gs_amg_choice_at(k, 0)->value;
}

gs_status gs_driver_amg_params(const gs_config *c, const gs_problem *p, gs_amg_params *ap)
{
    gs_status st = GS_OK;
    gs_amg_params_default(ap);
    ap->theta = c->amg.theta;
    ap->keep_tentative = amg_choice(GS_AMG_CHOICE_REUSE, c->amg.reuse) == GS_AMG_REUSE_VALUES;
    ap->strength = (gs_amg_strength)amg_choice(GS_AMG_CHOICE_STRENGTH, c->amg.strength);
    ap->filter = (int)c->amg.filter;
    ap->aggregation = (gs_amg_aggregation)amg_choice(GS_AMG_CHOICE_AGGREGATION, c->amg.aggregation);
    ap->max_levels = (int)c->amg.max_levels;
    ap->coarse_size = c->amg.coarse_size;
    GS_CHECK(gs_spgemm_method_parse(c->amg.galerkin, &ap->galerkin));
    ap->cycle_w = amg_choice(GS_AMG_CHOICE_CYCLE, c->amg.cycle);
    ap->method = (gs_amg_method)amg_choice(GS_AMG_CHOICE_METHOD, c->amg.method);
    ap->classical_theta = c->amg.classical_theta;
    ap->restriction = (gs_amg_restriction)amg_choice(GS_AMG_CHOICE_RESTRICTION,
                                                     c->amg.restriction);
    ap->interp_max_elements = (int)c->amg.interp_max_elements;
    ap->interp_trunc = c->amg.interp_trunc;
    ap->smoother = strcmp(c->amg.smoother, "auto") == 0 ? NULL : gs_smoother_find(c->amg.smoother);
    if (!ap->smoother && strcmp(c->amg.smoother, "auto") != 0)
        GS_FAIL(GS_ERR_CONFIG, "amg.smoother = \"%s\" is not one of: %s", c->amg.smoother,
                gs_smoother_choices());
    ap->smoother_omega = c->amg.smoother_omega;
    ap->chebyshev_degree = (int)c->amg.chebyshev_degree;
    ap->coarse_chebyshev_degree = (int)c->amg.coarse_chebyshev_degree;
    ap->chebyshev_ratio = c->amg.chebyshev_ratio;
    ap->presweeps = (int)c->amg.presweeps;
    ap->postsweeps = (int)c->amg.postsweeps;
    ap->block_size = (int)c->amg.block_size;
    if (ap->block_size == 0) ap->block_size = p->block_size > 0 ? p->block_size : 1;
    ap->smooth_prolongator = (int)c->amg.smooth_prolongator;
    ap->prolongator_omega = c->amg.prolongator_omega;
    ap->nullspace_constant = gs_config_nullspace_constant(c);
    ap->trace = c->output.verbosity >= 3;
done:
    return st;
}

/* The AMG settings that ran over the configuration's in the result's context (after
 * gs_results_set_context): the smoother and sweeps chosen from the matrix when amg.smoother is
 * auto, the aggregation rule that ran, and "pmis" as the coarsening when classical AMG ran. */
void gs_driver_context_amg(const gs_amg_report *a, gs_result *r)
{
    if (!a || !r->context.filled || !r->context.amg) return;
    if (a->smoother[0])
        gs_str_copy(r->context.amg_smoother, sizeof r->context.amg_smoother, a->smoother);
    if (a->presweeps > 0 || a->postsweeps > 0) {
        r->context.amg_presweeps = a->presweeps;
        r->context.amg_postsweeps = a->postsweeps;
    }
    if (a->method == GS_AMG_METHOD_CLASSICAL)
        gs_str_copy(r->context.amg_aggregation, sizeof r->context.amg_aggregation, "pmis");
    else if (a->method == GS_AMG_METHOD_SA) /* amg.aggregation = auto settled */
        gs_str_copy(r->context.amg_aggregation, sizeof r->context.amg_aggregation,
                    gs_amg_choice_name(GS_AMG_CHOICE_AGGREGATION, a->aggregation));
    if (a->method != GS_AMG_METHOD_AUTO) {
        gs_str_copy(r->context.amg_method, sizeof r->context.amg_method,
                    gs_amg_choice_name(GS_AMG_CHOICE_METHOD, a->method));
        gs_str_copy(r->context.amg_restriction, sizeof r->context.amg_restriction,
                    gs_amg_choice_name(GS_AMG_CHOICE_RESTRICTION,
                                       a->restriction == GS_AMG_RESTRICT_AT ? GS_AMG_RESTRICT_AT
                                                                           : GS_AMG_RESTRICT_PT));
    }
}

/* Copy the hierarchy's report into the run's record. */
gs_status gs_driver_record_amg(const gs_amg_report *r, gs_run *run)
{
    gs_status st = GS_OK;
    gs_result *res = &run->res;
    if (!run->amg) /* kept across a re-setup */
        GS_CHECK(gs_alloc_array(1, sizeof *run->amg, "AMG report", (void **)&run->amg));
    *run->amg = *r;
    gs_free(run->levels);
    run->levels = NULL;
    GS_CHECK(gs_alloc_array((size_t)r->levels, sizeof *run->levels, "level table",
                            (void **)&run->levels));
    res->levels = r->levels;
    res->formats[0] = '\0';
    for (int l = 0; l < r->levels; l++) {
        const gs_amg_level_report *L = &r->level[l];
        gs_level_info *I = &run->levels[l];
        I->rows = L->rows;
        I->nnz = L->nnz;
        I->mean = L->mean;
        I->std = L->std;
        I->max = L->max;
        gs_str_copy(I->format, sizeof I->format, L->format);
        gs_str_copy(I->reason, sizeof I->reason, L->reason);
        size_t len = strlen(res->formats);
        snprintf(res->formats + len, sizeof res->formats - len, "%s%s", l ? "," : "", L->format);
    }
    res->level_info = run->levels;
    res->operator_complexity = r->operator_complexity;
    res->grid_complexity = r->grid_complexity;
    /* the AMG's phases into the record's columns of the same names */
    for (int i = 0; i < GS_AMG_PHASES; i++)
        for (int j = 0; j < GS_PHASES; j++)
            if (strcmp(gs_amg_phase_names[i], gs_phase_names[j]) == 0)
                res->phase_s[j] = r->phase_s[i];
done:
    return st;
}

/* Record one residual norm; print it every 10 iterations at verbosity 2, every one at 3, and
 * every output.monitor. */
void gs_driver_monitor(void *ctx, int it, double rnorm)
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
    int every = run->monitor_every > 0 && it % run->monitor_every == 0;
    if (run->out && (every || run->verbosity >= 3 || (run->verbosity >= 2 && it % 10 == 0))) {
        double bn = run->res.bnorm > 0 ? run->res.bnorm : 1.0;
        gs_outf(run->out, "  iter %6d  residual %.6e  relative %.6e\n", it, rnorm, rnorm / bn);
    }
}

/* Fill the identification fields of the result from configuration and problem. */
void gs_driver_describe(const gs_config *c, const gs_problem *p, gs_result *r)
{
    gs_str_copy(r->case_name, sizeof r->case_name, p->name);
    gs_str_copy(r->matrix, sizeof r->matrix, p->matrix);
    gs_str_copy(r->solver, sizeof r->solver, c->solver.type);
    gs_str_copy(r->preconditioner, sizeof r->preconditioner, c->solver.preconditioner);
    if (p->A) { /* NULL: the matrix is only split across MPI ranks (the caller fills these) */
        r->rows = p->A->rows;
        r->cols = p->A->cols;
        r->nnz = p->A->nnz;
    }
    r->levels = 1;
    r->ranks = 1;
    r->error = -1.0;
    r->read_s = p->read_s;
}

/* "SIGINT", "SIGTERM" or "signal N" */
static const char *signal_name(int sig)
{
    static _Thread_local char other[24];
    if (sig == SIGINT) return "SIGINT";
    if (sig == SIGTERM) return "SIGTERM";
    snprintf(other, sizeof other, "signal %d", sig);
    return other;
}

int gs_driver_threads(const gs_config *c, const gs_driver_io *io, int64_t rows, char *why,
                      size_t len)
{
    int n = 1;
    const char *from = "run.threads";
#ifdef _OPENMP
    if (c->run.threads > 0) {
        n = c->run.threads > 4096 ? 4096 : (int)c->run.threads;
    } else {
        n = io && io->threads > 0 ? io->threads : omp_get_max_threads();
        from = io && io->threads > 0 && io->threads_why && io->threads_why[0]
                   ? io->threads_why : "OpenMP's default";
        int64_t useful = rows / GS_DRIVER_ROWS_PER_THREAD;
        if (rows > 0 && useful < n && !(io && io->threads > 0 && io->threads_exact)) {
            n = useful > 1 ? (int)useful : 1;
            snprintf(why, len, "%lld rows: not shared below %d a thread", (long long)rows,
                     GS_DRIVER_ROWS_PER_THREAD);
            omp_set_num_threads(n);
            return n;
        }
    }
    omp_set_num_threads(n);
#else
    (void)c;
    (void)io;
    (void)rows;
    from = "built without OpenMP";
#endif
    snprintf(why, len, "%s", from);
    return n;
}

/* The reason as one word and as a sentence: "converged (...) after N iterations"; "did not
 * converge: <why>: <the method's detail, which gives the iteration>"; "interrupted by SIGTERM at
 * iteration N, ...". */
void gs_driver_record_reason(const gs_krylov_result *kr, int sig, gs_result *r)
{
    const char *phrase = gs_reason_str(kr->reason);
    gs_str_copy(r->reason, sizeof r->reason, gs_reason_name(kr->reason));
    if (kr->reason == GS_STOPPED_INTERRUPTED)
        snprintf(r->reason_text, sizeof r->reason_text, "%s by %s %s", phrase,
                 signal_name(sig), kr->detail);
    else if (kr->reason > 0 && kr->reason != GS_CONVERGED_ZERO_RHS)
        snprintf(r->reason_text, sizeof r->reason_text, "%s after %d iterations", phrase,
                 kr->iterations);
    else if (kr->detail[0])
        snprintf(r->reason_text, sizeof r->reason_text, "%s: %s", phrase, kr->detail);
    else
        gs_str_copy(r->reason_text, sizeof r->reason_text, phrase);
    r->converged = kr->reason > 0;
    r->iterations = kr->iterations;
}

/* Negative diagonal entries of A (those stored; a missing one is not counted). */
static int64_t negative_diagonal(const gs_csr *A)
{
    int64_t n = 0;
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
            if (A->colind[q] == i && A->val[q] < 0) n++;
    return n;
}

/* Add one line to the run's hints. */
static void add_hint(gs_run *run, const char *line)
{
    size_t len = strlen(run->hint);
    snprintf(run->hint + len, sizeof run->hint - len, "%s%s", len ? "\n" : "", line);
}

/* 1 when A annihilates the constant vector: ||A 1||_inf <= 1e-10 ||A||_inf (one pass over
 * the host copy, the SpMV with ones); a row that keeps a Dirichlet condition sums to a
 * fraction of its diagonal, far above that */
static int rows_sum_to_zero(const gs_csr *A)
{
    double worst = 0.0, norm = 0.0;
    for (int32_t i = 0; i < A->rows; i++) {
        double s = 0.0, a = 0.0;
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            s += A->val[q];
            a += fabs(A->val[q]);
        }
        worst = fmax(worst, fabs(s));
        norm = fmax(norm, a);
    }
    return A->rows > 0 && norm > 0.0 && worst <= 1e-10 * norm;
}

/* After a failed solve, what to try: problem.nullspace = "constant" when A's rows sum to zero
 * (a singular system); GMRES or BiCGStab when CG or MINRES met a matrix that is not symmetric
 * (checked now, on the host copy: pattern and values), MINRES when CG met a symmetric one that
 * is not positive definite; -A x = -b when Jacobi or AMG met negative diagonal entries; and a
 * word when AMG made no progress. */
void gs_driver_hints(const gs_config *c, const gs_problem *p, const gs_krylov_result *kr, gs_run *run)
{
    char line[256];
    const char *pc = c->solver.preconditioner;
    int amg = strcmp(pc, "amg") == 0;
    int cg = strcmp(c->solver.type, "cg") == 0, minres = strcmp(c->solver.type, "minres") == 0;
    if (kr->reason > 0 || kr->reason == GS_STOPPED_INTERRUPTED || !p->A) return;
    if (!gs_config_nullspace_constant(c) && rows_sum_to_zero(p->A))
        add_hint(run, "A annihilates the constant vector (rows sum to zero): the system is "
                      "singular; set problem.nullspace = \"constant\"");
    if (cg || minres) {
        int sym = 2;
        if (gs_csr_symmetry(p->A, 1e-12, &sym) != GS_OK) {
            gs_error_clear(); /* only a hint: no memory for the transpose, no hint */
            sym = 2;
        }
        if (sym < 2) {
            snprintf(line, sizeof line,
                     "the matrix is not symmetric (%s): %s needs a symmetric %smatrix; "
                     "solver.type = \"gmres\" or \"bicgstab\" solve nonsymmetric ones",
                     sym == 1 ? "its values differ from their transposes" : "nor is its pattern",
                     cg ? "CG" : "MINRES", cg ? "positive definite " : "");
            add_hint(run, line);
        } else if (cg && kr->reason == GS_DIVERGED_INDEFINITE_MATRIX) {
            add_hint(run, "the matrix is symmetric but not positive definite: solver.type = "
                          "\"minres\" solves symmetric indefinite systems (with a symmetric "
                          "positive definite preconditioner)");
        }
    }
    int64_t neg = strcmp(pc, "jacobi") == 0 || amg ? negative_diagonal(p->A) : 0;
    if (neg > 0) {
        snprintf(line, sizeof line,
                 "the diagonal has %lld negative entries (of %lld rows): %s assumes a positive "
                 "diagonal; for a negative definite matrix solve -A x = -b",
                 (long long)neg, (long long)p->A->rows, amg ? "AMG" : "Jacobi");
        add_hint(run, line);
    } else if (amg && kr->reason == GS_DIVERGED_STAGNATION) {
        add_hint(run, "the AMG-preconditioned iteration stagnated: the AMG cycle does not reduce "
                      "the error of this matrix (try solver.preconditioner = \"jacobi\", or "
                      "the amg.strength, amg.theta and amg.smoother keys)");
    }
}

gs_krylov_params gs_driver_krylov_params(const gs_config *c, gs_run *run,
                                         const volatile sig_atomic_t *interrupt)
{
    gs_krylov_params kp = {
        .type = (gs_krylov_type)gs_krylov_index(gs_krylov_find(c->solver.type)),
        .rtol = c->solver.rtol,
        .atol = c->solver.atol,
        .dtol = c->solver.dtol,
        .max_iters = (int)c->solver.max_iters,
        .restart = (int)c->solver.restart,
        .stag_window = (int)c->solver.stagnation_window,
        .monitor = gs_driver_monitor,
        .monitor_ctx = run,
        .interrupt = interrupt,
        .nullspace_constant = gs_config_nullspace_constant(c),
    };
    return kp;
}

void gs_driver_attach_record(gs_run *run)
{
    run->res.x = run->x;
    run->res.history = run->hist;
    run->res.history_time = run->hist_t;
    run->res.history_iter = run->hist_it;
    run->res.history_len = run->hist_len;
    run->res.config_text = run->config_text;
}

/* ||b - A x|| / ||b|| recomputed from scratch (||b - A x|| when b = 0). */
gs_status gs_driver_true_residual(const gs_linop *A, const gs_vec *b, const gs_vec *x, gs_vec *w,
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

/* problem.nullspace = "constant": b -= (b.1 / 1.1) 1, the consistent part of b (A's range is
 * orthogonal to the constant for a symmetric A with A 1 = 0); run->nullspace_shift = ||b_proj -
 * b|| / ||b||. Written over vector operations: under MPI the sums are global. */
gs_status gs_driver_project_rhs(const gs_config *c, gs_vec *b, gs_run *run)
{
    gs_status st = GS_OK;
    gs_vec *ones = NULL;
    double d[3] = {0.0, 0.0, 0.0};
    run->nullspace_shift = -1.0;
    if (!gs_config_nullspace_constant(c)) return GS_OK;
    GS_CHECK(gs_vec_create(b->n, b->loc, &ones));
    GS_CHECK(gs_vec_fill(1.0, ones));
    const gs_vec *x[3] = {ones, ones, b}, *y[3] = {b, ones, b};
    GS_CHECK(gs_vec_dots(3, x, y, d)); /* b.1, 1.1, b.b */
    if (d[1] > 0.0 && d[0] != 0.0) GS_CHECK(gs_vec_axpy(-d[0] / d[1], ones, b));
    run->nullspace_shift = d[2] > 0.0 ? fabs(d[0]) / sqrt(d[1] * d[2]) : 0.0;
done:
    gs_vec_destroy(&ones);
    return st;
}

/* ||x - x_exact|| / ||x_exact|| on the host. */
double gs_driver_solution_error(const double *x, const double *xe, int64_t n)
{
    double d = 0.0, e = 0.0;
    for (int64_t i = 0; i < n; i++) {
        d += (x[i] - xe[i]) * (x[i] - xe[i]);
        e += xe[i] * xe[i];
    }
    return e > 0 ? sqrt(d / e) : sqrt(d);
}


static gs_status vectors_in(gs_engine *e, const double *b, const double *x0, gs_loc where);
static gs_status vectors_out(gs_engine *e, double *x, gs_loc where);

void gs_engine_destroy(gs_engine **ep)
{
    gs_engine *e = ep ? *ep : NULL;
    if (!e) return;
    gs_vec_destroy(&e->b);
    gs_vec_destroy(&e->x);
    gs_vec_destroy(&e->w);
    if (!e->aop.borrowed) gs_spmat_destroy(&e->aop.M);
    if (e->pc.destroy) e->pc.destroy(e->pc.state);
    if (!e->dA_borrowed) gs_csr_destroy(&e->dA);
    gs_free(e);
    *ep = NULL;
}

gs_status gs_engine_precondition(gs_engine *e, const double *r, double *z, gs_loc where)
{
    gs_status st = GS_OK;
    /* r into e->b, z out of e->x (the solve's vectors, free between solves) */
    GS_CHECK(vectors_in(e, r, r, where));
    if (e->have_M)
        GS_CHECK(e->M.apply(e->M.ctx, e->b, e->x));
    else
        GS_CHECK(gs_vec_copy(e->b, e->x));
    GS_CHECK(vectors_out(e, z, where));
done:
    return st;
}

gs_amg *gs_engine_amg(const gs_engine *e)
{
    return e ? e->amg : NULL;
}

const char *gs_engine_setup_kind(const gs_engine *e)
{
    return e ? e->setup_kind : "";
}

double gs_engine_full_setup_s(const gs_engine *e)
{
    return e ? e->full_setup_s : 0.0;
}

gs_status gs_driver_engine_op(gs_engine *e, const gs_config *c, const gs_problem *p, gs_run *run)
{
    gs_status st = GS_OK;
    if (!e->aop.borrowed) gs_spmat_destroy(&e->aop.M);
    memset(&e->aop, 0, sizeof e->aop);
    if (e->pc.A_op) {
        /* the Krylov method multiplies by the finest level's operator (its format chosen once) */
        e->aop.M = e->pc.A_op;
        e->aop.borrowed = 1;
        gs_str_copy(run->res.format, sizeof run->res.format, gs_format_name(e->aop.M->format));
        gs_spmat_describe(e->aop.M, run->format_desc, sizeof run->format_desc);
        run->convert_s = e->aop.M->convert_s;
    } else {
        GS_CHECK(gs_driver_make_spmv(c, e->dA ? e->dA : p->A, &e->aop, run));
    }
    e->Aop = gs_spmat_linop(e->aop.M, &e->aop.op);
done:
    return st;
}

gs_status gs_driver_engine_pc(gs_engine *e, const gs_config *c, const gs_problem *p,
                              const char *where, gs_run *run)
{
    gs_status st = GS_OK;
    const gs_precond *pc = gs_precond_find(c->solver.preconditioner);
    if (!pc)
        GS_FAIL(GS_ERR_CONFIG, "solver.preconditioner = \"%s\" is not one of: %s",
                c->solver.preconditioner, gs_precond_choices());
    if (e->pc.destroy) e->pc.destroy(e->pc.state);
    const int own_dA = e->dA && !e->dA_borrowed; /* the device copy is the engine's */
    e->pc = (gs_pc_build){.c = c, .p = p, .A = e->dA ? e->dA : p->A, .loc = e->loc,
                          .where = where, .run = run,
                          .drop_csr = !e->one_shot ? GS_AMG_DROP_NONE
                                      : own_dA    ? GS_AMG_DROP_ALL
                                                  : GS_AMG_DROP_OWN};
    e->amg = NULL;
    GS_CHECK(pc->build(&e->pc));
    e->amg = e->pc.amg;
    e->M = e->pc.M;
    e->have_M = e->pc.M.apply != NULL;
    GS_CHECK(gs_driver_engine_op(e, c, p, run));
done:
    return st;
}

void gs_driver_mem_record(gs_run *run, size_t setup_peak)
{
    const gs_backend_mem m = gs_backend_mem_now();
    run->mem_setup_peak = setup_peak;
    run->mem_pool = m.pool;
    run->res.device_peak_gb = (double)m.peak / 1e9;
}

void gs_driver_record_begin(const gs_config *c, const gs_problem *p, gs_run *run,
                            const gs_driver_io *io)
{
    const gs_csr *A = p->A ? p->A : p->A_dev;
    memset(run, 0, sizeof *run);
    run->verbosity = (int)c->output.verbosity;
    run->out = &io->out;
    run->monitor_every = (int)c->output.monitor;
    gs_driver_describe(c, p, &run->res);
    if (!A) return;
    run->res.rows = A->rows;
    run->res.cols = A->cols;
    run->res.nnz = A->nnz;
    run->threads = gs_driver_threads(c, io, A->rows, run->threads_why, sizeof run->threads_why);
}

gs_status gs_driver_setup(const gs_config *c, const gs_problem *p, gs_run *run,
                          const gs_driver_io *io, gs_engine **out)
{
    gs_status st = GS_OK;
    gs_engine *e = NULL;
    const gs_csr *A = p->A ? p->A : p->A_dev;
    const char *where = p->source[0] ? p->source : p->matrix;
    *out = NULL;
    gs_driver_record_begin(c, p, run, io);
    if (!A) GS_FAIL(GS_ERR_ARG, "no matrix to solve with");
    if (A->rows != A->cols)
        GS_FAIL(GS_ERR_INPUT, "%s: the matrix is %d x %d; the solvers need a square matrix", where,
                A->rows, A->cols);
    GS_CHECK(gs_alloc_array(1, sizeof *e, "solver", (void **)&e));
    memset(e, 0, sizeof *e);
    e->n = A->rows;
    e->one_shot = io->one_shot;
    GS_CHECK(gs_driver_choose_backend(c, &e->loc, &run->res));
    if (p->A_dev && e->loc != GS_LOC_DEVICE)
        GS_FAIL(GS_ERR_ARG, "the matrix was given in device memory, and this run is on the host "
                "(run.backend)");
    if (strcmp(c->spmv.format, "cusparse") == 0 && e->loc != GS_LOC_DEVICE)
        GS_FAIL(GS_ERR_CONFIG, "spmv.format = \"cusparse\" needs the GPU backend, and this run "
                "is on the host");

    double t0 = gs_time_now();
    if (e->loc != GS_LOC_HOST) { /* the pool grown ahead (in the setup's time: mostly 0), then
                                  * the setup's peak of device memory counted from here */
        run->pool_wait_s = gs_backend_pool_wait();
        gs_backend_mem_reset_peak();
    }
    if (p->A_dev) {
        e->dA = p->A_dev;
        e->dA_borrowed = 1;
    } else if (e->loc != GS_LOC_HOST) {
        double h0 = gs_backend_h2d_seconds();
        GS_CHECK(gs_csr_upload(p->A, e->loc, &e->dA));
        GS_CHECK(gs_backend_get(e->loc)->sync());
        run->upload_s = gs_time_now() - t0;
        run->transfer_s = gs_backend_h2d_seconds() - h0;
    }
    GS_CHECK(gs_driver_engine_pc(e, c, p, where, run));
    if (e->one_shot && !e->amg && e->dA && !e->dA_borrowed && gs_spmat_owns_layout(e->aop.M))
        gs_backend_get(e->loc)->csr_free(e->dA); /* its format does not read it */
    GS_CHECK(gs_vec_create(A->rows, e->loc, &e->b));
    GS_CHECK(gs_vec_create(A->rows, e->loc, &e->x));
    GS_CHECK(gs_backend_get(e->loc)->sync());
    e->setup_s = gs_time_now() - t0;
    e->full_setup_s = e->setup_s;
    e->mem_setup_peak = gs_backend_mem_now().peak;
    gs_str_copy(e->setup_kind, sizeof e->setup_kind, "full");
    run->res.setup_s = e->setup_s;
    *out = e;
    e = NULL;
done:
    gs_engine_destroy(&e);
    return st;
}

/* b, x0 into the engine's vectors: from the host or, where = GS_LOC_DEVICE, from device memory */
static gs_status vectors_in(gs_engine *e, const double *b, const double *x0, gs_loc where)
{
    gs_status st = GS_OK;
    if (where == GS_LOC_HOST) {
        GS_CHECK(gs_vec_set_host(e->b, b));
        GS_CHECK(gs_vec_set_host(e->x, x0));
    } else {
        const gs_buf fb = {(void *)b, e->n, GS_F64, where}, fx = {(void *)x0, e->n, GS_F64, where};
        gs_buf tb = {e->b->data, e->n, GS_F64, e->loc}, tx = {e->x->data, e->n, GS_F64, e->loc};
        if (e->n > 0) GS_CHECK(gs_buf_copy(&fb, &tb));
        if (e->n > 0) GS_CHECK(gs_buf_copy(&fx, &tx));
    }
done:
    return st;
}

/* the solution out of the engine's x */
static gs_status vectors_out(gs_engine *e, double *x, gs_loc where)
{
    if (where == GS_LOC_HOST) return gs_vec_get_host(e->x, x);
    const gs_buf fx = {e->x->data, e->n, GS_F64, e->loc};
    gs_buf tx = {x, e->n, GS_F64, where};
    return e->n > 0 ? gs_buf_copy(&fx, &tx) : GS_OK;
}

void gs_driver_profile_begin(const gs_config *c, gs_run *run, gs_amg *amg, gs_loc loc,
                             gs_driver_timed *tA, gs_driver_timed *tM, gs_linop *A,
                             gs_linop *M, gs_linop **Mp)
{
    run->profiled = c->output.profile || run->verbosity >= 2;
    if (!run->profiled) return; /* every application timed; the cycle split by level */
    *A = timed(tA, *A, gs_backend_get(loc), &run->prof_calls[0], &run->prof_s[0]);
    if (*Mp) {
        *M = timed(tM, **Mp, gs_backend_get(loc), &run->prof_calls[1], &run->prof_s[1]);
        *Mp = M;
    }
    if (amg) gs_amg_profile_enable(amg, 1);
}

gs_status gs_driver_profile_end(const gs_config *c, gs_run *run, gs_amg *amg, gs_loc loc,
                                double a_bytes, int64_t n, int iterations)
{
    gs_status st = GS_OK;
    if (!run->profiled) return GS_OK;
    if (amg) {
        if (!run->amg_prof)
            GS_CHECK(gs_alloc_array(1, sizeof *run->amg_prof, "profile", (void **)&run->amg_prof));
        *run->amg_prof = *gs_amg_get_profile(amg);
        gs_amg_profile_enable(amg, 0);
    }
    run->prof_bytes[0] = (double)run->prof_calls[0] * a_bytes;
    run->prof_bytes[1] = 0.0;
    for (int l = 0; run->amg_prof && l < run->amg_prof->levels; l++)
        for (int o = 0; o < GS_PROF_OPS; o++) run->prof_bytes[1] += run->amg_prof->bytes[l][o];
    /* CG's fused update (u, w, p, s, x, r read; p, s, x, r written) and the dots' reads beside
     * the SpMV (r, w): 12 vectors an iteration */
    run->prof_vec_bytes =
        strcmp(c->solver.type, "cg") == 0 ? 12.0 * 8.0 * (double)n * (double)iterations : 0.0;
    run->copy_bw = gs_backend_copy_bandwidth(loc);
    GS_CHECK(profile_text(run));
    run->res.profile = run->profile;
done:
    return st;
}

gs_status gs_driver_run(gs_engine *e, const gs_config *c, const gs_problem *p, gs_run *run,
                        const gs_driver_io *io, const double *b, double *x, gs_loc where)
{
    gs_status st = GS_OK;
    gs_driver_timed tA, tM;
    gs_krylov_result kr;
    gs_linop Ause = e->Aop, Muse, *Mp = e->have_M ? &e->M : NULL;
    run->out = &io->out;
    double t0 = gs_time_now();
    GS_CHECK(vectors_in(e, b, x, where));
    GS_CHECK(gs_driver_project_rhs(c, e->b, run));
    GS_CHECK(gs_backend_get(e->loc)->sync());
    run->res.setup_s = e->setup_s + (gs_time_now() - t0); /* with b and x0 in place */

    gs_krylov_params kp = gs_driver_krylov_params(c, run, io->interrupt);
    gs_driver_profile_begin(c, run, e->amg, e->loc, &tA, &tM, &Ause, &Muse, &Mp);
    GS_CHECK(gs_vec_nrm2(e->b, &run->res.bnorm));
    if (run->verbosity >= 1) gs_driver_print_header(c, p, run, run->out);
    run->t_solve0 = gs_time_now();
    GS_CHECK(gs_krylov_solve(&kp, &Ause, Mp, e->b, e->x, &kr));
    GS_CHECK(gs_backend_get(e->loc)->sync());
    run->res.solve_s = gs_time_now() - run->t_solve0;
    GS_CHECK(gs_driver_profile_end(c, run, e->amg, e->loc, gs_spmat_bytes(e->aop.M), e->n,
                                   kr.iterations));
    run->res.total_s = run->res.setup_s + run->res.solve_s;
    gs_driver_mem_record(run, e->mem_setup_peak);
    e->last_it = kr.iterations;
    if (!e->full_it && strcmp(e->setup_kind, "full") == 0) e->full_it = kr.iterations > 0 ? kr.iterations : 1;
    gs_driver_record_reason(&kr, io->interrupt ? (int)*io->interrupt : 0, &run->res);
    gs_driver_hints(c, p, &kr, run);

    if (!e->w) /* made after the Krylov method's vectors have gone: not beside them */
        GS_CHECK(gs_vec_create(e->n, e->loc, &e->w));
    GS_CHECK(gs_driver_true_residual(&e->Aop, e->b, e->x, e->w, run->res.bnorm,
                                     &run->res.rel_residual));
    GS_CHECK(vectors_out(e, x, where));
    if (p->x_exact && where == GS_LOC_HOST)
        run->res.error = gs_driver_solution_error(x, p->x_exact, e->n);
done:
    return st;
}

gs_status gs_driver_solve(const gs_config *c, const gs_problem *p, gs_run *run,
                          const gs_driver_io *io)
{
    gs_status st = GS_OK;
    gs_engine *e = NULL;
    gs_driver_io once = *io; /* one setup, one solve: one vector frees what only more would read */
    once.one_shot = p->nrhs <= 1;
    GS_CHECK(gs_driver_setup(c, p, run, &once, &e));
    run->out = &io->out; /* the caller's, not the copy's */
    if (p->nrhs > 1) {
        GS_CHECK(gs_driver_run_columns(e, c, p, run, io));
    } else {
        GS_CHECK(gs_alloc_array((size_t)p->A->cols, sizeof(double), "solution", (void **)&run->x));
        memcpy(run->x, p->x0, (size_t)p->A->cols * sizeof(double));
        GS_CHECK(gs_driver_run(e, c, p, run, io, p->b, run->x, GS_LOC_HOST));
    }
    gs_driver_attach_record(run);
done:
    gs_engine_destroy(&e);
    return st;
}

void gs_driver_print_header(const gs_config *c, const gs_problem *p, const gs_run *run,
                            const gs_out *out)
{
    const gs_result *r = &run->res;
    gs_row_stats rs = {0};
    if (p->A)
        gs_csr_row_stats(p->A, &rs);
    else if (run->levels) { /* split across MPI ranks: the statistics gathered from them */
        rs.mean = run->levels[0].mean;
        rs.std = run->levels[0].std;
        rs.max = run->levels[0].max;
    }
    gs_outf(out, "problem   %s\n", p->matrix);
    gs_outf(out, "          rows %lld  cols %lld  nnz %lld  per row: mean %.2f std %.2f max %d\n",
            (long long)r->rows, (long long)r->cols, (long long)r->nnz, rs.mean, rs.std, rs.max);
    gs_outf(out, "          rhs %s  x0 %s\n", p->rhs, p->x0_desc);
    gs_outf(out, "solver    %s  preconditioner %s  format %s  backend %s (%s)", r->solver,
            r->preconditioner, r->format, r->backend, r->device);
    if (r->ranks > 1) gs_outf(out, "  ranks %d (%s)", r->ranks, gs_comm_library());
    gs_outf(out, "  threads %d (%s)\n", run->threads, run->threads_why);
    gs_outf(out, "          rtol %g  atol %g  max_iters %lld", c->solver.rtol, c->solver.atol,
            (long long)c->solver.max_iters);
    if (strstr(r->solver, "gmres")) gs_outf(out, "  restart %lld", (long long)c->solver.restart);
    if (c->solver.dtol > 0) gs_outf(out, "  dtol %g", c->solver.dtol);
    gs_outf(out, "\n");
    if (gs_config_nullspace_constant(c) && run->nullspace_shift >= 0)
        gs_outf(out, "nullspace constant: b made consistent (projected orthogonal to the constant "
                "vector, ||b_proj - b||/||b|| = %.3e); residuals relative to b_proj\n",
                run->nullspace_shift);
}

/* Each line of the run's hints as "hint      ..." */
static void print_hints(const gs_run *run, const gs_out *out)
{
    for (const char *h = run->hint; *h;) {
        size_t n = strcspn(h, "\n");
        gs_outf(out, "hint      %.*s\n", (int)n, h);
        h += n + (h[n] == '\n');
    }
}

void gs_driver_print_summary(const gs_config *c, const gs_problem *p, const gs_run *run,
                             const gs_out *out)
{
    const gs_result *r = &run->res;
    (void)c;
    (void)p;
    if (run->nrhs > 1) { /* several right-hand sides: each column, then the worst below */
        int lo = run->col_it[0], conv = 0;
        for (int j = 0; j < run->nrhs; j++) {
            lo = run->col_it[j] < lo ? run->col_it[j] : lo;
            conv += run->col_conv[j];
        }
        gs_outf(out, "columns   %d right-hand sides %s: %d converged, iterations %d..%d\n",
                run->nrhs, run->together ? "solved together (block CG)" : "one after another",
                conv, lo, r->iterations);
        for (int j = 0; j < run->nrhs; j++) {
            if (j == 16 && run->nrhs > 17) {
                gs_outf(out, "          ... (%d more in the CSV rows)\n", run->nrhs - 16);
                break;
            }
            gs_outf(out, "          column %d: %d iterations, residual %.3e%s\n", j,
                    run->col_it[j], run->col_res[j], run->col_conv[j] ? "" : ", not converged");
        }
    }
    gs_outf(out, "result    %s%s\n", r->reason_text, run->nrhs > 1 ? " (the worst column)" : "");
    gs_outf(out, "residual  true ||b-Ax||/||b|| = %.3e%s\n", r->rel_residual,
            run->nrhs > 1 ? " (the largest)" : "");
    if (r->error >= 0) gs_outf(out, "error     ||x-x_exact||/||x_exact|| = %.3e\n", r->error);
    gs_outf(out, "time      read %.3f s  setup %.3f s  solve %.3f s  total %.3f s", r->read_s,
            r->setup_s, r->solve_s, r->total_s);
    if (r->iterations > 0)
        gs_outf(out, "  (%.3f ms per iteration)", 1e3 * r->solve_s / r->iterations);
    gs_outf(out, "\n");
    if (r->ranks > 1) {
        gs_outf(out, "ranks     %d: rows %lld..%lld, nnz %lld..%lld per rank; communication: setup "
                "%.3f s, solve %.3f s (%.0f%% of the solve, the most of any rank)%s%s\n",
                r->ranks, (long long)run->rank_rows[0], (long long)run->rank_rows[1],
                (long long)run->rank_nnz[0], (long long)run->rank_nnz[1], r->comm_setup_s,
                r->comm_solve_s, r->solve_s > 0 ? 100.0 * r->comm_solve_s / r->solve_s : 0.0,
                run->comm_desc[0] ? "; halos: " : "", run->comm_desc);
        if (gs_dist_peers_seconds() > 0)
            gs_outf(out, "          the GPUs mapped into each other's address space, their "
                    "exchange buffers made, at the start (%.2f ms, before the setup's clock)\n",
                    1e3 * gs_dist_peers_seconds());
    }
    if (run->format_desc[0] || run->convert_s > 0)
        gs_outf(out, "format    %s: %s  choice and conversion %.2f ms, part of setup\n",
                r->format, run->format_desc[0] ? run->format_desc : "-", 1e3 * run->convert_s);
    if (run->format_reason[0] && !run->amg) gs_outf(out, "          why: %s\n", run->format_reason);
    if (run->amg) gs_amg_report_print(run->amg, out);
    if (run->profiled) print_profile(run, out);
    if (run->upload_s > 0 && r->ranks > 1) {
        double mb = (12.0 * (double)r->nnz + 4.0 * ((double)r->rows + r->ranks)) / 1e6;
        gs_outf(out, "upload    matrix %.1f MB from %d ranks' host memory in %.2f ms: transfer "
                "%.2f ms (%.1f GB/s together) + split, halo plan and SpMV set-up %.2f ms (the "
                "slowest rank's), part of setup\n", mb, r->ranks, 1e3 * run->upload_s,
                1e3 * run->transfer_s, mb / 1e3 / run->transfer_s,
                1e3 * (run->upload_s - run->transfer_s));
    } else if (run->upload_s > 0) {
        double mb = (12.0 * (double)r->nnz + 4.0 * ((double)r->rows + 1)) / 1e6;
        gs_outf(out, "upload    matrix %.1f MB in %.2f ms: transfer %.2f ms (%.1f GB/s) + SpMV "
                "set-up %.2f ms, part of setup\n", mb, 1e3 * run->upload_s, 1e3 * run->transfer_s,
                mb / 1e3 / run->transfer_s, 1e3 * (run->upload_s - run->transfer_s));
    }
    const char *label = "memory    ";
    if (r->device_peak_gb > 0) {
        char per_row[48] = "";
        if (r->ranks <= 1 && r->rows > 0)
            snprintf(per_row, sizeof per_row, " (%.0f bytes a row)",
                     1e9 * r->device_peak_gb / (double)r->rows);
        gs_outf(out, "%sdevice peak %.2f GB%s%s, the setup's %.2f GB; the pool holds %.2f GB\n",
                label, r->device_peak_gb, per_row, r->ranks > 1 ? " on rank 0" : "",
                (double)run->mem_setup_peak / 1e9, (double)run->mem_pool / 1e9);
        label = "          ";
    }
    double took = 0.0;
    const size_t grown = gs_backend_pool_prepared(&took);
    if (grown && run->upload_s > 0)
        gs_outf(out, "%sdevice pool grown by %.2f GB%s while the problem was read (%.2f "
                "ms); the setup waited %.2f ms for it%s\n", label, (double)grown / 1e9,
                r->ranks > 1 ? " on rank 0" : "", 1e3 * took, 1e3 * run->pool_wait_s,
                r->ranks > 1 ? " (the slowest rank)" : "");
    print_hints(run, out);
}

/* the near-nullspace vectors the AMG will interpolate, as the configuration tells before A is
 * read: the elasticity generator's rigid-body modes (3 in 2D, 6 in 3D); a nullspace file with
 * 2 or 3 unknowns a node taken as those modes; else one vector per unknown of a node */
static int pool_modes(const gs_config *c)
{
    const int b = c->amg.block_size;
    if (strcmp(c->problem.generate.type, "elasticity") == 0 && !c->problem.matrix[0])
        return c->problem.generate.stencil <= 9 ? 3 : 6;
    if (gs_config_nullspace_file(c) && (b == 2 || b == 3)) return b == 2 ? 3 : 6;
    return b > 1 ? b : 1;
}

size_t gs_driver_pool_estimate(const gs_config *c, int64_t rows, int64_t nnz, int ranks)
{
    const double csr = 12.0 * (double)nnz + 4.0 * (double)(rows + 1);
    if (strcmp(c->solver.preconditioner, "amg") != 0) return (size_t)(2.0 * csr);
    /* one vector: 5.4x at one GPU, 8.2x at four ranks; 3 modes (2D elasticity 512^2) 10.5x, 6
     * (3D elasticity 32^3 and 64^3) 30x and 34x at one GPU (H100 and H200, the AMG classes of
     * 2026-11-26): the Galerkin products of k columns an aggregate */
    const int k = pool_modes(c);
    double f = k <= 1 ? 5.5 : k <= 3 ? 11.0 : 34.0;
    /* one solve of one vector whose finest format is made after its Galerkin product (the
     * matrix large for the device; several right-hand sides grow the pool themselves): 3D
     * Poisson 512^3 and 640^3 peak at 3.3x (bench/results/memory_h200_2026-11-30.md) */
    if (k <= 1 && ranks <= 1 && !c->problem.sequence[0] && c->problem.steps <= 1 &&
        gs_amg_defers_finest(csr, GS_LOC_DEVICE))
        f = 3.6;
    return (size_t)((ranks > 1 ? f * 8.3 / 5.5 : f) * csr);
}

void gs_run_release(gs_run *run)
{
    gs_free(run->x);
    gs_free(run->hist);
    gs_free(run->hist_t);
    gs_free(run->hist_it);
    gs_free(run->config_text);
    gs_free(run->amg);
    gs_free(run->levels);
    gs_free(run->amg_prof);
    gs_free(run->profile);
    gs_free(run->col_it);
    gs_free(run->col_conv);
    gs_free(run->col_res);
    memset(run, 0, sizeof *run);
}

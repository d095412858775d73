/* gs_app_seq.c: a sequence of systems of one pattern solved in one process (problem.steps,
 * problem.sequence): one setup, then for each step its values loaded, the setup again keeping
 * what amg.reuse says (gs_driver_update) and the solve; a console line, a CSV row and the
 * record of every step, and a summary of the setup time the reuse saved. */
#include "gs_app_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_host.h"
#include "gs_mem.h"
#include "gs_mm.h"
#include "gs_results.h"
#include "gs_time.h"

/* 1 when s holds a printf integer field ("%d", "%03d", "%lld" ...) */
static int has_field(const char *s)
{
    for (const char *q = strchr(s, '%'); q; q = strchr(q + 1, '%')) {
        const char *r = q + 1;
        if (*r == '%') {
            q = r;
            continue;
        }
        r += strspn(r, "0123456789");
        r += strspn(r, "l");
        if (*r == 'd' || *r == 'i' || *r == 'u') return 1;
    }
    return 0;
}

/* s with its integer field (a printf one) given k: the field rewritten as a long long's */
static void expand(const char *s, int64_t k, char *out, size_t len)
{
    char fmt[GS_CFG_STR + 8];
    size_t o = 0;
    for (const char *q = s; *q && o + 4 < sizeof fmt; q++) {
        fmt[o++] = *q;
        if (*q != '%') continue;
        if (q[1] == '%') {
            fmt[o++] = *++q;
            continue;
        }
        while (q[1] >= '0' && q[1] <= '9' && o + 4 < sizeof fmt) fmt[o++] = *++q;
        while (q[1] == 'l') q++;
        if (q[1] == 'd' || q[1] == 'i' || q[1] == 'u') {
            q++;
            fmt[o++] = 'l', fmt[o++] = 'l', fmt[o++] = 'd';
        }
    }
    fmt[o] = '\0';
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(out, len, fmt, (long long)k);
#pragma GCC diagnostic pop
}

/* an output path of step k: its field filled, else "_stepK" before the extension */
static void step_path(const char *path, int64_t k, char *out, size_t len)
{
    if (has_field(path)) {
        expand(path, k, out, len);
        return;
    }
    gs_app_numbered_path(path, "step", k, out, len);
}

/* entry i of the comma-separated list s (no more than cap - 1 bytes), 0 past its end */
static int list_at(const char *s, int i, char *out, size_t cap)
{
    for (int j = 0; *s; j++) {
        size_t n = strcspn(s, ",");
        if (j == i) {
            snprintf(out, cap, "%.*s", (int)n, s);
            return 1;
        }
        s += n + (s[n] == ',');
    }
    return 0;
}

static int list_len(const char *s)
{
    int n = 0;
    char e[8];
    while (list_at(s, n, e, sizeof e)) n++;
    return n;
}

gs_status gs_app_sequence_steps(const gs_config *c, int64_t *steps)
{
    const char *seq = c->problem.sequence;
    int n = list_len(seq);
    *steps = c->problem.steps;
    if (n == 0) return GS_OK;
    if (c->problem.generate.type[0])
        return GS_ERROR(GS_ERR_CONFIG, "problem.sequence names files, and problem.generate.type "
                        "generates the matrix: give one of them");
    if (n == 1 && has_field(seq)) {
        if (*steps < 2)
            return GS_ERROR(GS_ERR_CONFIG, "problem.sequence = \"%s\" names the steps by number: "
                            "set problem.steps to their count", seq);
        return GS_OK;
    }
    if (*steps > 1 && *steps != n)
        return GS_ERROR(GS_ERR_CONFIG, "problem.steps = %lld, and problem.sequence lists %d "
                        "files", (long long)*steps, n);
    *steps = n;
    return GS_OK;
}

/* step k's configuration: its matrix file, right-hand side and generator step */
static void step_config(const gs_config *c, int64_t k, gs_config *ck)
{
    *ck = *c;
    ck->problem.step = k;
    const char *seq = c->problem.sequence;
    if (seq[0]) {
        char e[GS_CFG_STR];
        if (list_len(seq) == 1 && has_field(seq))
            expand(seq, k, ck->problem.matrix, sizeof ck->problem.matrix);
        else if (list_at(seq, (int)k, e, sizeof e))
            gs_str_copy(ck->problem.matrix, sizeof ck->problem.matrix, e);
    }
    if (has_field(c->problem.rhs)) expand(c->problem.rhs, k, ck->problem.rhs, sizeof ck->problem.rhs);
    if (has_field(c->problem.x0)) expand(c->problem.x0, k, ck->problem.x0, sizeof ck->problem.x0);
}

/* step k's problem q into p (step 0's, whose matrix the setup holds): the same pattern, then its
 * values, b, x0 and names */
static gs_status take_step(gs_problem *p, const gs_problem *q, const char *first)
{
    const gs_csr *A = p->A, *B = q->A;
    int same = A->rows == B->rows && A->cols == B->cols && A->nnz == B->nnz;
    int32_t bad = -1;
    for (int32_t i = 0; same && i <= A->rows; i++) same = A->rowptr[i] == B->rowptr[i];
    for (int32_t i = 0; same && i < A->rows && bad < 0; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] != B->colind[k]) {
                bad = i;
                break;
            }
    if (!same || bad >= 0)
        return GS_ERROR(GS_ERR_INPUT, "%s: its pattern is not step 0's (%s: %d x %d, %lld "
                        "entries; this one %d x %d, %lld entries%s%lld): a sequence keeps one "
                        "pattern", q->source[0] ? q->source : q->matrix, first, A->rows, A->cols,
                        (long long)A->nnz, B->rows, B->cols, (long long)B->nnz,
                        bad >= 0 ? ", first different row " : "", (long long)bad + 1);
    memcpy(A->val, B->val, (size_t)A->nnz * sizeof *A->val);
    memcpy(p->b, q->b, (size_t)A->rows * sizeof *p->b);
    memcpy(p->x0, q->x0, (size_t)A->cols * sizeof *p->x0);
    gs_str_copy(p->name, sizeof p->name, q->name);
    gs_str_copy(p->matrix, sizeof p->matrix, q->matrix);
    gs_str_copy(p->source, sizeof p->source, q->source);
    gs_str_copy(p->rhs, sizeof p->rhs, q->rhs);
    return GS_OK;
}

/* the step's outputs: a CSV row with the step and the setup kind; the record, history and
 * solution under the step's names */
static gs_status step_outputs(const gs_config *c, const gs_run *run, int64_t k, const char *kind)
{
    gs_status st = GS_OK;
    char step[24], path[GS_CFG_STR + 32];
    snprintf(step, sizeof step, "%lld", (long long)k);
    const char *names[2] = {"step", "setup"}, *values[2] = {step, kind};
    if (c->output.csv[0])
        GS_CHECK(gs_results_csv_append_ext(c->output.csv, &run->res, 2, names, values));
    if (c->output.hdf5[0]) {
        step_path(c->output.hdf5, k, path, sizeof path);
        GS_CHECK(gs_results_hdf5_write_ext(path, &run->res, 2, names, values));
    }
    if (c->output.history[0]) {
        step_path(c->output.history, k, path, sizeof path);
        GS_CHECK(gs_results_history_write(path, &run->res));
    }
    if (c->output.solution[0]) {
        step_path(c->output.solution, k, path, sizeof path);
        GS_CHECK(gs_mm_write_vector(path, run->x, run->res.cols));
    }
done:
    return st;
}

int gs_app_sequence(const gs_config *c, int64_t steps, int (*fail)(gs_status, int))
{
    gs_status st = GS_OK;
    const int verbosity = (int)c->output.verbosity;
    gs_problem *p = NULL, *q = NULL;
    gs_engine *e = NULL;
    gs_config *ck = NULL;
    gs_run run;
    char why[96], first[1024] = "";
    int all = 1, code = 0;
    int64_t done_steps = 0, nfull = 0, nre = 0;
    double full_s = 0.0, re_s = 0.0, solve_s = 0.0, t_start = gs_time_now();
    memset(&run, 0, sizeof run);
    gs_driver_io io = gs_app_io(c, stdout, why, sizeof why);
    GS_CHECK(gs_alloc_array(1, sizeof *ck, "configuration", (void **)&ck));
    for (int64_t k = 0; k < steps && !gs_host_signal(); k++) {
        step_config(c, k, ck);
        GS_CHECK(gs_problem_load(ck, k == 0 ? &p : &q));
        if (k == 0) {
            if (p->nrhs > 1)
                GS_FAIL(GS_ERR_CONFIG, "problem.rhs holds %d columns, and a sequence "
                        "(problem.steps) solves one right-hand side a step", p->nrhs);
            gs_str_copy(first, sizeof first, p->source[0] ? p->source : p->matrix);
            GS_CHECK(gs_driver_setup(c, p, &run, &io, &e));
        } else {
            GS_CHECK(take_step(p, q, first));
            gs_problem_destroy(&q);
            GS_CHECK(gs_driver_update(e, c, p, &run, &io));
            run.verbosity = 0; /* the header and iteration lines once, at step 0 */
        }
        const char *kind = gs_engine_setup_kind(e);
        if (strcmp(kind, "full") == 0) nfull++, full_s += run.res.setup_s;
        else nre++, re_s += run.res.setup_s;
        GS_CHECK(gs_alloc_array((size_t)p->A->cols + 1, sizeof(double), "solution",
                                (void **)&run.x));
        memcpy(run.x, p->x0, (size_t)p->A->cols * sizeof(double));
        GS_CHECK(gs_driver_run(e, c, p, &run, &io, p->b, run.x, GS_LOC_HOST));
        gs_driver_attach_record(&run);
        GS_CHECK(gs_app_complete(c, &run));
        run.out = NULL;
        solve_s += run.res.solve_s;
        all = all && run.res.converged;
        done_steps = k + 1;
        if (verbosity >= 1) {
            if (k == 0) gs_app_print_summary(c, p, &run, stdout);
            printf("step %lld/%lld  %-11s setup %9.3f ms  solve %9.3f ms  iterations %4d  "
                   "residual %.3e%s\n", (long long)k, (long long)steps, kind,
                   1e3 * run.res.setup_s, 1e3 * run.res.solve_s, run.res.iterations,
                   run.res.rel_residual, run.res.converged ? "" : "  not converged");
            fflush(stdout);
        }
        GS_CHECK(step_outputs(c, &run, k, kind));
    }
    if (verbosity >= 1 && done_steps > 0) {
        const double mean_full = nfull ? full_s / (double)nfull : 0.0;
        printf("sequence  %lld steps in %.3f s: %lld full setup%s (mean %.3f ms), %lld keeping the "
               "prolongator (mean %.3f ms); solves %.3f s\n", (long long)done_steps,
               gs_time_now() - t_start, (long long)nfull, nfull == 1 ? "" : "s", 1e3 * mean_full,
               (long long)nre, nre ? 1e3 * re_s / (double)nre : 0.0, solve_s);
        if (nre > 0)
            printf("          setup time saved %.3f s of %.3f s (a full setup at every step taking "
                   "the full setups' mean)\n", (double)nre * mean_full - re_s,
                   (double)done_steps * mean_full);
    }
    code = all ? 0 : 3;
    if (!all && verbosity >= 0) fprintf(stderr, "gsolve: a step did not converge (see its row)\n");
done:
    if (st != GS_OK) code = fail(st, verbosity);
    if (gs_host_signal()) code = 128 + gs_host_signal();
    gs_engine_destroy(&e);
    gs_run_release(&run);
    gs_problem_destroy(&p);
    gs_problem_destroy(&q);
    gs_free(ck);
    return code;
}

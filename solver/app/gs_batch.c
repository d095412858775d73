/* gs_batch.c: the batch runner: cases x formats x repeats, recorded one CSV row per run. */
#include "gs_batch.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gs_backend.h"
#include "gs_app_run.h"
#include "gs_driver.h"
#include "gs_host.h"
#include "gs_mem.h"
#include "gs_problem.h"
#include "gs_report.h"
#include "gs_results.h"

#define NAME_LEN 256
#define PATH_LEN (GS_CFG_STR + 64)

/* The state of one gsolve batch invocation. */
typedef struct batch {
    const gs_config *file_cfg;
    const gs_batch_opts *o;
    gs_config base;      /* the file's keys with --set applied: batch.* comes from here */
    int64_t first, last; /* cases run */
    int nformats;
    int64_t total, k; /* runs in this invocation, and the one being done */
    int64_t n_conv, n_notconv, n_failed, n_skipped;
    int64_t n_prev_bad;    /* skipped runs recorded as not converged or failed */
    int warmup;            /* warmup runs before the repeats of each (case, format) */
    const char *host_note; /* why the batch runs on the host, or NULL */
} batch;

/* A name for a case without one: the matrix file's name, or the generator and its size. */
static void default_name(const gs_config *c, int64_t i, char *out, size_t len)
{
    if (c->problem.name[0]) {
        gs_str_copy(out, len, c->problem.name);
    } else if (c->problem.matrix[0]) {
        const char *b = strrchr(c->problem.matrix, '/');
        gs_str_copy(out, len, b ? b + 1 : c->problem.matrix);
        for (int pass = 0; pass < 2; pass++) {
            char *dot = strrchr(out, '.');
            if (dot && dot != out &&
                (!strcmp(dot, ".gz") || !strcmp(dot, ".mtx") || !strcmp(dot, ".mm") ||
                 !strcmp(dot, ".h5") || !strcmp(dot, ".hdf5") || !strcmp(dot, ".mat")))
                *dot = '\0';
        }
    } else if (c->problem.generate.type[0]) {
        const char *t = c->problem.generate.type;
        int64_t s = c->problem.generate.stencil;
        int pl = strcmp(t, "powerlaw") == 0;
        /* a grid whose sides differ (problem.generate.nx, ny, nz) is named by them: 64x64x128 */
        const gs_config *g = c;
        int64_t n = g->problem.generate.size, nx = g->problem.generate.nx,
                ny = g->problem.generate.ny, nz = g->problem.generate.nz;
        char grid[80];
        if ((nx && nx != n) || (ny && ny != n) || (nz && nz != n)) {
            if (s == 5 || s == 9)
                snprintf(grid, sizeof grid, "%lldx%lld", (long long)(nx ? nx : n),
                         (long long)(ny ? ny : n));
            else
                snprintf(grid, sizeof grid, "%lldx%lldx%lld", (long long)(nx ? nx : n),
                         (long long)(ny ? ny : n), (long long)(nz ? nz : n));
        } else {
            snprintf(grid, sizeof grid, "%lld", (long long)n);
        }
        snprintf(out, len, "%.100s%s-%s%s%s", t,
                 pl                   ? ""
                 : (s == 5 || s == 9) ? "2d"
                                      : "3d",
                 grid, (s == 9 || s == 27) && !pl ? "-box" : "",
                 c->problem.generate.dof > 1 ? "-block" : "");
    } else {
        snprintf(out, len, "case-%lld", (long long)i);
    }
}

gs_status gs_batch_case_config(const gs_config *file_cfg, const gs_batch_opts *o, int64_t i,
                               gs_config *out)
{
    gs_status st = GS_OK;
    char name[NAME_LEN];
    *out = *file_cfg;
    GS_CHECK(gs_config_apply_case(out, i));
    for (int k = 0; k < o->nsets; k++) GS_CHECK(gs_config_set(out, o->sets[k]));
    default_name(out, i, name, sizeof name);
    gs_str_copy(out->problem.name, sizeof out->problem.name, name);
    st = gs_config_check(out);
    if (st != GS_OK) { /* say which case */
        char msg[1024];
        gs_str_copy(msg, sizeof msg, gs_error_message());
        gs_error_clear();
        GS_FAIL(st, "case %lld (%s): %s", (long long)i, name, msg);
    }
done:
    return st;
}

/* Every case's configuration checked and the names distinct (they key the results). */
static gs_status check_cases(const gs_config *file_cfg, const gs_batch_opts *o, FILE *list)
{
    gs_status st = GS_OK;
    int64_t n = file_cfg->batch.cases;
    gs_config *c = NULL;
    char(*names)[NAME_LEN] = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *c, "configuration", (void **)&c));
    GS_CHECK(gs_alloc_array((size_t)n, sizeof *names, "case names", (void **)&names));
    for (int64_t i = 0; i < n; i++) {
        GS_CHECK(gs_batch_case_config(file_cfg, o, i, c));
        gs_str_copy(names[i], NAME_LEN, c->problem.name);
        for (int64_t j = 0; j < i; j++)
            if (strcmp(names[i], names[j]) == 0)
                GS_FAIL(GS_ERR_CONFIG,
                        "%s: cases %lld and %lld are both named '%s': give them distinct names "
                        "(name = \"...\";)",
                        file_cfg->source, (long long)j, (long long)i, names[i]);
        if (list && c->problem.matrix[0])
            fprintf(list, "%lld %s matrix %s\n", (long long)i, names[i], c->problem.matrix);
        else if (list)
            fprintf(list, "%lld %s generate %s size %lld stencil %lld\n", (long long)i, names[i],
                    c->problem.generate.type, (long long)c->problem.generate.size,
                    (long long)c->problem.generate.stencil);
    }
done:
    gs_free(c);
    gs_free(names);
    return st;
}

/* The file's keys with the --set assignments: the batch.* values in force. */
static gs_status base_config(const gs_config *file_cfg, const gs_batch_opts *o, gs_config *base)
{
    gs_status st = GS_OK;
    *base = *file_cfg;
    for (int k = 0; k < o->nsets; k++) GS_CHECK(gs_config_set(base, o->sets[k]));
done:
    return st;
}

gs_status gs_batch_list(const gs_config *file_cfg, const gs_batch_opts *o, FILE *out)
{
    gs_status st = GS_OK;
    gs_config *base = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *base, "configuration", (void **)&base));
    GS_CHECK(base_config(file_cfg, o, base));
    GS_CHECK(check_cases(file_cfg, o, out));
    fprintf(out, "# formats: %s\n# repeats: %lld\n# results: %s\n# array: 0-%lld\n",
            base->batch.formats[0] ? base->batch.formats : base->spmv.format,
            (long long)base->batch.repeats, base->batch.results,
            (long long)file_cfg->batch.cases - 1);
done:
    gs_free(base);
    return st;
}

/* mkdir that accepts an existing folder. */
static gs_status make_dir(const char *path)
{
    if (mkdir(path, 0755) == 0 || errno == EEXIST) return GS_OK;
    return GS_ERROR(GS_ERR_WRITE, "cannot create the folder '%s': %s", path, strerror(errno));
}

/* The status recorded for the (case, format, repeat) triple under settings hash in t (its last
 * row), or NULL. */
static const char *recorded(const gs_csv_table *t, const char *name, const char *fmt, int rep,
                            const char *hash)
{
    char r[16];
    const char *status = NULL;
    snprintf(r, sizeof r, "%d", rep);
    for (int64_t i = 0; i < t->nrows; i++)
        if (!strcmp(gs_csv_table_get(t, i, "case"), name) &&
            !strcmp(gs_csv_table_get(t, i, "requested_format"), fmt) &&
            !strcmp(gs_csv_table_get(t, i, "repeat"), r) &&
            !strcmp(gs_csv_table_get(t, i, "settings"), hash))
            status = gs_csv_table_get(t, i, "status");
    return status;
}

/* The settings of case configuration cc run in format fmt (gs_config_settings): their text
 * (gs_free it) and hash. The backend is the configured one, not the host a batch falls back to
 * without a GPU, so that every node of an array computes the same hash. */
static gs_status run_settings(const gs_config *cc, const char *fmt, char **text, char hash[17])
{
    gs_status st = GS_OK;
    gs_config *rc = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *rc, "configuration", (void **)&rc));
    *rc = *cc;
    gs_str_copy(rc->spmv.format, sizeof rc->spmv.format, fmt);
    GS_CHECK(gs_config_settings(rc, text, hash));
done:
    gs_free(rc);
    return st;
}

/* The result of a run that did not happen or broke off: why, and what it was to be. */
static void failed_result(const gs_config *c, const gs_run *run, const char *fmt, const char *msg,
                          gs_result *r)
{
    if (run->res.case_name[0])
        *r = run->res;
    else
        memset(r, 0, sizeof *r);
    gs_str_copy(r->case_name, sizeof r->case_name, c->problem.name);
    if (!r->matrix[0])
        gs_str_copy(r->matrix, sizeof r->matrix,
                    c->problem.matrix[0] ? c->problem.matrix : c->problem.generate.type);
    gs_str_copy(r->solver, sizeof r->solver, c->solver.type);
    gs_str_copy(r->preconditioner, sizeof r->preconditioner, c->solver.preconditioner);
    if (!r->format[0]) gs_str_copy(r->format, sizeof r->format, fmt);
    if (!r->backend[0]) gs_str_copy(r->backend, sizeof r->backend, c->run.backend);
    gs_str_copy(r->reason, sizeof r->reason, "error");
    gs_str_copy(r->reason_text, sizeof r->reason_text, msg);
    r->converged = 0;
    r->iterations = 0;
    r->rel_residual = NAN;
    r->error = -1.0;
    r->setup_s = r->solve_s = r->total_s = 0.0;
    r->x = NULL;
    r->history = r->history_time = NULL;
    r->history_iter = NULL;
    r->history_len = 0;
}

/* Record one run: history and HDF5 record first (each renamed into place), then the CSV
 * row, the commit point. rep < 0: warmup run -rep. */
static gs_status record_run(const char *dir, const char *csv, const char *stem, int64_t ci,
                            const char *fmt, int rep, const char *status, gs_result *r)
{
    gs_status st = GS_OK;
    char path[PATH_LEN + 200], idx[24], reps[16];
    static const double none = 0.0;
    static const int none_it = 0;
    snprintf(idx, sizeof idx, "%lld", (long long)ci);
    snprintf(reps, sizeof reps, "%d", rep);
    const char *names[] = {"case_index", "requested_format", "repeat", "status",
                           "message",    "record",           "warmup"};
    const char *values[] = {idx, fmt, reps, status, r->reason_text, stem, rep < 0 ? "1" : "0"};
    enum { NEXT = sizeof names / sizeof names[0] };
    if (r->history_len > 0) {
        snprintf(path, sizeof path, "%s/%s.history.csv", dir, stem);
        GS_CHECK(gs_results_history_write(path, r));
    } else { /* HDF5 wants a buffer even for an empty dataset */
        r->history = r->history_time = &none;
        r->history_iter = &none_it;
    }
    snprintf(path, sizeof path, "%s/%s.h5", dir, stem);
    GS_CHECK(gs_results_hdf5_write_ext(path, r, NEXT, names, values));
    GS_CHECK(gs_results_csv_append_ext(csv, r, NEXT, names, values));
done:
    return st;
}

/* RES/STEM.running: which run is under way, since when and where (a small CSV the report
 * reads when a crash leaves it behind). Written beside it and renamed into place, so that a kill
 * while it is written leaves no marker rather than an empty one the report cannot read. */
static void marker_write(const char *path, const gs_config *cc, int64_t ci, const char *fmt,
                         int rep)
{
    char when[32], host[256] = "", tmp[PATH_LEN + 220];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return; /* the marker only serves the report's account of a crash */
    gs_results_timestamp(when, sizeof when);
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    for (char *q = host; *q; q++)
        if (*q == ',' || *q == '"') *q = '_';
    fprintf(f, "case,case_index,requested_format,repeat,warmup,started,pid,host\n");
    fprintf(f, "\"");
    for (const char *q = cc->problem.name; *q; q++) fprintf(f, *q == '"' ? "\"\"" : "%c", *q);
    fprintf(f, "\",%lld,%s,%d,%d,%s,%ld,%s\n", (long long)ci, fmt, rep, rep < 0, when,
            (long)getpid(), host);
    if (fclose(f) != 0 || rename(tmp, path) != 0) (void)unlink(tmp);
}

/* A run's name under RES: case-NNN/FORMAT-R, or case-NNN/FORMAT-wW for warmup W (rep = -W) */
static void run_stem(int64_t ci, const char *fmt, int rep, char *stem, size_t len)
{
    if (rep < 0)
        snprintf(stem, len, "case-%03lld/%s-w%d", (long long)ci, fmt, -rep);
    else
        snprintf(stem, len, "case-%03lld/%s-%d", (long long)ci, fmt, rep);
}

/* The marker of a run whose row is already in: a process killed between recording the row
 * and removing its marker left it (the case's lock is held, so no run of it is under way). */
static void clear_stale_marker(const char *res, int64_t ci, const char *fmt, int rep)
{
    char stem[160], marker[PATH_LEN + 200];
    run_stem(ci, fmt, rep, stem, sizeof stem);
    snprintf(marker, sizeof marker, "%s/%s.running", res, stem);
    (void)unlink(marker);
}

/* Run one (case, format, repeat) on problem p (NULL: it could not be loaded, load_err says
 * why), record it and print the progress line. rep < 0: warmup run -rep (not counted). */
static gs_status run_one(batch *b, const gs_config *cc, const gs_problem *p, const char *load_err,
                         int64_t ci, const char *fmt, int rep, const char *csv, const char *hash)
{
    gs_status st = GS_OK;
    gs_config *rc = NULL;
    gs_run run;
    gs_result r;
    char msg[512] = "", stem[160], marker[PATH_LEN + 200];
    memset(&run, 0, sizeof run);
    GS_CHECK(gs_alloc_array(1, sizeof *rc, "configuration", (void **)&rc));
    *rc = *cc;
    gs_str_copy(rc->spmv.format, sizeof rc->spmv.format, fmt);
    rc->output.csv[0] = rc->output.hdf5[0] = rc->output.history[0] = rc->output.solution[0] = 0;
    if (b->host_note) gs_str_copy(rc->run.backend, sizeof rc->run.backend, "host");
    run_stem(ci, fmt, rep, stem, sizeof stem);
    snprintf(marker, sizeof marker, "%s/%s.running", b->base.batch.results, stem);
    if (p) marker_write(marker, cc, ci, fmt, rep);
    gs_error_clear();
    /* the run's header and iteration lines at verbosity 2 or with output.monitor */
    FILE *out = rc->output.verbosity >= 2 || rc->output.monitor > 0 ? stdout : NULL;
    gs_status rs = p ? gs_app_solve(rc, p, &run, out) : GS_ERR_IO;
    if (rs != GS_OK) {
        gs_str_copy(msg, sizeof msg, p ? gs_error_message() : load_err);
        if (!msg[0]) gs_str_copy(msg, sizeof msg, gs_status_str(rs));
        gs_error_clear();
        failed_result(rc, &run, fmt, msg, &r);
    } else {
        r = run.res;
        if (rc->output.verbosity >= 2) gs_app_print_summary(rc, p, &run, stdout);
    }
    const char *status = rs != GS_OK                            ? "failed"
                         : r.converged                          ? "converged"
                         : strcmp(r.reason, "interrupted") == 0 ? "interrupted"
                                                                : "not_converged";
    gs_results_set_context(&r, rc);
    if (rs == GS_OK) gs_driver_context_amg(run.amg, &r);
    gs_str_copy(r.context.settings, sizeof r.context.settings, hash); /* rc may run on the host */
    GS_CHECK(record_run(b->base.batch.results, csv, stem, ci, fmt, rep, status, &r));
    unlink(marker); /* the row is in: no crash to tell */
    if (rep > 0) {
        b->n_failed += rs != GS_OK;
        b->n_conv += rs == GS_OK && r.converged;
        b->n_notconv += rs == GS_OK && !r.converged;
    }
    if (cc->output.verbosity < 1 || !p) goto done; /* a problem not read: said once a case */
    printf("[%lld/%lld] case %s, format %s", (long long)b->k, (long long)b->total, cc->problem.name,
           fmt);
    if (rs == GS_OK && strcmp(r.format, fmt) != 0) printf(" (ran %s)", r.format);
    if (rep < 0)
        printf(", warmup %d", -rep);
    else if (b->base.batch.repeats > 1)
        printf(", repeat %d", rep);
    if (rs != GS_OK)
        printf(": failed: %s\n", msg);
    else if (strcmp(status, "interrupted") == 0)
        printf(": %s\n", r.reason_text);
    else if (!r.converged)
        printf(": not converged (%s) after %d its, %.1f ms\n", r.reason, r.iterations,
               1e3 * r.total_s);
    else
        printf(": %d its, %.1f ms\n", r.iterations, 1e3 * r.total_s);
    fflush(stdout);
done:
    gs_run_release(&run);
    gs_free(rc);
    return st;
}

/* Take RES/case-NNN.lock (one process per case); *fd >= 0 holds it. */
static gs_status lock_case(const char *path, int *fd)
{
    *fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (*fd < 0) return GS_ERROR(GS_ERR_WRITE, "cannot create '%s': %s", path, strerror(errno));
    if (flock(*fd, LOCK_EX | LOCK_NB) == 0) return GS_OK;
    close(*fd);
    *fd = -1;
    return GS_ERROR(GS_ERR_WRITE, "another gsolve is running this case (%s is locked)", path);
}

/* The recorded rows of the case file, after cutting off a torn last row and dropping the rows
 * of interrupted and failed runs (they run again). */
static gs_status read_recorded(const char *csv, gs_csv_table **t)
{
    gs_status st = GS_OK;
    int64_t dropped = 0;
    GS_CHECK(gs_results_csv_repair(csv, &dropped));
    if (dropped)
        fprintf(stderr,
                "gsolve: %s: cut off a torn last row (%lld bytes) left by an "
                "interrupted run\n",
                csv, (long long)dropped);
    GS_CHECK(gs_results_csv_drop(csv, "status", "interrupted", &dropped));
    if (dropped)
        fprintf(stderr, "gsolve: %s: %lld interrupted run%s will run again\n", csv,
                (long long)dropped, dropped > 1 ? "s" : "");
    /* a failed run (a file that could not be read, a GPU error) is no result: tried again */
    GS_CHECK(gs_results_csv_drop(csv, "status", "failed", &dropped));
    if (dropped)
        fprintf(stderr, "gsolve: %s: %lld failed run%s will run again\n", csv,
                (long long)dropped, dropped > 1 ? "s" : "");
    GS_CHECK(gs_results_csv_read(csv, t));
    if ((*t)->ncols > 0 && gs_csv_table_col(*t, "requested_format") < 0)
        GS_FAIL(GS_ERR_INPUT,
                "%s is not a gsolve batch result file (no requested_format "
                "column): move it away or choose another batch.results",
                csv);
done:
    return st;
}

/* Format f of the batch ("" list: the case's own spmv.format). */
static void format_item(const batch *b, const gs_config *cc, int f, char *out, size_t len)
{
    if (!gs_config_list_item(b->base.batch.formats, f, out, len))
        gs_str_copy(out, len, cc->spmv.format);
}

/* The "key = value;" line of key in a settings text ("" when absent: the key at its default). */
static void settings_value(const char *text, const char *key, char *out, size_t len)
{
    size_t n = strlen(key);
    out[0] = '\0';
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, key, n) == 0 && strncmp(l + n, " = ", 3) == 0) {
            size_t m = strcspn(l + n + 3, "\n");
            if (m > 0 && l[n + 3 + m - 1] == ';') m--;
            snprintf(out, len, "%.*s", (int)m, l + n + 3);
            return;
        }
}

/* "key: old -> new; ..." for every key whose value differs between two settings texts. */
static void settings_diff(const char *old, const char *now, char *out, size_t len)
{
    size_t o = 0;
    out[0] = '\0';
    for (int pass = 0; pass < 2; pass++) { /* the keys of now, then those only in old */
        const char *t = pass ? old : now;
        for (const char *l = t; *l && o < len; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
            char key[256], a[256], c[256];
            size_t k = strcspn(l, " =\n");
            if (k == 0 || k >= sizeof key) continue;
            snprintf(key, sizeof key, "%.*s", (int)k, l);
            settings_value(old, key, a, sizeof a);
            settings_value(now, key, c, sizeof c);
            if (strcmp(a, c) == 0 || (pass && c[0])) continue;
            o += (size_t)snprintf(out + o, len - o, "%s%s: %s -> %s", o ? "; " : "", key,
                                  a[0] ? a : "(default)", c[0] ? c : "(default)");
        }
    }
    if (o >= len && len > 4) strcpy(out + len - 4, "...");
}

/* The whole small file at path into a gs_malloc'ed string (*out = NULL when absent). */
static void read_small(const char *path, char **out)
{
    FILE *f = fopen(path, "r");
    char *s = NULL;
    size_t n = 0, cap = 0;
    *out = NULL;
    if (!f) return;
    for (int ch; (ch = fgetc(f)) != EOF;) {
        if (n + 1 >= cap) {
            char *s2 = gs_realloc(s, cap = 2 * cap + 256);
            if (!s2) break;
            s = s2;
        }
        s[n++] = (char)ch;
    }
    fclose(f);
    if (s && n + 1 <= cap) s[n] = '\0';
    *out = s;
}

/* text into path, written beside it under a name of this process's own (array tasks on any
 * node may write the same file at once) and renamed into place. */
static gs_status write_small(const char *path, const char *text)
{
    char tmp[PATH_LEN + 240], host[64] = "";
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    for (char *q = host; *q; q++)
        if (*q == '/') *q = '_';
    snprintf(tmp, sizeof tmp, "%s.tmp.%s.%ld", path, host, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return GS_ERROR(GS_ERR_WRITE, "cannot write '%s': %s", tmp, strerror(errno));
    fputs(text, f);
    if ((ferror(f) | fclose(f)) || rename(tmp, path) != 0) {
        (void)unlink(tmp);
        return GS_ERROR(GS_ERR_WRITE, "cannot write '%s': %s", path, strerror(errno));
    }
    return GS_OK;
}

/* The rows of (case, format) recorded under other settings than hash dropped from csv (the
 * rerun overwrites their HDF5 and history files); RES/case-NNN/FORMAT.settings holds the text
 * of the settings recorded. *dropped counts the rows; the first change seen goes to why. */
static gs_status drop_outdated(const char *csv, const char *sub, const char *name,
                               const char *fmt, const char *hash, const char *text,
                               int64_t *dropped, char *why, size_t why_len)
{
    gs_status st = GS_OK;
    char path[PATH_LEN + 80], *old = NULL;
    int64_t n = 0;
    gs_csv_match m[3] = {{"case", name, 0}, {"requested_format", fmt, 0}, {"settings", hash, 1}};
    snprintf(path, sizeof path, "%s/%s.settings", sub, fmt);
    GS_CHECK(gs_results_csv_drop_where(csv, 3, m, &n));
    read_small(path, &old);
    if (n > 0 && !why[0]) {
        if (old)
            settings_diff(old, text, why, why_len);
        else
            gs_str_copy(why, why_len, "the settings they were recorded under are unknown");
    }
    *dropped += n;
    if (!old || strcmp(old, text) != 0) GS_CHECK(write_small(path, text));
done:
    gs_free(old);
    return st;
}

/* The rows of csv that another case recorded dropped: the case that stood at this index before
 * the cases were reordered or renamed. Its record files are made again under this case's runs,
 * so its rows would name records that are no longer its own. */
static gs_status drop_other_cases(const char *csv, const char *name)
{
    gs_status st = GS_OK;
    int64_t n = 0;
    gs_csv_match m[1] = {{"case", name, 1}};
    GS_CHECK(gs_results_csv_drop_where(csv, 1, m, &n));
    if (n)
        fprintf(stderr,
                "gsolve: %s: %lld run%s of another case dropped (the cases were reordered or "
                "renamed); case %s is recorded there now\n",
                csv, (long long)n, n == 1 ? "" : "s", name);
done:
    return st;
}

/* The problem of case cc, loaded once for its runs (*p NULL with load_err on failure). */
static void load_case(batch *b, const gs_config *cc, gs_problem **p, char *load_err, size_t len)
{
    gs_error_clear();
    /* the GPU before the matrix: it is then read into page-locked memory */
    if (!b->host_note) gs_backend_cuda_start(cc->run.backend, (int)cc->run.device);
    if (gs_problem_load(cc, p) != GS_OK) {
        gs_str_copy(load_err, len, gs_error_message());
        gs_error_clear();
    }
}

/* The line that says a case's problem could not be read, once for all its runs. */
static void say_load_failed(const gs_config *cc, const char *err, int64_t runs)
{
    char where[2 * PATH_LEN + 64];
    if (cc->problem.matrix[0]) {
        char path[PATH_LEN], cwd[PATH_LEN];
        gs_config_input_path(cc, cc->problem.matrix, path, sizeof path);
        if (path[0] != '/' && getcwd(cwd, sizeof cwd))
            snprintf(where, sizeof where, "matrix %.1000s/%.1000s", cwd, path);
        else
            snprintf(where, sizeof where, "matrix %s", path);
    } else {
        snprintf(where, sizeof where, "generator %s", cc->problem.generate.type);
    }
    fprintf(stderr,
            "gsolve: case %s: its problem (%s) cannot be read: %s; its %lld pending run%s "
            "recorded as failed, the batch goes on\n",
            cc->problem.name, where, err, (long long)runs, runs == 1 ? "" : "s");
}

/* Every pending (format, repeat) of case ci; the problem is loaded once, when needed. */
static gs_status run_case(batch *b, int64_t ci)
{
    gs_status st = GS_OK;
    gs_config *cc = NULL;
    gs_csv_table *t = NULL;
    gs_problem *p = NULL;
    char csv[PATH_LEN], sub[PATH_LEN], lock[PATH_LEN], fmt[64], load_err[1024] = "";
    char(*hash)[17] = NULL, why[512] = "", *text = NULL; /* hash[f]: format f's settings */
    int lockfd = -1, loaded = 0;
    int64_t skipped = 0, dropped = 0, failed_load = 0;
    const char *res = b->base.batch.results;
    GS_CHECK(gs_alloc_array(1, sizeof *cc, "configuration", (void **)&cc));
    GS_CHECK(gs_batch_case_config(b->file_cfg, b->o, ci, cc));
    GS_CHECK(gs_alloc_array((size_t)b->nformats, sizeof *hash, "settings hashes", (void **)&hash));
    snprintf(csv, sizeof csv, "%s/case-%03lld.csv", res, (long long)ci);
    snprintf(sub, sizeof sub, "%s/case-%03lld", res, (long long)ci);
    snprintf(lock, sizeof lock, "%s/case-%03lld.lock", res, (long long)ci);
    GS_CHECK(make_dir(sub));
    GS_CHECK(lock_case(lock, &lockfd));
    GS_CHECK(drop_other_cases(csv, cc->problem.name));
    GS_CHECK(read_recorded(csv, &t)); /* rows of other settings never match recorded() */
    for (int f = 0; f < b->nformats; f++) {
        format_item(b, cc, f, fmt, sizeof fmt);
        GS_CHECK(run_settings(cc, fmt, &text, hash[f]));
        st = drop_outdated(csv, sub, cc->problem.name, fmt, hash[f], text, &dropped, why,
                           sizeof why);
        gs_free(text);
        text = NULL;
        GS_CHECK(st);
    }
    if (dropped)
        fprintf(stderr,
                "gsolve: case %s: settings changed since its runs were recorded (%s): %lld "
                "recorded run%s dropped from %s, run again\n",
                cc->problem.name, why, (long long)dropped, dropped > 1 ? "s" : "", csv);
    for (int f = 0; f < b->nformats && !gs_host_signal(); f++) { /* a signal stops the batch */
        format_item(b, cc, f, fmt, sizeof fmt);
        int pending = 0; /* warmups run only before counted repeats that run */
        for (int rep = 1; rep <= b->base.batch.repeats && !pending; rep++)
            pending = b->o->force || !recorded(t, cc->problem.name, fmt, rep, hash[f]);
        for (int rep = -b->warmup; rep <= b->base.batch.repeats && !gs_host_signal(); rep++) {
            if (rep == 0) continue;
            b->k++;
            if (rep < 0 && (!pending || (loaded && !p))) {
                clear_stale_marker(res, ci, fmt, rep);
                continue;
            }
            const char *prev =
                b->o->force || rep < 0 ? NULL : recorded(t, cc->problem.name, fmt, rep, hash[f]);
            if (prev) {
                clear_stale_marker(res, ci, fmt, rep);
                skipped++;
                b->n_prev_bad += strcmp(prev, "converged") != 0;
                continue;
            }
            if (!loaded) load_case(b, cc, &p, load_err, sizeof load_err);
            loaded = 1;
            if (!p && rep < 0) continue; /* no warmup of a problem not read */
            failed_load += !p;
            GS_CHECK(run_one(b, cc, p, load_err, ci, fmt, rep, csv, hash[f]));
        }
    }
    if (failed_load) say_load_failed(cc, load_err, failed_load);
    b->n_skipped += skipped;
    if (skipped && cc->output.verbosity >= 1)
        printf("case %s: %lld run%s already recorded in %s, skipped (--force runs them "
               "again)\n",
               cc->problem.name, (long long)skipped, skipped > 1 ? "s" : "", csv);
done:
    if (lockfd >= 0) close(lockfd);
    gs_free(text);
    gs_free(hash);
    gs_problem_destroy(&p);
    gs_csv_table_destroy(&t);
    gs_free(cc);
    return st;
}

/* RES/expected.csv: every (case, requested format) of the whole batch with its repeats, warmup
 * runs and settings hash, so that the report can name the runs that never started. Written
 * beside it and renamed into place: array tasks write it at once, each the same text. */
static gs_status write_manifest(batch *b)
{
    gs_status st = GS_OK;
    gs_config *cc = NULL;
    char path[PATH_LEN], fmt[64], hash[17], *text = NULL, *csv = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&csv, &len);
    if (!f) return GS_ERROR(GS_ERR_NOMEM, "out of memory for the batch's expected.csv");
    snprintf(path, sizeof path, "%s/expected.csv", b->base.batch.results);
    GS_CHECK(gs_alloc_array(1, sizeof *cc, "configuration", (void **)&cc));
    fprintf(f, "case_index,case,requested_format,repeats,warmup,settings\n");
    for (int64_t i = 0; i < b->file_cfg->batch.cases; i++) {
        GS_CHECK(gs_batch_case_config(b->file_cfg, b->o, i, cc));
        for (int k = 0; k < b->nformats; k++) {
            format_item(b, cc, k, fmt, sizeof fmt);
            GS_CHECK(run_settings(cc, fmt, &text, hash));
            gs_free(text);
            text = NULL;
            int quote = strpbrk(cc->problem.name, ",\"\n\r") != NULL;
            fprintf(f, "%lld,%s", (long long)i, quote ? "\"" : "");
            for (const char *q = cc->problem.name; *q; q++)
                fprintf(f, *q == '"' ? "\"\"" : "%c", *q);
            fprintf(f, "%s,%s,%lld,%d,%s\n", quote ? "\"" : "", fmt,
                    (long long)b->base.batch.repeats, b->warmup, hash);
        }
    }
    int bad = ferror(f);
    bad |= fclose(f);
    f = NULL;
    if (bad || !csv) GS_FAIL(GS_ERR_NOMEM, "out of memory for the batch's expected.csv");
    GS_CHECK(write_small(path, csv));
done:
    if (f) fclose(f);
    free(csv); /* open_memstream's buffer: the C library's malloc */
    gs_free(text);
    gs_free(cc);
    return st;
}

/* The cases this invocation runs: --case N, else SLURM_ARRAY_TASK_ID, else all. */
static gs_status pick_cases(batch *b)
{
    int64_t n = b->file_cfg->batch.cases, c = b->o->only_case;
    const char *env = getenv("SLURM_ARRAY_TASK_ID");
    const char *from = "--case";
    if (c < 0 && env && *env) {
        char *end = NULL;
        c = strtoll(env, &end, 10);
        if (end == env || *end || c < 0)
            return GS_ERROR(GS_ERR_CONFIG, "SLURM_ARRAY_TASK_ID = \"%s\": expected a case number",
                            env);
        from = "SLURM_ARRAY_TASK_ID";
    }
    if (c >= n)
        return GS_ERROR(GS_ERR_CONFIG, "%s %lld: %s has %lld cases, numbered 0..%lld", from,
                        (long long)c, b->file_cfg->source, (long long)n, (long long)n - 1);
    b->first = c < 0 ? 0 : c;
    b->last = c < 0 ? n - 1 : c;
    return GS_OK;
}

gs_status gs_batch_run(const gs_config *file_cfg, const gs_batch_opts *o, int *exit_code)
{
    return gs_batch_run_warmup(file_cfg, o, 0, exit_code);
}

gs_status gs_batch_run_warmup(const gs_config *file_cfg, const gs_batch_opts *o, int warmup,
                              int *exit_code)
{
    gs_status st = GS_OK;
    batch *b = NULL;
    gs_report *rep = NULL;
    char item[64];
    *exit_code = 0;
    GS_CHECK(gs_alloc_array(1, sizeof *b, "batch", (void **)&b));
    memset(b, 0, sizeof *b);
    b->file_cfg = file_cfg;
    b->o = o;
    GS_CHECK(base_config(file_cfg, o, &b->base));
    GS_CHECK(check_cases(file_cfg, o, NULL)); /* a bad case stops the batch before any work */
    GS_CHECK(pick_cases(b));
    while (gs_config_list_item(b->base.batch.formats, b->nformats, item, sizeof item))
        b->nformats++;
    if (b->nformats == 0) b->nformats = 1;
    b->warmup = warmup > 0 ? warmup : (int)b->base.batch.warmup;
    b->total = (b->last - b->first + 1) * b->nformats * (b->base.batch.repeats + b->warmup);
    if (strcmp(b->base.run.backend, "auto") == 0 && gs_backend_cuda_devices(&b->host_note) <= 0) {
        if (!b->host_note) b->host_note = "none found";
        fprintf(stderr, "gsolve: no usable GPU (%s): the batch runs on the host\n", b->host_note);
    }
    GS_CHECK(make_dir(b->base.batch.results));
    GS_CHECK(write_manifest(b));
    gs_host_catch_signals(); /* SIGINT/SIGTERM: the run under way is recorded, the batch stops */
    for (int64_t ci = b->first; ci <= b->last && !gs_host_signal(); ci++) GS_CHECK(run_case(b, ci));
    if (gs_host_signal()) {
        printf("batch stopped by %s: the run under way is recorded as interrupted; gsolve %s "
               "runs it again and the rest\n",
               gs_host_signal_name(gs_host_signal()), file_cfg->source);
        *exit_code = 128 + gs_host_signal();
        goto done;
    }
    if (b->base.output.verbosity >= 1) {
        GS_CHECK(gs_report_load(b->base.batch.results, b->first == b->last ? b->first : -1, &rep));
        putchar('\n');
        gs_report_print(rep, stdout);
        printf("%lld runs: %lld converged, %lld not converged, %lld failed, %lld skipped "
               "(recorded before); results in %s (gsolve report %s)\n",
               (long long)b->total, (long long)b->n_conv, (long long)b->n_notconv,
               (long long)b->n_failed, (long long)b->n_skipped, b->base.batch.results,
               b->base.batch.results);
    }
    *exit_code = b->n_notconv || b->n_failed || b->n_prev_bad ? 3 : 0;
done:
    gs_report_destroy(&rep);
    gs_free(b);
    return st;
}

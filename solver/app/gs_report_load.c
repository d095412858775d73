/* gs_report_load.c: a batch's result files read into the report's runs: RES/case-NNN.csv (the
 * latest row of a (case, format, repeat, settings) wins), the markers of runs a crash left
 * (RES/case-NNN/FORMAT-R.running), RES/expected.csv (the runs the batch expects); each run
 * given the entry it counts under (what ran, its settings). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "gs_mem.h"
#include "gs_report_impl.h"
#include "gs_results.h"

const char *const gs_report_set_keys[GS_REPORT_NSET] = {"solver",
                                                        "preconditioner",
                                                        "rtol",
                                                        "atol",
                                                        "max_iters",
                                                        "restart",
                                                        "threads",
                                                        "backend",
                                                        "device",
                                                        "version",
                                                        "commit",
                                                        "amg_strength",
                                                        "amg_theta",
                                                        "amg_aggregation",
                                                        "amg_smoother",
                                                        "amg_cycle",
                                                        "amg_presweeps",
                                                        "amg_postsweeps",
                                                        "amg_chebyshev_degree",
                                                        "amg_coarse_chebyshev_degree",
                                                        "amg_chebyshev_ratio",
                                                        "amg_smoother_omega",
                                                        "amg_prolongator_omega",
                                                        "amg_smooth_prolongator",
                                                        "amg_filter",
                                                        "amg_galerkin",
                                                        "amg_max_levels",
                                                        "amg_coarse_size",
                                                        "amg_block_size",
                                                        "amg_method",
                                                        "amg_restriction"};

int64_t gs_report_runs(const gs_report *r)
{
    return r->n;
}

/* the run of r with w's case, requested format, repeat and settings (a run without them, a
 * crash's marker or an older file's row, matches any), or NULL */
static gs_report_run *find_run(const gs_report *r, const gs_report_run *w)
{
    for (int64_t k = 0; k < r->n; k++) {
        const gs_report_run *v = &r->runs[k];
        if (!strcmp(v->case_name, w->case_name) && !strcmp(v->req, w->req) && v->rep == w->rep &&
            (!v->settings[0] || !w->settings[0] || !strcmp(v->settings, w->settings)))
            return &r->runs[k];
    }
    return NULL;
}

/* Add w, replacing an earlier run of the same (case, format, repeat): the latest wins. */
static gs_status add_run(gs_report *r, const gs_report_run *w)
{
    gs_report_run *same = find_run(r, w);
    if (same) {
        *same = *w;
        return GS_OK;
    }
    if (r->n == r->cap) {
        int64_t cap = r->cap ? 2 * r->cap : 64;
        gs_report_run *p = gs_realloc(r->runs, (size_t)cap * sizeof *p);
        if (!p)
            return GS_ERROR(GS_ERR_NOMEM,
                            "out of memory: could not allocate %zu bytes for the results' runs",
                            (size_t)cap * sizeof *p);
        r->runs = p;
        r->cap = cap;
    }
    r->runs[r->n++] = *w;
    return GS_OK;
}

/* Row i of t as a run. Columns are found by name: files of older versions lack some (they
 * read as ""). */
static void row_run(const gs_csv_table *t, int64_t i, gs_report_run *w)
{
    memset(w, 0, sizeof *w);
#define GET(col) gs_csv_table_get(t, i, col)
    gs_str_copy(w->case_name, sizeof w->case_name, GET("case"));
    gs_str_copy(w->req, sizeof w->req, GET("requested_format"));
    gs_str_copy(w->ran, sizeof w->ran, GET("format"));
    gs_str_copy(w->reason, sizeof w->reason, GET("reason"));
    gs_str_copy(w->message, sizeof w->message, GET("message"));
    gs_str_copy(w->record, sizeof w->record, GET("record"));
    gs_str_copy(w->backend, sizeof w->backend, GET("backend"));
    gs_str_copy(w->device, sizeof w->device, GET("device"));
    gs_str_copy(w->timestamp, sizeof w->timestamp, GET("timestamp"));
    gs_str_copy(w->profile, sizeof w->profile, GET("profile"));
    gs_str_copy(w->settings, sizeof w->settings, GET("settings"));
    w->case_index = atoll(GET("case_index"));
    w->rows = atoll(GET("rows"));
    w->nnz = atoll(GET("nnz"));
    w->rep = atoi(GET("repeat"));
    w->warmup = atoi(GET("warmup")) != 0;
    w->its = atoi(GET("iterations"));
    w->setup = atof(GET("setup_s"));
    w->solve = atof(GET("solve_s"));
    w->total = atof(GET("total_s"));
    const char *s = GET("status");
    w->status = !strcmp(s, "converged") ? 0 : !strcmp(s, "not_converged") ? 1 : 2;
    if (!s[0] && gs_csv_table_col(t, "status") < 0) /* a plain gsolve CSV row */
        w->status = atoi(GET("converged")) ? 0 : 1;
    for (int k = 0; k < GS_REPORT_NSET; k++)
        gs_str_copy(w->set[k], sizeof w->set[k], GET(gs_report_set_keys[k]));
#undef GET
    if (!w->req[0]) gs_str_copy(w->req, sizeof w->req, w->ran);
}

/* Read one case file into r, with a note on a torn last row or broken rows. */
static gs_status load_file(gs_report *r, const char *path)
{
    gs_status st = GS_OK;
    gs_csv_table *t = NULL;
    gs_report_run w;
    GS_CHECK(gs_results_csv_read(path, &t));
    if (t->ncols > 0 && gs_csv_table_col(t, "format") < 0) /* its rows would read as no runs */
        GS_FAIL(GS_ERR_INPUT,
                "%s is not a gsolve result file (no format column): expected the header gsolve "
                "writes (case,matrix,rows,...); move it out of the results folder",
                path);
    if (t->torn_bytes)
        fprintf(stderr,
                "gsolve: note: %s: a torn last row (%lld bytes, an interrupted write) is "
                "ignored\n",
                path, (long long)t->torn_bytes);
    if (t->bad_rows)
        fprintf(stderr, "gsolve: note: %s: %lld rows with a wrong number of fields are ignored\n",
                path, (long long)t->bad_rows);
    for (int64_t i = 0; i < t->nrows; i++) {
        row_run(t, i, &w);
        GS_CHECK(add_run(r, &w));
    }
done:
    gs_csv_table_destroy(&t);
    return st;
}

/* Whether a gsolve process holds RES/case-NNN.lock (runs that case now). */
static int case_running(const char *dir, int64_t ci)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/case-%03lld.lock", dir, (long long)ci);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    int busy = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return busy;
}

/* The marker RES/case-NNN/NAME.running left by a run that never recorded its row: a crash (or
 * a kill) during the run, drawn as failed with what the marker tells. A marker whose run has a
 * row (the process was killed between the two) tells nothing; the next batch run removes it. */
static gs_status load_marker(gs_report *r, const char *path)
{
    gs_status st = GS_OK;
    gs_csv_table *t = NULL;
    gs_report_run w;
    GS_CHECK(gs_results_csv_read(path, &t));
    if (t->nrows < 1) goto done; /* cut short as it was written: nothing to tell */
    memset(&w, 0, sizeof w);
#define GET(col) gs_csv_table_get(t, 0, col)
    gs_str_copy(w.case_name, sizeof w.case_name, GET("case"));
    gs_str_copy(w.req, sizeof w.req, GET("requested_format"));
    gs_str_copy(w.ran, sizeof w.ran, w.req);
    gs_str_copy(w.reason, sizeof w.reason, "crashed");
    gs_str_copy(w.timestamp, sizeof w.timestamp, GET("started"));
    gs_str_copy(w.settings, sizeof w.settings, GET("settings")); /* "" when not written */
    w.case_index = atoll(GET("case_index"));
    w.rep = atoi(GET("repeat"));
    w.warmup = atoi(GET("warmup")) != 0;
    w.status = 2;
    w.crashed = 1;
    snprintf(w.message, sizeof w.message,
             "crashed: the run started %.32s (pid %.16s on %.64s) ended without a result",
             GET("started"), GET("pid"), GET("host"));
#undef GET
    if (!find_run(r, &w)) /* else its row is in: killed after recording it (stale) */
        GS_CHECK(add_run(r, &w));
done:
    gs_csv_table_destroy(&t);
    return st;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in folder path that end with suffix (sorted, gs_malloc'ed); a missing folder
 * gives none when missing_ok. */
static gs_status list_names(const char *path, const char *suffix, int missing_ok, char ***out,
                            size_t *n)
{
    gs_status st = GS_OK;
    char **names = NULL;
    size_t nn = 0, cap = 0, ls = strlen(suffix);
    DIR *d = opendir(path);
    *out = NULL;
    *n = 0;
    if (!d && missing_ok && errno == ENOENT) return GS_OK;
    if (!d)
        return GS_ERROR(GS_ERR_IO, "cannot open the results folder '%s': %s", path,
                        strerror(errno));
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len <= ls || strcmp(e->d_name + len - ls, suffix) != 0) continue;
        if (nn == cap) {
            cap = cap ? 2 * cap : 16;
            char **p = gs_realloc(names, cap * sizeof *p);
            if (!p)
                GS_FAIL(GS_ERR_NOMEM,
                        "out of memory: could not allocate %zu bytes for the file names of '%s'",
                        cap * sizeof *p, path);
            names = p;
        }
        GS_CHECK(gs_alloc_array(len + 1, 1, "file name", (void **)&names[nn]));
        memcpy(names[nn++], e->d_name, len + 1);
    }
    if (nn) qsort(names, nn, sizeof *names, cmp_str);
    *out = names;
    *n = nn;
    names = NULL;
    nn = 0;
done:
    closedir(d);
    for (size_t i = 0; i < nn; i++) gs_free(names[i]);
    gs_free(names);
    return st;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) gs_free(names[i]);
    gs_free(names);
}

/* Case ci: its CSV rows, then the markers of runs that crashed (unless a process runs the
 * case now: its marker is then the run under way). */
static gs_status load_case(gs_report *r, const char *dir, int64_t ci)
{
    gs_status st = GS_OK;
    char path[2048], **names = NULL;
    size_t nn = 0;
    snprintf(path, sizeof path, "%s/case-%03lld.csv", dir, (long long)ci);
    GS_CHECK(load_file(r, path));
    if (case_running(dir, ci)) goto done;
    snprintf(path, sizeof path, "%s/case-%03lld", dir, (long long)ci);
    GS_CHECK(list_names(path, ".running", 1, &names, &nn));
    for (size_t i = 0; i < nn; i++) {
        char mp[2400];
        snprintf(mp, sizeof mp, "%s/%s", path, names[i]);
        GS_CHECK(load_marker(r, mp));
    }
done:
    free_names(names, nn);
    return st;
}

/* "case-NNN.csv" or "case-NNN" (a folder: its runs may all have crashed): NNN, else -1. */
static int64_t case_number(const char *name)
{
    size_t n = strlen(name), end = n;
    if (n > 4 && strcmp(name + n - 4, ".csv") == 0) end = n - 4;
    if (end < 8 || strncmp(name, "case-", 5) != 0) return -1;
    for (size_t i = 5; i < end; i++)
        if (name[i] < '0' || name[i] > '9') return -1;
    return atoll(name + 5);
}

static int same_request(const gs_report_run *a, const gs_report_run *b)
{
    return !strcmp(a->case_name, b->case_name) && !strcmp(a->req, b->req);
}

/* The settings of a crash's marker that does not record them: those expected of its (case,
 * format), else those of its latest recorded run, so that it joins their entry. */
static void marker_settings(gs_report *r, gs_report_run *w)
{
    for (int64_t e = 0; e < r->nexp; e++)
        if (!strcmp(r->exp[e].case_name, w->case_name) && !strcmp(r->exp[e].req, w->req)) {
            gs_str_copy(w->settings, sizeof w->settings, r->exp[e].settings);
            return;
        }
    for (int64_t i = r->n - 1; i >= 0; i--)
        if (!r->runs[i].crashed && same_request(&r->runs[i], w)) {
            gs_str_copy(w->settings, sizeof w->settings, r->runs[i].settings);
            return;
        }
}

/* Each run's entry: the format it counts under (run.as: what ran; a failed run that records
 * the request, where nothing may have run, joins what its (case, format, settings) ran
 * otherwise), crashes' markers given their settings; the reference format, the batch's first. */
static void group_runs(gs_report *r)
{
    for (int64_t i = 0; i < r->n; i++)
        if (r->runs[i].crashed && !r->runs[i].settings[0]) marker_settings(r, &r->runs[i]);
    for (int64_t i = 0; i < r->n; i++) {
        gs_report_run *w = &r->runs[i];
        const char *as = w->ran[0] ? w->ran : w->req;
        if (w->status == 2 && !strcmp(as, w->req))
            for (int64_t j = 0; j < r->n; j++) {
                const gs_report_run *v = &r->runs[j];
                if (v->status != 2 && v->ran[0] && same_request(v, w) &&
                    !strcmp(v->settings, w->settings)) {
                    as = v->ran;
                    break;
                }
            }
        gs_str_copy(w->as, sizeof w->as, as);
    }
    const char *ref = r->nexp ? r->exp[0].req : r->n ? r->runs[0].req : "";
    gs_str_copy(r->ref, sizeof r->ref, ref);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Whether expected.csv lists the (case, requested format) of run w. */
static int listed(const gs_report *r, const gs_report_run *w)
{
    for (int64_t e = 0; e < r->nexp; e++)
        if (!strcmp(r->exp[e].case_name, w->case_name) && !strcmp(r->exp[e].req, w->req))
            return 1;
    return 0;
}

/* The runs of (case, format) pairs that expected.csv does not list left out, in one note: a
 * format or case since removed from the batch, whose old runs would rank as current. */
static void leave_out_unlisted(gs_report *r)
{
    char pairs[400] = "";
    int64_t kept = 0, gone = 0;
    size_t len = 0;
    if (!r->has_expected) return;
    for (int64_t i = 0; i < r->n; i++) { /* the pairs named once, the list cut after a pair */
        const gs_report_run *w = &r->runs[i];
        if (listed(r, w)) continue;
        int seen = 0;
        for (int64_t j = 0; j < i && !seen; j++)
            seen = !strcmp(r->runs[j].case_name, w->case_name) && !strcmp(r->runs[j].req, w->req);
        gone++;
        if (seen || len >= sizeof pairs - 5) continue;
        int n = snprintf(pairs + len, sizeof pairs - len, "%s%s %s", len ? ", " : "",
                         w->case_name, w->req);
        if (n > 0 && len + (size_t)n < sizeof pairs - 5) {
            len += (size_t)n;
        } else {
            snprintf(pairs + len, sizeof pairs - len, "%s...", len ? ", " : "");
            len = sizeof pairs;
        }
    }
    if (!gone) return;
    fprintf(stderr,
            "gsolve: note: %lld run%s of (case, format) pairs that %s/expected.csv does not list "
            "left out: %s (no longer in the batch)\n",
            (long long)gone, gone == 1 ? "" : "s", r->dir, pairs);
    for (int64_t i = 0; i < r->n; i++)
        if (listed(r, &r->runs[i])) r->runs[kept++] = r->runs[i];
    r->n = kept;
}

gs_status gs_report_load(const char *dir, int64_t only_case, gs_report **out)
{
    gs_status st = GS_OK;
    gs_report *r = NULL;
    char **names = NULL;
    int64_t *cases = NULL;
    size_t nn = 0, nc = 0;
    *out = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *r, "report", (void **)&r));
    memset(r, 0, sizeof *r);
    gs_str_copy(r->dir, sizeof r->dir, dir);
    if (only_case >= 0) {
        GS_CHECK(load_case(r, dir, only_case));
        goto finish;
    }
    GS_CHECK(list_names(dir, "", 0, &names, &nn));
    GS_CHECK(gs_alloc_array(nn + 1, sizeof *cases, "case numbers", (void **)&cases));
    for (size_t i = 0; i < nn; i++) {
        int64_t c = case_number(names[i]);
        if (c >= 0) cases[nc++] = c;
    }
    if (nc) qsort(cases, nc, sizeof *cases, cmp_i64);
    for (size_t i = 0; i < nc; i++)
        if (i == 0 || cases[i] != cases[i - 1]) GS_CHECK(load_case(r, dir, cases[i]));
finish:
    GS_CHECK(gs_report_load_expected(r, only_case));
    leave_out_unlisted(r);
    group_runs(r);
    *out = r;
    r = NULL;
done:
    free_names(names, nn);
    gs_free(cases);
    gs_report_destroy(&r);
    return st;
}

void gs_report_destroy(gs_report **r)
{
    if (!r || !*r) return;
    gs_free((*r)->runs);
    gs_free((*r)->exp);
    gs_free(*r);
    *r = NULL;
}

gs_status gs_report_load_expected(gs_report *r, int64_t only_case)
{
    gs_status st = GS_OK;
    gs_csv_table *t = NULL;
    char path[1100];
    snprintf(path, sizeof path, "%s/expected.csv", r->dir);
    GS_CHECK(gs_results_csv_read(path, &t)); /* none: an empty table (older results) */
    if (t->ncols == 0) goto done;
    if (gs_csv_table_col(t, "case") < 0 || gs_csv_table_col(t, "requested_format") < 0 ||
        gs_csv_table_col(t, "repeats") < 0) {
        fprintf(stderr,
                "gsolve: note: %s: expected the columns case, requested_format and repeats; "
                "the runs expected are not checked\n",
                path);
        goto done;
    }
    GS_CHECK(gs_alloc_array((size_t)t->nrows + 1, sizeof *r->exp, "the runs expected",
                            (void **)&r->exp));
    r->has_expected = 1;
    for (int64_t i = 0; i < t->nrows; i++) {
        gs_report_expect *e = &r->exp[r->nexp];
        e->case_index = atoll(gs_csv_table_get(t, i, "case_index"));
        if (only_case >= 0 && e->case_index != only_case) continue;
        gs_str_copy(e->case_name, sizeof e->case_name, gs_csv_table_get(t, i, "case"));
        gs_str_copy(e->req, sizeof e->req, gs_csv_table_get(t, i, "requested_format"));
        gs_str_copy(e->settings, sizeof e->settings, gs_csv_table_get(t, i, "settings"));
        e->repeats = atoi(gs_csv_table_get(t, i, "repeats"));
        r->nexp++;
    }
done:
    gs_csv_table_destroy(&t);
    return st;
}

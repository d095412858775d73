/* gs_report.c: batch result files merged into per-case format comparisons, tables and plots. */
#include "gs_report.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gs_mem.h"
#include "gs_results.h"

#define MAXF 32 /* formats per case */

/* One run as its CSV row recorded it. */
typedef struct run_row {
    char case_name[256], req[32], ran[32], reason[32], message[256], record[128];
    char backend[16], device[128];
    int64_t case_index, rows, nnz;
    int rep, status; /* 0 converged, 1 not converged, 2 failed */
    int its;
    double setup, solve, total;
} run_row;

/* One format of one case over its repeats. */
typedef struct fmt_sum {
    const char *req;
    char ran[64];
    int n, n_conv, n_fail;
    double its, setup, solve, total; /* medians (converged runs, else all that ran); NAN: none */
    double speedup;                  /* over csr; NAN when either is missing */
    int best;
    char status[200];
    const run_row *plot_run; /* the run whose residual history is drawn */
} fmt_sum;

struct gs_report {
    char dir[1024];
    run_row *runs;
    int64_t n, cap;
};

int64_t gs_report_runs(const gs_report *r)
{
    return r->n;
}

/* Median of v[0..n) (sorted in place); NAN when n = 0. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, int n)
{
    if (n == 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Add row i of t, replacing an earlier row of the same (case, format, repeat). */
static gs_status add_row(gs_report *r, const gs_csv_table *t, int64_t i)
{
    run_row w;
    memset(&w, 0, sizeof w);
#define GET(col) gs_csv_table_get(t, i, col)
    gs_str_copy(w.case_name, sizeof w.case_name, GET("case"));
    gs_str_copy(w.req, sizeof w.req, GET("requested_format"));
    gs_str_copy(w.ran, sizeof w.ran, GET("format"));
    gs_str_copy(w.reason, sizeof w.reason, GET("reason"));
    gs_str_copy(w.message, sizeof w.message, GET("message"));
    gs_str_copy(w.record, sizeof w.record, GET("record"));
    gs_str_copy(w.backend, sizeof w.backend, GET("backend"));
    gs_str_copy(w.device, sizeof w.device, GET("device"));
    w.case_index = atoll(GET("case_index"));
    w.rows = atoll(GET("rows"));
    w.nnz = atoll(GET("nnz"));
    w.rep = atoi(GET("repeat"));
    w.its = atoi(GET("iterations"));
    w.setup = atof(GET("setup_s"));
    w.solve = atof(GET("solve_s"));
    w.total = atof(GET("total_s"));
    const char *s = GET("status");
    w.status = !strcmp(s, "converged") ? 0 : !strcmp(s, "not_converged") ? 1 : 2;
#undef GET
    if (!w.req[0]) gs_str_copy(w.req, sizeof w.req, w.ran); /* a plain gsolve CSV row */
    for (int64_t k = 0; k < r->n; k++)
        if (!strcmp(r->runs[k].case_name, w.case_name) && !strcmp(r->runs[k].req, w.req) &&
            r->runs[k].rep == w.rep) {
            r->runs[k] = w;
            return GS_OK;
        }
    if (r->n == r->cap) {
        int64_t cap = r->cap ? 2 * r->cap : 64;
        run_row *p = gs_realloc(r->runs, (size_t)cap * sizeof *p);
        if (!p)
            return GS_ERROR(GS_ERR_NOMEM,
                            "out of memory: could not allocate %zu bytes for the results' runs",
                            (size_t)cap * sizeof *p);
        r->runs = p;
        r->cap = cap;
    }
    r->runs[r->n++] = w;
    return GS_OK;
}

/* "case-NNN.csv" */
static int is_case_file(const char *name)
{
    size_t n = strlen(name);
    if (n < 10 || strncmp(name, "case-", 5) != 0 || strcmp(name + n - 4, ".csv") != 0) return 0;
    for (size_t i = 5; i < n - 4; i++)
        if (name[i] < '0' || name[i] > '9') return 0;
    return 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read one case file into r, with a note on a torn last row or broken rows. */
static gs_status load_file(gs_report *r, const char *path)
{
    gs_status st = GS_OK;
    gs_csv_table *t = NULL;
    GS_CHECK(gs_results_csv_read(path, &t));
    if (t->torn_bytes)
        fprintf(stderr,
                "gsolve: note: %s: a torn last row (%lld bytes, an interrupted write) is "
                "ignored\n",
                path, (long long)t->torn_bytes);
    if (t->bad_rows)
        fprintf(stderr, "gsolve: note: %s: %lld rows with a wrong number of fields are ignored\n",
                path, (long long)t->bad_rows);
    for (int64_t i = 0; i < t->nrows; i++) GS_CHECK(add_row(r, t, i));
done:
    gs_csv_table_destroy(&t);
    return st;
}

gs_status gs_report_load(const char *dir, int64_t only_case, gs_report **out)
{
    gs_status st = GS_OK;
    gs_report *r = NULL;
    DIR *d = NULL;
    char **names = NULL, path[2048];
    size_t nn = 0, cap = 0;
    *out = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *r, "report", (void **)&r));
    memset(r, 0, sizeof *r);
    gs_str_copy(r->dir, sizeof r->dir, dir);
    if (only_case >= 0) {
        snprintf(path, sizeof path, "%s/case-%03lld.csv", dir, (long long)only_case);
        GS_CHECK(load_file(r, path));
        goto finish;
    }
    d = opendir(dir);
    if (!d) GS_FAIL(GS_ERR_IO, "cannot open the results folder '%s': %s", dir, strerror(errno));
    for (struct dirent *e; (e = readdir(d));) {
        if (!is_case_file(e->d_name)) continue;
        if (nn == cap) {
            cap = cap ? 2 * cap : 16;
            char **p = gs_realloc(names, cap * sizeof *p);
            if (!p)
                GS_FAIL(GS_ERR_NOMEM,
                        "out of memory: could not allocate %zu bytes for the file names of '%s'",
                        cap * sizeof *p, dir);
            names = p;
        }
        size_t len = strlen(e->d_name) + 1;
        GS_CHECK(gs_alloc_array(len, 1, "file name", (void **)&names[nn]));
        memcpy(names[nn++], e->d_name, len);
    }
    if (nn) qsort(names, nn, sizeof *names, cmp_str);
    for (size_t i = 0; i < nn; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        GS_CHECK(load_file(r, path));
    }
finish:
    *out = r;
    r = NULL;
done:
    if (d) closedir(d);
    for (size_t i = 0; i < nn; i++) gs_free(names[i]);
    gs_free(names);
    gs_report_destroy(&r);
    return st;
}

void gs_report_destroy(gs_report **r)
{
    if (!r || !*r) return;
    gs_free((*r)->runs);
    gs_free(*r);
    *r = NULL;
}

/* The distinct case names in order of appearance: *first run index of the case k. */
static int64_t next_case(const gs_report *r, int64_t from)
{
    for (int64_t i = from; i < r->n; i++) {
        int seen = 0;
        for (int64_t j = 0; j < i && !seen; j++)
            seen = !strcmp(r->runs[j].case_name, r->runs[i].case_name);
        if (!seen) return i;
    }
    return -1;
}

/* Summaries of every format of the case named like run c0; returns their number. */
static int summarize(const gs_report *r, int64_t c0, fmt_sum *f)
{
    int nf = 0;
    const char *cname = r->runs[c0].case_name;
    double v[4][256];
    for (int64_t i = c0; i < r->n; i++) {
        const run_row *w = &r->runs[i];
        if (strcmp(w->case_name, cname) != 0) continue;
        int k = 0;
        while (k < nf && strcmp(f[k].req, w->req) != 0) k++;
        if (k == nf) {
            if (nf == MAXF) continue;
            memset(&f[nf], 0, sizeof f[nf]);
            f[nf++].req = w->req;
        }
        f[k].n++;
        f[k].n_conv += w->status == 0;
        f[k].n_fail += w->status == 2;
        if (w->status != 2 && strcmp(w->ran, w->req) != 0 && !strstr(f[k].ran, w->ran))
            snprintf(f[k].ran + strlen(f[k].ran), sizeof f[k].ran - strlen(f[k].ran), "%s%s",
                     f[k].ran[0] ? "," : "", w->ran);
    }
    for (int k = 0; k < nf; k++) {
        int use_conv = f[k].n_conv > 0, m = 0;
        const run_row *last_fail = NULL, *any = NULL;
        for (int64_t i = c0; i < r->n && m < 256; i++) {
            const run_row *w = &r->runs[i];
            if (strcmp(w->case_name, cname) || strcmp(w->req, f[k].req)) continue;
            if (w->status == 2) last_fail = w;
            if (w->status == 2 || (use_conv && w->status != 0)) continue;
            v[0][m] = w->its, v[1][m] = w->setup, v[2][m] = w->solve, v[3][m] = w->total;
            m++;
            any = w;
        }
        double tot[256];
        memcpy(tot, v[3], (size_t)m * sizeof(double));
        f[k].its = median(v[0], m), f[k].setup = median(v[1], m);
        f[k].solve = median(v[2], m), f[k].total = median(v[3], m);
        /* plot the run whose total is closest to the median */
        double bestd = HUGE_VAL;
        for (int64_t i = c0; i < r->n; i++) {
            const run_row *w = &r->runs[i];
            if (strcmp(w->case_name, cname) || strcmp(w->req, f[k].req) || w->status == 2 ||
                (use_conv && w->status != 0))
                continue;
            if (fabs(w->total - f[k].total) < bestd) bestd = fabs(w->total - f[k].total), any = w;
        }
        f[k].plot_run = any;
        if (f[k].n_conv == f[k].n)
            snprintf(f[k].status, sizeof f[k].status, "ok");
        else if (f[k].n_conv + f[k].n_fail < f[k].n)
            snprintf(f[k].status, sizeof f[k].status, "%d of %d not converged",
                     f[k].n - f[k].n_conv - f[k].n_fail, f[k].n);
        if (f[k].n_fail)
            snprintf(f[k].status + strlen(f[k].status), sizeof f[k].status - strlen(f[k].status),
                     "%s%d failed: %.120s", f[k].n_conv + f[k].n_fail < f[k].n ? "; " : "",
                     f[k].n_fail, last_fail ? last_fail->message : "");
        (void)tot;
    }
    const fmt_sum *base = NULL;
    for (int k = 0; k < nf; k++)
        if (!strcmp(f[k].req, "csr") && f[k].n_conv > 0) base = &f[k];
    int best = -1;
    for (int k = 0; k < nf; k++) {
        f[k].speedup = base && f[k].n_conv > 0 ? base->total / f[k].total : NAN;
        if (f[k].n_conv == f[k].n && f[k].n > 0 && (best < 0 || f[k].total < f[best].total))
            best = k;
    }
    if (best >= 0) f[best].best = 1;
    return nf;
}

/* "cmrs (ran csr)" */
static void fmt_label(const fmt_sum *f, char *out, size_t len)
{
    if (f->ran[0])
        snprintf(out, len, "%s (ran %s)", f->req, f->ran);
    else
        snprintf(out, len, "%s", f->req);
}

/* A number or "-". */
static const char *num(char *buf, size_t len, const char *fmt, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, fmt, v);
    return buf;
}

/* "1.15x", "0.023x" or "-". */
static const char *speedup_str(char *buf, size_t len, double v)
{
    return num(buf, len, v >= 10 ? "%.1fx" : v >= 0.1 ? "%.2fx" : "%.3fx", v);
}

void gs_report_print(const gs_report *r, FILE *out)
{
    fmt_sum f[MAXF];
    if (r->n == 0) {
        fprintf(out, "no results in %s\n", r->dir);
        return;
    }
    for (int64_t c = next_case(r, 0); c >= 0; c = next_case(r, c + 1)) {
        const run_row *w = &r->runs[c];
        int nf = summarize(r, c, f);
        fprintf(out, "case %s: %lld rows, %lld nonzeros, %s (%s); medians over repeats\n",
                w->case_name, (long long)w->rows, (long long)w->nnz, w->backend, w->device);
        fprintf(out, "  %-22s %5s %6s %10s %10s %10s %7s  %s\n", "format", "runs", "its",
                "setup ms", "solve ms", "total ms", "vs csr", "status");
        for (int k = 0; k < nf; k++) {
            char lab[128], b[5][32];
            fmt_label(&f[k], lab, sizeof lab);
            fprintf(
                out, "  %-22s %2d/%-2d %6s %10s %10s %10s %7s  %s%s\n", lab, f[k].n_conv, f[k].n,
                num(b[0], 32, "%.0f", f[k].its), num(b[1], 32, "%.2f", 1e3 * f[k].setup),
                num(b[2], 32, "%.2f", 1e3 * f[k].solve), num(b[3], 32, "%.2f", 1e3 * f[k].total),
                speedup_str(b[4], 32, f[k].speedup), f[k].status, f[k].best ? "  <- best" : "");
        }
        fputc('\n', out);
    }
}

/* Write text to path through path.tmp and a rename. */
static gs_status write_atomic(const char *path, const char *text, size_t len)
{
    gs_status st = GS_OK;
    char tmp[2100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *fp = fopen(tmp, "w");
    if (!fp) return GS_ERROR(GS_ERR_WRITE, "cannot write '%s': %s", tmp, strerror(errno));
    size_t w = fwrite(text, 1, len, fp);
    if ((fclose(fp) != 0) | (w != len))
        GS_FAIL(GS_ERR_WRITE, "cannot write '%s': %s", tmp, strerror(errno));
    if (rename(tmp, path) != 0)
        GS_FAIL(GS_ERR_WRITE, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
done:
    if (st != GS_OK) remove(tmp);
    return st;
}

/* A growing text buffer for the report files. */
typedef struct text {
    char *s;
    size_t len, cap;
    size_t nomem; /* 0, or the bytes a growth could not get (later puts then do nothing) */
} text;

/* GS_ERR_NOMEM naming WHAT and the bytes asked by the first of a, b, c (NULLs allowed) whose
 * growth failed; GS_OK when none did. */
static gs_status text_status(const char *what, const text *a, const text *b, const text *c)
{
    const text *t[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (t[i] && t[i]->nomem)
            return GS_ERROR(GS_ERR_NOMEM, "out of memory: could not allocate %zu bytes for %s",
                            t[i]->nomem, what);
    return GS_OK;
}

/* printf at the end of t (on failure t->nomem holds the bytes asked; later calls do nothing). */
static void put(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = t->nomem
                    ? 0
                    : vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (t->nomem || n < 0) return;
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = 2 * (t->cap + (size_t)n) + 256;
        char *p = gs_realloc(t->s, cap);
        if (!p) {
            t->nomem = cap;
            return;
        }
        t->s = p, t->cap = cap;
    }
}

/* A CSV field: quoted when it holds a comma or quote. */
static void put_field(text *t, const char *s, int last)
{
    if (strpbrk(s, ",\"\n")) {
        put(t, "\"");
        for (; *s; s++) put(t, *s == '"' ? "\"\"" : "%c", *s);
        put(t, "\"");
    } else {
        put(t, "%s", s);
    }
    put(t, last ? "\n" : ",");
}

gs_status gs_report_write(const gs_report *r, const char *dir)
{
    gs_status st = GS_OK;
    text csv = {0}, md = {0};
    fmt_sum f[MAXF];
    char path[2048];
    put(&csv, "case,case_index,rows,nnz,format,ran_format,runs,converged,failed,iterations,"
              "setup_s,solve_s,total_s,speedup_vs_csr,best,status\n");
    put(&md,
        "# gsolve batch report: %s\n\nMedians over repeats (converged runs); speedup = "
        "total time of csr / total time of the format; best = lowest total time among "
        "formats whose runs all converged.\n",
        dir);
    for (int64_t c = next_case(r, 0); c >= 0; c = next_case(r, c + 1)) {
        const run_row *w = &r->runs[c];
        int nf = summarize(r, c, f);
        put(&md, "\n## %s\n\n%lld rows, %lld nonzeros; %s (%s)\n\n", w->case_name,
            (long long)w->rows, (long long)w->nnz, w->backend, w->device);
        put(&md, "| format | runs | iterations | setup ms | solve ms | total ms | speedup vs csr "
                 "| status |\n|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (int k = 0; k < nf; k++) {
            char lab[128], b[5][32], n[3][24];
            fmt_label(&f[k], lab, sizeof lab);
            put(&md, "| %s%s%s | %d/%d | %s | %s | %s | %s | %s | %s |\n", f[k].best ? "**" : "",
                lab, f[k].best ? "** (best)" : "", f[k].n_conv, f[k].n,
                num(b[0], 32, "%.0f", f[k].its), num(b[1], 32, "%.2f", 1e3 * f[k].setup),
                num(b[2], 32, "%.2f", 1e3 * f[k].solve), num(b[3], 32, "%.2f", 1e3 * f[k].total),
                speedup_str(b[4], 32, f[k].speedup), f[k].status);
            snprintf(n[0], 24, "%lld", (long long)w->case_index);
            snprintf(n[1], 24, "%lld", (long long)w->rows);
            snprintf(n[2], 24, "%lld", (long long)w->nnz);
            const char *row[] = {w->case_name, n[0],     n[1],
                                 n[2],         f[k].req, f[k].ran[0] ? f[k].ran : f[k].req};
            for (int j = 0; j < 6; j++) put_field(&csv, row[j], 0);
            put(&csv, "%d,%d,%d,%s,%s,%s,%s,%s,%d,", f[k].n, f[k].n_conv, f[k].n_fail,
                num(b[0], 32, "%.1f", f[k].its), num(b[1], 32, "%.6f", f[k].setup),
                num(b[2], 32, "%.6f", f[k].solve), num(b[3], 32, "%.6f", f[k].total),
                num(b[4], 32, "%.4f", f[k].speedup), f[k].best);
            put_field(&csv, f[k].status, 1);
        }
    }
    GS_CHECK(text_status("the report text", &csv, &md, NULL));
    snprintf(path, sizeof path, "%s/report.csv", dir);
    GS_CHECK(write_atomic(path, csv.s, csv.len));
    snprintf(path, sizeof path, "%s/report.md", dir);
    GS_CHECK(write_atomic(path, md.s, md.len));
done:
    gs_free(csv.s);
    gs_free(md.s);
    return st;
}

/* ---- plots ------------------------------------------------------------------------------ */

/* A name safe in file names and script strings. */
static void safe_name(const char *s, char *out, size_t len)
{
    size_t n = 0;
    for (; *s && n + 1 < len; s++)
        out[n++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                           (*s >= '0' && *s <= '9') || *s == '-' || *s == '.' || *s == '_'
                       ? *s
                       : '_';
    out[n] = '\0';
}

/* s in single quotes for the shell. */
static void shell_quote(const char *s, char *out, size_t len)
{
    size_t n = 0;
    out[n++] = '\'';
    for (; *s && n + 6 < len; s++) {
        if (*s == '\'') {
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else
            out[n++] = *s;
    }
    out[n++] = '\'';
    out[n] = '\0';
}

/* The residual history of run w as "iteration rel_residual time_ms" lines in path; *points =
 * the lines with a positive residual (0: nothing to draw). */
static gs_status history_data(const gs_report *r, const run_row *w, const char *path,
                              int64_t *points)
{
    gs_status st = GS_OK;
    gs_csv_table *t = NULL;
    text d = {0};
    char src[2048];
    *points = 0;
    snprintf(src, sizeof src, "%s/%s.history.csv", r->dir, w->record);
    GS_CHECK(gs_results_csv_read(src, &t));
    put(&d, "# iteration rel_residual time_ms (%s)\n", src);
    for (int64_t i = 0; i < t->nrows; i++) {
        double rr = atof(gs_csv_table_get(t, i, "rel_residual"));
        put(&d, "%s %.9e %.6f\n", gs_csv_table_get(t, i, "iteration"), rr,
            1e3 * atof(gs_csv_table_get(t, i, "time_s")));
        *points += rr > 0;
    }
    GS_CHECK(text_status("the plot data", &d, NULL, NULL));
    GS_CHECK(write_atomic(path, d.s, d.len));
done:
    gs_free(d.s);
    gs_csv_table_destroy(&t);
    return st;
}

/* Which tool draws: gnuplot, else python3 with matplotlib; GSOLVE_PLOTTER overrides. */
static const char *plotter(void)
{
    const char *env = getenv("GSOLVE_PLOTTER");
    if (env && *env) return strcmp(env, "none") == 0 ? NULL : env;
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) return "gnuplot";
    if (system("python3 -c 'import matplotlib' >/dev/null 2>&1") == 0) return "matplotlib";
    return NULL;
}

/* Per case: residual against iteration and time, one line per format (gp: gnuplot, py:
 * matplotlib); the bar data: median total ms per case and format. */
static gs_status case_plots(const gs_report *r, const char *pdir, text *gp, text *py, text *bars,
                            const char **allf, int nall, int *npng)
{
    gs_status st = GS_OK;
    fmt_sum f[MAXF];
    char cname[256], fname[64], path[2400];
    for (int64_t c = next_case(r, 0); c >= 0; c = next_case(r, c + 1)) {
        int nf = summarize(r, c, f), drawn = 0;
        safe_name(r->runs[c].case_name, cname, sizeof cname);
        put(bars, "%s", cname);
        for (int a = 0; a < nall; a++) {
            double v = NAN;
            for (int k = 0; k < nf; k++)
                if (!strcmp(f[k].req, allf[a]) && f[k].n_conv > 0) v = 1e3 * f[k].total;
            if (isnan(v))
                put(bars, " -");
            else
                put(bars, " %.4f", v);
        }
        put(bars, "\n");
        text lines = {0}, it = {0}, tm = {0};
        for (int k = 0; k < nf; k++) {
            int64_t pts = 0;
            if (!f[k].plot_run || !f[k].plot_run->record[0]) continue;
            safe_name(f[k].req, fname, sizeof fname);
            snprintf(path, sizeof path, "%s/data/%s.%s.dat", pdir, cname, fname);
            if (history_data(r, f[k].plot_run, path, &pts) != GS_OK) {
                fprintf(stderr, "gsolve: note: no residual history for %s, %s: %s\n", cname, fname,
                        gs_error_message());
                gs_error_clear();
                continue;
            }
            if (pts == 0) continue;
            put(&lines, "%s\"data/%s.%s.dat|%s\"", drawn ? ", " : "", cname, fname, fname);
            put(&it, "%s\"data/%s.%s.dat\" using 1:2 with lines lw 2 title \"%s\"",
                drawn ? ", " : "", cname, fname, fname);
            put(&tm, "%s\"data/%s.%s.dat\" using 3:2 with lines lw 2 title \"%s\"",
                drawn ? ", " : "", cname, fname, fname);
            drawn++;
        }
        st = text_status("the plot commands", &lines, &it, &tm);
        if (st == GS_OK && drawn) {
            /* gnuplot: one multiplot of two panels */
            put(gp,
                "set output \"%s-residual.png\"\nset multiplot layout 1,2 title \"%s: "
                "relative residual ||b-Ax||/||b||\"\nset logscale y\nset format y \"%%.0e\"\n"
                "set xlabel \"iteration\"\nplot %s\nset xlabel \"time (ms)\"\nplot %s\n"
                "unset multiplot\nunset logscale y\nset format y\n",
                cname, cname, it.s, tm.s);
            put(py, "residual(\"%s\", [%s])\n", cname, lines.s);
            (*npng)++;
        } else if (st == GS_OK) {
            fprintf(stderr, "gsolve: note: case %s: no residual history to draw\n", cname);
        }
        gs_free(lines.s);
        gs_free(it.s);
        gs_free(tm.s);
        if (st != GS_OK) return st;
    }
    return text_status("the plot scripts", gp, py, bars);
}

/* The matplotlib script's functions (the calls follow). */
static const char *PY_HEAD =
    "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
    "import numpy as np\n"
    "def residual(case, series):\n"
    "    fig, ax = plt.subplots(1, 2, figsize=(12, 5))\n"
    "    for s in series:\n"
    "        f, label = s.split('|')\n"
    "        d = np.loadtxt(f, ndmin=2)\n"
    "        ax[0].semilogy(d[:, 0], d[:, 1], lw=2, label=label)\n"
    "        ax[1].semilogy(d[:, 2], d[:, 1], lw=2, label=label)\n"
    "    ax[0].set_xlabel('iteration'); ax[1].set_xlabel('time (ms)')\n"
    "    for a in ax: a.grid(True, which='both', alpha=0.3); a.legend()\n"
    "    fig.suptitle(case + ': relative residual ||b-Ax||/||b||')\n"
    "    fig.savefig(case + '-residual.png', dpi=100); plt.close(fig)\n"
    "def bars(path, log):\n"
    "    rows = [l.split() for l in open(path) if l.strip()]\n"
    "    fmts, cases = rows[0][1:], [r[0] for r in rows[1:]]\n"
    "    fig, ax = plt.subplots(figsize=(max(8, 1.2 * len(cases) * len(fmts) / 3), 5))\n"
    "    w = 0.8 / max(1, len(fmts))\n"
    "    for j, f in enumerate(fmts):\n"
    "        v = [float(r[j + 1]) if r[j + 1] != '-' else 0 for r in rows[1:]]\n"
    "        ax.bar([i + j * w for i in range(len(cases))], v, w, label=f)\n"
    "    ax.set_xticks([i + 0.4 - w / 2 for i in range(len(cases))], cases, rotation=30)\n"
    "    if log: ax.set_yscale('log')\n"
    "    ax.set_ylabel('time to solution (ms, median)'); ax.legend(); fig.tight_layout()\n"
    "    fig.savefig('time_to_solution.png', dpi=100); plt.close(fig)\n";

/* Every format requested anywhere, in order of appearance. */
static int all_formats(const gs_report *r, const char **allf)
{
    int n = 0;
    for (int64_t i = 0; i < r->n; i++) {
        int k = 0;
        while (k < n && strcmp(allf[k], r->runs[i].req) != 0) k++;
        if (k == n && n < MAXF) allf[n++] = r->runs[i].req;
    }
    return n;
}

static int ncases(const gs_report *r)
{
    int n = 0;
    for (int64_t c = next_case(r, 0); c >= 0; c = next_case(r, c + 1)) n++;
    return n;
}

/* The spread of the bar heights calls for a log scale. */
static int bars_log(const gs_report *r)
{
    double lo = HUGE_VAL, hi = 0;
    for (int64_t i = 0; i < r->n; i++)
        if (r->runs[i].status == 0 && r->runs[i].total > 0) {
            if (r->runs[i].total < lo) lo = r->runs[i].total;
            if (r->runs[i].total > hi) hi = r->runs[i].total;
        }
    return hi > 30 * lo;
}

gs_status gs_report_plot(const gs_report *r, const char *dir, FILE *out)
{
    gs_status st = GS_OK;
    text gp = {0}, py = {0}, bars = {0};
    const char *allf[MAXF];
    char pdir[2048], path[2200], q[4200], cmd[4400];
    int npng = 0, nall = all_formats(r, allf), logy = bars_log(r);
    const char *tool = plotter();
    if (!tool)
        return GS_ERROR(GS_ERR_UNSUPPORTED,
                        "no plotting tool found: install gnuplot (Debian: apt-get install "
                        "gnuplot-nox) or python3 with matplotlib (pip install matplotlib); the "
                        "tables are written");
    if (strcmp(tool, "gnuplot") != 0 && strcmp(tool, "matplotlib") != 0)
        return GS_ERROR(GS_ERR_CONFIG,
                        "GSOLVE_PLOTTER = \"%s\": expected gnuplot, matplotlib or "
                        "none",
                        tool);
    snprintf(pdir, sizeof pdir, "%s/plots", dir);
    snprintf(path, sizeof path, "%s/data", pdir);
    if ((mkdir(pdir, 0755) != 0 && errno != EEXIST) || (mkdir(path, 0755) != 0 && errno != EEXIST))
        return GS_ERROR(GS_ERR_WRITE, "cannot create '%s': %s", path, strerror(errno));
    put(&gp, "set terminal pngcairo size 1200,480 noenhanced font \",10\"\nset grid\n"
             "set key top right\nset datafile missing \"-\"\n");
    put(&py, "%s", PY_HEAD);
    put(&bars, "case");
    for (int a = 0; a < nall; a++) put(&bars, " %s", allf[a]);
    put(&bars, "\n");
    GS_CHECK(case_plots(r, pdir, &gp, &py, &bars, allf, nall, &npng));
    put(&gp,
        "set terminal pngcairo size 1000,500 noenhanced font \",10\"\n"
        "set output \"time_to_solution.png\"\nset title \"time to solution (median total: "
        "setup + solve)\"\nset ylabel \"ms\"\nset style data histograms\n"
        "set style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
        "set xtics rotate by -30 nomirror\nset xlabel\nset xrange [-0.6:%d.4]\n%s"
        "plot for [i=2:%d] \"data/time_to_solution.dat\" using i:xtic(1) title columnheader(i)\n",
        ncases(r) - 1, logy ? "set logscale y\n" : "", nall + 1);
    put(&py, "bars('data/time_to_solution.dat', %s)\n", logy ? "True" : "False");
    GS_CHECK(text_status("the plot scripts", &gp, &py, &bars));
    snprintf(path, sizeof path, "%s/data/time_to_solution.dat", pdir);
    GS_CHECK(write_atomic(path, bars.s, bars.len));
    int gnu = strcmp(tool, "gnuplot") == 0;
    snprintf(path, sizeof path, "%s/%s", pdir, gnu ? "plots.gp" : "plots.py");
    GS_CHECK(gnu ? write_atomic(path, gp.s, gp.len) : write_atomic(path, py.s, py.len));
    shell_quote(pdir, q, sizeof q);
    snprintf(cmd, sizeof cmd, "cd %s && %s > plots.log 2>&1", q,
             gnu ? "gnuplot plots.gp" : "python3 plots.py");
    if (system(cmd) != 0)
        GS_FAIL(GS_ERR_INTERNAL, "%s failed drawing the plots: see %s/plots.log", tool, pdir);
    if (out) {
        fprintf(out, "plots (%s): %s/time_to_solution.png", tool, pdir);
        if (npng) fprintf(out, " and %d residual plots %s/CASE-residual.png", npng, pdir);
        fputc('\n', out);
    }
done:
    gs_free(gp.s);
    gs_free(py.s);
    gs_free(bars.s);
    return st;
}

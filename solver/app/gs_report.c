/* gs_report.c: the runs read (gs_report_load.c) merged into per-case comparisons: each entry's
 * statistics over its counted repeats (min, median, max), the tables as text, CSV and Markdown.
 * The runs expected and the summary across cases are in gs_report_summary.c, the plots in
 * gs_report_plot.c. */
#include "gs_report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gs_mem.h"
#include "gs_report_impl.h"
#include "gs_select.h"
#include "gs_results.h"

enum {
    SET_SOLVER,
    SET_PREC,
    SET_RTOL,
    SET_ATOL,
    SET_MAXIT,
    SET_RESTART,
    SET_THREADS,
    SET_BACKEND,
    SET_DEVICE,
    SET_VERSION,
    SET_COMMIT
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* out = {min, median, max} of v[0..n) (sorted in place); NANs when n = 0. */
static void spread(double *v, int n, double out[3])
{
    if (n == 0) {
        out[0] = out[1] = out[2] = NAN;
        return;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    out[GS_MIN] = v[0];
    out[GS_MED] = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    out[GS_MAX] = v[n - 1];
}

int64_t gs_report_next_case(const gs_report *r, int64_t from)
{
    for (int64_t i = from; i < r->n; i++) {
        int seen = 0;
        for (int64_t j = 0; j < i && !seen; j++)
            seen = !strcmp(r->runs[j].case_name, r->runs[i].case_name);
        if (!seen) return i;
    }
    return -1;
}

/* Whether run w belongs to entry f of case cname (its request, what ran, its settings). */
static int in_entry(const gs_report_run *w, const char *cname, const gs_report_fmt *f)
{
    return !strcmp(w->case_name, cname) && !strcmp(w->req, f->req) && !strcmp(w->as, f->ran) &&
           !strcmp(w->settings, f->settings);
}

/* Whether run w counts for entry f's statistics (a warmup run does not). */
static int counted(const gs_report_run *w, const char *cname, const gs_report_fmt *f)
{
    return !w->warmup && in_entry(w, cname, f);
}

/* "cds", "csr (asked cds)": what ran names the entry; "[settings 1a2b3c4d]" when the request
 * has runs under more than one settings hash in the case. */
static void entry_label(gs_report_fmt *f)
{
    size_t n = (size_t)snprintf(f->label, sizeof f->label, "%s", f->ran);
    if (strcmp(f->ran, f->req) != 0 && n < sizeof f->label)
        n += (size_t)snprintf(f->label + n, sizeof f->label - n, " (asked %s)", f->req);
    if (f->split && n < sizeof f->label)
        snprintf(f->label + n, sizeof f->label - n, " [settings %.8s]",
                 f->settings[0] ? f->settings : "none");
}

/* Runs and outcomes per entry of the case, the entries labelled. */
static int tally(const gs_report *r, int64_t c0, gs_report_fmt *f)
{
    int nf = 0;
    const char *cname = r->runs[c0].case_name;
    for (int64_t i = c0; i < r->n; i++) {
        const gs_report_run *w = &r->runs[i];
        if (strcmp(w->case_name, cname) != 0) continue;
        int k = 0;
        while (k < nf && !in_entry(w, cname, &f[k])) k++;
        if (k == nf) {
            if (nf == GS_REPORT_MAXF) continue;
            memset(&f[nf], 0, sizeof f[nf]);
            f[nf].req = w->req, f[nf].ran = w->as, f[nf].settings = w->settings;
            nf++;
        }
        if (w->warmup) {
            f[k].n_warm++;
            continue;
        }
        f[k].n++;
        f[k].n_conv += w->status == 0;
        f[k].n_fail += w->status == 2;
    }
    for (int k = 0; k < nf; k++) {
        for (int j = 0; j < nf; j++)
            f[k].split |= !strcmp(f[j].req, f[k].req) && strcmp(f[j].settings, f[k].settings);
        entry_label(&f[k]);
    }
    return nf;
}

/* min, median, max of format f's counted runs (converged ones when any converged); the run
 * whose total is closest to the median is the one drawn. */
static void stats(const gs_report *r, int64_t c0, gs_report_fmt *f)
{
    static double v[4][GS_REPORT_MAXR]; /* report code runs on one thread */
    const char *cname = r->runs[c0].case_name;
    int use_conv = f->n_conv > 0, m = 0;
    for (int64_t i = c0; i < r->n && m < GS_REPORT_MAXR; i++) {
        const gs_report_run *w = &r->runs[i];
        if (!counted(w, cname, f) || w->status == 2 || (use_conv && w->status != 0)) continue;
        v[0][m] = w->its, v[1][m] = w->setup, v[2][m] = w->solve, v[3][m] = w->total;
        m++;
    }
    spread(v[0], m, f->its);
    spread(v[1], m, f->setup);
    spread(v[2], m, f->solve);
    spread(v[3], m, f->total);
    double bestd = HUGE_VAL;
    f->plot_run = NULL;
    for (int64_t i = c0; i < r->n; i++) {
        const gs_report_run *w = &r->runs[i];
        if (!counted(w, cname, f) || w->status == 2 || (use_conv && w->status != 0)) continue;
        if (fabs(w->total - f->total[GS_MED]) < bestd)
            bestd = fabs(w->total - f->total[GS_MED]), f->plot_run = w;
    }
}

/* The status text ("ok", "1 of 3 not converged; 2 failed: ...") and, when no run converged,
 * the failure drawn in its place. */
static void status_text(const gs_report *r, int64_t c0, gs_report_fmt *f)
{
    const char *cname = r->runs[c0].case_name;
    const gs_report_run *last_fail = NULL, *last_nc = NULL;
    for (int64_t i = c0; i < r->n; i++) {
        const gs_report_run *w = &r->runs[i];
        if (!counted(w, cname, f)) continue;
        if (w->status == 2) last_fail = w;
        if (w->status == 1) last_nc = w;
    }
    int nc = f->n - f->n_conv - f->n_fail;
    size_t len = sizeof f->status;
    f->status[0] = f->failure[0] = '\0';
    if (f->n_conv == f->n) snprintf(f->status, len, "ok");
    if (nc > 0) snprintf(f->status, len, "%d of %d not converged", nc, f->n);
    if (f->n_fail) { /* the message whole, or cut after a word where it does not fit */
        snprintf(f->status + strlen(f->status), len - strlen(f->status), "%s%d failed: ",
                 nc > 0 ? "; " : "", f->n_fail);
        gs_select_reason_append(f->status, len, last_fail ? last_fail->message : "");
    }
    if (f->n_conv > 0) return;
    if (last_fail) {
        snprintf(f->failure, sizeof f->failure, "%s",
                 strncmp(last_fail->message, "crashed", 7) ? "failed: " : "");
        gs_select_reason_append(f->failure, sizeof f->failure,
                                last_fail->message[0] ? last_fail->message : "no reason recorded");
    }
    else if (last_nc)
        snprintf(f->failure, sizeof f->failure, "not converged: %s after %d its", last_nc->reason,
                 last_nc->its);
}

int gs_report_summarize(const gs_report *r, int64_t c0, gs_report_fmt *f)
{
    int nf = tally(r, c0, f);
    for (int k = 0; k < nf; k++) {
        stats(r, c0, &f[k]);
        status_text(r, c0, &f[k]);
    }
    /* the reference: the one entry of the reference format's request */
    const gs_report_fmt *base = NULL;
    int nref = 0;
    for (int k = 0; k < nf; k++)
        if (!strcmp(f[k].req, r->ref) && f[k].n > 0) base = &f[k], nref++;
    if (nref != 1 || base->n_conv == 0) base = NULL;
    int best = -1;
    for (int k = 0; k < nf; k++) {
        f[k].speedup = base && f[k].n_conv > 0 ? base->total[GS_MED] / f[k].total[GS_MED] : NAN;
        if (f[k].n_conv == f[k].n && f[k].n > 0 &&
            (best < 0 || f[k].total[GS_MED] < f[best].total[GS_MED]))
            best = k;
    }
    if (best >= 0) f[best].best = 1;
    return nf;
}

/* ---- tables ------------------------------------------------------------------------------ */

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

/* Milliseconds with 3-4 significant digits. */
static void ms(char *buf, size_t len, double s)
{
    double v = 1e3 * s;
    num(buf, len, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : v >= 1 ? "%.2f" : "%.3f", v);
}

/* "12.3 [11.9, 13.1]": median and [min, max] in ms ("12.3" when they are one value). */
static const char *ms3(char *buf, size_t len, const double s[3], const char *open, const char *mid,
                       const char *close)
{
    char a[32], b[32], c[32];
    ms(a, sizeof a, s[GS_MED]);
    ms(b, sizeof b, s[GS_MIN]);
    ms(c, sizeof c, s[GS_MAX]);
    if (isnan(s[GS_MED]) || (strcmp(a, b) == 0 && strcmp(a, c) == 0))
        snprintf(buf, len, "%s", a);
    else
        snprintf(buf, len, "%.16s %.2s%.16s%.3s%.16s%.2s", a, open, b, mid, c, close);
    return buf;
}

/* Iterations: "28", or "28 [27, 30]" when they vary. */
static const char *its3(char *buf, size_t len, const double v[3], const char *open, const char *mid,
                        const char *close)
{
    if (isnan(v[GS_MED]))
        snprintf(buf, len, "-");
    else if (v[GS_MIN] == v[GS_MAX])
        snprintf(buf, len, "%.0f", v[GS_MED]);
    else
        snprintf(buf, len, "%.0f %s%.0f%s%.0f%s", v[GS_MED], open, v[GS_MIN], mid, v[GS_MAX],
                 close);
    return buf;
}

/* The first counted run of the case (its settings describe the case), else run c0. */
static const gs_report_run *first_counted(const gs_report *r, int64_t c0)
{
    for (int64_t i = c0; i < r->n; i++)
        if (!strcmp(r->runs[i].case_name, r->runs[c0].case_name) && !r->runs[i].warmup &&
            r->runs[i].set[SET_SOLVER][0])
            return &r->runs[i];
    return &r->runs[c0];
}

/* "cg + jacobi, rtol 1e-08, max_iters 2000, threads 1, gsolve 0.1.0 (commit abc)": what the
 * case's runs record of their settings (what is recorded). */
static void settings_line(const gs_report_run *w, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
#define ADD(...) n += (size_t)snprintf(out + n, n < len ? len - n : 0, __VA_ARGS__)
    if (w->set[SET_SOLVER][0]) ADD("%s + %s", w->set[SET_SOLVER], w->set[SET_PREC]);
    if (w->set[SET_RTOL][0]) ADD(", rtol %s", w->set[SET_RTOL]);
    if (w->set[SET_ATOL][0] && strcmp(w->set[SET_ATOL], "0") != 0)
        ADD(", atol %s", w->set[SET_ATOL]);
    if (w->set[SET_MAXIT][0]) ADD(", max_iters %s", w->set[SET_MAXIT]);
    if (w->set[SET_THREADS][0]) ADD(", threads %s", w->set[SET_THREADS]);
    if (w->set[SET_VERSION][0])
        ADD(", gsolve %s%s%s%s", w->set[SET_VERSION], w->set[SET_COMMIT][0] ? " (commit " : "",
            w->set[SET_COMMIT], w->set[SET_COMMIT][0] ? ")" : "");
#undef ADD
    if (n >= len && len > 4) memcpy(out + len - 4, "...", 4);
}

/* The settings in which the counted runs of the case differ ("threads, version"), "" when
 * they agree: their spread then mixes settings, not only noise. */
static void settings_differ(const gs_report *r, int64_t c0, char *out, size_t len)
{
    const gs_report_run *ref = first_counted(r, c0);
    out[0] = '\0';
    for (int k = 0; k < GS_REPORT_NSET; k++) {
        int differ = 0;
        for (int64_t i = c0; i < r->n && !differ; i++) {
            const gs_report_run *w = &r->runs[i];
            if (strcmp(w->case_name, ref->case_name) || w->warmup || w->status == 2) continue;
            differ = strcmp(w->set[k], ref->set[k]) != 0;
        }
        if (differ)
            snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? ", " : "",
                     gs_report_set_keys[k]);
    }
}

/* Warmup runs of the case (all formats). */
static int case_warmups(const gs_report_fmt *f, int nf)
{
    int n = 0;
    for (int k = 0; k < nf; k++) n += f[k].n_warm;
    return n;
}

static void put_profile(gs_report_text *t, const gs_report *r, int64_t c, const gs_report_fmt *f,
                        int nf, int md);

/* The requests of the case with runs under more than one settings hash ("p12 csr, ") added
 * to t; returns their number. */
static int put_split(gs_report_text *t, const gs_report_fmt *f, int nf, const char *cname)
{
    int n = 0;
    for (int k = 0; k < nf; k++) {
        int first = 1;
        for (int j = 0; j < k && first; j++) first = strcmp(f[j].req, f[k].req) != 0;
        if (!f[k].split || !first) continue;
        gs_report_put(t, "%s%s %s", t->len ? ", " : "", cname, f[k].req);
        n++;
    }
    return n;
}

void gs_report_print(const gs_report *r, FILE *out)
{
    gs_report_fmt f[GS_REPORT_MAXF];
    gs_report_text split = {0}, tail = {0};
    char set[512], differ[512], vs[48];
    int nsplit = 0;
    snprintf(vs, sizeof vs, "vs %s", r->ref);
    if (r->n == 0) {
        fprintf(out, "no results in %s\n", r->dir);
        return;
    }
    for (int64_t c = gs_report_next_case(r, 0); c >= 0; c = gs_report_next_case(r, c + 1)) {
        const gs_report_run *w = first_counted(r, c);
        int nf = gs_report_summarize(r, c, f), nw = case_warmups(f, nf);
        settings_line(w, set, sizeof set);
        settings_differ(r, c, differ, sizeof differ);
        fprintf(out, "case %s: %lld rows, %lld nonzeros, %s (%s)\n", w->case_name,
                (long long)w->rows, (long long)w->nnz, w->backend, w->device);
        if (set[0]) fprintf(out, "  %s\n", set);
        fprintf(out, "  median [min, max] over the counted repeats");
        if (nw) fprintf(out, "; %d warmup run%s not counted", nw, nw > 1 ? "s" : "");
        fputc('\n', out);
        if (differ[0])
            fprintf(out, "  note: the runs differ in %s: the spread mixes settings\n", differ);
        int lw = 18; /* the labels' column: as wide as the longest */
        for (int k = 0; k < nf; k++)
            if ((int)strlen(f[k].label) > lw) lw = (int)strlen(f[k].label);
        fprintf(out, "  %-*s %5s %12s %20s %20s %20s %7s  %s\n", lw, "format", "runs", "its",
                "setup ms", "solve ms", "total ms", vs, "status");
        nsplit += put_split(&split, f, nf, w->case_name);
        for (int k = 0; k < nf; k++) {
            char b[5][64];
            fprintf(out, "  %-*s %2d/%-2d %12s %20s %20s %20s %7s  %s%s\n", lw, f[k].label,
                    f[k].n_conv, f[k].n, its3(b[0], 64, f[k].its, "[", ", ", "]"),
                    ms3(b[1], 64, f[k].setup, "[", ", ", "]"),
                    ms3(b[2], 64, f[k].solve, "[", ", ", "]"),
                    ms3(b[3], 64, f[k].total, "[", ", ", "]"), speedup_str(b[4], 64, f[k].speedup),
                    f[k].status, f[k].best ? "  <- best" : "");
        }
        gs_report_text prof = {0};
        put_profile(&prof, r, c, f, nf, 0);
        if (prof.s) fputs(prof.s, out);
        gs_free(prof.s);
        fputc('\n', out);
    }
    gs_report_put_missing(&tail, r, 0);
    if (gs_report_ncases(r) > 1) gs_report_put_summary(&tail, r, 0);
    if (tail.s) fputs(tail.s, out);
    fflush(out);
    if (nsplit && split.s)
        fprintf(stderr,
                "gsolve: warning: %d (case, format) with runs under more than one settings "
                "hash (%s): reported apart, labelled [settings HASH]\n",
                nsplit, split.s);
    gs_free(split.s);
    gs_free(tail.s);
}

/* ---- report files ------------------------------------------------------------------------- */

gs_status gs_report_write_atomic(const char *path, const char *text, size_t len)
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

gs_status gs_report_text_status(const char *what, const gs_report_text *a, const gs_report_text *b,
                                const gs_report_text *c)
{
    const gs_report_text *t[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (t[i] && t[i]->nomem)
            return GS_ERROR(GS_ERR_NOMEM, "out of memory: could not allocate %zu bytes for %s",
                            t[i]->nomem, what);
    return GS_OK;
}

void gs_report_put(gs_report_text *t, const char *fmt, ...)
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
static void put_field(gs_report_text *t, const char *s, int last)
{
    if (strpbrk(s, ",\"\n")) {
        gs_report_put(t, "\"");
        for (; *s; s++) gs_report_put(t, *s == '"' ? "\"\"" : "%c", *s);
        gs_report_put(t, "\"");
    } else {
        gs_report_put(t, "%s", s);
    }
    gs_report_put(t, last ? "\n" : ",");
}

/* The report.csv row of entry f of the case of run w (the columns of the first versions,
 * then the spread, the warmups, the settings, the reference, the settings hash and the label). */
static void csv_row(gs_report_text *csv, const gs_report *r, const gs_report_run *w,
                    const gs_report_fmt *f, const char *differ)
{
    char b[5][32], n[3][24];
    snprintf(n[0], 24, "%lld", (long long)w->case_index);
    snprintf(n[1], 24, "%lld", (long long)w->rows);
    snprintf(n[2], 24, "%lld", (long long)w->nnz);
    const char *row[] = {w->case_name, n[0], n[1], n[2], f->req, f->ran};
    for (int j = 0; j < 6; j++) put_field(csv, row[j], 0);
    gs_report_put(csv, "%d,%d,%d,%s,%s,%s,%s,%s,%d,", f->n, f->n_conv, f->n_fail,
                  num(b[0], 32, "%.1f", f->its[GS_MED]), num(b[1], 32, "%.6f", f->setup[GS_MED]),
                  num(b[2], 32, "%.6f", f->solve[GS_MED]), num(b[3], 32, "%.6f", f->total[GS_MED]),
                  num(b[4], 32, "%.4f", f->speedup), f->best);
    put_field(csv, f->status, 0);
    const double *mm[] = {f->its, f->setup, f->solve, f->total};
    for (int q = 0; q < 4; q++) {
        const char *fmt = q == 0 ? "%.0f" : "%.6f";
        gs_report_put(csv, "%s,%s,", num(b[0], 32, fmt, mm[q][GS_MIN]),
                      num(b[1], 32, fmt, mm[q][GS_MAX]));
    }
    gs_report_put(csv, "%d,", f->n_warm);
    put_field(csv, f->failure, 0);
    const int keys[] = {SET_RTOL, SET_THREADS, SET_BACKEND, SET_DEVICE, SET_VERSION, SET_COMMIT};
    for (int j = 0; j < 6; j++) put_field(csv, w->set[keys[j]], 0);
    put_field(csv, differ, 0);
    put_field(csv, r->ref, 0);
    put_field(csv, f->settings, 0);
    put_field(csv, f->label, 1);
}

/* The Markdown section of the case of run c. */
static void md_case(gs_report_text *md, const gs_report *r, int64_t c, const gs_report_fmt *f,
                    int nf, const char *differ)
{
    const gs_report_run *w = first_counted(r, c);
    gs_report_text split = {0};
    char set[512];
    int nw = case_warmups(f, nf);
    settings_line(w, set, sizeof set);
    gs_report_put(md, "\n## %s\n\n%lld rows, %lld nonzeros; %s (%s)%s%s\n", w->case_name,
                  (long long)w->rows, (long long)w->nnz, w->backend, w->device, set[0] ? "; " : "",
                  set);
    if (nw) gs_report_put(md, "\n%d warmup run%s not counted.\n", nw, nw > 1 ? "s" : "");
    if (differ[0])
        gs_report_put(md, "\n**Note:** the runs differ in %s: the spread mixes settings.\n",
                      differ);
    if (put_split(&split, f, nf, w->case_name))
        gs_report_put(md,
                      "\n**Warning:** runs under more than one settings hash (%s): reported "
                      "apart, labelled [settings HASH].\n",
                      split.s ? split.s : "");
    gs_free(split.s);
    gs_report_put(md,
                  "\n| format | runs | iterations | setup ms | solve ms | total ms | speedup "
                  "vs %s | status |\n|---|---:|---:|---:|---:|---:|---:|---|\n",
                  r->ref);
    for (int k = 0; k < nf; k++) {
        char b[5][64];
        const char *lab = f[k].label;
        gs_report_put(
            md, "| %s%s%s | %d/%d | %s | %s | %s | %s | %s | %s |\n", f[k].best ? "**" : "", lab,
            f[k].best ? "** (best)" : "", f[k].n_conv, f[k].n,
            its3(b[0], 64, f[k].its, "(", "-", ")"), ms3(b[1], 64, f[k].setup, "(", "-", ")"),
            ms3(b[2], 64, f[k].solve, "(", "-", ")"), ms3(b[3], 64, f[k].total, "(", "-", ")"),
            speedup_str(b[4], 64, f[k].speedup), f[k].status);
    }
}

/* ms of operation `op` ("krylov:A", "L0:smoother") in a run's profile; -1 when absent */
static double profile_ms(const char *prof, const char *op)
{
    size_t n = strlen(op);
    for (const char *p = prof; p && *p;) {
        if (strncmp(p, op, n) == 0 && p[n] == '=') return atof(p + n + 1);
        p = strchr(p, ';');
        if (p) p++;
    }
    return -1.0;
}

/* The profiled runs of the case (output.profile): for each operation, its share of each
 * format's solve time (the format's first counted profiled run), so that one sees on which
 * level and operation a format wins or loses. md: a Markdown table, else aligned columns. */
static void put_profile(gs_report_text *t, const gs_report *r, int64_t c, const gs_report_fmt *f,
                        int nf, int md)
{
    const gs_report_run *pr[GS_REPORT_MAXF] = {0};
    const char *cname = r->runs[c].case_name;
    int any = 0;
    for (int k = 0; k < nf; k++)
        for (int64_t i = c; i < r->n && !pr[k]; i++)
            if (counted(&r->runs[i], cname, &f[k]) && r->runs[i].profile[0]) pr[k] = &r->runs[i];
    for (int k = 0; k < nf; k++) any |= pr[k] != NULL;
    if (!any) return;
    if (md) {
        gs_report_put(t, "\nWhere the solve went (output.profile; share of each format's solve, "
                         "ms in brackets):\n\n| operation |");
        for (int k = 0; k < nf; k++) gs_report_put(t, " %s |", f[k].label);
        gs_report_put(t, "\n|---|");
        for (int k = 0; k < nf; k++) gs_report_put(t, "---:|");
        gs_report_put(t, "\n");
    } else {
        gs_report_put(t,
                      "  where the solve went (output.profile, share of each format's solve):\n"
                      "  %-20s",
                      "operation");
        for (int k = 0; k < nf; k++) gs_report_put(t, " %9.9s", f[k].label);
        gs_report_put(t, "\n");
    }
    /* the operations in the order the first profiled run lists them, then any other's */
    char seen[64][40];
    int ns = 0;
    for (int k = 0; k < nf; k++)
        for (const char *p = pr[k] ? pr[k]->profile : NULL; p && *p && ns < 64;) {
            const char *e = strchr(p, '=');
            if (!e) break;
            char op[40];
            snprintf(op, sizeof op, "%.*s", (int)(e - p < 39 ? e - p : 39), p);
            int dup = 0;
            for (int q = 0; q < ns && !dup; q++) dup = !strcmp(seen[q], op);
            if (!dup) gs_str_copy(seen[ns++], sizeof seen[0], op);
            p = strchr(e, ';');
            if (p) p++;
        }
    for (int q = 0; q < ns; q++) {
        gs_report_put(t, md ? "| %s |" : "  %-20s", seen[q]);
        for (int k = 0; k < nf; k++) {
            double v = pr[k] ? profile_ms(pr[k]->profile, seen[q]) : -1.0;
            double T = pr[k] ? 1e3 * pr[k]->solve : 0.0;
            if (v < 0 || T <= 0)
                gs_report_put(t, md ? " - |" : " %9s", "-");
            else if (md)
                gs_report_put(t, " %.1f%% (%.3f) |", 100.0 * v / T, v);
            else
                gs_report_put(t, " %8.1f%%", 100.0 * v / T);
        }
        gs_report_put(t, "\n");
    }
}

gs_status gs_report_write(const gs_report *r, const char *dir)
{
    gs_status st = GS_OK;
    gs_report_text csv = {0}, md = {0}, sum = {0};
    gs_report_fmt f[GS_REPORT_MAXF];
    char path[2048], differ[512];
    gs_report_put(&csv,
                  "case,case_index,rows,nnz,format,ran_format,runs,converged,failed,iterations,"
                  "setup_s,solve_s,total_s,speedup_vs_ref,best,status,iterations_min,"
                  "iterations_max,setup_min_s,setup_max_s,solve_min_s,solve_max_s,total_min_s,"
                  "total_max_s,warmup_runs,failure,rtol,threads,backend,device,version,commit,"
                  "settings_differ,reference,settings,label\n");
    gs_report_put(&md,
                  "# gsolve batch report: %s\n\nMedian (min-max) over the counted repeats "
                  "(converged runs; warmup runs are not counted); speedup = median total time "
                  "of %s (the reference: the batch's first format) / that of the format; best = "
                  "lowest median total time among formats whose runs all converged. A format "
                  "that fell back is named by what ran: \"csr (asked cds)\".\n",
                  dir, r->ref);
    for (int64_t c = gs_report_next_case(r, 0); c >= 0; c = gs_report_next_case(r, c + 1)) {
        int nf = gs_report_summarize(r, c, f);
        settings_differ(r, c, differ, sizeof differ);
        md_case(&md, r, c, f, nf, differ);
        put_profile(&md, r, c, f, nf, 1);
        for (int k = 0; k < nf; k++) csv_row(&csv, r, first_counted(r, c), &f[k], differ);
    }
    gs_report_put_missing(&md, r, 1);
    gs_report_put_summary(&md, r, 1);
    gs_report_summary_csv(&sum, r);
    GS_CHECK(gs_report_text_status("the report text", &csv, &md, &sum));
    snprintf(path, sizeof path, "%s/report.csv", dir);
    GS_CHECK(gs_report_write_atomic(path, csv.s, csv.len));
    snprintf(path, sizeof path, "%s/report.md", dir);
    GS_CHECK(gs_report_write_atomic(path, md.s, md.len));
    snprintf(path, sizeof path, "%s/report_summary.csv", dir);
    GS_CHECK(gs_report_write_atomic(path, sum.s, sum.len));
done:
    gs_free(csv.s);
    gs_free(md.s);
    gs_free(sum.s);
    return st;
}

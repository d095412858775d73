/* gs_report_summary.c: what the report says over the whole batch: the runs that RES/expected.csv
 * (written by the batch: every case and requested format with its repeats) lists and the
 * results lack (never run, cut short, crashed), and the summary across cases per entry (cases
 * converged, wins, geometric-mean speedup over the reference format). */
#include <math.h>
#include <string.h>

#include "gs_mem.h"
#include "gs_report_impl.h"
#include "gs_results.h"

#define put gs_report_put

int64_t gs_report_ncases(const gs_report *r)
{
    int64_t n = 0;
    if (r->has_expected) {
        for (int64_t e = 0; e < r->nexp; e++) {
            int seen = 0;
            for (int64_t j = 0; j < e && !seen; j++)
                seen = !strcmp(r->exp[j].case_name, r->exp[e].case_name);
            n += !seen;
        }
        return n;
    }
    for (int64_t c = gs_report_next_case(r, 0); c >= 0; c = gs_report_next_case(r, c + 1)) n++;
    return n;
}

/* The counted runs of expected row e: done (recorded under its settings), crashed (a marker
 * left), other (recorded under other settings: they do not count for it). A run or an expected
 * row without a settings hash (older files) matches any. */
static void count_expected(const gs_report *r, const gs_report_expect *e, int *done, int *crashed,
                           int *other)
{
    *done = *crashed = *other = 0;
    for (int64_t i = 0; i < r->n; i++) {
        const gs_report_run *w = &r->runs[i];
        if (w->warmup || strcmp(w->case_name, e->case_name) || strcmp(w->req, e->req)) continue;
        int match = !e->settings[0] || !w->settings[0] || !strcmp(e->settings, w->settings);
        if (!match)
            (*other)++;
        else if (w->crashed)
            (*crashed)++;
        else
            (*done)++;
    }
}

/* "not run", "1 of 3 repeats, 1 crashed", "0 of 3 repeats, 3 under other settings" */
static void missing_text(int done, int crashed, int other, int repeats, char *out, size_t len)
{
    size_t n;
    if (!done && !crashed && !other)
        n = (size_t)snprintf(out, len, "not run");
    else
        n = (size_t)snprintf(out, len, "%d of %d repeats", done, repeats);
    if (crashed && n < len) n += (size_t)snprintf(out + n, len - n, ", %d crashed", crashed);
    if (other && n < len) snprintf(out + n, len - n, ", %d recorded under other settings", other);
}

void gs_report_put_missing(gs_report_text *t, const gs_report *r, int md)
{
    int64_t want = 0, have = 0, nmiss = 0;
    int done, crashed, other;
    char what[160];
    if (!r->has_expected) return; /* older results: what was expected is unknown */
    for (int64_t e = 0; e < r->nexp; e++) {
        count_expected(r, &r->exp[e], &done, &crashed, &other);
        want += r->exp[e].repeats;
        have += done < r->exp[e].repeats ? done : r->exp[e].repeats;
        nmiss += done < r->exp[e].repeats;
    }
    if (md) put(t, "\n## Missing runs\n\n");
    if (!nmiss) {
        put(t,
            md ? "All %lld runs that expected.csv lists are recorded.\n"
               : "runs: all %lld expected (expected.csv) recorded\n\n",
            (long long)want);
        return;
    }
    put(t,
        md ? "%lld of the %lld runs that expected.csv lists are not recorded:\n\n"
             "| case | format | recorded |\n|---|---|---|\n"
           : "missing runs: %lld of %lld expected (expected.csv) not recorded:\n",
        (long long)(want - have), (long long)want);
    for (int64_t e = 0; e < r->nexp; e++) {
        const gs_report_expect *x = &r->exp[e];
        count_expected(r, x, &done, &crashed, &other);
        if (done >= x->repeats) continue;
        missing_text(done, crashed, other, x->repeats, what, sizeof what);
        put(t, md ? "| %lld %s | %s | %s |\n" : "  case %lld %s, %s: %s\n",
            (long long)x->case_index, x->case_name, x->req, what);
    }
    if (!md) put(t, "\n");
}

/* ---- the summary across cases ------------------------------------------------------------ */

enum { MAXS = 64 }; /* entries in the summary */

typedef struct sum_entry {
    char label[96], req[32], ran[32], settings[17];
    int cases, conv, wins, nsp;
    double logsum; /* sum of log(speedup) over the nsp cases where it and the reference converged */
} sum_entry;

/* Every entry label over the cases, in order of appearance, with its counts. */
static int collect(const gs_report *r, sum_entry *s)
{
    static gs_report_fmt f[GS_REPORT_MAXF]; /* report code runs on one thread */
    int ns = 0;
    for (int64_t c = gs_report_next_case(r, 0); c >= 0; c = gs_report_next_case(r, c + 1)) {
        int nf = gs_report_summarize(r, c, f);
        for (int k = 0; k < nf; k++) {
            if (f[k].n == 0) continue; /* warmup runs only */
            int j = 0;
            while (j < ns && strcmp(s[j].label, f[k].label) != 0) j++;
            if (j == ns) {
                if (ns == MAXS) continue;
                memset(&s[ns], 0, sizeof s[ns]);
                gs_str_copy(s[ns].label, sizeof s[ns].label, f[k].label);
                gs_str_copy(s[ns].req, sizeof s[ns].req, f[k].req);
                gs_str_copy(s[ns].ran, sizeof s[ns].ran, f[k].ran);
                gs_str_copy(s[ns].settings, sizeof s[ns].settings, f[k].settings);
                ns++;
            }
            s[j].cases++;
            s[j].conv += f[k].n_conv == f[k].n;
            s[j].wins += f[k].best;
            if (isfinite(f[k].speedup) && f[k].speedup > 0)
                s[j].logsum += log(f[k].speedup), s[j].nsp++;
        }
    }
    return ns;
}

/* The geometric mean of entry s's speedups, NAN when it has none. */
static double geomean(const sum_entry *s)
{
    return s->nsp ? exp(s->logsum / s->nsp) : NAN;
}

/* "1.59x" (3 significant digits) or "-" */
static void ratio(char *buf, size_t len, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, v >= 10 ? "%.1fx" : v >= 0.1 ? "%.2fx" : "%.3fx", v);
}

void gs_report_put_summary(gs_report_text *t, const gs_report *r, int md)
{
    static sum_entry s[MAXS];
    int ns = collect(r, s);
    long long nc = (long long)gs_report_ncases(r);
    char g[32], vs[48];
    int lw = 18; /* the labels' column: as wide as the longest */
    if (!ns) return;
    for (int j = 0; j < ns; j++)
        if ((int)strlen(s[j].label) > lw) lw = (int)strlen(s[j].label);
    snprintf(vs, sizeof vs, "geomean vs %s", r->ref);
    if (md)
        put(t,
            "\n## Summary across cases\n\nReference: %s (the batch's first format). Speedup = "
            "median total time of %s / that of the format in a case; its geometric mean over "
            "the cases where both have a converged run. Converged: cases where all its runs "
            "converged, of %lld. Wins: cases where it is best.\n\n| format | converged | wins | "
            "geometric-mean speedup vs %s | cases in the mean |\n|---|---:|---:|---:|---:|\n",
            r->ref, r->ref, nc, r->ref);
    else
        put(t,
            "summary over %lld cases: reference %s (the batch's first format); speedup = "
            "median total of %s / that of the format, geometric mean over the cases where both "
            "converged; wins = cases where it is best\n  %-*s %9s %5s %16s\n",
            nc, r->ref, r->ref, lw, "format", "converged", "wins", vs);
    for (int j = 0; j < ns; j++) {
        char conv[48];
        ratio(g, sizeof g, geomean(&s[j]));
        snprintf(conv, sizeof conv, "%d/%lld", s[j].conv, nc);
        if (md)
            put(t, "| %s | %s | %d | %s | %d |\n", s[j].label, conv, s[j].wins, g, s[j].nsp);
        else
            put(t, "  %-*s %9s %5d %16s  (%d case%s)\n", lw, s[j].label, conv, s[j].wins, g,
                s[j].nsp, s[j].nsp == 1 ? "" : "s");
    }
    if (!md) put(t, "\n");
}

/* A CSV field, quoted when it holds a comma or quote. */
static void field(gs_report_text *t, const char *v)
{
    if (!strpbrk(v, ",\"\n")) {
        put(t, "%s,", v);
        return;
    }
    put(t, "\"");
    for (; *v; v++) put(t, *v == '"' ? "\"\"" : "%c", *v);
    put(t, "\",");
}

void gs_report_summary_csv(gs_report_text *csv, const gs_report *r)
{
    static sum_entry s[MAXS];
    int ns = collect(r, s);
    long long nc = (long long)gs_report_ncases(r);
    put(csv, "format,requested_format,ran_format,settings,reference,cases,cases_run,"
             "cases_converged,wins,speedup_cases,geomean_speedup\n");
    for (int j = 0; j < ns; j++) {
        double g = geomean(&s[j]);
        const char *v[] = {s[j].label, s[j].req, s[j].ran, s[j].settings, r->ref};
        for (int q = 0; q < 5; q++) field(csv, v[q]);
        put(csv, "%lld,%d,%d,%d,%d,", nc, s[j].cases, s[j].conv, s[j].wins, s[j].nsp);
        if (isnan(g))
            put(csv, "-\n");
        else
            put(csv, "%.4f\n", g);
    }
}

/* gs_report_plot.c: the report's plots, drawn by gnuplot (or python3 with matplotlib): per case
 * the relative residual against iteration and time, one line per format; over the cases the
 * time to solution per format as a bar of the median total (on a linear axis setup stacked
 * under solve; on a log axis, where a stacked share would misstate the proportions, setup as
 * a dot), with whiskers from the fastest to the slowest counted run, and a red cross with the
 * reason where a format has no converged run; and each format's speedup over the reference
 * format per case and their geometric mean, bars from 1 on a log axis. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gs_mem.h"
#include "gs_report_impl.h"
#include "gs_results.h"

#define put gs_report_put
typedef gs_report_text text;

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

/* s as a double-quoted string for gnuplot data and scripts and Python (no quote, backslash or
 * newline inside), cut at max characters with "...". */
static void quoted(const char *s, size_t max, char *out, size_t len)
{
    size_t n = 0;
    out[n++] = '"';
    for (size_t i = 0; s[i] && n + 5 < len; i++) {
        if (i == max) {
            memcpy(out + n, "...", 3);
            n += 3;
            break;
        }
        char c = s[i];
        out[n++] = c == '"'                                ? '\''
                   : c == '\\'                             ? '/'
                   : (c == '\n' || c == '\r' || c == '\t') ? ' '
                                                           : c;
    }
    out[n++] = '"';
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
static gs_status history_data(const gs_report *r, const gs_report_run *w, const char *path,
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
    GS_CHECK(gs_report_text_status("the plot data", &d, NULL, NULL));
    GS_CHECK(gs_report_write_atomic(path, d.s, d.len));
done:
    gs_free(d.s);
    gs_csv_table_destroy(&t);
    return st;
}

static int have_gnuplot(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

static int have_matplotlib(void)
{
    return system("python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
}

/* Which tool draws (*tool = NULL: no plots). GSOLVE_PLOTTER = none: no plots; = gnuplot or
 * matplotlib: that one, an error when it cannot run; unset: gnuplot, else python3 with
 * matplotlib, else no plots with a note (the tables are what the report is for). */
static gs_status plotter(const char **tool)
{
    const char *env = getenv("GSOLVE_PLOTTER");
    *tool = NULL;
    if (env && *env) {
        if (strcmp(env, "none") == 0) return GS_OK;
        if (strcmp(env, "gnuplot") != 0 && strcmp(env, "matplotlib") != 0)
            return GS_ERROR(GS_ERR_CONFIG,
                            "GSOLVE_PLOTTER = \"%s\": expected gnuplot, matplotlib or none", env);
        int gnu = strcmp(env, "gnuplot") == 0;
        if (gnu ? !have_gnuplot() : !have_matplotlib())
            return GS_ERROR(GS_ERR_UNSUPPORTED,
                            "GSOLVE_PLOTTER = \"%s\": %s not found (%s; GSOLVE_PLOTTER=none "
                            "skips the plots); the tables are written",
                            env, gnu ? "gnuplot" : "python3 with matplotlib",
                            gnu ? "Debian: apt-get install gnuplot-nox" : "pip install matplotlib");
        *tool = env;
    } else if (have_gnuplot()) {
        *tool = "gnuplot";
    } else if (have_matplotlib()) {
        *tool = "matplotlib";
    } else {
        fprintf(stderr, "gsolve: note: no plotting tool found (gnuplot, or python3 with "
                        "matplotlib): tables written, plots skipped (Debian: apt-get install "
                        "gnuplot-nox)\n");
    }
    return GS_OK;
}

/* The residual plot of case c: one line per format with a drawable history; a format without
 * a converged run gets a key entry with its failure (gp: gnuplot, py: matplotlib). */
static gs_status residual_plot(const gs_report *r, int64_t c, const char *pdir, text *gp, text *py,
                               int *npng)
{
    gs_status st = GS_OK;
    gs_report_fmt f[GS_REPORT_MAXF];
    char cname[256], fname[96], path[2432], q[256], lab[128];
    text lines = {0}, it = {0}, tm = {0}, fails = {0}, pyfails = {0};
    int nf = gs_report_summarize(r, c, f), drawn = 0;
    safe_name(r->runs[c].case_name, cname, sizeof cname);
    for (int k = 0; k < nf; k++) {
        int64_t pts = 0;
        safe_name(f[k].label, fname, sizeof fname);
        quoted(f[k].label, 100, lab, sizeof lab);
        if (f[k].failure[0]) {
            char flab[300];
            snprintf(flab, sizeof flab, "%s: %s", f[k].label, f[k].failure);
            quoted(flab, 70, q, sizeof q);
            put(&fails, ", NaN with points pt 2 ps 1.5 lc rgb \"red\" title %s", q);
            put(&pyfails, "%s%s", pyfails.len ? ", " : "", q);
        }
        if (!f[k].plot_run || !f[k].plot_run->record[0]) continue;
        snprintf(path, sizeof path, "%s/data/%s.%s.dat", pdir, cname, fname);
        if (history_data(r, f[k].plot_run, path, &pts) != GS_OK) {
            fprintf(stderr, "gsolve: note: no residual history for %s, %s: %s\n", cname, fname,
                    gs_error_message());
            gs_error_clear();
            continue;
        }
        if (pts == 0) continue;
        put(&lines, "%s\"data/%s.%s.dat|%.*s\"", drawn ? ", " : "", cname, fname,
            (int)strlen(lab) - 2, lab + 1);
        put(&it, "%s\"data/%s.%s.dat\" using 1:2 with lines lw 2 title %s", drawn ? ", " : "",
            cname, fname, lab);
        put(&tm, "%s\"data/%s.%s.dat\" using 3:2 with lines lw 2 title %s", drawn ? ", " : "",
            cname, fname, lab);
        drawn++;
    }
    GS_CHECK(gs_report_text_status("the plot commands", &lines, &it, &tm));
    GS_CHECK(gs_report_text_status("the plot commands", &fails, &pyfails, NULL));
    if (!drawn) {
        fprintf(stderr, "gsolve: note: case %s: no residual history to draw\n", cname);
        goto done;
    }
    /* gnuplot: one multiplot of two panels; the failures in the first panel's key */
    put(gp,
        "set output \"%s-residual.png\"\nset multiplot layout 1,2 title \"%s: "
        "relative residual ||b-Ax||/||b||\"\nset logscale y\nset format y \"%%.0e\"\n"
        "set key bottom left\nset xlabel \"iteration\"\nplot %s%s\nset xlabel \"time (ms)\"\n"
        "plot %s\nunset multiplot\nunset logscale y\nset format y\nset key top right\n",
        cname, cname, it.s, fails.s ? fails.s : "", tm.s);
    put(py, "residual(\"%s\", [%s], [%s])\n", cname, lines.s, pyfails.s ? pyfails.s : "");
    (*npng)++;
done:
    gs_free(lines.s);
    gs_free(it.s);
    gs_free(tm.s);
    gs_free(fails.s);
    gs_free(pyfails.s);
    return st;
}

/* Every entry label over the cases (what ran; the request when it fell back; the settings hash
 * when a request ran under several), in order of appearance: one slot and colour each. */
typedef struct labels {
    char s[GS_REPORT_MAXF][96];
    int n;
} labels;

static void all_labels(const gs_report *r, labels *L)
{
    static gs_report_fmt f[GS_REPORT_MAXF]; /* report code runs on one thread */
    L->n = 0;
    for (int64_t c = gs_report_next_case(r, 0); c >= 0; c = gs_report_next_case(r, c + 1)) {
        int nf = gs_report_summarize(r, c, f);
        for (int k = 0; k < nf; k++) {
            int a = 0;
            while (a < L->n && strcmp(L->s[a], f[k].label) != 0) a++;
            if (a == L->n && f[k].n > 0 && L->n < GS_REPORT_MAXF)
                gs_str_copy(L->s[L->n++], sizeof L->s[0], f[k].label);
        }
    }
}

/* The slot of label lab, or -1. */
static int label_index(const labels *L, const char *lab)
{
    for (int a = 0; a < L->n; a++)
        if (!strcmp(L->s[a], lab)) return a;
    return -1;
}

/* The bar chart's data: "x setup_ms total_ms min_ms max_ms format_number" per bar, the
 * failures "x y label", the notes above bars with failed runs; lo, hi the range of the drawn
 * totals, slo the least positive setup (ms). */
typedef struct bar_data {
    text bars, failed, notes, xtics;
    double lo, hi, slo;
    int ncases;
} bar_data;

/* Slot of format a of nall in case i: its x. */
static double slot(int i, int a, int nall)
{
    double w = 0.8 / nall;
    return i + (a - 0.5 * (nall - 1)) * w;
}

static void bar_values(const gs_report *r, const labels *L, bar_data *d)
{
    static gs_report_fmt f[GS_REPORT_MAXF];
    int i = 0;
    d->lo = d->slo = HUGE_VAL;
    d->hi = 0;
    put(&d->bars, "# x setup_ms total_ms min_ms max_ms format_number\n");
    for (int64_t c = gs_report_next_case(r, 0); c >= 0; c = gs_report_next_case(r, c + 1), i++) {
        int nf = gs_report_summarize(r, c, f);
        for (int k = 0; k < nf; k++) {
            int a = label_index(L, f[k].label);
            if (a < 0 || f[k].n == 0 || f[k].n_conv == 0) continue; /* failed: drawn below */
            double x = slot(i, a, L->n), *t = f[k].total;
            double setup = f[k].setup[GS_MED] < t[GS_MED] ? f[k].setup[GS_MED] : t[GS_MED];
            put(&d->bars, "%.5f %.6g %.6g %.6g %.6g %d\n", x, 1e3 * setup, 1e3 * t[GS_MED],
                1e3 * t[GS_MIN], 1e3 * t[GS_MAX], a);
            if (1e3 * t[GS_MIN] < d->lo) d->lo = 1e3 * t[GS_MIN];
            if (1e3 * t[GS_MAX] > d->hi) d->hi = 1e3 * t[GS_MAX];
            if (setup > 0 && 1e3 * setup < d->slo) d->slo = 1e3 * setup;
            if (f[k].n_conv < f[k].n) {
                char lab[64], q[80];
                snprintf(lab, sizeof lab, "%d of %d %s", f[k].n - f[k].n_conv, f[k].n,
                         f[k].n_fail ? "failed" : "not conv.");
                quoted(lab, 60, q, sizeof q);
                put(&d->notes, "%.5f %.6g %s\n", x, 1e3 * t[GS_MAX], q);
            }
        }
    }
    d->ncases = i;
    if (d->hi <= 0) d->lo = 1, d->hi = 1;
}

/* The failures' crosses and labels, at y (the baseline), and the case names' tics. */
static void bar_failures(const gs_report *r, const labels *L, double y, bar_data *d)
{
    static gs_report_fmt f[GS_REPORT_MAXF];
    char cname[256], lab[300], q[300];
    int i = 0;
    put(&d->failed, "# x y reason\n");
    for (int64_t c = gs_report_next_case(r, 0); c >= 0; c = gs_report_next_case(r, c + 1), i++) {
        int nf = gs_report_summarize(r, c, f);
        safe_name(r->runs[c].case_name, cname, sizeof cname);
        put(&d->xtics, "%s\"%s\" %d", i ? ", " : "", cname, i);
        for (int k = 0; k < nf; k++) {
            int a = label_index(L, f[k].label);
            if (a < 0 || !f[k].failure[0]) continue;
            snprintf(lab, sizeof lab, "%s %s", f[k].label, f[k].failure);
            quoted(lab, 48, q, sizeof q);
            put(&d->failed, "%.5f %.6g %s\n", slot(i, a, L->n), y, q);
        }
    }
}

/* The matplotlib script's functions (the calls follow). */
static const char *PY_HEAD =
    "import shlex\nimport matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
    "import matplotlib.ticker\n"
    "from matplotlib.patches import Patch\n"
    "import numpy as np\n"
    "def residual(case, series, failed):\n"
    "    fig, ax = plt.subplots(1, 2, figsize=(12, 5))\n"
    "    for s in series:\n"
    "        f, label = s.split('|')\n"
    "        d = np.loadtxt(f, ndmin=2)\n"
    "        ax[0].semilogy(d[:, 0], d[:, 1], lw=2, label=label)\n"
    "        ax[1].semilogy(d[:, 2], d[:, 1], lw=2, label=label)\n"
    "    for label in failed:\n"
    "        ax[0].plot([], [], 'x', color='red', label=label)\n"
    "    ax[0].set_xlabel('iteration'); ax[1].set_xlabel('time (ms)')\n"
    "    for a in ax: a.grid(True, which='both', alpha=0.3); a.legend(fontsize=8)\n"
    "    fig.suptitle(case + ': relative residual ||b-Ax||/||b||')\n"
    "    fig.savefig(case + '-residual.png', dpi=100); plt.close(fig)\n"
    "def rows(path):\n"
    "    return [shlex.split(l) for l in open(path) if l.strip() and not l.startswith('#')]\n"
    "def bars(fmts, cases, log, ylo, yhi, width):\n"
    "    data = rows('data/time_to_solution.dat')\n"
    "    fig, ax = plt.subplots(figsize=(max(8, 1.2 * len(cases) * len(fmts) / 3), 5.5))\n"
    "    keys = []\n"
    "    for j, f in enumerate(fmts):\n"
    "        b = [r for r in data if int(r[5]) == j]\n"
    "        x = [float(r[0]) for r in b]; s = [float(r[1]) for r in b]\n"
    "        t = [float(r[2]) for r in b]; lo = [float(r[3]) for r in b]\n"
    "        hi = [float(r[4]) for r in b]; c = 'C%d' % (j % 10)\n"
    "        ax.bar(x, t, width, color=c, alpha=0.6 if log else 0.35, edgecolor='black')\n"
    "        keys.append(Patch(facecolor=c, edgecolor='black', label=f))\n"
    "        if log: ax.plot(x, s, 'o', color='black', ms=4)\n"
    "        else: ax.bar(x, s, width, color=c, edgecolor='black')\n"
    "        ax.errorbar(x, t, yerr=[[t[i] - lo[i] for i in range(len(t))],\n"
    "                    [hi[i] - t[i] for i in range(len(t))]], fmt='none', ecolor='black',\n"
    "                    capsize=3)\n"
    "    if log: keys.append(plt.Line2D([], [], marker='o', ls='', color='black',\n"
    "                                   label='setup (median)'))\n"
    "    for r in rows('data/time_failed.dat'):\n"
    "        ax.plot(float(r[0]), float(r[1]), 'x', color='red', ms=10)\n"
    "        ax.text(float(r[0]), float(r[1]), ' ' + r[2], rotation=90, color='red',\n"
    "                fontsize=7, ha='center', va='bottom')\n"
    "    for r in rows('data/time_notes.dat'):\n"
    "        ax.text(float(r[0]), float(r[1]), r[2], color='red', fontsize=7, ha='center',\n"
    "                va='bottom')\n"
    "    ax.set_xticks(range(len(cases)), cases, rotation=30)\n"
    "    if log: ax.set_yscale('log')\n"
    "    ax.set_ylim(ylo, yhi)\n"
    "    ax.set_ylabel('time to solution (ms)')\n"
    "    ax.set_title(('median total time (log axis; dot: median setup)' if log else\n"
    "                  'median total time: setup (dark) + solve (light)') + '; whiskers: '\n"
    "                 'min..max of the repeats; x: no converged run', fontsize=9)\n"
    "    ax.legend(handles=keys, fontsize=8); fig.tight_layout()\n"
    "    fig.savefig('time_to_solution.png', dpi=100); plt.close(fig)\n"
    "def speedup(fmts, cases, ref, ylo, yhi, width):\n"
    "    data = rows('data/speedup.dat')\n"
    "    fig, ax = plt.subplots(figsize=(max(8, 1.2 * (len(cases) + 1) * len(fmts) / 3), 5))\n"
    "    ax.axhline(1, color='gray', ls='--', lw=1)\n"
    "    for j, f in enumerate(fmts):\n"
    "        b = [r for r in data if int(r[2]) == j]\n"
    "        if not b: continue\n"
    "        x = [float(r[0]) for r in b]; v = [float(r[1]) for r in b]\n"
    "        ax.bar(x, [y - 1 for y in v], width, bottom=1, color='C%d' % (j % 10),\n"
    "               edgecolor='black', label=f)\n"
    "    ax.set_yscale('log', base=2); ax.set_ylim(ylo, yhi)\n"
    "    g = matplotlib.ticker.FuncFormatter(lambda v, p: '%g' % v)\n"
    "    ax.yaxis.set_major_formatter(g)\n"
    "    if yhi < 8 * ylo:\n"
    "        ax.yaxis.set_minor_locator(matplotlib.ticker.LogLocator(base=2, subs=(1.25, 1.5, "
    "1.75)))\n"
    "        ax.yaxis.set_minor_formatter(g)\n"
    "    ax.set_xticks(range(len(cases) + 1), cases + ['geomean'], rotation=30)\n"
    "    ax.set_ylabel('speedup vs ' + ref)\n"
    "    ax.set_title('median total time of ' + ref + ' / that of the format (above 1: '\n"
    "                 'faster); geomean: over the cases', fontsize=9)\n"
    "    ax.legend(fontsize=8); fig.tight_layout()\n"
    "    fig.savefig('speedup.png', dpi=100); plt.close(fig)\n";

/* The gnuplot plot clauses of the bars: a box per label; on a log axis the setup as a dot
 * (a stacked share would misstate it), else stacked under the solve. */
static void bar_clauses(const labels *L, int logy, text *gp)
{
    char q[128];
    for (int a = 0; a < L->n; a++) {
        quoted(L->s[a], 100, q, sizeof q);
        if (logy)
            put(gp,
                "%s\"data/time_to_solution.dat\" using 1:($6 == %d ? $3 : NaN) with boxes fill "
                "solid 0.6 lc %d title %s",
                a ? ", " : "", a, a + 1, q);
        else
            put(gp,
                "%s\"data/time_to_solution.dat\" using 1:($6 == %d ? $3 : NaN) with boxes lc %d "
                "notitle, \"\" using 1:($6 == %d ? $2 : NaN) with boxes fill solid 1.0 lc %d "
                "notitle, NaN with boxes fill solid 0.6 lc %d title %s",
                a ? ", " : "", a, a + 1, a, a + 1, a + 1, q);
    }
    if (logy)
        put(gp, ", \"data/time_to_solution.dat\" using 1:2 with points pt 7 ps 0.8 lc rgb "
                "\"black\" title \"setup (median)\"");
}

/* The Python list of the labels and of the cases. */
static void py_lists(const gs_report *r, const labels *L, text *py)
{
    char q[128], cname[256];
    int i = 0;
    put(py, "[");
    for (int a = 0; a < L->n; a++) {
        quoted(L->s[a], 100, q, sizeof q);
        put(py, "%s%s", a ? ", " : "", q);
    }
    put(py, "], [");
    for (int64_t c = gs_report_next_case(r, 0); c >= 0; c = gs_report_next_case(r, c + 1), i++) {
        safe_name(r->runs[c].case_name, cname, sizeof cname);
        put(py, "%s\"%s\"", i ? ", " : "", cname);
    }
    put(py, "]");
}

/* The bar chart: data files written, its script appended to gp and py. */
static gs_status bar_plot(const gs_report *r, const labels *L, const char *pdir, text *gp, text *py)
{
    gs_status st = GS_OK;
    char path[2400];
    bar_data d;
    memset(&d, 0, sizeof d);
    if (L->n == 0) return GS_OK;
    bar_values(r, L, &d);
    int logy = d.hi > 30 * d.lo;
    double lo = d.slo < d.lo ? d.slo : d.lo;
    double ylo = logy ? lo / 4 : 0, yhi = logy ? d.hi * 3 : d.hi * 1.2;
    double yfail = logy ? lo / 2.5 : 0;
    bar_failures(r, L, yfail, &d);
    put(&d.notes, "%s", ""); /* an empty file when there is nothing to note */
    GS_CHECK(gs_report_text_status("the plot data", &d.bars, &d.failed, &d.notes));
    GS_CHECK(gs_report_text_status("the plot data", &d.xtics, NULL, NULL));
    snprintf(path, sizeof path, "%s/data/time_to_solution.dat", pdir);
    GS_CHECK(gs_report_write_atomic(path, d.bars.s, d.bars.len));
    snprintf(path, sizeof path, "%s/data/time_failed.dat", pdir);
    GS_CHECK(gs_report_write_atomic(path, d.failed.s, d.failed.len));
    snprintf(path, sizeof path, "%s/data/time_notes.dat", pdir);
    GS_CHECK(gs_report_write_atomic(path, d.notes.s ? d.notes.s : "", d.notes.len));
    double w = 0.8 / L->n;
    put(gp,
        "set terminal pngcairo size %d,560 noenhanced font \",10\"\n"
        "set output \"time_to_solution.png\"\n"
        "set title \"time to solution: %s; whiskers: min..max of the repeats; x: no converged "
        "run\" font \",9\"\n"
        "set ylabel \"ms\"\nset xlabel\nset xtics (%s) rotate by -30 nomirror\n"
        "set xrange [-0.6:%d.6]\nset yrange [%g:%g]\n%sset boxwidth %g absolute\n"
        "set style fill solid 0.35 border -1\nset key top left\nplot ",
        d.ncases * 170 + 500 > 1800 ? 1800 : d.ncases * 170 + 500,
        logy ? "median total (log axis; dot: median setup)"
             : "median total, setup (dark) + solve (light)",
        d.xtics.s ? d.xtics.s : "", d.ncases - 1, ylo, yhi,
        logy ? "set logscale y\n" : "unset logscale y\n", 0.92 * w);
    bar_clauses(L, logy, gp);
    put(gp, ", \"data/time_to_solution.dat\" using 1:3:4:5 with yerrorbars lc rgb \"black\" "
            "pt 0 notitle");
    if (strchr(d.failed.s, '\n') != strrchr(d.failed.s, '\n')) /* a line after the comment */
        put(gp, ", \"data/time_failed.dat\" using 1:2 with points pt 2 ps 2 lc rgb \"red\" "
                "title \"no converged run\", \"\" using 1:2:3 with labels rotate by 90 left "
                "offset 0,1 tc rgb \"red\" font \",8\" notitle");
    if (d.notes.len)
        put(gp, ", \"data/time_notes.dat\" using 1:2:3 with labels offset 0,0.8 tc rgb \"red\" "
                "font \",8\" notitle");
    put(gp, "\nunset logscale y\n");
    put(py, "bars(");
    py_lists(r, L, py);
    put(py, ", %s, %g, %g, %g)\n", logy ? "True" : "False", ylo, yhi, 0.92 * w);
done:
    gs_free(d.bars.s);
    gs_free(d.failed.s);
    gs_free(d.notes.s);
    gs_free(d.xtics.s);
    return st;
}

/* The speedup data "x speedup format_number": per case each entry's (not the reference's own)
 * median total of the reference / its own, then at x = ncases their geometric means; nsp[a]
 * the points of label a, *npts all of them, lo and hi their range with 1. */
static void speedup_values(const gs_report *r, const labels *L, text *d, text *xt, int *nsp,
                           int *npts, double *lo, double *hi)
{
    static gs_report_fmt f[GS_REPORT_MAXF];
    double logsum[GS_REPORT_MAXF] = {0};
    int i = 0;
    char cname[256];
    for (int a = 0; a < L->n; a++) nsp[a] = 0;
    *npts = 0;
    *lo = *hi = 1;
    put(d, "# x speedup format_number (speedup: median total of %s / that of the format)\n",
        r->ref);
    for (int64_t c = gs_report_next_case(r, 0); c >= 0; c = gs_report_next_case(r, c + 1), i++) {
        int nf = gs_report_summarize(r, c, f);
        safe_name(r->runs[c].case_name, cname, sizeof cname);
        put(xt, "%s\"%s\" %d", i ? ", " : "", cname, i);
        for (int k = 0; k < nf; k++) {
            int a = label_index(L, f[k].label);
            double v = f[k].speedup;
            if (a < 0 || !strcmp(f[k].req, r->ref) || !isfinite(v) || v <= 0) continue;
            put(d, "%.5f %.6g %d\n", slot(i, a, L->n), v, a);
            logsum[a] += log(v), nsp[a]++, (*npts)++;
            if (v < *lo) *lo = v;
            if (v > *hi) *hi = v;
        }
    }
    put(xt, "%s\"geomean\" %d", i ? ", " : "", i);
    for (int a = 0; a < L->n; a++)
        if (nsp[a]) put(d, "%.5f %.6g %d\n", slot(i, a, L->n), exp(logsum[a] / nsp[a]), a);
}

/* The speedup panel: per case, bars from 1 to each format's speedup over the reference on a
 * log axis, the geometric means last; *drawn = 0 when there is nothing to draw (no reference
 * or no format converged beside it). */
static gs_status speedup_plot(const gs_report *r, const labels *L, const char *pdir, text *gp,
                              text *py, int *drawn)
{
    gs_status st = GS_OK;
    text d = {0}, xt = {0};
    char path[2400], q[128], ref[64];
    int npts = 0, ncases = 0, nsp[GS_REPORT_MAXF];
    double lo, hi, w = L->n ? 0.8 / L->n : 0.8;
    *drawn = 0;
    if (L->n == 0) return GS_OK;
    for (int64_t c = gs_report_next_case(r, 0); c >= 0; c = gs_report_next_case(r, c + 1)) ncases++;
    speedup_values(r, L, &d, &xt, nsp, &npts, &lo, &hi);
    GS_CHECK(gs_report_text_status("the plot data", &d, &xt, NULL));
    if (npts == 0) goto done;
    snprintf(path, sizeof path, "%s/data/speedup.dat", pdir);
    GS_CHECK(gs_report_write_atomic(path, d.s, d.len));
    safe_name(r->ref, ref, sizeof ref);
    put(gp,
        "set terminal pngcairo size %d,480 noenhanced font \",10\"\nset output \"speedup.png\"\n"
        "set title \"speedup vs %s: median total time of %s / that of the format (above 1: "
        "faster); geomean: over the cases\" font \",9\"\nset ylabel \"speedup vs %s\"\n"
        "set xlabel\nset xtics (%s) rotate by -30 nomirror\nset xrange [-0.6:%d.6]\n"
        "set logscale y 2\nset yrange [%g:%g]\nset key top left",
        (ncases + 1) * 170 + 500 > 1800 ? 1800 : (ncases + 1) * 170 + 500, ref, ref, ref, xt.s,
        ncases, lo / 1.5, hi * 1.5);
    if (hi < 8 * lo) /* a narrow range: tics between the powers of 2 as well */
        for (double p = pow(2, floor(log2(lo / 1.5))); p < 2 * hi; p *= 2)
            put(gp, "\nset ytics add (%g, %g, %g, %g)", p, 1.25 * p, 1.5 * p, 1.75 * p);
    put(gp, "\nplot 1 with lines lc rgb \"gray40\" dt 2 notitle");
    for (int a = 0; a < L->n; a++) {
        if (!nsp[a]) continue; /* the reference, or nothing converged beside it */
        quoted(L->s[a], 100, q, sizeof q);
        put(gp,
            ", \"data/speedup.dat\" using 1:($3 == %d ? $2 : NaN):($1 - %g):($1 + %g):(1):($3 "
            "== %d ? $2 : NaN) with boxxyerror fill solid 0.6 border -1 lc %d title %s",
            a, 0.46 * w, 0.46 * w, a, a + 1, q);
    }
    put(gp, "\nunset logscale y\nset ytics autofreq\n");
    put(py, "speedup(");
    py_lists(r, L, py);
    put(py, ", \"%s\", %g, %g, %g)\n", ref, lo / 1.5, hi * 1.5, 0.92 * w);
    *drawn = 1;
done:
    gs_free(d.s);
    gs_free(xt.s);
    return st;
}

gs_status gs_report_plot(const gs_report *r, const char *dir, FILE *out)
{
    gs_status st = GS_OK;
    text gp = {0}, py = {0};
    char pdir[2048], path[2200], q[4200], cmd[4400];
    int npng = 0, nspeed = 0;
    static labels L;
    const char *tool = NULL;
    GS_CHECK(plotter(&tool));
    if (!tool) return GS_OK;
    snprintf(pdir, sizeof pdir, "%s/plots", dir);
    snprintf(path, sizeof path, "%s/data", pdir);
    if ((mkdir(pdir, 0755) != 0 && errno != EEXIST) || (mkdir(path, 0755) != 0 && errno != EEXIST))
        return GS_ERROR(GS_ERR_WRITE, "cannot create '%s': %s", path, strerror(errno));
    put(&gp, "set terminal pngcairo size 1200,480 noenhanced font \",10\"\nset grid\n"
             "set key top right\nset datafile missing \"-\"\n");
    put(&py, "%s", PY_HEAD);
    for (int64_t c = gs_report_next_case(r, 0); c >= 0; c = gs_report_next_case(r, c + 1))
        GS_CHECK(residual_plot(r, c, pdir, &gp, &py, &npng));
    all_labels(r, &L);
    GS_CHECK(bar_plot(r, &L, pdir, &gp, &py));
    GS_CHECK(speedup_plot(r, &L, pdir, &gp, &py, &nspeed));
    GS_CHECK(gs_report_text_status("the plot scripts", &gp, &py, NULL));
    int gnu = strcmp(tool, "gnuplot") == 0;
    snprintf(path, sizeof path, "%s/%s", pdir, gnu ? "plots.gp" : "plots.py");
    GS_CHECK(gnu ? gs_report_write_atomic(path, gp.s, gp.len)
                 : gs_report_write_atomic(path, py.s, py.len));
    shell_quote(pdir, q, sizeof q);
    snprintf(cmd, sizeof cmd, "cd %s && %s > plots.log 2>&1", q,
             gnu ? "gnuplot plots.gp" : "python3 plots.py");
    if (system(cmd) != 0)
        GS_FAIL(GS_ERR_INTERNAL, "%s failed drawing the plots: see %s/plots.log", tool, pdir);
    if (out) {
        fprintf(out, "plots (%s): %s/time_to_solution.png", tool, pdir);
        if (nspeed) fprintf(out, ", %s/speedup.png", pdir);
        if (npng) fprintf(out, " and %d residual plots %s/CASE-residual.png", npng, pdir);
        fputc('\n', out);
    }
done:
    gs_free(gp.s);
    gs_free(py.s);
    return st;
}

/* gs_report_impl.h: what gs_report.c (results read, statistics, tables), gs_report_summary.c
 * (the runs expected, the summary across cases) and gs_report_plot.c (plots) share: the runs
 * as recorded, the per-format statistics, a growing text buffer. */
#ifndef GS_REPORT_IMPL_H
#define GS_REPORT_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "gs_report.h"

#define GS_REPORT_MAXF 32  /* formats per case */
#define GS_REPORT_MAXR 256 /* counted runs per (case, format) in the statistics */

/* The settings a run records beside its numbers (CSV columns); the runs of one case that
 * differ in one of them are pointed out. */
enum { GS_REPORT_NSET = 31 };
extern const char *const gs_report_set_keys[GS_REPORT_NSET];

/* One run as its CSV row recorded it (or as a crash left its marker). */
typedef struct gs_report_run {
    char case_name[256], req[32], ran[32], reason[32], message[256], record[128];
    char backend[16], device[128], timestamp[32];
    int64_t case_index, rows, nnz;
    int rep, status; /* status: 0 converged, 1 not converged, 2 failed (crashed included) */
    int warmup;      /* a warmup run: not counted */
    int its;
    double setup, solve, total;
    char settings[17]; /* the hash of the run's effective settings ("" in older files) */
    char as[32];       /* the format it counts under: what ran, for a failed run what its
                          (case, request, settings) ran otherwise, else req */
    int crashed;       /* read from a marker a crash left (status 2) */
    char set[GS_REPORT_NSET][48]; /* gs_report_set_keys' values ("" when not recorded) */
    char profile[2048]; /* output.profile's "krylov:A=ms/calls;...;L0:smoother=ms/calls" or "" */
} gs_report_run;

/* One entry of one case: the runs of one requested format that ran as one format under one
 * settings hash, over its counted repeats (warmup runs left out). */
typedef struct gs_report_fmt {
    const char *req, *ran, *settings; /* ran: what ran (a fallback), else req */
    char label[96]; /* "cds", "csr (asked cds)", "csr [settings 1a2b3c4d]" */
    int split;      /* req has runs under more than one settings hash in this case */
    int n, n_conv, n_fail, n_warm;
    /* over the converged runs, else every run that ran; NAN when none */
    double its[3], setup[3], solve[3], total[3]; /* min, median, max */
    double speedup; /* the reference's median total / this one's; NAN when either is missing */
    int best;
    char status[640];
    char failure[640]; /* no converged run: why ("failed: ...", "not converged: ..."), else "" */
    const gs_report_run *plot_run; /* the run whose residual history is drawn */
} gs_report_fmt;

enum { GS_MIN = 0, GS_MED = 1, GS_MAX = 2 };

/* One row of RES/expected.csv: a (case, requested format) of the batch and its repeats. */
typedef struct gs_report_expect {
    char case_name[256], req[32], settings[17];
    int64_t case_index;
    int repeats;
} gs_report_expect;

struct gs_report {
    char dir[1024];
    gs_report_run *runs;
    int64_t n, cap;
    gs_report_expect *exp; /* RES/expected.csv's rows (none in older results) */
    int64_t nexp;
    int has_expected;
    char ref[32]; /* the reference format: the batch's first requested format */
};

/* The first run of the case after `from` not seen before (cases in order of appearance), or
 * -1 when none is left. */
int64_t gs_report_next_case(const gs_report *r, int64_t from);

/* The statistics of every entry of the case of run c0 into f; returns their number. */
int gs_report_summarize(const gs_report *r, int64_t c0, gs_report_fmt *f);

/* The number of cases: those of expected.csv when it is there, else those with runs. */
int64_t gs_report_ncases(const gs_report *r);

/* RES/expected.csv into r (only case only_case when >= 0); absent: r->has_expected = 0. */
gs_status gs_report_load_expected(gs_report *r, int64_t only_case);

/* A growing text buffer (on a failed growth nomem holds the bytes asked; later puts do
 * nothing). */
typedef struct gs_report_text {
    char *s;
    size_t len, cap;
    size_t nomem;
} gs_report_text;

void gs_report_put(gs_report_text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* GS_ERR_NOMEM naming what, for the first of a, b, c (NULLs allowed) whose growth failed. */
gs_status gs_report_text_status(const char *what, const gs_report_text *a, const gs_report_text *b,
                                const gs_report_text *c);
/* The runs expected and not recorded ("not run", "1 of 3 repeats, 1 crashed"), and the summary
 * across cases (per entry label: cases converged, wins, geometric-mean speedup over the
 * reference), as aligned text (md = 0) or Markdown; the summary as report_summary.csv rows. */
void gs_report_put_missing(gs_report_text *t, const gs_report *r, int md);
void gs_report_put_summary(gs_report_text *t, const gs_report *r, int md);
void gs_report_summary_csv(gs_report_text *csv, const gs_report *r);

/* Write text to path through path.tmp and a rename. */
gs_status gs_report_write_atomic(const char *path, const char *text, size_t len);

#endif

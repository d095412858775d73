/* bench_select: the per-level format choice (spmv/select/gs_select.h) against measurement.
 *
 *   bench_select [--backend cuda|host] [--reps N] [--batches B] [--md FILE] [--csv FILE]
 *                [--no-measure] [MATRIX ...]
 *
 * MATRIX as for every bench program (bench/gs_bench.h): a generator type:stencil:size[:dof], a
 * file, FILE*k (repeated k times on the diagonal), each optionally @L (the level-L coarse
 * operator of a smoothed-aggregation hierarchy). Without MATRIX, the generated set below.
 *
 * For every matrix: its features; every format (cuSPARSE included on the device) converted
 * once to warm up and once timed, then the median over B batches of N SpMVs (warm-up first,
 * a sync per batch); the format "auto" picks (gs_select_spmat, after the per-format runs, so its
 * feature kernel and conversion are warm, as on every level but the first of an AMG setup; run
 * once more to warm up, then 5 times: the feature and conversion costs are their medians) and
 * the one "measure" keeps; the measured best; best/auto (1 = auto is the best; >= 0.91 is
 * "within 10%"); auto's speedup over cuSPARSE (over csr on the host); the features and the
 * features plus conversion in SpMVs of the chosen format and of cuSPARSE. A summary line counts
 * the matrices within 10% of the best and the lowest speedup over cuSPARSE.
 *
 * --csv writes one row per matrix with the features and every format's seconds: the input of
 * scripts/calibrate_select.py, which proposes the rule table's thresholds from it (it reads the
 * --md table too). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_bench.h"
#include "gs_gen.h"
#include "gs_select.h"
#include "gs_time.h"

static const char *STANDARD[] = {"poisson:7:128",      "poisson:27:100",     "poisson:7:64:4",
                                 "poisson:7:96:3",     "anisotropic:5:1024", "convdiff:7:128",
                                 "powerlaw:0:1000000", "powerlaw:0:200000",  "poisson:7:40",
                                 "poisson:7:128@1",    "poisson:7:128@2",    "poisson:7:64:4@1"};

typedef struct bench_opts {
    gs_loc loc;
    int reps, batches, measure;
    FILE *md, *csv;
} bench_opts;

/* what one matrix gave, for the summary */
typedef struct bench_row {
    int ok;
    double best_over_auto, auto_speedup, cost_auto, feat_base;
} bench_row;

/* "nan" for a format that did not run, else microseconds */
static const char *us(double t, char *buf, size_t len)
{
    if (isnan(t))
        gs_str_copy(buf, len, "-");
    else
        snprintf(buf, len, "%.1f", 1e6 * t);
    return buf;
}

/* every format's median SpMV seconds (NaN when refused or absent) */
static void time_formats(const gs_csr *dA, const gs_vec *x, gs_vec *y, const bench_opts *o,
                         double *t)
{
    for (int f = 0; f < GS_FORMAT_COUNT; f++) {
        gs_spmat *M = NULL;
        gs_format_params p;
        t[f] = NAN;
        if (f == GS_FORMAT_CUSPARSE && o->loc != GS_LOC_DEVICE) continue;
        gs_format_params_default(&p);
        gs_status st = gs_spmat_create(dA, (gs_format)f, &p, &M); /* first use: discarded */
        gs_spmat_destroy(&M);
        if (st == GS_OK) st = gs_spmat_create(dA, (gs_format)f, &p, &M);
        if (st != GS_OK) {
            fprintf(stderr, "  %s: %s\n", gs_format_name((gs_format)f), gs_error_message());
            gs_error_clear();
            continue;
        }
        t[f] = gs_bench_median_spmv(M, x, y, o->reps, o->batches);
        gs_spmat_destroy(&M);
    }
}

/* gs_select_spmat with spmv.format = format; the result in *res, the matrix freed */
static gs_status select_once(const gs_csr *dA, const char *format, gs_select_result *res)
{
    gs_select_request rq;
    gs_spmat *M = NULL;
    memset(&rq, 0, sizeof rq);
    rq.format = format;
    gs_format_params_default(&rq.params);
    gs_status st = gs_select_spmat(dA, 0, &rq, &M, res);
    gs_spmat_destroy(&M);
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define SELECT_RUNS 5 /* timed "auto" selections after one warm-up: medians of their costs */

/* "auto" once to warm up, then SELECT_RUNS times: res is the last, with the medians of the
 * feature and conversion seconds */
static gs_status select_auto(const gs_csr *dA, gs_select_result *res)
{
    double fs[SELECT_RUNS], cs[SELECT_RUNS];
    gs_status st = select_once(dA, "auto", res);
    for (int r = 0; r < SELECT_RUNS && st == GS_OK; r++) {
        st = select_once(dA, "auto", res);
        fs[r] = res->feature_s, cs[r] = res->convert_s;
    }
    if (st != GS_OK) return st;
    qsort(fs, SELECT_RUNS, sizeof *fs, cmp_double);
    qsort(cs, SELECT_RUNS, sizeof *cs, cmp_double);
    res->feature_s = fs[SELECT_RUNS / 2], res->convert_s = cs[SELECT_RUNS / 2];
    return GS_OK;
}

/* the reason with the CSV's quote doubled */
static void csv_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* one matrix: a table row, a CSV row, and its reasons kept for the notes */
static void bench_matrix(const char *spec, const bench_opts *o, bench_row *row, char *note,
                         size_t note_len)
{
    gs_csr *A = NULL, *dA = NULL;
    gs_vec *x = NULL, *y = NULL;
    double *xh = NULL, t[GS_FORMAT_COUNT];
    char desc[160], line[2048], b[GS_FORMAT_COUNT][32], fd[256];
    gs_select_result ra, rm;
    gs_features warm;
    const double t0 = gs_time_now();
    memset(row, 0, sizeof *row);
    memset(&rm, 0, sizeof rm);
    note[0] = '\0';
    if (gs_bench_load(spec, &A, desc, sizeof desc) != GS_OK ||
        gs_csr_upload(A, o->loc, &dA) != GS_OK || gs_vec_create(A->cols, o->loc, &x) != GS_OK ||
        gs_vec_create(A->rows, o->loc, &y) != GS_OK ||
        !(xh = malloc((size_t)(A->cols > 0 ? A->cols : 1) * sizeof *xh))) {
        fprintf(stderr, "bench_select: %s: %s\n", spec, gs_error_message());
        gs_error_clear();
        goto done;
    }
    fprintf(stderr, "%s: loaded in %.1f s\n", desc, gs_time_now() - t0);
    gs_gen_random_vector(7, xh, A->cols);
    gs_vec_set_host(x, xh);
    time_formats(dA, x, y, o, t);
    if (gs_features_compute(dA, &warm) != GS_OK || select_auto(dA, &ra) != GS_OK ||
        (o->measure && select_once(dA, "measure", &rm) != GS_OK)) {
        fprintf(stderr, "bench_select: %s: selection: %s\n", desc, gs_error_message());
        gs_error_clear();
        goto done;
    }
    const gs_features *f = &ra.feat;
    int best = -1;
    for (int q = 0; q < GS_FORMAT_COUNT; q++)
        if (!isnan(t[q]) && (best < 0 || t[q] < t[best])) best = q;
    const gs_format base = o->loc == GS_LOC_DEVICE ? GS_FORMAT_CUSPARSE : GS_FORMAT_CSR;
    const double ta = t[ra.format], tb = best >= 0 ? t[best] : NAN, tbase = t[base];
    row->ok = !isnan(ta) && !isnan(tb);
    row->best_over_auto = tb / ta;
    row->auto_speedup = tbase / ta;
    row->cost_auto = (ra.feature_s + ra.convert_s) / ta;
    row->feat_base = ra.feature_s / tbase;
    snprintf(line, sizeof line,
             "| %s | %lld | %lld | %.2f | %.2f | %d | %d | %d | %d | %.3f | %s | %s | %s | %s | %s "
             "| %s | %s | %.2f | %.2f | %.2f | %.1f | %.1f | %s |",
             desc, (long long)f->rows, (long long)f->nnz, f->mean, f->std, (int)f->max,
             (int)f->ndiags, (int)f->block, (int)f->nblockdiags, f->cds_fill,
             us(t[GS_FORMAT_CUSPARSE], b[0], 32), us(t[GS_FORMAT_CSR], b[1], 32),
             us(t[GS_FORMAT_CMRS], b[2], 32), us(t[GS_FORMAT_SURAA], b[3], 32),
             us(t[GS_FORMAT_CDS], b[4], 32), gs_format_name(ra.format),
             best >= 0 ? gs_format_name((gs_format)best) : "-", row->best_over_auto,
             row->auto_speedup, row->feat_base, row->cost_auto,
             (ra.feature_s + ra.convert_s) / tbase, o->measure ? gs_format_name(rm.format) : "-");
    gs_bench_emit(o->md, line);
    gs_features_describe(f, fd, sizeof fd);
    snprintf(note, note_len, "| %s | %s | %s | %s |", desc, fd, ra.reason,
             o->measure ? rm.reason : "-");
    if (o->csv) {
        fprintf(o->csv, "\"%s\",%lld,%lld,%lld,%.6g,%.6g,%d,%d,%.6g,%d,%d,%d,%.6g,%lld", desc,
                (long long)f->rows, (long long)f->cols, (long long)f->nnz, f->mean, f->std,
                (int)f->min, (int)f->max, f->empty_share, (int)f->ndiags, (int)f->block,
                (int)f->nblockdiags, f->cds_fill, (long long)f->bandwidth);
        for (int q = 0; q < GS_FORMAT_COUNT; q++) fprintf(o->csv, ",%.6g", t[q]);
        fprintf(o->csv, ",%s,%s,%.6g,%.6g,%s,%.6g,", gs_format_name(ra.format),
                best >= 0 ? gs_format_name((gs_format)best) : "", ra.feature_s, ra.convert_s,
                o->measure ? gs_format_name(rm.format) : "", rm.measure_s);
        csv_quoted(o->csv, ra.reason);
        fputc('\n', o->csv);
        fflush(o->csv);
    }
done:
    free(xh);
    gs_vec_destroy(&x);
    gs_vec_destroy(&y);
    gs_csr_destroy(&dA);
    gs_csr_destroy(&A);
}

/* the rule table in force, as a list */
static void emit_rules(FILE *md)
{
    char line[256];
    gs_bench_emit(md, "Rule table in force (spmv/select/gs_select.c; first matching row wins):\n");
    for (int i = 0;; i++) {
        unsigned locs = 0;
        gs_format f;
        const char *t = gs_select_rule_row(i, &locs, &f);
        if (!t) break;
        snprintf(line, sizeof line, "%d. %s -> %s (%s)", i + 1, t, gs_format_name(f),
                 locs == ((1u << GS_LOC_HOST) | (1u << GS_LOC_DEVICE)) ? "host and GPU"
                 : locs & (1u << GS_LOC_DEVICE)                        ? "GPU"
                                                                       : "host");
        gs_bench_emit(md, line);
    }
    gs_bench_emit(md, "");
}

int main(int argc, char **argv)
{
    const char *backend = "cuda", *mdpath = NULL, *csvpath = NULL;
    bench_opts o = {.reps = 30, .batches = 11, .measure = 1};
    int first = 1;
    while (first < argc && argv[first][0] == '-') {
        if (strcmp(argv[first], "--no-measure") == 0) {
            o.measure = 0;
            first++;
            continue;
        }
        if (first + 1 >= argc) break;
        if (strcmp(argv[first], "--backend") == 0)
            backend = argv[first + 1];
        else if (strcmp(argv[first], "--reps") == 0)
            o.reps = atoi(argv[first + 1]);
        else if (strcmp(argv[first], "--batches") == 0)
            o.batches = atoi(argv[first + 1]);
        else if (strcmp(argv[first], "--md") == 0)
            mdpath = argv[first + 1];
        else if (strcmp(argv[first], "--csv") == 0)
            csvpath = argv[first + 1];
        else {
            fprintf(stderr, "bench_select: unknown option %s\n", argv[first]);
            return 2;
        }
        first += 2;
    }
    char dev[160], line[512];
    o.loc = gs_bench_backend(backend, "bench_select", dev, sizeof dev);
    o.md = mdpath ? fopen(mdpath, "w") : NULL;
    o.csv = csvpath ? fopen(csvpath, "w") : NULL;
    if ((mdpath && !o.md) || (csvpath && !o.csv)) {
        fprintf(stderr, "bench_select: cannot write %s\n", mdpath && !o.md ? mdpath : csvpath);
        return 2;
    }
    if (o.csv)
        fprintf(o.csv, "matrix,rows,cols,nnz,mean,std,min,max,empty_share,ndiags,block,"
                       "nblockdiags,cds_fill,bandwidth,t_csr,t_cusparse,t_cmrs,t_suraa,t_cds,"
                       "auto,best,feature_s,convert_s,measure,measure_s,reason\n");
    const char *base = o.loc == GS_LOC_DEVICE ? "cuSPARSE" : "csr";
    snprintf(line, sizeof line,
             "device: %s; SpMV: median of %d batches of %d after warm-up, microseconds\n", dev,
             o.batches, o.reps);
    gs_bench_emit(o.md, line);
    emit_rules(o.md);
    snprintf(line, sizeof line,
             "| matrix | rows | nnz | mean | std | max | diags | b | K | fill | cusparse us | "
             "csr us | cmrs us | suraa us | cds us | auto | best | best/auto | auto vs %s | "
             "features / %s SpMV | features+conversion / auto SpMV | features+conversion / %s "
             "SpMV | measure picks |",
             base, base, base);
    gs_bench_emit(o.md, line);
    gs_bench_emit(o.md, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
                        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    const int nm = first < argc ? argc - first : (int)(sizeof STANDARD / sizeof STANDARD[0]);
    bench_row *rows = calloc((size_t)nm, sizeof *rows);
    char(*notes)[1024] = calloc((size_t)nm, sizeof *notes);
    if (!rows || !notes) return 1;
    for (int i = 0; i < nm; i++)
        bench_matrix(first < argc ? argv[first + i] : STANDARD[i], &o, &rows[i], notes[i],
                     sizeof notes[i]);
    int n = 0, within = 0;
    double worst = HUGE_VAL, worst_cost = 0.0, worst_feat = 0.0;
    for (int i = 0; i < nm; i++) {
        if (!rows[i].ok) continue;
        n++;
        within += rows[i].best_over_auto >= 1.0 / 1.1;
        worst = rows[i].auto_speedup < worst ? rows[i].auto_speedup : worst;
        worst_cost = rows[i].cost_auto > worst_cost ? rows[i].cost_auto : worst_cost;
        worst_feat = rows[i].feat_base > worst_feat ? rows[i].feat_base : worst_feat;
    }
    snprintf(line, sizeof line,
             "\nSummary: auto within 10%% of the measured best on %d of %d matrices (%.0f%%); "
             "lowest auto speedup over %s %.2f; features at most %.1f %s SpMVs; features + "
             "conversion at most %.1f SpMVs of the chosen format.\n",
             within, n, n ? 100.0 * within / n : 0.0, base, worst, worst_feat, base, worst_cost);
    gs_bench_emit(o.md, line);
    gs_bench_emit(o.md, "| matrix | features | auto reason | measure reason |");
    gs_bench_emit(o.md, "| --- | --- | --- | --- |");
    for (int i = 0; i < nm; i++)
        if (notes[i][0]) gs_bench_emit(o.md, notes[i]);
    free(rows);
    free(notes);
    if (o.md) fclose(o.md);
    if (o.csv) fclose(o.csv);
    return 0;
}

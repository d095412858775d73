/* gs_select.c: matrix features (the host pass, gs_features_host_ops; the device pass is
 * spmv/select/gs_features_cuda.cu's, both reached through gs_backend_module), the rule
 * table of spmv.format = "auto", the measured choice, forced formats and per-level lists.
 * Interface and meaning: gs_select.h. */
#include "gs_select.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_time.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define STR_(x) #x
#define STR(x) STR_(x)

/* ---------------------------------------------------------------------------------------------
 * The rule table: for each location, rows of {condition, format, text}, the first row whose
 * condition holds wins. GPU thresholds set from every format measured on the H200 in
 * bench/results/README.md, "Format selection"; host ones from the host run recorded there (16
 * cores). On another machine, rerun the benchmark and let the script propose new values for
 * the #defines below (it prints them in this form):
 *   build/bench/bench_select --csv sel.csv --md sel.md [MATRIX ...]    (--backend host: host)
 *   python3 scripts/calibrate_select.py sel.csv
 * ------------------------------------------------------------------------------------------- */
#define GPU_UNEVEN_CV 1.0      /* std / mean above which rows are "uneven" ... */
#define GPU_UNEVEN_ROWS 500000 /* ... SURAA below this many rows, cuSPARSE from it ... */
/* ... and below this many entries (SURAA's conversion, about 110 us, passes 9 SpMVs there) */
#define GPU_UNEVEN_MIN_NNZ 1500000
/* uneven rows whose longest is at most this x the mean (and nnz >= GPU_UNEVEN_MIN_NNZ): CMRS's
 * strips stay balanced and beat cuSPARSE (isooctane_A x10000 210 vs 243 us, zenios x500 65 vs
 * 76; power law 1M, longest 324 x the mean: CMRS 359 vs 86, 2026-11-25) */
#define GPU_UNEVEN_MAX_RATIO 16.0
#define GPU_SMALL_ROWS 30000   /* below: launch-bound, gsolve's CSR kernel (no conversion) */
/* short rows spread over std > this x mean (and nnz >= GPU_UNEVEN_MIN_NNZ): SURAA's runs of
 * equal lanes beat CSR's one lane count (bips98_606 x200: 40.8 against 51.4 us, 2026-11-25) */
#define GPU_SHORT_UNEVEN_CV 0.5
#define GPU_SHORT_MEAN 8.0     /* ... for rows of mean length below this */
#define GPU_CDS_MAX_DIAGS 128  /* structured: block diagonals ... */
#define GPU_CDS_MAX_FILL 0.25  /* ... and CDS padding over nnz up to which CDS wins */
#define GPU_CDS_BLOCK1 0       /* 1: CDS only at block size 1 */
#define GPU_LONG_MEAN 12.0     /* mean row length from which CMRS (h=16, modified) wins */

#define HOST_UNEVEN_CV 1.0          /* SURAA's length-sorted rows balance the threads */
#define HOST_UNEVEN_ROWS 2147483647 /* (the host has no cuSPARSE: SURAA at every size) */
#define HOST_UNEVEN_MIN_NNZ 0
#define HOST_SMALL_ROWS 0
#define HOST_UNEVEN_MAX_RATIO 0.0 /* (no such row on the host) */
#define HOST_SHORT_UNEVEN_CV 0.0 /* (no such row on the host) */
#define HOST_SHORT_MEAN 0.0
#define HOST_CDS_MAX_DIAGS 128
#define HOST_CDS_MAX_FILL 0.25
#define HOST_CDS_BLOCK1 1 /* the host CDS loop is slower than CSR at b > 1 */
#define HOST_LONG_MEAN 10.0

/* the thresholds of one location */
typedef struct select_limits {
    double uneven_cv;
    int64_t uneven_rows, uneven_min_nnz, small_rows;
    int cds_max_diags, cds_block1;
    double cds_max_fill, long_mean;
    double short_cv, short_mean, uneven_max_ratio;
} select_limits;

static const select_limits LIMITS[2] = {
    [GS_LOC_HOST] = {HOST_UNEVEN_CV, HOST_UNEVEN_ROWS, HOST_UNEVEN_MIN_NNZ, HOST_SMALL_ROWS,
                     HOST_CDS_MAX_DIAGS, HOST_CDS_BLOCK1, HOST_CDS_MAX_FILL, HOST_LONG_MEAN,
                     HOST_SHORT_UNEVEN_CV, HOST_SHORT_MEAN, HOST_UNEVEN_MAX_RATIO},
    [GS_LOC_DEVICE] = {GPU_UNEVEN_CV, GPU_UNEVEN_ROWS, GPU_UNEVEN_MIN_NNZ, GPU_SMALL_ROWS,
                       GPU_CDS_MAX_DIAGS, GPU_CDS_BLOCK1, GPU_CDS_MAX_FILL, GPU_LONG_MEAN,
                       GPU_SHORT_UNEVEN_CV, GPU_SHORT_MEAN, GPU_UNEVEN_MAX_RATIO},
};

typedef struct select_rule {
    gs_loc loc;                                                /* where the row applies */
    int (*cond)(const gs_features *f, const select_limits *l); /* 1 when the row fires */
    gs_format format;
    const char *text;
} select_rule;

/* row lengths spread more than the mean, on a matrix of few rows but enough entries that a
 * conversion's fixed cost stays within the SpMVs it is measured in */
static int cond_uneven_small(const gs_features *f, const select_limits *l)
{
    return f->std > l->uneven_cv * f->mean && f->rows < l->uneven_rows &&
           f->nnz >= l->uneven_min_nnz;
}

/* row lengths spread more than the mean, the longest within a bound of it, enough entries */
static int cond_uneven_bounded(const gs_features *f, const select_limits *l)
{
    return f->std > l->uneven_cv * f->mean && f->max <= l->uneven_max_ratio * f->mean &&
           f->nnz >= l->uneven_min_nnz;
}

/* row lengths spread more than the mean */
static int cond_uneven(const gs_features *f, const select_limits *l)
{
    return f->std > l->uneven_cv * f->mean;
}

/* short rows of spread lengths, enough entries for a conversion's fixed cost */
static int cond_short_uneven(const gs_features *f, const select_limits *l)
{
    return f->mean < l->short_mean && f->std > l->short_cv * f->mean && f->nnz >= l->uneven_min_nnz;
}

/* few rows: every format costs about one launch */
static int cond_small(const gs_features *f, const select_limits *l)
{
    return f->rows < l->small_rows;
}

/* few (block) diagonals and little padding: a structured-grid matrix */
static int cond_structured(const gs_features *f, const select_limits *l)
{
    return f->nblockdiags >= 0 && f->nblockdiags <= l->cds_max_diags && f->cds_fill >= 0.0 &&
           f->cds_fill <= l->cds_max_fill && (!l->cds_block1 || f->block == 1);
}

/* long rows */
static int cond_long_rows(const gs_features *f, const select_limits *l)
{
    return f->mean >= l->long_mean;
}

static int cond_always(const gs_features *f, const select_limits *l)
{
    (void)f, (void)l;
    return 1;
}

#if GPU_CDS_BLOCK1
#define GPU_B1_TEXT " at block size 1"
#else
#define GPU_B1_TEXT ""
#endif
#if HOST_CDS_BLOCK1
#define HOST_B1_TEXT " at block size 1"
#else
#define HOST_B1_TEXT ""
#endif

#define UNEVEN(P) "uneven rows: std > " STR(P##_UNEVEN_CV) " x mean"
#define STRUCTURED(P)                                                                              \
    "structured: block diagonals <= " STR(P##_CDS_MAX_DIAGS) " and CDS fill <= " STR(              \
        P##_CDS_MAX_FILL) P##_B1_TEXT

static const select_rule RULES[] = {
    {GS_LOC_DEVICE, cond_uneven_small, GS_FORMAT_SURAA,
     UNEVEN(GPU) ", rows < " STR(GPU_UNEVEN_ROWS) ", nnz >= " STR(GPU_UNEVEN_MIN_NNZ)},
    {GS_LOC_DEVICE, cond_uneven_bounded, GS_FORMAT_CMRS,
     UNEVEN(GPU) ", max <= " STR(GPU_UNEVEN_MAX_RATIO) " x mean, nnz >= " STR(GPU_UNEVEN_MIN_NNZ)},
    {GS_LOC_DEVICE, cond_uneven, GS_FORMAT_CUSPARSE, UNEVEN(GPU)},
    {GS_LOC_DEVICE, cond_small, GS_FORMAT_CSR, "small: rows < " STR(GPU_SMALL_ROWS)},
    {GS_LOC_DEVICE, cond_short_uneven, GS_FORMAT_SURAA,
     "short uneven rows: mean < " STR(GPU_SHORT_MEAN) ", std > " STR(
         GPU_SHORT_UNEVEN_CV) " x mean, nnz >= " STR(GPU_UNEVEN_MIN_NNZ)},
    {GS_LOC_DEVICE, cond_structured, GS_FORMAT_CDS, STRUCTURED(GPU)},
    {GS_LOC_DEVICE, cond_long_rows, GS_FORMAT_CMRS, "long rows: mean >= " STR(GPU_LONG_MEAN)},
    {GS_LOC_DEVICE, cond_always, GS_FORMAT_CSR, "default"},
    {GS_LOC_HOST, cond_uneven, GS_FORMAT_SURAA, UNEVEN(HOST)},
    {GS_LOC_HOST, cond_small, GS_FORMAT_CSR, "small: rows < " STR(HOST_SMALL_ROWS)},
    {GS_LOC_HOST, cond_structured, GS_FORMAT_CDS, STRUCTURED(HOST)},
    {GS_LOC_HOST, cond_long_rows, GS_FORMAT_SURAA, "long rows: mean >= " STR(HOST_LONG_MEAN)},
    {GS_LOC_HOST, cond_always, GS_FORMAT_CSR, "default"},
};
#define NRULES ((int)(sizeof RULES / sizeof RULES[0]))

const char *gs_select_rule_row(int i, unsigned *locs, gs_format *format)
{
    if (i < 0 || i >= NRULES) return NULL;
    if (locs) *locs = 1u << RULES[i].loc;
    if (format) *format = RULES[i].format;
    return RULES[i].text;
}

/* the first row for loc whose condition holds (numbered among loc's rows) */
gs_format gs_select_rule(const gs_features *f, gs_loc loc, char *reason, size_t len)
{
    const select_limits *l = &LIMITS[loc == GS_LOC_DEVICE ? GS_LOC_DEVICE : GS_LOC_HOST];
    int n = 0;
    for (int i = 0; i < NRULES; i++) {
        if (RULES[i].loc != loc) continue;
        n++;
        if (!RULES[i].cond(f, l)) continue;
        if (reason && len)
            snprintf(reason, len,
                     "auto %s rule %d, %s (rows %lld mu %.3g sigma %.3g blockdiags %d fill %.3g)",
                     loc == GS_LOC_DEVICE ? "GPU" : "host", n, RULES[i].text, (long long)f->rows,
                     f->mean, f->std, (int)f->nblockdiags, f->cds_fill);
        return RULES[i].format;
    }
    if (reason && len) gs_str_copy(reason, len, "auto: no rule (csr)");
    return GS_FORMAT_CSR;
}

/* ---------------------------------------------------------------------------------------------
 * Features
 * ------------------------------------------------------------------------------------------- */

#define SET_SLOTS 512 /* a thread's set of offsets of one candidate (> 2 x the cap) */
#define SET_EMPTY 0xffffffffu

/* the distinct offsets of one candidate seen by one thread, up to cap + 1 */
typedef struct offset_set {
    uint32_t slot[SET_SLOTS];
    int32_t n;   /* > cap: saturated (the matrix has more) */
    int32_t cap; /* gs_feat_cap of the candidate (<= GS_CDS_MAX_DIAGS) */
} offset_set;

/* add u (an offset + nbr - 1) to set s, unless s is saturated (so it never fills up) */
static void set_add(offset_set *s, uint32_t u)
{
    uint32_t h = u; /* a full mix (offsets differing by 2^16 must not share a slot) */
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    if (s->n > s->cap) return;
    for (;; h++) {
        uint32_t *v = &s->slot[h & (SET_SLOTS - 1)];
        if (*v == u) return;
        if (*v == SET_EMPTY) {
            *v = u;
            s->n++;
            return;
        }
    }
}

/* the block offsets J - I of rows [r0, r1) of A at block size B into s, until it saturates */
#define COUNT_ROWS(B)                                                                              \
    for (int64_t i = r0; i < r1 && s->n <= s->cap; i++) {                                          \
        const uint32_t I = (uint32_t)i / (B);                                                      \
        for (int32_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)                                  \
            set_add(s, (uint32_t)A->colind[p] / (B) + shift - I);                                  \
    }

static void count_rows(const gs_csr *A, int b, int64_t r0, int64_t r1, offset_set *s)
{
    const uint32_t shift = (uint32_t)(A->rows / b - 1);
    switch (b) { /* constant divisors for the usual block sizes */
    case 1: COUNT_ROWS(1); break;
    case 2: COUNT_ROWS(2); break;
    case 3: COUNT_ROWS(3); break;
    case 4: COUNT_ROWS(4); break;
    default: COUNT_ROWS((uint32_t)b); break;
    }
}

/* the union of the nt threads' sets of candidate q: its count into s->k[q] and, when exact, its
 * offsets into s->off[q] (a set holds offset + shift) */
static void merge_sets(const offset_set *sets, int nt, int q, uint32_t shift, gs_feat_sums *s)
{
    offset_set merged;
    int n = 0;
    memset(merged.slot, 0xff, sizeof merged.slot);
    merged.n = 0;
    merged.cap = sets[q].cap;
    for (int t = 0; t < nt && merged.n <= merged.cap; t++) {
        const offset_set *set = &sets[(size_t)t * s->ncand + q];
        if (set->n > set->cap) merged.n = merged.cap + 1;
        for (int v = 0; v < SET_SLOTS && merged.n <= merged.cap; v++)
            if (set->slot[v] != SET_EMPTY) set_add(&merged, set->slot[v]);
    }
    s->k[q] = merged.n > merged.cap ? GS_CDS_MAX_DIAGS + 1 : merged.n;
    if (merged.n > merged.cap) return;
    for (int v = 0; v < SET_SLOTS; v++)
        if (merged.slot[v] != SET_EMPTY)
            s->off[q][n++] = (int32_t)((int64_t)merged.slot[v] - (int64_t)shift);
}

/* the pass over host A: row lengths and bandwidth; then, per thread and candidate, the distinct
 * block offsets of its rows in a small set, merged (the device pass's counting: exact up to
 * gs_feat_cap, like CDS's own detection, and "more" beyond); no speculative fill */
static gs_status sums_host(const gs_csr *A, gs_feat_sums *s, gs_cds_spec **spec)
{
    gs_status st = GS_OK;
    uint64_t len2 = 0;
    int64_t empty = 0, bw = 0;
    int32_t mn = INT32_MAX, mx = 0;
    offset_set *sets = NULL;
    int nt = 1;
    if (spec) *spec = NULL;
#pragma omp parallel for schedule(static) reduction(+ : len2, empty) reduction(min : mn)          \
    reduction(max : mx, bw)
    for (int64_t i = 0; i < A->rows; i++) {
        const int32_t len = A->rowptr[i + 1] - A->rowptr[i];
        len2 += (uint64_t)len * (uint64_t)len;
        empty += len == 0;
        mn = len < mn ? len : mn;
        mx = len > mx ? len : mx;
        for (int32_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            const int64_t d = A->colind[p] > i ? A->colind[p] - i : i - A->colind[p];
            bw = d > bw ? d : bw;
        }
    }
    s->len2 = len2, s->empty = empty, s->min = mn, s->max = mx, s->bandwidth = bw;
    if (A->nnz == 0) return GS_OK;
#ifdef _OPENMP
    nt = omp_get_max_threads();
#endif
    /* at most one task per 4096 entries, so small matrices do not pay for many sets */
    if ((int64_t)nt * 4096 > A->nnz) nt = (int)(A->nnz / 4096) + 1;
    GS_CHECK(gs_alloc_array((size_t)nt * (size_t)s->ncand, sizeof *sets, "feature offset sets",
                            (void **)&sets));
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int t = 0; t < nt; t++) {
        const int64_t r0 = A->rows * (int64_t)t / nt, r1 = A->rows * (int64_t)(t + 1) / nt;
        for (int q = 0; q < s->ncand; q++) {
            offset_set *set = &sets[(size_t)t * s->ncand + q];
            memset(set->slot, 0xff, sizeof set->slot);
            set->n = 0;
            set->cap = (int32_t)gs_feat_cap(A->rows, A->nnz, s->b[q]);
            count_rows(A, s->b[q], r0, r1, set);
        }
    }
    for (int q = 0; q < s->ncand; q++)
        merge_sets(sets, nt, q, (uint32_t)(A->rows / s->b[q] - 1), s);
done:
    gs_free(sets);
    return st;
}

/* the host makes no speculative fill: nothing adopted, nothing to free */
static double spec_adopted_seconds_host(const gs_cds_spec *spec)
{
    (void)spec;
    return 0.0;
}

static void spec_destroy_host(gs_cds_spec **spec)
{
    if (spec) *spec = NULL;
}

const gs_features_ops gs_features_host_ops = {
    .sums = sums_host,
    .spec_adopted_seconds = spec_adopted_seconds_host,
    .spec_destroy = spec_destroy_host,
};

/* the feature table for data at loc; NULL when that backend is not built or not started */
static const gs_features_ops *features_ops(gs_loc loc)
{
    return (const gs_features_ops *)gs_backend_module(loc, GS_MODULE_FEATURES);
}

/* the features from the pass's sums (the same arithmetic for both backends) */
static void from_sums(const gs_csr *A, const gs_feat_sums *s, gs_features *f)
{
    f->rows = A->rows, f->cols = A->cols, f->nnz = A->nnz;
    if (A->rows > 0) {
        f->mean = (double)A->nnz / A->rows;
        const double var = (double)s->len2 / A->rows - f->mean * f->mean;
        f->std = var > 0 ? sqrt(var) : 0.0;
        f->min = s->min, f->max = s->max;
        f->empty_share = (double)s->empty / A->rows;
    }
    f->bandwidth = s->bandwidth;
    f->block = 1;
    if (A->nnz == 0) { /* CDS takes it with no diagonals */
        f->ndiags = 0, f->nblockdiags = 0, f->cds_fill = 0.0;
        return;
    }
    /* b = 1 is always the first candidate (it divides everything) */
    f->ndiags = s->k[0] <= GS_FEAT_MAX_DIAGS ? (int32_t)s->k[0] : -1;
    const int best = gs_cds_best(A, s->ncand, s->b, s->k);
    if (best < 0) {
        f->nblockdiags = -1, f->cds_fill = -1.0;
        return;
    }
    f->block = s->b[best];
    f->nblockdiags = (int32_t)s->k[best];
    f->cds_fill = (double)s->k[best] * s->b[best] * (double)A->rows / (double)A->nnz - 1.0;
    memcpy(f->blockoff, s->off[best], (size_t)f->nblockdiags * sizeof *f->blockoff);
    qsort(f->blockoff, (size_t)f->nblockdiags, sizeof *f->blockoff, gs_cmp_i32);
}

/* the features of A; spec (may be NULL): a speculative CDS fill beside the pass where the
 * backend makes one (the device's) */
static gs_status features_with(const gs_csr *A, gs_features *f, gs_cds_spec **spec)
{
    gs_status st = GS_OK;
    gs_feat_sums s;
    const double t0 = gs_time_now();
    memset(f, 0, sizeof *f);
    memset(&s, 0, sizeof s);
    if (!A) return GS_ERROR(GS_ERR_ARG, "gs_features_compute: no matrix");
    GS_CHECK(gs_cds_candidates(A, NULL, s.b, &s.ncand));
    if (A->rows > 0) {
        const gs_features_ops *ops = features_ops(A->loc);
        if (!ops)
            GS_FAIL(GS_ERR_ARG, "gs_features_compute: the device backend is not initialised (or "
                                "this gsolve was built without CUDA)");
        GS_CHECK(ops->sums(A, &s, spec));
    }
    from_sums(A, &s, f);
    f->seconds = gs_time_now() - t0;
done:
    return st;
}

gs_status gs_features_compute(const gs_csr *A, gs_features *f)
{
    return features_with(A, f, NULL);
}

/* 1 when "auto" would pick CDS for A if A turned out a clean stencil at block size 1 (ceil(mean)
 * diagonals, rows of equal length): then a speculative fill beside the device feature pass is
 * worth its allocation (a small matrix, which the rules give to csr, gets none) */
static int stencil_would_be_cds(const gs_csr *A)
{
    gs_features h;
    char reason[8];
    if (A->rows <= 0 || A->nnz <= 0) return 0;
    memset(&h, 0, sizeof h);
    h.rows = A->rows, h.cols = A->cols, h.nnz = A->nnz;
    h.mean = (double)A->nnz / (double)A->rows;
    h.block = 1;
    h.nblockdiags = h.ndiags = (int32_t)((A->nnz + A->rows - 1) / A->rows);
    h.min = h.max = h.ndiags;
    h.cds_fill = (double)((int64_t)h.nblockdiags * A->rows - A->nnz) / (double)A->nnz;
    return gs_select_rule(&h, A->loc, reason, sizeof reason) == GS_FORMAT_CDS;
}

void gs_features_describe(const gs_features *f, char *buf, size_t len)
{
    char cols[48] = "";
    if (!len) return;
    if (f->cols != f->rows) snprintf(cols, sizeof cols, " cols %lld", (long long)f->cols);
    snprintf(buf, len,
             "rows %lld%s nnz %lld mu %.2f sigma %.2f min %d max %d empty %.1f%% diags %d block %d "
             "blockdiags %d fill %.3f bw %lld",
             (long long)f->rows, cols, (long long)f->nnz, f->mean, f->std, (int)f->min, (int)f->max,
             100.0 * f->empty_share, (int)f->ndiags, (int)f->block, (int)f->nblockdiags,
             f->cds_fill, (long long)f->bandwidth);
}

/* ---------------------------------------------------------------------------------------------
 * Selection
 * ------------------------------------------------------------------------------------------- */

#define MEASURE_SAMPLES 5      /* timed batches per candidate; the median is kept */
#define MEASURE_BATCH_S 100e-6 /* a batch runs SpMVs for at least this long ... */
#define MEASURE_MAX_BATCH 32   /* ... up to this many */

/* the entry of spmv.levels for `level` (the last one repeated) into word; 0 when the list is
 * empty. Entries are separated by commas; blanks, quotes and brackets around them are dropped. */
static int level_entry(const char *levels, int level, char *word, size_t len, int *index)
{
    int n = 0;
    char item[32];
    const char *p = levels;
    word[0] = '\0';
    if (!levels) return 0;
    while (*p) {
        const char *q = p;
        size_t w = 0;
        while (*q && *q != ',') q++;
        for (const char *c = p; c < q; c++)
            if (!strchr(" \t\"'[]", *c) && w + 1 < sizeof item) item[w++] = *c;
        item[w] = '\0';
        if (w > 0) {
            if (n <= level) gs_str_copy(word, len, item), *index = n;
            n++;
        }
        p = *q ? q + 1 : q;
    }
    return n > 0;
}

/* median seconds of one SpMV of M: two warm-up SpMVs set a batch size, then MEASURE_SAMPLES
 * batches, each followed by a sync */
static gs_status spmv_seconds(const gs_spmat *M, const gs_vec *x, gs_vec *y, double *out)
{
    gs_status st = GS_OK;
    const gs_backend_ops *ops = gs_backend_get(M->loc);
    double t[MEASURE_SAMPLES];
    double t0 = gs_time_now();
    GS_CHECK(gs_spmat_spmv(M, x, y));
    GS_CHECK(gs_spmat_spmv(M, x, y));
    GS_CHECK(ops->sync());
    const double warm = (gs_time_now() - t0) / 2;
    int batch = warm > 0 ? (int)ceil(MEASURE_BATCH_S / warm) : MEASURE_MAX_BATCH;
    batch = batch < 1 ? 1 : batch > MEASURE_MAX_BATCH ? MEASURE_MAX_BATCH : batch;
    for (int s = 0; s < MEASURE_SAMPLES; s++) {
        t0 = gs_time_now();
        for (int r = 0; r < batch; r++) GS_CHECK(gs_spmat_spmv(M, x, y));
        GS_CHECK(ops->sync());
        t[s] = (gs_time_now() - t0) / batch;
    }
    for (int a = 1; a < MEASURE_SAMPLES; a++) /* insertion sort of five */
        for (int b = a; b > 0 && t[b] < t[b - 1]; b--) {
            double tmp = t[b];
            t[b] = t[b - 1], t[b - 1] = tmp;
        }
    *out = t[MEASURE_SAMPLES / 2];
done:
    return st;
}

/* p for a conversion into format fmt of the matrix with features f: its longest row as a hint
 * (SURAA's device sort then does not look for it; it fails on a longer row); for CDS, the block
 * size the features found (so that CDS counts no other) and their block offsets as a hint (so that
 * it does not look for them again; it checks them while filling). A forced other block size, or a
 * hint already in p, is left alone. The hint borrows f->blockoff. */
static void hint_params(const gs_features *f, gs_format fmt, gs_format_params *p)
{
    if (p->hint_max_len <= 0) p->hint_max_len = f->max;
    if (fmt != GS_FORMAT_CDS) return;
    if (f->nblockdiags < 0 || (p->cds_block > 0 && p->cds_block != f->block)) return;
    p->cds_block = f->block;
    if (f->nblockdiags == 0 || p->cds_hint_off) return;
    p->cds_hint_block = f->block;
    p->cds_hint_ndiag = f->nblockdiags;
    p->cds_hint_off = f->blockoff;
}

/* "measure": every format that may hold A converted and timed, the fastest kept in *M */
static gs_status measure(const gs_csr *A, const gs_select_request *rq, const char *key,
                         gs_select_result *res, gs_spmat **M)
{
    gs_status st = GS_OK;
    gs_vec *x = NULL, *y = NULL;
    gs_spmat *cand = NULL;
    double t[GS_FORMAT_COUNT], best_t = HUGE_VAL;
    int refused[GS_FORMAT_COUNT] = {0}, order[GS_FORMAT_COUNT], n = 0;
    const double t0 = gs_time_now();
    GS_CHECK(gs_vec_create(A->cols, A->loc, &x));
    GS_CHECK(gs_vec_create(A->rows, A->loc, &y));
    GS_CHECK(gs_vec_fill(1.0, x));
    for (int f = 0; f < GS_FORMAT_COUNT; f++) {
        t[f] = NAN;
        if (f == GS_FORMAT_CUSPARSE && A->loc != GS_LOC_DEVICE) continue;
        if (f == GS_FORMAT_CDS && rq->params.cds_block <= 0 &&
            (res->feat.cds_fill > rq->params.cds_max_fill ||
             (res->feat.cds_fill < 0.0 && rq->params.cds_max_fill <= GS_FEAT_FILL_MAX))) {
            refused[f] = 1; /* the features say CDS would refuse: not converted */
            continue;
        }
        gs_format_params p = rq->params;
        hint_params(&res->feat, (gs_format)f, &p);
        p.cds_prefill = NULL; /* only "auto" makes one (and passes its own) */
        st = gs_spmat_create(A, (gs_format)f, &p, &cand);
        if (st == GS_ERR_UNSUPPORTED) {
            gs_error_clear();
            st = GS_OK;
            refused[f] = 1;
            continue;
        }
        GS_CHECK(st);
        GS_CHECK(spmv_seconds(cand, x, y, &t[f]));
        order[n++] = f;
        if (t[f] < best_t) {
            best_t = t[f];
            res->format = (gs_format)f;
            res->convert_s = cand->convert_s;
            gs_spmat_destroy(M);
            *M = cand;
        } else {
            gs_spmat_destroy(&cand);
        }
        cand = NULL;
    }
    for (int a = 1; a < n; a++) /* the candidates by time */
        for (int b = a; b > 0 && t[order[b]] < t[order[b - 1]]; b--) {
            int tmp = order[b];
            order[b] = order[b - 1], order[b - 1] = tmp;
        }
    {
        size_t w = (size_t)snprintf(res->reason, sizeof res->reason,
                                    "%s%smeasured (us):", strcmp(key, "spmv.format") ? key : "",
                                    strcmp(key, "spmv.format") ? " = measure, " : "");
        for (int a = 0; a < n && w < sizeof res->reason; a++)
            w += (size_t)snprintf(res->reason + w, sizeof res->reason - w, " %s %.3g",
                                  gs_format_name((gs_format)order[a]), 1e6 * t[order[a]]);
        for (int f = 0; f < GS_FORMAT_COUNT && w < sizeof res->reason; f++)
            if (refused[f])
                w += (size_t)snprintf(res->reason + w, sizeof res->reason - w, ", %s refused",
                                      gs_format_name((gs_format)f));
    }
    if (!*M) GS_FAIL(GS_ERR_INTERNAL, "measure: no format held the matrix, not even csr");
done:
    res->measure_s = gs_time_now() - t0;
    gs_spmat_destroy(&cand);
    gs_vec_destroy(&x);
    gs_vec_destroy(&y);
    return st;
}

/* the format that `word` (from `key`) asks for, or an error naming the key */
static gs_status forced_format(const char *word, const char *key, gs_loc loc, gs_format *f)
{
    if (gs_format_parse(word, f) != GS_OK) {
        gs_error_clear();
        return GS_ERROR(GS_ERR_CONFIG,
                        "%s = \"%s\": unknown SpMV format (expected auto, measure, csr, cusparse, "
                        "cmrs, suraa or cds)",
                        key, word);
    }
    if (*f == GS_FORMAT_CUSPARSE && loc != GS_LOC_DEVICE)
        return GS_ERROR(GS_ERR_CONFIG,
                        "%s = \"cusparse\" runs on the GPU only, and this matrix is on the host",
                        key);
    return GS_OK;
}

void gs_select_reason_append(char *buf, size_t cap, const char *text)
{
    size_t w = strlen(buf), n = strlen(text), cut;
    if (w + n < cap) {
        memcpy(buf + w, text, n + 1);
        return;
    }
    if (cap < w + 5) return; /* not even " ..." fits */
    for (cut = cap - w - 5; cut > 0 && text[cut] != ' '; cut--) {
    }
    memcpy(buf + w, text, cut);
    memcpy(buf + w + cut, " ...", 5);
}

/* *M = A in format f; a refusal falls back to csr and the reason says so */
static gs_status convert(const gs_csr *A, gs_format f, const gs_format_params *p, gs_spmat **M,
                         gs_select_result *res)
{
    gs_status st = GS_OK;
    const double t0 = gs_time_now();
    st = gs_spmat_create(A, f, p, M);
    if (st == GS_ERR_UNSUPPORTED && f != GS_FORMAT_CSR) {
        char head[64];
        snprintf(head, sizeof head, "; %s refused, csr runs: ", gs_format_name(f));
        gs_select_reason_append(res->reason, sizeof res->reason, head);
        gs_select_reason_append(res->reason, sizeof res->reason, gs_error_message());
        gs_error_clear();
        f = GS_FORMAT_CSR;
        res->fell_back = 1;
        st = gs_spmat_create(A, f, p, M);
    }
    GS_CHECK(st);
    res->format = f;
    res->convert_s = gs_time_now() - t0; /* a refused attempt included */
done:
    return st;
}

gs_status gs_select_spmat(const gs_csr *A, int level, const gs_select_request *rq, gs_spmat **M,
                          gs_select_result *res)
{
    gs_status st = GS_OK;
    char word[32], key[48];
    int index = 0;
    gs_format f = GS_FORMAT_CSR;
    gs_cds_spec *spec = NULL; /* made by the device feature pass only */
    const gs_features_ops *fops = NULL;
    *M = NULL;
    memset(res, 0, sizeof *res);
    if (!A || !rq) return GS_ERROR(GS_ERR_ARG, "gs_select_spmat: no matrix or no request");
    fops = features_ops(A->loc); /* (NULL: the feature pass below fails) */
    if (level_entry(rq->levels, level < 0 ? 0 : level, word, sizeof word, &index)) {
        snprintf(key, sizeof key, "spmv.levels[%d]", index);
    } else {
        gs_str_copy(word, sizeof word, rq->format && *rq->format ? rq->format : "auto");
        gs_str_copy(key, sizeof key, "spmv.format");
    }
    /* a wrong name fails before any work */
    if (strcmp(word, "auto") != 0 && strcmp(word, "measure") != 0)
        GS_CHECK(forced_format(word, key, A->loc, &f));
    /* "auto" on the device: where a stencil would go to CDS, its fill is queued behind the
     * feature pass (one wait for both; taken below when the rules pick CDS at block size 1) */
    GS_CHECK(features_with(A, &res->feat,
                           A->loc == GS_LOC_DEVICE && strcmp(word, "auto") == 0 &&
                                   rq->params.cds_block <= 1 && !rq->params.cds_hint_off &&
                                   stencil_would_be_cds(A)
                               ? &spec
                               : NULL));
    res->feature_s = res->feat.seconds;
    if (strcmp(word, "measure") == 0) {
        GS_CHECK(measure(A, rq, key, res, M));
        return GS_OK;
    }
    if (strcmp(word, "auto") == 0) {
        size_t w = 0;
        if (strcmp(key, "spmv.format") != 0)
            w = (size_t)snprintf(res->reason, sizeof res->reason, "%s = auto: ", key);
        f = gs_select_rule(&res->feat, A->loc, res->reason + w, sizeof res->reason - w);
    } else {
        snprintf(res->reason, sizeof res->reason, "forced by %s", key);
    }
    {
        gs_format_params p = rq->params;
        hint_params(&res->feat, f, &p);
        p.cds_prefill = spec;
        GS_CHECK(convert(A, f, &p, M, res));
    }
    { /* an adopted speculative fill ran inside the feature pass's wait: its GPU time is the
       * conversion's */
        const double t = fops ? fops->spec_adopted_seconds(spec) : 0.0;
        const double moved = t < res->feature_s ? t : res->feature_s;
        res->feature_s -= moved, res->feat.seconds -= moved, res->convert_s += moved;
    }
done:
    if (fops) fops->spec_destroy(&spec);
    if (st != GS_OK) gs_spmat_destroy(M);
    return st;
}

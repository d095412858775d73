/* gs_suraa.c: the SURAA format on the host (the reference) and the plan shared with the
 * device: sorting order, Freedman-Diaconis segments, groups G1-G3 (gs_suraa.h). */
#include "gs_suraa.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int32_t gs_suraa_segment_size(int64_t m, int32_t iqr)
{
    if (m <= 0 || iqr <= 0) return 1;
    /* the 1e-9 keeps an exact quotient (e.g. 12 / cbrt(27)) from rounding up past itself */
    double s = ceil(2.0 * (double)iqr / cbrt((double)m) - 1e-9);
    if (s < 1.0) return 1;
    return s > (double)m ? (int32_t)m : (int32_t)s;
}

void gs_suraa_quartiles(int64_t m, int64_t *hi, int64_t *lo)
{
    *hi = m / 4;
    *lo = (3 * m) / 4;
    if (*lo > m - 1) *lo = m - 1;
}

int gs_suraa_class(double mean)
{
    if (!(mean >= (double)GS_SURAA_WARP)) return 0;
    double k = ceil(mean / 64.0);
    return k > 32.0 ? 32 : (k < 1.0 ? 1 : (int)k);
}

int gs_suraa_lanes_log2(double mean)
{
    int l = 1;
    if (!(mean > 2.0)) return 0;
    while (l < GS_SURAA_LANE_CLASSES - 1 && (double)(4 << l) < mean) l++;
    return l;
}

int gs_suraa_bin(double mean)
{
    if (mean >= (double)GS_SURAA_G1_LEN) return GS_SURAA_BIN_LONG;
    if (gs_suraa_class(mean) == 0) return GS_SURAA_BIN_LANES + gs_suraa_lanes_log2(mean);
    return -1;
}

/* runs of consecutive segments [a, b) per bin, bins visited in `order` (n of them, the order
 * the segments fall in), segments before `from` left out; threads of bin i = thr[i] */
static int make_runs(const gs_suraa *M, const int64_t *count, const int *order, const int *thr,
                     int n, int64_t a, int64_t from, gs_suraa_run *runs)
{
    const int64_t S = M->seg_size, m = M->rows;
    int nr = 0;
    for (int i = 0; i < n; i++) {
        int64_t b = a + count[order[i]], lo = a > from ? a : from;
        int64_t r0 = lo * S, r1 = b * S < m ? b * S : m;
        if (lo < b && r0 < r1) {
            runs[nr].begin = (int32_t)r0;
            runs[nr].end = (int32_t)r1;
            runs[nr].threads = thr[i];
            nr++;
        }
        a = b;
    }
    return nr;
}

/* groups of consecutive segments: G1 the longest (sec. 4.1 with max_child_threads, else the
 * segments of mean >= GS_SURAA_G1_LEN), G2 the rest of mean >= 32 cut into runs of equal Y,
 * G3 the segments of mean < 32 cut into runs of equal L */
void gs_suraa_plan_groups(gs_suraa *M, const int64_t count[GS_SURAA_BINS],
                          const gs_format_params *p)
{
    const int64_t S = M->seg_size, m = M->rows;
    int64_t nge = 0, n1;
    int order[GS_SURAA_CLASSES], thr[GS_SURAA_CLASSES];
    for (int k = 1; k < GS_SURAA_CLASSES; k++) nge += count[k];
    int64_t rows_ge = nge * S < m ? nge * S : m;
    int64_t cap = p->suraa_max_child_threads > 0 ? p->suraa_max_child_threads : GS_SURAA_POOL_BIG;
    n1 = p->suraa_max_child_threads > 0 ? nge : count[GS_SURAA_BIN_LONG];
    n1 = cap / S < n1 ? cap / S : n1; /* whole segments only */
    M->max_child = (int32_t)(cap < INT32_MAX ? cap : INT32_MAX);
    M->g1_end = (int32_t)(n1 * S < m ? n1 * S : m);
    M->g2_end = (int32_t)rows_ge;
    for (int i = 0; i < GS_SURAA_CLASSES - 1; i++) { /* classes 32 .. 1 */
        order[i] = GS_SURAA_CLASSES - 1 - i;
        thr[i] = 32 * order[i];
    }
    M->nruns = make_runs(M, count, order, thr, GS_SURAA_CLASSES - 1, 0, n1, M->runs);
    for (int i = 0; i < GS_SURAA_LANE_CLASSES; i++) { /* L = 32 .. 1 */
        order[i] = GS_SURAA_BIN_LANES + GS_SURAA_LANE_CLASSES - 1 - i;
        thr[i] = 1 << (GS_SURAA_LANE_CLASSES - 1 - i);
    }
    M->ng3 = make_runs(M, count, order, thr, GS_SURAA_LANE_CLASSES, nge, nge, M->g3);
}

void gs_suraa_plan_g1(gs_suraa *M, const gs_format_params *p, int32_t g1_min_len)
{
    M->g1_dynamic = 0;
    M->g1_threads = 0;
    if (M->g1_end == 0) return;
    double mean = (double)M->g1_nnz / (double)M->g1_end;
    int t = 32 * (int)ceil(ceil(mean / 2.0) / 32.0);
    M->g1_threads = t < 64 ? 64 : (t > 1024 ? 1024 : t);
    if (p->suraa_g1_dynamic >= 0)
        M->g1_dynamic = p->suraa_g1_dynamic > 0;
    else
        M->g1_dynamic = M->g1_end <= GS_SURAA_DP_ROWS && g1_min_len >= GS_SURAA_DP_LEN;
}

/* perm = rows by (length desc, first column asc, row asc): two stable counting sorts, by
 * first column and then by length, so equal keys keep the row order */
gs_status gs_suraa_sort_rows(const gs_csr *A, int32_t *perm)
{
    gs_status st = GS_OK;
    const int32_t m = A->rows;
    int32_t maxlen = 0, *tmp = NULL;
    int64_t *cnt = NULL;
    if (m == 0) return GS_OK;
    for (int32_t i = 0; i < m; i++) {
        int32_t l = A->rowptr[i + 1] - A->rowptr[i];
        maxlen = l > maxlen ? l : maxlen;
    }
    int64_t nb = (int64_t)(A->cols > maxlen ? A->cols : maxlen) + 2;
    GS_CHECK(gs_alloc_array((size_t)m, sizeof *tmp, "SURAA sort", (void **)&tmp));
    GS_CHECK(gs_alloc_array((size_t)nb, sizeof *cnt, "SURAA sort counts", (void **)&cnt));
    memset(cnt, 0, (size_t)nb * sizeof *cnt);
    for (int32_t i = 0; i < m; i++) { /* by first column */
        int32_t fc = A->rowptr[i + 1] > A->rowptr[i] ? A->colind[A->rowptr[i]] : 0;
        cnt[fc + 1]++;
    }
    for (int64_t b = 1; b < nb; b++) cnt[b] += cnt[b - 1];
    for (int32_t i = 0; i < m; i++) {
        int32_t fc = A->rowptr[i + 1] > A->rowptr[i] ? A->colind[A->rowptr[i]] : 0;
        tmp[cnt[fc]++] = i;
    }
    memset(cnt, 0, (size_t)nb * sizeof *cnt);
    for (int32_t i = 0; i < m; i++) cnt[maxlen - (A->rowptr[i + 1] - A->rowptr[i]) + 1]++;
    for (int64_t b = 1; b < nb; b++) cnt[b] += cnt[b - 1];
    for (int32_t q = 0; q < m; q++) { /* by length, descending, stable */
        int32_t i = tmp[q];
        perm[cnt[maxlen - (A->rowptr[i + 1] - A->rowptr[i])]++] = i;
    }
done:
    gs_free(tmp);
    gs_free(cnt);
    return st;
}

static void destroy(void *Mv)
{
    gs_suraa *M = (gs_suraa *)Mv;
    if (!M) return;
    gs_free(M->perm);
    gs_free(M->rowptr);
    gs_free(M->colind);
    gs_free(M->val);
    gs_free(M);
}

/* segment size, class counts, groups and G1 kernel of M (sorted rowptr set) */
static void plan(gs_suraa *M, const gs_format_params *p)
{
    int64_t count[GS_SURAA_BINS] = {0}, hi, lo;
    const int32_t *rp = M->rowptr;
    M->iqr = 0;
    if (M->rows > 0) {
        gs_suraa_quartiles(M->rows, &hi, &lo);
        M->iqr = (rp[hi + 1] - rp[hi]) - (rp[lo + 1] - rp[lo]);
    }
    M->seg_size = gs_suraa_segment_size(M->rows, M->iqr);
    M->nseg = (int32_t)(((int64_t)M->rows + M->seg_size - 1) / M->seg_size);
    for (int64_t s = 0; s < M->nseg; s++) {
        int64_t b = s * M->seg_size, e = b + M->seg_size < M->rows ? b + M->seg_size : M->rows;
        double mean = (double)(rp[e] - rp[b]) / (double)(e - b);
        int bin = gs_suraa_bin(mean);
        count[gs_suraa_class(mean)]++;
        if (bin >= 0) count[bin]++;
    }
    gs_suraa_plan_groups(M, count, p);
    M->g1_nnz = rp[M->g1_end];
    M->g2_nnz = rp[M->g2_end] - rp[M->g1_end];
    gs_suraa_plan_g1(M, p, M->g1_end > 0 ? rp[M->g1_end] - rp[M->g1_end - 1] : 0);
}

/* host CSR -> SURAA: sort the rows, rearrange the data in sorted order, plan the groups */
static gs_status from_csr(const gs_csr *A, const gs_format_params *p, void **out)
{
    gs_status st = GS_OK;
    gs_suraa *M = NULL;
    *out = NULL;
    if (A->loc != GS_LOC_HOST) return GS_ERROR(GS_ERR_ARG, "suraa (host): a device matrix");
    GS_CHECK(gs_alloc_array(1, sizeof *M, "SURAA matrix", (void **)&M));
    memset(M, 0, sizeof *M);
    M->rows = A->rows, M->cols = A->cols, M->nnz = A->nnz, M->loc = GS_LOC_HOST;
    GS_CHECK(gs_alloc_array((size_t)A->rows + 1, sizeof(int32_t), "SURAA perm", (void **)&M->perm));
    GS_CHECK(
        gs_alloc_array((size_t)A->rows + 1, sizeof(int32_t), "SURAA rowptr", (void **)&M->rowptr));
    GS_CHECK(
        gs_alloc_array((size_t)A->nnz + 1, sizeof(int32_t), "SURAA columns", (void **)&M->colind));
    GS_CHECK(gs_alloc_array((size_t)A->nnz + 1, sizeof(double), "SURAA values", (void **)&M->val));
    GS_CHECK(gs_suraa_sort_rows(A, M->perm));
    M->rowptr[0] = 0;
    for (int32_t q = 0; q < A->rows; q++) {
        int32_t i = M->perm[q], l = A->rowptr[i + 1] - A->rowptr[i];
        M->rowptr[q + 1] = M->rowptr[q] + l;
        M->max_len = l > M->max_len ? l : M->max_len;
    }
#pragma omp parallel for schedule(dynamic, 1024)
    for (int32_t q = 0; q < A->rows; q++) {
        int32_t i = M->perm[q], l = M->rowptr[q + 1] - M->rowptr[q];
        memcpy(M->colind + M->rowptr[q], A->colind + A->rowptr[i], (size_t)l * sizeof(int32_t));
        memcpy(M->val + M->rowptr[q], A->val + A->rowptr[i], (size_t)l * sizeof(double));
    }
    plan(M, p);
    *out = M;
    M = NULL;
done:
    destroy(M);
    return st;
}

/* back to CSR: row lengths at the original rows, their prefix sum, the rows copied back */
static gs_status to_csr(const void *Mv, gs_csr **out)
{
    gs_status st = GS_OK;
    const gs_suraa *M = (const gs_suraa *)Mv;
    gs_csr *A = NULL;
    *out = NULL;
    GS_CHECK(gs_csr_create(M->rows, M->cols, M->nnz, &A));
    A->rowptr[0] = 0;
    for (int32_t q = 0; q < M->rows; q++)
        A->rowptr[M->perm[q] + 1] = M->rowptr[q + 1] - M->rowptr[q];
    for (int32_t i = 0; i < M->rows; i++) A->rowptr[i + 1] += A->rowptr[i];
#pragma omp parallel for schedule(dynamic, 1024)
    for (int32_t q = 0; q < M->rows; q++) {
        int32_t i = M->perm[q], l = M->rowptr[q + 1] - M->rowptr[q];
        memcpy(A->colind + A->rowptr[i], M->colind + M->rowptr[q], (size_t)l * sizeof(int32_t));
        memcpy(A->val + A->rowptr[i], M->val + M->rowptr[q], (size_t)l * sizeof(double));
    }
    *out = A;
    A = NULL;
done:
    gs_csr_destroy(&A);
    return st;
}

/* y[perm[q]] = sum_k val[k] x[col[k]] over sorted row q (the CSR order within the row, so
 * the sums equal the CSR ones); chunks of sorted rows handed out dynamically, since the
 * long rows all sit at the front */
static gs_status spmv(const void *Mv, const double *x, double *y)
{
    const gs_suraa *M = (const gs_suraa *)Mv;
    const int32_t *rp = M->rowptr, *ci = M->colind, *perm = M->perm;
    const double *v = M->val;
#pragma omp parallel for schedule(dynamic, 256)
    for (int32_t q = 0; q < M->rows; q++) {
        double s = 0.0;
        for (int32_t k = rp[q]; k < rp[q + 1]; k++) s += v[k] * x[ci[k]];
        y[perm[q]] = s;
    }
    return GS_OK;
}

double gs_suraa_bytes(const gs_suraa *M)
{
    return 12.0 * M->nnz + 4.0 * ((double)M->rows + 1) + 4.0 * M->rows + 8.0 * M->rows +
           8.0 * M->cols;
}

void gs_suraa_describe(const gs_suraa *M, char *buf, size_t len)
{
    char lanes[64] = "";
    size_t o = 0;
    for (int r = 0; r < M->ng3 && o + 4 < sizeof lanes; r++)
        o += (size_t)snprintf(lanes + o, sizeof lanes - o, "%s%d", r ? "," : "", M->g3[r].threads);
    snprintf(buf, len, "segment %d rows; G1 %d rows, G2 %d (%d runs), G3 %d (lanes %s); G1 %s",
             M->seg_size, M->g1_end, M->g2_end - M->g1_end, M->nruns, M->rows - M->g2_end,
             M->ng3 ? lanes : "-", M->g1_dynamic ? "dynamic" : "block per row");
}

static double bytes(const void *M)
{
    return gs_suraa_bytes((const gs_suraa *)M);
}

static void describe(const void *M, char *buf, size_t len)
{
    gs_suraa_describe((const gs_suraa *)M, buf, len);
}

const gs_format_ops gs_suraa_host_ops = {"suraa", from_csr, to_csr, spmv, bytes, describe, destroy};

/* test_cuda_parity.c: every operation of the CUDA backend against the host reference on fresh
 * random data (ggml's test-backend-ops idea): transfers, fill, copy, axpby, pmul, dots,
 * cg_update, all_finite; both device SpMVs (cuSPARSE and the own vector kernel) against
 * gs_csr_spmv_host on generated and hand-made matrices; out of GPU memory; init rules; and
 * leak-free teardown. Exits 77 (skipped) without a CUDA device. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_csr.h"
#include "gs_gen.h"
#include "gs_mem.h"
#include "gs_test.h"
#include "gs_vec.h"

#define TOL 1e-13 /* relative error allowed where the summation order may differ */
#define NLEN 5
static const int64_t lengths[NLEN] = {0, 1, 31, 1000, 1000003};

static const gs_backend_ops *D; /* the device backend */
static uint64_t g_seed = 1000;  /* every vector gets fresh values */

/* a host vector and a device vector holding the same random values */
typedef struct pair {
    gs_vec *h, *d;
} pair;

static void die(const char *what)
{
    fprintf(stderr, "test_cuda_parity: cannot go on: %s: %s (%s)\n", what, gs_error_message(),
            gs_error_trace_str());
    exit(1);
}

static double *xmalloc(int64_t n)
{
    double *p = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!p) die("malloc");
    return p;
}

static pair make_pair(int64_t n)
{
    pair p = {NULL, NULL};
    if (gs_vec_create(n, GS_LOC_HOST, &p.h) != GS_OK) die("host vector");
    if (gs_vec_create(n, GS_LOC_DEVICE, &p.d) != GS_OK) die("device vector");
    gs_gen_random_vector(g_seed++, p.h->data, n);
    if (gs_vec_set_host(p.d, p.h->data) != GS_OK) die("set_host");
    return p;
}

static void free_pair(pair *p)
{
    gs_vec_destroy(&p->h);
    gs_vec_destroy(&p->d);
}

/* the device vector's values in a fresh malloc'd array */
static double *download(const gs_vec *d)
{
    double *v = xmalloc(d->n);
    CHECK_OK(gs_vec_get_host(d, v));
    return v;
}

/* ||a - b|| / ||b|| (the absolute norm when b is 0) */
static double rel_err(const double *a, const double *b, int64_t n)
{
    double num = 0.0, den = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double d = a[i] - b[i];
        num += d * d;
        den += b[i] * b[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* compare device vector d with host vector h: relative error (returned) within TOL */
static double compare(const gs_vec *d, const gs_vec *h, const char *what, int64_t n)
{
    double *v = download(d);
    double e = rel_err(v, h->data, n);
    CHECK_MSG(e <= TOL, "%s, n = %lld: relative error %.3g", what, (long long)n, e);
    free(v);
    return e;
}

/* device vector d equals host array h bit for bit */
static int same_bits(const gs_vec *d, const double *h)
{
    double *v = download(d);
    int same = memcmp(v, h, (size_t)d->n * sizeof(double)) == 0;
    free(v);
    return same;
}

/* set/get round trip, source reuse right after set, fill, copy: all exact */
static void test_transfers(void)
{
    for (int t = 0; t < NLEN; t++) {
        int64_t n = lengths[t];
        pair x = make_pair(n), y = make_pair(n);
        double *keep = xmalloc(n), *buf = xmalloc(n);
        memcpy(keep, x.h->data, (size_t)n * sizeof(double));
        CHECK_MSG(same_bits(x.d, keep), "set/get round trip, n = %lld", (long long)n);
        /* set_host must be done with its source on return */
        memcpy(buf, keep, (size_t)n * sizeof(double));
        CHECK_OK(gs_vec_set_host(y.d, buf));
        for (int64_t i = 0; i < n; i++) buf[i] = -7.0;
        CHECK_MSG(same_bits(y.d, keep), "set_host source reused at once, n = %lld", (long long)n);
        CHECK_OK(gs_vec_fill(3.25, x.d));
        for (int64_t i = 0; i < n; i++) buf[i] = 3.25;
        CHECK_MSG(same_bits(x.d, buf), "fill, n = %lld", (long long)n);
        CHECK_OK(gs_vec_copy(y.d, x.d));
        CHECK_MSG(same_bits(x.d, keep), "copy, n = %lld", (long long)n);
        CHECK_OK(gs_vec_copy(x.d, x.d)); /* self copy is a no-op */
        CHECK_MSG(same_bits(x.d, keep), "self copy, n = %lld", (long long)n);
        free(keep);
        free(buf);
        free_pair(&x);
        free_pair(&y);
    }
    printf("transfers: set/get round trip, source reuse, fill, copy exact at %d lengths\n", NLEN);
}

/* y = a x + b y for the host's special cases b == 0 (y not read: NaN in y must vanish), b == 1,
 * general b, and aliasing x == y (scal) */
static void test_axpby(void)
{
    static const double ab[][2] = {{1.5, 0.0}, {-0.75, 1.0}, {0.3, -2.1}, {0.0, 0.0}};
    double worst = 0.0;
    for (int t = 0; t < NLEN; t++) {
        int64_t n = lengths[t];
        for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++) {
            pair x = make_pair(n), y = make_pair(n);
            if (ab[c][1] == 0.0) { /* plant garbage that b == 0 must not read */
                for (int64_t i = 0; i < n; i++) y.h->data[i] = NAN;
                CHECK_OK(gs_vec_set_host(y.d, y.h->data));
            }
            CHECK_OK(gs_vec_axpby(ab[c][0], x.h, ab[c][1], y.h));
            CHECK_OK(gs_vec_axpby(ab[c][0], x.d, ab[c][1], y.d));
            double e = compare(y.d, y.h, "axpby", n);
            worst = e > worst ? e : worst;
            if (ab[c][1] == 0.0) {
                double *v = download(y.d);
                int finite = 1;
                for (int64_t i = 0; i < n; i++) finite &= isfinite(v[i]) != 0;
                CHECK_MSG(finite, "axpby with b = 0 let NaN in y through, n = %lld", (long long)n);
                free(v);
            }
            /* aliasing: x = 2 x + b x, and scal */
            CHECK_OK(gs_vec_axpby(2.0, x.h, ab[c][1], x.h));
            CHECK_OK(gs_vec_axpby(2.0, x.d, ab[c][1], x.d));
            e = compare(x.d, x.h, "axpby x == y", n);
            worst = e > worst ? e : worst;
            CHECK_OK(gs_vec_scal(ab[c][0], x.h));
            CHECK_OK(gs_vec_scal(ab[c][0], x.d));
            e = compare(x.d, x.h, "scal", n);
            worst = e > worst ? e : worst;
            free_pair(&x);
            free_pair(&y);
        }
    }
    printf("axpby: b = 0 / 1 / general / aliased / scal at %d lengths, max rel err %.2g\n", NLEN,
           worst);
}

/* y = d .* x */
static void test_pmul(void)
{
    double worst = 0.0;
    for (int t = 0; t < NLEN; t++) {
        int64_t n = lengths[t];
        pair d = make_pair(n), x = make_pair(n), y = make_pair(n);
        CHECK_OK(gs_vec_pmul(d.h, x.h, y.h));
        CHECK_OK(gs_vec_pmul(d.d, x.d, y.d));
        double e = compare(y.d, y.h, "pmul", n);
        worst = e > worst ? e : worst;
        CHECK_OK(gs_vec_pmul(d.h, x.h, x.h)); /* in place */
        CHECK_OK(gs_vec_pmul(d.d, x.d, x.d));
        e = compare(x.d, x.h, "pmul in place", n);
        worst = e > worst ? e : worst;
        free_pair(&d);
        free_pair(&x);
        free_pair(&y);
    }
    printf("pmul: %d lengths, max rel err %.2g\n", NLEN, worst);
}

/* sum |x_i y_i| on the host: the scale a dot product's rounding error is measured against */
static double abs_dot(const gs_vec *x, const gs_vec *y)
{
    double s = 0.0;
    for (int64_t i = 0; i < x->n; i++) s += fabs(x->data[i] * y->data[i]);
    return s;
}

/* k = 1..4 fused dots, with aliased pairs, against the host; bitwise repeatable; dot, nrm2 */
static void test_dots(void)
{
    double worst = 0.0;
    for (int t = 0; t < NLEN; t++) {
        int64_t n = lengths[t];
        pair v[4];
        for (int i = 0; i < 4; i++) v[i] = make_pair(n);
        /* pair sets: distinct vectors, then aliasing (x.x, y.x, a vector used twice) */
        const int sets[2][4][2] = {{{0, 1}, {2, 3}, {1, 2}, {3, 0}},
                                   {{0, 0}, {1, 0}, {2, 2}, {0, 1}}};
        for (int s = 0; s < 2; s++)
            for (int k = 1; k <= GS_MAX_DOTS; k++) {
                const gs_vec *xh[GS_MAX_DOTS], *yh[GS_MAX_DOTS], *xd[GS_MAX_DOTS], *yd[GS_MAX_DOTS];
                double rh[GS_MAX_DOTS], rd[GS_MAX_DOTS], rd2[GS_MAX_DOTS];
                for (int j = 0; j < k; j++) {
                    xh[j] = v[sets[s][j][0]].h, yh[j] = v[sets[s][j][1]].h;
                    xd[j] = v[sets[s][j][0]].d, yd[j] = v[sets[s][j][1]].d;
                }
                CHECK_OK(gs_vec_dots(k, xh, yh, rh));
                CHECK_OK(gs_vec_dots(k, xd, yd, rd));
                CHECK_OK(gs_vec_dots(k, xd, yd, rd2));
                CHECK_MSG(memcmp(rd, rd2, (size_t)k * sizeof(double)) == 0,
                          "dots not repeatable bit for bit, n = %lld k = %d", (long long)n, k);
                for (int j = 0; j < k; j++) {
                    double scale = abs_dot(xh[j], yh[j]), err = fabs(rd[j] - rh[j]);
                    double rel = scale > 0 ? err / scale : err;
                    CHECK_MSG(err <= TOL * scale, "dots n = %lld k = %d pair %d: %.17g vs %.17g",
                              (long long)n, k, j, rd[j], rh[j]);
                    worst = rel > worst ? rel : worst;
                }
            }
        double dh = 0.0, dd = 0.0, nh = 0.0, nd = 0.0;
        CHECK_OK(gs_vec_dot(v[0].h, v[1].h, &dh));
        CHECK_OK(gs_vec_dot(v[0].d, v[1].d, &dd));
        CHECK_MSG(fabs(dd - dh) <= TOL * abs_dot(v[0].h, v[1].h), "dot n = %lld: %.17g vs %.17g",
                  (long long)n, dd, dh);
        CHECK_OK(gs_vec_nrm2(v[2].h, &nh));
        CHECK_OK(gs_vec_nrm2(v[2].d, &nd));
        CHECK_NEAR(nd, nh, TOL);
        for (int i = 0; i < 4; i++) free_pair(&v[i]);
    }
    printf("dots: k = 1..%d, distinct and aliased pairs, repeatable, dot, nrm2 at %d lengths, "
           "max err / sum|x y| %.2g\n",
           GS_MAX_DOTS, NLEN, worst);
}

/* CG's fused update, with u distinct from r and with u aliasing r */
static void test_cg_update(void)
{
    double worst = 0.0;
    for (int t = 0; t < NLEN; t++) {
        int64_t n = lengths[t];
        for (int alias = 0; alias < 2; alias++) {
            pair u = make_pair(n), w = make_pair(n), p = make_pair(n), s = make_pair(n);
            pair x = make_pair(n), r = make_pair(n);
            const gs_vec *uh = alias ? r.h : u.h, *ud = alias ? r.d : u.d;
            CHECK_OK(gs_vec_cg_update(0.37, -1.25, uh, w.h, p.h, s.h, x.h, r.h));
            CHECK_OK(gs_vec_cg_update(0.37, -1.25, ud, w.d, p.d, s.d, x.d, r.d));
            const pair *out[4] = {&p, &s, &x, &r};
            static const char *names[4] = {"cg_update p", "cg_update s", "cg_update x",
                                           "cg_update r"};
            for (int i = 0; i < 4; i++) {
                double e = compare(out[i]->d, out[i]->h, names[i], n);
                worst = e > worst ? e : worst;
            }
            free_pair(&u);
            free_pair(&w);
            free_pair(&p);
            free_pair(&s);
            free_pair(&x);
            free_pair(&r);
        }
    }
    printf("cg_update: u distinct and u == r at %d lengths, max rel err %.2g\n", NLEN, worst);
}

/* 1 for random data; 0 with an Inf planted last, a NaN planted first */
static void test_all_finite(void)
{
    for (int t = 0; t < NLEN; t++) {
        int64_t n = lengths[t];
        pair x = make_pair(n);
        int ok = -1;
        CHECK_OK(gs_vec_all_finite(x.d, &ok));
        CHECK_MSG(ok == 1, "all_finite of finite data = %d, n = %lld", ok, (long long)n);
        if (n > 0) {
            x.h->data[n - 1] = INFINITY;
            CHECK_OK(gs_vec_set_host(x.d, x.h->data));
            CHECK_OK(gs_vec_all_finite(x.d, &ok));
            CHECK_MSG(ok == 0, "all_finite with Inf last = %d, n = %lld", ok, (long long)n);
            x.h->data[n - 1] = 0.5;
            x.h->data[0] = NAN;
            CHECK_OK(gs_vec_set_host(x.d, x.h->data));
            CHECK_OK(gs_vec_all_finite(x.d, &ok));
            CHECK_MSG(ok == 0, "all_finite with NaN first = %d, n = %lld", ok, (long long)n);
            x.h->data[0] = 0.5;
            CHECK_OK(gs_vec_set_host(x.d, x.h->data));
            CHECK_OK(gs_vec_all_finite(x.d, &ok)); /* the flag resets between calls */
            CHECK_MSG(ok == 1, "all_finite after repair = %d, n = %lld", ok, (long long)n);
        }
        free_pair(&x);
    }
    printf("all_finite: finite, Inf last, NaN first, repaired at %d lengths\n", NLEN);
}

/* Compare both device SpMVs with the host on A for two right-hand sides, each row within TOL of
 * sum_j |a_ij x_j| (empty rows exactly 0); y starts as NaN, which beta = 0 must not read. */
static void spmv_case(const char *name, const gs_csr *A)
{
    gs_csr *dA = NULL;
    gs_vec *yd = NULL;
    double worst = 0.0;
    CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
    if (!dA) return;
    CHECK(dA->loc == GS_LOC_DEVICE && dA->rows == A->rows && dA->cols == A->cols &&
          dA->nnz == A->nnz);
    if (gs_vec_create(A->rows, GS_LOC_DEVICE, &yd) != GS_OK) die("device y");
    double *yh = xmalloc(A->rows), *scale = xmalloc(A->rows);
    for (int rhs = 0; rhs < 2; rhs++) {
        pair x = make_pair(A->cols);
        gs_csr_spmv_host(A, x.h->data, yh);
        for (int32_t i = 0; i < A->rows; i++) {
            scale[i] = 0.0;
            for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
                scale[i] += fabs(A->val[k] * x.h->data[A->colind[k]]);
        }
        for (int own = 0; own < 2; own++) {
            const char *kern = own ? "own vector kernel" : "cuSPARSE";
            CHECK_OK(gs_vec_fill(NAN, yd));
            if (own)
                CHECK_OK(D->csr_spmv_own(dA, x.d, yd));
            else
                CHECK_OK(D->csr_spmv(dA, x.d, yd));
            double *v = download(yd);
            int bad = 0;
            for (int32_t i = 0; i < A->rows; i++) {
                double err = fabs(v[i] - yh[i]);
                if (!(err <= TOL * scale[i])) { /* NaN fails too */
                    if (bad++ < 3)
                        CHECK_MSG(0, "%s, %s, rhs %d: row %d: %.17g vs %.17g", name, kern, rhs, i,
                                  v[i], yh[i]);
                } else if (scale[i] > 0 && err / scale[i] > worst) {
                    worst = err / scale[i];
                }
            }
            if (bad > 3) CHECK_MSG(0, "%s, %s: %d rows wrong in all", name, kern, bad);
            free(v);
        }
        free_pair(&x);
    }
    CHECK_OK(D->sync());
    printf("  %-44s %8d x %-8d nnz %9d: cuSPARSE and own kernel ok, max err / sum|a x| %.2g\n",
           name, A->rows, A->cols, A->nnz, worst);
    free(yh);
    free(scale);
    gs_vec_destroy(&yd);
    gs_csr_destroy(&dA);
}

static void spmv_generated(const char *type, int64_t size, int stencil, int dof)
{
    gs_gen_params p = {.type = type,
                       .size = size,
                       .stencil = stencil,
                       .dof = dof,
                       .seed = 7,
                       .epsilon = 0.25,
                       .velocity = 3.0,
                       .degree = 8.0,
                       .exponent = 2.5};
    gs_csr *A = NULL;
    char desc[200];
    CHECK_OK(gs_gen_matrix(&p, &A, desc, sizeof desc));
    if (!A) return;
    spmv_case(desc, A);
    gs_csr_destroy(&A);
}

/* a rows x cols matrix with len(i) random entries in row i (duplicates summed) */
static gs_csr *random_rows(int32_t rows, int32_t cols, int32_t (*len)(int32_t i, int32_t cols))
{
    int64_t nnz = 0;
    for (int32_t i = 0; i < rows; i++) nnz += len(i, cols);
    int32_t *ri = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *ri);
    int32_t *ci = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *ci);
    double *v = xmalloc(nnz), *r = xmalloc(2 * nnz);
    if (!ri || !ci) die("malloc");
    gs_gen_random_vector(g_seed++, r, 2 * nnz);
    int64_t k = 0;
    for (int32_t i = 0; i < rows; i++) {
        int32_t l = len(i, cols);
        for (int32_t j = 0; j < l; j++, k++) {
            ri[k] = i;
            /* a full-length row takes every column once; others random columns */
            ci[k] = l == cols ? j : (int32_t)((r[2 * k] + 1.0) * 0.5 * cols) % cols;
            v[k] = r[2 * k + 1];
        }
    }
    gs_csr *A = NULL;
    CHECK_OK(gs_csr_from_coo(rows, cols, nnz, ri, ci, v, &A));
    free(ri);
    free(ci);
    free(v);
    free(r);
    return A;
}

/* Hand-made shapes. With the lane rule of gs_cuda_csr.cu (L = pow2 >= (mean + std)/4) the
 * cases below and the generated ones cover every L from 1 to 32. */

/* every third row empty (first and last included), row 500 dense, others 1..5 */
static int32_t len_mixed(int32_t i, int32_t cols)
{
    return i == 500 ? cols : i % 3 == 0 ? 0 : 1 + i % 5;
}
/* mostly empty, one dense row */
static int32_t len_sparse(int32_t i, int32_t cols)
{
    return i == 1500 ? cols : i % 8 == 0 ? 1 : 0;
}
/* mostly empty, one row of 60: one lane per row walks the long row alone */
static int32_t len_one_long(int32_t i, int32_t cols)
{
    (void)cols;
    return i == 1500 ? 60 : i % 8 == 0 ? 1 : 0;
}
/* rows of 40..60 entries: 16 lanes per row */
static int32_t len_mid(int32_t i, int32_t cols)
{
    (void)cols;
    return 40 + (i * 7) % 21;
}
/* long rows of 100..400 entries: 32 lanes with many strides per row */
static int32_t len_long(int32_t i, int32_t cols)
{
    (void)cols;
    return 100 + (i * 37) % 301;
}
static int32_t len_none(int32_t i, int32_t cols)
{
    (void)i;
    (void)cols;
    return 0;
}

/* n x n band with offsets lo..hi (clipped at the borders), random values */
static gs_csr *band(int32_t n, int lo, int hi)
{
    int64_t cap = (int64_t)n * (hi - lo + 1), k = 0;
    int32_t *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = xmalloc(cap);
    if (!ri || !ci) die("malloc");
    gs_gen_random_vector(g_seed++, v, cap);
    for (int32_t i = 0; i < n; i++)
        for (int o = lo; o <= hi; o++)
            if (i + o >= 0 && i + o < n) ri[k] = i, ci[k] = i + o, k++;
    gs_csr *A = NULL;
    CHECK_OK(gs_csr_from_coo(n, n, k, ri, ci, v, &A));
    free(ri);
    free(ci);
    free(v);
    return A;
}

static void spmv_owned(const char *name, gs_csr *A)
{
    if (!A) return;
    spmv_case(name, A);
    gs_csr_destroy(&A);
}

static void test_spmv(void)
{
    printf("spmv (each row within %.0e of sum |a_ij x_j|, y prefilled with NaN):\n", TOL);
    spmv_generated("poisson", 20, 7, 1);
    spmv_generated("poisson", 16, 27, 1);
    spmv_generated("poisson", 30, 5, 3);
    spmv_generated("convdiff", 20, 7, 1);
    spmv_generated("convdiff", 40, 9, 1);
    spmv_generated("powerlaw", 20000, 0, 1);
    spmv_owned("empty rows + dense row", random_rows(1000, 5000, len_mixed));
    spmv_owned("mostly empty + dense row", random_rows(3000, 3000, len_sparse));
    spmv_owned("mostly empty + one row of 60", random_rows(3000, 3000, len_one_long));
    spmv_owned("rows of 40..60", random_rows(2000, 3000, len_mid));
    spmv_owned("long rows 100..400", random_rows(200, 3000, len_long));
    spmv_owned("no entries 10 x 7", random_rows(10, 7, len_none));
    spmv_owned("empty 0 x 0", random_rows(0, 0, len_none));
    spmv_owned("diagonal", band(10007, 0, 0));
    spmv_owned("bidiagonal", band(10007, 0, 1));
    spmv_owned("tridiagonal", band(10007, -1, 1));
    spmv_owned("band of 9", band(100003, -4, 4));
}

/* shape errors are refused, not run */
static void test_spmv_args(void)
{
    gs_csr *A = band(100, -1, 1), *dA = NULL;
    gs_vec *x = NULL, *y = NULL;
    if (!A) return;
    CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
    CHECK_OK(gs_vec_create(99, GS_LOC_DEVICE, &x));
    CHECK_OK(gs_vec_create(100, GS_LOC_DEVICE, &y));
    if (dA && x && y) {
        CHECK_FAIL(D->csr_spmv(dA, x, y), GS_ERR_ARG, "length");
        CHECK_FAIL(D->csr_spmv_own(dA, x, y), GS_ERR_ARG, "length");
    }
    gs_vec_destroy(&x);
    gs_vec_destroy(&y);
    gs_csr_destroy(&dA);
    gs_csr_destroy(&A);
    printf("spmv: wrong vector lengths refused\n");
}

/* host allocation failures inside upload free everything they took */
static void test_upload_failures(void)
{
    gs_csr *A = band(5000, -2, 2), *dA = NULL;
    if (!A) return;
    long live = gs_mem_live();
    for (long k = 1; k <= 2; k++) {
        gs_mem_fail_at(k);
        CHECK_FAIL(gs_csr_upload(A, GS_LOC_DEVICE, &dA), GS_ERR_NOMEM, "out of memory");
        gs_mem_fail_at(0);
        CHECK(dA == NULL);
        CHECK_MSG(gs_mem_live() == live, "upload failing at allocation %ld leaks %ld blocks", k,
                  gs_mem_live() - live);
    }
    gs_csr_destroy(&A);
    printf("csr_upload: injected host allocation failures clean up\n");
}

/* an impossible allocation fails with a clear message and leaves the device usable */
static void test_oom(void)
{
    void *p = (void *)&p;
    gs_vec *big = NULL;
    CHECK_FAIL(D->alloc((size_t)1e15, "test buffer", &p), GS_ERR_NOMEM, "out of GPU memory");
    CHECK(p == NULL);
    CHECK_FAIL(gs_vec_create((int64_t)1e14, GS_LOC_DEVICE, &big), GS_ERR_NOMEM,
               "out of GPU memory");
    CHECK(big == NULL);
    D->free(NULL);
    /* later work still runs: a launch, a reduction, a transfer */
    pair x = make_pair(1000), y = make_pair(1000);
    double rh = 0.0, rd = 0.0;
    CHECK_OK(gs_vec_axpby(0.5, x.h, 2.0, y.h));
    CHECK_OK(gs_vec_axpby(0.5, x.d, 2.0, y.d));
    compare(y.d, y.h, "axpby after OOM", 1000);
    CHECK_OK(gs_vec_dot(x.h, y.h, &rh));
    CHECK_OK(gs_vec_dot(x.d, y.d, &rd));
    CHECK_MSG(fabs(rd - rh) <= TOL * abs_dot(x.h, y.h), "dot after OOM: %.17g vs %.17g", rd, rh);
    CHECK_OK(D->sync());
    free_pair(&x);
    free_pair(&y);
    printf("out of GPU memory: 1e15 bytes refused with a message, device usable after\n");
}

/* init again on the same device is a no-op; another device or a bad number is refused */
static void test_init_rules(const char *desc)
{
    char again[200];
    CHECK_OK(gs_backend_cuda_init(0, again, sizeof again));
    CHECK_MSG(strcmp(again, desc) == 0, "second init desc \"%s\" vs \"%s\"", again, desc);
    CHECK_FAIL(gs_backend_cuda_init(1, NULL, 0), GS_ERR_ARG, "device");
    CHECK_FAIL(gs_backend_cuda_init(-1, NULL, 0), GS_ERR_ARG, "device");
    CHECK(gs_backend_get(GS_LOC_DEVICE) == D);
    printf("init: repeat on device 0 ok, other device and -1 refused\n");
}

int main(void)
{
    const char *why = NULL;
    char desc[200];
    long live = gs_mem_live();
    if (gs_backend_cuda_devices(&why) == 0) {
        printf("test_cuda_parity: skipped: %s\n", why ? why : "no CUDA device");
        return 77;
    }
    if (gs_backend_cuda_init(0, desc, sizeof desc) != GS_OK) {
        if (strstr(gs_error_message(), "no device")) {
            printf("test_cuda_parity: skipped: %s\n", gs_error_message());
            return 77;
        }
        die("gs_backend_cuda_init");
    }
    gs_error_clear();
    D = gs_backend_get(GS_LOC_DEVICE);
    if (!D) die("no device backend after init");
    printf("device: %s (backend \"%s\")\n", desc, D->name);
    CHECK(strstr(desc, "sm_") != NULL && strstr(desc, "GiB") != NULL);

    test_init_rules(desc);
    test_transfers();
    test_axpby();
    test_pmul();
    test_dots();
    test_cg_update();
    test_all_finite();
    test_spmv();
    test_spmv_args();
    test_upload_failures();
    test_oom();
    CHECK_OK(D->sync());
    CHECK_MSG(gs_mem_live() == live, "%ld host blocks still live after teardown",
              gs_mem_live() - live);
    return gs_test_result("test_cuda_parity");
}

/* fmt_test.h: the checks every SpMV format must pass, shared by the format tests.
 *
 * fmt_test_run(format, params, gpu, expect) walks a fixed list of cases: hand-made edge cases
 * (empty matrix, single row, empty rows, one dense row, rows not a multiple of 16, rectangular
 * both ways), the generators (2D/3D Poisson 5/7/27-point, anisotropic, convection-diffusion,
 * 2-6 unknowns per point, power law) and every real Matrix Market file in $GS_MATRICES. For
 * each it converts CSR -> format -> CSR and requires the exact pattern and values, and compares
 * the format's SpMV with the CSR one (host: 1e-13 relative in the 2-norm). With gpu = 1 it
 * does the same on the device: device conversion from the uploaded CSR, device SpMV against the
 * host CSR SpMV (1e-12), device to_csr downloaded and compared exactly.
 *
 * `expect(name, A)` says whether the format must accept the case (1), must refuse it (0), or
 * either (-1, e.g. CDS on an unstructured matrix); a refusal must be GS_ERR_UNSUPPORTED with a
 * message. Include from exactly one .c file per test program.
 */
#ifndef FMT_TEST_H
#define FMT_TEST_H

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_csr.h"
#include "gs_gen.h"
#include "gs_mm.h"
#include "gs_spmat.h"
#include "gs_test.h"

typedef int (*fmt_expect_fn)(const char *name, const gs_csr *A);

static int fmt_cases_run, fmt_cases_refused;

/* A from host triplets (duplicates summed). */
static gs_csr *fmt_from_coo(int64_t rows, int64_t cols, int64_t nnz, const int32_t *ri,
                            const int32_t *ci, const double *v)
{
    gs_csr *A = NULL;
    if (gs_csr_from_coo(rows, cols, nnz, ri, ci, v, &A) != GS_OK) {
        fprintf(stderr, "fmt_test: cannot build a case: %s\n", gs_error_message());
        exit(1);
    }
    return A;
}

/* A random rows x cols matrix with row lengths from len(i) (capped at cols), seed s. */
static gs_csr *fmt_random(int32_t rows, int32_t cols, int (*len)(int32_t i), uint64_t s)
{
    int64_t cap = 0;
    for (int32_t i = 0; i < rows; i++) cap += len(i) < cols ? len(i) : cols;
    int32_t *ri = malloc((size_t)(cap + 1) * sizeof *ri), *ci = malloc((size_t)(cap + 1) * 4);
    double *v = malloc((size_t)(cap + 1) * sizeof *v);
    int64_t k = 0;
    for (int32_t i = 0; i < rows; i++) {
        int l = len(i) < cols ? len(i) : cols;
        for (int j = 0; j < l; j++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            ri[k] = i;
            ci[k] = (int32_t)((s >> 33) % (uint64_t)cols);
            v[k] = (double)((s >> 11) & 0xffff) / 65536.0 - 0.5;
            k++;
        }
    }
    gs_csr *A = fmt_from_coo(rows, cols, k, ri, ci, v);
    free(ri), free(ci), free(v);
    return A;
}

static int fmt_len_empty_rows(int32_t i) { return i % 3 == 1 ? 0 : 1 + i % 7; }
static int fmt_len_dense_row(int32_t i) { return i == 17 ? 100000 : 3; }
static int fmt_len_wide(int32_t i) { return 2 + i % 5; }
static int fmt_len_single(int32_t i) { return i == 0 ? 9 : 0; }

/* relative 2-norm difference of y against the reference r */
static double fmt_rel_diff(const double *y, const double *r, int64_t n)
{
    double d = 0, s = 0;
    for (int64_t i = 0; i < n; i++) {
        d += (y[i] - r[i]) * (y[i] - r[i]);
        s += r[i] * r[i];
    }
    return s > 0 ? sqrt(d / s) : sqrt(d);
}

/* exact equality of two host CSR matrices */
static int fmt_csr_equal(const gs_csr *A, const gs_csr *B, const char *name, const char *where)
{
    if (A->rows != B->rows || A->cols != B->cols || A->nnz != B->nnz) {
        fprintf(stderr, "%s (%s): shape %d x %d, %d nnz back as %d x %d, %d nnz\n", name, where,
                A->rows, A->cols, A->nnz, B->rows, B->cols, B->nnz);
        return 0;
    }
    for (int32_t i = 0; i <= A->rows; i++)
        if (A->rowptr[i] != B->rowptr[i]) {
            fprintf(stderr, "%s (%s): rowptr[%d] %d vs %d\n", name, where, i, A->rowptr[i],
                    B->rowptr[i]);
            return 0;
        }
    for (int32_t k = 0; k < A->nnz; k++)
        if (A->colind[k] != B->colind[k] || A->val[k] != B->val[k]) {
            fprintf(stderr, "%s (%s): entry %d: (%d, %.17g) vs (%d, %.17g)\n", name, where, k,
                    A->colind[k], A->val[k], B->colind[k], B->val[k]);
            return 0;
        }
    return 1;
}

/* the checks on one case; A is a host CSR */
static void fmt_check_case(const char *name, const gs_csr *A, gs_format f,
                           const gs_format_params *p, int gpu, fmt_expect_fn expect)
{
    int want = expect ? expect(name, A) : 1;
    gs_spmat *M = NULL;
    gs_csr *B = NULL;
    gs_error_clear();
    /* cuSPARSE has no host side: the device checks only, against the host CSR */
    gs_status st = gs_spmat_create(A, f == GS_FORMAT_CUSPARSE ? GS_FORMAT_CSR : f, p, &M);
    fmt_cases_run++;
    if (st == GS_ERR_UNSUPPORTED) {
        fmt_cases_refused++;
        printf("  %-28s refused: %s\n", name, gs_error_message());
        CHECK_MSG(want != 1, "%s: %s refused a case it must take: %s", name, gs_format_name(f),
                  gs_error_message());
        CHECK_MSG(strlen(gs_error_message()) > 0, "%s: refusal without a message", name);
        gs_error_clear();
        return;
    }
    CHECK_MSG(st == GS_OK, "%s: conversion failed: %s (%s)", name, gs_error_message(),
              gs_error_trace_str());
    if (st != GS_OK) {
        gs_error_clear();
        return;
    }
    CHECK_MSG(want != 0, "%s: %s took a case it must refuse", name, gs_format_name(f));
    CHECK_OK(gs_spmat_to_csr(M, &B));
    if (B) CHECK_MSG(fmt_csr_equal(A, B, name, "host round trip"), "%s: host round trip", name);
    gs_csr_destroy(&B);

    int64_t nx = A->cols > 0 ? A->cols : 1, ny = A->rows > 0 ? A->rows : 1;
    double *x = malloc((size_t)nx * 8), *yr = malloc((size_t)ny * 8), *yf = malloc((size_t)ny * 8);
    gs_gen_random_vector(4242, x, A->cols);
    gs_csr_spmv_host(A, x, yr);
    gs_vec xv = {A->cols, x, GS_LOC_HOST, GS_F64}, yv = {A->rows, yf, GS_LOC_HOST, GS_F64};
    for (int64_t i = 0; i < A->rows; i++) yf[i] = 1e300; /* must be overwritten */
    CHECK_OK(gs_spmat_spmv(M, &xv, &yv));
    double e = fmt_rel_diff(yf, yr, A->rows);
    CHECK_MSG(e <= 1e-13, "%s: host SpMV differs from CSR by %.3e", name, e);
    char desc[160];
    gs_spmat_describe(M, desc, sizeof desc);
    printf("  %-28s %9d rows %10d nnz  host ok  %s\n", name, A->rows, A->nnz, desc);
    gs_spmat_destroy(&M);

    if (gpu) {
        gs_csr *dA = NULL, *dB = NULL;
        gs_vec *dx = NULL, *dy = NULL;
        CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
        st = dA ? gs_spmat_create(dA, f, p, &M) : GS_ERR_INTERNAL;
        CHECK_MSG(st == GS_OK, "%s: device conversion: %s (%s)", name, gs_error_message(),
                  gs_error_trace_str());
        gs_error_clear();
        if (st == GS_OK) {
            CHECK_OK(gs_vec_create(A->cols, GS_LOC_DEVICE, &dx));
            CHECK_OK(gs_vec_create(A->rows, GS_LOC_DEVICE, &dy));
            CHECK_OK(gs_vec_set_host(dx, x));
            CHECK_OK(gs_vec_fill(1e300, dy));
            CHECK_OK(gs_spmat_spmv(M, dx, dy));
            CHECK_OK(gs_vec_get_host(dy, yf));
            e = fmt_rel_diff(yf, yr, A->rows);
            CHECK_MSG(e <= 1e-12, "%s: device SpMV differs from host CSR by %.3e", name, e);
            if (f != GS_FORMAT_CSR && f != GS_FORMAT_CUSPARSE) CHECK_OK(gs_spmat_to_csr(M, &dB));
            if (dB) {
                CHECK_OK(gs_csr_download(dB, &B));
                if (B) CHECK_MSG(fmt_csr_equal(A, B, name, "device round trip"), "%s", name);
            }
            printf("  %-28s device ok (conversion %.3f ms)\n", name, M->convert_s * 1e3);
        }
        gs_csr_destroy(&B);
        gs_csr_destroy(&dB);
        gs_vec_destroy(&dx);
        gs_vec_destroy(&dy);
        gs_spmat_destroy(&M);
        gs_csr_destroy(&dA);
    }
    free(x), free(yr), free(yf);
}

/* one generated case: type, grid points per direction (nodes for powerlaw), stencil, dof */
static void fmt_gen_case(const char *type, int64_t size, int stencil, int dof, gs_format f,
                         const gs_format_params *p, int gpu, fmt_expect_fn expect)
{
    gs_gen_params g;
    gs_csr *A = NULL;
    char desc[128], name[64];
    memset(&g, 0, sizeof g);
    g.type = type;
    g.size = size;
    g.stencil = stencil;
    g.dof = dof;
    g.seed = 1;
    g.epsilon = 0.01;
    g.velocity = 10.0;
    g.degree = 8.0;
    g.exponent = 2.2;
    if (gs_gen_matrix(&g, &A, desc, sizeof desc) != GS_OK) {
        fprintf(stderr, "fmt_test: generator %s: %s\n", type, gs_error_message());
        exit(1);
    }
    snprintf(name, sizeof name, "%s-%d-%lld-dof%d", type, stencil, (long long)size, dof);
    fmt_check_case(name, A, f, p, gpu, expect);
    gs_csr_destroy(&A);
}

/* every real Matrix Market matrix in $GS_MATRICES (complex ones and vectors are skipped) */
static void fmt_matrix_files(gs_format f, const gs_format_params *p, int gpu,
                             fmt_expect_fn expect)
{
    const char *dir = getenv("GS_MATRICES");
    DIR *d = dir ? opendir(dir) : NULL;
    struct dirent *e;
    if (!d) {
        printf("  (no $GS_MATRICES folder: real matrices skipped)\n");
        return;
    }
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".mtx") != 0) continue;
        char path[1024];
        gs_csr *A = NULL;
        gs_mm_info info;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (gs_mm_read(path, &A, &info) != GS_OK) { /* complex, or a vector file */
            gs_error_clear();
            continue;
        }
        fmt_check_case(e->d_name, A, f, p, gpu, expect);
        gs_csr_destroy(&A);
    }
    closedir(d);
}

/* All cases for format f. gpu: also on the device (the backend must be initialised). */
static void fmt_test_run(gs_format f, const gs_format_params *p, int gpu, fmt_expect_fn expect)
{
    static const int32_t ri1[] = {0}, ci1[] = {0};
    static const double v1[] = {2.5};
    gs_csr *A;
    printf("format %s%s\n", gs_format_name(f), gpu ? " (host and device)" : " (host)");
    A = fmt_from_coo(0, 0, 0, ri1, ci1, v1);
    fmt_check_case("empty 0x0", A, f, p, gpu, expect);
    gs_csr_destroy(&A);
    A = fmt_from_coo(1, 1, 1, ri1, ci1, v1);
    fmt_check_case("single 1x1", A, f, p, gpu, expect);
    gs_csr_destroy(&A);
    A = fmt_random(1, 50, fmt_len_single, 7);
    fmt_check_case("single row 1x50", A, f, p, gpu, expect);
    gs_csr_destroy(&A);
    A = fmt_random(1001, 1001, fmt_len_empty_rows, 11);
    fmt_check_case("empty rows 1001", A, f, p, gpu, expect);
    gs_csr_destroy(&A);
    A = fmt_random(3000, 3000, fmt_len_dense_row, 13);
    fmt_check_case("one dense row 3000", A, f, p, gpu, expect);
    gs_csr_destroy(&A);
    A = fmt_random(997, 5003, fmt_len_wide, 17);
    fmt_check_case("wide 997x5003", A, f, p, gpu, expect);
    gs_csr_destroy(&A);
    A = fmt_random(5003, 61, fmt_len_wide, 19);
    fmt_check_case("tall 5003x61", A, f, p, gpu, expect);
    gs_csr_destroy(&A);
    fmt_gen_case("poisson", 37, 5, 1, f, p, gpu, expect);
    fmt_gen_case("poisson", 23, 7, 1, f, p, gpu, expect);
    fmt_gen_case("poisson", 19, 27, 1, f, p, gpu, expect);
    fmt_gen_case("poisson", 11, 7, 3, f, p, gpu, expect);
    fmt_gen_case("poisson", 9, 7, 6, f, p, gpu, expect);
    fmt_gen_case("anisotropic", 41, 9, 1, f, p, gpu, expect);
    fmt_gen_case("convdiff", 33, 5, 1, f, p, gpu, expect);
    fmt_gen_case("powerlaw", 20000, 0, 1, f, p, gpu, expect);
    fmt_matrix_files(f, p, gpu, expect);
    printf("%d cases, %d refused\n", fmt_cases_run, fmt_cases_refused);
}

#endif

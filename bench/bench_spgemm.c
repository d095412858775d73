/* bench_spgemm: the DCSR row-binned SpGEMM beside cuSPARSE SpGEMM in one run.
 *
 *   bench_spgemm [--reps N] [--size N] [--stencil 7|27] [--max-nnz N] [MATRIX_FOLDER]
 *
 * Cases: 3D Poisson 7-point and 27-point (or only --stencil's) on a size^3 grid (default 100) with
 * P the piecewise-constant prolongator of 2x2x2 aggregates, and every square real Matrix Market
 * file in MATRIX_FOLDER up to --max-nnz entries (default 5e6) with P from greedy aggregation (each
 * unaggregated node with its unaggregated neighbours). Operations: A*A, A*P, R*(AP) with R = P^T
 * and AP made beforehand, and the whole Galerkin product by gs_galerkin_ex, the path AMG runs (R =
 * P^T by gs_spgemm_transpose, then A P and R (A P) by the method; AMG makes R beforehand and
 * keeps it, so its coarse operator costs this row less the transpose). Method: two
 * warm-up runs, then the median of N runs (default 9) of the operation alone (its result freed
 * outside the clock); peak = the most device memory the call held at once (result included,
 * inputs not), counted over the call's own allocations. A markdown table on stdout.
 * Without a GPU it times the host product only. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_gen.h"
#include "gs_mm.h"
#include "gs_spgemm.h"
#include "gs_time.h"

static int REPS = 9;
static const gs_backend_ops *DEV;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* P for 2x2x2 aggregates of an n^3 grid */
static gs_status grid_aggregation(int64_t n, gs_csr **P)
{
    int64_t nc = (n + 1) / 2, rows = n * n * n;
    int32_t *ri = malloc((size_t)rows * 4), *ci = malloc((size_t)rows * 4);
    gs_status st;
    for (int64_t i = 0; i < rows; i++) {
        int64_t x = i % n, y = (i / n) % n, z = i / (n * n);
        ri[i] = (int32_t)i;
        ci[i] = (int32_t)(((z / 2) * nc + y / 2) * nc + x / 2);
    }
    st = gs_csr_from_coo(rows, nc * nc * nc, rows, ri, ci, NULL, P);
    free(ri), free(ci);
    return st;
}

/* P from greedy aggregation over A's pattern */
static gs_status greedy_aggregation(const gs_csr *A, gs_csr **P)
{
    int32_t *agg = malloc((size_t)A->rows * 4 + 4), *ri = malloc((size_t)A->rows * 4 + 4), na = 0;
    gs_status st;
    for (int32_t i = 0; i < A->rows; i++) agg[i] = -1;
    for (int32_t i = 0; i < A->rows; i++) {
        if (agg[i] >= 0) continue;
        agg[i] = na;
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
            if (A->colind[q] < A->rows && agg[A->colind[q]] < 0) agg[A->colind[q]] = na;
        na++;
    }
    for (int32_t i = 0; i < A->rows; i++) ri[i] = i;
    st = gs_csr_from_coo(A->rows, na, A->rows, ri, agg, NULL, P);
    free(agg), free(ri);
    return st;
}

typedef struct result {
    double ms;
    gs_spgemm_info info;
    int64_t nnz;
    int ok;
} result;

/* median time of op (0: X*Y, 1: Galerkin of X with Y) by method m */
static result time_op(int op, const gs_csr *X, const gs_csr *Y, gs_spgemm_method m)
{
    result r;
    double t[64];
    memset(&r, 0, sizeof r);
    for (int k = 0; k < REPS + 2; k++) {
        gs_csr *C = NULL;
        gs_spgemm_info info;
        if (DEV) DEV->sync();
        double t0 = gs_time_now();
        gs_status st =
            op == 0 ? gs_spgemm_ex(X, Y, m, &info, &C) : gs_galerkin_ex(X, Y, NULL, m, &info, &C);
        if (DEV) DEV->sync();
        double t1 = gs_time_now();
        if (st != GS_OK) {
            fprintf(stderr, "bench_spgemm: %s: %s (%s)\n", gs_spgemm_method_name(m),
                    gs_error_message(), gs_error_trace_str());
            gs_error_clear();
            return r;
        }
        if (k >= 2) t[k - 2] = (t1 - t0) * 1e3;
        r.info = info;
        r.nnz = C->nnz;
        gs_csr_destroy(&C);
    }
    qsort(t, (size_t)REPS, sizeof t[0], cmp_double);
    r.ms = t[REPS / 2];
    r.ok = 1;
    return r;
}

static void row(const char *name, const char *op, int rows, const result *d, const result *c)
{
    if (c) {
        printf("| %s | %s | %d | %lld | %lld | %.3f | %.3f | %.2fx | %.1f | %.1f | %s |\n", name,
               op, rows, (long long)d->nnz, (long long)d->info.products, d->ms, c->ms,
               d->ms > 0 ? c->ms / d->ms : 0.0, d->info.peak_bytes / 1048576.0,
               c->info.peak_bytes / 1048576.0, d->nnz == c->nnz ? "yes" : "NO");
    } else {
        printf("| %s | %s | %d | %lld | %.3f |\n", name, op, rows, (long long)d->nnz, d->ms);
    }
    fflush(stdout);
}

/* every operation on one matrix */
static void bench_case(const char *name, const gs_csr *hA, const gs_csr *hP)
{
    gs_csr *A = NULL, *P = NULL, *R = NULL, *AP = NULL;
    const char *ops[4] = {"A*A", "A*P", "R*(AP)", "Galerkin"};
    gs_loc loc = DEV ? GS_LOC_DEVICE : GS_LOC_HOST;
    if (gs_csr_upload(hA, loc, &A) != GS_OK || gs_csr_upload(hP, loc, &P) != GS_OK ||
        gs_spgemm_transpose(P, &R) != GS_OK || gs_spgemm(A, P, GS_SPGEMM_AUTO, &AP) != GS_OK) {
        fprintf(stderr, "bench_spgemm: %s: %s\n", name, gs_error_message());
        gs_error_clear();
        goto done;
    }
    for (int op = 0; op < 4; op++) {
        const gs_csr *X = op == 0 ? A : op == 1 ? A : op == 2 ? R : A;
        const gs_csr *Y = op == 0 ? A : op == 1 ? P : op == 2 ? AP : P;
        int kind = op == 3;
        if (DEV) {
            result d = time_op(kind, X, Y, GS_SPGEMM_DCSR),
                   c = time_op(kind, X, Y, GS_SPGEMM_CUSPARSE);
            if (d.ok && c.ok) row(name, ops[op], X->rows, &d, &c);
        } else {
            result h = time_op(kind, X, Y, GS_SPGEMM_HOST);
            if (h.ok) row(name, ops[op], X->rows, &h, NULL);
        }
    }
done:
    gs_csr_destroy(&A), gs_csr_destroy(&P), gs_csr_destroy(&R), gs_csr_destroy(&AP);
}

int main(int argc, char **argv)
{
    int64_t size = 100, max_nnz = 5000000;
    int only = 0; /* --stencil: that Poisson stencil alone */
    const char *folder = NULL;
    char desc[320] = "";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            REPS = atoi(argv[++i]);
        else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
            size = atoll(argv[++i]);
        else if (strcmp(argv[i], "--stencil") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            only = strcmp(v, "7") == 0 ? 7 : strcmp(v, "27") == 0 ? 27 : -1;
            if (only < 0) {
                fprintf(stderr, "bench_spgemm: --stencil %s: expected 7 or 27\n", v);
                return 2;
            }
        }
        else if (strcmp(argv[i], "--max-nnz") == 0 && i + 1 < argc)
            max_nnz = atoll(argv[++i]);
        else
            folder = argv[i];
    }
    if (REPS < 1) REPS = 1;
    if (REPS > 64) REPS = 64;
    if (gs_backend_cuda_devices(NULL) > 0 && gs_backend_cuda_init(0, desc, sizeof desc) == GS_OK)
        DEV = gs_backend_get(GS_LOC_DEVICE);
    else
        fprintf(stderr, "bench_spgemm: no GPU: timing the host product only\n");
    printf("SpGEMM on %s, double, median of %d runs after 2 warm-ups\n\n", DEV ? desc : "host",
           REPS);
    if (DEV)
        printf("| matrix | op | rows | nnz(C) | products | dcsr ms | cusparse ms | speedup | "
               "dcsr peak MiB | cusparse peak MiB | same nnz |\n|---|---|---|---|---|---|---|---|"
               "---|---|---|\n");
    else
        printf("| matrix | op | rows | nnz(C) | host ms |\n|---|---|---|---|---|\n");
    int stencils[2] = {7, 27};
    for (int s = 0; s < 2; s++) {
        if (only && only != stencils[s]) continue;
        gs_gen_params g = {
            .type = "poisson", .size = size, .stencil = stencils[s], .dof = 1, .seed = 1};
        gs_csr *A = NULL, *P = NULL;
        char name[64], d[128];
        snprintf(name, sizeof name, "poisson %d-pt %lld^3", stencils[s], (long long)size);
        if (gs_gen_matrix(&g, &A, d, sizeof d) == GS_OK && grid_aggregation(size, &P) == GS_OK)
            bench_case(name, A, P);
        gs_csr_destroy(&A), gs_csr_destroy(&P);
    }
    DIR *dir = folder ? opendir(folder) : NULL;
    struct dirent *e;
    while (dir && (e = readdir(dir)) != NULL) {
        size_t l = strlen(e->d_name);
        char path[1024];
        gs_csr *A = NULL, *P = NULL;
        if (l < 5 || strcmp(e->d_name + l - 4, ".mtx") != 0) continue;
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        if (gs_mm_read(path, &A, NULL) != GS_OK) {
            gs_error_clear();
            continue;
        }
        if (A->rows == A->cols && A->nnz <= max_nnz && A->rows > 100 &&
            greedy_aggregation(A, &P) == GS_OK)
            bench_case(e->d_name, A, P);
        gs_csr_destroy(&A), gs_csr_destroy(&P);
    }
    if (dir) closedir(dir);
    return 0;
}

/* bench_spmv: SpMV of each format beside cuSPARSE CSR, and the cost of a CG iteration.
 *
 *   bench_spmv [--backend cuda|host] [--reps N] [--md FILE] [MATRIX ...]
 *
 * MATRIX is a Matrix Market/HDF5 file or a generator "type:stencil:size[:dof]"
 * (e.g. poisson:7:128, poisson:7:64:4, powerlaw:0:1000000). Without MATRIX, the standard set.
 * Method (DESIGN.md): device-to-device copy bandwidth first; then per matrix and format,
 * warm-up, then the median over 15 batches of the time of one SpMV (a batch runs N SpMVs back
 * to back and synchronizes once, so launch latency counts as it does inside a solver); GB/s by
 * the CSR byte model 12 nnz + 4 (n+1) + 16 n; % of the copy bandwidth; speedup over cuSPARSE.
 * Then CG without preconditioner with each format's SpMV (the own kernel with its fused
 * reductions, as gsolve runs it): time per iteration, from the difference of a 300- and a
 * 100-iteration run, over the time of one cuSPARSE SpMV (the first format on the host). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_gen.h"
#include "gs_krylov.h"
#include "gs_problem.h"
#include "gs_time.h"

#define BATCHES 15

static const char *STANDARD[] = {"poisson:7:128", "poisson:7:160", "poisson:27:128",
                                 "poisson:7:64:4", "convdiff:7:128", "anisotropic:5:1024",
                                 "powerlaw:0:1000000"};

typedef struct spmv_fn {
    const char *name;
    gs_status (*f)(const gs_csr *, const gs_vec *, gs_vec *);
} spmv_fn;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median seconds of one call of f over BATCHES batches of n calls. */
static double median_time(const gs_backend_ops *ops, spmv_fn f, const gs_csr *A,
                          const gs_vec *x, gs_vec *y, int n)
{
    double t[BATCHES];
    for (int i = 0; i < 3; i++) f.f(A, x, y); /* warm-up */
    ops->sync();
    for (int b = 0; b < BATCHES; b++) {
        double t0 = gs_time_now();
        for (int i = 0; i < n; i++) f.f(A, x, y);
        ops->sync();
        t[b] = (gs_time_now() - t0) / n;
    }
    qsort(t, BATCHES, sizeof t[0], cmp_double);
    return t[BATCHES / 2];
}

/* Copy bandwidth in GB/s (bytes read + written) on vectors of 2^27 doubles. */
static double copy_bandwidth(gs_loc loc)
{
    gs_vec *a = NULL, *b = NULL;
    double t[BATCHES], bw = 0.0;
    const int64_t n = (int64_t)1 << 27;
    if (gs_vec_create(n, loc, &a) == GS_OK && gs_vec_create(n, loc, &b) == GS_OK) {
        const gs_backend_ops *ops = gs_backend_get(loc);
        gs_vec_copy(a, b);
        ops->sync();
        for (int i = 0; i < BATCHES; i++) {
            double t0 = gs_time_now();
            gs_vec_copy(a, b);
            ops->sync();
            t[i] = gs_time_now() - t0;
        }
        qsort(t, BATCHES, sizeof t[0], cmp_double);
        bw = 2.0 * 8.0 * (double)n / t[BATCHES / 2] / 1e9;
    }
    gs_vec_destroy(&a);
    gs_vec_destroy(&b);
    gs_error_clear();
    return bw;
}

typedef struct bench_op {
    const gs_csr *A;
    const spmv_fn *f;
    gs_status (*dots)(const gs_csr *, const gs_vec *, gs_vec *, int, const gs_vec *const *,
                      const gs_vec *const *, double *);
} bench_op;

static gs_status apply_spmv(void *ctx, const gs_vec *x, gs_vec *y)
{
    const bench_op *op = ctx;
    return op->f->f(op->A, x, y);
}

static gs_status apply_spmv_dots(void *ctx, const gs_vec *x, gs_vec *y, int k,
                                 const gs_vec *const *a, const gs_vec *const *b, double *out)
{
    const bench_op *op = ctx;
    return op->dots(op->A, x, y, k, a, b, out);
}

/* Seconds of a CG run of `its` iterations (no preconditioner, b = ones, x0 = 0). */
static double cg_run(const gs_linop *op, const gs_vec *b, gs_vec *x, int its, gs_loc loc)
{
    gs_krylov_params p = {.type = GS_KRYLOV_CG, .rtol = 0.0, .atol = 0.0, .max_iters = its};
    gs_krylov_result res;
    gs_vec_fill(0.0, x);
    gs_backend_get(loc)->sync();
    double t0 = gs_time_now();
    if (gs_krylov_solve(&p, op, NULL, b, x, &res) != GS_OK || res.iterations != its) return NAN;
    return gs_time_now() - t0;
}

/* Seconds per CG iteration as gsolve runs it (the own kernel with its fused reductions): the
 * difference of a 300- and a 100-iteration run over 200, so set-up and allocation cancel. */
static double cg_iteration(const gs_csr *A, const spmv_fn *f, gs_loc loc)
{
    gs_vec *b = NULL, *x = NULL;
    double per = NAN;
    const gs_backend_ops *ops = gs_backend_get(loc);
    bench_op ctx = {A, f, f->f == ops->csr_spmv_own ? ops->csr_spmv_dots : NULL};
    gs_linop op = {A->rows, &ctx, apply_spmv, ctx.dots ? apply_spmv_dots : NULL};
    if (gs_vec_create(A->rows, loc, &b) == GS_OK && gs_vec_create(A->rows, loc, &x) == GS_OK &&
        gs_vec_fill(1.0, b) == GS_OK) {
        cg_run(&op, b, x, 20, loc); /* warm-up */
        per = (cg_run(&op, b, x, 300, loc) - cg_run(&op, b, x, 100, loc)) / 200.0;
    }
    gs_vec_destroy(&b);
    gs_vec_destroy(&x);
    gs_error_clear();
    return per;
}

/* Load a matrix file or a generator spec "type:stencil:size[:dof]". */
static gs_status load(const char *spec, gs_csr **A, char *desc, size_t len)
{
    char type[32];
    int stencil = 0, dof = 1;
    long long size = 0;
    if (sscanf(spec, "%31[a-z]:%d:%lld:%d", type, &stencil, &size, &dof) >= 3) {
        gs_gen_params g = {.type = type, .size = size, .stencil = stencil ? stencil : 7,
                           .dof = dof, .seed = 1, .epsilon = 0.001, .velocity = 10.0,
                           .degree = 8.0, .exponent = 2.5};
        return gs_gen_matrix(&g, A, desc, len);
    }
    gs_str_copy(desc, len, strrchr(spec, '/') ? strrchr(spec, '/') + 1 : spec);
    return gs_matrix_read(spec, NULL, A, NULL, NULL, NULL);
}

/* One matrix: every format's SpMV and the CG iteration; rows of the table to f and stdout. */
static void bench_matrix(const char *spec, gs_loc loc, double copy_bw, int reps, FILE *md)
{
    gs_csr *A = NULL, *dA = NULL;
    gs_vec *x = NULL, *y = NULL;
    char desc[128];
    double *xh = NULL;
    if (load(spec, &A, desc, sizeof desc) != GS_OK || gs_csr_upload(A, loc, &dA) != GS_OK ||
        gs_vec_create(A->cols, loc, &x) != GS_OK || gs_vec_create(A->rows, loc, &y) != GS_OK ||
        !(xh = malloc((size_t)A->cols * sizeof *xh))) {
        fprintf(stderr, "bench_spmv: %s: %s\n", spec, gs_error_message());
        gs_error_clear();
        goto done;
    }
    gs_gen_random_vector(7, xh, A->cols);
    gs_vec_set_host(x, xh);
    gs_row_stats rs;
    gs_csr_row_stats(A, &rs);
    const gs_backend_ops *ops = gs_backend_get(loc);
    spmv_fn fns[2] = {{"cusparse", ops->csr_spmv}, {"csr", ops->csr_spmv_own}};
    int first = loc == GS_LOC_DEVICE ? 0 : 1;
    double bytes = 12.0 * A->nnz + 4.0 * (A->rows + 1.0) + 16.0 * A->rows, t_ref = NAN;
    for (int i = first; i < 2; i++) {
        double t = median_time(ops, fns[i], dA, x, y, reps);
        if (i == first) t_ref = t;
        double gbs = bytes / t / 1e9, cg = cg_iteration(dA, &fns[i], loc);
        char line[512];
        snprintf(line, sizeof line,
                 "| %s | %d | %d | %.2f | %.2f | %s | %.4f | %.0f | %.0f%% | %.2f | %.2f |",
                 desc, A->rows, A->nnz, rs.mean, rs.std, fns[i].name, 1e3 * t, gbs,
                 100.0 * gbs / copy_bw, t_ref / t, cg / t_ref);
        printf("%s\n", line);
        if (md) fprintf(md, "%s\n", line);
    }
done:
    free(xh);
    gs_vec_destroy(&x);
    gs_vec_destroy(&y);
    gs_csr_destroy(&dA);
    gs_csr_destroy(&A);
}

int main(int argc, char **argv)
{
    const char *backend = "cuda", *mdpath = NULL;
    int reps = 50, first = 1;
    for (; first < argc && argv[first][0] == '-'; first += 2) {
        if (first + 1 >= argc) break;
        if (strcmp(argv[first], "--backend") == 0) backend = argv[first + 1];
        if (strcmp(argv[first], "--reps") == 0) reps = atoi(argv[first + 1]);
        if (strcmp(argv[first], "--md") == 0) mdpath = argv[first + 1];
    }
    gs_loc loc = GS_LOC_HOST;
    char dev[128] = "host CPU";
    if (strcmp(backend, "cuda") == 0) {
        if (gs_backend_cuda_devices(NULL) > 0 && gs_backend_cuda_init(0, dev, sizeof dev) == GS_OK)
            loc = GS_LOC_DEVICE;
        else
            fprintf(stderr, "bench_spmv: no usable GPU (%s): timing the host\n",
                    gs_error_message());
        gs_error_clear();
    }
    double bw = copy_bandwidth(loc);
    FILE *md = mdpath ? fopen(mdpath, "w") : NULL;
    const char *hdr = "| matrix | rows | nnz | mean | std | format | median ms | GB/s | % of copy | "
                      "speedup vs cuSPARSE | CG iteration / cuSPARSE SpMV |\n"
                      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |";
    printf("device: %s\ncopy bandwidth: %.0f GB/s (read + write)\n\n%s\n", dev, bw, hdr);
    if (md) fprintf(md, "device: %s\n\ncopy bandwidth: %.0f GB/s (read + write)\n\n%s\n", dev, bw, hdr);
    if (first < argc)
        for (int i = first; i < argc; i++) bench_matrix(argv[i], loc, bw, reps, md);
    else
        for (size_t i = 0; i < sizeof STANDARD / sizeof STANDARD[0]; i++)
            bench_matrix(STANDARD[i], loc, bw, reps, md);
    if (md) fclose(md);
    return 0;
}

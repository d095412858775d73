/* bench_spmv: SpMV of every format beside cuSPARSE CSR, conversion cost, CG iteration cost and
 * the host-to-device upload, all from one run.
 *
 *   bench_spmv [--backend cuda|host] [--reps N] [--md FILE] [--formats LIST] [--no-cg]
 *              [MATRIX ...]
 *
 * MATRIX is a Matrix Market/HDF5 file, "FILE*k" (the file's matrix repeated k times on the
 * diagonal, to fill the GPU with a real matrix), or a generator "type:stencil:size[:dof]"
 * (poisson:7:128, poisson:7:64:4, powerlaw:0:1000000). Without MATRIX, the standard set.
 * LIST is comma-separated formats, each "name[:key=value...]" with keys h, sort, mod (CMRS),
 * g1=dynamic|block, child (SURAA), fill, b (CDS), or a registered tuning key by its name after
 * "spmv." (cmrs_h=8, suraa_g1=auto); default "cusparse,csr,cmrs,suraa,cds".
 *
 * Method (docs/design.md, "Performance method"): device-to-device copy bandwidth first, and the pinned host-to-device
 * bandwidth; then per matrix and format, a conversion (discarded: first-use costs) and a timed
 * one; warm-up, then the median over 15 batches of the time of one SpMV (a batch runs N SpMVs
 * back to back and synchronizes once); GB/s by the format's own byte model (CSR: 12 nnz +
 * 4 (n+1) + 8 n + 8 m; CDS: 8 per stored value + 16 n ...); % of the copy bandwidth; speedup
 * over cuSPARSE; conversion time over the format's SpMV time. Then CG without preconditioner
 * with each format's SpMV: time per iteration, from the difference of a 300- and a
 * 100-iteration run, over the time of one cuSPARSE SpMV (the first format on the host). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gs_backend.h"
#include "gs_bench.h"
#include "gs_gen.h"
#include "gs_krylov.h"
#include "gs_problem.h"
#include "gs_spmat.h"
#include "gs_time.h"

#define BATCHES 15
#define MAXF 32

static const char *STANDARD[] = {
    "poisson:7:128",  "poisson:7:160",     "poisson:27:128",    "poisson:7:100:2",
    "poisson:7:64:4", "poisson:7:70:6",    "convdiff:7:128",    "anisotropic:5:1024",
    "powerlaw:0:1000000", "powerlaw:0:4000000"};

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
        qsort(t, BATCHES, sizeof t[0], gs_bench_cmp_double);
        bw = 2.0 * 8.0 * (double)n / t[BATCHES / 2] / 1e9;
    }
    gs_vec_destroy(&a);
    gs_vec_destroy(&b);
    gs_error_clear();
    return bw;
}

/* Host-to-device bandwidth in GB/s from pinned memory (256 MB, median of 7), 0 without a
 * device backend: the backend's own byte copy (gs_backend_ops.put) from a page-locked block. */
static double pinned_h2d_bandwidth(void)
{
    double bw = 0.0, t[7];
    const size_t n = (size_t)256 << 20;
    const gs_backend_ops *be = gs_backend_get(GS_LOC_DEVICE);
    void *h = NULL, *d = NULL;
    if (be && gs_alloc_pinned(n, 1, "bandwidth probe", &h) == GS_OK &&
        be->alloc(n, "bandwidth probe", &d) == GS_OK) {
        memset(h, 1, n);
        int ok = be->put(d, h, n) == GS_OK && be->sync() == GS_OK;
        for (int i = 0; ok && i < 7; i++) {
            double t0 = gs_time_now();
            ok = be->put(d, h, n) == GS_OK && be->sync() == GS_OK;
            t[i] = gs_time_now() - t0;
        }
        qsort(t, 7, sizeof t[0], gs_bench_cmp_double);
        if (ok) bw = (double)n / t[3] / 1e9;
    }
    gs_free(h);
    if (d) be->free(d);
    gs_error_clear();
    return bw;
}

/* Upload figures of one matrix: its CSR bytes; gs_csr_upload seconds (median, min, max of 5
 * after a warm-up) from the arrays as loaded, which is what gsolve uploads (page-locked when the
 * backend started first), and from a pageable copy; seconds of a host copy of the matrix into
 * new page-locked and new pageable arrays (allocation, page faults and memcpy: what making the
 * host matrix pinned costs). */
typedef struct upload_row {
    double bytes, as_read[4], pageable[4], copy_pinned, copy_pageable;
    int pinned; /* the loaded matrix's arrays are page-locked */
} upload_row;

/* out[0..3] = median, min, max seconds of gs_csr_upload of A (5 after one warm-up), and the
 * median of the transfers alone (device allocation and SpMV set-up left out); NaN on error */
static void upload_time(const gs_csr *A, gs_loc loc, double *out)
{
    double t[5], x[5];
    gs_csr *dA = NULL;
    out[0] = out[1] = out[2] = out[3] = NAN;
    if (gs_csr_upload(A, loc, &dA) != GS_OK) return;
    gs_csr_destroy(&dA);
    for (int i = 0; i < 5; i++) {
        double t0 = gs_time_now(), h0 = gs_backend_h2d_seconds();
        if (gs_csr_upload(A, loc, &dA) != GS_OK) return;
        gs_backend_get(loc)->sync();
        t[i] = gs_time_now() - t0;
        x[i] = gs_backend_h2d_seconds() - h0;
        gs_csr_destroy(&dA);
    }
    qsort(t, 5, sizeof t[0], gs_bench_cmp_double);
    qsort(x, 5, sizeof x[0], gs_bench_cmp_double);
    out[0] = t[2], out[1] = t[0], out[2] = t[4], out[3] = x[2];
}

/* Seconds of gs_csr_copy of A with pinned allocation on or off; the copy in *out (NULL: freed) */
static double host_copy(const gs_csr *A, int pinned, gs_csr **out)
{
    gs_csr *B = NULL;
    int was = gs_mem_pinned_enable(pinned);
    double t0 = gs_time_now(), t = NAN;
    if (gs_csr_copy(A, &B) == GS_OK) t = gs_time_now() - t0;
    gs_mem_pinned_enable(was);
    if (out)
        *out = B;
    else
        gs_csr_destroy(&B);
    return t;
}

/* The upload figures of host matrix A */
static void upload_figures(const gs_csr *A, gs_loc loc, upload_row *u)
{
    gs_csr *P = NULL;
    u->bytes = 12.0 * A->nnz + 4.0 * ((double)A->rows + 1);
    u->pinned = gs_mem_is_pinned(A->val) && gs_mem_is_pinned(A->colind);
    upload_time(A, loc, u->as_read);
    u->copy_pinned = host_copy(A, 1, NULL);
    u->copy_pageable = host_copy(A, 0, &P);
    if (P) upload_time(P, loc, u->pageable);
    gs_csr_destroy(&P);
    gs_error_clear();
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

/* Seconds per CG iteration as gsolve runs it (own CSR kernel: reductions fused into the SpMV):
 * the difference of a 300- and a 100-iteration run over 200, so set-up and allocation cancel.
 * NaN where CG stops early (breakdown on a nonsymmetric matrix, or converged to round-off). */
static double cg_iteration(const gs_spmat *M)
{
    gs_vec *b = NULL, *x = NULL;
    double per = NAN;
    if (M->rows != M->cols) return NAN;
    gs_spmat_op ctx; /* the driver's operator: fused dots with the CSR kernel */
    gs_linop op = gs_spmat_linop(M, &ctx);
    if (gs_vec_create(M->rows, M->loc, &b) == GS_OK &&
        gs_vec_create(M->rows, M->loc, &x) == GS_OK && gs_vec_fill(1.0, b) == GS_OK) {
        cg_run(&op, b, x, 20, M->loc); /* warm-up */
        per = (cg_run(&op, b, x, 300, M->loc) - cg_run(&op, b, x, 100, M->loc)) / 200.0;
    }
    gs_vec_destroy(&b);
    gs_vec_destroy(&x);
    gs_error_clear();
    return per;
}

/* One matrix: every format's conversion, SpMV and CG iteration; one table row each. */
static void bench_matrix(const char *spec, gs_loc loc, double copy_bw, int reps, int cg,
                         const gs_bench_fmt *fs, int nf, FILE *md, upload_row *up)
{
    gs_csr *A = NULL, *dA = NULL;
    gs_vec *x = NULL, *y = NULL;
    char desc[128], line[4800];
    double *xh = NULL, t_ref = NAN, cg_ref = NAN;
    double t0 = gs_time_now();
    if (gs_bench_load(spec, &A, desc, sizeof desc) != GS_OK || gs_csr_upload(A, loc, &dA) != GS_OK ||
        gs_vec_create(A->cols, loc, &x) != GS_OK || gs_vec_create(A->rows, loc, &y) != GS_OK ||
        !(xh = malloc((size_t)(A->cols > 0 ? A->cols : 1) * sizeof *xh))) {
        fprintf(stderr, "bench_spmv: %s: %s\n", spec, gs_error_message());
        gs_error_clear();
        goto done;
    }
    fprintf(stderr, "%s: loaded in %.1f s\n", desc, gs_time_now() - t0);
    gs_gen_random_vector(7, xh, A->cols);
    gs_vec_set_host(x, xh);
    gs_row_stats rs;
    gs_csr_row_stats(A, &rs);
    if (loc == GS_LOC_DEVICE) upload_figures(A, loc, up);
    for (int i = 0; i < nf; i++) {
        gs_spmat *M = NULL;
        if (fs[i].f == GS_FORMAT_CUSPARSE && loc != GS_LOC_DEVICE) continue;
        gs_status st = gs_spmat_create(dA, fs[i].f, &fs[i].p, &M); /* first use: discarded */
        gs_spmat_destroy(&M);
        if (st == GS_OK) st = gs_spmat_create(dA, fs[i].f, &fs[i].p, &M);
        if (st != GS_OK) {
            snprintf(line, sizeof line, "| %s | %d | %d | %.2f | %.2f | %s | refused: %s | | | | | |",
                     desc, A->rows, A->nnz, rs.mean, rs.std, fs[i].label, gs_error_message());
            gs_error_clear();
            gs_bench_emit(md, line);
            continue;
        }
        double t = gs_bench_median_spmv(M, x, y, reps, BATCHES);
        if (isnan(t_ref)) t_ref = t;
        double gbs = gs_spmat_bytes(M) / t / 1e9, cgi = cg ? cg_iteration(M) : NAN;
        if (isnan(cg_ref)) cg_ref = cgi;
        char d[160];
        gs_spmat_describe(M, d, sizeof d);
        snprintf(line, sizeof line,
                 "| %s | %d | %d | %.2f | %.2f | %s | %.4f | %.0f | %.0f%% | %.2f | %.1f | %.2f | %s |",
                 desc, A->rows, A->nnz, rs.mean, rs.std, fs[i].label, 1e3 * t, gbs,
                 100.0 * gbs / copy_bw, t_ref / t, M->convert_s / t, cgi / t_ref, d);
        gs_bench_emit(md, line);
        gs_spmat_destroy(&M);
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
    const char *backend = "cuda", *mdpath = NULL, *flist = "cusparse,csr,cmrs,suraa,cds";
    int reps = 50, first = 1, cg = 1, nf = 0;
    gs_bench_fmt fs[MAXF];
    while (first < argc && argv[first][0] == '-') {
        if (strcmp(argv[first], "--no-cg") == 0) {
            cg = 0;
            first++;
            continue;
        }
        if (first + 1 >= argc) break;
        if (strcmp(argv[first], "--backend") == 0) backend = argv[first + 1];
        if (strcmp(argv[first], "--reps") == 0) reps = atoi(argv[first + 1]);
        if (strcmp(argv[first], "--md") == 0) mdpath = argv[first + 1];
        if (strcmp(argv[first], "--formats") == 0) flist = argv[first + 1];
        first += 2;
    }
    char lbuf[1024], *save = NULL;
    gs_str_copy(lbuf, sizeof lbuf, flist);
    for (char *t = strtok_r(lbuf, ",", &save); t && nf < MAXF; t = strtok_r(NULL, ",", &save))
        if (!gs_bench_parse_format(t, &fs[nf++])) {
            fprintf(stderr, "bench_spmv: bad format \"%s\"\n", t);
            return 2;
        }
    char dev[128];
    gs_loc loc = gs_bench_backend(backend, "bench_spmv", dev, sizeof dev);
    double bw = copy_bandwidth(loc), pinned = loc == GS_LOC_DEVICE ? pinned_h2d_bandwidth() : 0;
    FILE *md = mdpath ? fopen(mdpath, "w") : NULL;
    char head[512];
    snprintf(head, sizeof head,
             "device: %s\n\ncopy bandwidth: %.0f GB/s (read + write); pinned host-to-device: "
             "%.1f GB/s\n", dev, bw, pinned);
    gs_bench_emit(md, head);
    gs_bench_emit(md, "| matrix | rows | nnz | mean | std | format | median ms | GB/s | % of copy | "
             "speedup vs cuSPARSE | conversion / SpMV | CG iteration / cuSPARSE SpMV | stored as |");
    gs_bench_emit(md, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    int nm = first < argc ? argc - first : (int)(sizeof STANDARD / sizeof STANDARD[0]);
    upload_row *up = calloc((size_t)nm, sizeof *up);
    for (int i = 0; i < nm; i++)
        bench_matrix(first < argc ? argv[first + i] : STANDARD[i], loc, bw, reps, cg, fs, nf, md,
                     &up[i]);
    if (loc == GS_LOC_DEVICE) {
        gs_bench_emit(md, "\nUpload of the CSR arrays (gs_csr_upload, median [min-max] of 5 after a "
                 "warm-up) against bytes / pinned bandwidth. \"as read\": the arrays as the "
                 "matrix was loaded after the backend started, the path gsolve takes (pinned: "
                 "page-locked, one direct copy each); \"pageable\": a pageable copy (staged "
                 "through pinned buffers). Host copy: gs_csr_copy into new page-locked / "
                 "pageable arrays (allocation + memcpy), what pinning costs on the host. "
                 "Transfer: the copies alone (median), as gsolve's console reports them.\n");
        gs_bench_emit(md, "| matrix | MB | pinned | as read ms | GB/s | ratio [min-max] | transfer ratio | "
                 "pageable ms | ratio [min-max] | transfer ratio | pinned-copy ms | host copy ms "
                 "pinned / pageable |");
        gs_bench_emit(md, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (int i = 0; i < nm; i++) {
            char line[512];
            const upload_row *u = &up[i];
            double ideal = u->bytes / (pinned * 1e9);
            snprintf(line, sizeof line,
                     "| %s | %.1f | %s | %.2f | %.1f | %.2f [%.2f-%.2f] | %.2f | %.2f | "
                     "%.2f [%.2f-%.2f] | %.2f | %.2f | %.1f / %.1f |",
                     first < argc ? argv[first + i] : STANDARD[i], u->bytes / 1e6,
                     u->pinned ? "yes" : "no", 1e3 * u->as_read[0], u->bytes / u->as_read[0] / 1e9,
                     u->as_read[0] / ideal, u->as_read[1] / ideal, u->as_read[2] / ideal,
                     u->as_read[3] / ideal, 1e3 * u->pageable[0], u->pageable[0] / ideal,
                     u->pageable[1] / ideal, u->pageable[2] / ideal, u->pageable[3] / ideal,
                     1e3 * ideal, 1e3 * u->copy_pinned, 1e3 * u->copy_pageable);
            gs_bench_emit(md, line);
        }
    }
    free(up);
    if (md) fclose(md);
    return 0;
}

/* gs_spgemm_cuda.cu: C = A*B on the device, the row-binned DCSR SpGEMM (King et al. 2016,
 * section III-B): its driver (below), and the device table gs_spgemm_cuda_ops (the product, by
 * DCSR or by cuSPARSE's SpGEMM beside it, and the transpose; the Galerkin product is gs_spgemm.c's
 * composition of these). The binning, the bins' kernels, cuSPARSE's product and the transpose are
 * in gs_spgemm_binning_cuda.cu, gs_spgemm_bins_cuda.cu, gs_spgemm_cusparse_cuda.cu and
 * gs_spgemm_transpose_cuda.cu, what they share in gs_spgemm_cuda_impl.cuh.
 *
 * DCSR method: (1) count each row's partial products and the rows of each bin (one kernel;
 * skipped when A's and B's longest rows show that every row fits the 33-64 bin, see
 * gs_spgemm_can_skip_bins);
 * (2) place the rows by bin (a warp-aggregated scatter; skipped when one launch takes every
 * row, which then go in their order): 1-32, 33-64, ..., 2049-4096 in shared
 * memory, 4097+ first in a 4096-slot shared table and, when a row has more columns than that,
 * in global memory;
 * (3) C's capacity: bounded (few products a row, or few in all: the products) or sampled
 * (estimated from a sample of each bin's rows); rows take segments from a bump pointer, one
 * atomic per block; (4) per bin, a group of T threads per row forms the row's products into a
 * shared-memory hash table (the bin bounds the products, so the table never fills), compacts
 * it, and each entry lands at its rank among the row's columns (groups of up to 32 lanes work
 * warp-synchronously: ballots, shuffles, no block barrier); the 33-64 bin instead sorts each
 * row's products in registers (8 lanes, a bitonic network) and sums the runs of equal columns;
 * (5) sampled rows that found the capacity exhausted are listed, C grows by exactly what they
 * need and they run again; (6) defragmentation (Algorithm 4) gives the exact CSR: when one
 * warp-bin launch took every row in order, each block's rows lie together (a chunk) and the
 * chunks move whole (gs_dcsr_cuda_chunked_to_csr), else each entry finds its row. All on
 * gs_cuda_g.stream; the counts read back synchronize a few times (two in the bounded case without
 * spilled rows). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_spgemm_cuda_impl.cuh"
#include "gs_knob.h"
#include "gs_log.h"
#include "gs_time.h"

sg_track gs_spgemm_track; /* the memory tracker (gs_spgemm_cuda_impl.cuh) */

/* GSOLVE_SPGEMM_TRACE: milliseconds since the last call, after the stream drains (0 without it) */
static int g_trace;
static double g_bin_ms[GS_SPGEMM_BINS];
static double stage_ms(int on)
{
    static double last;
    double now;
    if (!on) return 0.0;
    (void)cudaStreamSynchronize(gs_cuda_g.stream);
    now = gs_time_now();
    const double d = 1e3 * (now - last);
    last = now;
    return d;
}

/* every bin's kernel over the binned rows perm (compute mode); perm NULL: one_launch */
static gs_status run_bins(const sg_args &a, const int32_t *perm, const binning *bn, int glog2,
                          int32_t cols)
{
    gs_status st = GS_OK;
    bin_launch L[GS_SPGEMM_BINS];
    const int cnt = gs_spgemm_plan_bins(bn, L);
    for (int j = 0; j < cnt; j++) {
        const int b = L[j].b;
        const int64_t lo = L[j].lo, n = L[j].n;
        (void)stage_ms(g_trace);
        if (b < GS_SPGEMM_BINS - 1) {
            GS_CHECK(gs_spgemm_run_shared_bin(b, a, perm ? perm + lo : NULL, n, 1, 0, glog2));
        } else {
            /* the 4096-slot shared table first: rows of many products mostly have far fewer
             * columns (a Galerkin row: thousands of products, tens of columns), and shared
             * atomics beat global ones on a few hot columns; rows with more columns than
             * slots spill to the global-memory tables */
            unsigned long long nspill = 0;
            GS_CHECK(gs_spgemm_run_shared_bin(GS_SPGEMM_BINS - 2, a, perm + lo, n, 1, 0, glog2));
            GS_CHECK(gs_cuda_d2h(&nspill, a.ctl + C_SPILL, sizeof nspill));
            if (nspill > 0)
                GS_CHECK(gs_spgemm_run_global_bin(a, a.spill, (int64_t)nspill, bn->maxp, cols));
        }
        g_bin_ms[b] += stage_ms(g_trace);
    }
done:
    return st;
}

static __global__ void set_ull_kernel(unsigned long long *p, unsigned long long v)
{
    *p = v;
}

/* Bounded mode: when C's products number at most this many (2^29: 6 GB of columns and values),
 * C's capacity is the products, which no set of rows can exceed, so nothing is sampled, read
 * back or redone. Beyond it, or when that much device memory is not free, the capacity is
 * estimated from a sample. Either way rows take segments from the bump pointer as they finish,
 * one atomic per block of rows. (Row r's segment at the products before it, from a scan of the
 * products, needed no atomics and no barrier but cost a scan, whose two launches were a tenth of
 * a small product's host time. With the bump pointer 7-point R*(AP) went from 0.155-0.173 to
 * 0.134-0.142 ms; 7-point A*A's bin kernel from 0.65 to 0.69 ms, but its DCSR -> CSR got as
 * much faster, the rows packed instead of spread over the products' room: the scan for tall
 * products only, tried, made 7-point A*A 1.06 ms against 1.03.)
 * GSOLVE_SPGEMM_BOUND_MAX (entries) overrides the limit: the tests set 0 to run the sampled path
 * and its capacity growth. */
static int64_t bound_max(void)
{
    const char *e = gs_knob("GSOLVE_SPGEMM_BOUND_MAX");
    const int64_t v = e && *e ? (int64_t)strtoll(e, NULL, 10) : ((int64_t)1 << 29);
    return v < GS_MAX_INDEX - 1024 ? v : GS_MAX_INDEX - 1024; /* DCSR offsets are 32-bit */
}

/* Bounded mode also needs a small product (at most RESERVE_ALWAYS products: 192 MB reserved)
 * or very short rows (at most RESERVE_PER_ROW products a row, so at most that many slots a row
 * go unused). Rows of more products mostly sum many into fewer entries (a Galerkin R (A P):
 * 320 products, 34 entries; 7-point A P: 24 products, 8 entries), and reserving their products
 * costs more than the sampled estimate (0.1-0.7 ms): a fresh allocation grows the device's
 * pool at about 0.7 GB/ms, and when several ranks share a node their pools grow one after the
 * other (7-point A P at 16.8M rows a rank: 4.9 GB bounded, 6.9 ms alone and 26-33 ms with four
 * ranks at once; sampled, 1.7 GB). Measured on 4 x H200 with these products sampled: the setup
 * of 256^3 on one GPU 0.159 -> 0.145 s, of 256 x 512 x 512 on four 0.347 -> 0.327 s
 * (bench/results/mpi_scaling_h200x4_2026-11-26b.md, item 2). Even from a pool grown
 * ahead, a block of a few hundred MB costs about 1.5-4 ms a GB when the pool maps it anew, more
 * with four ranks at once: the 256^3 hierarchy's level-2 A P (26.5M products, 320 MB bounded,
 * 1.3M entries) took 0.53 ms for its capacity on one GPU and 1.1-1.4 ms on each of four
 * (mpi_scaling_2026-11-26m, w1_spgemm.log and w4_spgemm.log), hence 16M products, not 64M. */
#define RESERVE_PER_ROW 8
#define RESERVE_ALWAYS ((int64_t)16 << 20)

#define LONG_BINS 8                         /* bins 8 and 9: rows of 2049+ products */
#define LONG_BOUND_MAX ((int64_t)4 << 20) /* such a bin's bound taken as it is: 48 MB */

/* C's capacity: each bin's sampled entries per row times its rows, plus 3%. Bins 8 and 9 are
 * bounded by their products (at most cols a row) where that bound is at most LONG_BOUND_MAX
 * entries, and so is the last bin where a sampled row's columns overflowed the shared table
 * (the sample does not count such a row). Galerkin rows of thousands of products hold tens of
 * columns (3D Poisson's level-1 R (A P): 3400 products, 81 entries a row), so bounding bins 8
 * and 9 by their products always, as before, reserved 42 times their entries: 1.9 GB and 1.0 ms
 * for 256^3 on one GPU, 1.1-1.5 ms on each of four ranks. Sampling a bin of rows of 200k
 * products costs their latency, a block a row (0.7 ms for 3D elasticity's 1806 x 1806 Galerkin
 * product, whose bound is 3.3M entries). A short estimate costs a redo of the rows that found
 * no room, never a wrong product. */
#define SAMPLE_ROWS 512                     /* rows a bin's sample takes at most ... */
#define SAMPLE_PRODUCTS ((int64_t)8 << 20)  /* ... and about this many products ... */
#define SAMPLE_MIN_ROWS 32                  /* ... but at least this many rows */

/* every stride-th row of a bin of n rows and prod products is sampled: at most SAMPLE_ROWS
 * rows, and about SAMPLE_PRODUCTS products where its rows are long (3D elasticity's coarse
 * Galerkin rows: 205k products each; 600 of them sampled took 1.3 ms, a third of the product),
 * yet at least SAMPLE_MIN_ROWS rows */
static int64_t sample_stride(int64_t n, int64_t prod)
{
    int64_t s = n > SAMPLE_ROWS ? n / SAMPLE_ROWS : 1;
    const int64_t by_prod = prod / SAMPLE_PRODUCTS, most = n / SAMPLE_MIN_ROWS;
    if (by_prod > s) s = by_prod;
    if (s > most) s = most;
    return s > 1 ? s : 1;
}

static gs_status estimate(const sg_args &a, const int32_t *perm, const binning *bn, int glog2,
                          int32_t cols, int64_t *cap)
{
    gs_status st = GS_OK;
    unsigned long long h[C_N];
    double est = 0.0;
    const int last = GS_SPGEMM_BINS - 1;
    double bound[GS_SPGEMM_BINS]; /* a bin's entries at most: its products, cols a row */
    for (int b = 1; b < GS_SPGEMM_BINS; b++) {
        const int64_t n = bn->start[b + 1] - bn->start[b];
        const double lim = (double)n * cols;
        bound[b] = (double)bn->prod[b] < lim ? (double)bn->prod[b] : lim;
        if (n > 0 && (b < LONG_BINS || bound[b] > (double)LONG_BOUND_MAX))
            GS_CHECK(gs_spgemm_run_shared_bin(b, a, perm + bn->start[b], n,
                                              sample_stride(n, bn->prod[b]), 1, glog2));
    }
    GS_CHECK(gs_cuda_d2h(h, a.ctl, sizeof h));
    for (int b = 1; b < GS_SPGEMM_BINS; b++) {
        const double n = (double)(bn->start[b + 1] - bn->start[b]);
        if (b >= LONG_BINS && (!h[C_SROWS + b] || (b == last && h[C_SPILL] > 0)))
            est += bound[b]; /* not sampled, or not all counted: bounded */
        else if (h[C_SROWS + b])
            est += (double)h[C_SOUT + b] / (double)h[C_SROWS + b] * n;
    }
    est = est * 1.03 + 1024.0;
    *cap = est > 9e18 ? (int64_t)9e18 : (int64_t)est; /* the caller refuses more than 2^31 - 1 */
done:
    return st;
}

/* C's arrays grown to newcap entries (the first cap kept), the bump pointer set to the old end */
static gs_status grow(gs_dcsr *D, int64_t newcap)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    int32_t *nc = NULL;
    double *nv = NULL;
    GS_CHECK(gs_cuda_alloc((size_t)newcap * 4, "SpGEMM result columns", (void **)&nc));
    GS_CHECK(gs_cuda_alloc((size_t)newcap * 8, "SpGEMM result values", (void **)&nv));
    acct(newcap * 12);
    GS_CUDA_CALL(
        cudaMemcpyAsync(nc, D->colind, (size_t)D->capacity * 4, cudaMemcpyDeviceToDevice, s));
    GS_CUDA_CALL(cudaMemcpyAsync(nv, D->val, (size_t)D->capacity * 8, cudaMemcpyDeviceToDevice, s));
    set_ull_kernel<<<1, 1, 0, s>>>(D->top, (unsigned long long)D->capacity);
    GS_CUDA_LAUNCHED("spgemm_set_top");
    GS_CUDA_CALL(cudaStreamSynchronize(s));
    gs_cuda_free(D->colind);
    gs_cuda_free(D->val);
    acct(-D->capacity * 12);
    D->colind = nc, D->val = nv, nc = NULL, nv = NULL;
    D->capacity = newcap;
done:
    gs_cuda_free(nc);
    gs_cuda_free(nv);
    return st;
}

static size_t dcsr_bytes(const gs_dcsr *D)
{
    return (size_t)(D->k * D->pitch) * 4 + ((size_t)D->rows + 1) * 4 + 8 + (size_t)D->capacity * 12;
}

/* C = A*B by the row-binned DCSR SpGEMM (see the top of this file) */
static gs_status dcsr_product(const gs_csr *A, const gs_csr *B, gs_spgemm_info *info, gs_csr **C)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    const int64_t rows = A->rows, n1 = rows + 1;
    int64_t *prod = NULL, cap = 0, retried = 0, total = 0;
    int32_t *perm = NULL, *failed = NULL, *list2 = NULL, *spill = NULL;
    unsigned long long *ctl = NULL, h[C_N];
    gs_dcsr *D = NULL;
    const gs_dcsr_params dp = {1, 0, 0.0};
    binning bn, bn2;
    sg_args a;
    int glog2 = 0, bounded = 0, inorder = 0, unbinned = 0, chunk_rows = 0;
    int64_t nchunk = 0;
    int32_t *chunks = NULL;
    double ms_bin = 0, ms_cap = 0, ms_run = 0, ms_csr = 0;
    *C = NULL;
    g_trace = gs_knob("GSOLVE_SPGEMM_TRACE") != NULL;
    memset(g_bin_ms, 0, sizeof g_bin_ms);
    (void)stage_ms(g_trace);
    { /* the products per row, the counters, the binned, failed and spilled rows: one
         allocation (prod at its start, freed by tfree(prod)) */
        const size_t b4 = gs_align256((size_t)n1 * 4), b8 = gs_align256((size_t)n1 * 8),
                     bc = gs_align256(sizeof h);
        char *base = NULL;
        GS_CHECK(talloc(b8 + bc + 3 * b4, "SpGEMM row scratch", (void **)&base));
        prod = (int64_t *)base;
        ctl = (unsigned long long *)(base + b8);
        perm = (int32_t *)((char *)ctl + bc);
        failed = (int32_t *)((char *)perm + b4);
        spill = (int32_t *)((char *)failed + b4);
    }
    unbinned = gs_spgemm_can_skip_bins(A, B);
    if (unbinned) { /* every row in the sorted bin, the products bounded, counted by the rows */
        const int64_t bound = (int64_t)A->nnz * gs_cuda_csr_max_row(B);
        GS_CUDA_CALL(cudaMemsetAsync(ctl, 0, (size_t)C_N * sizeof *ctl, s));
        memset(&bn, 0, sizeof bn);
        for (int b = 3; b <= GS_SPGEMM_BINS; b++) bn.start[b] = rows;
        bn.prod[2] = total = bound;
        inorder = 1;
    } else {
        GS_CHECK(gs_spgemm_count_bins(rows, prod, ctl, A, B, &bn, &inorder, &total));
        if (!inorder) GS_CHECK(gs_spgemm_bin_rows_place(rows, NULL, prod, perm, ctl));
    }
    ms_bin = stage_ms(g_trace);
    {
        const double meanB = B->rows > 0 ? (double)B->nnz / B->rows : 0.0;
        while (glog2 < 5 && (double)(1 << glog2) < meanB) glog2++; /* lanes per row of B */
    }
    memset(&a, 0, sizeof a);
    a.arp = A->rowptr, a.acol = A->colind, a.aval = A->val;
    a.brp = B->rowptr, a.bcol = B->colind, a.bval = B->val;
    a.ctl = ctl, a.failed = failed, a.spill = spill;
    a.bcols = B->cols;
    if (total <= bound_max() && (total <= RESERVE_ALWAYS || total <= RESERVE_PER_ROW * rows)) {
        cap = total + 1024; /* bounded: the products */
        st = gs_dcsr_create(rows, B->cols, cap, &dp, GS_LOC_DEVICE, &D);
        if (st == GS_ERR_NOMEM) { /* no room for the bound: sample as below */
            gs_error_clear();
            st = GS_OK;
        }
        GS_CHECK(st);
        bounded = D != NULL;
    }
    if (!D && unbinned) { /* the sample needs the bins */
        unbinned = 0;
        GS_CHECK(gs_spgemm_count_bins(rows, prod, ctl, A, B, &bn, &inorder, &total));
    }
    if (!D) {
        if (inorder)
            GS_CHECK(gs_spgemm_bin_rows_place(rows, NULL, prod, perm, ctl)); /* the sample's */
        GS_CHECK(estimate(a, perm, &bn, glog2, B->cols, &cap));
        if (cap > GS_MAX_INDEX) { /* the callers that can split the product do (info) */
            if (info) info->too_large = cap;
            GS_FAIL(GS_ERR_UNSUPPORTED, "SpGEMM: the product would have about %lld entries, more "
                    "than 2^31 - 1", (long long)cap);
        }
        GS_CHECK(gs_dcsr_create(rows, B->cols, cap, &dp, GS_LOC_DEVICE, &D));
        /* the sampling counted into the counters the rows' kernels use */
        GS_CUDA_CALL(cudaMemsetAsync(ctl, 0, sizeof h, s));
    }
    acct((long long)dcsr_bytes(D));
    ms_cap = stage_ms(g_trace);
    a.offsets = D->offsets, a.sizes = D->sizes, a.ccol = D->colind, a.cval = D->val;
    a.top = D->top, a.capacity = D->capacity;
    if (bounded && inorder) { /* one warp-bin launch over the rows in order: chunks */
        bin_launch L[GS_SPGEMM_BINS];
        if (gs_spgemm_plan_bins(&bn, L) == 1 && L[0].b <= 3)
            chunk_rows = gs_spgemm_warp_bin_rows(L[0].b, B->cols);
    }
    if (chunk_rows) { /* the chunk table: starts, then entries and a zero */
        nchunk = (rows + chunk_rows - 1) / chunk_rows;
        GS_CHECK(talloc((size_t)(2 * nchunk + 1) * 4, "SpGEMM chunk table", (void **)&chunks));
        a.ch_addr = chunks, a.ch_tot = chunks + nchunk;
        GS_CUDA_CALL(cudaMemsetAsync(a.ch_tot + nchunk, 0, sizeof *a.ch_tot, s));
    }
    a.count_prod = unbinned;
    GS_CHECK(run_bins(a, inorder ? NULL : perm, &bn, glog2, B->cols));
    if (unbinned) /* the products the rows counted, read after DCSR -> CSR's wait */
        GS_CUDA_CALL(cudaMemcpyAsync((unsigned long long *)gs_cuda_g.h_red + C_PROD + 2,
                                     ctl + C_PROD + 2, sizeof *ctl, cudaMemcpyDeviceToHost, s));
    h[C_NFAIL] = 0;
    if (!bounded) GS_CHECK(gs_cuda_d2h(h, ctl, sizeof h)); /* the estimate can fall short */
    for (int iter = 0; h[C_NFAIL] > 0; iter++) {
        /* capacity exhausted: grow by exactly what the failed rows need, redo only them */
        const int64_t nfail = (int64_t)h[C_NFAIL], need = (int64_t)h[C_NEED];
        if (iter == 3) GS_FAIL(GS_ERR_INTERNAL, "SpGEMM: rows still failing after growth");
        if (D->capacity + need + 1024 > GS_MAX_INDEX) {
            if (info) info->too_large = D->capacity + need;
            GS_FAIL(GS_ERR_UNSUPPORTED, "SpGEMM: the product has more than 2^31 - 1 entries");
        }
        GS_CHECK(grow(D, D->capacity + need + 1024));
        a.ccol = D->colind, a.cval = D->val, a.capacity = D->capacity;
        if (!list2) GS_CHECK(talloc((size_t)n1 * 4, "SpGEMM failed rows", (void **)&list2));
        GS_CUDA_CALL(
            cudaMemcpyAsync(list2, failed, (size_t)nfail * 4, cudaMemcpyDeviceToDevice, s));
        retried += nfail;
        GS_CHECK(gs_spgemm_bin_rows_issue(nfail, list2, prod, ctl, NULL, NULL));
        GS_CHECK(gs_spgemm_bin_rows_read(&bn2));
        GS_CHECK(gs_spgemm_bin_rows_place(nfail, list2, prod, perm, ctl));
        GS_CHECK(run_bins(a, perm, &bn2, glog2, B->cols));
        GS_CHECK(gs_cuda_d2h(h, ctl, sizeof h));
    }
    ms_run = stage_ms(g_trace);
    tfree(prod), tfree(list2);
    prod = NULL, perm = failed = list2 = spill = NULL, ctl = NULL;
    (void)stage_ms(g_trace);
    if (chunk_rows) { /* Algorithm 4 by chunks of rows */
        GS_CHECK(gs_dcsr_cuda_chunked_to_csr(D, nchunk, chunk_rows, a.ch_addr, a.ch_tot, C));
        acct((long long)(4 * n1 + 12 * (int64_t)(*C)->nnz));
    } else {
        GS_CHECK(gs_dcsr_to_csr(D, C)); /* Algorithm 4 into an exact CSR */
        acct((long long)(20 * n1 + 12 * (int64_t)(*C)->nnz));
        acct(-(long long)(16 * n1));
    }
    tfree(chunks);
    chunks = NULL;
    ms_csr = stage_ms(g_trace);
    if (unbinned) total = (int64_t)((const unsigned long long *)gs_cuda_g.h_red)[C_PROD + 2];
    if (info) {
        info->products = total;
        info->nnz = (*C)->nnz;
        for (int b = 0; b < GS_SPGEMM_BINS; b++) info->bin_rows[b] = bn.start[b + 1] - bn.start[b];
        info->capacity = cap;
        info->retried_rows = retried;
    }
    if (g_trace) {
        char line[640];
        size_t n = (size_t)snprintf(line, sizeof line,
                "spgemm: %lld x %lld, %lld products -> %lld entries, %s capacity %lld, "
                "%lld rows redone, %s, %s; rows per bin",
                (long long)rows, (long long)B->cols, (long long)total, (long long)(*C)->nnz,
                bounded ? "bounded" : "sampled", (long long)cap, (long long)retried,
                unbinned ? "not binned" : "binned",
                chunk_rows ? "moved by chunks" : "moved by rows");
        for (int b = 0; b < GS_SPGEMM_BINS && n < sizeof line; b++)
            n += (size_t)snprintf(line + n, sizeof line - n, " %lld",
                                  (long long)(bn.start[b + 1] - bn.start[b]));
        if (n < sizeof line)
            n += (size_t)snprintf(line + n, sizeof line - n,
                                  "; ms: bins %.3f, capacity %.3f, rows %.3f (", ms_bin, ms_cap,
                                  ms_run);
        for (int b = 1; b < GS_SPGEMM_BINS && n < sizeof line; b++)
            n += (size_t)snprintf(line + n, sizeof line - n, "%s%.3f", b > 1 ? " " : "",
                                  g_bin_ms[b]);
        if (n < sizeof line) snprintf(line + n, sizeof line - n, "), to CSR %.3f", ms_csr);
        gs_log(GS_LOG_INFO, "%s", line);
    }
done:
    tfree(prod), tfree(list2), tfree(chunks);
    if (D) acct(-(long long)dcsr_bytes(D));
    gs_dcsr_destroy(&D);
    return st;
}

static void track_reset(void)
{
    memset(&gs_spgemm_track, 0, sizeof gs_spgemm_track);
}

/* the table's product: the method's, its peak from the tracker */
static gs_status cuda_product(const gs_csr *A, const gs_csr *B, gs_spgemm_method m,
                              gs_spgemm_info *info, gs_csr **C)
{
    gs_status st = GS_OK;
    track_reset();
    GS_CHECK(m == GS_SPGEMM_CUSPARSE ? gs_spgemm_cusparse_product(A, B, info, C)
                                     : dcsr_product(A, B, info, C));
    if (info) info->peak_bytes = (size_t)gs_spgemm_track.peak;
done:
    return st;
}

static gs_status cuda_transpose(const gs_csr *A, size_t *peak_bytes, gs_csr **At)
{
    gs_status st = GS_OK;
    if (peak_bytes) *peak_bytes = 0;
    track_reset();
    GS_CHECK(gs_spgemm_transpose_cub(A, At));
    if (peak_bytes) *peak_bytes = (size_t)gs_spgemm_track.peak;
done:
    return st;
}

/* the device half of gs_spgemm.h (gs_backend_module(GS_LOC_DEVICE, GS_MODULE_SPGEMM)) */
extern "C" gs_status gs_spgemm_cuda_values(const gs_csr *X, const gs_csr *Y,
                                           gs_csr *C); /* gs_spgemm_values_cuda.cu */
extern "C" const gs_spgemm_ops gs_spgemm_cuda_ops = {
    cuda_product,           cuda_transpose,          gs_spgemm_cuda_values,
    gs_sparse_cuda_row_slice, gs_sparse_cuda_row_prefix, gs_sparse_cuda_vcat,
    gs_sparse_cuda_add,     gs_sparse_cuda_coo_csr};

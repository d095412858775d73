/* gs_spgemm_cuda_impl.cuh: what the files of the device SpGEMM share (CUDA code only):
 *   gs_spgemm_cuda.cu            the DCSR product (capacity, the bins' runs, growth, DCSR -> CSR),
 *                                its tracing, the entry points, the device table gs_spgemm_cuda_ops
 *   gs_spgemm_binning_cuda.cu    products per row, rows into bins, the plan of the bins' launches
 *   gs_spgemm_bins_cuda.cu       the bins' kernels (shared-memory hash, warp hash and sort; the
 *                                global-memory bin) and their launches
 *   gs_spgemm_cusparse_cuda.cu   cuSPARSE's product (the comparison path)
 *   gs_spgemm_transpose_cuda.cu  the transpose (CUB radix sort)
 * The method is described at the top of gs_spgemm_cuda.cu. */
#ifndef GS_SPGEMM_CUDA_IMPL_CUH
#define GS_SPGEMM_CUDA_IMPL_CUH

#include <stdint.h>

#include "gs_cuda_impl.h"
#include "gs_dcsr.h"
#include "gs_spgemm.h"

/* ---- device memory held by one call (peak includes the result, not the inputs) ----
 * One tracker for every file (defined in gs_spgemm_cuda.cu, reset by each entry point): talloc
 * allocates and counts, tforget stops tracking a block handed out in a result (still counted as
 * held), tfree frees and uncounts, acct counts what is allocated otherwise. */
#define TRACK_MAX 64
typedef struct sg_track {
    struct {
        void *p;
        size_t bytes;
    } tab[TRACK_MAX];
    long long live, peak;
} sg_track;
extern sg_track gs_spgemm_track;

static inline void acct(long long delta)
{
    gs_spgemm_track.live += delta;
    if (gs_spgemm_track.live > gs_spgemm_track.peak) gs_spgemm_track.peak = gs_spgemm_track.live;
}

static inline gs_status talloc(size_t bytes, const char *what, void **out)
{
    gs_status st = gs_cuda_alloc(bytes, what, out);
    if (st != GS_OK) return st;
    for (int i = 0; i < TRACK_MAX; i++)
        if (!gs_spgemm_track.tab[i].p) {
            gs_spgemm_track.tab[i].p = *out, gs_spgemm_track.tab[i].bytes = bytes;
            break;
        }
    acct((long long)bytes);
    return GS_OK;
}

/* stop tracking p (handed out as part of a result: still counted as held) */
static inline size_t tforget(void *p)
{
    for (int i = 0; p && i < TRACK_MAX; i++)
        if (gs_spgemm_track.tab[i].p == p) {
            gs_spgemm_track.tab[i].p = NULL;
            return gs_spgemm_track.tab[i].bytes;
        }
    return 0;
}

static inline void tfree(void *p)
{
    if (!p) return;
    acct(-(long long)tforget(p));
    gs_cuda_free(p);
}

/* ---- the rows' counters and the kernels' arguments ---- */
enum { /* the counters (ctl): rows and products per bin, the largest last-bin row, sampled
          entries and rows per bin, rows that found the capacity exhausted and their entries */
       C_CNT = 0,
       C_PROD = C_CNT + GS_SPGEMM_BINS,
       C_MAX = C_PROD + GS_SPGEMM_BINS,
       C_CUR = C_MAX + 1, /* rows placed per bin (bin_scatter_kernel) */
       C_SOUT = C_CUR + GS_SPGEMM_BINS,
       C_SROWS = C_SOUT + GS_SPGEMM_BINS,
       C_NFAIL = C_SROWS + GS_SPGEMM_BINS,
       C_NEED,
       C_SPILL, /* last-bin rows whose columns did not fit the shared table */
       C_DONE,  /* bin_list_kernel's finished blocks */
       C_N
};

typedef struct sg_args {
    const int32_t *arp, *acol, *brp, *bcol;
    const double *aval, *bval;
    int32_t *offsets, *sizes, *ccol; /* the DCSR result (k = 1: slot 0 of row i at 2i) */
    double *cval;
    unsigned long long *top, *ctl;
    int64_t capacity;
    int32_t *failed; /* rows whose allocation did not fit */
    int32_t *spill;  /* last-bin rows left to the global-memory kernel (ctl[C_SPILL]) */
    int32_t bcols;   /* B's columns */
    /* Chunks (one warp-bin launch over every row in order, bounded capacity): block b's rows,
     * placed one after the other, start at ch_addr[b] and hold ch_tot[b] entries, so DCSR ->
     * CSR moves whole chunks (NULL: not recorded) */
    int32_t *ch_addr, *ch_tot;
    int count_prod; /* the sorted bin adds its products to ctl[C_PROD + bin] (rows not binned) */
} sg_args;

/* the binning of n rows (list or 0..n-1): perm = rows grouped by bin, start[] on the host
 * (bin b: perm[start[b] .. start[b+1])), products per bin and the largest last-bin row */
typedef struct binning {
    int64_t start[GS_SPGEMM_BINS + 1], prod[GS_SPGEMM_BINS];
    unsigned long long maxp;
} binning;

/* run_bins' launches: bin b's kernel over perm[lo .. lo + n) (b = GS_SPGEMM_BINS - 1: the
 * shared 4096-slot table, then the global one) */
typedef struct bin_launch {
    int b;
    int64_t lo, n;
} bin_launch;

/* the sorted bins' keys hold a column above the place's LOGS bits, the all-ones key pads */
#define SORT_COLS(logs) ((int32_t)((1u << (32 - (logs))) - 1u))

/* ---- gs_spgemm_binning_cuda.cu ---- */

/* The counting of n rows (list or 0..n-1) issued: counters zeroed, every one of them; with A and
 * B the products per row counted first (into prod); no wait, the counts land in the pinned h_red */
gs_status gs_spgemm_bin_rows_issue(int64_t n, const int32_t *list, int64_t *prod,
                                   unsigned long long *ctl, const gs_csr *A, const gs_csr *B);
/* perm = the counted rows grouped by bin (issued, no wait) */
gs_status gs_spgemm_bin_rows_place(int64_t n, const int32_t *list, const int64_t *prod,
                                   int32_t *perm, unsigned long long *ctl);
/* the binning's counts, waiting for the stream */
gs_status gs_spgemm_bin_rows_read(binning *bn);
/* the launches of the binned rows (small shared bins merged into the next): their count */
int gs_spgemm_plan_bins(const binning *bn, bin_launch *L);
/* the rows of A B counted into bins and their products, one wait: *inorder when one launch takes
 * every row in order, *total = the products of every bin */
gs_status gs_spgemm_count_bins(int64_t rows, int64_t *prod, unsigned long long *ctl,
                               const gs_csr *A, const gs_csr *B, binning *bn, int *inorder,
                               int64_t *total);
/* 1 when the sorted bin takes every row of A B at once, so the rows need no counting */
int gs_spgemm_can_skip_bins(const gs_csr *A, const gs_csr *B);

/* ---- gs_spgemm_bins_cuda.cu ---- */

/* the rows a block of warp bin b (1-3) takes */
int gs_spgemm_warp_bin_rows(int b, int32_t bcols);
/* bin b in 1..8 over the rows list[j * stride] (or j * stride), j * stride < n; count_only: the
 * sample's entries and rows into the counters instead of C */
gs_status gs_spgemm_run_shared_bin(int b, const sg_args &a, const int32_t *list, int64_t n,
                                   int64_t stride, int count_only, int glog2);
/* the last bin's rows that spilled from the shared table, list[0..n), in global memory */
gs_status gs_spgemm_run_global_bin(const sg_args &a, const int32_t *list, int64_t n,
                                   unsigned long long maxp, int32_t cols);

/* ---- gs_spgemm_cusparse_cuda.cu ---- */

gs_status gs_spgemm_cusparse_product(const gs_csr *A, const gs_csr *B, gs_spgemm_info *info,
                                     gs_csr **C);

/* ---- gs_spgemm_transpose_cuda.cu ---- */

gs_status gs_spgemm_transpose_cub(const gs_csr *A, gs_csr **At);

/* the sparse toolkit's device steps (gs_sparse_cuda.cu; gs_spgemm.h says what each does) */
gs_status gs_sparse_cuda_row_slice(const gs_csr *A, int32_t r0, int32_t r1, gs_csr **out);
gs_status gs_sparse_cuda_row_prefix(gs_csr **A, int32_t r, gs_csr **out);
gs_status gs_sparse_cuda_vcat(const gs_csr *A, const gs_col_map *am, const gs_csr *B,
                              int32_t cols, gs_csr **out);
gs_status gs_sparse_cuda_add(const gs_csr *A, const gs_col_map *am, const gs_csr *B,
                             gs_csr **out);
gs_status gs_sparse_cuda_coo_csr(int32_t rows, int32_t cols, int64_t n, const int32_t *ri,
                                 const int32_t *ci, const double *v, gs_csr **C);

#endif

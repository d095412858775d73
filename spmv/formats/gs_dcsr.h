/* gs_dcsr.h: dynamic CSR (King, Gilray, Kirby, Might 2016, section III-A), the matrix the AMG
 * setup's SpGEMM appends its rows into. An AMG-setup data structure, not one of the SpMV formats
 * behind gs_spmat.
 *
 * Each row owns up to k segments: segment s of row i spans colind/val[start, end) with
 * start = offsets[s*pitch + 2i], end = offsets[s*pitch + 2i + 1] (a strided table, pitch >= 2*rows,
 * so the pairs of one segment slot lie together). sizes[i] says how many entries row i holds;
 * they fill its segments in order, the last one possibly in part. Unused segment slots are
 * (0, 0). New segments come from a bump allocator (*top) over colind/val, with `slack` (the
 * paper's alpha) entries of room beyond what an insertion needs. Defragmentation (Algorithm 4)
 * lays every row out as one segment at the exclusive prefix sum of the row sizes, without a sort;
 * it may place the rows' data in row-size-bin order (section IV-C), which stays invisible behind
 * the offsets. Entries inside a row keep their insertion order; duplicates are kept (section
 * III-A, first method): SpMV does not mind them and to_csr returns them as stored.
 *
 * Host and device: every array lives at `loc`; a device gs_dcsr needs the CUDA backend (the
 * operations reach it through gs_dcsr_ops, below).
 */
#ifndef GS_DCSR_H
#define GS_DCSR_H

#include <stdint.h>

#include "gs_csr.h"
#include "gs_vec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_DCSR_BINS                                                                               \
    33 /* ADCSR bins: 0 holds rows of length 0 or 1, b > 0 lengths (2^(b-1), 2^b] */

typedef struct gs_dcsr_params {
    int k;          /* segment slots per row, 1..64 (the paper uses 4) */
    int32_t slack;  /* alpha: extra entries of every new segment; < 0: the mean row length */
    double reserve; /* spare capacity for the bump allocator, as a fraction of the entries */
} gs_dcsr_params;

typedef struct gs_dcsr {
    int32_t rows, cols;
    int k;
    int32_t slack;
    double reserve;
    int64_t pitch;    /* offsets stride between segment slots: 2*rows rounded up to 32 */
    int64_t capacity; /* entries colind/val can hold (< 2^31) */
    int32_t *offsets; /* k*pitch start/end pairs */
    int32_t *sizes;   /* rows + 1 row sizes; sizes[rows] = 0, so a scan gives CSR row pointers */
    int32_t *colind;  /* capacity */
    double *val;      /* capacity */
    unsigned long long *top; /* one value: the bump pointer (next free entry) */
    int32_t *perm; /* rows ordered by bin (ADCSR), NULL until gs_dcsr_bin; cleared by insert */
    int64_t bin_start[GS_DCSR_BINS + 1]; /* rows of bin b: perm[bin_start[b] .. bin_start[b+1]) */
    gs_loc loc;
} gs_dcsr;

/* k = 4, slack = mean row length, reserve = 0.25. */
void gs_dcsr_params_default(gs_dcsr_params *p);

/* An empty rows x cols DCSR at loc with room for `capacity` entries (every row: no segment). */
gs_status gs_dcsr_create(int64_t rows, int64_t cols, int64_t capacity, const gs_dcsr_params *p,
                         gs_loc loc, gs_dcsr **out);
void gs_dcsr_destroy(gs_dcsr **D);

/* D = A (one segment per row, spare capacity p->reserve), at A's location. */
gs_status gs_dcsr_from_csr(const gs_csr *A, const gs_dcsr_params *p, gs_dcsr **out);

/* A CSR copy of D at D's location (entries of a row in stored order); D is not changed. */
gs_status gs_dcsr_to_csr(const gs_dcsr *D, gs_csr **out);

/* Append the entries of B (rows x cols no larger than D's, same location) to D's rows
 * (Algorithms 1-2, one vector of threads per row). A row whose last segment lacks room gets a
 * new segment of (missing + slack) entries; when a row would need more than k segments or the
 * capacity would run out, D is first defragmented with room reserved for B (and grown). */
gs_status gs_dcsr_insert(gs_dcsr *D, const gs_csr *B);

/* Algorithm 4: one exact segment per row at the prefix sum of the row sizes (no sort); with
 * reorder, the rows' data are laid out in bin order and perm/bin_start describe the bins. */
gs_status gs_dcsr_defrag(gs_dcsr *D, int reorder);

/* Sort the rows into length bins (ADCSR): fills perm and bin_start; SpMV then runs per bin. */
gs_status gs_dcsr_bin(gs_dcsr *D);

/* y = D*x (Algorithm 3; per bin when D is binned), x and y at D's location. */
gs_status gs_dcsr_spmv(const gs_dcsr *D, const gs_vec *x, gs_vec *y);

/* A host copy of D (every array, perm too), wherever D lives. */
gs_status gs_dcsr_download(const gs_dcsr *D, gs_dcsr **out);

/* The most segments any row of host matrix D uses (0 for no entries). */
int gs_dcsr_max_segments(const gs_dcsr *D);

/* Bin of a row of length n (0 for n <= 1, else ceil(log2 n)). */
static inline int gs_dcsr_bin_of(int64_t n)
{
    int b = 0;
    while (b < GS_DCSR_BINS - 1 && ((int64_t)1 << b) < n) b++;
    return b;
}

/* The operations of one backend on a DCSR that lives there, behind the functions above, which
 * check the arguments and take the table of the matrix's location
 * (gs_backend_module(loc, GS_MODULE_DCSR)): gs_dcsr_host_ops in gs_dcsr.c (the reference),
 * gs_dcsr_cuda_ops in spmv/formats/gs_dcsr_cuda.cu. */
typedef struct gs_dcsr_ops {
    /* D's arrays, its fields set by gs_dcsr_create: offsets, sizes and top zeroed (on failure
     * gs_dcsr_destroy frees what was made) */
    gs_status (*alloc)(gs_dcsr *D);
    void (*free)(gs_dcsr *D); /* D's arrays, perm included (not D itself) */
    gs_status (*from_csr)(gs_dcsr *D, const gs_csr *A); /* D made empty for A's shape */
    gs_status (*to_csr)(const gs_dcsr *D, gs_csr **out);
    gs_status (*insert)(gs_dcsr *D, const gs_csr *B); /* B checked to fit */
    /* extra (may be NULL): room to reserve after each row, an array at D's location */
    gs_status (*defrag)(gs_dcsr *D, const int32_t *extra, int reorder);
    gs_status (*bin)(gs_dcsr *D);
    gs_status (*spmv)(const gs_dcsr *D, const double *x, double *y); /* sizes checked */
    /* D's arrays into H, a host DCSR made by gs_dcsr_create with D's shape and capacity (and a
     * perm array when D has one) */
    gs_status (*download)(const gs_dcsr *D, gs_dcsr *H);
} gs_dcsr_ops;

/* Defined in CUDA builds only (spmv/formats/gs_dcsr_cuda.cu), for CUDA code (the device SpGEMM):
 * gs_dcsr_to_csr of a device D laid out in chunks (k = 1): chunk b holds rows [b R, (b + 1) R)
 * one after the other from entry addr[b], tot[b] entries in all (device arrays; tot has
 * nchunk + 1 ints, tot[nchunk] = 0). The exact CSR moves whole chunks: no search for each
 * entry's row. */
gs_status gs_dcsr_cuda_chunked_to_csr(const gs_dcsr *D, int64_t nchunk, int R, const int32_t *addr,
                                      const int32_t *tot, gs_csr **out);

#ifdef __cplusplus
}
#endif
#endif

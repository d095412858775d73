/* gs_suraa.h: the SURAA format (Muhammed, Mehmood, Albeshri, Katib 2019, papers/suraa-...).
 *
 * The rows are sorted by nonzeros per row (npr), descending, ties by the first column, then
 * by row index (sec. 4.1, Alg. 2); the matrix is stored rearranged in that order (Alg. 2 step
 * 5): rowptr/colind/val are a CSR of the sorted rows (columns of each row in their original
 * order) and perm[p] is the original index of sorted row p, where y is written. The sorted
 * rows are cut into segments of seg_size rows by the Freedman-Diaconis rule (eq. 1) and the
 * segments, in order, form three groups of consecutive sorted rows:
 *   G1 = [0, g1_end)       the longest rows, whole segments (sec. 4.1): with an explicit
 *                          max_child_threads, the paper's rule (segments of mean npr >= 32
 *                          while G1 holds <= max_child rows); auto, only the segments of
 *                          mean >= GS_SURAA_G1_LEN (rows that fill a block: shorter ones are
 *                          better served by G2), at most GS_SURAA_POOL_BIG rows. Done by one
 *                          child grid per row (dynamic parallelism, Alg. 3/4) or by blocks
 *                          launched from the host, one per row, rows longer than a block's
 *                          chunk split over several blocks as Alg. 4's child blocks are
 *   G2 = [g1_end, g2_end)  the other segments of mean npr >= 32: vector kernel, Y threads
 *                          per row, Y = 32*ceil(mean/64) in 32..1024 (Alg. 1 lines 7-9);
 *                          consecutive segments with equal Y form a "run"; on the
 *                          device the runs of Y <= 256 (mean <= 512) with >= 16384 rows in one
 *                          launch of a span kernel tuned for sm_90 (a warp walks the entries
 *                          of R consecutive rows, about 768 entries, in whole-warp chunks and
 *                          sums each row where it ends), the other runs in one launch of the
 *                          vector kernel
 *   G3 = [g2_end, rows)    segments of mean npr < 32 (Alg. 5, made coalesced): L lanes per
 *                          row, L = 1 when mean <= 2, else the smallest power of two >= mean/4
 *                          (>= 2): about 4 entries a lane, the rule gsolve's CSR kernel measured
 *                          best; consecutive segments with equal L form a run; one launch;
 *                          on the device the runs of L <= 4 find each row's entries from where
 *                          each length's rows begin (sorted longest first, one length's rows lie
 *                          together) instead of reading rowptr
 * Each non-empty group runs on its own stream on the device: the one with the most entries on
 * the backend's stream, the others forked from it and joined back. Byte model of one SpMV
 * (double, 32-bit indices):
 *   12 nnz (values, columns) + 4 (rows + 1) (sorted rowptr) + 4 rows (perm)
 *   + 8 rows (y) + 8 cols (x).
 */
#ifndef GS_SURAA_H
#define GS_SURAA_H

#include <stddef.h>
#include <stdint.h>

#include "gs_spmat.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_SURAA_WARP 32          /* segments of mean npr >= this go to G1/G2 (sec. 4.1) */
#define GS_SURAA_CLASSES 33       /* segment classes: 0 (mean < 32), k = Y/32 in 1..32 */
#define GS_SURAA_MAX_Y 1024       /* most threads per row of the vector kernel */
#define GS_SURAA_POOL 2048        /* default device launch pool (sec. 4.3, 5.5) */
#define GS_SURAA_POOL_BIG 8192    /* the paper's largest max_child_threads (sec. 5.5) */
#define GS_SURAA_CHILD_CHUNK 2048 /* entries of one child block: 1024 threads x 2 (Alg. 3) */
#define GS_SURAA_G1_LEN 2048      /* auto G1: segments of mean npr >= this (fill a block) */
#define GS_SURAA_DP_ROWS 64       /* auto picks child grids only for G1 <= this many rows, */
#define GS_SURAA_DP_LEN 131072    /* ... each of >= this many entries (64 child blocks) */
#define GS_SURAA_BLOCK_ENTRIES 4  /* block-per-row G1: entries per thread of one block */
#define GS_SURAA_LANE_CLASSES 6   /* G3 lanes L = 1, 2, 4, ..., 32 */
/* segment bins of the plan: 0..32 the classes; GS_SURAA_BIN_LONG the segments of mean
 * >= GS_SURAA_G1_LEN; GS_SURAA_BIN_LANES + l the class-0 segments of L = 2^l lanes */
#define GS_SURAA_BIN_LONG GS_SURAA_CLASSES
#define GS_SURAA_BIN_LANES (GS_SURAA_CLASSES + 1)
#define GS_SURAA_BINS (GS_SURAA_BIN_LANES + GS_SURAA_LANE_CLASSES)

/* A run of G2 or G3: sorted rows [begin, end), `threads` (Y or L) per row. */
typedef struct gs_suraa_run {
    int32_t begin, end, threads;
} gs_suraa_run;

typedef struct gs_suraa {
    int32_t rows, cols, nnz;
    gs_loc loc;
    int32_t *perm;   /* rows: original row of sorted row p */
    int32_t *rowptr; /* rows + 1: row pointers of the sorted rows */
    int32_t *colind; /* nnz, rows in sorted order */
    double *val;     /* nnz */
    /* the plan (host values on both backends) */
    int32_t seg_size, nseg; /* Freedman-Diaconis segment size (rows) and segment count */
    int32_t iqr;            /* interquartile range of the row lengths */
    int32_t max_len;        /* longest row */
    int32_t max_child;      /* G1 row cap used (max_child_threads of sec. 4.3) */
    int32_t g1_end, g2_end; /* group boundaries (sorted rows) */
    int64_t g1_nnz, g2_nnz; /* entries of G1, of G2 */
    int g1_dynamic;         /* G1 through child grids (1) or one block per row (0) */
    int g1_threads;         /* threads of a G1 block in the block-per-row kernel */
    int nruns;              /* G2 runs, Y descending */
    gs_suraa_run runs[GS_SURAA_CLASSES];
    int ng3;                /* G3 runs, L descending */
    gs_suraa_run g3[GS_SURAA_LANE_CLASSES];
    void *dev; /* device state (streams, events, child scratch); NULL on the host */
} gs_suraa;

/* Freedman-Diaconis segment size: max(1, ceil(2 iqr / cbrt(m))) rows (eq. 1; the ceiling
 * keeps segments from vanishing when cbrt(m) > 2 iqr). */
int32_t gs_suraa_segment_size(int64_t m, int32_t iqr);

/* Positions of the quartiles in the row lengths sorted descending (d[0] >= d[1] ...):
 * IQR = d[*hi] - d[*lo] with *hi = m/4, *lo = 3m/4 (Alg. 2 lines 6-7: the quartiles are read
 * directly from the sorted lengths); m >= 1. */
void gs_suraa_quartiles(int64_t m, int64_t *hi, int64_t *lo);

/* Class of a segment of mean npr `mean`: 0 when mean < 32, else k = Y/32 with
 * Y = 32 ceil(mean/64) (Alg. 1: Y = roundup32(npr/2)) capped at GS_SURAA_MAX_Y. */
int gs_suraa_class(double mean);

/* log2 of G3's lanes per row for a segment of mean npr `mean` (< 32): 0 when mean <= 2,
 * else the smallest l >= 1 with 4 * 2^l >= mean, at most 5. */
int gs_suraa_lanes_log2(double mean);

/* Bin of a segment of mean `mean` besides its class: GS_SURAA_BIN_LONG when mean >=
 * GS_SURAA_G1_LEN, GS_SURAA_BIN_LANES + gs_suraa_lanes_log2(mean) when class 0, else -1. */
int gs_suraa_bin(double mean);

/* Fill the groups and runs of M (seg_size, nseg, rows set) from the number of segments in each
 * bin (count[GS_SURAA_BINS]: the classes and the bins of gs_suraa_bin; every bin falls along
 * the sorted segments, whose means do not increase). max_child_threads =
 * p->suraa_max_child_threads, G1 then the paper's (segments of mean >= 32, at most that many
 * rows); when <= 0 (auto): GS_SURAA_POOL_BIG, G1 only the segments of mean >=
 * GS_SURAA_G1_LEN. G1 takes whole segments (sec. 4.1). */
void gs_suraa_plan_groups(gs_suraa *M, const int64_t count[GS_SURAA_BINS],
                          const gs_format_params *p);

/* Choose the G1 kernel once g1_nnz and the G1 rows are known: p->suraa_g1_dynamic 0/1 as
 * given; auto (-1): child grids only when G1 has at most GS_SURAA_DP_ROWS rows and its
 * shortest, g1_min_len, has >= GS_SURAA_DP_LEN entries (a child launch costs as much as a
 * whole SpMV of a small matrix), else blocks. g1_threads = roundup32(ceil(mean G1 npr / 2))
 * in 64..1024 (Alg. 3 lines 8-10 on the mean row). */
void gs_suraa_plan_g1(gs_suraa *M, const gs_format_params *p, int32_t g1_min_len);

/* Sorting order: a before b when len_a > len_b, or equal and fc_a < fc_b, or both equal and
 * row_a < row_b (fc = first column, 0 for an empty row). Sorts a host CSR's rows into perm. */
gs_status gs_suraa_sort_rows(const gs_csr *A, int32_t *perm);

/* The byte model above; the describe() line ("segment 12 rows; G1 3 rows, ..."). */
double gs_suraa_bytes(const gs_suraa *M);
void gs_suraa_describe(const gs_suraa *M, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif

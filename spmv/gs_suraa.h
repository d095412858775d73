/* gs_suraa.h: the SURAA format (Muhammed, Mehmood, Albeshri, Katib 2019, papers/suraa-...).
 *
 * The rows are sorted by nonzeros per row (npr), descending, ties by the first column, then
 * by row index (sec. 4.1, Alg. 2); the matrix is stored rearranged in that order (Alg. 2 step
 * 5): rowptr/colind/val are a CSR of the sorted rows (columns of each row in their original
 * order) and perm[p] is the original index of sorted row p, where y is written. The sorted
 * rows are cut into segments of seg_size rows by the Freedman-Diaconis rule (eq. 1) and the
 * segments, in order, form three groups of consecutive sorted rows:
 *   G1 = [0, g1_end)       segments of mean npr >= 32 while G1 holds <= max_child rows:
 *                          one child grid (dynamic parallelism) or one block per row
 *   G2 = [g1_end, g2_end)  the other segments of mean npr >= 32: vector kernel, Y threads
 *                          per row, Y = 32*ceil(mean/64) in 32..1024 (Alg. 1 lines 7-9);
 *                          consecutive segments with equal Y make one launch (a "run")
 *   G3 = [g2_end, rows)    segments of mean npr < 32: scalar kernel, one thread per row
 * Each group runs on its own stream on the device (forked from and joined into the
 * backend's stream). Byte model of one SpMV (double, 32-bit indices):
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

/* One launch of the vector kernel: sorted rows [begin, end), `threads` (Y) per row. */
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
    int64_t g1_nnz;         /* entries of G1 */
    int g1_dynamic;         /* G1 through child grids (1) or one block per row (0) */
    int g1_threads;         /* threads of a G1 block in the block-per-row kernel */
    int nruns;
    gs_suraa_run runs[GS_SURAA_CLASSES];
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

/* Fill the groups of M (seg_size, nseg, rows set) from the number of segments of each class
 * (count[k], k < GS_SURAA_CLASSES; classes fall along the sorted segments). max_child_threads
 * = p->suraa_max_child_threads, or when <= 0: 2048, raised to 8192 when the segments of mean
 * >= 32 hold more than 2048 rows (sec. 5.5). G1 takes whole segments (sec. 4.1). */
void gs_suraa_plan_groups(gs_suraa *M, const int64_t count[GS_SURAA_CLASSES],
                          const gs_format_params *p);

/* Choose the G1 kernel once g1_nnz and max_len are set: p->suraa_g1_dynamic 0/1 as given;
 * auto (-1): child grids when the longest row needs more than one child block
 * (> GS_SURAA_CHILD_CHUNK entries) and G1 has at most GS_SURAA_POOL rows, else one block per
 * row. g1_threads = roundup32(ceil(mean G1 npr / 2)) in 64..1024 (Alg. 3 lines 8-10 on the
 * mean row). */
void gs_suraa_plan_g1(gs_suraa *M, const gs_format_params *p);

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

/* gs_suraa_cuda_impl.cuh: what the device files of SURAA share (CUDA code only; not a public
 * header): the launch bounds, the run and length tables that the conversion's plan writes and
 * the group kernels read, a matrix's device state and the group streams.
 *   gs_suraa_cuda.cu       conversion from a device CSR and back, the table gs_suraa_cuda_ops
 *   gs_suraa_spmv_cuda.cu  the SpMV: G1, G2, G3 each on its own stream, one launch each (G2
 *                          two when it has rows both above and below 512 entries)
 * G1's dynamic-parallelism kernels live in gs_suraa_dp_cuda.cu (relocatable device code). */
#ifndef GS_SURAA_CUDA_IMPL_CUH
#define GS_SURAA_CUDA_IMPL_CUH

#include <stdint.h>

#include "gs_cuda_impl.h"
#include "gs_suraa.h"

#define LANE_THREADS 256  /* threads of a G3 block (Alg. 5: blocks of 256) */
#define VEC_BIG 1024      /* threads of a G2 block when some Y does not divide 256 */
#define MAX_RUNS GS_SURAA_CLASSES
#define SPAN_THREADS 256 /* threads of a span-kernel block */
#define SPAN_U 4         /* 32-entry chunks a warp of the span kernel loads at once */
#define SPAN_MAX_Y 256   /* G2 runs of Y <= this (mean npr <= 512) go to the span kernel */
#define SPAN_ENTRIES 768 /* about this many entries a warp of the span kernel */
#define SPAN_MIN_ROWS 16384 /* ... for G2 runs of at least this many rows (else vector) */
#define SPAN_MIN_WARPS 8192 /* ... in at least this many warps (fewer rows a warp) */

/* One launch over several runs (a kernel argument): run r has blocks [first[r], first[r+1]),
 * sorted rows [begin[r], end[r]) and thr[r] threads per row (G2: Y; G3: log2 L). */
typedef struct run_table {
    int32_t n;
    int32_t first[MAX_RUNS + 1];
    int32_t begin[MAX_RUNS], end[MAX_RUNS], thr[MAX_RUNS];
} run_table;

/* G3's rows by exact length, for suraa_lanes to find a row without reading rowptr: the sorted
 * rows [q[i], q[i + 1]) all hold len[i] entries, the first of them starting at e[i] (rows sort
 * longest first, so each length's rows and their entries lie together); n = 0: no table (G3's
 * longest row is over LEN_TABLE entries), rowptr is read. Used in G3's runs of L <= 2^LEN_LANES
 * lanes (rows of up to about 16 entries), whose threads wait on rowptr, then colind, then x for
 * only a few entries each: on the H200 (bench/exp runs 104-105, same runs) west2021 x800 went
 * from 39.6 to 36.5 us, cryg2500 x800 54.5 -> 52.8, BentPipe2D100 x200 55.2 -> 53.0, 7-point
 * 128^3 72.6 -> 69.8, bips98_606 x200 40.9 -> 39.7; in the runs of 8 and more lanes it cost
 * (27-point 128^3 223 -> 228 us: the binary search against a load spread over 4+ entries a lane) */
#define LEN_TABLE 64
#define LEN_LANES 2
typedef struct len_table {
    int32_t n;
    int32_t q[LEN_TABLE + 2], e[LEN_TABLE + 1], len[LEN_TABLE + 1];
} len_table;

/* What a device SURAA keeps besides its arrays: G1's scratch (child grids or split rows), its
 * block map, and the launch tables of G2 and G3 (host memory, passed by value). */
typedef struct suraa_dev {
    double *part;      /* partial sums of rows done by several blocks */
    unsigned int *cnt; /* one finished-block counter per G1 row */
    int2 *map;         /* block-per-row G1: block b does chunk map[b].y of sorted row map[b].x */
    int32_t g1_blocks, g1_chunk; /* its blocks, entries per block */
    int g2_block;      /* threads of a G2 block: 256 or VEC_BIG */
    int g3_stream;     /* G3 loads colind/val streaming (rows of uneven length, see row_sum) */
    run_table g2, g3;  /* G2 runs of the vector kernel, G3 runs */
    run_table g2s;     /* G2 runs of the span kernel (t.thr = rows a warp) */
    len_table g3l;     /* G3's rows by length (n = 0: suraa_lanes reads rowptr) */
} suraa_dev;

/* The three group streams and the events that fork them from gs_cuda_g.stream and join them
 * back, made once for the process (the backend has one host thread; an event is waited on
 * as last recorded, so matrices can share them). */
typedef struct suraa_streams {
    int ready;
    cudaStream_t s[3];
    cudaEvent_t fork, join[3];
    cudaEvent_t planned; /* after a conversion's plan kernel */
} suraa_streams;
extern suraa_streams gs_suraa_sx; /* gs_suraa_cuda.cu */

/* y = M*x (gs_suraa_spmv_cuda.cu) */
gs_status gs_suraa_cuda_spmv(const void *Mv, const double *x, double *y);

#endif

/* gs_spgemm.h: the sparse toolkit that the AMG setup and the distributed operators share: the
 * sparse matrix-matrix product C = A*B and the Galerkin product A_c = P^T (A P), the transpose,
 * and (gs_sparse_*) row slices, stacking, sums and triplets to CSR. gs_spgemm.c checks the arguments and reaches the backend of the data's
 * location through its gs_spgemm_ops table (gs_backend_module(loc, GS_MODULE_SPGEMM)): the host
 * table in gs_spgemm.c, the device one in spmv/spgemm/gs_spgemm_cuda.cu (the DCSR product; the
 * rest of the device code in spmv/spgemm/gs_spgemm_*_cuda.cu).
 *
 * Methods: HOST (Gustavson with a dense accumulator per thread, OpenMP; the reference), DCSR (the
 * device row-binned SpGEMM of King et al. 2016, section III-B: rows binned by partial products
 * 1-32, 33-64, ..., 2049-4096 and 4097+, a kernel per bin that forms and reduces a row's products
 * in a shared-memory table and places the row in a DCSR result (below); rows of 4097+ products
 * whose columns overflow the 4096-slot table go to tables in global memory; then
 * defragmentation into an exact CSR) and CUSPARSE
 * (cusparseSpGEMM, the comparison path). AUTO picks HOST for host inputs, DCSR for device ones.
 *
 * DCSR places a row in one of two ways. Reserved (rows of at most 128 products on average, or
 * at most 64M products in all; never beyond 2^29 products, and only when that much device
 * memory is free): C's capacity is the products, and row r's segment starts at the
 * products of the rows before it (an exclusive scan), so no row waits on a shared bump pointer
 * and nothing is sampled or redone. Sampled (otherwise): C's capacity is estimated from a
 * sample of each bin's rows, rows take segments from the bump pointer as they finish (one
 * atomic per block), and rows that find it exhausted are redone after C grows. Environment:
 * GSOLVE_SPGEMM_BOUND_MAX=N (entries) moves the 2^29 limit (0: always sampled);
 * GSOLVE_SPGEMM_TRACE=1 prints one line per device product on stderr (products, entries, mode,
 * capacity, rows redone, rows per bin, and the time of each stage, the stream drained between
 * stages, so traced products run a little slower).
 *
 * The result lives where the inputs live. It is the structural product: rows sorted by column,
 * no duplicates, and an entry for every (i, j) reached by some a_ik b_kj even when the sum
 * cancels to zero (as cuSPARSE does), so its pattern does not depend on rounding. Device values
 * are summed in an order that may vary from run to run (shared-memory atomics): they agree with
 * the host's to rounding, not bit for bit.
 */
#ifndef GS_SPGEMM_H
#define GS_SPGEMM_H

#include <stddef.h>
#include <stdint.h>

#include "gs_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gs_spgemm_method {
    GS_SPGEMM_AUTO = 0,
    GS_SPGEMM_HOST,
    GS_SPGEMM_DCSR,
    GS_SPGEMM_CUSPARSE
} gs_spgemm_method;

#define GS_SPGEMM_BINS                                                                             \
    10 /* 0: no products; 1: 1-32, 2: 33-64, ..., 7: 1025-2048, 8: 2049-4096                       \
         (shared memory); 9: 4097+ (global memory) */

/* What one product (or Galerkin product: its second product, R (A P)) did; filled where the
 * method knows it. */
typedef struct gs_spgemm_info {
    int64_t products;                 /* partial products a_ik b_kj of the last product */
    int64_t nnz;                      /* entries of the result */
    int64_t bin_rows[GS_SPGEMM_BINS]; /* rows per bin (DCSR) */
    int64_t capacity;                 /* DCSR entries first allocated (sampled estimate) */
    int64_t retried_rows;             /* rows redone after the DCSR capacity ran out */
    size_t peak_bytes; /* most device memory held at once by the call, result included, inputs
                          not (device methods; a Galerkin product's counts its intermediates) */
    int64_t too_large; /* the product failed (GS_ERR_UNSUPPORTED) because it would pass 2^31 - 1
                          entries: their estimate (DCSR); else 0 */
    int chunks;        /* a Galerkin product made by gs_galerkin_chunks: its chunks; else 0 */
} gs_spgemm_info;

/* A Galerkin (SpGEMM) method as registered (gs_spgemm.c holds the one table, in the order
 * amg.galerkin lists them). */
typedef struct gs_spgemm_desc {
    const char *name; /* the value of amg.galerkin */
    gs_spgemm_method method;
    int loc;          /* the gs_loc of the data it multiplies; -1: either (auto) */
    const char *help; /* one line for --help-config */
} gs_spgemm_desc;

/* The i-th registered method (NULL past the end), and "a|b|c" of their names (the config's
 * choices of amg.galerkin). */
const gs_spgemm_desc *gs_spgemm_method_at(int i);
const char *gs_spgemm_choices(void);

/* Method name ("auto", "dcsr", "cusparse", "host"; "?" for none); parse one (GS_ERR_ARG naming
 * the registered ones when unknown). */
const char *gs_spgemm_method_name(gs_spgemm_method m);
gs_status gs_spgemm_method_parse(const char *s, gs_spgemm_method *out);

/* C = A*B (A->cols == B->rows, both at one location); info may be NULL. */
gs_status gs_spgemm(const gs_csr *A, const gs_csr *B, gs_spgemm_method m, gs_csr **C);
gs_status gs_spgemm_ex(const gs_csr *A, const gs_csr *B, gs_spgemm_method m, gs_spgemm_info *info,
                       gs_csr **C);

/* Ac = R (A P), R = P^T: the one Galerkin path, the coarse operator of the AMG setup. A P by
 * gs_spgemm_ex, then R (A P) by gs_spgemm_ex, both by method m, on either location. R is P^T made
 * by the caller (gs_spgemm_transpose, as AMG, which keeps R for its cycles); R NULL: made here the
 * same way and freed. A square, A->cols == P->rows, R P->cols x P->rows, all at one location.
 * info (may be NULL): the second product's fields, and peak_bytes over the whole call (R when
 * made here, A P while the second product runs, and Ac; A, P and a given R are inputs). Where
 * A P's products (nnz(A) times P's mean row) pass GS_GALERKIN_PRODUCTS_MAX, or A P turns out to
 * pass 2^31 - 1 entries (info.too_large), the product is made by gs_galerkin_chunks, with chunks
 * of about GS_GALERKIN_CHUNK products (entries) of A P: the same time at 3D Poisson 512^3 on an
 * H200 and a quarter less device memory (bench/results/large_h200_2026-11-29.md). */
#define GS_GALERKIN_PRODUCTS_MAX (1LL << 31)
gs_status gs_galerkin(const gs_csr *A, const gs_csr *P, const gs_csr *R, gs_spgemm_method m,
                      gs_csr **Ac);
gs_status gs_galerkin_ex(const gs_csr *A, const gs_csr *P, const gs_csr *R, gs_spgemm_method m,
                         gs_spgemm_info *info, gs_csr **Ac);

/* Ac = R A P by k chunks of R's rows: for each, (R_b A) P, then the chunks' rows stacked (the row
 * slice and concatenation of gs_dist_ops). No intermediate holds more than about 1/k of A P's
 * or R A's entries: the products whose A P passes 2^31 - 1 entries (3D Poisson 640^3's finest
 * level) and less memory at its peak. Arguments as gs_galerkin_ex; k >= 1. */
#define GS_GALERKIN_CHUNK (1LL << 30)
gs_status gs_galerkin_chunks(const gs_csr *A, const gs_csr *P, const gs_csr *R, gs_spgemm_method m,
                             int k, gs_spgemm_info *info, gs_csr **Ac);

/* C's values = X Y summed into C's pattern (sorted rows), which holds every (i, j) the product
 * reaches: no symbolic phase, nothing allocated beyond a flag (device: a warp per row of C
 * accumulating in shared memory). GS_ERR_UNSUPPORTED when a product falls outside the pattern
 * (C's values are then undefined). */
gs_status gs_spgemm_values(const gs_csr *X, const gs_csr *Y, gs_csr *C);

/* Ac's values = R (A P) in Ac's pattern, the structural product of these patterns kept from an
 * earlier gs_galerkin (the re-setup of an AMG hierarchy whose P and R stay; R any restriction of
 * P->cols x P->rows): A P by gs_spgemm, then R (A P) by gs_spgemm_values. Coarse rows of more
 * than GS_VALUES_ROW_MAX entries on average (block systems), and products gs_galerkin makes by
 * chunks, take gs_galerkin anew instead, its values copied: there the row-binned product is faster (3D elasticity 64^3: 47 against 69 ms on
 * an H200, bench/results/reuse_h200_2026-11-29.md). GS_ERR_UNSUPPORTED when the product leaves
 * the pattern. */
#define GS_VALUES_ROW_MAX 128
gs_status gs_galerkin_values(const gs_csr *A, const gs_csr *P, const gs_csr *R, gs_csr *Ac);

/* At = A^T at A's location (rows sorted; the device version by a stable CUB radix sort). */
gs_status gs_spgemm_transpose(const gs_csr *A, gs_csr **At);

/* C = A*B on the host (the reference), any method aside. */
gs_status gs_spgemm_host(const gs_csr *A, const gs_csr *B, gs_csr **C);

/* A renumbering of a matrix's columns, applied as its entries are copied: column j < nown
 * stays, j >= nown becomes map[j - nown] (map where the matrix lives; an increasing map keeps
 * the rows sorted). */
typedef struct gs_col_map {
    int32_t nown;
    const int32_t *map;
} gs_col_map;

/* The toolkit's steps where the matrices live (host or device, the same results):
 *   row_slice   *out = rows [r0, r1) of A (A->cols columns), a copy
 *   row_prefix  *out = the first r rows of *A in *A's own arrays (no copy; the rows after r stay
 *               allocated, unused); *A taken over, also on failure
 *   vcat        *out = A's rows (their columns renumbered by am when not NULL), then B's rows;
 *               (*out)->cols = cols (>= B->cols, and >= A->cols without am)
 *   add         *out = A' + B, A' = A with its columns renumbered by am (NULL: A itself; am
 *               increasing), A' and B of the same rows and columns (B->cols), rows sorted: the
 *               union of the patterns, rows sorted, entries in both summed (an entry of either
 *               kept even when the sum is zero)
 *   coo_csr     *C (rows x cols, at loc) from n triplets ri, ci, v (at loc): rows sorted by
 *               column, duplicates summed (an entry kept even when its sum is zero);
 *               GS_ERR_UNSUPPORTED when n reaches 2^31 */
gs_status gs_sparse_row_slice(const gs_csr *A, int32_t r0, int32_t r1, gs_csr **out);
gs_status gs_sparse_row_prefix(gs_csr **A, int32_t r, gs_csr **out);
gs_status gs_sparse_vcat(const gs_csr *A, const gs_col_map *am, const gs_csr *B, int32_t cols,
                         gs_csr **out);
gs_status gs_sparse_add(const gs_csr *A, const gs_col_map *am, const gs_csr *B, gs_csr **out);
gs_status gs_sparse_coo_csr(gs_loc loc, int32_t rows, int32_t cols, int64_t n, const int32_t *ri,
                            const int32_t *ci, const double *v, gs_csr **C);

/* The operations of one backend, behind the functions above (which check shapes, locations and
 * the method): gs_spgemm_host_ops in gs_spgemm.c, gs_spgemm_cuda_ops in
 * spmv/spgemm/gs_spgemm_cuda.cu. The Galerkin product has no entry: gs_spgemm.c composes it from
 * these for every backend. */
typedef struct gs_spgemm_ops {
    /* C = A*B by m, already resolved for this backend (HOST on the host; DCSR or CUSPARSE on the
     * device); info (may be NULL) zeroed by the caller, filled where the method knows it */
    gs_status (*product)(const gs_csr *A, const gs_csr *B, gs_spgemm_method m, gs_spgemm_info *info,
                         gs_csr **C);
    /* At = A^T, rows sorted; *peak_bytes (may be NULL): the most device memory it held at once,
     * At included (0 on the host) */
    gs_status (*transpose)(const gs_csr *A, size_t *peak_bytes, gs_csr **At);
    /* C->val = X Y in C's pattern (gs_spgemm_values; shapes checked by the caller) */
    gs_status (*values)(const gs_csr *X, const gs_csr *Y, gs_csr *C);
    /* the gs_sparse_* steps (above) for data at the table's location */
    gs_status (*row_slice)(const gs_csr *A, int32_t r0, int32_t r1, gs_csr **out);
    gs_status (*row_prefix)(gs_csr **A, int32_t r, gs_csr **out);
    gs_status (*vcat)(const gs_csr *A, const gs_col_map *am, const gs_csr *B, int32_t cols,
                      gs_csr **out);
    gs_status (*add)(const gs_csr *A, const gs_col_map *am, const gs_csr *B, gs_csr **out);
    gs_status (*coo_csr)(int32_t rows, int32_t cols, int64_t n, const int32_t *ri,
                         const int32_t *ci, const double *v, gs_csr **C);
} gs_spgemm_ops;

/* the host's gs_sparse_* steps (gs_sparse_host.c), for the host table */
gs_status gs_sparse_host_row_slice(const gs_csr *A, int32_t r0, int32_t r1, gs_csr **out);
gs_status gs_sparse_host_row_prefix(gs_csr **A, int32_t r, gs_csr **out);
gs_status gs_sparse_host_vcat(const gs_csr *A, const gs_col_map *am, const gs_csr *B,
                              int32_t cols, gs_csr **out);
gs_status gs_sparse_host_add(const gs_csr *A, const gs_col_map *am, const gs_csr *B,
                             gs_csr **out);
gs_status gs_sparse_host_coo_csr(int32_t rows, int32_t cols, int64_t n, const int32_t *ri,
                                 const int32_t *ci, const double *v, gs_csr **C);

#ifdef __cplusplus
}
#endif
#endif

/* gs_bench.h: what the benchmark programs share: the matrix arguments, the SpMV timing, the
 * format lists and the backend choice. Compiled into every bench program (bench/CMakeLists.txt).
 *
 * A matrix argument is one of
 *   type:stencil:size[:dof]   a generator (io/gs_gen.h): poisson:7:128, poisson:7:64:4,
 *                             anisotropic:5:1024, convdiff:7:128, powerlaw:0:1000000
 *   FILE                      a Matrix Market or HDF5 file
 *   FILE*k                    the file's matrix repeated k times on the diagonal (to fill the GPU
 *                             with a small real matrix)
 * each optionally followed by "@L": the level-L coarse operator of a smoothed-aggregation
 * hierarchy built from it on the host (poisson:7:128@1, bcsstk13.mtx*500@2), so the coarse
 * levels an AMG solve multiplies by are benchmarked too. The hierarchy: all off-diagonal entries
 * are strong; aggregates by the three greedy passes of Vanek et al. (a root whose neighbours are
 * all free takes them; the rest join a neighbouring aggregate; what remains groups with its free
 * neighbours), visiting the nodes in a random order (seeded, as the device's MIS(2) aggregation
 * gives irregular aggregates); tentative prolongator T with the constant vector normalised per
 * aggregate; P = (I - omega D^-1 A) T with omega = 4/3 over Gershgorin's bound on rho(D^-1 A);
 * A_c = P^T A P (gs_galerkin on the host).
 */
#ifndef GS_BENCH_H
#define GS_BENCH_H

#include <stdio.h>

#include "gs_csr.h"
#include "gs_spmat.h"
#include "gs_vec.h"

/* a format with its tuning, from "name[:key=value...]" (gs_bench_parse_format) */
typedef struct gs_bench_fmt {
    char label[64];
    gs_format f;
    gs_format_params p;
} gs_bench_fmt;

/* Load a matrix argument (above) into host CSR *A; desc gets a short name
 * ("poisson 3D 7-point 128^3", "bcsstk13.mtx x500", "... level 1"). */
gs_status gs_bench_load(const char *spec, gs_csr **A, char *desc, size_t len);

/* B = diag(A, A, ..., A), k copies */
gs_status gs_bench_repeat_diag(const gs_csr *A, int k, gs_csr **out);

/* The level-1 coarse operator of A (the construction above; seed orders the aggregation). */
gs_status gs_bench_coarsen(const gs_csr *A, uint64_t seed, gs_csr **Ac);

/* Median seconds of one SpMV of M over `batches` batches of n SpMVs (3 warm-up SpMVs first;
 * each batch ends with a sync). */
double gs_bench_median_spmv(const gs_spmat *M, const gs_vec *x, gs_vec *y, int n, int batches);

/* "name[:key=value...]" with keys h, sort, mod (CMRS), g1=dynamic|block, child (SURAA), fill,
 * b (CDS), or any registered tuning key by its name after "spmv." (cmrs_h=8, suraa_g1=auto);
 * 0 when the item is not understood. */
int gs_bench_parse_format(const char *item, gs_bench_fmt *fs);

/* The location to time on for --backend `backend` ("cuda" or "host"): the device when asked
 * for and usable (dev gets its name), else the host with a note on stderr. */
gs_loc gs_bench_backend(const char *backend, const char *prog, char *dev, size_t len);

/* Print a line to stdout and, when md is open, to md too; flushed, so a run cut short keeps
 * what it measured. */
void gs_bench_emit(FILE *md, const char *line);

int gs_bench_cmp_double(const void *a, const void *b);

#endif

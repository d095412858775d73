/* gs_amg_cuda_impl.cuh: what the AMG's device files share (amg/ops/gs_amg_cuda.cu: diagonals,
 * smoothing, Lanczos, the table; amg/ops/gs_amg_coarsen_cuda.cu: strength, filter, MIS(2),
 * tentative prolongators): launch helpers, the MIS key, the count scan, and the coarsening
 * steps the table lists (the row groups: gs_cuda_rows.cuh). Not a public header. */
#ifndef GS_AMG_CUDA_IMPL_CUH
#define GS_AMG_CUDA_IMPL_CUH

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cub/cub.cuh>

#include "gs_amg_ops.h"
#include "gs_cuda_impl.h"
#include "gs_cuda_reduce.cuh"
#include "gs_cuda_rows.cuh"
#include "gs_cuda_scan.cuh"

#define GRID(n) gs_cuda_grid(n), GS_CUDA_THREADS, 0, gs_cuda_g.stream
#define FOR_I(n)                                                                                  \
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n);                    \
         i += (int64_t)gridDim.x * blockDim.x)

static __device__ __forceinline__ uint64_t d_key(int state, int32_t i)
{
    return (uint64_t)state << 62 | (uint64_t)gs_amg_hash((uint32_t)i) << 32 | (uint32_t)i;
}

/* exclusive scan of n ints into out (n + 1 entries: out[n] = total), total copied to host */
static inline gs_status scan_counts(const int32_t *in, int32_t *out, int32_t n, int32_t *total)
{
    gs_status st = GS_OK;
    GS_CHECK(gs_cuda_exclusive_sum<int32_t>(in, out, (int64_t)n + 1, "scan workspace"));
    GS_CHECK(gs_cuda_d2h(total, out + n, sizeof *total));
done:
    return st;
}


/* *out = the device arrays *rp, *ci, *v (v NULL: a pattern) as a CSR without SpMV state: the
 * setup's own matrices (strength graph, filtered matrix, smoothing matrix), read by its kernels
 * and products, never by an SpMV format. On success the arrays are out's and the caller's
 * pointers NULL; on failure they stay the caller's. */
static inline gs_status wrap_device_csr(int32_t rows, int32_t cols, int32_t nnz, int32_t **rp,
                                        int32_t **ci, double **v, const char *what, gs_csr **out)
{
    gs_csr *M = NULL;
    gs_status st = gs_alloc_array(1, sizeof *M, what, (void **)&M);
    if (st != GS_OK) return st;
    memset(M, 0, sizeof *M);
    M->rows = rows, M->cols = cols, M->nnz = nnz, M->loc = GS_LOC_DEVICE;
    M->rowptr = *rp, M->colind = *ci, M->val = v ? *v : NULL;
    *rp = NULL, *ci = NULL;
    if (v) *v = NULL;
    *out = M;
    return GS_OK;
}

/* the coarsening steps (gs_amg_coarsen_cuda.cu), as gs_amg_ops describes them */
gs_status gs_amg_cuda_strength(const gs_csr *A, double theta, int b, int measure, gs_csr **S);
gs_status gs_amg_cuda_filter(const gs_csr *A, double theta, int measure, const double *w,
                             gs_csr **F);
gs_status gs_amg_cuda_mis2(const gs_csr *S, int32_t *agg, int32_t *nagg);
gs_status gs_amg_cuda_tentative(int32_t nodes, int b, const int32_t *agg, int32_t nagg,
                                const double *w, gs_csr **P, double *wc);
gs_status gs_amg_cuda_tentative_qr(int32_t nodes, int b, const int32_t *agg, int32_t nagg,
                                   const double *B, int k, gs_csr **P, double *Bc);
/* classical AMG's steps (gs_amg_classical_cuda.cu) */
extern "C" {
gs_status gs_amg_cuda_pmis(const gs_csr *S, const gs_csr *A, int32_t dense, int32_t *cmap,
                           int32_t *nc);
gs_status gs_amg_cuda_classical_strength(const gs_csr *A, double theta, int32_t dense, gs_csr **S);
gs_status gs_amg_cuda_classical_fc(const gs_csr *A, const gs_csr *S, const int32_t *cmap,
                                   int32_t nc, gs_csr **AFC, double *beta);
gs_status gs_amg_cuda_classical_ff(const gs_csr *A, const gs_csr *S, const int32_t *cmap,
                                   const double *beta, gs_csr **M, double *d);
gs_status gs_amg_cuda_classical_p(const gs_csr *X, const int32_t *cmap, const double *d,
                                  int32_t nc, int pmax, double trunc, gs_csr **P);
gs_status gs_amg_cuda_variation(const gs_csr *A, const double *dinv, double *varied,
                                double *positive);
}

#endif

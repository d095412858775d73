/* gs_cuda_impl.h: internals of the CUDA backend, shared by spmv/core/gs_backend_cuda.cu (context,
 * memory, transfers, the ops table), spmv/core/gs_cuda_vec.cu (vector kernels) and
 * spmv/core/gs_cuda_csr.cu (CSR upload and SpMV). Not a public header: include it only from .cu files.
 *
 * One static context owns the device, the stream, the cuSPARSE/cuBLAS handles bound to it and
 * the scratch buffers. Every operation runs on that one non-blocking stream, so operations are
 * ordered among themselves; the backend is not thread-safe (one host thread drives it).
 */
#ifndef GS_CUDA_IMPL_H
#define GS_CUDA_IMPL_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include "gs_backend.h"

#define GS_CUDA_THREADS 256             /* block size of the vector and SpMV kernels */
#define GS_CUDA_RED_BLOCKS 1024         /* most blocks of the first reduction pass (fixed) */
#define GS_CUDA_RED_MAX 128 /* most sums one reduction returns (mdot of a GMRES basis) */
#define GS_CUDA_PINNED_BYTES 32768      /* h_red's size: >= (GS_CUDA_RED_MAX + 1) doubles */
#define GS_CUDA_PINNED_SPEC (GS_CUDA_PINNED_BYTES - 64) /* h_red's last 64 bytes: the check of a
                                                           speculative CDS fill (gs_cds.h) */
#define GS_CUDA_STAGE_BYTES (32u << 20) /* each of the two pinned staging buffers */
#define GS_CUDA_SEL_FEAT 0                        /* d_sel: the feature pass's 192 KiB, */
#define GS_CUDA_SEL_CDS (GS_CUDA_SEL_FEAT + 196608) /* the CDS fill's 2 KiB, */
#define GS_CUDA_SEL_SURAA (GS_CUDA_SEL_CDS + 2048)  /* SURAA's plan's 2 KiB, */
#define GS_CUDA_SEL_STATS (GS_CUDA_SEL_SURAA + 2048) /* a CSR's row statistics' 64 bytes */
#define GS_CUDA_SEL_BYTES (GS_CUDA_SEL_STATS + 64)

typedef struct gs_cuda_ctx {
    int ready, device, sms; /* sms: the device's multiprocessors */
    cudaStream_t stream;
    cusparseHandle_t sparse;
    cublasHandle_t blas;
    double *h_red;         /* pinned, GS_CUDA_PINNED_BYTES: GS_CUDA_RED_MAX reduction results,
                              then one int flag; all of it for other small transfers (the
                              feature pass's totals and offset lists) */
    double *d_part;        /* GS_CUDA_RED_MAX x GS_CUDA_RED_BLOCKS partial sums */
    double *d_red;         /* GS_CUDA_RED_MAX final sums, then one int flag */
    void *h_red_dev;       /* h_red as kernels address it: a kernel's last block writes its
                              few results straight into host memory (no copy to enqueue) */
    void *d_sel;           /* GS_CUDA_SEL_BYTES, zero at rest: the counters and tables of the
                              feature pass, the CDS fill, SURAA's plan and the row
                              statistics, which their last blocks clear */
    void *stage[2];        /* pinned staging buffers for pageable host <-> device copies */
    cudaEvent_t staged[2]; /* recorded after the copy that last used stage[i] */
    char desc[320];        /* "NVIDIA H200 (sm_90, 139 GiB)"; the name is up to 255 */
    int capturing;         /* the stream is being recorded into a graph (the AMG cycle):
                              gs_cuda_alloc refuses, as the block would be the graph's */
} gs_cuda_ctx;

extern gs_cuda_ctx gs_cuda_g; /* defined in gs_backend_cuda.cu */

/* Checks: need `gs_status st` and a `done:` label. A failed runtime call also clears the
 * runtime's last-error slot so a later launch check does not report it again. */
#define GS_CUDA_CALL(call)                                                                         \
    do {                                                                                           \
        cudaError_t gs_cu_e_ = (call);                                                             \
        if (gs_cu_e_ != cudaSuccess) {                                                             \
            (void)cudaGetLastError();                                                              \
            st = gs_error(GS_ERR_CUDA, __FILE__, __LINE__, "%s failed: %s (%s)", #call,            \
                          cudaGetErrorString(gs_cu_e_), cudaGetErrorName(gs_cu_e_));               \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

#define GS_CUSPARSE_CALL(call)                                                                     \
    do {                                                                                           \
        cusparseStatus_t gs_sp_e_ = (call);                                                        \
        if (gs_sp_e_ != CUSPARSE_STATUS_SUCCESS) {                                                 \
            st = gs_error(GS_ERR_CUSPARSE, __FILE__, __LINE__, "%s failed: %s (status %d)", #call, \
                          cusparseGetErrorString(gs_sp_e_), (int)gs_sp_e_);                        \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

#define GS_CUBLAS_CALL(call)                                                                       \
    do {                                                                                           \
        cublasStatus_t gs_bl_e_ = (call);                                                          \
        if (gs_bl_e_ != CUBLAS_STATUS_SUCCESS) {                                                   \
            st = gs_error(GS_ERR_CUBLAS, __FILE__, __LINE__, "%s failed: %s (status %d)", #call,   \
                          cublasGetStatusString(gs_bl_e_), (int)gs_bl_e_);                         \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* After every kernel launch: a bad configuration or an earlier asynchronous fault. */
#define GS_CUDA_LAUNCHED(kernel)                                                                   \
    do {                                                                                           \
        cudaError_t gs_cu_e_ = cudaGetLastError();                                                 \
        if (gs_cu_e_ != cudaSuccess) {                                                             \
            st = gs_error(GS_ERR_CUDA, __FILE__, __LINE__, "kernel %s: %s (%s)", kernel,           \
                          cudaGetErrorString(gs_cu_e_), cudaGetErrorName(gs_cu_e_));               \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* b rounded up to a multiple of 256: the offset of the next array carved out of one allocation */
static inline size_t gs_align256(size_t b)
{
    return (b + 255) & ~(size_t)255;
}

/* Blocks for a grid-stride loop over n items (n > 0), GS_CUDA_THREADS threads each. */
static inline unsigned gs_cuda_grid(int64_t n)
{
    int64_t g = (n + GS_CUDA_THREADS - 1) / GS_CUDA_THREADS;
    return (unsigned)(g > 65536 ? 65536 : g);
}

/* Blocks of a fixed-grid reduction over `threads` threads: ceil(threads / block size), at
 * most GS_CUDA_RED_BLOCKS (the grid depends only on the size, so sums are deterministic). */
static inline int gs_cuda_red_blocks(int64_t threads)
{
    int64_t want = (threads + GS_CUDA_THREADS - 1) / GS_CUDA_THREADS;
    return (int)(want > GS_CUDA_RED_BLOCKS ? GS_CUDA_RED_BLOCKS : want);
}

/* One host <-> device copy segment. */
typedef struct gs_cuda_seg {
    void *dst;
    const void *src;
    size_t bytes;
} gs_cuda_seg;

extern "C" {
/* gs_backend_cuda.cu */
gs_status gs_cuda_alloc(size_t bytes, const char *what, void **out);
void gs_cuda_free(void *p);
/* host -> device and device -> host, each waiting: page-locked host memory is copied directly,
 * large pageable ranges through the staging buffers */
gs_status gs_cuda_h2d(const gs_cuda_seg *seg, int nseg);
/* seconds of host -> device copies issued elsewhere (the pipelined upload of
 * gs_dist_ops_cuda.cu), added to what gs_backend_h2d_seconds reports */
void gs_cuda_h2d_account(double seconds);
/* 1 when host memory [p, p + bytes) is page-locked (both ends), so a copy from it is direct */
int gs_cuda_host_pinned(const void *p, size_t bytes);
/* the same, running meanwhile(arg) on the host (NULL: none) once the copies are issued, before
 * the wait: page-locked ranges travel meanwhile; its failure is returned after the wait */
gs_status gs_cuda_h2d_while(const gs_cuda_seg *seg, int nseg, gs_status (*meanwhile)(void *),
                            void *arg);
gs_status gs_cuda_d2h(void *dst, const void *src, size_t bytes);
/* GSOLVE_SELECT_TRACE=1: one stderr line per call, "select trace: <what> <us> us" with the host
 * microseconds since the previous call (no wait added: it shows where the host spends the
 * time, enqueueing or waiting); a no-op without the variable */
void gs_cuda_select_trace(const char *what);

/* gs_cuda_vec.cu */
gs_status gs_cuda_fill(double a, gs_vec *x);
gs_status gs_cuda_dot(const gs_vec *x, const gs_vec *y, double *out);
gs_status gs_cuda_axpby(double a, const gs_vec *x, double b, gs_vec *y);
gs_status gs_cuda_pmul(const gs_vec *d, const gs_vec *x, gs_vec *y);
gs_status gs_cuda_gather(int64_t n, const int32_t *idx, const double *x, double *out);
gs_status gs_cuda_all_finite(const gs_vec *x, int *out);
gs_status gs_cuda_dots(int k, const gs_vec *const *x, const gs_vec *const *y, double *out);
gs_status gs_cuda_mdot(int k, const gs_vec *const *V, const gs_vec *w, double *out);
gs_status gs_cuda_mdot2(int k, const gs_vec *const *V, const gs_vec *a, const gs_vec *b,
                        double *out);
gs_status gs_cuda_maxpy(int k, const double *c, const gs_vec *const *V, gs_vec *y);
/* sums j < k of d_part[j*GS_CUDA_RED_BLOCKS + b], b < nblk, into out: one transfer, waits */
gs_status gs_cuda_reduce_finish(int k, int nblk, double *out);
gs_status gs_cuda_csr_spmv_dots(const gs_csr *A, const gs_vec *x, gs_vec *y, int k,
                                const gs_vec *const *a, const gs_vec *const *b, double *out);
gs_status gs_cuda_cg_update(double alpha, double beta, const gs_vec *u, const gs_vec *w, gs_vec *p,
                            gs_vec *s, gs_vec *x, gs_vec *r);

/* gs_cuda_csr.cu */
gs_status gs_cuda_csr_upload(const gs_csr *host, gs_status (*meanwhile)(void *), void *arg,
                             gs_csr **out);
gs_status gs_cuda_csr_download(const gs_csr *A, gs_csr **out);
/* device arrays of a new CSR matrix (rows + 1 row pointers, nnz columns and values), each of at
 * least one element; freed (any of them NULL) by gs_cuda_free_csr_arrays */
gs_status gs_cuda_alloc_csr_arrays(int64_t rows, int64_t nnz, int32_t **rp, int32_t **ci,
                                   double **v);
void gs_cuda_free_csr_arrays(int32_t *rp, int32_t *ci, double *v);
/* the bits that hold values 0..x (0 for x <= 0) */
static inline int gs_bits_of(int64_t x)
{
    int b = 0;
    while (x > 0) b++, x >>= 1;
    return b;
}
/* a device CSR around device arrays made elsewhere (a conversion, a product): takes them over,
 * also on failure, and sets its own kernel's lanes from the row statistics (_stats: given, else
 * measured); the cuSPARSE descriptor is made at the first cuSPARSE SpMV */
gs_status gs_cuda_csr_adopt(int32_t rows, int32_t cols, int32_t nnz, int32_t *rowptr,
                            int32_t *colind, double *val, gs_csr **out);
gs_status gs_cuda_csr_adopt_stats(int32_t rows, int32_t cols, int32_t nnz, int32_t *rowptr,
                                  int32_t *colind, double *val, int max_len, double row_std,
                                  gs_csr **out);
/* the longest row, the squared lengths' sum and rowptr[rows] into the pinned h_red, no wait;
 * read after the stream drains */
gs_status gs_cuda_row_stats_issue(int32_t rows, const int32_t *rowptr);
/* the same from row lengths len (rows of them), the entries read from *total (device) */
gs_status gs_cuda_row_stats_issue_len(int32_t rows, const int32_t *len, const int32_t *total);
void gs_cuda_row_stats_read(int32_t rows, int32_t *nnz, int *max_len, double *std);
void gs_cuda_csr_free(gs_csr *A);
/* the longest row of device matrix A (its statistics from the upload or adoption); -1: unknown */
int gs_cuda_csr_max_row(const gs_csr *A);
gs_status gs_cuda_csr_spmv(const gs_csr *A, const gs_vec *x, gs_vec *y);
gs_status gs_cuda_csr_spmv_own(const gs_csr *A, const gs_vec *x, gs_vec *y);
/* gs_cuda_block.cu: the block operations (gs_backend_ops' block_*) */
gs_status gs_cuda_block_spmm(const gs_csr *A, int k, const double *X, double *Y);
gs_status gs_cuda_block_dots(int64_t n, int k, int m, const double *const *X,
                             const double *const *Y, double *out);
gs_status gs_cuda_block_axpby(int64_t n, int k, const double *a, const double *X, const double *b,
                              double *Y);
gs_status gs_cuda_block_pack(int64_t n, int k, const double *cols, double *X, int unpack);
gs_status gs_cuda_block_smooth(int64_t n, int k, const double *dinv, const double *B,
                               const double *Y, double a, double c, double *D, double *X,
                               int x_zero);
/* the cuSPARSE descriptor and SpMV buffer of A made now, not at the first gs_cuda_csr_spmv */
gs_status gs_cuda_csr_prepare(const gs_csr *A);
}

/* n / b for a warp-uniform b: a constant divisor (multiply and shift) for b <= 8; the block
 * index of a row or column in the CDS detection and the feature pass */
static __device__ __forceinline__ uint32_t gs_div_small(uint32_t n, int b)
{
    switch (b) {
    case 1: return n;
    case 2: return n / 2;
    case 3: return n / 3;
    case 4: return n / 4;
    case 5: return n / 5;
    case 6: return n / 6;
    case 7: return n / 7;
    case 8: return n / 8;
    default: return n / (uint32_t)b;
    }
}

/* The row, within a window of 32 consecutive rows, of entry k: how many of the window's rows end
 * at or before k, where lane l holds rp = the end of the window's row l (rowptr of the next row).
 * Five shuffles; every lane of the warp takes part. Entry indices are 32-bit (nnz < 2^31) and
 * unsigned, so an index past the last entry by up to a few steps does not overflow. The entry
 * walks of the feature pass and the CDS fill use it, so the loads of a window's entries do not
 * wait on each other. */
static __device__ __forceinline__ int gs_window_row(int32_t rp, uint32_t k)
{
    int c = 0;
    for (int step = 16; step >= 1; step >>= 1)
        if ((uint32_t)__shfl_sync(0xffffffffu, rp, c + step - 1) <= k) c += step;
    return c;
}

/* the GPU's clock in nanoseconds (the same for every multiprocessor): a kernel's last block
 * stamps its end with it */
static __device__ __forceinline__ unsigned long long gs_gpu_clock_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* The last i in [lo, hi] whose key is at or below q, over keys ascending in i with key(lo) <= q
 * (a row pointer array: the row of entry q; a table of block offsets: the block holding q), by
 * one thread; key(i) reads the i-th key (through __ldg, shared memory or a kernel parameter). */
template <typename I, typename Q, class Key>
static __device__ __forceinline__ I gs_last_le(I lo, I hi, Q q, Key key)
{
    while (lo < hi) {
        const I mid = lo + (hi - lo + 1) / 2;
        if (key(mid) <= q)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The first i in [lo, hi) whose key is not below q (hi when none), over keys ascending in i (a
 * lower bound: where q is or would go in a sorted row or list), by one thread; key(i) as above. */
template <typename I, typename Q, class Key>
static __device__ __forceinline__ I gs_first_ge(I lo, I hi, Q q, Key key)
{
    while (lo < hi) {
        const I mid = lo + (hi - lo) / 2;
        if (key(mid) < q)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The row holding entry e (the largest r < rows with rowptr[r] <= e; 0 <= e < nnz), found by the
 * whole warp (every lane takes part and gets it): each step the 32 lanes probe 32 evenly spread
 * rows of the interval left, one load each, and keep the gap between the last probe at or below
 * e and the next, so 32768 rows take 4 steps and 2^31 rows 7, where a binary search makes 15 and
 * 31 loads that each wait on the one before (on a small matrix, most of a pass's time). */
static __device__ __forceinline__ int32_t gs_warp_row_of(const int32_t *__restrict__ rowptr,
                                                         int32_t rows, int64_t e)
{
    const int lane = threadIdx.x & 31;
    int32_t lo = 0, hi = rows - 1; /* rowptr[lo] <= e, and the row is in [lo, hi] */
    while (hi > lo) {
        /* probes lo + ceil((l + 1) span / 32): ascending in the lane, the last one hi; rowptr
         * ascends too, so the probes at or below e are the first c lanes */
        const int64_t span = (int64_t)hi - lo;
        const int32_t p = lo + (int32_t)(((int64_t)(lane + 1) * span + 31) / 32);
        const int c = __popc(__ballot_sync(0xffffffffu, __ldg(rowptr + p) <= e));
        const int32_t below = __shfl_sync(0xffffffffu, p, c > 0 ? c - 1 : 0);
        const int32_t above = __shfl_sync(0xffffffffu, p, c < 32 ? c : 31);
        if (c > 0) lo = below;
        if (c < 32) hi = above - 1;
    }
    return lo;
}

#endif

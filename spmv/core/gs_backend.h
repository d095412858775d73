/* gs_backend.h: the table of operations a backend provides. gs_backend.c is the one file
 * that decides which backends exist; algorithm code reaches a backend only through this
 * table, chosen by the location of the data.
 */
#ifndef GS_BACKEND_H
#define GS_BACKEND_H

#include "gs_csr.h"
#include "gs_vec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_MAX_DOTS 4 /* most dot products one fused reduction computes */
#define GS_BLOCK_MAX 32 /* most columns of a block (gs_block_*, gs_vec.h) */

typedef struct gs_backend_ops {
    const char *name;
    gs_status (*alloc)(size_t bytes, const char *what, void **out);
    void (*free)(void *p);
    gs_status (*fill)(double a, gs_vec *x);
    gs_status (*dot)(const gs_vec *x, const gs_vec *y, double *out);
    gs_status (*axpby)(double a, const gs_vec *x, double b, gs_vec *y);
    gs_status (*copy)(const gs_vec *x, gs_vec *y);
    gs_status (*pmul)(const gs_vec *d, const gs_vec *x, gs_vec *y);
    gs_status (*all_finite)(const gs_vec *x, int *out);
    /* out[i] = x[i].y[i] for i < k <= GS_MAX_DOTS: one pass, one transfer to the host */
    gs_status (*dots)(int k, const gs_vec *const *x, const gs_vec *const *y, double *out);
    /* the fused update of CG (Chronopoulos-Gear): p = u + beta p, s = w + beta s,
     * x = x + alpha p, r = r - alpha s, in one pass (u may alias r) */
    gs_status (*cg_update)(double alpha, double beta, const gs_vec *u, const gs_vec *w,
                           gs_vec *p, gs_vec *s, gs_vec *x, gs_vec *r);
    /* out[i] = V[i].w for i < k (any k >= 1): one fused reduction, one transfer */
    gs_status (*mdot)(int k, const gs_vec *const *V, const gs_vec *w, double *out);
    /* y = y - sum_i c[i] V[i], i < k (c on the host), in one pass over y */
    gs_status (*maxpy)(int k, const double *c, const gs_vec *const *V, gs_vec *y);
    /* y = A*x with the own CSR kernel and, fused into it, out[i] = a[i].b[i] for
     * i < k <= GS_MAX_DOTS, where a[i] and b[i] may be y itself (its new values) */
    gs_status (*csr_spmv_dots)(const gs_csr *A, const gs_vec *x, gs_vec *y, int k,
                               const gs_vec *const *a, const gs_vec *const *b, double *out);
    /* y = A*x for A in CSR on this backend (cuSPARSE on the device) */
    gs_status (*csr_spmv)(const gs_csr *A, const gs_vec *x, gs_vec *y);
    /* y = A*x with the backend's own CSR kernel (the host loop; a vector kernel on the GPU) */
    gs_status (*csr_spmv_own)(const gs_csr *A, const gs_vec *x, gs_vec *y);
    /* copy a host CSR to this backend (*out->loc is this backend's); free one made so.
     * meanwhile (NULL: none) runs on the host, with arg, while the copy travels: its failure
     * is returned after the copy has ended */
    gs_status (*csr_upload)(const gs_csr *host, gs_status (*meanwhile)(void *), void *arg,
                            gs_csr **out);
    void (*csr_free)(gs_csr *A);
    /* wait until every operation issued so far has finished (timing) */
    gs_status (*sync)(void);
    /* out[i] = V[i].a and out[k + i] = V[i].b for i < k: one fused reduction, one transfer
     * (per GS_CUDA_RED_MAX sums on the device) */
    gs_status (*mdot2)(int k, const gs_vec *const *V, const gs_vec *a, const gs_vec *b,
                       double *out);
    /* a host copy of a matrix held by this backend */
    gs_status (*csr_download)(const gs_csr *A, gs_csr **out);
    /* bytes from host memory into this backend's, from this backend's into host memory
     * (complete on return), and within this backend (gs_buf_copy is their one caller) */
    gs_status (*put)(void *dst, const void *src, size_t bytes);
    gs_status (*get)(void *dst, const void *src, size_t bytes);
    gs_status (*move)(void *dst, const void *src, size_t bytes);
    /* make now what csr_spmv makes at its first call (cuSPARSE's descriptor and buffer), so
     * that no SpMV allocates (the AMG cycle is recorded into a CUDA graph); NULL: nothing */
    gs_status (*csr_prepare)(const gs_csr *A);
    /* out[i] = x[idx[i]] for i < n (idx int32, all at this backend): the halo values a rank
     * sends its neighbours (gs_dist_op.c) */
    gs_status (*gather)(int64_t n, const int32_t *idx, const double *x, double *out);
    /* Buffers that other processes of this node write into directly (CUDA IPC; NULL on the
     * host): ipc_alloc makes bytes of device memory and its GS_IPC_HANDLE_BYTES handle;
     * ipc_open maps another process's buffer from its handle (ipc_close unmaps it, ipc_free
     * frees one made by ipc_alloc); peer_copy copies bytes of this process's device memory
     * (complete when called) into a mapped buffer on a second stream, peer_wait waits for
     * those copies. */
    gs_status (*ipc_alloc)(size_t bytes, void **ptr, void *handle);
    gs_status (*ipc_open)(const void *handle, void **ptr);
    void (*ipc_close)(void *ptr);
    void (*ipc_free)(void *ptr);
    gs_status (*peer_copy)(void *dst, const void *src, size_t bytes);
    gs_status (*peer_wait)(void);
    /* Halo signalling on the device (gs_dist_op.c; NULL on the host), so that a distributed
     * product neither drains the stream nor waits on the host, and can be recorded into a CUDA
     * graph. An operator keeps two counts at this backend, each of the products done: sent
     * (its values sent; the peer-copy stream's) and ctr (the stream's); the product a kernel
     * belongs to is k = count + 1. halo_send, on the peer-copy stream and as one kernel, waits
     * until ready[i] >= k - 1 for i < n (the neighbour has used the last product's values),
     * copies the n blocks of the values src[idx[e]] (src[e] when idx is NULL) for e in block i:
     * off[i] .. off[i + 1] (total = off[n], known on the host: it sizes the launch) to dst[i],
     * then writes k to *done_at[i] and to *sent (count: a zero unsigned of scratch at this
     * backend); flag_wait makes the stream wait until flags[i] >= *ctr + ahead for i < n (ahead
     * 1: this product's flags; 0: the last product's); flag_signal writes k = *ctr + 1 to
     * *addr[i] once the stream's earlier work is complete, then to *ctr; every array at this
     * backend. A wait that lasts minutes stops its kernel with an error (it surfaces at the
     * next synchronisation) rather than hang. peer_fork makes the peer-copy stream wait for
     * what the stream has issued, peer_join the stream for what the peer-copy stream has
     * issued; device_id names this process's GPU (its PCI domain, bus and device: the same in
     * every process of the node that uses it), -1 if unknown. */
    gs_status (*halo_send)(int n, double *const *dst, const int64_t *off, int64_t total,
                           const double *src, const int32_t *idx, const uint64_t *ready,
                           uint64_t *const *done_at, uint64_t *sent, unsigned *count);
    gs_status (*flag_wait)(int n, const uint64_t *flags, const uint64_t *ctr, int ahead);
    gs_status (*flag_signal)(int n, uint64_t *const *addr, uint64_t *ctr);
    gs_status (*peer_fork)(void);
    gs_status (*peer_join)(void);
    int64_t (*device_id)(void);
    /* Blocks: k <= GS_BLOCK_MAX columns of n values held row by row (entry (i, c) at i k + c;
     * gs_vec.h's gs_block_*). Y = A X (A CSR at this backend); out[j k + c] = X[j](:, c) .
     * Y[j](:, c) for j < m <= 3 (m k <= 128; one reduction, one transfer); Y(:, c) = a[c]
     * X(:, c) + b[c] Y(:, c) (a, b on the host; b[c] = 0: Y not read); smooth_step's update
     * (gs_amg_ops.h) with row i's dinv for its k columns */
    gs_status (*block_spmm)(const gs_csr *A, int k, const double *X, double *Y);
    gs_status (*block_dots)(int64_t n, int k, int m, const double *const *X,
                            const double *const *Y, double *out);
    gs_status (*block_axpby)(int64_t n, int k, const double *a, const double *X, const double *b,
                             double *Y);
    gs_status (*block_smooth)(int64_t n, int k, const double *dinv, const double *B,
                              const double *Y, double a, double c, double *D, double *X,
                              int x_zero);
    /* X(i, c) = cols[c n + i] (columns one after another into a block); unpack: the reverse */
    gs_status (*block_pack)(int64_t n, int k, const double *cols, double *X, int unpack);
} gs_backend_ops;

#define GS_IPC_HANDLE_BYTES 64 /* cudaIpcMemHandle_t */

/* The operations for data at loc; NULL when that backend is not built. */
const gs_backend_ops *gs_backend_get(gs_loc loc);
/* The operations for values of type `type` at loc: the tables are keyed by location and value
 * type; only GS_F64 has kernels (NULL for the others). gs_backend_get(loc) is the GS_F64 one. */
const gs_backend_ops *gs_backend_for(gs_loc loc, gs_dtype type);

/* The operation tables of the modules that sit on the core: each module defines its table's
 * struct in its own header (gs_format_ops in gs_spmat.h, gs_dcsr_ops in gs_dcsr.h, gs_spgemm_ops
 * in gs_spgemm.h, gs_features_ops in gs_select.h, gs_amg_ops in amg/ops/gs_amg_ops.h,
 * gs_dist_ops in spmv/ranks/gs_dist_ops.h) and one table per backend (host in its .c file, device
 * in its _cuda.cu file). gs_backend.c is the one file that lists them; it names them by symbol
 * only and includes no module header, so no include runs upward. */
typedef enum gs_module {
    GS_MODULE_CMRS = 0, /* gs_format_ops */
    GS_MODULE_SURAA,    /* gs_format_ops */
    GS_MODULE_CDS,      /* gs_format_ops */
    GS_MODULE_DCSR,     /* gs_dcsr_ops */
    GS_MODULE_SPGEMM,   /* gs_spgemm_ops */
    GS_MODULE_FEATURES, /* gs_features_ops */
    GS_MODULE_AMG,      /* gs_amg_ops */
    GS_MODULE_DIST,     /* gs_dist_ops */
    GS_MODULE_COUNT
} gs_module;

/* Module m's table for data at loc (cast to the module's struct); NULL when that backend is
 * not built or not started, or the module has no implementation there. */
const void *gs_backend_module(gs_loc loc, gs_module m);

/* Make the device backend usable on CUDA device `device` (once per process; later calls
 * with the same device do nothing). desc (may be NULL) receives the GPU's name. */
gs_status gs_backend_cuda_init(int device, char *desc, size_t desc_len);

/* Start the CUDA backend ahead of reading a problem when run.backend (`backend`) is "auto" or
 * "cuda" and a GPU is present, so that the host matrix is made in page-locked memory and its
 * upload is one direct copy. A failure is not reported here (the error is cleared): the
 * backend choice that follows meets it again and says why. 1 when the backend runs. */
int gs_backend_cuda_start(const char *backend, int device);


/* The CUDA backend's device memory (all its arrays come from the device's pool): bytes in use
 * now, the most in use since gs_backend_mem_reset_peak (or the start), and the bytes the pool
 * holds (in use or kept after a free), and the device's memory; zeros without CUDA. */
typedef struct gs_backend_mem {
    size_t used, peak, pool;
    size_t total; /* the device's memory */
} gs_backend_mem;
gs_backend_mem gs_backend_mem_now(void);
/* Restart the peak at the bytes in use now. */
void gs_backend_mem_reset_peak(void);
/* "; device used U GB, peak P GB, pool Q GB" (the setup traces) */
void gs_backend_mem_text(char *buf, size_t len);

/* Grow the CUDA backend's device pool by about `bytes` in the background (a thread of its own),
 * ahead of a setup that will want that much: called while the problem is still being read, so
 * that the driver's slow growth of the pool (one process at a time on a node: 6 to 8 ms a GB
 * each with four ranks) overlaps the read instead of the setup's clock. What the pool already
 * holds is taken off; at most half the device's free memory. Nothing without the CUDA backend,
 * for less than 256 MB, under GSOLVE_DEVICE_MEMORY_LIMIT or device failure injection (which test
 * the growth itself), or with GSOLVE_POOL_PREPARE=0. */
void gs_backend_pool_prepare(size_t bytes);

/* Wait for gs_backend_pool_prepare's growth to end; the seconds waited (0 when none runs). The
 * next device allocation waits for it too. */
double gs_backend_pool_wait(void);

/* The bytes the last growth ahead added to the pool (0: none, refused, or still running) and
 * the seconds it took (took_s may be NULL). */
size_t gs_backend_pool_prepared(double *took_s);

/* Seconds this process has spent copying host arrays to the device (the transfers alone, not
 * the device-side set-up around them); 0 without CUDA. */
double gs_backend_h2d_seconds(void);

/* The copy bandwidth of memory at loc in bytes a second (read + written): the best of 3 copies
 * of 256 MiB from one buffer into another (the backend's move), measured at the first call and
 * kept; 0 when it cannot be measured (no memory for the buffers). The profile's roofline. */
double gs_backend_copy_bandwidth(gs_loc loc);

/* Bytes of arrays this process has copied from the device to the host (vectors, matrices; not
 * the reductions' few numbers); 0 without CUDA. */
unsigned long long gs_backend_d2h_bytes(void);

/* Number of usable CUDA devices (0 when CUDA is not built or no GPU is present); when
 * zero, *why (if given) says why in one line. */
int gs_backend_cuda_devices(const char **why);

/* out = the NVIDIA kernel module's version in a line of /proc/driver/nvidia/version ("570.133.20";
 * out unchanged when the line holds none) */
void gs_nvidia_module_version(const char *line, char *out, size_t len);
/* What the CUDA side of this process is, for the result records and --version, each at most
 * len bytes: runtime, the CUDA runtime built with ("12.4"); driver, the CUDA version the
 * installed driver supports ("12.6"; "none" without a driver); module, the NVIDIA kernel
 * module's version ("550.54.15", from /proc/driver/nvidia/version; "none" when unknown). All
 * "none" without CUDA. Starts no device. */
void gs_backend_cuda_versions(char *runtime, char *driver, char *module, size_t len);

/* Device allocation failure injection, the device twin of gs_mem_fail_at: the k-th device
 * allocation from now on fails as out of GPU memory (its message says "injected"); 0 turns it
 * off. GSOLVE_FAIL_DEVICE_ALLOC=K in the environment does the same for whole programs (read at
 * the first device allocation). Does nothing without CUDA. */
void gs_backend_cuda_fail_at(long k);

/* Device allocations made so far, and device blocks given out and not yet freed (the device
 * twins of gs_mem_count and gs_mem_live; 0 without CUDA). */
long gs_backend_cuda_count(void);
long gs_backend_cuda_live(void);

#ifdef __cplusplus
}
#endif
#endif

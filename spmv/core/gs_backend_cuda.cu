/* gs_backend_cuda.cu: the CUDA backend's context (device, stream, cuSPARSE/cuBLAS handles,
 * scratch), device memory, host <-> device transfers and the ops table. Vector kernels live in
 * gs_cuda_vec.cu, CSR upload and SpMV in gs_cuda_csr.cu.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gs_cuda_impl.h"
#include "gs_cuda_signal.cuh"
#include "gs_knob.h"
#include "gs_log.h"
#include "gs_time.h"

extern "C" int gs_cuda_device_count(const char **why);
extern "C" gs_status gs_cuda_init(int device, char *desc, size_t desc_len);
extern "C" const gs_backend_ops gs_backend_cuda_ops;

gs_cuda_ctx gs_cuda_g;

#define STAGE_MIN (1u << 20) /* below this, a plain pageable copy is as fast as staging */
#ifndef PAR_MIN
#define PAR_MIN (256u << 10) /* below this, one thread copies into a staging buffer */
#endif

/* Number of CUDA devices the runtime can use; 0 with the runtime's reason otherwise. */
extern "C" int gs_cuda_device_count(const char **why)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        /* without a driver the runtime says "CUDA driver version is insufficient": say what is
         * really missing */
        int driver = access("/proc/driver/nvidia/version", F_OK) == 0;
        if (why && err == cudaErrorNoDevice)
            *why = "no CUDA device found";
        else if (why && err == cudaErrorInsufficientDriver && !driver)
            *why = "no NVIDIA driver is loaded: no GPU on this machine";
        else if (why && err == cudaErrorInsufficientDriver)
            *why = "the NVIDIA driver is older than the CUDA runtime gsolve was built with";
        else if (why)
            *why = cudaGetErrorString(err);
        (void)cudaGetLastError(); /* clear the sticky error for later calls */
        return 0;
    }
    if (n == 0 && why) *why = "no CUDA device found";
    return n;
}

/* The CUDA runtime's version and the one the driver supports (12040 = 12.4; 0: unknown). */
extern "C" void gs_cuda_versions(int *runtime, int *driver)
{
    if (cudaRuntimeGetVersion(runtime) != cudaSuccess) *runtime = 0;
    if (cudaDriverGetVersion(driver) != cudaSuccess) *driver = 0;
    (void)cudaGetLastError();
}

/* GSOLVE_DEVICE_MEMORY_LIMIT = N (bytes), read at the first gs_cuda_alloc: from then on an
 * allocation that would take the bytes gs_cuda_alloc holds beyond N fails as if the device were
 * out of memory, with the same message; the out-of-memory path can so be tested on any GPU.
 * cudaFreeAsync does not say how large a block was, so while a limit is set the live blocks and
 * their sizes are kept in a table (plain malloc: allocator bookkeeping, outside gs_mem's counts
 * and failure injection). The same struct counts the device allocations and live blocks and
 * holds the device failure injection (GSOLVE_FAIL_DEVICE_ALLOC, gs_backend_cuda_fail_at). The
 * backend runs from one host thread, as its one stream does. */
typedef struct cap_block {
    void *p;
    size_t bytes;
} cap_block;
static struct {
    int read;       /* the variables were looked at */
    long fail_at;   /* injection countdown: the allocation that brings it to 0 fails */
    long count;     /* device allocations asked for */
    long live;      /* blocks given out and not yet freed */
    size_t limit;   /* 0: none */
    size_t used;    /* bytes of the live blocks */
    cap_block *blk; /* the live blocks, unordered */
    size_t n, cap;
} g_cap;

static void cap_read(void)
{
    const char *s = gs_knob("GSOLVE_DEVICE_MEMORY_LIMIT"), *f = gs_knob("GSOLVE_FAIL_DEVICE_ALLOC");
    char *end = NULL;
    g_cap.read = 1;
    if (f && *f) { /* failure injection for whole programs (gs_backend_cuda_fail_at) */
        const long k = strtol(f, NULL, 10);
        g_cap.fail_at = k > 0 ? k : 0;
    }
    if (!s || !*s) return;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || v == 0 || strchr(s, '-'))
        gs_log(GS_LOG_WARN,
               "GSOLVE_DEVICE_MEMORY_LIMIT = '%s' is not a positive number of bytes: ignored", s);
    else
        g_cap.limit = (size_t)v;
}

/* room in the table for one more block; 0 when it cannot grow */
static int cap_reserve(void)
{
    if (g_cap.n < g_cap.cap) return 1;
    size_t c = g_cap.cap ? 2 * g_cap.cap : 256;
    cap_block *b = (cap_block *)realloc(g_cap.blk, c * sizeof *b);
    if (!b) return 0;
    g_cap.blk = b;
    g_cap.cap = c;
    return 1;
}

/* forget block p, searched from the newest (most blocks die young) */
static void cap_remove(void *p)
{
    for (size_t i = g_cap.n; i-- > 0;)
        if (g_cap.blk[i].p == p) {
            g_cap.used -= g_cap.blk[i].bytes;
            g_cap.blk[i] = g_cap.blk[--g_cap.n];
            return;
        }
}

extern "C" double gs_cuda_pool_wait(void);

/* Free whatever the context holds (a partly made one included) and mark it not ready. */
static void ctx_release(void)
{
    gs_cuda_ctx *g = &gs_cuda_g;
    (void)gs_cuda_pool_wait(); /* a growth of the pool still under way ends first */
    gs_mem_set_pinned(NULL, NULL); /* blocks still live keep their own release function */
    /* errors are ignored here: this runs on a failure path whose status is already set */
    for (int i = 0; i < 2; i++) {
        if (g->staged[i]) (void)cudaEventDestroy(g->staged[i]);
        if (g->stage[i]) (void)cudaFreeHost(g->stage[i]);
    }
    if (g->d_red) (void)cudaFree(g->d_red);
    if (g->d_part) (void)cudaFree(g->d_part);
    if (g->d_sel) (void)cudaFree(g->d_sel);
    if (g->h_red) (void)cudaFreeHost(g->h_red);
    if (g->blas) (void)cublasDestroy(g->blas);
    if (g->sparse) (void)cusparseDestroy(g->sparse);
    if (g->stream) (void)cudaStreamDestroy(g->stream);
    (void)cudaGetLastError();
    memset(g, 0, sizeof *g);
    free(g_cap.blk); /* the context's blocks are gone with it; the limit stays */
    g_cap.blk = NULL;
    g_cap.n = g_cap.cap = 0;
    g_cap.used = 0;
}

/* Make the stream, library handles and scratch of the context on the current device. */
static gs_status ctx_create(void)
{
    gs_status st = GS_OK;
    gs_cuda_ctx *g = &gs_cuda_g;
    const size_t red = (GS_CUDA_RED_MAX + 1) * sizeof(double);
    GS_CUDA_CALL(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    {
        cudaMemPool_t pool; /* keep freed device memory in the pool (gs_cuda_alloc) */
        uint64_t keep = UINT64_MAX;
        int dev = 0;
        GS_CUDA_CALL(cudaGetDevice(&dev));
        GS_CUDA_CALL(cudaDeviceGetDefaultMemPool(&pool, dev));
        GS_CUDA_CALL(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    }
    GS_CUSPARSE_CALL(cusparseCreate(&g->sparse));
    GS_CUSPARSE_CALL(cusparseSetStream(g->sparse, g->stream));
    GS_CUBLAS_CALL(cublasCreate(&g->blas));
    GS_CUBLAS_CALL(cublasSetStream(g->blas, g->stream));
    static_assert((GS_CUDA_RED_MAX + 1) * sizeof(double) <= GS_CUDA_PINNED_BYTES,
                  "h_red holds the reduction results and the flag");
    GS_CUDA_CALL(cudaMallocHost((void **)&g->h_red, GS_CUDA_PINNED_BYTES));
    GS_CUDA_CALL(cudaHostGetDevicePointer(&g->h_red_dev, g->h_red, 0));
    GS_CUDA_CALL(cudaMalloc(&g->d_sel, GS_CUDA_SEL_BYTES));
    GS_CUDA_CALL(cudaMemsetAsync(g->d_sel, 0, GS_CUDA_SEL_BYTES, g->stream));
    GS_CUDA_CALL(cudaStreamSynchronize(g->stream));
    GS_CUDA_CALL(cudaMalloc((void **)&g->d_red, red));
    GS_CUDA_CALL(
        cudaMalloc((void **)&g->d_part, (size_t)GS_CUDA_RED_MAX * GS_CUDA_RED_BLOCKS * sizeof(double)));
    for (int i = 0; i < 2; i++) {
        GS_CUDA_CALL(cudaMallocHost(&g->stage[i], GS_CUDA_STAGE_BYTES));
        GS_CUDA_CALL(cudaEventCreateWithFlags(&g->staged[i], cudaEventDisableTiming));
    }
done:
    return st;
}

/* Page-locked host blocks for gs_mem (gs_alloc_pinned), so that large host arrays bound for the
 * device go there in one direct copy at the full pinned bandwidth.
 *
 * Ordinary memory, aligned and advised into transparent huge pages where it is large, is
 * faulted in by all OpenMP threads and then locked with cudaHostRegister. Measured on the H200
 * host (bench/results/README.md, "Upload"): a copy of the 3D Poisson 128^3 matrix
 * (183 MB) into new arrays made this way took 40 ms, into pageable arrays 122 ms, into
 * cudaHostAlloc arrays 118 ms (256^3, 1.47 GB: 235, 985 and 825 ms). cudaHostAlloc faults and
 * locks 4 kB pages one by one in one thread; here the kernel zeroes the pages in parallel and
 * locks 2 MB pages. NULL (pageable memory, staged uploads) when the memory cannot be locked. */
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_MIN ((size_t)16 << 20) /* smaller blocks keep 4 kB pages: less rounding waste */

/* write one byte per 4 kB page from all threads, so the pages are faulted in in parallel */
static void touch_pages(void *p, size_t len)
{
    char *c = (char *)p;
    const long pages = (long)(len >> 12);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < pages; i++) c[(size_t)i << 12] = 0;
}

static void *pinned_alloc(size_t bytes)
{
    const size_t align = bytes >= HUGE_MIN ? HUGE_PAGE : 4096;
    const size_t len = (bytes + align - 1) & ~(align - 1);
    void *p = NULL;
    if (posix_memalign(&p, align, len) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    if (align == HUGE_PAGE) (void)madvise(p, len, MADV_HUGEPAGE); /* advice: may be ignored */
#endif
    touch_pages(p, len);
    if (cudaHostRegister(p, len, cudaHostRegisterDefault) != cudaSuccess) {
        (void)cudaGetLastError(); /* refused: the caller falls back to pageable memory */
        free(p);
        return NULL;
    }
    return p;
}

static void pinned_free(void *p)
{
    if (cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError();
    free(p);
}

static int g_atexit_done; /* ctx_release is registered with atexit */

/* Bind the backend to CUDA device `device` once per process; desc gets its name. */
extern "C" gs_status gs_cuda_init(int device, char *desc, size_t desc_len)
{
    gs_status st = GS_OK;
    gs_cuda_ctx *g = &gs_cuda_g;
    const char *why = "unknown reason";
    cudaDeviceProp prop;
    int n = 0;
    if (desc && desc_len) desc[0] = '\0';
    if (g->ready) {
        if (device != g->device)
            return GS_ERROR(GS_ERR_ARG,
                            "run.device = %d but the CUDA backend already runs on device %d "
                            "(one device per process)",
                            device, g->device);
        if (desc && desc_len) gs_str_copy(desc, desc_len, g->desc);
        return GS_OK;
    }
    if (device < 0)
        return GS_ERROR(GS_ERR_ARG, "run.device = %d: expected a CUDA device number >= 0", device);
    n = gs_cuda_device_count(&why);
    if (n == 0) return GS_ERROR(GS_ERR_CUDA, "cannot use the GPU: no device (%s)", why);
    if (device >= n)
        return GS_ERROR(GS_ERR_ARG, "run.device = %d but this machine has %d CUDA device(s)",
                        device, n);
    memset(g, 0, sizeof *g);
    GS_CUDA_CALL(cudaSetDevice(device));
    GS_CUDA_CALL(cudaGetDeviceProperties(&prop, device));
    GS_CHECK(ctx_create());
    snprintf(g->desc, sizeof g->desc, "%s (sm_%d%d, %zu GiB)", prop.name, prop.major, prop.minor,
             (size_t)(prop.totalGlobalMem >> 30));
    g->device = device;
    g->sms = prop.multiProcessorCount;
    g->ready = 1;
    gs_mem_set_pinned(pinned_alloc, pinned_free); /* host matrices made from now on */
    /* the context lives until the process ends; freeing it then keeps leak checkers
     * (compute-sanitizer --leak-check) to real leaks. Registered after the CUDA runtime's own
     * exit handler, so it runs before the runtime goes away. */
    if (!g_atexit_done) g_atexit_done = atexit(ctx_release) == 0;
    if (desc && desc_len) gs_str_copy(desc, desc_len, g->desc);
done:
    if (st != GS_OK) ctx_release();
    return st;
}

/* "2.1 GB", "350.0 MB", "12.0 kB" or "512 bytes" (decimal units, as nvidia-smi's GB) */
static void fmt_bytes(char *buf, size_t len, size_t bytes)
{
    double b = (double)bytes;
    if (b >= 1e9)
        snprintf(buf, len, "%.1f GB", b / 1e9);
    else if (b >= 1e6)
        snprintf(buf, len, "%.1f MB", b / 1e6);
    else if (b >= 1e3)
        snprintf(buf, len, "%.1f kB", b / 1e3);
    else
        snprintf(buf, len, "%zu bytes", bytes);
}

/* The out-of-memory error of a request of `bytes` for `what`: the bytes asked, and the memory
 * free and in all (under GSOLVE_DEVICE_MEMORY_LIMIT: what the limit leaves, and the limit). */
static gs_status oom_error(size_t bytes, const char *what)
{
    char want[64], h[32], fr[32], tot[32];
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        (void)cudaGetLastError();
        free_b = total_b = 0;
    }
    if (g_cap.limit) {
        size_t left = g_cap.limit - g_cap.used;
        if (left < free_b || total_b == 0) free_b = left;
        total_b = g_cap.limit;
    }
    fmt_bytes(h, sizeof h, bytes);
    if (bytes >= 1000)
        snprintf(want, sizeof want, "%zu bytes (%s)", bytes, h);
    else
        snprintf(want, sizeof want, "%zu bytes", bytes);
    fmt_bytes(fr, sizeof fr, free_b);
    fmt_bytes(tot, sizeof tot, total_b);
    return GS_ERROR(GS_ERR_NOMEM,
                    "out of GPU memory: could not allocate %s for %s (%s free of %s%s)", want, what,
                    fr, tot, g_cap.limit ? " under GSOLVE_DEVICE_MEMORY_LIMIT" : "");
}

/* Device allocation failure injection and counts (gs_backend.h) */
extern "C" void gs_cuda_fail_at(long k)
{
    if (!g_cap.read) cap_read();
    g_cap.fail_at = k > 0 ? k : 0;
}

extern "C" long gs_cuda_alloc_count(void)
{
    return g_cap.count;
}

extern "C" long gs_cuda_alloc_live(void)
{
    return g_cap.live;
}

/* GSOLVE_SELECT_TRACE (gs_cuda_impl.h) */
extern "C" void gs_cuda_select_trace(const char *what)
{
    static int on = -1;
    static double last;
    if (on < 0) on = gs_knob("GSOLVE_SELECT_TRACE") != NULL;
    if (!on) return;
    const double now = gs_time_now();
    if (last == 0.0) last = now;
    gs_log(GS_LOG_INFO, "select trace: %s %.1f us", what, 1e6 * (now - last));
    last = now;
}

/* *out = device memory of bytes (1 byte for 0, so the pointer is valid); a clear message on OOM */
extern "C" gs_status gs_cuda_alloc(size_t bytes, const char *what, void **out)
{
    void *p = NULL;
    *out = NULL;
    (void)gs_cuda_pool_wait(); /* the pool's growth ahead (gs_cuda_pool_prepare) done first */
    if (gs_cuda_g.capturing) /* a graph's allocation node: its next launch would fail */
        return GS_ERROR(GS_ERR_UNSUPPORTED,
                        "device allocation of %zu bytes for %s while a CUDA graph is recorded",
                        bytes, what);
    if (!g_cap.read) cap_read();
    g_cap.count++;
    if (g_cap.fail_at > 0 && --g_cap.fail_at == 0)
        return GS_ERROR(GS_ERR_NOMEM,
                        "out of GPU memory: could not allocate %zu bytes for %s (injected: "
                        "GSOLVE_FAIL_DEVICE_ALLOC or gs_backend_cuda_fail_at)",
                        bytes, what);
    if (g_cap.limit) {
        if (bytes > g_cap.limit - g_cap.used) return oom_error(bytes, what);
        if (!cap_reserve())
            return GS_ERROR(GS_ERR_NOMEM,
                            "out of memory: could not allocate %zu bytes for the table of device "
                            "blocks (GSOLVE_DEVICE_MEMORY_LIMIT)",
                            2 * g_cap.cap * sizeof *g_cap.blk);
    }
    /* stream-ordered from the device's pool, which keeps freed memory for reuse: the AMG
     * setup allocates and frees hundreds of buffers, and cudaMalloc/cudaFree each synchronize
     * the device */
    cudaError_t e = cudaMallocAsync(&p, bytes ? bytes : 1, gs_cuda_g.stream);
    if (e == cudaErrorMemoryAllocation) { /* what the pool keeps counts as used: release it */
        cudaMemPool_t pool;
        int dev = 0;
        (void)cudaGetLastError();
        if (cudaStreamSynchronize(gs_cuda_g.stream) == cudaSuccess &&
            cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess)
            (void)cudaMemPoolTrimTo(pool, 0);
        (void)cudaGetLastError();
        e = cudaMallocAsync(&p, bytes ? bytes : 1, gs_cuda_g.stream);
    }
    if (e == cudaSuccess) {
        if (g_cap.limit) { /* room reserved above */
            g_cap.blk[g_cap.n].p = p;
            g_cap.blk[g_cap.n++].bytes = bytes;
            g_cap.used += bytes;
        }
        g_cap.live++;
        *out = p;
        return GS_OK;
    }
    (void)cudaGetLastError(); /* an allocation failure must not poison later launch checks */
    if (e != cudaErrorMemoryAllocation)
        return GS_ERROR(GS_ERR_CUDA, "cudaMalloc of %zu bytes for %s failed: %s (%s)", bytes, what,
                        cudaGetErrorString(e), cudaGetErrorName(e));
    return oom_error(bytes, what);
}

/* cudaFree; NULL is fine. A failure here cannot be reported (void in the table) and means the
 * context is already broken, which the next checked call reports. */
extern "C" void gs_cuda_free(void *p)
{
    if (!p) return;
    g_cap.live--;
    if (g_cap.limit) cap_remove(p);
    if (gs_cuda_g.stream)
        (void)cudaFreeAsync(p, gs_cuda_g.stream);
    else
        (void)cudaFree(p);
}

/* memcpy spread over the OpenMP threads: one thread cannot keep up with the copy engine */
static void par_memcpy(void *dst, const void *src, size_t n)
{
#ifdef _OPENMP
    int nt = omp_get_max_threads();
    if (n >= PAR_MIN && nt > 1) {
        size_t piece = ((n + (size_t)nt - 1) / (size_t)nt + 4095) & ~(size_t)4095;
#pragma omp parallel for schedule(static) num_threads(nt)
        for (int t = 0; t < nt; t++) {
            size_t off = (size_t)t * piece;
            if (off < n)
                memcpy((char *)dst + off, (const char *)src + off,
                       n - off < piece ? n - off : piece);
        }
        return;
    }
#endif
    memcpy(dst, src, n);
}

/* Chunk size of a staged copy of `total` bytes. The CPU copy is the slow side (40 to 55 GB/s
 * with 16 threads against 55 GB/s for the copy engine, measured on an H200 host), each chunk
 * costs a fork-join and an event wait (tens of microseconds), and the first chunk's CPU copy
 * and the last chunk's DMA are not overlapped. Balancing the two gives chunk ~ sqrt(total *
 * overhead * bandwidth), about sqrt(total * 4 MB): 9.5 MB for 23 MB, 27 MB for 183 MB, at most
 * 32 MB. Measured: 1.25 to 1.4x the pinned-copy time from 110 MB up, 1.6x at 77 MB, 2.2x at
 * 23 MB (pageable cudaMemcpy: 3 to 5x). */
static size_t stage_chunk(size_t total)
{
    size_t c = ((size_t)sqrt((double)total * (4u << 20)) + 65535) & ~(size_t)65535;
    return c < STAGE_MIN ? STAGE_MIN : c > GS_CUDA_STAGE_BYTES ? GS_CUDA_STAGE_BYTES : c;
}

/* 1 when host range [p, p + bytes) is page-locked (cudaHostAlloc or cudaHostRegister, the
 * blocks of pinned_alloc included): the copy engine reads it directly. */
extern "C" int gs_cuda_host_pinned(const void *p, size_t bytes)
{
    cudaPointerAttributes a;
    for (int end = 0; end < 2; end++) {
        if (cudaPointerGetAttributes(&a, end ? (const char *)p + bytes - 1 : p) != cudaSuccess) {
            (void)cudaGetLastError();
            return 0;
        }
        if (a.type != cudaMemoryTypeHost) return 0;
    }
    return 1;
}

/* Copy host segments to the device and wait.
 *
 * Page-locked segments (host matrices made after the backend started: gs_alloc_pinned) go
 * first, each in one cudaMemcpyAsync at the full pinned bandwidth. Large pageable ones go
 * through the two pinned staging buffers: the CPU (all OpenMP threads) fills one while the copy
 * engine drains the other, near pinned bandwidth instead of the driver's single-threaded
 * pageable path (often half of it or less), but still limited by the CPU copy (40 to 45 GB/s
 * against 55 GB/s on an H200 host). Not chosen for them: cudaHostRegister of the caller's
 * arrays at upload time. Locking pages already in use costs about as much as the copy it would
 * speed up, and it changes the state of memory the caller owns; gsolve's own host matrices are
 * locked when they are made instead (pinned_alloc). */
static double g_h2d_s; /* seconds spent in gs_cuda_h2d so far */

extern "C" double gs_cuda_h2d_seconds(void) { return g_h2d_s; }

extern "C" void gs_cuda_h2d_account(double seconds) { g_h2d_s += seconds; }

/* the current device's default memory pool (every gs_cuda_alloc's); 0 when it cannot be had */
static int current_pool(cudaMemPool_t *pool)
{
    int dev = 0;
    const int ok = cudaGetDevice(&dev) == cudaSuccess &&
                   cudaDeviceGetDefaultMemPool(pool, dev) == cudaSuccess;
    (void)cudaGetLastError();
    return ok;
}

/* the bytes the device's pool holds (reserved from the driver) */
extern "C" size_t gs_cuda_pool_bytes(void)
{
    cudaMemPool_t pool;
    uint64_t r = 0;
    if (current_pool(&pool))
        (void)cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &r);
    (void)cudaGetLastError();
    return (size_t)r;
}

/* the device pool's bytes in use now, the most in use since the last reset, reserved; the
 * device's memory */
extern "C" void gs_cuda_mem(size_t *used, size_t *peak, size_t *reserved, size_t *total)
{
    size_t f = 0, t = 0;
    cudaMemPool_t pool;
    uint64_t u = 0, h = 0, r = 0;
    if (current_pool(&pool)) {
        (void)cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &u);
        (void)cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &h);
        (void)cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &r);
    }
    if (cudaMemGetInfo(&f, &t) != cudaSuccess) t = 0;
    (void)cudaGetLastError();
    *used = (size_t)u, *peak = (size_t)h, *reserved = (size_t)r, *total = t;
}

/* the most in use from now on (cudaMemPoolAttrUsedMemHigh set to 0 restarts it at the current) */
extern "C" void gs_cuda_mem_reset_peak(void)
{
    cudaMemPool_t pool;
    uint64_t zero = 0;
    if (current_pool(&pool)) (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero);
    (void)cudaGetLastError();
}

/* ---- the pool grown ahead of a setup (gs_backend_pool_prepare)
 *
 * The driver grows a pool slowly and, for processes sharing a node, one process at a time:
 * about 1.5 ms a GB alone on an H200 and 6 to 8 ms a GB each with four ranks growing at once
 * (bench/results/mpi_scaling_h200x4_2026-11-26b.md, "tried and dropped"). A setup that grows
 * its pool as it goes pays that inside its clock; one grown ahead, while the problem is still
 * being read on the host, does not. A thread of its own makes one block of the size asked on a
 * stream of its own and frees it into the pool (which keeps it: cudaMemPoolAttrReleaseThreshold
 * in ctx_create); the allocations that follow are served from it. */
static struct {
    pthread_t thread;
    int running;     /* a thread to join */
    int device;      /* the context's device (the thread binds to it) */
    size_t want;     /* bytes asked of the pool */
    size_t got;      /* bytes it grew by (0: none, or refused) */
    double took_s;   /* the thread's time */
} g_prep;

#define PREP_MIN ((size_t)256 << 20) /* smaller growths are left to the setup: quick anyway */

static void *prep_main(void *arg)
{
    (void)arg;
    const double t0 = gs_time_now();
    cudaStream_t s = NULL;
    void *p = NULL;
    if (cudaSetDevice(g_prep.device) == cudaSuccess &&
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess) {
        if (cudaMallocAsync(&p, g_prep.want, s) == cudaSuccess) {
            (void)cudaFreeAsync(p, s);
            if (cudaStreamSynchronize(s) == cudaSuccess) g_prep.got = g_prep.want;
        }
        (void)cudaStreamDestroy(s);
    }
    (void)cudaGetLastError(); /* this thread's: a refusal is not an error */
    g_prep.took_s = gs_time_now() - t0;
    return NULL;
}

extern "C" void gs_cuda_pool_prepare(size_t bytes)
{
    const char *e = gs_knob("GSOLVE_POOL_PREPARE");
    size_t free_b = 0, total_b = 0, have = 0;
    if (!gs_cuda_g.ready || g_prep.running || (e && strcmp(e, "0") == 0)) return;
    if (!g_cap.read) cap_read();
    if (g_cap.limit || g_cap.fail_at) return; /* those test the pool's growth itself */
    have = gs_cuda_pool_bytes();              /* a batch's earlier case grew it already */
    if (bytes <= have + PREP_MIN) return;
    bytes -= have;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    if (bytes > free_b / 2) bytes = free_b / 2; /* room left for whatever else runs here */
    if (bytes < PREP_MIN) return;
    g_prep.want = bytes;
    g_prep.got = 0;
    g_prep.took_s = 0.0;
    g_prep.device = gs_cuda_g.device;
    g_prep.running = pthread_create(&g_prep.thread, NULL, prep_main, NULL) == 0;
}

extern "C" double gs_cuda_pool_wait(void)
{
    if (!g_prep.running) return 0.0;
    const double t0 = gs_time_now();
    (void)pthread_join(g_prep.thread, NULL);
    g_prep.running = 0;
    return gs_time_now() - t0;
}

extern "C" size_t gs_cuda_pool_prepared(double *took_s)
{
    if (took_s) *took_s = g_prep.running ? 0.0 : g_prep.took_s;
    return g_prep.running ? 0 : g_prep.got;
}

extern "C" gs_status gs_cuda_h2d(const gs_cuda_seg *seg, int nseg)
{
    return gs_cuda_h2d_while(seg, nseg, NULL, NULL);
}

extern "C" gs_status gs_cuda_h2d_while(const gs_cuda_seg *seg, int nseg,
                                       gs_status (*meanwhile)(void *), void *arg)
{
    gs_status st = GS_OK, mst = GS_OK;
    int ran = 0; /* meanwhile has run (it may hold collectives: it runs on failure too) */
    gs_cuda_ctx *g = &gs_cuda_g;
    size_t total = 0, chunk;
    long c = 0; /* chunks issued */
    const double t0 = gs_time_now();
    for (int i = 0; i < nseg; i++) total += seg[i].bytes;
    if (total < STAGE_MIN) {
        for (int i = 0; i < nseg; i++)
            if (seg[i].bytes)
                GS_CUDA_CALL(cudaMemcpyAsync(seg[i].dst, seg[i].src, seg[i].bytes,
                                             cudaMemcpyHostToDevice, g->stream));
        if (meanwhile) mst = meanwhile(arg), ran = 1;
        GS_CUDA_CALL(cudaStreamSynchronize(g->stream));
        g_h2d_s += gs_time_now() - t0;
        return mst;
    }
    /* direct copies first: the staged chunks below queue behind them on the stream while the
     * CPU already fills the staging buffers */
    total = 0;
    for (int i = 0; i < nseg; i++) {
        if (!seg[i].bytes) continue;
        if (gs_cuda_host_pinned(seg[i].src, seg[i].bytes))
            GS_CUDA_CALL(cudaMemcpyAsync(seg[i].dst, seg[i].src, seg[i].bytes,
                                         cudaMemcpyHostToDevice, g->stream));
        else
            total += seg[i].bytes;
    }
    chunk = stage_chunk(total);
    for (int i = 0; i < nseg && total; i++) {
        if (!seg[i].bytes || gs_cuda_host_pinned(seg[i].src, seg[i].bytes)) continue;
        for (size_t off = 0, len = 0; off < seg[i].bytes; off += len, c++) {
            int b = (int)(c & 1);
            /* the first chunks grow from STAGE_MIN: the copy engine starts sooner (shrinking the
             * last ones too was measured worse: more chunks, each a fork-join and a wait) */
            size_t want = c < 8 && ((size_t)STAGE_MIN << c) < chunk ? (size_t)STAGE_MIN << c : chunk;
            len = seg[i].bytes - off < want ? seg[i].bytes - off : want;
            /* stage[b] is free once the copy issued two chunks ago has run */
            if (c >= 2) GS_CUDA_CALL(cudaEventSynchronize(g->staged[b]));
            par_memcpy(g->stage[b], (const char *)seg[i].src + off, len);
            GS_CUDA_CALL(cudaMemcpyAsync((char *)seg[i].dst + off, g->stage[b], len,
                                         cudaMemcpyHostToDevice, g->stream));
            GS_CUDA_CALL(cudaEventRecord(g->staged[b], g->stream));
        }
    }
    if (meanwhile) mst = meanwhile(arg), ran = 1;
    GS_CUDA_CALL(cudaStreamSynchronize(g->stream));
    g_h2d_s += gs_time_now() - t0;
    if (mst != GS_OK) return mst;
done:
    /* on failure, do not leave copies in flight out of the staging buffers */
    if (st != GS_OK) (void)cudaStreamSynchronize(g->stream);
    if (meanwhile && !ran) (void)meanwhile(arg);
    return st;
}

/* Copy `bytes` from the device to host memory and wait: directly into page-locked memory,
 * staged into pageable memory like gs_cuda_h2d (the copy engine fills one pinned buffer while
 * the CPU empties the other). */
static unsigned long long g_d2h_bytes; /* gs_backend_d2h_bytes */
extern "C" unsigned long long gs_cuda_d2h_bytes(void) { return g_d2h_bytes; }

extern "C" gs_status gs_cuda_d2h(void *dst, const void *src, size_t bytes)
{
    gs_status st = GS_OK;
    __atomic_fetch_add(&g_d2h_bytes, (unsigned long long)bytes, __ATOMIC_RELAXED);
    gs_cuda_ctx *g = &gs_cuda_g;
    size_t off = 0, chunk = stage_chunk(bytes), prev_off = 0,
           prev_len = 0; /* prev: in stage[b ^ 1] */
    int b = 0;
    if (bytes == 0) return GS_OK;
    if (bytes < STAGE_MIN || gs_cuda_host_pinned(dst, bytes)) {
        GS_CUDA_CALL(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, g->stream));
        GS_CUDA_CALL(cudaStreamSynchronize(g->stream));
        return GS_OK;
    }
    /* each step issues the next chunk into stage[b], then empties the previous one */
    while (off < bytes || prev_len) {
        size_t len = bytes - off < chunk ? bytes - off : chunk;
        if (len) {
            GS_CUDA_CALL(cudaMemcpyAsync(g->stage[b], (const char *)src + off, len,
                                         cudaMemcpyDeviceToHost, g->stream));
            GS_CUDA_CALL(cudaEventRecord(g->staged[b], g->stream));
        }
        if (prev_len) {
            GS_CUDA_CALL(cudaEventSynchronize(g->staged[b ^ 1]));
            par_memcpy((char *)dst + prev_off, g->stage[b ^ 1], prev_len);
        }
        prev_off = off;
        prev_len = len;
        off += len;
        b ^= 1;
    }
done:
    if (st != GS_OK) (void)cudaStreamSynchronize(g->stream);
    return st;
}

/* y = x, device to device on the stream */
static gs_status cuda_copy(const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    if (x == y || x->n <= 0 || x->data == y->data) return GS_OK;
    GS_CUDA_CALL(cudaMemcpyAsync(y->data, x->data, (size_t)x->n * sizeof(double),
                                 cudaMemcpyDeviceToDevice, gs_cuda_g.stream));
done:
    return st;
}

/* bytes: host -> device (staged like the vectors), device -> host, device -> device */
static gs_status cuda_put(void *dst, const void *src, size_t bytes)
{
    gs_cuda_seg seg = {dst, src, bytes};
    return bytes ? gs_cuda_h2d(&seg, 1) : GS_OK;
}

static gs_status cuda_get(void *dst, const void *src, size_t bytes)
{
    return gs_cuda_d2h(dst, src, bytes);
}

static gs_status cuda_move(void *dst, const void *src, size_t bytes)
{
    gs_status st = GS_OK;
    if (!bytes || dst == src) return GS_OK;
    GS_CUDA_CALL(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, gs_cuda_g.stream));
done:
    return st;
}

/* ---- IPC buffers and peer copies (the distributed SpMV's halo, gs_dist_op.c) ---------------- */
static cudaStream_t g_peer_stream; /* the halo copies' stream */

static gs_status peer_stream(cudaStream_t *s)
{
    gs_status st = GS_OK;
    if (!g_peer_stream)
        GS_CUDA_CALL(cudaStreamCreateWithFlags(&g_peer_stream, cudaStreamNonBlocking));
    *s = g_peer_stream;
done:
    return st;
}

static gs_status cuda_ipc_alloc(size_t bytes, void **ptr, void *handle)
{
    gs_status st = GS_OK;
    void *p = NULL;
    cudaIpcMemHandle_t h;
    static_assert(sizeof h == GS_IPC_HANDLE_BYTES, "IPC handle size");
    *ptr = NULL;
    GS_CUDA_CALL(cudaMalloc(&p, bytes ? bytes : 1)); /* not the pool: IPC needs its own block */
    GS_CUDA_CALL(cudaIpcGetMemHandle(&h, p));
    memcpy(handle, &h, sizeof h);
    *ptr = p;
    p = NULL;
done:
    if (p) cudaFree(p);
    return st;
}

static gs_status cuda_ipc_open(const void *handle, void **ptr)
{
    gs_status st = GS_OK;
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, sizeof h);
    *ptr = NULL;
    GS_CUDA_CALL(cudaIpcOpenMemHandle(ptr, h, cudaIpcMemLazyEnablePeerAccess));
done:
    return st;
}

static void cuda_ipc_close(void *ptr)
{
    if (ptr) (void)cudaIpcCloseMemHandle(ptr);
    (void)cudaGetLastError();
}

static void cuda_ipc_free(void *ptr)
{
    if (ptr) (void)cudaFree(ptr);
    (void)cudaGetLastError();
}

static gs_status cuda_peer_copy(void *dst, const void *src, size_t bytes)
{
    gs_status st = GS_OK;
    cudaStream_t s;
    GS_CHECK(peer_stream(&s));
    if (bytes) GS_CUDA_CALL(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s));
done:
    return st;
}

static gs_status cuda_peer_wait(void)
{
    gs_status st = GS_OK;
    if (g_peer_stream) GS_CUDA_CALL(cudaStreamSynchronize(g_peer_stream));
done:
    return st;
}

/* ---- halo signalling on the device --------------------------------------------------------- */
typedef unsigned long long ull;

/* wait until flags[i] >= *ctr + ahead (ahead 1: this product's, k = *ctr + 1; ahead 0: the
 * last product's) */
static __global__ void flag_wait_kernel(const ull *f, int n, const ull *ctr, int ahead)
{
    const ull v = *(const volatile ull *)ctr + (ull)ahead;
    for (int i = threadIdx.x; i < n; i += blockDim.x) gs_spin_until(f + i, v);
    __threadfence_system();
}

/* product k = *ctr + 1: k into the flags, then into *ctr (done) */
static __global__ void flag_signal_kernel(ull *const *addr, int n, ull *ctr)
{
    const ull k = *(const volatile ull *)ctr + 1;
    __threadfence_system(); /* the stream's earlier writes before the flag */
    for (int i = threadIdx.x; i < n; i += blockDim.x) *(volatile ull *)addr[i] = k;
    __syncthreads(); /* every thread has read ctr */
    if (threadIdx.x == 0) *(volatile ull *)ctr = k;
}

/* every block: the neighbours ready, its share of the values (src[idx[e]], or src[e] without
 * idx) copied, a system fence, one count; the last block to count writes the done flags and
 * the count of products sent */
static __global__ void halo_send_kernel(int n, double *const *dst, const int64_t *off,
                                        const double *src, const int32_t *idx, const ull *ready,
                                        ull *const *done_at, ull *sent, unsigned *count)
{
    const ull k = gs_block_wait_flags(sent, ready, n, 1);
    const int64_t total = off[n];
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int lo = gs_last_le(0, n - 1, e, [off](int i) { return off[i]; }); /* e's block */
        dst[lo][e - off[lo]] = idx ? src[idx[e]] : src[e];
    }
    __threadfence_system(); /* this block's copies seen before "done" */
    gs_grid_signal_last(count, done_at, n, k, sent);
}

static gs_status cuda_halo_send(int n, double *const *dst, const int64_t *off, int64_t total,
                                const double *src, const int32_t *idx, const uint64_t *ready,
                                uint64_t *const *done_at, uint64_t *sent, unsigned *count)
{
    gs_status st = GS_OK;
    cudaStream_t s;
    /* a block a 1024 values (every block waits for the neighbours first: few of them), at most
     * two a multiprocessor */
    const int64_t most = gs_cuda_g.sms > 0 ? 2 * (int64_t)gs_cuda_g.sms : 128;
    int64_t blocks = (total + 1023) / 1024;
    if (blocks < 1) blocks = 1;
    if (blocks > most) blocks = most;
    if (n <= 0) return GS_OK;
    GS_CHECK(peer_stream(&s));
    halo_send_kernel<<<(unsigned)blocks, 256, 0, s>>>(n, dst, off, src, idx, (const ull *)ready,
                                                     (ull *const *)done_at, (ull *)sent, count);
    GS_CUDA_CALL(cudaGetLastError());
done:
    return st;
}

static gs_status cuda_flag_wait(int n, const uint64_t *flags, const uint64_t *ctr, int ahead)
{
    gs_status st = GS_OK;
    if (n <= 0) return GS_OK;
    flag_wait_kernel<<<1, 32, 0, gs_cuda_g.stream>>>((const ull *)flags, n, (const ull *)ctr,
                                                     ahead);
    GS_CUDA_CALL(cudaGetLastError());
done:
    return st;
}

static gs_status cuda_flag_signal(int n, uint64_t *const *addr, uint64_t *ctr)
{
    gs_status st = GS_OK;
    if (n <= 0) return GS_OK;
    flag_signal_kernel<<<1, 32, 0, gs_cuda_g.stream>>>((ull *const *)addr, n, (ull *)ctr);
    GS_CUDA_CALL(cudaGetLastError());
done:
    return st;
}

static cudaEvent_t g_fork_ev, g_join_ev;

/* one stream waits for what the other has issued so far, on the device */
static gs_status stream_after(cudaStream_t waiter, cudaStream_t first, cudaEvent_t *ev)
{
    gs_status st = GS_OK;
    if (!*ev) GS_CUDA_CALL(cudaEventCreateWithFlags(ev, cudaEventDisableTiming));
    GS_CUDA_CALL(cudaEventRecord(*ev, first));
    GS_CUDA_CALL(cudaStreamWaitEvent(waiter, *ev, 0));
done:
    return st;
}

static gs_status cuda_peer_fork(void)
{
    gs_status st = GS_OK;
    cudaStream_t s;
    GS_CHECK(peer_stream(&s));
    GS_CHECK(stream_after(s, gs_cuda_g.stream, &g_fork_ev));
done:
    return st;
}

static gs_status cuda_peer_join(void)
{
    gs_status st = GS_OK;
    cudaStream_t s;
    GS_CHECK(peer_stream(&s));
    GS_CHECK(stream_after(gs_cuda_g.stream, s, &g_join_ev));
done:
    return st;
}

static int64_t cuda_device_id(void)
{
    int d, dom = 0, bus = 0, dev = 0;
    if (cudaGetDevice(&d) != cudaSuccess ||
        cudaDeviceGetAttribute(&dom, cudaDevAttrPciDomainId, d) != cudaSuccess ||
        cudaDeviceGetAttribute(&bus, cudaDevAttrPciBusId, d) != cudaSuccess ||
        cudaDeviceGetAttribute(&dev, cudaDevAttrPciDeviceId, d) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return ((int64_t)dom << 32) | ((int64_t)bus << 8) | (int64_t)dev;
}

/* wait for everything issued on the stream */
static gs_status cuda_sync(void)
{
    gs_status st = GS_OK;
    GS_CUDA_CALL(cudaStreamSynchronize(gs_cuda_g.stream));
done:
    return st;
}

extern "C" const gs_backend_ops gs_backend_cuda_ops = {
    "cuda",               /* name */
    gs_cuda_alloc,        /* alloc */
    gs_cuda_free,         /* free */
    gs_cuda_fill,         /* fill */
    gs_cuda_dot,          /* dot */
    gs_cuda_axpby,        /* axpby */
    cuda_copy,            /* copy */
    gs_cuda_pmul,         /* pmul */
    gs_cuda_all_finite,   /* all_finite */
    gs_cuda_dots,         /* dots */
    gs_cuda_cg_update,    /* cg_update */
    gs_cuda_mdot,         /* mdot */
    gs_cuda_maxpy,        /* maxpy */
    gs_cuda_csr_spmv_dots, /* csr_spmv_dots */
    gs_cuda_csr_spmv,     /* csr_spmv */
    gs_cuda_csr_spmv_own, /* csr_spmv_own */
    gs_cuda_csr_upload,   /* csr_upload */
    gs_cuda_csr_free,     /* csr_free */
    cuda_sync,            /* sync */
    gs_cuda_mdot2,        /* mdot2 */
    gs_cuda_csr_download, /* csr_download */
    cuda_put,             /* put */
    cuda_get,             /* get */
    cuda_move,            /* move */
    gs_cuda_csr_prepare,  /* csr_prepare */
    gs_cuda_gather,       /* gather */
    cuda_ipc_alloc,       /* ipc_alloc */
    cuda_ipc_open,        /* ipc_open */
    cuda_ipc_close,       /* ipc_close */
    cuda_ipc_free,        /* ipc_free */
    cuda_peer_copy,       /* peer_copy */
    cuda_peer_wait,       /* peer_wait */
    cuda_halo_send,       /* halo_send */
    cuda_flag_wait,       /* flag_wait */
    cuda_flag_signal,     /* flag_signal */
    cuda_peer_fork,       /* peer_fork */
    cuda_peer_join,       /* peer_join */
    cuda_device_id,       /* device_id */
    gs_cuda_block_spmm,   /* block_spmm */
    gs_cuda_block_dots,   /* block_dots */
    gs_cuda_block_axpby,  /* block_axpby */
    gs_cuda_block_smooth, /* block_smooth */
    gs_cuda_block_pack,   /* block_pack */
};

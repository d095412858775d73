/* gs_backend.c: the one place that decides which backends exist. */
#include "gs_backend.h"
#include "gs_time.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const gs_backend_ops gs_backend_host_ops;

/* The modules' tables, by symbol (their struct types stay opaque here): host ones in the
 * modules' .c files, device ones in their _cuda.cu files. */
#define GS_MODULE_TABLES(X)                                                                    \
    X(GS_MODULE_CMRS, gs_format_ops, gs_cmrs_host_ops, gs_cmrs_cuda_ops)                       \
    X(GS_MODULE_SURAA, gs_format_ops, gs_suraa_host_ops, gs_suraa_cuda_ops)                    \
    X(GS_MODULE_CDS, gs_format_ops, gs_cds_host_ops, gs_cds_cuda_ops)                          \
    X(GS_MODULE_DCSR, gs_dcsr_ops, gs_dcsr_host_ops, gs_dcsr_cuda_ops)                         \
    X(GS_MODULE_SPGEMM, gs_spgemm_ops, gs_spgemm_host_ops, gs_spgemm_cuda_ops)                 \
    X(GS_MODULE_FEATURES, gs_features_ops, gs_features_host_ops, gs_features_cuda_ops)         \
    X(GS_MODULE_AMG, gs_amg_ops, gs_amg_host_ops, gs_amg_cuda_ops)                             \
    X(GS_MODULE_DIST, gs_dist_ops, gs_dist_host_ops, gs_dist_cuda_ops)

#define GS_DECLARE_HOST(id, type, host, dev) extern const struct type host;
GS_MODULE_TABLES(GS_DECLARE_HOST)
static const void *const g_host_tables[GS_MODULE_COUNT] = {
#define GS_HOST_ENTRY(id, type, host, dev) [id] = &host,
    GS_MODULE_TABLES(GS_HOST_ENTRY)
};

#ifdef GS_HAVE_CUDA
/* gs_backend_cuda.cu */
int gs_cuda_device_count(const char **why);
gs_status gs_cuda_init(int device, char *desc, size_t desc_len);
extern const gs_backend_ops gs_backend_cuda_ops;
double gs_cuda_h2d_seconds(void);
unsigned long long gs_cuda_d2h_bytes(void);
void gs_cuda_mem(size_t *used, size_t *peak, size_t *reserved, size_t *total);
void gs_cuda_mem_reset_peak(void);
void gs_cuda_pool_prepare(size_t bytes);
double gs_cuda_pool_wait(void);
size_t gs_cuda_pool_prepared(double *took_s);
void gs_cuda_fail_at(long k);
long gs_cuda_alloc_count(void);
long gs_cuda_alloc_live(void);
void gs_cuda_versions(int *runtime, int *driver);
#define GS_DECLARE_DEV(id, type, host, dev) extern const struct type dev;
GS_MODULE_TABLES(GS_DECLARE_DEV)
static const void *const g_device_tables[GS_MODULE_COUNT] = {
#define GS_DEV_ENTRY(id, type, host, dev) [id] = &dev,
    GS_MODULE_TABLES(GS_DEV_ENTRY)
};
static int g_device_ready; /* gs_backend_cuda_init succeeded */
#endif

const gs_backend_ops *gs_backend_for(gs_loc loc, gs_dtype type)
{
    return type == GS_F64 ? gs_backend_get(loc) : NULL; /* double only, for now */
}

const gs_backend_ops *gs_backend_get(gs_loc loc)
{
    switch (loc) {
    case GS_LOC_HOST: return &gs_backend_host_ops;
    case GS_LOC_DEVICE:
#ifdef GS_HAVE_CUDA
        return g_device_ready ? &gs_backend_cuda_ops : NULL;
#else
        return NULL;
#endif
    }
    return NULL;
}

const void *gs_backend_module(gs_loc loc, gs_module m)
{
    if ((unsigned)m >= GS_MODULE_COUNT || !gs_backend_get(loc)) return NULL;
    if (loc == GS_LOC_HOST) return g_host_tables[m];
#ifdef GS_HAVE_CUDA
    return g_device_tables[m];
#else
    return NULL;
#endif
}

#ifdef GS_HAVE_CUDA
/* Before the first CUDA call: load every kernel with the context (CUDA_MODULE_LOADING=EAGER)
 * instead of at its first launch, which put 10-15 ms of module loading into each first AMG
 * setup (H100, bench/results/README.md, AMG classes). A value the user set is kept. */
static void eager_modules(void)
{
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
}
#endif

gs_status gs_backend_cuda_init(int device, char *desc, size_t desc_len)
{
#ifdef GS_HAVE_CUDA
    eager_modules();
    gs_status st = gs_cuda_init(device, desc, desc_len);
    if (st == GS_OK) g_device_ready = 1;
    return st;
#else
    (void)device;
    if (desc && desc_len) desc[0] = '\0';
    return GS_ERROR(GS_ERR_CUDA, "this gsolve was built without CUDA");
#endif
}


int gs_backend_cuda_devices(const char **why)
{
#ifdef GS_HAVE_CUDA
    eager_modules();
    return gs_cuda_device_count(why);
#else
    if (why) *why = "this gsolve was built without CUDA";
    return 0;
#endif
}

int gs_backend_cuda_start(const char *backend, int device)
{
#ifdef GS_HAVE_CUDA
    if (strcmp(backend, "auto") != 0 && strcmp(backend, "cuda") != 0) return 0;
    eager_modules();
    if (gs_cuda_device_count(NULL) <= 0) return 0;
    if (gs_backend_cuda_init(device, NULL, 0) == GS_OK) return 1;
    gs_error_clear();
    return 0;
#else
    (void)backend, (void)device;
    return 0;
#endif
}

/* "12.4" from CUDA's 12040, "none" from 0 */
static void cuda_version_text(int v, char *out, size_t len)
{
    if (v > 0)
        snprintf(out, len, "%d.%d", v / 1000, (v % 1000) / 10);
    else
        snprintf(out, len, "none");
}

void gs_nvidia_module_version(const char *line, char *out, size_t len)
{
    /* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 ...", or
     * "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build ...":
     * the first word of digits and dots that holds a dot, after the "Module" */
    const char *p = strstr(line, "Module");
    p = p ? p : line;
    while (*p) {
        p += strspn(p, " \t\n");
        size_t n = strcspn(p, " \t\n");
        if (n > 2 && isdigit((unsigned char)p[0]) && strspn(p, "0123456789.") == n &&
            memchr(p, '.', n)) {
            snprintf(out, len, "%.*s", (int)n, p);
            return;
        }
        p += n;
    }
}

void gs_backend_cuda_versions(char *runtime, char *driver, char *module, size_t len)
{
    snprintf(runtime, len, "none");
    snprintf(driver, len, "none");
    snprintf(module, len, "none");
#ifdef GS_HAVE_CUDA
    int rt = 0, drv = 0;
    gs_cuda_versions(&rt, &drv);
    cuda_version_text(rt, runtime, len);
    cuda_version_text(drv, driver, len);
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    char line[512];
    if (f && fgets(line, sizeof line, f)) gs_nvidia_module_version(line, module, len);
    if (f) fclose(f);
#else
    (void)cuda_version_text;
#endif
}

void gs_backend_cuda_fail_at(long k)
{
#ifdef GS_HAVE_CUDA
    gs_cuda_fail_at(k);
#else
    (void)k;
#endif
}

long gs_backend_cuda_count(void)
{
#ifdef GS_HAVE_CUDA
    return gs_cuda_alloc_count();
#else
    return 0;
#endif
}

long gs_backend_cuda_live(void)
{
#ifdef GS_HAVE_CUDA
    return gs_cuda_alloc_live();
#else
    return 0;
#endif
}

gs_backend_mem gs_backend_mem_now(void)
{
    gs_backend_mem m = {0, 0, 0, 0};
#ifdef GS_HAVE_CUDA
    if (g_device_ready) gs_cuda_mem(&m.used, &m.peak, &m.pool, &m.total);
#endif
    return m;
}

void gs_backend_mem_text(char *buf, size_t len)
{
    const gs_backend_mem m = gs_backend_mem_now();
    snprintf(buf, len, "; device used %.2f GB, peak %.2f GB, pool %.2f GB", (double)m.used / 1e9,
             (double)m.peak / 1e9, (double)m.pool / 1e9);
}

void gs_backend_mem_reset_peak(void)
{
#ifdef GS_HAVE_CUDA
    if (g_device_ready) gs_cuda_mem_reset_peak();
#endif
}

void gs_backend_pool_prepare(size_t bytes)
{
#ifdef GS_HAVE_CUDA
    if (g_device_ready) gs_cuda_pool_prepare(bytes);
#else
    (void)bytes;
#endif
}

double gs_backend_pool_wait(void)
{
#ifdef GS_HAVE_CUDA
    return gs_cuda_pool_wait();
#else
    return 0.0;
#endif
}

size_t gs_backend_pool_prepared(double *took_s)
{
#ifdef GS_HAVE_CUDA
    return gs_cuda_pool_prepared(took_s);
#else
    if (took_s) *took_s = 0.0;
    return 0;
#endif
}

unsigned long long gs_backend_d2h_bytes(void)
{
#ifdef GS_HAVE_CUDA
    return gs_cuda_d2h_bytes();
#else
    return 0;
#endif
}

double gs_backend_h2d_seconds(void)
{
#ifdef GS_HAVE_CUDA
    return gs_cuda_h2d_seconds();
#else
    return 0.0;
#endif
}

double gs_backend_copy_bandwidth(gs_loc loc)
{
    static double bw[2];
    const int i = loc == GS_LOC_HOST ? 0 : 1;
    const gs_backend_ops *be = gs_backend_get(loc);
    const size_t bytes = (size_t)256 << 20;
    void *a = NULL, *b = NULL;
    if (bw[i] > 0 || !be) return bw[i];
    if (be->alloc(bytes, "copy bandwidth", &a) == GS_OK &&
        be->alloc(bytes, "copy bandwidth", &b) == GS_OK) {
        double best = 0.0;
        (void)be->move(b, a, bytes); /* a first touch */
        for (int r = 0; r < 3; r++) {
            (void)be->sync();
            double t0 = gs_time_now();
            if (be->move(b, a, bytes) != GS_OK || be->sync() != GS_OK) break;
            double t = gs_time_now() - t0;
            if (t > 0 && 2.0 * (double)bytes / t > best) best = 2.0 * (double)bytes / t;
        }
        bw[i] = best;
    }
    gs_error_clear();
    if (a) be->free(a);
    if (b) be->free(b);
    return bw[i];
}

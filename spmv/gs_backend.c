/* gs_backend.c: the one place that decides which backends exist. */
#include "gs_backend.h"

#include <string.h>

extern const gs_backend_ops gs_backend_host_ops;
/* the formats' tables: gs_cmrs.c, gs_suraa.c, gs_cds.c and their *_cuda.cu */
extern const gs_format_ops gs_cmrs_host_ops, gs_suraa_host_ops, gs_cds_host_ops;

#ifdef GS_HAVE_CUDA
/* gs_backend_cuda.cu */
int gs_cuda_device_count(const char **why);
gs_status gs_cuda_init(int device, char *desc, size_t desc_len);
extern const gs_backend_ops gs_backend_cuda_ops;
double gs_cuda_h2d_seconds(void);
void gs_cuda_fail_at(long k);
long gs_cuda_alloc_count(void);
long gs_cuda_alloc_live(void);
extern const gs_format_ops gs_cmrs_cuda_ops, gs_suraa_cuda_ops, gs_cds_cuda_ops;
#endif

#ifdef GS_HAVE_CUDA
static int g_device_ready; /* gs_backend_cuda_init succeeded */
#endif

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

const gs_format_ops *gs_backend_format(gs_loc loc, gs_format f)
{
    if (!gs_backend_get(loc)) return NULL;
    int dev = loc == GS_LOC_DEVICE;
#ifdef GS_HAVE_CUDA
    switch (f) {
    case GS_FORMAT_CMRS: return dev ? &gs_cmrs_cuda_ops : &gs_cmrs_host_ops;
    case GS_FORMAT_SURAA: return dev ? &gs_suraa_cuda_ops : &gs_suraa_host_ops;
    case GS_FORMAT_CDS: return dev ? &gs_cds_cuda_ops : &gs_cds_host_ops;
    default: return NULL;
    }
#else
    if (dev) return NULL;
    switch (f) {
    case GS_FORMAT_CMRS: return &gs_cmrs_host_ops;
    case GS_FORMAT_SURAA: return &gs_suraa_host_ops;
    case GS_FORMAT_CDS: return &gs_cds_host_ops;
    default: return NULL;
    }
#endif
}

gs_status gs_backend_cuda_init(int device, char *desc, size_t desc_len)
{
#ifdef GS_HAVE_CUDA
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
    if (gs_cuda_device_count(NULL) <= 0) return 0;
    if (gs_backend_cuda_init(device, NULL, 0) == GS_OK) return 1;
    gs_error_clear();
    return 0;
#else
    (void)backend, (void)device;
    return 0;
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

double gs_backend_h2d_seconds(void)
{
#ifdef GS_HAVE_CUDA
    return gs_cuda_h2d_seconds();
#else
    return 0.0;
#endif
}

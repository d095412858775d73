/* gs_backend.c: the one place that decides which backends exist. */
#include "gs_backend.h"

extern const gs_backend_ops gs_backend_host_ops;

#ifdef GS_HAVE_CUDA
int gs_cuda_device_count(const char **why); /* gs_backend_cuda.cu */
#endif

const gs_backend_ops *gs_backend_get(gs_loc loc)
{
    switch (loc) {
    case GS_LOC_HOST: return &gs_backend_host_ops;
    case GS_LOC_DEVICE: return NULL; /* device operations arrive with the CUDA backend */
    }
    return NULL;
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

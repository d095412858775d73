/* gs_backend_cuda.cu: CUDA device discovery for backend selection. */
#include <cuda_runtime.h>

extern "C" int gs_cuda_device_count(const char **why);

/* Number of CUDA devices the runtime can use; 0 with the runtime's reason otherwise. */
extern "C" int gs_cuda_device_count(const char **why)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        if (why) *why = cudaGetErrorString(err);
        (void)cudaGetLastError(); /* clear the sticky error for later calls */
        return 0;
    }
    if (n == 0 && why) *why = "no CUDA device found";
    return n;
}

/* gs_cuda_scan.cuh: the exclusive prefix sum the CUDA conversions share (CUB's sizing call, the
 * scratch, the scan). Include from .cu files, after gs_cuda_impl.h. */
#ifndef GS_CUDA_SCAN_CUH
#define GS_CUDA_SCAN_CUH

#include <cub/device/device_scan.cuh>

/* out[0..n) = exclusive prefix sums of in[0..n) (n >= 1; out may be in), queued on
 * gs_cuda_g.stream; CUB's scratch (`what` names it when it can't be had) is freed
 * stream-ordered, so nothing here waits */
template <typename T>
static gs_status gs_cuda_exclusive_sum(const T *in, T *out, int64_t n, const char *what)
{
    gs_status st = GS_OK;
    void *tmp = NULL;
    size_t bytes = 0;
    GS_CUDA_CALL(cub::DeviceScan::ExclusiveSum(NULL, bytes, in, out, n, gs_cuda_g.stream));
    GS_CHECK(gs_cuda_alloc(bytes, what, &tmp));
    GS_CUDA_CALL(cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, n, gs_cuda_g.stream));
done:
    gs_cuda_free(tmp);
    return st;
}

#endif

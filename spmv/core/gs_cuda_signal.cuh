/* gs_cuda_signal.cuh: waiting on a flag another GPU writes (the IPC halos' device signals: the
 * backend's send and wait kernels, the distributed off-diagonal product). Device code only:
 * include from .cu files. */
#ifndef GS_CUDA_SIGNAL_CUH
#define GS_CUDA_SIGNAL_CUH

#define GS_FLAG_TIMEOUT_NS 300000000000ull /* 5 minutes: a neighbour that never signals */

static __device__ __forceinline__ unsigned long long gs_global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* spin until *f >= v; a neighbour gone for minutes stops the kernel (the error surfaces at the
 * next synchronisation) rather than hang the run */
static __device__ void gs_spin_until(const unsigned long long *f, unsigned long long v)
{
    const volatile unsigned long long *p = f;
    if (*p >= v) return;
    const unsigned long long t0 = gs_global_ns();
    while (*p < v) {
        __nanosleep(64);
        if (gs_global_ns() - t0 > GS_FLAG_TIMEOUT_NS) __trap();
    }
}

#endif

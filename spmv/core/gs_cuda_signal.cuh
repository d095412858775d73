/* gs_cuda_signal.cuh: waiting on a flag another GPU writes and writing the flags others wait on
 * (the IPC halos' device signals: the backend's send and wait kernels, the distributed
 * off-diagonal product). Device code only: include from .cu files. */
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

/* a block's start: thread 0 reads the operator's count of products done at ctr, this product
 * is k = that + 1, and waits until each of the n flags has reached k - behind, then fences
 * (what the flags guard is read after them); every thread of the block gets k */
static __device__ __forceinline__ unsigned long long
gs_block_wait_flags(const unsigned long long *ctr, const unsigned long long *flags, int n,
                    unsigned long long behind)
{
    __shared__ unsigned long long k;
    if (threadIdx.x == 0) {
        k = *(const volatile unsigned long long *)ctr + 1;
        for (int i = 0; i < n; i++) gs_spin_until(flags + i, k - behind);
        __threadfence_system();
    }
    __syncthreads();
    return k;
}

/* a block's end, its work done (its writes fenced by the caller where others read them): the
 * last block of the grid to count resets the ticket, writes k into the n flags at[i] and then
 * into *ctr (product k done: every block read ctr before it counted) */
static __device__ __forceinline__ void gs_grid_signal_last(unsigned *ticket,
                                                           unsigned long long *const *at, int n,
                                                           unsigned long long k,
                                                           unsigned long long *ctr)
{
    __shared__ bool last;
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    __syncthreads();
    if (last && threadIdx.x == 0) {
        *ticket = 0;
        __threadfence_system();
        for (int i = 0; i < n; i++) *(volatile unsigned long long *)at[i] = k;
        *(volatile unsigned long long *)ctr = k;
    }
}

#endif

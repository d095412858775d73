/* gs_spgemm_rap_cuda.cu: the numeric Galerkin product on the device (gs_galerkin_values):
 * Ac's values = R A P summed into Ac's known pattern, no intermediate A P.
 *
 * One warp per coarse row I. The row's columns (sorted) go to shared memory with a zeroed
 * accumulator beside them when the row has at most RAP_CAP entries (else the warp works on the
 * row in global memory). The warp walks R's row I 32 entries at a time; lane t takes entry
 * (I, i) and A's row i, a scan over the lanes' row lengths flattens the (R entry, A entry)
 * pairs, and each lane takes pairs (i, j) in turn and adds r_Ii a_ij p_jJ for every entry of
 * P's row j at J's place in Ac's row (a binary search; a shared-memory atomic, or a global one
 * for long rows). A product outside the pattern raises a flag: the pattern was not the one of
 * these matrices (the caller then makes the product anew). */
#include <stdint.h>

#include "gs_knob.h"
#include "gs_spgemm_cuda_impl.cuh"

#define RAP_WARPS 8
#define RAP_CAP 256

static __device__ __forceinline__ int32_t find_col(const int32_t *cols, int32_t len, int32_t J)
{
    int32_t lo = 0, hi = len - 1;
    while (lo <= hi) {
        const int32_t mid = (lo + hi) >> 1, c = cols[mid];
        if (c == J) return mid;
        if (c < J) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* MODE 0: the row's accumulator in shared memory, atomics there; 1: atomics on Ac's values in
 * global memory; 2: shared memory, the lanes of one instruction that meet at one place
 * serialized (no atomics) */
template <int MODE>
static __global__ void __launch_bounds__(RAP_WARPS * 32)
rap_values_kernel(int32_t nc, const int32_t *__restrict__ Rp, const int32_t *__restrict__ Rc,
                  const double *__restrict__ Rv, const int32_t *__restrict__ Ap,
                  const int32_t *__restrict__ Acol, const double *__restrict__ Av,
                  const int32_t *__restrict__ Pp, const int32_t *__restrict__ Pc,
                  const double *__restrict__ Pv, const int32_t *__restrict__ Cp,
                  const int32_t *__restrict__ Cc, double *Cv, int *outside)
{
    __shared__ int32_t scol[RAP_WARPS][MODE == 1 ? 1 : RAP_CAP];
    __shared__ double sval[RAP_WARPS][MODE == 1 ? 1 : RAP_CAP];
    const unsigned full = 0xffffffffu;
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    for (int64_t row = (int64_t)blockIdx.x * RAP_WARPS + w; row < nc;
         row += (int64_t)gridDim.x * RAP_WARPS) {
        const int32_t c0 = Cp[row], len = Cp[row + 1] - c0;
        const bool sh = MODE != 1 && len <= RAP_CAP;
        const int32_t *cols = sh ? scol[w] : Cc + c0;
        double *vals = sh ? sval[w] : Cv + c0;
        for (int32_t k = lane; k < len; k += 32) {
            if (sh) scol[w][k] = Cc[c0 + k];
            vals[k] = 0.0;
        }
        __syncwarp();
        __threadfence_block();
        const int32_t r1 = Rp[row + 1];
        for (int32_t base = Rp[row]; base < r1; base += 32) {
            const int32_t e = base + lane;
            double r = 0.0;
            int32_t a0 = 0, alen = 0;
            if (e < r1) {
                const int32_t i = Rc[e];
                r = Rv[e];
                a0 = Ap[i];
                alen = Ap[i + 1] - a0;
            }
            int32_t incl = alen;
            for (int o = 1; o < 32; o <<= 1) {
                const int32_t t = __shfl_up_sync(full, incl, o);
                if (lane >= o) incl += t;
            }
            const int32_t excl = incl - alen, total = __shfl_sync(full, incl, 31);
            for (int32_t fb = 0; fb < total; fb += 32) {
                const int32_t f = fb + lane;
                int s = 0; /* the lane whose A row holds pair f: the last with excl <= f */
                for (int step = 16; step > 0; step >>= 1) {
                    const int32_t v = __shfl_sync(full, excl, s + step);
                    if (v <= f) s += step;
                }
                const int32_t ex = __shfl_sync(full, excl, s), as = __shfl_sync(full, a0, s);
                const double rs = __shfl_sync(full, r, s);
                const bool live = f < total;
                int32_t j = 0, q0 = 0, q1 = 0;
                double ra = 0.0;
                if (live) {
                    const int32_t k = as + (f - ex);
                    j = Acol[k];
                    ra = rs * Av[k];
                    if (Pp) q0 = Pp[j], q1 = Pp[j + 1];
                    else q0 = 0, q1 = 1; /* Ac = R A: the pair's own column */
                }
                if (MODE == 2 && sh) {
                    const int32_t nq = __reduce_max_sync(full, (unsigned)(q1 - q0));
                    for (int32_t t = 0; t < nq; t++) {
                        int32_t pos = -1;
                        double add = 0.0;
                        if (live && q0 + t < q1) {
                            const int32_t J = Pp ? Pc[q0 + t] : j;
                            pos = find_col(cols, len, J);
                            if (pos < 0) *outside = 1;
                            add = Pp ? ra * Pv[q0 + t] : ra;
                        }
                        const unsigned grp = __match_any_sync(full, pos);
                        const int rank = __popc(grp & ((1u << lane) - 1u));
                        const int most = (int)__reduce_max_sync(full, (unsigned)__popc(grp));
                        for (int rr = 0; rr < most; rr++) {
                            if (rank == rr && pos >= 0) vals[pos] += add;
                            __syncwarp();
                        }
                    }
                    continue;
                }
                if (!live) continue;
                for (int32_t q = q0; q < q1; q++) {
                    const int32_t J = Pp ? Pc[q] : j;
                    const int32_t pos = find_col(cols, len, J);
                    if (pos < 0) {
                        *outside = 1;
                        continue;
                    }
                    atomicAdd(&vals[pos], Pp ? ra * Pv[q] : ra);
                }
            }
        }
        __syncwarp();
        __threadfence_block();
        if (sh)
            for (int32_t k = lane; k < len; k += 32) Cv[c0 + k] = sval[w][k];
        __syncwarp();
    }
}

/* Ac->val = R A P (R A when P is NULL) in Ac's pattern; GS_ERR_UNSUPPORTED when a product
 * falls outside it */
extern "C" gs_status gs_spgemm_cuda_rap_values(const gs_csr *A, const gs_csr *P, const gs_csr *R,
                                               gs_csr *Ac)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    int *flag = NULL, h = 0;
    if (Ac->rows == 0) return GS_OK;
    GS_CHECK(gs_cuda_alloc(sizeof(int), "Galerkin pattern check", (void **)&flag));
    GS_CUDA_CALL(cudaMemsetAsync(flag, 0, sizeof(int), s));
    {
        int64_t blocks = ((int64_t)Ac->rows + RAP_WARPS - 1) / RAP_WARPS;
        if (blocks > 1 << 20) blocks = 1 << 20;
        const int mode = (int)gs_knob_i64("GSOLVE_RAP_MODE", 0, 0);
#define RAP_LAUNCH(M)                                                                              \
    rap_values_kernel<M><<<(unsigned)blocks, RAP_WARPS * 32, 0, s>>>(                              \
        Ac->rows, R->rowptr, R->colind, R->val, A->rowptr, A->colind, A->val,                      \
        P ? P->rowptr : NULL, P ? P->colind : NULL, P ? P->val : NULL, Ac->rowptr, Ac->colind,     \
        Ac->val, flag)
        if (mode == 1) RAP_LAUNCH(1);
        else if (mode == 2) RAP_LAUNCH(2);
        else RAP_LAUNCH(0);
#undef RAP_LAUNCH
        GS_CUDA_LAUNCHED("rap_values");
    }
    GS_CUDA_CALL(cudaMemcpyAsync(&h, flag, sizeof(int), cudaMemcpyDeviceToHost, s));
    GS_CUDA_CALL(cudaStreamSynchronize(s));
    if (h)
        GS_FAIL(GS_ERR_UNSUPPORTED, "Galerkin product: R A P has entries outside the coarse "
                "operator's pattern (the patterns changed)");
done:
    if (flag) gs_cuda_free(flag);
    return st;
}

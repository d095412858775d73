/* gs_api_cuda.cu: a CSR in device memory checked and adopted on the device (gs_api.h). */
#include "gs_cuda_impl.h"

#include <math.h>

#include "gs_api.h"

enum { BAD_ORDER, BAD_COLUMN, BAD_VALUE, UNSORTED, NFLAGS };

/* per row: the row pointers (32-bit), the checks; flags[f] = the first row failing check f.
 * I: the caller's row pointers' type (int64_t or int32_t). */
template <typename I>
__global__ static void check_rows(int64_t n, const I *rp, const int32_t *ci,
                                  const double *v, int32_t *rp32, unsigned long long *flags)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n) return;
    if (i == n) {
        rp32[n] = (int32_t)rp[n];
        return;
    }
    const int64_t s = rp[i], e = rp[i + 1];
    rp32[i] = (int32_t)s;
    if (e < s || (i == 0 && s != 0)) {
        atomicMin(&flags[BAD_ORDER], (unsigned long long)i);
        return;
    }
    for (int64_t k = s; k < e; k++) {
        const int32_t c = ci[k];
        if (c < 0 || c >= n) atomicMin(&flags[BAD_COLUMN], (unsigned long long)i);
        if (!isfinite(v[k])) atomicMin(&flags[BAD_VALUE], (unsigned long long)i);
        if (k > s && c <= ci[k - 1]) atomicMin(&flags[UNSORTED], (unsigned long long)i);
    }
}

__global__ static void check_values(int64_t nnz, const double *v, unsigned long long *bad)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nnz && !isfinite(v[k])) atomicMin(bad, (unsigned long long)k);
}

static gs_status read_flags(unsigned long long *d, unsigned long long *h, int n)
{
    gs_status st = GS_OK;
    GS_CUDA_CALL(cudaMemcpyAsync(h, d, (size_t)n * sizeof *h, cudaMemcpyDeviceToHost,
                                 gs_cuda_g.stream));
    GS_CUDA_CALL(cudaStreamSynchronize(gs_cuda_g.stream));
done:
    return st;
}

extern "C" gs_status gs_api_csr_from_device(int64_t n, const int64_t *rowptr,
                                            const int32_t *rowptr32, const int32_t *cols,
                                            const double *vals, const char *fn, gs_csr **out,
                                            int *canonical, int64_t *nnz)
{
    gs_status st = GS_OK;
    int32_t *rp = NULL, *ci = NULL;
    double *v = NULL;
    unsigned long long *flags = NULL, h[NFLAGS];
    int64_t m = 0;
    *out = NULL;
    *canonical = 1;
    int32_t m32 = 0;
    if (rowptr)
        GS_CUDA_CALL(cudaMemcpyAsync(&m, rowptr + n, sizeof m, cudaMemcpyDeviceToHost,
                                     gs_cuda_g.stream));
    else
        GS_CUDA_CALL(cudaMemcpyAsync(&m32, rowptr32 + n, sizeof m32, cudaMemcpyDeviceToHost,
                                     gs_cuda_g.stream));
    GS_CUDA_CALL(cudaStreamSynchronize(gs_cuda_g.stream));
    if (!rowptr) m = m32;
    *nnz = m;
    if (m < 0)
        GS_FAIL(GS_ERR_INPUT, "%s: rowptr[n] = %lld, expected the entries' count", fn,
                (long long)m);
    if (m > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "%s: %lld entries; at most %lld (2^31 - 1)", fn, (long long)m,
                GS_MAX_INDEX);
    if (m > 0 && (!cols || !vals)) GS_FAIL(GS_ERR_ARG, "%s: cols or vals is NULL", fn);
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *rp, "CSR row pointers", (void **)&rp));
    GS_CHECK(gs_cuda_alloc((m > 0 ? (size_t)m : 1) * sizeof *ci, "CSR column indices", (void **)&ci));
    GS_CHECK(gs_cuda_alloc((m > 0 ? (size_t)m : 1) * sizeof *v, "CSR values", (void **)&v));
    GS_CHECK(gs_cuda_alloc(NFLAGS * sizeof *flags, "CSR checks", (void **)&flags));
    GS_CUDA_CALL(cudaMemsetAsync(flags, 0xff, NFLAGS * sizeof *flags, gs_cuda_g.stream));
    {
        const unsigned blocks = (unsigned)((n + 1 + GS_CUDA_THREADS - 1) / GS_CUDA_THREADS);
        if (rowptr)
            check_rows<<<blocks, GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(n, rowptr, cols, vals,
                                                                           rp, flags);
        else
            check_rows<<<blocks, GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(n, rowptr32, cols, vals,
                                                                           rp, flags);
        GS_CUDA_LAUNCHED("check_rows");
    }
    GS_CHECK(read_flags(flags, h, NFLAGS));
    if (h[BAD_ORDER] != ~0ull)
        GS_FAIL(GS_ERR_INPUT, "%s: %s at row %llu", fn,
                h[BAD_ORDER] == 0 ? "rowptr[0] is not 0 or rowptr decreases" : "rowptr decreases",
                h[BAD_ORDER]);
    if (h[BAD_COLUMN] != ~0ull)
        GS_FAIL(GS_ERR_INPUT, "%s: row %llu: a column outside 0..%lld", fn, h[BAD_COLUMN],
                (long long)(n - 1));
    if (h[BAD_VALUE] != ~0ull)
        GS_FAIL(GS_ERR_INPUT, "%s: row %llu: a value that is not finite", fn, h[BAD_VALUE]);
    if (h[UNSORTED] != ~0ull) {
        *canonical = 0;
        goto done;
    }
    if (m > 0) {
        GS_CUDA_CALL(cudaMemcpyAsync(ci, cols, (size_t)m * sizeof *ci, cudaMemcpyDeviceToDevice,
                                     gs_cuda_g.stream));
        GS_CUDA_CALL(cudaMemcpyAsync(v, vals, (size_t)m * sizeof *v, cudaMemcpyDeviceToDevice,
                                     gs_cuda_g.stream));
    }
    st = gs_cuda_csr_adopt((int32_t)n, (int32_t)n, (int32_t)m, rp, ci, v, out);
    rp = NULL, ci = NULL, v = NULL; /* adopted, or freed by the failed adopt */
done:
    gs_cuda_free(rp);
    gs_cuda_free(ci);
    gs_cuda_free(v);
    gs_cuda_free(flags);
    return st;
}

extern "C" gs_status gs_api_values_from_device(gs_csr *A, const double *vals)
{
    gs_status st = GS_OK;
    unsigned long long *bad = NULL, h = 0;
    if (A->nnz <= 0) return GS_OK;
    GS_CHECK(gs_cuda_alloc(sizeof *bad, "value check", (void **)&bad));
    GS_CUDA_CALL(cudaMemsetAsync(bad, 0xff, sizeof *bad, gs_cuda_g.stream));
    check_values<<<(unsigned)((A->nnz + GS_CUDA_THREADS - 1) / GS_CUDA_THREADS), GS_CUDA_THREADS,
                   0, gs_cuda_g.stream>>>(A->nnz, vals, bad);
    GS_CUDA_LAUNCHED("check_values");
    GS_CHECK(read_flags(bad, &h, 1));
    if (h != ~0ull)
        GS_FAIL(GS_ERR_INPUT, "gsolve_update_values: entry %llu is not finite", h);
    GS_CUDA_CALL(cudaMemcpyAsync(A->val, vals, (size_t)A->nnz * sizeof *vals,
                                 cudaMemcpyDeviceToDevice, gs_cuda_g.stream));
    GS_CUDA_CALL(cudaStreamSynchronize(gs_cuda_g.stream));
done:
    gs_cuda_free(bad);
    return st;
}

/* gs_spgemm_transpose_cuda.cu: At = A^T on the device (gs_spgemm_transpose, and the R = P^T of
 * the Galerkin product and of AMG): a stable CUB radix sort of the entries by column, its memory
 * counted by the SpGEMM's tracker. */
#include <stdint.h>

#include <cub/cub.cuh>

#include "gs_spgemm_cuda_impl.cuh"

/* key[q] = column of entry q, seq[q] = q; erow[q] = row of entry q (a thread per row) */
static __global__ void transpose_prep_kernel(int32_t rows, const int32_t *__restrict__ rowptr,
                                             const int32_t *__restrict__ colind, unsigned *key,
                                             int32_t *seq, int32_t *erow, int32_t *cnt)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x)
        for (int32_t q = rowptr[i]; q < rowptr[i + 1]; q++) {
            key[q] = (unsigned)colind[q];
            seq[q] = q;
            erow[q] = (int32_t)i;
            atomicAdd(&cnt[colind[q]], 1);
        }
}

/* entry q of A^T: column erow[perm[q]], value val[perm[q]] */
static __global__ void transpose_gather_kernel(int64_t nnz, const int32_t *__restrict__ perm,
                                               const int32_t *__restrict__ erow,
                                               const double *__restrict__ val, int32_t *ci,
                                               double *v)
{
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < nnz;
         q += (int64_t)gridDim.x * blockDim.x) {
        const int32_t p = perm[q];
        ci[q] = erow[p];
        v[q] = val[p];
    }
}

/* At = A^T: a stable CUB radix sort of the entries by column (rows stay ascending inside each
 * column), row pointers from column counts and a scan */
gs_status gs_spgemm_transpose_cub(const gs_csr *A, gs_csr **At)
{
    gs_status st = GS_OK;
    cudaStream_t s = gs_cuda_g.stream;
    const int64_t nnz = A->nnz, n1 = (int64_t)A->cols + 1;
    unsigned *key = NULL, *key2 = NULL;
    int32_t *seq = NULL, *perm = NULL, *erow = NULL, *cnt = NULL, *rp = NULL, *ci = NULL;
    double *v = NULL;
    void *tmp = NULL;
    size_t bytes = 0;
    int bits = 1;
    *At = NULL;
    while (((int64_t)1 << bits) < A->cols) bits++;
    GS_CHECK(talloc((size_t)n1 * 4, "transpose row pointers", (void **)&rp));
    GS_CHECK(talloc((size_t)nnz * 4, "transpose columns", (void **)&ci));
    GS_CHECK(talloc((size_t)nnz * 8, "transpose values", (void **)&v));
    GS_CHECK(talloc((size_t)n1 * 4, "transpose counts", (void **)&cnt));
    GS_CUDA_CALL(cudaMemsetAsync(cnt, 0, (size_t)n1 * 4, s));
    if (nnz > 0) {
        GS_CHECK(talloc((size_t)nnz * 4, "transpose keys", (void **)&key));
        GS_CHECK(talloc((size_t)nnz * 4, "transpose keys", (void **)&key2));
        GS_CHECK(talloc((size_t)nnz * 4, "transpose order", (void **)&seq));
        GS_CHECK(talloc((size_t)nnz * 4, "transpose order", (void **)&perm));
        GS_CHECK(talloc((size_t)nnz * 4, "transpose rows", (void **)&erow));
        transpose_prep_kernel<<<gs_cuda_grid(A->rows), GS_CUDA_THREADS, 0, s>>>(
            A->rows, A->rowptr, A->colind, key, seq, erow, cnt);
        GS_CUDA_LAUNCHED("transpose_prep");
        GS_CUDA_CALL(cub::DeviceRadixSort::SortPairs(NULL, bytes, key, key2, seq, perm, (int)nnz, 0,
                                                     bits, s));
        GS_CHECK(talloc(bytes, "transpose sort scratch", &tmp));
        GS_CUDA_CALL(cub::DeviceRadixSort::SortPairs(tmp, bytes, key, key2, seq, perm, (int)nnz, 0,
                                                     bits, s));
        transpose_gather_kernel<<<gs_cuda_grid(nnz), GS_CUDA_THREADS, 0, s>>>(nnz, perm, erow,
                                                                              A->val, ci, v);
        GS_CUDA_LAUNCHED("transpose_gather");
        tfree(tmp);
        tmp = NULL;
    }
    bytes = 0;
    GS_CUDA_CALL(cub::DeviceScan::ExclusiveSum(NULL, bytes, cnt, rp, (int)n1, s));
    GS_CHECK(talloc(bytes, "transpose scan scratch", &tmp));
    GS_CUDA_CALL(cub::DeviceScan::ExclusiveSum(tmp, bytes, cnt, rp, (int)n1, s));
    tforget(rp), tforget(ci), tforget(v);
    st = gs_cuda_csr_adopt(A->cols, A->rows, (int32_t)nnz, rp, ci, v, At);
    rp = ci = NULL, v = NULL;
    GS_CHECK(st);
done:
    tfree(key), tfree(key2), tfree(seq), tfree(perm), tfree(erow), tfree(cnt), tfree(tmp);
    tfree(rp), tfree(ci), tfree(v);
    return st;
}

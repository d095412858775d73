/* gs_spgemm_cusparse_cuda.cu: C = A*B by cuSPARSE's SpGEMM, the comparison path of the device
 * SpGEMM (GS_SPGEMM_CUSPARSE), its memory counted by the same tracker as the DCSR product's. */
#include <stdint.h>

#include "gs_spgemm_cuda_impl.cuh"

/* C = A*B by cusparseSpGEMM (work estimation, compute, copy; the default algorithm) */
gs_status gs_spgemm_cusparse_product(const gs_csr *A, const gs_csr *B, gs_spgemm_info *info,
                                     gs_csr **C)
{
    gs_status st = GS_OK;
    cusparseHandle_t hd = gs_cuda_g.sparse;
    const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT;
    cusparseSpMatDescr_t ma = NULL, mb = NULL, mc = NULL;
    cusparseSpGEMMDescr_t sd = NULL;
    void *b1 = NULL, *b2 = NULL;
    size_t s1 = 0, s2 = 0;
    int64_t cr = 0, cc = 0, cnnz = 0;
    int32_t *rp = NULL, *ci = NULL;
    double *v = NULL;
    const double one = 1.0, zero = 0.0;
    *C = NULL;
    GS_CHECK(talloc(((size_t)A->rows + 1) * 4, "SpGEMM row pointers", (void **)&rp));
    if (A->rows > 0 && B->cols > 0 && A->nnz > 0 && B->nnz > 0) {
        GS_CUSPARSE_CALL(cusparseCreateCsr(&ma, A->rows, A->cols, A->nnz, A->rowptr, A->colind,
                                           A->val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        GS_CUSPARSE_CALL(cusparseCreateCsr(&mb, B->rows, B->cols, B->nnz, B->rowptr, B->colind,
                                           B->val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        GS_CUSPARSE_CALL(cusparseCreateCsr(&mc, A->rows, B->cols, 0, rp, NULL, NULL,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        GS_CUSPARSE_CALL(cusparseSpGEMM_createDescr(&sd));
        GS_CUSPARSE_CALL(cusparseSpGEMM_workEstimation(hd, op, op, &one, ma, mb, &zero, mc,
                                                       CUDA_R_64F, alg, sd, &s1, NULL));
        GS_CHECK(talloc(s1, "cuSPARSE SpGEMM buffer 1", &b1));
        GS_CUSPARSE_CALL(cusparseSpGEMM_workEstimation(hd, op, op, &one, ma, mb, &zero, mc,
                                                       CUDA_R_64F, alg, sd, &s1, b1));
        GS_CUSPARSE_CALL(cusparseSpGEMM_compute(hd, op, op, &one, ma, mb, &zero, mc, CUDA_R_64F,
                                                alg, sd, &s2, NULL));
        GS_CHECK(talloc(s2, "cuSPARSE SpGEMM buffer 2", &b2));
        GS_CUSPARSE_CALL(cusparseSpGEMM_compute(hd, op, op, &one, ma, mb, &zero, mc, CUDA_R_64F,
                                                alg, sd, &s2, b2));
        GS_CUSPARSE_CALL(cusparseSpMatGetSize(mc, &cr, &cc, &cnnz));
        if (cnnz > GS_MAX_INDEX)
            GS_FAIL(GS_ERR_UNSUPPORTED,
                    "SpGEMM: the product has %lld entries, beyond 32-bit "
                    "indices",
                    (long long)cnnz);
        GS_CHECK(talloc((size_t)cnnz * 4, "SpGEMM result columns", (void **)&ci));
        GS_CHECK(talloc((size_t)cnnz * 8, "SpGEMM result values", (void **)&v));
        GS_CUSPARSE_CALL(cusparseCsrSetPointers(mc, rp, ci, v));
        GS_CUSPARSE_CALL(
            cusparseSpGEMM_copy(hd, op, op, &one, ma, mb, &zero, mc, CUDA_R_64F, alg, sd));
    } else {
        GS_CUDA_CALL(cudaMemsetAsync(rp, 0, ((size_t)A->rows + 1) * 4, gs_cuda_g.stream));
        GS_CHECK(talloc(4, "SpGEMM result columns", (void **)&ci));
        GS_CHECK(talloc(8, "SpGEMM result values", (void **)&v));
    }
    tforget(rp), tforget(ci), tforget(v);
    st = gs_cuda_csr_adopt(A->rows, B->cols, (int32_t)cnnz, rp, ci, v, C);
    rp = ci = NULL, v = NULL;
    GS_CHECK(st);
    if (info) info->nnz = cnnz;
done:
    if (sd) (void)cusparseSpGEMM_destroyDescr(sd);
    if (ma) (void)cusparseDestroySpMat(ma);
    if (mb) (void)cusparseDestroySpMat(mb);
    if (mc) (void)cusparseDestroySpMat(mc);
    tfree(b1), tfree(b2), tfree(rp), tfree(ci), tfree(v);
    return st;
}

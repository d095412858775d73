/* gs_cuda_csr.cu: CSR on the device: upload, free, SpMV through cuSPARSE (the baseline) and our
 * own "vector" kernel (L lanes per row, L chosen at upload from the mean and the spread of the
 * row lengths).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gs_cuda_impl.h"
#include "gs_cuda_reduce.cuh"

/* What a device CSR keeps besides its arrays (gs_csr.backend). */
typedef struct cuda_csr {
    cusparseSpMatDescr_t mat; /* NULL when the matrix has no entries (SpMV fills zeros) */
    void *buf;                /* cusparseSpMV's external buffer */
    size_t buf_bytes;
    int lanes, lanes_log2; /* threads per row of the own kernel: 1, 2, 4, ..., 32 */
    int max_row;           /* longest row */
    double row_std;        /* standard deviation of the row lengths */
} cuda_csr;

/* y = A*x, L = 2^lanes_log2 consecutive lanes per row: the lanes stride through the row
 * (coalesced loads of colind/val), x through the read-only cache, then a shuffle reduction
 * inside each L-lane group. Every lane of a warp reaches the shuffles (no early exit). */
static __global__ void csr_vector_kernel(int32_t rows, int lanes_log2,
                                         const int32_t *__restrict__ rowptr,
                                         const int32_t *__restrict__ colind,
                                         const double *__restrict__ val,
                                         const double *__restrict__ x, double *__restrict__ y)
{
    const int lanes = 1 << lanes_log2;
    const int64_t row = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> lanes_log2;
    const int lane = threadIdx.x & (lanes - 1);
    double sum = 0.0;
    if (row < rows) {
        const int64_t end = __ldg(rowptr + row + 1);
        for (int64_t k = __ldg(rowptr + row) + lane; k < end; k += lanes)
            sum += __ldg(val + k) * __ldg(x + __ldg(colind + k));
    }
    sum = gs_lanes_sum(sum, lanes);
    if (row < rows && lane == 0) y[row] = sum;
}

/* the k <= GS_MAX_DOTS pairs fused into an SpMV; a NULL pointer stands for y's new values */
typedef struct spmv_dots_args {
    const double *a[GS_MAX_DOTS];
    const double *b[GS_MAX_DOTS];
} spmv_dots_args;

/* y = A*x as csr_vector_kernel, over a fixed grid (rows strided by the number of lane groups,
 * so partial sums are deterministic), and part[j*GS_CUDA_RED_BLOCKS + block] = the block's
 * share of a[j].b[j] */
static __global__ void csr_vector_dots_kernel(int32_t rows, int lanes_log2,
                                              const int32_t *__restrict__ rowptr,
                                              const int32_t *__restrict__ colind,
                                              const double *__restrict__ val,
                                              const double *__restrict__ x, double *y, int k,
                                              spmv_dots_args d, double *part)
{
    __shared__ double ws[GS_MAX_DOTS][GS_CUDA_THREADS / 32];
    const int lanes = 1 << lanes_log2, lane = threadIdx.x & (lanes - 1);
    const int64_t groups = ((int64_t)gridDim.x * blockDim.x) >> lanes_log2;
    double s[GS_MAX_DOTS] = {0.0, 0.0, 0.0, 0.0};
    for (int64_t row = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> lanes_log2;
         __any_sync(0xffffffffu, row < rows); row += groups) {
        double sum = 0.0;
        if (row < rows) {
            const int64_t end = __ldg(rowptr + row + 1);
            for (int64_t q = __ldg(rowptr + row) + lane; q < end; q += lanes)
                sum += __ldg(val + q) * __ldg(x + __ldg(colind + q));
        }
        sum = gs_lanes_sum(sum, lanes);
        if (row < rows && lane == 0) {
            y[row] = sum;
#pragma unroll
            for (int j = 0; j < GS_MAX_DOTS; j++)
                if (j < k) s[j] += (d.a[j] ? d.a[j][row] : sum) * (d.b[j] ? d.b[j][row] : sum);
        }
    }
    const int wl = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int j = 0; j < GS_MAX_DOTS; j++) {
        const double v = gs_warp_sum(s[j]);
        if (wl == 0) ws[j][warp] = v;
    }
    __syncthreads();
    if (threadIdx.x < k) {
        double t = 0.0;
        for (int q = 0; q < GS_CUDA_THREADS / 32; q++) t += ws[threadIdx.x][q];
        part[threadIdx.x * GS_CUDA_RED_BLOCKS + blockIdx.x] = t;
    }
}

/* The longest row, the sum of squared row lengths (from len, or else from the row pointers
 * that end at total: rowptr = total - rows) and *total straight into host memory (h[0..2]): per
 * thread over a grid of at most GS_CUDA_RED_BLOCKS blocks, warp, block, then one integer atomic
 * pair per block into acc (d_sel, zero at rest; integer max and sum do not depend
 * on the order); the last block copies the totals out and clears acc, so the pass needs no memset
 * and no copy to enqueue. (With an atomic pair per warp on the same two words, the million rows
 * of 3D Poisson 7-point A*A's product took 53 us, ncu: the atomics queued.) */
static __global__ void row_stats_kernel(int32_t rows, const int32_t *__restrict__ len,
                                        const int32_t *__restrict__ total, unsigned long long *acc,
                                        unsigned long long *h)
{
    __shared__ bool s_last;
    __shared__ unsigned long long wm[GS_CUDA_THREADS / 32], wsq[GS_CUDA_THREADS / 32];
    unsigned long long m = 0, sq = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x) {
        const unsigned long long l =
            (unsigned long long)(len ? __ldg(len + i)
                                     : __ldg(total + (i + 1 - rows)) - __ldg(total + (i - rows)));
        m = l > m ? l : m;
        sq += l * l;
    }
    for (int off = 16; off > 0; off >>= 1) {
        unsigned long long om = __shfl_down_sync(0xffffffffu, m, off);
        m = om > m ? om : m;
        sq += __shfl_down_sync(0xffffffffu, sq, off);
    }
    if ((threadIdx.x & 31) == 0) wm[threadIdx.x >> 5] = m, wsq[threadIdx.x >> 5] = sq;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < GS_CUDA_THREADS / 32; w++) m = wm[w] > m ? wm[w] : m, sq += wsq[w];
        if (sq > 0) atomicMax(acc, m), atomicAdd(acc + 1, sq);
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) s_last = atomicAdd(acc + 2, 1ull) == gridDim.x - 1;
    __syncthreads();
    if (!s_last || threadIdx.x != 0) return;
    __threadfence();
    h[0] = __ldcg(acc), h[1] = __ldcg(acc + 1), h[2] = (unsigned long long)__ldg(total);
    acc[0] = acc[1] = acc[2] = 0;
}

/* The row statistics of the rows x rowptr (device) issued without a wait: the longest row and
 * the sum of squared lengths into the pinned h_red[0..1], rowptr[rows] (the entries) into
 * h_red[2] (one kernel); gs_cuda_row_stats_read gives them after the stream drains. A caller
 * that waits anyway (DCSR -> CSR waits for the entry count) saves a wait. */
extern "C" gs_status gs_cuda_row_stats_issue(int32_t rows, const int32_t *rowptr)
{
    return gs_cuda_row_stats_issue_len(rows, NULL, rowptr + rows);
}

/* the same from the row lengths len (rowptr NULL) or the row pointers (len NULL: rowptr =
 * total - rows), the entries read from *total */
extern "C" gs_status gs_cuda_row_stats_issue_len(int32_t rows, const int32_t *len,
                                                 const int32_t *total)
{
    gs_status st = GS_OK;
    gs_cuda_ctx *g = &gs_cuda_g;
    unsigned long long *acc = (unsigned long long *)((char *)g->d_sel + GS_CUDA_SEL_STATS),
                       *h = (unsigned long long *)g->h_red;
    h[0] = h[1] = h[2] = 0;
    if (rows > 0) {
        row_stats_kernel<<<gs_cuda_red_blocks(rows), GS_CUDA_THREADS, 0, g->stream>>>(
            rows, len, total, acc, (unsigned long long *)g->h_red_dev);
        GS_CUDA_LAUNCHED("row_stats");
    }
done:
    return st;
}

/* after gs_cuda_row_stats_issue and a wait: the entries, the longest row, the standard
 * deviation of the row lengths */
extern "C" void gs_cuda_row_stats_read(int32_t rows, int32_t *nnz, int *max_len, double *std)
{
    const unsigned long long *h = (const unsigned long long *)gs_cuda_g.h_red;
    *nnz = (int32_t)(uint32_t)h[2];
    *max_len = (int)h[0];
    *std = 0.0;
    if (rows > 0) {
        const double mean = (double)*nnz / rows, var = (double)h[1] / rows - mean * mean;
        *std = var > 0 ? sqrt(var) : 0.0;
    }
}

/* longest row and standard deviation of the row lengths of device matrix A (one small
 * kernel, one wait) */
static gs_status row_stats(const gs_csr *A, int *max_len, double *std)
{
    gs_status st = GS_OK;
    int32_t nnz = 0;
    *max_len = 0;
    *std = 0.0;
    if (A->rows == 0) return GS_OK;
    GS_CHECK(gs_cuda_row_stats_issue(A->rows, A->rowptr));
    GS_CUDA_CALL(cudaStreamSynchronize(gs_cuda_g.stream));
    gs_cuda_row_stats_read(A->rows, &nnz, max_len, std);
done:
    return st;
}

/* log2 of L, the lanes per row of the own kernel: the smallest power of two >= (mean + std)/4,
 * in 1..32, so a lane takes about four entries. Measured on an H200 (bench_spmv, forcing each
 * L): 1.5 to 2.0x faster than L >= mean on 5-, 7- and 27-point stencils (more rows per warp,
 * fewer shuffle steps, fewer idle lanes) and within 6% of the best L on each. The std term
 * gives rows of uneven length more lanes so a long row does not hold its warp for long
 * (power-law graph, mean 9, std 29: L = 16, the best, 3.7x faster than L = 4). */
static int choose_lanes_log2(double mean, double std)
{
    int l = 0;
    while (l < 5 && (double)(4 << l) < mean + std) l++;
    return l;
}

extern "C" int gs_cuda_csr_max_row(const gs_csr *A)
{
    const cuda_csr *be = (const cuda_csr *)A->backend;
    return A->loc == GS_LOC_DEVICE && be ? be->max_row : -1;
}

/* Free the device arrays, descriptor, buffer and backend state of A (not A itself). */
extern "C" void gs_cuda_csr_free(gs_csr *A)
{
    cuda_csr *be = (cuda_csr *)A->backend;
    if (be) {
        if (be->mat) (void)cusparseDestroySpMat(be->mat); /* host-side; cannot fail usefully */
        gs_cuda_free(be->buf);
        gs_free(be);
    }
    gs_cuda_free(A->rowptr);
    gs_cuda_free(A->colind);
    gs_cuda_free(A->val);
    A->rowptr = A->colind = NULL;
    A->val = NULL;
    A->backend = NULL;
}

/* cuSPARSE descriptor of A and the SpMV buffer it asks for (nnz > 0) */
static gs_status make_spmv_state(gs_csr *A, cuda_csr *be)
{
    gs_status st = GS_OK;
    cusparseDnVecDescr_t vx = NULL, vy = NULL;
    const double one = 1.0, zero = 0.0;
    GS_CUSPARSE_CALL(cusparseCreateCsr(&be->mat, A->rows, A->cols, A->nnz, A->rowptr, A->colind,
                                       A->val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    /* the buffer size depends on the shapes only; the vectors' values are never read here,
     * so any valid device address will do (the reduction scratch) */
    GS_CUSPARSE_CALL(cusparseCreateDnVec(&vx, A->cols, gs_cuda_g.d_part, CUDA_R_64F));
    GS_CUSPARSE_CALL(cusparseCreateDnVec(&vy, A->rows, gs_cuda_g.d_part, CUDA_R_64F));
    GS_CUSPARSE_CALL(cusparseSpMV_bufferSize(gs_cuda_g.sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                             &one, be->mat, vx, &zero, vy, CUDA_R_64F,
                                             CUSPARSE_SPMV_CSR_ALG1, &be->buf_bytes));
    GS_CHECK(gs_cuda_alloc(be->buf_bytes, "cuSPARSE SpMV buffer", &be->buf));
done:
    if (vx) (void)cusparseDestroyDnVec(vx);
    if (vy) (void)cusparseDestroyDnVec(vy);
    if (st != GS_OK && be->mat) { /* made again by the next call */
        (void)cusparseDestroySpMat(be->mat);
        be->mat = NULL;
    }
    return st;
}

/* A device CSR around device arrays rowptr/colind/val (taken over: freed with the matrix, also
 * on failure), with its own kernel's lane count from the row statistics (measured here); the
 * cuSPARSE descriptor waits for the first cuSPARSE SpMV. */
extern "C" gs_status gs_cuda_csr_adopt(int32_t rows, int32_t cols, int32_t nnz, int32_t *rowptr,
                                       int32_t *colind, double *val, gs_csr **out)
{
    return gs_cuda_csr_adopt_stats(rows, cols, nnz, rowptr, colind, val, -1, 0.0, out);
}

/* device arrays of a new matrix, each of at least one element */
extern "C" gs_status gs_cuda_alloc_csr_arrays(int64_t rows, int64_t nnz, int32_t **rp,
                                             int32_t **ci, double **v)
{
    gs_status st = GS_OK;
    const size_t n = nnz > 0 ? (size_t)nnz : 1;
    GS_CHECK(gs_cuda_alloc(((size_t)rows + 1) * sizeof(int32_t), "row pointers", (void **)rp));
    GS_CHECK(gs_cuda_alloc(n * sizeof(int32_t), "column indices", (void **)ci));
    GS_CHECK(gs_cuda_alloc(n * sizeof(double), "values", (void **)v));
done:
    return st;
}

extern "C" void gs_cuda_free_csr_arrays(int32_t *rp, int32_t *ci, double *v)
{
    gs_cuda_free(rp);
    gs_cuda_free(ci);
    gs_cuda_free(v);
}

/* gs_cuda_csr_adopt with the row statistics known (max_len < 0: measured here) */
extern "C" gs_status gs_cuda_csr_adopt_stats(int32_t rows, int32_t cols, int32_t nnz,
                                             int32_t *rowptr, int32_t *colind, double *val,
                                             int max_len, double row_std, gs_csr **out)
{
    gs_status st = GS_OK;
    gs_csr *A = NULL;
    cuda_csr *be = NULL;
    *out = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *A, "device CSR matrix", (void **)&A));
    memset(A, 0, sizeof *A);
    A->rows = rows;
    A->cols = cols;
    A->nnz = nnz;
    A->loc = GS_LOC_DEVICE;
    A->rowptr = rowptr, A->colind = colind, A->val = val;
    rowptr = NULL, colind = NULL, val = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *be, "device CSR state", (void **)&be));
    memset(be, 0, sizeof *be);
    A->backend = be;
    if (max_len >= 0)
        be->max_row = max_len, be->row_std = row_std;
    else
        GS_CHECK(row_stats(A, &be->max_row, &be->row_std));
    be->lanes_log2 = choose_lanes_log2(A->rows > 0 ? (double)A->nnz / A->rows : 0.0, be->row_std);
    be->lanes = 1 << be->lanes_log2;
    /* the cuSPARSE descriptor and buffer wait for the first cuSPARSE SpMV (gs_cuda_csr_spmv): a
     * product's result may never see one (A P inside a Galerkin product), and their host calls
     * were a tenth of a small SpGEMM */
    *out = A;
    A = NULL;
done:
    gs_cuda_free(rowptr);
    gs_cuda_free(colind);
    gs_cuda_free(val);
    if (A) {
        if (A->backend) {
            gs_cuda_csr_free(A);
        } else {
            gs_cuda_free(A->rowptr);
            gs_cuda_free(A->colind);
            gs_cuda_free(A->val);
        }
        gs_free(A);
    }
    return st;
}

/* *out = a device copy of host CSR h (gs_cuda_csr_adopt), meanwhile(arg) run while it travels */
extern "C" gs_status gs_cuda_csr_upload(const gs_csr *h, gs_status (*meanwhile)(void *),
                                        void *arg, gs_csr **out)
{
    gs_status st = GS_OK;
    int32_t *rp = NULL, *ci = NULL;
    double *v = NULL;
    const size_t rp_bytes = ((size_t)h->rows + 1) * sizeof(int32_t);
    const size_t ci_bytes = (size_t)h->nnz * sizeof(int32_t);
    const size_t v_bytes = (size_t)h->nnz * sizeof(double);
    gs_cuda_seg seg[3];
    int passed = 0; /* meanwhile handed on (it runs on failure too: it may hold collectives) */
    *out = NULL;
    GS_CHECK(gs_cuda_alloc(rp_bytes, "CSR row pointers", (void **)&rp));
    GS_CHECK(gs_cuda_alloc(ci_bytes, "CSR column indices", (void **)&ci));
    GS_CHECK(gs_cuda_alloc(v_bytes, "CSR values", (void **)&v));
    seg[0].dst = rp, seg[0].src = h->rowptr, seg[0].bytes = rp_bytes;
    seg[1].dst = ci, seg[1].src = h->colind, seg[1].bytes = ci_bytes;
    seg[2].dst = v, seg[2].src = h->val, seg[2].bytes = v_bytes;
    passed = 1;
    GS_CHECK(gs_cuda_h2d_while(seg, 3, meanwhile, arg)); /* one pipelined pass over the three */
    st = gs_cuda_csr_adopt(h->rows, h->cols, h->nnz, rp, ci, v, out);
    rp = NULL, ci = NULL, v = NULL; /* adopted, or freed by the failed adopt */
done:
    if (meanwhile && !passed) (void)meanwhile(arg);
    gs_cuda_free(rp);
    gs_cuda_free(ci);
    gs_cuda_free(v);
    return st;
}

/* A host copy of device CSR A. */
extern "C" gs_status gs_cuda_csr_download(const gs_csr *A, gs_csr **out)
{
    gs_status st = GS_OK;
    gs_csr *H = NULL;
    *out = NULL;
    GS_CHECK(gs_csr_create(A->rows, A->cols, A->nnz, &H));
    GS_CHECK(gs_cuda_d2h(H->rowptr, A->rowptr, ((size_t)A->rows + 1) * sizeof(int32_t)));
    GS_CHECK(gs_cuda_d2h(H->colind, A->colind, (size_t)A->nnz * sizeof(int32_t)));
    GS_CHECK(gs_cuda_d2h(H->val, A->val, (size_t)A->nnz * sizeof(double)));
    *out = H;
    H = NULL;
done:
    gs_csr_destroy(&H);
    return st;
}

/* y = A*x shape check shared by both SpMVs */
static gs_status check_shapes(const gs_csr *A, const gs_vec *x, const gs_vec *y, const char *who)
{
    if (A->loc != GS_LOC_DEVICE || !A->backend || x->loc != GS_LOC_DEVICE ||
        y->loc != GS_LOC_DEVICE)
        return GS_ERROR(GS_ERR_ARG, "%s: matrix and vectors must all be on the device", who);
    if (x->n != A->cols || y->n != A->rows)
        return GS_ERROR(GS_ERR_ARG, "%s: %d x %d matrix with x of length %lld and y of %lld", who,
                        A->rows, A->cols, (long long)x->n, (long long)y->n);
    return GS_OK;
}

/* the cuSPARSE state of A made ahead of its first SpMV (gs_spmat_create of format cusparse):
 * that SpMV may be recorded into a CUDA graph (the AMG cycle), where the buffer's allocation
 * would become the graph's and fail its next launch */
extern "C" gs_status gs_cuda_csr_prepare(const gs_csr *A)
{
    cuda_csr *be = (cuda_csr *)A->backend;
    if (A->loc != GS_LOC_DEVICE || !be)
        return GS_ERROR(GS_ERR_ARG, "csr_prepare: the matrix is not on the device");
    if (be->mat || A->rows == 0 || A->cols == 0 || A->nnz == 0) return GS_OK;
    return make_spmv_state((gs_csr *)A, be);
}

/* y = A*x through cusparseSpMV (CSR_ALG1, alpha 1, beta 0: y is not read) */
extern "C" gs_status gs_cuda_csr_spmv(const gs_csr *A, const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    cuda_csr *be = (cuda_csr *)A->backend; /* the cuSPARSE state made on the first call */
    cusparseDnVecDescr_t vx = NULL, vy = NULL;
    const double one = 1.0, zero = 0.0;
    GS_CHECK(check_shapes(A, x, y, "csr_spmv"));
    if (A->rows == 0 || A->cols == 0 || A->nnz == 0) { /* no entries: y = 0 */
        GS_CHECK(gs_cuda_fill(0.0, y));
        return GS_OK;
    }
    if (!be->mat) GS_CHECK(make_spmv_state((gs_csr *)A, be));
    /* vector descriptors are host-only objects: cheap to make per call */
    GS_CUSPARSE_CALL(cusparseCreateDnVec(&vx, A->cols, x->data, CUDA_R_64F));
    GS_CUSPARSE_CALL(cusparseCreateDnVec(&vy, A->rows, y->data, CUDA_R_64F));
    GS_CUSPARSE_CALL(cusparseSpMV(gs_cuda_g.sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, be->mat,
                                  vx, &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, be->buf));
done:
    if (vx) (void)cusparseDestroyDnVec(vx);
    if (vy) (void)cusparseDestroyDnVec(vy);
    return st;
}

/* y = A*x with csr_vector_kernel */
extern "C" gs_status gs_cuda_csr_spmv_own(const gs_csr *A, const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    const cuda_csr *be = (const cuda_csr *)A->backend;
    int64_t threads = 0, blocks = 0;
    GS_CHECK(check_shapes(A, x, y, "csr_spmv_own"));
    if (A->rows == 0) return GS_OK;
    threads = (int64_t)A->rows << be->lanes_log2;
    blocks = (threads + GS_CUDA_THREADS - 1) / GS_CUDA_THREADS; /* < 2^28: fits a grid */
    csr_vector_kernel<<<(unsigned)blocks, GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(
        A->rows, be->lanes_log2, A->rowptr, A->colind, A->val, x->data, y->data);
    GS_CUDA_LAUNCHED("csr_vector");
done:
    return st;
}

/* y = A*x with the own kernel and out[j] = a[j].b[j] fused into it (a[j] or b[j] == y means
 * y's new values): one kernel, one small reduction, one transfer */
extern "C" gs_status gs_cuda_csr_spmv_dots(const gs_csr *A, const gs_vec *x, gs_vec *y, int k,
                                           const gs_vec *const *a, const gs_vec *const *b,
                                           double *out)
{
    gs_status st = GS_OK;
    const cuda_csr *be = (const cuda_csr *)A->backend;
    spmv_dots_args d;
    GS_CHECK(check_shapes(A, x, y, "csr_spmv_dots"));
    if (k < 1 || k > GS_MAX_DOTS)
        GS_FAIL(GS_ERR_ARG, "csr_spmv_dots: %d products, expected 1..%d", k, GS_MAX_DOTS);
    for (int j = 0; j < k; j++) out[j] = 0.0;
    if (A->rows == 0) return GS_OK;
    memset(&d, 0, sizeof d);
    for (int j = 0; j < k; j++) {
        d.a[j] = a[j] == y ? NULL : a[j]->data;
        d.b[j] = b[j] == y ? NULL : b[j]->data;
    }
    {
        int nblk = gs_cuda_red_blocks((int64_t)A->rows << be->lanes_log2);
        csr_vector_dots_kernel<<<nblk, GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(
            A->rows, be->lanes_log2, A->rowptr, A->colind, A->val, x->data, y->data, k, d,
            gs_cuda_g.d_part);
        GS_CUDA_LAUNCHED("csr_vector_dots");
        GS_CHECK(gs_cuda_reduce_finish(k, nblk, out));
    }
done:
    return st;
}

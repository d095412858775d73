/* gs_csr.c: CSR construction from triplets, host SpMV, diagonal and row statistics. */
#include "gs_csr.h"

#include "gs_backend.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

gs_status gs_csr_create(int64_t rows, int64_t cols, int64_t nnz, gs_csr **out)
{
    gs_status st = GS_OK;
    gs_csr *A = NULL;
    *out = NULL;
    if (rows < 0 || cols < 0 || nnz < 0)
        return GS_ERROR(GS_ERR_ARG, "negative matrix size %lld x %lld, nnz %lld", (long long)rows,
                        (long long)cols, (long long)nnz);
    if (rows > GS_MAX_INDEX || cols > GS_MAX_INDEX || nnz > GS_MAX_INDEX)
        return GS_ERROR(GS_ERR_UNSUPPORTED,
                        "matrix %lld x %lld with %lld nonzeros exceeds 32-bit indices "
                        "(each must be below 2^31 = 2147483648)",
                        (long long)rows, (long long)cols, (long long)nnz);
    GS_CHECK(gs_alloc_array(1, sizeof *A, "CSR matrix", (void **)&A));
    memset(A, 0, sizeof *A);
    A->rows = (int32_t)rows;
    A->cols = (int32_t)cols;
    A->nnz = (int32_t)nnz;
    A->loc = GS_LOC_HOST;
    /* page-locked when a device backend runs: the upload is then one direct copy */
    GS_CHECK(gs_alloc_pinned((size_t)rows + 1, sizeof(int32_t), "CSR row pointers",
                             (void **)&A->rowptr));
    GS_CHECK(
        gs_alloc_pinned((size_t)nnz, sizeof(int32_t), "CSR column indices", (void **)&A->colind));
    GS_CHECK(gs_alloc_pinned((size_t)nnz, sizeof(double), "CSR values", (void **)&A->val));
    A->rowptr[0] = 0;
    *out = A;
    A = NULL;
done:
    gs_csr_destroy(&A);
    return st;
}

void gs_csr_destroy(gs_csr **A)
{
    if (!A || !*A) return;
    if ((*A)->loc == GS_LOC_HOST) {
        gs_free((*A)->rowptr);
        gs_free((*A)->colind);
        gs_free((*A)->val);
    } else {
        const gs_backend_ops *ops = gs_backend_get((*A)->loc);
        if (ops) ops->csr_free(*A); /* arrays and backend state, not the struct */
    }
    gs_free(*A);
    *A = NULL;
}

gs_status gs_csr_download(const gs_csr *A, gs_csr **out)
{
    const gs_backend_ops *ops = gs_backend_get(A->loc);
    *out = NULL;
    if (!ops) return GS_ERROR(GS_ERR_ARG, "gs_csr_download: the matrix's backend is not ready");
    return ops->csr_download(A, out);
}

gs_status gs_csr_upload(const gs_csr *A, gs_loc loc, gs_csr **out)
{
    return gs_csr_upload_while(A, loc, NULL, NULL, out);
}

gs_status gs_csr_upload_while(const gs_csr *A, gs_loc loc, gs_status (*meanwhile)(void *),
                              void *arg, gs_csr **out)
{
    *out = NULL;
    const gs_backend_ops *ops = gs_backend_get(loc); /* the host's: meanwhile, then a copy */
    if (!ops) return GS_ERROR(GS_ERR_UNSUPPORTED, "no device backend in this build or process");
    return ops->csr_upload(A, meanwhile, arg, out);
}

/* Triplets -> CSR by two stable counting sorts (by column, then by row), then a pass that
 * sums duplicates: O(nnz + rows + cols), no comparison sort. */
gs_status gs_csr_from_coo(int64_t rows, int64_t cols, int64_t nnz, const int32_t *ri,
                          const int32_t *ci, const double *v, gs_csr **out)
{
    gs_status st = GS_OK;
    gs_csr *A = NULL;
    int64_t *cnt = NULL;
    int32_t *perm = NULL; /* entries ordered by column */
    *out = NULL;
    GS_CHECK(gs_csr_create(rows, cols, nnz, &A));
    int64_t nb = (rows > cols ? rows : cols) + 1;
    GS_CHECK(gs_alloc_array((size_t)nb, sizeof *cnt, "COO conversion counts", (void **)&cnt));
    GS_CHECK(gs_alloc_array((size_t)nnz, sizeof *perm, "COO conversion order", (void **)&perm));

    /* pass 1: order entries by column */
    memset(cnt, 0, (size_t)nb * sizeof *cnt);
    for (int64_t k = 0; k < nnz; k++) cnt[ci[k] + 1]++;
    for (int64_t j = 0; j < cols; j++) cnt[j + 1] += cnt[j];
    for (int64_t k = 0; k < nnz; k++) perm[cnt[ci[k]]++] = (int32_t)k;

    /* pass 2: stable by row, so each row ends up sorted by column */
    memset(cnt, 0, (size_t)nb * sizeof *cnt);
    for (int64_t k = 0; k < nnz; k++) cnt[ri[k] + 1]++;
    for (int64_t i = 0; i < rows; i++) cnt[i + 1] += cnt[i];
    for (int64_t i = 0; i <= rows; i++) A->rowptr[i] = (int32_t)cnt[i];
    for (int64_t t = 0; t < nnz; t++) {
        int32_t k = perm[t];
        int64_t dst = cnt[ri[k]]++;
        A->colind[dst] = ci[k];
        A->val[dst] = v ? v[k] : 1.0;
    }

    /* pass 3: sum duplicates in place */
    int32_t w = 0;
    for (int64_t i = 0; i < rows; i++) {
        int32_t beg = A->rowptr[i], end = A->rowptr[i + 1];
        int32_t row_start = w;
        for (int32_t k = beg; k < end; k++) {
            if (w > row_start && A->colind[w - 1] == A->colind[k]) {
                A->val[w - 1] += A->val[k];
            } else {
                A->colind[w] = A->colind[k];
                A->val[w] = A->val[k];
                w++;
            }
        }
        A->rowptr[i] = row_start;
    }
    A->rowptr[rows] = w;
    A->nnz = w;
    *out = A;
    A = NULL;
done:
    gs_free(cnt);
    gs_free(perm);
    gs_csr_destroy(&A);
    return st;
}

gs_status gs_csr_copy(const gs_csr *A, gs_csr **out)
{
    gs_status st = GS_OK;
    gs_csr *B = NULL;
    *out = NULL;
    GS_CHECK(gs_csr_create(A->rows, A->cols, A->nnz, &B));
    memcpy(B->rowptr, A->rowptr, ((size_t)A->rows + 1) * sizeof(int32_t));
    memcpy(B->colind, A->colind, (size_t)A->nnz * sizeof(int32_t));
    memcpy(B->val, A->val, (size_t)A->nnz * sizeof(double));
    *out = B;
done:
    return st;
}

/* y = A*x, one row per iteration */
double gs_csr_storage_bytes(const gs_csr *A)
{
    return 4.0 * ((double)A->rows + 1.0) + 12.0 * (double)A->nnz;
}

void gs_csr_spmv_host(const gs_csr *A, const double *x, double *y)
{
    const int32_t *rp = A->rowptr, *ci = A->colind;
    const double *v = A->val;
#pragma omp parallel for schedule(static) if (A->nnz > 100000)
    for (int32_t i = 0; i < A->rows; i++) {
        double s = 0.0;
        for (int32_t k = rp[i]; k < rp[i + 1]; k++) s += v[k] * x[ci[k]];
        y[i] = s;
    }
}

void gs_csr_diag_host(const gs_csr *A, double *d)
{
    int32_t n = A->rows < A->cols ? A->rows : A->cols;
    for (int32_t i = 0; i < n; i++) {
        d[i] = 0.0;
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] == i) d[i] += A->val[k];
    }
}

void gs_csr_row_stats(const gs_csr *A, gs_row_stats *out)
{
    memset(out, 0, sizeof *out);
    if (A->rows == 0) return;
    double sum = 0.0, sum2 = 0.0;
    out->min = INT32_MAX;
    for (int32_t i = 0; i < A->rows; i++) {
        int32_t len = A->rowptr[i + 1] - A->rowptr[i];
        sum += len;
        sum2 += (double)len * len;
        if (len < out->min) out->min = len;
        if (len > out->max) out->max = len;
        if (len == 0) out->empty_rows++;
        if (i < A->cols) {
            int has = 0;
            for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1] && !has; k++)
                has = A->colind[k] == i;
            if (!has) out->rows_without_diag++;
        }
    }
    out->mean = sum / A->rows;
    double var = sum2 / A->rows - out->mean * out->mean;
    out->std = var > 0 ? sqrt(var) : 0.0;
}

gs_status gs_csr_validate(const gs_csr *A, const char *where)
{
    if (A->rowptr[0] != 0)
        return GS_ERROR(GS_ERR_INPUT, "%s: row pointer 0 is %d, expected 0", where, A->rowptr[0]);
    for (int32_t i = 0; i < A->rows; i++) {
        int32_t b = A->rowptr[i], e = A->rowptr[i + 1];
        if (e < b || e > A->nnz)
            return GS_ERROR(GS_ERR_INPUT,
                            "%s: row pointer %d is %d after %d: expected non-decreasing "
                            "values up to nnz = %d",
                            where, i + 1, e, b, A->nnz);
        for (int32_t k = b; k < e; k++) {
            if (A->colind[k] < 0 || A->colind[k] >= A->cols)
                return GS_ERROR(GS_ERR_INPUT,
                                "%s: entry %d (row %d) has column index %d out of range 0..%d",
                                where, k, i, A->colind[k], A->cols - 1);
            if (k > b && A->colind[k] <= A->colind[k - 1])
                return GS_ERROR(GS_ERR_INPUT, "%s: row %d has unsorted or repeated column index %d",
                                where, i, A->colind[k]);
        }
    }
    if (A->rowptr[A->rows] != A->nnz)
        return GS_ERROR(GS_ERR_INPUT, "%s: last row pointer is %d, expected nnz = %d", where,
                        A->rowptr[A->rows], A->nnz);
    return GS_OK;
}

/* B = A^T by counting columns: O(nnz + cols), rows of B come out sorted */
gs_status gs_csr_transpose(const gs_csr *A, gs_csr **out)
{
    gs_status st = GS_OK;
    gs_csr *B = NULL;
    int32_t *next = NULL;
    *out = NULL;
    GS_CHECK(gs_csr_create(A->cols, A->rows, A->nnz, &B));
    GS_CHECK(gs_alloc_array((size_t)A->cols + 1, sizeof *next, "transpose", (void **)&next));
    memset(B->rowptr, 0, ((size_t)A->cols + 1) * sizeof(int32_t));
    for (int32_t k = 0; k < A->nnz; k++) B->rowptr[A->colind[k] + 1]++;
    for (int32_t j = 0; j < A->cols; j++) B->rowptr[j + 1] += B->rowptr[j];
    memcpy(next, B->rowptr, ((size_t)A->cols + 1) * sizeof(int32_t));
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int32_t dst = next[A->colind[k]]++;
            B->colind[dst] = i;
            B->val[dst] = A->val[k];
        }
    *out = B;
    B = NULL;
done:
    gs_free(next);
    gs_csr_destroy(&B);
    return st;
}

int32_t gs_csr_lower_bound(const gs_csr *A, int32_t r, int32_t col)
{
    int32_t lo = A->rowptr[r], hi = A->rowptr[r + 1];
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (A->colind[mid] < col)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

gs_status gs_csr_asymmetry_of(const gs_csr *A, gs_csr_asymmetry *d)
{
    gs_status st = GS_OK;
    gs_csr *T = NULL;
    *d = (gs_csr_asymmetry){.i = -1, .j = -1, .pattern = 1};
    GS_CHECK(gs_csr_transpose(A, &T));
    for (int32_t i = 0; i < A->rows; i++) { /* merge row i of A and of A^T */
        int32_t p = A->rowptr[i], q = T->rowptr[i], pe = A->rowptr[i + 1], qe = T->rowptr[i + 1];
        while (p < pe || q < qe) {
            int32_t ja = p < pe ? A->colind[p] : INT32_MAX, jt = q < qe ? T->colind[q] : INT32_MAX;
            int32_t j = ja < jt ? ja : jt;
            double x = ja == j ? A->val[p++] : 0.0, y = jt == j ? T->val[q++] : 0.0;
            if (ja != jt) d->pattern = 0;
            if (fabs(x) > d->amax) d->amax = fabs(x);
            double m = fmax(fabs(x), fabs(y)), a = isnan(x - y) ? INFINITY : fabs(x - y);
            double r = m > 0 ? fabs(x - y) / m : 0.0;
            if (a > d->abs) d->abs = a;
            if (r > d->rel || isnan(x - y)) d->rel = r, d->i = i, d->j = j;
        }
    }
done:
    gs_csr_destroy(&T);
    return st;
}

gs_status gs_csr_symmetry(const gs_csr *A, double rel_tol, int *out)
{
    gs_status st = GS_OK;
    gs_csr_asymmetry d;
    *out = 0;
    if (A->rows != A->cols) return GS_OK;
    GS_CHECK(gs_csr_asymmetry_of(A, &d));
    *out = !d.pattern ? 0 : d.abs <= rel_tol * d.amax ? 2 : 1;
done:
    return st;
}

int gs_cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

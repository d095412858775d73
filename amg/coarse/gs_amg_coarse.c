/* gs_amg_coarse.c: the coarsest level's solve: the inverse of its matrix by dense LU (applied
 * as a dense CSR SpMV in the cycle), its pseudo-inverse when A's null space is known (the
 * coarse form of the constant vector, problem.nullspace = "constant"), or smoothing sweeps
 * when it has too many rows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gs_amg_internal.h"

gs_status gs_amg_coarse_setup(gs_amg *amg, const double *z, double *ph)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[amg->nlev - 1];
    gs_csr *hA = NULL, *D = NULL;
    double t0, t1;
    int rank = 0;
    GS_CHECK(gs_amg_sync(amg, &t0));
    int32_t n = L->A->rows;
    if (n > GS_AMG_DENSE_MAX) { /* too large to invert: smoothing sweeps instead */
        snprintf(amg->rep.coarse_desc, sizeof amg->rep.coarse_desc,
                 "%d rows: 8 smoothing sweeps (more than %d rows for a dense solve)", n, GS_AMG_DENSE_MAX);
        goto done;
    }
    GS_CHECK(gs_csr_download(L->A, &hA));
    GS_CHECK(gs_csr_create(n, n, (int64_t)n * n, &D));
    if (z)
        GS_CHECK(gs_amg_dense_pinv(hA, z, D->val, &rank));
    else
        GS_CHECK(gs_amg_dense_inverse(hA, D->val, &rank));
    for (int32_t i = 0; i <= n; i++) D->rowptr[i] = i * n;
    for (int64_t q = 0; q < (int64_t)n * n; q++) D->colind[q] = (int32_t)(q % (n ? n : 1));
    if (amg->loc != GS_LOC_HOST) {
        GS_CHECK(gs_csr_upload(D, amg->loc, &amg->cinv));
    } else {
        amg->cinv = D;
        D = NULL;
    }
    GS_CHECK(gs_spmat_create(amg->cinv, GS_FORMAT_CSR, NULL, &amg->Mc));
    if (z)
        snprintf(amg->rep.coarse_desc, sizeof amg->rep.coarse_desc,
                 "dense pseudo-inverse, %d x %d (its null space, the constant, projected out)",
                 n, n);
    else if (rank < n)
        snprintf(amg->rep.coarse_desc, sizeof amg->rep.coarse_desc,
                 "dense LU inverse, %d x %d, rank %d (singular: its null space left out)", n, n,
                 rank);
    else
        snprintf(amg->rep.coarse_desc, sizeof amg->rep.coarse_desc, "dense LU inverse, %d x %d",
                 n, n);
done:
    gs_amg_sync(amg, &t1);
    ph[GS_AMG_PHASE_COARSE] += t1 - t0;
    gs_csr_destroy(&hA);
    gs_csr_destroy(&D);
    return st;
}

/* A as a dense row-major n x n matrix into M, plus s u u^T (u = z / ||z||) when z is given;
 * *amax: A's largest entry, *s and u (n entries) the update's (u: NULL without z) */
static void dense_fill(const gs_csr *A, const double *z, double *M, double *u, double *amax,
                       double *s)
{
    const int32_t n = A->rows;
    double zz = 0.0;
    memset(M, 0, (size_t)n * n * sizeof *M);
    *amax = 0.0;
    for (int32_t i = 0; i < n; i++)
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            M[(size_t)i * n + A->colind[q]] += A->val[q];
            if (fabs(A->val[q]) > *amax) *amax = fabs(A->val[q]);
        }
    *s = *amax > 0.0 ? *amax : 1.0;
    if (!z) return;
    for (int32_t i = 0; i < n; i++) zz += z[i] * z[i];
    for (int32_t i = 0; i < n; i++) u[i] = zz > 0.0 ? z[i] / sqrt(zz) : 0.0;
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < n; j++) M[(size_t)i * n + j] += *s * u[i] * u[j];
}

/* the inverse of A (+ s u u^T when z is given, then less u u^T / s) by LU */
static gs_status dense_inverse(const gs_csr *A, const double *z, double *inv, int *rank)
{
    gs_status st = GS_OK;
    int32_t n = A->rows;
    double *M = NULL, *un = NULL, amax = 0.0, sh = 1.0;
    int32_t *piv = NULL;
    GS_CHECK(gs_alloc_array((size_t)n * n + 1, sizeof *M, "coarse matrix", (void **)&M));
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *piv, "coarse pivots", (void **)&piv));
    if (z) GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *un, "coarse null space", (void **)&un));
    dense_fill(A, z, M, un, &amax, &sh);
    int rk = 0;
    double tiny = 1e-13 * amax;
    for (int32_t c = 0; c < n; c++) { /* LU with partial pivoting, in place */
        int32_t p = c;
        for (int32_t r = c + 1; r < n; r++)
            if (fabs(M[(size_t)r * n + c]) > fabs(M[(size_t)p * n + c])) p = r;
        piv[c] = p;
        if (p != c)
            for (int32_t j = 0; j < n; j++) {
                double t = M[(size_t)c * n + j];
                M[(size_t)c * n + j] = M[(size_t)p * n + j];
                M[(size_t)p * n + j] = t;
            }
        double pv = M[(size_t)c * n + c];
        if (fabs(pv) <= tiny) { /* a zero direction: no elimination with it */
            M[(size_t)c * n + c] = 0.0;
            continue;
        }
        rk++;
        for (int32_t r = c + 1; r < n; r++) {
            double f = M[(size_t)r * n + c] / pv;
            M[(size_t)r * n + c] = f;
            if (f != 0.0)
                for (int32_t j = c + 1; j < n; j++) M[(size_t)r * n + j] -= f * M[(size_t)c * n + j];
        }
    }
    /* the inverse X (row-major) from L U X = P I, all columns at once: the row swaps applied
     * to I's rows, then each row of X updated by whole earlier (later) rows, so the inner loops
     * run along contiguous rows (each X[i][j] sees the same updates in the same order as a
     * column-by-column solve) */
    memset(inv, 0, (size_t)n * n * sizeof *inv);
    for (int32_t i = 0; i < n; i++) inv[(size_t)i * n + i] = 1.0;
    for (int32_t c = 0; c < n; c++)
        if (piv[c] != c)
            for (int32_t j = 0; j < n; j++) {
                double t = inv[(size_t)c * n + j];
                inv[(size_t)c * n + j] = inv[(size_t)piv[c] * n + j];
                inv[(size_t)piv[c] * n + j] = t;
            }
    for (int32_t i = 0; i < n; i++) { /* L Y = P I (unit lower) */
        double *xi = inv + (size_t)i * n;
        for (int32_t c = 0; c < i; c++) {
            const double f = M[(size_t)i * n + c];
            const double *xc = inv + (size_t)c * n;
            if (f != 0.0)
                for (int32_t j = 0; j < n; j++) xi[j] -= f * xc[j];
        }
    }
    for (int32_t i = n - 1; i >= 0; i--) { /* U X = Y; zero pivots give zero rows */
        double *xi = inv + (size_t)i * n;
        const double u = M[(size_t)i * n + i];
        if (u == 0.0) {
            memset(xi, 0, (size_t)n * sizeof *xi);
            continue;
        }
        for (int32_t c = i + 1; c < n; c++) {
            const double f = M[(size_t)i * n + c];
            const double *xc = inv + (size_t)c * n;
            if (f != 0.0)
                for (int32_t j = 0; j < n; j++) xi[j] -= f * xc[j];
        }
        for (int32_t j = 0; j < n; j++) xi[j] /= u;
    }
    for (int32_t i = 0; z && i < n; i++) /* less u u^T / s: the update's own inverse part */
        for (int32_t j = 0; j < n; j++) inv[(size_t)i * n + j] -= un[i] * un[j] / sh;
    *rank = rk;
done:
    gs_free(M);
    gs_free(un);
    gs_free(piv);
    return st;
}

gs_status gs_amg_dense_inverse(const gs_csr *A, double *inv, int *rank)
{
    return dense_inverse(A, NULL, inv, rank);
}

gs_status gs_amg_dense_pinv(const gs_csr *A, const double *z, double *inv, int *rank)
{
    return dense_inverse(A, z, inv, rank);
}

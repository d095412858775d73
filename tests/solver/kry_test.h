/* kry_test.h: test matrices built by hand, a host CSR operator and a solve wrapper for the
 * Krylov and Jacobi tests. Everything static: each test program includes it once. */
#ifndef KRY_TEST_H
#define KRY_TEST_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "gs_backend.h"
#include "gs_csr.h"
#include "gs_jacobi.h"
#include "gs_krylov.h"
#include "gs_test.h"

/* Coordinate triplets collected with plain malloc (not counted by gs_mem). */
typedef struct coo {
    int64_t n, cap;
    int32_t *ri, *ci;
    double *v;
} coo;

static inline void coo_add(coo *c, int32_t i, int32_t j, double v)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->ri = realloc(c->ri, (size_t)c->cap * sizeof *c->ri);
        c->ci = realloc(c->ci, (size_t)c->cap * sizeof *c->ci);
        c->v = realloc(c->v, (size_t)c->cap * sizeof *c->v);
        if (!c->ri || !c->ci || !c->v) abort();
    }
    c->ri[c->n] = i;
    c->ci[c->n] = j;
    c->v[c->n++] = v;
}

/* CSR from the triplets (frees them); NULL when gs_csr_from_coo fails (injected failure),
 * its message left recorded. */
static inline gs_csr *coo_finish(coo *c, int64_t rows, int64_t cols)
{
    gs_csr *A = NULL;
    if (gs_csr_from_coo(rows, cols, c->n, c->ri, c->ci, c->v, &A) != GS_OK) A = NULL;
    free(c->ri);
    free(c->ci);
    free(c->v);
    *c = (coo){0};
    return A;
}

/* 1D Laplacian tridiag(-1, 2, -1) of size n, scaled by s */
static inline gs_csr *mat_lap1d(int n, double s)
{
    coo c = {0};
    for (int i = 0; i < n; i++) {
        if (i > 0) coo_add(&c, i, i - 1, -s);
        coo_add(&c, i, i, 2 * s);
        if (i < n - 1) coo_add(&c, i, i + 1, -s);
    }
    return coo_finish(&c, n, n);
}

/* 2D convection-diffusion on an N x N grid, 5-point: -Lap u + cx u_x (central differences,
 * h = 1) with diagonal 4 + shift*(i mod 3) (variable so Jacobi is not a scaling).
 * cx = 0, shift = 0 is the 2D Laplacian. */
static inline gs_csr *mat_cd2d(int N, double cx, double shift)
{
    coo c = {0};
    for (int iy = 0; iy < N; iy++)
        for (int ix = 0; ix < N; ix++) {
            int i = iy * N + ix;
            if (iy > 0) coo_add(&c, i, i - N, -1.0);
            if (ix > 0) coo_add(&c, i, i - 1, -1.0 - cx / 2);
            coo_add(&c, i, i, 4.0 + shift * (i % 3));
            if (ix < N - 1) coo_add(&c, i, i + 1, -1.0 + cx / 2);
            if (iy < N - 1) coo_add(&c, i, i + N, -1.0);
        }
    return coo_finish(&c, (int64_t)N * N, (int64_t)N * N);
}

/* 1D convection-diffusion tridiag(-1 - c/2, 2, -1 + c/2): nonsymmetric for c != 0 */
static inline gs_csr *mat_cd1d(int n, double cx)
{
    coo c = {0};
    for (int i = 0; i < n; i++) {
        if (i > 0) coo_add(&c, i, i - 1, -1.0 - cx / 2);
        coo_add(&c, i, i, 2.0);
        if (i < n - 1) coo_add(&c, i, i + 1, -1.0 + cx / 2);
    }
    return coo_finish(&c, n, n);
}

/* diag(d) */
static inline gs_csr *mat_diag(int n, const double *d)
{
    coo c = {0};
    for (int i = 0; i < n; i++) coo_add(&c, i, i, d[i]);
    return coo_finish(&c, n, n);
}

/* A small dense row-major n x n matrix as CSR (zeros dropped) */
static inline gs_csr *mat_dense(int n, const double *a)
{
    coo c = {0};
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (a[i * n + j] != 0.0) coo_add(&c, i, j, a[i * n + j]);
    return coo_finish(&c, n, n);
}

/* Deterministic values in [-1, 1) */
static inline void fill_rand(double *v, int n, unsigned seed)
{
    uint64_t s = 0x9E3779B97F4A7C15ull * (seed + 1);
    for (int i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (double)(s >> 11) / (double)(1ull << 53) * 2.0 - 1.0;
    }
}

/* ||b - A x|| / ||b||, computed here from the CSR arrays (independent of the library) */
static inline double true_relres(const gs_csr *A, const double *b, const double *x)
{
    double rr = 0.0, bb = 0.0;
    for (int32_t i = 0; i < A->rows; i++) {
        double s = b[i];
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) s -= A->val[q] * x[A->colind[q]];
        rr += s * s;
        bb += b[i] * b[i];
    }
    return sqrt(rr) / sqrt(bb);
}

/* The host CSR SpMV of the backend table as an operator */
static inline gs_status csr_apply(void *ctx, const gs_vec *x, gs_vec *y)
{
    return gs_backend_get(GS_LOC_HOST)->csr_spmv((const gs_csr *)ctx, x, y);
}

static inline gs_linop csr_linop(const gs_csr *A)
{
    return (gs_linop){.n = A->rows, .ctx = (void *)A, .apply = csr_apply};
}

static inline gs_krylov_params kparams(gs_krylov_type t, double rtol, int max_iters)
{
    return (gs_krylov_params){
        .type = t, .rtol = rtol, .atol = 0.0, .max_iters = max_iters, .restart = 30};
}

/* Solve A x = b (x0 = given or zero) with optional Jacobi; x (if given) gets the result.
 * Everything created here is freed on every path. */
static inline gs_status kry_solve(const gs_krylov_params *p, const gs_csr *A, int jacobi,
                                  const double *b, const double *x0, double *x,
                                  gs_krylov_result *res)
{
    gs_status st = GS_OK;
    gs_vec *vb = NULL, *vx = NULL;
    gs_jacobi *J = NULL;
    gs_linop op = csr_linop(A), M;
    GS_CHECK(gs_vec_create(A->rows, GS_LOC_HOST, &vb));
    GS_CHECK(gs_vec_create(A->rows, GS_LOC_HOST, &vx));
    GS_CHECK(gs_vec_set_host(vb, b));
    if (x0) GS_CHECK(gs_vec_set_host(vx, x0));
    if (jacobi) {
        GS_CHECK(gs_jacobi_create(A, GS_LOC_HOST, "test", &J));
        M = gs_jacobi_linop(J);
    }
    GS_CHECK(gs_krylov_solve(p, &op, jacobi ? &M : NULL, vb, vx, res));
    if (x) GS_CHECK(gs_vec_get_host(vx, x));
done:
    gs_jacobi_destroy(&J);
    gs_vec_destroy(&vb);
    gs_vec_destroy(&vx);
    return st;
}

/* Monitor recorder: checks iterations come 0, 1, 2, ... (GMRES and others alike) */
typedef struct mon {
    int calls, last, in_order;
    double first, lastr;
} mon;

static inline void mon_cb(void *ctx, int it, double rnorm)
{
    mon *m = ctx;
    if (m->calls == 0) {
        m->in_order = it == 0;
        m->first = rnorm;
    } else if (it != m->last + 1) {
        m->in_order = 0;
    }
    m->calls++;
    m->last = it;
    m->lastr = rnorm;
}

static inline const char *kname(gs_krylov_type t)
{
    static const char *names[] = {"CG", "BiCGStab", "GMRES", "FGMRES", "MINRES"};
    return names[t];
}

#endif

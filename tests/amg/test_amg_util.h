/* test_amg_util.h: what test_amg.c and test_amg_solve.c share: their includes, the problems
 * they build (a 1D Poisson, the generators'), the comparison of two CSR matrices, the
 * AMG-preconditioned solve, and --gpu's start (exit 77 without a device). */
#ifndef TEST_AMG_UTIL_H
#define TEST_AMG_UTIL_H

#include "gs_amg.h"
#include "gs_amg_ops.h"
#include "gs_smoother.h"
#include "gs_backend.h"
#include "gs_gen.h"
#include "gs_krylov.h"
#include "gs_select.h"
#include "gs_spgemm.h"
#include "gs_test.h"

static inline gs_csr *poisson1d(int32_t n)
{
    int32_t *ri = malloc(3 * (size_t)n * sizeof *ri), *ci = malloc(3 * (size_t)n * sizeof *ci);
    double *v = malloc(3 * (size_t)n * sizeof *v);
    int64_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        if (i > 0) ri[k] = i, ci[k] = i - 1, v[k++] = -1.0;
        ri[k] = i, ci[k] = i, v[k++] = 2.0;
        if (i + 1 < n) ri[k] = i, ci[k] = i + 1, v[k++] = -1.0;
    }
    gs_csr *A = NULL;
    CHECK_OK(gs_csr_from_coo(n, n, k, ri, ci, v, &A));
    free(ri), free(ci), free(v);
    return A;
}

/* a generated problem (the generators' defaults for the other keys); B and k (may be NULL):
 * its near-nullspace (elasticity's rigid-body modes) */
static inline gs_csr *generate_ns(const char *type, int64_t size, int stencil, int dof,
                                  double **B, int *k)
{
    gs_gen_params g = {.type = type, .size = size, .stencil = stencil, .dof = dof, .seed = 1,
                       .epsilon = 1e-3, .velocity = 10, .degree = 8, .exponent = 2.5,
                       .contrast = 1e3, .block = 8, .angle = 22.5, .E = 1.0, .nu = 0.3};
    gs_csr *A = NULL;
    double *ns = NULL;
    int kk = 0, bs = 1;
    char desc[128];
    CHECK_OK(gs_gen_problem(&g, &A, &ns, &kk, &bs, desc, sizeof desc));
    if (B) {
        *B = ns;
        *k = kk;
    } else {
        gs_free(ns);
    }
    return A;
}

static inline gs_csr *generate(const char *type, int64_t size, int stencil, int dof)
{
    return generate_ns(type, size, stencil, dof, NULL, NULL);
}

/* max |X - Y| / max |Y| over identical patterns; -1 when the patterns differ */
static inline double csr_diff(const gs_csr *X, const gs_csr *Y)
{
    if (X->rows != Y->rows || X->cols != Y->cols || X->nnz != Y->nnz) return -1.0;
    double dm = 0.0, ym = 0.0;
    for (int32_t i = 0; i <= X->rows; i++)
        if (X->rowptr[i] != Y->rowptr[i]) return -1.0;
    for (int32_t q = 0; q < X->nnz; q++) {
        if (X->colind[q] != Y->colind[q]) return -1.0;
        dm = fmax(dm, fabs(X->val[q] - Y->val[q]));
        ym = fmax(ym, fabs(Y->val[q]));
    }
    return ym > 0 ? dm / ym : dm;
}

/* PCG (or another method) with AMG from x0 = 0, b = ones; returns the iterations */
static inline int solve(const gs_csr *A, gs_loc loc, const gs_amg_params *p, gs_krylov_type type,
                        double *oc, double *relres)
{
    gs_csr *dA = NULL;
    gs_amg *amg = NULL;
    gs_vec *b = NULL, *x = NULL, *w = NULL;
    gs_spmat *MA = NULL;
    int its = -1;
    if (loc != GS_LOC_HOST) CHECK_OK(gs_csr_upload(A, loc, &dA));
    const gs_csr *Ause = dA ? dA : A;
    CHECK_OK(gs_amg_setup(Ause, p, "test", &amg));
    if (!amg) goto out;
    *oc = gs_amg_get_report(amg)->operator_complexity;
    CHECK_OK(gs_spmat_create(Ause, GS_FORMAT_CSR, NULL, &MA));
    CHECK_OK(gs_vec_create(A->rows, loc, &b));
    CHECK_OK(gs_vec_create(A->rows, loc, &x));
    CHECK_OK(gs_vec_create(A->rows, loc, &w));
    CHECK_OK(gs_vec_fill(1.0, b));
    gs_linop Aop = {A->rows, MA, (gs_status(*)(void *, const gs_vec *, gs_vec *))gs_spmat_spmv,
                    NULL};
    gs_linop M = gs_amg_linop(amg);
    gs_krylov_params kp = {.type = type, .rtol = 1e-8, .max_iters = 200, .restart = 30};
    gs_krylov_result kr;
    CHECK_OK(gs_krylov_solve(&kp, &Aop, &M, b, x, &kr));
    CHECK_MSG(kr.reason > 0, "reason %s after %d", gs_reason_name(kr.reason), kr.iterations);
    double rn, bn;
    CHECK_OK(gs_spmat_spmv(MA, x, w));
    CHECK_OK(gs_vec_axpby(1.0, b, -1.0, w));
    CHECK_OK(gs_vec_nrm2(w, &rn));
    CHECK_OK(gs_vec_nrm2(b, &bn));
    *relres = rn / bn;
    its = kr.iterations;
out:
    gs_vec_destroy(&b);
    gs_vec_destroy(&x);
    gs_vec_destroy(&w);
    gs_spmat_destroy(&MA);
    gs_amg_destroy(&amg);
    gs_csr_destroy(&dA);
    return its;
}

/* 0 without --gpu; with it 1 once the CUDA backend is up, or 77 (skipped: no device) */
static inline int amg_test_gpu(int argc, char **argv)
{
    if (argc <= 1 || strcmp(argv[1], "--gpu") != 0) return 0;
    const char *why = NULL;
    if (gs_backend_cuda_devices(&why) == 0 || gs_backend_cuda_init(0, NULL, 0) != GS_OK) {
        printf("skipped: %s\n", why ? why : gs_error_message());
        return 77;
    }
    return 1;
}

#endif

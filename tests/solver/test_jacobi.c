/* test_jacobi.c: the Jacobi preconditioner: z = D^-1 r, and clear refusals of a zero,
 * missing or non-finite diagonal and of a non-square matrix. */
#include "kry_test.h"

static void test_apply(void)
{
    enum { N = 7 };
    long live = gs_mem_live();
    double a[N * N] = {0}, r[N], z[N];
    for (int i = 0; i < N; i++) {
        a[i * N + i] = (i % 2 ? -1.0 : 1.0) * (i + 1.5);
        a[i * N + (i + 3) % N] += 0.25;
    }
    gs_csr *A = mat_dense(N, a);
    gs_jacobi *J = NULL;
    gs_vec *vr = NULL, *vz = NULL;
    CHECK_OK(gs_jacobi_create(A, GS_LOC_HOST, "A", &J));
    CHECK_OK(gs_vec_create(N, GS_LOC_HOST, &vr));
    CHECK_OK(gs_vec_create(N, GS_LOC_HOST, &vz));
    fill_rand(r, N, 1);
    CHECK_OK(gs_vec_set_host(vr, r));
    gs_linop M = gs_jacobi_linop(J);
    CHECK(M.n == N);
    CHECK_OK(M.apply(M.ctx, vr, vz));
    CHECK_OK(gs_vec_get_host(vz, z));
    for (int i = 0; i < N; i++) CHECK_NEAR(z[i], r[i] / a[i * N + i], 1e-15);
    gs_vec *v5 = NULL;
    CHECK_OK(gs_vec_create(N - 1, GS_LOC_HOST, &v5));
    CHECK_FAIL(M.apply(M.ctx, v5, vz), GS_ERR_ARG, "size");
    gs_vec_destroy(&v5);
    gs_vec_destroy(&vr);
    gs_vec_destroy(&vz);
    gs_jacobi_destroy(&J);
    gs_jacobi_destroy(&J); /* NULL is fine */
    gs_csr_destroy(&A);
    CHECK(gs_mem_live() == live);
}

static void test_refusals(void)
{
    long live = gs_mem_live();
    gs_jacobi *J = NULL;
    /* row 3 (1-based) stores a zero on the diagonal */
    const double z3[9] = {2, -1, 0, -1, 2, -1, 0, 5, 0};
    gs_csr *A = mat_dense(3, z3);
    /* mat_dense drops zeros: store the explicit zero through the triplets */
    gs_csr_destroy(&A);
    coo c = {0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (z3[i * 3 + j] != 0.0 || i == j) coo_add(&c, i, j, z3[i * 3 + j]);
    A = coo_finish(&c, 3, 3);
    CHECK_FAIL(gs_jacobi_create(A, GS_LOC_HOST, "A.mtx", &J), GS_ERR_INPUT,
               "A.mtx: row 3 has a zero diagonal entry; Jacobi needs a nonzero diagonal (use "
               "solver.preconditioner = \"none\")");
    CHECK(J == NULL);
    gs_csr_destroy(&A);
    /* row 2 has no diagonal entry at all */
    const double m2[9] = {2, -1, 0, -1, 0, -1, 0, -1, 2};
    A = mat_dense(3, m2);
    CHECK_FAIL(gs_jacobi_create(A, GS_LOC_HOST, "B.mtx", &J), GS_ERR_INPUT,
               "B.mtx: row 2 has no diagonal entry");
    gs_csr_destroy(&A);
    /* non-finite diagonal */
    const double nf[4] = {1, 0, 0, NAN};
    A = mat_dense(2, nf);
    CHECK_FAIL(gs_jacobi_create(A, GS_LOC_HOST, NULL, &J), GS_ERR_INPUT,
               "matrix: row 2 has a non-finite diagonal entry");
    gs_csr_destroy(&A);
    /* non-square */
    coo r = {0};
    coo_add(&r, 0, 0, 1.0);
    coo_add(&r, 1, 1, 1.0);
    A = coo_finish(&r, 2, 3);
    CHECK_FAIL(gs_jacobi_create(A, GS_LOC_HOST, "C.mtx", &J), GS_ERR_INPUT, "square");
    gs_csr_destroy(&A);
    CHECK(gs_mem_live() == live);
}

/* allocation failures inside gs_jacobi_create free what they took */
static void test_nomem(void)
{
    double d[5] = {1, 2, 3, 4, 5};
    gs_csr *A = mat_diag(5, d);
    long live = gs_mem_live();
    gs_jacobi *J = NULL;
    for (int k = 1;; k++) {
        gs_mem_fail_at(k);
        gs_status st = gs_jacobi_create(A, GS_LOC_HOST, "A", &J);
        gs_mem_fail_at(0);
        gs_error_clear();
        CHECK(st == GS_OK || (st == GS_ERR_NOMEM && J == NULL));
        gs_jacobi_destroy(&J);
        CHECK(gs_mem_live() == live);
        if (st == GS_OK || k > 100) break;
    }
    gs_csr_destroy(&A);
}

int main(void)
{
    test_apply();
    test_refusals();
    test_nomem();
    return gs_test_result("test_jacobi");
}

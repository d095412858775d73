/* test_krylov_mem.c: make the k-th allocation fail, k = 1, 2, ... until a whole solve
 * (matrix, vectors, Jacobi, solver work) succeeds; each run must succeed or report
 * GS_ERR_NOMEM, and free everything it took. */
#include "kry_test.h"

/* Build and solve a small problem under injection; returns the status. */
static gs_status build_and_solve(gs_krylov_type t, int jacobi, int *converged)
{
    enum { N = 6 };
    gs_status st = GS_OK;
    double b[N * N], x[N * N];
    gs_csr *A = mat_cd2d(N, t == GS_KRYLOV_CG ? 0.0 : 0.4, 0.5);
    if (!A) return GS_ERR_NOMEM; /* gs_csr_from_coo failed (its status is its own test's) */
    fill_rand(b, N * N, 1);
    gs_krylov_params p = kparams(t, 1e-8, 200);
    p.restart = 5;
    gs_krylov_result res;
    GS_CHECK(kry_solve(&p, A, jacobi, b, NULL, x, &res));
    *converged = res.reason > 0 && true_relres(A, b, x) <= 1e-8;
done:
    gs_csr_destroy(&A);
    return st;
}

static void fail_loop(gs_krylov_type t, int jacobi)
{
    long live = gs_mem_live();
    int k = 1, converged = 0;
    for (;; k++) {
        gs_error_clear();
        gs_mem_fail_at(k);
        gs_status st = build_and_solve(t, jacobi, &converged);
        gs_mem_fail_at(0);
        CHECK_MSG(st == GS_OK || st == GS_ERR_NOMEM, "%s: allocation %d: %s", kname(t), k,
                  gs_status_str(st));
        CHECK_MSG(gs_mem_live() == live, "%s: allocation %d failed: %ld blocks leaked", kname(t), k,
                  gs_mem_live() - live);
        if (st == GS_ERR_NOMEM)
            CHECK_MSG(strstr(gs_error_message(), "out of memory") != NULL, "%s: message %s",
                      kname(t), gs_error_message());
        if (st == GS_OK || k > 10000) break;
    }
    CHECK_MSG(converged, "%s: the final run did not converge", kname(t));
    printf("%-8s jacobi %d: succeeded once allocation %d was allowed to fail\n", kname(t), jacobi,
           k);
    gs_error_clear();
}

int main(void)
{
    for (int t = GS_KRYLOV_CG; t <= GS_KRYLOV_FGMRES; t++) {
        fail_loop((gs_krylov_type)t, 0);
        fail_loop((gs_krylov_type)t, 1);
    }
    return gs_test_result("test_krylov_mem");
}

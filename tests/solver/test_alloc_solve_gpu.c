/* test_alloc_solve_gpu.c: whole GPU solves with the k-th device allocation failing (label gpu;
 * exit 77 without a device), k = 1, 2, ... until a run makes fewer than k device allocations:
 *   - AMG-PCG on 3D Poisson 32^3 with spmv.format = auto (feature pass, CDS on the finest level,
 *     the DCSR SpGEMM Galerkin products, MIS(2) aggregation, the cycle's CUDA graph);
 *   - Jacobi-CG on 3D Poisson 24^3 with spmv.format = measure (every format converted and timed).
 * Every run that fails must fail with GS_ERR_NOMEM and a message naming the bytes asked, free
 * every host and device block it took, and leave the device usable; the last run must converge.
 * (A failure the code absorbs ends in success; such runs are counted.) Before that, a whole
 * AMG solve's record of device memory: its peaks at least the device copy of A and what the
 * pool holds, the setup's at most the whole run's. */
#include <stdlib.h>

#include "gs_backend.h"
#include "gs_app_run.h"
#include "gs_driver.h"
#include "gs_mem.h"
#include "gs_test.h"

static double g_peak_gb, g_setup_gb, g_pool_gb; /* the last whole solve's device memory */

/* one whole device solve with the settings sets[0..n) */
static gs_status full_solve(const char *const *sets, int n, int *converged, double *relres)
{
    gs_config c;
    gs_problem *p = NULL;
    gs_run run;
    gs_status st = GS_OK;
    memset(&run, 0, sizeof run);
    gs_config_defaults(&c);
    GS_CHECK(gs_config_set(&c, "run.backend=cuda"));
    GS_CHECK(gs_config_set(&c, "output.verbosity=0"));
    for (int i = 0; i < n; i++) GS_CHECK(gs_config_set(&c, sets[i]));
    GS_CHECK(gs_config_check(&c));
    GS_CHECK(gs_problem_load(&c, &p));
    GS_CHECK(gs_app_solve(&c, p, &run, stdout));
    *converged = run.res.converged;
    *relres = run.res.rel_residual;
    g_peak_gb = run.res.device_peak_gb;
    g_setup_gb = (double)run.mem_setup_peak / 1e9;
    g_pool_gb = (double)run.mem_pool / 1e9;
done:
    gs_run_release(&run);
    gs_problem_destroy(&p);
    return st;
}

/* the loop over k for one configuration */
static void inject_all(const char *what, const char *const *sets, int n)
{
    int converged = 0, absorbed = 0, failed = 0;
    double relres = 0.0;
    long k = 1, made = 0;
    /* once whole first: lazily made device state (handles, streams, pools) is then in place */
    CHECK_OK(full_solve(sets, n, &converged, &relres));
    const long live = gs_mem_live(), dlive = gs_backend_cuda_live();
    for (;; k++) {
        gs_error_clear();
        const long before = gs_backend_cuda_count();
        gs_backend_cuda_fail_at(k);
        gs_status st = full_solve(sets, n, &converged, &relres);
        gs_backend_cuda_fail_at(0);
        made = gs_backend_cuda_count() - before;
        const char *msg = gs_error_message();
        CHECK_MSG(gs_mem_live() == live, "%s, device allocation %ld failed: %ld host blocks leaked",
                  what, k, gs_mem_live() - live);
        CHECK_MSG(gs_backend_cuda_live() == dlive,
                  "%s, device allocation %ld failed: %ld device blocks leaked", what, k,
                  gs_backend_cuda_live() - dlive);
        if (k > made) { /* nothing was injected: the run is whole */
            CHECK_MSG(st == GS_OK && converged && relres <= 1e-8,
                      "%s, the run without a failure: %s, %s (relres %.3g)", what,
                      gs_status_str(st), msg, relres);
            break;
        }
        CHECK_MSG(st == GS_OK || st == GS_ERR_NOMEM, "%s, device allocation %ld failed: %s: %s",
                  what, k, gs_status_str(st), msg);
        if (st == GS_ERR_NOMEM) {
            failed++;
            CHECK_MSG(strstr(msg, "out of GPU memory") && strstr(msg, " bytes"),
                      "%s, device allocation %ld failed: message: %s", what, k, msg);
        } else {
            absorbed++;
        }
        if (k > 20000) break;
    }
    gs_error_clear();
    printf("%s: a whole solve makes %ld device allocations; failing each in turn: %d runs "
           "reported out of GPU memory, %d absorbed the failure\n",
           what, made, failed, absorbed);
    CHECK(failed > 0);
}

int main(void)
{
    const char *why = NULL;
    if (gs_backend_cuda_devices(&why) == 0) {
        printf("test_alloc_solve_gpu: skipped: %s\n", why ? why : "no CUDA device");
        return 77;
    }
    static const char *amg[] = {"problem.generate.type=poisson", "problem.generate.size=32",
                                "solver.type=cg", "solver.preconditioner=amg", "spmv.format=auto"};
    static const char *measure[] = {"problem.generate.type=poisson", "problem.generate.size=24",
                                    "solver.type=cg", "solver.preconditioner=jacobi",
                                    "spmv.format=measure"};
    { /* the record of device memory: 3D Poisson 32^3's A alone is 32768 x 7 - 6 x 1024 entries */
        int converged = 0;
        double relres = 0.0, a_gb = (12.0 * (32768.0 * 7 - 6 * 1024) + 4.0 * 32769) / 1e9;
        CHECK_OK(full_solve(amg, 5, &converged, &relres));
        CHECK_MSG(g_setup_gb >= a_gb && g_peak_gb >= g_setup_gb && g_pool_gb >= g_peak_gb &&
                      g_peak_gb < 1.0,
                  "device memory: A %.4f GB, setup peak %.4f GB, run peak %.4f GB, pool %.4f GB",
                  a_gb, g_setup_gb, g_peak_gb, g_pool_gb);
    }
    inject_all("AMG-PCG, auto formats", amg, 5);
    inject_all("Jacobi-CG, measured format", measure, 5);
    return gs_test_result("test_alloc_solve_gpu");
}

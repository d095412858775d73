/* bench_api.c: a solve through the public C API alone (gsolve.h), the reference the Python
 * package's overhead is measured against (bench/python/bench_overhead.py).
 *
 *   bench_api N [REPS] [BACKEND]
 *
 * 3D Poisson, 7-point, N^3 rows, assembled in memory (rows sorted); b = ones, x0 = 0; AMG-CG to
 * rtol 1e-8. Per repeat, the wall time of gsolve_set_matrix_csr + gsolve_setup + gsolve_solve
 * in a new context, after one warm-up run; prints the medians (wall, and the library's setup_s
 * and solve_s) and the iterations. */
#include <gsolve.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_api.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    const int N = argc > 1 ? atoi(argv[1]) : 128, reps = argc > 2 ? atoi(argv[2]) : 5;
    const char *backend = argc > 3 ? argv[3] : "auto";
    const int64_t n = (int64_t)N * N * N;
    int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp), nz = 0;
    int32_t *ci = malloc((size_t)(7 * n) * sizeof *ci);
    double *v = malloc((size_t)(7 * n) * sizeof *v), *b = malloc((size_t)n * sizeof *b);
    double *x = malloc((size_t)n * sizeof *x);
    double wall[64], setup[64], solve[64], its = 0;
    if (!rp || !ci || !v || !b || !x || N < 2 || reps < 1 || reps > 63) return 2;
    for (int z = 0; z < N; z++)
        for (int y = 0; y < N; y++)
            for (int xx = 0; xx < N; xx++) {
                const int64_t i = xx + (int64_t)N * (y + (int64_t)N * z);
                rp[i] = nz;
                if (z > 0) ci[nz] = (int32_t)(i - (int64_t)N * N), v[nz++] = -1.0;
                if (y > 0) ci[nz] = (int32_t)(i - N), v[nz++] = -1.0;
                if (xx > 0) ci[nz] = (int32_t)(i - 1), v[nz++] = -1.0;
                ci[nz] = (int32_t)i, v[nz++] = 6.0;
                if (xx < N - 1) ci[nz] = (int32_t)(i + 1), v[nz++] = -1.0;
                if (y < N - 1) ci[nz] = (int32_t)(i + N), v[nz++] = -1.0;
                if (z < N - 1) ci[nz] = (int32_t)(i + (int64_t)N * N), v[nz++] = -1.0;
            }
    rp[n] = nz;
    for (int64_t i = 0; i < n; i++) b[i] = 1.0;
    for (int r = -1; r < reps; r++) {
        gsolve_t *s = NULL;
        memset(x, 0, (size_t)n * sizeof *x);
        double t0 = now();
        if (gsolve_create(&s) != GSOLVE_OK || gsolve_set(s, "run.backend", backend) != GSOLVE_OK ||
            gsolve_set(s, "solver.preconditioner", "amg") != GSOLVE_OK ||
            gsolve_set_matrix_csr(s, n, rp, ci, v, GSOLVE_HOST) != GSOLVE_OK ||
            gsolve_setup(s) != GSOLVE_OK || gsolve_solve(s, 1, b, x, GSOLVE_HOST) != GSOLVE_OK) {
            fprintf(stderr, "bench_api: %s\n", gsolve_error(s));
            return 1;
        }
        double t1 = now();
        if (r >= 0) {
            wall[r] = t1 - t0;
            gsolve_get(s, "setup_s", &setup[r]);
            gsolve_get(s, "solve_s", &solve[r]);
            gsolve_get(s, "iterations", &its);
        }
        gsolve_destroy(&s);
    }
    printf("bench_api N=%d rows=%lld backend=%s reps=%d iterations=%g wall_s=%.4f setup_s=%.4f "
           "solve_s=%.4f\n", N, (long long)n, backend, reps, its, bench_median(wall, reps),
           bench_median(setup, reps), bench_median(solve, reps));
    free(rp), free(ci), free(v), free(b), free(x);
    return 0;
}

/* bench_rhs.c: several right-hand sides on one setup, and new values on one pattern, through the
 * public C API alone (gsolve.h).
 *
 *   bench_rhs PROBLEM N K [REPS] [BACKEND]
 *
 * PROBLEM: poisson (3D 7-point) or jumps (3D 7-point diffusion whose coefficient is 1e-3, 1 or
 * 1e3 in cubes of 8^3 points, drawn from a fixed hash; faces take the harmonic mean), N^3 rows,
 * assembled in memory. AMG-CG to rtol 1e-8, default settings. Prints the medians over REPS
 * (default 5) after one warm-up: the solve of one right-hand side, of K together
 * (gsolve_solve with nrhs = K; columns 1 + 0.1 sin(...) apart), and the setups: a full one (a new
 * context) against one after gsolve_update_values with every coefficient changed by up to 10%
 * (amg.reuse = auto), with the iterations of each. */
#include <gsolve.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_api.h"

static double coef(int jumps, int64_t x, int64_t y, int64_t z)
{
    if (!jumps) return 1.0;
    uint64_t h = (uint64_t)(x / 8) * 73856093u ^ (uint64_t)(y / 8) * 19349663u ^
                 (uint64_t)(z / 8) * 83492791u;
    h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
    static const double v[3] = {1e-3, 1.0, 1e3};
    return v[h % 3];
}

/* the 7-point operator with face coefficients scaled by s(face) in [1 - d, 1 + d] */
static void assemble(int jumps, int64_t N, double d, unsigned seed, int64_t *rp, int32_t *ci,
                     double *v)
{
    int64_t nz = 0;
    for (int64_t z = 0; z < N; z++)
        for (int64_t y = 0; y < N; y++)
            for (int64_t x = 0; x < N; x++) {
                const int64_t i = (z * N + y) * N + x;
                const int64_t nb[6][3] = {{x, y, z - 1}, {x, y - 1, z}, {x - 1, y, z},
                                          {x + 1, y, z}, {x, y + 1, z}, {x, y, z + 1}};
                const double ki = coef(jumps, x, y, z);
                double diag = 0.0;
                rp[i] = nz;
                int64_t dpos = -1;
                for (int f = 0; f < 6; f++) {
                    const int64_t *q = nb[f];
                    int out = q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= N || q[1] >= N ||
                              q[2] >= N;
                    if (f == 3) dpos = nz++; /* the diagonal between x - 1 and x + 1 */
                    if (out) {
                        diag += ki;
                        continue;
                    }
                    const int64_t j = (q[2] * N + q[1]) * N + q[0];
                    const double kj = coef(jumps, q[0], q[1], q[2]);
                    const int64_t lo = i < j ? i : j, hi = i < j ? j : i;
                    uint64_t h = (uint64_t)lo * 2654435761u ^ (uint64_t)hi * 40503u ^ seed;
                    h ^= h >> 16, h *= 0x85ebca6bu, h ^= h >> 13;
                    const double s = 1.0 + d * (2.0 * (double)(h % 100000) / 99999.0 - 1.0);
                    const double a = s * 2.0 * ki * kj / (ki + kj);
                    ci[nz] = (int32_t)j;
                    v[nz++] = -a;
                    diag += a;
                }
                ci[dpos] = (int32_t)i;
                v[dpos] = diag;
            }
    rp[N * N * N] = nz;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_rhs poisson|jumps N K [REPS] [BACKEND]\n");
        return 2;
    }
    const int jumps = strcmp(argv[1], "jumps") == 0, K = atoi(argv[3]);
    const int64_t N = atoll(argv[2]), n = N * N * N;
    const int reps = argc > 4 ? atoi(argv[4]) : 5;
    const char *backend = argc > 5 ? argv[5] : "auto";
    int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)(7 * n) * sizeof *ci);
    double *v = malloc((size_t)(7 * n) * sizeof *v), *v2 = malloc((size_t)(7 * n) * sizeof *v2);
    double *b = malloc((size_t)(n * K) * sizeof *b), *x = malloc((size_t)(n * K) * sizeof *x);
    int64_t *rp2 = malloc((size_t)(n + 1) * sizeof *rp2);
    int32_t *ci2 = malloc((size_t)(7 * n) * sizeof *ci2);
    double t1[64], tk[64], tf[64], tr[64], it1 = 0, itk = 0, itf = 0, itr = 0, v_ = 0;
    char kind[32] = "";
    assemble(jumps, N, 0.0, 0, rp, ci, v);
    for (int64_t q = 0; q < n * K; q++) b[q] = 1.0 + 0.1 * sin(0.37 * (double)(q / n + 1) * (double)(q % n));
    for (int r = 0; r <= reps; r++) {
        gsolve_t *s = NULL;
        gsolve_create(&s);
        gsolve_set(s, "run.backend", backend);
        gsolve_set(s, "solver.preconditioner", "amg");
        gsolve_set(s, "solver.rtol", "1e-8");
        if (gsolve_set_matrix_csr(s, n, rp, ci, v, GSOLVE_HOST) || gsolve_setup(s)) {
            fprintf(stderr, "setup: %s\n", gsolve_error(s));
            return 1;
        }
        gsolve_get(s, "setup_s", &tf[r > 0 ? r - 1 : 0]);
        memset(x, 0, (size_t)n * sizeof *x);
        gsolve_solve(s, 1, b, x, GSOLVE_HOST);
        gsolve_get(s, "solve_s", &t1[r > 0 ? r - 1 : 0]);
        gsolve_get(s, "iterations", &it1);
        memset(x, 0, (size_t)(n * K) * sizeof *x);
        int rc = gsolve_solve(s, K, b, x, GSOLVE_HOST);
        if (rc != GSOLVE_OK) fprintf(stderr, "%d right-hand sides: %s\n", K, gsolve_error(s));
        gsolve_get(s, "solve_s", &tk[r > 0 ? r - 1 : 0]);
        gsolve_get(s, "iterations", &itk);
        /* new values, every coupling changed by up to 10% */
        assemble(jumps, N, 0.1, 7u + (unsigned)r, rp2, ci2, v2);
        gsolve_update_values(s, v2, GSOLVE_HOST);
        gsolve_setup(s);
        gsolve_get(s, "setup_s", &tr[r > 0 ? r - 1 : 0]);
        snprintf(kind, sizeof kind, "%s", gsolve_get_text(s, "setup"));
        memset(x, 0, (size_t)n * sizeof *x);
        gsolve_solve(s, 1, b, x, GSOLVE_HOST);
        gsolve_get(s, "iterations", &itr);
        itf = it1;
        gsolve_get(s, "levels", &v_);
        gsolve_destroy(&s);
    }
    const double m1 = bench_median(t1, reps), mk = bench_median(tk, reps);
    const double mf = bench_median(tf, reps), mr = bench_median(tr, reps);
    printf("| %s %lld^3 | %d | %.2f ms (%g its) | %.2f ms (%g its) | %.2fx | %.2f ms (%g its) | "
           "%.2f ms %s (%g its) | %.2f |\n",
           argv[1], (long long)N, K, 1e3 * m1, it1, 1e3 * mk, itk, mk / m1, 1e3 * mf, itf,
           1e3 * mr, kind, itr, mr / mf);
    free(rp), free(ci), free(v), free(v2), free(b), free(x), free(rp2), free(ci2);
    return 0;
}

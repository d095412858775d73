/* poisson.c: gsolve from C: a 2D Poisson matrix assembled in memory, solved with AMG-CG; then
 * new values for the same pattern, four right-hand sides at once, and the errors the library
 * reports for a bad key, a bad value and a malformed matrix.
 *
 *   cc poisson.c $(pkg-config --cflags --libs gsolve) -o poisson && ./poisson [N]
 */
#include <gsolve.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -div(k grad u) on an N x N grid, 5-point, Dirichlet boundary, coefficient k */
static int64_t poisson(int N, double k, int64_t *rowptr, int32_t *cols, double *vals)
{
    int64_t nz = 0;
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            int32_t i = y * N + x;
            rowptr[i] = nz;
            if (y > 0) cols[nz] = i - N, vals[nz++] = -k;
            if (x > 0) cols[nz] = i - 1, vals[nz++] = -k;
            cols[nz] = i, vals[nz++] = 4.0 * k;
            if (x < N - 1) cols[nz] = i + 1, vals[nz++] = -k;
            if (y < N - 1) cols[nz] = i + N, vals[nz++] = -k;
        }
    rowptr[N * N] = nz;
    return nz;
}

/* ||b - A x|| / ||b|| computed here, from the caller's arrays */
static double residual(int64_t n, const int64_t *rp, const int32_t *ci, const double *v,
                       const double *b, const double *x)
{
    double r2 = 0.0, b2 = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double ax = 0.0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) ax += v[k] * x[ci[k]];
        r2 += (b[i] - ax) * (b[i] - ax);
        b2 += b[i] * b[i];
    }
    return sqrt(r2 / b2);
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != GSOLVE_OK) {                                                                    \
            fprintf(stderr, "%s: %d: %s\n", #call, rc_, gsolve_error(s));                          \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    const int N = argc > 1 ? atoi(argv[1]) : 200, nrhs = 4;
    const int64_t n = (int64_t)N * N;
    int64_t *rowptr = malloc((size_t)(n + 1) * sizeof *rowptr);
    int32_t *cols = malloc((size_t)(5 * n) * sizeof *cols);
    double *vals = malloc((size_t)(5 * n) * sizeof *vals);
    double *b = malloc((size_t)(nrhs * n) * sizeof *b), *x = calloc((size_t)(nrhs * n), sizeof *x);
    gsolve_t *s = NULL;
    double it = 0, res = 0, lv = 0, oc = 0, setup = 0, solve = 0;
    if (!rowptr || !cols || !vals || !b || !x || gsolve_create(&s) != GSOLVE_OK) return 1;
    printf("gsolve %s\n", gsolve_version());

    /* 1. AMG-CG on the assembled matrix, b = 1 */
    poisson(N, 1.0, rowptr, cols, vals);
    for (int64_t i = 0; i < n; i++) b[i] = 1.0;
    CHECK(gsolve_set(s, "solver.type", "cg"));
    CHECK(gsolve_set(s, "solver.preconditioner", "amg"));
    CHECK(gsolve_set(s, "solver.rtol", "1e-8"));
    CHECK(gsolve_set_matrix_csr(s, n, rowptr, cols, vals, GSOLVE_HOST));
    CHECK(gsolve_setup(s));
    CHECK(gsolve_solve(s, 1, b, x, GSOLVE_HOST));
    gsolve_get(s, "iterations", &it);
    gsolve_get(s, "residual", &res);
    gsolve_get(s, "levels", &lv);
    gsolve_get(s, "operator_complexity", &oc);
    gsolve_get(s, "setup_s", &setup);
    gsolve_get(s, "solve_s", &solve);
    double mine = residual(n, rowptr, cols, vals, b, x);
    printf("poisson %dx%d: %g iterations, residual %.2e (here %.2e), %g levels, complexity %.3f, "
           "setup %.3f s, solve %.3f s\n", N, N, it, res, mine, lv, oc, setup, solve);
    if (mine > 1e-7) return 1;

    /* 2. the same pattern with new values (k = 3), solved again */
    poisson(N, 3.0, rowptr, cols, vals);
    memset(x, 0, (size_t)n * sizeof *x);
    CHECK(gsolve_update_values(s, vals, GSOLVE_HOST));
    CHECK(gsolve_solve(s, 1, b, x, GSOLVE_HOST));
    gsolve_get(s, "iterations", &it);
    mine = residual(n, rowptr, cols, vals, b, x);
    printf("updated values: %g iterations, residual %.2e\n", it, mine);
    if (mine > 1e-7) return 1;

    /* 3. four right-hand sides at once */
    for (int j = 0; j < nrhs; j++)
        for (int64_t i = 0; i < n; i++) b[j * n + i] = sin(0.001 * (double)((j + 1) * i)) + 1.0;
    memset(x, 0, (size_t)(nrhs * n) * sizeof *x);
    CHECK(gsolve_solve(s, nrhs, b, x, GSOLVE_HOST));
    for (int j = 0; j < nrhs; j++) {
        char name[32];
        snprintf(name, sizeof name, "iterations:%d", j);
        gsolve_get(s, name, &it);
        mine = residual(n, rowptr, cols, vals, b + j * n, x + j * n);
        printf("rhs %d: %g iterations, residual %.2e\n", j, it, mine);
        if (mine > 1e-7) return 1;
    }

    /* 4. errors come back as codes and messages */
    int rc = gsolve_set(s, "amg.thetta", "0.2");
    printf("bad key (%d): %s\n", rc, gsolve_error(s));
    if (rc != GSOLVE_BAD_INPUT) return 1;
    rc = gsolve_set(s, "amg.theta", "1.5");
    printf("bad value (%d): %s\n", rc, gsolve_error(s));
    if (rc != GSOLVE_BAD_INPUT) return 1;
    cols[7] = (int32_t)n + 5; /* a column outside the matrix */
    rc = gsolve_set_matrix_csr(s, n, rowptr, cols, vals, GSOLVE_HOST);
    printf("malformed CSR (%d): %s\n", rc, gsolve_error(s));
    if (rc != GSOLVE_BAD_INPUT) return 1;

    gsolve_destroy(&s);
    free(rowptr), free(cols), free(vals), free(b), free(x);
    printf("ok\n");
    return 0;
}

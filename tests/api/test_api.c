/* test_api.c: the public C API (include/gsolve.h) as a user calls it, through the shared
 * library and gsolve.h alone: solutions checked by the true residual computed here, new values,
 * several right-hand sides against separate solves, every error as a code and a message, the
 * NULL-safe destroy, two contexts at once, the log callback. With --gpu the same on the GPU
 * (run.backend = cuda; device vectors when the build has CUDA); exit 77 without one. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsolve.h"

static int g_fail;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            g_fail = 1;                                                                            \
        }                                                                                          \
    } while (0)
#define CHECK_RC(s, call, want)                                                                    \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != (want)) {                                                                       \
            fprintf(stderr, "%s:%d: %s returned %d, expected %d: %s\n", __FILE__, __LINE__,       \
                    #call, rc_, (want), gsolve_error(s));                                          \
            g_fail = 1;                                                                            \
        }                                                                                          \
    } while (0)

typedef struct csr {
    int64_t n, *rp;
    int32_t *ci;
    double *v;
} csr;

/* 2D 5-point Poisson scaled by k; convection c (upwind in x: nonsymmetric when c != 0); the
 * entries of each row written in reverse column order (the library sorts them) */
static csr poisson(int N, double k, double c)
{
    csr A = {(int64_t)N * N, NULL, NULL, NULL};
    A.rp = malloc((size_t)(A.n + 1) * sizeof *A.rp);
    A.ci = malloc((size_t)(5 * A.n) * sizeof *A.ci);
    A.v = malloc((size_t)(5 * A.n) * sizeof *A.v);
    int64_t nz = 0;
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            int32_t i = y * N + x;
            A.rp[i] = nz;
            if (y < N - 1) A.ci[nz] = i + N, A.v[nz++] = -k;
            if (x < N - 1) A.ci[nz] = i + 1, A.v[nz++] = -k;
            A.ci[nz] = i, A.v[nz++] = 4.0 * k + c;
            if (x > 0) A.ci[nz] = i - 1, A.v[nz++] = -k - c;
            if (y > 0) A.ci[nz] = i - N, A.v[nz++] = -k;
        }
    A.rp[A.n] = nz;
    return A;
}

static void csr_free(csr *A)
{
    free(A->rp), free(A->ci), free(A->v);
}

static double true_residual(const csr *A, const double *b, const double *x)
{
    double r2 = 0.0, b2 = 0.0;
    for (int64_t i = 0; i < A->n; i++) {
        double ax = 0.0;
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) ax += A->v[k] * x[A->ci[k]];
        r2 += (b[i] - ax) * (b[i] - ax);
        b2 += b[i] * b[i];
    }
    return sqrt(r2 / b2);
}

static void logger(void *user, int level, const char *msg)
{
    (void)level;
    (void)msg;
    (*(int *)user)++;
}

static void backend(gsolve_t *s, int gpu)
{
    CHECK_RC(s, gsolve_set(s, "run.backend", gpu ? "cuda" : "host"), GSOLVE_OK);
}

/* AMG-CG, the residual checked here; then new values; then 4 right-hand sides = 4 solves */
static void solves(int gpu)
{
    const int N = 64, K = 4;
    csr A = poisson(N, 1.0, 0.0);
    double *b = malloc((size_t)(K * A.n) * sizeof *b), *x = calloc((size_t)(K * A.n), sizeof *x);
    double *x1 = calloc((size_t)A.n, sizeof *x1), v = 0, it1[4] = {0};
    gsolve_t *s = NULL;
    CHECK_RC(s, gsolve_create(&s), GSOLVE_OK);
    backend(s, gpu);
    CHECK_RC(s, gsolve_set(s, "solver.preconditioner", "amg"), GSOLVE_OK);
    CHECK_RC(s, gsolve_set(s, "solver.rtol", "1e-9"), GSOLVE_OK);
    CHECK_RC(s, gsolve_set_matrix_csr(s, A.n, A.rp, A.ci, A.v, GSOLVE_HOST), GSOLVE_OK);
    CHECK_RC(s, gsolve_setup(s), GSOLVE_OK);
    CHECK_RC(s, gsolve_get(s, "levels", &v), GSOLVE_OK);
    CHECK(v >= 2);
    CHECK_RC(s, gsolve_get(s, "operator_complexity", &v), GSOLVE_OK);
    CHECK(v > 1.0 && v < 2.0);
    for (int64_t i = 0; i < K * A.n; i++) b[i] = 1.0 + 0.5 * sin(0.01 * (double)(i + 1));
    CHECK_RC(s, gsolve_solve(s, 1, b, x1, GSOLVE_HOST), GSOLVE_OK);
    CHECK(true_residual(&A, b, x1) < 1e-8);
    CHECK_RC(s, gsolve_get(s, "residual", &v), GSOLVE_OK);
    CHECK(fabs(v - true_residual(&A, b, x1)) < 1e-10);
    CHECK_RC(s, gsolve_get(s, "converged", &v), GSOLVE_OK);
    CHECK(v == 1.0);
    CHECK_RC(s, gsolve_get(s, "iterations", &v), GSOLVE_OK);
    CHECK(v >= 3 && v < 30);
    CHECK(strstr(gsolve_report(s), "amg") != NULL);
    CHECK(strstr(gsolve_report(s), "residual  true") != NULL);

    /* new values of the same pattern: the solution of the new system */
    csr B = poisson(N, 2.5, 0.0);
    memset(x1, 0, (size_t)A.n * sizeof *x1);
    CHECK_RC(s, gsolve_update_values(s, B.v, GSOLVE_HOST), GSOLVE_OK);
    CHECK_RC(s, gsolve_solve(s, 1, b, x1, GSOLVE_HOST), GSOLVE_OK);
    CHECK(true_residual(&B, b, x1) < 1e-8);

    /* K right-hand sides at once equal K separate solves */
    for (int j = 0; j < K; j++) {
        memset(x1, 0, (size_t)A.n * sizeof *x1);
        CHECK_RC(s, gsolve_solve(s, 1, b + j * A.n, x1, GSOLVE_HOST), GSOLVE_OK);
        CHECK_RC(s, gsolve_get(s, "iterations", &it1[j]), GSOLVE_OK);
        memcpy(x + j * A.n, x1, (size_t)A.n * sizeof *x1); /* kept to compare */
    }
    double *xk = calloc((size_t)(K * A.n), sizeof *xk);
    CHECK_RC(s, gsolve_solve(s, K, b, xk, GSOLVE_HOST), GSOLVE_OK);
    for (int j = 0; j < K; j++) {
        char name[32];
        snprintf(name, sizeof name, "iterations:%d", j);
        CHECK_RC(s, gsolve_get(s, name, &v), GSOLVE_OK);
        CHECK(v == it1[j]);
        CHECK(true_residual(&B, b + j * A.n, xk + j * A.n) < 1e-8);
        double d = 0.0, e = 0.0;
        for (int64_t i = 0; i < A.n; i++)
            d += pow(xk[j * A.n + i] - x[j * A.n + i], 2), e += pow(x[j * A.n + i], 2);
        CHECK(sqrt(d / e) < 1e-12);
    }
    CHECK_RC(s, gsolve_get(s, "iterations:4", &v), GSOLVE_BAD_INPUT);
    CHECK(strstr(gsolve_error(s), "0..3") != NULL);
    CHECK(strstr(gsolve_report(s), "4 right-hand sides solved together") != NULL);
    /* a zero right-hand side among them: its solution is zero, in no iterations */
    memset(xk, 0, (size_t)(K * A.n) * sizeof *xk);
    for (int64_t i = 0; i < A.n; i++) xk[A.n + i] = 1.0, b[A.n + i] = 0.0;
    CHECK_RC(s, gsolve_solve(s, 3, b, xk, GSOLVE_HOST), GSOLVE_OK);
    CHECK_RC(s, gsolve_get(s, "iterations:1", &v), GSOLVE_OK);
    CHECK(v == 0);
    for (int64_t i = 0; i < A.n; i++) CHECK(xk[A.n + i] == 0.0);
    CHECK(true_residual(&B, b, xk) < 1e-8);
    CHECK(true_residual(&B, b + 2 * A.n, xk + 2 * A.n) < 1e-8);
    /* texts and the level table */
    CHECK(strcmp(gsolve_get_text(s, "reason"), "rtol") == 0);
    CHECK(strcmp(gsolve_get_text(s, "amg_method"), "sa") == 0);
    CHECK(strcmp(gsolve_get_text(s, "backend"), gpu ? "cuda" : "host") == 0);
    CHECK(gsolve_get_text(s, "colour") == NULL);
    CHECK(strstr(gsolve_error(s), "unknown name 'colour'") != NULL);
    CHECK_RC(s, gsolve_get(s, "level_rows:0", &v), GSOLVE_OK);
    CHECK(v == (double)A.n);
    CHECK_RC(s, gsolve_get(s, "level_nnz:0", &v), GSOLVE_OK);
    CHECK(v == (double)A.rp[A.n]);
    CHECK_RC(s, gsolve_get(s, "level_rows:1", &v), GSOLVE_OK);
    CHECK(v > 0 && v < A.n);
    CHECK(gsolve_get_text(s, "level_format:0")[0] != '\0');
    CHECK_RC(s, gsolve_get(s, "iterations:3", &v), GSOLVE_BAD_INPUT);
    CHECK(strstr(gsolve_error(s), "0..2") != NULL);
    gsolve_destroy(&s);
    CHECK(s == NULL);
    free(xk);
    free(b), free(x), free(x1);
    csr_free(&A), csr_free(&B);
}

/* 2D diffusion -div(k grad u) on an N x N grid, 5-point, Dirichlet: k a cell's coefficient,
 * faces the harmonic mean of their cells; the pattern does not depend on k */
static csr diffusion(int N, double (*k)(int x, int y, double t), double t)
{
    csr A = poisson(N, 1.0, 0.0);
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            const int32_t i = y * N + x;
            double diag = 0.0, kc = k(x, y, t);
            for (int64_t q = A.rp[i]; q < A.rp[i + 1]; q++) {
                const int32_t j = A.ci[q];
                if (j == i) continue;
                double kn = k(j % N, j / N, t), f = 2.0 * kc * kn / (kc + kn);
                A.v[q] = -f;
                diag += f;
            }
            /* the boundary faces with the cell's own coefficient */
            diag += kc * (double)((x == 0) + (x == N - 1) + (y == 0) + (y == N - 1));
            for (int64_t q = A.rp[i]; q < A.rp[i + 1]; q++)
                if (A.ci[q] == i) A.v[q] = diag;
        }
    return A;
}

/* a smooth field that drifts with t (10% a step) */
static double drift(int x, int y, double t)
{
    return 1.0 + 0.5 * sin(0.07 * x + 0.3 * t) * cos(0.05 * y - 0.2 * t) + 0.1 * t;
}

/* constant 1 at t = 0; blocks of 12 x 12 cells of 1e5 in a checkerboard otherwise */
static double jumps(int x, int y, double t)
{
    return t > 0 && ((x / 12 + y / 12) % 2) ? 1e5 : 1.0;
}

static double rel_diff(const double *x, const double *y, int64_t n)
{
    double d = 0.0, e = 0.0;
    for (int64_t i = 0; i < n; i++) d += (x[i] - y[i]) * (x[i] - y[i]), e += y[i] * y[i];
    return sqrt(d / e);
}

/* A context for the reuse tests: AMG, rtol 1e-10, the solver type and AMG method given (NULL:
 * the defaults), amg.reuse (NULL: the default), the matrix A */
static gsolve_t *amg_context(int gpu, const csr *A, const char *type, const char *method,
                             const char *reuse)
{
    gsolve_t *s = NULL;
    CHECK_RC(s, gsolve_create(&s), GSOLVE_OK);
    backend(s, gpu);
    CHECK_RC(s, gsolve_set(s, "solver.preconditioner", "amg"), GSOLVE_OK);
    CHECK_RC(s, gsolve_set(s, "solver.rtol", "1e-10"), GSOLVE_OK);
    if (type) CHECK_RC(s, gsolve_set(s, "solver.type", type), GSOLVE_OK);
    if (method) CHECK_RC(s, gsolve_set(s, "amg.method", method), GSOLVE_OK);
    if (reuse) CHECK_RC(s, gsolve_set(s, "amg.reuse", reuse), GSOLVE_OK);
    CHECK_RC(s, gsolve_set_matrix_csr(s, A->n, A->rp, A->ci, A->v, GSOLVE_HOST), GSOLVE_OK);
    return s;
}

/* x's distance from the solution of A x = b by a full setup in a new context (as amg_context) */
static double from_full_setup(int gpu, const csr *A, const double *b, const double *x,
                              const char *type, const char *method)
{
    double *xr = calloc((size_t)A->n, sizeof *xr), d;
    gsolve_t *f = amg_context(gpu, A, type, method, NULL);
    CHECK_RC(f, gsolve_solve(f, 1, b, xr, GSOLVE_HOST), GSOLVE_OK);
    d = rel_diff(x, xr, A->n);
    gsolve_destroy(&f);
    free(xr);
    return d;
}

/* a gsolve_get counter of s */
static double counter(gsolve_t *s, const char *name)
{
    double v = -1.0;
    CHECK_RC(s, gsolve_get(s, name, &v), GSOLVE_OK);
    return v;
}

/* one step of new values: A's values into s, x = 0, a solve; the setup was of kind `setup`
 * and its report names what it kept (`reused`), the true residual is below 1e-9 and the
 * iterations within 1.25x of it0 (+1); x as a full setup's (method type and method) */
static void resetup_step(int gpu, gsolve_t *s, const csr *A, const double *b, double *x,
                         const char *setup, const char *reused, double it0, const char *type,
                         const char *method)
{
    memset(x, 0, (size_t)A->n * sizeof *x);
    CHECK_RC(s, gsolve_update_values(s, A->v, GSOLVE_HOST), GSOLVE_OK);
    CHECK_RC(s, gsolve_solve(s, 1, b, x, GSOLVE_HOST), GSOLVE_OK);
    CHECK(strcmp(gsolve_get_text(s, "setup"), setup) == 0);
    CHECK(strstr(gsolve_get_text(s, "reused"), reused) != NULL);
    CHECK(true_residual(A, b, x) < 1e-9);
    CHECK(counter(s, "iterations") <= 1.25 * it0 + 1);
    CHECK(from_full_setup(gpu, A, b, x, type, method) < 1e-7);
}

/* new values of one pattern (gsolve_update_values) set up again keeping the prolongator
 * (amg.reuse = auto): each step's solution equals a full setup's, the iterations stay within
 * 1.25x, and the counters show what was rebuilt; none sets up in full; auto makes a full setup
 * after a step whose iterations grew past 1.25x */
static void reuse(int gpu)
{
    const int N = 96;
    csr A = diffusion(N, drift, 0.0);
    double *b = malloc((size_t)A.n * sizeof *b), *x = calloc((size_t)A.n, sizeof *x);
    double v = 0, it0 = 0, it = 0, lev = 0;
    for (int64_t i = 0; i < A.n; i++) b[i] = 1.0 + 0.5 * sin(0.013 * (double)i);
    gsolve_t *s = NULL;
    s = amg_context(gpu, &A, NULL, NULL, NULL);
    CHECK_RC(s, gsolve_solve(s, 1, b, x, GSOLVE_HOST), GSOLVE_OK);
    CHECK(strcmp(gsolve_get_text(s, "setup"), "full") == 0);
    CHECK(strcmp(gsolve_get_text(s, "reused"), "") == 0);
    CHECK_RC(s, gsolve_get(s, "iterations", &it0), GSOLVE_OK);
    CHECK_RC(s, gsolve_get(s, "levels", &lev), GSOLVE_OK);
    CHECK(lev >= 3);
    csr_free(&A);
    for (int step = 1; step <= 3; step++) {
        A = diffusion(N, drift, (double)step);
        resetup_step(gpu, s, &A, b, x, "prolongator", "numeric Galerkin", it0, NULL, NULL);
        CHECK(counter(s, "setups") == 1);
        CHECK(counter(s, "resetups") == step);
        CHECK(counter(s, "coarsenings") == lev - 1);
        CHECK(counter(s, "prolongators") == lev - 1);
        CHECK(counter(s, "galerkin_products") == lev - 1);
        CHECK(counter(s, "galerkin_values") == step * (lev - 1));
        CHECK(counter(s, "full_setup_s") > 0);
        csr_free(&A);
    }
    /* amg.reuse = none: a full setup of the new values */
    CHECK_RC(s, gsolve_set(s, "amg.reuse", "none"), GSOLVE_OK);
    CHECK_RC(s, gsolve_setup(s), GSOLVE_OK);
    A = diffusion(N, drift, 4.0);
    CHECK_RC(s, gsolve_update_values(s, A.v, GSOLVE_HOST), GSOLVE_OK);
    memset(x, 0, (size_t)A.n * sizeof *x);
    CHECK_RC(s, gsolve_solve(s, 1, b, x, GSOLVE_HOST), GSOLVE_OK);
    CHECK(strcmp(gsolve_get_text(s, "setup"), "full") == 0);
    CHECK_RC(s, gsolve_get(s, "resetups", &v), GSOLVE_OK);
    CHECK(v == 0);
    CHECK(true_residual(&A, b, x) < 1e-9);
    csr_free(&A);
    CHECK_RC(s, gsolve_set(s, "amg.reuse", "sometimes"), GSOLVE_BAD_INPUT);
    CHECK(strstr(gsolve_error(s), "auto|values|prolongator|none") != NULL);
    gsolve_destroy(&s);

    /* values: the aggregates kept, P smoothed and the coarse operators made anew; the same
     * solution as a full setup; no coarsening, a Galerkin product a level */
    A = diffusion(N, drift, 0.0);
    s = amg_context(gpu, &A, NULL, NULL, "values");
    memset(x, 0, (size_t)A.n * sizeof *x);
    CHECK_RC(s, gsolve_solve(s, 1, b, x, GSOLVE_HOST), GSOLVE_OK);
    CHECK_RC(s, gsolve_get(s, "iterations", &it0), GSOLVE_OK);
    CHECK_RC(s, gsolve_get(s, "levels", &lev), GSOLVE_OK);
    csr_free(&A);
    for (int step = 1; step <= 2; step++) {
        A = diffusion(N, drift, 2.0 * step);
        resetup_step(gpu, s, &A, b, x, "values", "aggregates and tentative", it0, NULL, NULL);
        CHECK(counter(s, "coarsenings") == lev - 1);
        CHECK(counter(s, "galerkin_products") == (1 + step) * (lev - 1));
        CHECK(counter(s, "prolongators") == (1 + step) * (lev - 1));
        csr_free(&A);
    }
    gsolve_destroy(&s);

    /* values with classical AMG: the C/F splittings kept, P and R anew; symmetric (R = P^T, CG)
     * and nonsymmetric (R from A^T's interpolation, GMRES) */
    for (int nonsym = 0; nonsym <= 1; nonsym++) {
        A = nonsym ? poisson(N, 1.0, 2.0) : diffusion(N, drift, 0.0);
        s = amg_context(gpu, &A, nonsym ? "gmres" : "cg", "classical", "values");
        memset(x, 0, (size_t)A.n * sizeof *x);
        CHECK_RC(s, gsolve_solve(s, 1, b, x, GSOLVE_HOST), GSOLVE_OK);
        CHECK(strcmp(gsolve_get_text(s, "amg_method"), "classical") == 0);
        CHECK_RC(s, gsolve_get(s, "iterations", &it0), GSOLVE_OK);
        CHECK_RC(s, gsolve_get(s, "levels", &lev), GSOLVE_OK);
        csr_free(&A);
        A = nonsym ? poisson(N, 1.3, 3.0) : diffusion(N, drift, 3.0);
        resetup_step(gpu, s, &A, b, x, "values", "C/F splittings", it0, nonsym ? "gmres" : "cg",
                     "classical");
        CHECK(counter(s, "coarsenings") == lev - 1);
        CHECK(counter(s, "galerkin_products") == 2 * (lev - 1));
        gsolve_destroy(&s);
        csr_free(&A);
    }

    /* auto: a hierarchy of constant coefficients kept for 1e5 jumps takes many more iterations,
     * and the next new values get a full setup; prolongator keeps it regardless */
    for (int forced = 0; forced <= 1; forced++) {
        A = diffusion(N, jumps, 0.0);
        csr J = diffusion(N, jumps, 1.0);
        CHECK_RC(s, gsolve_create(&s), GSOLVE_OK);
        backend(s, gpu);
        CHECK_RC(s, gsolve_set(s, "solver.rtol", "1e-8"), GSOLVE_OK);
        CHECK_RC(s, gsolve_set(s, "solver.preconditioner", "amg"), GSOLVE_OK);
        if (forced) CHECK_RC(s, gsolve_set(s, "amg.reuse", "prolongator"), GSOLVE_OK);
        CHECK_RC(s, gsolve_set_matrix_csr(s, A.n, A.rp, A.ci, A.v, GSOLVE_HOST), GSOLVE_OK);
        memset(x, 0, (size_t)A.n * sizeof *x);
        CHECK_RC(s, gsolve_solve(s, 1, b, x, GSOLVE_HOST), GSOLVE_OK);
        CHECK_RC(s, gsolve_get(s, "iterations", &it0), GSOLVE_OK);
        CHECK_RC(s, gsolve_update_values(s, J.v, GSOLVE_HOST), GSOLVE_OK);
        memset(x, 0, (size_t)A.n * sizeof *x);
        CHECK_RC(s, gsolve_solve(s, 1, b, x, GSOLVE_HOST), GSOLVE_OK);
        CHECK(strcmp(gsolve_get_text(s, "setup"), "prolongator") == 0);
        CHECK_RC(s, gsolve_get(s, "iterations", &it), GSOLVE_OK);
        CHECK(it > 1.25 * it0);
        CHECK(true_residual(&J, b, x) < 1e-7);
        for (int64_t q = 0; q < J.rp[J.n]; q++) J.v[q] *= 1.01;
        CHECK_RC(s, gsolve_update_values(s, J.v, GSOLVE_HOST), GSOLVE_OK);
        memset(x, 0, (size_t)A.n * sizeof *x);
        CHECK_RC(s, gsolve_solve(s, 1, b, x, GSOLVE_HOST), GSOLVE_OK);
        CHECK(strcmp(gsolve_get_text(s, "setup"), forced ? "prolongator" : "full") == 0);
        CHECK(true_residual(&J, b, x) < 1e-7);
        gsolve_destroy(&s);
        csr_free(&A), csr_free(&J);
    }
    free(b), free(x);
}

/* the preconditioner once: Jacobi gives r / diag exactly; AMG's cycle reduces the error of
 * A z = r, and inside a simple preconditioned Richardson iteration it converges */
static void apply(int gpu)
{
    csr A = poisson(32, 2.0, 0.0);
    double *r = malloc((size_t)(2 * A.n) * sizeof *r), *z = calloc((size_t)(2 * A.n), sizeof *z);
    double *x = calloc((size_t)A.n, sizeof *x), *res = malloc((size_t)A.n * sizeof *res);
    gsolve_t *s = NULL;
    for (int64_t i = 0; i < 2 * A.n; i++) r[i] = cos(0.37 * (double)i);
    CHECK_RC(s, gsolve_create(&s), GSOLVE_OK);
    backend(s, gpu);
    CHECK_RC(s, gsolve_set_matrix_csr(s, A.n, A.rp, A.ci, A.v, GSOLVE_HOST), GSOLVE_OK);
    CHECK_RC(s, gsolve_set(s, "solver.preconditioner", "jacobi"), GSOLVE_OK);
    CHECK_RC(s, gsolve_apply(s, 2, r, z, GSOLVE_HOST), GSOLVE_OK);
    for (int64_t i = 0; i < 2 * A.n; i++) CHECK(fabs(z[i] - r[i] / 8.0) <= 1e-15 * fabs(r[i]));
    CHECK_RC(s, gsolve_set(s, "solver.preconditioner", "amg"), GSOLVE_OK);
    for (int it = 0; it < 12; it++) { /* x += M (b - A x), b = r's first column */
        for (int64_t i = 0; i < A.n; i++) {
            double ax = 0.0;
            for (int64_t k = A.rp[i]; k < A.rp[i + 1]; k++) ax += A.v[k] * x[A.ci[k]];
            res[i] = r[i] - ax;
        }
        CHECK_RC(s, gsolve_apply(s, 1, res, z, GSOLVE_HOST), GSOLVE_OK);
        for (int64_t i = 0; i < A.n; i++) x[i] += z[i];
    }
    CHECK(true_residual(&A, r, x) < 1e-5);
    gsolve_destroy(&s);
    free(r), free(z), free(x), free(res);
    csr_free(&A);
}

/* two contexts on two threads at once (on the GPU they take turns), each its own matrix and
 * settings, solved several times: every solution right, every context's numbers its own */
typedef struct job {
    int gpu, N, fail;
    double k, its;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    csr A = poisson(j->N, j->k, 0.0);
    double *b = malloc((size_t)A.n * sizeof *b), *x = malloc((size_t)A.n * sizeof *x), v = 0;
    gsolve_t *s = NULL;
    for (int64_t i = 0; i < A.n; i++) b[i] = 1.0 + (double)(i % 5);
    if (gsolve_create(&s) != GSOLVE_OK || gsolve_set(s, "run.backend", j->gpu ? "cuda" : "host") ||
        gsolve_set(s, "solver.preconditioner", "amg") ||
        gsolve_set_matrix_csr(s, A.n, A.rp, A.ci, A.v, GSOLVE_HOST))
        j->fail = 1;
    for (int r = 0; r < 3 && !j->fail; r++) {
        memset(x, 0, (size_t)A.n * sizeof *x);
        if (gsolve_solve(s, 1, b, x, GSOLVE_HOST) != GSOLVE_OK || true_residual(&A, b, x) > 1e-7)
            j->fail = 1;
        if (gsolve_get(s, "rows", &v) != GSOLVE_OK || v != (double)A.n) j->fail = 1;
        gsolve_get(s, "iterations", &j->its);
    }
    gsolve_destroy(&s);
    free(b), free(x);
    csr_free(&A);
    return NULL;
}

static void threads(int gpu)
{
    job j[2] = {{gpu, 90, 0, 1.0, 0}, {gpu, 57, 0, 7.0, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&t[i], NULL, run_job, &j[i]) == 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    CHECK(!j[0].fail && !j[1].fail);
    CHECK(j[0].its > 0 && j[1].its > 0);
}

/* a nonsymmetric system with GMRES and classical AMG; not converging is a code, not an error */
static void nonsymmetric(int gpu)
{
    csr A = poisson(48, 1.0, 3.0);
    double *b = malloc((size_t)A.n * sizeof *b), *x = calloc((size_t)A.n, sizeof *x), v = 0;
    for (int64_t i = 0; i < A.n; i++) b[i] = 1.0;
    gsolve_t *s = NULL;
    CHECK_RC(s, gsolve_create(&s), GSOLVE_OK);
    backend(s, gpu);
    CHECK_RC(s, gsolve_set(s, "solver.type", "\"gmres\""), GSOLVE_OK);
    CHECK_RC(s, gsolve_set(s, "solver.preconditioner", "amg"), GSOLVE_OK);
    CHECK_RC(s, gsolve_set_matrix_csr(s, A.n, A.rp, A.ci, A.v, GSOLVE_HOST), GSOLVE_OK);
    CHECK_RC(s, gsolve_solve(s, 1, b, x, GSOLVE_HOST), GSOLVE_OK); /* set up by itself */
    CHECK(true_residual(&A, b, x) < 1e-7);
    memset(x, 0, (size_t)A.n * sizeof *x);
    CHECK_RC(s, gsolve_set(s, "solver.max_iters", "2"), GSOLVE_OK);
    CHECK_RC(s, gsolve_solve(s, 1, b, x, GSOLVE_HOST), GSOLVE_NOT_CONVERGED);
    CHECK(strstr(gsolve_error(s), "max_iters") != NULL || strstr(gsolve_error(s), "2 iter") != NULL);
    CHECK_RC(s, gsolve_get(s, "converged", &v), GSOLVE_OK);
    CHECK(v == 0.0);
    gsolve_destroy(&s);
    free(b), free(x);
    csr_free(&A);
}

/* bad keys, values, matrices and calls: a code and a message each, never an exit */
static void errors(void)
{
    gsolve_t *s = NULL, *t = NULL;
    csr A = poisson(8, 1.0, 0.0);
    double b[64], x[64], v = 0;
    char buf[64];
    for (int i = 0; i < 64; i++) b[i] = 1.0, x[i] = 0.0;
    gsolve_destroy(NULL);
    gsolve_destroy(&t); /* NULL-safe */
    CHECK_RC(s, gsolve_create(&s), GSOLVE_OK);
    CHECK_RC(s, gsolve_set(s, "amg.thetta", "0.2"), GSOLVE_BAD_INPUT);
    CHECK(strstr(gsolve_error(s), "did you mean 'amg.theta'") != NULL);
    CHECK_RC(s, gsolve_set(s, "amg.theta", "1.5"), GSOLVE_BAD_INPUT);
    CHECK(strstr(gsolve_error(s), "amg.theta = 1.5 is out of range 0..1") != NULL);
    CHECK_RC(s, gsolve_set(s, "solver.max_iters", "many"), GSOLVE_BAD_INPUT);
    CHECK(strstr(gsolve_error(s), "expects an integer") != NULL);
    CHECK_RC(s, gsolve_set(s, "solver.type", "cgs"), GSOLVE_BAD_INPUT);
    CHECK(strstr(gsolve_error(s), "is not one of") != NULL);
    CHECK_RC(s, gsolve_set(s, "problem.matrix", "a.mtx"), GSOLVE_BAD_INPUT);
    CHECK(strstr(gsolve_error(s), "gsolve_set_matrix_csr") != NULL);
    CHECK_RC(s, gsolve_set(s, "amg.theta", "0.25"), GSOLVE_OK);
    CHECK(gsolve_error(s)[0] == '\0');
    CHECK_RC(s, gsolve_get_key(s, "amg.theta", buf, sizeof buf), GSOLVE_OK);
    CHECK(atof(buf) == 0.25);
    CHECK_RC(s, gsolve_get_key(s, "solver.type", buf, sizeof buf), GSOLVE_OK);
    CHECK(strcmp(buf, "cg") == 0);
    CHECK_RC(s, gsolve_solve(s, 1, b, x, GSOLVE_HOST), GSOLVE_BAD_INPUT); /* no matrix */
    CHECK(strstr(gsolve_error(s), "gsolve_set_matrix_csr") != NULL);
    CHECK_RC(s, gsolve_get(s, "iterations", &v), GSOLVE_BAD_INPUT); /* no solve */
    CHECK_RC(s, gsolve_get(s, "speed", &v), GSOLVE_BAD_INPUT);
    /* malformed CSR: each names what is wrong and where */
    CHECK_RC(s, gsolve_set_matrix_csr(s, 0, A.rp, A.ci, A.v, GSOLVE_HOST), GSOLVE_BAD_INPUT);
    CHECK(strstr(gsolve_error(s), "n = 0") != NULL);
    const int32_t keepc = A.ci[5];
    A.ci[5] = 64;
    CHECK_RC(s, gsolve_set_matrix_csr(s, A.n, A.rp, A.ci, A.v, GSOLVE_HOST), GSOLVE_BAD_INPUT);
    CHECK(strstr(gsolve_error(s), "column 64 outside 0..63") != NULL);
    A.ci[5] = keepc;
    int64_t keep = A.rp[9];
    A.rp[9] = A.rp[8] - 1;
    CHECK_RC(s, gsolve_set_matrix_csr(s, A.n, A.rp, A.ci, A.v, GSOLVE_HOST), GSOLVE_BAD_INPUT);
    CHECK(strstr(gsolve_error(s), "rowptr decreases at row 8") != NULL);
    A.rp[9] = keep;
    A.rp[0] = 1;
    CHECK_RC(s, gsolve_set_matrix_csr(s, A.n, A.rp, A.ci, A.v, GSOLVE_HOST), GSOLVE_BAD_INPUT);
    CHECK(strstr(gsolve_error(s), "rowptr[0] = 1") != NULL);
    A.rp[0] = 0;
    const double keepv = A.v[2];
    A.v[2] = NAN;
    CHECK_RC(s, gsolve_set_matrix_csr(s, A.n, A.rp, A.ci, A.v, GSOLVE_HOST), GSOLVE_BAD_INPUT);
    CHECK(strstr(gsolve_error(s), "nan") != NULL);
    A.v[2] = keepv;
    CHECK_RC(s, gsolve_set_matrix_csr(s, A.n, A.rp, A.ci, A.v, 7), GSOLVE_BAD_INPUT);
    CHECK_RC(s, gsolve_set_matrix_csr(s, A.n, A.rp, A.ci, A.v, GSOLVE_HOST), GSOLVE_OK);
    if (!strstr(gsolve_version(), "cuda")) { /* device arrays in a build without a GPU backend */
        CHECK_RC(s, gsolve_update_values(s, A.v, GSOLVE_DEVICE), GSOLVE_BAD_INPUT);
        CHECK(strstr(gsolve_error(s), "no GPU backend") != NULL);
        CHECK_RC(s, gsolve_solve(s, 1, b, x, GSOLVE_DEVICE), GSOLVE_BAD_INPUT);
        CHECK_RC(s, gsolve_set_matrix_csr(s, A.n, A.rp, A.ci, A.v, GSOLVE_DEVICE),
                 GSOLVE_BAD_INPUT);
        CHECK_RC(s, gsolve_set_matrix_csr(s, A.n, A.rp, A.ci, A.v, GSOLVE_HOST), GSOLVE_OK);
    }
    CHECK_RC(s, gsolve_solve(s, 0, b, x, GSOLVE_HOST), GSOLVE_BAD_INPUT);
    CHECK_RC(s, gsolve_solve(s, 1, NULL, x, GSOLVE_HOST), GSOLVE_BAD_INPUT);
    CHECK_RC(s, gsolve_set_nullspace(s, 1, NULL), GSOLVE_BAD_INPUT);
    /* a second context at the same time: its own settings and errors */
    CHECK_RC(t, gsolve_create(&t), GSOLVE_OK);
    CHECK_RC(t, gsolve_get_key(t, "amg.theta", buf, sizeof buf), GSOLVE_OK);
    CHECK(atof(buf) == 0.3);
    CHECK(gsolve_error(t)[0] == '\0');
    CHECK_RC(t, gsolve_set(t, "run.backend", "host"), GSOLVE_OK);
    CHECK_RC(t, gsolve_set_matrix_csr(t, A.n, A.rp, A.ci, A.v, GSOLVE_HOST), GSOLVE_OK);
    CHECK_RC(t, gsolve_solve(t, 1, b, x, GSOLVE_HOST), GSOLVE_OK);
    CHECK(true_residual(&A, b, x) < 1e-7);
    CHECK(gsolve_error(s)[0] != '\0'); /* s keeps its last error */
    CHECK_RC(s, gsolve_get(NULL, "iterations", &v), GSOLVE_BAD_INPUT);
    CHECK_RC(s, gsolve_set_diagnostic("GSOLVE_NO_SUCH", "1"), GSOLVE_BAD_INPUT);
    /* the log: the AMG setup's trace (output.verbosity = 3) comes as messages */
    int logged = 0;
    CHECK_RC(t, gsolve_set_log(t, logger, &logged), GSOLVE_OK);
    CHECK_RC(t, gsolve_set(t, "output.verbosity", "3"), GSOLVE_OK);
    CHECK_RC(t, gsolve_set(t, "solver.preconditioner", "amg"), GSOLVE_OK);
    csr P = poisson(40, 1.0, 0.0);
    CHECK_RC(t, gsolve_set_matrix_csr(t, P.n, P.rp, P.ci, P.v, GSOLVE_HOST), GSOLVE_OK);
    CHECK(gsolve_setup(t) == GSOLVE_OK);
    CHECK(logged > 0);
    gsolve_destroy(&t);
    gsolve_destroy(&s);
    csr_free(&A), csr_free(&P);
}

/* A's row pointers as int32 (gsolve_set_matrix_csr32) give the very solution of int64 ones,
 * with rows sorted and with rows in reverse order (sorted by the library), and name the call in
 * the messages of a malformed CSR */
static int32_t *narrow(const csr *A)
{
    int32_t *rp = malloc((size_t)(A->n + 1) * sizeof *rp);
    for (int64_t i = 0; i <= A->n; i++) rp[i] = (int32_t)A->rp[i];
    return rp;
}

static void rowptr32(int gpu)
{
    csr A = poisson(30, 1.0, 0.5); /* rows in reverse column order */
    double b[900], x64[900], x32[900], it64 = 0, it32 = -1;
    for (int pass = 0; pass < 2; pass++) {
        int32_t *rp = narrow(&A);
        for (int i = 0; i < 900; i++) b[i] = 1.0 + 0.01 * i, x64[i] = x32[i] = 0.0;
        gsolve_t *s = NULL, *t = NULL;
        CHECK_RC(s, gsolve_create(&s), GSOLVE_OK);
        CHECK_RC(t, gsolve_create(&t), GSOLVE_OK);
        backend(s, gpu), backend(t, gpu);
        CHECK_RC(s, gsolve_set(s, "solver.type", "gmres"), GSOLVE_OK);
        CHECK_RC(t, gsolve_set(t, "solver.type", "gmres"), GSOLVE_OK);
        CHECK_RC(s, gsolve_set_matrix_csr(s, A.n, A.rp, A.ci, A.v, GSOLVE_HOST), GSOLVE_OK);
        CHECK_RC(t, gsolve_set_matrix_csr32(t, A.n, rp, A.ci, A.v, GSOLVE_HOST), GSOLVE_OK);
        CHECK_RC(s, gsolve_solve(s, 1, b, x64, GSOLVE_HOST), GSOLVE_OK);
        CHECK_RC(t, gsolve_solve(t, 1, b, x32, GSOLVE_HOST), GSOLVE_OK);
        CHECK_RC(s, gsolve_get(s, "iterations", &it64), GSOLVE_OK);
        CHECK_RC(t, gsolve_get(t, "iterations", &it32), GSOLVE_OK);
        CHECK(it64 == it32);
        CHECK(memcmp(x64, x32, sizeof x64) == 0);
        CHECK(true_residual(&A, b, x32) < 1e-7);
        CHECK(strstr(gsolve_report(t), "gsolve_set_matrix_csr32") != NULL);
        /* new values through the entries' order given */
        for (int64_t k = 0; k < A.rp[A.n]; k++) A.v[k] *= 3.0;
        CHECK_RC(t, gsolve_update_values(t, A.v, GSOLVE_HOST), GSOLVE_OK);
        memset(x32, 0, sizeof x32);
        CHECK_RC(t, gsolve_solve(t, 1, b, x32, GSOLVE_HOST), GSOLVE_OK);
        CHECK(true_residual(&A, b, x32) < 1e-7);
        if (pass == 1 && !gpu) { /* malformed: the call and the row named */
            rp[9] = rp[8] - 1;
            CHECK_RC(t, gsolve_set_matrix_csr32(t, A.n, rp, A.ci, A.v, GSOLVE_HOST),
                     GSOLVE_BAD_INPUT);
            CHECK(strstr(gsolve_error(t), "gsolve_set_matrix_csr32: rowptr decreases at row 8"));
            rp[9] = rp[8] + 5, rp[0] = 2;
            CHECK_RC(t, gsolve_set_matrix_csr32(t, A.n, rp, A.ci, A.v, GSOLVE_HOST),
                     GSOLVE_BAD_INPUT);
            CHECK(strstr(gsolve_error(t), "gsolve_set_matrix_csr32: rowptr[0] = 2") != NULL);
            CHECK_RC(t, gsolve_set_matrix_csr32(t, A.n, NULL, A.ci, A.v, GSOLVE_HOST),
                     GSOLVE_BAD_INPUT);
            CHECK(strstr(gsolve_error(t), "gsolve_set_matrix_csr32: rowptr is NULL") != NULL);
        }
        gsolve_destroy(&s), gsolve_destroy(&t);
        free(rp);
        for (int64_t i = 0; i < A.n; i++) /* pass 1: rows sorted */
            for (int64_t k = A.rp[i], l = A.rp[i + 1] - 1; k < l; k++, l--) {
                int32_t c = A.ci[k];
                double v = A.v[k];
                A.ci[k] = A.ci[l], A.v[k] = A.v[l];
                A.ci[l] = c, A.v[l] = v;
            }
    }
    csr_free(&A);
}

#ifdef GSOLVE_TEST_CUDA
#include <cuda_runtime.h>
/* matrix, right-hand sides and solutions in device memory (GSOLVE_DEVICE): a CSR with sorted
 * rows stays on the device (no note in the log), one with rows in another order is sorted
 * through the host (a note says so); both solve, with new values from the device and the host */
static int g_notes;
static void note(void *user, int level, const char *msg)
{
    (void)user;
    if (level == GSOLVE_LOG_INFO && strstr(msg, "sorted through the host")) g_notes++;
}

static void device_arrays_of(csr *A, int sorted)
{
    const int K = 2;
    const size_t nz = (size_t)A->rp[A->n];
    double *b = malloc((size_t)(K * A->n) * sizeof *b), *x = malloc((size_t)(K * A->n) * sizeof *x);
    int64_t *drp = NULL;
    int32_t *dci = NULL;
    double *dv = NULL, *db = NULL, *dx = NULL;
    for (int64_t i = 0; i < K * A->n; i++) b[i] = 1.0 + (double)(i % 7);
    CHECK(cudaMalloc((void **)&drp, (size_t)(A->n + 1) * sizeof *drp) == cudaSuccess);
    CHECK(cudaMalloc((void **)&dci, nz * sizeof *dci) == cudaSuccess);
    CHECK(cudaMalloc((void **)&dv, nz * sizeof *dv) == cudaSuccess);
    CHECK(cudaMalloc((void **)&db, (size_t)(K * A->n) * sizeof *db) == cudaSuccess);
    CHECK(cudaMalloc((void **)&dx, (size_t)(K * A->n) * sizeof *dx) == cudaSuccess);
    cudaMemcpy(drp, A->rp, (size_t)(A->n + 1) * sizeof *drp, cudaMemcpyHostToDevice);
    cudaMemcpy(dci, A->ci, nz * sizeof *dci, cudaMemcpyHostToDevice);
    cudaMemcpy(dv, A->v, nz * sizeof *dv, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, (size_t)(K * A->n) * sizeof *db, cudaMemcpyHostToDevice);
    cudaMemset(dx, 0, (size_t)(K * A->n) * sizeof *dx);
    gsolve_t *s = NULL;
    g_notes = 0;
    CHECK_RC(s, gsolve_create(&s), GSOLVE_OK);
    CHECK_RC(s, gsolve_set_log(s, note, NULL), GSOLVE_OK);
    CHECK_RC(s, gsolve_set(s, "run.backend", "cuda"), GSOLVE_OK);
    CHECK_RC(s, gsolve_set(s, "solver.preconditioner", "amg"), GSOLVE_OK);
    CHECK_RC(s, gsolve_set_matrix_csr(s, A->n, drp, dci, dv, GSOLVE_DEVICE), GSOLVE_OK);
    CHECK(g_notes == (sorted ? 0 : 1));
    CHECK_RC(s, gsolve_solve(s, K, db, dx, GSOLVE_DEVICE), GSOLVE_OK);
    cudaMemcpy(x, dx, (size_t)(K * A->n) * sizeof *x, cudaMemcpyDeviceToHost);
    for (int j = 0; j < K; j++) CHECK(true_residual(A, b + j * A->n, x + j * A->n) < 1e-7);
    { /* the same with 32-bit row pointers on the device: the same solution */
        int32_t *rp32 = narrow(A), *drp32 = NULL;
        double *x2 = malloc((size_t)(K * A->n) * sizeof *x2);
        CHECK(cudaMalloc((void **)&drp32, (size_t)(A->n + 1) * sizeof *drp32) == cudaSuccess);
        cudaMemcpy(drp32, rp32, (size_t)(A->n + 1) * sizeof *drp32, cudaMemcpyHostToDevice);
        gsolve_t *t = NULL;
        CHECK_RC(t, gsolve_create(&t), GSOLVE_OK);
        CHECK_RC(t, gsolve_set_log(t, note, NULL), GSOLVE_OK);
        CHECK_RC(t, gsolve_set(t, "run.backend", "cuda"), GSOLVE_OK);
        CHECK_RC(t, gsolve_set(t, "solver.preconditioner", "amg"), GSOLVE_OK);
        CHECK_RC(t, gsolve_set_matrix_csr32(t, A->n, drp32, dci, dv, GSOLVE_DEVICE), GSOLVE_OK);
        CHECK(g_notes == (sorted ? 0 : 2));
        cudaMemset(dx, 0, (size_t)(K * A->n) * sizeof *dx);
        CHECK_RC(t, gsolve_solve(t, K, db, dx, GSOLVE_DEVICE), GSOLVE_OK);
        cudaMemcpy(x2, dx, (size_t)(K * A->n) * sizeof *x2, cudaMemcpyDeviceToHost);
        double d2 = 0.0, x2n = 0.0; /* the same solution, to the GPU's rounding */
        for (int64_t i = 0; i < K * A->n; i++)
            d2 += (x[i] - x2[i]) * (x[i] - x2[i]), x2n += x[i] * x[i];
        CHECK(sqrt(d2) <= 1e-6 * sqrt(x2n));
        for (int j = 0; j < K; j++) CHECK(true_residual(A, b + j * A->n, x2 + j * A->n) < 1e-7);
        rp32[5] = rp32[4] - 1; /* malformed on the device: the call and the row named */
        cudaMemcpy(drp32, rp32, (size_t)(A->n + 1) * sizeof *drp32, cudaMemcpyHostToDevice);
        CHECK_RC(t, gsolve_set_matrix_csr32(t, A->n, drp32, dci, dv, GSOLVE_DEVICE),
                 GSOLVE_BAD_INPUT);
        CHECK(strstr(gsolve_error(t), "gsolve_set_matrix_csr32") != NULL);
        CHECK(strstr(gsolve_error(t), "row 4") != NULL);
        gsolve_destroy(&t);
        cudaFree(drp32);
        free(rp32), free(x2);
    }
    for (size_t i = 0; i < nz; i++) A->v[i] *= 2.0; /* new values from the device */
    cudaMemcpy(dv, A->v, nz * sizeof *dv, cudaMemcpyHostToDevice);
    CHECK_RC(s, gsolve_update_values(s, dv, GSOLVE_DEVICE), GSOLVE_OK);
    cudaMemset(dx, 0, (size_t)(K * A->n) * sizeof *dx);
    CHECK_RC(s, gsolve_solve(s, K, db, dx, GSOLVE_DEVICE), GSOLVE_OK);
    cudaMemcpy(x, dx, (size_t)(K * A->n) * sizeof *x, cudaMemcpyDeviceToHost);
    for (int j = 0; j < K; j++) CHECK(true_residual(A, b + j * A->n, x + j * A->n) < 1e-7);
    for (size_t i = 0; i < nz; i++) A->v[i] *= 0.25; /* and from the host */
    CHECK_RC(s, gsolve_update_values(s, A->v, GSOLVE_HOST), GSOLVE_OK);
    cudaMemset(dx, 0, (size_t)(K * A->n) * sizeof *dx);
    CHECK_RC(s, gsolve_solve(s, K, db, dx, GSOLVE_DEVICE), GSOLVE_OK);
    cudaMemcpy(x, dx, (size_t)(K * A->n) * sizeof *x, cudaMemcpyDeviceToHost);
    for (int j = 0; j < K; j++) CHECK(true_residual(A, b + j * A->n, x + j * A->n) < 1e-7);
    /* a bad value on the device is refused with the entry */
    double nan = NAN;
    cudaMemcpy(dv + 3, &nan, sizeof nan, cudaMemcpyHostToDevice);
    CHECK_RC(s, gsolve_update_values(s, dv, GSOLVE_DEVICE), GSOLVE_BAD_INPUT);
    CHECK_RC(s, gsolve_set_matrix_csr(s, A->n, drp, dci, dv, GSOLVE_DEVICE), GSOLVE_BAD_INPUT);
    CHECK(strstr(gsolve_error(s), "not finite") != NULL || strstr(gsolve_error(s), "nan") != NULL);
    gsolve_destroy(&s);
    cudaFree(drp), cudaFree(dci), cudaFree(dv), cudaFree(db), cudaFree(dx);
    free(b), free(x);
}

static void device_arrays(void)
{
    csr A = poisson(40, 1.0, 0.0); /* rows in decreasing column order */
    device_arrays_of(&A, 0);
    for (int64_t i = 0; i < A.n; i++) /* reversed: increasing */
        for (int64_t k = A.rp[i], l = A.rp[i + 1] - 1; k < l; k++, l--) {
            int32_t c = A.ci[k];
            double v = A.v[k];
            A.ci[k] = A.ci[l], A.v[k] = A.v[l];
            A.ci[l] = c, A.v[l] = v;
        }
    device_arrays_of(&A, 1);
    csr_free(&A);
    /* sorted rows and vectors on the device: neither A nor b comes to the host (only the
     * coarsest level, solved by a dense factorization, and the reductions' numbers do) */
    csr P = poisson(200, 1.0, 0.0);
    for (int64_t i = 0; i < P.n; i++)
        for (int64_t k = P.rp[i], l = P.rp[i + 1] - 1; k < l; k++, l--) {
            int32_t c = P.ci[k];
            double v = P.v[k];
            P.ci[k] = P.ci[l], P.v[k] = P.v[l];
            P.ci[l] = c, P.v[l] = v;
        }
    int64_t *drp = NULL;
    int32_t *dci = NULL;
    double *dv = NULL, *db = NULL, *dx = NULL, d0 = 0, d1 = 0;
    const size_t nz = (size_t)P.rp[P.n];
    cudaMalloc((void **)&drp, (size_t)(P.n + 1) * sizeof *drp);
    cudaMalloc((void **)&dci, nz * sizeof *dci);
    cudaMalloc((void **)&dv, nz * sizeof *dv);
    cudaMalloc((void **)&db, (size_t)P.n * sizeof *db);
    cudaMalloc((void **)&dx, (size_t)P.n * sizeof *dx);
    cudaMemcpy(drp, P.rp, (size_t)(P.n + 1) * sizeof *drp, cudaMemcpyHostToDevice);
    cudaMemcpy(dci, P.ci, nz * sizeof *dci, cudaMemcpyHostToDevice);
    cudaMemcpy(dv, P.v, nz * sizeof *dv, cudaMemcpyHostToDevice);
    cudaMemcpy(db, P.v, (size_t)P.n * sizeof *db, cudaMemcpyHostToDevice); /* some b */
    cudaMemset(dx, 0, (size_t)P.n * sizeof *dx);
    gsolve_t *s = NULL;
    CHECK_RC(s, gsolve_create(&s), GSOLVE_OK);
    CHECK_RC(s, gsolve_set(s, "run.backend", "cuda"), GSOLVE_OK);
    CHECK_RC(s, gsolve_set(s, "solver.preconditioner", "amg"), GSOLVE_OK);
    CHECK_RC(s, gsolve_get(s, "device_to_host_bytes", &d0), GSOLVE_OK);
    CHECK_RC(s, gsolve_set_matrix_csr(s, P.n, drp, dci, dv, GSOLVE_DEVICE), GSOLVE_OK);
    CHECK_RC(s, gsolve_solve(s, 1, db, dx, GSOLVE_DEVICE), GSOLVE_OK);
    CHECK_RC(s, gsolve_get(s, "device_to_host_bytes", &d1), GSOLVE_OK);
    printf("device arrays: %.0f bytes to the host for a %lld-row A (%zu bytes) and b\n", d1 - d0,
           (long long)P.n, nz * 12);
    CHECK(d1 - d0 < 8.0 * (double)P.n);
    gsolve_destroy(&s);
    cudaFree(drp), cudaFree(dci), cudaFree(dv), cudaFree(db), cudaFree(dx);
    csr_free(&P);
    printf("device arrays: ok\n");
}
#endif

int main(int argc, char **argv)
{
    int gpu = argc > 1 && strcmp(argv[1], "--gpu") == 0;
    CHECK(strncmp(gsolve_version(), GSOLVE_VERSION_STRING, strlen(GSOLVE_VERSION_STRING)) == 0);
    if (gpu) {
        gsolve_t *s = NULL;
        csr A = poisson(4, 1.0, 0.0);
        gsolve_create(&s);
        gsolve_set(s, "run.backend", "cuda");
        gsolve_set_matrix_csr(s, A.n, A.rp, A.ci, A.v, GSOLVE_HOST);
        int rc = gsolve_setup(s);
        gsolve_destroy(&s);
        csr_free(&A);
        if (rc != GSOLVE_OK) {
            printf("no usable GPU: skipped\n");
            return 77;
        }
    }
    solves(gpu);
    reuse(gpu);
    apply(gpu);
    threads(gpu);
    nonsymmetric(gpu);
    rowptr32(gpu);
#ifdef GSOLVE_TEST_CUDA
    if (gpu) device_arrays();
#endif
    if (!gpu) errors();
    printf(g_fail ? "FAILED\n" : "ok\n");
    return g_fail;
}

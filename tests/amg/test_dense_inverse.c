/* The coarsest level's dense inverse (gs_amg_dense_inverse): A X = I and X A = I to rounding on
 * nonsymmetric matrices that need row swaps (a zero diagonal, the largest entry below it), of
 * sizes 1 to 300; a singular matrix reports its rank, and its inverse on the rows it could
 * eliminate solves the consistent part. */
#include "gs_amg_internal.h"
#include "gs_test.h"

static uint32_t g_seed = 12345u;
static double rnd(void) /* in [-1, 1) */
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return (double)(g_seed >> 8) / (double)(1u << 23) - 1.0;
}

/* a dense n x n matrix as CSR (every entry stored), row-major values in a */
static gs_csr *dense_csr(int32_t n, const double *a)
{
    gs_csr *A = NULL;
    CHECK_OK(gs_csr_create(n, n, (int64_t)n * n, &A));
    for (int32_t i = 0; i <= n; i++) A->rowptr[i] = i * n;
    for (int64_t q = 0; q < (int64_t)n * n; q++) {
        A->colind[q] = (int32_t)(q % n);
        A->val[q] = a[q];
    }
    return A;
}

/* max |(L R)_ij - delta_ij| over n x n row-major L, R */
static double off_identity(int32_t n, const double *l, const double *r)
{
    double worst = 0.0;
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < n; j++) {
            double s = 0.0;
            for (int32_t k = 0; k < n; k++) s += l[(size_t)i * n + k] * r[(size_t)k * n + j];
            s -= i == j ? 1.0 : 0.0;
            if (fabs(s) > worst) worst = fabs(s);
        }
    return worst;
}

int main(void)
{
    const int32_t sizes[] = {1, 2, 3, 17, 116, 300};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        const int32_t n = sizes[t];
        double *a = calloc((size_t)n * n, sizeof *a), *x = calloc((size_t)n * n, sizeof *x);
        for (int32_t i = 0; i < n; i++)
            for (int32_t j = 0; j < n; j++) a[(size_t)i * n + j] = rnd();
        for (int32_t i = 0; i + 1 < n; i++) { /* no pivot on the diagonal: swaps needed */
            a[(size_t)i * n + i] = 0.0;
            a[(size_t)(i + 1) * n + i] = 3.0 + rnd();
        }
        if (n == 1) a[0] = -4.0;
        gs_csr *A = dense_csr(n, a);
        int rank = -1;
        CHECK_OK(gs_amg_dense_inverse(A, x, &rank));
        CHECK_MSG(rank == n, "n %d: rank %d", n, rank);
        const double ax = off_identity(n, a, x), xa = off_identity(n, x, a);
        CHECK_MSG(ax < 1e-10 && xa < 1e-10, "n %d: |A X - I| %g, |X A - I| %g", n, ax, xa);
        if (n == 1) CHECK_NEAR(x[0], -0.25, 1e-15);
        gs_csr_destroy(&A);
        free(a);
        free(x);
    }
    { /* singular: the graph Laplacian of a path of 5 nodes (null space: constants) */
        const int32_t n = 5;
        double a[25] = {0}, x[25], b[5], y[5];
        for (int32_t i = 0; i + 1 < n; i++) {
            a[i * n + i] += 1, a[(i + 1) * n + i + 1] += 1;
            a[i * n + i + 1] -= 1, a[(i + 1) * n + i] -= 1;
        }
        gs_csr *A = dense_csr(n, a);
        int rank = -1;
        CHECK_OK(gs_amg_dense_inverse(A, x, &rank));
        CHECK_MSG(rank == n - 1, "path Laplacian: rank %d", rank);
        /* b = A (0 1 2 3 4) is consistent: A (X b) = b */
        for (int32_t i = 0; i < n; i++) {
            b[i] = 0;
            for (int32_t j = 0; j < n; j++) b[i] += a[i * n + j] * j;
        }
        for (int32_t i = 0; i < n; i++) {
            y[i] = 0;
            for (int32_t j = 0; j < n; j++) y[i] += x[i * n + j] * b[j];
        }
        for (int32_t i = 0; i < n; i++) {
            double s = 0;
            for (int32_t j = 0; j < n; j++) s += a[i * n + j] * y[j];
            CHECK_NEAR(s, b[i], 1e-12);
        }
        gs_csr_destroy(&A);
    }
    { /* the pseudo-inverse given the null space (gs_amg_dense_pinv): the 2D Neumann Laplacian
       * of 6 x 6 points, whose last pivot is rounding (no tolerance decides it): X 1 = 0, X
       * symmetric, A X b = b for b orthogonal to 1, and X A X = X */
        const int32_t m = 6, n = m * m;
        double a[36 * 36] = {0}, x[36 * 36], z[36], b[36], y[36];
        for (int32_t i = 0; i < n; i++) {
            int32_t nb[2] = {i % m + 1 < m ? i + 1 : -1, i + m < n ? i + m : -1};
            for (int k = 0; k < 2; k++)
                if (nb[k] >= 0) {
                    a[i * n + i] += 1, a[nb[k] * n + nb[k]] += 1;
                    a[i * n + nb[k]] -= 1, a[nb[k] * n + i] -= 1;
                }
            z[i] = 1.0;
        }
        gs_csr *A = dense_csr(n, a);
        int rank = -1;
        CHECK_OK(gs_amg_dense_pinv(A, z, x, &rank));
        CHECK_MSG(rank == n, "pinv: rank %d of the regularized matrix", rank);
        double worst = 0.0, sym = 0.0, b_mean = 0.0;
        for (int32_t i = 0; i < n; i++) {
            double s = 0.0;
            for (int32_t j = 0; j < n; j++) {
                s += x[i * n + j];
                sym = fmax(sym, fabs(x[i * n + j] - x[j * n + i]));
            }
            worst = fmax(worst, fabs(s));
            b[i] = rnd();
            b_mean += b[i] / n;
        }
        CHECK_MSG(worst < 1e-12 && sym < 1e-12, "pinv: |X 1| %g, |X - X^T| %g", worst, sym);
        for (int32_t i = 0; i < n; i++) b[i] -= b_mean;
        double err = 0.0;
        for (int32_t i = 0; i < n; i++) {
            y[i] = 0.0;
            for (int32_t j = 0; j < n; j++) y[i] += x[i * n + j] * b[j];
        }
        for (int32_t i = 0; i < n; i++) {
            double s = 0.0;
            for (int32_t j = 0; j < n; j++) s += a[i * n + j] * y[j];
            err = fmax(err, fabs(s - b[i]));
        }
        CHECK_MSG(err < 1e-12, "pinv: |A X b - b| %g for b orthogonal to 1", err);
        double *xa = calloc((size_t)n * n, sizeof *xa), xax = 0.0; /* X A X = X */
        for (int32_t i = 0; i < n; i++)
            for (int32_t k = 0; k < n; k++)
                for (int32_t j = 0; j < n; j++) xa[i * n + j] += x[i * n + k] * a[k * n + j];
        for (int32_t i = 0; i < n; i++)
            for (int32_t j = 0; j < n; j++) {
                double s = 0.0;
                for (int32_t k = 0; k < n; k++) s += xa[i * n + k] * x[k * n + j];
                xax = fmax(xax, fabs(s - x[i * n + j]));
            }
        CHECK_MSG(xax < 1e-12, "pinv: |X A X - X| %g", xax);
        free(xa);
        gs_csr_destroy(&A);
    }
    return gs_test_result("test_dense_inverse");
}

/* gs_gen_pde.c: the generators of the AMG problem classes: jumping coefficients (3D finite
 * volumes), rotated anisotropy (2D Q1 elements) and linear elasticity (2D/3D Q1 elements with
 * the rigid-body modes). Each writes CSR straight away: row lengths in closed form, a scan, then
 * the rows in column order (OpenMP over grid lines). The formulas are documented in gs_gen.h.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gs_gen_impl.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* keep a*b+c unfused so results match across machines */
#endif

#define PI 3.14159265358979323846

/* ------------------------------------------------------------------ shared steps */

/* refuse a problem of `rows` rows and `nnz` nonzeros (exact or beyond 2^53 as doubles) when
 * either passes the 32-bit index limit, as grid_setup does */
static gs_status check_limits(const char *desc, double rows, double nnz)
{
    if (rows > (double)GS_MAX_INDEX)
        return GS_ERROR(GS_ERR_UNSUPPORTED,
                        "%s: %.4g rows: the 32-bit index limit is 2^31 - 1 = 2147483647", desc,
                        rows);
    if (nnz > (double)GS_MAX_INDEX)
        return GS_ERROR(GS_ERR_UNSUPPORTED,
                        "%s: %.4g nonzeros: the 32-bit index limit is 2^31 - 1 = 2147483647", desc,
                        nnz);
    return GS_OK;
}

/* size >= 1 and dof = 1, the checks every PDE type shares */
static gs_status check_common(const char *name, const gs_gen_params *p)
{
    if (p->size < 1)
        return GS_ERROR(GS_ERR_ARG, "%s: size %lld: expected at least 1 grid point per direction",
                        name, (long long)p->size);
    if (p->dof != 1)
        return GS_ERROR(GS_ERR_ARG,
                        "%s: dof %d: dof applies to poisson, anisotropic and convdiff only, "
                        "expected 1",
                        name, p->dof);
    return GS_OK;
}

/* points a grid coordinate x in [0, n) couples to along one axis: itself and the neighbours
 * that stay inside */
static int32_t axis_span(int64_t x, int64_t n)
{
    return 1 + (x > 0) + (x < n - 1);
}

/* rowptr[r+1] holds row r's length on entry: turn the lengths into offsets; 0 when the total
 * is the expected nnz */
static gs_status scan_rowptr(int32_t *rowptr, int64_t rows, int64_t nnz, const char *desc)
{
    int64_t sum = 0;
    rowptr[0] = 0;
    for (int64_t r = 0; r < rows; r++) {
        sum += rowptr[r + 1];
        rowptr[r + 1] = (int32_t)(sum <= GS_MAX_INDEX ? sum : GS_MAX_INDEX);
    }
    if (sum != nnz)
        return GS_ERROR(GS_ERR_INTERNAL, "%s: counted %lld nonzeros, expected %lld", desc,
                        (long long)sum, (long long)nnz);
    return GS_OK;
}

/* ------------------------------------------------------------------ jumps */

/* check the jumping-coefficient parameters */
static gs_status jumps_check(const gs_gen_params *p)
{
    gs_status st = check_common("jumps", p);
    if (st != GS_OK) return st;
    if (!(p->contrast >= 1.0 && p->contrast <= 1e150)) /* contrast^2 stays finite */
        return GS_ERROR(GS_ERR_ARG, "jumps: contrast %g: expected a value in 1..1e150",
                        p->contrast);
    if (p->block < 1)
        return GS_ERROR(GS_ERR_ARG, "jumps: block %lld: expected at least 1 point per cube edge",
                        (long long)p->block);
    return GS_OK;
}

/* k[x + n*(y + n*z)] = the coefficient of the point's cube: cube after cube (x fastest), one
 * xoshiro256** draw u from the seed picks {1/contrast, 1, contrast}[floor(3u)] */
static gs_status jumps_coefficients(const gs_gen_params *p, double *k)
{
    gs_status st = GS_OK;
    int64_t n = p->size, b = p->block, nb = n / b + (n % b != 0), cubes = nb * nb * nb;
    const double value[3] = {1.0 / p->contrast, 1.0, p->contrast};
    unsigned char *pick = NULL;
    gs_gen_rng rng;
    GS_CHECK(gs_alloc_array((size_t)cubes, 1, "coefficient cubes", (void **)&pick));
    gs_gen_rng_seed(&rng, p->seed);
    for (int64_t c = 0; c < cubes; c++) {
        int v = (int)(3.0 * gs_gen_unit_double(gs_gen_rng_next(&rng)));
        pick[c] = (unsigned char)(v < 2 ? v : 2);
    }
#pragma omp parallel for schedule(static)
    for (int64_t line = 0; line < n * n; line++) {
        int64_t y = line % n, z = line / n, cyz = nb * (y / b + nb * (z / b));
        for (int64_t x = 0; x < n; x++) k[x + n * line] = value[pick[x / b + cyz]];
    }
done:
    gs_free(pick);
    return st;
}

/* the value of a face between coefficients ki and kj: their harmonic mean (symmetric in i, j
 * to the last bit: the product and the sum commute exactly) */
static double face(double ki, double kj)
{
    return 2.0 * (ki * kj) / (ki + kj);
}

/* the rows of grid line `line` (fixed y, z): neighbours in column order z-1, y-1, x-1, (the
 * diagonal), x+1, y+1, z+1; a face out of the grid adds k_i to the diagonal */
static void jumps_fill_line(int64_t n, const double *k, int64_t line, gs_csr *A)
{
    int64_t y = line % n, z = line / n;
    for (int64_t x = 0; x < n; x++) {
        int64_t i = x + n * line;
        const int64_t step[6] = {-n * n, -n, -1, 1, n, n * n};
        const int inside[6] = {z > 0, y > 0, x > 0, x < n - 1, y < n - 1, z < n - 1};
        double ki = k[i], diag = 0.0;
        int32_t pos = A->rowptr[i], dpos = -1;
        for (int f = 0; f < 6; f++) {
            if (f == 3) dpos = pos++; /* the diagonal's place, filled below */
            if (!inside[f]) {
                diag += ki;
                continue;
            }
            double w = face(ki, k[i + step[f]]);
            A->colind[pos] = (int32_t)(i + step[f]);
            A->val[pos++] = -w;
            diag += w;
        }
        A->colind[dpos] = (int32_t)i;
        A->val[dpos] = diag;
    }
}

gs_status gs_gen_jumps(const gs_gen_params *p, gs_csr **out, char *desc, size_t desc_len)
{
    gs_status st = GS_OK;
    gs_csr *A = NULL;
    double *k = NULL;
    int64_t n = p->size;
    GS_CHECK(jumps_check(p));
    snprintf(desc, desc_len, "jumps 3D 7-point %lld^3 contrast %g block %lld seed %llu",
             (long long)n, p->contrast, (long long)p->block, (unsigned long long)p->seed);
    double dn = (double)n;
    GS_CHECK(check_limits(desc, dn * dn * dn, 7.0 * dn * dn * dn - 6.0 * dn * dn));
    int64_t rows = n * n * n, nnz = 7 * rows - 6 * n * n;
    GS_CHECK(gs_alloc_array((size_t)rows, sizeof *k, "coefficients", (void **)&k));
    GS_CHECK(jumps_coefficients(p, k));
    GS_CHECK(gs_csr_create(rows, rows, nnz, &A));
#pragma omp parallel for schedule(static)
    for (int64_t line = 0; line < n * n; line++) {
        int64_t y = line % n, z = line / n;
        for (int64_t x = 0; x < n; x++)
            A->rowptr[x + n * line + 1] = axis_span(x, n) + axis_span(y, n) + axis_span(z, n) - 2;
    }
    GS_CHECK(scan_rowptr(A->rowptr, rows, nnz, desc));
#pragma omp parallel for schedule(static)
    for (int64_t line = 0; line < n * n; line++) jumps_fill_line(n, k, line, A);
    *out = A;
    A = NULL;
done:
    gs_free(k);
    gs_csr_destroy(&A);
    return st;
}

/* ------------------------------------------------------------------ rotated anisotropy */

/* check the rotated-anisotropy parameters */
static gs_status rotated_check(const gs_gen_params *p)
{
    gs_status st = check_common("rotated", p);
    if (st != GS_OK) return st;
    if (!(p->epsilon > 0.0 && isfinite(p->epsilon)))
        return GS_ERROR(GS_ERR_ARG, "rotated: epsilon %g: expected a finite value > 0", p->epsilon);
    if (!isfinite(p->angle))
        return GS_ERROR(GS_ERR_ARG, "rotated: angle %g: expected a finite angle in degrees",
                        p->angle);
    return GS_OK;
}

/* The assembled Q1 stencil of -div(K grad u), s[dy+1][dx+1]. On the unit square element with
 * corners (0,0), (1,0), (0,1), (1,1): int dN/dx dN/dx is 1/3 on the diagonal, -1/3 between
 * corners along x, 1/6 along y, -1/6 across; int dN/dy dN/dy the same with x and y swapped;
 * int (dN_i/dx dN_j/dy + dN_i/dy dN_j/dx) is +-1/2 on the diagonal (cancelling over the four
 * elements of a node), 0 along the edges, -1/2 between (0,0) and (1,1), +1/2 between (1,0) and
 * (0,1). Summed over the elements a node pair shares (four for the node itself, two for an
 * edge, one across), with a = K_xx, b = K_xy, d = K_yy:
 *   centre 4(a+d)/3, x neighbours (d-2a)/3, y neighbours (a-2d)/3,
 *   (1,1) and (-1,-1): -(a+d)/6 - b/2, (1,-1) and (-1,1): -(a+d)/6 + b/2. */
static void rotated_stencil(double epsilon, double angle, double s[3][3])
{
    double t = angle * (PI / 180.0), c = cos(t), sn = sin(t);
    double a = c * c + epsilon * (sn * sn), d = sn * sn + epsilon * (c * c);
    double b = (1.0 - epsilon) * (c * sn);
    s[1][1] = 4.0 * (a + d) / 3.0;
    s[1][0] = s[1][2] = (d - 2.0 * a) / 3.0;
    s[0][1] = s[2][1] = (a - 2.0 * d) / 3.0;
    s[2][2] = s[0][0] = -(a + d) / 6.0 - b / 2.0;
    s[0][2] = s[2][0] = -(a + d) / 6.0 + b / 2.0;
}

/* the rows of grid row y: the 3 x 3 stencil, neighbours on the boundary dropped */
static void rotated_fill_line(int64_t n, double s[3][3], int64_t y, gs_csr *A)
{
    for (int64_t x = 0; x < n; x++) {
        int32_t pos = A->rowptr[x + n * y];
        for (int dy = -1; dy <= 1; dy++) {
            if (y + dy < 0 || y + dy >= n) continue;
            for (int dx = -1; dx <= 1; dx++) {
                if (x + dx < 0 || x + dx >= n) continue;
                A->colind[pos] = (int32_t)(x + dx + n * (y + dy));
                A->val[pos++] = s[dy + 1][dx + 1];
            }
        }
    }
}

gs_status gs_gen_rotated(const gs_gen_params *p, gs_csr **out, char *desc, size_t desc_len)
{
    gs_status st = GS_OK;
    gs_csr *A = NULL;
    int64_t n = p->size;
    double s[3][3];
    GS_CHECK(rotated_check(p));
    snprintf(desc, desc_len, "rotated 2D 9-point Q1 %lld^2 epsilon %g angle %g", (long long)n,
             p->epsilon, p->angle);
    double dn = (double)n;
    GS_CHECK(check_limits(desc, dn * dn, (3.0 * dn - 2.0) * (3.0 * dn - 2.0)));
    int64_t rows = n * n, nnz = (3 * n - 2) * (3 * n - 2);
    rotated_stencil(p->epsilon, p->angle, s);
    GS_CHECK(gs_csr_create(rows, rows, nnz, &A));
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < n; y++)
        for (int64_t x = 0; x < n; x++)
            A->rowptr[x + n * y + 1] = axis_span(x, n) * axis_span(y, n);
    GS_CHECK(scan_rowptr(A->rowptr, rows, nnz, desc));
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < n; y++) rotated_fill_line(n, s, y, A);
    *out = A;
    A = NULL;
done:
    gs_csr_destroy(&A);
    return st;
}

/* ------------------------------------------------------------------ linear elasticity */

#define EL_DOFS 24 /* unknowns of a hexahedron: 8 nodes x 3 */

/* dimension d from the stencil (5, 9: 2; 7, 27: 3) and the other checks */
static gs_status elasticity_check(const gs_gen_params *p, int *d)
{
    gs_status st = check_common("elasticity", p);
    if (st != GS_OK) return st;
    if (p->stencil != 5 && p->stencil != 9 && p->stencil != 7 && p->stencil != 27)
        return GS_ERROR(GS_ERR_ARG,
                        "elasticity: stencil %d: expected 5 or 9 (2D, Q1 quadrilaterals) or 7 or "
                        "27 (3D, Q1 hexahedra): the stencil picks the dimension",
                        p->stencil);
    if (!(p->E > 0.0 && isfinite(p->E)))
        return GS_ERROR(GS_ERR_ARG, "elasticity: E %g: expected a finite Young's modulus > 0",
                        p->E);
    if (!(p->nu > -1.0 && p->nu < 0.5))
        return GS_ERROR(GS_ERR_ARG, "elasticity: nu %g: expected a Poisson ratio in (-1, 0.5)",
                        p->nu);
    *d = p->stencil == 7 || p->stencil == 27 ? 3 : 2;
    return GS_OK;
}

/* G[l][k] = dN_l/dx_k at the Gauss point xi of the reference cube [-1,1]^d, element side h;
 * local node l has corner signs s_lk = 2*bit_k(l) - 1 and N_l = prod_k (1 + s_lk xi_k)/2 */
static void shape_gradients(int d, double h, const double *xi, double G[8][3])
{
    for (int l = 0; l < (1 << d); l++)
        for (int k = 0; k < d; k++) {
            double g = (((l >> k) & 1) ? 1.0 : -1.0) / 2.0;
            for (int m = 0; m < d; m++)
                if (m != k) g *= (1.0 + (((l >> m) & 1) ? xi[m] : -xi[m])) / 2.0;
            G[l][k] = g * (2.0 / h);
        }
}

/* The element stiffness of a Q1 element of side h, unknown (l, a) at l*d + a:
 * K_(la),(mb) = int lambda G_la G_mb + mu (G_lb G_ma + delta_ab G_l . G_m) by the 2^d-point
 * Gauss rule (points +-1/sqrt(3), weights 1, Jacobian (h/2)^d); the lower triangle is copied to
 * the upper one so Ke is symmetric to the last bit. */
static void element_stiffness(int d, double h, double lambda, double mu,
                              double Ke[EL_DOFS][EL_DOFS])
{
    int nn = 1 << d, nd = nn * d;
    double g = 1.0 / sqrt(3.0), detj = 1.0, G[8][3];
    for (int k = 0; k < d; k++) detj *= h / 2.0;
    memset(Ke, 0, sizeof(double) * EL_DOFS * EL_DOFS);
    for (int q = 0; q < nn; q++) {
        double xi[3];
        for (int k = 0; k < d; k++) xi[k] = ((q >> k) & 1) ? g : -g;
        shape_gradients(d, h, xi, G);
        for (int l = 0; l < nn; l++)
            for (int m = 0; m < nn; m++) {
                double dot = 0.0;
                for (int k = 0; k < d; k++) dot += G[l][k] * G[m][k];
                for (int a = 0; a < d; a++)
                    for (int b = 0; b < d; b++) {
                        double v = lambda * (G[l][a] * G[m][b]) +
                                   mu * (G[l][b] * G[m][a] + (a == b ? dot : 0.0));
                        Ke[l * d + a][m * d + b] += detj * v;
                    }
            }
    }
    for (int i = 0; i < nd; i++)
        for (int j = i + 1; j < nd; j++) Ke[i][j] = Ke[j][i];
}

/* The assembled block stencil S[o][a*d+b], offset o = (dx+1) + 3(dy+1) [+ 9(dz+1)] (column
 * order): every element holds the node at local l and its neighbour at local m, offset
 * bits(m) - bits(l), so S[o] sums Ke's (l, m) blocks over those pairs (the duplicates of the
 * elements a node pair shares). The offsets before the centre are the transposes of those
 * after it, which keeps A symmetric to the last bit. */
static void stencil_blocks(int d, double Ke[EL_DOFS][EL_DOFS], double S[27][9])
{
    int nn = 1 << d, no = d == 2 ? 9 : 27, centre = no / 2;
    memset(S, 0, sizeof(double) * 27 * 9);
    for (int l = 0; l < nn; l++)
        for (int m = 0; m < nn; m++) {
            int o = 0;
            for (int k = d - 1; k >= 0; k--) o = 3 * o + ((m >> k) & 1) - ((l >> k) & 1) + 1;
            if (o < centre) continue;
            for (int a = 0; a < d; a++)
                for (int b = 0; b < d; b++) S[o][a * d + b] += Ke[l * d + a][m * d + b];
        }
    for (int o = 0; o < centre; o++)
        for (int a = 0; a < d; a++)
            for (int b = 0; b < d; b++) S[o][a * d + b] = S[no - 1 - o][b * d + a];
}

/* The block stencil of lambda = 1, mu = 0 or of lambda = 0, mu = 1. Entries that are zero in
 * exact arithmetic (couplings between the two elements' contributions that cancel) come out of
 * the quadrature at about 1e-17 of the largest; below 1e-12 of it they are set to zero. */
static void unit_stencil(int d, double h, double lambda, double mu, double S[27][9])
{
    double Ke[EL_DOFS][EL_DOFS], big = 0.0;
    element_stiffness(d, h, lambda, mu, Ke);
    stencil_blocks(d, Ke, S);
    for (int o = 0; o < 27; o++)
        for (int j = 0; j < 9; j++) big = fabs(S[o][j]) > big ? fabs(S[o][j]) : big;
    for (int o = 0; o < 27; o++)
        for (int j = 0; j < 9; j++)
            if (fabs(S[o][j]) <= 1e-12 * big) S[o][j] = 0.0;
}

/* The rows of the nodes of grid line `line` (fixed y, z): per component a, the neighbours in
 * column order (dz, dy, dx ascending), each with its d unknowns; neighbours on the clamped
 * boundary dropped. */
static void elasticity_fill_line(int d, int64_t n, double S[27][9], int64_t line, gs_csr *A)
{
    int64_t y = line % n, z = d == 3 ? line / n : 0;
    int zr = d == 3;
    for (int64_t x = 0; x < n; x++) {
        int64_t node = x + n * line;
        for (int a = 0; a < d; a++) {
            int32_t pos = A->rowptr[node * d + a];
            for (int dz = -zr; dz <= zr; dz++) {
                if (z + dz < 0 || z + dz >= n) continue;
                for (int dy = -1; dy <= 1; dy++) {
                    if (y + dy < 0 || y + dy >= n) continue;
                    for (int dx = -1; dx <= 1; dx++) {
                        if (x + dx < 0 || x + dx >= n) continue;
                        int o = (dx + 1) + 3 * (dy + 1) + 9 * (dz + 1) * zr;
                        int64_t q = node + dx + n * (dy + n * dz);
                        for (int b = 0; b < d; b++) {
                            A->colind[pos] = (int32_t)(q * d + b);
                            A->val[pos++] = S[o][a * d + b];
                        }
                    }
                }
            }
        }
    }
}

/* The rigid-body modes, rows x k column-major: translations e_0 .. e_{d-1}, then the rotations
 * (-y, x) in 2D; (-y, x, 0), (0, -z, y), (z, 0, -x) in 3D, node coordinates (i+1) h. */
static void rigid_body_modes(int d, int64_t n, double h, int64_t rows, double *B)
{
    int64_t nodes = rows / d;
    memset(B, 0, sizeof(double) * (size_t)rows * (d == 2 ? 3 : 6));
#pragma omp parallel for schedule(static)
    for (int64_t node = 0; node < nodes; node++) {
        double X = (double)(node % n + 1) * h, Y = (double)(node / n % n + 1) * h;
        double Z = d == 3 ? (double)(node / (n * n) + 1) * h : 0.0;
        double *r = B + node * d;
        for (int a = 0; a < d; a++) r[a * rows + a] = 1.0;
        r[d * rows + 0] = -Y;
        r[d * rows + 1] = X;
        if (d == 2) continue;
        r[4 * rows + 1] = -Z;
        r[4 * rows + 2] = Y;
        r[5 * rows + 0] = Z;
        r[5 * rows + 2] = -X;
    }
}

gs_status gs_gen_elasticity(const gs_gen_params *p, gs_csr **out, double **B, int *k, int *dim,
                            char *desc, size_t desc_len)
{
    gs_status st = GS_OK;
    gs_csr *A = NULL;
    double *modes = NULL, S[27][9], SL[27][9], SM[27][9];
    int64_t n = p->size;
    int d = 2;
    GS_CHECK(elasticity_check(p, &d));
    snprintf(desc, desc_len, "elasticity %dD Q1%s %lld^%d E %g nu %g", d,
             d == 2 ? " plane strain" : "", (long long)n, d, p->E, p->nu);
    double dn = (double)n, span = 3.0 * dn - 2.0;
    GS_CHECK(check_limits(desc, d * pow(dn, d), (double)(d * d) * pow(span, d)));
    int64_t nodes = d == 2 ? n * n : n * n * n, rows = d * nodes;
    int64_t pattern = (3 * n - 2) * (3 * n - 2) * (d == 3 ? 3 * n - 2 : 1), nnz = d * d * pattern;
    double h = 1.0 / (dn + 1.0), lambda = p->E * p->nu / ((1.0 + p->nu) * (1.0 - 2.0 * p->nu));
    double mu = p->E / (2.0 * (1.0 + p->nu));
    unit_stencil(d, h, 1.0, 0.0, SL);
    unit_stencil(d, h, 0.0, 1.0, SM);
    for (int o = 0; o < 27; o++)
        for (int j = 0; j < 9; j++) S[o][j] = lambda * SL[o][j] + mu * SM[o][j];
    GS_CHECK(gs_csr_create(rows, rows, nnz, &A));
#pragma omp parallel for schedule(static)
    for (int64_t node = 0; node < nodes; node++) {
        int32_t len = axis_span(node % n, n) * axis_span(node / n % n, n) * d;
        if (d == 3) len *= axis_span(node / (n * n), n);
        for (int a = 0; a < d; a++) A->rowptr[node * d + a + 1] = len;
    }
    GS_CHECK(scan_rowptr(A->rowptr, rows, nnz, desc));
#pragma omp parallel for schedule(static)
    for (int64_t line = 0; line < nodes / n; line++) elasticity_fill_line(d, n, S, line, A);
    if (B) {
        GS_CHECK(gs_alloc_array((size_t)rows * (d == 2 ? 3 : 6), sizeof *modes, "rigid-body modes",
                                (void **)&modes));
        rigid_body_modes(d, n, h, rows, modes);
        *B = modes;
        modes = NULL;
        if (k) *k = d == 2 ? 3 : 6;
    }
    if (dim) *dim = d;
    *out = A;
    A = NULL;
done:
    gs_free(modes);
    gs_csr_destroy(&A);
    return st;
}

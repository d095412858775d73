/* gs_gen_pde.c: the generators of the AMG problem classes: jumping coefficients (3D finite
 * volumes), rotated anisotropy (2D Q1 elements) and linear elasticity (2D/3D Q1 elements with
 * the rigid-body modes). Each is a row builder (gs_gen_impl.h): row lengths in closed form and
 * the rows of a range of points in column order, whole on one process or a rank's rows
 * (gs_gen_rows.c). The formulas are documented in gs_gen.h.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gs_gen_impl.h"
#include "gs_mem.h"

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

/* the grid's points per direction n (nx, ny[, nz], each size where unset; gs_gen_grid_dims)
 * and dof = 1, the checks every PDE type shares */
static gs_status check_common(const char *name, const gs_gen_params *p, int dim, int64_t n[3])
{
    gs_status st = gs_gen_grid_dims(name, p, dim, n);
    if (st != GS_OK) return st;
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

/* ------------------------------------------------------------------ jumps */

/* check the jumping-coefficient parameters */
static gs_status jumps_check(const gs_gen_params *p, int64_t n[3])
{
    gs_status st = check_common("jumps", p, 3, n);
    if (st != GS_OK) return st;
    if (!(p->contrast >= 1.0 && p->contrast <= 1e150)) /* contrast^2 stays finite */
        return GS_ERROR(GS_ERR_ARG, "jumps: contrast %g: expected a value in 1..1e150",
                        p->contrast);
    if (p->block < 1)
        return GS_ERROR(GS_ERR_ARG, "jumps: block %lld: expected at least 1 point per cube edge",
                        (long long)p->block);
    return GS_OK;
}

/* The coefficients of the cubes that the rows of points [p0, p1) read: the cube layers of
 * their planes and the planes beside them. Cube after cube (x fastest), one xoshiro256** draw
 * u from the seed picks {1/contrast, 1, contrast}[floor(3u)]: the draws before the first cube
 * kept are made and dropped, so a rank's cubes are the whole grid's. */
static gs_status jumps_prepare(gs_gen_rows *g, int64_t p0, int64_t p1)
{
    gs_status st = GS_OK;
    int64_t nz = g->nz, b = g->cube, plane = g->nx * g->ny;
    int64_t layer = g->ncube[0] * g->ncube[1]; /* cubes of one layer of cubes */
    gs_gen_rng rng;
    gs_free(g->pick);
    gs_free(g->fac);
    g->pick = NULL;
    g->fac = NULL;
    g->cube0 = g->cube1 = 0;
    if (p0 >= p1) return GS_OK;
    int64_t z0 = p0 / plane - 1, z1 = (p1 - 1) / plane + 1;
    if (z0 < 0) z0 = 0;
    if (z1 > nz - 1) z1 = nz - 1;
    g->cube0 = layer * (z0 / b);
    g->cube1 = layer * (z1 / b + 1);
    GS_CHECK(
        gs_alloc_array((size_t)(g->cube1 - g->cube0), 1, "coefficient cubes", (void **)&g->pick));
    gs_gen_rng_seed(&rng, g->seed);
    for (int64_t c = 0; c < g->cube1; c++) {
        uint64_t u = gs_gen_rng_next(&rng);
        if (c < g->cube0) continue;
        int v = (int)(3.0 * gs_gen_unit_double(u));
        g->pick[c - g->cube0] = (unsigned char)(v < 2 ? v : 2);
    }
    if (g->step > 0 && g->drift > 0) { /* a sequence's step: each cube's walk of factors */
        GS_CHECK(gs_alloc_array((size_t)(g->cube1 - g->cube0), sizeof *g->fac,
                                "coefficient drift", (void **)&g->fac));
        for (int64_t c = g->cube0; c < g->cube1; c++) {
            double f = 1.0;
            for (int64_t t = 1; t <= g->step; t++) {
                gs_gen_rng r;
                gs_gen_rng_seed(&r, g->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(c + 1)) ^
                                        (0xbf58476d1ce4e5b9ull * (uint64_t)t));
                f *= 1.0 + g->drift * (2.0 * gs_gen_unit_double(gs_gen_rng_next(&r)) - 1.0);
            }
            g->fac[c - g->cube0] = f;
        }
    }
done:
    return st;
}

/* the coefficient of point (x, y, z): its cube's */
static double jumps_k(const gs_gen_rows *g, int64_t x, int64_t y, int64_t z)
{
    int64_t b = g->cube, c = x / b + g->ncube[0] * (y / b + g->ncube[1] * (z / b)) - g->cube0;
    return g->fac ? g->value[g->pick[c]] * g->fac[c] : g->value[g->pick[c]];
}

/* the value of a face between coefficients ki and kj: their harmonic mean (symmetric in i, j
 * to the last bit: the product and the sum commute exactly) */
static double face(double ki, double kj)
{
    return 2.0 * (ki * kj) / (ki + kj);
}

/* a point's row: its face neighbours inside the grid and itself */
static int64_t jumps_row_len(const gs_gen_rows *g, int64_t line, int64_t x)
{
    return axis_span(x, g->nx) + axis_span(line % g->ny, g->ny) + axis_span(line / g->ny, g->nz) -
           2;
}

/* the rows of points x0..x1-1 of grid line `line` (fixed y, z): neighbours in column order
 * z-1, y-1, x-1, (the diagonal), x+1, y+1, z+1; a face out of the grid adds k_i to the
 * diagonal */
static void jumps_fill(const gs_gen_rows *g, int64_t line, int64_t x0, int64_t x1,
                       const gs_gen_out *o)
{
    int64_t nx = g->nx, ny = g->ny, nz = g->nz, y = line % ny, z = line / ny;
    for (int64_t x = x0; x < x1; x++) {
        int64_t i = x + nx * line;
        const int64_t step[6] = {-nx * ny, -nx, -1, 1, nx, nx * ny};
        const int64_t nb[6][3] = {{x, y, z - 1}, {x, y - 1, z}, {x - 1, y, z},
                                  {x + 1, y, z}, {x, y + 1, z}, {x, y, z + 1}};
        const int inside[6] = {z > 0, y > 0, x > 0, x < nx - 1, y < ny - 1, z < nz - 1};
        double ki = jumps_k(g, x, y, z), diag = 0.0;
        int64_t pos = gs_gen_out_pos(o, i), dpos = -1;
        for (int f = 0; f < 6; f++) {
            if (f == 3) dpos = pos++; /* the diagonal's place, filled below */
            if (!inside[f]) {
                diag += ki;
                continue;
            }
            double w = face(ki, jumps_k(g, nb[f][0], nb[f][1], nb[f][2]));
            gs_gen_out_put(o, pos++, i + step[f], -w);
            diag += w;
        }
        gs_gen_out_put(o, dpos, i, diag);
    }
}

gs_status gs_gen_jumps_rows(const gs_gen_params *p, gs_gen_rows *g, char *desc, size_t desc_len)
{
    gs_status st = GS_OK;
    int64_t n[3];
    char grid[80];
    GS_CHECK(jumps_check(p, n));
    gs_gen_grid_text(n, 3, grid, sizeof grid);
    snprintf(desc, desc_len, "jumps 3D 7-point %s contrast %g block %lld seed %llu", grid,
             p->contrast, (long long)p->block, (unsigned long long)p->seed);
    if (p->step > 0 && p->drift > 0) {
        size_t len = strlen(desc);
        snprintf(desc + len, desc_len - len, " step %lld drift %g", (long long)p->step,
                 p->drift);
    }
    /* every axis neighbour is missing on the two faces across its axis */
    double dx = (double)n[0], dy = (double)n[1], dz = (double)n[2], pts = dx * dy * dz;
    GS_CHECK(check_limits(desc, pts, 7.0 * pts - 2.0 * (dy * dz + dx * dz + dx * dy)));
    g->nx = n[0];
    g->ny = n[1];
    g->nz = n[2];
    g->dim = 3;
    g->block = 1;
    g->rows = n[0] * n[1] * n[2];
    g->nnz = 7 * g->rows - 2 * (n[1] * n[2] + n[0] * n[2] + n[0] * n[1]);
    g->value[0] = 1.0 / p->contrast;
    g->value[1] = 1.0;
    g->value[2] = p->contrast;
    g->cube = p->block;
    for (int d = 0; d < 3; d++) g->ncube[d] = n[d] / p->block + (n[d] % p->block != 0);
    g->seed = p->seed;
    g->step = p->step;
    g->drift = p->drift;
    g->row_len = jumps_row_len;
    g->prepare = jumps_prepare;
    g->fill = jumps_fill;
done:
    return st;
}

/* ------------------------------------------------------------------ rotated anisotropy */

/* check the rotated-anisotropy parameters */
static gs_status rotated_check(const gs_gen_params *p, int64_t n[3])
{
    gs_status st = check_common("rotated", p, 2, n);
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

/* a node's row: its neighbours inside the grid and itself */
static int64_t rotated_row_len(const gs_gen_rows *g, int64_t y, int64_t x)
{
    return axis_span(x, g->nx) * axis_span(y, g->ny);
}

/* the rows of points x0..x1-1 of grid row y: the 3 x 3 stencil (coef[(dy+1)*3 + dx+1]),
 * neighbours on the boundary dropped */
static void rotated_fill(const gs_gen_rows *g, int64_t y, int64_t x0, int64_t x1,
                         const gs_gen_out *o)
{
    int64_t nx = g->nx, ny = g->ny;
    for (int64_t x = x0; x < x1; x++) {
        int64_t pos = gs_gen_out_pos(o, x + nx * y);
        for (int dy = -1; dy <= 1; dy++) {
            if (y + dy < 0 || y + dy >= ny) continue;
            for (int dx = -1; dx <= 1; dx++) {
                if (x + dx < 0 || x + dx >= nx) continue;
                gs_gen_out_put(o, pos++, x + dx + nx * (y + dy), g->coef[(dy + 1) * 3 + dx + 1]);
            }
        }
    }
}

gs_status gs_gen_rotated_rows(const gs_gen_params *p, gs_gen_rows *g, char *desc, size_t desc_len)
{
    gs_status st = GS_OK;
    int64_t n[3];
    char grid[80];
    double s[3][3];
    GS_CHECK(rotated_check(p, n));
    gs_gen_grid_text(n, 2, grid, sizeof grid);
    snprintf(desc, desc_len, "rotated 2D 9-point Q1 %s epsilon %g angle %g", grid, p->epsilon,
             p->angle);
    double dx = (double)n[0], dy = (double)n[1];
    GS_CHECK(check_limits(desc, dx * dy, (3.0 * dx - 2.0) * (3.0 * dy - 2.0)));
    rotated_stencil(p->epsilon, p->angle, s);
    memcpy(g->coef, s, sizeof s);
    g->nx = n[0];
    g->ny = n[1];
    g->nz = 1;
    g->dim = 2;
    g->block = 1;
    g->rows = n[0] * n[1];
    g->nnz = (3 * n[0] - 2) * (3 * n[1] - 2);
    g->row_len = rotated_row_len;
    g->fill = rotated_fill;
done:
    return st;
}

/* ------------------------------------------------------------------ linear elasticity */

#define EL_DOFS 24 /* unknowns of a hexahedron: 8 nodes x 3 */

/* dimension d from the stencil (5, 9: 2; 7, 27: 3) and the other checks */
static gs_status elasticity_check(const gs_gen_params *p, int *d, int64_t n[3])
{
    int two = p->stencil == 5 || p->stencil == 9; /* a stencil not valid is refused below */
    gs_status st = check_common("elasticity", p, two ? 2 : 3, n);
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

/* a node's rows: d unknowns of each neighbour inside the grid and of itself */
static int64_t elasticity_row_len(const gs_gen_rows *g, int64_t line, int64_t x)
{
    int64_t len = axis_span(x, g->nx) * axis_span(line % g->ny, g->ny) * g->dim;
    return g->dim == 3 ? len * axis_span(line / g->ny, g->nz) : len;
}

/* The rows of nodes x0..x1-1 of grid line `line` (fixed y, z): per component a, the
 * neighbours in column order (dz, dy, dx ascending), each with its d unknowns (block o of the
 * stencil at coef + 9 o); neighbours on the clamped boundary dropped. */
static void elasticity_fill(const gs_gen_rows *g, int64_t line, int64_t x0, int64_t x1,
                            const gs_gen_out *o)
{
    int d = g->dim;
    int64_t nx = g->nx, ny = g->ny, nz = g->nz, y = line % ny, z = d == 3 ? line / ny : 0;
    int zr = d == 3;
    for (int64_t x = x0; x < x1; x++) {
        int64_t node = x + nx * line;
        for (int a = 0; a < d; a++) {
            int64_t pos = gs_gen_out_pos(o, node * d + a);
            for (int dz = -zr; dz <= zr; dz++) {
                if (z + dz < 0 || z + dz >= nz) continue;
                for (int dy = -1; dy <= 1; dy++) {
                    if (y + dy < 0 || y + dy >= ny) continue;
                    for (int dx = -1; dx <= 1; dx++) {
                        if (x + dx < 0 || x + dx >= nx) continue;
                        int oo = (dx + 1) + 3 * (dy + 1) + 9 * (dz + 1) * zr;
                        int64_t q = node + dx + nx * (dy + ny * dz);
                        for (int b = 0; b < d; b++)
                            gs_gen_out_put(o, pos++, q * d + b, g->coef[oo * 9 + a * d + b]);
                    }
                }
            }
        }
    }
}

/* Rows [r0, r1) of the rigid-body modes, column j at B + j*ld: translations e_0 .. e_{d-1},
 * then the rotations (-y, x) in 2D; (-y, x, 0), (0, -z, y), (z, 0, -x) in 3D, node
 * coordinates (i+1) h. */
static void elasticity_modes(const gs_gen_rows *g, int64_t r0, int64_t r1, double *B, int64_t ld)
{
    int d = g->dim;
    int64_t nx = g->nx, ny = g->ny;
    double h = g->h;
    for (int j = 0; j < g->nullspace_k; j++)
        memset(B + j * ld, 0, sizeof(double) * (size_t)(r1 - r0));
#pragma omp parallel for schedule(static)
    for (int64_t node = r0 / d; node < r1 / d; node++) {
        double X = (double)(node % nx + 1) * h, Y = (double)(node / nx % ny + 1) * h;
        double Z = d == 3 ? (double)(node / (nx * ny) + 1) * h : 0.0;
        double *r = B + (node * d - r0);
        for (int a = 0; a < d; a++) r[a * ld + a] = 1.0;
        r[d * ld + 0] = -Y;
        r[d * ld + 1] = X;
        if (d == 2) continue;
        r[4 * ld + 1] = -Z;
        r[4 * ld + 2] = Y;
        r[5 * ld + 0] = Z;
        r[5 * ld + 2] = -X;
    }
}

gs_status gs_gen_elasticity_rows(const gs_gen_params *p, gs_gen_rows *g, char *desc,
                                 size_t desc_len)
{
    gs_status st = GS_OK;
    double SL[27][9], SM[27][9];
    int64_t n[3];
    int d = 2;
    char grid[80];
    GS_CHECK(elasticity_check(p, &d, n));
    gs_gen_grid_text(n, d, grid, sizeof grid);
    snprintf(desc, desc_len, "elasticity %dD Q1%s %s E %g nu %g", d, d == 2 ? " plane strain" : "",
             grid, p->E, p->nu);
    double dnodes = 1.0, dpattern = 1.0;
    for (int k = 0; k < d; k++) dnodes *= (double)n[k], dpattern *= 3.0 * (double)n[k] - 2.0;
    GS_CHECK(check_limits(desc, d * dnodes, (double)(d * d) * dpattern));
    int64_t nodes = n[0] * n[1] * n[2]; /* nz = 1 in 2D */
    int64_t pattern = (3 * n[0] - 2) * (3 * n[1] - 2) * (d == 3 ? 3 * n[2] - 2 : 1);
    /* square (cubic) elements of side h, the longest side of the box of unit length */
    double dn = (double)gs_gen_grid_max(n, d);
    double h = 1.0 / (dn + 1.0), lambda = p->E * p->nu / ((1.0 + p->nu) * (1.0 - 2.0 * p->nu));
    double mu = p->E / (2.0 * (1.0 + p->nu));
    unit_stencil(d, h, 1.0, 0.0, SL);
    unit_stencil(d, h, 0.0, 1.0, SM);
    for (int o = 0; o < 27; o++)
        for (int j = 0; j < 9; j++) g->coef[o * 9 + j] = lambda * SL[o][j] + mu * SM[o][j];
    g->nx = n[0];
    g->ny = n[1];
    g->nz = n[2];
    g->dim = d;
    g->block = d;
    g->rows = d * nodes;
    g->nnz = d * d * pattern;
    g->h = h;
    g->nullspace_k = d == 2 ? 3 : 6;
    g->row_len = elasticity_row_len;
    g->fill = elasticity_fill;
    g->nullspace = elasticity_modes;
done:
    return st;
}

/* gs_gen.h: problem generators, deterministic from a seed.
 *
 * Types:
 *  - "poisson":     2D 5/9-point or 3D 7/27-point Laplacian on a size^d grid (Dirichlet),
 *                   optionally with dof unknowns per point (block structure: A = L (x) B with
 *                   B_ij = 0.5^|i-j|, SPD), the CDS case;
 *  - "anisotropic": the same with the coupling in the first direction scaled by epsilon;
 *  - "convdiff":    -Laplace(u) + velocity * (1,1[,1]) . grad(u), first-order upwind,
 *                   nonsymmetric M-matrix (5/9-point 2D, 7/27-point 3D);
 *  - "powerlaw":    weighted Laplacian of a Chung-Lu random graph with power-law degrees
 *                   (size nodes, mean degree `degree`, exponent `exponent`) plus the identity,
 *                   SPD with high row-length variance, the SURAA case;
 *  - "jumps":       3D diffusion -div(k grad u) with a coefficient k that jumps between cubes of
 *                   `block` points by up to `contrast`^2 (7-point finite volumes, size^3
 *                   points), SPD, the AMG case of discontinuous coefficients;
 *  - "rotated":     2D rotated anisotropic diffusion, bilinear (Q1) finite elements on size^2
 *                   interior nodes, 9-point, SPD, the AMG case of anisotropy off the grid axes;
 *  - "elasticity":  linear elasticity, Q1 quadrilaterals (2D, plane strain) or hexahedra (3D),
 *                   size^d interior nodes, d unknowns per node, SPD, with its rigid-body modes
 *                   as the near-nullspace (gs_gen_problem), the AMG case of block systems.
 *
 * Grid extents: every grid type (poisson, anisotropic, convdiff, jumps, rotated, elasticity)
 * has nx x ny (2D) or nx x ny x nz (3D) points (rotated, elasticity: interior nodes), each of
 * nx, ny, nz the size where 0 (unset); nz set on a 2D grid, or any of them on powerlaw, is an
 * error. Point (x, y, z) is x + nx*(y + ny*z). Below, n and size^d stand for them; with all
 * three unset (or equal) the grid is size^d and the matrix the same to the bit. A grid whose
 * extents differ is described as "NXxNY[xNZ]" (as "poisson 3D 7-point 256x256x512"), a cubic
 * one as "n^d". The axis stencils have (2d+1) N - 2 (sum over the axes of N / n_axis)
 * nonzeros, N = nx ny [nz]; the full ones and elasticity's patterns the product of
 * (3 n_axis - 2).
 *
 * Grid matrices (unknowns lexicographic, x fastest; with dof: index = point*dof + component):
 *  - poisson: 5/7-point diagonal 4/6, axis neighbours -1; 9/27-point diagonal 8/26, all
 *    neighbours -1. Boundary rows keep the full diagonal (Dirichlet), so they sum to > 0.
 *  - anisotropic: a neighbour at offset o couples by minus the mean of the per-axis weights
 *    (epsilon along x, 1 along y and z) over the axes o moves along: x -> epsilon, xy ->
 *    (epsilon+1)/2, xyz -> (epsilon+2)/3. The diagonal is the sum of |couplings| of the full
 *    stencil (symmetric, weakly diagonally dominant M-matrix, SPD); epsilon = 1 is poisson.
 *  - convdiff: the poisson stencil scaled by h^2 (integer diffusion part), plus per axis the
 *    upwind term |velocity|*h on the diagonal and -|velocity|*h on the upwind neighbour
 *    (-e_k for velocity > 0, +e_k for velocity < 0), h = 1/(size+1); on a grid whose extents
 *    differ h = 1/(max(nx, ny[, nz]) + 1) (square cells, the longest side of unit length).
 *    Rows sum to 0 inside.
 *  - powerlaw: w_i ~ (i+1)^(-1/(exponent-1)) scaled to mean `degree`, capped at
 *    min(sqrt(sum w), size-1); round(size*degree/2) endpoint pairs drawn (xoshiro256** from
 *    `seed`) with probability ~ w; self loops dropped, multi-edges summed; A = D - W + I.
 *
 * The PDE types (io/gs_gen_pde.c) take dof = 1; their own keys are listed with each.
 *  - jumps (contrast >= 1, block >= 1, seed; stencil ignored: always 3D 7-point): point
 *    x + nx*(y + ny*z). The grid is cut into cubes of block^3 points (the last ones per
 *    direction partial; ceil(n_axis / block) of them along each axis), numbered x fastest;
 *    cube after cube, one xoshiro256** draw u (53-bit, in [0,1)) from `seed` picks
 *    k = {1/contrast, 1, contrast}[floor(3u)] for all its points. Faces between neighbours
 *    i, j carry the harmonic mean 2 k_i k_j / (k_i + k_j): A_ij = minus that; a face to
 *    outside the grid (Dirichlet) carries k_i; A_ii = sum of the six face values;
 *    7 N - 2 (ny nz + nx nz + nx ny) nonzeros (7 size^3 - 6 size^2 on a cube). h^2 is not
 *    applied (it would scale every entry alike).
 *  - rotated (epsilon > 0, angle in degrees; stencil ignored: always 2D 9-point): interior
 *    node x + nx*y of a grid of (nx+1) x (ny+1) square Q1 elements (h cancels in 2D), boundary
 *    nodes eliminated (Dirichlet). K = R(angle) diag(1, epsilon) R(angle)^T, so with
 *    c = cos(angle), s = sin(angle): a = K_xx = c^2 + epsilon s^2, b = K_xy = (1-epsilon) c s,
 *    d = K_yy = s^2 + epsilon c^2. The assembled stencil, (dx, dy) offsets:
 *        (0,0) 4(a+d)/3;  (+-1,0) (d-2a)/3;  (0,+-1) (a-2d)/3;
 *        (1,1), (-1,-1) -(a+d)/6 - b/2;  (1,-1), (-1,1) -(a+d)/6 + b/2,
 *    neighbours on the boundary dropped. It is PyAMG's diffusion_stencil_2d(epsilon,
 *    angle, 'FE') read with its first axis as x (sten[dx+1][dy+1]); pyamg's stencil_grid numbers
 *    that axis slowest, so its matrix is this one with x and y swapped. angle 0, epsilon 1:
 *    the Q1 Laplacian, 8/3 and -1/3.
 *  - elasticity (E > 0, -1 < nu < 0.5; stencil 5 or 9: 2D, 7 or 27: 3D, the stencil only picks
 *    the dimension d): the unit square or cube cut into (size+1)^d Q1 elements of side
 *    h = 1/(size+1) (extents that differ: (nx+1) x (ny+1) [x (nz+1)] elements of side
 *    h = 1/(max n_axis + 1)); the size^d interior nodes at (i h, j h[, l h]), i = 1..nx,
 *    j = 1..ny, l = 1..nz, carry d unknowns, index = node*d + component, node lexicographic
 *    x fastest; every boundary node is clamped (eliminated). Lame
 *    lambda = E nu / ((1+nu)(1-2 nu)), mu = E / (2(1+nu)) (plane strain in 2D); element
 *    stiffness K_(la),(mb) = int lambda dN_l/dx_a dN_m/dx_b +
 *    mu (dN_l/dx_b dN_m/dx_a + delta_ab grad N_l . grad N_m) (= B^T D B) by 2x2 (2x2x2) Gauss
 *    points +-1/sqrt(3) (exact for Q1), summed over the elements each node pair shares: every
 *    node couples to its 3^d neighbours in full d x d blocks, d^2 prod (3 n_axis - 2) nonzeros
 *    (entries zero in exact arithmetic are stored as 0, not as quadrature roundoff). 2D
 *    entries do not depend on h; 3D ones scale with h. Near-nullspace, node coordinates as
 *    above: 2D (1,0), (0,1), (-y,x); 3D (1,0,0), (0,1,0), (0,0,1), (-y,x,0), (0,-z,y),
 *    (z,0,-x).
 */
#ifndef GS_GEN_H
#define GS_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "gs_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_gen_params {
    const char *type;   /* see above */
    int64_t size;       /* grid points (elasticity, rotated: interior nodes) per direction, or
                         * nodes for "powerlaw" */
    int64_t nx, ny, nz; /* grid points along x, y, z where > 0 (0: size); nz only for 3D grids;
                         * not for "powerlaw" (must be 0) */
    int stencil;        /* 5, 9 (2D), 7, 27 (3D); elasticity: the dimension only */
    int dof;            /* unknowns per grid point, >= 1 (poisson, anisotropic, convdiff) */
    uint64_t seed;
    double epsilon;  /* anisotropy strength for "anisotropic" and "rotated" */
    double velocity; /* convection strength for "convdiff" */
    double degree;   /* mean degree for "powerlaw" */
    double exponent; /* power-law exponent (> 2) for "powerlaw" */
    double contrast; /* "jumps": coefficients 1/contrast, 1, contrast (>= 1) */
    int64_t block;   /* "jumps": points per cube edge (>= 1) */
    double angle;    /* "rotated": direction of the strong diffusion, degrees from x */
    double E, nu;    /* "elasticity": Young's modulus (> 0), Poisson ratio (-1 < nu < 0.5) */
    int64_t step;    /* "jumps": the step of a sequence (problem.steps): each cube's coefficient
                      * times prod_{t=1..step} (1 + drift (2 u_t - 1)), u_t a draw of the cube
                      * and t from the seed; 0: the coefficients as drawn */
    double drift;
} gs_gen_params;

/* A generator's rows built in ranges (gs_gen_rows_open). */
typedef struct gs_gen_rows gs_gen_rows;

/* A generator as registered (gs_gen.c holds the one table, in the order problem.generate.type
 * lists them). */
typedef struct gs_gen_desc {
    const char *name; /* the value of problem.generate.type */
    const char *help; /* one line for --help-config */
    int stencil;      /* 1: takes problem.generate.stencil (5, 9, 7, 27); 0: ignores it */
    /* *A, its description (desc, len > 0) and unknowns per grid point (*block_size); the
     * near-nullspace (*nullspace, *k) where the type has one and nullspace is not NULL */
    gs_status (*build)(const gs_gen_params *p, gs_csr **A, double **nullspace, int *k,
                       int *block_size, char *desc, size_t desc_len);
    /* the row builder's setup (gs_gen_impl.h) of a type whose rows are independent of each
     * other, so that each MPI rank can build its own; NULL: only whole (powerlaw) */
    gs_status (*rows)(const gs_gen_params *p, gs_gen_rows *g, char *desc, size_t desc_len);
} gs_gen_desc;

/* The i-th registered generator (NULL past the end); the one named name (NULL: none); "a|b|c"
 * of their names (the config's choices of problem.generate.type). */
const gs_gen_desc *gs_gen_at(int i);
const gs_gen_desc *gs_gen_find(const char *name);
const char *gs_gen_choices(void);

/* Build the matrix; desc receives a short description such as "poisson 3D 7-point 64^3".
 * nullspace (may be NULL): the near-nullspace that comes with the type, host memory of
 * rows x *k doubles column-major (gs_free it), or NULL with *k = 0 when the type has none
 * (only elasticity has one). block_size (may be NULL): unknowns per grid point (dof for the
 * grid types, d for elasticity, 1 otherwise). On failure *A and *nullspace are NULL. */
gs_status gs_gen_problem(const gs_gen_params *p, gs_csr **A, double **nullspace, int *k,
                         int *block_size, char *desc, size_t desc_len);

/* gs_gen_problem without the near-nullspace and the block size. */
gs_status gs_gen_matrix(const gs_gen_params *p, gs_csr **A, char *desc, size_t desc_len);

/* x[i] uniform in [-1, 1), deterministic from seed (a splitmix64 stream). */
void gs_gen_random_vector(uint64_t seed, double *x, int64_t n);
/* entries [i0, i0 + n) of that vector: x[i] = entry i0 + i (a rank's slice) */
void gs_gen_random_slice(uint64_t seed, double *x, int64_t i0, int64_t n);

/* ---- rows built apart: a rank's rows of a generated matrix, the same entries as the whole
 * matrix's rows (the same routine fills both) ---- */

/* The row builder of p's type, parameters checked and desc written as gs_gen_problem does;
 * *g = NULL (GS_OK) when the type's rows cannot be built apart (powerlaw: its edges are drawn
 * from one stream over the whole graph). */
gs_status gs_gen_rows_open(const gs_gen_params *p, gs_gen_rows **g, char *desc, size_t desc_len);
void gs_gen_rows_close(gs_gen_rows **g);
/* the whole matrix's rows and nonzeros, rows per grid point, near-nullspace vectors (each may
 * be NULL) */
void gs_gen_rows_info(const gs_gen_rows *g, int64_t *rows, int64_t *nnz, int *block, int *k);
/* the nonzeros of rows [0, r) */
int64_t gs_gen_rows_prefix(const gs_gen_rows *g, int64_t r);
/* start[0..nranks]: the partition gs_part_balanced makes of the whole matrix's row pointers
 * (rows balanced by nonzeros + rows, boundaries multiples of block), from the row lengths in
 * closed form, without the row pointers */
void gs_gen_rows_partition(const gs_gen_rows *g, int nranks, int block, int64_t *start);
/* rows [r0, r1) (multiples of the block): rowptr (r1 - r0 + 1 offsets from 0), col (global,
 * each row ascending) and val, sized by gs_gen_rows_prefix */
gs_status gs_gen_rows_build(gs_gen_rows *g, int64_t r0, int64_t r1, int64_t *rowptr, int64_t *col,
                            double *val);
/* rows [r0, r1) of the near-nullspace (k columns, column j at B + j*ld) */
void gs_gen_rows_nullspace(const gs_gen_rows *g, int64_t r0, int64_t r1, double *B, int64_t ld);

#ifdef __cplusplus
}
#endif
#endif

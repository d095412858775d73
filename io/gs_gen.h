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
 *                   SPD with high row-length variance, the SURAA case.
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
 *    (-e_k for velocity > 0, +e_k for velocity < 0), h = 1/(size+1). Rows sum to 0 inside.
 *  - powerlaw: w_i ~ (i+1)^(-1/(exponent-1)) scaled to mean `degree`, capped at
 *    min(sqrt(sum w), size-1); round(size*degree/2) endpoint pairs drawn (xoshiro256** from
 *    `seed`) with probability ~ w; self loops dropped, multi-edges summed; A = D - W + I.
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
    const char *type; /* see above */
    int64_t size;     /* grid points per direction, or nodes for "powerlaw" */
    int stencil;      /* 5, 9 (2D), 7, 27 (3D) */
    int dof;          /* unknowns per grid point, >= 1 */
    uint64_t seed;
    double epsilon;  /* anisotropy strength for "anisotropic" */
    double velocity; /* convection strength for "convdiff" */
    double degree;   /* mean degree for "powerlaw" */
    double exponent; /* power-law exponent (> 2) for "powerlaw" */
} gs_gen_params;

/* Build the matrix; desc receives a short description such as "poisson 3D 7-point 64^3". */
gs_status gs_gen_matrix(const gs_gen_params *p, gs_csr **A, char *desc, size_t desc_len);

/* x[i] uniform in [-1, 1), deterministic from seed (a splitmix64 stream). */
void gs_gen_random_vector(uint64_t seed, double *x, int64_t n);

#ifdef __cplusplus
}
#endif
#endif

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

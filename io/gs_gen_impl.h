/* gs_gen_impl.h: what the generator files share (private to io/gs_gen.c and io/gs_gen_pde.c):
 * the xoshiro256** stream and the PDE builders that gs_gen_problem dispatches to. */
#ifndef GS_GEN_IMPL_H
#define GS_GEN_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "gs_gen.h"

/* xoshiro256** state, seeded by splitmix64 from a 64-bit seed (never all zero) */
typedef struct gs_gen_rng {
    uint64_t s[4];
} gs_gen_rng;

void gs_gen_rng_seed(gs_gen_rng *r, uint64_t seed);
uint64_t gs_gen_rng_next(gs_gen_rng *r);

/* the top 53 bits of x as a double in [0, 1) */
double gs_gen_unit_double(uint64_t x);

/* a*b for a, b >= 0, saturating at INT64_MAX */
int64_t gs_gen_mul_sat(int64_t a, int64_t b);

/* The builders of gs_gen_pde.c. Each checks its parameters, writes its description into desc
 * (desc_len > 0), refuses sizes beyond the 32-bit index limit, then builds *A. */
gs_status gs_gen_jumps(const gs_gen_params *p, gs_csr **A, char *desc, size_t desc_len);
gs_status gs_gen_rotated(const gs_gen_params *p, gs_csr **A, char *desc, size_t desc_len);
/* elasticity: also the rigid-body modes (*B, rows x *k column-major, when B is not NULL) and
 * the unknowns per node (*dim) */
gs_status gs_gen_elasticity(const gs_gen_params *p, gs_csr **A, double **B, int *k, int *dim,
                            char *desc, size_t desc_len);

#endif

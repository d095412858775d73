/* gs_problem_dist.h: a problem split across MPI ranks: every rank's contiguous block of rows
 * (balanced by nonzeros, boundaries on whole grid points of block_size unknowns), its parts of
 * b, x0, the exact solution and the near-nullspace.
 *
 * How the rows get there: a generator whose rows are independent (poisson, anisotropic,
 * convdiff, jumps, rotated, elasticity) builds each rank's rows on that rank, the partition
 * computed from its row lengths in closed form (the one gs_part_balanced makes of the whole
 * matrix); the csr layout of an HDF5 group is read by every rank for its own rows (hyperslabs;
 * rank 0 reads the row pointers for the partition), with b, x0 and x beside it. Everything
 * else (Matrix Market, .npy, dense datasets, CSC and MATLAB files, powerlaw) is read or
 * generated once on rank 0 and scattered. Vectors from files the configuration names
 * (problem.rhs, problem.x0, problem.nullspace) are read on rank 0 and scattered. The rows,
 * vectors and checks are the same, to the bit, on any number of ranks.
 */
#ifndef GS_PROBLEM_DIST_H
#define GS_PROBLEM_DIST_H

#include "gs_dist.h"
#include "gs_problem.h"
#include "gs_system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The configured problem across the ranks: every rank receives its rows in *d; rank 0 receives
 * in *p the problem's description (name, matrix, source, rhs, x0_desc, read_s, block_size, ...;
 * the other ranks NULL). p->A may be NULL (the matrix was never whole on one rank: a generator
 * built every rank's rows, or every rank read its own rows of an HDF5 file); when it is not, it
 * is the whole matrix (read once on rank 0 and scattered). Collective; a failure on any rank is
 * every rank's (gs_comm_agree). */
gs_status gs_problem_load_dist(const gs_config *c, gs_problem **p, gs_dproblem **d);

/* Split p (rank 0's whole problem; NULL on the other ranks) across the ranks. Collective. */
gs_status gs_problem_scatter(const gs_problem *p, gs_dproblem **out);
void gs_dproblem_destroy(gs_dproblem **d);


#ifdef __cplusplus
}
#endif
#endif

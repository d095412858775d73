/* gs_jacobi.h: the Jacobi (diagonal) preconditioner z = D^-1 r. */
#ifndef GS_JACOBI_H
#define GS_JACOBI_H

#include "gs_csr.h"
#include "gs_krylov.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_jacobi gs_jacobi;

/* Build D^-1 from host matrix A, stored on loc. A zero (or missing) diagonal entry is bad
 * input: "WHERE: row 17 has a zero diagonal entry; Jacobi needs a nonzero diagonal"
 * (1-based row), GS_ERR_INPUT. `where` names the matrix for messages. */
gs_status gs_jacobi_create(const gs_csr *A, gs_loc loc, const char *where, gs_jacobi **out);
/* The same for the rows of A that start at row row0 of a larger matrix (a rank's diagonal block
 * under MPI): messages name rows of the whole matrix. */
gs_status gs_jacobi_create_at(const gs_csr *A, int64_t row0, gs_loc loc, const char *where,
                              gs_jacobi **out);
void gs_jacobi_destroy(gs_jacobi **J);

/* The preconditioner as an operator (borrows J). */
gs_linop gs_jacobi_linop(gs_jacobi *J);

#ifdef __cplusplus
}
#endif
#endif

/* gs_problem.h: the system to solve, on the host: A from a file or a generator, and b, x0
 * (and an exact solution, when the file has one) as the configuration asks. */
#ifndef GS_PROBLEM_H
#define GS_PROBLEM_H

#include "gs_config.h"
#include "gs_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_problem {
    gs_csr *A;
    double *b;               /* rows */
    double *x0;              /* cols */
    double *x_exact;         /* cols, or NULL */
    char name[256];          /* case name */
    char matrix[GS_CFG_STR]; /* file path or generator description */
    char source[GS_CFG_STR]; /* the path used in messages ("" for generated) */
    char field[16], symmetry[24], layout[32];
    char rhs[64], x0_desc[64]; /* where b and x0 came from */
    double read_s;             /* time to read or generate */
    /* the generator's near-nullspace (elasticity: rigid-body modes), rows x nullspace_k
     * column-major on the host, or NULL; block_size: unknowns per grid point, the generator's
     * (dof, elasticity's dimension), 1 for a matrix file */
    double *nullspace;
    int nullspace_k;
    int block_size;
} gs_problem;

/* Read a matrix file, Matrix Market (.gz too) or HDF5 (told apart by the HDF5 signature);
 * field/symmetry/layout (each may be NULL) describe what was read. */
gs_status gs_matrix_read(const char *path, const char *group, gs_csr **A, char field[16],
                         char symmetry[24], char layout[32]);

/* Build the problem the configuration describes. */
gs_status gs_problem_load(const gs_config *c, gs_problem **out);
void gs_problem_destroy(gs_problem **p);

#ifdef __cplusplus
}
#endif
#endif

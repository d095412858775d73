/* gs_problem.h: the system to solve, on the host: A from a file or a generator, and b, x0
 * (and an exact solution, when the file has one) as the configuration asks. */
#ifndef GS_PROBLEM_H
#define GS_PROBLEM_H

#include <stddef.h>

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
    char group[256];           /* HDF5: the group the matrix was read from ("" otherwise) */
    double read_s;             /* time to read or generate */
    /* the near-nullspace, rows x nullspace_k column-major on the host, or NULL: the file
     * problem.nullspace names, else the generator's (elasticity: rigid-body modes);
     * block_size: unknowns per grid point, the generator's (dof, elasticity's dimension), 1
     * for a matrix file */
    double *nullspace;
    int nullspace_k;
    int block_size;
} gs_problem;

/* Read a matrix file, Matrix Market (.gz too) or HDF5 (told apart by the HDF5 signature);
 * "FILE.h5:/NAME" names a group of the file (its sparse matrix) or a dataset (a dense
 * matrix, MATLAB's shown as MATLAB shows it), and a NumPy .npy file is a dense matrix (dense
 * matrices keep their nonzeros, as the Matrix Market array format); field/symmetry/layout
 * (each may be NULL) describe what was read ("hdf5 csr", "hdf5 dataset", "npy", ...). */
gs_status gs_matrix_read(const char *path, const char *group, gs_csr **A, char field[16],
                         char symmetry[24], char layout[32]);

/* Read 1..max_k vectors of n entries from spec, a file named in the configuration (relative
 * to its folder): "FILE.h5:/NAME" (an HDF5 dataset, a MATLAB v7.3 variable too: MATLAB's n x k
 * array), "FILE.npy" (NumPy, float64, C or Fortran order) or a Matrix Market file. A 2-D
 * array holds the vectors as its columns (n x k) or as its rows (k x n); 1-D is one vector.
 * *out is n x *k, column-major, gs_malloc'ed; what names the key in messages
 * ("problem.rhs"); desc (may be NULL) gets a short note of where the vectors came from. */
gs_status gs_problem_read_vectors(const gs_config *c, const char *spec, const char *what,
                                  int64_t n, int max_k, double **out, int *k, char *desc,
                                  size_t desc_len);

/* Build the problem the configuration describes. */
gs_status gs_problem_load(const gs_config *c, gs_problem **out);
void gs_problem_destroy(gs_problem **p);

#ifdef __cplusplus
}
#endif
#endif

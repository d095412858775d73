/* gs_problem.h: the system to solve, on the host: A from a file or a generator, and b, x0
 * (and an exact solution, when the file has one) as the configuration asks. */
#ifndef GS_PROBLEM_H
#define GS_PROBLEM_H

#include <stddef.h>

#include "gs_config.h"
#include "gs_csr.h"
#include "gs_gen.h"
#include "gs_system.h"

#ifdef __cplusplus
extern "C" {
#endif

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
#define GS_PROBLEM_RHS_MAX 4096 /* columns problem.rhs may hold */

gs_status gs_problem_read_vectors(const gs_config *c, const char *spec, const char *what, int64_t n,
                                  int max_k, double **out, int *k, char *desc, size_t desc_len);

/* The size of the matrix this process is about to hold (its rows and entries), told as soon as
 * a reader or generator knows it, before it builds or reads the entries: the run can start what
 * it can do meanwhile (gsolve grows the device's memory pool ahead of the setup,
 * gs_backend_pool_prepare). The hook is the process's (NULL, the default: nothing);
 * gs_problem_set_sized_hook returns the one before. The readers call gs_problem_sized; it may
 * come more than once for one matrix (a late one, after the whole read, too). */
typedef void (*gs_problem_sized_fn)(int64_t rows, int64_t nnz);
gs_problem_sized_fn gs_problem_set_sized_hook(gs_problem_sized_fn fn);
void gs_problem_sized(int64_t rows, int64_t nnz);

/* Build the problem the configuration describes. */
gs_status gs_problem_load(const gs_config *c, gs_problem **out);
void gs_problem_destroy(gs_problem **p);

/* ---- what gs_problem_load and the loader by ranks (gs_problem_dist.c) share ---- */

/* the generator parameters of the problem.generate keys */
void gs_problem_gen_params(const gs_config *c, gs_gen_params *g);
/* p->matrix holds the generator's description: name (its words joined by '-'), field,
 * symmetry, layout of a generated problem */
void gs_problem_describe_generated(gs_problem *p);
/* the matrix, source, group, name and block size of a matrix read from file (its group, ""
 * when not HDF5) as problem.matrix and problem.group name it */
void gs_problem_describe_file(const gs_config *c, gs_problem *p, const char *file,
                              const char *group);
/* *yes = 1 when problem.matrix would be read as the sparse matrix of an HDF5 group: file and
 * group (as given: problem.group or "FILE:/NAME", "" when the file's one matrix is to be
 * found); 0 for anything else, including what gs_problem_load would refuse (it says why) */
gs_status gs_problem_h5_source(const gs_config *c, char *file, size_t flen, char *group,
                               size_t glen, int *yes);
/* the error of a matrix entry (i, j) (from 0) that is not finite, naming src */
gs_status gs_problem_bad_entry(const char *src, int64_t i, int64_t j, double v);
/* an error when v[0..n) (rows row0.. of the vector `what`, from desc) holds NaN or Inf; v may
 * be NULL (nothing to check) */
gs_status gs_problem_check_vector(const char *src, const char *what, const char *desc, int64_t row0,
                                  int64_t n, const double *v);

#ifdef __cplusplus
}
#endif
#endif

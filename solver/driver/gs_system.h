/* gs_system.h: the system a solve takes, on the host: A, b, x0 (an exact solution, a
 * near-nullspace) and how they are described in the records. The application's readers and
 * generators make one (io/gs_problem.h); gsolve_set_matrix_csr fills one from the caller's
 * arrays. gs_dproblem is one rank's rows of a system split across MPI ranks. */
#ifndef GS_SYSTEM_H
#define GS_SYSTEM_H

#include <stdint.h>

#include "gs_csr.h"
#include "gs_dist.h"
#include "gs_keys.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_problem {
    gs_csr *A;               /* on the host, or NULL when A_dev holds the matrix */
    gs_csr *A_dev;           /* the matrix in device memory as the caller gave it, or NULL */
    double *b;               /* rows x nrhs, the columns one after another */
    int nrhs;                /* right-hand sides: the columns of problem.rhs (0 is read as 1) */
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

typedef struct gs_dproblem {
    gs_part *part;     /* the rows of every rank */
    gs_gcsr *A;        /* this rank's rows, global columns */
    /* the same rows in compact columns (gs_dist.h: own, then the halo's in ascending global
     * order; host memory, page-locked when a device backend runs), made as the rows are read,
     * as a ParCSR assembly makes its diagonal and off-diagonal parts: the set-up uploads these
     * 32-bit columns; halo: the nhalo halo columns' global numbers */
    gs_csr *C;
    int64_t *halo;
    int32_t nhalo;
    double *b, *x0;    /* this rank's rows */
    double *x_exact;   /* this rank's rows of the exact solution, or NULL */
    double *nullspace; /* this rank's rows x nullspace_k, column-major, or NULL */
    int nullspace_k, block_size;
    int64_t rows, nnz; /* of the whole matrix */
} gs_dproblem;

/* The whole vector on rank 0 (x: this rank's part of d->part's rows; all: rows values on rank 0,
 * not read elsewhere). Collective. */
gs_status gs_dproblem_gather(const gs_dproblem *d, const double *x, double *all);

#ifdef __cplusplus
}
#endif
#endif

/* gs_gen_impl.h: what the generator files share (private to io/gs_gen.c, io/gs_gen_pde.c and
 * io/gs_gen_rows.c): the xoshiro256** stream, the PDE builders that gs_gen_problem dispatches
 * to, and the row builder (gs_gen_rows) through which every type whose rows are independent of
 * each other is built, whole on one process or a range of rows on each MPI rank. */
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

/* The grid's points per direction of a grid type of dimension dim (2 or 3): n[k] = nx, ny, nz
 * where set (nonzero), else size; n[2] = 1 in 2D. An error naming `name` when one is below 1
 * (negative, or size below 1 where it stands in), or when nz is set for a 2D grid. */
gs_status gs_gen_grid_dims(const char *name, const gs_gen_params *p, int dim, int64_t n[3]);

/* 1 when the dim extents are all equal (nx, ny, nz unset, or set to one value): "n^d" */
int gs_gen_grid_cubic(const int64_t n[3], int dim);

/* "n^d" for a cubic grid, else "nx x ny[ x nz]" (as "64x32x16"), into buf */
void gs_gen_grid_text(const int64_t n[3], int dim, char *buf, size_t len);

/* the largest of the dim extents */
int64_t gs_gen_grid_max(const int64_t n[3], int dim);

/* ---- the row builder ---------------------------------------------------------------------
 * A grid type is nx x ny [x nz] points, lexicographic x fastest (point = x + nx*(y + ny*z)),
 * `block` rows per point (index = point*block + component), grouped into lines of nx points
 * (fixed y, z): line = y + ny*z. The rows of a point all have the same length; every stencil
 * reaches one point along x, so the points 1..nx-2 of a line have rows of one length (what the
 * partition's sums rely on). */

/* Where rows [r0, r1) go: the offsets of those rows (rp32 or rp64, indexed r - r0, filled by
 * the builder from the lengths) and their columns (col32: one process's CSR; col64: a rank's
 * rows with global columns) and values at those offsets. */
typedef struct gs_gen_out {
    int64_t r0;
    int32_t *rp32, *col32;
    int64_t *rp64, *col64;
    double *val;
} gs_gen_out;

/* the offset of row r's first entry */
static inline int64_t gs_gen_out_pos(const gs_gen_out *o, int64_t r)
{
    return o->rp64 ? o->rp64[r - o->r0] : o->rp32[r - o->r0];
}

/* entry pos = (col, v) */
static inline void gs_gen_out_put(const gs_gen_out *o, int64_t pos, int64_t col, double v)
{
    if (o->col64)
        o->col64[pos] = col;
    else
        o->col32[pos] = (int32_t)col;
    o->val[pos] = v;
}

struct gs_gen_rows {
    int64_t nx, ny, nz; /* points per direction (nz = 1 in 2D) */
    int dim;            /* 2 or 3: ny (2D) or ny*nz (3D) lines of nx points */
    int block;          /* rows per point */
    int64_t rows, nnz;  /* of the whole matrix */
    int nullspace_k;    /* near-nullspace vectors (0: none) */
    /* entries of each row of point x of line `line` */
    int64_t (*row_len)(const gs_gen_rows *g, int64_t line, int64_t x);
    /* what the rows of points [p0, p1) need before the fill (may be NULL; jumps: the
     * coefficients of those points' cubes and their neighbours') */
    gs_status (*prepare)(gs_gen_rows *g, int64_t p0, int64_t p1);
    /* the rows of points x0 <= x < x1 of line `line`, each row's columns ascending */
    void (*fill)(const gs_gen_rows *g, int64_t line, int64_t x0, int64_t x1, const gs_gen_out *o);
    /* rows [r0, r1) of the near-nullspace into B, column j at B + j*ld (NULL: none) */
    void (*nullspace)(const gs_gen_rows *g, int64_t r0, int64_t r1, double *B, int64_t ld);
    /* the type's data */
    int count;           /* grid: stencil entries */
    int off[27][3];      /* grid: stencil offsets (dx, dy, dz) in column order */
    double coef[27 * 9]; /* grid: stencil values; rotated: 3 x 3; elasticity: 27 blocks */
    double *pw;          /* grid: pw[k] = 0.5^k, the dof block (block entries) */
    double value[3], h;  /* jumps: the coefficients; elasticity: the element side */
    int64_t cube;        /* jumps: points per cube edge */
    int64_t ncube[3];    /* jumps: cubes per direction (x, y, z) */
    uint64_t seed;       /* jumps: the cubes' stream */
    unsigned char *pick; /* jumps: the coefficient of cubes [cube0, cube1) */
    double *fac;         /* jumps: their factors at a sequence's step (NULL: step 0) */
    int64_t step;        /* jumps: the step and its drift (gs_gen_params) */
    double drift;
    int64_t cube0, cube1;
};

/* Set up the row builder of the types whose rows are independent (gs_gen.c: poisson,
 * anisotropic, convdiff; gs_gen_pde.c: jumps, rotated, elasticity): parameters checked, desc
 * written, sizes refused beyond the 32-bit index limit (the same problem on any number of
 * ranks), g filled. */
gs_status gs_gen_grid_rows(const gs_gen_params *p, gs_gen_rows *g, char *desc, size_t desc_len);
gs_status gs_gen_jumps_rows(const gs_gen_params *p, gs_gen_rows *g, char *desc, size_t desc_len);
gs_status gs_gen_rotated_rows(const gs_gen_params *p, gs_gen_rows *g, char *desc, size_t desc_len);
gs_status gs_gen_elasticity_rows(const gs_gen_params *p, gs_gen_rows *g, char *desc,
                                 size_t desc_len);

/* The whole matrix of g (and its near-nullspace when B is not NULL and g has one) on this
 * process, desc naming it in an error (gs_gen_rows.c); g's data is freed. */
gs_status gs_gen_rows_whole(gs_gen_rows *g, const char *desc, gs_csr **A, double **B, int *k);
/* free what a set-up g holds (not g itself) */
void gs_gen_rows_free(gs_gen_rows *g);

#endif

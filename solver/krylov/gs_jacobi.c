/* gs_jacobi.c: the Jacobi preconditioner z = D^-1 r, D^-1 kept as a vector where the data
 * lives and applied with one entrywise product. */
#include "gs_jacobi.h"

#include <math.h>

struct gs_jacobi {
    int64_t n;
    gs_vec *dinv; /* 1 / A(i,i), on the solve's location */
};

/* 1 when row i of A stores an entry in column i */
static int has_diag(const gs_csr *A, int32_t i)
{
    for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
        if (A->colind[q] == i) return 1;
    return 0;
}

/* d = 1 ./ d, refusing a zero, missing or non-finite diagonal entry (rows 1-based in messages) */
static gs_status invert_diag(const gs_csr *A, const char *where, int64_t row0, double *d)
{
    gs_status st = GS_OK;
    for (int32_t i = 0; i < A->rows; i++) {
        if (d[i] != 0.0 && isfinite(d[i])) {
            d[i] = 1.0 / d[i];
            continue;
        }
        if (!isfinite(d[i]))
            GS_FAIL(GS_ERR_INPUT,
                    "%s: row %ld has a non-finite diagonal entry (%g); Jacobi needs a finite "
                    "nonzero diagonal (use solver.preconditioner = \"none\")",
                    where, (long)(row0 + i) + 1, d[i]);
        GS_FAIL(GS_ERR_INPUT,
                "%s: row %ld has %s; Jacobi needs a nonzero diagonal (use "
                "solver.preconditioner = \"none\")",
                where, (long)(row0 + i) + 1,
                has_diag(A, i) ? "a zero diagonal entry" : "no diagonal entry");
    }
done:
    return st;
}

gs_status gs_jacobi_create(const gs_csr *A, gs_loc loc, const char *where, gs_jacobi **out)
{
    return gs_jacobi_create_at(A, 0, loc, where, out);
}

gs_status gs_jacobi_create_at(const gs_csr *A, int64_t row0, gs_loc loc, const char *where,
                              gs_jacobi **out)
{
    gs_status st = GS_OK;
    gs_jacobi *J = NULL;
    double *d = NULL;
    if (!where) where = "matrix";
    if (!out || !A) GS_FAIL(GS_ERR_ARG, "jacobi: missing matrix or output");
    *out = NULL;
    if (A->loc != GS_LOC_HOST)
        GS_FAIL(GS_ERR_ARG, "%s: Jacobi is built from the host copy of the matrix", where);
    if (A->rows != A->cols)
        GS_FAIL(GS_ERR_INPUT, "%s: matrix is %ld x %ld; Jacobi needs a square matrix", where,
                (long)A->rows, (long)A->cols);
    GS_CHECK(gs_alloc_array(A->rows > 0 ? (size_t)A->rows : 1, sizeof *d, "Jacobi diagonal",
                            (void **)&d));
    gs_csr_diag_host(A, d);
    GS_CHECK(invert_diag(A, where, row0, d));
    GS_CHECK(gs_alloc_array(1, sizeof *J, "Jacobi preconditioner", (void **)&J));
    J->n = A->rows;
    J->dinv = NULL;
    GS_CHECK(gs_vec_create(A->rows, loc, &J->dinv));
    GS_CHECK(gs_vec_set_host(J->dinv, d));
    *out = J;
    J = NULL;
done:
    gs_jacobi_destroy(&J);
    gs_free(d);
    return st;
}

void gs_jacobi_destroy(gs_jacobi **J)
{
    if (!J || !*J) return;
    gs_vec_destroy(&(*J)->dinv);
    gs_free(*J);
    *J = NULL;
}

/* y = D^-1 x */
static gs_status jacobi_apply(void *ctx, const gs_vec *x, gs_vec *y)
{
    const gs_jacobi *J = ctx;
    if (x->n != J->n || y->n != J->n || x->loc != J->dinv->loc || y->loc != J->dinv->loc)
        return GS_ERROR(GS_ERR_ARG,
                        "jacobi: vectors of size %lld on %s for a preconditioner "
                        "of size %lld on %s",
                        (long long)x->n, x->loc == GS_LOC_HOST ? "host" : "device", (long long)J->n,
                        J->dinv->loc == GS_LOC_HOST ? "host" : "device");
    return gs_vec_pmul(J->dinv, x, y);
}

gs_linop gs_jacobi_linop(gs_jacobi *J)
{
    return (gs_linop){.n = J ? J->n : 0, .ctx = J, .apply = jacobi_apply};
}

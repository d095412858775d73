/* gs_pc_jacobi.c: Jacobi, M = D^-1 (gs_jacobi.h), from the host copy of A. */
#include "gs_precond.h"

#include "gs_jacobi.h"

static void destroy(void *state)
{
    gs_jacobi *J = state;
    gs_jacobi_destroy(&J);
}

static gs_status build(gs_pc_build *b)
{
    gs_status st = GS_OK;
    gs_csr *h = NULL;
    gs_jacobi *J = NULL;
    /* the diagonal from the host copy (downloaded when the caller gave A on the device) */
    if (!b->p->A) GS_CHECK(gs_csr_download(b->A, &h));
    GS_CHECK(gs_jacobi_create(b->p->A ? b->p->A : h, b->loc, b->where, &J));
    b->M = gs_jacobi_linop(J);
    b->state = J;
    b->destroy = destroy;
done:
    gs_csr_destroy(&h);
    return st;
}

const gs_precond gs_pc_jacobi = {"jacobi", "M = D^-1, the inverse of A's diagonal", build};

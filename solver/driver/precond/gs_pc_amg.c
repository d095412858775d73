/* gs_pc_amg.c: algebraic multigrid (gs_amg.h) with the amg.* keys, one cycle per application;
 * its finest level's operator serves the Krylov method's products with A too. */
#include "gs_precond.h"

#include "gs_driver_impl.h"
#include "gs_log.h"

static void destroy(void *state)
{
    gs_amg *amg = state;
    gs_amg_destroy(&amg);
}

static gs_status build(gs_pc_build *b)
{
    gs_status st = GS_OK;
    gs_amg *amg = NULL;
    gs_amg_params ap;
    GS_CHECK(gs_driver_amg_params(b->c, b->p, &ap));
    if (b->p->nullspace) { /* problem.nullspace's, else the generator's (elasticity: its
                            * rigid-body modes) */
        ap.nullspace = b->p->nullspace;
        ap.nullspace_k = b->p->nullspace_k;
    }
    gs_select_request rq = gs_driver_select_request(b->c);
    ap.select = &rq; /* AMG picks every operator's format through the selector */
    ap.drop_csr = b->drop_csr;
    GS_CHECK(gs_amg_setup(b->A, &ap, b->where, &amg));
    const gs_amg_report *r = gs_amg_get_report(amg);
    GS_CHECK(gs_driver_record_amg(r, b->run));
    for (int l = 0; l < r->levels; l++) /* a level whose chosen format refused its A: csr ran */
        if (r->level[l].fell_back) gs_log(GS_LOG_WARN, "%s", r->level[l].reason);
    b->M = gs_amg_linop(amg);
    b->A_op = (gs_spmat *)gs_amg_level_op(amg, 0);
    b->amg = amg;
    b->state = amg;
    b->destroy = destroy;
    amg = NULL;
done:
    gs_amg_destroy(&amg);
    return st;
}

const gs_precond gs_pc_amg = {"amg", "algebraic multigrid, one cycle (the amg.* keys)", build};

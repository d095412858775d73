/* gs_driver_update.c: the setup again after the matrix's values changed (gs_driver_update):
 * with AMG, what amg.reuse keeps (gs_amg_resetup), else the preconditioner made anew. */
#include <string.h>

#include "gs_driver_impl.h"
#include "gs_backend.h"
#include "gs_buf.h"
#include "gs_precond.h"
#include "gs_time.h"

gs_status gs_driver_update(gs_engine *e, const gs_config *c, const gs_problem *p, gs_run *run,
                           const gs_driver_io *io)
{
    gs_status st = GS_OK;
    const gs_csr *A = p->A ? p->A : p->A_dev;
    if (!e || !A) return GS_ERROR(GS_ERR_ARG, "update: no setup or no matrix");
    if (A->rows != e->n) return GS_ERROR(GS_ERR_ARG, "update: the matrix changed its size");
    gs_run_release(run); /* the record anew, as a setup's */
    gs_driver_record_begin(c, p, run, io);
    GS_CHECK(gs_driver_choose_backend(c, &e->loc, &run->res));
    gs_backend_mem_reset_peak(); /* this setup's peak of device memory */
    double t0 = gs_time_now();
    if (e->dA && !e->dA_borrowed) { /* the new values up (the pattern is the device copy's) */
        if (p->A->nnz != e->dA->nnz)
            GS_FAIL(GS_ERR_ARG, "update: the matrix has %lld entries, its setup %lld",
                    (long long)p->A->nnz, (long long)e->dA->nnz);
        double h0 = gs_backend_h2d_seconds();
        const gs_buf f = {p->A->val, p->A->nnz, GS_F64, GS_LOC_HOST};
        gs_buf t = {e->dA->val, e->dA->nnz, GS_F64, e->loc};
        if (p->A->nnz > 0) GS_CHECK(gs_buf_copy(&f, &t));
        GS_CHECK(gs_backend_get(e->loc)->sync());
        run->upload_s = gs_time_now() - t0;
        run->transfer_s = gs_backend_h2d_seconds() - h0;
    }
    int how = GS_AMG_REUSE_NONE;
    if (e->amg) {
        const gs_amg_choice *ch = gs_amg_choice_find(GS_AMG_CHOICE_REUSE, c->amg.reuse);
        how = ch ? ch->value : GS_AMG_REUSE_AUTO;
        if (how == GS_AMG_REUSE_AUTO)
            how = e->full_it > 0 && e->last_it > GS_AMG_REUSE_GROWTH * e->full_it
                      ? GS_AMG_REUSE_NONE : GS_AMG_REUSE_PROLONGATOR;
        /* a hierarchy set up without what values keeps: a full setup */
        if (how == GS_AMG_REUSE_VALUES && !gs_amg_can_resetup_values(e->amg))
            how = GS_AMG_REUSE_NONE;
    }
    e->pc.run = run;
    if (how == GS_AMG_REUSE_PROLONGATOR || how == GS_AMG_REUSE_VALUES) {
        GS_CHECK(gs_amg_resetup(e->amg, (gs_amg_reuse)how));
        GS_CHECK(gs_driver_record_amg(gs_amg_get_report(e->amg), run));
        e->pc.A_op = (gs_spmat *)gs_amg_level_op(e->amg, 0);
        e->M = gs_amg_linop(e->amg);
        gs_str_copy(e->setup_kind, sizeof e->setup_kind,
                    how == GS_AMG_REUSE_VALUES ? "values" : "prolongator");
        GS_CHECK(gs_driver_engine_op(e, c, p, run));
    } else { /* the preconditioner anew, and the Krylov method's operator with it */
        GS_CHECK(gs_driver_engine_pc(e, c, p, e->pc.where, run));
        gs_str_copy(e->setup_kind, sizeof e->setup_kind, "full");
        e->full_it = 0;
    }
    GS_CHECK(gs_backend_get(e->loc)->sync());
    e->setup_s = gs_time_now() - t0;
    e->mem_setup_peak = gs_backend_mem_now().peak;
    if (strcmp(e->setup_kind, "full") == 0) e->full_setup_s = e->setup_s;
    run->res.setup_s = e->setup_s;
done:
    return st;
}


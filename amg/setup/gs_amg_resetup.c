/* gs_amg_resetup.c: the setup again after the finest matrix's values changed, keeping what
 * depends on the pattern and changes slowly (gs_amg.h, gs_amg_resetup): every level's P and R
 * and the coarse operators' patterns stay; the coarse operators' values come from numeric
 * Galerkin products into those patterns (gs_galerkin_values), then each level's SpMV form in the
 * format it had, its diagonal, rho and smoother, and the coarse solve are made anew. */
#include "gs_amg.h"

#include <stdio.h>
#include <string.h>

#include "gs_amg_internal.h"
#include "gs_log.h"

/* level l's SpMV form anew in the format it had (csr when that format now refuses it) */
static gs_status reform(gs_amg *amg, int l)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[l];
    const gs_format f = L->MA->format;
    gs_spmat *M = NULL;
    gs_spmat_destroy(&L->MA);
    st = gs_spmat_create(L->A, f, &amg->fmt, &M);
    if (st == GS_ERR_UNSUPPORTED && f != GS_FORMAT_CSR) {
        gs_log(GS_LOG_WARN, "amg re-setup: level %d: %s; csr runs", l, gs_error_message());
        gs_error_clear();
        st = gs_spmat_create(L->A, GS_FORMAT_CSR, NULL, &M);
        gs_str_copy(amg->rep.level[l].format, sizeof amg->rep.level[l].format, "csr");
    }
    GS_CHECK(st);
    L->MA = M;
    M = NULL;
done:
    gs_spmat_destroy(&M);
    return st;
}

gs_status gs_amg_resetup(gs_amg *amg, gs_amg_reuse how)
{
    gs_status st = GS_OK;
    double t_start, t0, t1, *ph;
    if (!amg) return GS_ERROR(GS_ERR_ARG, "amg re-setup: no hierarchy");
    if (how != GS_AMG_REUSE_PROLONGATOR)
        return GS_ERROR(GS_ERR_ARG, "amg re-setup: only the prolongator is kept (reuse %d)",
                        (int)how);
    GS_CHECK(gs_amg_sync(amg, &t_start));
    ph = amg->rep.phase_s;
    memset(amg->rep.phase_s, 0, sizeof amg->rep.phase_s);
    /* the cycle's graph holds the old operators */
    if (amg->graph) amg->ops->graph_destroy(amg->graph);
    amg->graph = NULL;
    amg->graph_r = amg->graph_z = NULL;
    amg->graph_captures = 0;
    for (int l = 0; l < amg->nlev; l++) {
        gs_amg_level *L = &amg->lev[l];
        gs_amg_level_report *R = &amg->rep.level[l];
        GS_CHECK(gs_amg_sync(amg, &t0));
        if (l > 0) {
            const gs_amg_level *F = &amg->lev[l - 1];
            GS_CHECK(gs_galerkin_values(F->A, F->P, F->R, L->Aown));
            amg->rep.galerkin_values++;
            gs_amg_trace(amg, l - 1, "R (A P), values");
            GS_CHECK(gs_amg_sync(amg, &t1));
            ph[GS_AMG_PHASE_RAP] += t1 - t0;
            t0 = t1;
        }
        GS_CHECK(reform(amg, l));
        gs_amg_trace(amg, l, "format of A");
        GS_CHECK(gs_amg_sync(amg, &t1));
        ph[GS_AMG_PHASE_CONVERT] += t1 - t0;
        t0 = t1;
        if (L->smooth) amg->p.smoother->destroy(L->smooth, amg->be);
        L->smooth = NULL;
        if (L->dinv) {
            amg->be->free(L->dinv);
            L->dinv = NULL;
            GS_CHECK(gs_amg_level_diag(amg, l, amg->where));
            GS_CHECK(gs_amg_level_smoother(amg, l));
            R->rho = L->rho;
        }
        L->sl.MA = L->MA, L->sl.y = L->y, L->sl.d = L->d;
        GS_CHECK(gs_amg_sync(amg, &t1));
        ph[GS_AMG_PHASE_PROLONG] += t1 - t0;
    }
    gs_spmat_destroy(&amg->Mc);
    gs_csr_destroy(&amg->cinv);
    GS_CHECK(gs_amg_coarse_setup(amg, amg->zc, ph));
    GS_CHECK(gs_amg_sync(amg, &t1));
    amg->rep.setup_s = t1 - t_start;
    amg->rep.resetups++;
    snprintf(amg->rep.reused, sizeof amg->rep.reused,
             "prolongator: P and R of %d level%s kept, %d coarse operator%s by numeric Galerkin "
             "products", amg->nlev - 1, amg->nlev == 2 ? "" : "s", amg->nlev - 1,
             amg->nlev == 2 ? "" : "s");
done:
    return st;
}

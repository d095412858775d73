/* gs_amg_resetup.c: the setup again after the finest matrix's values changed, keeping what
 * depends on the pattern and changes slowly (gs_amg.h, gs_amg_resetup).
 *   PROLONGATOR: every level's P and R and the coarse operators' patterns stay; the coarse
 *   operators' values come from numeric Galerkin products into those patterns
 *   (gs_galerkin_values).
 *   VALUES: the aggregates and tentative prolongators stay; each level's P is smoothed anew with
 *   the new values (I - omega / rho D^-1 A_F) T, its R = P^T, and the coarse operator made by the
 *   Galerkin product (its pattern may change: the filter drops other couplings). Classical AMG:
 *   the C/F splittings stay; the strength, interpolation (truncated as the setup settled), R and
 *   the coarse operator are made anew.
 * Then, on every level, the SpMV forms in the formats they had, the diagonal, rho and smoother,
 * and the coarse solve are made anew; rho by a short Lanczos estimate that scales the last full
 * one (gs_amg_level_diag). */
#include "gs_amg.h"

#include <stdio.h>
#include <string.h>

#include "gs_amg_internal.h"
#include "gs_log.h"

/* *M anew from C in format f (csr when f now refuses C); what names it in the warning */
static gs_status remake(gs_amg *amg, const gs_csr *C, gs_format f, const char *what, int l,
                        gs_spmat **M)
{
    gs_status st = GS_OK;
    gs_spmat *N = NULL;
    gs_spmat_destroy(M);
    st = gs_spmat_create(C, f, &amg->fmt, &N);
    if (st == GS_ERR_UNSUPPORTED && f != GS_FORMAT_CSR) {
        gs_log(GS_LOG_WARN, "amg re-setup: level %d's %s: %s; csr runs", l, what,
               gs_error_message());
        gs_error_clear();
        st = gs_spmat_create(C, GS_FORMAT_CSR, NULL, &N);
        if (what[0] == 'A')
            gs_str_copy(amg->rep.level[l].format, sizeof amg->rep.level[l].format, "csr");
    }
    GS_CHECK(st);
    *M = N;
    N = NULL;
done:
    gs_spmat_destroy(&N);
    return st;
}

int gs_amg_can_resetup_values(const gs_amg *amg)
{
    if (!amg) return 0;
    /* classical AMG keeps its C/F splitting in every level's agg; SA its T when asked */
    return amg->p.method == GS_AMG_METHOD_CLASSICAL || amg->p.keep_tentative;
}

/* level l's P smoothed anew from its kept T with the level's new values, R = P^T, their SpMV
 * forms; a level without T (P = T: not smoothed) keeps its P */
static gs_status smooth_p(gs_amg *amg, int l)
{
    gs_status st = GS_OK;
    gs_amg_level *L = &amg->lev[l];
    gs_csr *Sj = NULL, *P = NULL, *R = NULL;
    if (!L->T || !amg->p.smooth_prolongator || !(L->rho > 0)) return GS_OK;
    GS_CHECK(gs_amg_smoothing_matrix(amg, l, L->bk, L->kk, L->Bw ? L->Bw->data : NULL, amg->loc,
                                     &Sj));
    if (L->one_per_row && amg->m != GS_SPGEMM_CUSPARSE)
        GS_CHECK(amg->ops->times_tentative(Sj, L->T, &P));
    else
        GS_CHECK(gs_spgemm(Sj, L->T, amg->m, &P));
    GS_CHECK(gs_spgemm_transpose(P, &R));
    const gs_format fp = L->MP->format, fr = L->MR->format;
    gs_spmat_destroy(&L->MP);
    gs_spmat_destroy(&L->MR);
    gs_csr_destroy(&L->P);
    gs_csr_destroy(&L->R);
    L->P = P;
    L->R = R;
    P = R = NULL;
    GS_CHECK(remake(amg, L->P, fp, "P", l, &L->MP));
    GS_CHECK(remake(amg, L->R, fr, "R", l, &L->MR));
    amg->rep.prolongators++;
    gs_amg_trace(amg, l, "P = S T anew");
done:
    gs_csr_destroy(&Sj);
    gs_csr_destroy(&P);
    gs_csr_destroy(&R);
    return st;
}

/* level l's transfers and level l + 1's operator anew: PROLONGATOR: the operator's values into
 * its kept pattern; VALUES: smoothed aggregation's P smoothed anew from T and the Galerkin
 * product with its pattern, classical AMG's P and R on the kept splitting and the product */
static gs_status coarse_operator(gs_amg *amg, int l, gs_amg_reuse how, double *ph)
{
    gs_status st = GS_OK;
    gs_amg_level *F = &amg->lev[l];
    gs_amg_level *L = &amg->lev[l + 1];
    gs_csr *Ac = NULL;
    if (how == GS_AMG_REUSE_VALUES && amg->p.method == GS_AMG_METHOD_CLASSICAL) {
        const gs_format fp = F->MP->format, fr = F->MR->format;
        gs_spmat_destroy(&F->MP);
        gs_spmat_destroy(&F->MR);
        L->sl.MA = NULL;
        GS_CHECK(gs_amg_classical_values(amg, l, amg->m, ph));
        GS_CHECK(remake(amg, F->P, fp, "P", l, &F->MP));
        GS_CHECK(remake(amg, F->R, fr, "R", l, &F->MR));
        goto done;
    }
    if (how == GS_AMG_REUSE_VALUES) GS_CHECK(smooth_p(amg, l));
    if (how == GS_AMG_REUSE_PROLONGATOR) {
        GS_CHECK(gs_galerkin_values(F->A, F->P, F->R, L->Aown));
        amg->rep.galerkin_values++;
    } else {
        GS_CHECK(gs_galerkin(F->A, F->P, F->R, amg->m, &Ac));
        amg->rep.galerkin_products++;
        L->sl.MA = NULL;
        gs_csr_destroy(&L->Aown);
        L->Aown = Ac;
        L->A = Ac;
        Ac = NULL;
    }
    gs_amg_trace(amg, l, how == GS_AMG_REUSE_PROLONGATOR ? "R (A P), values" : "R (A P)");
done:
    gs_csr_destroy(&Ac);
    return st;
}

gs_status gs_amg_resetup(gs_amg *amg, gs_amg_reuse how)
{
    gs_status st = GS_OK;
    double t_start, t0, t1, *ph;
    if (!amg) return GS_ERROR(GS_ERR_ARG, "amg re-setup: no hierarchy");
    if (amg->p.drop_csr)
        return GS_ERROR(GS_ERR_ARG, "amg: this hierarchy freed its CSR copies after the setup "
                        "(amg drop_csr: one solve of one vector); a re-setup needs a full setup");
    if (amg->tail.solve)
        return GS_ERROR(GS_ERR_UNSUPPORTED, "amg re-setup: a hierarchy across MPI ranks is set "
                        "up anew for new values");
    if (how != GS_AMG_REUSE_PROLONGATOR && how != GS_AMG_REUSE_VALUES)
        return GS_ERROR(GS_ERR_ARG, "amg re-setup: reuse %d keeps nothing", (int)how);
    if (how == GS_AMG_REUSE_VALUES && !gs_amg_can_resetup_values(amg))
        return GS_ERROR(GS_ERR_UNSUPPORTED, "amg re-setup: the hierarchy kept no tentative "
                        "prolongators (smoothed aggregation set up for amg.reuse = values)");
    GS_CHECK(gs_amg_sync(amg, &t_start));
    gs_amg_trace(amg, 0, NULL);
    amg->resetting = 1;
    ph = amg->rep.phase_s;
    memset(amg->rep.phase_s, 0, sizeof amg->rep.phase_s);
    /* the cycle's graphs hold the old operators */
    gs_amg_graphs_destroy(amg);
    amg->graph_r = amg->graph_z = NULL;
    amg->graph_captures = 0;
    double nnz0 = (double)amg->lev[0].A->nnz;
    amg->rep.operator_complexity = 0.0;
    for (int l = 0; l < amg->nlev; l++) {
        gs_amg_level *L = &amg->lev[l];
        gs_amg_level_report *R = &amg->rep.level[l];
        GS_CHECK(gs_amg_sync(amg, &t0));
        GS_CHECK(remake(amg, L->A, L->MA->format, "A", l, &L->MA));
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
        if (l + 1 < amg->nlev) { /* the transfers and the next level's operator */
            GS_CHECK(coarse_operator(amg, l, how, ph));
            GS_CHECK(gs_amg_sync(amg, &t0));
            ph[GS_AMG_PHASE_RAP] += t0 - t1;
        }
        R->nnz = L->A->nnz;
        amg->rep.operator_complexity += nnz0 > 0 ? (double)L->A->nnz / nnz0 : 1.0;
    }
    gs_spmat_destroy(&amg->Mc);
    gs_csr_destroy(&amg->cinv);
    GS_CHECK(gs_amg_coarse_setup(amg, amg->zc, ph));
    gs_amg_trace(amg, amg->nlev - 1, "coarse solve");
    GS_CHECK(gs_amg_sync(amg, &t1));
    amg->rep.setup_s = t1 - t_start;
    amg->rep.resetups++;
    const int np = amg->nlev - 1;
    if (how == GS_AMG_REUSE_PROLONGATOR)
        snprintf(amg->rep.reused, sizeof amg->rep.reused,
                 "prolongator: P and R of %d level%s kept, %d coarse operator%s by numeric "
                 "Galerkin products", np, np == 1 ? "" : "s", np, np == 1 ? "" : "s");
    else
        snprintf(amg->rep.reused, sizeof amg->rep.reused,
                 amg->p.method == GS_AMG_METHOD_CLASSICAL
                     ? "values: the C/F splittings of %d level%s kept, P, R and the coarse "
                       "operators made anew"
                     : "values: the aggregates and tentative prolongators of %d level%s kept, P "
                       "smoothed and the coarse operators made anew",
                 np, np == 1 ? "" : "s");
done:
    amg->resetting = 0;
    return st;
}

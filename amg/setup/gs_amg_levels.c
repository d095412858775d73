/* gs_amg_levels.c: the setup's loop over the levels, on one process and across ranks alike
 * (gs_amg_internal.h's gs_amg_steps do what depends on where the rows live). */
#include "gs_amg_internal.h"

gs_status gs_amg_levels(gs_amg *amg, const gs_amg_steps *s, int *b, int *k, double **B,
                        gs_loc *B_loc, int *B_level, const char *where, double *ph)
{
    gs_status st = GS_OK;
    const gs_amg_params *p = &amg->p;
    const int classical = p->method == GS_AMG_METHOD_CLASSICAL;
    const int max_levels = p->max_levels < GS_AMG_MAX_LEVELS ? p->max_levels : GS_AMG_MAX_LEVELS;
    gs_csr *S = NULL, *T = NULL;
    double t0, t1;
    amg->nlev = 1;
    for (int l = 0;; l++) {
        gs_amg_level *L = &amg->lev[l];
        const int64_t n = s->rows(s->ctx, amg, l);
        const int last = l + 1 >= max_levels || n <= p->coarse_size;
        if (s->ends(s->ctx, amg, l, n, last)) break;
        GS_CHECK(gs_amg_sync(amg, &t0));
        GS_CHECK(s->diag(s->ctx, amg, l, where));
        GS_CHECK(gs_amg_sync(amg, &t1));
        ph[GS_AMG_PHASE_PROLONG] += t1 - t0;
        if (last) break;
        L->bk = *b, L->kk = *k; /* the level's unknowns a node and near-nullspace vectors */
        if (!classical && p->smooth_prolongator && L->rho > 0) { /* before B becomes the coarse
                                                                  * one */
            GS_CHECK(gs_amg_sync(amg, &t0));
            GS_CHECK(s->smoothing(s->ctx, amg, l, *b, *k, *B, *B_loc, &S));
            GS_CHECK(gs_amg_sync(amg, &t1));
            ph[GS_AMG_PHASE_PROLONG] += t1 - t0;
        }
        int64_t nc = 0;
        int one_per_row = 0, made = 0;
        GS_CHECK(s->coarsen(s->ctx, amg, l, *b, B, B_loc, k, &T, &nc, &one_per_row, &made, ph));
        amg->rep.coarsenings++;
        *B_level = l + 1;
        if (nc == 0 || nc >= n) break; /* no coarsening: this level is the last */
        if (!made) {
            GS_CHECK(gs_amg_sync(amg, &t0));
            GS_CHECK(s->prolongator(s->ctx, amg, l, &S, &T, one_per_row));
            amg->rep.prolongators++;
            GS_CHECK(gs_amg_sync(amg, &t1));
            ph[GS_AMG_PHASE_PROLONG] += t1 - t0;
            GS_CHECK(s->galerkin(s->ctx, amg, l));
            amg->rep.galerkin_products++;
            GS_CHECK(gs_amg_sync(amg, &t0));
            ph[GS_AMG_PHASE_RAP] += t0 - t1;
        }
        amg->nlev = l + 2;
        if (s->next) GS_CHECK(s->next(s->ctx, amg, l, ph));
        *b = *k; /* a coarse node holds one unknown per near-nullspace vector */
    }
done:
    gs_csr_destroy(&S);
    gs_csr_destroy(&T);
    return st;
}

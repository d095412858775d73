/* gs_amg_choose.c: the AMG's choices from the matrix, as the SpMV format's are made from its
 * features: the method (smoothed aggregation or classical) and the smoother, when the parameters
 * leave them open (GS_AMG_METHOD_AUTO, smoother NULL). What it measures on the finest matrix:
 * its numerical symmetry (each entry against its mirror, where A lives), its row-length spread, and
 * the block size and near-nullspace it was given.
 *   method: a block system or a given near-nullspace -> smoothed aggregation (its tentative
 *     prolongator keeps the near-nullspace, e.g. rigid-body modes); a nonsymmetric A ->
 *     classical (PMIS and extended+i interpolation with truncation: no prolongator smoothing
 *     to spread a one-sided coupling, and its truncation bounds the coarse operators); rows of
 *     very different lengths (the longest above 10x the mean: circuit-like, with dense rows) ->
 *     classical (aggregates around dense rows make dense coarse rows); else smoothed
 *     aggregation;
 *   smoother: Chebyshev when A is symmetric, l1-Jacobi otherwise (Chebyshev's polynomial is
 *     fitted to a real interval of eigenvalues, which a nonsymmetric D^-1 A need not have). */
#include <stdio.h>
#include <string.h>

#include "gs_amg_internal.h"

#define GS_AMG_SYM_TOL 1e-10   /* max |a_ij - a_ji| over max |a_ij|: symmetric below it */
#define GS_AMG_IRREGULAR 10.0  /* longest row over the mean: irregular rows above it */

gs_status gs_amg_choose(gs_amg *amg, const gs_csr *A, int b)
{
    gs_status st = GS_OK;
    gs_amg_params *p = &amg->p;
    double asym = 0.0, mean = 0.0, sd = 0.0;
    int32_t mx = 0;
    char why_m[160] = "", why_s[160] = "";
    (void)sd;
    const int choose_m = p->method == GS_AMG_METHOD_AUTO, choose_s = !p->smoother;
    amg->rep.choice[0] = '\0';
    if (!choose_m && !choose_s && p->method != GS_AMG_METHOD_CLASSICAL) return GS_OK;
    if (A->rows > 0) {
        if (choose_m || choose_s) GS_CHECK(amg->ops->asymmetry(A, &asym));
        GS_CHECK(amg->ops->row_stats(A, &mean, &sd, &mx));
    }
    const int sym = asym <= GS_AMG_SYM_TOL;
    amg->irregular = mx > GS_AMG_IRREGULAR * mean;
    if (choose_m) {
        if (b > 1 || p->nullspace) {
            p->method = GS_AMG_METHOD_SA;
            snprintf(why_m, sizeof why_m, "%s given, which its aggregates keep",
                     p->nullspace ? "a near-nullspace" : "a block size");
        } else if (!sym) {
            p->method = GS_AMG_METHOD_CLASSICAL;
            snprintf(why_m, sizeof why_m, "A is nonsymmetric (max |a_ij - a_ji| = %.2g max |a_ij|)",
                     asym);
        } else if (amg->irregular) {
            p->method = GS_AMG_METHOD_CLASSICAL;
            snprintf(why_m, sizeof why_m, "irregular rows (the longest %d entries, the mean %.1f)",
                     (int)mx, mean);
        } else {
            p->method = GS_AMG_METHOD_SA;
            snprintf(why_m, sizeof why_m, "A is symmetric with regular rows");
        }
    }
    if (choose_s) {
        p->smoother = gs_smoother_find(sym ? "chebyshev" : "l1jacobi");
        snprintf(why_s, sizeof why_s, "%s", sym ? "A is symmetric"
                                               : "A is nonsymmetric: Chebyshev assumes a real "
                                                 "spectrum");
    }
    char *c = amg->rep.choice;
    const size_t cap = sizeof amg->rep.choice;
    if (choose_m)
        snprintf(c, cap, "method %s: %s", p->method == GS_AMG_METHOD_SA ? "sa" : "classical",
                 why_m);
    if (choose_s) {
        size_t len = strlen(c);
        snprintf(c + len, cap - len, "%ssmoother %s: %s", len ? "; " : "", p->smoother->name,
                 why_s);
    }
done:
    return st;
}

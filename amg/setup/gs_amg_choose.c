/* gs_amg_choose.c: the AMG's choices from the matrix, as the SpMV format's are made from its
 * features: the method (smoothed aggregation or classical), the smoother and classical AMG's
 * restriction, when the parameters leave them open (GS_AMG_METHOD_AUTO, smoother NULL,
 * GS_AMG_RESTRICT_AUTO). What it measures on the finest matrix,
 * where it lives and at the cost of two SpMVs and two passes over the rows: its numerical
 * symmetry (y^T A x against x^T A y for random x and y), its row-length spread, how much its
 * coefficients vary between neighbours (the share of couplings whose diagonals differ by more
 * than 2x), the sign pattern of its couplings, and the block size and near-nullspace it was
 * given.
 *   method: a block system or a given near-nullspace -> smoothed aggregation (its tentative
 *     prolongator keeps the near-nullspace, e.g. rigid-body modes); a nonsymmetric A ->
 *     classical (no prolongator smoothing to spread a one-sided coupling); rows of very
 *     different lengths (the longest above 10x the mean: circuit-like, with dense rows) ->
 *     classical (aggregates around dense rows make dense coarse rows; its truncated
 *     interpolation and the dense rows kept out bound the coarse operators); coefficients that
 *     vary between most neighbours (heterogeneous media: above 15% of the couplings) ->
 *     classical (its strength is relative to each row's own couplings); the stencil of an
 *     unstructured mesh (row lengths spread by more than 10% of their mean, and more than 5%
 *     of the couplings of the diagonal's sign, as P1 and P2 elements on tetrahedra have) ->
 *     classical (its iterations grow less under refinement there); else smoothed aggregation
 *     (grid stencils, and piecewise-constant coefficients such as jumps in blocks, which vary
 *     across few couplings);
 *   smoother: Chebyshev when A is symmetric, l1-Jacobi otherwise (Chebyshev's polynomial is
 *     fitted to a real interval of eigenvalues, which a nonsymmetric D^-1 A need not have),
 *     with twice the sweeps asked: two l1-Jacobi sweeps cost fewer SpMVs than one Chebyshev
 *     sweep of degree 3, and they halve GMRES's iterations on convection-diffusion (59k-row
 *     SUPG: 111 -> 63);
 *   aggregation (smoothed aggregation, gs_amg_choose_aggregation): PyAMG's sequential
 *     standard rule on the host for nodes of 1 or 2 unknowns (fewer or as many iterations as
 *     MIS(2) and a cheaper setup on the scalar classes and 2D elasticity; jumps whose cubes do
 *     not align with the grid: 12 against 27 iterations), MIS(2) for nodes of 3 or more
 *     unknowns (3D elasticity: lower operator complexity) and on the GPU (parallel rounds);
 *   restriction (classical): R from A^T's interpolation when A is nonsymmetric and its rows
 *     regular (convection: the upwind direction that P^T does not see; SUPG 63 -> 33, the
 *     upwind "sky" 19 -> 13), else R = P^T (the same on a symmetric A; a circuit's few
 *     transconductance stamps among power-law rows converge slower with A^T's: 35 -> 66). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gs_amg_internal.h"
#include "gs_comm.h"

#define GS_AMG_IRREGULAR 10.0 /* longest row over the mean: irregular rows above it */
#define GS_AMG_VARIED 0.15    /* share of couplings across a 2x change of diagonal */
#define GS_AMG_UNSTRUCTURED 0.1 /* row lengths' standard deviation over their mean */
#define GS_AMG_POSITIVE 0.05  /* share of couplings of the diagonal's sign */

gs_status gs_amg_skew_ratio(const gs_amg *amg, const gs_spmat *MA, int64_t n, int64_t row0,
                           double *out)
{
    gs_status st = GS_OK;
    gs_vec *x = NULL, *y = NULL, *ax = NULL, *ay = NULL;
    double yax = 0.0, xay = 0.0, ny = 0.0, nax = 0.0;
    GS_CHECK(gs_vec_create(n, amg->loc, &x));
    GS_CHECK(gs_vec_create(n, amg->loc, &y));
    GS_CHECK(gs_vec_create(n, amg->loc, &ax));
    GS_CHECK(gs_vec_create(n, amg->loc, &ay));
    GS_CHECK(amg->ops->fill_random(n, 12345u + (uint32_t)row0, x->data));
    GS_CHECK(amg->ops->fill_random(n, 67890u + (uint32_t)row0, y->data));
    GS_CHECK(gs_spmat_spmv(MA, x, ax));
    GS_CHECK(gs_spmat_spmv(MA, y, ay));
    const gs_vec *l[4] = {y, x, y, ax}, *r[4] = {ax, ay, y, ax};
    double d[4];
    GS_CHECK(gs_vec_dots(4, l, r, d)); /* one fused reduction */
    yax = d[0], xay = d[1], ny = sqrt(d[2]), nax = sqrt(d[3]);
    *out = ny * nax > 0 ? fabs(yax - xay) / (ny * nax) : 0.0;
    if (isnan(yax - xay)) *out = INFINITY;
done:
    gs_vec_destroy(&x);
    gs_vec_destroy(&y);
    gs_vec_destroy(&ax);
    gs_vec_destroy(&ay);
    return st;
}

void gs_amg_choose_smoother(gs_amg_params *p, int symmetric, char *choice, size_t len)
{
    p->smoother = gs_smoother_find(symmetric ? "chebyshev" : "l1jacobi");
    if (!symmetric) {
        p->presweeps *= 2;
        p->postsweeps *= 2;
    }
    size_t used = strlen(choice);
    snprintf(choice + used, len - used, "%ssmoother %s: %s", used ? "; " : "", p->smoother->name,
             symmetric ? "A is symmetric"
                       : "A is nonsymmetric: Chebyshev assumes a real spectrum; two sweeps for "
                         "each one asked (still fewer SpMVs than a degree-3 Chebyshev sweep)");
}

void gs_amg_choose_aggregation(gs_amg *amg, int b)
{
    gs_amg_params *p = &amg->p;
    if (p->aggregation != GS_AGG_AUTO) return;
    const int standard = amg->loc == GS_LOC_HOST && b <= 2;
    p->aggregation = standard ? GS_AGG_STANDARD : GS_AGG_MIS2;
    if (p->method == GS_AMG_METHOD_CLASSICAL) return; /* no aggregates */
    const size_t used = strlen(amg->rep.choice);
    snprintf(amg->rep.choice + used, sizeof amg->rep.choice - used, "%saggregation %s: %s",
             used ? "; " : "", gs_amg_choice_name(GS_AMG_CHOICE_AGGREGATION, p->aggregation),
             standard ? "the host backend, nodes of at most 2 unknowns"
             : amg->loc == GS_LOC_HOST ? "nodes of 3 or more unknowns"
                                       : "the GPU backend (parallel rounds)");
}

gs_status gs_amg_choose(gs_amg *amg, const gs_csr *A, const gs_spmat *MA, const double *dinv,
                        int b, int64_t row0, int ranks)
{
    gs_status st = GS_OK;
    gs_amg_params *p = &amg->p;
    double skew = 0.0, varied = 0.0, positive = 0.0;
    /* A's row statistics, measured by the setup for the report's level 0 */
    const double mean = amg->rep.level[0].mean, sd = amg->rep.level[0].std;
    const int32_t mx = amg->rep.level[0].max;
    char why_m[160] = "";
    const int choose_m = p->method == GS_AMG_METHOD_AUTO, choose_s = !p->smoother;
    const int choose_r = p->restriction == GS_AMG_RESTRICT_AUTO && p->method != GS_AMG_METHOD_SA;
    amg->rep.choice[0] = '\0';
    if (!choose_m && !choose_s && p->method != GS_AMG_METHOD_CLASSICAL) return GS_OK;
    if ((A->rows > 0 || ranks) && (choose_m || choose_s || choose_r)) /* across ranks: every
                                                                        * rank joins its dots */
        GS_CHECK(gs_amg_skew_ratio(amg, MA, A->rows, row0, &skew));
    const int sym = skew <= GS_AMG_SKEW_TOL;
    amg->irregular = mx > GS_AMG_IRREGULAR * mean;
    if (choose_m) {
        if (b > 1 || p->nullspace) {
            p->method = GS_AMG_METHOD_SA;
            snprintf(why_m, sizeof why_m, "%s given, which its aggregates keep",
                     p->nullspace ? "a near-nullspace" : "a block size");
        } else if (!sym) {
            p->method = GS_AMG_METHOD_CLASSICAL;
            snprintf(why_m, sizeof why_m, "A is nonsymmetric (|y'Ax - x'Ay| = %.2g |y| |Ax|)",
                     skew);
        } else if (amg->irregular) {
            p->method = GS_AMG_METHOD_CLASSICAL;
            snprintf(why_m, sizeof why_m, "irregular rows (the longest %d entries, the mean %.1f)",
                     (int)mx, mean);
        } else {
            gs_status vs = A->rows > 0 ? amg->ops->variation(A, dinv, &varied, &positive)
                                       : GS_OK;
            if (ranks) { /* the shares over all ranks, each rank's weighted by its entries
                          * (every rank joins the sum, a failed one too) */
                double v[3] = {varied * (double)A->nnz, positive * (double)A->nnz,
                               (double)A->nnz};
                if (vs != GS_OK) v[0] = v[1] = v[2] = 0.0;
                gs_status ss = gs_comm_sum(v, 3);
                GS_CHECK(gs_comm_agree(vs != GS_OK ? vs : ss));
                varied = v[2] > 0 ? v[0] / v[2] : 0.0;
                positive = v[2] > 0 ? v[1] / v[2] : 0.0;
            }
            GS_CHECK(vs);
            if (varied > GS_AMG_VARIED) {
                p->method = GS_AMG_METHOD_CLASSICAL;
                snprintf(why_m, sizeof why_m, "heterogeneous coefficients (%.0f%% of the "
                         "couplings join diagonals 2x apart)", 100.0 * varied);
            } else if (sd > GS_AMG_UNSTRUCTURED * mean && positive > GS_AMG_POSITIVE) {
                p->method = GS_AMG_METHOD_CLASSICAL;
                snprintf(why_m, sizeof why_m, "an unstructured mesh's stencil (row lengths "
                         "%.1f +- %.1f, %.0f%% positive couplings)", mean, sd,
                         100.0 * positive);
            } else {
                p->method = GS_AMG_METHOD_SA;
                snprintf(why_m, sizeof why_m, "A is symmetric, its rows regular, its "
                         "coefficients even (%.0f%% of the couplings join diagonals 2x apart)",
                         100.0 * varied);
            }
        }
    }
    if (choose_m)
        snprintf(amg->rep.choice, sizeof amg->rep.choice, "method %s: %s",
                 gs_amg_choice_name(GS_AMG_CHOICE_METHOD, p->method), why_m);
    if (choose_s) gs_amg_choose_smoother(p, sym, amg->rep.choice, sizeof amg->rep.choice);
    if (choose_r && p->method == GS_AMG_METHOD_CLASSICAL) {
        p->restriction = !sym && !amg->irregular ? GS_AMG_RESTRICT_AT : GS_AMG_RESTRICT_PT;
        if (!sym) {
            const size_t len = strlen(amg->rep.choice);
            snprintf(amg->rep.choice + len, sizeof amg->rep.choice - len, "%srestriction %s",
                     len ? "; " : "",
                     amg->irregular ? "pt: a few nonsymmetric couplings among irregular rows"
                                    : "at: A is nonsymmetric, R from A^T's interpolation");
        }
    }
done:
    return st;
}

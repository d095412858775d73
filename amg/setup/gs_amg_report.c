/* gs_amg_report.c: the hierarchy's description, and the console's AMG block: the level table,
 * complexities, setup phases. */
#include <stdio.h>
#include <string.h>

#include "gs_amg_internal.h"
#include "gs_log.h"

const char *const gs_amg_phase_names[GS_AMG_PHASES] = {"strength",    "aggregation", "prolongator",
                                                       "rap",         "convert",     "coarse"};

#define WHY_WIDTH 56 /* the level table's why column: a longer reason wraps onto lines below */

/* text from column col of the line begun, wrapped at blanks into lines of at most WHY_WIDTH
 * characters indented to col; a word longer than that stands alone on its line, uncut */
static void print_wrapped(const gs_out *out, int col, const char *text)
{
    int first = 1;
    while (*text || first) {
        size_t n = strlen(text), cut = WHY_WIDTH;
        if (n > WHY_WIDTH) {
            while (cut > 0 && text[cut] != ' ') cut--;
            n = cut ? cut : strcspn(text, " ");
        }
        gs_outf(out, "%*s%.*s\n", first ? 0 : col, "", (int)n, text);
        for (text += n; *text == ' '; text++) {
        }
        first = 0;
    }
}

void gs_amg_report_print(const gs_amg_report *r, const gs_out *out)
{
    gs_outf(out, "amg       %d levels  operator complexity %.3f  grid complexity %.3f\n",
            r->levels, r->operator_complexity, r->grid_complexity);
    gs_outf(out, "          %s\n", r->desc);
    if (r->choice[0]) {
        gs_outf(out, "          chosen: ");
        print_wrapped(out, 18, r->choice);
    }
    gs_outf(out, "          level       rows        nnz  per row: mean    std   max  rho(D^-1A)  "
            "format A / P / R      why\n");
    for (int l = 0; l < r->levels; l++) {
        const gs_amg_level_report *L = &r->level[l];
        char f[64];
        if (l + 1 < r->levels)
            snprintf(f, sizeof f, "%s / %s / %s", L->format, L->format_p, L->format_r);
        else
            snprintf(f, sizeof f, "%s", L->format);
        char rho[16] = "-"; /* not estimated, or no positive eigenvalue to estimate */
        if (L->rho_known && L->rho > 0) snprintf(rho, sizeof rho, "%.4f", L->rho);
        char row[160];
        int col = snprintf(row, sizeof row, "          %5d %10d %10lld %15.2f %6.2f %5d  %10s  %-21s ",
                           l, L->rows, (long long)L->nnz, L->mean, L->std, L->max, rho, f);
        gs_outf(out, "%s", row);
        print_wrapped(out, col, L->reason);
    }
    const gs_amg_level_report *C = &r->level[r->levels > 0 ? r->levels - 1 : 0];
    if (r->levels > 0 && !C->rho_known)
        gs_outf(out, "          rho(D^-1A) \"-\" on level %d: solved directly, its rho not "
                "estimated\n", r->levels - 1);
    for (int l = 0; l < r->levels; l++)
        if (r->level[l].rho_known && !(r->level[l].rho > 0))
            gs_outf(out, "          rho(D^-1A) - on level %d: the largest eigenvalue of "
                    "|D|^-1/2 A |D|^-1/2 is %.4g, not positive (a negative diagonal or an "
                    "indefinite matrix): the smoothers assume it is\n", l, r->level[l].rho);
    for (int l = 0; l < r->levels; l++) { /* levels split across MPI ranks: their spread */
        const gs_amg_level_report *L = &r->level[l];
        if (L->rank_rows_max <= 0) continue;
        gs_outf(out, "          level %d across ranks: rows %lld..%lld, nnz %lld..%lld per rank\n",
                l, (long long)L->rank_rows_min, (long long)L->rank_rows_max,
                (long long)L->rank_nnz_min, (long long)L->rank_nnz_max);
    }
    gs_outf(out, "          coarse solve: %s\n", r->coarse_desc);
    gs_outf(out, "          setup %.2f ms:", 1e3 * r->setup_s);
    for (int i = 0; i < GS_AMG_PHASES; i++)
        gs_outf(out, " %s %.2f", gs_amg_phase_names[i], 1e3 * r->phase_s[i]);
    gs_outf(out, " ms\n");
}

void gs_amg_describe(gs_amg *amg, int b0, int k0, gs_spgemm_method galerkin, int ranks, int nd)
{
    const gs_amg_params *p = &amg->p;
    gs_amg_report *rep = &amg->rep;
    char within[48] = "", last[64];
    if (ranks > 0) {
        snprintf(within, sizeof within, " within each of %d ranks", ranks);
        snprintf(last, sizeof last, "%d levels across ranks then gathered", nd);
    } else {
        snprintf(last, sizeof last, "galerkin %s", gs_spgemm_method_name(galerkin));
    }
    const char *cycle = gs_amg_choice_name(GS_AMG_CHOICE_CYCLE, p->cycle_w);
    if (p->method == GS_AMG_METHOD_CLASSICAL)
        snprintf(rep->desc, sizeof rep->desc,
                 "%s cycle, %s, %d+%d sweeps, classical AMG: PMIS%s, extended+i interpolation "
                 "(at most %d entries a row), strength theta %g, %s, %s",
                 cycle, p->smoother->label, p->presweeps, p->postsweeps, within,
                 gs_amg_interp_max(amg), p->classical_theta,
                 p->restriction == GS_AMG_RESTRICT_AT ? "R from A^T" : "R = P^T", last);
    else
        snprintf(rep->desc, sizeof rep->desc,
                 "%s cycle, %s, %d+%d sweeps, %s aggregation%s, %s strength theta %g%s, %s, "
                 "block %d",
                 cycle, p->smoother->label, p->presweeps, p->postsweeps,
                 gs_amg_choice_name(GS_AMG_CHOICE_AGGREGATION, p->aggregation), within,
                 gs_amg_choice_name(GS_AMG_CHOICE_STRENGTH, p->strength), p->theta,
                 p->filter && p->theta > 0 && b0 == 1 && k0 == 1 ? ", filtered P smoothing" : "",
                 last, b0);
    gs_str_copy(rep->smoother, sizeof rep->smoother, p->smoother->name);
    rep->method = p->method;
    rep->aggregation = p->aggregation;
    rep->presweeps = p->presweeps;
    rep->postsweeps = p->postsweeps;
    if (p->smoother->describe) {
        size_t len = strlen(rep->desc);
        p->smoother->describe(p, rep->levels, rep->desc + len, sizeof rep->desc - len);
    }
}

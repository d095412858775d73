/* gs_amg_choices.c: the AMG's named choices (gs_amg.h: gs_amg_choice_*), one table per choice
 * point: the amg.* keys take their values, the help lines of --help-config and the setting each
 * name stands for from here. A new variant is its implementation plus one line here. */
#include <string.h>

#include "gs_amg.h"
#include "gs_mem.h"

static const gs_amg_choice METHOD[] = {
    {"auto", "chosen from the matrix: classical for a nonsymmetric A, irregular rows, "
             "coefficient jumps or unstructured stencils, else smoothed aggregation",
     GS_AMG_METHOD_AUTO},
    {"sa", "smoothed aggregation (near-nullspace, block systems, every MPI run)", GS_AMG_METHOD_SA},
    {"classical", "classical AMG: PMIS splitting, extended+i interpolation",
     GS_AMG_METHOD_CLASSICAL},
    {NULL, NULL, 0}};
static const gs_amg_choice STRENGTH[] = {
    {"rowmax", "-a_ij sign(a_ii) above theta x the row's largest such coupling (scale-free)",
     GS_STRENGTH_ROWMAX},
    {"symmetric", "|a_ij| above theta sqrt(|a_ii a_jj|), PyAMG's", GS_STRENGTH_SYMMETRIC},
    {NULL, NULL, 0}};
static const gs_amg_choice AGGREGATION[] = {
    {"auto", "standard in a one-process setup on the host for nodes of at most 2 unknowns, "
             "else mis2",
     GS_AGG_AUTO},
    {"mis2", "around a distance-2 maximal independent set: parallel, the same on host and GPU",
     GS_AGG_MIS2},
    {"standard", "PyAMG's sequential greedy rule (setup on the host)", GS_AGG_STANDARD},
    {NULL, NULL, 0}};
static const gs_amg_choice CYCLE[] = {
    {"V", "one coarse correction per level", 0},
    {"W", "two coarse corrections per level (stronger, costlier)", 1},
    {NULL, NULL, 0}};
static const gs_amg_choice RESTRICTION[] = {
    {"auto", "at for a nonsymmetric A without irregular rows, else pt", GS_AMG_RESTRICT_AUTO},
    {"pt", "R = P^T (Galerkin)", GS_AMG_RESTRICT_PT},
    {"at", "R from the interpolation of A^T on the same splitting (Petrov-Galerkin)",
     GS_AMG_RESTRICT_AT},
    {NULL, NULL, 0}};

static const gs_amg_choice REUSE[] = {
    {"auto", "prolongator while the iterations stay within 1.25x those after the last full "
             "setup, else a full setup", GS_AMG_REUSE_AUTO},
    {"values", "keep the coarsening (smoothed aggregation: the aggregates and tentative "
               "prolongators, P smoothed anew; classical: the C/F splittings, P and R made "
               "anew); the coarse operators made anew", GS_AMG_REUSE_VALUES},
    {"prolongator", "keep every level's P and R; the coarse operators by numeric Galerkin "
                    "products in their kept patterns, the smoothers and the coarse solve anew",
     GS_AMG_REUSE_PROLONGATOR},
    {"none", "a full setup for every new set of values", GS_AMG_REUSE_NONE},
    {NULL, NULL, 0}};

static const gs_amg_choice *const TABLES[GS_AMG_CHOICES] = {METHOD, STRENGTH, AGGREGATION, CYCLE,
                                                           RESTRICTION, REUSE};

const gs_amg_choice *gs_amg_choice_at(gs_amg_choice_kind k, int i)
{
    if ((unsigned)k >= GS_AMG_CHOICES || i < 0) return NULL;
    for (int j = 0; TABLES[k][j].name; j++)
        if (j == i) return &TABLES[k][j];
    return NULL;
}

const gs_amg_choice *gs_amg_choice_find(gs_amg_choice_kind k, const char *name)
{
    const gs_amg_choice *c;
    for (int i = 0; name && (c = gs_amg_choice_at(k, i)) != NULL; i++)
        if (strcmp(c->name, name) == 0) return c;
    return NULL;
}

const char *gs_amg_choice_list(gs_amg_choice_kind k)
{
    static char lists[GS_AMG_CHOICES][128];
    const gs_amg_choice *c;
    if ((unsigned)k >= GS_AMG_CHOICES) return "";
    if (!lists[k][0])
        for (int i = 0; (c = gs_amg_choice_at(k, i)) != NULL; i++)
            gs_str_add_choice(lists[k], sizeof lists[k], c->name);
    return lists[k];
}

const char *gs_amg_choice_name(gs_amg_choice_kind k, int value)
{
    const gs_amg_choice *c;
    for (int i = 0; (c = gs_amg_choice_at(k, i)) != NULL; i++)
        if (c->value == value) return c->name;
    return "?";
}

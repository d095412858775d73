/* gs_krylov_reg.c: the registry of Krylov methods (gs_krylov.h). Adding a method: its file in
 * solver/krylov/ defining a gs_krylov_method, and one line below. The first five keep the
 * places gs_krylov_type names. */
#include <string.h>

#include "gs_krylov.h"

extern const gs_krylov_method gs_krylov_cg, gs_krylov_bicgstab, gs_krylov_gmres,
    gs_krylov_fgmres, gs_krylov_minres;

static const gs_krylov_method *const REGISTRY[] = {
    [GS_KRYLOV_CG] = &gs_krylov_cg,
    [GS_KRYLOV_BICGSTAB] = &gs_krylov_bicgstab,
    [GS_KRYLOV_GMRES] = &gs_krylov_gmres,
    [GS_KRYLOV_FGMRES] = &gs_krylov_fgmres,
    [GS_KRYLOV_MINRES] = &gs_krylov_minres,
};
#define NREG (int)(sizeof REGISTRY / sizeof REGISTRY[0])

const gs_krylov_method *gs_krylov_at(int i) { return i >= 0 && i < NREG ? REGISTRY[i] : NULL; }

int gs_krylov_index(const gs_krylov_method *m)
{
    for (int i = 0; i < NREG; i++)
        if (REGISTRY[i] == m) return i;
    return -1;
}

const gs_krylov_method *gs_krylov_find(const char *name)
{
    for (int i = 0; name && i < NREG; i++)
        if (strcmp(REGISTRY[i]->name, name) == 0) return REGISTRY[i];
    return NULL;
}

const char *gs_krylov_choices(void)
{
    static char buf[256];
    if (!buf[0])
        for (int i = 0; i < NREG; i++) gs_str_add_choice(buf, sizeof buf, REGISTRY[i]->name);
    return buf;
}

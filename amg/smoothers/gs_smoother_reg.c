/* gs_smoother_reg.c: the registry of AMG smoothers (gs_smoother.h). Adding a smoother: its file
 * in amg/smoothers/ and one line below. */
#include <string.h>

#include "gs_smoother.h"

extern const gs_smoother gs_smoother_jacobi, gs_smoother_l1jacobi, gs_smoother_gs,
    gs_smoother_chebyshev;

static const gs_smoother *const REGISTRY[] = {
    &gs_smoother_jacobi,
    &gs_smoother_l1jacobi,
    &gs_smoother_gs,
    &gs_smoother_chebyshev,
};
#define NREG (sizeof REGISTRY / sizeof REGISTRY[0])

const gs_smoother *gs_smoother_at(int i)
{
    return i >= 0 && (size_t)i < NREG ? REGISTRY[i] : NULL;
}

const gs_smoother *gs_smoother_find(const char *name)
{
    for (size_t i = 0; name && i < NREG; i++)
        if (strcmp(REGISTRY[i]->name, name) == 0) return REGISTRY[i];
    return NULL;
}

const gs_smoother *gs_smoother_default(void)
{
    return &gs_smoother_chebyshev;
}

const char *gs_smoother_choices(void)
{
    static char buf[256];
    if (!buf[0])
        for (size_t i = 0; i < NREG; i++) gs_str_add_choice(buf, sizeof buf, REGISTRY[i]->name);
    return buf;
}

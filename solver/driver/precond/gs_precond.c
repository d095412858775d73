/* gs_precond.c: the preconditioners' registry (gs_precond.h): one line per entry. */
#include "gs_precond.h"

#include <string.h>

#include "gs_mem.h"

static const gs_precond *const REGISTRY[] = {&gs_pc_none, &gs_pc_jacobi, &gs_pc_amg};
#define NREG ((int)(sizeof REGISTRY / sizeof *REGISTRY))

const gs_precond *gs_precond_at(int i)
{
    return i >= 0 && i < NREG ? REGISTRY[i] : NULL;
}

const gs_precond *gs_precond_find(const char *name)
{
    for (int i = 0; name && i < NREG; i++)
        if (strcmp(REGISTRY[i]->name, name) == 0) return REGISTRY[i];
    return NULL;
}

const char *gs_precond_choices(void)
{
    static char buf[128];
    if (!buf[0])
        for (int i = 0; i < NREG; i++) gs_str_add_choice(buf, sizeof buf, REGISTRY[i]->name);
    return buf;
}

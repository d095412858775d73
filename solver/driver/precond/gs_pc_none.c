/* gs_pc_none.c: no preconditioner (M = I). */
#include "gs_precond.h"

static gs_status build(gs_pc_build *b)
{
    (void)b;
    return GS_OK;
}

const gs_precond gs_pc_none = {"none", "no preconditioner: the Krylov method on A alone", build};

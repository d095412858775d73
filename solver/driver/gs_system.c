/* gs_system.c: the systems a solve takes (gs_system.h): one rank's rows gathered. */
#include "gs_system.h"

#include "gs_comm.h"
#include "gs_mem.h"

gs_status gs_dproblem_gather(const gs_dproblem *d, const double *x, double *all)
{
    gs_status st = GS_OK;
    const int R = d->part->nranks, me = gs_comm_rank();
    size_t *bytes = NULL;
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *bytes, "gather", (void **)&bytes));
    for (int r = 0; r < R; r++)
        bytes[r] = (size_t)(d->part->start[r + 1] - d->part->start[r]) * sizeof(double);
    GS_CHECK(gs_comm_gatherv(x, bytes[me], all, bytes, 0));
done:
    gs_free(bytes);
    return st;
}

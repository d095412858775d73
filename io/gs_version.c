/* gs_version.c: the version and commit strings of this build, and its features. */
#include "gs_version.h"

#include <stdio.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_comm.h"
#include "gs_h5.h"

#ifndef GSOLVE_VERSION
#define GSOLVE_VERSION "unknown"
#endif
#ifndef GSOLVE_COMMIT
#define GSOLVE_COMMIT ""
#endif

const char *gs_version(void)
{
    return GSOLVE_VERSION;
}

const char *gs_version_commit(void)
{
    return GSOLVE_COMMIT;
}

const char *gs_version_string(void)
{
    static const char with_commit[] = GSOLVE_VERSION " (commit " GSOLVE_COMMIT ")";
    return GSOLVE_COMMIT[0] ? with_commit : GSOLVE_VERSION;
}

void gs_version_features(char *out, size_t len)
{
    char rt[32], drv[32], mod[64], h5[32], cuda[160];
    gs_backend_cuda_versions(rt, drv, mod, sizeof rt);
#ifdef GSOLVE_CUDA_ARCHITECTURES
    snprintf(cuda, sizeof cuda, "%s (driver %s), architectures %s", rt, drv,
             GSOLVE_CUDA_ARCHITECTURES);
#else
    snprintf(cuda, sizeof cuda, "no");
#endif
    const char *mpi = gs_comm_library();
    gs_h5_version(h5, sizeof h5);
#ifdef _OPENMP
    const char *omp = "yes";
#else
    const char *omp = "no";
#endif
    snprintf(out, len, "cuda: %s\nmpi: %s\nhdf5: %s\nopenmp: %s\n", cuda,
             strcmp(mpi, "none") == 0 ? "no" : mpi, h5, omp);
}

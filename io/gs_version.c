/* gs_version.c: the version and commit strings of this build. */
#include "gs_version.h"

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

/* gs_knob.c: the diagnostic settings (gs_knob.h). */
#include "gs_knob.h"

#include <stdlib.h>
#include <string.h>

#include "gs_mem.h"

/* every knob, with what it does (docs/design.md lists them too) */
static const char *const NAMES[] = {
    "GSOLVE_FAIL_ALLOC",           /* K: the K-th host allocation fails */
    "GSOLVE_FAIL_DEVICE_ALLOC",    /* K: the K-th device allocation fails */
    "GSOLVE_DEVICE_MEMORY_LIMIT",  /* bytes: the device pool refuses to grow past it */
    "GSOLVE_POOL_PREPARE",         /* 0: no device pool grown ahead of the setup */
    "GSOLVE_SELECT_TRACE",         /* set: the format selector's timings as log notes */
    "GSOLVE_SPGEMM_TRACE",         /* set: the SpGEMM's bins as log notes */
    "GSOLVE_SPGEMM_BOUND_MAX",     /* rows' product bound above which a row is binned as long */
    "GSOLVE_GALERKIN_CHUNKS",      /* K: every Galerkin product by K chunks (gs_galerkin_chunks) */
    "GSOLVE_AMG_DEFER",            /* 1 (0): level 0's format deferred (not) where its CSR goes */
    "GSOLVE_MPI_STAGE",            /* set: halos through page-locked host staging */
    "GSOLVE_MPI_IPC",              /* 0: no CUDA IPC between the ranks of a node */
    "GSOLVE_IPC_CONNECT",          /* the IPC connection mode */
    "GSOLVE_DIST_PROFILE",         /* set: the distributed operator's timings as log notes */
    "GSOLVE_DIST_GRAPH",           /* 0: no CUDA graph of the distributed cycle */
    "GSOLVE_DIST_PLAN_BYTES",      /* device bytes of an exchange plan before it is split */
    "GSOLVE_UPLOAD_SPLIT_PART",    /* rows of one part of a split upload */
    NULL};
#define NKNOBS (sizeof NAMES / sizeof *NAMES - 1)
#define VALUE_CAP 64

static char g_value[NKNOBS][VALUE_CAP];
static unsigned char g_set[NKNOBS];

const char *const *gs_knob_names(void) { return NAMES; }

static int find(const char *name)
{
    for (size_t i = 0; name && i < NKNOBS; i++)
        if (strcmp(NAMES[i], name) == 0) return (int)i;
    return -1;
}

gs_status gs_knob_set(const char *name, const char *value)
{
    int i = find(name);
    if (i < 0) return GS_ERROR(GS_ERR_ARG, "unknown diagnostic setting \"%s\"", name ? name : "");
    if (!value) {
        g_set[i] = 0;
        return GS_OK;
    }
    if (strlen(value) >= VALUE_CAP)
        return GS_ERROR(GS_ERR_ARG, "diagnostic setting %s: the value is longer than %d characters",
                        name, VALUE_CAP - 1);
    gs_str_copy(g_value[i], VALUE_CAP, value);
    g_set[i] = 1;
    return GS_OK;
}

const char *gs_knob(const char *name)
{
    int i = find(name);
    return i >= 0 && g_set[i] ? g_value[i] : NULL;
}

int64_t gs_knob_i64(const char *name, int64_t min, int64_t fallback)
{
    const char *e = gs_knob(name);
    char *end = NULL;
    const long long v = e ? strtoll(e, &end, 10) : 0;
    return e && end != e && *end == '\0' && v >= min ? (int64_t)v : fallback;
}

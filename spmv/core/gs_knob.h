/* gs_knob.h: the diagnostic settings: fault injection, traces and overrides of internal
 * choices that tests and measurements use (GSOLVE_FAIL_ALLOC, GSOLVE_MPI_STAGE, ...). The
 * library never reads the environment: the application hands them in (gsolve_set_diagnostic in
 * gsolve.h; the gsolve program maps the GSOLVE_* variables of its environment onto them). They
 * are the process's, like the device they act on; every one is off unless set. */
#ifndef GS_KNOB_H
#define GS_KNOB_H

#include <stdint.h>

#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The names known, NULL-terminated (the environment variables of the same name). */
const char *const *gs_knob_names(void);

/* Set (value NULL: unset) a knob; an unknown name is GS_ERR_ARG. */
gs_status gs_knob_set(const char *name, const char *value);

/* Its value, NULL when unset. */
const char *gs_knob(const char *name);

/* Its value as an integer of at least min, fallback when unset or not one. */
int64_t gs_knob_i64(const char *name, int64_t min, int64_t fallback);

#ifdef __cplusplus
}
#endif
#endif

/* gs_version.h: what gsolve build produced a result: the project version and, when the build
 * knows it (GSOLVE_COMMIT, defined by the build from git), the commit; the features built
 * (GSOLVE_CUDA_ARCHITECTURES: CMAKE_CUDA_ARCHITECTURES, defined by the build with CUDA). */
#ifndef GS_VERSION_H
#define GS_VERSION_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The project version, "0.1.0" (CMakeLists.txt's project version). */
const char *gs_version(void);

/* The commit the build came from ("3f2c1ab", "3f2c1ab-dirty"), or "" when unknown. */
const char *gs_version_commit(void);

/* "0.1.0 (commit 3f2c1ab)", or "0.1.0" when the commit is unknown: what --version prints and
 * the result records carry. */
const char *gs_version_string(void);

/* What this build can do, one "name: value" line each, for --version: cuda (the runtime's
 * version, the driver's and the GPU architectures built, or "no"), mpi (the library, or "no"),
 * hdf5 (the library's version), openmp (yes or no). */
void gs_version_features(char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif

/* gs_mem.h: host allocation with a live count and failure injection, and buffer locations.
 *
 * All host memory of gsolve goes through gs_malloc/gs_calloc/gs_realloc/gs_free so that
 * tests can make the k-th allocation fail (CSparse's trick) and check that nothing leaks.
 */
#ifndef GS_MEM_H
#define GS_MEM_H

#include <stddef.h>

#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a buffer lives. */
typedef enum gs_loc { GS_LOC_HOST = 0, GS_LOC_DEVICE = 1 } gs_loc;

/* Plain allocators: NULL on failure (real or injected); gs_free(NULL) is a no-op. */
void *gs_malloc(size_t bytes);
void *gs_calloc(size_t count, size_t size);
void *gs_realloc(void *p, size_t bytes);
void gs_free(void *p);

/* *out = gs_malloc(count*size) (overflow-checked); on failure records
 * "out of memory: could not allocate N bytes for WHAT" and returns GS_ERR_NOMEM. */
gs_status gs_alloc_array(size_t count, size_t size, const char *what, void **out);

/* Copy src into dst of capacity cap, truncating, always NUL-terminated. */
void gs_str_copy(char *dst, size_t cap, const char *src);

/* Test hooks: make the k-th allocation from now fail (k >= 1; 0 turns injection off);
 * the number of host allocations not yet freed; allocations made since start. A program
 * started with GSOLVE_FAIL_ALLOC=K in its environment has its K-th allocation fail (until
 * gs_mem_fail_at is called). */
void gs_mem_fail_at(long k);
long gs_mem_live(void);
long gs_mem_count(void);

#ifdef __cplusplus
}
#endif
#endif

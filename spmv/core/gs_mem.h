/* gs_mem.h: host allocation with a live count and failure injection, buffer locations, and small
 * helpers (strings).
 *
 * All host memory of gsolve goes through gs_malloc/gs_calloc/gs_realloc/gs_free so that
 * tests can make the k-th allocation fail (CSparse's trick) and check that nothing leaks.
 */
#ifndef GS_MEM_H
#define GS_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a buffer lives. */
typedef enum gs_loc { GS_LOC_HOST = 0, GS_LOC_DEVICE = 1 } gs_loc;

/* The type of an array's elements. Buffers, vectors and matrices carry it (their values' type):
 * the value type double (GS_F64, 0, what zeroed structs hold) is the one with kernels; GS_F32
 * marks single-precision values, which the backends refuse until they have kernels for them
 * (gs_backend_for). */
typedef enum gs_dtype { GS_F64 = 0, GS_I32, GS_I64, GS_F32 } gs_dtype;

/* Plain allocators: NULL on failure (real or injected); gs_free(NULL) is a no-op. */
void *gs_malloc(size_t bytes);
void *gs_calloc(size_t count, size_t size);
void *gs_realloc(void *p, size_t bytes);
void gs_free(void *p);

/* *out = gs_malloc(count*size) (overflow-checked); on failure records
 * "out of memory: could not allocate N bytes for WHAT" and returns GS_ERR_NOMEM. */
gs_status gs_alloc_array(size_t count, size_t size, const char *what, void **out);

/* Page-locked (pinned) host memory for arrays bound for the device.
 *
 * A device backend registers its allocator when it starts (gs_mem_set_pinned; alloc returns
 * NULL when it cannot give the memory). From then on gs_alloc_pinned returns page-locked blocks
 * for arrays of GS_PINNED_MIN bytes or more, which the backend copies to the device directly
 * at full bandwidth instead of staging them; smaller arrays, a refused request, or no
 * registered allocator (no GPU, host builds) give ordinary memory. gs_free and gs_realloc
 * accept either kind: each pinned block is released by the function that came with it. */
#define GS_PINNED_MIN ((size_t)1 << 20)
typedef void *(*gs_pinned_alloc_fn)(size_t bytes);
typedef void (*gs_pinned_free_fn)(void *p);
void gs_mem_set_pinned(gs_pinned_alloc_fn alloc, gs_pinned_free_fn release); /* NULLs: none */

/* As gs_alloc_array, page-locked where the rule above allows. */
gs_status gs_alloc_pinned(size_t count, size_t size, const char *what, void **out);

/* Turn pinned allocation off (0) or back on (1) for this process; returns the previous
 * setting. Blocks already made keep their kind. */
int gs_mem_pinned_enable(int on);

/* 1 when p is a block made page-locked by gs_alloc_pinned, else 0. */
int gs_mem_is_pinned(const void *p);

/* Copy src into dst of capacity cap, truncating, always NUL-terminated. */
void gs_str_copy(char *dst, size_t cap, const char *src);

/* Append "|name" to dst (name alone when dst is empty), truncating as gs_str_copy: a registry's
 * names as the "a|b|c" choices of a config key. */
void gs_str_add_choice(char *dst, size_t cap, const char *name);

/* Test hooks: make the k-th allocation from now fail (k >= 1; 0 turns injection off);
 * the number of host allocations not yet freed; allocations made since start. With the
 * diagnostic GSOLVE_FAIL_ALLOC=K set (gs_knob.h) before its first allocation, a program has
 * its K-th allocation fail (until gs_mem_fail_at is called). */
void gs_mem_fail_at(long k);
long gs_mem_live(void);
long gs_mem_count(void);

#ifdef __cplusplus
}
#endif
#endif

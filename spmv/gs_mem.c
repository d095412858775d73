/* gs_mem.c: counted host allocation with failure injection. */
#include "gs_mem.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static atomic_long g_live;
static atomic_long g_count;
static atomic_long g_fail_at; /* countdown: the allocation that brings it to 0 fails */
static atomic_int g_env_read; /* GSOLVE_FAIL_ALLOC looked at (or gs_mem_fail_at called) */

/* GSOLVE_FAIL_ALLOC=K in the environment makes the K-th host allocation of the process fail:
 * the injection of gs_mem_fail_at for whole programs (gsolve itself), read once. */
static void read_env(void)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&g_env_read, &expected, 1)) return;
    const char *s = getenv("GSOLVE_FAIL_ALLOC");
    long k = s ? strtol(s, NULL, 10) : 0;
    if (k > 0) atomic_store(&g_fail_at, k);
}

/* 1 when this allocation must fail because of injection. */
static int injected_failure(void)
{
    if (!atomic_load(&g_env_read)) read_env();
    atomic_fetch_add(&g_count, 1);
    long k = atomic_load(&g_fail_at);
    if (k <= 0) return 0;
    if (atomic_fetch_sub(&g_fail_at, 1) == 1) return 1;
    return 0;
}

void *gs_malloc(size_t bytes)
{
    if (injected_failure()) return NULL;
    void *p = malloc(bytes ? bytes : 1);
    if (p) atomic_fetch_add(&g_live, 1);
    return p;
}

void *gs_calloc(size_t count, size_t size)
{
    if (injected_failure()) return NULL;
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (p) atomic_fetch_add(&g_live, 1);
    return p;
}

void *gs_realloc(void *p, size_t bytes)
{
    if (!p) return gs_malloc(bytes);
    if (injected_failure()) return NULL;
    return realloc(p, bytes ? bytes : 1);
}

void gs_free(void *p)
{
    if (!p) return;
    atomic_fetch_sub(&g_live, 1);
    free(p);
}

gs_status gs_alloc_array(size_t count, size_t size, const char *what, void **out)
{
    *out = NULL;
    if (size && count > SIZE_MAX / size)
        return GS_ERROR(GS_ERR_NOMEM, "out of memory: %zu x %zu bytes for %s overflows", count,
                        size, what);
    void *p = gs_malloc(count * size);
    if (!p)
        return GS_ERROR(GS_ERR_NOMEM, "out of memory: could not allocate %zu bytes for %s",
                        count * size, what);
    *out = p;
    return GS_OK;
}

void gs_mem_fail_at(long k)
{
    atomic_store(&g_env_read, 1); /* an explicit setting overrides the environment's */
    atomic_store(&g_fail_at, k > 0 ? k : 0);
}

long gs_mem_live(void)
{
    return atomic_load(&g_live);
}

long gs_mem_count(void)
{
    return atomic_load(&g_count);
}

void gs_str_copy(char *dst, size_t cap, const char *src)
{
    if (!cap) return;
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

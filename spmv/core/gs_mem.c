/* gs_mem.c: counted host allocation with failure injection; page-locked blocks on request. */
#include "gs_mem.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gs_knob.h"

static atomic_long g_live;
static atomic_long g_count;
static atomic_long g_fail_at; /* countdown: the allocation that brings it to 0 fails */
static atomic_int g_env_read; /* GSOLVE_FAIL_ALLOC looked at (or gs_mem_fail_at called) */

/* Pinned blocks: the registered allocator and the live blocks, each with its release function
 * (so one made before a change of allocator is still freed right). Few and large (arrays of
 * a megabyte or more), so a small table under a spin lock does; when it is full, new arrays
 * get ordinary memory. */
#define PINNED_SLOTS 64
typedef struct pinned_block {
    void *p;
    size_t bytes;
    gs_pinned_free_fn release;
} pinned_block;
static gs_pinned_alloc_fn g_pin_alloc;
static gs_pinned_free_fn g_pin_free;
static atomic_int g_pin_off; /* gs_mem_pinned_enable(0) */
static atomic_int g_npinned; /* blocks in the table */
static pinned_block g_pinned[PINNED_SLOTS];
static atomic_flag g_pin_lock = ATOMIC_FLAG_INIT;

/* the diagnostic GSOLVE_FAIL_ALLOC=K (gs_knob.h) makes the K-th host allocation of the process
 * fail: the injection of gs_mem_fail_at for whole programs (gsolve itself), read once. */
static void read_env(void)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&g_env_read, &expected, 1)) return;
    const char *s = gs_knob("GSOLVE_FAIL_ALLOC");
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

static void pin_lock(void)
{
    while (atomic_flag_test_and_set_explicit(&g_pin_lock, memory_order_acquire)) {
    }
}

static void pin_unlock(void)
{
    atomic_flag_clear_explicit(&g_pin_lock, memory_order_release);
}

/* Take p out of the table; its release function, or NULL when p is not a pinned block. */
static gs_pinned_free_fn pinned_take(void *p, size_t *bytes)
{
    gs_pinned_free_fn release = NULL;
    pin_lock();
    for (int i = 0; i < PINNED_SLOTS; i++)
        if (g_pinned[i].p == p) {
            release = g_pinned[i].release;
            if (bytes) *bytes = g_pinned[i].bytes;
            g_pinned[i].p = NULL;
            atomic_fetch_sub(&g_npinned, 1);
            break;
        }
    pin_unlock();
    return release;
}

/* Release p if it is a pinned block: 1, else 0 (not ours: the caller frees it). */
static int pinned_release(void *p)
{
    gs_pinned_free_fn release = pinned_take(p, NULL);
    if (release) release(p);
    return release != NULL;
}

/* gs_realloc of pinned block p: its contents move to ordinary memory (a resized array is no
 * longer a finished upload source). NULL, p untouched, when the memory is not there. */
static void *pinned_move(void *p, size_t bytes)
{
    size_t old = 0;
    void *q = malloc(bytes ? bytes : 1);
    if (!q) return NULL;
    gs_pinned_free_fn release = pinned_take(p, &old);
    memcpy(q, p, old < bytes ? old : bytes);
    release(p);
    return q;
}

void gs_mem_set_pinned(gs_pinned_alloc_fn alloc, gs_pinned_free_fn release)
{
    pin_lock();
    g_pin_alloc = alloc && release ? alloc : NULL;
    g_pin_free = alloc && release ? release : NULL;
    pin_unlock();
}

int gs_mem_pinned_enable(int on)
{
    return !atomic_exchange(&g_pin_off, !on);
}

int gs_mem_is_pinned(const void *p)
{
    int found = 0;
    if (!p || atomic_load(&g_npinned) == 0) return 0;
    pin_lock();
    for (int i = 0; i < PINNED_SLOTS && !found; i++) found = g_pinned[i].p == p;
    pin_unlock();
    return found;
}

/* A pinned block of `bytes` in a free slot; NULL when none can be had (no allocator, pinning
 * off, table full, or the allocator refused). */
static void *pinned_get(size_t bytes)
{
    void *p = NULL;
    int slot = -1;
    gs_pinned_alloc_fn alloc;
    gs_pinned_free_fn release;
    pin_lock();
    alloc = atomic_load(&g_pin_off) ? NULL : g_pin_alloc;
    release = g_pin_free;
    for (int i = 0; alloc && i < PINNED_SLOTS && slot < 0; i++)
        if (!g_pinned[i].p) slot = i;
    if (slot >= 0) g_pinned[slot].p = &g_pinned[slot]; /* reserved while the lock is off */
    pin_unlock();
    if (slot < 0) return NULL;
    p = alloc(bytes); /* slow (the pages are locked one by one): outside the lock */
    pin_lock();
    g_pinned[slot].p = p;
    g_pinned[slot].bytes = bytes;
    g_pinned[slot].release = release;
    if (p) atomic_fetch_add(&g_npinned, 1);
    pin_unlock();
    return p;
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
    if (atomic_load(&g_npinned) > 0 && gs_mem_is_pinned(p)) return pinned_move(p, bytes);
    return realloc(p, bytes ? bytes : 1);
}

void gs_free(void *p)
{
    if (!p) return;
    atomic_fetch_sub(&g_live, 1);
    if (atomic_load(&g_npinned) > 0 && pinned_release(p)) return;
    free(p);
}

gs_status gs_alloc_pinned(size_t count, size_t size, const char *what, void **out)
{
    void *p = NULL;
    *out = NULL;
    if ((size && count > SIZE_MAX / size) || count * size < GS_PINNED_MIN)
        return gs_alloc_array(count, size, what, out);
    if (injected_failure())
        return GS_ERROR(GS_ERR_NOMEM, "out of memory: could not allocate %zu bytes for %s",
                        count * size, what);
    p = pinned_get(count * size);
    if (!p) p = malloc(count * size); /* pinning refused: ordinary memory, staged upload */
    if (!p)
        return GS_ERROR(GS_ERR_NOMEM, "out of memory: could not allocate %zu bytes for %s",
                        count * size, what);
    atomic_fetch_add(&g_live, 1);
    *out = p;
    return GS_OK;
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

void gs_str_add_choice(char *dst, size_t cap, const char *name)
{
    size_t used = strnlen(dst, cap);
    if (used + 1 >= cap) return;
    if (used) dst[used++] = '|', dst[used] = '\0';
    gs_str_copy(dst + used, cap - used, name);
}

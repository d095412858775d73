/* gs_log.c: the calling thread's logger and the text sinks (gs_log.h). */
#include "gs_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static _Thread_local gs_log_fn g_fn;
static _Thread_local void *g_user;

void gs_log_set(gs_log_fn fn, void *user, gs_log_fn *old_fn, void **old_user)
{
    if (old_fn) *old_fn = g_fn;
    if (old_user) *old_user = g_user;
    g_fn = fn;
    g_user = user;
}

void gs_log(int level, const char *fmt, ...)
{
    if (!g_fn) return;
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    g_fn(g_user, level, msg);
}

void gs_outf(const gs_out *out, const char *fmt, ...)
{
    if (!out || !out->fn) return;
    char small[512];
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        va_end(aq);
        return;
    }
    if ((size_t)n < sizeof small) {
        va_end(aq);
        out->fn(out->ctx, small);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (big) {
        vsnprintf(big, (size_t)n + 1, fmt, aq);
        out->fn(out->ctx, big);
        free(big);
    }
    va_end(aq);
}

static void text_add(void *ctx, const char *text)
{
    gs_text *t = ctx;
    size_t n = strlen(text);
    if (t->failed) return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->len + n + 1) cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->failed = 1;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
    memcpy(t->s + t->len, text, n + 1);
    t->len += n;
}

gs_out gs_text_out(gs_text *t)
{
    gs_out o = {text_add, t};
    return o;
}

void gs_text_release(gs_text *t)
{
    if (!t) return;
    free(t->s);
    memset(t, 0, sizeof *t);
}

/* gs_log.h: where the library's messages go. The library never prints: warnings and notes go
 * to the log callback of the calling thread (the public API sets it from its context around
 * each call; NULL, the default, drops them), and text meant for a console (the run's header,
 * iteration lines, reports) goes to a gs_out sink the caller hands in. */
#ifndef GS_LOG_H
#define GS_LOG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the levels of gsolve.h's GSOLVE_LOG_* */
enum { GS_LOG_ERROR = 0, GS_LOG_WARN = 1, GS_LOG_INFO = 2 };

typedef void (*gs_log_fn)(void *user, int level, const char *msg);

/* The calling thread's logger (fn NULL: messages are dropped); the previous one into old_fn,
 * old_user when they are not NULL. */
void gs_log_set(gs_log_fn fn, void *user, gs_log_fn *old_fn, void **old_user);

/* One message (printf-style, without the trailing newline) to the calling thread's logger. */
void gs_log(int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A text sink: fn(ctx, text) receives each piece of text as it is made. */
typedef struct gs_out {
    void (*fn)(void *ctx, const char *text);
    void *ctx;
} gs_out;

/* printf-style text into out (nothing when out or out->fn is NULL). */
void gs_outf(const gs_out *out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A growing string: a gs_out whose text is kept (gs_text_out gives the sink). */
typedef struct gs_text {
    char *s; /* NULL until text comes; freed by gs_text_release */
    size_t len, cap;
    int failed; /* an allocation failed: the text is cut short */
} gs_text;
gs_out gs_text_out(gs_text *t);
void gs_text_release(gs_text *t);

#ifdef __cplusplus
}
#endif
#endif

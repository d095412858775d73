/* gs_status.h: one status enum for all of gsolve, error messages and a short trace.
 *
 * A function that can fail returns gs_status. The first failure records a message
 * (GS_ERROR / gs_error); every GS_CHECK that propagates it adds a "file:line" frame,
 * so the user sees what went wrong and where, never a bare "error".
 */
#ifndef GS_STATUS_H
#define GS_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gs_status {
    GS_OK = 0,
    GS_ERR_ARG,         /* bad argument from the caller (or the user) */
    GS_ERR_NOMEM,       /* host or device allocation failed */
    GS_ERR_IO,          /* a file could not be opened or read */
    GS_ERR_INPUT,       /* a file's contents are not what was expected */
    GS_ERR_CONFIG,      /* a configuration key or value is wrong */
    GS_ERR_CUDA,        /* CUDA runtime error */
    GS_ERR_CUSPARSE,    /* cuSPARSE error */
    GS_ERR_CUBLAS,      /* cuBLAS error */
    GS_ERR_UNSUPPORTED, /* valid request this build or input cannot do */
    GS_ERR_WRITE,       /* an output file could not be written */
    GS_ERR_INTERNAL     /* a bug: an invariant did not hold */
} gs_status;

/* Short name of a status ("bad input file", ...). */
const char *gs_status_str(gs_status st);

/* Process exit code for a failure: 2 for bad input/config/usage, 1 for runtime failures. */
int gs_status_exit_code(gs_status st);

/* Record a failure message (printf-style) unless one is already recorded; returns st. */
gs_status gs_error(gs_status st, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Add a "file:line" frame to the trace of the current failure. */
void gs_error_trace(const char *file, int line);

/* The recorded message ("" when none) and trace ("a.c:10 <- b.c:20", "" when none). */
const char *gs_error_message(void);
const char *gs_error_trace_str(void);

/* Forget the recorded failure (before an operation whose failure is handled). */
void gs_error_clear(void);

#define GS_ERROR(st, ...) gs_error((st), __FILE__, __LINE__, __VA_ARGS__)

/* Propagate a failure: needs `gs_status st` and a `done:` cleanup label in scope. */
#define GS_CHECK(expr)                                                                             \
    do {                                                                                           \
        gs_status gs_check_st_ = (expr);                                                           \
        if (gs_check_st_ != GS_OK) {                                                               \
            gs_error_trace(__FILE__, __LINE__);                                                    \
            st = gs_check_st_;                                                                     \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* Fail here with a message: needs `gs_status st` and `done:` in scope. */
#define GS_FAIL(code, ...)                                                                         \
    do {                                                                                           \
        st = gs_error((code), __FILE__, __LINE__, __VA_ARGS__);                                    \
        goto done;                                                                                 \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif

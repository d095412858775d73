/* gs_test.h: the few assertion macros the C tests use. A failed check prints file:line and
 * the expression and counts as a failure; main returns gs_test_result(). */
#ifndef GS_TEST_H
#define GS_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_status.h"

static int gs_test_failures;
static int gs_test_checks;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        gs_test_checks++;                                                                          \
        if (!(cond)) {                                                                             \
            gs_test_failures++;                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        gs_test_checks++;                                                                          \
        if (!(cond)) {                                                                             \
            gs_test_failures++;                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* expr must return GS_OK */
#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        gs_status chk_st_ = (expr);                                                                \
        CHECK_MSG(chk_st_ == GS_OK, "%s: %s (%s)", gs_status_str(chk_st_), gs_error_message(),     \
                  gs_error_trace_str());                                                           \
        gs_error_clear();                                                                          \
    } while (0)

/* expr must fail with status code and a message containing substr */
#define CHECK_FAIL(expr, code, substr)                                                             \
    do {                                                                                           \
        gs_error_clear();                                                                          \
        gs_status chk_st_ = (expr);                                                                \
        CHECK_MSG(chk_st_ == (code), "got %s, expected %s; message: %s", gs_status_str(chk_st_),   \
                  gs_status_str(code), gs_error_message());                                        \
        CHECK_MSG(strstr(gs_error_message(), (substr)) != NULL, "message \"%s\" lacks \"%s\"",     \
                  gs_error_message(), (substr));                                                   \
        gs_error_clear();                                                                          \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                      \
    CHECK_MSG(fabs((double)(a) - (double)(b)) <= (tol) * (1.0 + fabs((double)(b))),                \
              "%.17g vs %.17g", (double)(a), (double)(b))

static inline int gs_test_result(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, gs_test_checks, gs_test_failures);
    return gs_test_failures ? 1 : 0;
}

/* Path of a file in the real-matrix folder, or NULL when that folder is not configured. */
static inline const char *gs_test_matrix(const char *file, char *buf, size_t len)
{
    const char *dir = getenv("GS_MATRICES");
    if (!dir || !*dir) return NULL;
    snprintf(buf, len, "%s/%s", dir, file);
    return buf;
}

#endif

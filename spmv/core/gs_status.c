/* gs_status.c: status names, exit codes and the per-thread failure record. */
#include "gs_status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MSG_CAP 1024
#define TRACE_CAP 512

static _Thread_local char g_msg[MSG_CAP];
static _Thread_local char g_trace[TRACE_CAP];
static _Thread_local int g_have_msg;

const char *gs_status_str(gs_status st)
{
    switch (st) {
    case GS_OK: return "ok";
    case GS_ERR_ARG: return "bad argument";
    case GS_ERR_NOMEM: return "out of memory";
    case GS_ERR_IO: return "cannot read file";
    case GS_ERR_INPUT: return "bad input file";
    case GS_ERR_CONFIG: return "bad configuration";
    case GS_ERR_CUDA: return "CUDA error";
    case GS_ERR_CUSPARSE: return "cuSPARSE error";
    case GS_ERR_CUBLAS: return "cuBLAS error";
    case GS_ERR_UNSUPPORTED: return "not supported";
    case GS_ERR_WRITE: return "cannot write file";
    case GS_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

int gs_status_exit_code(gs_status st)
{
    switch (st) {
    case GS_OK: return 0;
    case GS_ERR_ARG:
    case GS_ERR_IO:
    case GS_ERR_INPUT:
    case GS_ERR_CONFIG:
    case GS_ERR_UNSUPPORTED: return 2;
    default: return 1;
    }
}

gs_status gs_error(gs_status st, const char *file, int line, const char *fmt, ...)
{
    if (!g_have_msg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(g_msg, sizeof g_msg, fmt, ap);
        va_end(ap);
        g_have_msg = 1;
        g_trace[0] = '\0';
        gs_error_trace(file, line);
    }
    return st;
}

void gs_error_trace(const char *file, int line)
{
    const char *base = strrchr(file, '/');
    size_t len = strlen(g_trace);
    if (len + 2 >= sizeof g_trace) return;
    snprintf(g_trace + len, sizeof g_trace - len, "%s%s:%d", len ? " <- " : "",
             base ? base + 1 : file, line);
}

const char *gs_error_message(void)
{
    return g_have_msg ? g_msg : "";
}

const char *gs_error_trace_str(void)
{
    return g_trace;
}

void gs_error_clear(void)
{
    g_have_msg = 0;
    g_msg[0] = '\0';
    g_trace[0] = '\0';
}

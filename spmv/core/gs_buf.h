/* gs_buf.h: an array that knows where it lives (host or device) and its element type, and the
 * one function that copies between locations. Index arrays, aggregates and near-nullspace
 * blocks travel as gs_buf instead of being dressed up as vectors of doubles.
 */
#ifndef GS_BUF_H
#define GS_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "gs_mem.h"
#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif


typedef struct gs_buf {
    void *data;
    int64_t n;     /* elements */
    gs_dtype type;
    gs_loc loc;
} gs_buf;

/* bytes of one element of type t */
size_t gs_dtype_size(gs_dtype t);

/* n uninitialised elements of type t at loc (that backend's allocator; `what` names it in an
 * out-of-memory message); free with gs_buf_destroy, which accepts NULL */
gs_status gs_buf_create(int64_t n, gs_dtype t, gs_loc loc, const char *what, gs_buf **out);
void gs_buf_destroy(gs_buf **b);

/* dst = src, wherever each lives (same type; dst at least as long): the one place that moves
 * arrays between host and device. Complete on return when dst is on the host. */
gs_status gs_buf_copy(const gs_buf *src, gs_buf *dst);

/* a copy of src at loc */
gs_status gs_buf_clone(const gs_buf *src, gs_loc loc, const char *what, gs_buf **out);

#ifdef __cplusplus
}
#endif
#endif

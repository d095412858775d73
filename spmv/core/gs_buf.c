/* gs_buf.c: typed arrays that know their location, and the copy between locations. */
#include "gs_buf.h"

#include "gs_backend.h"

size_t gs_dtype_size(gs_dtype t)
{
    return t == GS_F64 ? sizeof(double) : t == GS_I64 ? sizeof(int64_t) : t == GS_F32 ? sizeof(float)
                                                                                  : sizeof(int32_t);
}

gs_status gs_buf_create(int64_t n, gs_dtype t, gs_loc loc, const char *what, gs_buf **out)
{
    gs_status st = GS_OK;
    gs_buf *b = NULL;
    const gs_backend_ops *be = gs_backend_get(loc);
    *out = NULL;
    if (!be) return GS_ERROR(GS_ERR_ARG, "%s: no backend for its location", what);
    if (n < 0) return GS_ERROR(GS_ERR_ARG, "%s: negative length %lld", what, (long long)n);
    GS_CHECK(gs_alloc_array(1, sizeof *b, what, (void **)&b));
    b->n = n;
    b->type = t;
    b->loc = loc;
    b->data = NULL;
    /* one element more than asked: a zero-length array still has an address */
    GS_CHECK(be->alloc(((size_t)n + 1) * gs_dtype_size(t), what, &b->data));
    *out = b;
    b = NULL;
done:
    gs_buf_destroy(&b);
    return st;
}

void gs_buf_destroy(gs_buf **b)
{
    if (!b || !*b) return;
    if ((*b)->data) gs_backend_get((*b)->loc)->free((*b)->data);
    gs_free(*b);
    *b = NULL;
}

/* host -> host, host -> device, device -> host, device -> device */
gs_status gs_buf_copy(const gs_buf *src, gs_buf *dst)
{
    if (src->type != dst->type || dst->n < src->n)
        return GS_ERROR(GS_ERR_ARG, "gs_buf_copy: %lld elements of type %d into %lld of type %d",
                        (long long)src->n, (int)src->type, (long long)dst->n, (int)dst->type);
    size_t bytes = (size_t)src->n * gs_dtype_size(src->type);
    if (src->loc == GS_LOC_HOST) return gs_backend_get(dst->loc)->put(dst->data, src->data, bytes);
    if (dst->loc == GS_LOC_HOST) return gs_backend_get(src->loc)->get(dst->data, src->data, bytes);
    return gs_backend_get(src->loc)->move(dst->data, src->data, bytes);
}

gs_status gs_buf_clone(const gs_buf *src, gs_loc loc, const char *what, gs_buf **out)
{
    gs_status st = GS_OK;
    gs_buf *b = NULL;
    GS_CHECK(gs_buf_create(src->n, src->type, loc, what, &b));
    GS_CHECK(gs_buf_copy(src, b));
    *out = b;
    b = NULL;
done:
    gs_buf_destroy(&b);
    return st;
}

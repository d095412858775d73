/* gs_cuda_vec.cu: the vector operations of the CUDA backend (fill, axpby, pmul, all_finite,
 * the fused dot products and CG's fused update), mirroring gs_backend_host.c one for one.
 *
 * Reductions are deterministic: the first pass runs a grid whose size depends only on n
 * (at most GS_CUDA_RED_BLOCKS blocks), each block writes its partial sums in a fixed tree order,
 * and one block adds the partials in a fixed order. No atomics on doubles.
 */
#include <stdint.h>
#include <string.h>

#include "gs_cuda_impl.h"
#include "gs_cuda_reduce.cuh"

#define WARPS (GS_CUDA_THREADS / 32)

/* the k vector pairs of a fused reduction, passed by value */
typedef struct dots_args {
    const double *x[GS_MAX_DOTS];
    const double *y[GS_MAX_DOTS];
} dots_args;


/* x[i] = a */
static __global__ void fill_kernel(int64_t n, double a, double *x)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        x[i] = a;
}

/* y = a*x + b*y with the host's special cases: b == 0 never reads y, b == 1 is y += a*x */
static __global__ void axpby_kernel(int64_t n, double a, const double *x, double b, double *y)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        if (b == 0.0)
            y[i] = a * x[i];
        else if (b == 1.0)
            y[i] += a * x[i];
        else
            y[i] = a * x[i] + b * y[i];
    }
}

/* y[i] = d[i] * x[i] */
static __global__ void pmul_kernel(int64_t n, const double *d, const double *x, double *y)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        y[i] = d[i] * x[i];
}

/* *bad = 1 when some x[i] is NaN or Inf (every writer stores the same value) */
static __global__ void nonfinite_kernel(int64_t n, const double *__restrict__ x, int *bad)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        if (!isfinite(__ldg(x + i))) *bad = 1;
}

/* p = u + beta p, s = w + beta s, x += alpha p, r -= alpha s; u may alias r (read first) */
static __global__ void cg_update_kernel(int64_t n, double alpha, double beta, const double *u,
                                        const double *w, double *p, double *s, double *x, double *r)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        double ui = u[i], wi = w[i];
        double pi = ui + beta * p[i], si = wi + beta * s[i];
        p[i] = pi;
        s[i] = si;
        x[i] += alpha * pi;
        r[i] -= alpha * si;
    }
}

/* part[j*GS_CUDA_RED_BLOCKS + block] = this block's share of x[j].y[j], j < k.
 * The pairs may alias; nothing is written to them. */
static __global__ void dots_partial_kernel(int64_t n, int k, dots_args a, double *part)
{
    __shared__ double ws[GS_MAX_DOTS][WARPS];
    double s[GS_MAX_DOTS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int j = 0; j < GS_MAX_DOTS; j++) s[j] = 0.0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
#pragma unroll
        for (int j = 0; j < GS_MAX_DOTS; j++)
            if (j < k) s[j] += __ldg(a.x[j] + i) * __ldg(a.y[j] + i);
    }
#pragma unroll
    for (int j = 0; j < GS_MAX_DOTS; j++) {
        if (j < k) {
            double v = gs_warp_sum(s[j]);
            if (lane == 0) ws[j][warp] = v;
        }
    }
    __syncthreads();
    if (threadIdx.x < k) {
        double t = 0.0;
        for (int q = 0; q < WARPS; q++) t += ws[threadIdx.x][q];
        part[threadIdx.x * GS_CUDA_RED_BLOCKS + blockIdx.x] = t;
    }
}

/* out[j] = sum of the nblk partials of pair j, one block, fixed order */
static __global__ void dots_final_kernel(int k, int nblk, const double *part, double *out)
{
    __shared__ double ws[WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int j = 0; j < k; j++) {
        double t = 0.0;
        for (int b = threadIdx.x; b < nblk; b += blockDim.x) t += part[j * GS_CUDA_RED_BLOCKS + b];
        t = gs_warp_sum(t);
        if (lane == 0) ws[warp] = t;
        __syncthreads();
        if (threadIdx.x == 0) {
            double v = 0.0;
            for (int q = 0; q < WARPS; q++) v += ws[q];
            out[j] = v;
        }
        __syncthreads(); /* ws is reused by the next pair */
    }
}

/* x = a */
extern "C" gs_status gs_cuda_fill(double a, gs_vec *x)
{
    gs_status st = GS_OK;
    if (x->n <= 0) return GS_OK;
    fill_kernel<<<gs_cuda_grid(x->n), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(x->n, a, x->data);
    GS_CUDA_LAUNCHED("fill");
done:
    return st;
}

/* y = a*x + b*y (b == 0: y = a*x, whatever y held) */
extern "C" gs_status gs_cuda_axpby(double a, const gs_vec *x, double b, gs_vec *y)
{
    gs_status st = GS_OK;
    if (x->n <= 0) return GS_OK;
    axpby_kernel<<<gs_cuda_grid(x->n), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(x->n, a, x->data, b,
                                                                               y->data);
    GS_CUDA_LAUNCHED("axpby");
done:
    return st;
}

/* y = d .* x */
extern "C" gs_status gs_cuda_pmul(const gs_vec *d, const gs_vec *x, gs_vec *y)
{
    gs_status st = GS_OK;
    if (x->n <= 0) return GS_OK;
    pmul_kernel<<<gs_cuda_grid(x->n), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(x->n, d->data,
                                                                              x->data, y->data);
    GS_CUDA_LAUNCHED("pmul");
done:
    return st;
}

static __global__ void gather_kernel(int64_t n, const int32_t *idx, const double *x, double *out)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[idx[i]];
}

/* out[i] = x[idx[i]]: the values a rank sends its neighbours */
extern "C" gs_status gs_cuda_gather(int64_t n, const int32_t *idx, const double *x, double *out)
{
    gs_status st = GS_OK;
    if (n <= 0) return GS_OK;
    gather_kernel<<<gs_cuda_grid(n), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(n, idx, x, out);
    GS_CUDA_LAUNCHED("gather");
done:
    return st;
}

/* *out = 1 when every entry is finite: one flag on the device, one transfer */
extern "C" gs_status gs_cuda_all_finite(const gs_vec *x, int *out)
{
    gs_status st = GS_OK;
    gs_cuda_ctx *g = &gs_cuda_g;
    int *d_flag = (int *)(g->d_red + GS_CUDA_RED_MAX), *h_flag = (int *)(g->h_red + GS_CUDA_RED_MAX);
    *out = 1;
    if (x->n <= 0) return GS_OK;
    GS_CUDA_CALL(cudaMemsetAsync(d_flag, 0, sizeof(int), g->stream));
    nonfinite_kernel<<<gs_cuda_grid(x->n), GS_CUDA_THREADS, 0, g->stream>>>(x->n, x->data, d_flag);
    GS_CUDA_LAUNCHED("nonfinite");
    GS_CUDA_CALL(cudaMemcpyAsync(h_flag, d_flag, sizeof(int), cudaMemcpyDeviceToHost, g->stream));
    GS_CUDA_CALL(cudaStreamSynchronize(g->stream));
    *out = *h_flag ? 0 : 1;
done:
    return st;
}

/* out[j] = sum of the nblk partials of row j of d_part, j < k: one kernel, one transfer */
extern "C" gs_status gs_cuda_reduce_finish(int k, int nblk, double *out)
{
    gs_status st = GS_OK;
    gs_cuda_ctx *g = &gs_cuda_g;
    dots_final_kernel<<<1, GS_CUDA_THREADS, 0, g->stream>>>(k, nblk, g->d_part, g->d_red);
    GS_CUDA_LAUNCHED("dots_final");
    GS_CUDA_CALL(cudaMemcpyAsync(g->h_red, g->d_red, (size_t)k * sizeof(double),
                                 cudaMemcpyDeviceToHost, g->stream));
    GS_CUDA_CALL(cudaStreamSynchronize(g->stream));
    for (int j = 0; j < k; j++) out[j] = g->h_red[j];
done:
    return st;
}

/* out[j] = V[j].w: the partial kernel over groups of GS_MAX_DOTS vectors, then one final
 * reduction and one transfer for up to GS_CUDA_RED_MAX vectors */
/* out[s] = V[s % k].(s < k ? w1 : w2) for s < k (w2 NULL) or s < 2k: GS_MAX_DOTS sums per
 * kernel, one transfer per GS_CUDA_RED_MAX sums */
static gs_status multi_dots(int k, const gs_vec *const *V, const gs_vec *w1, const gs_vec *w2,
                            double *out)
{
    gs_status st = GS_OK;
    gs_cuda_ctx *g = &gs_cuda_g;
    const int64_t n = w1->n;
    const int nblk = gs_cuda_red_blocks(n);
    const int total = w2 ? 2 * k : k;
    for (int j = 0; j < total; j++) out[j] = 0.0;
    if (n <= 0) return GS_OK;
    for (int base = 0; base < total; base += GS_CUDA_RED_MAX) {
        int kk = total - base < GS_CUDA_RED_MAX ? total - base : GS_CUDA_RED_MAX;
        for (int c = 0; c < kk; c += GS_MAX_DOTS) {
            dots_args a;
            int m = kk - c < GS_MAX_DOTS ? kk - c : GS_MAX_DOTS;
            memset(&a, 0, sizeof a);
            for (int j = 0; j < m; j++) {
                int sidx = base + c + j;
                a.x[j] = V[sidx % k]->data;
                a.y[j] = sidx < k ? w1->data : w2->data;
            }
            dots_partial_kernel<<<nblk, GS_CUDA_THREADS, 0, g->stream>>>(
                n, m, a, g->d_part + (size_t)c * GS_CUDA_RED_BLOCKS);
            GS_CUDA_LAUNCHED("mdot_partial");
        }
        GS_CHECK(gs_cuda_reduce_finish(kk, nblk, out + base));
    }
done:
    return st;
}

extern "C" gs_status gs_cuda_mdot(int k, const gs_vec *const *V, const gs_vec *w, double *out)
{
    return multi_dots(k, V, w, NULL, out);
}

extern "C" gs_status gs_cuda_mdot2(int k, const gs_vec *const *V, const gs_vec *a,
                                   const gs_vec *b, double *out)
{
    return multi_dots(k, V, a, b, out);
}

static_assert(GS_MAX_DOTS == 4, "maxpy_kernel takes four coefficients");

/* y -= sum_j c[j] x[j] for up to GS_MAX_DOTS vectors (unused slots have c = 0, x = NULL) */
static __global__ void maxpy_kernel(int64_t n, int k, dots_args a, double c0, double c1,
                                    double c2, double c3, double *y)
{
    const double c[GS_MAX_DOTS] = {c0, c1, c2, c3};
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        double t = y[i];
#pragma unroll
        for (int j = 0; j < GS_MAX_DOTS; j++)
            if (j < k) t -= c[j] * __ldg(a.x[j] + i);
        y[i] = t;
    }
}

/* y -= sum_j c[j] V[j], GS_MAX_DOTS vectors per pass over y */
extern "C" gs_status gs_cuda_maxpy(int k, const double *c, const gs_vec *const *V, gs_vec *y)
{
    gs_status st = GS_OK;
    if (y->n <= 0) return GS_OK;
    for (int base = 0; base < k; base += GS_MAX_DOTS) {
        dots_args a;
        double cc[GS_MAX_DOTS] = {0.0, 0.0, 0.0, 0.0};
        int m = k - base < GS_MAX_DOTS ? k - base : GS_MAX_DOTS;
        memset(&a, 0, sizeof a);
        for (int j = 0; j < m; j++) {
            a.x[j] = V[base + j]->data;
            cc[j] = c[base + j];
        }
        maxpy_kernel<<<gs_cuda_grid(y->n), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(
            y->n, m, a, cc[0], cc[1], cc[2], cc[3], y->data);
        GS_CUDA_LAUNCHED("maxpy");
    }
done:
    return st;
}

/* out[j] = x[j].y[j], j < k: one pass over the data, one small reduction, one transfer */
extern "C" gs_status gs_cuda_dots(int k, const gs_vec *const *x, const gs_vec *const *y,
                                  double *out)
{
    gs_status st = GS_OK;
    gs_cuda_ctx *g = &gs_cuda_g;
    const int64_t n = x[0]->n;
    const int nblk = gs_cuda_red_blocks(n);
    dots_args a;
    if (k < 1 || k > GS_MAX_DOTS)
        return GS_ERROR(GS_ERR_ARG, "dots: %d products, expected 1..%d", k, GS_MAX_DOTS);
    for (int j = 0; j < k; j++) out[j] = 0.0;
    if (n <= 0) return GS_OK;
    memset(&a, 0, sizeof a);
    for (int j = 0; j < k; j++) {
        a.x[j] = x[j]->data;
        a.y[j] = y[j]->data;
    }
    dots_partial_kernel<<<nblk, GS_CUDA_THREADS, 0, g->stream>>>(n, k, a, g->d_part);
    GS_CUDA_LAUNCHED("dots_partial");
    GS_CHECK(gs_cuda_reduce_finish(k, nblk, out));
done:
    return st;
}

/* *out = x.y (the fused reduction with one pair) */
extern "C" gs_status gs_cuda_dot(const gs_vec *x, const gs_vec *y, double *out)
{
    return gs_cuda_dots(1, &x, &y, out);
}

/* CG's fused update in one kernel (see cg_update_kernel) */
extern "C" gs_status gs_cuda_cg_update(double alpha, double beta, const gs_vec *u, const gs_vec *w,
                                       gs_vec *p, gs_vec *s, gs_vec *x, gs_vec *r)
{
    gs_status st = GS_OK;
    if (x->n <= 0) return GS_OK;
    cg_update_kernel<<<gs_cuda_grid(x->n), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(
        x->n, alpha, beta, u->data, w->data, p->data, s->data, x->data, r->data);
    GS_CUDA_LAUNCHED("cg_update");
done:
    return st;
}

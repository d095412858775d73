/* gs_amg_cuda.cu: the AMG setup and smoothing steps on the device: diagonals, the Jacobi
 * smoothing matrix and its product with a tentative prolongator, the fused smoother step, the
 * Lanczos steps, row statistics, and the table gs_amg_cuda_ops (the coarsening steps are in
 * gs_amg_coarsen_cuda.cu). A group of lanes per row (FOR_ROW_G), sized to the mean row length. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gs_amg_cuda_impl.cuh"

/* ---- diagonals, smoothing matrix, smoother step ------------------------------------------- */

template <int G>
static __global__ void diag_inv_kernel(int32_t n, const int32_t *rp, const int32_t *ci,
                                       const double *v, int l1, double *dinv, double *sq,
                                       unsigned long long *bad)
{
    const unsigned m = group_mask<G>();
    const int lane = threadIdx.x & (G - 1);
    FOR_ROW_G(G, n)
    {
        double d = 0.0, s = 0.0;
        for (int32_t q = rp[i] + lane; q < rp[i + 1]; q += G) {
            if (ci[q] == i) d = v[q];
            s += fabs(v[q]);
        }
        d = group_sum<G>(d, m);
        s = group_sum<G>(s, m);
        if (lane != 0) continue;
        double r;
        if (d == 0.0 || !isfinite(d) || !isfinite(s)) {
            r = 0.0;
            atomicAdd(&bad[0], 1ULL);
            atomicMin(&bad[1], (unsigned long long)i);
        } else {
            r = l1 ? 1.0 / s : 1.0 / d;
        }
        dinv[i] = r;
        if (sq) sq[i] = sqrt(fabs(r));
    }
}

static gs_status cuda_diag_inv(const gs_csr *A, int l1, double *dinv, double *sq, int64_t *bad,
                               int64_t *first_bad)
{
    gs_status st = GS_OK;
    unsigned long long *d_bad = NULL, h[2] = {0, ~0ULL};
    GS_CHECK(gs_cuda_alloc(sizeof h, "diagonal check", (void **)&d_bad));
    GS_CUDA_CALL(cudaMemcpyAsync(d_bad, h, sizeof h, cudaMemcpyHostToDevice, gs_cuda_g.stream));
    if (A->rows > 0) {
        LAUNCH_G(row_group(A->nnz, A->rows), A->rows, diag_inv_kernel, A->rows, A->rowptr,
                 A->colind, A->val, l1, dinv, sq, d_bad);
    }
    GS_CHECK(gs_cuda_d2h(h, d_bad, sizeof h));
    *bad = (int64_t)h[0];
    *first_bad = h[0] ? (int64_t)h[1] : -1;
done:
    gs_cuda_free(d_bad);
    return st;
}

template <int G>
static __global__ void jacobi_matrix_kernel(int32_t n, const int32_t *rp, const int32_t *ci,
                                            const double *v, const double *dinv, double w,
                                            double *out)
{
    const int lane = threadIdx.x & (G - 1);
    FOR_ROW_G(G, n)
    {
        const double f = w * dinv[i];
        for (int32_t q = rp[i] + lane; q < rp[i + 1]; q += G)
            out[q] = (ci[q] == i ? 1.0 : 0.0) - f * v[q];
    }
}

static gs_status cuda_jacobi_matrix(const gs_csr *A, const double *dinv, double w, gs_csr **Sj)
{
    gs_status st = GS_OK;
    int32_t *rp = NULL, *ci = NULL;
    double *v = NULL;
    GS_CHECK(gs_cuda_alloc(((size_t)A->rows + 1) * sizeof *rp, "smoothing matrix", (void **)&rp));
    GS_CHECK(gs_cuda_alloc(((size_t)A->nnz + 1) * sizeof *ci, "smoothing matrix", (void **)&ci));
    GS_CHECK(gs_cuda_alloc(((size_t)A->nnz + 1) * sizeof *v, "smoothing matrix", (void **)&v));
    GS_CUDA_CALL(cudaMemcpyAsync(rp, A->rowptr, ((size_t)A->rows + 1) * sizeof *rp,
                                 cudaMemcpyDeviceToDevice, gs_cuda_g.stream));
    GS_CUDA_CALL(cudaMemcpyAsync(ci, A->colind, (size_t)A->nnz * sizeof *ci,
                                 cudaMemcpyDeviceToDevice, gs_cuda_g.stream));
    if (A->rows > 0) {
        LAUNCH_G(row_group(A->nnz, A->rows), A->rows, jacobi_matrix_kernel, A->rows, A->rowptr,
                 A->colind, A->val, dinv, w, v);
    }
    /* an input of one product only: no SpMV state */
    GS_CHECK(wrap_device_csr(A->rows, A->cols, A->nnz, &rp, &ci, &v, "smoothing matrix", Sj));
done:
    gs_cuda_free(rp);
    gs_cuda_free(ci);
    gs_cuda_free(v);
    return st;
}

/* C = S T where row j of T holds at most one entry (the tentative prolongator): row i of C
 * gathers (col of T_j, s_ij t_j) over row i of S and merges equal columns. A group of G lanes
 * takes a row, up to TT_CAP pairs per lane in registers; a leader column (the first left) is
 * broadcast, every lane adds and retires its pairs of that column, a group sum gives the
 * entry, and the row's few distinct columns go to shared memory, where each finds its place
 * in the sorted row by counting the smaller ones. A row longer than G TT_CAP is merged by the
 * group's first lane alone. count: entries per row; else the row. */
__device__ __forceinline__ int32_t tcol_of(const int32_t *trp, const int32_t *tci, int32_t j)
{
    return trp[j + 1] > trp[j] ? tci[trp[j]] : -1;
}

#define TT_CAP 4 /* pairs per lane */

/* one row by one thread: the quadratic merge with insertion into the sorted row */
static __device__ int32_t times_t_row(int32_t s, int32_t e, const int32_t *ci, const double *v,
                                      const int32_t *trp, const int32_t *tci, const double *tv,
                                      bool count, int32_t o, int32_t *cci, double *cv)
{
    int32_t k = 0;
    for (int32_t q = s; q < e; q++) {
        const int32_t c = tcol_of(trp, tci, ci[q]);
        if (c < 0) continue;
        bool seen = false;
        for (int32_t q2 = s; q2 < q && !seen; q2++) seen = tcol_of(trp, tci, ci[q2]) == c;
        if (seen) continue;
        if (!count) {
            double sum = 0.0;
            for (int32_t q2 = q; q2 < e; q2++) {
                const int32_t j = ci[q2];
                if (tcol_of(trp, tci, j) == c) sum += v[q2] * tv[trp[j]];
            }
            int32_t p = k;
            while (p > 0 && cci[o + p - 1] > c) {
                cci[o + p] = cci[o + p - 1];
                cv[o + p] = cv[o + p - 1];
                p--;
            }
            cci[o + p] = c;
            cv[o + p] = sum;
        }
        k++;
    }
    return k;
}

/* rows of a few entries (G <= 2): a thread per row and the quadratic merge, measured faster
 * on the H200 than the leader rounds for 7-point stencils */
static __global__ void times_t_thread_kernel(int32_t n, const int32_t *rp, const int32_t *ci,
                                             const double *v, const int32_t *trp,
                                             const int32_t *tci, const double *tv, int32_t *cnt,
                                             const int32_t *crp, int32_t *cci, double *cv)
{
    FOR_I(n)
    {
        const int32_t k = times_t_row(rp[i], rp[i + 1], ci, v, trp, tci, tv, cnt != NULL,
                                      cnt ? 0 : crp[i], cci, cv);
        if (cnt) cnt[i] = k;
    }
}

template <int G>
static __global__ void times_t_kernel(int32_t n, const int32_t *rp, const int32_t *ci,
                                      const double *v, const int32_t *trp, const int32_t *tci,
                                      const double *tv, int32_t *cnt, const int32_t *crp,
                                      int32_t *cci, double *cv)
{
    __shared__ int32_t s_col[GS_CUDA_THREADS * TT_CAP];
    __shared__ double s_val[GS_CUDA_THREADS * TT_CAP];
    const unsigned m = group_mask<G>();
    const int lane = threadIdx.x & (G - 1), first_lane = (threadIdx.x & 31) & ~(G - 1);
    const int cap = G * TT_CAP;
    int32_t *col = s_col + (threadIdx.x / G) * cap;
    double *val = s_val + (threadIdx.x / G) * cap;
    FOR_ROW_G(G, n)
    {
        const int32_t s = rp[i], e = rp[i + 1], len = e - s, o = cnt ? 0 : crp[i];
        if (len > cap) {
            if (lane == 0) {
                const int32_t k = times_t_row(s, e, ci, v, trp, tci, tv, cnt != NULL, o, cci, cv);
                if (cnt) cnt[i] = k;
            }
            continue;
        }
        const int used = (len + G - 1) / G; /* slots in use: uniform over the group */
        int32_t c[TT_CAP];
        double pv[TT_CAP];
#pragma unroll
        for (int k = 0; k < TT_CAP; k++) {
            const int32_t q = s + k * G + lane;
            c[k] = -1, pv[k] = 0.0;
            if (k < used && q < e) {
                const int32_t j = ci[q];
                c[k] = tcol_of(trp, tci, j);
                if (c[k] >= 0) pv[k] = v[q] * tv[trp[j]];
            }
        }
        int nd = 0; /* distinct columns so far (uniform) */
        for (;;) {
            int32_t lead = -1;
#pragma unroll
            for (int k = 0; k < TT_CAP; k++) {
                if (k >= used || lead >= 0) continue; /* uniform */
                const unsigned b = __ballot_sync(m, c[k] >= 0) & m;
                if (b) lead = __shfl_sync(m, c[k], __ffs(b) - 1 - first_lane, G);
            }
            if (lead < 0) break;
            double sum = 0.0;
#pragma unroll
            for (int k = 0; k < TT_CAP; k++)
                if (c[k] == lead) sum += pv[k], c[k] = -1;
            sum = group_sum<G>(sum, m);
            if (lane == 0) col[nd] = lead, val[nd] = sum;
            nd++;
        }
        if (cnt) {
            if (lane == 0) cnt[i] = nd;
            continue;
        }
        __syncwarp(m);
        for (int d = lane; d < nd; d += G) {
            const int32_t cd = col[d];
            int rank = 0;
            for (int d2 = 0; d2 < nd; d2++) rank += col[d2] < cd;
            cci[o + rank] = cd;
            cv[o + rank] = val[d];
        }
        __syncwarp(m); /* the next row reuses the group's shared memory */
    }
}

static gs_status cuda_times_tentative(const gs_csr *S, const gs_csr *T, gs_csr **C)
{
    gs_status st = GS_OK;
    int32_t n = S->rows, *cnt = NULL, *crp = NULL, *cci = NULL, nnz = 0;
    const int g = row_group(S->nnz, S->rows);
    double *cv = NULL;
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *cnt, "prolongator", (void **)&cnt));
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *crp, "prolongator", (void **)&crp));
    GS_CUDA_CALL(cudaMemsetAsync(cnt + n, 0, sizeof *cnt, gs_cuda_g.stream));
    if (n > 0 && g <= 2) {
        times_t_thread_kernel<<<GRID(n)>>>(n, S->rowptr, S->colind, S->val, T->rowptr, T->colind,
                                           T->val, cnt, NULL, NULL, NULL);
        GS_CUDA_LAUNCHED("times_t_thread_kernel");
    } else if (n > 0) {
        LAUNCH_G(g, n, times_t_kernel, n, S->rowptr, S->colind, S->val, T->rowptr, T->colind,
                 T->val, cnt, NULL, NULL, NULL);
    }
    GS_CHECK(scan_counts(cnt, crp, n, &nnz));
    GS_CHECK(gs_cuda_alloc(((size_t)nnz + 1) * sizeof *cci, "prolongator", (void **)&cci));
    GS_CHECK(gs_cuda_alloc(((size_t)nnz + 1) * sizeof *cv, "prolongator", (void **)&cv));
    if (n > 0 && g <= 2) {
        times_t_thread_kernel<<<GRID(n)>>>(n, S->rowptr, S->colind, S->val, T->rowptr, T->colind,
                                           T->val, NULL, crp, cci, cv);
        GS_CUDA_LAUNCHED("times_t_thread_kernel");
    } else if (n > 0) {
        LAUNCH_G(g, n, times_t_kernel, n, S->rowptr, S->colind, S->val, T->rowptr, T->colind,
                 T->val, NULL, crp, cci, cv);
    }
    st = gs_cuda_csr_adopt(n, T->cols, nnz, crp, cci, cv, C);
    crp = NULL, cci = NULL, cv = NULL;
done:
    gs_cuda_free(cnt);
    gs_cuda_free(crp);
    gs_cuda_free(cci);
    gs_cuda_free(cv);
    return st;
}

static __global__ void smooth_kernel(int64_t n, const double *__restrict__ dinv,
                                     const double *__restrict__ b, const double *__restrict__ y,
                                     double a, double c, double *__restrict__ d,
                                     double *__restrict__ x, int x_zero)
{
    FOR_I(n)
    {
        double r = dinv[i] * (b[i] - (y ? y[i] : 0.0));
        double di = a != 0.0 ? a * d[i] + c * r : c * r;
        d[i] = di;
        x[i] = x_zero ? di : x[i] + di;
    }
}

static gs_status cuda_smooth_step(int64_t n, const double *dinv, const double *b, const double *y,
                                  double a, double c, double *d, double *x, int x_zero)
{
    gs_status st = GS_OK;
    if (n > 0) {
        smooth_kernel<<<GRID(n)>>>(n, dinv, b, y, a, c, d, x, x_zero);
        GS_CUDA_LAUNCHED("smooth_kernel");
    }
done:
    return st;
}

template <int G>
static __global__ void gs_stage_kernel(int32_t n, const int32_t *__restrict__ rp,
                                       const int32_t *__restrict__ ci,
                                       const double *__restrict__ v, int upper,
                                       const double *__restrict__ dinv,
                                       const double *__restrict__ b, const double *__restrict__ y,
                                       const double *__restrict__ gin, double *__restrict__ g,
                                       double *__restrict__ x, int x_zero)
{
    const unsigned m = group_mask<G>();
    const int lane = threadIdx.x & (G - 1);
    FOR_ROW_G(G, n)
    {
        double s = 0.0;
        if (gin) {
            for (int32_t q = rp[i] + lane; q < rp[i + 1]; q += G) {
                const int32_t j = ci[q];
                if (upper ? j > i && j < n : j < i) s += v[q] * __ldg(gin + j);
            }
            s = group_sum<G>(s, m);
        }
        if (lane != 0) continue;
        const double gi = dinv[i] * (b[i] - (y ? y[i] : 0.0) - s);
        if (g) g[i] = gi;
        if (x) x[i] = x_zero ? gi : x[i] + gi;
    }
}

static gs_status cuda_gs_stage(const gs_csr *A, int upper, const double *dinv, const double *b,
                               const double *y, const double *gin, double *g, double *x,
                               int x_zero)
{
    gs_status st = GS_OK;
    if (A->rows > 0)
        LAUNCH_G(row_group(A->nnz, A->rows), A->rows, gs_stage_kernel, A->rows, A->rowptr,
                 A->colind, A->val, upper, dinv, b, y, gin, g, x, x_zero);
done:
    return st;
}

template <int G>
static __global__ void scaled_spmv_kernel(int32_t n, const int32_t *__restrict__ rp,
                                          const int32_t *__restrict__ ci,
                                          const double *__restrict__ v,
                                          const double *__restrict__ s,
                                          const double *__restrict__ x, double *__restrict__ y)
{
    const unsigned m = group_mask<G>();
    const int lane = threadIdx.x & (G - 1);
    FOR_ROW_G(G, n)
    {
        const double sum = group_row_dot<G>(rp, ci, v, i, lane, m, [=](int32_t j) {
            return __ldg(s + j) * __ldg(x + j);
        });
        if (lane == 0) y[i] = s[i] * sum;
    }
}

static gs_status cuda_scaled_spmv(const gs_csr *A, const double *s, const double *x, double *y)
{
    gs_status st = GS_OK;
    if (A->rows > 0)
        LAUNCH_G(row_group(A->nnz, A->rows), A->rows, scaled_spmv_kernel, A->rows, A->rowptr,
                 A->colind, A->val, s, x, y);
done:
    return st;
}

static __global__ void lanczos_kernel(int64_t n, const double *__restrict__ w,
                                      const double *__restrict__ v, double a, double b, double c,
                                      double *__restrict__ vp, const double *__restrict__ s,
                                      double *__restrict__ t)
{
    FOR_I(n)
    {
        const double x = c * (w[i] - a * v[i] - b * vp[i]);
        vp[i] = x;
        if (t) t[i] = s[i] * x;
    }
}

static gs_status cuda_lanczos_update(int64_t n, const double *w, const double *v, double a,
                                     double b, double c, double *vp, const double *s, double *t)
{
    gs_status st = GS_OK;
    if (n > 0) {
        lanczos_kernel<<<GRID(n)>>>(n, w, v, a, b, c, vp, s, t);
        GS_CUDA_LAUNCHED("lanczos_kernel");
    }
done:
    return st;
}

static __global__ void random_kernel(int64_t n, uint32_t seed, double *x)
{
    FOR_I(n) x[i] = (double)gs_amg_hash((uint32_t)i + seed) / (double)(1u << 29) - 1.0;
}

static gs_status cuda_fill_random(int64_t n, uint32_t seed, double *x)
{
    gs_status st = GS_OK;
    if (n > 0) {
        random_kernel<<<GRID(n)>>>(n, seed, x);
        GS_CUDA_LAUNCHED("random_kernel");
    }
done:
    return st;
}

/* sums of the row lengths and their squares (block sums, then one atomic per block) and the
 * longest row (a warp maximum, then one atomic per warp) */
static __global__ void row_stats_kernel(int32_t n, const int32_t *rp, double *sum,
                                        unsigned int *mx)
{
    __shared__ double ws[32];
    double s = 0.0, s2 = 0.0;
    unsigned int m = 0;
    FOR_I(n)
    {
        unsigned int c = (unsigned int)(rp[i + 1] - rp[i]);
        s += c;
        s2 += (double)c * c;
        m = c > m ? c : m;
    }
    m = __reduce_max_sync(0xffffffffu, m);
    if ((threadIdx.x & 31) == 0 && m) atomicMax(mx, m);
    s = gs_block_sum(s, ws);
    if (threadIdx.x == 0) atomicAdd(&sum[0], s);
    __syncthreads();
    s2 = gs_block_sum(s2, ws);
    if (threadIdx.x == 0) atomicAdd(&sum[1], s2);
}

static gs_status cuda_row_stats(const gs_csr *A, double *mean, double *std, int32_t *max)
{
    gs_status st = GS_OK;
    struct {
        double s[2];
        unsigned int m;
    } h = {{0.0, 0.0}, 0u};
    char *buf = NULL;
    GS_CHECK(gs_cuda_alloc(sizeof h, "row statistics", (void **)&buf));
    GS_CUDA_CALL(cudaMemsetAsync(buf, 0, sizeof h, gs_cuda_g.stream));
    if (A->rows > 0) {
        row_stats_kernel<<<gs_cuda_red_blocks(A->rows), GS_CUDA_THREADS, 0, gs_cuda_g.stream>>>(A->rows, A->rowptr, (double *)buf,
                                             (unsigned int *)(buf + 2 * sizeof(double)));
        GS_CUDA_LAUNCHED("row_stats_kernel");
    }
    GS_CHECK(gs_cuda_d2h(&h, buf, sizeof h));
    *mean = A->rows ? h.s[0] / A->rows : 0.0;
    *std = A->rows ? sqrt(fmax(h.s[1] / A->rows - *mean * *mean, 0.0)) : 0.0;
    *max = (int32_t)h.m;
done:
    gs_cuda_free(buf);
    return st;
}

/* the cycle as a CUDA graph: amg/cycle/gs_amg_graph_cuda.cu */
extern "C" {
gs_status gs_amg_cuda_graph_begin(void);
gs_status gs_amg_cuda_graph_end(void **exec);
gs_status gs_amg_cuda_graph_launch(void *exec);
void gs_amg_cuda_graph_destroy(void *exec);
}

extern "C" const gs_amg_ops gs_amg_cuda_ops = {
    gs_amg_cuda_strength, /* strength */
    gs_amg_cuda_filter, /* filter */
    gs_amg_cuda_mis2,   /* mis2_aggregate */
    gs_amg_cuda_tentative, /* tentative */
    gs_amg_cuda_tentative_qr, /* tentative_qr */
    cuda_diag_inv,      /* diag_inv */
    cuda_jacobi_matrix, /* jacobi_matrix */
    cuda_smooth_step,   /* smooth_step */
    cuda_gs_stage,      /* gs_stage */
    cuda_fill_random,   /* fill_random */
    cuda_row_stats,     /* row_stats */
    cuda_times_tentative, /* times_tentative */
    cuda_scaled_spmv,   /* scaled_spmv */
    cuda_lanczos_update, /* lanczos_update */
    gs_amg_cuda_pmis,    /* pmis */
    gs_amg_cuda_classical_strength, /* classical_strength */
    gs_amg_cuda_classical_fc, /* classical_fc */
    gs_amg_cuda_classical_ff, /* classical_ff */
    gs_amg_cuda_classical_p, /* classical_p */
    gs_amg_cuda_variation, /* variation */
    gs_amg_cuda_graph_begin,   /* graph_begin */
    gs_amg_cuda_graph_end,     /* graph_end */
    gs_amg_cuda_graph_launch,  /* graph_launch */
    gs_amg_cuda_graph_destroy, /* graph_destroy */
};

/* gs_amg_classical_cuda.cu: classical AMG's steps on the device, as gs_amg_ops describes them
 * and amg/coarsen/gs_amg_classical_host.c computes them: PMIS in the host's synchronous rounds
 * (the same priorities, so the same C/F splitting), the extended+i factors A_FC and M with the
 * diagonal d, the truncated P, and the coefficient variation the method's choice reads. A thread a row:
 * the rows of these steps are short, and a dense row (circuits) is no one's neighbour here. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gs_amg_cuda_impl.cuh"

enum { PMIS_F = 0, PMIS_U = 1, PMIS_C = 2 };

/* ---- PMIS ----------------------------------------------------------------------------------- */

static __global__ void pmis_count(int32_t nnz, const int32_t *ci, int32_t *cnt)
{
    FOR_I(nnz) atomicAdd(&cnt[ci[i]], 1);
}

static __global__ void pmis_init(int32_t n, const int32_t *cnt, const int32_t *arp, int32_t dense,
                                 uint64_t *prio, unsigned char *state)
{
    FOR_I(n)
    {
        prio[i] = gs_amg_pmis_prio(cnt[i], (int32_t)i);
        state[i] = gs_amg_dense_row(arp, dense, i) ? PMIS_F : cnt[i] > 0 ? PMIS_U : PMIS_F;
    }
}

/* every edge of S between undecided points marks its lower end */
static __global__ void pmis_mark(int32_t n, const int32_t *rp, const int32_t *ci,
                                 const uint64_t *prio, const unsigned char *state,
                                 unsigned char *notmax)
{
    FOR_I(n)
    {
        if (state[i] != PMIS_U) continue;
        const uint64_t pi = prio[i];
        bool lower = false;
        for (int32_t q = rp[i]; q < rp[i + 1]; q++) {
            const int32_t j = ci[q];
            if (j == i || state[j] != PMIS_U) continue;
            if (gs_amg_pmis_above(prio[j], j, pi, (int32_t)i))
                lower = true;
            else
                notmax[j] = 1;
        }
        if (lower) notmax[i] = 1;
    }
}

static __global__ void pmis_promote(int32_t n, unsigned char *state, unsigned char *notmax)
{
    FOR_I(n)
    {
        if (state[i] == PMIS_U && !notmax[i]) state[i] = PMIS_C;
        notmax[i] = 0; /* ready for the next round */
    }
}

static __global__ void pmis_demote(int32_t n, const int32_t *rp, const int32_t *ci,
                                   unsigned char *state, int *und)
{
    FOR_I(n)
    {
        if (state[i] != PMIS_U) continue;
        bool dep = false;
        for (int32_t q = rp[i]; q < rp[i + 1] && !dep; q++) dep = state[ci[q]] == PMIS_C;
        if (dep)
            state[i] = PMIS_F;
        else
            *und = 1;
    }
}

static __global__ void pmis_flags(int32_t n, const unsigned char *state, int32_t *flag)
{
    FOR_I(n) flag[i] = state[i] == PMIS_C;
}

static __global__ void pmis_cmap(int32_t n, const unsigned char *state, const int32_t *id,
                                 int32_t *cmap)
{
    FOR_I(n) cmap[i] = state[i] == PMIS_C ? id[i] : -1;
}

static gs_status cuda_pmis(const gs_csr *S, const gs_csr *A, int32_t dense, int32_t *cmap,
                           int32_t *nc)
{
    gs_status st = GS_OK;
    const int32_t n = S->rows;
    int32_t *cnt = NULL, *id = NULL;
    uint64_t *prio = NULL;
    unsigned char *state = NULL, *notmax = NULL;
    int *d_und = NULL;
    *nc = 0;
    if (n == 0) return GS_OK;
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *cnt, "PMIS", (void **)&cnt));
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *id, "PMIS", (void **)&id));
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *prio, "PMIS", (void **)&prio));
    GS_CHECK(gs_cuda_alloc((size_t)n + 1, "PMIS", (void **)&state));
    GS_CHECK(gs_cuda_alloc((size_t)n + 1, "PMIS", (void **)&notmax));
    GS_CHECK(gs_cuda_alloc(sizeof(int), "PMIS flag", (void **)&d_und));
    GS_CUDA_CALL(cudaMemsetAsync(cnt, 0, ((size_t)n + 1) * sizeof *cnt, gs_cuda_g.stream));
    GS_CUDA_CALL(cudaMemsetAsync(notmax, 0, (size_t)n + 1, gs_cuda_g.stream));
    if (S->nnz > 0) {
        pmis_count<<<GRID(S->nnz)>>>(S->nnz, S->colind, cnt);
        GS_CUDA_LAUNCHED("pmis_count");
    }
    pmis_init<<<GRID(n)>>>(n, cnt, A->rowptr, dense, prio, state);
    GS_CUDA_LAUNCHED("pmis_init");
    for (int round = 0;; round++) {
        int und = 0;
        GS_CUDA_CALL(cudaMemsetAsync(d_und, 0, sizeof(int), gs_cuda_g.stream));
        pmis_mark<<<GRID(n)>>>(n, S->rowptr, S->colind, prio, state, notmax);
        pmis_promote<<<GRID(n)>>>(n, state, notmax);
        pmis_demote<<<GRID(n)>>>(n, S->rowptr, S->colind, state, d_und);
        GS_CUDA_LAUNCHED("PMIS rounds");
        GS_CHECK(gs_cuda_d2h(&und, d_und, sizeof und));
        if (!und) break;
        if (round > 100000) GS_FAIL(GS_ERR_CUDA, "amg: the PMIS rounds do not end");
    }
    pmis_flags<<<GRID(n)>>>(n, state, cnt);
    GS_CUDA_LAUNCHED("pmis_flags");
    GS_CUDA_CALL(cudaMemsetAsync(cnt + n, 0, sizeof *cnt, gs_cuda_g.stream));
    GS_CHECK(scan_counts(cnt, id, n, nc));
    pmis_cmap<<<GRID(n)>>>(n, state, id, cmap);
    GS_CUDA_LAUNCHED("pmis_cmap");
done:
    gs_cuda_free(cnt);
    gs_cuda_free(id);
    gs_cuda_free(prio);
    gs_cuda_free(state);
    gs_cuda_free(notmax);
    gs_cuda_free(d_und);
    return st;
}

/* ---- classical strength --------------------------------------------------------------------- */

static __global__ void cstr_rowmax(int32_t n, const int32_t *rp, const int32_t *ci,
                                   const double *v, double *d, double *mx)
{
    FOR_I(n)
    {
        double di = 0.0, x = 0.0;
        for (int32_t q = rp[i]; q < rp[i + 1]; q++)
            if (ci[q] == i) di = v[q];
        for (int32_t q = rp[i]; q < rp[i + 1]; q++)
            if (ci[q] != i) x = fmax(x, gs_amg_coupling(v[q], di, 1));
        d[i] = di;
        mx[i] = x;
    }
}

/* count (sci NULL) or write the strong neighbours of each row */
static __global__ void cstr_rows(int32_t n, const int32_t *rp, const int32_t *ci, const double *v,
                                 const double *d, const double *mx, double theta, int32_t dense,
                                 const int32_t *srp, int32_t *cnt, int32_t *sci)
{
    FOR_I(n)
    {
        int32_t c = 0, o = sci ? srp[i] : 0;
        if (!gs_amg_dense_row(rp, dense, i))
            for (int32_t q = rp[i]; q < rp[i + 1]; q++) {
                const int32_t j = ci[q];
                const double cij = gs_amg_coupling(v[q], d[i], 1);
                if (j != i && cij > 0 && cij > theta * mx[i] && !gs_amg_dense_row(rp, dense, j)) {
                    if (sci) sci[o + c] = j;
                    c++;
                }
            }
        if (!sci) cnt[i] = c;
    }
}

static gs_status cuda_classical_strength(const gs_csr *A, double theta, int32_t dense,
                                         gs_csr **S)
{
    gs_status st = GS_OK;
    const int32_t n = A->rows;
    int32_t *cnt = NULL, *srp = NULL, *sci = NULL, nnz = 0;
    double *d = NULL, *mx = NULL;
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *d, "strength", (void **)&d));
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *mx, "strength", (void **)&mx));
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *cnt, "strength", (void **)&cnt));
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *srp, "strength", (void **)&srp));
    if (n > 0) {
        cstr_rowmax<<<GRID(n)>>>(n, A->rowptr, A->colind, A->val, d, mx);
        cstr_rows<<<GRID(n)>>>(n, A->rowptr, A->colind, A->val, d, mx, theta, dense, NULL, cnt,
                               NULL);
        GS_CUDA_LAUNCHED("classical strength");
    }
    GS_CUDA_CALL(cudaMemsetAsync(cnt + n, 0, sizeof *cnt, gs_cuda_g.stream));
    GS_CHECK(scan_counts(cnt, srp, n, &nnz));
    GS_CHECK(gs_cuda_alloc(((size_t)nnz + 1) * sizeof *sci, "strength graph", (void **)&sci));
    if (n > 0) {
        cstr_rows<<<GRID(n)>>>(n, A->rowptr, A->colind, A->val, d, mx, theta, dense, srp, NULL,
                               sci);
        GS_CUDA_LAUNCHED("classical strength");
    }
    GS_CHECK(wrap_device_csr(n, n, nnz, &srp, &sci, NULL, "strength graph", S));
done:
    gs_cuda_free(d);
    gs_cuda_free(mx);
    gs_cuda_free(cnt);
    gs_cuda_free(srp);
    gs_cuda_free(sci);
    return st;
}

/* ---- extended+i factors --------------------------------------------------------------------- */

/* the value of column col in sorted row r of A (0 when not stored) */
static __device__ __forceinline__ double d_entry(const int32_t *rp, const int32_t *ci,
                                                 const double *v, int32_t r, int32_t col)
{
    const int32_t q = gs_first_ge(rp[r], rp[r + 1], col, [ci](int32_t k) { return ci[k]; });
    return q < rp[r + 1] && ci[q] == col ? v[q] : 0.0;
}

/* A_FC and beta: count (fci NULL) or write */
static __global__ void fc_rows(int32_t n, const int32_t *rp, const int32_t *ci, const double *v,
                               const int32_t *srp, const int32_t *sci, const int32_t *cmap,
                               const int32_t *frp, int32_t *cnt, int32_t *fci, double *fv,
                               double *beta)
{
    FOR_I(n)
    {
        int32_t c = 0, o = fci ? frp[i] : 0;
        double b = 0.0;
        if (cmap[i] < 0) {
            int32_t p = rp[i];
            for (int32_t q = srp[i]; q < srp[i + 1]; q++) {
                const int32_t j = sci[q];
                while (ci[p] < j) p++;
                if (cmap[j] < 0) continue;
                if (fci) fci[o + c] = cmap[j], fv[o + c] = v[p];
                b += v[p];
                c++;
            }
        }
        if (fci)
            beta[i] = b;
        else
            cnt[i] = c;
    }
}

/* M and d: count (mci NULL) or write, as the host's gs_amg_classical_ff_host */
static __global__ void ff_rows(int32_t n, const int32_t *rp, const int32_t *ci, const double *v,
                               const int32_t *srp, const int32_t *sci, const int32_t *cmap,
                               const double *beta, const int32_t *mrp, int32_t *cnt,
                               int32_t *mci, double *mv, double *d)
{
    FOR_I(n)
    {
        int32_t c = 0, o = mci ? mrp[i] : 0;
        if (cmap[i] >= 0) {
            if (mci)
                d[i] = 1.0;
            else
                cnt[i] = 0;
            continue;
        }
        const double aii = d_entry(rp, ci, v, (int32_t)i, (int32_t)i);
        double di = aii;
        int32_t s = srp[i];
        for (int32_t p = rp[i]; p < rp[i + 1]; p++) {
            const int32_t j = ci[p];
            const double a = v[p];
            while (s < srp[i + 1] && sci[s] < j) s++;
            const bool strong = s < srp[i + 1] && sci[s] == j;
            if (j == i) {
                if (mci) mci[o + c] = j, mv[o + c] = 1.0;
                c++;
            } else if (!strong) {
                di += a;
            } else if (cmap[j] < 0) {
                const double akk = d_entry(rp, ci, v, j, j), aki = d_entry(rp, ci, v, j, (int32_t)i);
                const double at = aki * akk < 0 ? aki : 0.0, den = beta[j] + at;
                if (den == 0.0) {
                    di += a;
                } else {
                    di += a * at / den;
                    if (mci) mci[o + c] = j, mv[o + c] = a / den;
                    c++;
                }
            }
        }
        if (mci)
            d[i] = gs_amg_ff_diag(di, aii);
        else
            cnt[i] = c;
    }
}

/* A rows x cols CSR made by a row kernel in two passes: pass(NULL, cnt, NULL, NULL) launches it
 * to count each row's entries into cnt, pass(rp, NULL, ci, v) to write them at rp (the counts'
 * scan); the result adopted (adopt: with SpMV state, for an operator of the cycle) or wrapped
 * (a factor only products read) */
template <typename Pass>
static gs_status two_pass_csr(int32_t rows, int32_t cols, int adopt, Pass pass, gs_csr **out)
{
    gs_status st = GS_OK;
    int32_t *cnt = NULL, *rp = NULL, *ci = NULL, nnz = 0;
    double *v = NULL;
    GS_CHECK(gs_cuda_alloc(((size_t)rows + 1) * sizeof *cnt, "interpolation", (void **)&cnt));
    GS_CHECK(gs_cuda_alloc(((size_t)rows + 1) * sizeof *rp, "interpolation", (void **)&rp));
    if (rows > 0) GS_CHECK(pass((const int32_t *)NULL, cnt, (int32_t *)NULL, (double *)NULL));
    GS_CUDA_CALL(cudaMemsetAsync(cnt + rows, 0, sizeof *cnt, gs_cuda_g.stream));
    GS_CHECK(scan_counts(cnt, rp, rows, &nnz));
    GS_CHECK(gs_cuda_alloc(((size_t)nnz + 1) * sizeof *ci, "interpolation", (void **)&ci));
    GS_CHECK(gs_cuda_alloc(((size_t)nnz + 1) * sizeof *v, "interpolation", (void **)&v));
    if (rows > 0) GS_CHECK(pass((const int32_t *)rp, (int32_t *)NULL, ci, v));
    if (adopt) {
        st = gs_cuda_csr_adopt(rows, cols, nnz, rp, ci, v, out);
        rp = NULL, ci = NULL, v = NULL;
    } else {
        GS_CHECK(wrap_device_csr(rows, cols, nnz, &rp, &ci, &v, "interpolation", out));
    }
done:
    gs_cuda_free(cnt);
    gs_cuda_free(rp);
    gs_cuda_free(ci);
    gs_cuda_free(v);
    return st;
}

static gs_status cuda_classical_fc(const gs_csr *A, const gs_csr *S, const int32_t *cmap,
                                   int32_t nc, gs_csr **AFC, double *beta)
{
    const int32_t n = A->rows;
    return two_pass_csr(n, nc, 0, [&](const int32_t *rp, int32_t *cnt, int32_t *ci, double *v) {
        gs_status st = GS_OK;
        fc_rows<<<GRID(n)>>>(n, A->rowptr, A->colind, A->val, S->rowptr, S->colind, cmap, rp,
                             cnt, ci, v, beta);
        GS_CUDA_LAUNCHED("fc_rows");
    done:
        return st;
    }, AFC);
}

static gs_status cuda_classical_ff(const gs_csr *A, const gs_csr *S, const int32_t *cmap,
                                   const double *beta, gs_csr **M, double *d)
{
    const int32_t n = A->rows;
    return two_pass_csr(n, n, 0, [&](const int32_t *rp, int32_t *cnt, int32_t *ci, double *v) {
        gs_status st = GS_OK;
        ff_rows<<<GRID(n)>>>(n, A->rowptr, A->colind, A->val, S->rowptr, S->colind, cmap, beta,
                             rp, cnt, ci, v, d);
        GS_CUDA_LAUNCHED("ff_rows");
    done:
        return st;
    }, M);
}

/* ---- truncated P ---------------------------------------------------------------------------- */

/* whether entry q of an F row [b, e) of X is kept (w = -x / di), as the host's trunc_row */
static __device__ bool p_keep(const int32_t *xci, const double *xv, int32_t b, int32_t e,
                              int32_t q, double di, double mx, int pmax, double trunc)
{
    const double w = fabs(xv[q] / di);
    if (!(w > 0) || w < trunc * mx) return false;
    if (pmax > 0) {
        int32_t rank = 0;
        for (int32_t r = b; r < e && rank < pmax; r++)
            rank += r != q && gs_amg_trunc_above(fabs(xv[r] / di), xci[r], w, xci[q]);
        if (rank >= pmax) return false;
    }
    return true;
}

static __global__ void p_rows(int32_t n, const int32_t *xrp, const int32_t *xci, const double *xv,
                              const int32_t *cmap, const double *d, int pmax, double trunc,
                              const int32_t *prp, int32_t *cnt, int32_t *pci, double *pv)
{
    FOR_I(n)
    {
        int32_t c = 0, o = pci ? prp[i] : 0;
        if (cmap[i] >= 0) {
            if (pci) pci[o] = cmap[i], pv[o] = 1.0;
            c = 1;
        } else if (d[i] != 0.0) {
            const int32_t b = xrp[i], e = xrp[i + 1];
            const double di = d[i];
            double mx = 0.0, sa = 0.0, sk = 0.0;
            for (int32_t q = b; q < e; q++) {
                mx = fmax(mx, fabs(xv[q] / di));
                sa += -xv[q] / di;
            }
            for (int32_t q = b; q < e; q++)
                if (p_keep(xci, xv, b, e, q, di, mx, pmax, trunc)) {
                    sk += -xv[q] / di;
                    c++;
                }
            if (pci) {
                const double sc = sk != 0.0 ? sa / sk : 1.0;
                int32_t k = 0;
                for (int32_t q = b; q < e; q++)
                    if (p_keep(xci, xv, b, e, q, di, mx, pmax, trunc)) {
                        pci[o + k] = xci[q];
                        pv[o + k] = -xv[q] / di * sc;
                        k++;
                    }
            }
        }
        if (!pci) cnt[i] = c;
    }
}

static gs_status cuda_classical_p(const gs_csr *X, const int32_t *cmap, const double *d,
                                  int32_t nc, int pmax, double trunc, gs_csr **P)
{
    const int32_t n = X->rows;
    return two_pass_csr(n, nc, 1, [&](const int32_t *rp, int32_t *cnt, int32_t *ci, double *v) {
        gs_status st = GS_OK;
        p_rows<<<GRID(n)>>>(n, X->rowptr, X->colind, X->val, cmap, d, pmax, trunc, rp, cnt, ci,
                            v);
        GS_CUDA_LAUNCHED("p_rows");
    done:
        return st;
    }, P);
}

/* ---- coefficient variation ---------------------------------------------------------------- */

/* off-diagonal entries next to two nonzero dinv (out[0]), those whose ratio is outside
 * [1/2, 2] (out[1]) and those of the diagonal's sign (out[2]): a group of G lanes a row (its
 * entries read coalesced), counts summed in shared memory, one atomic a block */
template <int G>
static __global__ void variation_rows(int32_t n, const int32_t *rp, const int32_t *ci,
                                      const double *v, const double *dinv,
                                      unsigned long long *out)
{
    __shared__ unsigned long long cnt[3];
    if (threadIdx.x < 3) cnt[threadIdx.x] = 0;
    __syncthreads();
    const int lane = threadIdx.x & (G - 1);
    unsigned long long all = 0, varied = 0, pos = 0;
    FOR_ROW_G(G, n)
    {
        const double di = dinv[i];
        if (di == 0.0) continue;
        for (int32_t q = rp[i] + lane; q < rp[i + 1]; q += G) {
            const int32_t j = ci[q];
            const double dj = dinv[j];
            if (j == i || dj == 0.0) continue;
            const double r = fabs(di / dj);
            all++;
            varied += r > 2.0 || r < 0.5;
            pos += v[q] * di > 0;
        }
    }
    if (all) atomicAdd(&cnt[0], all);
    if (varied) atomicAdd(&cnt[1], varied);
    if (pos) atomicAdd(&cnt[2], pos);
    __syncthreads();
    if (threadIdx.x < 3 && cnt[threadIdx.x]) atomicAdd(&out[threadIdx.x], cnt[threadIdx.x]);
}

static gs_status cuda_variation(const gs_csr *A, const double *dinv, double *varied,
                                double *positive)
{
    gs_status st = GS_OK;
    unsigned long long *buf = NULL, h[3] = {0, 0, 0};
    GS_CHECK(gs_cuda_alloc(sizeof h, "coefficient variation", (void **)&buf));
    GS_CUDA_CALL(cudaMemsetAsync(buf, 0, sizeof h, gs_cuda_g.stream));
    if (A->rows > 0) {
        LAUNCH_G(row_group(A->nnz, A->rows), A->rows, variation_rows, A->rows, A->rowptr,
                 A->colind, A->val, dinv, buf);
    }
    GS_CHECK(gs_cuda_d2h(h, buf, sizeof h));
    *varied = h[0] > 0 ? (double)h[1] / (double)h[0] : 0.0;
    *positive = h[0] > 0 ? (double)h[2] / (double)h[0] : 0.0;
done:
    gs_cuda_free(buf);
    return st;
}

extern "C" {
gs_status gs_amg_cuda_pmis(const gs_csr *S, const gs_csr *A, int32_t dense, int32_t *cmap,
                           int32_t *nc)
{
    return cuda_pmis(S, A, dense, cmap, nc);
}
gs_status gs_amg_cuda_classical_strength(const gs_csr *A, double theta, int32_t dense, gs_csr **S)
{
    return cuda_classical_strength(A, theta, dense, S);
}
gs_status gs_amg_cuda_classical_fc(const gs_csr *A, const gs_csr *S, const int32_t *cmap,
                                   int32_t nc, gs_csr **AFC, double *beta)
{
    return cuda_classical_fc(A, S, cmap, nc, AFC, beta);
}
gs_status gs_amg_cuda_classical_ff(const gs_csr *A, const gs_csr *S, const int32_t *cmap,
                                   const double *beta, gs_csr **M, double *d)
{
    return cuda_classical_ff(A, S, cmap, beta, M, d);
}
gs_status gs_amg_cuda_classical_p(const gs_csr *X, const int32_t *cmap, const double *d,
                                  int32_t nc, int pmax, double trunc, gs_csr **P)
{
    return cuda_classical_p(X, cmap, d, nc, pmax, trunc, P);
}
gs_status gs_amg_cuda_variation(const gs_csr *A, const double *dinv, double *varied,
                                double *positive)
{
    return cuda_variation(A, dinv, varied, positive);
}
}

/* gs_amg_host.c: the AMG setup and smoothing steps on the host, the table gs_amg_host_ops (the
 * reference for the device kernels of gs_amg_cuda.cu and gs_amg_coarsen_cuda.cu, which compute
 * the same aggregates). The host-only general steps are in amg/coarsen/gs_amg_coarsen_host.c
 * and amg/coarse/. */
#include <math.h>
#include <string.h>

#include "gs_amg_ops.h"
#include "gs_spgemm.h"

/* ---- strength ---------------------------------------------------------------------------- */


static gs_status host_strength(const gs_csr *A, double theta, int b, int measure, gs_csr **S)
{
    return gs_amg_strength_block(A, b, theta, measure, S);
}

/* ---- MIS(2) aggregation -------------------------------------------------------------------- */

static inline uint64_t mis_key(int state, int32_t i)
{
    return (uint64_t)state << 62 | (uint64_t)gs_amg_hash((uint32_t)i) << 32 | (uint32_t)i;
}

static gs_status host_mis2(const gs_csr *S, int32_t *agg, int32_t *nagg)
{
    gs_status st = GS_OK;
    int32_t n = S->rows;
    uint64_t *key = NULL, *m1 = NULL, *m2 = NULL;
    int32_t *agg1 = NULL;
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *key, "aggregation", (void **)&key));
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *m1, "aggregation", (void **)&m1));
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *m2, "aggregation", (void **)&m2));
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *agg1, "aggregation", (void **)&agg1));
    for (int32_t i = 0; i < n; i++)
        key[i] = mis_key(S->rowptr[i + 1] > S->rowptr[i] ? GS_MIS_UNDECIDED : GS_MIS_OUT, i);
    for (;;) { /* synchronous rounds, as on the device */
        int64_t undecided = 0;
        for (int32_t i = 0; i < n; i++) {
            uint64_t m = key[i];
            for (int32_t q = S->rowptr[i]; q < S->rowptr[i + 1]; q++)
                if (key[S->colind[q]] > m) m = key[S->colind[q]];
            m1[i] = m;
        }
        for (int32_t i = 0; i < n; i++) {
            uint64_t m = m1[i];
            for (int32_t q = S->rowptr[i]; q < S->rowptr[i + 1]; q++)
                if (m1[S->colind[q]] > m) m = m1[S->colind[q]];
            m2[i] = m;
        }
        for (int32_t i = 0; i < n; i++) {
            if ((int)(key[i] >> 62) != GS_MIS_UNDECIDED) continue;
            if (m2[i] == key[i])
                key[i] = mis_key(GS_MIS_IN, i);
            else if ((int)(m2[i] >> 62) == GS_MIS_IN)
                key[i] = mis_key(GS_MIS_OUT, i);
            else
                undecided++;
        }
        if (undecided == 0) break;
    }
    /* roots numbered in index order; round 1: a neighbour of roots joins the root of the
     * largest key; round 2 (twice, for one-way strength): the rest join the neighbour of the
     * largest key that has an aggregate */
    int32_t na = 0;
    for (int32_t i = 0; i < n; i++) agg[i] = (int)(key[i] >> 62) == GS_MIS_IN ? na++ : -1;
    for (int32_t i = 0; i < n; i++) {
        agg1[i] = agg[i];
        if (agg[i] >= 0) continue;
        uint64_t best = 0;
        for (int32_t q = S->rowptr[i]; q < S->rowptr[i + 1]; q++) {
            int32_t j = S->colind[q];
            if (agg[j] >= 0 && key[j] >= best) {
                best = key[j];
                agg1[i] = agg[j];
            }
        }
    }
    for (int round = 0; round < 2; round++) {
        for (int32_t i = 0; i < n; i++) {
            agg[i] = agg1[i];
            if (agg1[i] >= 0 || S->rowptr[i + 1] == S->rowptr[i]) continue;
            uint64_t best = 0;
            for (int32_t q = S->rowptr[i]; q < S->rowptr[i + 1]; q++) {
                int32_t j = S->colind[q];
                uint64_t kj = key[j] & ~(3ULL << 62);
                if (agg1[j] >= 0 && kj >= best) {
                    best = kj;
                    agg[i] = agg1[j];
                }
            }
        }
        memcpy(agg1, agg, (size_t)n * sizeof *agg);
    }
    *nagg = na;
done:
    gs_free(key);
    gs_free(m1);
    gs_free(m2);
    gs_free(agg1);
    return st;
}

/* ---- tentative prolongator -------------------------------------------------------------- */

static gs_status host_tentative(int32_t nodes, int b, const int32_t *agg, int32_t nagg,
                                const double *w, gs_csr **P, double *wc)
{
    gs_status st = GS_OK;
    double *B = NULL, *Bc = NULL;
    /* the b vectors explicitly, then the general QR; the R factors are diagonal */
    GS_CHECK(gs_amg_block_nullspace(nodes, b, w, &B));
    GS_CHECK(gs_alloc_array((size_t)nagg * b * b + 1, sizeof *Bc, "nullspace", (void **)&Bc));
    GS_CHECK(gs_amg_tentative_qr(nodes, b, agg, nagg, B, b, P, Bc));
    for (int32_t a = 0; a < nagg; a++) wc[a] = Bc[(size_t)a * b]; /* R(0, 0) of aggregate a */
done:
    gs_free(B);
    gs_free(Bc);
    return st;
}

/* ---- diagonal, smoothing matrix, smoother step ------------------------------------------ */

static gs_status host_diag_inv(const gs_csr *A, int l1, double *dinv, double *sqrt_dinv,
                               int64_t *bad, int64_t *first_bad)
{
    int64_t nb = 0, fb = A->rows; /* the first bad row: the least index of any thread's */
#pragma omp parallel for schedule(static) reduction(+ : nb) reduction(min : fb) if (A->rows > 20000)
    for (int32_t i = 0; i < A->rows; i++) {
        double d = 0.0, s = 0.0;
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            if (A->colind[q] == i) d = A->val[q];
            s += fabs(A->val[q]);
        }
        if (d == 0.0 || !isfinite(d) || !isfinite(s)) {
            dinv[i] = 0.0;
            if (i < fb) fb = i;
            nb++;
        } else {
            dinv[i] = l1 ? 1.0 / s : 1.0 / d;
        }
        if (sqrt_dinv) sqrt_dinv[i] = sqrt(fabs(dinv[i]));
    }
    *bad = nb;
    *first_bad = nb > 0 ? fb : -1;
    return GS_OK;
}

static gs_status host_jacobi_matrix(const gs_csr *A, const double *dinv, double w, gs_csr **Sj)
{
    gs_status st = GS_OK;
    gs_csr *S = NULL;
    GS_CHECK(gs_csr_create(A->rows, A->cols, A->nnz, &S));
    memcpy(S->rowptr, A->rowptr, ((size_t)A->rows + 1) * sizeof *S->rowptr);
    memcpy(S->colind, A->colind, (size_t)A->nnz * sizeof *S->colind);
#pragma omp parallel for schedule(static) if (A->rows > 20000)
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
            S->val[q] = (A->colind[q] == i ? 1.0 : 0.0) - w * dinv[i] * A->val[q];
    *Sj = S;
done:
    return st;
}

static gs_status host_smooth_step(int64_t n, const double *dinv, const double *b,
                                  const double *y, double a, double c, double *d, double *x,
                                  int x_zero)
{
#pragma omp parallel for if (n > 20000)
    for (int64_t i = 0; i < n; i++) {
        double r = dinv[i] * (b[i] - (y ? y[i] : 0.0));
        double di = a != 0.0 ? a * d[i] + c * r : c * r;
        d[i] = di;
        x[i] = x_zero ? di : x[i] + di;
    }
    return GS_OK;
}

static gs_status host_gs_stage(const gs_csr *A, int upper, const double *dinv, const double *b,
                               const double *y, const double *gin, double *g, double *x,
                               int x_zero)
{
    const int32_t n = A->rows;
#pragma omp parallel for schedule(static) if (n > 20000)
    for (int32_t i = 0; i < n; i++) {
        double s = 0.0;
        if (gin)
            for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
                const int32_t j = A->colind[q];
                if (upper ? j > i && j < n : j < i) s += A->val[q] * gin[j];
            }
        const double gi = dinv[i] * (b[i] - (y ? y[i] : 0.0) - s);
        if (g) g[i] = gi;
        if (x) x[i] = x_zero ? gi : x[i] + gi;
    }
    return GS_OK;
}

/* ---- dense coarse inverse ------------------------------------------------------------- */

/* y = s .* (A (s .* x)) */
static gs_status host_scaled_spmv(const gs_csr *A, const double *s, const double *x, double *y)
{
#pragma omp parallel for schedule(static)
    for (int32_t i = 0; i < A->rows; i++) {
        double sum = 0.0;
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
            sum += A->val[q] * (s[A->colind[q]] * x[A->colind[q]]);
        y[i] = s[i] * sum;
    }
    return GS_OK;
}

/* vp = c (w - a v - b vp); t = s .* vp when t is given */
static gs_status host_lanczos_update(int64_t n, const double *w, const double *v, double a,
                                     double b, double c, double *vp, const double *s, double *t)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        vp[i] = c * (w[i] - a * v[i] - b * vp[i]);
        if (t) t[i] = s[i] * vp[i];
    }
    return GS_OK;
}

static gs_status host_fill_random(int64_t n, uint32_t seed, double *x)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = (double)gs_amg_hash((uint32_t)i + seed) / (double)(1u << 29) - 1.0;
    return GS_OK;
}

static gs_status host_row_stats(const gs_csr *A, double *mean, double *std, int32_t *max)
{
    gs_row_stats rs;
    gs_csr_row_stats(A, &rs);
    *mean = rs.mean;
    *std = rs.std;
    *max = rs.max;
    return GS_OK;
}

const gs_amg_ops gs_amg_host_ops = {
    .strength = host_strength,
    .filter = gs_amg_filter_host,
    .mis2_aggregate = host_mis2,
    .tentative = host_tentative,
    .tentative_qr = gs_amg_tentative_qr,
    .diag_inv = host_diag_inv,
    .jacobi_matrix = host_jacobi_matrix,
    .smooth_step = host_smooth_step,
    .gs_stage = host_gs_stage,
    .fill_random = host_fill_random,
    .row_stats = host_row_stats,
    .times_tentative = gs_spgemm_host,
    .scaled_spmv = host_scaled_spmv,
    .lanczos_update = host_lanczos_update,
    .pmis = gs_amg_pmis_host,
    .classical_strength = gs_amg_classical_strength_host,
    .classical_fc = gs_amg_classical_fc_host,
    .classical_ff = gs_amg_classical_ff_host,
    .classical_p = gs_amg_classical_p_host,
    .variation = gs_amg_variation_host,
};

/* gs_amg_classical_host.c: classical AMG's data-parallel steps on the host, the reference of the
 * device kernels (amg/ops/gs_amg_classical_cuda.cu): PMIS C/F splitting in synchronous rounds
 * (the same rounds and priorities on both, so the splitting is identical), the two factors of the
 * extended+i interpolation, its truncation, and the coefficient variation the method's choice
 * reads. */
#include <math.h>
#include <string.h>

#include "gs_amg_ops.h"

enum { PMIS_F = 0, PMIS_U = 1, PMIS_C = 2 };

gs_status gs_amg_pmis_host(const gs_csr *S, const gs_csr *A, int32_t dense, int32_t *cmap,
                           int32_t *nc)
{
    gs_status st = GS_OK;
    const int32_t n = S->rows;
    int32_t *cnt = NULL;
    uint64_t *prio = NULL;
    unsigned char *state = NULL, *notmax = NULL;
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *cnt, "PMIS", (void **)&cnt));
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *prio, "PMIS", (void **)&prio));
    GS_CHECK(gs_alloc_array((size_t)n + 1, 1, "PMIS", (void **)&state));
    GS_CHECK(gs_alloc_array((size_t)n + 1, 1, "PMIS", (void **)&notmax));
    memset(cnt, 0, ((size_t)n + 1) * sizeof *cnt);
    for (int32_t q = 0; q < S->nnz; q++) cnt[S->colind[q]]++; /* how many depend on j */
    for (int32_t i = 0; i < n; i++) {
        prio[i] = gs_amg_pmis_prio(cnt[i], i);
        state[i] = gs_amg_dense_row(A->rowptr, dense, i) ? PMIS_F : cnt[i] > 0 ? PMIS_U : PMIS_F;
    }
    for (;;) {
        int64_t und = 0;
        for (int32_t i = 0; i < n; i++) notmax[i] = 0;
        /* every edge of S between undecided points marks its lower end: i is the largest of
         * its undecided neighbours in S and S^T when no edge marked it */
        for (int32_t i = 0; i < n; i++) {
            if (state[i] != PMIS_U) continue;
            for (int32_t q = S->rowptr[i]; q < S->rowptr[i + 1]; q++) {
                const int32_t j = S->colind[q];
                if (j == i || state[j] != PMIS_U) continue;
                if (gs_amg_pmis_above(prio[j], j, prio[i], i))
                    notmax[i] = 1;
                else
                    notmax[j] = 1;
            }
        }
        for (int32_t i = 0; i < n; i++)
            if (state[i] == PMIS_U && !notmax[i]) state[i] = PMIS_C;
        for (int32_t i = 0; i < n; i++) {
            if (state[i] != PMIS_U) continue;
            int dep = 0;
            for (int32_t q = S->rowptr[i]; q < S->rowptr[i + 1] && !dep; q++)
                dep = state[S->colind[q]] == PMIS_C;
            if (dep)
                state[i] = PMIS_F;
            else
                und++;
        }
        if (und == 0) break;
    }
    int32_t c = 0;
    for (int32_t i = 0; i < n; i++) cmap[i] = state[i] == PMIS_C ? c++ : -1;
    *nc = c;
done:
    gs_free(cnt);
    gs_free(prio);
    gs_free(state);
    gs_free(notmax);
    return st;
}

/* the value of column col in sorted row r of A (0 when not stored) */
static double entry(const gs_csr *A, int32_t r, int32_t col)
{
    const int32_t q = gs_csr_lower_bound(A, r, col);
    return q < A->rowptr[r + 1] && A->colind[q] == col ? A->val[q] : 0.0;
}

gs_status gs_amg_classical_fc_host(const gs_csr *A, const gs_csr *S, const int32_t *cmap,
                                   int32_t nc, gs_csr **AFC, double *beta)
{
    gs_status st = GS_OK;
    gs_csr *F = NULL;
    const int32_t n = A->rows;
    int64_t cnt = 0;
    for (int32_t i = 0; i < n; i++)
        if (cmap[i] < 0)
            for (int32_t q = S->rowptr[i]; q < S->rowptr[i + 1]; q++) cnt += cmap[S->colind[q]] >= 0;
    GS_CHECK(gs_csr_create(n, nc, cnt, &F));
    F->rowptr[0] = 0;
    cnt = 0;
    for (int32_t i = 0; i < n; i++) {
        double b = 0.0;
        if (cmap[i] < 0) { /* merge the strong columns with A's row (both sorted) */
            int32_t p = A->rowptr[i];
            for (int32_t q = S->rowptr[i]; q < S->rowptr[i + 1]; q++) {
                const int32_t j = S->colind[q];
                while (A->colind[p] < j) p++;
                if (cmap[j] < 0) continue;
                F->colind[cnt] = cmap[j];
                F->val[cnt++] = A->val[p];
                b += A->val[p];
            }
        }
        beta[i] = b;
        F->rowptr[i + 1] = (int32_t)cnt;
    }
    *AFC = F;
done:
    return st;
}

/* row i's entry of M at strong F neighbour k (coupling a), or 0 with *lump set when it goes to
 * the diagonal; *dd: what it adds to the diagonal */
static inline double ff_entry(double a, double akk, double aki, double bk, double *dd)
{
    const double at = aki * akk < 0 ? aki : 0.0, den = bk + at;
    if (den == 0.0) {
        *dd = a;
        return 0.0;
    }
    *dd = a * at / den;
    return a / den;
}

gs_status gs_amg_classical_ff_host(const gs_csr *A, const gs_csr *S, const int32_t *cmap,
                                   const double *beta, gs_csr **M, double *d)
{
    gs_status st = GS_OK;
    gs_csr *G = NULL;
    const int32_t n = A->rows;
    int64_t cnt = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            GS_CHECK(gs_csr_create(n, n, cnt, &G));
            G->rowptr[0] = 0;
            cnt = 0;
        }
        for (int32_t i = 0; i < n; i++) {
            if (cmap[i] >= 0) {
                if (pass) d[i] = 1.0, G->rowptr[i + 1] = (int32_t)cnt;
                continue;
            }
            const double aii = entry(A, i, i);
            double di = aii;
            int32_t s = S->rowptr[i];
            for (int32_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
                const int32_t j = A->colind[p];
                const double a = A->val[p];
                while (s < S->rowptr[i + 1] && S->colind[s] < j) s++;
                const int strong = s < S->rowptr[i + 1] && S->colind[s] == j;
                if (j == i) {
                    if (pass) G->colind[cnt] = i, G->val[cnt] = 1.0;
                    cnt++;
                } else if (!strong) {
                    di += a; /* weak: lumped */
                } else if (cmap[j] < 0) {
                    double dd, m = ff_entry(a, entry(A, j, j), entry(A, j, i), beta[j], &dd);
                    di += dd;
                    if (m != 0.0) {
                        if (pass) G->colind[cnt] = j, G->val[cnt] = m;
                        cnt++;
                    }
                }
            }
            if (pass) {
                d[i] = gs_amg_ff_diag(di, aii);
                G->rowptr[i + 1] = (int32_t)cnt;
            }
        }
    }
    *M = G;
done:
    return st;
}

/* the kept entries of an F row (w = -x / di over [b, e) of X): at most pmax (0: all) of the
 * largest |w| at least trunc max |w|, in keep[] as flags; returns their count, and the row's sum
 * and the kept sum */
static int32_t trunc_row(const gs_csr *X, int32_t b, int32_t e, double di, int pmax,
                         double trunc, unsigned char *keep, double *all, double *kept)
{
    double mx = 0.0, sa = 0.0, sk = 0.0;
    int32_t c = 0;
    for (int32_t q = b; q < e; q++) {
        mx = fmax(mx, fabs(X->val[q] / di));
        sa += -X->val[q] / di;
    }
    for (int32_t q = b; q < e; q++) {
        const double w = fabs(X->val[q] / di);
        keep[q - b] = 0;
        if (!(w > 0) || w < trunc * mx) continue;
        if (pmax > 0) { /* its rank among the row's entries */
            int32_t rank = 0;
            for (int32_t r = b; r < e && rank < pmax; r++)
                rank += r != q && gs_amg_trunc_above(fabs(X->val[r] / di), X->colind[r], w,
                                                     X->colind[q]);
            if (rank >= pmax) continue;
        }
        keep[q - b] = 1;
        sk += -X->val[q] / di;
        c++;
    }
    *all = sa;
    *kept = sk;
    return c;
}

gs_status gs_amg_classical_p_host(const gs_csr *X, const int32_t *cmap, const double *d,
                                  int32_t nc, int pmax, double trunc, gs_csr **P)
{
    gs_status st = GS_OK;
    gs_csr *G = NULL;
    unsigned char *keep = NULL;
    const int32_t n = X->rows;
    int32_t longest = 0;
    int64_t cnt = 0;
    for (int32_t i = 0; i < n; i++)
        if (X->rowptr[i + 1] - X->rowptr[i] > longest) longest = X->rowptr[i + 1] - X->rowptr[i];
    GS_CHECK(gs_alloc_array((size_t)longest + 1, 1, "interpolation", (void **)&keep));
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            GS_CHECK(gs_csr_create(n, nc, cnt, &G));
            G->rowptr[0] = 0;
            cnt = 0;
        }
        for (int32_t i = 0; i < n; i++) {
            if (cmap[i] >= 0) {
                if (pass) G->colind[cnt] = cmap[i], G->val[cnt] = 1.0;
                cnt++;
            } else if (d[i] != 0.0) {
                const int32_t b = X->rowptr[i], e = X->rowptr[i + 1];
                double all, kept;
                int32_t c = trunc_row(X, b, e, d[i], pmax, trunc, keep, &all, &kept);
                if (pass) {
                    const double sc = kept != 0.0 ? all / kept : 1.0;
                    for (int32_t q = b; q < e; q++)
                        if (keep[q - b]) {
                            G->colind[cnt] = X->colind[q];
                            G->val[cnt++] = -X->val[q] / d[i] * sc;
                        }
                } else {
                    cnt += c;
                }
            }
            if (pass) G->rowptr[i + 1] = (int32_t)cnt;
        }
    }
    *P = G;
    G = NULL;
done:
    gs_csr_destroy(&G);
    gs_free(keep);
    return st;
}

gs_status gs_amg_variation_host(const gs_csr *A, const double *dinv, double *varied,
                                 double *positive)
{
    int64_t all = 0, var = 0, pos = 0;
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            const int32_t j = A->colind[q];
            if (j == i || dinv[i] == 0.0 || dinv[j] == 0.0) continue;
            const double r = fabs(dinv[i] / dinv[j]);
            all++;
            var += r > 2.0 || r < 0.5;
            pos += A->val[q] * dinv[i] > 0;
        }
    *varied = all > 0 ? (double)var / (double)all : 0.0;
    *positive = all > 0 ? (double)pos / (double)all : 0.0;
    return GS_OK;
}

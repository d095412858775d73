/* gs_amg_host.c: the AMG setup and smoothing steps on the host (the reference for the device
 * kernels of gs_amg_cuda.cu, which compute the same aggregates), and the host-only general steps:
 * block strength, standard aggregation, QR tentative prolongator, dense coarse inverse. */
#include <math.h>
#include <string.h>

#include "gs_amg_impl.h"
#include "gs_spgemm.h"

/* ---- strength ---------------------------------------------------------------------------- */

static gs_status host_strength_scalar(const gs_csr *A, double theta, gs_csr **S)
{
    gs_status st = GS_OK;
    gs_csr *G = NULL;
    double *d = NULL;
    int32_t n = A->rows;
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *d, "strength diagonal", (void **)&d));
    gs_csr_diag_host(A, d);
    int64_t cnt = 0;
    for (int32_t i = 0; i < n; i++)
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            int32_t j = A->colind[q];
            if (j != i && fabs(A->val[q]) > theta * sqrt(fabs(d[i] * d[j]))) cnt++;
        }
    GS_CHECK(gs_csr_create(n, n, cnt, &G));
    gs_free(G->val);
    G->val = NULL;
    G->rowptr[0] = 0;
    cnt = 0;
    for (int32_t i = 0; i < n; i++) {
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            int32_t j = A->colind[q];
            if (j != i && fabs(A->val[q]) > theta * sqrt(fabs(d[i] * d[j])))
                G->colind[cnt++] = j;
        }
        G->rowptr[i + 1] = (int32_t)cnt;
    }
    *S = G;
    G = NULL;
done:
    gs_csr_destroy(&G);
    gs_free(d);
    return st;
}

gs_status gs_amg_strength_block(const gs_csr *A, int b, double theta, gs_csr **S)
{
    gs_status st = GS_OK;
    gs_csr *N = NULL;
    int32_t *ri = NULL, *ci = NULL;
    double *v = NULL;
    if (b <= 1) return host_strength_scalar(A, theta, S);
    if (A->rows % b != 0)
        return GS_ERROR(GS_ERR_INPUT, "amg: %d rows are not a multiple of amg.block_size = %d",
                        A->rows, b);
    /* the node matrix of squared block norms, by a COO pass (duplicates summed) */
    GS_CHECK(gs_alloc_array((size_t)A->nnz + 1, sizeof *ri, "node graph", (void **)&ri));
    GS_CHECK(gs_alloc_array((size_t)A->nnz + 1, sizeof *ci, "node graph", (void **)&ci));
    GS_CHECK(gs_alloc_array((size_t)A->nnz + 1, sizeof *v, "node graph", (void **)&v));
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            ri[q] = i / b;
            ci[q] = A->colind[q] / b;
            v[q] = A->val[q] * A->val[q];
        }
    GS_CHECK(gs_csr_from_coo(A->rows / b, A->cols / b, A->nnz, ri, ci, v, &N));
    for (int32_t q = 0; q < N->nnz; q++) N->val[q] = sqrt(N->val[q]);
    GS_CHECK(host_strength_scalar(N, theta, S));
done:
    gs_csr_destroy(&N);
    gs_free(ri);
    gs_free(ci);
    gs_free(v);
    return st;
}

static gs_status host_strength(const gs_csr *A, double theta, int b, gs_csr **S)
{
    return gs_amg_strength_block(A, b, theta, S);
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

gs_status gs_amg_standard_aggregate(const gs_csr *S, int32_t *agg, int32_t *nagg)
{
    int32_t n = S->rows, na = 0;
    for (int32_t i = 0; i < n; i++) agg[i] = -1;
    /* pass 1: a node whose strong neighbours are all free starts an aggregate with them */
    for (int32_t i = 0; i < n; i++) {
        int32_t s = S->rowptr[i], e = S->rowptr[i + 1];
        if (agg[i] >= 0 || s == e) continue;
        int free_all = 1;
        for (int32_t q = s; q < e && free_all; q++) free_all = agg[S->colind[q]] < 0;
        if (!free_all) continue;
        agg[i] = na;
        for (int32_t q = s; q < e; q++) agg[S->colind[q]] = na;
        na++;
    }
    /* pass 2: a free node joins the aggregate of its first aggregated neighbour (of pass 1) */
    int32_t na1 = na;
    for (int32_t i = 0; i < n; i++) {
        if (agg[i] >= 0) continue;
        for (int32_t q = S->rowptr[i]; q < S->rowptr[i + 1]; q++) {
            int32_t a = agg[S->colind[q]];
            if (a >= 0 && a < na1) {
                agg[i] = a;
                break;
            }
        }
    }
    /* pass 3: what is left (nodes with neighbours) forms aggregates with its free neighbours */
    for (int32_t i = 0; i < n; i++) {
        int32_t s = S->rowptr[i], e = S->rowptr[i + 1];
        if (agg[i] >= 0 || s == e) continue;
        agg[i] = na;
        for (int32_t q = s; q < e; q++)
            if (agg[S->colind[q]] < 0) agg[S->colind[q]] = na;
        na++;
    }
    *nagg = na;
    return GS_OK;
}

/* ---- tentative prolongator -------------------------------------------------------------- */

gs_status gs_amg_block_nullspace(int32_t nodes, int b, const double *w, double **B)
{
    gs_status st = GS_OK;
    int64_t n = (int64_t)nodes * b;
    GS_CHECK(gs_alloc_array((size_t)n * b + 1, sizeof **B, "near-nullspace", (void **)B));
    for (int c = 0; c < b; c++)
        for (int64_t i = 0; i < n; i++)
            (*B)[(size_t)c * n + i] = i % b == c ? (w ? w[i / b] : 1.0) : 0.0;
done:
    return st;
}

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

gs_status gs_amg_tentative_qr(int32_t nodes, int b, const int32_t *agg, int32_t nagg,
                              const double *B, int k, gs_csr **P, double *Bc)
{
    gs_status st = GS_OK;
    int32_t *start = NULL, *member = NULL, *pos = NULL;
    double *Q = NULL, *Rf = NULL, *Qall = NULL;
    gs_csr *T = NULL;
    int64_t n = (int64_t)nodes * b;
    GS_CHECK(gs_alloc_array((size_t)nagg + 2, sizeof *start, "aggregates", (void **)&start));
    GS_CHECK(gs_alloc_array((size_t)nodes + 1, sizeof *member, "aggregates", (void **)&member));
    GS_CHECK(gs_alloc_array((size_t)nodes + 1, sizeof *pos, "aggregates", (void **)&pos));
    /* members of each aggregate in node order (a counting sort) */
    memset(start, 0, ((size_t)nagg + 2) * sizeof *start);
    for (int32_t i = 0; i < nodes; i++)
        if (agg[i] >= 0) start[agg[i] + 2]++;
    for (int32_t a = 0; a < nagg; a++) start[a + 2] += start[a + 1];
    for (int32_t i = 0; i < nodes; i++)
        if (agg[i] >= 0) member[start[agg[i] + 1]++] = i;
    /* now start[a] .. start[a + 1] are aggregate a's members; pos[i] is i's place */
    int32_t maxm = 0;
    for (int32_t a = 0; a < nagg; a++)
        if (start[a + 1] - start[a] > maxm) maxm = start[a + 1] - start[a];
    for (int32_t a = 0; a < nagg; a++)
        for (int32_t t = start[a]; t < start[a + 1]; t++) pos[member[t]] = t - start[a];
    size_t mrows = (size_t)maxm * (size_t)b;
    GS_CHECK(gs_alloc_array(mrows * (size_t)k + 1, sizeof *Q, "tentative prolongator",
                            (void **)&Q));
    GS_CHECK(gs_alloc_array((size_t)nagg * (size_t)k * (size_t)k + 1, sizeof *Rf,
                            "tentative prolongator", (void **)&Rf));
    /* the QR of every aggregate's block of B (modified Gram-Schmidt); Q kept per aggregate in
     * the order of T's entries: count first */
    int64_t nnz = 0;
    for (int32_t i = 0; i < nodes; i++)
        if (agg[i] >= 0) nnz += (int64_t)b * k;
    if (nnz >= GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "amg: the tentative prolongator would have %lld entries",
                (long long)nnz);
    GS_CHECK(gs_alloc_array((size_t)nnz + 1, sizeof *Qall, "tentative prolongator",
                            (void **)&Qall));
    /* Qall[(start[a] * b + local row) * k + c] */
    for (int32_t a = 0; a < nagg; a++) {
        int32_t m = (start[a + 1] - start[a]) * b;
        for (int32_t t = 0; t < start[a + 1] - start[a]; t++)
            for (int r = 0; r < b; r++)
                for (int c = 0; c < k; c++)
                    Q[(size_t)c * (size_t)m + (size_t)t * b + r] =
                        B[(size_t)c * (size_t)n + (size_t)member[start[a] + t] * b + r];
        double *R = Rf + (size_t)a * k * k; /* k x k column-major */
        for (int c = 0; c < k; c++) {
            double *qc = Q + (size_t)c * m, scale = 0.0;
            for (int32_t r = 0; r < m; r++) scale += qc[r] * qc[r];
            for (int c2 = 0; c2 < c; c2++) {
                double *q2 = Q + (size_t)c2 * m, dot = 0.0;
                for (int32_t r = 0; r < m; r++) dot += q2[r] * qc[r];
                for (int32_t r = 0; r < m; r++) qc[r] -= dot * q2[r];
                R[(size_t)c * k + c2] = dot;
            }
            double nrm = 0.0;
            for (int32_t r = 0; r < m; r++) nrm += qc[r] * qc[r];
            nrm = sqrt(nrm);
            for (int c2 = c + 1; c2 < k; c2++) R[(size_t)c * k + c2] = 0.0;
            if (nrm <= 1e-10 * sqrt(scale) || nrm == 0.0) { /* dependent on the others here */
                for (int32_t r = 0; r < m; r++) qc[r] = 0.0;
                R[(size_t)c * k + c] = 0.0;
            } else {
                for (int32_t r = 0; r < m; r++) qc[r] /= nrm;
                R[(size_t)c * k + c] = nrm;
            }
        }
        for (int32_t r = 0; r < m; r++)
            for (int c = 0; c < k; c++)
                Qall[((size_t)start[a] * b + r) * k + c] = Q[(size_t)c * m + r];
    }
    /* T: row i = node*b + r of aggregate a holds columns a*k .. a*k+k-1 (exact zeros left out) */
    int64_t cnt = 0;
    for (int32_t i = 0; i < nodes; i++) {
        if (agg[i] < 0) continue;
        const double *row = Qall + ((size_t)start[agg[i]] * b + (size_t)pos[i] * b) * k;
        for (int64_t e = 0; e < (int64_t)b * k; e++) cnt += row[e] != 0.0;
    }
    GS_CHECK(gs_csr_create(n, (int64_t)nagg * k, cnt, &T));
    cnt = 0;
    T->rowptr[0] = 0;
    for (int32_t i = 0; i < nodes; i++) {
        for (int r = 0; r < b; r++) {
            if (agg[i] >= 0) {
                const double *row =
                    Qall + ((size_t)start[agg[i]] * b + (size_t)pos[i] * b + r) * k;
                for (int c = 0; c < k; c++)
                    if (row[c] != 0.0) {
                        T->colind[cnt] = agg[i] * k + c;
                        T->val[cnt++] = row[c];
                    }
            }
            T->rowptr[(int64_t)i * b + r + 1] = (int32_t)cnt;
        }
    }
    /* Bc: rows a*k + c2, columns c: R[c][c2] */
    for (int32_t a = 0; a < nagg; a++)
        for (int c = 0; c < k; c++)
            for (int c2 = 0; c2 < k; c2++)
                Bc[(size_t)c * nagg * k + (size_t)a * k + c2] = Rf[(size_t)a * k * k + (size_t)c * k + c2];
    *P = T;
    T = NULL;
done:
    gs_free(Qall);
    gs_csr_destroy(&T);
    gs_free(start);
    gs_free(member);
    gs_free(pos);
    gs_free(Q);
    gs_free(Rf);
    return st;
}

/* ---- diagonal, smoothing matrix, smoother step ------------------------------------------ */

static gs_status host_diag_inv(const gs_csr *A, int l1, double *dinv, double *sqrt_dinv,
                               int64_t *bad, int64_t *first_bad)
{
    int64_t nb = 0, fb = -1;
    for (int32_t i = 0; i < A->rows; i++) {
        double d = 0.0, s = 0.0;
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            if (A->colind[q] == i) d = A->val[q];
            s += fabs(A->val[q]);
        }
        if (d == 0.0 || !isfinite(d) || !isfinite(s)) {
            dinv[i] = 0.0;
            if (fb < 0) fb = i;
            nb++;
        } else {
            dinv[i] = l1 ? 1.0 / s : 1.0 / d;
        }
        if (sqrt_dinv) sqrt_dinv[i] = sqrt(fabs(dinv[i]));
    }
    *bad = nb;
    *first_bad = fb;
    return GS_OK;
}

static gs_status host_jacobi_matrix(const gs_csr *A, const double *dinv, double w, gs_csr **Sj)
{
    gs_status st = GS_OK;
    gs_csr *S = NULL;
    GS_CHECK(gs_csr_create(A->rows, A->cols, A->nnz, &S));
    memcpy(S->rowptr, A->rowptr, ((size_t)A->rows + 1) * sizeof *S->rowptr);
    memcpy(S->colind, A->colind, (size_t)A->nnz * sizeof *S->colind);
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

/* ---- dense coarse inverse ------------------------------------------------------------- */

gs_status gs_amg_dense_inverse(const gs_csr *A, double *inv, int *rank)
{
    gs_status st = GS_OK;
    int32_t n = A->rows;
    double *M = NULL;
    int32_t *piv = NULL;
    GS_CHECK(gs_alloc_array((size_t)n * n + 1, sizeof *M, "coarse matrix", (void **)&M));
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *piv, "coarse pivots", (void **)&piv));
    memset(M, 0, (size_t)n * n * sizeof *M);
    double amax = 0.0;
    for (int32_t i = 0; i < n; i++)
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            M[(size_t)i * n + A->colind[q]] += A->val[q];
            if (fabs(A->val[q]) > amax) amax = fabs(A->val[q]);
        }
    int rk = 0;
    double tiny = 1e-13 * amax;
    for (int32_t c = 0; c < n; c++) { /* LU with partial pivoting, in place */
        int32_t p = c;
        for (int32_t r = c + 1; r < n; r++)
            if (fabs(M[(size_t)r * n + c]) > fabs(M[(size_t)p * n + c])) p = r;
        piv[c] = p;
        if (p != c)
            for (int32_t j = 0; j < n; j++) {
                double t = M[(size_t)c * n + j];
                M[(size_t)c * n + j] = M[(size_t)p * n + j];
                M[(size_t)p * n + j] = t;
            }
        double pv = M[(size_t)c * n + c];
        if (fabs(pv) <= tiny) { /* a zero direction: no elimination with it */
            M[(size_t)c * n + c] = 0.0;
            continue;
        }
        rk++;
        for (int32_t r = c + 1; r < n; r++) {
            double f = M[(size_t)r * n + c] / pv;
            M[(size_t)r * n + c] = f;
            if (f != 0.0)
                for (int32_t j = c + 1; j < n; j++) M[(size_t)r * n + j] -= f * M[(size_t)c * n + j];
        }
    }
    /* inverse column by column: solve L U x = P e_j */
    for (int32_t j = 0; j < n; j++) {
        double *col = inv + (size_t)j * n; /* column j stored as row j (transposed below) */
        for (int32_t i = 0; i < n; i++) col[i] = i == j ? 1.0 : 0.0;
        for (int32_t c = 0; c < n; c++) { /* apply the row swaps in order */
            double t = col[c];
            col[c] = col[piv[c]];
            col[piv[c]] = t;
        }
        for (int32_t i = 0; i < n; i++) /* L y = b (unit lower) */
            for (int32_t c = 0; c < i; c++) col[i] -= M[(size_t)i * n + c] * col[c];
        for (int32_t i = n - 1; i >= 0; i--) { /* U x = y; zero pivots give 0 */
            double u = M[(size_t)i * n + i];
            if (u == 0.0) {
                col[i] = 0.0;
                continue;
            }
            for (int32_t c = i + 1; c < n; c++) col[i] -= M[(size_t)i * n + c] * col[c];
            col[i] /= u;
        }
    }
    for (int32_t i = 0; i < n; i++) /* transpose into row-major */
        for (int32_t j = i + 1; j < n; j++) {
            double t = inv[(size_t)i * n + j];
            inv[(size_t)i * n + j] = inv[(size_t)j * n + i];
            inv[(size_t)j * n + i] = t;
        }
    *rank = rk;
done:
    gs_free(M);
    gs_free(piv);
    return st;
}

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
    .mis2_aggregate = host_mis2,
    .tentative = host_tentative,
    .diag_inv = host_diag_inv,
    .jacobi_matrix = host_jacobi_matrix,
    .smooth_step = host_smooth_step,
    .fill_random = host_fill_random,
    .row_stats = host_row_stats,
    .times_tentative = gs_spgemm_host,
    .scaled_spmv = host_scaled_spmv,
    .lanczos_update = host_lanczos_update,
};

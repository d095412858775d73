/* gs_amg_coarsen_host.c: the general coarsening steps, on the host: strength on the node graph
 * of a block matrix, PyAMG's standard aggregation, the block near-nullspace and the tentative
 * prolongator of k vectors by a QR on each aggregate. The data-parallel (scalar) path is in
 * amg/ops/, on both backends. */
#include <math.h>
#include <string.h>

#include "gs_amg_ops.h"
#include "gs_omp.h"

/* m[i] = the largest coupling size of row i (0 when none is positive) */
static void row_max_coupling(const gs_csr *A, const double *d, int sign, double *m)
{
#pragma omp parallel for schedule(static) if (A->rows > 20000)
    for (int32_t i = 0; i < A->rows; i++) {
        double x = 0.0;
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
            if (A->colind[q] != i) x = fmax(x, gs_amg_coupling(A->val[q], d[i], sign));
        m[i] = x;
    }
}

/* classical AMG's measure beside gs_amg_strength's: c_ij > 0 and c_ij > theta m_i, relative to
 * row i alone (not symmetric) */
enum { STRENGTH_CLASSICAL = GS_STRENGTH_ROWMAX + 1 };

/* the strength test of coupling q = (i, j) (gs_amg_ops.strength; classical_strength with
 * STRENGTH_CLASSICAL and dense rows, which are no row's strong neighbour) */
static inline int host_strong(const gs_csr *A, const double *d, const double *m, double theta,
                              int measure, int sign, int32_t dense, int32_t i, int32_t q)
{
    int32_t j = A->colind[q];
    if (j == i || gs_amg_dense_row(A->rowptr, dense, j)) return 0;
    if (measure == GS_STRENGTH_ROWMAX || measure == STRENGTH_CLASSICAL) {
        double c = gs_amg_coupling(A->val[q], d[i], sign);
        return c > 0 && c > theta * (measure == GS_STRENGTH_ROWMAX ? fmax(m[i], m[j]) : m[i]);
    }
    return fabs(A->val[q]) > theta * sqrt(fabs(d[i] * d[j]));
}

/* sign: the couplings are signed entries (b = 1), not block norms; a dense row (more than
 * `dense` entries, 0: none) has no strong couplings and is no row's strong neighbour */
static gs_status host_strength_scalar(const gs_csr *A, double theta, int measure, int sign,
                                      int32_t dense, gs_csr **S)
{
    gs_status st = GS_OK;
    gs_csr *G = NULL;
    double *d = NULL, *m = NULL;
    int32_t n = A->rows, *len = NULL;
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *d, "strength diagonal", (void **)&d));
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *m, "strength diagonal", (void **)&m));
    gs_csr_diag_host(A, d);
    if (measure != GS_STRENGTH_SYMMETRIC) row_max_coupling(A, d, sign, m);
    /* each row's strong couplings counted, then written, rows in parallel */
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *len, "strength", (void **)&len));
#pragma omp parallel for schedule(static) if (n > 20000)
    for (int32_t i = 0; i < n; i++) {
        int32_t c = 0;
        if (!gs_amg_dense_row(A->rowptr, dense, i))
            for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
                c += host_strong(A, d, m, theta, measure, sign, dense, i, q);
        len[i] = c;
    }
    int64_t cnt = 0;
    for (int32_t i = 0; i < n; i++) cnt += len[i];
    GS_CHECK(gs_csr_create(n, n, cnt, &G));
    gs_free(G->val);
    G->val = NULL;
    G->rowptr[0] = 0;
    for (int32_t i = 0; i < n; i++) G->rowptr[i + 1] = G->rowptr[i] + len[i];
#pragma omp parallel for schedule(static) if (n > 20000)
    for (int32_t i = 0; i < n; i++) {
        int32_t o = G->rowptr[i];
        if (len[i] > 0)
            for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
                if (host_strong(A, d, m, theta, measure, sign, dense, i, q))
                    G->colind[o++] = A->colind[q];
    }
    *S = G;
    G = NULL;
done:
    gs_csr_destroy(&G);
    gs_free(d);
    gs_free(m);
    gs_free(len);
    return st;
}

gs_status gs_amg_classical_strength_host(const gs_csr *A, double theta, int32_t dense,
                                         gs_csr **S)
{
    return host_strength_scalar(A, theta, STRENGTH_CLASSICAL, 1, dense, S);
}

/* node row I of the squared block norms' matrix: its node columns (ascending) in c and the sums
 * of their entries' squares in w; mark[J] = the slot of node column J in this row, or -1 (left
 * at -1 on return); returns the row's length */
static int32_t node_row(const gs_csr *A, int b, int32_t I, int32_t *mark, int32_t *c, double *w)
{
    int32_t len = 0;
    for (int32_t i = I * b; i < (I + 1) * b; i++)
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            const int32_t J = A->colind[q] / b;
            if (mark[J] < 0) {
                mark[J] = len;
                c[len] = J;
                w[len++] = 0.0;
            }
            w[mark[J]] += A->val[q] * A->val[q];
        }
    for (int32_t k = 1; k < len; k++) { /* a few dozen entries: insertion sort */
        const int32_t cj = c[k];
        const double wj = w[k];
        int32_t t = k - 1;
        for (; t >= 0 && c[t] > cj; t--) c[t + 1] = c[t], w[t + 1] = w[t];
        c[t + 1] = cj, w[t + 1] = wj;
    }
    for (int32_t k = 0; k < len; k++) mark[c[k]] = -1;
    return len;
}

gs_status gs_amg_strength_block(const gs_csr *A, int b, double theta, int measure, gs_csr **S)
{
    gs_status st = GS_OK;
    gs_csr *N = NULL;
    int32_t *mark = NULL, *cs = NULL, *cbuf = NULL, longest = 0;
    double *wbuf = NULL;
    if (b <= 1) return host_strength_scalar(A, theta, measure, 1, 0, S);
    if (A->rows % b != 0)
        return GS_ERROR(GS_ERR_INPUT, "amg: %d rows are not a multiple of amg.block_size = %d",
                        A->rows, b);
    /* the node matrix of block norms, built row by row (a node row is at most its rows'
     * entries long): its lengths, then its columns and norms; a marker per node column and
     * thread */
    const int32_t nn = A->rows / b, nc = (A->cols + b - 1) / b;
    const int nt = nn > 20000 ? gs_omp_threads() : 1;
    for (int32_t I = 0; I < nn; I++) {
        const int32_t e = A->rowptr[(I + 1) * b] - A->rowptr[I * b];
        longest = e > longest ? e : longest;
    }
    GS_CHECK(gs_alloc_array((size_t)nt * (size_t)nc + 1, sizeof *mark, "node graph",
                            (void **)&mark));
    GS_CHECK(gs_alloc_array((size_t)nt * ((size_t)longest + 1), sizeof *cbuf, "node graph",
                            (void **)&cbuf));
    GS_CHECK(gs_alloc_array((size_t)nt * ((size_t)longest + 1), sizeof *wbuf, "node graph",
                            (void **)&wbuf));
    GS_CHECK(gs_alloc_array((size_t)nn + 1, sizeof *cs, "node graph", (void **)&cs));
    for (size_t k = 0; k < (size_t)nt * (size_t)nc; k++) mark[k] = -1;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int32_t I = 0; I < nn; I++) {
        const size_t t = (size_t)gs_omp_thread();
        cs[I] = node_row(A, b, I, mark + t * (size_t)nc, cbuf + t * ((size_t)longest + 1),
                         wbuf + t * ((size_t)longest + 1));
    }
    int64_t nnz = 0;
    for (int32_t I = 0; I < nn; I++) nnz += cs[I];
    GS_CHECK(gs_csr_create(nn, nc, nnz, &N));
    N->rowptr[0] = 0;
    for (int32_t I = 0; I < nn; I++) N->rowptr[I + 1] = N->rowptr[I] + cs[I];
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int32_t I = 0; I < nn; I++) {
        const int32_t o = N->rowptr[I];
        node_row(A, b, I, mark + (size_t)gs_omp_thread() * (size_t)nc, N->colind + o, N->val + o);
        for (int32_t k = o; k < N->rowptr[I + 1]; k++) N->val[k] = sqrt(N->val[k]);
    }
    GS_CHECK(host_strength_scalar(N, theta, measure, 0, 0, S));
done:
    gs_csr_destroy(&N);
    gs_free(mark);
    gs_free(cbuf);
    gs_free(wbuf);
    gs_free(cs);
    return st;
}

/* row i of the filtered matrix: whether its small couplings are dropped (lumped keeps the
 * diagonal's sign and at least half its size; else the row stays whole), and the lumped
 * diagonal */
static int filter_row(const gs_csr *A, int32_t i, double di, double mi, double theta, int sign,
                      const double *w, double *lumped)
{
    double weak = 0.0;
    int dropped = 0;
    for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
        int32_t j = A->colind[q];
        if (j != i && !(gs_amg_coupling(A->val[q], di, sign) > theta * mi)) {
            weak += A->val[q] * (w ? w[j] : 1.0);
            dropped = 1;
        }
    }
    if (!dropped) {
        *lumped = di;
        return 1;
    }
    if (w && w[i] == 0.0) return 0;
    *lumped = di + (w ? weak / w[i] : weak);
    return *lumped * di > 0 && fabs(*lumped) >= 0.5 * fabs(di);
}

gs_status gs_amg_filter_host(const gs_csr *A, double theta, int measure, const double *w,
                             gs_csr **F)
{
    gs_status st = GS_OK;
    gs_csr *G = NULL;
    double *d = NULL, *m = NULL;
    int32_t n = A->rows, *len = NULL;
    int sign = measure == GS_STRENGTH_ROWMAX;
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *d, "filtered matrix", (void **)&d));
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *m, "filtered matrix", (void **)&m));
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *len, "filtered matrix", (void **)&len));
    gs_csr_diag_host(A, d);
    row_max_coupling(A, d, sign, m);
    /* each row's kept entries counted, then written, rows in parallel */
#pragma omp parallel for schedule(static) if (n > 20000)
    for (int32_t i = 0; i < n; i++) {
        double lumped;
        int f = filter_row(A, i, d[i], m[i], theta, sign, w, &lumped);
        int32_t c = 0;
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
            c += !f || A->colind[q] == i || gs_amg_coupling(A->val[q], d[i], sign) > theta * m[i];
        len[i] = c;
    }
    int64_t cnt = 0;
    for (int32_t i = 0; i < n; i++) cnt += len[i];
    *F = NULL;
    if (cnt == A->nnz) goto done; /* nothing dropped: F = A */
    GS_CHECK(gs_csr_create(n, A->cols, cnt, &G));
    G->rowptr[0] = 0;
    for (int32_t i = 0; i < n; i++) G->rowptr[i + 1] = G->rowptr[i] + len[i];
#pragma omp parallel for schedule(static) if (n > 20000)
    for (int32_t i = 0; i < n; i++) {
        double lumped;
        int f = filter_row(A, i, d[i], m[i], theta, sign, w, &lumped);
        int32_t o = G->rowptr[i];
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            int32_t j = A->colind[q];
            if (!f || j == i || gs_amg_coupling(A->val[q], d[i], sign) > theta * m[i]) {
                G->colind[o] = j;
                G->val[o++] = j == i && f ? lumped : A->val[q];
            }
        }
    }
    *F = G;
    G = NULL;
done:
    gs_csr_destroy(&G);
    gs_free(d);
    gs_free(m);
    gs_free(len);
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

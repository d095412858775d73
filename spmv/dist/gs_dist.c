/* gs_dist.c: partitions and the distributed matrix operations of gs_dist.h. */
#include "gs_dist.h"

#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_comm.h"
#include "gs_mem.h"
#include "gs_spgemm.h"

/* ---- partitions */

gs_status gs_part_from_count(int64_t mine, gs_part **out)
{
    gs_status st = GS_OK;
    gs_part *p = NULL;
    int n = gs_comm_size();
    int64_t *all = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *p, "partition", (void **)&p));
    p->nranks = n;
    p->start = NULL;
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof(int64_t), "partition", (void **)&p->start));
    GS_CHECK(gs_alloc_array((size_t)n, sizeof(int64_t), "partition", (void **)&all));
    GS_CHECK(gs_comm_allgather_i64(mine, all));
    p->start[0] = 0;
    for (int r = 0; r < n; r++) p->start[r + 1] = p->start[r] + all[r];
    *out = p;
    p = NULL;
done:
    gs_free(all);
    gs_part_destroy(&p);
    return st;
}

gs_status gs_part_balanced(int64_t n, const int64_t *rowptr, int nranks, int block, gs_part **out)
{
    gs_status st = GS_OK;
    gs_part *p = NULL;
    if (block < 1) block = 1;
    GS_CHECK(gs_alloc_array(1, sizeof *p, "partition", (void **)&p));
    p->nranks = nranks;
    p->start = NULL;
    GS_CHECK(gs_alloc_array((size_t)nranks + 1, sizeof(int64_t), "partition", (void **)&p->start));
    /* weight of rows [0, i): nonzeros + rows (an empty row still costs its vector entries) */
    double total = (double)(rowptr ? rowptr[n] : 0) + (double)n;
    int64_t i = 0;
    p->start[0] = 0;
    for (int r = 1; r < nranks; r++) {
        double target = total * r / nranks;
        while (i < n && (double)(rowptr ? rowptr[i] : 0) + (double)i < target) i++;
        int64_t b = (i + block / 2) / block * block; /* the nearest multiple of the block */
        if (b > n) b = n / block * block;
        if (b < p->start[r - 1]) b = p->start[r - 1];
        p->start[r] = b;
    }
    p->start[nranks] = n;
    *out = p;
    p = NULL;
done:
    gs_part_destroy(&p);
    return st;
}

void gs_part_destroy(gs_part **p)
{
    if (!p || !*p) return;
    gs_free((*p)->start);
    gs_free(*p);
    *p = NULL;
}

int gs_part_owner(const gs_part *p, int64_t g)
{
    int lo = 0, hi = p->nranks - 1;
    while (lo < hi) { /* the last r with start[r] <= g */
        int mid = (lo + hi + 1) / 2;
        if (p->start[mid] <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* ---- local rows with global columns */

gs_status gs_gcsr_create(int64_t row0, int32_t rows, int64_t grows, int64_t gcols, int64_t nnz,
                         gs_gcsr **out)
{
    gs_status st = GS_OK;
    gs_gcsr *A = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *A, "distributed matrix", (void **)&A));
    memset(A, 0, sizeof *A);
    A->row0 = row0;
    A->rows = rows;
    A->grows = grows;
    A->gcols = gcols;
    /* page-locked once a device backend runs (gs_alloc_pinned): the SpMV form uploads them */
    GS_CHECK(gs_alloc_pinned((size_t)rows + 1, sizeof(int64_t), "distributed matrix rows",
                             (void **)&A->rowptr));
    GS_CHECK(gs_alloc_pinned((size_t)nnz + 1, sizeof(int64_t), "distributed matrix columns",
                             (void **)&A->col));
    GS_CHECK(gs_alloc_pinned((size_t)nnz + 1, sizeof(double), "distributed matrix values",
                             (void **)&A->val));
    memset(A->rowptr, 0, ((size_t)rows + 1) * sizeof *A->rowptr);
    *out = A;
    A = NULL;
done:
    gs_gcsr_destroy(&A);
    return st;
}

void gs_gcsr_destroy(gs_gcsr **A)
{
    if (!A || !*A) return;
    gs_free((*A)->rowptr);
    gs_free((*A)->col);
    gs_free((*A)->val);
    gs_free(*A);
    *A = NULL;
}

gs_status gs_gcsr_from_csr_rows(const gs_csr *A, int64_t row0, int32_t rows, gs_gcsr **out)
{
    gs_status st = GS_OK;
    int64_t q0 = A->rowptr[row0], q1 = A->rowptr[row0 + rows];
    gs_gcsr *G = NULL;
    GS_CHECK(gs_gcsr_create(row0, rows, A->rows, A->cols, q1 - q0, &G));
    for (int32_t i = 0; i <= rows; i++) G->rowptr[i] = A->rowptr[row0 + i] - q0;
    for (int64_t q = q0; q < q1; q++) {
        G->col[q - q0] = A->colind[q];
        G->val[q - q0] = A->val[q];
    }
    *out = G;
done:
    return st;
}

/* ---- the entry exchange */

typedef struct entry {
    int64_t r, c;
    double v;
} entry;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* the slot of key in a table of mask + 1 slots (linear probing; empty slots hold INT64_MIN) */
static inline uint64_t slot_of(const int64_t *tab, uint64_t mask, int64_t key)
{
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull;
    uint64_t i = (h ^ (h >> 29)) & mask;
    while (tab[i] != INT64_MIN && tab[i] != key) i = (i + 1) & mask;
    return i;
}

int64_t gs_dist_unique_i64(int64_t *v, int64_t n)
{
    if (n <= 1) return n;
    /* the distinct values through a hash set first (the lists are mostly repeats: columns of
     * fetched rows), then only those sorted */
    uint64_t cap = 64;
    while (cap < 2 * (uint64_t)n) cap <<= 1;
    int64_t *tab = malloc(cap * sizeof *tab), m = 0;
    if (!tab) { /* no room for the table: sort them all */
        qsort(v, (size_t)n, sizeof *v, cmp_i64);
        m = 1;
        for (int64_t i = 1; i < n; i++)
            if (v[i] != v[m - 1]) v[m++] = v[i];
        return m;
    }
    for (uint64_t i = 0; i < cap; i++) tab[i] = INT64_MIN;
    for (int64_t i = 0; i < n; i++) {
        uint64_t k = slot_of(tab, cap - 1, v[i]);
        if (tab[k] == INT64_MIN) {
            tab[k] = v[i];
            v[m++] = v[i];
        }
    }
    free(tab);
    qsort(v, (size_t)m, sizeof *v, cmp_i64);
    return m;
}

gs_status gs_dist_map_create(const int64_t *keys, int64_t n, gs_dist_map *m)
{
    gs_status st = GS_OK;
    uint64_t cap = 64;
    while (cap < 2 * (uint64_t)n) cap <<= 1;
    m->mask = cap - 1;
    m->key = NULL;
    m->val = NULL;
    GS_CHECK(gs_alloc_array(cap, sizeof *m->key, "column map", (void **)&m->key));
    GS_CHECK(gs_alloc_array(cap, sizeof *m->val, "column map", (void **)&m->val));
    for (uint64_t i = 0; i < cap; i++) m->key[i] = INT64_MIN;
    for (int64_t i = 0; i < n; i++) {
        uint64_t k = slot_of(m->key, m->mask, keys[i]);
        m->key[k] = keys[i];
        m->val[k] = i;
    }
done:
    return st;
}

int64_t gs_dist_map_get(const gs_dist_map *m, int64_t key)
{
    uint64_t k = slot_of(m->key, m->mask, key);
    return m->key[k] == key ? m->val[k] : -1;
}

void gs_dist_map_destroy(gs_dist_map *m)
{
    gs_free(m->key);
    gs_free(m->val);
    m->key = NULL;
    m->val = NULL;
}

int64_t gs_dist_find_i64(const int64_t *v, int64_t n, int64_t g)
{
    int64_t lo = 0, hi = n - 1;
    while (lo <= hi) {
        int64_t mid = (lo + hi) / 2;
        if (v[mid] == g) return mid;
        if (v[mid] < g)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

gs_status gs_gcsr_from_entries(int64_t n, const int64_t *ri, const int64_t *ci, const double *v,
                               const gs_part *rp, int64_t gcols, gs_gcsr **out)
{
    gs_status st = GS_OK;
    const int R = rp->nranks, me = gs_comm_rank();
    size_t *sb = NULL, *rb = NULL, *pos = NULL;
    int64_t *cnt = NULL;
    entry *send = NULL, *recv = NULL, *byrow = NULL;
    gs_gcsr *A = NULL;
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *sb, "entry exchange", (void **)&sb));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *rb, "entry exchange", (void **)&rb));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *pos, "entry exchange", (void **)&pos));
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *send, "entry exchange", (void **)&send));
    memset(sb, 0, (size_t)R * sizeof *sb);
    for (int64_t e = 0; e < n; e++) sb[gs_part_owner(rp, ri[e])]++;
    size_t o = 0;
    for (int r = 0; r < R; r++) {
        pos[r] = o;
        o += sb[r];
        sb[r] *= sizeof(entry);
    }
    for (int64_t e = 0; e < n; e++) {
        int r = gs_part_owner(rp, ri[e]);
        send[pos[r]++] = (entry){ri[e], ci[e], v[e]};
    }
    GS_CHECK(gs_comm_alltoall_sizes(sb, rb));
    size_t total = 0;
    for (int r = 0; r < R; r++) total += rb[r];
    int64_t m = (int64_t)(total / sizeof(entry));
    GS_CHECK(gs_alloc_array((size_t)m + 1, sizeof *recv, "entry exchange", (void **)&recv));
    GS_CHECK(gs_comm_alltoallv(send, sb, recv, rb));
    /* a counting sort by row (O(m)), then each row's few entries by column, duplicates summed */
    int64_t row0 = rp->start[me], rows = rp->start[me + 1] - row0, k = 0;
    GS_CHECK(gs_alloc_array((size_t)rows + 2, sizeof *cnt, "entry exchange", (void **)&cnt));
    memset(cnt, 0, ((size_t)rows + 2) * sizeof *cnt);
    for (int64_t e = 0; e < m; e++) cnt[recv[e].r - row0 + 2]++;
    for (int64_t i = 0; i < rows; i++) cnt[i + 2] += cnt[i + 1];
    GS_CHECK(gs_alloc_array((size_t)m + 1, sizeof *byrow, "entry exchange", (void **)&byrow));
    for (int64_t e = 0; e < m; e++) byrow[cnt[recv[e].r - row0 + 1]++] = recv[e];
    GS_CHECK(gs_gcsr_create(row0, (int32_t)rows, rp->start[R], gcols, m, &A));
    for (int64_t i = 0; i < rows; i++) {
        entry *b = byrow + cnt[i], *e = byrow + cnt[i + 1];
        for (entry *x = b + 1; x < e; x++) { /* insertion sort: rows are short */
            entry t = *x, *y = x;
            for (; y > b && y[-1].c > t.c; y--) *y = y[-1];
            *y = t;
        }
        for (entry *x = b; x < e;) {
            entry *f = x + 1;
            double sum = x->v;
            while (f < e && f->c == x->c) sum += (f++)->v;
            A->col[k] = x->c;
            A->val[k++] = sum;
            x = f;
        }
        A->rowptr[i + 1] = k;
    }
    *out = A;
    A = NULL;
done:
    gs_free(cnt);
    gs_free(byrow);
    gs_free(sb);
    gs_free(rb);
    gs_free(pos);
    gs_free(send);
    gs_free(recv);
    gs_gcsr_destroy(&A);
    return st;
}

/* ---- fetching rows */

typedef struct colval {
    int64_t c;
    double v;
} colval;

gs_status gs_dist_fetch_rows(const gs_gcsr *B, const gs_part *bp, int64_t n, const int64_t *gids,
                             gs_gcsr **out)
{
    gs_status st = GS_OK;
    const int R = bp->nranks;
    size_t *qs = NULL, *qr = NULL, *ls = NULL, *lr = NULL, *es = NULL, *er = NULL;
    int64_t *req = NULL, *len = NULL, *rlen = NULL;
    colval *ent = NULL, *rent = NULL;
    gs_gcsr *H = NULL;
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(size_t), "row fetch", (void **)&qs));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(size_t), "row fetch", (void **)&qr));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(size_t), "row fetch", (void **)&ls));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(size_t), "row fetch", (void **)&lr));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(size_t), "row fetch", (void **)&es));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(size_t), "row fetch", (void **)&er));
    memset(qs, 0, (size_t)R * sizeof *qs);
    for (int64_t i = 0; i < n; i++) qs[gs_part_owner(bp, gids[i])] += sizeof(int64_t);
    /* the requests: the wanted rows, grouped by owner (gids is sorted) */
    GS_CHECK(gs_comm_alltoall_sizes(qs, qr));
    size_t nq = 0;
    for (int r = 0; r < R; r++) nq += qr[r] / sizeof(int64_t);
    GS_CHECK(gs_alloc_array(nq + 1, sizeof(int64_t), "row fetch", (void **)&req));
    GS_CHECK(gs_comm_alltoallv(gids, qs, req, qr));
    /* the answers: each asked row's length, then its entries */
    GS_CHECK(gs_alloc_array(nq + 1, sizeof(int64_t), "row fetch", (void **)&len));
    size_t ne = 0, q = 0;
    for (int r = 0; r < R; r++) {
        size_t k = qr[r] / sizeof(int64_t), e0 = ne;
        for (size_t j = 0; j < k; j++, q++) {
            int64_t i = req[q] - B->row0;
            if (i < 0 || i >= B->rows)
                GS_FAIL(GS_ERR_INTERNAL, "row fetch: row %lld asked of the rank that holds "
                        "rows %lld..%lld", (long long)req[q], (long long)B->row0,
                        (long long)(B->row0 + B->rows - 1));
            len[q] = B->rowptr[i + 1] - B->rowptr[i];
            ne += (size_t)len[q];
        }
        ls[r] = k * sizeof(int64_t);
        es[r] = (ne - e0) * sizeof(colval);
    }
    GS_CHECK(gs_alloc_array(ne + 1, sizeof(colval), "row fetch", (void **)&ent));
    for (size_t j = 0, e = 0; j < nq; j++) {
        int64_t i = req[j] - B->row0;
        for (int64_t p = B->rowptr[i]; p < B->rowptr[i + 1]; p++, e++)
            ent[e] = (colval){B->col[p], B->val[p]};
    }
    GS_CHECK(gs_comm_alltoall_sizes(ls, lr));
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof(int64_t), "row fetch", (void **)&rlen));
    GS_CHECK(gs_comm_alltoallv(len, ls, rlen, lr));
    GS_CHECK(gs_comm_alltoall_sizes(es, er));
    size_t me = 0;
    for (int r = 0; r < R; r++) me += er[r] / sizeof(colval);
    GS_CHECK(gs_alloc_array(me + 1, sizeof(colval), "row fetch", (void **)&rent));
    GS_CHECK(gs_comm_alltoallv(ent, es, rent, er));
    GS_CHECK(gs_gcsr_create(0, (int32_t)n, B->grows, B->gcols, (int64_t)me, &H));
    for (int64_t i = 0; i < n; i++) H->rowptr[i + 1] = H->rowptr[i] + rlen[i];
    for (size_t e = 0; e < me; e++) {
        H->col[e] = rent[e].c;
        H->val[e] = rent[e].v;
    }
    *out = H;
    H = NULL;
done:
    gs_free(qs);
    gs_free(qr);
    gs_free(ls);
    gs_free(lr);
    gs_free(es);
    gs_free(er);
    gs_free(req);
    gs_free(len);
    gs_free(rlen);
    gs_free(ent);
    gs_free(rent);
    gs_gcsr_destroy(&H);
    return st;
}

/* R = P^T: the entries whose column this rank owns transposed here by a counting pass (most of
 * them: a prolongator couples a fine row to nearby aggregates), only the others sent to their
 * owners through the entry exchange; each row of R is then [received columns below this rank's
 * rows] [its own, ascending] [received columns above] */
gs_status gs_dist_transpose(const gs_gcsr *P, const gs_part *cp, gs_gcsr **R)
{
    gs_status st = GS_OK;
    const int me = gs_comm_rank();
    const int64_t c0 = cp->start[me], nc = cp->start[me + 1] - c0, n = P->rowptr[P->rows];
    int64_t *ri = NULL, *ci = NULL, *cnt = NULL, nr = 0;
    double *rv = NULL;
    gs_gcsr *X = NULL, *T = NULL;
    GS_CHECK(gs_alloc_array((size_t)nc + 2, sizeof *cnt, "transpose", (void **)&cnt));
    memset(cnt, 0, ((size_t)nc + 2) * sizeof *cnt);
    for (int64_t q = 0; q < n; q++) {
        int64_t c = P->col[q] - c0;
        if (c >= 0 && c < nc)
            cnt[c + 2]++;
        else
            nr++;
    }
    GS_CHECK(gs_alloc_array((size_t)nr + 1, sizeof *ri, "transpose", (void **)&ri));
    GS_CHECK(gs_alloc_array((size_t)nr + 1, sizeof *ci, "transpose", (void **)&ci));
    GS_CHECK(gs_alloc_array((size_t)nr + 1, sizeof *rv, "transpose", (void **)&rv));
    for (int64_t i = 0; i < nc; i++) cnt[i + 2] += cnt[i + 1];
    GS_CHECK(gs_gcsr_create(c0, (int32_t)nc, cp->start[cp->nranks], P->grows, n - nr, &T));
    nr = 0; /* own entries by column (rows visited in order: each row of T comes out sorted) */
    for (int32_t i = 0; i < P->rows; i++)
        for (int64_t q = P->rowptr[i]; q < P->rowptr[i + 1]; q++) {
            int64_t c = P->col[q] - c0;
            if (c >= 0 && c < nc) {
                int64_t k = cnt[c + 1]++;
                T->col[k] = P->row0 + i;
                T->val[k] = P->val[q];
            } else {
                ri[nr] = P->col[q];
                ci[nr] = P->row0 + i;
                rv[nr++] = P->val[q];
            }
        }
    for (int64_t i = 0; i <= nc; i++) T->rowptr[i] = cnt[i];
    GS_CHECK(gs_gcsr_from_entries(nr, ri, ci, rv, cp, P->grows, &X));
    /* the two merged: X's columns lie outside this rank's rows, below or above them */
    GS_CHECK(gs_gcsr_create(c0, (int32_t)nc, cp->start[cp->nranks], P->grows,
                            T->rowptr[nc] + X->rowptr[nc], R));
    gs_gcsr *M = *R;
    int64_t k = 0;
    for (int64_t i = 0; i < nc; i++) {
        int64_t x = X->rowptr[i], x1 = X->rowptr[i + 1];
        for (; x < x1 && X->col[x] < P->row0; x++, k++) {
            M->col[k] = X->col[x];
            M->val[k] = X->val[x];
        }
        for (int64_t q = T->rowptr[i]; q < T->rowptr[i + 1]; q++, k++) {
            M->col[k] = T->col[q];
            M->val[k] = T->val[q];
        }
        for (; x < x1; x++, k++) {
            M->col[k] = X->col[x];
            M->val[k] = X->val[x];
        }
        M->rowptr[i + 1] = k;
    }
done:
    gs_free(ri);
    gs_free(ci);
    gs_free(rv);
    gs_free(cnt);
    gs_gcsr_destroy(&X);
    gs_gcsr_destroy(&T);
    return st;
}

gs_status gs_dist_compact(const gs_gcsr *A, int64_t col0, int32_t ncols, gs_csr **out,
                          int64_t **halo, int32_t *nhalo)
{
    gs_status st = GS_OK;
    int64_t nnz = A->rowptr[A->rows], nh = 0;
    int64_t *h = NULL;
    gs_csr *C = NULL;
    GS_CHECK(gs_alloc_array((size_t)nnz + 1, sizeof(int64_t), "halo columns", (void **)&h));
    for (int64_t q = 0; q < nnz; q++)
        if (A->col[q] < col0 || A->col[q] >= col0 + ncols) h[nh++] = A->col[q];
    nh = gs_dist_unique_i64(h, nh);
    if ((int64_t)ncols + nh > GS_MAX_INDEX || nnz > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "a rank's block has %lld columns and %lld nonzeros (below "
                "2^31 each)", (long long)(ncols + nh), (long long)nnz);
    GS_CHECK(gs_csr_create(A->rows, ncols + nh, nnz, &C));
    for (int32_t i = 0; i <= A->rows; i++) C->rowptr[i] = (int32_t)A->rowptr[i];
#pragma omp parallel for schedule(static) if (nnz > 100000)
    for (int32_t i = 0; i < A->rows; i++) {
        /* own columns first, then the halo's, each ascending: the row stays sorted when its
         * own columns are put before its halo ones */
        int32_t q0 = C->rowptr[i], q1 = C->rowptr[i + 1], k = q0;
        for (int pass = 0; pass < 2; pass++)
            for (int32_t q = q0; q < q1; q++) {
                int64_t g = A->col[q];
                int own = g >= col0 && g < col0 + ncols;
                if (own != (pass == 0)) continue;
                C->colind[k] = own ? (int32_t)(g - col0) : ncols + (int32_t)gs_dist_find_i64(h, nh, g);
                C->val[k] = A->val[q];
                k++;
            }
    }
    *out = C;
    C = NULL;
    *halo = h;
    h = NULL;
    *nhalo = (int32_t)nh;
done:
    gs_free(h);
    gs_csr_destroy(&C);
    return st;
}

/* C = A B at loc (host CSRs in and out) */
static gs_status local_product(const gs_csr *A, const gs_csr *B, gs_loc loc, gs_csr **C)
{
    gs_status st = GS_OK;
    gs_csr *dA = NULL, *dB = NULL, *dC = NULL;
    if (loc == GS_LOC_HOST || A->nnz == 0 || B->nnz == 0) return gs_spgemm_host(A, B, C);
    GS_CHECK(gs_csr_upload(A, loc, &dA));
    GS_CHECK(gs_csr_upload(B, loc, &dB));
    GS_CHECK(gs_spgemm(dA, dB, GS_SPGEMM_AUTO, &dC));
    GS_CHECK(gs_csr_download(dC, C));
done:
    gs_csr_destroy(&dA);
    gs_csr_destroy(&dB);
    gs_csr_destroy(&dC);
    return st;
}

gs_status gs_dist_matmul(const gs_gcsr *X, const gs_gcsr *Y, const gs_part *yp, gs_loc loc,
                         gs_gcsr **out)
{
    gs_status st = GS_OK;
    gs_csr *Xc = NULL, *Yc = NULL, *Cc = NULL;
    gs_gcsr *H = NULL, *C = NULL;
    int64_t *need = NULL, *ucol = NULL;
    int32_t nneed = 0, *mark = NULL;
    /* X with Y's own rows first, then the rows it needs from other ranks */
    GS_CHECK(gs_dist_compact(X, Y->row0, Y->rows, &Xc, &need, &nneed));
    GS_CHECK(gs_dist_fetch_rows(Y, yp, nneed, need, &H));
    /* the stacked [Y's rows; H] with compact columns: the columns they hold, in ascending
     * order (a mark per column of Y: Y's columns are a coarse level's, few) */
    int64_t ny = Y->rowptr[Y->rows], nh = H->rowptr[H->rows], nu = 0;
    GS_CHECK(gs_alloc_array((size_t)Y->gcols + 1, sizeof *mark, "product columns",
                            (void **)&mark));
    memset(mark, 0, ((size_t)Y->gcols + 1) * sizeof *mark);
    for (int64_t q = 0; q < ny; q++) mark[Y->col[q]] = 1;
    for (int64_t q = 0; q < nh; q++) mark[H->col[q]] = 1;
    for (int64_t j = 0; j < Y->gcols; j++)
        if (mark[j]) nu++;
    if (nu > GS_MAX_INDEX || ny + nh > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "a rank's product has %lld columns and %lld nonzeros "
                "(below 2^31 each)", (long long)nu, (long long)(ny + nh));
    GS_CHECK(gs_alloc_array((size_t)nu + 1, sizeof(int64_t), "product columns", (void **)&ucol));
    for (int64_t j = 0, u = 0; j < Y->gcols; j++)
        if (mark[j]) {
            mark[j] = (int32_t)u; /* its compact column */
            ucol[u++] = j;
        }
    GS_CHECK(gs_csr_create((int64_t)Y->rows + nneed, nu, ny + nh, &Yc));
    Yc->rowptr[0] = 0;
    for (int32_t i = 0; i < Y->rows; i++) Yc->rowptr[i + 1] = (int32_t)Y->rowptr[i + 1];
    for (int32_t i = 0; i < nneed; i++)
        Yc->rowptr[Y->rows + i + 1] = (int32_t)(ny + H->rowptr[i + 1]);
#pragma omp parallel for schedule(static) if (ny > 100000)
    for (int64_t q = 0; q < ny; q++) {
        Yc->colind[q] = mark[Y->col[q]];
        Yc->val[q] = Y->val[q];
    }
    for (int64_t q = 0; q < nh; q++) {
        Yc->colind[ny + q] = mark[H->col[q]];
        Yc->val[ny + q] = H->val[q];
    }
    GS_CHECK(local_product(Xc, Yc, loc, &Cc));
    GS_CHECK(gs_gcsr_create(X->row0, X->rows, X->grows, Y->gcols, Cc->nnz, &C));
    for (int32_t i = 0; i <= Cc->rows; i++) C->rowptr[i] = Cc->rowptr[i];
#pragma omp parallel for schedule(static) if (Cc->nnz > 100000)
    for (int32_t q = 0; q < Cc->nnz; q++) {
        C->col[q] = ucol[Cc->colind[q]];
        C->val[q] = Cc->val[q];
    }
    *out = C;
    C = NULL;
done:
    gs_csr_destroy(&Xc);
    gs_csr_destroy(&Yc);
    gs_csr_destroy(&Cc);
    gs_gcsr_destroy(&H);
    gs_gcsr_destroy(&C);
    gs_free(need);
    gs_free(ucol);
    gs_free(mark);
    return st;
}

gs_status gs_dist_allgather(const gs_gcsr *A, const gs_part *p, gs_csr **out)
{
    gs_status st = GS_OK;
    const int R = p->nranks;
    int64_t nnz = A->rowptr[A->rows], *cnt = NULL;
    size_t *rb = NULL;
    int32_t *len = NULL, *col = NULL;
    gs_csr *F = NULL;
    int64_t n = p->start[R], total = 0;
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(int64_t), "gather", (void **)&cnt));
    GS_CHECK(gs_alloc_array((size_t)R, sizeof(size_t), "gather", (void **)&rb));
    GS_CHECK(gs_comm_allgather_i64(nnz, cnt));
    for (int r = 0; r < R; r++) total += cnt[r];
    if (n > GS_MAX_INDEX || total > GS_MAX_INDEX || A->gcols > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "gathering a %lld-row matrix with %lld nonzeros onto one "
                "rank (below 2^31 each)", (long long)n, (long long)total);
    GS_CHECK(gs_csr_create(n, A->gcols, total, &F));
    GS_CHECK(gs_alloc_array((size_t)A->rows + 1, sizeof(int32_t), "gather", (void **)&len));
    GS_CHECK(gs_alloc_array((size_t)nnz + 1, sizeof(int32_t), "gather", (void **)&col));
    for (int32_t i = 0; i < A->rows; i++) len[i] = (int32_t)(A->rowptr[i + 1] - A->rowptr[i]);
    for (int64_t q = 0; q < nnz; q++) col[q] = (int32_t)A->col[q];
    for (int r = 0; r < R; r++) rb[r] = (size_t)(p->start[r + 1] - p->start[r]) * sizeof(int32_t);
    GS_CHECK(gs_comm_allgatherv(len, (size_t)A->rows * sizeof(int32_t), F->rowptr + 1, rb));
    for (int r = 0; r < R; r++) rb[r] = (size_t)cnt[r] * sizeof(int32_t);
    GS_CHECK(gs_comm_allgatherv(col, (size_t)nnz * sizeof(int32_t), F->colind, rb));
    for (int r = 0; r < R; r++) rb[r] = (size_t)cnt[r] * sizeof(double);
    GS_CHECK(gs_comm_allgatherv(A->val, (size_t)nnz * sizeof(double), F->val, rb));
    F->rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) F->rowptr[i + 1] += F->rowptr[i];
    *out = F;
    F = NULL;
done:
    gs_free(cnt);
    gs_free(rb);
    gs_free(len);
    gs_free(col);
    gs_csr_destroy(&F);
    return st;
}

gs_status gs_dist_stats_i64(int64_t mine, int64_t *sum, int64_t *min, int64_t *max)
{
    gs_status st = GS_OK;
    int64_t s = mine, lo = mine, hi = mine;
    GS_CHECK(gs_comm_sum_i64(&s, 1));
    GS_CHECK(gs_comm_min_i64(&lo, 1));
    GS_CHECK(gs_comm_max_i64(&hi, 1));
    if (sum) *sum = s;
    if (min) *min = lo;
    if (max) *max = hi;
done:
    return st;
}

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

gs_status gs_dist_copy_i64(const int64_t *v, int64_t n, int64_t **out)
{
    gs_status st = GS_OK;
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof(int64_t), "halo columns", (void **)out));
    if (n > 0) memcpy(*out, v, (size_t)n * sizeof(int64_t));
done:
    return st;
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

/* gs_dcsr.c: dynamic CSR: the generic functions (argument checks, then the operation table of
 * the matrix's location, gs_backend_module(loc, GS_MODULE_DCSR)) and the host table
 * gs_dcsr_host_ops (the reference); the device table is spmv/formats/gs_dcsr_cuda.cu's. */
#include "gs_dcsr.h"

#include <math.h>
#include <string.h>

#include "gs_backend.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* the DCSR operations for data at loc; NULL when that backend is not built or not started */
static const gs_dcsr_ops *ops_at(gs_loc loc)
{
    return (const gs_dcsr_ops *)gs_backend_module(loc, GS_MODULE_DCSR);
}

/* operation `op` on a matrix whose location has no DCSR table (the host always has one) */
static gs_status no_backend(const char *op)
{
    return GS_ERROR(GS_ERR_UNSUPPORTED,
                    "DCSR %s on the device needs the CUDA backend, which this build does not have "
                    "or has not started",
                    op);
}

void gs_dcsr_params_default(gs_dcsr_params *p)
{
    p->k = 4;
    p->slack = -1;
    p->reserve = 0.25;
}

/* entries to allocate for `used` live ones with spare fraction `reserve`, capped at 2^31-1 */
static int64_t with_reserve(int64_t used, double reserve)
{
    double c = (double)used * (1.0 + reserve) + 1.0;
    return c > (double)GS_MAX_INDEX ? GS_MAX_INDEX : (int64_t)c;
}

/* ---- the host table ---- */

/* D's arrays on the host, offsets, sizes and top zeroed (on failure gs_dcsr_destroy frees what
 * was made) */
static gs_status alloc_host(gs_dcsr *D)
{
    gs_status st = GS_OK;
    const size_t noff = (size_t)D->k * (size_t)D->pitch;
    GS_CHECK(gs_alloc_array(noff, sizeof(int32_t), "DCSR segment offsets", (void **)&D->offsets));
    memset(D->offsets, 0, noff * sizeof(int32_t));
    GS_CHECK(
        gs_alloc_array((size_t)D->rows + 1, sizeof(int32_t), "DCSR row sizes", (void **)&D->sizes));
    memset(D->sizes, 0, ((size_t)D->rows + 1) * sizeof(int32_t));
    GS_CHECK(gs_alloc_array(1, sizeof *D->top, "DCSR allocator top", (void **)&D->top));
    memset(D->top, 0, sizeof *D->top);
    GS_CHECK(gs_alloc_array((size_t)D->capacity, sizeof(int32_t), "DCSR column indices",
                            (void **)&D->colind));
    GS_CHECK(gs_alloc_array((size_t)D->capacity, sizeof(double), "DCSR values", (void **)&D->val));
done:
    return st;
}

static void free_host(gs_dcsr *D)
{
    gs_free(D->offsets);
    gs_free(D->sizes);
    gs_free(D->colind);
    gs_free(D->val);
    gs_free(D->top);
    gs_free(D->perm);
}

/* D = A with one segment per row (the CSR row), top = nnz */
static gs_status from_csr_host(gs_dcsr *D, const gs_csr *A)
{
    for (int32_t i = 0; i < A->rows; i++) {
        D->offsets[2 * (int64_t)i] = A->rowptr[i];
        D->offsets[2 * (int64_t)i + 1] = A->rowptr[i + 1];
        D->sizes[i] = A->rowptr[i + 1] - A->rowptr[i];
    }
    memcpy(D->colind, A->colind, (size_t)A->nnz * sizeof(int32_t));
    memcpy(D->val, A->val, (size_t)A->nnz * sizeof(double));
    *D->top = (unsigned long long)A->nnz;
    return GS_OK;
}

/* the segment holding row i's last entry (or its first slot when empty): index, entries up to
 * and including it (cum >= size), its bounds */
static int walk(const gs_dcsr *D, int64_t i, int32_t rl, int64_t *cum, int32_t *s0, int32_t *e0)
{
    int sid = 0;
    *cum = 0;
    for (;;) {
        *s0 = D->offsets[sid * D->pitch + 2 * i];
        *e0 = D->offsets[sid * D->pitch + 2 * i + 1];
        *cum += *e0 - *s0;
        if (*cum >= rl || sid == D->k - 1) break;
        sid++;
    }
    return sid;
}

/* copy row i's entries (in order) to colind/val starting at dst */
static void gather_row(const gs_dcsr *D, int64_t i, int32_t *ci, double *v)
{
    int64_t idx = 0, rl = D->sizes[i];
    for (int s = 0; s < D->k && idx < rl; s++) {
        int64_t st = D->offsets[s * D->pitch + 2 * i], en = D->offsets[s * D->pitch + 2 * i + 1];
        int64_t n = en - st < rl - idx ? en - st : rl - idx;
        memcpy(ci + idx, D->colind + st, (size_t)n * sizeof(int32_t));
        memcpy(v + idx, D->val + st, (size_t)n * sizeof(double));
        idx += n;
    }
}

static gs_status to_csr_host(const gs_dcsr *D, gs_csr **out)
{
    gs_status st = GS_OK;
    gs_csr *C = NULL;
    int64_t nnz = 0;
    for (int32_t i = 0; i < D->rows; i++) nnz += D->sizes[i];
    GS_CHECK(gs_csr_create(D->rows, D->cols, nnz, &C));
    for (int32_t i = 0; i < D->rows; i++) C->rowptr[i + 1] = C->rowptr[i] + D->sizes[i];
#pragma omp parallel for schedule(static) if (nnz > 100000)
    for (int32_t i = 0; i < D->rows; i++)
        gather_row(D, i, C->colind + C->rowptr[i], C->val + C->rowptr[i]);
    *out = C;
done:
    return st;
}

/* perm/bin_start: rows by bin of their length, a stable counting sort */
static gs_status bin_host(gs_dcsr *D)
{
    gs_status st = GS_OK;
    int64_t cnt[GS_DCSR_BINS + 1] = {0};
    if (!D->perm)
        GS_CHECK(gs_alloc_array((size_t)D->rows + 1, sizeof(int32_t), "DCSR row bins",
                                (void **)&D->perm));
    for (int32_t i = 0; i < D->rows; i++) cnt[gs_dcsr_bin_of(D->sizes[i]) + 1]++;
    for (int b = 0; b < GS_DCSR_BINS; b++) cnt[b + 1] += cnt[b];
    memcpy(D->bin_start, cnt, sizeof cnt);
    for (int32_t i = 0; i < D->rows; i++) D->perm[cnt[gs_dcsr_bin_of(D->sizes[i])]++] = i;
done:
    return st;
}

/* Algorithm 4 with room: row r gets one segment of sizes[r] + extra[r] entries at the prefix sum
 * of those (in bin order with reorder); capacity becomes that total plus the reserve */
static gs_status defrag_host(gs_dcsr *D, const int32_t *extra, int reorder)
{
    gs_status st = GS_OK;
    int64_t *start = NULL, total = 0;
    int32_t *nc = NULL;
    double *nv = NULL;
    if (reorder) GS_CHECK(bin_host(D));
    GS_CHECK(gs_alloc_array((size_t)D->rows + 1, sizeof *start, "DCSR defragmentation offsets",
                            (void **)&start));
    for (int32_t j = 0; j < D->rows; j++) {
        int32_t r = reorder ? D->perm[j] : j;
        start[r] = total;
        total += D->sizes[r] + (extra ? extra[r] : 0);
    }
    if (total > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "DCSR: %lld entries exceed 32-bit offsets (2^31 - 1)",
                (long long)total);
    int64_t cap = with_reserve(total, D->reserve);
    GS_CHECK(gs_alloc_array((size_t)cap, sizeof *nc, "DCSR column indices", (void **)&nc));
    GS_CHECK(gs_alloc_array((size_t)cap, sizeof *nv, "DCSR values", (void **)&nv));
#pragma omp parallel for schedule(static) if (total > 100000)
    for (int32_t i = 0; i < D->rows; i++) {
        gather_row(D, i, nc + start[i], nv + start[i]);
        for (int s = 1; s < D->k; s++)
            D->offsets[s * D->pitch + 2 * (int64_t)i] =
                D->offsets[s * D->pitch + 2 * (int64_t)i + 1] = 0;
        D->offsets[2 * (int64_t)i] = (int32_t)start[i];
        D->offsets[2 * (int64_t)i + 1] = (int32_t)(start[i] + D->sizes[i] + (extra ? extra[i] : 0));
    }
    gs_free(D->colind);
    gs_free(D->val);
    D->colind = nc, D->val = nv, nc = NULL, nv = NULL;
    D->capacity = cap;
    *D->top = (unsigned long long)total;
done:
    gs_free(start);
    gs_free(nc);
    gs_free(nv);
    return st;
}

/* Algorithms 1-2 for row i: room check, a new segment (missing + slack) when needed, the
 * entries of B's row i written after the row's last entry. With dry_run, only *need (entries the
 * new segment takes) and the segment-count check: returns 0 when the row would exceed k. */
static int insert_row(gs_dcsr *D, const gs_csr *B, int64_t i, int dry_run, int64_t *need)
{
    int32_t rl = D->sizes[i], add = B->rowptr[i + 1] - B->rowptr[i], s0, e0, sn = 0;
    int64_t cum, free_, base0;
    *need = 0;
    if (add == 0) return 1;
    int sid = walk(D, i, rl, &cum, &s0, &e0);
    free_ = cum - rl;
    base0 = cum - (e0 - s0);
    if (free_ < add) {
        int tgt = e0 == s0 ? sid : sid + 1; /* an empty current slot is reused */
        int64_t size = add - free_ + D->slack;
        *need = size;
        if (tgt >= D->k) return 0;
        if (dry_run) return 1;
        unsigned long long addr;
#pragma omp atomic capture
        {
            addr = *D->top;
            *D->top += (unsigned long long)size;
        }
        D->offsets[tgt * D->pitch + 2 * i] = (int32_t)addr;
        D->offsets[tgt * D->pitch + 2 * i + 1] = (int32_t)(addr + size);
        if (tgt == sid)
            s0 = (int32_t)addr, base0 = rl, cum = rl + size;
        else
            sn = (int32_t)addr;
    }
    if (dry_run) return 1;
    for (int32_t p = 0; p < add; p++) {
        int64_t q = (int64_t)rl + p, phys = q < cum ? s0 + (q - base0) : sn + (q - cum);
        D->colind[phys] = B->colind[B->rowptr[i] + p];
        D->val[phys] = B->val[B->rowptr[i] + p];
    }
    D->sizes[i] = rl + add;
    return 1;
}

/* host insert: dry run (room and segment counts), defragment with room for B when short, then
 * the insertion proper, which then cannot fail */
static gs_status insert_host(gs_dcsr *D, const gs_csr *B)
{
    gs_status st = GS_OK;
    int32_t *extra = NULL;
    int64_t need_total = 0;
    int over = 0;
#pragma omp parallel for schedule(static) reduction(+ : need_total) reduction(| : over) \
    if (D->rows > 10000)
    for (int32_t i = 0; i < D->rows; i++) {
        int64_t need;
        over |= !insert_row(D, B, i, 1, &need);
        need_total += need;
    }
    if (over || (int64_t)*D->top + need_total > D->capacity) {
        GS_CHECK(gs_alloc_array((size_t)D->rows + 1, sizeof *extra, "DCSR insertion room",
                                (void **)&extra));
        for (int32_t i = 0; i < D->rows; i++) extra[i] = B->rowptr[i + 1] - B->rowptr[i];
        GS_CHECK(defrag_host(D, extra, 0));
    }
#pragma omp parallel for schedule(dynamic, 256) if (D->rows > 10000)
    for (int32_t i = 0; i < D->rows; i++) {
        int64_t need;
        (void)insert_row(D, B, i, 0, &need);
    }
    gs_free(D->perm);
    D->perm = NULL;
done:
    gs_free(extra);
    return st;
}

/* y = D*x, Algorithm 3 row by row (the bins change nothing on the host) */
static gs_status spmv_host(const gs_dcsr *D, const double *xv, double *yv)
{
#pragma omp parallel for schedule(static) if (D->rows > 20000)
    for (int32_t i = 0; i < D->rows; i++) {
        int64_t idx = 0, rl = D->sizes[i];
        double sum = 0.0;
        for (int s = 0; s < D->k && idx < rl; s++) {
            int64_t st = D->offsets[s * D->pitch + 2 * (int64_t)i];
            int64_t en = D->offsets[s * D->pitch + 2 * (int64_t)i + 1];
            int64_t n = en - st < rl - idx ? en - st : rl - idx;
            for (int64_t j = st; j < st + n; j++) sum += D->val[j] * xv[D->colind[j]];
            idx += n;
        }
        yv[i] = sum;
    }
    return GS_OK;
}

static gs_status download_host(const gs_dcsr *D, gs_dcsr *H)
{
    memcpy(H->offsets, D->offsets, (size_t)(D->k * D->pitch) * sizeof(int32_t));
    memcpy(H->sizes, D->sizes, ((size_t)D->rows + 1) * sizeof(int32_t));
    memcpy(H->colind, D->colind, (size_t)D->capacity * sizeof(int32_t));
    memcpy(H->val, D->val, (size_t)D->capacity * sizeof(double));
    *H->top = *D->top;
    if (D->perm) memcpy(H->perm, D->perm, (size_t)D->rows * sizeof(int32_t));
    return GS_OK;
}

const gs_dcsr_ops gs_dcsr_host_ops = {
    .alloc = alloc_host,
    .free = free_host,
    .from_csr = from_csr_host,
    .to_csr = to_csr_host,
    .insert = insert_host,
    .defrag = defrag_host,
    .bin = bin_host,
    .spmv = spmv_host,
    .download = download_host,
};

/* ---- the generic functions ---- */

gs_status gs_dcsr_create(int64_t rows, int64_t cols, int64_t capacity, const gs_dcsr_params *p,
                         gs_loc loc, gs_dcsr **out)
{
    gs_status st = GS_OK;
    gs_dcsr *D = NULL;
    gs_dcsr_params def;
    const gs_dcsr_ops *ops = ops_at(loc);
    *out = NULL;
    if (!p) gs_dcsr_params_default(&def), p = &def;
    if (rows < 0 || cols < 0 || capacity < 0)
        return GS_ERROR(GS_ERR_ARG, "DCSR: negative size %lld x %lld, capacity %lld",
                        (long long)rows, (long long)cols, (long long)capacity);
    if (rows > GS_MAX_INDEX / 2 || cols > GS_MAX_INDEX || capacity > GS_MAX_INDEX)
        return GS_ERROR(GS_ERR_UNSUPPORTED,
                        "DCSR: %lld x %lld with capacity %lld exceeds 32-bit offsets (rows must "
                        "be below 2^30, columns and capacity below 2^31)",
                        (long long)rows, (long long)cols, (long long)capacity);
    if (p->k < 1 || p->k > 64 || !(p->reserve >= 0.0 && p->reserve <= 100.0))
        return GS_ERROR(GS_ERR_ARG,
                        "DCSR: segments per row k = %d must be in 1..64 and reserve "
                        "%g in 0..100",
                        p->k, p->reserve);
    if (!ops) return no_backend("create");
    GS_CHECK(gs_alloc_array(1, sizeof *D, "DCSR matrix", (void **)&D));
    memset(D, 0, sizeof *D);
    D->rows = (int32_t)rows;
    D->cols = (int32_t)cols;
    D->k = p->k;
    D->slack = p->slack >= 0 ? p->slack : (int32_t)(rows > 0 ? (capacity + rows - 1) / rows : 1);
    if (D->slack < 1) D->slack = 1;
    D->reserve = p->reserve;
    D->pitch = ((2 * rows + 31) / 32) * 32;
    if (D->pitch == 0) D->pitch = 32;
    D->capacity = capacity;
    D->loc = loc;
    GS_CHECK(ops->alloc(D));
    *out = D;
    D = NULL;
done:
    gs_dcsr_destroy(&D);
    return st;
}

void gs_dcsr_destroy(gs_dcsr **D)
{
    if (!D || !*D) return;
    const gs_dcsr_ops *ops = ops_at((*D)->loc);
    if (ops) ops->free(*D); /* (a D exists only where its table does) */
    gs_free(*D);
    *D = NULL;
}

gs_status gs_dcsr_from_csr(const gs_csr *A, const gs_dcsr_params *p, gs_dcsr **out)
{
    gs_status st = GS_OK;
    gs_dcsr *D = NULL;
    gs_dcsr_params q;
    *out = NULL;
    if (p)
        q = *p;
    else
        gs_dcsr_params_default(&q);
    if (q.slack < 0) q.slack = A->rows > 0 ? (int32_t)((A->nnz + A->rows - 1) / A->rows) : 1;
    GS_CHECK(gs_dcsr_create(A->rows, A->cols, with_reserve(A->nnz, q.reserve), &q, A->loc, &D));
    GS_CHECK(ops_at(D->loc)->from_csr(D, A));
    *out = D;
    D = NULL;
done:
    gs_dcsr_destroy(&D);
    return st;
}

gs_status gs_dcsr_to_csr(const gs_dcsr *D, gs_csr **out)
{
    const gs_dcsr_ops *ops = ops_at(D->loc);
    *out = NULL;
    if (!ops) return no_backend("to_csr");
    return ops->to_csr(D, out);
}

gs_status gs_dcsr_bin(gs_dcsr *D)
{
    const gs_dcsr_ops *ops = ops_at(D->loc);
    if (!ops) return no_backend("bin");
    return ops->bin(D);
}

gs_status gs_dcsr_defrag(gs_dcsr *D, int reorder)
{
    const gs_dcsr_ops *ops = ops_at(D->loc);
    if (!ops) return no_backend("defrag");
    return ops->defrag(D, NULL, reorder);
}

gs_status gs_dcsr_insert(gs_dcsr *D, const gs_csr *B)
{
    const gs_dcsr_ops *ops = ops_at(D->loc);
    if (B->loc != D->loc || B->rows != D->rows || B->cols > D->cols)
        return GS_ERROR(GS_ERR_ARG, "DCSR insert: B (%d x %d, %s) does not fit D (%d x %d, %s)",
                        B->rows, B->cols, B->loc == GS_LOC_HOST ? "host" : "device", D->rows,
                        D->cols, D->loc == GS_LOC_HOST ? "host" : "device");
    if (!ops) return no_backend("insert");
    return ops->insert(D, B);
}

gs_status gs_dcsr_spmv(const gs_dcsr *D, const gs_vec *x, gs_vec *y)
{
    const gs_dcsr_ops *ops = ops_at(D->loc);
    if (x->loc != D->loc || y->loc != D->loc || x->n != D->cols || y->n != D->rows)
        return GS_ERROR(GS_ERR_ARG, "DCSR SpMV: x (%lld) and y (%lld) do not fit %d x %d",
                        (long long)x->n, (long long)y->n, D->rows, D->cols);
    if (!ops) return no_backend("SpMV");
    return ops->spmv(D, x->data, y->data);
}

gs_status gs_dcsr_download(const gs_dcsr *D, gs_dcsr **out)
{
    gs_status st = GS_OK;
    gs_dcsr *H = NULL;
    gs_dcsr_params p = {D->k, D->slack, D->reserve};
    const gs_dcsr_ops *ops = ops_at(D->loc);
    *out = NULL;
    if (!ops) return no_backend("download");
    GS_CHECK(gs_dcsr_create(D->rows, D->cols, D->capacity, &p, GS_LOC_HOST, &H));
    H->pitch = D->pitch; /* same table layout (create computes the same pitch) */
    memcpy(H->bin_start, D->bin_start, sizeof H->bin_start);
    if (D->perm)
        GS_CHECK(gs_alloc_array((size_t)D->rows + 1, sizeof(int32_t), "DCSR row bins",
                                (void **)&H->perm));
    GS_CHECK(ops->download(D, H));
    *out = H;
    H = NULL;
done:
    gs_dcsr_destroy(&H);
    return st;
}

int gs_dcsr_max_segments(const gs_dcsr *D)
{
    int most = 0;
    for (int32_t i = 0; i < D->rows; i++) {
        int64_t idx = 0, rl = D->sizes[i];
        int s = 0;
        for (; s < D->k && idx < rl; s++)
            idx += D->offsets[s * D->pitch + 2 * (int64_t)i + 1] -
                   D->offsets[s * D->pitch + 2 * (int64_t)i];
        if (s > most) most = s;
    }
    return most;
}

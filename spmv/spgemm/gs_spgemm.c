/* gs_spgemm.c: the host SpGEMM (Gustavson, the reference) and the host table; the argument checks
 * and the dispatch through the table of the data's location (the device one:
 * spmv/spgemm/gs_spgemm_cuda.cu); the Galerkin product, one path over gs_spgemm_ex for both. */
#include "gs_spgemm.h"
#include "gs_buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_knob.h"
#include "gs_omp.h"

/* The Galerkin (SpGEMM) method registry: amg.galerkin's choices, their help lines and where each
 * runs (resolve checks the data's location against it). Adding a method: a gs_spgemm_method
 * value, a line here, its product behind the backend's gs_spgemm_ops.product (docs/design.md,
 * "A Galerkin (SpGEMM) method"). */
static const gs_spgemm_desc METHODS[] = {
    {"auto", GS_SPGEMM_AUTO, -1, "dcsr on the GPU, host on the host"},
    {"dcsr", GS_SPGEMM_DCSR, GS_LOC_DEVICE,
     "row-binned DCSR SpGEMM (King et al.), GPU: rows binned by their products, a kernel per bin"},
    {"cusparse", GS_SPGEMM_CUSPARSE, GS_LOC_DEVICE, "cuSPARSE SpGEMM, GPU (the comparison path)"},
    {"host", GS_SPGEMM_HOST, GS_LOC_HOST,
     "Gustavson with a dense accumulator per thread, OpenMP (the reference)"},
};
#define NMETHODS (int)(sizeof METHODS / sizeof METHODS[0])

const gs_spgemm_desc *gs_spgemm_method_at(int i)
{
    return i >= 0 && i < NMETHODS ? &METHODS[i] : NULL;
}

const char *gs_spgemm_choices(void)
{
    static char buf[128];
    if (!buf[0])
        for (int i = 0; i < NMETHODS; i++) gs_str_add_choice(buf, sizeof buf, METHODS[i].name);
    return buf;
}

/* the registered method m, or NULL */
static const gs_spgemm_desc *method_desc(gs_spgemm_method m)
{
    for (int i = 0; i < NMETHODS; i++)
        if (METHODS[i].method == m) return &METHODS[i];
    return NULL;
}

const char *gs_spgemm_method_name(gs_spgemm_method m)
{
    return method_desc(m) ? method_desc(m)->name : "?";
}

gs_status gs_spgemm_method_parse(const char *s, gs_spgemm_method *out)
{
    char list[160] = "";
    size_t n = 0;
    for (int i = 0; i < NMETHODS; i++)
        if (strcmp(s, METHODS[i].name) == 0) {
            *out = METHODS[i].method;
            return GS_OK;
        }
    for (int i = 0; i < NMETHODS && n < sizeof list; i++) /* "a, b, c or d" */
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s",
                              !i                 ? ""
                              : i < NMETHODS - 1 ? ", "
                                                 : " or ",
                              METHODS[i].name);
    return GS_ERROR(GS_ERR_ARG, "SpGEMM method \"%s\": expected %s", s, list);
}

/* ascending sort of n column indices (insertion sort for short rows) */
static void sort_cols(int32_t *c, int64_t n)
{
    if (n > 32) {
        qsort(c, (size_t)n, sizeof *c, gs_cmp_i32);
        return;
    }
    for (int64_t i = 1; i < n; i++) {
        int32_t v = c[i];
        int64_t j = i - 1;
        while (j >= 0 && c[j] > v) c[j + 1] = c[j], j--;
        c[j + 1] = v;
    }
}

/* C = A*B, Gustavson: a symbolic pass counts each row's distinct columns (a marker per column),
 * a numeric pass accumulates a_ik b_kj in a dense row (summed in A's then B's order), sorts the
 * row's columns and gathers the sums. Each thread owns a marker and an accumulator of B->cols. */
gs_status gs_spgemm_host(const gs_csr *A, const gs_csr *B, gs_csr **C)
{
    gs_status st = GS_OK;
    const int nt = gs_omp_threads();
    int64_t *cnt = NULL, nnz = 0;
    int32_t *mark = NULL;
    double *acc = NULL;
    gs_csr *R = NULL;
    *C = NULL;
    GS_CHECK(gs_alloc_array((size_t)A->rows + 1, sizeof *cnt, "SpGEMM row counts", (void **)&cnt));
    GS_CHECK(gs_alloc_array((size_t)nt * (size_t)(B->cols + 1), sizeof *mark, "SpGEMM markers",
                            (void **)&mark));
    GS_CHECK(gs_alloc_array((size_t)nt * (size_t)(B->cols + 1), sizeof *acc, "SpGEMM accumulators",
                            (void **)&acc));
#pragma omp parallel num_threads(nt)
    {
        int32_t *mk = mark + (size_t)gs_omp_thread() * (size_t)(B->cols + 1);
        for (int32_t j = 0; j < B->cols; j++) mk[j] = -1;
#pragma omp for schedule(dynamic, 512)
        for (int32_t i = 0; i < A->rows; i++) {
            int64_t c = 0;
            for (int32_t ka = A->rowptr[i]; ka < A->rowptr[i + 1]; ka++) {
                int32_t k = A->colind[ka];
                for (int32_t kb = B->rowptr[k]; kb < B->rowptr[k + 1]; kb++)
                    if (mk[B->colind[kb]] != i) mk[B->colind[kb]] = i, c++;
            }
            cnt[i] = c;
        }
    }
    for (int32_t i = 0; i < A->rows; i++) nnz += cnt[i];
    if (nnz > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "SpGEMM: the product has %lld entries, beyond 32-bit indices",
                (long long)nnz);
    GS_CHECK(gs_csr_create(A->rows, B->cols, nnz, &R));
    for (int32_t i = 0; i < A->rows; i++) R->rowptr[i + 1] = R->rowptr[i] + (int32_t)cnt[i];
#pragma omp parallel num_threads(nt)
    {
        int32_t *mk = mark + (size_t)gs_omp_thread() * (size_t)(B->cols + 1);
        double *ac = acc + (size_t)gs_omp_thread() * (size_t)(B->cols + 1);
        for (int32_t j = 0; j < B->cols; j++) mk[j] = -1;
#pragma omp for schedule(dynamic, 512)
        for (int32_t i = 0; i < A->rows; i++) {
            int32_t *cols = R->colind + R->rowptr[i];
            int64_t n = 0;
            for (int32_t ka = A->rowptr[i]; ka < A->rowptr[i + 1]; ka++) {
                int32_t k = A->colind[ka];
                double a = A->val[ka];
                for (int32_t kb = B->rowptr[k]; kb < B->rowptr[k + 1]; kb++) {
                    int32_t j = B->colind[kb];
                    if (mk[j] != i) {
                        mk[j] = i;
                        ac[j] = a * B->val[kb];
                        cols[n++] = j;
                    } else {
                        ac[j] += a * B->val[kb];
                    }
                }
            }
            sort_cols(cols, n);
            for (int64_t q = 0; q < n; q++) R->val[R->rowptr[i] + q] = ac[cols[q]];
        }
    }
    *C = R;
    R = NULL;
done:
    gs_free(cnt);
    gs_free(mark);
    gs_free(acc);
    gs_csr_destroy(&R);
    return st;
}

/* the host table: Gustavson, and gs_csr_transpose */
static gs_status product_host(const gs_csr *A, const gs_csr *B, gs_spgemm_method m,
                              gs_spgemm_info *info, gs_csr **C)
{
    gs_status st = GS_OK;
    (void)m; /* HOST */
    GS_CHECK(gs_spgemm_host(A, B, C));
    if (info) info->nnz = (*C)->nnz;
done:
    return st;
}

static gs_status transpose_host(const gs_csr *A, size_t *peak_bytes, gs_csr **At)
{
    if (peak_bytes) *peak_bytes = 0;
    return gs_csr_transpose(A, At);
}

/* C->val = X Y in C's pattern: per row, a place per column (a marker array of C->cols per
 * thread), then x_ik y_kj summed into the places */
static gs_status values_host(const gs_csr *X, const gs_csr *Y, gs_csr *C)
{
    gs_status st = GS_OK;
    const int nt = gs_omp_threads();
    int32_t *place = NULL;
    int outside = 0;
    GS_CHECK(gs_alloc_array((size_t)nt * (size_t)(C->cols + 1), sizeof *place, "SpGEMM places",
                            (void **)&place));
#pragma omp parallel num_threads(nt) reduction(| : outside)
    {
        int32_t *pl = place + (size_t)gs_omp_thread() * (size_t)(C->cols + 1);
        for (int32_t j = 0; j < C->cols; j++) pl[j] = -1;
#pragma omp for schedule(dynamic, 256)
        for (int32_t i = 0; i < C->rows; i++) {
            const int32_t c0 = C->rowptr[i], c1 = C->rowptr[i + 1];
            double *v = C->val;
            for (int32_t q = c0; q < c1; q++) {
                pl[C->colind[q]] = q;
                v[q] = 0.0;
            }
            for (int32_t e = X->rowptr[i]; e < X->rowptr[i + 1]; e++) {
                const int32_t k = X->colind[e];
                const double x = X->val[e];
                for (int32_t q = Y->rowptr[k]; q < Y->rowptr[k + 1]; q++) {
                    const int32_t at = pl[Y->colind[q]];
                    if (at < 0) outside = 1;
                    else v[at] += x * Y->val[q];
                }
            }
            for (int32_t q = c0; q < c1; q++) pl[C->colind[q]] = -1;
        }
    }
    if (outside)
        GS_FAIL(GS_ERR_UNSUPPORTED, "SpGEMM values: the product has entries outside the kept "
                "pattern (the patterns changed)");
done:
    gs_free(place);
    return st;
}

const gs_spgemm_ops gs_spgemm_host_ops = {
    .product = product_host,
    .transpose = transpose_host,
    .values = values_host,
    .row_slice = gs_sparse_host_row_slice,
    .row_prefix = gs_sparse_host_row_prefix,
    .vcat = gs_sparse_host_vcat,
    .add = gs_sparse_host_add,
    .coo_csr = gs_sparse_host_coo_csr,
};

/* shapes and locations of a product's inputs */
static gs_status check_pair(const gs_csr *A, const gs_csr *B, const char *what)
{
    if (A->cols != B->rows)
        return GS_ERROR(GS_ERR_ARG, "%s: inner dimensions differ (%d x %d times %d x %d)", what,
                        A->rows, A->cols, B->rows, B->cols);
    if (A->loc != B->loc)
        return GS_ERROR(GS_ERR_ARG, "%s: the operands live in different places (host/device)",
                        what);
    return GS_OK;
}

/* the method data at loc can use: AUTO resolved; HOST only for host data, DCSR and CUSPARSE only
 * for device data; *ops the table of loc */
static gs_status resolve(gs_loc loc, gs_spgemm_method m, gs_spgemm_method *out,
                         const gs_spgemm_ops **ops)
{
    if (m == GS_SPGEMM_AUTO) m = loc == GS_LOC_HOST ? GS_SPGEMM_HOST : GS_SPGEMM_DCSR;
    *out = m;
    const gs_spgemm_desc *d = method_desc(m);
    if (!d || d->loc < 0) return GS_ERROR(GS_ERR_ARG, "SpGEMM: unknown method %d", (int)m);
    if (d->loc == GS_LOC_HOST && loc != GS_LOC_HOST)
        return GS_ERROR(GS_ERR_ARG,
                        "SpGEMM method %s needs host matrices (these are on the "
                        "device: use dcsr or cusparse, or download them)",
                        d->name);
    if (d->loc != GS_LOC_HOST && loc == GS_LOC_HOST)
        return GS_ERROR(GS_ERR_ARG,
                        "SpGEMM method %s needs device matrices (upload them, or "
                        "use host)",
                        d->name);
    *ops = (const gs_spgemm_ops *)gs_backend_module(loc, GS_MODULE_SPGEMM);
    if (!*ops)
        return GS_ERROR(GS_ERR_UNSUPPORTED,
                        "SpGEMM method %s needs the CUDA backend, which this "
                        "build does not have",
                        gs_spgemm_method_name(m));
    return GS_OK;
}

gs_status gs_spgemm_ex(const gs_csr *A, const gs_csr *B, gs_spgemm_method m, gs_spgemm_info *info,
                       gs_csr **C)
{
    gs_status st = GS_OK;
    const gs_spgemm_ops *ops = NULL;
    *C = NULL;
    if (info) memset(info, 0, sizeof *info);
    GS_CHECK(check_pair(A, B, "SpGEMM"));
    GS_CHECK(resolve(A->loc, m, &m, &ops));
    GS_CHECK(ops->product(A, B, m, info, C));
done:
    return st;
}

gs_status gs_spgemm(const gs_csr *A, const gs_csr *B, gs_spgemm_method m, gs_csr **C)
{
    return gs_spgemm_ex(A, B, m, NULL, C);
}

/* the toolkit's table where data at loc lives; *out NULL (and an error) without that backend */
static gs_status toolkit(gs_loc loc, const char *what, const gs_spgemm_ops **out)
{
    *out = (const gs_spgemm_ops *)gs_backend_module(loc, GS_MODULE_SPGEMM);
    if (!*out) return GS_ERROR(GS_ERR_UNSUPPORTED, "%s on the device needs the CUDA backend", what);
    return GS_OK;
}

gs_status gs_sparse_row_slice(const gs_csr *A, int32_t r0, int32_t r1, gs_csr **out)
{
    const gs_spgemm_ops *ops = NULL;
    *out = NULL;
    gs_status st = toolkit(A->loc, "a row slice", &ops);
    return st == GS_OK ? ops->row_slice(A, r0, r1, out) : st;
}

gs_status gs_sparse_row_prefix(gs_csr **A, int32_t r, gs_csr **out)
{
    const gs_spgemm_ops *ops = NULL;
    *out = NULL;
    gs_status st = toolkit((*A)->loc, "a row prefix", &ops);
    if (st != GS_OK) {
        gs_csr_destroy(A); /* taken over, also on failure */
        return st;
    }
    return ops->row_prefix(A, r, out);
}

gs_status gs_sparse_vcat(const gs_csr *A, const gs_col_map *am, const gs_csr *B, int32_t cols,
                         gs_csr **out)
{
    const gs_spgemm_ops *ops = NULL;
    *out = NULL;
    if (A->loc != B->loc)
        return GS_ERROR(GS_ERR_ARG, "vcat: the matrices live in different places (host/device)");
    gs_status st = toolkit(A->loc, "stacking", &ops);
    return st == GS_OK ? ops->vcat(A, am, B, cols, out) : st;
}

gs_status gs_sparse_add(const gs_csr *A, const gs_col_map *am, const gs_csr *B, gs_csr **out)
{
    const gs_spgemm_ops *ops = NULL;
    *out = NULL;
    if (A->loc != B->loc)
        return GS_ERROR(GS_ERR_ARG, "add: the matrices live in different places (host/device)");
    gs_status st = toolkit(A->loc, "a sum", &ops);
    return st == GS_OK ? ops->add(A, am, B, out) : st;
}

gs_status gs_sparse_coo_csr(gs_loc loc, int32_t rows, int32_t cols, int64_t n, const int32_t *ri,
                            const int32_t *ci, const double *v, gs_csr **C)
{
    const gs_spgemm_ops *ops = NULL;
    *C = NULL;
    gs_status st = toolkit(loc, "triplets to CSR", &ops);
    return st == GS_OK ? ops->coo_csr(rows, cols, n, ri, ci, v, C) : st;
}

gs_status gs_spgemm_transpose(const gs_csr *A, gs_csr **At)
{
    const gs_spgemm_ops *ops = (const gs_spgemm_ops *)gs_backend_module(A->loc, GS_MODULE_SPGEMM);
    *At = NULL;
    if (!ops) return GS_ERROR(GS_ERR_UNSUPPORTED, "device transpose needs the CUDA backend");
    return ops->transpose(A, NULL, At);
}

/* bytes of C as the device methods count them (32-bit row pointers and columns, double values) */
static size_t csr_bytes(const gs_csr *C)
{
    return ((size_t)C->rows + 1) * 4 + (size_t)C->nnz * 12;
}

/* *AP = A P by m (first: its info, may be NULL), or, where a Galerkin product of A and P goes
 * by chunks, *k > 0 chunks and *AP NULL. Chunks where A P's products (about nnz(A) times P's
 * mean row) pass GS_GALERKIN_PRODUCTS_MAX, about GS_GALERKIN_CHUNK products a chunk
 * (GSOLVE_GALERKIN_CHUNKS overrides), and where the product finds A P passing 2^31 - 1 entries */
static gs_status product_or_chunks(const gs_csr *A, const gs_csr *P, gs_spgemm_method m,
                                   gs_spgemm_info *first, gs_csr **AP, int *k)
{
    gs_spgemm_info own;
    const double pe = P->rows > 0 ? (double)A->nnz * ((double)P->nnz / P->rows) : 0.0;
    int64_t c = pe > (double)GS_GALERKIN_PRODUCTS_MAX ? (int64_t)(pe / (double)GS_GALERKIN_CHUNK) + 1
                                                      : 0;
    c = gs_knob_i64("GSOLVE_GALERKIN_CHUNKS", 0, c);
    *AP = NULL;
    *k = 0;
    if (!first) first = &own;
    if (c == 0) {
        gs_status st = gs_spgemm_ex(A, P, m, first, AP);
        if (st != GS_ERR_UNSUPPORTED || first->too_large == 0) return st;
        gs_error_clear(); /* A P too large for one CSR */
        c = (first->too_large + GS_GALERKIN_CHUNK - 1) / GS_GALERKIN_CHUNK;
        if (c < 2) c = 2;
    }
    *k = c > 1 << 20 ? 1 << 20 : (int)c;
    return GS_OK;
}

/* Ac = R (A P), R = P^T (made here when not given) */
gs_status gs_galerkin_ex(const gs_csr *A, const gs_csr *P, const gs_csr *R, gs_spgemm_method m,
                         gs_spgemm_info *info, gs_csr **Ac)
{
    gs_status st = GS_OK;
    gs_csr *Rown = NULL, *AP = NULL;
    const gs_spgemm_ops *ops = NULL;
    gs_spgemm_info first;
    size_t peak_r = 0, held_r = 0;
    int k = 0;
    *Ac = NULL;
    if (info) memset(info, 0, sizeof *info);
    if (A->rows != A->cols)
        return GS_ERROR(GS_ERR_ARG, "Galerkin product: A is %d x %d, not square", A->rows, A->cols);
    GS_CHECK(check_pair(A, P, "Galerkin product"));
    if (R && (R->rows != P->cols || R->cols != P->rows || R->loc != P->loc))
        GS_FAIL(GS_ERR_ARG, "Galerkin product: R (%d x %d, %s) is not P^T (P is %d x %d, %s)",
                R->rows, R->cols, R->loc == GS_LOC_HOST ? "host" : "device", P->rows, P->cols,
                P->loc == GS_LOC_HOST ? "host" : "device");
    GS_CHECK(resolve(A->loc, m, &m, &ops));
    if (!R) { /* as gs_spgemm_transpose */
        GS_CHECK(ops->transpose(P, &peak_r, &Rown));
        R = Rown;
        held_r = csr_bytes(Rown);
    }
    GS_CHECK(product_or_chunks(A, P, m, &first, &AP, &k));
    if (k > 0) {
        GS_CHECK(gs_galerkin_chunks(A, P, R, m, k, info, Ac));
        if (info) info->peak_bytes += held_r;
        goto done;
    }
    GS_CHECK(gs_spgemm_ex(R, AP, m, info, Ac));
    if (info && A->loc != GS_LOC_HOST) {
        /* each stage's peak with what the stages before it still hold: R made here through both
         * products, A P through the second */
        size_t peak = peak_r;
        if (held_r + first.peak_bytes > peak) peak = held_r + first.peak_bytes;
        if (held_r + csr_bytes(AP) + info->peak_bytes > peak)
            peak = held_r + csr_bytes(AP) + info->peak_bytes;
        info->peak_bytes = peak;
    }
done:
    gs_csr_destroy(&Rown);
    gs_csr_destroy(&AP);
    return st;
}

gs_status gs_galerkin_chunks(const gs_csr *A, const gs_csr *P, const gs_csr *R, gs_spgemm_method m,
                             int k, gs_spgemm_info *info, gs_csr **Ac)
{
    gs_status st = GS_OK;
    gs_csr *Rown = NULL, *Rb = NULL, *RAb = NULL, *Cb = NULL, *acc = NULL, *t = NULL;
    const gs_spgemm_ops *ops = NULL;
    gs_spgemm_info one;
    size_t peak = 0;
    int64_t products = 0;
    *Ac = NULL;
    if (info) memset(info, 0, sizeof *info);
    if (A->rows != A->cols)
        return GS_ERROR(GS_ERR_ARG, "Galerkin product: A is %d x %d, not square", A->rows, A->cols);
    GS_CHECK(check_pair(A, P, "Galerkin product"));
    if (k < 1) GS_FAIL(GS_ERR_ARG, "Galerkin product: %d chunks", k);
    GS_CHECK(resolve(A->loc, m, &m, &ops));
    if (!R) {
        GS_CHECK(ops->transpose(P, &peak, &Rown));
        R = Rown;
    }
    if (R->rows != P->cols || R->cols != P->rows || R->loc != P->loc)
        GS_FAIL(GS_ERR_ARG, "Galerkin product: R (%d x %d) is not P^T (P is %d x %d)", R->rows,
                R->cols, P->rows, P->cols);
    const size_t held_r = Rown ? csr_bytes(Rown) : 0;
    for (int b = 0; b < k; b++) {
        const int32_t c0 = (int32_t)((int64_t)R->rows * b / k);
        const int32_t c1 = (int32_t)((int64_t)R->rows * (b + 1) / k);
        if (c1 == c0 && !(b == k - 1 && !acc)) continue; /* at least one chunk, even when empty */
        GS_CHECK(gs_sparse_row_slice(R, c0, c1, &Rb));
        GS_CHECK(gs_spgemm_ex(Rb, A, m, &one, &RAb));
        products += one.products;
        /* the peak: what is held (R when made here, the chunks so far, this chunk's R_b or
         * R_b A) while each product runs */
        const size_t held = held_r + (acc ? csr_bytes(acc) : 0);
        if (held + csr_bytes(Rb) + one.peak_bytes > peak)
            peak = held + csr_bytes(Rb) + one.peak_bytes;
        gs_csr_destroy(&Rb);
        GS_CHECK(gs_spgemm_ex(RAb, P, m, &one, &Cb));
        products += one.products;
        if (held + csr_bytes(RAb) + one.peak_bytes > peak)
            peak = held + csr_bytes(RAb) + one.peak_bytes;
        gs_csr_destroy(&RAb);
        if (!acc) {
            acc = Cb;
        } else { /* the chunk's rows below the ones before */
            GS_CHECK(gs_sparse_vcat(acc, NULL, Cb, P->cols, &t));
            if (held_r + csr_bytes(acc) + csr_bytes(Cb) + csr_bytes(t) > peak)
                peak = held_r + csr_bytes(acc) + csr_bytes(Cb) + csr_bytes(t);
            gs_csr_destroy(&acc);
            gs_csr_destroy(&Cb);
            acc = t;
            t = NULL;
        }
        Cb = NULL;
    }
    if (info) {
        info->products = products;
        info->nnz = acc->nnz;
        info->peak_bytes = A->loc == GS_LOC_HOST ? 0 : peak;
        info->chunks = k;
    }
    *Ac = acc;
    acc = NULL;
done:
    gs_csr_destroy(&Rown);
    gs_csr_destroy(&Rb);
    gs_csr_destroy(&RAb);
    gs_csr_destroy(&Cb);
    gs_csr_destroy(&acc);
    gs_csr_destroy(&t);
    return st;
}

gs_status gs_spgemm_values(const gs_csr *X, const gs_csr *Y, gs_csr *C)
{
    if (X->cols != Y->rows || C->rows != X->rows || C->cols != Y->cols)
        return GS_ERROR(GS_ERR_ARG, "SpGEMM values: shapes differ (%d x %d times %d x %d into %d "
                        "x %d)", X->rows, X->cols, Y->rows, Y->cols, C->rows, C->cols);
    if (X->loc != Y->loc || X->loc != C->loc)
        return GS_ERROR(GS_ERR_ARG, "SpGEMM values: the operands live in different places");
    const gs_spgemm_ops *ops = (const gs_spgemm_ops *)gs_backend_module(X->loc, GS_MODULE_SPGEMM);
    if (!ops) return GS_ERROR(GS_ERR_UNSUPPORTED, "SpGEMM values need the CUDA backend");
    return ops->values(X, Y, C);
}

gs_status gs_galerkin_values(const gs_csr *A, const gs_csr *P, const gs_csr *R, gs_csr *Ac)
{
    gs_status st = GS_OK;
    gs_csr *AP = NULL;
    if (A->rows != A->cols || A->cols != P->rows || !R || R->rows != P->cols ||
        R->cols != P->rows || Ac->rows != P->cols || Ac->cols != P->cols)
        return GS_ERROR(GS_ERR_ARG, "Galerkin values: shapes differ (A %d x %d, P %d x %d, R %d x "
                        "%d, Ac %d x %d)", A->rows, A->cols, P->rows, P->cols, R ? R->rows : -1,
                        R ? R->cols : -1, Ac->rows, Ac->cols);
    if (A->loc != P->loc || A->loc != R->loc || A->loc != Ac->loc)
        return GS_ERROR(GS_ERR_ARG, "Galerkin values: the operands live in different places");
    const gs_spgemm_ops *ops = (const gs_spgemm_ops *)gs_backend_module(A->loc, GS_MODULE_SPGEMM);
    if (!ops) return GS_ERROR(GS_ERR_UNSUPPORTED, "Galerkin values need the CUDA backend");
    /* long coarse rows (block systems), or an A P the product makes by chunks (or too large for
     * one CSR): the product anew, its values copied */
    int k = 0;
    if (!(Ac->rows > 0 && (double)Ac->nnz / Ac->rows > GS_VALUES_ROW_MAX))
        GS_CHECK(product_or_chunks(A, P, GS_SPGEMM_AUTO, NULL, &AP, &k));
    if (!AP) {
        GS_CHECK(gs_galerkin(A, P, R, GS_SPGEMM_AUTO, &AP));
        if (AP->nnz != Ac->nnz)
            GS_FAIL(GS_ERR_UNSUPPORTED, "Galerkin values: the product has %lld entries, the kept "
                    "pattern %lld (the patterns changed)", (long long)AP->nnz,
                    (long long)Ac->nnz);
        const gs_buf f = {AP->val, AP->nnz, GS_F64, AP->loc};
        gs_buf t = {Ac->val, Ac->nnz, GS_F64, Ac->loc};
        GS_CHECK(gs_buf_copy(&f, &t));
    } else {
        GS_CHECK(ops->values(R, AP, Ac));
    }
done:
    gs_csr_destroy(&AP);
    return st;
}

gs_status gs_galerkin(const gs_csr *A, const gs_csr *P, const gs_csr *R, gs_spgemm_method m,
                      gs_csr **Ac)
{
    return gs_galerkin_ex(A, P, R, m, NULL, Ac);
}

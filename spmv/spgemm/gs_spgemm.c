/* gs_spgemm.c: the host SpGEMM (Gustavson, the reference) and the host table; the argument checks
 * and the dispatch through the table of the data's location (the device one:
 * spmv/spgemm/gs_spgemm_cuda.cu); the Galerkin product, one path over gs_spgemm_ex for both. */
#include "gs_spgemm.h"
#include "gs_knob.h"
#include "gs_buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"

#ifdef _OPENMP
#include <omp.h>
#endif

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

static int nthreads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* C = A*B, Gustavson: a symbolic pass counts each row's distinct columns (a marker per column),
 * a numeric pass accumulates a_ik b_kj in a dense row (summed in A's then B's order), sorts the
 * row's columns and gathers the sums. Each thread owns a marker and an accumulator of B->cols. */
gs_status gs_spgemm_host(const gs_csr *A, const gs_csr *B, gs_csr **C)
{
    gs_status st = GS_OK;
    const int nt = nthreads();
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
        int32_t *mk = mark + (size_t)thread_id() * (size_t)(B->cols + 1);
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
        int32_t *mk = mark + (size_t)thread_id() * (size_t)(B->cols + 1);
        double *ac = acc + (size_t)thread_id() * (size_t)(B->cols + 1);
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

/* Ac->val = R A P (R A when P is NULL) in Ac's pattern: per coarse row, a place per column (a marker array of
 * Ac->cols per thread), then r_Ii a_ij p_jJ summed into the places */
static gs_status rap_values_host(const gs_csr *A, const gs_csr *P, const gs_csr *R, gs_csr *Ac)
{
    gs_status st = GS_OK;
    const int nt = nthreads();
    int32_t *place = NULL;
    int outside = 0;
    GS_CHECK(gs_alloc_array((size_t)nt * (size_t)(Ac->cols + 1), sizeof *place,
                            "Galerkin places", (void **)&place));
#pragma omp parallel num_threads(nt) reduction(| : outside)
    {
        int32_t *pl = place + (size_t)thread_id() * (size_t)(Ac->cols + 1);
        for (int32_t j = 0; j < Ac->cols; j++) pl[j] = -1;
#pragma omp for schedule(dynamic, 256)
        for (int32_t I = 0; I < Ac->rows; I++) {
            const int32_t c0 = Ac->rowptr[I], c1 = Ac->rowptr[I + 1];
            double *v = Ac->val;
            for (int32_t q = c0; q < c1; q++) {
                pl[Ac->colind[q]] = q;
                v[q] = 0.0;
            }
            for (int32_t e = R->rowptr[I]; e < R->rowptr[I + 1]; e++) {
                const int32_t i = R->colind[e];
                const double r = R->val[e];
                for (int32_t ka = A->rowptr[i]; ka < A->rowptr[i + 1]; ka++) {
                    const int32_t j = A->colind[ka];
                    const double ra = r * A->val[ka];
                    if (!P) { /* Ac = R A */
                        const int32_t at = pl[j];
                        if (at < 0) outside = 1;
                        else v[at] += ra;
                        continue;
                    }
                    for (int32_t kp = P->rowptr[j]; kp < P->rowptr[j + 1]; kp++) {
                        const int32_t at = pl[P->colind[kp]];
                        if (at < 0) outside = 1;
                        else v[at] += ra * P->val[kp];
                    }
                }
            }
            for (int32_t q = c0; q < c1; q++) pl[Ac->colind[q]] = -1;
        }
    }
    if (outside)
        GS_FAIL(GS_ERR_UNSUPPORTED, "Galerkin product: R A P has entries outside the coarse "
                "operator's pattern (the patterns changed)");
done:
    gs_free(place);
    return st;
}

const gs_spgemm_ops gs_spgemm_host_ops = {
    .product = product_host,
    .transpose = transpose_host,
    .rap_values = rap_values_host,
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

/* Ac = R (A P), R = P^T (made here when not given) */
gs_status gs_galerkin_ex(const gs_csr *A, const gs_csr *P, const gs_csr *R, gs_spgemm_method m,
                         gs_spgemm_info *info, gs_csr **Ac)
{
    gs_status st = GS_OK;
    gs_csr *Rown = NULL, *AP = NULL;
    const gs_spgemm_ops *ops = NULL;
    gs_spgemm_info first;
    size_t peak_r = 0, held_r = 0;
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
    GS_CHECK(gs_spgemm_ex(A, P, m, &first, &AP));
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
    /* R A P at once re-forms A P's row i for every entry of R's column i: nnz(R) a(A) a(P)
     * products (a: the mean row length). With A P made first (its pattern too) and R (A P) into
     * Ac's pattern: nnz(A) a(P) + nnz(R) a(AP), a(AP) taken as a(Ac). The first unless it costs
     * twice the second (block systems with their long rows: elasticity's is 10x). */
    const double aA = A->rows ? (double)A->nnz / A->rows : 0.0,
                 aP = P->rows ? (double)P->nnz / P->rows : 0.0,
                 aC = Ac->rows ? (double)Ac->nnz / Ac->rows : 0.0;
    const double fused = (double)R->nnz * aA * aP, split = (double)A->nnz * aP + (double)R->nnz * aC;
    const int64_t force = gs_knob_i64("GSOLVE_RAP_SPLIT", 0, 0);
    if (force == 3) { /* experiment: the whole product anew, its values copied */
        gs_csr *F = NULL;
        GS_CHECK(gs_galerkin(A, P, R, GS_SPGEMM_AUTO, &F));
        if (F->nnz != Ac->nnz) {
            gs_csr_destroy(&F);
            GS_FAIL(GS_ERR_UNSUPPORTED, "Galerkin values: the pattern changed");
        }
        const gs_buf f = {F->val, F->nnz, GS_F64, F->loc};
        gs_buf t = {Ac->val, Ac->nnz, GS_F64, Ac->loc};
        st = gs_buf_copy(&f, &t);
        gs_csr_destroy(&F);
        GS_CHECK(st);
    } else if (force == 2 || (force != 1 && fused <= 2.0 * split)) {
        GS_CHECK(ops->rap_values(A, P, R, Ac));
    } else {
        GS_CHECK(gs_spgemm(A, P, GS_SPGEMM_AUTO, &AP));
        GS_CHECK(ops->rap_values(AP, NULL, R, Ac));
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

/* gs_bench.c: the matrix arguments, SpMV timing, format lists and backend choice the benchmark
 * programs share (gs_bench.h). */
#include "gs_bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_gen.h"
#include "gs_problem.h"
#include "gs_spgemm.h"
#include "gs_time.h"

int gs_bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void gs_bench_emit(FILE *md, const char *line)
{
    printf("%s\n", line);
    fflush(stdout);
    if (md) {
        fprintf(md, "%s\n", line);
        fflush(md);
    }
}

double gs_bench_median_spmv(const gs_spmat *M, const gs_vec *x, gs_vec *y, int n, int batches)
{
    double t[64];
    const gs_backend_ops *ops = gs_backend_get(M->loc);
    if (batches > 64) batches = 64;
    if (batches < 1) batches = 1;
    for (int i = 0; i < 3; i++) gs_spmat_spmv(M, x, y); /* warm-up */
    ops->sync();
    for (int b = 0; b < batches; b++) {
        double t0 = gs_time_now();
        for (int i = 0; i < n; i++) gs_spmat_spmv(M, x, y);
        ops->sync();
        t[b] = (gs_time_now() - t0) / n;
    }
    qsort(t, (size_t)batches, sizeof t[0], gs_bench_cmp_double);
    return t[batches / 2];
}

gs_status gs_bench_repeat_diag(const gs_csr *A, int k, gs_csr **out)
{
    gs_status st = GS_OK;
    gs_csr *B = NULL;
    *out = NULL;
    if ((int64_t)A->nnz * k >= GS_MAX_INDEX || (int64_t)A->rows * k >= GS_MAX_INDEX ||
        (int64_t)A->cols * k >= GS_MAX_INDEX)
        return GS_ERROR(GS_ERR_ARG, "repeating %d times overflows 32-bit indices", k);
    GS_CHECK(gs_csr_create((int64_t)A->rows * k, (int64_t)A->cols * k, (int64_t)A->nnz * k, &B));
    B->rowptr[0] = 0;
    for (int c = 0; c < k; c++) {
        for (int32_t i = 0; i < A->rows; i++)
            B->rowptr[c * A->rows + i + 1] = c * A->nnz + A->rowptr[i + 1];
        for (int32_t j = 0; j < A->nnz; j++) {
            B->colind[c * A->nnz + j] = c * A->cols + A->colind[j];
            B->val[c * A->nnz + j] = A->val[j];
        }
    }
    *out = B;
done:
    return st;
}

/* aggregates of A's graph (every off-diagonal entry a strong edge, visited in a random order
 * from seed): agg[i] in 0..*nagg */
static gs_status aggregate(const gs_csr *A, uint64_t seed, int32_t *agg, int32_t *nagg)
{
    gs_status st = GS_OK;
    int32_t *order = NULL, *first = NULL, n = A->rows, c = 0;
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *order, "aggregation order", (void **)&order));
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *first, "aggregation pass 1", (void **)&first));
    for (int32_t i = 0; i < n; i++) order[i] = i, agg[i] = -1;
    for (int32_t i = n - 1; i > 0; i--) { /* Fisher-Yates from a 64-bit LCG */
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int32_t j = (int32_t)((seed >> 33) % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (int32_t t = 0; t < n; t++) { /* 1: roots whose neighbourhood is free */
        const int32_t i = order[t];
        int free_all = agg[i] < 0;
        for (int32_t p = A->rowptr[i]; p < A->rowptr[i + 1] && free_all; p++)
            free_all = agg[A->colind[p]] < 0;
        if (!free_all) continue;
        agg[i] = c;
        for (int32_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) agg[A->colind[p]] = c;
        c++;
    }
    memcpy(first, agg, (size_t)n * sizeof *agg);
    for (int32_t t = 0; t < n; t++) { /* 2: join a neighbouring aggregate of pass 1 */
        const int32_t i = order[t];
        for (int32_t p = A->rowptr[i]; p < A->rowptr[i + 1] && agg[i] < 0; p++)
            if (first[A->colind[p]] >= 0) agg[i] = first[A->colind[p]];
    }
    for (int32_t t = 0; t < n; t++) { /* 3: the rest with their free neighbours */
        const int32_t i = order[t];
        if (agg[i] >= 0) continue;
        agg[i] = c;
        for (int32_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
            if (agg[A->colind[p]] < 0) agg[A->colind[p]] = c;
        c++;
    }
    *nagg = c;
done:
    gs_free(order);
    gs_free(first);
    return st;
}

/* P = (I - omega D^-1 A) T from AT = A T: AT's pattern (which holds T's, the diagonal being
 * stored) scaled by -omega / a_ii, plus T(i, agg[i]) */
static void smooth(const gs_csr *A, const int32_t *agg, const double *tval, double omega,
                   gs_csr *AT)
{
#pragma omp parallel for schedule(static)
    for (int32_t i = 0; i < A->rows; i++) {
        double d = 0.0;
        for (int32_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
            if (A->colind[p] == i) d = A->val[p];
        const double s = d != 0.0 ? -omega / d : -omega;
        for (int32_t p = AT->rowptr[i]; p < AT->rowptr[i + 1]; p++) {
            AT->val[p] *= s;
            if (AT->colind[p] == agg[i]) AT->val[p] += tval[i];
        }
    }
}

gs_status gs_bench_coarsen(const gs_csr *A, uint64_t seed, gs_csr **Ac)
{
    gs_status st = GS_OK;
    int32_t *agg = NULL, *size = NULL, nagg = 0;
    double *tval = NULL, rho = 0.0;
    gs_csr *T = NULL, *P = NULL;
    *Ac = NULL;
    if (A->rows != A->cols) return GS_ERROR(GS_ERR_ARG, "coarsening needs a square matrix");
    GS_CHECK(gs_alloc_array((size_t)A->rows + 1, sizeof *agg, "aggregates", (void **)&agg));
    GS_CHECK(gs_alloc_array((size_t)A->rows + 1, sizeof *tval, "T values", (void **)&tval));
    GS_CHECK(aggregate(A, seed, agg, &nagg));
    size = gs_calloc((size_t)nagg + 1, sizeof *size);
    if (!size) GS_FAIL(GS_ERR_NOMEM, "out of memory: aggregate sizes");
    for (int32_t i = 0; i < A->rows; i++) size[agg[i]]++;
    GS_CHECK(gs_csr_create(A->rows, nagg, A->rows, &T));
    for (int32_t i = 0; i <= A->rows; i++) T->rowptr[i] = i;
    for (int32_t i = 0; i < A->rows; i++) {
        T->colind[i] = agg[i];
        T->val[i] = tval[i] = 1.0 / sqrt((double)size[agg[i]]);
    }
    for (int32_t i = 0; i < A->rows; i++) { /* Gershgorin: rho(D^-1 A) <= max sum |a_ij / a_ii| */
        double d = 0.0, s = 0.0;
        for (int32_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            s += fabs(A->val[p]);
            if (A->colind[p] == i) d = fabs(A->val[p]);
        }
        if (d > 0.0 && s / d > rho) rho = s / d;
    }
    GS_CHECK(gs_spgemm_host(A, T, &P));
    smooth(A, agg, tval, rho > 0.0 ? 4.0 / 3.0 / rho : 0.0, P);
    GS_CHECK(gs_galerkin(A, P, NULL, GS_SPGEMM_HOST, Ac));
done:
    gs_free(agg);
    gs_free(size);
    gs_free(tval);
    gs_csr_destroy(&T);
    gs_csr_destroy(&P);
    return st;
}

/* a generator or file argument without "@L" */
static gs_status load_base(const char *spec, gs_csr **A, char *desc, size_t len)
{
    gs_status st = GS_OK;
    char type[32], path[1024];
    int stencil = 0, dof = 1, k = 1;
    long long size = 0;
    gs_csr *one = NULL;
    if (sscanf(spec, "%31[a-z]:%d:%lld:%d", type, &stencil, &size, &dof) >= 3) {
        gs_gen_params g = {.type = type,
                           .size = size,
                           .stencil = stencil ? stencil : 7,
                           .dof = dof,
                           .seed = 1,
                           .epsilon = 0.001,
                           .velocity = 10.0,
                           .degree = 8.0,
                           .exponent = 2.5};
        return gs_gen_matrix(&g, A, desc, len);
    }
    gs_str_copy(path, sizeof path, spec);
    if (strchr(path, '*')) {
        k = atoi(strchr(path, '*') + 1);
        *strchr(path, '*') = '\0';
    }
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (k > 1)
        snprintf(desc, len, "%.100s x%d", base, k);
    else
        gs_str_copy(desc, len, base);
    GS_CHECK(gs_matrix_read(path, NULL, &one, NULL, NULL, NULL));
    if (k > 1) {
        GS_CHECK(gs_bench_repeat_diag(one, k, A));
    } else {
        *A = one;
        one = NULL;
    }
done:
    gs_csr_destroy(&one);
    return st;
}

gs_status gs_bench_load(const char *spec, gs_csr **A, char *desc, size_t len)
{
    gs_status st = GS_OK;
    char base[1100];
    int levels = 0;
    gs_csr *cur = NULL, *next = NULL;
    *A = NULL;
    gs_str_copy(base, sizeof base, spec);
    char *at = strrchr(base, '@');
    if (at) {
        levels = atoi(at + 1);
        *at = '\0';
    }
    GS_CHECK(load_base(base, &cur, desc, len));
    for (int l = 0; l < levels; l++) {
        GS_CHECK(gs_bench_coarsen(cur, 1000 + (uint64_t)l, &next));
        gs_csr_destroy(&cur);
        cur = next, next = NULL;
    }
    if (levels > 0) {
        const size_t w = strlen(desc);
        snprintf(desc + w, len - w, " level %d", levels);
    }
    *A = cur;
    cur = NULL;
done:
    gs_csr_destroy(&cur);
    gs_csr_destroy(&next);
    return st;
}

/* A format's registered tuning key by its name after "spmv." (cmrs_h=8, cds_max_fill=0.5):
 * 1 and stored into p when name and value are valid. */
static int registered_key(const char *name, const char *value, gs_format_params *p)
{
    const gs_format_key *k;
    for (int i = 0; (k = gs_format_key_at(i)) != NULL; i++)
        if (strncmp(k->key, "spmv.", 5) == 0 && strcmp(k->key + 5, name) == 0) {
            if (gs_format_key_parse(k, value, p) == GS_OK) return 1;
            fprintf(stderr, "%s\n", gs_error_message());
            gs_error_clear();
            return 0;
        }
    return 0;
}

int gs_bench_parse_format(const char *item, gs_bench_fmt *fs)
{
    char buf[128], *save = NULL;
    gs_str_copy(buf, sizeof buf, item);
    gs_str_copy(fs->label, sizeof fs->label, item);
    gs_format_params_default(&fs->p);
    char *tok = strtok_r(buf, ":", &save);
    if (!tok || gs_format_parse(tok, &fs->f) != GS_OK) {
        gs_error_clear();
        return 0;
    }
    while ((tok = strtok_r(NULL, ":", &save)) != NULL) {
        char *eq = strchr(tok, '=');
        if (!eq) return 0;
        *eq++ = '\0';
        if (strcmp(tok, "h") == 0)
            fs->p.cmrs_h = atoi(eq);
        else if (strcmp(tok, "sort") == 0)
            fs->p.cmrs_sort = atoi(eq);
        else if (strcmp(tok, "mod") == 0)
            fs->p.cmrs_modified = atoi(eq);
        else if (strcmp(tok, "g1") == 0)
            fs->p.suraa_g1_dynamic = strcmp(eq, "dynamic") == 0;
        else if (strcmp(tok, "child") == 0)
            fs->p.suraa_max_child_threads = atoi(eq);
        else if (strcmp(tok, "fill") == 0)
            fs->p.cds_max_fill = atof(eq);
        else if (strcmp(tok, "b") == 0)
            fs->p.cds_block = atoi(eq);
        else if (!registered_key(tok, eq, &fs->p))
            return 0;
    }
    return 1;
}

gs_loc gs_bench_backend(const char *backend, const char *prog, char *dev, size_t len)
{
    gs_str_copy(dev, len, "host CPU");
    if (strcmp(backend, "cuda") != 0) return GS_LOC_HOST;
    const char *why = NULL;
    if (gs_backend_cuda_devices(&why) > 0 && gs_backend_cuda_init(0, dev, len) == GS_OK)
        return GS_LOC_DEVICE;
    fprintf(stderr, "%s: no usable GPU (%s): timing the host\n", prog,
            why ? why : gs_error_message());
    gs_error_clear();
    gs_str_copy(dev, len, "host CPU");
    return GS_LOC_HOST;
}

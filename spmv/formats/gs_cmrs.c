/* gs_cmrs.c: the CMRS format on the host (Koza et al. 2014): conversion from and to CSR, SpMV
 * with OpenMP over strips, and the parts both backends share (checks, byte model, description).
 * The device side is gs_cmrs_cuda.cu; the layouts are described in gs_cmrs.h. */
#include "gs_cmrs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* h, the column limit and the scalar fields of a new CMRS struct for A */
gs_status gs_cmrs_plan(const gs_csr *A, const gs_format_params *p, gs_cmrs **out)
{
    gs_status st = GS_OK;
    gs_cmrs *C = NULL;
    int h = p ? p->cmrs_h : 0;
    *out = NULL;
    if (h <= 0) h = GS_CMRS_H_DEFAULT;
    if (h > GS_CMRS_MAX_H)
        return GS_ERROR(GS_ERR_ARG,
                        "cmrs: strip height h = %d out of range 1..%d (0 = auto): the row in a "
                        "strip is packed into %d bits of the column index",
                        h, GS_CMRS_MAX_H, GS_CMRS_BITS);
    if ((int64_t)A->cols > GS_CMRS_MAX_COLS)
        return GS_ERROR(
            GS_ERR_UNSUPPORTED,
            "cmrs: the matrix has %d columns, but a packed CMRS index keeps %d bits for "
            "the column (at most %lld columns); use another format",
            A->cols, 32 - GS_CMRS_BITS, (long long)GS_CMRS_MAX_COLS);
    GS_CHECK(gs_alloc_array(1, sizeof *C, "CMRS matrix", (void **)&C));
    memset(C, 0, sizeof *C);
    C->rows = A->rows;
    C->cols = A->cols;
    C->nnz = A->nnz;
    C->h = h;
    C->strips = (int32_t)(((int64_t)A->rows + h - 1) / h);
    C->m = p && p->cmrs_modified ? gs_cmrs_mod_width(h) : 0;
    C->sorted = p && p->cmrs_sort && !C->m;
    C->stored = A->nnz;
    C->loc = A->loc;
    *out = C;
done:
    return st;
}

double gs_cmrs_bytes(const void *M)
{
    const gs_cmrs *C = (const gs_cmrs *)M;
    return 12.0 * C->stored + 4.0 * ((double)C->strips + 1) + 8.0 * C->rows + 8.0 * C->cols;
}

void gs_cmrs_describe(const void *M, char *buf, size_t len)
{
    const gs_cmrs *C = (const gs_cmrs *)M;
    double pad = C->nnz > 0 ? 100.0 * (C->stored - C->nnz) / C->nnz : 0.0;
    if (C->m)
        snprintf(buf, len, "h=%d, modified (M=%d), %.1f%% padding", C->h, C->m, pad);
    else
        snprintf(buf, len, "h=%d, %s, %.1f%% padding", C->h, C->sorted ? "sorted" : "row-major",
                 pad);
}

static void destroy(void *M)
{
    gs_cmrs *C = (gs_cmrs *)M;
    if (!C) return;
    gs_free(C->stripptr);
    gs_free(C->nzptr);
    gs_free(C->colrow);
    gs_free(C->val);
    gs_free(C);
}

/* rows in strip s (h, except for a short last strip) */
static int strip_rows(const gs_cmrs *C, int32_t s)
{
    int64_t left = (int64_t)C->rows - (int64_t)s * C->h;
    return left < C->h ? (int)left : C->h;
}

/* modified layout: nzptr = rowptr at strip starts; stripptr from the padded strip sizes, each
 * gs_cmrs_mod_groups groups of 32 */
static gs_status plan_modified(const gs_csr *A, gs_cmrs *C)
{
    gs_status st = GS_OK;
    int64_t total = 0;
    GS_CHECK(gs_alloc_array((size_t)C->strips + 1, sizeof(int32_t), "CMRS real-entry offsets",
                            (void **)&C->nzptr));
    for (int32_t s = 0; s < C->strips; s++) {
        const int32_t *rp = A->rowptr + (int64_t)s * C->h;
        int hs = strip_rows(C, s);
        int64_t maxl = 0;
        for (int i = 0; i < hs; i++)
            if (rp[i + 1] - rp[i] > maxl) maxl = rp[i + 1] - rp[i];
        C->nzptr[s] = rp[0];
        C->stripptr[s] = (int32_t)total;
        total += GS_CMRS_CHUNK * gs_cmrs_mod_groups(rp[hs] - rp[0], maxl, C->m);
        if (total > GS_MAX_INDEX)
            GS_FAIL(GS_ERR_UNSUPPORTED,
                    "cmrs: the modified layout of this %d x %d matrix (%d nonzeros) would store "
                    "more than 2^31 - 1 entries with its padding; use the plain layout",
                    A->rows, A->cols, A->nnz);
    }
    C->nzptr[C->strips] = A->nnz;
    C->stripptr[C->strips] = (int32_t)total;
    C->stored = (int32_t)total;
done:
    return st;
}

/* modified layout: every real entry to its slot (gs_cmrs_mod_slot), then the padding: value 0,
 * the strip's last column, a row that keeps each bin's rows distinct (gs_cmrs_pad_row) */
static void fill_modified(const gs_csr *A, gs_cmrs *C)
{
#pragma omp parallel for schedule(dynamic, 256) if (C->stored > 100000)
    for (int32_t s = 0; s < C->strips; s++) {
        const int32_t *rp = A->rowptr + (int64_t)s * C->h;
        const int hs = strip_rows(C, s);
        const int64_t b0 = rp[0], nnz_s = rp[hs] - rp[0], out0 = C->stripptr[s];
        const int64_t k = (C->stripptr[s + 1] - out0) / GS_CMRS_CHUNK, km = k * C->m;
        for (int r = 0; r < hs; r++)
            for (int32_t q = rp[r]; q < rp[r + 1]; q++) {
                int64_t j = out0 + gs_cmrs_mod_slot(q - b0, k, C->m);
                C->colrow[j] = gs_cmrs_pack(A->colind[q], r);
                C->val[j] = A->val[q];
            }
        const int32_t pc = nnz_s > 0 ? A->colind[b0 + nnz_s - 1] : 0;
        for (int64_t e = nnz_s; e < k * GS_CMRS_CHUNK; e++) {
            int64_t j = out0 + gs_cmrs_mod_slot(e, k, C->m);
            C->colrow[j] = gs_cmrs_pack(pc, gs_cmrs_pad_row(rp, hs, e % km, km, nnz_s, e / km));
            C->val[j] = 0.0;
        }
    }
}

/* plain layout: CSR's order, the row in the strip packed into each column index */
static void fill_plain(const gs_csr *A, gs_cmrs *C)
{
    for (int32_t s = 0; s <= C->strips; s++) {
        int64_t r = (int64_t)s * C->h;
        C->stripptr[s] = A->rowptr[r < C->rows ? r : C->rows];
    }
#pragma omp parallel for schedule(static) if (C->stored > 100000)
    for (int32_t s = 0; s < C->strips; s++) {
        const int32_t *rp = A->rowptr + (int64_t)s * C->h;
        const int hs = strip_rows(C, s);
        for (int r = 0; r < hs; r++)
            for (int32_t q = rp[r]; q < rp[r + 1]; q++)
                C->colrow[q] = gs_cmrs_pack(A->colind[q], r);
    }
    if (C->stored > 0) memcpy(C->val, A->val, (size_t)C->stored * sizeof(double));
}

typedef struct key_val {
    uint32_t key;
    double val;
} key_val;

static int cmp_key(const void *a, const void *b)
{
    uint32_t x = ((const key_val *)a)->key, y = ((const key_val *)b)->key;
    return (x > y) - (x < y);
}

/* sorted layout: each strip's entries by packed index, i.e. by (column, row) */
static gs_status sort_strips(gs_cmrs *C)
{
    gs_status st = GS_OK;
    key_val *t = NULL;
    if (C->stored == 0) return GS_OK;
    GS_CHECK(gs_alloc_array((size_t)C->stored, sizeof *t, "CMRS sort buffer", (void **)&t));
#pragma omp parallel for schedule(dynamic, 256) if (C->stored > 100000)
    for (int32_t s = 0; s < C->strips; s++) {
        const int32_t b = C->stripptr[s], e = C->stripptr[s + 1];
        for (int32_t j = b; j < e; j++) t[j].key = C->colrow[j], t[j].val = C->val[j];
        qsort(t + b, (size_t)(e - b), sizeof *t, cmp_key);
        for (int32_t j = b; j < e; j++) C->colrow[j] = t[j].key, C->val[j] = t[j].val;
    }
done:
    gs_free(t);
    return st;
}

/* CSR -> CMRS on the host */
static gs_status from_csr(const gs_csr *A, const gs_format_params *p, void **out)
{
    gs_status st = GS_OK;
    gs_cmrs *C = NULL;
    *out = NULL;
    GS_CHECK(gs_cmrs_plan(A, p, &C));
    GS_CHECK(gs_alloc_array((size_t)C->strips + 1, sizeof(int32_t), "CMRS strip pointers",
                            (void **)&C->stripptr));
    C->stripptr[0] = 0;
    if (C->m) GS_CHECK(plan_modified(A, C));
    GS_CHECK(gs_alloc_array((size_t)C->stored, sizeof(uint32_t), "CMRS packed indices",
                            (void **)&C->colrow));
    GS_CHECK(gs_alloc_array((size_t)C->stored, sizeof(double), "CMRS values", (void **)&C->val));
    if (C->m) {
        fill_modified(A, C);
    } else {
        fill_plain(A, C);
        if (C->sorted) GS_CHECK(sort_strips(C));
    }
    *out = C;
    C = NULL;
done:
    destroy(C);
    return st;
}

/* whether stored entry j of strip s is a real one (not padding); e its row-major index */
static int is_real(const gs_cmrs *C, int32_t s, int32_t j, int64_t *e)
{
    if (!C->m) return 1;
    int64_t k = (C->stripptr[s + 1] - C->stripptr[s]) / GS_CMRS_CHUNK;
    *e = gs_cmrs_mod_entry(j - C->stripptr[s], k, C->m);
    return *e < C->nzptr[s + 1] - C->nzptr[s];
}

/* CMRS -> CSR on the host: count per row, then place each real entry (in a strip's stored
 * order, which keeps each row's columns increasing; by row-major index for the modified one) */
static gs_status to_csr(const void *M, gs_csr **out)
{
    gs_status st = GS_OK;
    const gs_cmrs *C = (const gs_cmrs *)M;
    gs_csr *B = NULL;
    int32_t *next = NULL;
    int64_t e = 0;
    *out = NULL;
    GS_CHECK(gs_csr_create(C->rows, C->cols, C->nnz, &B));
    memset(B->rowptr, 0, ((size_t)C->rows + 1) * sizeof(int32_t));
    for (int32_t s = 0; s < C->strips; s++)
        for (int32_t j = C->stripptr[s]; j < C->stripptr[s + 1]; j++)
            if (is_real(C, s, j, &e)) B->rowptr[(int64_t)s * C->h + (C->colrow[j] & 15u) + 1]++;
    for (int32_t i = 0; i < C->rows; i++) B->rowptr[i + 1] += B->rowptr[i];
    if (B->rowptr[C->rows] != C->nnz)
        GS_FAIL(GS_ERR_INTERNAL, "cmrs to_csr: %d entries found, %d expected", B->rowptr[C->rows],
                C->nnz);
    GS_CHECK(
        gs_alloc_array((size_t)C->rows + 1, sizeof *next, "CMRS to CSR cursors", (void **)&next));
    memcpy(next, B->rowptr, ((size_t)C->rows + 1) * sizeof *next);
    for (int32_t s = 0; s < C->strips; s++)
        for (int32_t j = C->stripptr[s]; j < C->stripptr[s + 1]; j++) {
            if (!is_real(C, s, j, &e)) continue;
            int64_t pos = C->m ? C->nzptr[s] + e : next[(int64_t)s * C->h + (C->colrow[j] & 15u)]++;
            B->colind[pos] = (int32_t)(C->colrow[j] >> GS_CMRS_BITS);
            B->val[pos] = C->val[j];
        }
    *out = B;
    B = NULL;
done:
    gs_free(next);
    gs_csr_destroy(&B);
    return st;
}

/* y = A*x, one strip per iteration: h partial sums indexed by the packed row (Algorithm 1) */
static gs_status spmv(const void *M, const double *x, double *y)
{
    const gs_cmrs *C = (const gs_cmrs *)M;
#pragma omp parallel for schedule(dynamic, 256) if (C->stored > 100000)
    for (int32_t s = 0; s < C->strips; s++) {
        double acc[GS_CMRS_MAX_H] = {0.0};
        for (int32_t j = C->stripptr[s]; j < C->stripptr[s + 1]; j++) {
            uint32_t p = C->colrow[j];
            acc[p & 15u] += C->val[j] * x[p >> GS_CMRS_BITS];
        }
        const int hs = strip_rows(C, s);
        for (int r = 0; r < hs; r++) y[(int64_t)s * C->h + r] = acc[r];
    }
    return GS_OK;
}

const gs_format_ops gs_cmrs_host_ops = {"cmrs",        from_csr,         to_csr, spmv,
                                        gs_cmrs_bytes, gs_cmrs_describe, destroy};

/* DCSR (King et al. 2016): conversion round trips, insertion in batches that exhausts segments
 * and capacity, defragmentation (with and without reordering by bin), SpMV plain and binned
 * against CSR, bad arguments, and (host) allocation failures without leaks.
 *   test_dcsr [--gpu]   host by default; --gpu runs the same on the device (77 without one). */
#include <stdint.h>

#include "gs_backend.h"
#include "gs_dcsr.h"
#include "gs_gen.h"
#include "gs_test.h"

static gs_loc LOC = GS_LOC_HOST;

static uint64_t rng = 88172645463325252ull;
static uint64_t next_u64(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* random rows x cols CSR, about `per_row` entries per row, every fifth row empty */
static gs_csr *random_csr(int32_t rows, int32_t cols, int per_row)
{
    int64_t cap = (int64_t)rows * per_row * 2 + 1, n = 0;
    int32_t *ri = malloc((size_t)cap * 4), *ci = malloc((size_t)cap * 4);
    double *v = malloc((size_t)cap * 8);
    gs_csr *A = NULL;
    for (int32_t i = 0; i < rows; i++) {
        if (i % 5 == 3) continue;
        int len = (int)(next_u64() % (uint64_t)(2 * per_row + 1));
        for (int q = 0; q < len && n < cap; q++, n++) {
            ri[n] = i;
            ci[n] = (int32_t)(next_u64() % (uint64_t)cols);
            v[n] = (double)(int64_t)(next_u64() % 2001) / 1000.0 - 1.0;
        }
    }
    CHECK_OK(gs_csr_from_coo(rows, cols, n, ri, ci, v, &A));
    free(ri), free(ci), free(v);
    return A;
}

/* the part of A whose entries q satisfy q % m == r (keeps A's row order) */
static gs_csr *batch(const gs_csr *A, int m, int r)
{
    gs_csr *B = NULL;
    int64_t n = 0;
    for (int32_t q = 0; q < A->nnz; q++) n += q % m == r;
    CHECK_OK(gs_csr_create(A->rows, A->cols, n, &B));
    n = 0;
    for (int32_t i = 0; i < A->rows; i++) {
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
            if (q % m == r) B->colind[n] = A->colind[q], B->val[n] = A->val[q], n++;
        B->rowptr[i + 1] = (int32_t)n;
    }
    return B;
}

/* A with each row's entries in batch order: batch 0's part of the row, then batch 1's, ... */
static gs_csr *batch_order(const gs_csr *A, int m)
{
    gs_csr *B = NULL;
    int32_t n = 0;
    CHECK_OK(gs_csr_create(A->rows, A->cols, A->nnz, &B));
    for (int32_t i = 0; i < A->rows; i++) {
        for (int r = 0; r < m; r++)
            for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
                if (q % m == r) B->colind[n] = A->colind[q], B->val[n] = A->val[q], n++;
        B->rowptr[i + 1] = n;
    }
    return B;
}

static gs_csr *to_loc(const gs_csr *A)
{
    gs_csr *D = NULL;
    CHECK_OK(gs_csr_upload(A, LOC, &D));
    return D;
}

/* host copy of D converted to CSR equals E entry for entry (same order) */
static void check_same(const gs_dcsr *D, const gs_csr *E, const char *what)
{
    gs_csr *C = NULL, *H = NULL;
    CHECK_OK(gs_dcsr_to_csr(D, &C));
    if (!C) return;
    CHECK_OK(gs_csr_download(C, &H));
    int ok = H && H->rows == E->rows && H->cols == E->cols && H->nnz == E->nnz;
    for (int32_t i = 0; ok && i <= E->rows; i++) ok = H->rowptr[i] == E->rowptr[i];
    for (int32_t q = 0; ok && q < E->nnz; q++)
        ok = H->colind[q] == E->colind[q] && H->val[q] == E->val[q];
    CHECK_MSG(ok, "%s: DCSR -> CSR differs from the expected matrix", what);
    gs_csr_destroy(&C);
    gs_csr_destroy(&H);
}

/* y = D*x against the CSR product of E (1e-13 relative) */
static void check_spmv(const gs_dcsr *D, const gs_csr *E, const char *what)
{
    gs_vec *x = NULL, *y = NULL;
    double *xh = malloc(((size_t)E->cols + 1) * 8), *yr = malloc(((size_t)E->rows + 1) * 8);
    double *yh = malloc(((size_t)E->rows + 1) * 8), err = 0.0, nrm = 0.0;
    gs_gen_random_vector(5, xh, E->cols);
    gs_csr_spmv_host(E, xh, yr);
    CHECK_OK(gs_vec_create(E->cols, LOC, &x));
    CHECK_OK(gs_vec_create(E->rows, LOC, &y));
    CHECK_OK(gs_vec_set_host(x, xh));
    CHECK_OK(gs_dcsr_spmv(D, x, y));
    CHECK_OK(gs_vec_get_host(y, yh));
    for (int32_t i = 0; i < E->rows; i++) {
        err = fmax(err, fabs(yh[i] - yr[i]));
        nrm = fmax(nrm, fabs(yr[i]));
    }
    CHECK_MSG(err <= 1e-13 * (nrm + 1e-300) || err == 0.0, "%s: SpMV error %g (max |y| %g)", what,
              err, nrm);
    gs_vec_destroy(&x);
    gs_vec_destroy(&y);
    free(xh), free(yr), free(yh);
}

static int max_segments(const gs_dcsr *D)
{
    gs_dcsr *H = NULL;
    CHECK_OK(gs_dcsr_download(D, &H));
    int s = H ? gs_dcsr_max_segments(H) : -1;
    gs_dcsr_destroy(&H);
    return s;
}

/* round trip, then build the matrix in m batches from an empty DCSR of small capacity, then
 * defragment both ways, checking contents, segment counts and SpMV all along */
static void check_matrix(const char *name, const gs_csr *A, int k, int m, int64_t cap0)
{
    gs_dcsr_params p;
    gs_dcsr *D = NULL;
    gs_csr *dA = to_loc(A), *E = batch_order(A, m);
    char what[160];
    gs_dcsr_params_default(&p);
    p.k = k;
    snprintf(what, sizeof what, "%s k=%d m=%d: round trip", name, k, m);
    CHECK_OK(gs_dcsr_from_csr(dA, &p, &D));
    check_same(D, A, what);
    check_spmv(D, A, what);
    gs_dcsr_destroy(&D);

    CHECK_OK(gs_dcsr_create(A->rows, A->cols, cap0, &p, LOC, &D));
    for (int r = 0; r < m && D; r++) {
        gs_csr *B = batch(A, m, r), *dB = to_loc(B);
        CHECK_OK(gs_dcsr_insert(D, dB));
        int s = max_segments(D);
        CHECK_MSG(s <= k, "%s: %d segments > k = %d after batch %d", name, s, k, r);
        gs_csr_destroy(&B);
        gs_csr_destroy(&dB);
    }
    snprintf(what, sizeof what, "%s k=%d m=%d: inserted", name, k, m);
    if (D) {
        check_same(D, E, what);
        check_spmv(D, E, what);
        CHECK_OK(gs_dcsr_bin(D));
        snprintf(what, sizeof what, "%s k=%d m=%d: binned", name, k, m);
        check_spmv(D, E, what);
        CHECK_OK(gs_dcsr_defrag(D, 0));
        snprintf(what, sizeof what, "%s k=%d m=%d: defragmented", name, k, m);
        check_same(D, E, what);
        check_spmv(D, E, what);
        CHECK_MSG(max_segments(D) <= 1, "%s", what);
        CHECK_OK(gs_dcsr_defrag(D, 1));
        snprintf(what, sizeof what, "%s k=%d m=%d: defragmented in bin order", name, k, m);
        check_same(D, E, what);
        check_spmv(D, E, what);
        /* one more batch on top of the reordered layout */
        gs_csr *B = batch(A, 1, 0), *dB = to_loc(B), *E2 = NULL;
        CHECK_OK(gs_dcsr_insert(D, dB));
        int32_t n = 0;
        CHECK_OK(gs_csr_create(A->rows, A->cols, 2 * (int64_t)A->nnz, &E2));
        for (int32_t i = 0; i < A->rows; i++) {
            for (int32_t q = E->rowptr[i]; q < E->rowptr[i + 1]; q++)
                E2->colind[n] = E->colind[q], E2->val[n++] = E->val[q];
            for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
                E2->colind[n] = A->colind[q], E2->val[n++] = A->val[q];
            E2->rowptr[i + 1] = n;
        }
        snprintf(what, sizeof what, "%s k=%d m=%d: inserted after reorder (duplicates)", name, k,
                 m);
        check_same(D, E2, what);
        check_spmv(D, E2, what);
        gs_csr_destroy(&B);
        gs_csr_destroy(&dB);
        gs_csr_destroy(&E2);
    }
    printf("%-28s k=%d batches=%d: ok\n", name, k, m);
    gs_dcsr_destroy(&D);
    gs_csr_destroy(&dA);
    gs_csr_destroy(&E);
}

static void check_args(void)
{
    gs_dcsr *D = NULL;
    gs_dcsr_params p;
    gs_csr *A = random_csr(10, 7, 3), *B = random_csr(11, 7, 3), *dA = to_loc(A), *dB = to_loc(B);
    gs_dcsr_params_default(&p);
    p.k = 0;
    CHECK_FAIL(gs_dcsr_create(10, 7, 10, &p, LOC, &D), GS_ERR_ARG, "segments per row");
    p.k = 4;
    CHECK_FAIL(gs_dcsr_create(10, 7, 3000000000LL, &p, LOC, &D), GS_ERR_UNSUPPORTED, "32-bit");
    CHECK_OK(gs_dcsr_from_csr(dA, &p, &D));
    if (D) CHECK_FAIL(gs_dcsr_insert(D, dB), GS_ERR_ARG, "does not fit");
    gs_dcsr_destroy(&D);
    gs_csr_destroy(&A), gs_csr_destroy(&B), gs_csr_destroy(&dA), gs_csr_destroy(&dB);
}

/* host: the k-th allocation fails for every k until the whole sequence succeeds; no leaks */
static void check_alloc_failures(void)
{
    gs_csr *A = random_csr(200, 150, 6), *B = random_csr(200, 150, 6);
    int done_ok = 0;
    for (long k = 1; k < 200 && !done_ok; k++) {
        long live = gs_mem_live();
        gs_dcsr *D = NULL;
        gs_dcsr_params p;
        gs_dcsr_params_default(&p);
        p.k = 2;
        gs_mem_fail_at(k);
        gs_status st = gs_dcsr_from_csr(A, &p, &D);
        if (st == GS_OK) st = gs_dcsr_insert(D, B);
        if (st == GS_OK) st = gs_dcsr_insert(D, B);
        if (st == GS_OK) st = gs_dcsr_defrag(D, 1);
        gs_mem_fail_at(0);
        CHECK_MSG(st == GS_OK || st == GS_ERR_NOMEM, "failure %ld: %s", k, gs_status_str(st));
        if (st == GS_ERR_NOMEM) /* the message names what was asked and its size */
            CHECK_MSG(strstr(gs_error_message(), "could not allocate") &&
                          strstr(gs_error_message(), " bytes for DCSR"),
                      "failure %ld: %s", k, gs_error_message());
        gs_error_clear();
        gs_dcsr_destroy(&D);
        CHECK_MSG(gs_mem_live() == live, "failure %ld: %ld allocations leaked", k,
                  gs_mem_live() - live);
        done_ok = st == GS_OK;
    }
    CHECK(done_ok);
    gs_csr_destroy(&A), gs_csr_destroy(&B);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--gpu") == 0) {
        if (gs_backend_cuda_devices(NULL) == 0) return 77;
        CHECK_OK(gs_backend_cuda_init(0, NULL, 0));
        LOC = GS_LOC_DEVICE;
    }
    gs_csr *R = random_csr(500, 300, 6), *W = random_csr(40, 2000, 60), *P = NULL, *L = NULL;
    gs_gen_params g = {.type = "poisson", .size = 12, .stencil = 7, .dof = 1, .seed = 1};
    gs_gen_params pl = {
        .type = "powerlaw", .size = 3000, .dof = 1, .seed = 2, .degree = 8.0, .exponent = 2.2};
    char desc[128];
    CHECK_OK(gs_gen_matrix(&g, &P, desc, sizeof desc));
    CHECK_OK(gs_gen_matrix(&pl, &L, desc, sizeof desc));
    check_matrix("random 500x300", R, 4, 3, 64);
    check_matrix("random 500x300", R, 2, 5, 0);
    check_matrix("random 500x300", R, 1, 4, 10);
    check_matrix("wide rows 40x2000", W, 3, 6, 100);
    check_matrix("poisson 7-point 12^3", P, 4, 7, 1000);
    check_matrix("powerlaw 3000", L, 4, 4, 500);
    {
        gs_csr *Z = random_csr(0, 5, 3);
        check_matrix("no rows", Z, 2, 2, 0);
        gs_csr_destroy(&Z);
    }
    check_args();
    if (LOC == GS_LOC_HOST) check_alloc_failures();
    gs_csr_destroy(&R), gs_csr_destroy(&W), gs_csr_destroy(&P), gs_csr_destroy(&L);
    return gs_test_result(LOC == GS_LOC_HOST ? "test_dcsr" : "test_dcsr --gpu");
}

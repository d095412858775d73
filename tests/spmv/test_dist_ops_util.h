/* test_dist_ops_util.h: what test_dist_ops.c and test_dist_ops_rows.c share: their includes,
 * where the operations run (LOC) and their table (OPS), the random numbers, the matrices and
 * arrays made at LOC, the exact comparison of a result with its reference, and the start of
 * main ([--gpu]: the device's table, 77 without a GPU). */
#ifndef TEST_DIST_OPS_UTIL_H
#define TEST_DIST_OPS_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_dist.h"
#include "gs_dist_ops.h"
#include "gs_knob.h"
#include "gs_spgemm.h"
#include "gs_test.h"

static gs_loc LOC = GS_LOC_HOST;
static const gs_dist_ops *OPS;

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static inline uint64_t next_u64(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* a dyadic value in [-4, 4): every sum of two is exact */
static inline double rand_val(void)
{
    return (double)(int64_t)(next_u64() % 64) / 8.0 - 4.0;
}

/* ---- matrices and arrays at LOC ---------------------------------------------------------- */

static inline gs_csr *from_triplets(int64_t rows, int64_t cols, int64_t n, const int32_t *ri,
                                    const int32_t *ci, const double *v)
{
    gs_csr *A = NULL;
    CHECK_OK(gs_csr_from_coo(rows, cols, n, ri, ci, v, &A));
    return A;
}

/* random rows x cols (cols > 0 unless per_row == 0), 0..2*per_row entries a row, every fifth
 * row empty */
static inline gs_csr *random_csr(int32_t rows, int32_t cols, int per_row)
{
    int64_t cap = (int64_t)rows * (2 * per_row + 1) + 1, n = 0;
    int32_t *ri = malloc((size_t)cap * 4), *ci = malloc((size_t)cap * 4);
    double *v = malloc((size_t)cap * 8);
    for (int32_t i = 0; i < rows && cols > 0; i++) {
        if (i % 5 == 3) continue;
        int len = (int)(next_u64() % (uint64_t)(2 * per_row + 1));
        for (int q = 0; q < len; q++, n++)
            ri[n] = i, ci[n] = (int32_t)(next_u64() % (uint64_t)cols), v[n] = rand_val();
    }
    gs_csr *A = from_triplets(rows, cols, n, ri, ci, v);
    free(ri), free(ci), free(v);
    return A;
}

/* A's entries as triplets (arrays of A->nnz + 1) */
static inline void triplets(const gs_csr *A, int32_t **ri, int32_t **ci, double **v)
{
    *ri = malloc((size_t)A->nnz * 4 + 4), *ci = malloc((size_t)A->nnz * 4 + 4);
    *v = malloc((size_t)A->nnz * 8 + 8);
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
            (*ri)[q] = i, (*ci)[q] = A->colind[q], (*v)[q] = A->val[q];
}

/* A's triplets, then B's with their rows moved down by boff; their count */
static inline int32_t both_triplets(const gs_csr *A, const gs_csr *B, int32_t boff,
                                    int32_t **ri, int32_t **ci, double **v)
{
    const int32_t n = A->nnz + B->nnz;
    int32_t *bri, *bci;
    double *bv;
    triplets(A, ri, ci, v), triplets(B, &bri, &bci, &bv);
    *ri = realloc(*ri, (size_t)n * 4 + 4), *ci = realloc(*ci, (size_t)n * 4 + 4);
    *v = realloc(*v, (size_t)n * 8 + 8);
    for (int32_t q = 0; q < B->nnz; q++)
        (*ri)[A->nnz + q] = boff + bri[q], (*ci)[A->nnz + q] = bci[q], (*v)[A->nnz + q] = bv[q];
    free(bri), free(bci), free(bv);
    return n;
}

static inline gs_csr *up(const gs_csr *A)
{
    gs_csr *D = NULL;
    CHECK_OK(gs_csr_upload(A, LOC, &D));
    return D;
}

/* a copy of host array h (bytes) at LOC */
static inline void *put(const void *h, size_t bytes)
{
    const gs_backend_ops *b = gs_backend_get(LOC);
    void *p = NULL;
    CHECK_OK(b->alloc(bytes ? bytes : 1, "test array", &p));
    if (p && bytes) CHECK_OK(b->put(p, h, bytes));
    return p;
}

/* an unfilled array of bytes at LOC */
static inline void *room(size_t bytes)
{
    void *p = NULL;
    CHECK_OK(gs_backend_get(LOC)->alloc(bytes ? bytes : 1, "test output", &p));
    return p;
}

static inline void get(void *h, const void *p, size_t bytes)
{
    if (bytes) CHECK_OK(gs_backend_get(LOC)->get(h, p, bytes));
}

static inline void drop(void *p)
{
    gs_backend_get(LOC)->free(p);
}

/* C (at LOC, may be NULL after a failure) equals host R exactly; its rows sorted */
static inline void compare(const gs_csr *C, const gs_csr *R, const char *what)
{
    gs_csr *H = NULL;
    CHECK_MSG(C != NULL, "%s: no result", what);
    if (!C) return;
    CHECK_MSG(C->loc == LOC, "%s: result at the wrong location", what);
    CHECK_OK(gs_csr_download(C, &H));
    if (!H) return;
    int ok = H->rows == R->rows && H->cols == R->cols && H->nnz == R->nnz;
    CHECK_MSG(ok, "%s: %d x %d, nnz %d; expected %d x %d, nnz %d", what, H->rows, H->cols, H->nnz,
              R->rows, R->cols, R->nnz);
    for (int32_t i = 0; ok && i <= R->rows; i++) ok = H->rowptr[i] == R->rowptr[i];
    for (int32_t q = 0; ok && q < R->nnz; q++) ok = H->colind[q] == R->colind[q];
    CHECK_MSG(ok, "%s: pattern differs", what);
    for (int32_t q = 0; ok && q < R->nnz; q++) ok = H->val[q] == R->val[q];
    CHECK_MSG(ok, "%s: values differ", what);
    CHECK_OK(gs_csr_validate(H, what)); /* in range, rows sorted */
    gs_csr_destroy(&H);
}

/* LOC and OPS: the device's with --gpu; 77 without a GPU, 1 without a table (checked), else 0 */
static inline int dist_ops_start(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--gpu") == 0) {
        if (gs_backend_cuda_devices(NULL) == 0) return 77;
        CHECK_OK(gs_backend_cuda_init(0, NULL, 0));
        LOC = GS_LOC_DEVICE;
    }
    OPS = gs_backend_module(LOC, GS_MODULE_DIST);
    CHECK_MSG(OPS != NULL, "no gs_dist_ops table at the %s",
              LOC == GS_LOC_HOST ? "host" : "device");
    return OPS ? 0 : 1;
}

#endif

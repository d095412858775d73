/* test_pinned_upload.c: page-locked host matrices (gs_alloc_pinned) and their upload.
 *
 * Without arguments (label cpu): gs_mem's pinned blocks with a counting stand-in allocator:
 * which arrays become pinned, gs_free and gs_realloc releasing each block with its own
 * function (also after the allocator is withdrawn), pinning turned off, a refused request, a
 * full table, failure injection, and nothing leaked.
 * With --gpu (label gpu; exits 77 without a device): the CUDA backend's allocator. Matrices made
 * after the backend started are page-locked (all arrays, or only the large ones), a pageable
 * copy is not; each uploads and downloads (into page-locked and into pageable arrays) equal to
 * the host arrays; nothing leaked.
 * Both: gs_csr_upload_while runs its host work once while the matrix travels (pinned, pageable
 * and small matrices on the device), the copy equal to the matrix; the work's failure is
 * returned, with no matrix, after the copy (nothing leaked). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_csr.h"
#include "gs_gen.h"
#include "gs_mem.h"
#include "gs_test.h"

/* ---------------------------------------------------------------- host: stand-in allocator */

static long n_alloc, n_free, refuse;

static void *fake_alloc(size_t bytes)
{
    if (refuse) return NULL;
    n_alloc++;
    return malloc(bytes);
}

static void fake_free(void *p)
{
    n_free++;
    free(p);
}

/* which arrays gs_alloc_pinned pins, and how gs_realloc and gs_free release them */
static void test_rule(void)
{
    void *p = NULL, *q = NULL;
    CHECK_OK(gs_alloc_pinned(GS_PINNED_MIN, 1, "no allocator yet", &p));
    CHECK(!gs_mem_is_pinned(p) && n_alloc == 0);
    gs_free(p);
    gs_mem_set_pinned(fake_alloc, fake_free);
    CHECK_OK(gs_alloc_pinned(GS_PINNED_MIN / 8 - 1, 8, "small", &p));
    CHECK(!gs_mem_is_pinned(p) && n_alloc == 0);
    gs_free(p);
    CHECK_OK(gs_alloc_pinned(GS_PINNED_MIN / 8, 8, "large", &p));
    CHECK(gs_mem_is_pinned(p) && n_alloc == 1);
    CHECK(!gs_mem_is_pinned((char *)p + 8) && !gs_mem_is_pinned(NULL));
    memset(p, 7, GS_PINNED_MIN);
    q = gs_realloc(p, 2 * GS_PINNED_MIN); /* moves to ordinary memory, contents kept */
    CHECK(q && !gs_mem_is_pinned(q) && n_free == 1);
    int same = 1;
    for (size_t i = 0; q && i < GS_PINNED_MIN; i++) same &= ((unsigned char *)q)[i] == 7;
    CHECK(same);
    gs_free(q);
    CHECK(n_free == 1);
    CHECK_FAIL(gs_alloc_pinned(SIZE_MAX / 2, 4, "huge", &p), GS_ERR_NOMEM, "huge");
    CHECK(p == NULL);
}

/* gs_csr_create pins its large arrays; pinning off; refused; a full table */
static void test_csr_and_limits(void)
{
    gs_csr *A = NULL;
    void *blk[80];
    long a0 = n_alloc, f0 = n_free;
    CHECK_OK(gs_csr_create(300000, 300000, 300000, &A)); /* 1.2, 1.2 and 2.4 MB */
    CHECK(A && gs_mem_is_pinned(A->rowptr) && gs_mem_is_pinned(A->colind) &&
          gs_mem_is_pinned(A->val) && n_alloc == a0 + 3);
    gs_csr_destroy(&A);
    CHECK(n_free == f0 + 3 && A == NULL);

    CHECK(gs_mem_pinned_enable(0) == 1);
    CHECK_OK(gs_alloc_pinned(GS_PINNED_MIN, 1, "pinning off", &blk[0]));
    CHECK(!gs_mem_is_pinned(blk[0]) && n_alloc == a0 + 3);
    gs_free(blk[0]);
    CHECK(gs_mem_pinned_enable(1) == 0);

    refuse = 1;
    CHECK_OK(gs_alloc_pinned(GS_PINNED_MIN, 1, "refused", &blk[0]));
    CHECK(blk[0] && !gs_mem_is_pinned(blk[0]));
    gs_free(blk[0]);
    refuse = 0;

    int pinned = 0;
    for (int i = 0; i < 80; i++) {
        CHECK_OK(gs_alloc_pinned(GS_PINNED_MIN, 1, "many", &blk[i]));
        pinned += gs_mem_is_pinned(blk[i]);
    }
    CHECK_MSG(pinned >= 32 && pinned < 80, "%d of 80 blocks pinned", pinned);
    f0 = n_free;
    for (int i = 0; i < 80; i++) gs_free(blk[i]);
    CHECK(n_free == f0 + pinned);
}

/* every failing allocation of gs_csr_create frees what it took, pinned blocks included */
static void test_injection(void)
{
    gs_csr *A = NULL;
    long live = gs_mem_live(), a0 = n_alloc, f0 = n_free;
    for (long k = 1; k <= 4; k++) {
        gs_mem_fail_at(k);
        CHECK_FAIL(gs_csr_create(300000, 300000, 300000, &A), GS_ERR_NOMEM, "CSR");
        gs_mem_fail_at(0);
        CHECK(A == NULL);
        CHECK_MSG(gs_mem_live() == live, "failing at allocation %ld leaks %ld blocks", k,
                  gs_mem_live() - live);
    }
    CHECK(n_alloc - a0 == n_free - f0);
}

/* a block made before the allocator is withdrawn is still released by its own function */
static void test_withdraw(void)
{
    void *p = NULL;
    long f0 = n_free;
    CHECK_OK(gs_alloc_pinned(GS_PINNED_MIN, 1, "before", &p));
    CHECK(gs_mem_is_pinned(p));
    gs_mem_set_pinned(NULL, NULL);
    gs_free(p);
    CHECK(n_free == f0 + 1);
    CHECK_OK(gs_alloc_pinned(GS_PINNED_MIN, 1, "after", &p));
    CHECK(!gs_mem_is_pinned(p) && n_free == f0 + 1);
    gs_free(p);
}

/* ---------------------------------------------------------------- device */

static gs_csr *gen(const char *type, int64_t size, int stencil)
{
    gs_csr *A = NULL;
    char desc[128];
    gs_gen_params g = {.type = type,
                       .size = size,
                       .stencil = stencil,
                       .dof = 1,
                       .seed = 3,
                       .epsilon = 0.001,
                       .velocity = 10.0,
                       .degree = 8.0,
                       .exponent = 2.5};
    CHECK_OK(gs_gen_matrix(&g, &A, desc, sizeof desc));
    return A;
}

static int same_csr(const gs_csr *A, const gs_csr *B)
{
    return A->rows == B->rows && A->cols == B->cols && A->nnz == B->nnz &&
           memcmp(A->rowptr, B->rowptr, ((size_t)A->rows + 1) * sizeof(int32_t)) == 0 &&
           memcmp(A->colind, B->colind, (size_t)A->nnz * sizeof(int32_t)) == 0 &&
           memcmp(A->val, B->val, (size_t)A->nnz * sizeof(double)) == 0;
}

/* gs_csr_upload_while's host work: counts its runs, fails when asked */
typedef struct {
    int runs, fail;
} meanwhile_arg;

static gs_status meanwhile(void *arg)
{
    meanwhile_arg *m = (meanwhile_arg *)arg;
    m->runs++;
    return m->fail ? GS_ERROR(GS_ERR_INPUT, "meanwhile failed on purpose") : GS_OK;
}

/* gs_csr_upload_while at loc: the work runs once and the copy equals A; a failing work gives its
 * error and no matrix */
static void upload_while(const char *name, const gs_csr *A, gs_loc loc)
{
    gs_csr *dA = NULL, *H = NULL;
    meanwhile_arg m = {0, 0};
    CHECK_OK(gs_csr_upload_while(A, loc, meanwhile, &m, &dA));
    CHECK_MSG(m.runs == 1, "%s: the host work ran %d times", name, m.runs);
    if (dA) CHECK_OK(gs_csr_download(dA, &H));
    CHECK_MSG(H && same_csr(A, H), "%s: the copy made while the work ran differs", name);
    gs_csr_destroy(&H);
    gs_csr_destroy(&dA);
    m.runs = 0, m.fail = 1;
    CHECK_FAIL(gs_csr_upload_while(A, loc, meanwhile, &m, &dA), GS_ERR_INPUT, "on purpose");
    CHECK_MSG(m.runs == 1 && !dA, "%s: a failing host work ran %d times, matrix %p", name,
              m.runs, (void *)dA);
    gs_csr_destroy(&dA);
}

/* upload A, download it into page-locked and into pageable arrays: both equal to A */
static void round_trip(const char *name, const gs_csr *A)
{
    gs_csr *dA = NULL, *H = NULL;
    CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
    if (!dA) return;
    for (int pin = 1; pin >= 0; pin--) {
        int was = gs_mem_pinned_enable(pin);
        CHECK_OK(gs_csr_download(dA, &H));
        gs_mem_pinned_enable(was);
        CHECK_MSG(H && same_csr(A, H), "%s: download into %s arrays differs", name,
                  pin ? "page-locked" : "pageable");
        if (H && pin)
            CHECK(gs_mem_is_pinned(H->val) == ((int64_t)A->nnz * 8 >= (int64_t)GS_PINNED_MIN));
        gs_csr_destroy(&H);
    }
    gs_csr_destroy(&dA);
}

static int test_device(void)
{
    const char *why = NULL;
    gs_csr *big = NULL, *mixed = NULL, *small = NULL, *pageable = NULL;
    if (gs_backend_cuda_devices(&why) == 0) {
        printf("test_pinned_upload: skipped: %s\n", why ? why : "no CUDA device");
        return 77;
    }
    if (gs_backend_cuda_init(0, NULL, 0) != GS_OK) {
        printf("test_pinned_upload: skipped: %s\n", gs_error_message());
        return 77;
    }
    big = gen("poisson", 80, 7);   /* 512000 rows: all three arrays pinned */
    mixed = gen("poisson", 48, 7); /* 110592 rows: rowptr pageable, colind and val pinned */
    small = gen("poisson", 10, 7); /* under a megabyte: nothing pinned, one plain copy */
    if (big) {
        int was = gs_mem_pinned_enable(0);
        CHECK_OK(gs_csr_copy(big, &pageable));
        gs_mem_pinned_enable(was);
    }
    if (!big || !mixed || !small || !pageable) goto done;
    CHECK(gs_mem_is_pinned(big->rowptr) && gs_mem_is_pinned(big->colind) &&
          gs_mem_is_pinned(big->val));
    CHECK(!gs_mem_is_pinned(mixed->rowptr) && gs_mem_is_pinned(mixed->colind) &&
          gs_mem_is_pinned(mixed->val));
    CHECK(!gs_mem_is_pinned(small->val) && !gs_mem_is_pinned(pageable->val) &&
          !gs_mem_is_pinned(pageable->colind) && !gs_mem_is_pinned(pageable->rowptr));
    round_trip("pinned", big);
    round_trip("pageable", pageable);
    round_trip("mixed", mixed);
    round_trip("small", small);
    upload_while("pinned", big, GS_LOC_DEVICE);
    upload_while("pageable", pageable, GS_LOC_DEVICE);
    upload_while("small", small, GS_LOC_DEVICE);
done:
    gs_csr_destroy(&big);
    gs_csr_destroy(&mixed);
    gs_csr_destroy(&small);
    gs_csr_destroy(&pageable);
    return 0;
}

int main(int argc, char **argv)
{
    long live = gs_mem_live();
    if (argc > 1 && strcmp(argv[1], "--gpu") == 0) {
        if (test_device() == 77) return 77;
    } else {
        test_rule();
        test_csr_and_limits();
        test_injection();
        test_withdraw();
        CHECK(n_alloc == n_free);
        gs_csr *A = gen("poisson", 10, 7);
        if (A) upload_while("host", A, GS_LOC_HOST);
        gs_csr_destroy(&A);
    }
    CHECK_MSG(gs_mem_live() == live, "%ld blocks leaked", gs_mem_live() - live);
    return gs_test_result("test_pinned_upload");
}

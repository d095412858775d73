/* test_cuda_memlimit.c: GSOLVE_DEVICE_MEMORY_LIMIT (label gpu; exit 77 without a device).
 *
 * With the limit at 50 MB the device allocator gives 30 MB, refuses a second 30 MB as out of
 * GPU memory with a message naming the bytes asked, what they were for, and the 20 MB the
 * limit leaves; gives them again once the first block is freed; refuses a vector beyond the
 * limit; and the device still works after the refusals. */
#include <stdlib.h>

#include "gs_backend.h"
#include "gs_knob.h"
#include "gs_test.h"
#include "gs_vec.h"

int main(void)
{
    const char *why = NULL;
    gs_knob_set("GSOLVE_DEVICE_MEMORY_LIMIT", "50000000"); /* read at the first device allocation */
    if (gs_backend_cuda_devices(&why) == 0) {
        printf("test_cuda_memlimit: skipped: %s\n", why ? why : "no CUDA device");
        return 77;
    }
    CHECK_OK(gs_backend_cuda_init(0, NULL, 0));
    const gs_backend_ops *D = gs_backend_get(GS_LOC_DEVICE);
    if (!D) return gs_test_result("test_cuda_memlimit");
    void *a = NULL, *b = NULL, *c = NULL;
    CHECK_OK(D->alloc(30000000, "block a", &a));
    CHECK_FAIL(D->alloc(30000000, "block b", &b), GS_ERR_NOMEM,
               "out of GPU memory: could not allocate 30000000 bytes (30.0 MB) for block b "
               "(20.0 MB free of 50.0 MB under GSOLVE_DEVICE_MEMORY_LIMIT)");
    CHECK(b == NULL);
    CHECK_OK(D->alloc(20000000, "block c", &c)); /* exactly what is left */
    CHECK_FAIL(D->alloc(1, "one byte", &b), GS_ERR_NOMEM, "1 bytes for one byte (0 bytes free");
    D->free(a);
    CHECK_OK(D->alloc(30000000, "block b", &b)); /* a's bytes are back */
    D->free(b);
    D->free(c);
    /* 1e7 doubles = 80 MB: refused through the vector API too */
    gs_vec *big = NULL, *x = NULL;
    CHECK_FAIL(gs_vec_create(10000000, GS_LOC_DEVICE, &big), GS_ERR_NOMEM,
               "80000000 bytes (80.0 MB)");
    CHECK(big == NULL);
    /* the device still works: 1e6 doubles filled and summed */
    double s = 0.0;
    CHECK_OK(gs_vec_create(1000000, GS_LOC_DEVICE, &x));
    if (x) {
        CHECK_OK(gs_vec_fill(0.5, x));
        CHECK_OK(gs_vec_dot(x, x, &s));
        CHECK_NEAR(s, 250000.0, 1e-12);
    }
    gs_vec_destroy(&x);
    return gs_test_result("test_cuda_memlimit");
}

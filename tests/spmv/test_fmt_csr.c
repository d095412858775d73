/* test_fmt_csr.c: the format harness on gsolve's own CSR (and, on the GPU, cuSPARSE) through
 * gs_spmat: every case of fmt_test.h, which also checks the harness itself. */
#include "fmt_test.h"

int main(int argc, char **argv)
{
    gs_format_params p;
    gs_format_params_default(&p);
    int gpu = argc > 1 && strcmp(argv[1], "--gpu") == 0;
    if (gpu) {
        if (gs_backend_cuda_devices(NULL) == 0) return 77;
        if (gs_backend_cuda_init(0, NULL, 0) != GS_OK) return 77;
        fmt_test_run(GS_FORMAT_CUSPARSE, &p, 1, NULL);
    }
    fmt_test_run(GS_FORMAT_CSR, &p, gpu, NULL);
    return gs_test_result("test_fmt_csr");
}

/* test_h5_from_h5py.c: read the file tests/data/h5py_write_example.py wrote (argv[1]): the
 * 30 x 30 grid 5-point Laplacian (900 x 900, 4380 nonzeros, values summing to 4*900 - 3480 =
 * 120) and b = ones(900). */
#include "gs_h5.h"
#include "gs_test.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE.h5\n", argv[0]);
        return 2;
    }
    gs_csr *A = NULL;
    gs_h5_info info;
    double *b = NULL, sum = 0.0, bsum = 0.0;
    int found = 0;
    CHECK_OK(gs_h5_read(argv[1], NULL, &A, &info));
    CHECK(A && A->rows == 900 && A->cols == 900 && A->nnz == 4380);
    if (A) {
        CHECK_OK(gs_csr_validate(A, argv[1]));
        for (int32_t k = 0; k < A->nnz; k++) sum += A->val[k];
        CHECK_NEAR(sum, 120.0, 1e-12);
        CHECK(strcmp(info.layout, "csr") == 0);
        CHECK_OK(gs_h5_read_vector(argv[1], NULL, "b", A->rows, &b, &found));
        CHECK(found == 1 && b != NULL);
        for (int32_t i = 0; b && i < A->rows; i++) bsum += b[i];
        CHECK_NEAR(bsum, 900.0, 1e-12);
    }
    gs_free(b);
    gs_csr_destroy(&A);
    CHECK(gs_mem_live() == 0);
    return gs_test_result("test_h5_from_h5py");
}

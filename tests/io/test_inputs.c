/* Inputs users have (argv[1]: the folder tests/data/inputs/make_inputs.py wrote): a MATLAB v7.3
 * file whose sparse matrix is variable A is read without problem.group, with its variables b
 * and x0 beside it; problem.rhs, problem.x0 and problem.nullspace take "FILE:/NAME" (an HDF5
 * dataset, a MATLAB variable stored transposed) and .npy files (1-D, 2-D, C or Fortran order,
 * vectors as columns or as rows; float32 and int64 too); several matrices and wrong sizes are
 * errors that name the file; --inspect's listing of an HDF5 file. */
#include <unistd.h>

#include "gs_config.h"
#include "gs_h5.h"
#include "gs_mem.h"
#include "gs_problem.h"
#include "gs_test.h"

#define N 36

static const char *dir;

/* A configuration with the folder as its base and the given assignments. */
static void config(gs_config *c, const char *const *sets, int n)
{
    gs_config_defaults(c);
    snprintf(c->base_dir, sizeof c->base_dir, "%s/", dir); /* as gs_config_load sets it */
    for (int i = 0; i < n; i++) CHECK_OK(gs_config_set(c, sets[i]));
}

/* b[i] = i + 1 */
static void check_b(const double *b)
{
    int bad = 0;
    for (int i = 0; b && i < N; i++) bad += b[i] != i + 1.0;
    CHECK_MSG(b && bad == 0, "%d entries of b differ", bad);
}

/* B[i, j] = 100 j + i, column-major, 3 vectors */
static void check_B(const double *B, int k, const char *what)
{
    int bad = 0;
    for (int j = 0; B && j < 3; j++)
        for (int i = 0; i < N; i++) bad += B[j * N + i] != 100.0 * j + i;
    CHECK_MSG(B && k == 3 && bad == 0, "%s: k = %d, %d entries differ", what, k, bad);
}

/* The MATLAB file: A found in /A, b and x0 beside it, B as the near-nullspace. */
static void matlab_file(gs_config *c)
{
    gs_problem *p = NULL;
    const char *sets[] = {"problem.matrix=matlab.mat", "problem.nullspace=matlab.mat:/B"};
    config(c, sets, 2);
    CHECK_OK(gs_problem_load(c, &p));
    if (!p) return;
    CHECK(p->A->rows == N && p->A->cols == N && p->A->nnz == 156);
    CHECK(strcmp(p->group, "/A") == 0 && strcmp(p->layout, "hdf5 matlab") == 0);
    size_t len = strlen(p->matrix);
    CHECK_MSG(len > 13 && strcmp(p->matrix + len - 13, "matlab.mat:/A") == 0, "%s", p->matrix);
    CHECK_MSG(strstr(p->rhs, "dataset b") != NULL, "rhs %s", p->rhs);
    check_b(p->b);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += p->x0[i] != 0.5;
    CHECK(bad == 0);
    check_B(p->nullspace, p->nullspace_k, "matlab.mat:/B");
    gs_problem_destroy(&p);
}

/* problem.rhs, x0 and nullspace from every kind of file. */
static void vector_files(gs_config *c)
{
    static const char *const rhs[] = {"matlab.mat:/b", "b.npy", "b_col.npy"};
    static const char *const ns[] = {"matlab.mat:/B", "B_c.npy",          "B_f.npy",
                                     "B_t.npy",       "nested.h5:/sys/B", "two.mat:/b"};
    for (int i = 0; i < 3; i++) {
        double *v = NULL;
        int k = 0;
        config(c, NULL, 0);
        CHECK_OK(gs_problem_read_vectors(c, rhs[i], "problem.rhs", N, 1, &v, &k, NULL, 0));
        CHECK_MSG(k == 1, "%s", rhs[i]);
        check_b(v);
        gs_free(v);
    }
    for (int i = 0; i < 5; i++) {
        double *v = NULL;
        int k = 0;
        config(c, NULL, 0);
        CHECK_OK(gs_problem_read_vectors(c, ns[i], "problem.nullspace", N, 64, &v, &k, NULL, 0));
        check_B(v, k, ns[i]);
        gs_free(v);
    }
    /* one vector where several are allowed */
    double *v = NULL;
    int k = 0;
    config(c, NULL, 0);
    CHECK_OK(gs_problem_read_vectors(c, ns[5], "problem.nullspace", N, 64, &v, &k, NULL, 0));
    CHECK(k == 1);
    check_b(v);
    gs_free(v);
    /* a whole problem: rhs and x0 from .npy, the matrix found in the nested group */
    gs_problem *p = NULL;
    const char *sets[] = {"problem.matrix=nested.h5", "problem.rhs=b.npy",
                          "problem.x0=matlab.mat:/b"};
    config(c, sets, 3);
    CHECK_OK(gs_problem_load(c, &p));
    if (p) {
        CHECK(strcmp(p->group, "/sys/A") == 0 && strcmp(p->layout, "hdf5 csr") == 0);
        check_b(p->b);
        check_b(p->x0);
        CHECK(p->nullspace == NULL);
    }
    gs_problem_destroy(&p);
}

/* The errors: each names the file and what was expected. */
static void errors(gs_config *c)
{
    gs_problem *p = NULL;
    double *v = NULL;
    int k = 0;
    const char *two[] = {"problem.matrix=two.mat"};
    config(c, two, 1);
    CHECK_FAIL(gs_problem_load(c, &p), GS_ERR_INPUT,
               "two.mat holds 2 sparse matrices (/A, /K): choose one with problem.group");
    const char *two_k[] = {"problem.matrix=two.mat", "problem.group=K"};
    config(c, two_k, 2);
    CHECK_OK(gs_problem_load(c, &p));
    CHECK(p && p->A->nnz == 156 && p->A->val[0] == 8.0); /* K = 2 A */
    gs_problem_destroy(&p);
    config(c, NULL, 0);
    /* float32 and int64 vectors are read as doubles (b is exact in both) */
    CHECK_OK(gs_problem_read_vectors(c, "f32.npy", "problem.rhs", N, 1, &v, &k, NULL, 0));
    check_b(v);
    gs_free(v);
    v = NULL;
    CHECK_OK(gs_problem_read_vectors(c, "i64.npy", "problem.rhs", N, 1, &v, &k, NULL, 0));
    check_b(v);
    gs_free(v);
    v = NULL;
    CHECK_FAIL(gs_problem_read_vectors(c, "B_c.npy", "problem.rhs", N, 1, &v, &k, NULL, 0),
               GS_ERR_INPUT, "B_c.npy is 36 x 3: expected one vector of 36 entries");
    CHECK_FAIL(gs_problem_read_vectors(c, "b.npy", "problem.rhs", N + 1, 1, &v, &k, NULL, 0),
               GS_ERR_INPUT, "b.npy is 36 x 1: expected 37 rows");
    CHECK_FAIL(gs_problem_read_vectors(c, "matlab.mat:/nope", "problem.rhs", N, 1, &v, &k, NULL, 0),
               GS_ERR_INPUT,
               "matlab.mat:/nope: no such dataset in the file (its numeric "
               "datasets: /B, /b, /x0)");
    CHECK_FAIL(gs_problem_read_vectors(c, "matlab.mat", "problem.rhs", N, 1, &v, &k, NULL, 0),
               GS_ERR_CONFIG, "is an HDF5 file: name its dataset, as in \"matlab.mat:/b\"");
    CHECK_FAIL(gs_problem_read_vectors(c, "matlab.mat:/A", "problem.rhs", N, 1, &v, &k, NULL, 0),
               GS_ERR_INPUT, "matlab.mat:/A is a group");
    CHECK_FAIL(gs_problem_read_vectors(c, "b.npy:/x", "problem.rhs", N, 1, &v, &k, NULL, 0),
               GS_ERR_INPUT, "b.npy' is not an HDF5 file");
    CHECK_FAIL(gs_problem_read_vectors(c, "no_such.npy", "problem.rhs", N, 1, &v, &k, NULL, 0),
               GS_ERR_IO, "no_such.npy");
    CHECK(v == NULL);
}

/* gs_matrix_read on "FILE:/NAME" (a group: its sparse matrix; a dataset: a dense matrix) and
 * on .npy files, as problem.matrix, problem.nullspace and --inspect read them. */
static void matrix_specs(void)
{
    char path[1024], layout[32];
    gs_csr *A = NULL;
    static const char *const dense[] = {"matlab.mat:/B", "B_c.npy", "B_f.npy", "nested.h5:/sys/B"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, dense[i]);
        CHECK_OK(gs_matrix_read(path, "", &A, NULL, NULL, layout));
        CHECK_MSG(A && A->rows == N && A->cols == 3 && A->nnz == 3 * N - 1, "%s", dense[i]);
        int bad = 0; /* B[i, j] = 100 j + i: the zero B[0, 0] is not stored */
        for (int32_t r = 0; A && r < A->rows; r++)
            for (int32_t q = A->rowptr[r]; q < A->rowptr[r + 1]; q++)
                bad += A->val[q] != 100.0 * A->colind[q] + r;
        CHECK_MSG(bad == 0, "%s: %d entries differ", dense[i], bad);
        gs_csr_destroy(&A);
    }
    snprintf(path, sizeof path, "%s/two.mat:/K", dir);
    CHECK_OK(gs_matrix_read(path, "", &A, NULL, NULL, layout));
    CHECK(A && A->nnz == 156 && A->val[0] == 8.0 && strcmp(layout, "hdf5 matlab") == 0);
    gs_csr_destroy(&A);
    CHECK_FAIL(gs_matrix_read(path, "A", &A, NULL, NULL, NULL), GS_ERR_CONFIG,
               "problem.group = \"A\" and the group /K in");
    snprintf(path, sizeof path, "%s/two.mat:/nope", dir);
    CHECK_FAIL(gs_matrix_read(path, "", &A, NULL, NULL, NULL), GS_ERR_INPUT,
               "two.mat:/nope: no such dataset in the file");
    CHECK(A == NULL);
}

/* --inspect's listing: the matrices with their layout and size, the datasets. */
static void listing(void)
{
    char path[1024], *buf = NULL, groups[4][GS_H5_PATH];
    size_t len = 0;
    int n = 0;
    snprintf(path, sizeof path, "%s/matlab.mat", dir);
    FILE *m = open_memstream(&buf, &len);
    CHECK_OK(gs_h5_list_matrices(path, m, &n));
    CHECK(n == 1);
    fclose(m);
    CHECK_MSG(buf && strstr(buf, "sparse matrices: 1\n") &&
                  strstr(buf, "/A                       matlab, 36 x 36, 156 nonzeros") &&
                  strstr(buf, "/B                       float64, 36 x 3 (MATLAB variable)") &&
                  strstr(buf, "/b                       float64, 36 x 1 (MATLAB variable)") &&
                  !strstr(buf, "#refs#"),
              "%s", buf ? buf : "");
    free(buf);
    snprintf(path, sizeof path, "%s/two.mat", dir);
    CHECK_OK(gs_h5_find_matrices(path, groups, 4, &n));
    CHECK(n == 2 && strcmp(groups[0], "/A") == 0 && strcmp(groups[1], "/K") == 0);
    snprintf(path, sizeof path, "%s/b.npy", dir); /* not HDF5: nothing printed */
    CHECK_OK(gs_h5_list_matrices(path, stdout, &n));
    CHECK(n == -1);
    snprintf(path, sizeof path, "%s/two.mat", dir);
    CHECK_OK(gs_h5_list_matrices(path, stdout, &n));
    CHECK(n == 2);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DATA_FOLDER\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    gs_config *c = calloc(1, sizeof *c);
    if (!c) return 1;
    matlab_file(c);
    vector_files(c);
    errors(c);
    matrix_specs();
    listing();
    free(c);
    return gs_test_result("test_inputs");
}

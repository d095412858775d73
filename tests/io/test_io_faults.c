/* test_io_faults.c: inputs at the limits and with numerical faults, and the fuzzers' finds.
 *
 *  - sizes near the 32-bit index limits are refused with a message before any large
 *    allocation: this test runs with allocations capped at 1 GiB (address-space limit, or
 *    ASan's max_allocation_size_mb), so reading a header that claims 3e9 nonzeros or 2^31
 *    entries over two lines must end with the reader's own message, not "out of memory";
 *  - NaN and Inf in A, b, x0 or the exact solution name the file, the vector and the entry;
 *  - regressions of what tests/fuzz found: duplicate entries whose sum overflows, an HDF5 file
 *    with a user block larger than 2048 bytes;
 *  - HDF5 indices stored as floats must be whole numbers; --set lists longer than a key holds
 *    are refused.
 */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "gs_config.h"
#include "gs_h5.h"
#include "gs_mem.h"
#include "gs_mm.h"
#include "gs_problem.h"
#include "gs_test.h"

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif

#ifdef TEST_ASAN
/* ASan reserves terabytes of address space, so the cap is its own allocation limit. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1:max_allocation_size_mb=1024";
}
#endif

static char g_dir[] = "/tmp/gs_io_faults_XXXXXX";

static const char *tpath(const char *name)
{
    static char buf[8][320];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", g_dir, name);
    return p;
}

static const char *fixture(const char *name, const char *text)
{
    const char *p = tpath(name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return p;
}

/* Allocations above 1 GiB fail (see the top of the file). */
static void cap_memory(void)
{
#ifndef TEST_ASAN
    struct rlimit rl = {(rlim_t)3 << 30, (rlim_t)3 << 30};
    struct rlimit cur;
    if (getrlimit(RLIMIT_AS, &cur) == 0 && cur.rlim_max != RLIM_INFINITY &&
        cur.rlim_max < rl.rlim_max)
        rl.rlim_cur = rl.rlim_max = cur.rlim_max;
    CHECK(setrlimit(RLIMIT_AS, &rl) == 0);
#endif
    /* the cap works: a 4 GiB request fails */
    void *p = malloc((size_t)4 << 30);
    CHECK_MSG(p == NULL, "the allocation cap is not in force");
    free(p);
}

/* Matrix Market files at the index limits: refused by the header, no big allocation. */
static void test_mm_limits(void)
{
    gs_csr *A = NULL;
    double *x = NULL;
    int64_t n = 0;
    long live = gs_mem_live();
    CHECK_FAIL(gs_mm_read(fixture("nnz3e9.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                                "5 5 3000000000\n1 1 1\n"),
                          &A, NULL),
               GS_ERR_UNSUPPORTED,
               "nnz3e9.mtx:2: matrix 5 x 5 has 3000000000 stored entries: gsolve supports at most "
               "2147483647 nonzeros (32-bit indices)");
    /* the largest count allowed, over one line: the reader must not allocate for the claim */
    CHECK_FAIL(gs_mm_read(fixture("nnzmax.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                                "2147483647 2147483647 2147483647\n1 1 1\n"),
                          &A, NULL),
               GS_ERR_INPUT,
               "nnzmax.mtx: file ends after 1 of 2147483647 entries declared on line 2");
    CHECK_FAIL(gs_mm_read(fixture("dense.mtx", "%%MatrixMarket matrix array real general\n"
                                               "50000 50000\n1\n"),
                          &A, NULL),
               GS_ERR_UNSUPPORTED,
               "dense.mtx:2: matrix 50000 x 50000 has 2500000000 stored entries");
    CHECK_FAIL(gs_mm_read(fixture("densesym.mtx", "%%MatrixMarket matrix array real symmetric\n"
                                                  "70000 70000\n1\n"),
                          &A, NULL),
               GS_ERR_UNSUPPORTED, "densesym.mtx:2: matrix 70000 x 70000 has 2450035000 stored");
    CHECK_FAIL(gs_mm_read(fixture("rows.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                              "2147483648 1 1\n1 1 1\n"),
                          &A, NULL),
               GS_ERR_UNSUPPORTED, "rows.mtx:2: matrix is 2147483648 x 1: gsolve supports at most");
    CHECK_FAIL(gs_mm_read(fixture("cols.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                              "1 30000000000 1\n1 1\n"),
                          &A, NULL),
               GS_ERR_UNSUPPORTED, "cols.mtx:2: matrix is 1 x 30000000000");
    /* a vector file claiming 2e9 entries over two lines (found by tests/fuzz: the reader used
     * to allocate 16 GB for them first) */
    CHECK_FAIL(gs_mm_read_vector(fixture("vec2e9.mtx", "%%MatrixMarket matrix array real general\n"
                                                       "2000000000 1\n1\n2\n"),
                                 -1, &x, &n),
               GS_ERR_INPUT,
               "vec2e9.mtx: file ends after 2 of 2000000000 entries declared on line 2");
    CHECK(A == NULL && x == NULL);
    CHECK(gs_mem_live() == live);
}

/* Create an HDF5 file with the scipy CSR layout; dims of data/indices may exceed what is
 * written (nnz_claim > nnz: datasets created at that size and left unwritten). Optional
 * datasets b, x0, x (NULL: absent) of length rows. userblock: 0 or the user block size. */
static void write_h5(const char *path, int64_t rows, int64_t cols, int64_t nnz_claim,
                     const int64_t *ptr, const int64_t *idx, const double *val, int64_t nnz,
                     const double *b, const double *x0, const double *x, hsize_t userblock)
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (userblock) H5Pset_userblock(fcpl, userblock);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    CHECK(f >= 0);
    struct {
        const char *name;
        hid_t type;
        const void *data;
        hsize_t n;
        int write;
    } d[] = {{"indptr", H5T_NATIVE_INT64, ptr, (hsize_t)rows + 1, 1},
             {"indices", H5T_NATIVE_INT64, idx, (hsize_t)nnz_claim, nnz_claim == nnz},
             {"data", H5T_NATIVE_DOUBLE, val, (hsize_t)nnz_claim, nnz_claim == nnz},
             {"b", H5T_NATIVE_DOUBLE, b, (hsize_t)rows, 1},
             {"x0", H5T_NATIVE_DOUBLE, x0, (hsize_t)cols, 1},
             {"x", H5T_NATIVE_DOUBLE, x, (hsize_t)cols, 1}};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
        if (i >= 3 && !d[i].data) continue;
        hid_t s = H5Screate_simple(1, &d[i].n, NULL);
        hid_t ds = H5Dcreate2(f, d[i].name, d[i].type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(ds >= 0);
        if (d[i].write && d[i].n > 0)
            CHECK(H5Dwrite(ds, d[i].type, H5S_ALL, H5S_ALL, H5P_DEFAULT, d[i].data) >= 0);
        H5Dclose(ds);
        H5Sclose(s);
    }
    hsize_t two = 2;
    int64_t shape[2] = {rows, cols};
    hid_t s = H5Screate_simple(1, &two, NULL);
    hid_t a = H5Acreate2(f, "shape", H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Awrite(a, H5T_NATIVE_INT64, shape) >= 0);
    H5Aclose(a);
    H5Sclose(s);
    CHECK(H5Fclose(f) >= 0);
}

/* HDF5 files at the index limits. */
static void test_h5_limits(void)
{
    const int64_t ptr[3] = {0, 0, 0};
    gs_csr *A = NULL;
    long live = gs_mem_live();
    /* data and indices declared with 2^31 entries (unwritten: a file of a few kB) */
    write_h5(tpath("nnz231.h5"), 2, 2, (int64_t)1 << 31, ptr, NULL, NULL, 0, NULL, NULL, NULL, 0);
    CHECK_FAIL(gs_h5_read(tpath("nnz231.h5"), NULL, &A, NULL), GS_ERR_UNSUPPORTED,
               "nnz231.h5:/indices has 2147483648 entries: gsolve's 32-bit indices allow at most "
               "2^31 - 1 nonzeros");
    /* shape beyond 2^31: refused from the attribute, before indptr is even opened */
    write_h5(tpath("rows3e9.h5"), 2, 2, 0, ptr, NULL, NULL, 0, NULL, NULL, NULL, 0);
    hid_t f = H5Fopen(tpath("rows3e9.h5"), H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t a = H5Aopen(f, "shape", H5P_DEFAULT);
    int64_t shape[2] = {3000000000LL, 3};
    CHECK(H5Awrite(a, H5T_NATIVE_INT64, shape) >= 0);
    H5Aclose(a);
    H5Fclose(f);
    CHECK_FAIL(gs_h5_read(tpath("rows3e9.h5"), NULL, &A, NULL), GS_ERR_UNSUPPORTED,
               "matrix size 3000000000 x 3 exceeds gsolve's 32-bit indices");
    CHECK(A == NULL);
    CHECK(gs_mem_live() == live);
}

/* A 2 x 2 scipy CSR file whose indptr and indices are stored as float64. */
static void write_h5_float_index(const char *path, const double *ptr, const double *idx)
{
    const double val[2] = {1, 2};
    const double *arrays[3] = {ptr, idx, val};
    const char *names[3] = {"indptr", "indices", "data"};
    const hsize_t len[3] = {3, 2, 2}, two = 2;
    const int64_t shape[2] = {2, 2};
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    for (int i = 0; i < 3; i++) {
        hid_t sp = H5Screate_simple(1, &len[i], NULL);
        hid_t d =
            H5Dcreate2(f, names[i], H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, arrays[i]) >= 0);
        H5Dclose(d);
        H5Sclose(sp);
    }
    hid_t sp = H5Screate_simple(1, &two, NULL);
    hid_t a = H5Acreate2(f, "shape", H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Awrite(a, H5T_NATIVE_INT64, shape) >= 0);
    H5Aclose(a);
    H5Sclose(sp);
    CHECK(H5Fclose(f) >= 0);
}

/* Indices stored as floats must be whole numbers: HDF5's conversion alone would read 1.5 as 1
 * and NaN as 0, a wrong matrix without a word. */
static void test_h5_float_indices(void)
{
    const double ptr[3] = {0, 1, 2}, whole[2] = {0, 1}, half[2] = {0, 1.5}, nan_idx[2] = {NAN, 1};
    const double half_ptr[3] = {0, 0.5, 2};
    gs_csr *A = NULL;
    long live = gs_mem_live();
    write_h5_float_index(tpath("fidx.h5"), ptr, whole);
    CHECK_OK(gs_h5_read(tpath("fidx.h5"), NULL, &A, NULL));
    CHECK(A && A->nnz == 2 && A->colind[0] == 0 && A->colind[1] == 1 && A->val[1] == 2.0);
    gs_csr_destroy(&A);
    write_h5_float_index(tpath("fidx_half.h5"), ptr, half);
    CHECK_FAIL(gs_h5_read(tpath("fidx_half.h5"), NULL, &A, NULL), GS_ERR_INPUT,
               "fidx_half.h5:/indices[1] = 1.5: expected a whole number (an index)");
    write_h5_float_index(tpath("fidx_nan.h5"), ptr, nan_idx);
    CHECK_FAIL(gs_h5_read(tpath("fidx_nan.h5"), NULL, &A, NULL), GS_ERR_INPUT,
               "fidx_nan.h5:/indices[0] = nan: expected a whole number");
    write_h5_float_index(tpath("fptr_half.h5"), half_ptr, whole);
    CHECK_FAIL(gs_h5_read(tpath("fptr_half.h5"), NULL, &A, NULL), GS_ERR_INPUT,
               "fptr_half.h5:/indptr[1] = 0.5: expected a whole number");
    CHECK(A == NULL && gs_mem_live() == live);
}

/* Load the problem of a matrix file (rhs and x0 from the file when there, else as given). */
static gs_status load(const char *path, const char *rhs, gs_problem **p)
{
    gs_config c;
    gs_config_defaults(&c);
    gs_str_copy(c.problem.matrix, sizeof c.problem.matrix, path);
    gs_str_copy(c.problem.rhs, sizeof c.problem.rhs, rhs);
    return gs_problem_load(&c, p);
}

/* NaN or Inf in A, b, x0, x: a clear input error naming the file, the vector and the entry. */
static void test_nonfinite(void)
{
    const int64_t ptr[4] = {0, 2, 3, 4}, idx[4] = {0, 1, 0, 2};
    double val[4] = {4, -1, 4, 4}, b[3] = {1, 1, 1}, x0[3] = {0, 0, 0}, x[3] = {1, 1, 1};
    gs_problem *p = NULL;
    long live = gs_mem_live();
    val[2] = NAN; /* entry (2, 1) */
    write_h5(tpath("A_nan.h5"), 3, 3, 4, ptr, idx, val, 4, NULL, NULL, NULL, 0);
    CHECK_FAIL(load(tpath("A_nan.h5"), "auto", &p), GS_ERR_INPUT,
               "A_nan.h5: entry (2, 1) is nan: the matrix must be finite");
    val[2] = 4;
    b[2] = INFINITY;
    write_h5(tpath("b_inf.h5"), 3, 3, 4, ptr, idx, val, 4, b, NULL, NULL, 0);
    CHECK_FAIL(load(tpath("b_inf.h5"), "auto", &p), GS_ERR_INPUT,
               "b_inf.h5: right-hand side b (file (dataset b)): entry 3 is inf: expected a finite "
               "number");
    b[2] = 1;
    x0[0] = -NAN;
    write_h5(tpath("x0_nan.h5"), 3, 3, 4, ptr, idx, val, 4, b, x0, NULL, 0);
    CHECK_FAIL(load(tpath("x0_nan.h5"), "auto", &p), GS_ERR_INPUT,
               "x0_nan.h5: initial guess x0 (file (dataset x0)): entry 1 is ");
    x0[0] = 0;
    x[1] = -INFINITY;
    write_h5(tpath("x_inf.h5"), 3, 3, 4, ptr, idx, val, 4, b, x0, x, 0);
    CHECK_FAIL(load(tpath("x_inf.h5"), "auto", &p), GS_ERR_INPUT,
               "x_inf.h5: exact solution x (dataset x): entry 2 is -inf: expected a finite number");
    /* b = A*ones overflows */
    CHECK_FAIL(
        load(fixture("ax_ovf.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                   "2 2 3\n1 1 1e308\n1 2 1e308\n2 2 1\n"),
             "Ax", &p),
        GS_ERR_INPUT,
        "ax_ovf.mtx: right-hand side b (Ax (b = A*ones)): entry 1 is inf: expected a finite");
    /* Matrix Market values: refused by the reader, with the line */
    CHECK_FAIL(load(fixture("mm_nan.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                          "2 2 2\n1 1 1\n2 2 NaN\n"),
                    "ones", &p),
               GS_ERR_INPUT, "mm_nan.mtx:4: value 'NaN' is not a finite number");
    CHECK(p == NULL);
    /* finite: loads */
    x[1] = 1;
    write_h5(tpath("ok.h5"), 3, 3, 4, ptr, idx, val, 4, b, x0, x, 0);
    CHECK_OK(load(tpath("ok.h5"), "auto", &p));
    CHECK(p && p->x_exact && strcmp(p->rhs, "file (dataset b)") == 0);
    gs_problem_destroy(&p);
    CHECK(gs_mem_live() == live);
}

/* Found by tests/fuzz: duplicates whose sum overflows came out as Inf from a file of finite
 * numbers; a user block of 4096 bytes or more made an HDF5 file pass for Matrix Market. */
static void test_fuzz_regressions(void)
{
    gs_csr *A = NULL;
    double *x = NULL;
    int64_t n = 0;
    long live = gs_mem_live();
    CHECK_FAIL(gs_mm_read(fixture("dup.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                             "2 2 4\n2 2 1\n1 1 1e308\n2 1 3\n1 1 1e308\n"),
                          &A, NULL),
               GS_ERR_INPUT,
               "dup.mtx: entry (1, 1): its duplicate entries sum to inf, expected a finite number");
    CHECK_FAIL(gs_mm_read(fixture("dupsym.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                                                "2 2 3\n2 1 -1e308\n2 1 -1e308\n1 1 1\n"),
                          &A, NULL),
               GS_ERR_INPUT, "dupsym.mtx: entry (1, 2): its duplicate entries sum to -inf");
    CHECK_FAIL(gs_mm_read_vector(fixture("dupvec.mtx", "%%MatrixMarket matrix coordinate real "
                                                       "general\n3 1 2\n2 1 1e308\n2 1 1e308\n"),
                                 -1, &x, &n),
               GS_ERR_INPUT, "dupvec.mtx: entry 2: its duplicate entries sum to inf");
    /* duplicates with a finite sum are summed */
    CHECK_OK(gs_mm_read(fixture("dupok.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                             "1 1 2\n1 1 1e308\n1 1 -1e308\n"),
                        &A, NULL));
    CHECK(A && A->nnz == 1 && A->val[0] == 0.0);
    gs_csr_destroy(&A);

    const int64_t ptr[3] = {0, 1, 2}, idx[2] = {0, 1};
    const double val[2] = {2, 3};
    char field[16], sym[24], layout[32];
    for (hsize_t ub = 512; ub <= 8192; ub *= 2) {
        char name[64];
        snprintf(name, sizeof name, "ub%llu.h5", (unsigned long long)ub);
        write_h5(tpath(name), 2, 2, 2, ptr, idx, val, 2, NULL, NULL, NULL, ub);
        CHECK_OK(gs_matrix_read(tpath(name), NULL, &A, field, sym, layout));
        CHECK_MSG(A && A->nnz == 2 && strcmp(layout, "hdf5 csr") == 0, "%s: layout %s", name,
                  layout);
        gs_csr_destroy(&A);
    }
    CHECK(gs_mem_live() == live);
}

/* --set values longer than a key can hold are refused, lists included (a list used to be cut
 * short at 1023 characters without a word, dropping its last items). */
static void test_config_lengths(void)
{
    gs_config c;
    char set[2200];
    gs_config_defaults(&c);
    int n = snprintf(set, sizeof set, "batch.formats=");
    while (n < 1100) n += snprintf(set + n, sizeof set - (size_t)n, "csr,");
    snprintf(set + n, sizeof set - (size_t)n, "cds");
    CHECK_FAIL(gs_config_set(&c, set), GS_ERR_CONFIG,
               "--set batch.formats: batch.formats is longer than 1023 characters");
    CHECK(c.batch.formats[0] == '\0');
    n = snprintf(set, sizeof set, "problem.name=");
    while (n < 2000) set[n++] = 'x';
    set[n] = '\0';
    CHECK_FAIL(gs_config_set(&c, set), GS_ERR_CONFIG,
               "--set problem.name: problem.name is longer than 1023 characters");
    CHECK_OK(gs_config_set(&c, "batch.formats=[csr, \"cds\"]"));
    CHECK(strcmp(c.batch.formats, "csr,cds") == 0);
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    CHECK(mkdtemp(g_dir) != NULL);
    cap_memory();
    test_mm_limits();
    test_h5_limits();
    test_h5_float_indices();
    test_nonfinite();
    test_fuzz_regressions();
    test_config_lengths();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    CHECK(system(cmd) == 0);
    return gs_test_result("test_io_faults");
}

/* Formats users hand over (argv[1]: tests/data/formats, made by make_formats.py; argv[2]: a
 * scratch folder): scipy.sparse save_npz files (csr deflated, csc stored with int64 indices,
 * coo with float32 values) read as the 6 x 6 grid Laplacian exactly, bsr refused; every prefix
 * and every one-byte corruption of a .npz file read without a crash; .npy vectors of int32,
 * big-endian float64 and int64, float32 in Fortran order read exactly, complex refused naming
 * the dtype; hypre IJ matrix and vector files written and read back bit for bit, one file per
 * rank too; a problem loaded from them; a format's reason cut only after a whole word. */
#include <math.h>
#include <unistd.h>

#include "gs_config.h"
#include "gs_ij.h"
#include "gs_mem.h"
#include "gs_npy.h"
#include "gs_npz.h"
#include "gs_problem.h"
#include "gs_select.h"
#include "gs_test.h"

#define G 6
#define N (G * G)

static const char *dir, *tmp;

/* a_ij of the 5-point Laplacian of the G x G grid */
static double lap(int i, int j)
{
    int xi = i % G, yi = i / G, xj = j % G, yj = j / G;
    if (i == j) return 4.0;
    return abs(xi - xj) + abs(yi - yj) == 1 ? -1.0 : 0.0;
}

/* b = A x_ref, x_ref[i] = (i % 7) - 3 */
static double rhs(int i)
{
    double s = 0.0;
    for (int j = 0; j < N; j++) s += lap(i, j) * ((j % 7) - 3.0);
    return s;
}

static const char *at(const char *folder, const char *name)
{
    static char buf[4][1024];
    static int k;
    char *b = buf[k++ & 3];
    snprintf(b, sizeof buf[0], "%s/%s", folder, name);
    return b;
}

/* A must be the Laplacian, entry for entry */
static void check_lap(const gs_csr *A, const char *what)
{
    int bad = 0;
    CHECK_MSG(A && A->rows == N && A->cols == N && A->nnz == 156, "%s", what);
    for (int32_t i = 0; A && i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            bad += A->val[k] != lap(i, A->colind[k]) || A->val[k] == 0.0;
    CHECK_MSG(bad == 0, "%s: %d entries differ", what, bad);
}

static void npz_files(void)
{
    static const char *const files[] = {"A_csr.npz", "A_csc.npz", "A_coo.npz"};
    static const char *const layouts[] = {"npz csr", "npz csc", "npz coo"};
    char layout[32];
    gs_csr *A = NULL;
    for (int f = 0; f < 3; f++) {
        CHECK(gs_npz_is_npz(at(dir, files[f])));
        CHECK_OK(gs_matrix_read(at(dir, files[f]), "", &A, NULL, NULL, layout));
        check_lap(A, files[f]);
        CHECK_MSG(strcmp(layout, layouts[f]) == 0, "%s", layout);
        gs_csr_destroy(&A);
    }
    CHECK_FAIL(gs_npz_read(at(dir, "A_bsr.npz"), &A, NULL), GS_ERR_UNSUPPORTED,
               "A_bsr.npz:format.npy says 'bsr': expected csr, csc or coo");
    CHECK_FAIL(gs_npz_read(at(dir, "x_ref.npy"), &A, NULL), GS_ERR_INPUT,
               "x_ref.npy: no zip end of central directory record");
    CHECK(A == NULL);
}

/* every prefix and every byte changed of a .npz: an error naming the file, or a valid matrix */
static void npz_damaged(const char *name)
{
    unsigned char *img = NULL;
    size_t len = 0;
    FILE *f = fopen(at(dir, name), "rb");
    CHECK(f != NULL);
    if (!f) return;
    img = malloc(1 << 16);
    len = fread(img, 1, 1 << 16, f);
    fclose(f);
    const char *out = at(tmp, "damaged.npz");
    long live = gs_mem_live();
    int refused = 0, accepted = 0;
    for (size_t cut = 0; cut < 2 * len; cut++) {
        size_t n = cut < len ? cut : len;
        unsigned char save = 0;
        if (cut >= len) save = img[cut - len], img[cut - len] ^= (unsigned char)(0x5a + cut);
        FILE *w = fopen(out, "wb");
        fwrite(img, 1, n, w);
        fclose(w);
        if (cut >= len) img[cut - len] = save;
        gs_csr *A = NULL;
        gs_error_clear();
        gs_status st = gs_npz_read(out, &A, NULL);
        if (st == GS_OK) {
            accepted++;
            CHECK(A && A->rows == N && A->nnz <= 156);
        } else {
            refused++;
            CHECK_MSG(strstr(gs_error_message(), "damaged.npz") != NULL, "%s", gs_error_message());
        }
        gs_csr_destroy(&A);
    }
    gs_error_clear();
    CHECK_MSG(gs_mem_live() == live, "%ld blocks left", gs_mem_live() - live);
    CHECK_MSG(refused >= (int)len, "%s: %d refused, %d accepted", name, refused, accepted);
    free(img);
    unlink(out);
}

static void npy_dtypes(void)
{
    static const char *const files[] = {"Ab_i4.npy", "Ab_f8_be.npy", "Ab_i8_be.npy"};
    double *v = NULL;
    int64_t rows = 0, cols = 0;
    int cm = 0;
    for (int f = 0; f < 3; f++) {
        CHECK_OK(gs_npy_read(at(dir, files[f]), &v, &rows, &cols, &cm));
        int bad = 0;
        for (int i = 0; v && i < N; i++) bad += v[i] != rhs(i);
        CHECK_MSG(v && rows == N && cols == 1 && bad == 0, "%s: %d differ", files[f], bad);
        gs_free(v);
    }
    CHECK_OK(gs_npy_read(at(dir, "B_f4_f.npy"), &v, &rows, &cols, &cm));
    int bad = 0;
    for (int j = 0; v && j < 3; j++)
        for (int i = 0; i < N; i++) bad += v[j * N + i] != 100.0 * j + i;
    CHECK_MSG(v && rows == N && cols == 3 && cm == 1 && bad == 0, "B_f4_f.npy: %d differ", bad);
    gs_free(v);
    CHECK_FAIL(gs_npy_read(at(dir, "c16.npy"), &v, &rows, &cols, &cm), GS_ERR_INPUT,
               "c16.npy: dtype '<c16' (complex128, little-endian): complex values are not "
               "supported");
    CHECK(v == NULL);
}

/* IJ: a matrix of awkward values and a vector written and read back bit for bit */
static void ij_round_trip(void)
{
    int32_t ri[] = {0, 0, 1, 2, 2, 3}, ci[] = {0, 3, 1, 0, 2, 3};
    double val[] = {1.0 / 3.0, -2.5e17, 4.9e-324, -0.1, 1e300, 7.0};
    double x[] = {0.1, -1.0 / 7.0, 0.0, 6.02214076e23}, *y = NULL;
    gs_csr *A = NULL, *B = NULL;
    int64_t n = 0;
    CHECK_OK(gs_csr_from_coo(4, 4, 6, ri, ci, val, &A));
    CHECK_OK(gs_ij_write(at(tmp, "rt.ij.00000"), A));
    CHECK_OK(gs_ij_write_vector(at(tmp, "rt_b.ij.00000"), x, 4));
    CHECK(gs_ij_is_ij(at(tmp, "rt.ij")) && gs_ij_is_ij(at(tmp, "rt.ij.00000")));
    CHECK_OK(gs_ij_read(at(tmp, "rt.ij"), &B));
    CHECK(B && B->rows == 4 && B->cols == 4 && B->nnz == 6 &&
          memcmp(A->rowptr, B->rowptr, 5 * sizeof(int32_t)) == 0 &&
          memcmp(A->colind, B->colind, 6 * sizeof(int32_t)) == 0 &&
          memcmp(A->val, B->val, 6 * sizeof(double)) == 0);
    gs_csr_destroy(&B);
    CHECK_OK(gs_ij_read(at(tmp, "rt.ij.00000"), &B)); /* a rank's file names the set */
    CHECK(B && B->nnz == 6);
    gs_csr_destroy(&B);
    CHECK_OK(gs_ij_read_vector(at(tmp, "rt_b.ij"), 4, &y, &n));
    CHECK(y && n == 4 && memcmp(x, y, sizeof x) == 0);
    gs_free(y);
    y = NULL;
    CHECK_FAIL(gs_ij_read_vector(at(tmp, "rt_b.ij"), 5, &y, &n), GS_ERR_INPUT,
               "rt_b.ij: an IJ vector of 4 entries; the matrix has 5 rows");
    gs_csr_destroy(&A);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* two ranks' files; the errors name file and line */
static void ij_files(void)
{
    gs_csr *A = NULL;
    write_text(at(tmp, "two.ij.00000"), "0 1 0 1\n0 0 2\n0 2 -1\n1 1 2\n");
    write_text(at(tmp, "two.ij.00001"), "2 2 2 2\n2 0 -1\n2 2 2\n2 2 0.5\n");
    CHECK_OK(gs_ij_read(at(tmp, "two.ij"), &A));
    CHECK(A && A->rows == 3 && A->cols == 3 && A->nnz == 5 && A->val[A->nnz - 1] == 2.5);
    gs_csr_destroy(&A);
    write_text(at(tmp, "gap.ij.00000"), "0 1 0 1\n0 0 2\n");
    write_text(at(tmp, "gap.ij.00001"), "3 4 3 4\n3 3 2\n");
    CHECK_FAIL(gs_ij_read(at(tmp, "gap.ij"), &A), GS_ERR_INPUT,
               "gap.ij.00001:1: range 3..4: expected rows from 2");
    write_text(at(tmp, "bad.ij.00000"), "0 1 0 1\n0 0 2\n1 x 2\n");
    CHECK_FAIL(gs_ij_read(at(tmp, "bad.ij"), &A), GS_ERR_INPUT,
               "bad.ij.00000:3: expected \"i j value\" (0-based indices), got \"1 x 2\"");
    write_text(at(tmp, "row.ij.00000"), "0 1 0 1\n5 0 2\n");
    CHECK_FAIL(gs_ij_read(at(tmp, "row.ij"), &A), GS_ERR_INPUT,
               "row.ij.00000:2: row 5 outside this file's range 0..1");
    CHECK_FAIL(gs_ij_read(at(tmp, "none.ij"), &A), GS_ERR_IO, "cannot open '");
    CHECK(A == NULL);
}

/* a whole problem: A from .npz, b from an int32 .npy; then from the IJ files of it */
static void problems(void)
{
    gs_config *c = calloc(1, sizeof *c);
    gs_problem *p = NULL;
    char set[3][1200];
    gs_config_defaults(c);
    snprintf(set[0], sizeof set[0], "problem.matrix=%s", at(dir, "A_csc.npz"));
    snprintf(set[1], sizeof set[1], "problem.rhs=%s", at(dir, "Ab_i4.npy"));
    CHECK_OK(gs_config_set(c, set[0]));
    CHECK_OK(gs_config_set(c, set[1]));
    CHECK_OK(gs_problem_load(c, &p));
    if (p) {
        check_lap(p->A, "problem.matrix A_csc.npz");
        int bad = 0;
        for (int i = 0; i < N; i++) bad += p->b[i] != rhs(i);
        CHECK_MSG(bad == 0 && strcmp(p->layout, "npz csc") == 0 && strcmp(p->name, "A_csc") == 0,
                  "%d, %s, %s", bad, p->layout, p->name);
        CHECK_OK(gs_ij_write(at(tmp, "p.ij.00000"), p->A));
        CHECK_OK(gs_ij_write_vector(at(tmp, "p_b.ij.00000"), p->b, N));
    }
    gs_problem_destroy(&p);
    gs_config_defaults(c);
    snprintf(set[0], sizeof set[0], "problem.matrix=%s", at(tmp, "p.ij"));
    snprintf(set[1], sizeof set[1], "problem.rhs=%s", at(tmp, "p_b.ij"));
    CHECK_OK(gs_config_set(c, set[0]));
    CHECK_OK(gs_config_set(c, set[1]));
    CHECK_OK(gs_problem_load(c, &p));
    if (p) {
        check_lap(p->A, "problem.matrix p.ij");
        int bad = 0;
        for (int i = 0; i < N; i++) bad += p->b[i] != rhs(i);
        CHECK_MSG(bad == 0 && strcmp(p->layout, "hypre ij") == 0, "%d %s", bad, p->layout);
        CHECK_MSG(strcmp(p->rhs, "file (hypre ij)") == 0, "%s", p->rhs);
    }
    gs_problem_destroy(&p);
    free(c);
}

/* a reason too long for its buffer is cut after a whole word, marked " ..." */
static void reason_append(void)
{
    char buf[32] = "forced: ", whole[64] = "a";
    gs_select_reason_append(buf, sizeof buf, "cds refused with 231.8% padding exceeding");
    CHECK_MSG(strcmp(buf, "forced: cds refused with ...") == 0, "'%s'", buf);
    gs_select_reason_append(whole, sizeof whole, " whole");
    CHECK_MSG(strcmp(whole, "a whole") == 0, "'%s'", whole);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DATA_FOLDER SCRATCH_FOLDER\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    tmp = argv[2];
    npz_files();
    npz_damaged("A_csr.npz");
    npz_damaged("A_csc.npz");
    npy_dtypes();
    ij_round_trip();
    ij_files();
    problems();
    reason_append();
    return gs_test_result("test_formats");
}

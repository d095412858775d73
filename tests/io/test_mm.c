/* test_mm.c: Matrix Market reader and writer: valid files (exact CSR arrays), every kind of bad
 * input (status and "file:line" message), gzip, bit-exact numbers, round trips, allocation
 * failures, random mutations, and (with GS_MATRICES) the shared real-world and parser files. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "gs_mm.h"
#include "gs_test.h"

static char g_dir[256];

/* Path of a fixture in the temp dir (one of a few rotating buffers). */
static const char *tmp_path(const char *name)
{
    static char bufs[8][512];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, 512, "%s/%s", g_dir, name);
    return b;
}

/* Write n bytes to path. */
static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *fp = fopen(path, "wb");
    CHECK_MSG(fp != NULL, "cannot create %s", path);
    if (!fp) return;
    CHECK(fwrite(data, 1, n, fp) == n);
    fclose(fp);
}

/* Write a text fixture and return its path. */
static const char *fixture(const char *name, const char *text)
{
    const char *path = tmp_path(name);
    write_bytes(path, text, strlen(text));
    return path;
}

/* Write text gzip-compressed to path. */
static void write_gz(const char *path, const char *text)
{
    gzFile gz = gzopen(path, "wb9");
    CHECK(gz != NULL);
    if (!gz) return;
    CHECK(gzwrite(gz, text, (unsigned)strlen(text)) == (int)strlen(text));
    CHECK(gzclose(gz) == Z_OK);
}

/* Read a whole file into a malloc'ed buffer. */
static char *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    *n = fread(b, 1, (size_t)len, fp);
    fclose(fp);
    return b;
}

/* A's arrays must equal the given ones exactly. */
static void check_csr(const gs_csr *A, int rows, int cols, int nnz, const int32_t *rp,
                      const int32_t *ci, const double *v)
{
    CHECK(A != NULL);
    if (!A) return;
    CHECK_MSG(A->rows == rows && A->cols == cols && A->nnz == nnz, "%d x %d nnz %d", A->rows,
              A->cols, A->nnz);
    if (A->rows != rows || A->nnz != nnz) return;
    for (int i = 0; i <= rows; i++) CHECK_MSG(A->rowptr[i] == rp[i], "rowptr[%d]", i);
    for (int k = 0; k < nnz; k++) {
        CHECK_MSG(A->colind[k] == ci[k], "colind[%d] = %d, expected %d", k, A->colind[k], ci[k]);
        CHECK_MSG(A->val[k] == v[k], "val[%d] = %.17g, expected %.17g", k, A->val[k], v[k]);
    }
}

/* Read path; must succeed. */
static gs_csr *read_ok(const char *path, gs_mm_info *info)
{
    gs_csr *A = NULL;
    CHECK_OK(gs_mm_read(path, &A, info));
    return A;
}

static void test_symmetric(void)
{
    const char *p = fixture("sym.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                                       "% a comment\n3 3 4\n1 1 2.0\n2 1 -1\n3 2 .5\n3 3 4\n");
    gs_mm_info info;
    gs_csr *A = read_ok(p, &info);
    const int32_t rp[] = {0, 2, 4, 6}, ci[] = {0, 1, 0, 2, 1, 2};
    const double v[] = {2.0, -1.0, -1.0, 0.5, 0.5, 4.0};
    check_csr(A, 3, 3, 6, rp, ci, v);
    CHECK(strcmp(info.object, "matrix") == 0 && strcmp(info.format, "coordinate") == 0);
    CHECK(strcmp(info.field, "real") == 0 && strcmp(info.symmetry, "symmetric") == 0);
    CHECK(info.rows == 3 && info.cols == 3 && info.entries == 4);
    gs_csr_destroy(&A);

    /* real hermitian is the same thing as real symmetric */
    p = fixture("herm.mtx", "%%MatrixMarket matrix coordinate real hermitian\n3 3 3\n"
                            "1 1 2.0\n2 1 -1\n3 2 .5\n");
    A = read_ok(p, NULL);
    const int32_t rp2[] = {0, 2, 4, 5}, ci2[] = {0, 1, 0, 2, 1};
    const double v2[] = {2.0, -1.0, -1.0, 0.5, 0.5};
    check_csr(A, 3, 3, 5, rp2, ci2, v2);
    gs_csr_destroy(&A);
}

static void test_skew_pattern_integer(void)
{
    const char *p = fixture("skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                                        "3 3 2\n2 1 3\n3 1 -1.5\n");
    gs_csr *A = read_ok(p, NULL);
    const int32_t rp[] = {0, 2, 3, 4}, ci[] = {1, 2, 0, 0};
    const double v[] = {-3.0, 1.5, 3.0, -1.5};
    check_csr(A, 3, 3, 4, rp, ci, v);
    gs_csr_destroy(&A);

    p = fixture("pat.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n"
                           "2 3\n1 1\n2 1\n");
    A = read_ok(p, NULL);
    const int32_t rp2[] = {0, 1, 3}, ci2[] = {0, 0, 2};
    const double v2[] = {1, 1, 1};
    check_csr(A, 2, 3, 3, rp2, ci2, v2);
    gs_csr_destroy(&A);

    p = fixture("patsorted.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n"
                                 "1 1\n2 1\n2 3\n");
    A = read_ok(p, NULL);
    check_csr(A, 2, 3, 3, rp2, ci2, v2);
    gs_csr_destroy(&A);

    p = fixture("patsym.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n"
                              "3 1\n2 2\n");
    A = read_ok(p, NULL);
    const int32_t rp3[] = {0, 1, 2, 3}, ci3[] = {2, 1, 0};
    check_csr(A, 3, 3, 3, rp3, ci3, v2);
    gs_csr_destroy(&A);

    p = fixture("int.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 3\n"
                           "1 1 8589934592\n2 2 -7\n3 3 +12\n");
    A = read_ok(p, NULL);
    const int32_t rp4[] = {0, 1, 2, 3}, ci4[] = {0, 1, 2};
    const double v4[] = {8589934592.0, -7.0, 12.0};
    check_csr(A, 3, 3, 3, rp4, ci4, v4);
    gs_csr_destroy(&A);
}

static void test_array(void)
{
    /* 2 x 3 column-major; the zero is not stored */
    const char *p = fixture("arr.mtx", "%%MatrixMarket matrix array real general\n2 3\n"
                                       "1\n4\n2\n0\n3\n6\n");
    gs_mm_info info;
    gs_csr *A = read_ok(p, &info);
    const int32_t rp[] = {0, 3, 5}, ci[] = {0, 1, 2, 0, 2};
    const double v[] = {1, 2, 3, 4, 6};
    check_csr(A, 2, 3, 5, rp, ci, v);
    CHECK(strcmp(info.format, "array") == 0 && info.entries == 6);
    gs_csr_destroy(&A);

    /* symmetric: lower triangle by columns: a11 a21 a31 a22 a32 a33 */
    p = fixture("arrsym.mtx", "%%MatrixMarket matrix array real symmetric\n3 3\n"
                              "1\n2\n3\n4\n0\n6\n");
    A = read_ok(p, NULL);
    const int32_t rp2[] = {0, 3, 5, 7}, ci2[] = {0, 1, 2, 0, 1, 0, 2};
    const double v2[] = {1, 2, 3, 2, 4, 3, 6};
    check_csr(A, 3, 3, 7, rp2, ci2, v2);
    gs_csr_destroy(&A);

    /* skew: strictly lower triangle a21 a31 a32 */
    p = fixture("arrskew.mtx", "%%MatrixMarket matrix array integer skew-symmetric\n3 3\n"
                               "1\n2\n3\n");
    A = read_ok(p, NULL);
    const int32_t rp3[] = {0, 2, 4, 6}, ci3[] = {1, 2, 0, 2, 0, 1};
    const double v3[] = {-1, -2, 1, -3, 2, 3};
    check_csr(A, 3, 3, 6, rp3, ci3, v3);
    gs_csr_destroy(&A);
}

static void test_free_format(void)
{
    /* leading blanks before the banner, mixed case, tabs, CRLF, comments and blank lines
     * inside the data, duplicates, no final newline */
    const char *p = fixture("free.mtx", "  \t%%MatrixMarket Matrix COORDINATE Real GENERAL\r\n"
                                        "%comment\r\n\r\n  \t\r\n 3\t3  5 \r\n"
                                        "\n1 1 1.5\r\n% inside\r\n\t2   3\t-2\r\n   \r\n"
                                        "1 1 .25\n3 1 1e-3\n  1  1  -.25E+02");
    gs_csr *A = read_ok(p, NULL);
    const int32_t rp[] = {0, 1, 2, 3}, ci[] = {0, 2, 0};
    const double v[] = {1.5 + 0.25 - 25.0, -2.0, 1e-3};
    check_csr(A, 3, 3, 3, rp, ci, v);
    gs_csr_destroy(&A);

    /* empty matrix, and a 0 x 0 one */
    A = read_ok(fixture("empty.mtx", "%%MatrixMarket matrix coordinate real general\n3 4 0\n"),
                NULL);
    const int32_t rp0[] = {0, 0, 0, 0};
    check_csr(A, 3, 4, 0, rp0, NULL, NULL);
    gs_csr_destroy(&A);
    A = read_ok(fixture("zero.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n"),
                NULL);
    check_csr(A, 0, 0, 0, rp0, NULL, NULL);
    gs_csr_destroy(&A);
}

static void test_numbers(void)
{
    const char *p = fixture("num.mtx", "%%MatrixMarket matrix array real general\n12 1\n"
                                       ".5\n1e-3\n-.25E+02\n5.\n+7\n-0\n1E5\n4294967296\n"
                                       "123456789012345678901234567890\n0x1p3\n"
                                       "0.1000000000000000055511151231257827\n"
                                       "4.9406564584124654e-324\n");
    double *x = NULL;
    int64_t n = 0;
    CHECK_OK(gs_mm_read_vector(p, 12, &x, &n));
    CHECK(n == 12);
    if (x && n == 12) {
        CHECK(x[0] == 0.5 && x[1] == 1e-3 && x[2] == -25.0 && x[3] == 5.0 && x[4] == 7.0);
        CHECK(x[5] == 0.0 && signbit(x[5]) && x[6] == 1e5 && x[7] == 4294967296.0);
        CHECK(x[8] == 123456789012345678901234567890.0 && x[9] == 8.0 && x[10] == 0.1);
        CHECK(x[11] == 4.9406564584124654e-324);
    }
    gs_free(x);
}

static uint64_t g_rng = 0x9E3779B97F4A7C15ULL;

/* xorshift64*: deterministic random bits. */
static uint64_t rnd(void)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ULL;
}

/* A random number token in one of many spellings. */
static void random_token(char *t, size_t cap)
{
    uint64_t r = rnd();
    double x;
    memcpy(&x, &r, sizeof x);
    if (!isfinite(x)) x = (double)(r >> 11) / 9007199254740992.0;
    switch (rnd() % 10) {
    case 0: snprintf(t, cap, "%.17g", x); break;
    case 1: snprintf(t, cap, "%.16g", (double)(rnd() >> 11) * 1e-3); break;
    case 2: snprintf(t, cap, "%.15g", (double)(rnd() >> 20) / 1024.0); break;
    case 3: snprintf(t, cap, "%.6e", x); break;
    case 4: snprintf(t, cap, "%.25e", (double)(rnd() % 1000000) * 1e-7); break;
    case 5: snprintf(t, cap, "%lld", (long long)(rnd() >> (rnd() % 64))); break;
    case 6: snprintf(t, cap, "%llu", (unsigned long long)(rnd() % 20000000000000000ULL)); break;
    default: { /* random digits, point and exponent */
        size_t n = 0;
        if (rnd() % 3 == 0) t[n++] = "-+"[rnd() % 2];
        int nd = 1 + (int)(rnd() % 22), dot = (int)(rnd() % (nd + 1));
        for (int i = 0; i < nd; i++) {
            if (i == dot) t[n++] = '.';
            t[n++] = (char)('0' + rnd() % 10);
        }
        if (rnd() % 2) n += (size_t)snprintf(t + n, cap - n, "e%d", (int)(rnd() % 70) - 35);
        t[n] = '\0';
        if (strcmp(t, ".") == 0) strcpy(t, "0");
    }
    }
}

/* The parser must agree bit for bit with strtod on many kinds of numbers. */
static void test_bit_exact(void)
{
    enum { N = 20000 };
    size_t cap = (size_t)N * 48 + 100, len = 0;
    char *text = malloc(cap);
    static char toks[N][40];
    len += (size_t)snprintf(text, cap, "%%%%MatrixMarket matrix array real general\n%d 1\n", N);
    for (int i = 0; i < N; i++) {
        random_token(toks[i], sizeof toks[i]);
        len += (size_t)snprintf(text + len, cap - len, "%s\n", toks[i]);
    }
    const char *p = tmp_path("bits.mtx");
    write_bytes(p, text, len);
    double *x = NULL;
    int64_t n = 0;
    CHECK_OK(gs_mm_read_vector(p, N, &x, &n));
    int bad = 0;
    for (int i = 0; x && i < N; i++) {
        double y = strtod(toks[i], NULL);
        if (memcmp(&x[i], &y, sizeof y) != 0 && bad++ < 5)
            CHECK_MSG(0, "'%s' read as %.17g, strtod gives %.17g", toks[i], x[i], y);
    }
    CHECK(bad == 0);
    gs_free(x);
    free(text);
}

/* Write then read must give back the same bits. */
static void test_round_trip(void)
{
    const int n = 40, nnz = 200;
    int32_t *ri = malloc(nnz * sizeof *ri), *ci = malloc(nnz * sizeof *ci);
    double *v = malloc(nnz * sizeof *v);
    for (int k = 0; k < nnz; k++) {
        uint64_t r = rnd();
        ri[k] = (int32_t)(rnd() % n);
        ci[k] = (int32_t)(rnd() % n);
        memcpy(&v[k], &r, sizeof r);
        if (!isfinite(v[k])) v[k] = (double)(int64_t)r;
        if (k % 7 == 0) v[k] = (double)(int)(rnd() % 2001) - 1000;
    }
    v[1] = -0.0, v[2] = 5e-324, v[3] = 1.7976931348623157e308, v[4] = 0.1, v[5] = -1e15;
    gs_csr *A = NULL, *B = NULL;
    CHECK_OK(gs_csr_from_coo(n, n + 3, nnz, ri, ci, v, &A));
    const char *paths[2] = {tmp_path("rt.mtx"), tmp_path("rt.mtx.gz")};
    for (int t = 0; t < 2 && A; t++) {
        CHECK_OK(gs_mm_write(paths[t], A));
        B = read_ok(paths[t], NULL);
        CHECK(B && B->rows == A->rows && B->cols == A->cols && B->nnz == A->nnz);
        if (B && B->nnz == A->nnz) {
            CHECK(memcmp(A->rowptr, B->rowptr, ((size_t)n + 1) * sizeof(int32_t)) == 0);
            CHECK(memcmp(A->colind, B->colind, (size_t)A->nnz * sizeof(int32_t)) == 0);
            CHECK(memcmp(A->val, B->val, (size_t)A->nnz * sizeof(double)) == 0);
        }
        gs_csr_destroy(&B);
    }
    gs_csr_destroy(&A);

    double *y = NULL;
    int64_t m = 0;
    CHECK_OK(gs_mm_write_vector(tmp_path("rtv.mtx"), v, nnz));
    CHECK_OK(gs_mm_read_vector(tmp_path("rtv.mtx"), nnz, &y, &m));
    CHECK(m == nnz && y && memcmp(y, v, (size_t)nnz * sizeof *v) == 0);
    gs_free(y);
    free(ri), free(ci), free(v);
}

/* A .gz file reads exactly like the plain one; a truncated or corrupt one is refused. */
static void test_gzip(void)
{
    char text[4096];
    size_t len = (size_t)snprintf(text, sizeof text, "%s",
                                  "%%MatrixMarket matrix coordinate real general\n% gz\n"
                                  "30 30 60\n");
    for (int k = 0; k < 60; k++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%d %d %.17g\n", 1 + k % 30,
                                1 + (k * 7) % 30, 1.0 / (k + 1));
    const char *plain = fixture("g.mtx", text), *gz = tmp_path("g.mtx.gz");
    write_gz(gz, text);
    gs_csr *A = read_ok(plain, NULL), *B = read_ok(gz, NULL);
    CHECK(A && B && A->nnz == B->nnz && A->nnz == 30); /* duplicates summed */
    if (A && B && A->nnz == B->nnz) {
        CHECK(memcmp(A->rowptr, B->rowptr, 31 * sizeof(int32_t)) == 0);
        CHECK(memcmp(A->colind, B->colind, (size_t)A->nnz * sizeof(int32_t)) == 0);
        CHECK(memcmp(A->val, B->val, (size_t)A->nnz * sizeof(double)) == 0);
    }
    gs_csr_destroy(&A);
    gs_csr_destroy(&B);

    size_t n = 0;
    char *bytes = slurp(gz, &n);
    CHECK(bytes && n > 40);
    if (!bytes) return;
    const char *cut = tmp_path("cut.mtx.gz");
    write_bytes(cut, bytes, n / 2);
    CHECK_FAIL(gs_mm_read(cut, &A, NULL), GS_ERR_IO, "truncated gzip");
    CHECK_FAIL(gs_mm_read(cut, &A, NULL), GS_ERR_IO, "cut.mtx.gz");
    write_bytes(cut, bytes, n - 4); /* only the length trailer missing */
    CHECK_FAIL(gs_mm_read(cut, &A, NULL), GS_ERR_IO, "cannot read");
    bytes[n / 2] ^= 0x55; /* corrupt deflate data */
    write_bytes(cut, bytes, n);
    CHECK_FAIL(gs_mm_read(cut, &A, NULL), GS_ERR_IO, "cut.mtx.gz");
    CHECK(A == NULL);
    free(bytes);
}

static void test_vectors(void)
{
    double *x = NULL;
    int64_t n = -1;
    const char *p = fixture("v1.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\n-2\n3\n");
    CHECK_OK(gs_mm_read_vector(p, -1, &x, &n));
    CHECK(n == 3 && x && x[0] == 1 && x[1] == -2 && x[2] == 3);
    gs_free(x), x = NULL;
    CHECK_FAIL(gs_mm_read_vector(p, 4, &x, &n), GS_ERR_INPUT,
               "v1.mtx: vector has 3 entries, the matrix has 4 rows");

    p = fixture("v2.mtx", "%%MatrixMarket matrix coordinate real general\n5 1 3\n"
                          "4 1 2.5\n2 1 1\n4 1 .5\n");
    CHECK_OK(gs_mm_read_vector(p, 5, &x, &n));
    CHECK(n == 5 && x && x[0] == 0 && x[1] == 1 && x[2] == 0 && x[3] == 3.0 && x[4] == 0);
    gs_free(x), x = NULL;

    p = fixture("v3.mtx", "%%MatrixMarket vector coordinate real general\n4 3\n1 101\n"
                          "4 202\n4 1\n");
    CHECK_OK(gs_mm_read_vector(p, 4, &x, &n));
    CHECK(n == 4 && x && x[0] == 101 && x[1] == 0 && x[3] == 203);
    gs_free(x), x = NULL;
    gs_mm_info info;
    gs_csr *A = read_ok(p, &info); /* as a matrix: n x 1 */
    CHECK(A && A->rows == 4 && A->cols == 1 && A->nnz == 2 && strcmp(info.object, "vector") == 0);
    gs_csr_destroy(&A);

    p = fixture("v4.mtx", "%%MatrixMarket vector array integer general\n3\n7\n8\n9\n");
    CHECK_OK(gs_mm_read_vector(p, 3, &x, &n));
    CHECK(n == 3 && x && x[0] == 7 && x[1] == 8 && x[2] == 9);
    gs_free(x), x = NULL;

    p = fixture("v5.mtx", "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n");
    CHECK_FAIL(gs_mm_read_vector(p, -1, &x, &n), GS_ERR_INPUT, "v5.mtx:2: expected a vector");
    CHECK_FAIL(gs_mm_read_vector(p, -1, &x, &n), GS_ERR_INPUT, "2 x 3");
    p = fixture("v6.mtx", "%%MatrixMarket vector coordinate real general\n4 2\n0 1\n1 1\n");
    CHECK_FAIL(gs_mm_read_vector(p, -1, &x, &n), GS_ERR_INPUT, "v6.mtx:3: index 0 out of range");
    CHECK(x == NULL);
}

/* One bad file: status and a message part. */
typedef struct bad_case {
    const char *name, *text;
    gs_status st;
    const char *msg;
} bad_case;

static void test_bad_inputs(void)
{
    static const bad_case cases[] = {
        {"b_banner.mtx", "%%MatrixMarkt matrix coordinate real general\n1 1 0\n", GS_ERR_INPUT,
         "b_banner.mtx:1: bad banner: expected '%%MatrixMarket matrix coordinate|array "
         "real|integer|pattern general|symmetric|skew-symmetric'"},
        {"b_nobanner.mtx", "3 3 1\n1 1 1\n", GS_ERR_INPUT, "b_nobanner.mtx:1: bad banner"},
        {"b_empty.mtx", "", GS_ERR_INPUT, "b_empty.mtx:1: bad banner"},
        {"b_short.mtx", "%%MatrixMarket matrix array real", GS_ERR_INPUT,
         "b_short.mtx:1: bad banner"},
        {"b_words.mtx", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n",
         GS_ERR_INPUT, "b_words.mtx:1: bad banner"},
        {"b_obj.mtx", "%%MatrixMarket tensor coordinate real general\n1 1 0\n", GS_ERR_INPUT,
         "b_obj.mtx:1: bad banner: unknown object 'tensor'"},
        {"b_fmt.mtx", "%%MatrixMarket matrix sparse real general\n1 1 0\n", GS_ERR_INPUT,
         "b_fmt.mtx:1: bad banner: unknown format 'sparse'"},
        {"b_field.mtx", "%%MatrixMarket matrix coordinate double general\n1 1 0\n", GS_ERR_INPUT,
         "b_field.mtx:1: bad banner: unknown field 'double'"},
        {"b_sym.mtx", "\n%%MatrixMarket matrix coordinate real symmetrical\n1 1 0\n", GS_ERR_INPUT,
         "b_sym.mtx:2: bad banner: unknown symmetry 'symmetrical'"},
        {"b_arrpat.mtx", "%%MatrixMarket matrix array pattern general\n1 1\n", GS_ERR_INPUT,
         "b_arrpat.mtx:1: bad banner: the array format cannot have field 'pattern'"},
        {"b_vecsym.mtx", "%%MatrixMarket vector coordinate real symmetric\n2 1\n1 1\n",
         GS_ERR_INPUT, "b_vecsym.mtx:1: bad banner: a vector cannot be 'symmetric'"},
        {"b_complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
         GS_ERR_UNSUPPORTED,
         "b_complex.mtx:1: complex matrices (field 'complex', symmetry "
         "'general') are not supported"},
        {"b_herm.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n1 1 1\n1 1 1 0\n",
         GS_ERR_UNSUPPORTED, "symmetry 'hermitian') are not supported"},
        {"b_nosize.mtx", "%%MatrixMarket matrix coordinate real general\n% c\n%\n\n", GS_ERR_INPUT,
         "b_nosize.mtx:5: size line missing"},
        {"b_negsize.mtx", "%%MatrixMarket matrix coordinate real general\n%\n-3 3 3\n",
         GS_ERR_INPUT, "b_negsize.mtx:3: negative size -3"},
        {"b_negnnz.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 -1\n", GS_ERR_INPUT,
         "b_negnnz.mtx:2: negative size -1"},
        {"b_size2.mtx", "%%MatrixMarket matrix coordinate real general\n3 3\n1 1 1\n", GS_ERR_INPUT,
         "b_size2.mtx:2: bad size line '3 3': expected 'rows cols entries'"},
        {"b_size4.mtx", "%%MatrixMarket matrix array real general\n3 3 9\n", GS_ERR_INPUT,
         "b_size4.mtx:2: bad size line '3 3 9': expected 'rows cols'"},
        {"b_sizex.mtx", "%%MatrixMarket matrix coordinate real general\n3 x 3\n", GS_ERR_INPUT,
         "b_sizex.mtx:2: bad size line"},
        {"b_big.mtx", "%%MatrixMarket matrix coordinate real general\n2147483648 5 1\n1 1 1\n",
         GS_ERR_UNSUPPORTED, "b_big.mtx:2: matrix is 2147483648 x 5"},
        {"b_huge.mtx",
         "%%MatrixMarket matrix coordinate real general\n"
         "99999999999999999999999 5 1\n1 1 1\n",
         GS_ERR_UNSUPPORTED, "matrix is 99999999999999999999999 x 5"},
        {"b_bignnz.mtx", "%%MatrixMarket matrix coordinate real symmetric\n5 5 2147483648\n",
         GS_ERR_UNSUPPORTED, "b_bignnz.mtx:2: matrix 5 x 5 has 2147483648 stored entries"},
        {"b_nonsq.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n", GS_ERR_INPUT,
         "b_nonsq.mtx:2: a symmetric matrix must be square, found 3 x 4"},
        {"b_few.mtx",
         "%%MatrixMarket matrix coordinate real general\n7 7 12\n1 1 1\n2 2 2\n"
         "3 3 3\n\n% end\n",
         GS_ERR_INPUT, "b_few.mtx: file ends after 3 of 12 entries declared on line 2"},
        {"b_many.mtx",
         "%%MatrixMarket matrix coordinate real general\n7 7 2\n1 1 1\n\n2 2 2\n"
         "3 3 3\n",
         GS_ERR_INPUT, "b_many.mtx:6: more entries than the 2 declared on line 2"},
        {"b_arrmany.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n2\n3\n", GS_ERR_INPUT,
         "b_arrmany.mtx:5: more entries than the 2 declared on line 2"},
        {"b_arrfew.mtx", "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n", GS_ERR_INPUT,
         "b_arrfew.mtx: file ends after 2 of 6 entries declared on line 2"},
        {"b_row0.mtx", "%%MatrixMarket matrix coordinate real general\n7 7 2\n1 1 1\n0 2 1\n",
         GS_ERR_INPUT, "b_row0.mtx:4: row index 0 out of range 1..7"},
        {"b_rowbig.mtx", "%%MatrixMarket matrix coordinate real general\n7 7 2\n1 1 1\n8 2 1\n",
         GS_ERR_INPUT, "b_rowbig.mtx:4: row index 8 out of range 1..7"},
        {"b_colbig.mtx", "%%MatrixMarket matrix coordinate real general\n7 7 1\n7 2000 1\n",
         GS_ERR_INPUT, "b_colbig.mtx:3: column index 2000 out of range 1..7"},
        {"b_colneg.mtx", "%%MatrixMarket matrix coordinate real general\n7 7 1\n7 -2 1\n",
         GS_ERR_INPUT, "b_colneg.mtx:3: column index -2 out of range 1..7"},
        {"b_value.mtx",
         "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n"
         "% c\n2 1 abc\n",
         GS_ERR_INPUT, "b_value.mtx:5: expected a number, found 'abc'"},
        {"b_value2.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1.5x\n",
         GS_ERR_INPUT, "b_value2.mtx:3: expected a number, found '1.5x'"},
        {"b_rowtok.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1.0 1 1\n",
         GS_ERR_INPUT, "b_rowtok.mtx:3: expected a row index, found '1.0'"},
        {"b_noval.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1\n2 2 2\n",
         GS_ERR_INPUT, "b_noval.mtx:3: expected a number, found end of line"},
        {"b_nocol.mtx", "%%MatrixMarket matrix coordinate real general\n7 7 12\n2 1 1\n5",
         GS_ERR_INPUT, "b_nocol.mtx:4: expected a column index, found end of file"},
        {"b_extra.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n1 1 1\n1 1 1\n",
         GS_ERR_INPUT, "b_extra.mtx:3: unexpected '1' after the entry, expected end of line"},
        {"b_nan.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 2 nan\n",
         GS_ERR_INPUT, "b_nan.mtx:4: value 'nan' is not a finite number"},
        {"b_inf.mtx", "%%MatrixMarket matrix array real general\n2 1\n-Infinity\n1\n", GS_ERR_INPUT,
         "b_inf.mtx:3: value '-Infinity' is not a finite number"},
        {"b_ovf.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n3 3 1E310\n",
         GS_ERR_INPUT, "b_ovf.mtx:3: value '1E310' is not a finite number"},
        {"b_skewdiag.mtx",
         "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n"
         "2 1 1\n3 3 2\n",
         GS_ERR_INPUT,
         "b_skewdiag.mtx:4: skew-symmetric matrix has a nonzero diagonal entry "
         "(3,3)"},
        {"b_nul.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 \x01\n",
         GS_ERR_INPUT, "b_nul.mtx:3: expected a number, found '?'"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gs_csr *A = NULL;
        const char *p = fixture(cases[c].name, cases[c].text);
        gs_error_clear();
        gs_status st = gs_mm_read(p, &A, NULL);
        CHECK_MSG(st == cases[c].st, "%s: got %s (%s)", cases[c].name, gs_status_str(st),
                  gs_error_message());
        CHECK_MSG(strstr(gs_error_message(), cases[c].msg) != NULL,
                  "%s: message \"%s\" lacks \"%s\"", cases[c].name, gs_error_message(),
                  cases[c].msg);
        CHECK(A == NULL);
        gs_error_clear();
    }
    /* an embedded NUL byte */
    const char nul[] = "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 \0\n";
    const char *p = tmp_path("b_nul0.mtx");
    write_bytes(p, nul, sizeof nul - 1);
    gs_csr *A = NULL;
    CHECK_FAIL(gs_mm_read(p, &A, NULL), GS_ERR_INPUT, "b_nul0.mtx:3: expected a number");
    /* missing file, a directory */
    CHECK_FAIL(gs_mm_read(tmp_path("nope.mtx"), &A, NULL), GS_ERR_IO, "cannot open '");
    CHECK_FAIL(gs_mm_read(tmp_path("nope.mtx"), &A, NULL), GS_ERR_IO,
               "nope.mtx': No such file or directory");
    CHECK_FAIL(gs_mm_read(g_dir, &A, NULL), GS_ERR_IO, "Is a directory");
    CHECK_FAIL(gs_mm_read(NULL, &A, NULL), GS_ERR_ARG, "NULL");
}

static void test_write_errors(void)
{
    gs_csr *A = NULL;
    const int32_t ri[] = {0, 1}, ci[] = {0, 1};
    const double v[] = {1.0, 2.0};
    CHECK_OK(gs_csr_from_coo(2, 2, 2, ri, ci, v, &A));
    CHECK_FAIL(gs_mm_write(tmp_path("nodir/a.mtx"), A), GS_ERR_WRITE,
               "nodir/a.mtx': No such file or directory");
    CHECK_FAIL(gs_mm_write_vector(tmp_path("nodir/b.mtx"), v, 2), GS_ERR_WRITE, "cannot write '");
    if (access("/dev/full", W_OK) == 0) {
        CHECK_FAIL(gs_mm_write("/dev/full", A), GS_ERR_WRITE,
                   "cannot write '/dev/full': No space left on device");
        CHECK_FAIL(gs_mm_write_vector("/dev/full", v, 2), GS_ERR_WRITE, "/dev/full");
    }
    gs_csr_destroy(&A);
}

/* Every allocation the reader makes may fail: NOMEM, nothing leaked, then success. */
static void test_alloc_failures(void)
{
    const char *paths[] = {tmp_path("sym.mtx"),       tmp_path("arrsym.mtx"), tmp_path("g.mtx.gz"),
                           tmp_path("patsorted.mtx"), tmp_path("int.mtx"),    tmp_path("v2.mtx")};
    for (int f = 0; f < 6; f++) {
        for (long k = 1; k < 40; k++) {
            long live = gs_mem_live();
            gs_csr *A = NULL;
            double *x = NULL;
            int64_t n;
            gs_mem_fail_at(k);
            gs_status st =
                f == 5 ? gs_mm_read_vector(paths[f], -1, &x, &n) : gs_mm_read(paths[f], &A, NULL);
            gs_mem_fail_at(0);
            CHECK_MSG(st == GS_OK || st == GS_ERR_NOMEM, "%s k=%ld: %s", paths[f], k,
                      gs_error_message());
            gs_error_clear();
            gs_csr_destroy(&A);
            gs_free(x);
            CHECK_MSG(gs_mem_live() == live, "%s k=%ld leaks", paths[f], k);
            if (st == GS_OK) break;
        }
    }
}

/* Random single-byte mutations and truncations: never a crash, never a leak. */
static void test_fuzz(void)
{
    static const char *const srcs[] = {"sym.mtx", "free.mtx", "arrsym.mtx",
                                       "v3.mtx",  "skew.mtx", "g.mtx.gz"};
    static const char interesting[] = "0123456789 \t\r\n%.-+eE\0\xff"
                                      "a";
    const char *p = tmp_path("fuzz.mtx");
    for (size_t s = 0; s < sizeof srcs / sizeof srcs[0]; s++) {
        size_t n = 0;
        char *orig = slurp(tmp_path(srcs[s]), &n);
        CHECK(orig != NULL);
        if (!orig) continue;
        const char *dst = strstr(srcs[s], ".gz") ? tmp_path("fuzz.mtx.gz") : p;
        for (int it = 0; it < 400; it++) {
            char *b = malloc(n + 1);
            memcpy(b, orig, n);
            size_t len = n;
            if (it % 5 == 4)
                len = rnd() % (n + 1);
            else
                b[rnd() % n] =
                    rnd() % 2 ? interesting[rnd() % (sizeof interesting - 1)] : (char)rnd();
            write_bytes(dst, b, len);
            free(b);
            long live = gs_mem_live();
            gs_csr *A = NULL;
            double *x = NULL;
            int64_t m;
            gs_error_clear();
            gs_status st = it % 3 ? gs_mm_read(dst, &A, NULL) : gs_mm_read_vector(dst, -1, &x, &m);
            CHECK_MSG(st == GS_OK || st == GS_ERR_INPUT || st == GS_ERR_IO ||
                          st == GS_ERR_UNSUPPORTED,
                      "%s mutation %d: %s", srcs[s], it, gs_status_str(st));
            CHECK(st == GS_OK || gs_error_message()[0] != '\0');
            if (A) CHECK_OK(gs_csr_validate(A, "fuzz"));
            gs_error_clear();
            gs_csr_destroy(&A);
            gs_free(x);
            CHECK_MSG(gs_mem_live() == live, "%s mutation %d leaks", srcs[s], it);
        }
        free(orig);
    }
}

/* ------------------------------------------------------------------ shared matrices */

/* One row of INDEX.tsv. */
typedef struct index_row {
    char file[128], field[32], sym[32], category[16];
    long long rows, cols;
} index_row;

/* Load INDEX.tsv (columns: file repo path rows cols nnz field symmetry ... category ...). */
static int load_index(const char *dir, index_row *rows, int cap)
{
    char path[1024], line[8192];
    snprintf(path, sizeof path, "%s/INDEX.tsv", dir);
    FILE *fp = fopen(path, "r");
    if (!fp) return -1;
    int n = 0;
    while (n < cap && fgets(line, sizeof line, fp)) {
        char *col[16] = {0};
        int nc = 0;
        for (char *s = line; nc < 16;) {
            col[nc++] = s;
            s = strchr(s, '\t');
            if (!s) break;
            *s++ = '\0';
        }
        if (nc < 14 || strcmp(col[0], "file") == 0) continue;
        index_row *r = &rows[n++];
        snprintf(r->file, sizeof r->file, "%.127s", col[0]);
        snprintf(r->field, sizeof r->field, "%.31s", col[6]);
        snprintf(r->sym, sizeof r->sym, "%.31s", col[7]);
        snprintf(r->category, sizeof r->category, "%.15s", col[13]);
        r->rows = *col[3] ? atoll(col[3]) : -1;
        r->cols = *col[4] ? atoll(col[4]) : -1;
    }
    fclose(fp);
    return n;
}

/* The outcome a shared file must have: status and a message part ("" = only the name). */
static gs_status expected_outcome(const char *rel, const index_row *r, const char **msg)
{
    static const struct {
        const char *file;
        gs_status st;
        const char *msg;
    } special[] = {
        {"parser/ss_comments_west0067.mtx", GS_ERR_INPUT,
         "ss_comments_west0067.mtx:6: value 'nan' is not a finite number"},
        {"parser/ss_skew_fp64.mtx", GS_ERR_INPUT,
         "ss_skew_fp64.mtx:4: value 'inf' is not a finite number"},
        {"parser/fmm_dim_over_32_bit.mtx", GS_ERR_UNSUPPORTED,
         "fmm_dim_over_32_bit.mtx:3: matrix is 1099511627776 x 1099511627776"},
        {"malformed/fmm_overflow_dim_gt_int64.mtx", GS_ERR_UNSUPPORTED,
         "matrix is 19223372036854775808 x 1"},
        {"malformed/fmm_invalid_dimensions_out_of_range_1.mtx", GS_ERR_INPUT,
         "out_of_range_1.mtx:3: negative size -3"},
        {"malformed/fmm_invalid_indices_out_of_range_4.mtx", GS_ERR_INPUT,
         "out_of_range_4.mtx:6: column index 0 out of range 1..7"},
        {"malformed/fmm_invalid_truncated_line_2.mtx", GS_ERR_INPUT,
         "truncated_line_2.mtx:5: expected a column index, found end of file"},
        {"malformed/fmm_overflow_value_gt_float64.mtx", GS_ERR_INPUT, "is not a finite number"},
        {"malformed/sprs_not_enough_entries.mm", GS_ERR_INPUT, "file ends after 8 of 13"},
        {"malformed/ss_mangled6.mtx", GS_ERR_INPUT, "ss_mangled6.mtx:5: unexpected '1'"},
        {"malformed/amgmatch_1138_bus.mtx", GS_ERR_INPUT, "amgmatch_1138_bus.mtx:1: bad banner"},
    };
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        if (strcmp(rel, special[i].file) == 0) return *msg = special[i].msg, special[i].st;
    *msg = "";
    if (r && strcmp(r->field, "complex") == 0)
        return *msg = "are not supported", GS_ERR_UNSUPPORTED;
    if (strncmp(rel, "malformed/", 10) == 0) return GS_ERR_INPUT;
    return GS_OK;
}

/* Read one shared file and check it against its INDEX row and expected outcome. */
static void check_shared(const char *dir, const char *rel, const index_row *idx, int nidx)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    const index_row *r = NULL;
    for (int i = 0; i < nidx; i++)
        if (strcmp(idx[i].file, rel) == 0) r = &idx[i];
    const char *msg, *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
    gs_status want = expected_outcome(rel, r, &msg);
    long live = gs_mem_live();
    gs_csr *A = NULL;
    gs_mm_info info;
    gs_error_clear();
    gs_status st = gs_mm_read(path, &A, &info);
    CHECK_MSG(st == want, "%s: got %s (%s), expected %s", rel, gs_status_str(st),
              gs_error_message(), gs_status_str(want));
    if (st != GS_OK) {
        CHECK_MSG(strstr(gs_error_message(), base) && strstr(gs_error_message(), msg),
                  "%s: message \"%s\" lacks the file name or \"%s\"", rel, gs_error_message(), msg);
    } else {
        CHECK_OK(gs_csr_validate(A, rel));
        if (r && r->rows >= 0)
            CHECK_MSG(A->rows == r->rows && A->cols == r->cols,
                      "%s: %d x %d, INDEX says %lld x %lld", rel, A->rows, A->cols, r->rows,
                      r->cols);
        if (r)
            CHECK_MSG(strcmp(info.field, r->field) == 0 && strcmp(info.symmetry, r->sym) == 0,
                      "%s: %s %s, INDEX says %s %s", rel, info.field, info.symmetry, r->field,
                      r->sym);
    }
    gs_csr_destroy(&A);
    gs_error_clear();
    /* right-hand sides and n x 1 files also read as vectors */
    if (st == GS_OK && info.cols == 1) {
        double *x = NULL;
        int64_t n = 0;
        CHECK_OK(gs_mm_read_vector(path, info.rows, &x, &n));
        gs_free(x);
    }
    CHECK_MSG(gs_mem_live() == live, "%s leaks", rel);
}

/* Every *.mtx / *.mm file of dir/sub (sub "" = top level). */
static int check_folder(const char *dir, const char *sub, const index_row *idx, int nidx)
{
    char path[1024], rel[512];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    DIR *d = opendir(path);
    CHECK_MSG(d != NULL, "cannot list %s", path);
    if (!d) return 0;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (!(l > 4 && strcmp(e->d_name + l - 4, ".mtx") == 0) &&
            !(l > 3 && strcmp(e->d_name + l - 3, ".mm") == 0))
            continue;
        snprintf(rel, sizeof rel, "%s%s%s", sub, *sub ? "/" : "", e->d_name);
        check_shared(dir, rel, idx, nidx);
        count++;
    }
    closedir(d);
    return count;
}

static void test_shared_matrices(void)
{
    const char *dir = getenv("GS_MATRICES");
    static index_row idx[256];
    if (!dir || !*dir) return;
    int nidx = load_index(dir, idx, 256);
    if (nidx < 0) {
        printf("test_mm: %s/INDEX.tsv not found, shared matrices skipped\n", dir);
        return;
    }
    int n = check_folder(dir, "", idx, nidx);
    n += check_folder(dir, "parser", idx, nidx);
    n += check_folder(dir, "malformed", idx, nidx);
    CHECK(n >= nidx);
    printf("test_mm: %d shared files checked against %s/INDEX.tsv\n", n, dir);

    /* a few exact contents */
    char path[1024];
    double *x = NULL;
    int64_t m = 0;
    snprintf(path, sizeof path, "%s/parser/gko_isai_a_excess_rhs.mtx", dir);
    CHECK_OK(gs_mm_read_vector(path, 122, &x, &m));
    CHECK(m == 122 && x && x[1] == 1.0 && x[120] == 1.0 && x[0] == 0.0 && x[121] == 0.0);
    gs_free(x), x = NULL;
    snprintf(path, sizeof path, "%s/parser/fmm_vector_coordinate_dupes.mtx", dir);
    CHECK_OK(gs_mm_read_vector(path, 4, &x, &m));
    CHECK(m == 4 && x && x[0] == 101 && x[1] == 202 && x[2] == 0 && x[3] == 404);
    gs_free(x), x = NULL;
    gs_csr *A = NULL;
    snprintf(path, sizeof path, "%s/parser/fmm_overflow_value_gt_int32.mtx", dir);
    CHECK_OK(gs_mm_read(path, &A, NULL));
    CHECK(A && A->nnz == 1 && A->rowptr[1] == 0 && A->colind[0] == 1 && A->val[0] == 8589934592.0);
    gs_csr_destroy(&A);
    snprintf(path, sizeof path, "%s/plsk1919.mtx", dir); /* skew: 4831 stored -> 9662 */
    CHECK_OK(gs_mm_read(path, &A, NULL));
    CHECK(A && A->nnz == 2 * 4831);
    gs_csr_destroy(&A);
}

int main(void)
{
    long live0 = gs_mem_live();
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/gs_test_mm_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_symmetric();
    test_skew_pattern_integer();
    test_array();
    test_free_format();
    test_numbers();
    test_bit_exact();
    test_round_trip();
    test_gzip();
    test_vectors();
    test_bad_inputs();
    test_write_errors();
    test_alloc_failures();
    test_fuzz();
    test_shared_matrices();
    CHECK_MSG(gs_mem_live() == live0, "%ld host allocations leaked", gs_mem_live() - live0);

    /* remove the fixtures */
    DIR *d = opendir(g_dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') unlink(tmp_path(e->d_name));
    if (d) closedir(d);
    rmdir(g_dir);
    return gs_test_result("test_mm");
}

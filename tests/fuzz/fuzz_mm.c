/* fuzz_mm.c: the Matrix Market reader (io/gs_mm.c) on arbitrary bytes.
 *
 * The input is written as in.mtx (or in.mtx.gz when it starts with the gzip magic) and read as a
 * matrix (gs_mm_read) and as a vector (gs_mm_read_vector). Success must give a valid CSR whose
 * size is the header's and whose nonzeros fit what the header declared, with finite values
 * (the reader refuses NaN and Inf), equal (when small) to a plain reading of the text; failure
 * must name the file. Some plain inputs are also gzip-compressed and read again: the outcome
 * must be the same.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fuzz.h"
#include "gs_mem.h"
#include "gs_mm.h"

static const gs_status k_allowed[] = {GS_ERR_INPUT, GS_ERR_IO, GS_ERR_UNSUPPORTED, GS_ERR_NOMEM};
#define NALLOWED ((int)(sizeof k_allowed / sizeof k_allowed[0]))

/* The message with every occurrence of path taken out (to compare plain and gzip runs). */
static void strip_path(const char *msg, const char *path, char *out, size_t cap)
{
    size_t n = 0, lp = strlen(path);
    while (*msg && n + 1 < cap) {
        if (lp && strncmp(msg, path, lp) == 0) {
            msg += lp;
            continue;
        }
        out[n++] = *msg++;
    }
    out[n] = '\0';
}

/* Read path as a matrix; check the outcome. Returns the status; *A (may be NULL) is kept. */
static gs_status read_matrix(const char *path, gs_csr **A, gs_mm_info *info)
{
    gs_error_clear();
    gs_status st = gs_mm_read(path, A, info);
    if (st != GS_OK) {
        if (*A) fuzz_fail("gs_mm_read %s: failed but returned a matrix", path);
        fuzz_check_error("gs_mm_read", st, k_allowed, NALLOWED, path);
        return st;
    }
    fuzz_check_csr("gs_mm_read", *A, 0);
    const int sym = strcmp(info->symmetry, "general") != 0;
    if ((*A)->rows != info->rows || (*A)->cols != info->cols)
        fuzz_fail("gs_mm_read %s: matrix %d x %d, header %lld x %lld", path, (*A)->rows, (*A)->cols,
                  (long long)info->rows, (long long)info->cols);
    if ((*A)->nnz > (sym ? 2 : 1) * info->entries)
        fuzz_fail("gs_mm_read %s: %d nonzeros from %lld %s entries", path, (*A)->nnz,
                  (long long)info->entries, info->symmetry);
    return st;
}

/* Read path as a vector; check the outcome. */
static void read_vector(const char *path)
{
    double *x = NULL;
    int64_t n = -1;
    gs_error_clear();
    gs_status st = gs_mm_read_vector(path, -1, &x, &n);
    if (st != GS_OK) {
        if (x) fuzz_fail("gs_mm_read_vector %s: failed but returned a vector", path);
        fuzz_check_error("gs_mm_read_vector", st, k_allowed, NALLOWED, path);
        return;
    }
    if (n < 0 || n > GS_MAX_INDEX || !x)
        fuzz_fail("gs_mm_read_vector %s: length %lld", path, (long long)n);
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            fuzz_fail("gs_mm_read_vector %s: entry %lld is %g", path, (long long)i + 1, x[i]);
    gs_free(x);
}

/* Two matrices equal in every array. */
static int same_csr(const gs_csr *A, const gs_csr *B)
{
    if (A->rows != B->rows || A->cols != B->cols || A->nnz != B->nnz) return 0;
    return memcmp(A->rowptr, B->rowptr, ((size_t)A->rows + 1) * sizeof *A->rowptr) == 0 &&
           memcmp(A->colind, B->colind, (size_t)A->nnz * sizeof *A->colind) == 0 &&
           memcmp(A->val, B->val, (size_t)A->nnz * sizeof *A->val) == 0;
}

/* The plain input compressed and read again: same status, same matrix or same message. */
static void check_gzip_same(const uint8_t *data, size_t size, gs_status st0, const gs_csr *A0,
                            const char *path0, const char *msg0)
{
    const char *gz = fuzz_path(1, "gz.mtx.gz");
    gzFile g = gzopen(gz, "wb1");
    if (!g || (size && gzwrite(g, data, (unsigned)size) != (int)size) || gzclose(g) != Z_OK)
        fuzz_fail("cannot write %s", gz);
    gs_csr *A = NULL;
    gs_mm_info info;
    gs_status st = read_matrix(gz, &A, &info);
    if (st != st0)
        fuzz_fail("plain and gzip inputs differ: '%s' then '%s' (%s)", gs_status_str(st0),
                  gs_status_str(st), gs_error_message());
    if (st == GS_OK && !same_csr(A0, A)) fuzz_fail("plain and gzip inputs give different matrices");
    if (st != GS_OK && st != GS_ERR_NOMEM) {
        /* both paths out of both messages: an input may quote either one */
        char a[1200], b[1200], t[1200];
        strip_path(msg0, path0, t, sizeof t);
        strip_path(t, gz, a, sizeof a);
        strip_path(gs_error_message(), gz, t, sizeof t);
        strip_path(t, path0, b, sizeof b);
        if (strcmp(a, b) != 0) fuzz_fail("plain and gzip messages differ:\n  %s\n  %s", a, b);
    }
    gs_csr_destroy(&A);
}

/* ------------------------------------------------------------------ independent reading */

/* The next line of the text at *p that is neither blank nor a % comment (NUL-terminated in
 * place), or NULL at the end. */
static char *next_line(char **p)
{
    while (*p) {
        char *l = *p, *nl = strchr(l, '\n');
        if (nl) *nl = '\0';
        *p = nl ? nl + 1 : NULL;
        l += strspn(l, " \t\r\v\f");
        if (*l && *l != '%') return l;
    }
    return NULL;
}

/* Up to max whitespace-separated tokens of line. */
static int tokens(char *line, char **tok, int max)
{
    int n = 0;
    for (char *t = strtok(line, " \t\r\v\f"); t && n < max; t = strtok(NULL, " \t\r\v\f"))
        tok[n++] = t;
    return n;
}

/* Row and column of the k-th stored value of an array file: column-major, the lower triangle
 * (below the diagonal when skew) for symmetric files. */
static void array_pos(int64_t k, int64_t nr, int sym, int skew, int64_t *i, int64_t *j)
{
    if (!sym) {
        *j = k / nr, *i = k % nr;
        return;
    }
    int64_t col = 0, left = k;
    while (left >= nr - col - skew && col < nr) left -= nr - col - skew, col++;
    *j = col, *i = col + skew + left;
}

/* The entries of an accepted small file read the plain way (strtoll, strtod, the banner's
 * words) into dense, symmetry expanded: the reader's CSR must be the same matrix. Returns 0
 * when this reading gives up (it is only a check). */
static int plain_read(char *text, const gs_mm_info *info, double *dense, double *mag)
{
    const int64_t nr = info->rows, nc = info->cols;
    const int sym = strcmp(info->symmetry, "general") != 0;
    const int skew = strcmp(info->symmetry, "skew-symmetric") == 0;
    const int array = strcmp(info->format, "array") == 0, vec = strcmp(info->object, "vector") == 0;
    const int pattern = strcmp(info->field, "pattern") == 0;
    char *p = text + strspn(text, " \t\r\v\f\n"), *tok[4], *line;
    p = strchr(p, '\n');                  /* past the banner */
    if (!p++ || !next_line(&p)) return 0; /* the size line */
    for (int64_t k = 0; (line = next_line(&p)) && k < info->entries; k++) {
        int64_t i, j;
        double v = 1.0;
        int nt = tokens(line, tok, 4), need = array ? 1 : (vec ? 1 : 2) + !pattern;
        if (nt < need) return 0;
        if (array) {
            array_pos(k, nr, sym, skew, &i, &j);
            v = strtod(tok[0], NULL);
        } else {
            i = strtoll(tok[0], NULL, 10) - 1;
            j = vec ? 0 : strtoll(tok[1], NULL, 10) - 1;
            if (!pattern) v = strtod(tok[need - 1], NULL);
        }
        if (i < 0 || i >= nr || j < 0 || j >= nc) return 0;
        dense[i * nc + j] += v, mag[i * nc + j] += fabs(v);
        if (sym && i != j) dense[j * nc + i] += skew ? -v : v, mag[j * nc + i] += fabs(v);
    }
    return 1;
}

/* A small accepted matrix equals the plain reading of its text (values to the bit, up to the
 * order of summing duplicates). */
static void check_plain(const uint8_t *data, size_t size, const gs_mm_info *info, const gs_csr *A)
{
    const int64_t cells = (int64_t)A->rows * A->cols;
    if (cells > 4096 || strchr(info->symmetry, 'h')) return; /* skip large and hermitian */
    char *text = malloc(size + 1);
    double *dense = calloc((size_t)(cells ? cells : 1), sizeof *dense);
    double *mag = calloc((size_t)(cells ? cells : 1), sizeof *mag);
    if (text && dense && mag) {
        memcpy(text, data, size);
        text[size] = '\0';
        if (strlen(text) == size && plain_read(text, info, dense, mag))
            for (int32_t r = 0; r < A->rows; r++) {
                int32_t k = A->rowptr[r];
                for (int32_t c = 0; c < A->cols; c++) {
                    double a = k < A->rowptr[r + 1] && A->colind[k] == c ? A->val[k++] : 0.0;
                    double e = dense[(int64_t)r * A->cols + c], m = mag[(int64_t)r * A->cols + c];
                    if (!(a == e || fabs(a - e) <= 1e-9 * m))
                        fuzz_fail("gs_mm_read: A(%d, %d) = %.17g, the text says %.17g", r + 1,
                                  c + 1, a, e);
                }
            }
    }
    free(text), free(dense), free(mag);
}

/* FNV-1a, to pick a fixed subset of inputs for the gzip comparison. */
static uint32_t fnv(const uint8_t *d, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ d[i]) * 16777619u;
    return h;
}

static fuzz_outcome run_mm(const uint8_t *data, size_t size)
{
    const int gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
    const char *path = fuzz_path(0, gz ? "in.mtx.gz" : "in.mtx");
    long live = gs_mem_live();
    gs_csr *A = NULL;
    gs_mm_info info;
    fuzz_write(path, data, size);
    gs_status st = read_matrix(path, &A, &info);
    if (st == GS_OK && !gz) check_plain(data, size, &info, A);
    if (!gz && size <= (1u << 18) && fnv(data, size) % 4 == 0) {
        char msg[1200];
        gs_str_copy(msg, sizeof msg, gs_error_message());
        check_gzip_same(data, size, st, A, path, msg);
    }
    gs_csr_destroy(&A);
    read_vector(path);
    gs_error_clear();
    fuzz_check_released("mm", live);
    return st == GS_OK ? FUZZ_ACCEPTED : FUZZ_REFUSED;
}

const fuzz_target fuzz_mm_target = {
    "mm", "Matrix Market reader (io/gs_mm.c): matrices and vectors, plain and .gz", run_mm};

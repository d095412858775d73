/* gs_ij.c: hypre's IJ matrix and vector text formats (gs_ij.h). */
#include "gs_ij.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gs_mem.h"

#define LINE_MAX_IJ 512 /* "i j value" lines are short; a longer one is not IJ */
#define PATH_IJ 2048

/* The status of closing a written file f (with what ferror said before). */
static gs_status close_written(FILE *f, const char *path)
{
    int bad = ferror(f);
    int err = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (bad) return GS_ERROR(GS_ERR_IO, "cannot write '%s': %s", path, strerror(err));
    return GS_OK;
}

/* "0 n-1 0 n-1", then "i j value" per entry in CSR order */
gs_status gs_ij_write(const char *path, const gs_csr *A)
{
    if (!path || !A) return GS_ERROR(GS_ERR_ARG, "gs_ij_write: path and A must not be NULL");
    if (A->loc != GS_LOC_HOST)
        return GS_ERROR(GS_ERR_ARG, "gs_ij_write '%s': the matrix must be on the host", path);
    if (A->rows != A->cols)
        return GS_ERROR(GS_ERR_ARG,
                        "gs_ij_write '%s': the matrix is %d x %d; hypre's IJ "
                        "format needs a square one",
                        path, A->rows, A->cols);
    FILE *f = fopen(path, "w");
    if (!f) return GS_ERROR(GS_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    fprintf(f, "0 %d 0 %d\n", A->rows - 1, A->cols - 1);
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            fprintf(f, "%d %d %.17g\n", i, A->colind[k], A->val[k]);
    return close_written(f, path);
}

/* "0 n-1", then "j value" per entry */
gs_status gs_ij_write_vector(const char *path, const double *x, int64_t n)
{
    if (!path || (!x && n > 0))
        return GS_ERROR(GS_ERR_ARG, "gs_ij_write_vector: path and x must not be NULL");
    FILE *f = fopen(path, "w");
    if (!f) return GS_ERROR(GS_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    fprintf(f, "0 %lld\n", (long long)n - 1);
    for (int64_t j = 0; j < n; j++) fprintf(f, "%lld %.17g\n", (long long)j, x[j]);
    return close_written(f, path);
}

/* the length of s's rank suffix ("." and five or more digits: NAME.00003), else 0 */
static size_t rank_suffix(const char *s)
{
    size_t n = strlen(s), d = 0;
    while (d < n && s[n - 1 - d] >= '0' && s[n - 1 - d] <= '9') d++;
    return d >= 5 && d < n && s[n - 1 - d] == '.' ? d + 1 : 0;
}

static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

int gs_ij_is_ij(const char *path)
{
    char p0[PATH_IJ];
    size_t n = strlen(path), r = rank_suffix(path);
    if (n > 3 && strcmp(path + n - 3, ".ij") == 0) return 1;
    if (r && n - r > 3 && strncmp(path + n - r - 3, ".ij", 3) == 0) return 1;
    snprintf(p0, sizeof p0, "%s.00000", path);
    return !is_file(path) && is_file(p0);
}

/* What the files of one object hold: the ranges of their first lines, their entries. */
typedef struct ij_read {
    int nidx;     /* indices per entry: 2 matrix, 1 vector */
    int64_t next; /* the row the next file's range must start at */
    int64_t cols; /* max jupper + 1 (matrix) */
    int64_t *i, *j;
    double *v;
    size_t n, cap;
    char base[PATH_IJ]; /* the files are base.00000, base.00001, ... */
    int64_t *upper;     /* the last row of each file read (their ranges follow one another) */
    int nparts, cap_parts;
} ij_read;

/* Append entry (i, j, v), growing the arrays. */
static gs_status push(ij_read *r, const char *file, int64_t i, int64_t j, double v)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 1024;
        if (r->n >= (size_t)GS_MAX_INDEX)
            return GS_ERROR(GS_ERR_UNSUPPORTED, "%s: more than %lld entries: gsolve's limit", file,
                            GS_MAX_INDEX);
        int64_t *ni = gs_realloc(r->i, cap * sizeof *ni);
        if (ni) r->i = ni;
        int64_t *nj = ni ? gs_realloc(r->j, cap * sizeof *nj) : NULL;
        if (nj) r->j = nj;
        double *nv = nj ? gs_realloc(r->v, cap * sizeof *nv) : NULL;
        if (nv) r->v = nv;
        if (!nv)
            return GS_ERROR(GS_ERR_NOMEM, "out of memory: could not allocate %zu bytes for %s",
                            cap * (2 * sizeof *ni + sizeof *nv), file);
        r->cap = cap;
    }
    r->i[r->n] = i;
    r->j[r->n] = j;
    r->v[r->n++] = v;
    return GS_OK;
}

/* Parse up to `want` integers and (vals) a number from line s: how many fields were read. */
static int fields(const char *s, int want, int64_t *x, double *val)
{
    char *end = NULL;
    int k = 0;
    for (; k < want; k++) {
        long long t = strtoll(s, &end, 10);
        if (end == s || (*end != ' ' && *end != '\t' && *end != '\n' && *end != '\r' && *end))
            return k;
        x[k] = t;
        s = end;
    }
    if (!val) return k;
    *val = strtod(s, &end);
    if (end == s) return k;
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n') end++;
    return *end ? k : k + 1;
}

/* One rank's file: its range line and its entry lines. */
static gs_status read_part(ij_read *r, const char *file, FILE *f)
{
    gs_status st = GS_OK;
    char line[LINE_MAX_IJ];
    int64_t h[4] = {0, 0, 0, 0}, x[2] = {0, 0};
    double v = 0;
    int nh = r->nidx == 2 ? 4 : 2, lo = 0;
    long ln = 0;
    const char *what = r->nidx == 2 ? "i j value" : "j value";
    while (fgets(line, sizeof line, f)) {
        ln++;
        size_t len = strlen(line);
        if (len + 1 == sizeof line && line[len - 1] != '\n')
            GS_FAIL(GS_ERR_INPUT, "%s:%ld: a line longer than %d characters: expected \"%s\"", file,
                    ln, LINE_MAX_IJ - 1, lo ? what : "ilower iupper jlower jupper");
        if (strspn(line, " \t\r\n") == len) continue;
        if (!lo) { /* the range line */
            if (fields(line, nh, h, NULL) != nh)
                GS_FAIL(GS_ERR_INPUT, "%s:%ld: expected the range line \"%s\"", file, ln,
                        r->nidx == 2 ? "ilower iupper jlower jupper" : "jlower jupper");
            if (h[0] != r->next || h[1] < h[0] - 1 || h[1] >= GS_MAX_INDEX ||
                (nh == 4 && (h[3] < h[2] - 1 || h[2] < 0 || h[3] >= GS_MAX_INDEX)))
                GS_FAIL(GS_ERR_INPUT,
                        "%s:%ld: range %lld..%lld: expected rows from %lld (the files' ranges "
                        "follow one another from 0) up to at most %lld",
                        file, ln, (long long)h[0], (long long)h[1], (long long)r->next,
                        GS_MAX_INDEX - 1);
            lo = 1;
            r->next = h[1] + 1;
            if (r->nparts == r->cap_parts) {
                int cap = r->cap_parts ? 2 * r->cap_parts : 16;
                int64_t *u = gs_realloc(r->upper, (size_t)cap * sizeof *u);
                if (!u) GS_FAIL(GS_ERR_NOMEM, "out of memory reading %s", file);
                r->upper = u;
                r->cap_parts = cap;
            }
            r->upper[r->nparts++] = h[1];
            if (nh == 4 && h[3] + 1 > r->cols) r->cols = h[3] + 1;
            continue;
        }
        if (fields(line, r->nidx, x, &v) != r->nidx + 1)
            GS_FAIL(GS_ERR_INPUT, "%s:%ld: expected \"%s\" (0-based indices), got \"%.*s\"", file,
                    ln, what, (int)strcspn(line, "\r\n"), line);
        if (x[0] < h[0] || x[0] > h[1])
            GS_FAIL(GS_ERR_INPUT, "%s:%ld: %s %lld outside this file's range %lld..%lld", file, ln,
                    r->nidx == 2 ? "row" : "index", (long long)x[0], (long long)h[0],
                    (long long)h[1]);
        if (r->nidx == 2 && (x[1] < 0 || x[1] >= GS_MAX_INDEX))
            GS_FAIL(GS_ERR_INPUT, "%s:%ld: column %lld out of range 0..%lld", file, ln,
                    (long long)x[1], GS_MAX_INDEX - 1);
        GS_CHECK(push(r, file, x[0], r->nidx == 2 ? x[1] : 0, v));
    }
    if (ferror(f)) GS_FAIL(GS_ERR_IO, "cannot read '%s': %s", file, strerror(errno));
    if (!lo)
        GS_FAIL(GS_ERR_INPUT, "%s: empty: expected the range line \"%s\"", file,
                r->nidx == 2 ? "ilower iupper jlower jupper" : "jlower jupper");
done:
    return st;
}

/* Every rank's file NAME.00000, NAME.00001, ... of path. */
static gs_status read_parts(ij_read *r, const char *path)
{
    gs_status st = GS_OK;
    char *base = r->base, file[PATH_IJ + 16];
    size_t n = strlen(path), s = rank_suffix(path);
    if (n >= sizeof r->base) return GS_ERROR(GS_ERR_ARG, "%s: the path is too long", path);
    memcpy(base, path, n + 1);
    snprintf(file, sizeof file, "%s.00000", path);
    if (s && (is_file(path) || !is_file(file))) base[n - s] = '\0'; /* NAME.00003 -> NAME */
    for (int part = 0;; part++) {
        snprintf(file, sizeof file, "%s.%05d", base, part);
        FILE *f = fopen(file, "r");
        if (!f && part > 0 && errno == ENOENT) break;
        if (!f)
            return GS_ERROR(GS_ERR_IO,
                            "cannot open '%s': %s (hypre's IJ format: NAME.00000, NAME.00001, "
                            "... one file per rank)",
                            file, strerror(errno));
        st = read_part(r, file, f);
        fclose(f);
        if (st != GS_OK) return st;
    }
    return st;
}

static void free_read(ij_read *r)
{
    gs_free(r->i);
    gs_free(r->j);
    gs_free(r->v);
    gs_free(r->upper);
}

/* The number of the file that holds row i (the first whose range reaches it). */
static int part_of(const ij_read *r, int64_t i)
{
    int p = 0;
    while (p + 1 < r->nparts && r->upper[p] < i) p++;
    return p;
}

gs_status gs_ij_read(const char *path, gs_csr **A)
{
    gs_status st = GS_OK;
    ij_read r = {.nidx = 2};
    int32_t *ri = NULL, *ci = NULL;
    *A = NULL;
    GS_CHECK(read_parts(&r, path));
    GS_CHECK(gs_alloc_array(r.n ? r.n : 1, sizeof *ri, "row indices", (void **)&ri));
    GS_CHECK(gs_alloc_array(r.n ? r.n : 1, sizeof *ci, "column indices", (void **)&ci));
    for (size_t k = 0; k < r.n; k++) {
        if (r.j[k] >= r.cols)
            GS_FAIL(GS_ERR_INPUT,
                    "%s.%05d: entry (%lld, %lld): column beyond the matrix's columns 0..%lld "
                    "(the largest jupper of the range lines of %s.*)",
                    r.base, part_of(&r, r.i[k]), (long long)r.i[k], (long long)r.j[k],
                    (long long)r.cols - 1, r.base);
        ri[k] = (int32_t)r.i[k];
        ci[k] = (int32_t)r.j[k];
    }
    GS_CHECK(gs_csr_from_coo(r.next, r.cols, (int64_t)r.n, ri, ci, r.v, A));
done:
    free_read(&r);
    gs_free(ri);
    gs_free(ci);
    return st;
}

gs_status gs_ij_read_vector(const char *path, int64_t n_expected, double **out, int64_t *n)
{
    gs_status st = GS_OK;
    ij_read r = {.nidx = 1};
    double *x = NULL;
    *out = NULL;
    GS_CHECK(read_parts(&r, path));
    if (n_expected >= 0 && r.next != n_expected)
        GS_FAIL(GS_ERR_INPUT, "%s: an IJ vector of %lld entries; the matrix has %lld rows", path,
                (long long)r.next, (long long)n_expected);
    GS_CHECK(gs_alloc_array(r.next ? (size_t)r.next : 1, sizeof *x, path, (void **)&x));
    memset(x, 0, (size_t)r.next * sizeof *x);
    for (size_t k = 0; k < r.n; k++) x[r.i[k]] = r.v[k]; /* as hypre's SetValues: the last */
    *n = r.next;
    *out = x;
    x = NULL;
done:
    free_read(&r);
    gs_free(x);
    return st;
}

/* gs_mm.c: Matrix Market reader and writer.
 *
 * The reader loads the whole (decompressed) file into one NUL-terminated buffer through zlib
 * (which reads plain files transparently), then parses it with hand-written scanners: integers
 * digit by digit, reals by Clinger's fast path (exact whenever the decimal significand fits in
 * 53 bits and |exponent| <= 22) with strtod as the fallback, so values are bit-identical to
 * strtod. Symmetric and skew-symmetric matrices are expanded to full storage; duplicates are
 * summed by gs_csr_from_coo. In array format exact zeros are not stored in the CSR.
 */
#include "gs_mm.h"
#include "gs_problem.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

enum { FMT_COORD, FMT_ARRAY };
enum { FLD_REAL, FLD_INTEGER, FLD_PATTERN };
enum { SYM_GENERAL, SYM_SYMMETRIC, SYM_SKEW };

#define BANNER_EXPECTED                                                                            \
    "'%%%%MatrixMarket matrix coordinate|array real|integer|pattern "                              \
    "general|symmetric|skew-symmetric'"

/* One file being parsed: the buffer, the cursor and what the header said. */
typedef struct mm_file {
    const char *path;
    char *buf;           /* whole file, NUL-terminated */
    const char *p, *end; /* cursor; end points at the terminating NUL */
    long long line;      /* line number of the cursor (1-based) */
    long long size_line; /* line of the size line */
    int vector;          /* object "vector" */
    int format, field, sym;
    int64_t rows, cols; /* vectors: rows = length, cols = 1 */
    int64_t entries;    /* data entries the file declares (or implies, for array) */
    char words[4][24];  /* object, format, field, symmetry as written (lowercased) */
} mm_file;

/* ------------------------------------------------------------------ character scanning */

static inline int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline unsigned digit(char c)
{
    return (unsigned)((unsigned char)c - '0');
}

/* A token ends at a blank, a newline or the end of the buffer. */
static inline int ends_token(const char *p, const char *end)
{
    return is_blank(*p) || *p == '\n' || p == end;
}

/* Skip blank lines and % comment lines (counting lines); stops at data or at end. */
static inline const char *skip_noise(const char *p, const char *end, long long *line)
{
    for (;;) {
        while (is_blank(*p)) p++;
        if (*p == '\n') {
            p++;
            (*line)++;
        } else if (*p == '%') {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl) return end;
            p = nl;
        } else {
            return p;
        }
    }
}

/* Copy the token at p (up to a blank or newline) for a message: printable, at most ~40 chars. */
static const char *token_str(const char *p, const char *end, char *out, size_t cap)
{
    size_t n = 0;
    if (p >= end || *p == '\n') return p >= end ? "end of file" : "end of line";
    out[n++] = '\'';
    while (p < end && !is_blank(*p) && *p != '\n' && n + 5 < cap) {
        out[n++] = isprint((unsigned char)*p) ? *p : '?';
        p++;
    }
    if (p < end && !is_blank(*p) && *p != '\n') {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n++] = '\'';
    out[n] = '\0';
    return out;
}

/* Copy the rest of the line at p for a message, printable, at most cap-1 chars. */
static void line_str(const char *p, const char *end, char *out, size_t cap)
{
    size_t n = 0;
    while (p < end && *p != '\n' && *p != '\r' && n + 4 < cap)
        out[n++] = isprint((unsigned char)*p) ? *p : '?', p++;
    if (p < end && *p != '\n' && *p != '\r') memcpy(out + n, "...", 3), n += 3;
    out[n] = '\0';
}

/* Scan an optionally signed decimal integer; NULL when p holds no digit. Saturates near 2^63. */
static inline const char *scan_int(const char *p, int64_t *out)
{
    int neg = 0;
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    if (digit(*p) > 9) return NULL;
    uint64_t v = 0;
    do {
        v = v < 100000000000000000ULL ? v * 10 + digit(*p) : (uint64_t)INT64_MAX;
        p++;
    } while (digit(*p) <= 9);
    *out = neg ? -(int64_t)v : (int64_t)v;
    return p;
}

/* Exact powers of ten for Clinger's fast path. */
static const double k_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

enum { NUM_OK = 0, NUM_BAD = 1, NUM_NONFINITE = 2 };

/* The general case: strtod on the token in place (the buffer is NUL-terminated). */
static int scan_double_slow(const char **pp, const char *end, double *out)
{
    char *q;
    double x = strtod(*pp, &q);
    if (q == *pp || !ends_token(q, end)) return NUM_BAD;
    if (!isfinite(x)) return NUM_NONFINITE;
    *out = x;
    *pp = q;
    return NUM_OK;
}

/* Scan a real number token at *pp; bit-identical to strtod. */
static inline int scan_double(const char **pp, const char *end, double *out)
{
    const char *p = *pp;
    int neg = 0, any = 0, nd = 0;
    uint64_t m = 0;
    int64_t e10 = 0;
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    while (*p == '0') p++, any = 1;
    for (; digit(*p) <= 9; p++, any = 1, nd++)
        if (nd < 19)
            m = m * 10 + digit(*p);
        else
            e10++;
    if (*p == '.') {
        p++;
        if (nd == 0)
            while (*p == '0') p++, e10--, any = 1;
        for (; digit(*p) <= 9; p++, any = 1, nd++)
            if (nd < 19) m = m * 10 + digit(*p), e10--;
    }
    if (any && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        int eneg = 0;
        int64_t ex = 0;
        if (*q == '-' || *q == '+') eneg = *q++ == '-';
        if (digit(*q) > 9) return scan_double_slow(pp, end, out);
        for (; digit(*q) <= 9; q++)
            if (ex < 100000) ex = ex * 10 + digit(*q);
        e10 += eneg ? -ex : ex;
        p = q;
    }
#if FLT_EVAL_METHOD == 0
    if (any && nd <= 19 && ends_token(p, end)) {
        if (m == 0) {
            *out = neg ? -0.0 : 0.0;
            *pp = p;
            return NUM_OK;
        }
        if (m <= (1ULL << 53) && e10 >= -22 && e10 <= 22) {
            double x = (double)m;
            x = e10 < 0 ? x / k_pow10[-e10] : x * k_pow10[e10];
            *out = neg ? -x : x;
            *pp = p;
            return NUM_OK;
        }
    }
#endif
    return scan_double_slow(pp, end, out);
}

/* ------------------------------------------------------------------ loading */

/* Read the whole (decompressed) file into one NUL-terminated gs_malloc'ed buffer. */
static gs_status load_file(const char *path, char **out, size_t *len)
{
    gs_status st = GS_OK;
    char *buf = NULL;
    size_t n = 0, cap;
    struct stat sb;
    errno = 0;
    gzFile gz = gzopen(path, "rb");
    if (!gz)
        GS_FAIL(GS_ERR_IO, "cannot open '%s': %s", path, errno ? strerror(errno) : "out of memory");
    gzbuffer(gz, 1u << 18);
    cap = stat(path, &sb) == 0 && sb.st_size > 0 ? (size_t)sb.st_size : 4096;
    if (!gzdirect(gz)) cap *= 4; /* a guess at the compression ratio; the buffer grows */
    cap += 2;
    GS_CHECK(gs_alloc_array(cap, 1, "Matrix Market file contents", (void **)&buf));
    for (;;) {
        if (cap - n < 2) {
            char *nb = gs_realloc(buf, cap * 2);
            if (!nb)
                GS_FAIL(GS_ERR_NOMEM, "out of memory: could not allocate %zu bytes for '%s'",
                        cap * 2, path);
            buf = nb;
            cap *= 2;
        }
        size_t want = cap - n - 1;
        int r = gzread(gz, buf + n, (unsigned)(want < (1u << 30) ? want : (1u << 30)));
        if (r <= 0) break;
        n += (size_t)r;
    }
    int zerr;
    const char *zmsg = gzerror(gz, &zerr);
    if (zerr == Z_ERRNO) GS_FAIL(GS_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
    if (zerr == Z_BUF_ERROR)
        GS_FAIL(GS_ERR_IO, "cannot read '%s': compressed data ends early (truncated gzip file)",
                path);
    if (zerr != Z_OK) GS_FAIL(GS_ERR_IO, "cannot read '%s': %s", path, zmsg);
    int cl = gzclose_r(gz);
    gz = NULL;
    if (cl == Z_BUF_ERROR)
        GS_FAIL(GS_ERR_IO, "cannot read '%s': compressed data ends early (truncated gzip file)",
                path);
    if (cl != Z_OK) GS_FAIL(GS_ERR_IO, "cannot read '%s': error %d closing the file", path, cl);
    buf[n] = '\0';
    *out = buf;
    *len = n;
    buf = NULL;
done:
    if (gz) gzclose_r(gz);
    gs_free(buf);
    return st;
}

/* ------------------------------------------------------------------ header */

/* Index of word w (case-insensitive) in the NULL-terminated list, or -1. */
static int word_index(const char *w, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(w, list[i]) == 0) return i;
    return -1;
}

/* Split the banner line into up to 5 lowercased words; returns the word count (6 = more). */
static int banner_words(const char *p, const char *end, char w[5][24])
{
    int nw = 0;
    for (;;) {
        while (is_blank(*p)) p++;
        if (p >= end || *p == '\n') return nw;
        if (nw == 5) return 6;
        size_t n = 0;
        for (; p < end && !is_blank(*p) && *p != '\n'; p++)
            if (n + 1 < sizeof w[0]) w[nw][n++] = (char)tolower((unsigned char)*p);
        w[nw++][n] = '\0';
    }
}

/* Parse "%%MatrixMarket object format field symmetry" into f; leaves the cursor after it. */
static gs_status parse_banner(mm_file *f)
{
    static const char *const objects[] = {"matrix", "vector", NULL};
    static const char *const formats[] = {"coordinate", "array", NULL};
    static const char *const fields[] = {"real", "integer", "pattern", "complex", NULL};
    static const char *const syms[] = {"general", "symmetric", "skew-symmetric", "hermitian", NULL};
    gs_status st = GS_OK;
    char w[5][24], found[64];
    const char *p = f->p;
    long long ln = f->line;
    while (is_blank(*p) || (*p == '\n' && p < f->end)) ln += *p++ == '\n';
    line_str(p, f->end, found, sizeof found);
    int nw = banner_words(p, f->end, w);
    if (nw != 5 || strcmp(w[0], "%%matrixmarket") != 0)
        GS_FAIL(GS_ERR_INPUT, "%s:%lld: bad banner: expected " BANNER_EXPECTED ", found '%s'",
                f->path, ln, found);
    int obj = word_index(w[1], objects), fmt = word_index(w[2], formats);
    int fld = word_index(w[3], fields), sym = word_index(w[4], syms);
    if (obj < 0)
        GS_FAIL(GS_ERR_INPUT,
                "%s:%lld: bad banner: unknown object '%s', expected 'matrix' or 'vector'", f->path,
                ln, w[1]);
    if (fmt < 0)
        GS_FAIL(GS_ERR_INPUT,
                "%s:%lld: bad banner: unknown format '%s', expected 'coordinate' or 'array'",
                f->path, ln, w[2]);
    if (fld < 0)
        GS_FAIL(GS_ERR_INPUT,
                "%s:%lld: bad banner: unknown field '%s', expected 'real', 'integer' or 'pattern'",
                f->path, ln, w[3]);
    if (sym < 0)
        GS_FAIL(GS_ERR_INPUT,
                "%s:%lld: bad banner: unknown symmetry '%s', expected 'general', 'symmetric' or "
                "'skew-symmetric'",
                f->path, ln, w[4]);
    if (fld == 3)
        GS_FAIL(GS_ERR_UNSUPPORTED,
                "%s:%lld: complex matrices (field 'complex', symmetry '%s') are not supported: "
                "gsolve reads real, integer and pattern fields",
                f->path, ln, w[4]);
    if (fmt == FMT_ARRAY && fld == FLD_PATTERN)
        GS_FAIL(GS_ERR_INPUT, "%s:%lld: bad banner: the array format cannot have field 'pattern'",
                f->path, ln);
    if (obj == 1 && sym != SYM_GENERAL)
        GS_FAIL(GS_ERR_INPUT, "%s:%lld: bad banner: a vector cannot be '%s', expected 'general'",
                f->path, ln, w[4]);
    if (fld == FLD_PATTERN && sym == SYM_SKEW)
        GS_FAIL(GS_ERR_INPUT, "%s:%lld: bad banner: a pattern matrix cannot be skew-symmetric",
                f->path, ln);
    f->vector = obj == 1;
    f->format = fmt;
    f->field = fld;
    f->sym = sym == 3 ? SYM_SYMMETRIC : sym; /* a real Hermitian matrix is symmetric */
    for (int i = 0; i < 4; i++) memcpy(f->words[i], w[i + 1], sizeof f->words[i]);
    p = memchr(p, '\n', (size_t)(f->end - p));
    f->p = p ? p + 1 : f->end;
    f->line = ln + (p != NULL);
done:
    return st;
}

/* Parse the size line: "rows cols entries", "rows cols" (array), "n entries", "n" (vector). */
static gs_status parse_size(mm_file *f)
{
    gs_status st = GS_OK;
    static const char *const shapes[2][2] = {{"rows cols entries", "rows cols"},
                                             {"length entries", "length"}};
    const char *want = shapes[f->vector][f->format];
    int need = (f->vector ? 1 : 2) + (f->format == FMT_COORD);
    int64_t v[4] = {0, 0, 0, 0};
    char tok[4][32], found[64];
    f->p = skip_noise(f->p, f->end, &f->line);
    f->size_line = f->line;
    if (f->p >= f->end) GS_FAIL(GS_ERR_INPUT, "%s:%lld: size line missing", f->path, f->line);
    line_str(f->p, f->end, found, sizeof found);
    const char *p = f->p;
    int nt = 0;
    for (; nt < 4; nt++) {
        while (is_blank(*p)) p++;
        if (p >= f->end || *p == '\n') break;
        const char *q = scan_int(p, &v[nt]);
        if (!q || !ends_token(q, f->end))
            GS_FAIL(GS_ERR_INPUT, "%s:%lld: bad size line '%s': expected '%s'", f->path, f->line,
                    found, want);
        snprintf(tok[nt], sizeof tok[nt], "%.*s", (int)(q - p), p);
        p = q;
    }
    if (nt != need)
        GS_FAIL(GS_ERR_INPUT, "%s:%lld: bad size line '%s': expected '%s'", f->path, f->line, found,
                want);
    for (int i = 0; i < nt; i++)
        if (v[i] < 0) GS_FAIL(GS_ERR_INPUT, "%s:%lld: negative size %s", f->path, f->line, tok[i]);
    f->rows = v[0];
    f->cols = f->vector ? 1 : v[1];
    if (f->rows > GS_MAX_INDEX || f->cols > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED,
                "%s:%lld: matrix is %s x %s: gsolve supports at most 2147483647 rows and columns "
                "(32-bit indices)",
                f->path, f->line, tok[0], f->vector ? "1" : tok[1]);
    if ((f->sym != SYM_GENERAL) && f->rows != f->cols)
        GS_FAIL(GS_ERR_INPUT, "%s:%lld: a %s matrix must be square, found %lld x %lld", f->path,
                f->line, f->words[3], (long long)f->rows, (long long)f->cols);
    if (f->format == FMT_COORD)
        f->entries = v[nt - 1];
    else if (f->sym == SYM_GENERAL)
        f->entries = f->rows * f->cols;
    else if (f->sym == SYM_SYMMETRIC)
        f->entries = f->rows * (f->rows + 1) / 2;
    else
        f->entries = f->rows * (f->rows - (f->rows > 0)) / 2;
    if (f->entries > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED,
                "%s:%lld: matrix %lld x %lld has %lld stored entries: gsolve supports at most "
                "2147483647 nonzeros (32-bit indices)",
                f->path, f->line, (long long)f->rows, (long long)f->cols, (long long)f->entries);
    if (f->format == FMT_COORD && GS_SIZE_IMPLAUSIBLE(f->rows, f->cols, f->entries))
        GS_FAIL(GS_ERR_INPUT,
                "%s:%lld: the size line claims %lld x %lld with %lld stored entries: more than 15 "
                "of every 16 rows or columns would be empty; expected a size that fits the entries",
                f->path, f->line, (long long)f->rows, (long long)f->cols, (long long)f->entries);
    p = memchr(p, '\n', (size_t)(f->end - p));
    f->p = p ? p + 1 : f->end;
    f->line += p != NULL;
done:
    return st;
}

/* Load path and parse its banner and size line; the cursor is left at the data. */
static gs_status mm_open(const char *path, mm_file *f)
{
    gs_status st = GS_OK;
    size_t len = 0;
    memset(f, 0, sizeof *f);
    f->path = path;
    GS_CHECK(load_file(path, &f->buf, &len));
    f->p = f->buf;
    f->end = f->buf + len;
    f->line = 1;
    GS_CHECK(parse_banner(f));
    GS_CHECK(parse_size(f));
done:
    return st;
}

/* ------------------------------------------------------------------ data */

/* Record "PATH:LINE: expected WHAT, found 'TOKEN'". */
static gs_status bad_token(const mm_file *f, long long line, const char *tok, const char *what)
{
    char buf[64];
    return GS_ERROR(GS_ERR_INPUT, "%s:%lld: expected %s, found %s", f->path, line, what,
                    token_str(tok, f->end, buf, sizeof buf));
}

/* Record the error for a value token that did not scan. */
static gs_status bad_value(const mm_file *f, long long line, const char *tok, int why)
{
    char buf[64];
    if (why == NUM_NONFINITE)
        return GS_ERROR(GS_ERR_INPUT, "%s:%lld: value %s is not a finite number", f->path, line,
                        token_str(tok, f->end, buf, sizeof buf));
    return bad_token(f, line, tok, "a number");
}

/* Record "PATH:LINE: KIND I out of range 1..N". */
static gs_status bad_index(const mm_file *f, long long line, const char *kind, int64_t i, int64_t n)
{
    if (n == 0)
        return GS_ERROR(GS_ERR_INPUT, "%s:%lld: %s %lld out of range (the size is 0)", f->path,
                        line, kind, (long long)i);
    return GS_ERROR(GS_ERR_INPUT, "%s:%lld: %s %lld out of range 1..%lld", f->path, line, kind,
                    (long long)i, (long long)n);
}

/* Record the error for text after the last field of an entry. */
static gs_status extra_token(const mm_file *f, long long line, const char *tok)
{
    char buf[64];
    return GS_ERROR(GS_ERR_INPUT, "%s:%lld: unexpected %s after the entry, expected end of line",
                    f->path, line, token_str(tok, f->end, buf, sizeof buf));
}

/* Record a count mismatch: the file ended early. */
static gs_status too_few(const mm_file *f, int64_t k)
{
    return GS_ERROR(GS_ERR_INPUT, "%s: file ends after %lld of %lld entries declared on line %lld",
                    f->path, (long long)k, (long long)f->entries, f->size_line);
}

/* Record a count mismatch: an entry beyond the declared count. */
static gs_status too_many(const mm_file *f, long long line)
{
    return GS_ERROR(GS_ERR_INPUT, "%s:%lld: more entries than the %lld declared on line %lld",
                    f->path, line, (long long)f->entries, f->size_line);
}

/* Room for the entries of `fields` tokens each that the rest of the buffer can hold, plus a
 * partial one: a false declared count does not make us allocate more than the file can fill. */
static int64_t entry_cap(const mm_file *f, int fields)
{
    int64_t fit = ((int64_t)(f->end - f->p) + 1) / (2 * fields) + 1;
    return f->entries < fit ? f->entries : fit;
}

/* Fail with an already recorded error. */
#define FAIL_ST(expr)                                                                              \
    do {                                                                                           \
        st = (expr);                                                                               \
        goto done;                                                                                 \
    } while (0)

/* Move from the end of one field to the start of the next one, described by `what`. */
#define NEXT_FIELD(what)                                                                           \
    do {                                                                                           \
        if (!is_blank(*p) && *p != '\n' && p < end) FAIL_ST(bad_token(f, line, tok, prev));        \
        while (is_blank(*p)) p++;                                                                  \
        if (*p == '\n' || p >= end) FAIL_ST(bad_token(f, line, p, what));                          \
        tok = p;                                                                                   \
        prev = what;                                                                               \
    } while (0)

/* After the last field: only blanks up to the end of the line. */
#define END_ENTRY()                                                                                \
    do {                                                                                           \
        if (!ends_token(p, end)) FAIL_ST(bad_token(f, line, tok, prev));                           \
        while (is_blank(*p)) p++;                                                                  \
        if (*p == '\n')                                                                            \
            p++;                                                                                   \
        else if (p < end)                                                                          \
            FAIL_ST(extra_token(f, line, p));                                                      \
    } while (0)

/* Parse coordinate entries into 0-based ri/ci (ci = 0 for vectors) and v (NULL for pattern). */
static gs_status parse_coord(mm_file *f, int32_t *ri, int32_t *ci, double *v, int64_t cap,
                             int64_t *count)
{
    gs_status st = GS_OK;
    const char *p = f->p, *end = f->end, *tok = p, *prev = "";
    long long line = f->line;
    int64_t k = 0, i, j = 1;
    const int64_t ne = f->entries, nr = f->rows, nc = f->cols;
    const int vec = f->vector, pattern = f->field == FLD_PATTERN, skew = f->sym == SYM_SKEW;
    const char *row_kind = vec ? "an index" : "a row index";
    for (;; line++) {
        if (is_blank(*p) || *p == '\n' || *p == '%') p = skip_noise(p, end, &line);
        if (p >= end) break;
        if (k >= ne) FAIL_ST(too_many(f, line));
        if (k >= cap)
            GS_FAIL(GS_ERR_INTERNAL, "%s: entry capacity %lld too small", f->path, (long long)cap);
        double x = 1.0;
        tok = p;
        prev = row_kind;
        if (!(p = scan_int(p, &i))) FAIL_ST(bad_token(f, line, tok, prev));
        if (!vec) {
            NEXT_FIELD("a column index");
            if (!(p = scan_int(p, &j))) FAIL_ST(bad_token(f, line, tok, prev));
        }
        if (!pattern) {
            NEXT_FIELD("a number");
            int r = scan_double(&p, end, &x);
            if (r != NUM_OK) FAIL_ST(bad_value(f, line, tok, r));
        }
        END_ENTRY();
        if (i < 1 || i > nr) FAIL_ST(bad_index(f, line, vec ? "index" : "row index", i, nr));
        if (j < 1 || j > nc) FAIL_ST(bad_index(f, line, "column index", j, nc));
        if (skew && i == j && x != 0.0)
            GS_FAIL(GS_ERR_INPUT,
                    "%s:%lld: skew-symmetric matrix has a nonzero diagonal entry (%lld,%lld), "
                    "expected none",
                    f->path, line, (long long)i, (long long)j);
        ri[k] = (int32_t)(i - 1);
        ci[k] = (int32_t)(j - 1);
        if (v) v[k] = x;
        k++;
    }
    if (k < ne) FAIL_ST(too_few(f, k));
    *count = k;
done:
    return st;
}

/* Parse array entries (one value per line, in file order) into a[0 .. entries-1]. */
static gs_status parse_array(mm_file *f, double *a, int64_t cap)
{
    gs_status st = GS_OK;
    const char *p = f->p, *end = f->end, *tok = p, *prev = "a number";
    long long line = f->line;
    int64_t k = 0;
    const int64_t ne = f->entries;
    for (;; line++) {
        if (is_blank(*p) || *p == '\n' || *p == '%') p = skip_noise(p, end, &line);
        if (p >= end) break;
        if (k >= ne) FAIL_ST(too_many(f, line));
        if (k >= cap)
            GS_FAIL(GS_ERR_INTERNAL, "%s: entry capacity %lld too small", f->path, (long long)cap);
        tok = p;
        int r = scan_double(&p, end, &a[k]);
        if (r != NUM_OK) FAIL_ST(bad_value(f, line, tok, r));
        END_ENTRY();
        k++;
    }
    if (k < ne) FAIL_ST(too_few(f, k));
done:
    return st;
}

/* ------------------------------------------------------------------ matrices */

/* Refuse an expanded nonzero count that does not fit 32-bit indices. */
static gs_status check_nnz(const mm_file *f, int64_t nnz)
{
    if (nnz <= GS_MAX_INDEX) return GS_OK;
    return GS_ERROR(GS_ERR_UNSUPPORTED,
                    "%s: %s matrix %lld x %lld with %lld stored entries expands to %lld nonzeros: "
                    "gsolve supports at most 2147483647 (32-bit indices)",
                    f->path, f->words[3], (long long)f->rows, (long long)f->cols,
                    (long long)f->entries, (long long)nnz);
}

/* Grow three triplet arrays to n entries (v may be NULL) for full storage of f's matrix. */
static gs_status grow_coo(const mm_file *f, int64_t n, int32_t **ri, int32_t **ci, double **v)
{
    size_t b = (size_t)(n ? n : 1), bytes = b * sizeof **ri;
    int32_t *a;
    double *d;
    if (!(a = gs_realloc(*ri, bytes))) goto nomem;
    *ri = a;
    if (!(a = gs_realloc(*ci, bytes))) goto nomem;
    *ci = a;
    bytes = b * sizeof **v;
    if (*v && !(d = gs_realloc(*v, bytes))) goto nomem;
    if (*v) *v = d;
    return GS_OK;
nomem:
    return GS_ERROR(GS_ERR_NOMEM,
                    "out of memory: could not allocate %zu bytes to expand the %s matrix of %s "
                    "to %lld entries",
                    bytes, f->words[3], f->path, (long long)n);
}

/* Full storage from one triangle: append (j,i) = a(i,j) (negated when skew) for i != j. */
static gs_status expand_coo(const mm_file *f, int32_t **ri, int32_t **ci, double **v, int64_t *nnz)
{
    gs_status st = GS_OK;
    int64_t n = *nnz, off = 0;
    for (int64_t k = 0; k < n; k++) off += (*ri)[k] != (*ci)[k];
    GS_CHECK(check_nnz(f, n + off));
    GS_CHECK(grow_coo(f, n + off, ri, ci, v));
    const double sign = f->sym == SYM_SKEW ? -1.0 : 1.0;
    int32_t *r = *ri, *c = *ci;
    double *x = *v;
    int64_t w = n;
    for (int64_t k = 0; k < n; k++) {
        if (r[k] == c[k]) continue;
        r[w] = c[k];
        c[w] = r[k];
        if (x) x[w] = sign * x[k];
        w++;
    }
    *nnz = w;
done:
    return st;
}

/* Stored array values (column-major; lower triangle when symmetric) -> triplets, no zeros. */
static gs_status array_to_coo(const mm_file *f, const double *a, int32_t **ri, int32_t **ci,
                              double **v, int64_t *nnz)
{
    gs_status st = GS_OK;
    const int gen = f->sym == SYM_GENERAL, skew = f->sym == SYM_SKEW;
    const double sign = skew ? -1.0 : 1.0;
    int64_t cnt = 0, k = 0, w = 0;
    for (int64_t j = 0; j < f->cols; j++)
        for (int64_t i = gen ? 0 : j + skew; i < f->rows; i++, k++)
            if (a[k] != 0.0) cnt += (!gen && i != j) ? 2 : 1;
    GS_CHECK(check_nnz(f, cnt));
    GS_CHECK(gs_alloc_array((size_t)(cnt ? cnt : 1), sizeof **ri, "row indices", (void **)ri));
    GS_CHECK(gs_alloc_array((size_t)(cnt ? cnt : 1), sizeof **ci, "column indices", (void **)ci));
    GS_CHECK(gs_alloc_array((size_t)(cnt ? cnt : 1), sizeof **v, "values", (void **)v));
    k = 0;
    for (int64_t j = 0; j < f->cols; j++) {
        for (int64_t i = gen ? 0 : j + skew; i < f->rows; i++, k++) {
            if (a[k] == 0.0) continue;
            (*ri)[w] = (int32_t)i, (*ci)[w] = (int32_t)j, (*v)[w++] = a[k];
            if (!gen && i != j)
                (*ri)[w] = (int32_t)j, (*ci)[w] = (int32_t)i, (*v)[w++] = sign * a[k];
        }
    }
    *nnz = w;
done:
    return st;
}

/* When the triplets are already in CSR order (rows ascending, columns strictly ascending in a
 * row, as gs_mm_write writes them), build A around ci and v without sorting; else *out = NULL. */
static gs_status csr_from_sorted(int64_t rows, int64_t cols, int64_t nnz, const int32_t *ri,
                                 int32_t **ci, double **v, gs_csr **out)
{
    gs_status st = GS_OK;
    gs_csr *A = NULL;
    const int32_t *c = *ci;
    for (int64_t k = 1; k < nnz; k++)
        if (ri[k] < ri[k - 1] || (ri[k] == ri[k - 1] && c[k] <= c[k - 1])) return GS_OK;
    GS_CHECK(gs_csr_create(rows, cols, 0, &A));
    gs_free(A->colind);
    gs_free(A->val);
    A->colind = *ci, *ci = NULL; /* adopted: the caller no longer owns them */
    A->val = *v, *v = NULL;
    A->nnz = (int32_t)nnz;
    if (!A->val) { /* pattern */
        GS_CHECK(gs_alloc_array((size_t)(nnz ? nnz : 1), sizeof *A->val, "CSR values",
                                (void **)&A->val));
        for (int64_t k = 0; k < nnz; k++) A->val[k] = 1.0;
    }
    memset(A->rowptr, 0, ((size_t)rows + 1) * sizeof *A->rowptr);
    for (int64_t k = 0; k < nnz; k++) A->rowptr[ri[k] + 1]++;
    for (int64_t i = 0; i < rows; i++) A->rowptr[i + 1] += A->rowptr[i];
    *out = A;
    A = NULL;
done:
    gs_csr_destroy(&A);
    return st;
}

/* Allocate triplets for the declared coordinate entries and parse them. */
static gs_status read_coord(mm_file *f, int32_t **ri, int32_t **ci, double **v, int64_t *nnz)
{
    gs_status st = GS_OK;
    const int fields = (f->vector ? 1 : 2) + (f->field != FLD_PATTERN);
    const int64_t cap = entry_cap(f, fields);
    const size_t n = (size_t)(cap ? cap : 1);
    GS_CHECK(gs_alloc_array(n, sizeof **ri, "row indices", (void **)ri));
    GS_CHECK(gs_alloc_array(n, sizeof **ci, "column indices", (void **)ci));
    if (f->field != FLD_PATTERN) GS_CHECK(gs_alloc_array(n, sizeof **v, "values", (void **)v));
    GS_CHECK(parse_coord(f, *ri, *ci, *v, cap, nnz));
done:
    return st;
}

/* Allocate the stored array values and parse them. */
static gs_status read_array(mm_file *f, double **a)
{
    gs_status st = GS_OK;
    const int64_t cap = entry_cap(f, 1);
    GS_CHECK(gs_alloc_array((size_t)(cap ? cap : 1), sizeof **a, "array values", (void **)a));
    GS_CHECK(parse_array(f, *a, cap));
done:
    return st;
}

/* Copy a banner word (already validated, so short) into a fixed field. */
static void copy_word(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    n = n < cap ? n : cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Every value the reader stores is a finite number from the file, or a sum of duplicates of
 * them, which may overflow: refuse that (naming the entry) rather than hand on an Inf. */
static gs_status check_sums(const mm_file *f, const gs_csr *A)
{
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (!isfinite(A->val[k]))
                return GS_ERROR(GS_ERR_INPUT,
                                "%s: entry (%d, %d): its duplicate entries sum to %g, expected a "
                                "finite number",
                                f->path, i + 1, A->colind[k] + 1, A->val[k]);
    return GS_OK;
}

/* What the header said, for the caller. */
static void fill_info(const mm_file *f, gs_mm_info *info)
{
    memset(info, 0, sizeof *info);
    copy_word(info->object, sizeof info->object, f->words[0]);
    copy_word(info->format, sizeof info->format, f->words[1]);
    copy_word(info->field, sizeof info->field, f->words[2]);
    copy_word(info->symmetry, sizeof info->symmetry, f->words[3]);
    info->rows = f->rows;
    info->cols = f->cols;
    info->entries = f->entries;
}

gs_status gs_mm_read(const char *path, gs_csr **A, gs_mm_info *info)
{
    gs_status st = GS_OK;
    mm_file f;
    int32_t *ri = NULL, *ci = NULL;
    double *v = NULL, *a = NULL;
    int64_t nnz = 0;
    memset(&f, 0, sizeof f);
    if (!path || !A) return GS_ERROR(GS_ERR_ARG, "gs_mm_read: path and A must not be NULL");
    *A = NULL;
    GS_CHECK(mm_open(path, &f));
    /* the header's size, before the entries are parsed (a symmetric file's about twice) */
    gs_problem_sized(f.rows, f.format == FMT_COORD && f.sym != SYM_GENERAL ? 2 * f.entries
                                                                            : f.entries);
    if (f.format == FMT_COORD) {
        GS_CHECK(read_coord(&f, &ri, &ci, &v, &nnz));
        gs_free(f.buf), f.buf = NULL;
        if (f.sym != SYM_GENERAL) GS_CHECK(expand_coo(&f, &ri, &ci, &v, &nnz));
    } else {
        GS_CHECK(read_array(&f, &a));
        gs_free(f.buf), f.buf = NULL;
        GS_CHECK(array_to_coo(&f, a, &ri, &ci, &v, &nnz));
    }
    GS_CHECK(csr_from_sorted(f.rows, f.cols, nnz, ri, &ci, &v, A));
    if (!*A) GS_CHECK(gs_csr_from_coo(f.rows, f.cols, nnz, ri, ci, v, A));
    GS_CHECK(check_sums(&f, *A));
    if (info) fill_info(&f, info);
done:
    if (st != GS_OK) gs_csr_destroy(A);
    gs_free(f.buf);
    gs_free(ri);
    gs_free(ci);
    gs_free(v);
    gs_free(a);
    return st;
}

gs_status gs_mm_read_vector(const char *path, int64_t n_expected, double **out, int64_t *n)
{
    gs_status st = GS_OK;
    mm_file f;
    int32_t *ri = NULL, *ci = NULL;
    double *v = NULL, *x = NULL;
    int64_t nnz = 0;
    memset(&f, 0, sizeof f);
    if (!path || !out || !n)
        return GS_ERROR(GS_ERR_ARG, "gs_mm_read_vector: path, out and n must not be NULL");
    *out = NULL;
    *n = 0;
    GS_CHECK(mm_open(path, &f));
    if (f.cols != 1)
        GS_FAIL(GS_ERR_INPUT, "%s:%lld: expected a vector (n x 1), found a %lld x %lld %s matrix",
                path, f.size_line, (long long)f.rows, (long long)f.cols, f.words[1]);
    if (n_expected >= 0 && f.rows != n_expected)
        GS_FAIL(GS_ERR_INPUT, "%s: vector has %lld entries, the matrix has %lld rows", path,
                (long long)f.rows, (long long)n_expected);
    /* an array file holds every entry: allocate no more than its text can hold, so a size line
     * claiming 2^31 entries over a few lines is refused, not a 16 GB allocation */
    const int64_t len = f.format == FMT_ARRAY ? entry_cap(&f, 1) : f.rows;
    GS_CHECK(gs_alloc_array((size_t)(len ? len : 1), sizeof *x, "vector", (void **)&x));
    memset(x, 0, (size_t)len * sizeof *x);
    if (f.format == FMT_COORD) {
        GS_CHECK(read_coord(&f, &ri, &ci, &v, &nnz));
        for (int64_t k = 0; k < nnz; k++) x[ri[k]] += v ? v[k] : 1.0;
        for (int64_t i = 0; i < f.rows; i++)
            if (!isfinite(x[i]))
                GS_FAIL(GS_ERR_INPUT,
                        "%s: entry %lld: its duplicate entries sum to %g, expected a finite "
                        "number",
                        path, (long long)i + 1, x[i]);
    } else {
        GS_CHECK(parse_array(&f, x, len)); /* n x 1: the stored entries are x itself */
    }
    *out = x;
    *n = f.rows;
    x = NULL;
done:
    gs_free(f.buf);
    gs_free(ri);
    gs_free(ci);
    gs_free(v);
    gs_free(x);
    return st;
}

/* ------------------------------------------------------------------ writing */

/* A buffered output file, plain or (for a path ending in ".gz") gzip-compressed. */
typedef struct mm_out {
    const char *path;
    FILE *fp;
    gzFile gz;
    char *buf;
    size_t n;
} mm_out;

#define OUT_CAP (1u << 20)
#define OUT_SLACK 128 /* room for one entry line */

/* Record a write failure naming the path and the system's reason. */
static gs_status write_error(const mm_out *o, int err)
{
    const char *why = err ? strerror(err) : "write failed";
    if (o->gz && !err) {
        int zerr;
        why = gzerror(o->gz, &zerr);
    }
    return GS_ERROR(GS_ERR_WRITE, "cannot write '%s': %s", o->path, why);
}

/* Open path for writing with a buffer. */
static gs_status out_open(mm_out *o, const char *path)
{
    gs_status st = GS_OK;
    size_t len = strlen(path);
    memset(o, 0, sizeof *o);
    o->path = path;
    errno = 0;
    if (len > 3 && strcmp(path + len - 3, ".gz") == 0)
        o->gz = gzopen(path, "wb6");
    else
        o->fp = fopen(path, "wb");
    if (!o->gz && !o->fp) FAIL_ST(write_error(o, errno ? errno : ENOMEM));
    GS_CHECK(gs_alloc_array(OUT_CAP, 1, "output buffer", (void **)&o->buf));
done:
    return st;
}

/* Write out the buffered bytes. */
static gs_status out_flush(mm_out *o)
{
    if (!o->n) return GS_OK;
    errno = 0;
    if (o->fp ? fwrite(o->buf, 1, o->n, o->fp) != o->n
              : gzwrite(o->gz, o->buf, (unsigned)o->n) != (int)o->n)
        return write_error(o, errno);
    o->n = 0;
    return GS_OK;
}

/* Flush and close (st: the status so far; on failure only release). */
static gs_status out_close(mm_out *o, gs_status st)
{
    if (st == GS_OK) st = out_flush(o);
    errno = 0;
    if (o->fp && fclose(o->fp) != 0 && st == GS_OK) st = write_error(o, errno);
    if (o->gz) {
        int r = gzclose_w(o->gz);
        o->gz = NULL;
        if (r != Z_OK && st == GS_OK) st = write_error(o, r == Z_ERRNO ? errno : EIO);
    }
    o->fp = NULL;
    gs_free(o->buf);
    o->buf = NULL;
    return st;
}

/* Append the decimal digits of v. */
static char *put_u64(char *q, uint64_t v)
{
    char t[20];
    int n = 0;
    do t[n++] = (char)('0' + v % 10), v /= 10;
    while (v);
    while (n) *q++ = t[--n];
    return q;
}

/* Append x with 17 significant digits (exactly what "%.17g" prints, integers fast). */
static char *put_double(char *q, double x)
{
    if (fabs(x) < 1e15 && x == (double)(int64_t)x && !(x == 0.0 && signbit(x))) {
        if (x < 0) *q++ = '-';
        return put_u64(q, (uint64_t)fabs(x));
    }
    return q + snprintf(q, OUT_SLACK / 2, "%.17g", x);
}

/* Append text; flush first when the buffer is nearly full. */
static gs_status out_room(mm_out *o)
{
    return OUT_CAP - o->n < OUT_SLACK ? out_flush(o) : GS_OK;
}

gs_status gs_mm_write(const char *path, const gs_csr *A)
{
    gs_status st = GS_OK;
    mm_out o;
    memset(&o, 0, sizeof o);
    if (!path || !A) return GS_ERROR(GS_ERR_ARG, "gs_mm_write: path and A must not be NULL");
    if (A->loc != GS_LOC_HOST)
        return GS_ERROR(GS_ERR_ARG, "gs_mm_write '%s': the matrix must be on the host", path);
    GS_CHECK(out_open(&o, path));
    o.n = (size_t)snprintf(o.buf, OUT_CAP,
                           "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", A->rows,
                           A->cols, A->nnz);
    for (int32_t i = 0; i < A->rows; i++) {
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            GS_CHECK(out_room(&o));
            char *q = o.buf + o.n;
            q = put_u64(q, (uint64_t)i + 1);
            *q++ = ' ';
            q = put_u64(q, (uint64_t)A->colind[k] + 1);
            *q++ = ' ';
            q = put_double(q, A->val[k]);
            *q++ = '\n';
            o.n = (size_t)(q - o.buf);
        }
    }
done:
    return out_close(&o, st);
}

gs_status gs_mm_write_vector(const char *path, const double *x, int64_t n)
{
    return gs_mm_write_array(path, x, n, 1);
}

gs_status gs_mm_write_array(const char *path, const double *x, int64_t n, int64_t k)
{
    gs_status st = GS_OK;
    mm_out o;
    memset(&o, 0, sizeof o);
    if (!path || (!x && n > 0) || n < 0 || k < 1)
        return GS_ERROR(GS_ERR_ARG, "gs_mm_write_array: bad arguments (path %s, n %lld, k %lld)",
                        path ? path : "NULL", (long long)n, (long long)k);
    GS_CHECK(out_open(&o, path));
    o.n = (size_t)snprintf(o.buf, OUT_CAP, "%%%%MatrixMarket matrix array real general\n%lld %lld\n",
                           (long long)n, (long long)k);
    for (int64_t i = 0; i < n * k; i++) {
        GS_CHECK(out_room(&o));
        char *q = put_double(o.buf + o.n, x[i]);
        *q++ = '\n';
        o.n = (size_t)(q - o.buf);
    }
done:
    return out_close(&o, st);
}

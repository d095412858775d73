/* gs_npy.c: a reader of NumPy .npy files: vectors and 2-D arrays of floats or integers.
 *
 * The format (numpy.lib.format): the magic "\x93NUMPY", a major and a minor version byte, the
 * header's length (2 bytes little-endian in version 1, 4 bytes in versions 2 and 3), the header
 * (a Python dict literal: {'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }, padded
 * with spaces and a newline), then the values. Every length read from the file is checked
 * against the bytes there are before anything is allocated from it. */
#include "gs_npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gs_csr.h"
#include "gs_mem.h"

#define HEADER_MAX 65536 /* NumPy writes far less; a larger one is not a header */

int gs_npy_is_npy(const char *path)
{
    unsigned char m[6];
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    int yes = fread(m, 1, 6, f) == 6 && memcmp(m, "\x93NUMPY", 6) == 0;
    fclose(f);
    return yes;
}

/* 1 on a little-endian host. */
static int little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* The text after key's ':' in the header dict, or NULL. */
static const char *dict_value(const char *h, const char *key)
{
    char q1[40], q2[40];
    snprintf(q1, sizeof q1, "'%s'", key);
    snprintf(q2, sizeof q2, "\"%s\"", key);
    const char *p = strstr(h, q1);
    if (!p) p = strstr(h, q2);
    if (!p) return NULL;
    p = strchr(p + strlen(q1), ':');
    if (!p) return NULL;
    for (p++; *p == ' '; p++) {
    }
    return p;
}

/* A name for the dtype ('<f4' -> " (float32, little-endian)"), for messages. */
static void dtype_words(const gs_npy_info *a, char *out, size_t len)
{
    const char *order = a->size <= 1 || a->descr[0] == '|' ? ""
                        : a->big                           ? ", big-endian"
                                                           : ", little-endian";
    const char *kind = a->kind == 'f'   ? "float"
                       : a->kind == 'i' ? "int"
                       : a->kind == 'u' ? "uint"
                       : a->kind == 'c' ? "complex"
                       : a->kind == 'b' ? "bool"
                                        : NULL;
    if (kind && a->size > 0)
        snprintf(out, len, " (%s%d%s)", kind, a->kind == 'b' ? 8 : 8 * a->size, order);
    else if (a->kind == 'S' || a->kind == 'U')
        snprintf(out, len, " (text)");
    else
        out[0] = '\0';
}

/* The dtype string: byte order, kind, size. */
static gs_status parse_descr(const char *name, const char *d, gs_npy_info *a)
{
    if (*d == '[')
        return GS_ERROR(GS_ERR_INPUT,
                        "%s: a structured dtype (record array): expected numbers (float64, "
                        "float32 or integers)",
                        name);
    if (*d == '\'' || *d == '"') {
        const char *e = strchr(d + 1, *d);
        if (e && (size_t)(e - d - 1) < sizeof a->descr)
            memcpy(a->descr, d + 1, (size_t)(e - d - 1));
    }
    const char *t = a->descr;
    a->big = !little_endian();
    if (*t == '<' || *t == '>' || *t == '=' || *t == '|') {
        if (*t == '<') a->big = 0;
        if (*t == '>') a->big = 1;
        t++;
    }
    char *end = NULL;
    long sz = t[0] ? strtol(t + 1, &end, 10) : 0;
    a->kind = t[0] && strchr("fiucbSU", t[0]) && end && end != t + 1 && !*end ? t[0] : '?';
    a->size = (int)(sz > 0 && sz <= 64 ? sz : 0);
    if (a->kind == 'U') a->size *= 4;
    if (a->kind == '?' || a->size == 0)
        return GS_ERROR(GS_ERR_INPUT,
                        "%s: dtype '%s': not an array of numbers (expected float64, float32 or "
                        "integers)",
                        name, a->descr);
    return GS_OK;
}

/* The shape tuple "(3, 2)": at most 2 dimensions, each within gsolve's 32-bit indices. */
static gs_status parse_shape(const char *name, const char *sh, gs_npy_info *a)
{
    int64_t dim[2] = {1, 1};
    int nd = 0;
    if (*sh != '(') return GS_ERROR(GS_ERR_INPUT, "%s: the shape is not a tuple", name);
    for (const char *p = sh + 1; *p && *p != ')';) {
        char *end = NULL;
        long long v = strtoll(p, &end, 10);
        if (end == p) {
            p++;
            continue;
        }
        if (v < 0) return GS_ERROR(GS_ERR_INPUT, "%s: negative size %lld in the shape", name, v);
        if (v > GS_MAX_INDEX)
            return GS_ERROR(GS_ERR_UNSUPPORTED,
                            "%s: size %lld in the shape exceeds gsolve's 32-bit indices", name, v);
        if (nd < 2) dim[nd] = v;
        nd++;
        p = end;
    }
    if (nd > 2)
        return GS_ERROR(GS_ERR_INPUT,
                        "%s: the array has %d dimensions: expected a vector or a 2-D array "
                        "(vectors as columns)",
                        name, nd);
    a->nd = nd;
    a->shape[0] = dim[0];
    a->shape[1] = dim[1];
    a->count = (size_t)dim[0] * (size_t)dim[1]; /* < 2^62 */
    return GS_OK;
}

/* The header dict (NUL-terminated): dtype, order and shape. */
static gs_status parse_header(const char *name, const char *h, gs_npy_info *a)
{
    gs_status st = GS_OK;
    const char *d = dict_value(h, "descr"), *fo = dict_value(h, "fortran_order"),
               *sh = dict_value(h, "shape");
    memset(a, 0, sizeof *a);
    if (!d || !fo || !sh)
        return GS_ERROR(GS_ERR_INPUT,
                        "%s: the .npy header lacks %s: expected 'descr', 'fortran_order' and "
                        "'shape'",
                        name,
                        !d    ? "'descr'"
                        : !fo ? "'fortran_order'"
                              : "'shape'");
    GS_CHECK(parse_descr(name, d, a));
    if (strncmp(fo, "True", 4) != 0 && strncmp(fo, "False", 5) != 0)
        return GS_ERROR(GS_ERR_INPUT, "%s: fortran_order is neither True nor False", name);
    a->colmajor = strncmp(fo, "True", 4) == 0;
    GS_CHECK(parse_shape(name, sh, a));
done:
    return st;
}

/* The first bytes pre[0..n): magic, version, header length: the header is at *hstart. */
static gs_status parse_prefix(const char *name, const unsigned char *pre, size_t n, size_t *hstart,
                              size_t *hlen)
{
    if (n < 8 || memcmp(pre, "\x93NUMPY", 6) != 0)
        return GS_ERROR(GS_ERR_INPUT,
                        "%s: not a NumPy .npy file (it does not begin with \\x93NUMPY)", name);
    int major = pre[6];
    if (major < 1 || major > 3)
        return GS_ERROR(GS_ERR_INPUT,
                        "%s: .npy format version %d.%d: versions 1.0, 2.0 and 3.0 are read", name,
                        major, pre[7]);
    size_t nlen = major == 1 ? 2 : 4;
    if (n < 8 + nlen) return GS_ERROR(GS_ERR_INPUT, "%s: the .npy header is cut short", name);
    *hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    if (nlen == 4) *hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    *hstart = 8 + nlen;
    if (*hlen == 0 || *hlen > HEADER_MAX)
        return GS_ERROR(GS_ERR_INPUT, "%s: the .npy header is cut short or %zu bytes long", name,
                        *hlen);
    return GS_OK;
}

/* The data (avail bytes after the header) must hold count items. */
static gs_status check_data(const char *name, const gs_npy_info *a, size_t avail)
{
    if (a->count > avail / (size_t)a->size)
        return GS_ERROR(GS_ERR_INPUT,
                        "%s: the data is cut short: %zu bytes for %lld x %lld values of %d bytes",
                        name, avail, (long long)a->shape[0], (long long)a->shape[1], a->size);
    return GS_OK;
}

gs_status gs_npy_parse(const char *name, const unsigned char *buf, size_t len, gs_npy_info *info,
                       size_t *data_off)
{
    gs_status st = GS_OK;
    size_t hstart = 0, hlen = 0;
    char *h = NULL;
    GS_CHECK(parse_prefix(name, buf, len, &hstart, &hlen));
    if (hlen > len - hstart)
        GS_FAIL(GS_ERR_INPUT, "%s: the .npy header is cut short (%zu bytes announced)", name, hlen);
    GS_CHECK(gs_alloc_array(hlen + 1, 1, ".npy header", (void **)&h));
    memcpy(h, buf + hstart, hlen);
    h[hlen] = '\0';
    GS_CHECK(parse_header(name, h, info));
    *data_off = hstart + hlen;
    GS_CHECK(check_data(name, info, len - *data_off));
done:
    gs_free(h);
    return st;
}

/* GS_OK when the items are numbers gs_npy_values converts; else the error naming the dtype. */
static gs_status check_numeric(const char *name, const gs_npy_info *a)
{
    char words[64];
    int ok = (a->kind == 'f' && (a->size == 4 || a->size == 8)) ||
             ((a->kind == 'i' || a->kind == 'u') &&
              (a->size == 1 || a->size == 2 || a->size == 4 || a->size == 8));
    if (ok) return GS_OK;
    dtype_words(a, words, sizeof words);
    if (a->kind == 'c')
        return GS_ERROR(GS_ERR_INPUT,
                        "%s: dtype '%s'%s: complex values are not supported (gsolve solves real "
                        "systems; expected float64, float32 or integers)",
                        name, a->descr, words);
    return GS_ERROR(GS_ERR_INPUT,
                    "%s: dtype '%s'%s: expected float64, float32 or integers (in NumPy: "
                    "np.save(path, a.astype('<f8')))",
                    name, a->descr, words);
}

/* One item at p as a double. */
static double item(const unsigned char *p, char kind, int size, int big)
{
    uint64_t u = 0;
    for (int k = 0; k < size; k++) u = u << 8 | p[big ? k : size - 1 - k];
    if (kind == 'f' && size == 4) {
        uint32_t w = (uint32_t)u;
        float x;
        memcpy(&x, &w, 4);
        return x;
    }
    if (kind == 'f') {
        double x;
        memcpy(&x, &u, 8);
        return x;
    }
    if (kind == 'i' && size < 8 && (u >> (8 * size - 1) & 1)) u |= ~(uint64_t)0 << (8 * size);
    return kind == 'i' ? (double)(int64_t)u : (double)u;
}

gs_status gs_npy_values(const char *name, const gs_npy_info *info, const unsigned char *data,
                        double *out)
{
    gs_status st = check_numeric(name, info);
    if (st != GS_OK) return st;
    for (size_t i = 0; i < info->count; i++)
        out[i] = item(data + i * (size_t)info->size, info->kind, info->size, info->big);
    return GS_OK;
}

gs_status gs_npy_read(const char *path, double **v, int64_t *rows, int64_t *cols, int *colmajor)
{
    gs_status st = GS_OK;
    unsigned char pre[12];
    char *h = NULL;
    double *buf = NULL;
    gs_npy_info a;
    struct stat sb;
    size_t hstart = 0, hlen = 0;
    *v = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return GS_ERROR(GS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    size_t fsize = fstat(fileno(f), &sb) == 0 && sb.st_size > 0 ? (size_t)sb.st_size : 0;
    size_t got = fread(pre, 1, sizeof pre, f);
    GS_CHECK(parse_prefix(path, pre, got, &hstart, &hlen));
    if (hstart + hlen > fsize)
        GS_FAIL(GS_ERR_INPUT, "%s: the .npy header is cut short (%zu bytes announced)", path, hlen);
    GS_CHECK(gs_alloc_array(hlen + 1, 1, ".npy header", (void **)&h));
    if (fseek(f, (long)hstart, SEEK_SET) != 0 || fread(h, 1, hlen, f) != hlen)
        GS_FAIL(GS_ERR_INPUT, "%s: the .npy header is cut short (%zu bytes announced)", path, hlen);
    h[hlen] = '\0';
    GS_CHECK(parse_header(path, h, &a));
    if (a.nd == 0)
        GS_FAIL(GS_ERR_INPUT, "%s: a scalar (shape ()): expected a vector or a 2-D array", path);
    GS_CHECK(check_numeric(path, &a));
    GS_CHECK(check_data(path, &a, fsize - hstart - hlen));
    GS_CHECK(gs_alloc_array(a.count ? a.count : 1, sizeof *buf, path, (void **)&buf));
    unsigned char *raw = (unsigned char *)buf; /* the items as stored, converted in place */
    got = fread(raw, (size_t)a.size, a.count, f);
    if (got != a.count)
        GS_FAIL(GS_ERR_INPUT, "%s: the data is cut short: %zu of %zu values (%lld x %lld)", path,
                got, a.count, (long long)a.shape[0], (long long)a.shape[1]);
    if (a.kind != 'f' || a.size != 8 || a.big != !little_endian())
        for (size_t i = a.count; i-- > 0;) /* backwards: item i lies at or before double i */
            buf[i] = item(raw + i * (size_t)a.size, a.kind, a.size, a.big);
    *rows = a.shape[0];
    *cols = a.shape[1];
    *colmajor = a.colmajor;
    *v = buf;
    buf = NULL;
done:
    fclose(f);
    gs_free(h);
    gs_free(buf);
    return st;
}

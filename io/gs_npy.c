/* gs_npy.c: a reader of NumPy .npy files of float64 vectors and 2-D arrays.
 *
 * The format (numpy.lib.format): the magic "\x93NUMPY", a major and a minor version byte, the
 * header's length (2 bytes little-endian in version 1, 4 bytes in versions 2 and 3), the header
 * (a Python dict literal: {'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }, padded
 * with spaces and a newline), then the values. */
#include "gs_npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A name for a dtype string ('<f4' -> "float32, little-endian"), for messages. */
static void dtype_words(const char *d, char *out, size_t len)
{
    const char *order = d[0] == '<' ? ", little-endian" : d[0] == '>' ? ", big-endian" : "";
    const char *t = (d[0] == '<' || d[0] == '>' || d[0] == '=' || d[0] == '|') ? d + 1 : d;
    const char *kind = t[0] == 'f'   ? "float"
                       : t[0] == 'i' ? "int"
                       : t[0] == 'u' ? "uint"
                       : t[0] == 'c' ? "complex"
                       : t[0] == 'b' ? "bool"
                                     : NULL;
    int bytes = atoi(t + 1);
    if (kind && bytes > 0)
        snprintf(out, len, " (%s%d%s)", kind, 8 * bytes, order);
    else
        out[0] = '\0';
}

/* The header's dtype, order and shape; the checks a float64 array of rank 1 or 2 must pass. */
static gs_status parse_header(const char *path, const char *h, int64_t *rows, int64_t *cols,
                              int *colmajor)
{
    char descr[32] = "", words[64];
    const char *d = dict_value(h, "descr"), *fo = dict_value(h, "fortran_order"),
               *sh = dict_value(h, "shape");
    if (!d || !fo || !sh)
        return GS_ERROR(GS_ERR_INPUT,
                        "%s: the .npy header lacks %s: expected 'descr', 'fortran_order' and "
                        "'shape'",
                        path,
                        !d    ? "'descr'"
                        : !fo ? "'fortran_order'"
                              : "'shape'");
    if (*d == '[')
        return GS_ERROR(GS_ERR_INPUT,
                        "%s: a structured dtype (record array): expected float64 values "
                        "('<f8')",
                        path);
    if (*d == '\'' || *d == '"') {
        const char *e = strchr(d + 1, *d);
        if (e && (size_t)(e - d - 1) < sizeof descr) memcpy(descr, d + 1, (size_t)(e - d - 1));
    }
    if (strcmp(descr, "<f8") != 0) {
        dtype_words(descr, words, sizeof words);
        return GS_ERROR(GS_ERR_INPUT,
                        "%s: dtype '%s'%s: expected float64 little-endian '<f8' (in NumPy: "
                        "np.save(path, a.astype('<f8')))",
                        path, descr, words);
    }
    if (strncmp(fo, "True", 4) != 0 && strncmp(fo, "False", 5) != 0)
        return GS_ERROR(GS_ERR_INPUT, "%s: fortran_order is neither True nor False", path);
    *colmajor = strncmp(fo, "True", 4) == 0;
    if (*sh != '(') return GS_ERROR(GS_ERR_INPUT, "%s: the shape is not a tuple", path);
    int64_t dim[3] = {0, 0, 0};
    int nd = 0;
    for (const char *p = sh + 1; *p && *p != ')';) {
        char *end = NULL;
        long long v = strtoll(p, &end, 10);
        if (end == p) {
            p++;
            continue;
        }
        if (v < 0) return GS_ERROR(GS_ERR_INPUT, "%s: negative size %lld in the shape", path, v);
        if (nd < 3) dim[nd] = v;
        nd++;
        p = end;
    }
    if (nd < 1 || nd > 2)
        return GS_ERROR(GS_ERR_INPUT,
                        "%s: the array has %d dimensions: expected a vector or a 2-D array "
                        "(vectors as columns)",
                        path, nd);
    *rows = dim[0];
    *cols = nd == 2 ? dim[1] : 1;
    if (*rows > GS_MAX_INDEX || *cols > GS_MAX_INDEX)
        return GS_ERROR(GS_ERR_UNSUPPORTED,
                        "%s: shape %lld x %lld exceeds gsolve's 32-bit "
                        "indices",
                        path, (long long)*rows, (long long)*cols);
    return GS_OK;
}

/* 1 on a little-endian host. */
static int little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

gs_status gs_npy_read(const char *path, double **v, int64_t *rows, int64_t *cols, int *colmajor)
{
    gs_status st = GS_OK;
    unsigned char pre[8];
    char *h = NULL;
    double *buf = NULL;
    *v = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return GS_ERROR(GS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0)
        GS_FAIL(GS_ERR_INPUT, "%s: not a NumPy .npy file (it does not begin with \\x93NUMPY)",
                path);
    int major = pre[6];
    unsigned char lb[4] = {0, 0, 0, 0};
    size_t nlen = major == 1 ? 2 : 4, hlen = 0;
    if (major < 1 || major > 3)
        GS_FAIL(GS_ERR_INPUT, "%s: .npy format version %d.%d: versions 1.0, 2.0 and 3.0 are read",
                path, major, pre[7]);
    if (fread(lb, 1, nlen, f) != nlen)
        GS_FAIL(GS_ERR_INPUT, "%s: the .npy header is cut short", path);
    hlen = (size_t)lb[0] | (size_t)lb[1] << 8 | (size_t)lb[2] << 16 | (size_t)lb[3] << 24;
    if (hlen == 0 || hlen > HEADER_MAX)
        GS_FAIL(GS_ERR_INPUT, "%s: the .npy header is cut short or %zu bytes long", path, hlen);
    GS_CHECK(gs_alloc_array(hlen + 1, 1, ".npy header", (void **)&h));
    if (fread(h, 1, hlen, f) != hlen)
        GS_FAIL(GS_ERR_INPUT, "%s: the .npy header is cut short (%zu bytes announced)", path, hlen);
    h[hlen] = '\0';
    GS_CHECK(parse_header(path, h, rows, cols, colmajor));
    size_t n = (size_t)(*rows * *cols);
    GS_CHECK(gs_alloc_array(n ? n : 1, sizeof *buf, path, (void **)&buf));
    size_t got = fread(buf, sizeof *buf, n, f);
    if (got != n)
        GS_FAIL(GS_ERR_INPUT, "%s: the data is cut short: %zu of %zu values (%lld x %lld)", path,
                got, n, (long long)*rows, (long long)*cols);
    if (!little_endian())
        for (size_t i = 0; i < n; i++) {
            unsigned char *b = (unsigned char *)&buf[i];
            for (int k = 0; k < 4; k++) {
                unsigned char t = b[k];
                b[k] = b[7 - k];
                b[7 - k] = t;
            }
        }
    *v = buf;
    buf = NULL;
done:
    fclose(f);
    gs_free(h);
    gs_free(buf);
    return st;
}

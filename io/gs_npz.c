/* gs_npz.c: scipy.sparse save_npz files (gs_npz.h): a zip reader just large enough for them
 * (the end of central directory record, zip64's too, the central directory, local headers,
 * stored and deflated members), the members parsed as .npy (gs_npy.h), the matrix assembled
 * from csr, csc or coo arrays. */
#include "gs_npz.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "gs_mem.h"
#include "gs_npy.h"

#define MEMBERS 16         /* the members kept (save_npz writes at most 7) */
#define EOCD_SCAN 65557    /* the end record (22 bytes) and the longest zip comment */
#define DEFLATE_RATIO 1032 /* deflate's largest expansion: more is not deflate */

typedef struct member {
    char name[64];
    int method, flags;
    uint32_t crc;
    uint64_t csize, usize, off; /* compressed and plain sizes, the local header's offset */
} member;

typedef struct zip {
    const char *path;
    FILE *f;
    uint64_t fsize;
    member m[MEMBERS];
    int n, total; /* members kept; entries in the archive */
} zip;

static uint32_t u16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}
static uint32_t u32(const unsigned char *p)
{
    return u16(p) | u16(p + 2) << 16;
}
static uint64_t u64(const unsigned char *p)
{
    return u32(p) | (uint64_t)u32(p + 4) << 32;
}

int gs_npz_is_npz(const char *path)
{
    unsigned char m[4];
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    int yes = fread(m, 1, 4, f) == 4 && m[0] == 'P' && m[1] == 'K' &&
              ((m[2] == 3 && m[3] == 4) || (m[2] == 5 && m[3] == 6));
    fclose(f);
    return yes;
}

/* buf = n bytes at offset off, all inside the file; what names them in the message */
static gs_status read_at(const zip *z, uint64_t off, size_t n, void *buf, const char *what)
{
    if (off > z->fsize || n > z->fsize - off || fseeko(z->f, (off_t)off, SEEK_SET) != 0 ||
        fread(buf, 1, n, z->f) != n)
        return GS_ERROR(GS_ERR_INPUT,
                        "%s: %s at byte %llu (%zu bytes) lies beyond the file's %llu bytes: the "
                        "zip archive is cut short or corrupt",
                        z->path, what, (unsigned long long)off, n, (unsigned long long)z->fsize);
    return GS_OK;
}

/* The central directory's place and entries from the end record (zip64's when it says so). */
static gs_status find_directory(zip *z, uint64_t *cd_off, uint64_t *cd_size, uint64_t *entries)
{
    gs_status st = GS_OK;
    unsigned char *t = NULL, r64[56];
    size_t tn = z->fsize < EOCD_SCAN ? (size_t)z->fsize : EOCD_SCAN;
    int64_t at = -1;
    GS_CHECK(gs_alloc_array(tn ? tn : 1, 1, "zip end record", (void **)&t));
    GS_CHECK(read_at(z, z->fsize - tn, tn, t, "the end of the archive"));
    for (int64_t i = (int64_t)tn - 22; i >= 0 && at < 0; i--)
        if (t[i] == 'P' && t[i + 1] == 'K' && t[i + 2] == 5 && t[i + 3] == 6) at = i;
    if (at < 0)
        GS_FAIL(GS_ERR_INPUT,
                "%s: no zip end of central directory record: expected a .npz file (a zip "
                "archive, as scipy.sparse.save_npz writes)",
                z->path);
    *entries = u16(t + at + 10);
    *cd_size = u32(t + at + 12);
    *cd_off = u32(t + at + 16);
    if (*entries == 0xFFFF || *cd_size == 0xFFFFFFFFu || *cd_off == 0xFFFFFFFFu) {
        uint64_t pos = z->fsize - tn + (uint64_t)at; /* the zip64 locator is 20 bytes before */
        if (at < 20 || memcmp(t + at - 20, "PK\6\7", 4) != 0)
            GS_FAIL(GS_ERR_INPUT, "%s: byte %llu: a zip64 archive without its zip64 locator",
                    z->path, (unsigned long long)(pos - 20));
        GS_CHECK(read_at(z, u64(t + at - 12), sizeof r64, r64, "the zip64 end record"));
        if (memcmp(r64, "PK\6\6", 4) != 0)
            GS_FAIL(GS_ERR_INPUT, "%s: byte %llu: expected the zip64 end record", z->path,
                    (unsigned long long)u64(t + at - 12));
        *entries = u64(r64 + 32);
        *cd_size = u64(r64 + 40);
        *cd_off = u64(r64 + 48);
    }
    if (*cd_off > z->fsize || *cd_size > z->fsize - *cd_off)
        GS_FAIL(GS_ERR_INPUT,
                "%s: the zip central directory (%llu bytes at %llu) lies beyond the file's %llu "
                "bytes",
                z->path, (unsigned long long)*cd_size, (unsigned long long)*cd_off,
                (unsigned long long)z->fsize);
done:
    gs_free(t);
    return st;
}

/* The sizes and offset of a zip64 extra field (id 1) of entry e, where the entry says 0xFFFFFFFF.
 */
static void zip64_extra(const unsigned char *x, size_t xn, member *e)
{
    for (size_t p = 0; p + 4 <= xn;) {
        size_t id = u16(x + p), len = u16(x + p + 2), q = p + 4;
        if (len > xn - q) return;
        if (id == 1) {
            if (e->usize == 0xFFFFFFFFu && q + 8 <= p + 4 + len) e->usize = u64(x + q), q += 8;
            if (e->csize == 0xFFFFFFFFu && q + 8 <= p + 4 + len) e->csize = u64(x + q), q += 8;
            if (e->off == 0xFFFFFFFFu && q + 8 <= p + 4 + len) e->off = u64(x + q);
            return;
        }
        p = q + len;
    }
}

/* The archive's members (the first MEMBERS of them kept, by name, method, sizes, place). */
static gs_status read_directory(zip *z)
{
    gs_status st = GS_OK;
    uint64_t off = 0, size = 0, entries = 0;
    unsigned char *cd = NULL;
    GS_CHECK(find_directory(z, &off, &size, &entries));
    GS_CHECK(gs_alloc_array(size ? (size_t)size : 1, 1, "zip central directory", (void **)&cd));
    GS_CHECK(read_at(z, off, (size_t)size, cd, "the zip central directory"));
    size_t p = 0;
    for (uint64_t k = 0; k < entries; k++) {
        if (size - p < 46 || memcmp(cd + p, "PK\1\2", 4) != 0)
            GS_FAIL(GS_ERR_INPUT,
                    "%s: byte %llu: zip central directory entry %llu of %llu is missing or "
                    "corrupt",
                    z->path, (unsigned long long)(off + p), (unsigned long long)k + 1,
                    (unsigned long long)entries);
        const unsigned char *c = cd + p;
        size_t nn = u16(c + 28), xn = u16(c + 30), cn = u16(c + 32);
        if (nn + xn + cn > size - p - 46)
            GS_FAIL(GS_ERR_INPUT, "%s: byte %llu: zip entry %llu runs past the central directory",
                    z->path, (unsigned long long)(off + p), (unsigned long long)k + 1);
        z->total++;
        if (z->n < MEMBERS && nn < sizeof z->m[0].name) {
            member *e = &z->m[z->n++];
            memcpy(e->name, c + 46, nn);
            e->name[nn] = '\0';
            e->flags = (int)u16(c + 8);
            e->method = (int)u16(c + 10);
            e->crc = u32(c + 16);
            e->csize = u32(c + 20);
            e->usize = u32(c + 24);
            e->off = u32(c + 42);
            zip64_extra(c + 46 + nn, xn, e);
        }
        p += 46 + nn + xn + cn;
    }
done:
    gs_free(cd);
    return st;
}

/* Inflate the raw deflate stream of e (at off in the file) into out[0..e->usize). */
static gs_status inflate_member(const zip *z, const member *e, uint64_t off, unsigned char *out)
{
    gs_status st = GS_OK;
    unsigned char chunk[65536];
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, -MAX_WBITS) != Z_OK)
        return GS_ERROR(GS_ERR_NOMEM, "%s: %s: zlib could not start (%zu bytes)", z->path, e->name,
                        sizeof s);
    uint64_t left = e->csize;
    s.next_out = out;
    s.avail_out = (uInt)e->usize + 1; /* one more: a stream that inflates to more is seen */
    int ret = Z_OK;
    while (ret != Z_STREAM_END) {
        if (s.avail_in == 0) {
            size_t n = left < sizeof chunk ? (size_t)left : sizeof chunk;
            if (n == 0)
                GS_FAIL(GS_ERR_INPUT, "%s: %s: the deflate data is cut short", z->path, e->name);
            GS_CHECK(read_at(z, off + (e->csize - left), n, chunk, e->name));
            left -= n;
            s.next_in = chunk;
            s.avail_in = (uInt)n;
        }
        ret = inflate(&s, Z_NO_FLUSH);
        if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR)
            GS_FAIL(GS_ERR_INPUT, "%s: %s: corrupt deflate data (%s)", z->path, e->name,
                    s.msg ? s.msg : "zlib error");
        if (s.avail_out == 0)
            GS_FAIL(GS_ERR_INPUT, "%s: %s inflates to more than the %llu bytes its entry declares",
                    z->path, e->name, (unsigned long long)e->usize);
    }
    if (s.total_out != e->usize)
        GS_FAIL(GS_ERR_INPUT, "%s: %s inflates to %lu bytes; its entry declares %llu", z->path,
                e->name, (unsigned long)s.total_out, (unsigned long long)e->usize);
done:
    inflateEnd(&s);
    return st;
}

/* The plain bytes of member e, gs_malloc'ed (e->usize of them), CRC checked. */
static gs_status member_bytes(const zip *z, const member *e, unsigned char **out)
{
    gs_status st = GS_OK;
    unsigned char lh[30], *b = NULL;
    *out = NULL;
    if (e->flags & 1) return GS_ERROR(GS_ERR_UNSUPPORTED, "%s: %s is encrypted", z->path, e->name);
    if (e->method != 0 && e->method != 8)
        return GS_ERROR(GS_ERR_UNSUPPORTED,
                        "%s: %s: zip compression method %d: expected stored (0) or deflate (8)",
                        z->path, e->name, e->method);
    GS_CHECK(read_at(z, e->off, sizeof lh, lh, "a zip local header"));
    if (memcmp(lh, "PK\3\4", 4) != 0)
        GS_FAIL(GS_ERR_INPUT, "%s: byte %llu: expected the zip local header of %s", z->path,
                (unsigned long long)e->off, e->name);
    uint64_t data = e->off + 30 + u16(lh + 26) + u16(lh + 28);
    if (data > z->fsize || e->csize > z->fsize - data)
        GS_FAIL(GS_ERR_INPUT,
                "%s: %s: %llu bytes at byte %llu lie beyond the file's %llu bytes (cut short?)",
                z->path, e->name, (unsigned long long)e->csize, (unsigned long long)data,
                (unsigned long long)z->fsize);
    if (e->method == 8 && e->usize >= 0xFFFFFFF0u)
        GS_FAIL(GS_ERR_UNSUPPORTED,
                "%s: %s: %llu bytes compressed: a deflated member of 4 GiB or more is not read "
                "(save with compressed=False)",
                z->path, e->name, (unsigned long long)e->usize);
    if (e->method == 0 ? e->usize != e->csize : e->usize / DEFLATE_RATIO > e->csize + 1)
        GS_FAIL(GS_ERR_INPUT,
                "%s: %s: %llu bytes declared from %llu stored (method %d): not a size the data "
                "can have",
                z->path, e->name, (unsigned long long)e->usize, (unsigned long long)e->csize,
                e->method);
    GS_CHECK(gs_alloc_array((size_t)e->usize + 1, 1, e->name, (void **)&b));
    if (e->method == 0)
        GS_CHECK(read_at(z, data, (size_t)e->usize, b, e->name));
    else
        GS_CHECK(inflate_member(z, e, data, b));
    uLong crc = crc32(0L, Z_NULL, 0);
    for (uint64_t p = 0; p < e->usize;) { /* crc32 takes uInt lengths */
        uInt n = e->usize - p > (1u << 30) ? (1u << 30) : (uInt)(e->usize - p);
        crc = crc32(crc, b + p, n);
        p += n;
    }
    if ((uint32_t)crc != e->crc)
        GS_FAIL(GS_ERR_INPUT, "%s: %s: CRC %08x, the archive says %08x: the data is corrupt",
                z->path, e->name, (unsigned)crc, (unsigned)e->crc);
    *out = b;
    b = NULL;
done:
    gs_free(b);
    return st;
}

/* One member as an array: its .npy header and the items converted to doubles (*v, count
 * items; NULL for text). *found = 0 when the archive has no such member (nothing read). */
typedef struct array {
    gs_npy_info info;
    double *v;
    char text[16]; /* a text member (format): its characters */
} array;

static gs_status member_array(const zip *z, const char *name, array *a, int *found)
{
    gs_status st = GS_OK;
    unsigned char *b = NULL;
    char where[1100];
    size_t off = 0;
    const member *e = NULL;
    memset(a, 0, sizeof *a);
    for (int i = 0; i < z->n && !e; i++)
        if (strcmp(z->m[i].name, name) == 0) e = &z->m[i];
    *found = e != NULL;
    if (!e) return GS_OK;
    snprintf(where, sizeof where, "%s:%s", z->path, name);
    GS_CHECK(member_bytes(z, e, &b));
    GS_CHECK(gs_npy_parse(where, b, (size_t)e->usize, &a->info, &off));
    if (a->info.kind == 'S' || a->info.kind == 'U') { /* bytes, or UTF-32 of ASCII */
        int step = a->info.kind == 'U' ? 4 : 1, lo = a->info.kind == 'U' && a->info.big ? 3 : 0;
        size_t n = a->info.count == 1 ? (size_t)a->info.size / (size_t)step : 0, k = 0;
        for (size_t i = 0; i < n && k + 1 < sizeof a->text; i++) {
            unsigned char ch = b[off + i * (size_t)step + (size_t)lo];
            if (ch >= 32 && ch < 127) a->text[k++] = (char)ch;
        }
        a->text[k] = '\0';
        goto done;
    }
    GS_CHECK(
        gs_alloc_array(a->info.count ? a->info.count : 1, sizeof *a->v, where, (void **)&a->v));
    GS_CHECK(gs_npy_values(where, &a->info, b + off, a->v));
done:
    gs_free(b);
    return st;
}

/* The member name, which must be there (else an error listing what is there). */
static gs_status need(const zip *z, const char *name, array *a)
{
    gs_status st = GS_OK;
    char list[512];
    int found = 0;
    size_t w = 0;
    GS_CHECK(member_array(z, name, a, &found));
    if (found) return GS_OK;
    list[0] = '\0';
    for (int i = 0; i < z->n && w < sizeof list; i++)
        w += (size_t)snprintf(list + w, sizeof list - w, "%s%s", i ? ", " : "", z->m[i].name);
    GS_FAIL(GS_ERR_INPUT,
            "%s: no member %s: expected a scipy.sparse save_npz file (format, shape, data, and "
            "indices + indptr or row + col); the archive holds %d: %s",
            z->path, name, z->total, z->total ? list : "nothing");
done:
    return st;
}

/* a->v as n indices in [0, hi) (a->v[q * stride + first], q < n), int32 into out */
static gs_status indices(const zip *z, const char *name, const array *a, size_t first,
                         size_t stride, size_t n, int64_t hi, int32_t *out)
{
    for (size_t q = 0; q < n; q++) {
        double x = a->v[q * stride + first];
        if (!(x >= 0 && x < (double)hi) || x != floor(x))
            return GS_ERROR(GS_ERR_INPUT, "%s:%s: entry %zu is %.17g: expected an index in 0..%lld",
                            z->path, name, q, x, (long long)hi - 1);
        out[q] = (int32_t)x;
    }
    return GS_OK;
}

/* The row (csr) or column (csc) of each entry from the pointers ptr (n + 1 of them) into out. */
static gs_status expand_ptr(const zip *z, const char *fmt, const array *ptr, int64_t n, size_t nnz,
                            int32_t *out)
{
    if ((int64_t)ptr->info.count != n + 1 || ptr->info.nd != 1)
        return GS_ERROR(GS_ERR_INPUT,
                        "%s:indptr.npy has %zu entries: a %s matrix with %lld %s needs %lld",
                        z->path, ptr->info.count, fmt, (long long)n,
                        fmt[1] == 's' && fmt[2] == 'r' ? "rows" : "columns", (long long)n + 1);
    for (int64_t i = 0; i <= n; i++) {
        double lo = i ? ptr->v[i - 1] : 0, x = ptr->v[i];
        if (x != floor(x) || x < lo || x > (double)nnz || (i == 0 && x != 0) ||
            (i == n && x != (double)nnz))
            return GS_ERROR(GS_ERR_INPUT,
                            "%s:indptr.npy: entry %lld is %.17g: expected 0 first, then "
                            "non-decreasing up to nnz = %zu last",
                            z->path, (long long)i, x, nnz);
        for (int64_t q = (int64_t)lo; q < (int64_t)x; q++) out[q] = (int32_t)(i - 1);
    }
    return GS_OK;
}

/* The matrix from the arrays of format fmt (rows x cols, nnz values in data). */
static gs_status assemble(const zip *z, const char *fmt, int64_t rows, int64_t cols,
                          const array *data, gs_csr **A)
{
    gs_status st = GS_OK;
    array p, q;
    int32_t *ri = NULL, *ci = NULL;
    size_t nnz = data->info.count;
    int csc = strcmp(fmt, "csc") == 0, found = 0;
    memset(&p, 0, sizeof p), memset(&q, 0, sizeof q);
    if (nnz > (size_t)GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED, "%s: %zu stored entries: gsolve supports at most %lld", z->path,
                nnz, GS_MAX_INDEX);
    GS_CHECK(gs_alloc_array(nnz ? nnz : 1, sizeof *ri, "row indices", (void **)&ri));
    GS_CHECK(gs_alloc_array(nnz ? nnz : 1, sizeof *ci, "column indices", (void **)&ci));
    if (strcmp(fmt, "coo") != 0) { /* csr, csc: pointers and indices */
        GS_CHECK(need(z, "indptr.npy", &p));
        GS_CHECK(need(z, "indices.npy", &q));
        if (q.info.count != nnz)
            GS_FAIL(GS_ERR_INPUT, "%s:indices.npy has %zu entries; data.npy has %zu", z->path,
                    q.info.count, nnz);
        GS_CHECK(expand_ptr(z, fmt, &p, csc ? cols : rows, nnz, csc ? ci : ri));
        GS_CHECK(indices(z, "indices.npy", &q, 0, 1, nnz, csc ? rows : cols, csc ? ri : ci));
    } else {
        GS_CHECK(member_array(z, "row.npy", &p, &found));
        if (found) { /* row and col */
            GS_CHECK(need(z, "col.npy", &q));
            if (p.info.count != nnz || q.info.count != nnz)
                GS_FAIL(GS_ERR_INPUT,
                        "%s: row.npy and col.npy have %zu and %zu entries; data.npy has %zu",
                        z->path, p.info.count, q.info.count, nnz);
            GS_CHECK(indices(z, "row.npy", &p, 0, 1, nnz, rows, ri));
            GS_CHECK(indices(z, "col.npy", &q, 0, 1, nnz, cols, ci));
        } else { /* coords, 2 x nnz */
            GS_CHECK(need(z, "coords.npy", &q));
            if (q.info.nd != 2 || q.info.shape[0] != 2 || q.info.count != 2 * nnz)
                GS_FAIL(GS_ERR_INPUT,
                        "%s:coords.npy is %lld x %lld: expected 2 x %zu (rows, then columns)",
                        z->path, (long long)q.info.shape[0], (long long)q.info.shape[1], nnz);
            size_t s = q.info.colmajor ? 2 : 1, o = q.info.colmajor ? 1 : nnz;
            GS_CHECK(indices(z, "coords.npy", &q, 0, s, nnz, rows, ri));
            GS_CHECK(indices(z, "coords.npy", &q, o, s, nnz, cols, ci));
        }
    }
    GS_CHECK(gs_csr_from_coo(rows, cols, (int64_t)nnz, ri, ci, data->v, A));
done:
    gs_free(p.v);
    gs_free(q.v);
    gs_free(ri);
    gs_free(ci);
    return st;
}

/* format and shape: which arrays to read and the matrix's size */
static gs_status read_kind(const zip *z, char fmt[16], int64_t *rows, int64_t *cols)
{
    gs_status st = GS_OK;
    array f, s;
    memset(&s, 0, sizeof s);
    GS_CHECK(need(z, "format.npy", &f));
    gs_str_copy(fmt, 16, f.text);
    if (strcmp(fmt, "csr") != 0 && strcmp(fmt, "csc") != 0 && strcmp(fmt, "coo") != 0)
        GS_FAIL(GS_ERR_UNSUPPORTED,
                "%s:format.npy says '%s': expected csr, csc or coo (in scipy: "
                "save_npz(path, A.tocsr()))",
                z->path, f.text[0] || !f.v ? f.text : "(not text)");
    GS_CHECK(need(z, "shape.npy", &s));
    if (!s.v || s.info.count != 2)
        GS_FAIL(GS_ERR_INPUT, "%s:shape.npy has %zu entries: expected 2 (rows, columns)", z->path,
                s.v ? s.info.count : 0);
    for (int k = 0; k < 2; k++)
        if (!(s.v[k] >= 0 && s.v[k] <= (double)GS_MAX_INDEX) || s.v[k] != floor(s.v[k]))
            GS_FAIL(GS_ERR_INPUT,
                    "%s:shape.npy: %s %.17g: expected a whole number in 0..%lld (32-bit indices)",
                    z->path, k ? "columns" : "rows", s.v[k], GS_MAX_INDEX);
    *rows = (int64_t)s.v[0];
    *cols = (int64_t)s.v[1];
done:
    gs_free(f.v);
    gs_free(s.v);
    return st;
}

gs_status gs_npz_read(const char *path, gs_csr **A, char layout[32])
{
    gs_status st = GS_OK;
    zip z;
    array data;
    char fmt[16] = "";
    int64_t rows = 0, cols = 0;
    struct stat sb;
    memset(&z, 0, sizeof z);
    memset(&data, 0, sizeof data);
    *A = NULL;
    z.path = path;
    z.f = fopen(path, "rb");
    if (!z.f) return GS_ERROR(GS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    z.fsize = fstat(fileno(z.f), &sb) == 0 && sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
    GS_CHECK(read_directory(&z));
    GS_CHECK(read_kind(&z, fmt, &rows, &cols));
    GS_CHECK(need(&z, "data.npy", &data));
    if (!data.v || data.info.nd != 1)
        GS_FAIL(GS_ERR_INPUT, "%s:data.npy: expected a vector of the stored values", path);
    GS_CHECK(assemble(&z, fmt, rows, cols, &data, A));
    if (layout) snprintf(layout, 32, "npz %s", fmt);
done:
    fclose(z.f);
    gs_free(data.v);
    return st;
}

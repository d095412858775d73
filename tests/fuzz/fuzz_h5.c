/* fuzz_h5.c: the HDF5 matrix reader (io/gs_h5.c) and the problem loader (io/gs_problem.c) on
 * HDF5 files generated from a mutated description.
 *
 * Mutating the bytes of an HDF5 file mostly exercises the HDF5 library's own parser; what
 * gsolve must get right is what it makes of any well-formed file: every layout, type, shape,
 * attribute and index it may hold. So the input is a small text that says what to write:
 *
 *   group /A/B                  create the group (and its parents); later items go into it
 *   read /A/B                   the group given to the reader (default: the root)
 *   dset NAME TYPE [SHAPE] [: VALUES...]   a dataset in the current group
 *   attr NAME TYPE [SHAPE] [: VALUES...]   an attribute of the current group
 *   link NAME TARGET            a soft link in the current group
 *   chunk N                     later datasets chunked by N (and deflated); 0: contiguous
 *   userblock N                 a user block of N bytes in front (MATLAB v7.3 files have 512)
 *
 * TYPE: i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 bi32 bf64 (big-endian) str (fixed) vstr
 * (variable-length) cmpd (a compound). SHAPE: [d1,d2,...] or [] (a scalar); without it, one
 * dimension as long as the values. Values beyond the shape are dropped, missing ones are 0; a
 * shape of more than 65536 elements is created without writing (HDF5's fill value), so a tiny
 * file can claim a huge dataset. Unparsable lines are skipped; HDF5 refusing an item skips it.
 *
 * The file is then read by gs_matrix_read (success: a valid CSR, equal, when small, to the
 * arrays read through HDF5 directly and summed) and loaded as a problem by
 * gs_problem_load (success: A, b and x0 finite and of matching lengths); a failure must name
 * the file.
 */
#include <ctype.h>
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "gs_config.h"
#include "gs_h5.h"
#include "gs_mem.h"
#include "gs_problem.h"

#define MAX_VALUES 65536
#define MAX_TOKENS 70000
#define MAX_DIM ((hsize_t)1 << 40)
#define MAX_RANK 4

static const gs_status k_allowed[] = {GS_ERR_INPUT, GS_ERR_IO, GS_ERR_UNSUPPORTED, GS_ERR_NOMEM};
#define NALLOWED ((int)(sizeof k_allowed / sizeof k_allowed[0]))

/* The file being generated. */
typedef struct gen {
    hid_t file, group;
    char group_path[256], read_path[256];
    hsize_t chunk;
} gen;

/* One parsed item line. */
typedef struct item {
    char name[256], type[16];
    int rank; /* -1: no shape given */
    hsize_t dims[MAX_RANK];
    int ntok;
    char **tok; /* the value tokens (pointers into the line) */
} item;

/* Split s at blanks in place; up to max tokens. */
static int split(char *s, char **tok, int max)
{
    int n = 0;
    while (*s && n < max) {
        while (*s && isspace((unsigned char)*s)) *s++ = '\0';
        if (!*s) break;
        tok[n++] = s;
        while (*s && !isspace((unsigned char)*s)) s++;
    }
    return n;
}

/* "[3,1]" -> rank 2, dims {3, 1}; "[]" -> rank 0; 0 when the token is not a shape. */
static int parse_shape(const char *t, item *it)
{
    if (*t != '[') return 0;
    it->rank = 0;
    t++;
    while (*t && *t != ']' && it->rank < MAX_RANK) {
        char *end;
        unsigned long long d = strtoull(t, &end, 10);
        if (end == t) return 0;
        it->dims[it->rank++] = d > MAX_DIM ? MAX_DIM : (hsize_t)d;
        t = *end == ',' ? end + 1 : end;
    }
    return 1;
}

/* The HDF5 file type for a type name; *is_int / *is_str / *is_signed describe it. A new id
 * (H5Tcopy) the caller closes, or -1. */
static hid_t file_type(const char *name, int *is_int, int *is_str, size_t str_size)
{
    static const struct {
        const char *name;
        int is_int;
    } k[] = {{"i8", 1},  {"i16", 1}, {"i32", 1}, {"i64", 1}, {"u8", 1},   {"u16", 1},
             {"u32", 1}, {"u64", 1}, {"f32", 0}, {"f64", 0}, {"bi32", 1}, {"bf64", 0}};
    const hid_t ids[] = {H5T_STD_I8LE,   H5T_STD_I16LE,  H5T_STD_I32LE, H5T_STD_I64LE,
                         H5T_STD_U8LE,   H5T_STD_U16LE,  H5T_STD_U32LE, H5T_STD_U64LE,
                         H5T_IEEE_F32LE, H5T_IEEE_F64LE, H5T_STD_I32BE, H5T_IEEE_F64BE};
    *is_int = *is_str = 0;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strcmp(name, k[i].name) == 0) {
            *is_int = k[i].is_int;
            return H5Tcopy(ids[i]);
        }
    if (strcmp(name, "str") == 0 || strcmp(name, "vstr") == 0) {
        hid_t t = H5Tcopy(H5T_C_S1);
        *is_str = 1;
        if (t >= 0 && H5Tset_size(t, name[0] == 'v' ? H5T_VARIABLE : str_size) < 0) {
            H5Tclose(t);
            return -1;
        }
        return t;
    }
    if (strcmp(name, "cmpd") == 0) {
        hid_t t = H5Tcreate(H5T_COMPOUND, 16);
        if (t >= 0 && (H5Tinsert(t, "re", 0, H5T_NATIVE_DOUBLE) < 0 ||
                       H5Tinsert(t, "im", 8, H5T_NATIVE_DOUBLE) < 0)) {
            H5Tclose(t);
            return -1;
        }
        return t;
    }
    return -1;
}

/* Number of elements of the item's shape (as a double: it may be huge). */
static double item_elems(const item *it)
{
    double n = 1;
    if (it->rank < 0) return it->ntok;
    for (int i = 0; i < it->rank; i++) n *= (double)it->dims[i];
    return n;
}

/* The memory buffer for n elements from the item's tokens (missing ones 0); *mem is the memory
 * type to write it with. NULL when the type has none (compound: zeros of its own size). */
static void *item_buffer(const item *it, size_t n, hid_t ftype, int is_int, int is_str, hid_t *mem)
{
    if (is_str && H5Tis_variable_str(ftype) > 0) {
        const char **s = calloc(n ? n : 1, sizeof *s);
        for (size_t i = 0; s && i < n; i++) s[i] = i < (size_t)it->ntok ? it->tok[i] : "";
        *mem = ftype;
        return s;
    }
    if (is_str) {
        size_t sz = H5Tget_size(ftype);
        char *s = calloc(n ? n : 1, sz);
        for (size_t i = 0; s && i < n && i < (size_t)it->ntok; i++)
            strncpy(s + i * sz, it->tok[i], sz);
        *mem = ftype;
        return s;
    }
    if (H5Tget_class(ftype) == H5T_COMPOUND) {
        *mem = ftype;
        return calloc(n ? n : 1, 16);
    }
    if (is_int) {
        int64_t *v = calloc(n ? n : 1, sizeof *v);
        for (size_t i = 0; v && i < n && i < (size_t)it->ntok; i++) {
            errno = 0;
            long long x = strtoll(it->tok[i], NULL, 0);
            v[i] = (int64_t)x;
        }
        *mem = H5T_NATIVE_INT64;
        return v;
    }
    double *v = calloc(n ? n : 1, sizeof *v);
    for (size_t i = 0; v && i < n && i < (size_t)it->ntok; i++) v[i] = strtod(it->tok[i], NULL);
    *mem = H5T_NATIVE_DOUBLE;
    return v;
}

/* Longest value token (the size of a fixed-length string type), at least 1. */
static size_t longest(const item *it)
{
    size_t m = 1;
    for (int i = 0; i < it->ntok; i++)
        if (strlen(it->tok[i]) > m) m = strlen(it->tok[i]);
    return m;
}

/* Create one dataset (attr = 0) or attribute (attr = 1) of the current group. */
static void make_item(gen *g, const item *it, int attr)
{
    int is_int, is_str;
    hid_t ftype = file_type(it->type, &is_int, &is_str, longest(it)), mem = -1;
    hid_t space = -1, dcpl = -1, lcpl = -1, obj = -1;
    void *buf = NULL;
    double ne = item_elems(it);
    if (ftype < 0) return;
    if (it->rank == 0)
        space = H5Screate(H5S_SCALAR);
    else if (it->rank > 0)
        space = H5Screate_simple(it->rank, it->dims, NULL);
    else {
        hsize_t d = (hsize_t)it->ntok;
        space = H5Screate_simple(1, &d, NULL);
    }
    if (space < 0) goto done;
    const int write = ne <= MAX_VALUES;
    if (attr) {
        if (!write) goto done;
        if (H5Aexists(g->group, it->name) > 0) H5Adelete(g->group, it->name);
        obj = H5Acreate2(g->group, it->name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    } else {
        dcpl = H5Pcreate(H5P_DATASET_CREATE);
        lcpl = H5Pcreate(H5P_LINK_CREATE);
        H5Pset_create_intermediate_group(lcpl, 1);
        int zero = 0;
        for (int i = 0; i < it->rank; i++) zero |= it->dims[i] == 0;
        if (g->chunk && it->rank != 0 && !zero) {
            hsize_t cd[MAX_RANK] = {0};
            int rank = it->rank < 0 ? 1 : it->rank;
            for (int i = 0; i < rank; i++) {
                hsize_t d = it->rank < 0 ? (hsize_t)it->ntok : it->dims[i];
                cd[i] = i == 0 ? (g->chunk < d ? g->chunk : d) : 1;
            }
            if (cd[0] > 0) {
                H5Pset_chunk(dcpl, rank, cd);
                H5Pset_deflate(dcpl, 1);
            }
        }
        obj = H5Dcreate2(g->group, it->name, ftype, space, lcpl, dcpl, H5P_DEFAULT);
    }
    if (obj < 0 || !write) goto done;
    buf = item_buffer(it, (size_t)ne, ftype, is_int, is_str, &mem);
    if (!buf) goto done;
    if (attr)
        H5Awrite(obj, mem, buf);
    else if (ne > 0)
        H5Dwrite(obj, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
done:
    free(buf); /* variable-length strings point into the line */
    if (obj >= 0) attr ? H5Aclose(obj) : H5Dclose(obj);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (lcpl >= 0) H5Pclose(lcpl);
    if (space >= 0) H5Sclose(space);
    H5Tclose(ftype);
    H5Eclear2(H5E_DEFAULT);
}

/* Make path the current group (creating it and its parents). */
static void set_group(gen *g, const char *path)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE), grp;
    H5Pset_create_intermediate_group(lcpl, 1);
    grp = H5Gopen2(g->file, path, H5P_DEFAULT);
    if (grp < 0) grp = H5Gcreate2(g->file, path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    H5Eclear2(H5E_DEFAULT);
    if (grp < 0) return;
    H5Gclose(g->group);
    g->group = grp;
    gs_str_copy(g->group_path, sizeof g->group_path, path);
}

/* One "dset"/"attr" line: tok[0] is the keyword. */
static void item_line(gen *g, char **tok, int n, int attr)
{
    item it;
    memset(&it, 0, sizeof it);
    it.rank = -1;
    if (n < 3) return;
    gs_str_copy(it.name, sizeof it.name, tok[1]);
    gs_str_copy(it.type, sizeof it.type, tok[2]);
    int i = 3;
    if (i < n && parse_shape(tok[i], &it)) i++;
    if (i < n && strcmp(tok[i], ":") == 0) i++;
    it.tok = tok + i;
    it.ntok = n - i;
    make_item(g, &it, attr);
}

/* Apply every line of the description (already NUL-terminated) to the open file. */
static void generate(gen *g, char *text, char **tok)
{
    for (char *line = text; line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        int n = split(line, tok, MAX_TOKENS);
        if (n >= 2 && strcmp(tok[0], "group") == 0)
            set_group(g, tok[1]);
        else if (n >= 1 && strcmp(tok[0], "read") == 0)
            gs_str_copy(g->read_path, sizeof g->read_path, n >= 2 ? tok[1] : "");
        else if (strcmp(n ? tok[0] : "", "dset") == 0 || strcmp(n ? tok[0] : "", "attr") == 0)
            item_line(g, tok, n, tok[0][0] == 'a');
        else if (n >= 3 && strcmp(tok[0], "link") == 0) {
            H5Lcreate_soft(tok[2], g->group, tok[1], H5P_DEFAULT, H5P_DEFAULT);
            H5Eclear2(H5E_DEFAULT);
        } else if (n >= 2 && strcmp(tok[0], "chunk") == 0)
            g->chunk = (hsize_t)strtoull(tok[1], NULL, 10) % 100000;
        line = nl ? nl + 1 : NULL;
    }
}

/* The user block size the description asks for (0: none); HDF5 wants a power of 2 >= 512. */
static hsize_t userblock(const char *text)
{
    const char *p = strstr(text, "userblock ");
    if (!p || (p != text && p[-1] != '\n')) return 0;
    unsigned long long n = strtoull(p + 10, NULL, 10);
    hsize_t u = 512;
    if (n < 512) return 0;
    while (u < n && u < 65536) u *= 2;
    return u;
}

/* Write the file the description says; 0 when HDF5 cannot even create it. */
static int write_file(const char *path, char *text, gen *g)
{
    char **tok = malloc(MAX_TOKENS * sizeof *tok);
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    hsize_t ub = userblock(text);
    if (ub) H5Pset_userblock(fcpl, ub);
    g->file = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    if (g->file < 0 || !tok) {
        free(tok);
        return 0;
    }
    g->group = H5Gopen2(g->file, "/", H5P_DEFAULT);
    strcpy(g->group_path, "/");
    g->read_path[0] = '\0';
    g->chunk = 0;
    generate(g, text, tok);
    H5Gclose(g->group);
    H5Fclose(g->file);
    H5Eclear2(H5E_DEFAULT);
    free(tok);
    return 1;
}

/* All values of dataset name of loc as doubles (malloc'ed, *n of them); NULL when absent. */
static double *read_doubles(hid_t loc, const char *name, hssize_t *n)
{
    double *v = NULL;
    *n = 0;
    if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) return NULL;
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT), sp = d >= 0 ? H5Dget_space(d) : -1;
    if (sp >= 0) *n = H5Sget_simple_extent_npoints(sp);
    if (*n >= 0 && *n <= MAX_VALUES) v = malloc((size_t)(*n ? *n : 1) * sizeof *v);
    if (v && *n > 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
        free(v);
        v = NULL;
    }
    if (sp >= 0) H5Sclose(sp);
    if (d >= 0) H5Dclose(d);
    H5Eclear2(H5E_DEFAULT);
    return v;
}

/* An independent reading of a small matrix the reader accepted: the arrays read as doubles
 * through HDF5 directly, summed into a dense matrix, must give A (a whole-number index where
 * the reader saw one, the same values up to the order of summing duplicates). */
static void check_oracle(const char *path, const char *group, const char *layout, const gs_csr *A)
{
    const int csr = strcmp(layout, "hdf5 csr") == 0, mat = strcmp(layout, "hdf5 matlab") == 0;
    const int64_t nr = A->rows, nc = A->cols;
    if (nr * nc > 4096 || (!csr && !mat && strcmp(layout, "hdf5 csc") != 0)) return;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t g = f >= 0 ? H5Oopen(f, group[0] ? group : "/", H5P_DEFAULT) : -1;
    hssize_t np = 0, ni = 0, nv = 0;
    double *ptr = g >= 0 ? read_doubles(g, mat ? "jc" : "indptr", &np) : NULL;
    double *idx = g >= 0 ? read_doubles(g, mat ? "ir" : "indices", &ni) : NULL;
    double *val = g >= 0 ? read_doubles(g, "data", &nv) : NULL;
    const size_t cells = nr * nc > 0 ? (size_t)(nr * nc) : 1;
    double *dense = calloc(cells, sizeof *dense), *mag = calloc(cells, sizeof *mag);
    if (g >= 0) H5Oclose(g);
    if (f >= 0) H5Fclose(f);
    H5Eclear2(H5E_DEFAULT);
    if (!ptr || !dense || !mag || (np > 1 && ptr[np - 1] > 0 && (!idx || !val))) goto done;
    for (hssize_t j = 0; j + 1 < np; j++)
        for (double q = ptr[j]; q < ptr[j + 1]; q++) {
            int64_t k = (int64_t)q;
            double i = idx[k];
            if (i != floor(i) || i < 0 || i >= (csr ? nc : nr))
                fuzz_fail("%s: accepted index %s[%lld] = %.17g", layout, mat ? "ir" : "indices",
                          (long long)k, i);
            int64_t at = csr ? (int64_t)j * nc + (int64_t)i : (int64_t)i * nc + (int64_t)j;
            dense[at] += val[k];
            mag[at] += fabs(val[k]);
        }
    for (int32_t r = 0; r < A->rows; r++) {
        int32_t k = A->rowptr[r];
        for (int32_t c = 0; c < A->cols; c++) {
            double a = 0.0, e = dense[(int64_t)r * nc + c], m = mag[(int64_t)r * nc + c];
            if (k < A->rowptr[r + 1] && A->colind[k] == c) a = A->val[k++];
            int same = a == e || (isnan(a) && isnan(e)) || fabs(a - e) <= 1e-9 * m;
            if (!same) fuzz_fail("%s: A(%d, %d) = %.17g, the file says %.17g", layout, r, c, a, e);
        }
    }
done:
    free(ptr), free(idx), free(val), free(dense), free(mag);
}

/* gs_matrix_read on the file: a valid CSR, or an error naming the file. */
static gs_status check_matrix(const char *path, const char *group)
{
    gs_csr *A = NULL;
    char field[16], sym[24], layout[32];
    gs_error_clear();
    gs_status st = gs_matrix_read(path, group, &A, field, sym, layout);
    if (st == GS_OK) {
        /* NaN and Inf pass the reader (gs_problem_load refuses them, checked below) */
        fuzz_check_csr("gs_matrix_read (HDF5)", A, 1);
        if (strncmp(layout, "hdf5", 4) != 0 && strncmp(layout, "matrix market", 13) != 0)
            fuzz_fail("gs_matrix_read: layout '%s'", layout);
        char used[GS_H5_PATH];
        gs_str_copy(used, sizeof used, group);
        if (!group[0] && strncmp(layout, "hdf5", 4) == 0) { /* the group the reader found */
            gs_csr *B = NULL;
            gs_h5_info info;
            if (gs_h5_read(path, NULL, &B, &info) == GS_OK)
                gs_str_copy(used, sizeof used, info.group);
            gs_csr_destroy(&B);
            gs_error_clear();
        }
        check_oracle(path, used, layout, A);
    } else {
        if (A) fuzz_fail("gs_matrix_read: failed but returned a matrix");
        fuzz_check_error("gs_matrix_read (HDF5)", st, k_allowed, NALLOWED, path);
    }
    gs_csr_destroy(&A);
    return st;
}

/* gs_problem_load on the file: finite A, b, x0 (and x) of matching lengths, or an error that
 * names the file. */
static void check_problem(const char *path, const char *group)
{
    static gs_config c;
    gs_problem *p = NULL;
    gs_config_defaults(&c);
    gs_str_copy(c.problem.matrix, sizeof c.problem.matrix, path);
    gs_str_copy(c.problem.group, sizeof c.problem.group, group);
    gs_error_clear();
    gs_status st = gs_problem_load(&c, &p);
    if (st != GS_OK) {
        if (p) fuzz_fail("gs_problem_load: failed but returned a problem");
        fuzz_check_error("gs_problem_load (HDF5)", st, k_allowed, NALLOWED, path);
        return;
    }
    fuzz_check_csr("gs_problem_load (HDF5)", p->A, 0);
    for (int32_t i = 0; i < p->A->rows; i++)
        if (!isfinite(p->b[i])) fuzz_fail("gs_problem_load: b[%d] = %g", i, p->b[i]);
    for (int32_t i = 0; i < p->A->cols; i++) {
        if (!isfinite(p->x0[i])) fuzz_fail("gs_problem_load: x0[%d] = %g", i, p->x0[i]);
        if (p->x_exact && !isfinite(p->x_exact[i]))
            fuzz_fail("gs_problem_load: x[%d] = %g", i, p->x_exact[i]);
    }
    gs_problem_destroy(&p);
}

static fuzz_outcome run_h5(const uint8_t *data, size_t size)
{
    const char *path = fuzz_path(0, "in.h5");
    long live = gs_mem_live();
    gen g;
    char *text = malloc(size + 1);
    if (!text) fuzz_fail("out of memory copying the input");
    memcpy(text, data, size);
    text[size] = '\0';
    gs_status st = GS_ERR_IO;
    if (write_file(path, text, &g)) {
        st = check_matrix(path, g.read_path);
        check_problem(path, g.read_path);
    }
    free(text);
    gs_error_clear();
    fuzz_check_released("h5", live);
    return st == GS_OK ? FUZZ_ACCEPTED : FUZZ_REFUSED;
}

const fuzz_target fuzz_h5_target = {
    "h5",
    "HDF5 reader (io/gs_h5.c) and problem loader on generated files (scipy, anndata, "
    "h5sparse, MATLAB v7.3 layouts)",
    run_h5};

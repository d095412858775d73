/* gs_h5.c: HDF5 sparse matrix and vector input, CSR output and atomic result records.
 *
 * Every HDF5 call is checked; HDF5's own error printing is silenced and its error stack is
 * folded into the gsolve message (h5_why). Every id is closed through the `done:` label.
 * Only the HDF5 1.10 API is used (H5*2 names, H5Oopen + H5Iget_type instead of H5Oget_info).
 */
#include "gs_h5.h"
#include "gs_h5_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WHY_PART 160 /* one description of HDF5's error stack */
#define WHY_CAP (2 * WHY_PART + 64)

/* this file's short names for what gs_h5_impl.h shares */
typedef gs_h5_src h5src;
typedef gs_h5_mat h5mat;
enum { LAYOUT_CSR = GS_H5_CSR, LAYOUT_CSC = GS_H5_CSC, LAYOUT_MATLAB = GS_H5_MATLAB };

void gs_h5_version(char *out, size_t len)
{
    unsigned maj = 0, min = 0, rel = 0;
    if (H5get_libversion(&maj, &min, &rel) < 0)
        snprintf(out, len, "%s", H5_VERS_INFO);
    else
        snprintf(out, len, "%u.%u.%u", maj, min, rel);
}

const char *gs_h5_layout_name(int layout)
{
    static const char *const names[] = {"csr", "csc", "matlab"};
    return layout >= 0 && layout <= GS_H5_MATLAB ? names[layout] : "unknown";
}

const char *gs_h5_sep(const char *grp, const char *name)
{
    return (strcmp(grp, "/") == 0 || !*name) ? "" : "/";
}

typedef struct why_buf {
    char outer[WHY_PART], inner[WHY_PART];
    unsigned depth;
} why_buf;

/* Error-stack walker: remember the outermost (API) and innermost descriptions. */
static herr_t why_walk(unsigned n, const H5E_error2_t *e, void *data)
{
    why_buf *w = data;
    if (!e->desc || !*e->desc) return 0;
    if (w->depth++ == 0) snprintf(w->outer, sizeof w->outer, "%s", e->desc);
    snprintf(w->inner, sizeof w->inner, "%s", e->desc);
    (void)n;
    return 0;
}

/* What HDF5 said about its last failure, in one line (per-thread buffer); clears HDF5's
 * error stack. */
const char *gs_h5_why(void)
{
    static _Thread_local char buf[WHY_CAP];
    const size_t len = sizeof buf;
    why_buf w = {{0}, {0}, 0};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, why_walk, &w);
    H5Eclear2(H5E_DEFAULT);
    if (w.depth == 0)
        snprintf(buf, len, "unknown HDF5 error");
    else if (w.depth == 1 || strcmp(w.outer, w.inner) == 0)
        snprintf(buf, len, "%s", w.outer);
    else
        snprintf(buf, len, "%s (%s)", w.outer, w.inner);
    size_t n = strlen(buf);
    if (strstr(buf, "lock") && n < len)
        snprintf(buf + n, len - n, "; setting HDF5_USE_FILE_LOCKING=FALSE may help");
    return buf;
}

/* Name of an HDF5 type class, for messages. */
static const char *class_name(H5T_class_t c)
{
    static const char *const names[] = {"integer",  "float",           "time",     "string",
                                        "bitfield", "opaque",          "compound", "reference",
                                        "enum",     "variable-length", "array"};
    return (int)c >= 0 && (int)c < (int)(sizeof names / sizeof names[0]) ? names[c] : "unknown";
}

/* "/"-rooted copy of group without repeated or trailing slashes ("/" for NULL or ""). */
static gs_status norm_group(const char *group, char **out)
{
    gs_status st = GS_OK;
    size_t n = group ? strlen(group) : 0, w = 0;
    char *g = NULL;
    *out = NULL;
    GS_CHECK(gs_alloc_array(n + 2, 1, "HDF5 group name", (void **)&g));
    g[w++] = '/';
    for (size_t i = 0; i < n; i++)
        if (group[i] != '/' || g[w - 1] != '/') g[w++] = group[i];
    if (w > 1 && g[w - 1] == '/') w--;
    g[w] = '\0';
    *out = g;
done:
    return st;
}

/* Open s->grp of the open file, naming the first missing component. */
static gs_status open_group(h5src *s)
{
    gs_status st = GS_OK;
    size_t n = strlen(s->grp);
    for (size_t i = 2; n > 1 && i <= n; i++) {
        if (s->grp[i] != '/' && s->grp[i] != '\0') continue;
        char c = s->grp[i];
        s->grp[i] = '\0';
        htri_t e = H5Lexists(s->file, s->grp, H5P_DEFAULT);
        H5Eclear2(H5E_DEFAULT);
        if (e <= 0) {
            if (c)
                GS_FAIL(GS_ERR_INPUT, "%s: group %s/%s not found (no %s in the file)", s->path,
                        s->grp, s->grp + i + 1, s->grp);
            GS_FAIL(GS_ERR_INPUT, "%s: group %s not found", s->path, s->grp);
        }
        s->grp[i] = c;
    }
    s->group = H5Oopen(s->file, s->grp, H5P_DEFAULT);
    if (s->group < 0)
        GS_FAIL(GS_ERR_IO, "%s:%s: cannot open group: %s", s->path, s->grp, gs_h5_why());
    if (H5Iget_type(s->group) != H5I_GROUP)
        GS_FAIL(GS_ERR_INPUT, "%s:%s is not a group: expected the group holding the matrix",
                s->path, s->grp);
done:
    return st;
}

/* Open path read-only and its group (NULL or "" = root); src_close undoes it, even on failure. */
gs_status gs_h5_src_open(h5src *s, const char *path, const char *group)
{
    gs_status st = GS_OK;
    struct stat sb;
    s->path = path ? path : "";
    s->grp = NULL;
    s->file = s->group = NO_ID;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (!path || !*path) GS_FAIL(GS_ERR_ARG, "no HDF5 file name given");
    GS_CHECK(norm_group(group, &s->grp));
    FILE *f = fopen(path, "rb");
    if (!f) GS_FAIL(GS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    fclose(f);
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        GS_FAIL(GS_ERR_IO, "cannot open '%s': it is a directory", path);
    htri_t is = H5Fis_hdf5(path);
    if (is == 0) GS_FAIL(GS_ERR_INPUT, "%s: not an HDF5 file", path);
    if (is < 0) GS_FAIL(GS_ERR_IO, "cannot open '%s': %s", path, gs_h5_why());
    s->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (s->file < 0) GS_FAIL(GS_ERR_IO, "cannot open '%s': %s", path, gs_h5_why());
    GS_CHECK(open_group(s));
done:
    return st;
}

void gs_h5_src_close(h5src *s)
{
    CLOSE_ID(H5Oclose, s->group);
    CLOSE_ID(H5Fclose, s->file);
    gs_free(s->grp);
    s->grp = NULL;
}

/* *yes = whether the group holds a link (attr 0) or an attribute (attr 1) called name. */
gs_status gs_h5_exists(h5src *s, const char *name, int attr, int *yes)
{
    gs_status st = GS_OK;
    htri_t e = attr ? H5Aexists(s->group, name) : H5Lexists(s->group, name, H5P_DEFAULT);
    if (e < 0)
        GS_FAIL(GS_ERR_IO, AT ": cannot look up %s%s: %s", AT_ARGS(s, ""), attr ? "attribute " : "",
                name, gs_h5_why());
    *yes = e > 0;
done:
    return st;
}

/* Open the numeric 1-D dataset name (vec2d: n x 1 and 1 x n count as 1-D); *len entries. */
gs_status gs_h5_open_1d(h5src *s, const char *name, int vec2d, hid_t *dset, int64_t *len)
{
    gs_status st = GS_OK;
    hid_t obj = NO_ID, type = NO_ID, space = NO_ID;
    hsize_t d[H5S_MAX_RANK];
    obj = H5Oopen(s->group, name, H5P_DEFAULT);
    if (obj < 0) GS_FAIL(GS_ERR_IO, AT ": cannot open: %s", AT_ARGS(s, name), gs_h5_why());
    if (H5Iget_type(obj) != H5I_DATASET)
        GS_FAIL(GS_ERR_INPUT, AT " is a group or named type: expected a dataset", AT_ARGS(s, name));
    if ((type = H5Dget_type(obj)) < 0 || (space = H5Dget_space(obj)) < 0)
        GS_FAIL(GS_ERR_IO, AT ": cannot query: %s", AT_ARGS(s, name), gs_h5_why());
    H5T_class_t cls = H5Tget_class(type);
    if (cls != H5T_INTEGER && cls != H5T_FLOAT)
        GS_FAIL(GS_ERR_INPUT, AT " has HDF5 class %s: expected integer or floating-point numbers",
                AT_ARGS(s, name), class_name(cls));
    int nd = H5Sget_simple_extent_ndims(space);
    if (nd < 0 || H5Sget_simple_extent_dims(space, d, NULL) < 0)
        GS_FAIL(GS_ERR_IO, AT ": cannot query: %s", AT_ARGS(s, name), gs_h5_why());
    if (nd == 1)
        *len = (int64_t)d[0];
    else if (nd == 2 && vec2d && (d[0] == 1 || d[1] == 1))
        *len = (int64_t)(d[0] * d[1]);
    else if (nd == 0)
        GS_FAIL(GS_ERR_INPUT, AT " is a scalar: expected a 1-D dataset", AT_ARGS(s, name));
    else
        GS_FAIL(GS_ERR_INPUT, AT " is %d-D (%llu x %llu%s): expected a 1-D dataset%s",
                AT_ARGS(s, name), nd, (unsigned long long)d[0], (unsigned long long)d[1],
                nd > 2 ? " x ..." : "", vec2d ? " or an n x 1 column" : "");
    *dset = obj;
    obj = NO_ID;
done:
    CLOSE_ID(H5Oclose, obj);
    CLOSE_ID(H5Tclose, type);
    CLOSE_ID(H5Sclose, space);
    return st;
}

gs_status gs_h5_read_range(h5src *s, const char *name, hid_t dset, hid_t memtype, int64_t off,
                           int64_t len, void **out)
{
    gs_status st = GS_OK;
    void *buf = NULL;
    hid_t fspace = NO_ID, mspace = NO_ID;
    GS_CHECK(gs_alloc_array((size_t)len, 8, name, &buf));
    if (len > 0) {
        /* a slice: the hyperslab [off, off + len) along the dataset's one long axis (a 2-D
         * vector is n x 1 or 1 x n) */
        hsize_t dims[2] = {1, 1}, start[2] = {0, 0}, count[2] = {1, 1}, m = (hsize_t)len;
        H5Eclear2(H5E_DEFAULT);
        fspace = H5Dget_space(dset);
        int nd = fspace >= 0 ? H5Sget_simple_extent_ndims(fspace) : -1;
        if (nd < 1 || nd > 2 || H5Sget_simple_extent_dims(fspace, dims, NULL) < 0)
            GS_FAIL(GS_ERR_IO, AT ": cannot query: %s", AT_ARGS(s, name), gs_h5_why());
        int ax = nd == 2 && dims[0] == 1 ? 1 : 0;
        start[ax] = (hsize_t)off;
        count[ax] = (hsize_t)len;
        if (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
            (mspace = H5Screate_simple(1, &m, NULL)) < 0 ||
            H5Dread(dset, memtype, mspace, fspace, H5P_DEFAULT, buf) < 0)
            GS_FAIL(GS_ERR_IO, AT ": cannot read entries %lld..%lld: %s", AT_ARGS(s, name),
                    (long long)off, (long long)(off + len - 1), gs_h5_why());
    }
    *out = buf;
    buf = NULL;
done:
    CLOSE_ID(H5Sclose, fspace);
    CLOSE_ID(H5Sclose, mspace);
    gs_free(buf);
    return st;
}

/* Read all len entries of dset converted to memtype (8 bytes each) into a gs_malloc'ed array. */
static gs_status read_all(h5src *s, const char *name, hid_t dset, hid_t memtype, int64_t len,
                          void **out)
{
    gs_status st = GS_OK;
    void *buf = NULL;
    GS_CHECK(gs_alloc_array((size_t)len, 8, name, &buf));
    if (len > 0 && H5Dread(dset, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        GS_FAIL(GS_ERR_IO, AT ": cannot read: %s", AT_ARGS(s, name), gs_h5_why());
    *out = buf;
    buf = NULL;
done:
    gs_free(buf);
    return st;
}

/* Read the len integers of dset (pointers or indices) as int64. Stored as floats (MATLAB and
 * some writers do), each must be a whole number: HDF5's conversion would truncate 1.5 to 1 and
 * turn NaN into 0, a wrong matrix read without a word. */
static gs_status read_ints(h5src *s, const char *name, hid_t dset, int64_t len, int64_t **out)
{
    return gs_h5_read_ints(s, name, dset, -1, len, out);
}

gs_status gs_h5_read_ints(h5src *s, const char *name, hid_t dset, int64_t off, int64_t len,
                          int64_t **out)
{
    gs_status st = GS_OK;
    double *d = NULL;
    hid_t type = H5Dget_type(dset);
    H5T_class_t cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
    int whole = off < 0;
    if (whole) off = 0;
    CLOSE_ID(H5Tclose, type);
    if (cls != H5T_FLOAT)
        return whole ? read_all(s, name, dset, H5T_NATIVE_INT64, len, (void **)out)
                     : gs_h5_read_range(s, name, dset, H5T_NATIVE_INT64, off, len, (void **)out);
    if (whole)
        GS_CHECK(read_all(s, name, dset, H5T_NATIVE_DOUBLE, len, (void **)&d));
    else
        GS_CHECK(gs_h5_read_range(s, name, dset, H5T_NATIVE_DOUBLE, off, len, (void **)&d));
    for (int64_t k = 0; k < len; k++) {
        if (!(d[k] == floor(d[k]) && fabs(d[k]) < 9.2e18))
            GS_FAIL(GS_ERR_INPUT, AT "[%lld] = %.17g: expected a whole number (an index)",
                    AT_ARGS(s, name), (long long)(off + k), d[k]);
        int64_t v = (int64_t)d[k];
        memcpy(&d[k], &v, sizeof v); /* in place: both 8 bytes */
    }
    *out = (int64_t *)(void *)d;
    d = NULL;
done:
    gs_free(d);
    return st;
}

/* Read one string (variable- or fixed-length) from attribute attr into buf. */
static gs_status attr_str_value(h5src *s, const char *name, hid_t attr, hid_t type, char *buf,
                                size_t cap)
{
    gs_status st = GS_OK;
    char *vl = NULL, *fx = NULL;
    hid_t mem = NO_ID;
    if (H5Tis_variable_str(type) > 0) {
        if ((mem = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(mem, H5T_VARIABLE) < 0 ||
            H5Tset_cset(mem, H5Tget_cset(type)) < 0 || H5Aread(attr, mem, &vl) < 0)
            GS_FAIL(GS_ERR_IO, AT ": cannot read attribute %s: %s", AT_ARGS(s, ""), name,
                    gs_h5_why());
        snprintf(buf, cap, "%s", vl ? vl : "");
    } else {
        size_t sz = H5Tget_size(type);
        GS_CHECK(gs_alloc_array(sz + 1, 1, "HDF5 string attribute", (void **)&fx));
        if (H5Aread(attr, type, fx) < 0)
            GS_FAIL(GS_ERR_IO, AT ": cannot read attribute %s: %s", AT_ARGS(s, ""), name,
                    gs_h5_why());
        fx[sz] = '\0';
        while (sz > 0 && fx[sz - 1] == ' ') fx[--sz] = '\0'; /* space-padded strings */
        snprintf(buf, cap, "%s", fx);
    }
done:
    if (vl) H5free_memory(vl);
    gs_free(fx);
    CLOSE_ID(H5Tclose, mem);
    return st;
}

/* Read attribute name of the group: `want` integers into v, or (v NULL) one string into buf;
 * `what` says what was expected ("integers (rows, cols)", "a string"). */
static gs_status attr_read(h5src *s, const char *name, int want, const char *what, int64_t *v,
                           char *buf, size_t cap)
{
    gs_status st = GS_OK;
    hid_t attr = NO_ID, type = NO_ID, space = NO_ID;
    if ((attr = H5Aopen(s->group, name, H5P_DEFAULT)) < 0 || (type = H5Aget_type(attr)) < 0 ||
        (space = H5Aget_space(attr)) < 0)
        GS_FAIL(GS_ERR_IO, AT ": cannot open attribute %s: %s", AT_ARGS(s, ""), name, gs_h5_why());
    H5T_class_t cls = H5Tget_class(type);
    if (cls != (v ? H5T_INTEGER : H5T_STRING))
        GS_FAIL(GS_ERR_INPUT, AT ": attribute %s has HDF5 class %s: expected %s", AT_ARGS(s, ""),
                name, class_name(cls), what);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    if (n != want || H5Sget_simple_extent_ndims(space) > 1)
        GS_FAIL(GS_ERR_INPUT, AT ": attribute %s has %lld values: expected %d, %s", AT_ARGS(s, ""),
                name, (long long)n, want, what);
    if (!v) GS_CHECK(attr_str_value(s, name, attr, type, buf, cap));
    if (v && H5Aread(attr, H5T_NATIVE_INT64, v) < 0)
        GS_FAIL(GS_ERR_IO, AT ": cannot read attribute %s: %s", AT_ARGS(s, ""), name, gs_h5_why());
done:
    CLOSE_ID(H5Aclose, attr);
    CLOSE_ID(H5Tclose, type);
    CLOSE_ID(H5Sclose, space);
    return st;
}

/* Check a matrix size read from an attribute: non-negative and below 2^31. */
static gs_status check_size(h5src *s, const char *attr, int64_t rows, int64_t cols)
{
    gs_status st = GS_OK;
    if (rows < 0 || cols < 0)
        GS_FAIL(GS_ERR_INPUT, AT ": attribute %s gives size %lld x %lld: expected non-negative",
                AT_ARGS(s, ""), attr, (long long)rows, (long long)cols);
    if (rows > GS_MAX_INDEX || cols > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED,
                AT ": matrix size %lld x %lld exceeds gsolve's 32-bit indices (each must be "
                   "below 2^31)",
                AT_ARGS(s, ""), (long long)rows, (long long)cols);
done:
    return st;
}

/* scipy/anndata: shape = (rows, cols) (h5sparse: h5sparse_shape); CSC when encoding-type or
 * h5sparse_format says so. */
static gs_status scipy_layout(h5src *s, const char *shape_attr, h5mat *m)
{
    gs_status st = GS_OK;
    int64_t shape[2];
    int enc = 0, h5s = 0;
    char val[64];
    GS_CHECK(attr_read(s, shape_attr, 2, "integers (rows, cols)", shape, NULL, 0));
    GS_CHECK(check_size(s, shape_attr, shape[0], shape[1]));
    m->rows = shape[0];
    m->cols = shape[1];
    m->layout = LAYOUT_CSR;
    GS_CHECK(gs_h5_exists(s, "encoding-type", 1, &enc));
    GS_CHECK(gs_h5_exists(s, "h5sparse_format", 1, &h5s));
    if (enc) {
        GS_CHECK(attr_read(s, "encoding-type", 1, "a string", NULL, val, sizeof val));
        if (strcmp(val, "csc_matrix") == 0)
            m->layout = LAYOUT_CSC;
        else if (strcmp(val, "csr_matrix") != 0)
            GS_FAIL(GS_ERR_INPUT,
                    AT ": attribute encoding-type = '%s': expected csr_matrix or "
                       "csc_matrix",
                    AT_ARGS(s, ""), val);
    } else if (h5s) {
        GS_CHECK(attr_read(s, "h5sparse_format", 1, "a string", NULL, val, sizeof val));
        if (strcmp(val, "csc") == 0)
            m->layout = LAYOUT_CSC;
        else if (strcmp(val, "csr") != 0)
            GS_FAIL(GS_ERR_INPUT, AT ": attribute h5sparse_format = '%s': expected csr or csc",
                    AT_ARGS(s, ""), val);
    }
done:
    return st;
}

/* Decide the layout from the datasets and attributes of the group. */
gs_status gs_h5_find_layout(h5src *s, h5mat *m)
{
    gs_status st = GS_OK;
    static const char *const names[] = {"data", "indices", "indptr", "ir", "jc"};
    int has[5] = {0}, shape = 0, h5shape = 0, ml = 0;
    char found[64] = "";
    for (int i = 0; i < 5; i++) GS_CHECK(gs_h5_exists(s, names[i], 0, &has[i]));
    GS_CHECK(gs_h5_exists(s, "shape", 1, &shape));
    GS_CHECK(gs_h5_exists(s, "h5sparse_shape", 1, &h5shape));
    GS_CHECK(gs_h5_exists(s, "MATLAB_sparse", 1, &ml));
    if (has[0] && has[1] && has[2]) {
        if (!shape && !h5shape)
            GS_FAIL(GS_ERR_INPUT,
                    AT ": datasets data, indices, indptr found but attribute shape "
                       "is missing: expected shape = (rows, cols) on the group "
                       "(h5sparse_shape is accepted too)",
                    AT_ARGS(s, ""));
        GS_CHECK(scipy_layout(s, shape ? "shape" : "h5sparse_shape", m));
    } else if (has[4] && (has[3] || ml)) {
        if (!ml)
            GS_FAIL(GS_ERR_INPUT,
                    AT ": datasets ir, jc found but attribute MATLAB_sparse (the "
                       "number of rows) is missing",
                    AT_ARGS(s, ""));
        GS_CHECK(
            attr_read(s, "MATLAB_sparse", 1, "an integer (the number of rows)", &m->rows, NULL, 0));
        GS_CHECK(check_size(s, "MATLAB_sparse", m->rows, 0));
        m->layout = LAYOUT_MATLAB;
    } else if (ml) {
        GS_FAIL(GS_ERR_INPUT, AT ": attribute MATLAB_sparse found but dataset jc is missing",
                AT_ARGS(s, ""));
    } else {
        for (int i = 0; i < 5; i++)
            if (has[i])
                snprintf(found + strlen(found), sizeof found - strlen(found), "%s%s",
                         *found ? ", " : "; found only ", names[i]);
        GS_FAIL(GS_ERR_INPUT,
                AT ": no matrix found: expected datasets data, indices, indptr with attribute "
                   "shape (scipy/anndata CSR/CSC) or data, ir, jc with attribute MATLAB_sparse "
                   "(MATLAB v7.3)%s",
                AT_ARGS(s, ""), found);
    }
done:
    return st;
}

gs_status gs_h5_open_arrays(h5src *s, h5mat *m, hid_t d[3])
{
    gs_status st = GS_OK;
    hid_t dp = NO_ID, di = NO_ID, dv = NO_ID;
    int mat = m->layout == LAYOUT_MATLAB;
    const char *pn = mat ? "jc" : "indptr", *in = mat ? "ir" : "indices";
    int64_t ni = 0, nv = 0;
    m->has_idx = m->has_val = 1;
    GS_CHECK(gs_h5_open_1d(s, pn, 0, &dp, &m->nptr));
    if (mat) GS_CHECK(gs_h5_exists(s, in, 0, &m->has_idx));
    if (mat) GS_CHECK(gs_h5_exists(s, "data", 0, &m->has_val));
    if (m->has_idx) GS_CHECK(gs_h5_open_1d(s, in, 0, &di, &ni));
    if (m->has_val) GS_CHECK(gs_h5_open_1d(s, "data", 0, &dv, &nv));
    if (mat && m->nptr < 1)
        GS_FAIL(GS_ERR_INPUT, AT " is empty: expected columns + 1 entries", AT_ARGS(s, pn));
    if (mat) m->cols = m->nptr - 1;
    GS_CHECK(check_size(s, mat ? "MATLAB_sparse" : "shape", m->rows, m->cols));
    int64_t major = m->layout == LAYOUT_CSR ? m->rows : m->cols;
    if (m->nptr != major + 1)
        GS_FAIL(GS_ERR_INPUT,
                AT " has %lld entries, attribute shape = (%lld, %lld) needs %lld (%s "
                   "+ 1)",
                AT_ARGS(s, pn), (long long)m->nptr, (long long)m->rows, (long long)m->cols,
                (long long)major + 1, m->layout == LAYOUT_CSR ? "rows" : "columns");
    if (m->has_idx && m->has_val && ni != nv)
        GS_FAIL(GS_ERR_INPUT, AT ": %s has %lld entries but data has %lld: expected equal lengths",
                AT_ARGS(s, ""), in, (long long)ni, (long long)nv);
    m->nnz = m->has_idx ? ni : nv;
    if (GS_SIZE_IMPLAUSIBLE(m->rows, m->cols, m->nnz))
        GS_FAIL(GS_ERR_INPUT,
                AT ": a %lld x %lld matrix with %lld stored entries: more than 15 of every 16 rows "
                   "or columns would be empty; expected a size (%s) that fits the entries",
                AT_ARGS(s, ""), (long long)m->rows, (long long)m->cols, (long long)m->nnz,
                mat ? "attribute MATLAB_sparse and jc" : "attribute shape");
    if (m->nnz > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED,
                AT " has %lld entries: gsolve's 32-bit indices allow at most 2^31 - 1 nonzeros",
                AT_ARGS(s, in), (long long)m->nnz);
    d[0] = dp, d[1] = di, d[2] = dv;
    dp = di = dv = NO_ID;
done:
    CLOSE_ID(H5Dclose, dp);
    CLOSE_ID(H5Dclose, di);
    CLOSE_ID(H5Dclose, dv);
    return st;
}

/* Open the pointer, index and value datasets, check their lengths, then read them. */
static gs_status read_arrays(h5src *s, h5mat *m)
{
    gs_status st = GS_OK;
    hid_t d[3] = {NO_ID, NO_ID, NO_ID};
    int mat = m->layout == LAYOUT_MATLAB;
    GS_CHECK(gs_h5_open_arrays(s, m, d));
    GS_CHECK(read_ints(s, mat ? "jc" : "indptr", d[0], m->nptr, &m->ptr));
    if (m->has_idx) GS_CHECK(read_ints(s, mat ? "ir" : "indices", d[1], m->nnz, &m->idx));
    if (m->has_val)
        GS_CHECK(read_all(s, "data", d[2], H5T_NATIVE_DOUBLE, m->nnz, (void **)&m->val));
done:
    for (int i = 0; i < 3; i++) CLOSE_ID(H5Dclose, d[i]);
    return st;
}

gs_status gs_h5_check_ptr(h5src *s, const h5mat *m)
{
    gs_status st = GS_OK;
    int mat = m->layout == LAYOUT_MATLAB;
    const char *pn = mat ? "jc" : "indptr", *in = mat ? "ir" : "indices";
    int64_t major = m->nptr - 1;
    const int64_t *p = m->ptr;
    if (p[0] != 0)
        GS_FAIL(GS_ERR_INPUT, AT "[0] = %lld: expected 0", AT_ARGS(s, pn), (long long)p[0]);
    for (int64_t j = 1; j <= major; j++)
        if (p[j] < p[j - 1])
            GS_FAIL(GS_ERR_INPUT,
                    AT "[%lld] = %lld is less than %s[%lld] = %lld: expected "
                       "non-decreasing",
                    AT_ARGS(s, pn), (long long)j, (long long)p[j], pn, (long long)j - 1,
                    (long long)p[j - 1]);
    if (!m->has_idx && (p[major] > 0 || m->nnz > 0))
        GS_FAIL(GS_ERR_INPUT,
                AT ": dataset ir is missing but %s[%lld] = %lld and data has %lld "
                   "entries: expected no stored entries",
                AT_ARGS(s, ""), pn, (long long)major, (long long)p[major], (long long)m->nnz);
    if (!m->has_val && p[major] > 0)
        GS_FAIL(GS_ERR_INPUT,
                AT ": dataset data is missing but %s[%lld] = %lld stored entries "
                   "(MATLAB omits it only for an all-zero matrix)",
                AT_ARGS(s, ""), pn, (long long)major, (long long)p[major]);
    if (p[major] != m->nnz)
        GS_FAIL(GS_ERR_INPUT,
                AT "[%lld] = %lld (the last entry) should equal the number of "
                   "stored entries %lld (the length of %s and data)",
                AT_ARGS(s, pn), (long long)major, (long long)p[major], (long long)m->nnz, in);
done:
    return st;
}

gs_status gs_h5_check_idx(h5src *s, const h5mat *m, const int64_t *idx, int64_t off, int64_t len)
{
    gs_status st = GS_OK;
    const char *in = m->layout == LAYOUT_MATLAB ? "ir" : "indices";
    int64_t minor = m->layout == LAYOUT_CSR ? m->cols : m->rows;
    for (int64_t k = 0; k < len; k++)
        if (idx[k] < 0 || idx[k] >= minor)
            GS_FAIL(GS_ERR_INPUT, AT "[%lld] = %lld out of range 0..%lld", AT_ARGS(s, in),
                    (long long)(off + k), (long long)idx[k], (long long)minor - 1);
done:
    return st;
}

/* ptr: starts at 0, non-decreasing, ends at nnz; every index within 0..minor-1. */
static gs_status check_arrays(h5src *s, const h5mat *m)
{
    gs_status st = GS_OK;
    GS_CHECK(gs_h5_check_ptr(s, m));
    if (m->has_idx) GS_CHECK(gs_h5_check_idx(s, m, m->idx, 0, m->nnz));
done:
    return st;
}

/* Expand the checked compressed arrays to triplets and build a sorted, summed CSR. */
static gs_status build(const h5mat *m, gs_csr **A)
{
    gs_status st = GS_OK;
    int32_t *maj = NULL, *mnr = NULL;
    GS_CHECK(gs_alloc_array((size_t)m->nnz, sizeof *maj, "HDF5 matrix triplets", (void **)&maj));
    GS_CHECK(gs_alloc_array((size_t)m->nnz, sizeof *mnr, "HDF5 matrix triplets", (void **)&mnr));
    for (int64_t j = 0; j + 1 < m->nptr; j++)
        for (int64_t k = m->ptr[j]; k < m->ptr[j + 1]; k++) {
            maj[k] = (int32_t)j;
            mnr[k] = (int32_t)m->idx[k];
        }
    int csr = m->layout == LAYOUT_CSR;
    GS_CHECK(
        gs_csr_from_coo(m->rows, m->cols, m->nnz, csr ? maj : mnr, csr ? mnr : maj, m->val, A));
done:
    gs_free(maj);
    gs_free(mnr);
    return st;
}

/* No group given and none at the root: the file's one matrix group (s reopened there,
 * *found = 1); several are an error naming them; none leaves the root (its error follows). */
gs_status gs_h5_find_group(h5src *s, int *found)
{
    gs_status st = GS_OK;
    char groups[8][GS_H5_PATH], list[8 * (GS_H5_PATH + 2)] = "";
    int n = 0;
    *found = 0;
    if (gs_h5_is_sparse_group(s->group)) return GS_OK;
    GS_CHECK(gs_h5_find_matrices(s->path, groups, 8, &n));
    if (n == 0) goto done;
    for (int i = 0; i < n && i < 8; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", groups[i]);
    if (n > 1)
        GS_FAIL(GS_ERR_INPUT,
                "%s holds %d sparse matrices (%s%s): choose one with problem.group, e.g. "
                "--set problem.group=%s",
                s->path, n, list, n > 8 ? ", ..." : "", groups[0]);
    const char *path = s->path;
    gs_h5_src_close(s);
    GS_CHECK(gs_h5_src_open(s, path, groups[0]));
    *found = 1;
done:
    return st;
}

gs_status gs_h5_read(const char *path, const char *group, gs_csr **A, gs_h5_info *info)
{
    /* file -> layout -> arrays -> checks -> CSR */
    gs_status st = GS_OK;
    h5src s = {NULL, NULL, NO_ID, NO_ID};
    h5mat m;
    int found = 0;
    memset(&m, 0, sizeof m);
    if (!A) return GS_ERROR(GS_ERR_ARG, "gs_h5_read: no output matrix given");
    *A = NULL;
    GS_CHECK(gs_h5_src_open(&s, path, group));
    if (!group || !*group) GS_CHECK(gs_h5_find_group(&s, &found));
    GS_CHECK(gs_h5_find_layout(&s, &m));
    GS_CHECK(read_arrays(&s, &m));
    GS_CHECK(check_arrays(&s, &m));
    GS_CHECK(build(&m, A));
    if (info) {
        snprintf(info->layout, sizeof info->layout, "%s", gs_h5_layout_name(m.layout));
        snprintf(info->group, sizeof info->group, "%s", s.grp);
        info->found = found;
    }
done:
    gs_free(m.ptr);
    gs_free(m.idx);
    gs_free(m.val);
    gs_h5_src_close(&s);
    return st;
}

gs_status gs_h5_read_vector(const char *path, const char *group, const char *name, int64_t n,
                            double **out, int *found)
{
    /* optional dataset name of group, n doubles */
    gs_status st = GS_OK;
    h5src s = {NULL, NULL, NO_ID, NO_ID};
    hid_t d = NO_ID;
    double *v = NULL;
    int64_t len = 0;
    int yes = 0;
    if (!out || !found || !name || !*name)
        return GS_ERROR(GS_ERR_ARG, "gs_h5_read_vector: missing argument");
    *out = NULL;
    *found = 0;
    GS_CHECK(gs_h5_src_open(&s, path, group));
    GS_CHECK(gs_h5_exists(&s, name, 0, &yes));
    if (!yes) goto done;
    GS_CHECK(gs_h5_open_1d(&s, name, 1, &d, &len));
    if (len != n)
        GS_FAIL(GS_ERR_INPUT, AT " has %lld entries, the matrix has %lld rows", AT_ARGS(&s, name),
                (long long)len, (long long)n);
    GS_CHECK(read_all(&s, name, d, H5T_NATIVE_DOUBLE, len, (void **)&v));
    *out = v;
    v = NULL;
    *found = 1;
done:
    CLOSE_ID(H5Dclose, d);
    gs_free(v);
    gs_h5_src_close(&s);
    return st;
}

/* ---- output ---------------------------------------------------------------------------- */

/* Write n values as the 1-D dataset name of loc (replacing one of that name). */
static gs_status write_1d(hid_t loc, const char *file, const char *name, hid_t ftype, hid_t mtype,
                          const void *buf, int64_t n)
{
    gs_status st = GS_OK;
    hid_t space = NO_ID, lcpl = NO_ID, dset = NO_ID;
    hsize_t dim = (hsize_t)n;
    if (H5Lexists(loc, name, H5P_DEFAULT) > 0 && H5Ldelete(loc, name, H5P_DEFAULT) < 0)
        GS_FAIL(GS_ERR_WRITE, "%s: cannot replace dataset %s: %s", file, name, gs_h5_why());
    H5Eclear2(H5E_DEFAULT);
    if ((space = H5Screate_simple(1, &dim, NULL)) < 0 || (lcpl = H5Pcreate(H5P_LINK_CREATE)) < 0 ||
        H5Pset_create_intermediate_group(lcpl, 1) < 0 ||
        (dset = H5Dcreate2(loc, name, ftype, space, lcpl, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
        (n > 0 && H5Dwrite(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0))
        GS_FAIL(GS_ERR_WRITE, "%s: cannot write dataset %s: %s", file, name, gs_h5_why());
done:
    CLOSE_ID(H5Dclose, dset);
    CLOSE_ID(H5Pclose, lcpl);
    CLOSE_ID(H5Sclose, space);
    return st;
}

/* Write attribute name of loc: n values (n == 0: one scalar), replacing one of that name. */
static gs_status write_attr(hid_t loc, const char *file, const char *name, hid_t ftype, hid_t mtype,
                            const void *v, int n)
{
    gs_status st = GS_OK;
    hid_t space = NO_ID, attr = NO_ID;
    hsize_t dim = (hsize_t)n;
    space = n ? H5Screate_simple(1, &dim, NULL) : H5Screate(H5S_SCALAR);
    if (space < 0 || (H5Aexists(loc, name) > 0 && H5Adelete(loc, name) < 0) ||
        (attr = H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
        H5Awrite(attr, mtype, v) < 0)
        GS_FAIL(GS_ERR_WRITE, "%s: cannot write attribute %s: %s", file, name, gs_h5_why());
done:
    CLOSE_ID(H5Aclose, attr);
    CLOSE_ID(H5Sclose, space);
    return st;
}

/* Write a variable-length UTF-8 string attribute (what h5py and anndata write). */
static gs_status write_attr_str(hid_t loc, const char *file, const char *name, const char *value)
{
    gs_status st = GS_OK;
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0 || H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)
        GS_FAIL(GS_ERR_WRITE, "%s: cannot write attribute %s: %s", file, name, gs_h5_why());
    GS_CHECK(write_attr(loc, file, name, t, t, &value, 0));
done:
    CLOSE_ID(H5Tclose, t);
    return st;
}

/* Open group g (normalised) of file for writing, creating it and its parents. */
static gs_status out_group(hid_t file, const char *path, const char *g, hid_t *out)
{
    gs_status st = GS_OK;
    hid_t lcpl = NO_ID;
    if (strcmp(g, "/") == 0)
        *out = H5Gopen2(file, "/", H5P_DEFAULT);
    else if ((lcpl = H5Pcreate(H5P_LINK_CREATE)) >= 0 &&
             H5Pset_create_intermediate_group(lcpl, 1) >= 0)
        *out = H5Gcreate2(file, g, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    else
        *out = NO_ID;
    if (*out < 0) GS_FAIL(GS_ERR_WRITE, "%s: cannot create group %s: %s", path, g, gs_h5_why());
done:
    CLOSE_ID(H5Pclose, lcpl);
    return st;
}

gs_status gs_h5_write_csr(const char *path, const char *group, const gs_csr *A)
{
    return gs_h5_write_problem(path, group, A, NULL);
}

gs_status gs_h5_write_problem(const char *path, const char *group, const gs_csr *A,
                              const double *b)
{
    /* data/indices/indptr + shape, encoding-type, encoding-version: readable by anndata */
    gs_status st = GS_OK;
    char *g = NULL;
    hid_t file = NO_ID, grp = NO_ID;
    int created = 0;
    if (!path || !*path || !A) return GS_ERROR(GS_ERR_ARG, "gs_h5_write_csr: missing argument");
    if (A->loc != GS_LOC_HOST)
        return GS_ERROR(GS_ERR_ARG, "gs_h5_write_csr: matrix for '%s' is not on the host", path);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    GS_CHECK(norm_group(group, &g));
    file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) GS_FAIL(GS_ERR_WRITE, "cannot create '%s': %s", path, gs_h5_why());
    created = 1;
    GS_CHECK(out_group(file, path, g, &grp));
    int64_t shape[2] = {A->rows, A->cols};
    GS_CHECK(write_1d(grp, path, "data", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, A->val, A->nnz));
    GS_CHECK(write_1d(grp, path, "indices", H5T_STD_I32LE, H5T_NATIVE_INT32, A->colind, A->nnz));
    GS_CHECK(
        write_1d(grp, path, "indptr", H5T_STD_I32LE, H5T_NATIVE_INT32, A->rowptr, A->rows + 1L));
    GS_CHECK(write_attr(grp, path, "shape", H5T_STD_I64LE, H5T_NATIVE_INT64, shape, 2));
    GS_CHECK(write_attr_str(grp, path, "encoding-type", "csr_matrix"));
    GS_CHECK(write_attr_str(grp, path, "encoding-version", "0.1.0"));
    if (b) GS_CHECK(write_1d(grp, path, "b", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, b, A->rows));
    CLOSE_ID(H5Gclose, grp);
    herr_t e = H5Fclose(file);
    file = NO_ID;
    if (e < 0) GS_FAIL(GS_ERR_WRITE, "%s: cannot close: %s", path, gs_h5_why());
done:
    CLOSE_ID(H5Gclose, grp);
    CLOSE_ID(H5Fclose, file);
    if (st != GS_OK && created) unlink(path); /* no half-written matrix left behind */
    gs_free(g);
    return st;
}

/* ---- result records -------------------------------------------------------------------- */

struct gs_h5_record {
    hid_t file;
    char *path, *tmp; /* final name and "<path>.tmp", gs_malloc'ed */
};

/* Close and free r without committing (the temporary stays; the caller unlinks it). */
static void record_free(gs_h5_record *r)
{
    if (!r) return;
    CLOSE_ID(H5Fclose, r->file);
    gs_free(r->path);
    gs_free(r->tmp);
    gs_free(r);
}

gs_status gs_h5_record_open(const char *path, gs_h5_record **out)
{
    /* create "<path>.tmp", truncating any left by a killed run */
    gs_status st = GS_OK;
    gs_h5_record *r = NULL;
    if (!out) return GS_ERROR(GS_ERR_ARG, "gs_h5_record_open: no output given");
    *out = NULL;
    if (!path || !*path) return GS_ERROR(GS_ERR_ARG, "gs_h5_record_open: no file name given");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    size_t n = strlen(path);
    GS_CHECK(gs_alloc_array(1, sizeof *r, "HDF5 result record", (void **)&r));
    r->file = NO_ID;
    r->path = r->tmp = NULL;
    GS_CHECK(gs_alloc_array(n + 1, 1, "HDF5 result record name", (void **)&r->path));
    GS_CHECK(gs_alloc_array(n + 5, 1, "HDF5 result record name", (void **)&r->tmp));
    memcpy(r->path, path, n + 1);
    snprintf(r->tmp, n + 5, "%s.tmp", path);
    r->file = H5Fcreate(r->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (r->file < 0) GS_FAIL(GS_ERR_WRITE, "cannot create '%s': %s", r->tmp, gs_h5_why());
    *out = r;
    r = NULL;
done:
    record_free(r);
    return st;
}

/* The record is usable: open and not yet closed. */
static gs_status record_ok(const gs_h5_record *r, const char *name)
{
    if (!r || r->file < 0 || !name || !*name)
        return GS_ERROR(GS_ERR_ARG, "HDF5 result record: no open record or no name given");
    return GS_OK;
}

gs_status gs_h5_record_vector(gs_h5_record *r, const char *name, const double *v, int64_t n)
{
    /* float64 dataset name = v[0..n) */
    gs_status st = GS_OK;
    GS_CHECK(record_ok(r, name));
    if (n < 0 || (n > 0 && !v))
        GS_FAIL(GS_ERR_ARG, "%s: dataset %s: bad length %lld", r->tmp, name, (long long)n);
    GS_CHECK(write_1d(r->file, r->tmp, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, n));
done:
    return st;
}

gs_status gs_h5_record_attr_str(gs_h5_record *r, const char *name, const char *value)
{
    /* root attribute name = value (UTF-8 string) */
    gs_status st = GS_OK;
    GS_CHECK(record_ok(r, name));
    GS_CHECK(write_attr_str(r->file, r->tmp, name, value ? value : ""));
done:
    return st;
}

gs_status gs_h5_record_attr_double(gs_h5_record *r, const char *name, double value)
{
    /* root attribute name = value (float64) */
    gs_status st = GS_OK;
    GS_CHECK(record_ok(r, name));
    GS_CHECK(write_attr(r->file, r->tmp, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, 0));
done:
    return st;
}

gs_status gs_h5_record_attr_int(gs_h5_record *r, const char *name, int64_t value)
{
    /* root attribute name = value (int64) */
    gs_status st = GS_OK;
    GS_CHECK(record_ok(r, name));
    GS_CHECK(write_attr(r->file, r->tmp, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value, 0));
done:
    return st;
}

/* Flush a closed file's data to disk so a rename never exposes an empty file after a crash. */
static gs_status sync_file(const char *path)
{
    gs_status st = GS_OK;
    int fd = open(path, O_RDONLY);
    if (fd < 0 || fsync(fd) != 0)
        GS_FAIL(GS_ERR_WRITE, "%s: cannot sync to disk: %s", path, strerror(errno));
done:
    if (fd >= 0) close(fd);
    return st;
}

gs_status gs_h5_record_close(gs_h5_record **rp, int commit)
{
    /* close; commit: rename "<path>.tmp" over path (atomic), else remove the temporary */
    gs_status st = GS_OK;
    gs_h5_record *r = rp ? *rp : NULL;
    int renamed = 0;
    if (!r) return GS_OK;
    *rp = NULL;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    herr_t e = r->file >= 0 ? H5Fclose(r->file) : 0;
    r->file = NO_ID;
    if (!commit) goto done;
    if (e < 0) GS_FAIL(GS_ERR_WRITE, "%s: cannot close: %s", r->tmp, gs_h5_why());
    GS_CHECK(sync_file(r->tmp));
    if (rename(r->tmp, r->path) != 0)
        GS_FAIL(GS_ERR_WRITE, "cannot rename '%s' to '%s': %s", r->tmp, r->path, strerror(errno));
    renamed = 1;
done:
    if (!renamed) unlink(r->tmp);
    record_free(r);
    return st;
}

/* gs_h5_find.c: what an HDF5 file holds: the groups that store a sparse matrix (scipy/anndata,
 * h5sparse or MATLAB v7.3 layout) and the numeric datasets beside them, found by walking the
 * file; the listing --inspect prints; a dense dataset read as a block of vectors.
 *
 * The walk uses only H5Gget_info, H5Lget_name_by_idx and H5Oopen (the same in HDF5 1.10 and
 * later, with H5Lget_info for a link's kind), goes at most MAX_DEPTH groups deep, lists what a
 * soft link names but descends only through hard links (a soft link to "/" or a parent made the
 * walk branch at every level), opens at most MAX_VISITS objects (hard links can close a loop
 * too) and skips MATLAB's bookkeeping groups ("#refs#", "#subsystem#"). Every id is closed
 * before the walk goes on. */
#include <hdf5.h>
#include <stdio.h>
#include <string.h>

#include "gs_h5.h"
#include "gs_h5_impl.h"
#include "gs_mem.h"

#define MAX_DEPTH 16
#define MAX_ENTRIES 256
#define MAX_VISITS (1 << 18)

/* One thing found in the file. */
typedef struct entry {
    char path[GS_H5_PATH];
    int matrix;      /* 1: a sparse matrix group; 0: a numeric dataset */
    int matlab;      /* MATLAB layout (matrix) or a MATLAB variable (attribute MATLAB_class) */
    int64_t dims[2]; /* dataset: its dimensions as stored (ndims 1: dims[1] = 0) */
    int ndims;
    char type[16]; /* dataset: "float64", "int32", ... */
} entry;

typedef struct walk {
    entry *e;
    int n, total; /* stored, and found (total may exceed MAX_ENTRIES) */
    int visits;   /* objects opened; the walk stops at MAX_VISITS */
} walk;

int gs_h5_is_sparse_group(hid_t g)
{
    /* the layouts gs_h5_read reads: data/indices/indptr (scipy, h5sparse) or MATLAB's */
    int has[5];
    static const char *const names[5] = {"data", "indices", "indptr", "ir", "jc"};
    if (H5Aexists(g, "MATLAB_sparse") > 0) return 1;
    for (int i = 0; i < 5; i++) has[i] = H5Lexists(g, names[i], H5P_DEFAULT) > 0;
    H5Eclear2(H5E_DEFAULT);
    return (has[0] && has[1] && has[2]) || (has[3] && has[4]);
}

/* "float64", "int32", "uint8" for a numeric type; "" for another class. */
static void type_name(hid_t t, char *out, size_t len)
{
    H5T_class_t c = H5Tget_class(t);
    size_t bits = 8 * H5Tget_size(t);
    if (c == H5T_FLOAT)
        snprintf(out, len, "float%zu", bits);
    else if (c == H5T_INTEGER)
        snprintf(out, len, "%sint%zu", H5Tget_sign(t) == H5T_SGN_NONE ? "u" : "", bits);
    else
        out[0] = '\0';
}

static void add_entry(walk *w, const entry *e)
{
    if (w->n < MAX_ENTRIES) w->e[w->n++] = *e;
    w->total++;
}

/* A numeric dataset of rank 1 or 2 at path: an entry. */
static void add_dataset(walk *w, hid_t d, const char *path)
{
    entry e;
    hsize_t dims[H5S_MAX_RANK];
    hid_t t = H5Dget_type(d), s = H5Dget_space(d);
    memset(&e, 0, sizeof e);
    int nd = s >= 0 ? H5Sget_simple_extent_ndims(s) : -1;
    if (t >= 0) type_name(t, e.type, sizeof e.type);
    if (e.type[0] && (nd == 1 || nd == 2) && H5Sget_simple_extent_dims(s, dims, NULL) == nd) {
        gs_str_copy(e.path, sizeof e.path, path);
        e.ndims = nd;
        e.dims[0] = (int64_t)dims[0];
        e.dims[1] = nd == 2 ? (int64_t)dims[1] : 0;
        e.matlab = H5Aexists(d, "MATLAB_class") > 0;
        add_entry(w, &e);
    }
    if (t >= 0) H5Tclose(t);
    if (s >= 0) H5Sclose(s);
    H5Eclear2(H5E_DEFAULT);
}

/* The arrays of a matrix stored in the root group (not listed as datasets of their own). */
static int matrix_array(const char *name)
{
    static const char *const names[] = {"data", "indices", "indptr", "ir", "jc"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0) return 1;
    return 0;
}

/* Walk group g (named path) and below; in_matrix: g holds a matrix (its datasets beside the
 * arrays are listed, nothing below it). */
static void walk_group(hid_t file, hid_t g, const char *path, int depth, int in_matrix, walk *w)
{
    H5G_info_t gi;
    if (depth > MAX_DEPTH || H5Gget_info(g, &gi) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return;
    }
    for (hsize_t i = 0; i < gi.nlinks; i++) {
        char name[GS_H5_PATH], child[2 * GS_H5_PATH];
        if (H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name,
                               H5P_DEFAULT) < 0 ||
            name[0] == '#' || (in_matrix && matrix_array(name)))
            continue;
        snprintf(child, sizeof child, "%s/%s", strcmp(path, "/") ? path : "", name);
        if (++w->visits > MAX_VISITS) return;
        H5L_info_t li;
        const int hard = H5Lget_info(g, name, &li, H5P_DEFAULT) >= 0 && li.type == H5L_TYPE_HARD;
        hid_t o = H5Oopen(file, child, H5P_DEFAULT);
        if (o < 0) { /* a dangling or external link */
            H5Eclear2(H5E_DEFAULT);
            continue;
        }
        H5I_type_t ty = H5Iget_type(o);
        if (ty == H5I_GROUP && in_matrix) {
            /* not searched: the matrix found is the one */
        } else if (ty == H5I_GROUP && gs_h5_is_sparse_group(o)) {
            entry e;
            memset(&e, 0, sizeof e);
            gs_str_copy(e.path, sizeof e.path, child);
            e.matrix = 1;
            e.matlab = H5Aexists(o, "MATLAB_sparse") > 0;
            add_entry(w, &e);
        } else if (ty == H5I_GROUP && hard) {
            walk_group(file, o, child, depth + 1, 0, w);
        } else if (ty == H5I_DATASET) {
            add_dataset(w, o, child);
        }
        H5Oclose(o);
        H5Eclear2(H5E_DEFAULT);
    }
}

/* Walk the whole file at path into w (w->e gs_malloc'ed: free it). */
static gs_status walk_file(const char *path, walk *w)
{
    gs_status st = GS_OK;
    hid_t f = NO_ID, root = NO_ID;
    memset(w, 0, sizeof *w);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    GS_CHECK(gs_alloc_array(MAX_ENTRIES, sizeof *w->e, "HDF5 file listing", (void **)&w->e));
    htri_t is = H5Fis_hdf5(path);
    if (is == 0) GS_FAIL(GS_ERR_INPUT, "%s: not an HDF5 file", path);
    if (is < 0 || (f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0 ||
        (root = H5Gopen2(f, "/", H5P_DEFAULT)) < 0)
        GS_FAIL(GS_ERR_IO, "cannot open '%s': %s", path, gs_h5_why());
    if (gs_h5_is_sparse_group(root)) {
        entry e;
        memset(&e, 0, sizeof e);
        gs_str_copy(e.path, sizeof e.path, "/");
        e.matrix = 1;
        e.matlab = H5Aexists(root, "MATLAB_sparse") > 0;
        add_entry(w, &e);
    }
    walk_group(f, root, "/", 0, w->n > 0, w);
done:
    if (root >= 0) H5Gclose(root);
    if (f >= 0) H5Fclose(f);
    H5Eclear2(H5E_DEFAULT);
    return st;
}

gs_status gs_h5_find_matrices(const char *path, char (*groups)[GS_H5_PATH], int max, int *n)
{
    gs_status st = GS_OK;
    walk w;
    *n = 0;
    GS_CHECK(walk_file(path, &w));
    for (int i = 0; i < w.n; i++) {
        if (!w.e[i].matrix) continue;
        if (*n < max) gs_str_copy(groups[*n], GS_H5_PATH, w.e[i].path);
        (*n)++;
    }
done:
    gs_free(w.e);
    return st;
}

/* "scipy CSR 100 x 100, 460 nonzeros" for the matrix in group grp, or why it cannot be read. */
static void describe_matrix(const char *path, const char *grp, char *out, size_t len)
{
    gs_csr *A = NULL;
    gs_h5_info info;
    gs_error_clear();
    if (gs_h5_read(path, grp, &A, &info) == GS_OK)
        snprintf(out, len, "%s, %d x %d, %d nonzeros", info.layout, A->rows, A->cols, A->nnz);
    else
        snprintf(out, len, "cannot be read: %s", gs_error_message());
    gs_error_clear();
    gs_csr_destroy(&A);
}

gs_status gs_h5_list_matrices(const char *path, FILE *out, int *n)
{
    gs_status st = GS_OK;
    walk w;
    char desc[600];
    int nm = 0, nd = 0;
    w.e = NULL;
    if (n) *n = -1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5Fis_hdf5(path) <= 0) { /* not HDF5, or not readable: for the caller to say */
        H5Eclear2(H5E_DEFAULT);
        return GS_OK;
    }
    GS_CHECK(walk_file(path, &w));
    for (int i = 0; i < w.n; i++) nm += w.e[i].matrix;
    nd = w.n - nm;
    if (n) *n = nm;
    fprintf(out, "HDF5 file %s\nsparse matrices: %d%s\n", path, nm,
            nm > 1 ? " (choose one with --set problem.group=GROUP)" : "");
    for (int i = 0; i < w.n; i++) {
        if (!w.e[i].matrix) continue;
        describe_matrix(path, w.e[i].path, desc, sizeof desc);
        fprintf(out, "  %-24s %s\n", w.e[i].path, desc);
    }
    fprintf(out, "numeric datasets: %d%s\n", nd,
            nd ? " (usable as problem.rhs, x0 or nullspace = \"FILE:/NAME\")" : "");
    for (int i = 0; i < w.n; i++) {
        const entry *e = &w.e[i];
        if (e->matrix) continue;
        if (e->ndims == 1)
            fprintf(out, "  %-24s %s, %lld\n", e->path, e->type, (long long)e->dims[0]);
        else if (e->matlab) /* MATLAB stores an m x n array as n x m */
            fprintf(out, "  %-24s %s, %lld x %lld (MATLAB variable)\n", e->path, e->type,
                    (long long)e->dims[1], (long long)e->dims[0]);
        else
            fprintf(out, "  %-24s %s, %lld x %lld\n", e->path, e->type, (long long)e->dims[0],
                    (long long)e->dims[1]);
    }
    if (w.total > w.n) fprintf(out, "  ... and %d more\n", w.total - w.n);
    if (w.visits > MAX_VISITS)
        fprintf(out, "  (the listing stopped after %d objects)\n", MAX_VISITS);
done:
    gs_free(w.e);
    return st;
}

gs_status gs_h5_list_datasets(const char *path, char *out, size_t len)
{
    gs_status st = GS_OK;
    walk w;
    size_t n = 0;
    out[0] = '\0';
    GS_CHECK(walk_file(path, &w));
    for (int i = 0; i < w.n && n + 1 < len; i++)
        if (!w.e[i].matrix)
            n += (size_t)snprintf(out + n, len - n, "%s%s", n ? ", " : "", w.e[i].path);
    if (n >= len && len > 4) memcpy(out + len - 4, "...", 4);
done:
    gs_free(w.e);
    return st;
}

gs_status gs_h5_object_kind(const char *path, const char *name, int *kind)
{
    gs_status st = GS_OK;
    hid_t f = NO_ID, o = NO_ID;
    *kind = 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if ((f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
        GS_FAIL(GS_ERR_IO, "cannot open '%s': %s", path, gs_h5_why());
    if (H5Lexists(f, name, H5P_DEFAULT) > 0 && (o = H5Oopen(f, name, H5P_DEFAULT)) >= 0) {
        H5I_type_t t = H5Iget_type(o);
        *kind = t == H5I_GROUP ? 1 : t == H5I_DATASET ? 2 : 0;
    }
done:
    if (o >= 0) H5Oclose(o);
    if (f >= 0) H5Fclose(f);
    H5Eclear2(H5E_DEFAULT);
    return st;
}

gs_status gs_h5_read_array(const char *path, const char *name, double **v, int64_t *rows,
                           int64_t *cols, int *colmajor)
{
    gs_status st = GS_OK;
    hid_t f = NO_ID, d = NO_ID, t = NO_ID, s = NO_ID;
    hsize_t dims[H5S_MAX_RANK];
    double *buf = NULL;
    *v = NULL;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    htri_t is = H5Fis_hdf5(path);
    if (is == 0) GS_FAIL(GS_ERR_INPUT, "%s: not an HDF5 file", path);
    if (is < 0 || (f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
        GS_FAIL(GS_ERR_IO, "cannot open '%s': %s", path, gs_h5_why());
    htri_t e = H5Lexists(f, name, H5P_DEFAULT);
    H5Eclear2(H5E_DEFAULT);
    if (e <= 0 || (d = H5Oopen(f, name, H5P_DEFAULT)) < 0) {
        char names[512];
        H5Eclear2(H5E_DEFAULT);
        if (gs_h5_list_datasets(path, names, sizeof names) != GS_OK) names[0] = '\0';
        gs_error_clear();
        GS_FAIL(GS_ERR_INPUT, "%s:%s: no such dataset in the file (its numeric datasets: %s)", path,
                name, names[0] ? names : "none");
    }
    if (H5Iget_type(d) != H5I_DATASET)
        GS_FAIL(GS_ERR_INPUT, "%s:%s is a group: expected a dataset of numbers", path, name);
    if ((t = H5Dget_type(d)) < 0 || (s = H5Dget_space(d)) < 0)
        GS_FAIL(GS_ERR_IO, "%s:%s: cannot query: %s", path, name, gs_h5_why());
    H5T_class_t cls = H5Tget_class(t);
    if (cls != H5T_FLOAT && cls != H5T_INTEGER)
        GS_FAIL(GS_ERR_INPUT,
                "%s:%s holds %s values: expected real numbers (a complex MATLAB array is a "
                "compound type)",
                path, name,
                cls == H5T_COMPOUND ? "compound"
                : cls == H5T_STRING ? "string"
                                    : "non-numeric");
    int nd = H5Sget_simple_extent_ndims(s);
    if (nd < 1 || nd > 2 || H5Sget_simple_extent_dims(s, dims, NULL) != nd)
        GS_FAIL(GS_ERR_INPUT, "%s:%s has %d dimensions: expected a vector or a 2-D array", path,
                name, nd);
    int matlab = H5Aexists(d, "MATLAB_class") > 0;
    int64_t d0 = (int64_t)dims[0], d1 = nd == 2 ? (int64_t)dims[1] : 1;
    GS_CHECK(gs_alloc_array((size_t)(d0 * d1 > 0 ? d0 * d1 : 1), sizeof *buf, name, (void **)&buf));
    if (d0 * d1 > 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        GS_FAIL(GS_ERR_IO, "%s:%s: cannot read: %s", path, name, gs_h5_why());
    /* C order d0 x d1; MATLAB's m x n array is stored as n x m: read column-major */
    *rows = matlab && nd == 2 ? d1 : d0;
    *cols = matlab && nd == 2 ? d0 : d1;
    *colmajor = matlab && nd == 2;
    *v = buf;
    buf = NULL;
done:
    gs_free(buf);
    if (s >= 0) H5Sclose(s);
    if (t >= 0) H5Tclose(t);
    if (d >= 0) H5Oclose(d);
    if (f >= 0) H5Fclose(f);
    H5Eclear2(H5E_DEFAULT);
    return st;
}

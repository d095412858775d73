/* test_h5.c: HDF5 input (scipy CSR/CSC, anndata, h5sparse, MATLAB v7.3, subgroups, vectors),
 * every bad input with its status and message, CSR output round trip, result records, and no
 * leaked memory or HDF5 ids on any path (allocation failures injected too).
 * Fixture files are written here with the HDF5 C API into a mkdtemp directory. */
#include <dirent.h>
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gs_h5.h"
#include "gs_test.h"

static char g_dir[64];
static long g_mem0, g_ids0;

/* Path of a file in the test directory (a ring of buffers, so a few can be alive at once). */
static const char *tpath(const char *name)
{
    static char buf[8][320];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", g_dir, name);
    return p;
}

/* Open HDF5 objects (files, groups, datasets, attributes) of every file. */
static long h5_objects(void)
{
    return (long)H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
}

/* Transient ids (dataspaces, datatypes, property lists) have no public counter in HDF5 1.10,
 * but each kind is numbered in sequence: any id still valid between the probe made at the
 * previous check and a fresh one was left open since then. */
static hid_t g_probe[3];

static hid_t new_probe(int i)
{
    return i == 0   ? H5Screate(H5S_SCALAR)
           : i == 1 ? H5Tcopy(H5T_NATIVE_INT)
                    : H5Pcreate(H5P_DATASET_XFER);
}

static long h5_transient_leaks(void)
{
    long n = 0;
    for (int i = 0; i < 3; i++) {
        hid_t now = new_probe(i);
        for (hid_t id = g_probe[i] + 1; g_probe[i] > 0 && id < now; id++)
            if (H5Iis_valid(id) > 0) n++;
        if (g_probe[i] > 0)
            i == 0 ? H5Sclose(g_probe[i]) : i == 1 ? H5Tclose(g_probe[i]) : H5Pclose(g_probe[i]);
        g_probe[i] = now;
    }
    return n;
}

/* Nothing leaked since the start: host memory and HDF5 ids. */
static void clean(const char *where)
{
    long objs = h5_objects() - g_ids0, ids = h5_transient_leaks();
    CHECK_MSG(gs_mem_live() == g_mem0, "%s: %ld allocations live", where, gs_mem_live() - g_mem0);
    CHECK_MSG(objs == 0, "%s: %ld HDF5 objects open", where, objs);
    CHECK_MSG(ids == 0, "%s: %ld HDF5 dataspace/datatype/property list ids open", where, ids);
}

/* ---- fixture writers ------------------------------------------------------------------- */

static void wds2(hid_t loc, const char *name, hid_t type, const void *buf, int rank, hsize_t d0,
                 hsize_t d1)
{
    hsize_t d[2] = {d0, d1};
    hid_t sp = H5Screate_simple(rank, d, NULL);
    hid_t ds = H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(ds >= 0);
    if (d0 * (rank == 2 ? d1 : 1) > 0)
        CHECK(H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    H5Dclose(ds);
    H5Sclose(sp);
}

static void wds(hid_t loc, const char *name, hid_t type, const void *buf, hsize_t n)
{
    wds2(loc, name, type, buf, 1, n, 0);
}

/* Attribute of n values (n == 0: scalar). */
static void wattr(hid_t loc, const char *name, hid_t type, const void *v, hsize_t n)
{
    hid_t sp = n ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Awrite(a, type, v) >= 0);
    H5Aclose(a);
    H5Sclose(sp);
}

/* Variable-length UTF-8 string attribute, as anndata and h5py write. */
static void wattr_vstr(hid_t loc, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    wattr(loc, name, t, &value, 0);
    H5Tclose(t);
}

/* Fixed-length, null-padded string attribute, as numpy bytes (np.bytes_) write. */
static void wattr_fstr(hid_t loc, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, strlen(value));
    H5Tset_strpad(t, H5T_STR_NULLPAD);
    wattr(loc, name, t, value, 0);
    H5Tclose(t);
}

static hid_t fcreate(const char *name)
{
    hid_t f = H5Fcreate(tpath(name), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(f >= 0);
    return f;
}

static hid_t gcreate(hid_t loc, const char *name)
{
    hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g >= 0);
    return g;
}

/* The 4 x 5 test matrix in the form every reader must produce (rows sorted, dups summed):
 *   [1 0 0 2 0; 0 0 0 0 0; 0 3 0 0 4; 5 0 6 0 7] */
static const int32_t X_ROWPTR[] = {0, 2, 2, 4, 7};
static const int32_t X_COLIND[] = {0, 3, 1, 4, 0, 2, 4};
static const double X_VAL[] = {1, 2, 3, 4, 5, 6, 7};

/* CSR arrays as scipy may store them: int64 indptr, int32 indices, float32 data, a row
 * unsorted and a duplicate (3,2) = 2.5 + 3.5. */
static const int64_t C_PTR[] = {0, 2, 2, 4, 8};
static const int32_t C_IND[] = {3, 0, 4, 1, 2, 4, 0, 2};
static const float C_VAL[] = {2, 1, 4, 3, 2.5f, 7, 5, 3.5f};
static const int64_t SHAPE[] = {4, 5};

static void put_csr(hid_t g, int with_shape)
{
    wds(g, "indptr", H5T_NATIVE_INT64, C_PTR, 5);
    wds(g, "indices", H5T_NATIVE_INT32, C_IND, 8);
    wds(g, "data", H5T_NATIVE_FLOAT, C_VAL, 8);
    if (with_shape) wattr(g, "shape", H5T_NATIVE_INT64, SHAPE, 2);
}

/* The same matrix as CSC: uint32 indptr, int16 indices (columns 0 and 4 unsorted), int32
 * shape in attribute shape_attr. */
static void put_csc(hid_t g, const char *shape_attr)
{
    const uint32_t ptr[] = {0, 2, 3, 4, 5, 7};
    const int16_t ind[] = {3, 0, 2, 3, 0, 3, 2};
    const double val[] = {5, 1, 3, 6, 2, 7, 4};
    const int32_t shape[] = {4, 5};
    wds(g, "indptr", H5T_NATIVE_UINT32, ptr, 6);
    wds(g, "indices", H5T_NATIVE_INT16, ind, 7);
    wds(g, "data", H5T_NATIVE_DOUBLE, val, 7);
    wattr(g, shape_attr, H5T_NATIVE_INT32, shape, 2);
}

static void check_x(const gs_csr *A, const char *what)
{
    CHECK_MSG(A && A->rows == 4 && A->cols == 5 && A->nnz == 7, "%s: wrong size", what);
    if (!A || A->rows != 4 || A->nnz != 7) return;
    CHECK_MSG(memcmp(A->rowptr, X_ROWPTR, sizeof X_ROWPTR) == 0, "%s: rowptr", what);
    CHECK_MSG(memcmp(A->colind, X_COLIND, sizeof X_COLIND) == 0, "%s: colind", what);
    for (int k = 0; k < 7; k++) CHECK_MSG(A->val[k] == X_VAL[k], "%s: val[%d]", what, k);
    CHECK(A->loc == GS_LOC_HOST);
}

/* Read path:group, compare with the test matrix and the expected layout. */
static void read_x(const char *path, const char *group, const char *layout)
{
    gs_csr *A = NULL;
    gs_h5_info info;
    memset(&info, 0, sizeof info);
    CHECK_OK(gs_h5_read(path, group, &A, &info));
    check_x(A, group ? group : "(null)");
    CHECK_MSG(strcmp(info.layout, layout) == 0, "layout %s, expected %s", info.layout, layout);
    gs_csr_destroy(&A);
    clean(group ? group : "(null)");
}

/* ---- good inputs ----------------------------------------------------------------------- */

static void test_csr_root(void)
{
    hid_t f = fcreate("csr.h5");
    put_csr(f, 1);
    H5Fclose(f);
    read_x(tpath("csr.h5"), NULL, "csr");
    read_x(tpath("csr.h5"), "", "csr");
    read_x(tpath("csr.h5"), "/", "csr");
    CHECK_FAIL(gs_h5_read(tpath("csr.h5"), "/", NULL, NULL), GS_ERR_ARG, "no output matrix");
    gs_csr *A = NULL; /* info may be NULL */
    CHECK_OK(gs_h5_read(tpath("csr.h5"), NULL, &A, NULL));
    check_x(A, "info NULL");
    gs_csr_destroy(&A);
    double *b = (double *)1;
    int found = -1;
    CHECK_OK(gs_h5_read_vector(tpath("csr.h5"), NULL, "b", 4, &b, &found));
    CHECK(found == 0 && b == NULL);
    clean("csr root");
}

static void test_csc_anndata(void)
{
    hid_t f = fcreate("csc.h5");
    put_csc(f, "shape");
    wattr_vstr(f, "encoding-type", "csc_matrix");
    wattr_vstr(f, "encoding-version", "0.1.0");
    hid_t g = gcreate(f, "h5sparse"); /* h5sparse: fixed-length "csc", h5sparse_shape */
    put_csc(g, "h5sparse_shape");
    wattr_fstr(g, "h5sparse_format", "csc");
    H5Gclose(g);
    g = gcreate(f, "explicit_csr"); /* encoding-type csr_matrix, vlen */
    put_csr(g, 1);
    wattr_vstr(g, "encoding-type", "csr_matrix");
    H5Gclose(g);
    H5Fclose(f);
    read_x(tpath("csc.h5"), "/", "csc");
    read_x(tpath("csc.h5"), "/h5sparse", "csc");
    read_x(tpath("csc.h5"), "explicit_csr", "csr");
}

static void test_matlab(void)
{
    hid_t f = fcreate("matlab.h5");
    hid_t g = gcreate(f, "A");
    const uint64_t jc[] = {0, 2, 3, 4, 5, 7}, ir[] = {0, 3, 2, 3, 0, 2, 3}, rows = 4;
    const double val[] = {1, 5, 3, 6, 2, 4, 7};
    wds(g, "jc", H5T_NATIVE_UINT64, jc, 6);
    wds(g, "ir", H5T_NATIVE_UINT64, ir, 7);
    wds(g, "data", H5T_NATIVE_DOUBLE, val, 7);
    wattr(g, "MATLAB_sparse", H5T_NATIVE_UINT64, &rows, 0);
    wattr_fstr(g, "MATLAB_class", "double");
    H5Gclose(g);
    g = gcreate(f, "E"); /* all-zero 3 x 2: MATLAB writes jc only */
    const uint64_t jce[] = {0, 0, 0}, rows3 = 3;
    wds(g, "jc", H5T_NATIVE_UINT64, jce, 3);
    wattr(g, "MATLAB_sparse", H5T_NATIVE_UINT64, &rows3, 0);
    H5Gclose(g);
    g = gcreate(f, "L"); /* logical 2 x 2 anti-diagonal, data uint8 */
    const uint64_t jcl[] = {0, 1, 2}, irl[] = {1, 0}, rows2 = 2;
    const uint8_t ones[] = {1, 1};
    wds(g, "jc", H5T_NATIVE_UINT64, jcl, 3);
    wds(g, "ir", H5T_NATIVE_UINT64, irl, 2);
    wds(g, "data", H5T_NATIVE_UINT8, ones, 2);
    wattr(g, "MATLAB_sparse", H5T_NATIVE_UINT64, &rows2, 0);
    H5Gclose(g);
    H5Fclose(f);

    read_x(tpath("matlab.h5"), "/A", "matlab");
    gs_csr *A = NULL;
    CHECK_OK(gs_h5_read(tpath("matlab.h5"), "/E", &A, NULL));
    CHECK(A && A->rows == 3 && A->cols == 2 && A->nnz == 0 && A->rowptr[3] == 0);
    gs_csr_destroy(&A);
    CHECK_OK(gs_h5_read(tpath("matlab.h5"), "/L", &A, NULL));
    CHECK(A && A->rows == 2 && A->cols == 2 && A->nnz == 2);
    if (A && A->nnz == 2)
        CHECK(A->colind[0] == 1 && A->colind[1] == 0 && A->val[0] == 1 && A->val[1] == 1);
    gs_csr_destroy(&A);
    clean("matlab");
}

static void test_subgroup_vectors(void)
{
    hid_t f = fcreate("sub.h5");
    hid_t g = gcreate(f, "A");
    put_csr(g, 1);
    wattr_fstr(g, "encoding-type", "csr_matrix");
    const double b[] = {1, NAN, 3, INFINITY};
    const float x0[] = {0.5f, 1, 2, 3};
    const int32_t x[] = {4, 3, 2, 1};
    wds(g, "b", H5T_NATIVE_DOUBLE, b, 4);
    wds2(g, "x0", H5T_NATIVE_FLOAT, x0, 2, 4, 1);
    wds2(g, "x", H5T_NATIVE_INT32, x, 2, 1, 4);
    hid_t g2 = gcreate(g, "B");
    put_csc(g2, "shape");
    wattr_vstr(g2, "h5sparse_format", "csc");
    H5Gclose(g2);
    H5Gclose(g);
    H5Fclose(f);

    const char *p = tpath("sub.h5");
    read_x(p, "/A", "csr");
    read_x(p, "A/", "csr");
    read_x(p, "//A/B/", "csc");
    double *v = NULL;
    int found = 0;
    CHECK_OK(gs_h5_read_vector(p, "/A", "b", 4, &v, &found));
    CHECK(found == 1 && v && v[0] == 1 && isnan(v[1]) && v[2] == 3 && isinf(v[3]));
    gs_free(v);
    CHECK_OK(gs_h5_read_vector(p, "/A", "x0", 4, &v, &found));
    CHECK(found == 1 && v && v[0] == 0.5 && v[3] == 3);
    gs_free(v);
    CHECK_OK(gs_h5_read_vector(p, "/A", "x", 4, &v, &found));
    CHECK(found == 1 && v && v[0] == 4 && v[3] == 1);
    gs_free(v);
    CHECK_OK(gs_h5_read_vector(p, "/A", "y", 4, &v, &found));
    CHECK(found == 0 && v == NULL);
    clean("subgroup vectors");
}

/* ---- bad inputs ------------------------------------------------------------------------ */

/* gs_h5_read(path, group) fails with code and a message containing "path:" + tail. */
static void bad(const char *path, const char *group, gs_status code, const char *tail)
{
    char want[1024];
    gs_csr *A = NULL;
    snprintf(want, sizeof want, "%s:%s", path, tail);
    CHECK_FAIL(gs_h5_read(path, group, &A, NULL), code, want);
    CHECK_MSG(A == NULL, "%s: matrix returned on failure", group);
    gs_csr_destroy(&A);
    clean(group);
}

/* One broken matrix per group of bad.h5. */
static void write_bad_file(void)
{
    hid_t f = fcreate("bad.h5"), g;
    const int64_t decr[] = {0, 2, 1, 4, 8}, last[] = {0, 2, 2, 4, 7}, first[] = {1, 2, 2, 4, 8};
    const int32_t range[] = {3, 0, 4, 1, 2, 9, 0, 2};
    const int64_t shape55[] = {5, 5}, neg[] = {-1, 5}, big[] = {3000000000LL, 5},
                  three[] = {4, 5, 1};
    const double d8[] = {1, 2, 3, 4, 5, 6, 7, 8};

    g = gcreate(f, "noshape"), put_csr(g, 0), H5Gclose(g);
    g = gcreate(f, "empty"), H5Gclose(g);
    g = gcreate(f, "partial");
    wds(g, "data", H5T_NATIVE_DOUBLE, d8, 8);
    wds(g, "indptr", H5T_NATIVE_INT64, C_PTR, 5);
    H5Gclose(g);
    g = gcreate(f, "decr");
    wds(g, "indptr", H5T_NATIVE_INT64, decr, 5);
    wds(g, "indices", H5T_NATIVE_INT32, C_IND, 8);
    wds(g, "data", H5T_NATIVE_FLOAT, C_VAL, 8);
    wattr(g, "shape", H5T_NATIVE_INT64, SHAPE, 2);
    H5Gclose(g);
    g = gcreate(f, "last");
    wds(g, "indptr", H5T_NATIVE_INT64, last, 5);
    wds(g, "indices", H5T_NATIVE_INT32, C_IND, 8);
    wds(g, "data", H5T_NATIVE_FLOAT, C_VAL, 8);
    wattr(g, "shape", H5T_NATIVE_INT64, SHAPE, 2);
    H5Gclose(g);
    g = gcreate(f, "first");
    wds(g, "indptr", H5T_NATIVE_INT64, first, 5);
    wds(g, "indices", H5T_NATIVE_INT32, C_IND, 8);
    wds(g, "data", H5T_NATIVE_FLOAT, C_VAL, 8);
    wattr(g, "shape", H5T_NATIVE_INT64, SHAPE, 2);
    H5Gclose(g);
    g = gcreate(f, "range");
    wds(g, "indptr", H5T_NATIVE_INT64, C_PTR, 5);
    wds(g, "indices", H5T_NATIVE_INT32, range, 8);
    wds(g, "data", H5T_NATIVE_FLOAT, C_VAL, 8);
    wattr(g, "shape", H5T_NATIVE_INT64, SHAPE, 2);
    H5Gclose(g);
    g = gcreate(f, "shapelen"), put_csr(g, 0);
    wattr(g, "shape", H5T_NATIVE_INT64, shape55, 2), H5Gclose(g);
    g = gcreate(f, "negshape"), put_csr(g, 0);
    wattr(g, "shape", H5T_NATIVE_INT64, neg, 2), H5Gclose(g);
    g = gcreate(f, "bigshape"), put_csr(g, 0);
    wattr(g, "shape", H5T_NATIVE_INT64, big, 2), H5Gclose(g);
    g = gcreate(f, "shape3"), put_csr(g, 0);
    wattr(g, "shape", H5T_NATIVE_INT64, three, 3), H5Gclose(g);
    g = gcreate(f, "shapefloat"), put_csr(g, 0);
    wattr(g, "shape", H5T_NATIVE_DOUBLE, d8, 2), H5Gclose(g);
    g = gcreate(f, "enc"), put_csr(g, 1);
    wattr_vstr(g, "encoding-type", "coo_matrix"), H5Gclose(g);
    g = gcreate(f, "encint"), put_csr(g, 1);
    wattr(g, "encoding-type", H5T_NATIVE_INT64, SHAPE, 0), H5Gclose(g);
    H5Fclose(f);
}

/* More broken groups: dataset classes and ranks, lengths, MATLAB, vectors. */
static void write_bad_file2(hid_t f)
{
    hid_t g, t;
    const double d8[] = {1, 2, 3, 4, 5, 6, 7, 8};
    const char *strs[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    const uint64_t jc[] = {0, 1, 2}, ir[] = {0, 1}, two = 2;

    g = gcreate(f, "strdata");
    wds(g, "indptr", H5T_NATIVE_INT64, C_PTR, 5);
    wds(g, "indices", H5T_NATIVE_INT32, C_IND, 8);
    t = H5Tcopy(H5T_C_S1), H5Tset_size(t, H5T_VARIABLE);
    wds(g, "data", t, strs, 8), H5Tclose(t);
    wattr(g, "shape", H5T_NATIVE_INT64, SHAPE, 2);
    H5Gclose(g);
    g = gcreate(f, "data2d");
    wds(g, "indptr", H5T_NATIVE_INT64, C_PTR, 5);
    wds(g, "indices", H5T_NATIVE_INT32, C_IND, 8);
    wds2(g, "data", H5T_NATIVE_DOUBLE, d8, 2, 2, 4);
    wattr(g, "shape", H5T_NATIVE_INT64, SHAPE, 2);
    H5Gclose(g);
    g = gcreate(f, "lenmis");
    wds(g, "indptr", H5T_NATIVE_INT64, C_PTR, 5);
    wds(g, "indices", H5T_NATIVE_INT32, C_IND, 8);
    wds(g, "data", H5T_NATIVE_DOUBLE, d8, 7);
    wattr(g, "shape", H5T_NATIVE_INT64, SHAPE, 2);
    H5Gclose(g);
    g = gcreate(f, "mlnodata");
    wds(g, "jc", H5T_NATIVE_UINT64, jc, 3), wds(g, "ir", H5T_NATIVE_UINT64, ir, 2);
    wattr(g, "MATLAB_sparse", H5T_NATIVE_UINT64, &two, 0), H5Gclose(g);
    g = gcreate(f, "mlnoattr");
    wds(g, "jc", H5T_NATIVE_UINT64, jc, 3), wds(g, "ir", H5T_NATIVE_UINT64, ir, 2);
    wds(g, "data", H5T_NATIVE_DOUBLE, d8, 2), H5Gclose(g);
    g = gcreate(f, "mlnojc");
    wds(g, "ir", H5T_NATIVE_UINT64, ir, 2);
    wattr(g, "MATLAB_sparse", H5T_NATIVE_UINT64, &two, 0), H5Gclose(g);
    g = gcreate(f, "mlrange"); /* ir[1] = 2 with 2 rows */
    const uint64_t ir2[] = {0, 2};
    wds(g, "jc", H5T_NATIVE_UINT64, jc, 3), wds(g, "ir", H5T_NATIVE_UINT64, ir2, 2);
    wds(g, "data", H5T_NATIVE_DOUBLE, d8, 2);
    wattr(g, "MATLAB_sparse", H5T_NATIVE_UINT64, &two, 0), H5Gclose(g);
    g = gcreate(f, "vec");
    put_csr(g, 1);
    wds(g, "b", H5T_NATIVE_DOUBLE, d8, 3);
    wds2(g, "b22", H5T_NATIVE_DOUBLE, d8, 2, 2, 2);
    t = H5Tcopy(H5T_C_S1), H5Tset_size(t, H5T_VARIABLE);
    wds(g, "bstr", t, strs, 4), H5Tclose(t);
    H5Gclose(gcreate(g, "bgroup"));
    H5Gclose(g);
    wds(f, "dset", H5T_NATIVE_DOUBLE, d8, 3);
}

static void test_bad_inputs(void)
{
    write_bad_file();
    hid_t f = H5Fopen(tpath("bad.h5"), H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0);
    write_bad_file2(f);
    H5Fclose(f);
    const char *p = tpath("bad.h5");
    char want[512];
    gs_csr *A = NULL;

    snprintf(want, sizeof want, "cannot open '%s': No such file", tpath("missing.h5"));
    CHECK_FAIL(gs_h5_read(tpath("missing.h5"), NULL, &A, NULL), GS_ERR_IO, want);
    FILE *txt = fopen(tpath("text.h5"), "w");
    CHECK(txt != NULL);
    if (txt) fputs("this is not HDF5\n", txt), fclose(txt);
    snprintf(want, sizeof want, "%s: not an HDF5 file", tpath("text.h5"));
    CHECK_FAIL(gs_h5_read(tpath("text.h5"), NULL, &A, NULL), GS_ERR_INPUT, want);
    CHECK_FAIL(gs_h5_read(g_dir, NULL, &A, NULL), GS_ERR_IO, "is a directory");
    CHECK_FAIL(gs_h5_read(NULL, NULL, &A, NULL), GS_ERR_ARG, "no HDF5 file name");
    snprintf(want, sizeof want, "%s: group /nope not found", p);
    CHECK_FAIL(gs_h5_read(p, "/nope", &A, NULL), GS_ERR_INPUT, want);
    snprintf(want, sizeof want, "%s: group /nope/deeper not found (no /nope in the file)", p);
    CHECK_FAIL(gs_h5_read(p, "nope/deeper", &A, NULL), GS_ERR_INPUT, want);
    CHECK(A == NULL);
    clean("files and groups");

    bad(p, "/dset", GS_ERR_INPUT, "/dset is not a group");
    bad(p, "/empty", GS_ERR_INPUT,
        "/empty: no matrix found: expected datasets data, indices, indptr with attribute "
        "shape (scipy/anndata CSR/CSC) or data, ir, jc with attribute MATLAB_sparse (MATLAB "
        "v7.3)");
    bad(p, "/", GS_ERR_INPUT, "/: no matrix found");
    bad(p, "/partial", GS_ERR_INPUT,
        "/partial: no matrix found: expected datasets data, indices, indptr with attribute "
        "shape (scipy/anndata CSR/CSC) or data, ir, jc with attribute MATLAB_sparse (MATLAB "
        "v7.3); found only data, indptr");
    bad(p, "/noshape", GS_ERR_INPUT,
        "/noshape: datasets data, indices, indptr found but attribute shape is missing");
    bad(p, "/decr", GS_ERR_INPUT,
        "/decr/indptr[2] = 1 is less than indptr[1] = 2: expected non-decreasing");
    bad(p, "/last", GS_ERR_INPUT,
        "/last/indptr[4] = 7 (the last entry) should equal the number of stored entries 8");
    bad(p, "/first", GS_ERR_INPUT, "/first/indptr[0] = 1: expected 0");
    bad(p, "/range", GS_ERR_INPUT, "/range/indices[5] = 9 out of range 0..4");
    bad(p, "/shapelen", GS_ERR_INPUT,
        "/shapelen/indptr has 5 entries, attribute shape = (5, 5) needs 6 (rows + 1)");
    bad(p, "/negshape", GS_ERR_INPUT, "/negshape: attribute shape gives size -1 x 5");
    bad(p, "/bigshape", GS_ERR_UNSUPPORTED, "/bigshape: matrix size 3000000000 x 5 exceeds");
    bad(p, "/shape3", GS_ERR_INPUT, "/shape3: attribute shape has 3 values: expected 2");
    bad(p, "/shapefloat", GS_ERR_INPUT, "/shapefloat: attribute shape has HDF5 class float");
    bad(p, "/enc", GS_ERR_INPUT, "/enc: attribute encoding-type = 'coo_matrix'");
    bad(p, "/encint", GS_ERR_INPUT, "/encint: attribute encoding-type has HDF5 class integer");
    bad(p, "/strdata", GS_ERR_INPUT, "/strdata/data has HDF5 class string");
    bad(p, "/data2d", GS_ERR_INPUT, "/data2d/data is 2-D (2 x 4): expected a 1-D dataset");
    bad(p, "/lenmis", GS_ERR_INPUT, "/lenmis: indices has 8 entries but data has 7");
    bad(p, "/mlnodata", GS_ERR_INPUT, "/mlnodata: dataset data is missing but jc[2] = 2");
    bad(p, "/mlnoattr", GS_ERR_INPUT,
        "/mlnoattr: datasets ir, jc found but attribute MATLAB_sparse (the number of rows) is "
        "missing");
    bad(p, "/mlnojc", GS_ERR_INPUT, "/mlnojc: attribute MATLAB_sparse found but dataset jc");
    bad(p, "/mlrange", GS_ERR_INPUT, "/mlrange/ir[1] = 2 out of range 0..1");
}

static void test_bad_vectors(void)
{
    const char *p = tpath("bad.h5");
    char want[512];
    double *v = (double *)1;
    int found = -1;
    snprintf(want, sizeof want, "%s:/vec/b has 3 entries, the matrix has 4 rows", p);
    CHECK_FAIL(gs_h5_read_vector(p, "/vec", "b", 4, &v, &found), GS_ERR_INPUT, want);
    CHECK(v == NULL && found == 0);
    CHECK_FAIL(gs_h5_read_vector(p, "/vec", "b22", 4, &v, &found), GS_ERR_INPUT,
               "/vec/b22 is 2-D (2 x 2): expected a 1-D dataset or an n x 1 column");
    CHECK_FAIL(gs_h5_read_vector(p, "/vec", "bstr", 4, &v, &found), GS_ERR_INPUT,
               "/vec/bstr has HDF5 class string");
    CHECK_FAIL(gs_h5_read_vector(p, "/vec", "bgroup", 4, &v, &found), GS_ERR_INPUT,
               "/vec/bgroup is a group or named type: expected a dataset");
    CHECK_FAIL(gs_h5_read_vector(p, "/novec", "b", 4, &v, &found), GS_ERR_INPUT,
               "group /novec not found");
    CHECK_FAIL(gs_h5_read_vector(tpath("missing.h5"), "/", "b", 4, &v, &found), GS_ERR_IO,
               "cannot open");
    CHECK(v == NULL && found == 0);
    clean("bad vectors");
}

/* ---- output ---------------------------------------------------------------------------- */

static gs_status make_x(gs_csr **A)
{
    const int32_t ri[] = {0, 0, 2, 2, 3, 3, 3}, ci[] = {0, 3, 1, 4, 0, 2, 4};
    return gs_csr_from_coo(4, 5, 7, ri, ci, X_VAL, A);
}

/* Read a scalar variable-length string attribute of loc with the C API. */
static void check_vstr_attr(hid_t loc, const char *name, const char *want)
{
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT), t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    char *s = NULL;
    CHECK_MSG(a >= 0 && H5Aread(a, t, &s) >= 0 && s && strcmp(s, want) == 0, "attr %s", name);
    if (s) H5free_memory(s);
    H5Tclose(t);
    H5Aclose(a);
}

static void test_roundtrip(void)
{
    gs_csr *A = NULL, *B = NULL, *E = NULL;
    CHECK_OK(make_x(&A));
    CHECK_OK(gs_h5_write_csr(tpath("rt.h5"), "/out/M", A));
    CHECK_OK(gs_h5_write_csr(tpath("rt_root.h5"), NULL, A));
    gs_csr_destroy(&A);
    read_x(tpath("rt.h5"), "/out/M", "csr");
    read_x(tpath("rt_root.h5"), "/", "csr");

    /* the layout anndata/scipy users expect: int32 indices/indptr, int64 shape, strings */
    hid_t f = H5Fopen(tpath("rt.h5"), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t g = H5Gopen2(f, "/out/M", H5P_DEFAULT);
    hid_t d = H5Dopen2(g, "indices", H5P_DEFAULT), t = H5Dget_type(d);
    CHECK(H5Tget_class(t) == H5T_INTEGER && H5Tget_size(t) == 4);
    H5Tclose(t), H5Dclose(d);
    d = H5Dopen2(g, "data", H5P_DEFAULT), t = H5Dget_type(d);
    CHECK(H5Tget_class(t) == H5T_FLOAT && H5Tget_size(t) == 8);
    H5Tclose(t), H5Dclose(d);
    check_vstr_attr(g, "encoding-type", "csr_matrix");
    check_vstr_attr(g, "encoding-version", "0.1.0");
    int64_t shape[2] = {0, 0};
    hid_t a = H5Aopen(g, "shape", H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT64, shape) >= 0 && shape[0] == 4 && shape[1] == 5);
    H5Aclose(a), H5Gclose(g), H5Fclose(f);

    /* an empty matrix, and truncating an existing file */
    CHECK_OK(gs_csr_from_coo(3, 2, 0, NULL, NULL, NULL, &E));
    CHECK_OK(gs_h5_write_csr(tpath("rt.h5"), "/", E));
    CHECK_OK(gs_h5_read(tpath("rt.h5"), NULL, &B, NULL));
    CHECK(B && B->rows == 3 && B->cols == 2 && B->nnz == 0);
    gs_csr_destroy(&B);
    CHECK_FAIL(gs_h5_read(tpath("rt.h5"), "/out/M", &B, NULL), GS_ERR_INPUT, "not found");

    CHECK_OK(make_x(&A));
    CHECK_FAIL(gs_h5_write_csr("/nonexistent-dir/x.h5", NULL, A), GS_ERR_WRITE,
               "cannot create '/nonexistent-dir/x.h5'");
    CHECK_FAIL(gs_h5_write_csr(tpath("rt.h5"), NULL, NULL), GS_ERR_ARG, "missing argument");
    gs_csr_destroy(&A);
    gs_csr_destroy(&E);
    clean("roundtrip");
}

static void test_record(void)
{
    const char *p = tpath("rec.h5");
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%s.tmp", p);
    FILE *old = fopen(p, "w"); /* an older record is replaced atomically */
    if (old) fputs("old\n", old), fclose(old);

    gs_h5_record *r = NULL;
    const double res[] = {1, 0.5, 0.25};
    CHECK_OK(gs_h5_record_open(p, &r));
    CHECK(r != NULL && access(tmp, F_OK) == 0);
    CHECK_OK(gs_h5_record_vector(r, "residuals", res, 2));
    CHECK_OK(gs_h5_record_vector(r, "residuals", res, 3)); /* replaced */
    CHECK_OK(gs_h5_record_vector(r, "empty", NULL, 0));
    CHECK_OK(gs_h5_record_attr_str(r, "solver", "cg"));
    CHECK_OK(gs_h5_record_attr_double(r, "tol", 1e-8));
    CHECK_OK(gs_h5_record_attr_int(r, "iters", 42));
    CHECK_OK(gs_h5_record_attr_int(r, "iters", 43)); /* replaced */
    CHECK_FAIL(gs_h5_record_vector(r, "", res, 3), GS_ERR_ARG, "no name");
    CHECK_OK(gs_h5_record_close(&r, 1));
    CHECK(r == NULL && access(tmp, F_OK) != 0);

    hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0);
    double got[3] = {0, 0, 0}, tol = 0;
    int64_t iters = 0;
    hid_t d = H5Dopen2(f, "residuals", H5P_DEFAULT);
    CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0);
    CHECK(got[0] == 1 && got[1] == 0.5 && got[2] == 0.25);
    H5Dclose(d);
    check_vstr_attr(f, "solver", "cg");
    hid_t a = H5Aopen(f, "tol", H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_DOUBLE, &tol) >= 0 && tol == 1e-8);
    H5Aclose(a);
    a = H5Aopen(f, "iters", H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT64, &iters) >= 0 && iters == 43);
    H5Aclose(a);
    H5Fclose(f);

    const char *q = tpath("abort.h5"); /* abort: neither file left */
    CHECK_OK(gs_h5_record_open(q, &r));
    CHECK_OK(gs_h5_record_vector(r, "residuals", res, 3));
    CHECK_OK(gs_h5_record_close(&r, 0));
    snprintf(tmp, sizeof tmp, "%s.tmp", q);
    CHECK(r == NULL && access(q, F_OK) != 0 && access(tmp, F_OK) != 0);

    CHECK_FAIL(gs_h5_record_open("/nonexistent-dir/rec.h5", &r), GS_ERR_WRITE,
               "cannot create '/nonexistent-dir/rec.h5.tmp'");
    CHECK(r == NULL);
    CHECK_OK(gs_h5_record_close(&r, 1)); /* NULL record */
    CHECK_OK(gs_h5_record_close(NULL, 1));
    CHECK_FAIL(gs_h5_record_attr_int(NULL, "x", 1), GS_ERR_ARG, "no open record");
    clean("record");
}

/* ---- allocation failures: every k-th allocation fails in turn, nothing leaks --------- */

static gs_status inj_read(const char *file, const char *group)
{
    gs_csr *A = NULL;
    gs_status st = gs_h5_read(tpath(file), group, &A, NULL);
    gs_csr_destroy(&A);
    return st;
}
static gs_status inj_csr(void)
{
    return inj_read("csr.h5", NULL);
}
static gs_status inj_csc(void)
{
    return inj_read("csc.h5", "/");
}
static gs_status inj_matlab(void)
{
    return inj_read("matlab.h5", "A");
}
static gs_status inj_csc_sub(void)
{
    return inj_read("sub.h5", "/A/B");
}
static gs_status inj_vector(void)
{
    double *v = NULL;
    int found = 0;
    gs_status st = gs_h5_read_vector(tpath("sub.h5"), "/A", "b", 4, &v, &found);
    gs_free(v);
    return st;
}
static gs_status inj_write(void)
{
    gs_csr *A = NULL;
    gs_status st = make_x(&A);
    if (st == GS_OK) st = gs_h5_write_csr(tpath("inj.h5"), "/a/b", A);
    gs_csr_destroy(&A);
    return st;
}
static gs_status inj_record(void)
{
    gs_h5_record *r = NULL;
    const double v[] = {1, 2};
    gs_status st = gs_h5_record_open(tpath("injrec.h5"), &r);
    if (st == GS_OK) st = gs_h5_record_vector(r, "v", v, 2);
    if (st == GS_OK) st = gs_h5_record_attr_str(r, "s", "x");
    gs_status st2 = gs_h5_record_close(&r, st == GS_OK);
    return st != GS_OK ? st : st2;
}

static void inject(const char *what, gs_status (*fn)(void))
{
    for (long k = 1; k < 500; k++) {
        gs_error_clear();
        gs_mem_fail_at(k);
        gs_status st = fn();
        gs_mem_fail_at(0);
        clean(what);
        if (st == GS_OK) return;
        CHECK_MSG(st == GS_ERR_NOMEM, "%s: allocation %ld failed: got %s: %s", what, k,
                  gs_status_str(st), gs_error_message());
        if (st != GS_ERR_NOMEM) return;
    }
    CHECK_MSG(0, "%s never succeeded", what);
}

static void test_injection(void)
{
    inject("read csr", inj_csr);
    inject("read csc", inj_csc);
    inject("read matlab", inj_matlab);
    inject("read csc subgroup", inj_csc_sub);
    inject("read vector", inj_vector);
    inject("write csr", inj_write);
    inject("record", inj_record);
    gs_error_clear();
}

/* Remove the files of the test directory, then the directory. */
static void remove_dir(void)
{
    DIR *d = opendir(g_dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlink(tpath(e->d_name));
    if (d) closedir(d);
    rmdir(g_dir);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/gs_test_h5_XXXXXX");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    H5open();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    g_mem0 = gs_mem_live();
    h5_transient_leaks(); /* the probes first: open datatypes count as objects too */
    g_ids0 = h5_objects();
    test_csr_root();
    test_csc_anndata();
    test_matlab();
    test_subgroup_vectors();
    test_bad_inputs();
    test_bad_vectors();
    test_roundtrip();
    test_record();
    test_injection();
    clean("end");
    for (int i = 0; i < 3; i++)
        i == 0 ? H5Sclose(g_probe[i]) : i == 1 ? H5Tclose(g_probe[i]) : H5Pclose(g_probe[i]);
    remove_dir();
    return gs_test_result("test_h5");
}

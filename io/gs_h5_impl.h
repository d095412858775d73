/* gs_h5_impl.h: what gs_h5.c (reading and writing), gs_h5_find.c (what a file holds) and
 * gs_h5_dist.c (a rank's rows) share. Not a public header: it needs hdf5.h. */
#ifndef GS_H5_IMPL_H
#define GS_H5_IMPL_H

#include <hdf5.h>
#include <stdint.h>

#include "gs_status.h"

#define NO_ID ((hid_t)-1)

/* Close an HDF5 id when open and forget it. */
#define CLOSE_ID(fn, id)                                                                           \
    do {                                                                                           \
        if ((id) >= 0) fn(id);                                                                     \
        (id) = NO_ID;                                                                              \
    } while (0)

/* "file:/group/name" in messages: AT with AT_ARGS(s, name); name "" names the group. */
#define AT "%s:%s%s%s"
#define AT_ARGS(s, name) (s)->path, (s)->grp, gs_h5_sep((s)->grp, (name)), (name)

/* What HDF5 said about its last failure, in one line (per-thread buffer); clears HDF5's
 * error stack. */
const char *gs_h5_why(void);

/* 1 when group g holds a sparse matrix in a layout gs_h5_read reads (data/indices/indptr, or
 * MATLAB's attribute MATLAB_sparse or datasets ir and jc). */
int gs_h5_is_sparse_group(hid_t g);

/* the separator between a group and a name in messages ("" at the root or for no name) */
const char *gs_h5_sep(const char *grp, const char *name);

/* An open input file and group. */
typedef struct gs_h5_src {
    const char *path; /* as given, for messages */
    char *grp;        /* normalised ("/", "/A/B"), gs_malloc'ed */
    hid_t file, group;
} gs_h5_src;

enum { GS_H5_CSR, GS_H5_CSC, GS_H5_MATLAB };
/* "csr", "csc", "matlab" (gs_h5_info.layout) */
const char *gs_h5_layout_name(int layout);

/* The arrays of a compressed matrix as stored (major = rows for CSR, columns otherwise). */
typedef struct gs_h5_mat {
    int layout;
    int64_t rows, cols; /* MATLAB: cols = len(jc) - 1 */
    int64_t nptr, nnz;
    int has_idx, has_val; /* MATLAB may omit ir and data for an all-zero matrix */
    int64_t *ptr, *idx;
    double *val;
} gs_h5_mat;

/* Open path read-only and its group (NULL or "" = root); gs_h5_src_close undoes it, even on
 * failure. */
gs_status gs_h5_src_open(gs_h5_src *s, const char *path, const char *group);
void gs_h5_src_close(gs_h5_src *s);
/* *yes = whether the group holds a link (attr 0) or an attribute (attr 1) called name */
gs_status gs_h5_exists(gs_h5_src *s, const char *name, int attr, int *yes);
/* No group given and none at the root: the file's one matrix group (s reopened there,
 * *found = 1); several are an error naming them; none leaves the root. */
gs_status gs_h5_find_group(gs_h5_src *s, int *found);
/* the layout of the group's matrix, from its datasets and attributes (m->layout, sizes) */
gs_status gs_h5_find_layout(gs_h5_src *s, gs_h5_mat *m);
/* Open the numeric 1-D dataset name (vec2d: n x 1 and 1 x n count as 1-D); *len entries. */
gs_status gs_h5_open_1d(gs_h5_src *s, const char *name, int vec2d, hid_t *dset, int64_t *len);
/* the pointer, index and value datasets of m's layout opened into d[0..2] (NO_ID where MATLAB
 * omits one), their lengths checked against the shape (m->nptr, m->nnz set) */
gs_status gs_h5_open_arrays(gs_h5_src *s, gs_h5_mat *m, hid_t d[3]);
/* entries [off, off + len) of dset (its long axis) converted to memtype (8 bytes each), a
 * hyperslab read, into a gs_malloc'ed array */
gs_status gs_h5_read_range(gs_h5_src *s, const char *name, hid_t dset, hid_t memtype, int64_t off,
                           int64_t len, void **out);
/* integers (pointers or indices) as int64, entries [off, off + len) (off < 0: the whole
 * dataset of len entries); stored as floats, each must be a whole number */
gs_status gs_h5_read_ints(gs_h5_src *s, const char *name, hid_t dset, int64_t off, int64_t len,
                          int64_t **out);
/* m->ptr (whole): starts at 0, non-decreasing, ends at nnz, agrees with the missing arrays */
gs_status gs_h5_check_ptr(gs_h5_src *s, const gs_h5_mat *m);
/* idx[0..len) = entries [off, off + len) of the index dataset, each within the minor size */
gs_status gs_h5_check_idx(gs_h5_src *s, const gs_h5_mat *m, const int64_t *idx, int64_t off,
                          int64_t len);

#endif

/* gs_h5_dist.c: a CSR matrix of an HDF5 file read by rows (gs_h5.h): the row pointers whole
 * (for the partition), then every rank's rows, entries and vector slices by hyperslab
 * selections, so no rank holds more of the file than its rows. The steps are gs_h5.c's
 * (gs_h5_impl.h), so the checks and their messages are those of a whole read.
 */
#include "gs_h5.h"
#include "gs_h5_impl.h"

#include <stdio.h>
#include <string.h>

#include "gs_mem.h"

gs_status gs_h5_probe(const char *path, const char *group, gs_h5_info *info, int64_t *rows,
                      int64_t *cols, int64_t *nnz, int64_t **ptr)
{
    gs_status st = GS_OK;
    gs_h5_src s = {NULL, NULL, NO_ID, NO_ID};
    gs_h5_mat m;
    hid_t d[3] = {NO_ID, NO_ID, NO_ID};
    int found = 0;
    memset(&m, 0, sizeof m);
    if (ptr) *ptr = NULL;
    GS_CHECK(gs_h5_src_open(&s, path, group));
    if (!group || !*group) GS_CHECK(gs_h5_find_group(&s, &found));
    GS_CHECK(gs_h5_find_layout(&s, &m));
    GS_CHECK(gs_h5_open_arrays(&s, &m, d));
    if (ptr && m.layout == GS_H5_CSR) {
        GS_CHECK(gs_h5_read_ints(&s, "indptr", d[0], -1, m.nptr, &m.ptr));
        GS_CHECK(gs_h5_check_ptr(&s, &m));
        *ptr = m.ptr;
        m.ptr = NULL;
    }
    if (info) {
        snprintf(info->layout, sizeof info->layout, "%s", gs_h5_layout_name(m.layout));
        snprintf(info->group, sizeof info->group, "%s", s.grp);
        info->found = found;
    }
    *rows = m.rows;
    *cols = m.cols;
    *nnz = m.nnz;
done:
    for (int i = 0; i < 3; i++) CLOSE_ID(H5Dclose, d[i]);
    gs_free(m.ptr);
    gs_h5_src_close(&s);
    return st;
}

/* Sort each row's entries by column, stably (insertion: the rows of a file gsolve or scipy
 * wrote are sorted already, one pass), then sum duplicates left to right in place: the order
 * gs_csr_from_coo gives a whole read. rp is updated to the summed rows. */
static void sort_rows(int64_t rows, int64_t *rp, int64_t *col, double *val)
{
    int64_t w = 0;
    for (int64_t i = 0; i < rows; i++) {
        int64_t beg = rp[i], end = rp[i + 1], start = w;
        for (int64_t k = beg + 1; k < end; k++) {
            int64_t c = col[k], j = k;
            double v = val[k];
            for (; j > beg && col[j - 1] > c; j--) {
                col[j] = col[j - 1];
                val[j] = val[j - 1];
            }
            col[j] = c;
            val[j] = v;
        }
        for (int64_t k = beg; k < end; k++) {
            if (w > start && col[w - 1] == col[k]) {
                val[w - 1] += val[k];
            } else {
                col[w] = col[k];
                val[w++] = val[k];
            }
        }
        rp[i] = start;
    }
    rp[rows] = w;
}

gs_status gs_h5_read_rows(const char *path, const char *group, int64_t r0, int64_t r1,
                          int64_t **rowptr, int64_t **col, double **val)
{
    gs_status st = GS_OK;
    gs_h5_src s = {NULL, NULL, NO_ID, NO_ID};
    gs_h5_mat m;
    hid_t d[3] = {NO_ID, NO_ID, NO_ID};
    int64_t *rp = NULL, *ci = NULL;
    double *v = NULL;
    memset(&m, 0, sizeof m);
    *rowptr = *col = NULL;
    *val = NULL;
    GS_CHECK(gs_h5_src_open(&s, path, group));
    GS_CHECK(gs_h5_find_layout(&s, &m));
    if (m.layout != GS_H5_CSR)
        GS_FAIL(GS_ERR_INPUT,
                AT ": the matrix is stored as %s: rows are read apart only from the csr layout",
                AT_ARGS(&s, ""), gs_h5_layout_name(m.layout));
    GS_CHECK(gs_h5_open_arrays(&s, &m, d));
    if (r0 < 0 || r1 < r0 || r1 > m.rows)
        GS_FAIL(GS_ERR_ARG, AT ": rows [%lld, %lld) asked of a matrix of %lld rows",
                AT_ARGS(&s, ""), (long long)r0, (long long)r1, (long long)m.rows);
    GS_CHECK(gs_h5_read_ints(&s, "indptr", d[0], r0, r1 - r0 + 1, &rp));
    int64_t q0 = rp[0], q1 = rp[r1 - r0];
    /* gs_h5_probe checked the whole pointers; a file changed since then must not be read
     * out of bounds */
    for (int64_t i = 0; i < r1 - r0; i++)
        if (rp[i + 1] < rp[i] || rp[i] < 0 || rp[i + 1] > m.nnz)
            GS_FAIL(GS_ERR_INPUT,
                    AT "[%lld] = %lld, [%lld] = %lld: expected non-decreasing "
                       "offsets within 0..%lld (did the file change while it was read?)",
                    AT_ARGS(&s, "indptr"), (long long)(r0 + i), (long long)rp[i],
                    (long long)(r0 + i + 1), (long long)rp[i + 1], (long long)m.nnz);
    GS_CHECK(gs_h5_read_ints(&s, "indices", d[1], q0, q1 - q0, &ci));
    GS_CHECK(gs_h5_check_idx(&s, &m, ci, q0, q1 - q0));
    GS_CHECK(gs_h5_read_range(&s, "data", d[2], H5T_NATIVE_DOUBLE, q0, q1 - q0, (void **)&v));
    for (int64_t i = 0; i <= r1 - r0; i++) rp[i] -= q0;
    sort_rows(r1 - r0, rp, ci, v);
    *rowptr = rp;
    *col = ci;
    *val = v;
    rp = ci = NULL;
    v = NULL;
done:
    for (int i = 0; i < 3; i++) CLOSE_ID(H5Dclose, d[i]);
    gs_free(rp);
    gs_free(ci);
    gs_free(v);
    gs_h5_src_close(&s);
    return st;
}

gs_status gs_h5_read_vector_rows(const char *path, const char *group, const char *name, int64_t n,
                                 int64_t r0, int64_t r1, double **out, int *found)
{
    gs_status st = GS_OK;
    gs_h5_src s = {NULL, NULL, NO_ID, NO_ID};
    hid_t d = NO_ID;
    int64_t len = 0;
    int yes = 0;
    *out = NULL;
    *found = 0;
    GS_CHECK(gs_h5_src_open(&s, path, group));
    GS_CHECK(gs_h5_exists(&s, name, 0, &yes));
    if (!yes) goto done;
    GS_CHECK(gs_h5_open_1d(&s, name, 1, &d, &len));
    if (len != n)
        GS_FAIL(GS_ERR_INPUT, AT " has %lld entries, the matrix has %lld rows", AT_ARGS(&s, name),
                (long long)len, (long long)n);
    GS_CHECK(gs_h5_read_range(&s, name, d, H5T_NATIVE_DOUBLE, r0, r1 - r0, (void **)out));
    *found = 1;
done:
    CLOSE_ID(H5Dclose, d);
    gs_h5_src_close(&s);
    return st;
}

/* gs_dist_ops.h: the data-parallel steps of the distributed setup, one table per backend
 * (gs_dist_ops_host.c, gs_dist_ops_cuda.cu), reached through gs_backend_module(loc,
 * GS_MODULE_DIST). They work on a rank's rows in compact column form (gs_dist.h: its own columns
 * first, then its halo columns in ascending global order) so that the O(rows) work of the
 * distributed AMG setup stays where the matrices live; only halo-sized lists (the column maps,
 * the coarse entries' (row, length) lists) and each neighbour's bounds cross to the host.
 *
 * Every matrix and array is at the table's location. Results are new matrices (the device ones
 * ready for SpMV); inputs are not changed. Zero rows, columns or entries are allowed everywhere.
 */
#ifndef GS_DIST_OPS_H
#define GS_DIST_OPS_H

#include <stdint.h>

#include "gs_csr.h"
#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An IPC halo's device signals around the product that reads it (gs_dist_op.h): *ctr counts
 * the operator's products done and this one is k = *ctr + 1; wait until flags[i] >= k for
 * i < nwait (the neighbours' "done"), and afterwards write k to *ready_at[i] for i < nready
 * (the neighbours' "ready" flags for this rank) and then to *ctr; ticket: a counter at the
 * table's location, zero between calls. All at the table's location. */
typedef struct gs_halo_signals {
    int nwait, nready;
    const uint64_t *flags;
    uint64_t *const *ready_at;
    uint64_t *ctr;
    unsigned *ticket;
} gs_halo_signals;


typedef struct gs_dist_ops {
    /* diag = the entries of C with column < ncols (C->rows x ncols); offd = the others with
     * column - ncols, in the rows that hold any alone (*nor x nhalo; NULL when nhalo == 0),
     * those rows' indices ascending into *orow (at the table's location, the backend's free; at
     * least one element; NULL when nhalo == 0). C's rows are sorted by column. */
    gs_status (*split)(const gs_csr *C, int32_t ncols, int32_t nhalo, gs_csr **diag, gs_csr **offd,
                       int32_t *nor, int32_t **orow);
    /* *out = host rows C (compact columns: ncols own, then nhalo halo) copied to the table's
     * location and split there as split does (diag, offd, nor, orow); meanwhile(arg) (NULL:
     * none) runs on the host while the rows travel, also on failure (it may hold collectives),
     * and its failure is returned. The device table splits each part of the rows while the next
     * travels (page-locked rows); the host's copies, then splits. */
    gs_status (*upload_split)(const gs_csr *C, int32_t ncols, int32_t nhalo,
                              gs_status (*meanwhile)(void *), void *arg, gs_csr **out,
                              gs_csr **diag, gs_csr **offd, int32_t *nor, int32_t **orow);
    /* len[i] = the entries of row idx[i] of A, i < n (idx NULL: row i) */
    gs_status (*row_lengths)(const gs_csr *A, int64_t n, const int32_t *idx, int32_t *len);
    /* the rows idx[0..n) of A packed back to back: row idx[i]'s entries (in A's order) at
     * [off[i], off[i + 1]) of gcol and val, its column j as a global number: base + j when
     * j < nown, else gmap[j - nown] (gmap may be NULL when every column is below nown). idx
     * NULL: rows 0..n in order; off NULL: each row at its own place in A (A's row pointers) */
    gs_status (*pack_rows)(const gs_csr *A, int64_t n, const int32_t *idx, const int64_t *off,
                           int64_t base, int32_t nown, const int64_t *gmap, int64_t *gcol,
                           double *val);
    /* each row's first entry as doubles: g[i] = base + its column and v[i] = its value, or -1
     * and 0 for an empty row, i < A->rows (g and v at the table's location): the rows of a
     * tentative prolongator (one entry a row at most) in a form the halo exchange carries */
    gs_status (*first_entry)(const gs_csr *A, int64_t base, double *g, double *v);
    /* y[idx[i]] += x[i], i < n (the indices of one call are distinct) */
    gs_status (*scatter_add)(int64_t n, const int32_t *idx, const double *x, double *y);
    /* y[rows[i]] += (row i of O) . xh, i < O->rows (rows distinct): an operator's off-diagonal
     * block (the rows with halo entries) times the halo, added into the own rows it touches;
     * each row's products summed in column order, from zero, then added (one kernel). With sg
     * (an IPC halo signalled on the device; may be NULL), in the same kernel: first wait until
     * the halo has arrived, then, once every row is done, say the halo buffer is free (see
     * gs_halo_signals; the host table fails rather than wait for a flag not yet set). */
    gs_status (*offd_add)(const gs_csr *O, const int32_t *rows, const double *xh, double *y,
                          const gs_halo_signals *sg);
    /* C = a rank's rows with global columns in compact form: rows rows, row i's entries at
     * [rowptr[i], rowptr[i + 1]) of col (int64 global columns, ascending within each row) and
     * val (rowptr: rows + 1 int64 offsets from 0; all three at the table's location). C's
     * columns: the own ones [col0, col0 + ncols) first, as j - col0, then the others as ncols +
     * their place in the ascending list of the distinct other columns of all rows, each row's
     * own entries before its other ones (so C's rows are sorted). *halo (host memory from
     * gs_alloc_array, freed with gs_free; at least one element allocated even when empty)
     * receives that list, *nhalo its length. GS_ERR_UNSUPPORTED when ncols + nhalo or the
     * entries reach 2^31. */
    gs_status (*compact)(int32_t rows, const int64_t *rowptr, const int64_t *col, const double *val,
                         int64_t col0, int32_t ncols, gs_csr **C, int64_t **halo, int32_t *nhalo);
    /* the distinct values of keys[0..n) outside the own window [lo, lo + nown), ascending:
     * the other ranks' columns a list names. keys at the table's location, each in
     * [0, bound) (the sort reads the bits below bound alone); their contents may be reordered
     * or overwritten. Into *out (host memory from gs_alloc_array, at least one element,
     * gs_free) and, when dout is not NULL, the same into *dout (at the table's location, at
     * least one element, the backend's free); their count into *m */
    gs_status (*sort_unique)(int64_t *keys, int64_t n, int64_t lo, int32_t nown, int64_t bound,
                             int64_t **out, int64_t **dout, int64_t *m);
    /* out[i] = g[i] - lo when lo <= g[i] < lo + nown, else nown + the place of g[i] in the
     * ascending map[0..m) (every such g[i] is in it), i < n; all at the table's location */
    gs_status (*map_cols)(const int64_t *g, int64_t n, int64_t lo, int32_t nown, const int64_t *map,
                          int64_t m, int32_t *out);
    /* len[i] = the entries of row i of A as a double (the form the halo exchange carries),
     * i < A->rows */
    gs_status (*lengths)(const gs_csr *A, double *len);
    /* off[0..n] = the exclusive prefix sums of n row lengths, ilen (int32) or, when ilen is
     * NULL, dlen (whole numbers held as doubles): off[0] = 0, off[n] the total; all at the
     * table's location */
    gs_status (*offsets)(int64_t n, const int32_t *ilen, const double *dlen, int64_t *off);
    /* ri[q] = i (map: map[i]) for rowptr[i] <= q < rowptr[i + 1], i < rows (rowptr: rows + 1
     * offsets from 0; map NULL or rows values); all at the table's location */
    gs_status (*row_index)(int32_t rows, const int64_t *rowptr, const int32_t *map, int32_t *ri);
    /* *C = rows x cols CSR at the table's location from rows given back to back: row i's
     * len[i] entries, their columns gcol (int64, each below cols) and values val (total
     * entries n), each row sorted here by column (stably; the gathered level's rows come as
     * own columns, then halo: unsorted in global numbers, which the block strength's merge
     * needs sorted). GS_ERR_UNSUPPORTED when n reaches 2^31. */
    gs_status (*csr_from_rows)(int32_t rows, int32_t cols, const int32_t *len, int64_t n,
                               const int64_t *gcol, const double *val, gs_csr **C);
    /* rows of one entry at most as first_entry gives them: row i holds global column g[i] and
     * value v[i] when g[i] >= 0, nothing when g[i] < 0, i < n. Out: rowptr (n + 1 offsets) and
     * the entries in row order in gcol and val (room for n); all at the table's location */
    gs_status (*first_entry_rows)(int64_t n, const double *g, const double *v, int64_t *rowptr,
                                  int64_t *gcol, double *val);
    /* *out = the rows of compact C (ncols own columns first in each row, then halo columns) with
     * only their own columns, each row's halo entries added into its diagonal entry (a row
     * without a diagonal entry keeps its entries; the halo's sum is dropped): the diagonal
     * block as a rank's own coarsening sees its rows, their couplings to other ranks lumped
     * (classical AMG's splitting and interpolation within each rank). Rows sorted by column. */
    gs_status (*lump_halo)(const gs_csr *C, int32_t ncols, gs_csr **out);
} gs_dist_ops;

extern const gs_dist_ops gs_dist_host_ops;

#ifdef __cplusplus
}
#endif
#endif

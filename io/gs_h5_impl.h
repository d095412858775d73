/* gs_h5_impl.h: what gs_h5.c (reading and writing) and gs_h5_find.c (what a file holds)
 * share. Not a public header: it needs hdf5.h. */
#ifndef GS_H5_IMPL_H
#define GS_H5_IMPL_H

#include <hdf5.h>

/* What HDF5 said about its last failure, in one line (per-thread buffer); clears HDF5's
 * error stack. */
const char *gs_h5_why(void);

/* 1 when group g holds a sparse matrix in a layout gs_h5_read reads (data/indices/indptr, or
 * MATLAB's attribute MATLAB_sparse or datasets ir and jc). */
int gs_h5_is_sparse_group(hid_t g);

#endif

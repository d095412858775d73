/* gs_npz.h: scipy.sparse matrices saved by scipy.sparse.save_npz: a .npz file, a zip archive
 * (stored or deflate-compressed, zip64 records too) of .npy members: format (b'csr', b'csc' or
 * b'coo'), shape, data, and indices + indptr (csr, csc) or row + col (coo; or coords, 2 x nnz).
 * The values may be float64, float32 or integers; index arrays int32 or int64. Every length in
 * the archive is checked against the file before it is trusted, and what is inflated must come
 * out at the size the archive declares and with its CRC. */
#ifndef GS_NPZ_H
#define GS_NPZ_H

#include "gs_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the file begins with a zip local header ("PK\3\4") or is an empty zip ("PK\5\6"). */
int gs_npz_is_npz(const char *path);

/* Read the sparse matrix of a save_npz file: sorted, duplicates summed; *layout (may be NULL)
 * gets "npz csr", "npz csc" or "npz coo". */
gs_status gs_npz_read(const char *path, gs_csr **A, char layout[32]);

#ifdef __cplusplus
}
#endif
#endif

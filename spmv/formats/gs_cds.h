/* gs_cds.h: Column Diagonal Storage (Godwin, Holewinski and Sadayappan, GPGPU-5 2012) for
 * matrices from structured grids with b unknowns per grid point.
 *
 * The matrix is cut into b x b blocks (block row I = i / b, block column J = j / b); a block
 * diagonal is the set of blocks with the same offset o = J - I. CDS keeps the K distinct
 * offsets (ascending) and, for each block diagonal d and block column c = j % b, one dense
 * array over all rows (paper sec. 3.1: the first column of every block, then the second ...):
 *
 *     value of row i = I*b + r, column j = (I + off[d])*b + c   is   val[(d*b + c)*ld + i]
 *
 * so the thread of row i reads val[... + i] and consecutive threads read consecutive doubles
 * (coalesced, sec. 3.3), and no column index is stored. ld is rows rounded up to 32, so each
 * of the K*b arrays starts 256-byte aligned. Slots with no CSR entry (inside a partly present
 * block, or a block outside the matrix at the grid's edges) hold 0.0. A bit per slot
 * (`present`, same numbering, 32 slots per word) says which slots were CSR entries, so that
 * to_csr gives back the exact pattern, explicit zeros included; only to_csr reads it, never
 * the SpMV.
 *
 * Block size (sec. 2.2.3, "degrees of freedom"): gs_format_params.cds_block > 0 forces b
 * (1..GS_CDS_MAX_BLOCK; it must divide rows and cols). Otherwise every b in
 * 1..GS_CDS_DETECT_MAX dividing both rows and cols is tried and the one that stores the fewest
 * values, K_b * b * rows, wins (ties: the larger b). That is the byte count of the SpMV, and it
 * is smallest at b = the number of unknowns per point: a divisor of it splits each dense block
 * over several block diagonals, a multiple of it pads blocks with zeros. Rows or cols not a
 * multiple of b leave b = 1 (plain DIA, which CDS reduces to at b = 1, sec. 3.2).
 *
 * Refusals (GS_ERR_UNSUPPORTED, with the numbers): more than GS_CDS_MAX_DIAGS block diagonals
 * at every block size tried (the kernel keeps the offsets of a matrix in shared memory; the
 * cap also bounds one row's work at GS_CDS_MAX_DIAGS * b slots), or stored values
 * K*b*rows > (1 + cds_max_fill) * nnz. A matrix without entries is taken with no diagonals.
 *
 * Known block diagonals (gs_format_params.cds_hint_*; the selector passes the ones its feature
 * pass found). A hint whose block size divides rows and cols acts as a forced block size when
 * cds_block is 0 (one that does not is ignored, as is the hint when cds_block forces another
 * size). When moreover its offsets are 1..GS_CDS_MAX_DIAGS ascending values inside the block
 * grid and their fill passes cds_max_fill, the conversion takes them and goes straight to the
 * fill, which checks that every entry finds its slot and every block diagonal gets an entry.
 * Otherwise (offsets that do not fit, or a fill that finds an entry off the hinted diagonals or
 * a diagonal without entries) the offsets are detected at that block size as above. So the
 * result, refusals included, is always what detection with cds_block = the hint's block size
 * gives: a wrong hint costs time, never entries.
 *
 * A gs_cds lives on the host or the device (loc); the offsets always have a host copy.
 */
#ifndef GS_CDS_H
#define GS_CDS_H

#include <stdint.h>

#include "gs_spmat.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_CDS_DETECT_MAX 8  /* block sizes 1..8 are tried when cds_block is 0 */
#define GS_CDS_MAX_BLOCK 64  /* largest forced block size (spmv.cds_block's range) */
#define GS_CDS_MAX_DIAGS 128 /* most block diagonals */
#define GS_CDS_ROW_ALIGN 32  /* ld is rows rounded up to this */

/* ld, the distance between two value arrays, for a matrix of `rows` rows */
static inline int64_t gs_cds_ld(int64_t rows)
{
    return (rows + GS_CDS_ROW_ALIGN - 1) / GS_CDS_ROW_ALIGN * GS_CDS_ROW_ALIGN;
}

typedef struct gs_cds {
    int32_t rows, cols, nnz; /* the CSR's shape and entry count */
    int32_t b;               /* unknowns per grid point: blocks are b x b */
    int32_t nbr, nbc;        /* block rows rows/b, block columns cols/b */
    int32_t ndiag;           /* K, the number of block diagonals */
    int64_t ld;              /* distance between two of the K*b value arrays (>= rows) */
    int32_t *off;            /* K block offsets J - I, ascending (host) */
    int32_t *d_off;          /* device copy of off (device matrices; NULL on the host) */
    double *val;             /* K*b*ld values at loc (NULL when K = 0) */
    uint32_t *present;       /* K*b*ld/32 words at loc: bit s set when slot s is a CSR entry */
    gs_loc loc;
} gs_cds;

/* b, K and the values stored (K*b*rows, padding included) of a CDS matrix. */
int gs_cds_block_size(const gs_cds *C);
int gs_cds_diagonals(const gs_cds *C);
int64_t gs_cds_stored(const gs_cds *C);

/* --- shared by the host (gs_cds.c) and device (gs_cds_cuda.cu) conversions --- */

/* The block sizes to try for A under p: b[0..*n) (ascending; just the forced one when
 * p->cds_block > 0, or the hint's when that divides A). GS_ERR_UNSUPPORTED when a forced size
 * is too large or does not divide. */
gs_status gs_cds_candidates(const gs_csr *A, const gs_format_params *p, int *b, int *n);

/* The index of the candidate storing the fewest values K*b*rows (ties: the larger b) among
 * those with at most GS_CDS_MAX_DIAGS block diagonals (k[q]); -1 when there is none. What
 * gs_cds_choose picks, before its fill check; the matrix features (gs_select.h) use it too. */
int gs_cds_best(const gs_csr *A, int n, const int *b, const int64_t *k);

/* Pick among n candidates b[q] with k[q] block diagonals (k[q] > GS_CDS_MAX_DIAGS means "too
 * many"; exact = 0 when such counts stopped early): *pick = the index of the candidate storing
 * the fewest values, or GS_ERR_UNSUPPORTED with the numbers when it breaks the cap or the fill. */
gs_status gs_cds_choose(const gs_csr *A, const gs_format_params *p, int n, const int *b,
                        const int64_t *k, int exact, int *pick);

/* Test hook: how many conversions (host and device) so far detected their block diagonals, that
 * is, reached gs_cds_choose, instead of taking a hint. */
long gs_cds_detections(void);

/* A speculative CDS fill beside the device feature pass (gs_select.c, "auto"): the fill of a
 * device matrix A at block size 1 is enqueued right behind the feature kernel, which leaves its
 * diagonals on the device, so the selection waits once for both. The arrays are allocated
 * beforehand for up to kmax = ceil(nnz / rows) + 1 diagonals; the fill runs only when the pass
 * finds between 1 and kmax distinct diagonals, and its kernel does nothing otherwise. The
 * device CDS conversion adopts the arrays (gs_format_params.cds_prefill) when the hint it is
 * given is block size 1 with exactly these offsets, and checks the fill as its own.
 * gs_cds_spec_create gives NULL (no error) where the fill would not be the row kernel's or A
 * is empty. The type is opaque and declared in every build; the functions below are defined in
 * CUDA builds only (spmv/formats/gs_cds_cuda.cu), so only CUDA code calls them (the device
 * feature pass; the test hooks from the tests' GPU parts): gs_select.c reaches the ones it needs
 * through the feature table (gs_features_ops, gs_select.h). */
typedef struct gs_cds_spec gs_cds_spec;
/* mean entries per row from which the device fill goes by windows of rows (gs_cds_cuda.cu) */
#define GS_CDS_FILL_WINDOW_MEAN 16
/* kmax for A (0: no speculative fill: A empty, or filled by windows) */
static inline int gs_cds_spec_kmax_for(const gs_csr *A)
{
    if (A->rows <= 0 || A->nnz <= 0 || A->nnz >= GS_CDS_FILL_WINDOW_MEAN * (int64_t)A->rows)
        return 0;
    const int64_t k = ((int64_t)A->nnz + A->rows - 1) / A->rows + 1;
    return k < GS_CDS_MAX_DIAGS ? (int)k : GS_CDS_MAX_DIAGS;
}
gs_status gs_cds_spec_create(const gs_csr *A, gs_cds_spec **out);
/* the fill enqueued (after the feature kernel that writes the diagonals); the device pointer of
 * the diagonals' place is what the feature kernel gets */
gs_status gs_cds_spec_launch(const gs_csr *A, gs_cds_spec *s);
uint32_t *gs_cds_spec_keys(void);
/* after the wait: the pass's n distinct diagonals (key[t] - rows, any order) and whether the
 * fill ran; its check and its end on the GPU clock are read from host memory here, its time
 * counted from the pass's end (pass_end_ns, the same clock) */
void gs_cds_spec_done(gs_cds_spec *s, const gs_csr *A, int n, const uint32_t *key,
                      unsigned long long pass_end_ns);
/* the fill's GPU time when a conversion adopted it (0 otherwise): the selection counts it as
 * conversion, not as features */
double gs_cds_spec_adopted_seconds(const gs_cds_spec *s);
void gs_cds_spec_destroy(gs_cds_spec **s); /* frees the arrays not adopted */
/* Test hooks: how many device conversions adopted a speculative fill so far; the count in the
 * diagonals' place of the scratch (0 at rest; -1 when it cannot be read) */
long gs_cds_spec_adoptions(void);
long gs_cds_spec_scratch_count(void);

/* A CDS shell for A at loc with block size b and K block diagonals: fields set, the host
 * offsets array allocated (uninitialised), val/present/d_off left NULL for the backend. */
gs_status gs_cds_shell(const gs_csr *A, int b, int ndiag, gs_loc loc, gs_cds **out);

/* The shell for A at loc with the offsets of p's hint (cds_hint_*) copied in, when the hint
 * fits A (gs_cds.h: block size, ascending offsets inside the block grid, fill within
 * cds_max_fill); *out = NULL when p has no hint or it does not fit (then detect). The backend
 * fills and checks it (every entry on a hinted diagonal, every diagonal with an entry). */
gs_status gs_cds_hint_shell(const gs_csr *A, const gs_format_params *p, gs_loc loc, gs_cds **out);
void gs_cds_free_shell(gs_cds *C); /* frees off and C itself (not the backend's arrays) */

/* The byte model: 8 per stored value (padding included) + 8 rows (y) + 8 cols (x read once). */
double gs_cds_bytes(const void *M);
/* "b=3, 7 block diagonals, 8.4% padding" (padding = (stored - nnz) / nnz) */
void gs_cds_describe(const void *M, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif

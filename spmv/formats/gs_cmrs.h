/* gs_cmrs.h: the CMRS format (Koza et al., "Compressed multirow storage format for sparse matrices
 * on graphics processing units", 2014; papers/cmrs-koza-2014-arxiv.txt).
 *
 * Rows are grouped into strips of h consecutive rows (h = 1..16; the last strip may be shorter).
 * A strip's entries lie in one array; each entry's packed index is col << 4 | r, r the row in
 * the strip (sec. 4: CMRS_BITS = 4, so columns must be below 2^28). stripptr[s] is where strip
 * s starts. Three layouts of a strip's entries:
 *
 *  - plain (sec. 3): row-major, exactly CSR's order; stripptr[s] = rowptr[s*h].
 *  - sorted (sec. 4, fourth optimisation): ordered by (column, row), so that a warp's loads of x
 *    are closer together; to_csr sorts back.
 *  - modified (sec. 6.7): strips padded with zeros to multiples of 32 (a warp) and arranged so
 *    that in every group of 32 entries a warp loads together, the lanes holding entries of the
 *    same row differ modulo M. The kernel then accumulates into a per-warp h x M buffer in
 *    shared memory, buf[r][lane mod M], without two lanes ever hitting the same cell. See
 *    gs_cmrs_mod_slot for the arrangement. Padding entries have value 0, a column of the strip
 *    and a row chosen so the rule above holds; they are told from real entries by position
 *    (nzptr keeps each strip's count of real entries). The sorted flag does not apply to this
 *    layout (the arrangement fixes the order).
 *
 * Made through gs_spmat_create(A, GS_FORMAT_CMRS, params, ...); the struct is public for tests
 * and tools that want to look inside.
 */
#ifndef GS_CMRS_H
#define GS_CMRS_H

#include <stdint.h>

#include "gs_spmat.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_CMRS_BITS 4               /* bits of the row-in-strip in a packed index */
#define GS_CMRS_MAX_H 16             /* 2^GS_CMRS_BITS */
#define GS_CMRS_MAX_COLS (1LL << 28) /* columns a packed index can address */
#define GS_CMRS_CHUNK 32             /* a warp: the modified layout pads to multiples */
#define GS_CMRS_BUF 128              /* modified kernel: most cells of a warp's h x M buffer */
/* h for cmrs_h = 0 (auto): the fastest on an H200 in double with the modified kernel
 * (bench/results/README.md, "SpMV formats") */
#define GS_CMRS_H_DEFAULT 16

typedef struct gs_cmrs {
    int32_t rows, cols, nnz; /* nnz: the matrix's entries (padding not counted) */
    int32_t h;               /* strip height, 1..16 */
    int32_t strips;          /* ceil(rows / h) */
    int32_t m;               /* modified layout: buffer width M (8, 16 or 32); 0 otherwise */
    int sorted;              /* plain layout only: entries of a strip ordered by (column, row) */
    int32_t stored;          /* entries stored, padding included */
    int32_t *stripptr;       /* strips + 1: first stored entry of each strip */
    int32_t *nzptr;          /* strips + 1: real entries before each strip (= CSR rowptr[s*h]);
                                modified layout only, NULL otherwise (then equal to stripptr) */
    uint32_t *colrow;        /* stored: col << 4 | row-in-strip */
    double *val;             /* stored: values (0 for padding) */
    gs_loc loc;              /* where the arrays live; the struct itself is on the host */
} gs_cmrs;

/* The host and device code share the index arithmetic below. */
#if defined(__CUDACC__)
#define GS_CMRS_HD __host__ __device__
#else
#define GS_CMRS_HD
#endif

/* packed index of an entry in column col, row r of its strip */
static inline GS_CMRS_HD uint32_t gs_cmrs_pack(int32_t col, int r)
{
    return ((uint32_t)col << GS_CMRS_BITS) | (uint32_t)r;
}

/* M of the modified kernel for strip height h: the largest power of two <= min(32, 128 / h),
 * so the buffer h x M holds at most GS_CMRS_BUF doubles (1 KiB a warp) and 32 / M <= h (a
 * group of 32 entries can always be filled: each row may take M of its lanes) */
static inline GS_CMRS_HD int gs_cmrs_mod_width(int h)
{
    int m = 32;
    while (m > 1 && m * h > GS_CMRS_BUF) m >>= 1;
    return m;
}

/* Modified layout, strip of k groups of 32 slots: slot of the strip's e-th real entry in
 * row-major order (padding continues e past the real count). With bins b = e mod kM, each bin
 * being one lane class (lane mod M) of one group: bin b = g*M + c holds the slots g*32 + q*M + c,
 * q < 32/M, and entry e goes to bin e mod kM, place q = e / kM. A row's entries are consecutive
 * in e, so a row with at most kM entries never has two in one bin: its lanes in a group differ
 * modulo M. Consecutive entries fill runs of M lanes, so a group's loads of x stay close. */
static inline GS_CMRS_HD int64_t gs_cmrs_mod_slot(int64_t e, int64_t k, int m)
{
    int64_t km = k * m, b = e % km, q = e / km;
    return (b / m) * GS_CMRS_CHUNK + q * m + b % m;
}

/* the inverse: the row-major index e of the entry in slot `slot` */
static inline GS_CMRS_HD int64_t gs_cmrs_mod_entry(int64_t slot, int64_t k, int m)
{
    int64_t g = slot / GS_CMRS_CHUNK, lane = slot % GS_CMRS_CHUNK;
    return (lane / m) * (k * m) + g * m + lane % m;
}

/* groups of 32 slots of a modified strip with nnz_s entries, the longest row having max_len:
 * enough slots for all entries, and enough bins (kM) for the longest row */
static inline GS_CMRS_HD int64_t gs_cmrs_mod_groups(int64_t nnz_s, int64_t max_len, int m)
{
    int64_t a = (nnz_s + GS_CMRS_CHUNK - 1) / GS_CMRS_CHUNK, b = (max_len + m - 1) / m;
    return a > b ? a : b;
}

/* row in its strip of CSR entry k; rp = rowptr + first row of the strip, hs rows in the strip */
static inline GS_CMRS_HD int gs_cmrs_row_of(const int32_t *rp, int hs, int32_t k)
{
    int r = 0;
    for (int i = 1; i < hs; i++) r += rp[i] <= k;
    return r;
}

/* Row of the padding entry at place q of bin b (modified layout, strip rows rp[0..hs], nnz_s
 * real entries, km bins): the (q - q0)-th smallest row in 0..h-1 that no real entry of the bin
 * has (q0 real entries there, with distinct rows), so all rows of a bin stay distinct. */
static inline GS_CMRS_HD int gs_cmrs_pad_row(const int32_t *rp, int hs, int64_t b, int64_t km,
                                             int64_t nnz_s, int64_t q)
{
    unsigned used = 0;
    int64_t q0 = 0;
    for (int64_t e = b; e < nnz_s; e += km, q0++)
        used |= 1u << gs_cmrs_row_of(rp, hs, (int32_t)(rp[0] + e));
    int64_t j = q - q0;
    for (int r = 0; r < GS_CMRS_MAX_H; r++)
        if (!((used >> r) & 1u) && j-- == 0) return r;
    return 0; /* not reached: 32 / M <= h leaves enough free rows */
}

/* Checks shared by both backends: h from p (0 or less = GS_CMRS_H_DEFAULT; above 16:
 * GS_ERR_ARG), columns below 2^28 (else GS_ERR_UNSUPPORTED); on success *out is a new struct
 * at A's location with the scalar fields set and no arrays. */
gs_status gs_cmrs_plan(const gs_csr *A, const gs_format_params *p, gs_cmrs **out);

/* 12 bytes per stored entry + 4 (strips + 1) + 8 rows + 8 cols (double, packed 32-bit index) */
double gs_cmrs_bytes(const void *M);

/* "h=8, sorted, 0.0% padding" */
void gs_cmrs_describe(const void *M, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif

/* gs_select.h: the features of a sparse matrix and the choice of its SpMV format from them.
 *
 * gs_features_compute measures a CSR matrix where it lives (host loop or device kernels, at
 * most ~2 SpMVs of cost). gs_select_spmat decides the format of one matrix (one AMG level, or
 * the one matrix of a plain solve) from spmv.format / spmv.levels:
 *   - a format name forces it ("forced by spmv.format");
 *   - a list (spmv.levels) forces one per level, the last repeated ("forced by spmv.levels[2]");
 *   - "auto" applies the declared rule table (first matching row wins; its text is the reason);
 *   - "measure" converts to every eligible format, times a few SpMVs of each, keeps the fastest
 *     (the reason lists the times).
 * A chosen format that refuses the matrix (GS_ERR_UNSUPPORTED) falls back to csr and the reason
 * says so. The result is a ready gs_spmat at A's location.
 */
#ifndef GS_SELECT_H
#define GS_SELECT_H

#include <stdint.h>

#include "gs_csr.h"
#include "gs_spmat.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_FEAT_MAX_DIAGS 64 /* distinct (block) diagonals counted before giving up */

typedef struct gs_features {
    int64_t rows, cols, nnz;
    double mean, std;     /* nonzeros per row */
    int32_t min, max;     /* nonzeros per row */
    double empty_share;   /* rows without entries / rows */
    int32_t ndiags;       /* distinct offsets j - i; -1 when more than GS_FEAT_MAX_DIAGS */
    int32_t block;        /* detected unknowns per grid point (1 when no block structure) */
    int32_t nblockdiags;  /* distinct block diagonals at that block size; -1 when too many */
    double cds_fill;      /* CDS stored entries / nnz - 1 at that block size; -1 when CDS cannot */
    int64_t bandwidth;    /* max |j - i| */
    double seconds;       /* what computing these took */
} gs_features;

gs_status gs_features_compute(const gs_csr *A, gs_features *f);

/* One line, e.g. "rows 2097152 nnz 14581760 mu 6.95 sigma 0.22 max 7 diags 7 block 1 fill 0.00" */
void gs_features_describe(const gs_features *f, char *buf, size_t len);

typedef struct gs_select_request {
    const char *format;      /* spmv.format: auto | measure | csr | cusparse | cmrs | suraa | cds */
    const char *levels;      /* spmv.levels as "cds,cmrs,csr", or "" / NULL */
    gs_format_params params; /* tuning of the formats */
} gs_select_request;

typedef struct gs_select_result {
    gs_format format;  /* what runs */
    gs_features feat;
    char reason[160];  /* the rule that fired, the forcing key, or the measured times */
    double feature_s;  /* features */
    double convert_s;  /* conversion into the kept format */
    double measure_s;  /* "measure": everything spent converting and timing the candidates */
} gs_select_result;

/* Choose the format of A (level `level`, 0 for the finest or only matrix) and build it at A's
 * location into *M (borrowing A, which must outlive *M). A may be rectangular (AMG P and R). */
gs_status gs_select_spmat(const gs_csr *A, int level, const gs_select_request *rq, gs_spmat **M,
                          gs_select_result *res);

#ifdef __cplusplus
}
#endif
#endif

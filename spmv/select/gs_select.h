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

#include "gs_cds.h"
#include "gs_csr.h"
#include "gs_spmat.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_FEAT_MAX_DIAGS 64 /* distinct diagonals j - i counted before giving up */
#define GS_FEAT_FILL_MAX 1   /* a block size whose CDS would store more than (1 + this) * nnz
                                values is not counted further (gs_feat_cap) */

/* How many block offsets of block size b the feature pass counts exactly before it calls the
 * candidate "more" (and stops looking at it): past K = 2 nnz / (b rows), CDS would store
 * K b rows > 2 nnz values (fill > GS_FEAT_FILL_MAX), which no rule or CDS limit takes; at most
 * GS_CDS_MAX_DIAGS, and for b = 1 at least GS_FEAT_MAX_DIAGS (the `ndiags` feature). This is
 * what makes an unstructured matrix cheap: its candidates saturate after a few offsets. */
static inline int64_t gs_feat_cap(int64_t rows, int64_t nnz, int b)
{
    int64_t k = rows > 0 ? (1 + GS_FEAT_FILL_MAX) * nnz / ((int64_t)b * rows) : 0;
    if (b == 1 && k < GS_FEAT_MAX_DIAGS) k = GS_FEAT_MAX_DIAGS;
    return k < GS_CDS_MAX_DIAGS ? k : GS_CDS_MAX_DIAGS;
}

/* The block size and block diagonals follow CDS's own detection (gs_cds.h): the same block
 * sizes are tried (gs_cds_candidates: every b in 1..GS_CDS_DETECT_MAX dividing rows and cols),
 * the distinct block offsets of each counted exactly up to gs_feat_cap (GS_CDS_MAX_DIAGS, or
 * fewer where more would mean a fill above GS_FEAT_FILL_MAX), and the size storing the fewest
 * values K_b * b * rows wins (gs_cds_best). So `block`, `nblockdiags`, `blockoff` and
 * `cds_fill` are what a CDS conversion with spmv.cds_block = 0 would hold whenever its fill is
 * at most GS_FEAT_FILL_MAX (nblockdiags and cds_fill are -1 beyond), and with spmv.cds_max_fill
 * <= GS_FEAT_FILL_MAX CDS refuses exactly when nblockdiags is -1 or cds_fill exceeds it. Mean and
 * std are the population ones over all rows (as gs_csr_row_stats). Everything comes from exact
 * integer sums and counts (the offsets sorted), so host and device give identical features. */
typedef struct gs_features {
    int64_t rows, cols, nnz;
    double mean, std;    /* nonzeros per row */
    int32_t min, max;    /* nonzeros per row */
    double empty_share;  /* rows without entries / rows */
    int32_t ndiags;      /* distinct offsets j - i; -1 when more than GS_FEAT_MAX_DIAGS */
    int32_t block;       /* detected unknowns per grid point (1 when no block structure) */
    int32_t nblockdiags; /* distinct block diagonals at that block size; -1 when more than
                            gs_feat_cap at every block size (CDS cannot, or only with a fill
                            above GS_FEAT_FILL_MAX) */
    double cds_fill;     /* CDS stored entries / nnz - 1 at that block size; -1 as above */
    int64_t bandwidth;   /* max |j - i| */
    double seconds;      /* what computing these took */
    /* the nblockdiags block offsets J - I at `block`, ascending (what CDS stores; gs_select.c
     * hands them to the CDS conversion, which then does not look for them again) */
    int32_t blockoff[GS_CDS_MAX_DIAGS];
} gs_features;

/* The features of A where it lives: on the host one OpenMP pass (each thread keeps the distinct
 * offsets of its rows in small sets, merged at the end); on the device one kernel reading rowptr
 * and colind once (the distinct diagonals j - i, each with the residues i mod b of its rows, in
 * one shared-memory set per block, from which every candidate's block offsets follow on the host;
 * spmv/select/gs_features_cuda.cu) and one transfer of the totals and the diagonals. A candidate
 * block size stops being counted once it has more than gs_feat_cap offsets (on the device: once
 * the diagonals pass the most any candidate within its cap can have), so an unstructured matrix
 * costs no more than a stencil. */
gs_status gs_features_compute(const gs_csr *A, gs_features *f);

/* One line, e.g. "rows 2097152 nnz 14581760 mu 6.95 sigma 0.21 min 4 max 7 empty 0% diags 7
 * block 1 blockdiags 7 fill 0.007 bw 16384" (cols too when A is rectangular). */
void gs_features_describe(const gs_features *f, char *buf, size_t len);

/* The rule table for a matrix at loc (each location has its own rows, thresholds from
 * measurements: gs_select.c): the format of the first row whose condition holds, and in reason
 * (may be NULL) that row's number and text with the features it looked at. Never cusparse on the
 * host. */
gs_format gs_select_rule(const gs_features *f, gs_loc loc, char *reason, size_t len);

/* Row i of the rule table (i from 0, over both locations): its text, the location it applies
 * to (as a bit, 1 << gs_loc) and its format; NULL past the last row. */
const char *gs_select_rule_row(int i, unsigned *locs, gs_format *format);

/* --- shared by the host (gs_select.c) and device (spmv/select/gs_features_cuda.cu) feature
 * passes --- */

/* What one pass over A gathers; gs_select.c forms the features from it. */
typedef struct gs_feat_sums {
    int ncand; /* block sizes tried: b[0..ncand) (gs_cds_candidates) */
    int b[GS_CDS_DETECT_MAX];
    int64_t k[GS_CDS_DETECT_MAX]; /* distinct block offsets at b[q], exact up to
                                     gs_feat_cap; GS_CDS_MAX_DIAGS + 1: more than that */
    uint64_t len2;                /* sum over rows of (nonzeros in the row)^2 */
    int32_t min, max;             /* nonzeros per row */
    int64_t empty;                /* rows without entries */
    int64_t bandwidth;            /* max |j - i| */
    /* the k[q] block offsets J - I at b[q] (any order), where k[q] <= GS_CDS_MAX_DIAGS */
    int32_t off[GS_CDS_DETECT_MAX][GS_CDS_MAX_DIAGS];
} gs_feat_sums;

/* The feature pass of one backend (gs_backend_module(loc, GS_MODULE_FEATURES)):
 * gs_features_host_ops in gs_select.c, gs_features_cuda_ops in
 * spmv/select/gs_features_cuda.cu. */
typedef struct gs_features_ops {
    /* The pass over A (rows > 0) where it lives; s->ncand and s->b set by the caller. With spec
     * non-NULL, a speculative CDS fill is queued behind it where A suits one (*spec, else NULL;
     * the caller ends it with spec_destroy). The host makes none. */
    gs_status (*sums)(const gs_csr *A, gs_feat_sums *s, gs_cds_spec **spec);
    /* the fill's GPU time when a conversion adopted it, 0 otherwise (gs_cds.h); 0 on the host */
    double (*spec_adopted_seconds)(const gs_cds_spec *spec);
    /* frees the fill's arrays not adopted, *spec = NULL (may be NULL) */
    void (*spec_destroy)(gs_cds_spec **spec);
} gs_features_ops;

typedef struct gs_select_request {
    const char *format;      /* spmv.format: auto | measure | csr | cusparse | cmrs | suraa | cds
                                (NULL or "": auto) */
    const char *levels;      /* spmv.levels as "cds,cmrs,csr" (blanks, quotes, brackets ignored;
                                entries may be auto or measure too), or "" / NULL */
    gs_format_params params; /* tuning of the formats (gs_format_params_default, then the keys) */
} gs_select_request;

/* The longest reason kept (with its NUL): room for a format's refusal in full */
#define GS_REASON_LEN 512

/* Append text to the reason buf (cap bytes, NUL-terminated): whole, or cut after a whole word
 * and marked " ..." when it does not fit, never in the middle of a word. */
void gs_select_reason_append(char *buf, size_t cap, const char *text);

typedef struct gs_select_result {
    gs_format format; /* what runs */
    gs_features feat;
    char reason[GS_REASON_LEN]; /* the rule that fired, the forcing key, or the measured times */
    int fell_back;    /* the chosen format refused the matrix, so csr runs (reason says why) */
    double feature_s; /* features */
    double convert_s; /* conversion into the kept format */
    double measure_s; /* "measure": everything spent converting and timing the candidates */
} gs_select_result;

/* Choose the format of A (level `level`, 0 for the finest or only matrix) and build it at A's
 * location into *M (borrowing A, which must outlive *M). A may be rectangular (AMG P and R).
 * The features are computed in every mode (res->feat, for the report). Errors: GS_ERR_CONFIG
 * naming the key for an unknown format name or a forced cusparse on the host (before any work);
 * what a conversion reports other than a refusal. convert_s includes a refused attempt. */
gs_status gs_select_spmat(const gs_csr *A, int level, const gs_select_request *rq, gs_spmat **M,
                          gs_select_result *res);

#ifdef __cplusplus
}
#endif
#endif

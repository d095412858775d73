/* gs_spmat.h: a matrix held in one of gsolve's SpMV formats (CSR, cuSPARSE CSR, CMRS, SURAA,
 * CDS), on the host or the device, behind one interface.
 *
 * A gs_spmat is made from a CSR at the same location (a host CSR gives a host matrix, a device
 * CSR a device one; the conversion runs where the data is). A format that does not suit the
 * matrix refuses with GS_ERR_UNSUPPORTED and a message saying why, so a caller can fall back.
 * Each format module (gs_cmrs.c, gs_suraa.c, gs_cds.c and their *_cuda.cu) exports one
 * gs_format_ops table per backend; gs_backend.c is the one place that lists them.
 */
#ifndef GS_SPMAT_H
#define GS_SPMAT_H

#include <stddef.h>
#include <stdint.h>

#include "gs_csr.h"
#include "gs_linop.h"
#include "gs_vec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gs_format {
    GS_FORMAT_CSR = 0,  /* gsolve's own CSR kernels (host loop; warp-per-row vector kernel) */
    GS_FORMAT_CUSPARSE, /* CSR through cusparseSpMV (device only): the baseline */
    GS_FORMAT_CMRS,     /* Koza et al.: strips of h rows, row-in-strip in the column's low bits */
    GS_FORMAT_SURAA,    /* Muhammed et al.: rows sorted by length, segments in groups G1-G3 */
    GS_FORMAT_CDS,      /* Godwin et al.: block diagonals of a structured-grid matrix */
    GS_FORMAT_COUNT
} gs_format;

/* Tuning of the formats; gs_format_params_default gives the measured defaults (the defaults of
 * the formats' tuning keys, gs_format_key). A value of 0 (or negative) in a field marked "auto"
 * lets the format choose. */
typedef struct gs_format_params {
    int cmrs_h;            /* CMRS strip height, 1..16; 0 = auto (measured per precision) */
    int cmrs_sort;         /* CMRS: sort each strip's entries by column */
    int cmrs_modified;     /* CMRS: the sec. 6.7 kernel (h x M buffer, strips padded to 32) */
    int suraa_g1_dynamic;  /* SURAA G1 (long rows): 1 = child grids (dynamic parallelism),
                              0 = one block per row, -1 = auto */
    int suraa_max_child_threads; /* SURAA: threads of one child grid; 0 = auto from rows */
    double cds_max_fill;   /* CDS refuses when stored entries > (1 + this) * nnz */
    int cds_block;         /* CDS unknowns per grid point; 0 = detect */
    /* CDS block diagonals known beforehand (gs_select.c passes the feature pass's): block size
     * cds_hint_block and the cds_hint_ndiag ascending block offsets cds_hint_off[] (borrowed,
     * read during the conversion only). CDS then fills its arrays from them instead of finding
     * the offsets again, and checks them while filling: offsets that do not describe the
     * matrix exactly are dropped and detected at the hint's block size (gs_cds.h). NULL:
     * detect. */
    const int32_t *cds_hint_off;
    int cds_hint_block, cds_hint_ndiag;
    /* The longest row, when known beforehand (gs_select.c passes the feature pass's max): the
     * device SURAA conversion then sorts without first finding it (one wait less). It must be
     * the longest row: a row longer than it fails the conversion with GS_ERR_INTERNAL (checked
     * while sorting); a hint above the longest row is not detected (the plan stays right, the
     * reported max_len is the hint). 0: find it. */
    int32_t hint_max_len;
    /* A speculative CDS fill made beside the device feature pass (gs_cds.h, gs_cds_spec;
     * gs_select.c passes it for "auto"): the device CDS conversion takes its arrays instead of
     * filling when the hint is block size 1 with the fill's offsets. NULL: none. */
    void *cds_prefill;
} gs_format_params;

/* The operations of one format on one backend. `M` is the format's own struct (gs_cmrs,
 * gs_suraa, gs_cds ...), at the backend's location. */
typedef struct gs_format_ops {
    const char *name;
    /* convert A (at this backend's location) into the format; GS_ERR_UNSUPPORTED (with a
     * message saying why) when the format does not suit A */
    gs_status (*from_csr)(const gs_csr *A, const gs_format_params *p, void **M);
    /* back to CSR at the same location, rows sorted by column: exactly A's pattern and values */
    gs_status (*to_csr)(const void *M, gs_csr **out);
    /* y = M*x; x and y are arrays at this location, of cols and rows entries */
    gs_status (*spmv)(const void *M, const double *x, double *y);
    /* bytes one SpMV must move (docs/design.md, "Performance method") */
    double (*bytes)(const void *M);
    /* one line describing the stored form, e.g. "h=8, 12% padding" (may be NULL) */
    void (*describe)(const void *M, char *buf, size_t len);
    void (*destroy)(void *M);
} gs_format_ops;

typedef struct gs_spmat {
    gs_format format;
    int32_t rows, cols;
    int64_t nnz;
    gs_loc loc;
    const gs_format_ops *ops;
    void *M;           /* the format's struct; for CSR/cuSPARSE the borrowed gs_csr */
    const gs_csr *csr; /* the CSR it was made from (borrowed; must outlive this) */
    double convert_s;  /* seconds the conversion took (device work included) */
    /* a rank's rows of a distributed matrix (gs_dist_op.h): the fields above describe its
     * diagonal block, and dist_spmv(dist, x, y) runs the whole product (halo exchange, diagonal
     * and off-diagonal blocks); NULL for a matrix of one process */
    const void *dist;
    gs_status (*dist_spmv)(const void *dist, const gs_vec *x, gs_vec *y);
} gs_spmat;

/* A tuning key a format declares: the config table lists it as a key of its own (type, default,
 * range or choices, help: --help-config, errors, --print-config) and stores a checked value into
 * the gs_format_params field it names. */
typedef enum gs_format_key_type {
    GS_FORMAT_KEY_INT,   /* an integer in [min, max], kept in an int field */
    GS_FORMAT_KEY_FLOAT, /* a number in [min, max], kept in a double field */
    GS_FORMAT_KEY_CHOICE /* one of `choices`, kept in an int field as values[its index] */
} gs_format_key_type;

#define GS_FORMAT_KEY_CHOICES 8 /* most choices of one key */

typedef struct gs_format_key {
    const char *key; /* the config key, e.g. "spmv.cmrs_h" */
    gs_format_key_type type;
    size_t field;                      /* offsetof(gs_format_params, ...) */
    const char *def;                   /* default, as text (what gs_format_params_default stores) */
    double min, max;                   /* a number's range */
    const char *choices;               /* a choice's "a|b|c" */
    int values[GS_FORMAT_KEY_CHOICES]; /* a choice's field values, in the order of choices */
    const char *help;                  /* --help-config's text */
} gs_format_key;

/* A format as registered (gs_spmat.c holds the one table). */
typedef struct gs_format_desc {
    const char *name; /* the value of spmv.format, spmv.levels, batch.formats */
    const char *help; /* one line for --help-config (names its tuning keys) */
    int module;       /* gs_module of its gs_format_ops tables; -1: runs on the CSR itself */
    int device_only;  /* refuses host matrices */
    const gs_format_key *keys; /* its tuning keys, ended by one with key NULL (NULL: none) */
} gs_format_desc;

/* The i-th registered format (i = its gs_format; NULL past the end), and "a|b|c" of their
 * names (for the config table). */
const gs_format_desc *gs_format_at(int i);
const char *gs_format_choices(void);

/* The i-th tuning key of all formats, in registry order (NULL past the end). */
const gs_format_key *gs_format_key_at(int i);
/* Store v into k's field of p: the number (an INT key's truncated to int), or for a CHOICE key
 * the index of the choice (v is not checked against the range: the caller has). */
void gs_format_key_put(const gs_format_key *k, gs_format_params *p, double v);
/* The value of k's field in p, as gs_format_key_put takes it (a choice's index; 0 when the field
 * holds none of the values). */
double gs_format_key_get(const gs_format_key *k, const gs_format_params *p);
/* Parse text by k's type, check its range or choices and store it; GS_ERR_ARG naming the key,
 * the value and what it takes otherwise. */
gs_status gs_format_key_parse(const gs_format_key *k, const char *text, gs_format_params *p);

/* The measured defaults of every tuning field: every key's default, 0 in the other fields. */
void gs_format_params_default(gs_format_params *p);

/* "csr", "cusparse", "cmrs", "suraa", "cds"; NULL for an unknown value. */
const char *gs_format_name(gs_format f);
/* The format named s; GS_ERR_ARG when s names none. */
gs_status gs_format_parse(const char *s, gs_format *out);

/* Convert A into format f at A's location. Keeps a borrowed pointer to A (CSR formats use it
 * directly). GS_ERR_UNSUPPORTED when f does not suit A or does not exist on that backend. */
gs_status gs_spmat_create(const gs_csr *A, gs_format f, const gs_format_params *p,
                          gs_spmat **out);
void gs_spmat_destroy(gs_spmat **M);

/* y = M*x (x, y at M's location) */
gs_status gs_spmat_spmv(const gs_spmat *M, const gs_vec *x, gs_vec *y);
/* back to CSR at M's location */
gs_status gs_spmat_to_csr(const gs_spmat *M, gs_csr **out);
/* bytes one SpMV moves by the format's byte model */
double gs_spmat_bytes(const gs_spmat *M);
/* 1 when M's format holds a layout of its own (CMRS, SURAA, CDS), so that its products never
 * read the CSR it was made from; 0 for the CSR formats, which are views of it */
int gs_spmat_owns_layout(const gs_spmat *M);
/* one line describing the stored form (empty when the format has nothing to say) */
void gs_spmat_describe(const gs_spmat *M, char *buf, size_t len);

/* M as an operator (gs_linop.h), with the fused-dots path where the format has one: with
 * gsolve's CSR kernel the dot products CG asks for run inside the SpMV (the backend's
 * csr_spmv_dots). *op holds what the operator points to; it and M must outlive the operator. */
typedef struct gs_spmat_op {
    const gs_spmat *M;
    gs_status (*spmv_dots)(const gs_csr *A, const gs_vec *x, gs_vec *y, int k,
                           const gs_vec *const *a, const gs_vec *const *b, double *out);
} gs_spmat_op;
gs_linop gs_spmat_linop(const gs_spmat *M, gs_spmat_op *op);

/* The CSR byte model: 12 nnz + 4 (rows + 1) + 8 cols + 8 rows (double, 32-bit indices). */
double gs_csr_bytes(const gs_csr *A);

#ifdef __cplusplus
}
#endif
#endif

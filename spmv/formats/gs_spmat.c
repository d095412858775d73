/* gs_spmat.c: one interface over the SpMV formats; dispatch by format and location. */
#include "gs_spmat.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_cds.h"
#include "gs_cmrs.h"
#include "gs_time.h"

/* The formats' tuning keys, one line each: the config table, --help-config and
 * gs_format_params_default read them (gs_format_key in gs_spmat.h). */
#define P(field) offsetof(gs_format_params, field)
/* one key a line, its help below */
/* clang-format off */
static const gs_format_key CMRS_KEYS[] = {
    {"spmv.cmrs_h", GS_FORMAT_KEY_INT, P(cmrs_h), "0", 0, GS_CMRS_MAX_H, NULL, {0},
     "CMRS strip height in rows (1-16); 0: 16"},
    {"spmv.cmrs_sort", GS_FORMAT_KEY_INT, P(cmrs_sort), "0", 0, 1, NULL, {0},
     "CMRS: sort each strip's entries by column (1) or keep them row by row (0)"},
    /* measured: faster than the plain kernel on every matrix tried */
    {"spmv.cmrs_modified", GS_FORMAT_KEY_INT, P(cmrs_modified), "1", 0, 1, NULL, {0},
     "CMRS kernel: 1: modified (per-warp h x M buffer, strips padded to warp multiples), usually "
     "the faster; 0: plain warp-per-strip"},
    {NULL},
};
static const gs_format_key SURAA_KEYS[] = {
    {"spmv.suraa_g1", GS_FORMAT_KEY_CHOICE, P(suraa_g1_dynamic), "auto", 0, 0,
     "auto|dynamic|block", {-1, 1, 0},
     "SURAA long rows (G1): dynamic: child grids (dynamic parallelism); block: one block per "
     "row; auto: child grids only for a few very long rows"},
    {"spmv.suraa_max_child_threads", GS_FORMAT_KEY_INT, P(suraa_max_child_threads), "0", 0,
     1048576, NULL, {0},
     "SURAA: threads of one child grid for a long row (0: chosen from the row counts)"},
    {NULL},
};
static const gs_format_key CDS_KEYS[] = {
    {"spmv.cds_max_fill", GS_FORMAT_KEY_FLOAT, P(cds_max_fill), "0.25", 0, 1e6, NULL, {0},
     "CDS refuses a matrix whose stored entries (padding included) exceed (1 + this) x nnz"},
    {"spmv.cds_block", GS_FORMAT_KEY_INT, P(cds_block), "0", 0, GS_CDS_MAX_BLOCK, NULL, {0},
     "CDS unknowns per grid point (block size); 0: detected from the matrix"},
    {NULL},
};
/* clang-format on */
#undef P

/* The format registry: one descriptor per format, in gs_format's order. A format with its own
 * storage names the module whose host and device gs_format_ops tables gs_backend.c lists; the
 * CSR formats run on the CSR the matrix was made from. Adding a format: its files in
 * spmv/formats/ (host and device gs_format_ops), a gs_format value, a line here (with its
 * tuning keys above) and its module's line in gs_backend.c (docs/design.md, "Adding a
 * format"). */
static const gs_format_desc FORMATS[GS_FORMAT_COUNT] = {
    [GS_FORMAT_CSR] = {"csr", "gsolve's own CSR kernel (host loop; warp-per-row on the GPU)", -1,
                       0, NULL},
    [GS_FORMAT_CUSPARSE] = {"cusparse", "cuSPARSE's CSR SpMV, cusparseSpMV (GPU only)", -1,
                            1, NULL},
    [GS_FORMAT_CMRS] = {"cmrs", "Koza et al.: strips of h rows (spmv.cmrs_h, cmrs_sort, "
                        "cmrs_modified)", GS_MODULE_CMRS, 0, CMRS_KEYS},
    [GS_FORMAT_SURAA] = {"suraa", "Muhammed et al.: rows sorted by length in groups G1-G3 "
                         "(spmv.suraa_g1, suraa_max_child_threads)", GS_MODULE_SURAA, 0,
                         SURAA_KEYS},
    [GS_FORMAT_CDS] = {"cds", "Godwin et al.: block diagonals of a structured grid "
                       "(spmv.cds_max_fill, cds_block)", GS_MODULE_CDS, 0, CDS_KEYS},
};

const gs_format_desc *gs_format_at(int i)
{
    return i >= 0 && i < GS_FORMAT_COUNT ? &FORMATS[i] : NULL;
}

const char *gs_format_choices(void)
{
    static char buf[256];
    if (!buf[0])
        for (int i = 0; i < GS_FORMAT_COUNT; i++) gs_str_add_choice(buf, sizeof buf, FORMATS[i].name);
    return buf;
}

const gs_format_key *gs_format_key_at(int i)
{
    for (int f = 0; f < GS_FORMAT_COUNT && i >= 0; f++)
        for (const gs_format_key *k = FORMATS[f].keys; k && k->key; k++)
            if (i-- == 0) return k;
    return NULL;
}

void gs_format_key_put(const gs_format_key *k, gs_format_params *p, double v)
{
    char *field = (char *)p + k->field;
    if (k->type == GS_FORMAT_KEY_FLOAT)
        *(double *)field = v;
    else if (k->type == GS_FORMAT_KEY_CHOICE)
        *(int *)field = v >= 0 && v < GS_FORMAT_KEY_CHOICES ? k->values[(int)v] : 0;
    else
        *(int *)field = (int)v;
}

double gs_format_key_get(const gs_format_key *k, const gs_format_params *p)
{
    const char *field = (const char *)p + k->field;
    if (k->type == GS_FORMAT_KEY_FLOAT) return *(const double *)field;
    if (k->type == GS_FORMAT_KEY_INT) return *(const int *)field;
    for (int i = 0; i < GS_FORMAT_KEY_CHOICES; i++)
        if (k->values[i] == *(const int *)field) return i;
    return 0;
}

/* the index of word in "a|b|c", or -1 */
static int choice_index(const char *choices, const char *word)
{
    size_t n = strlen(word);
    int i = 0;
    for (const char *p = choices; p; i++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, word, n) == 0) return i;
        p = bar ? bar + 1 : NULL;
    }
    return -1;
}

/* text as k's value (a number, or a choice's index) when it is one k takes */
static int key_value(const gs_format_key *k, const char *text, double *v)
{
    char *end = NULL;
    if (k->type == GS_FORMAT_KEY_CHOICE) {
        *v = choice_index(k->choices, text);
        return *v >= 0;
    }
    *v = k->type == GS_FORMAT_KEY_INT ? (double)strtoll(text, &end, 10) : strtod(text, &end);
    return end != text && !*end && *v >= k->min && *v <= k->max;
}

gs_status gs_format_key_parse(const gs_format_key *k, const char *text, gs_format_params *p)
{
    double v;
    if (!key_value(k, text, &v)) {
        if (k->type == GS_FORMAT_KEY_CHOICE)
            return GS_ERROR(GS_ERR_ARG, "%s = \"%s\" is not one of: %s", k->key, text, k->choices);
        return GS_ERROR(GS_ERR_ARG, "%s = \"%s\": expected %s in %g..%g", k->key, text,
                        k->type == GS_FORMAT_KEY_INT ? "an integer" : "a number", k->min, k->max);
    }
    gs_format_key_put(k, p, v);
    return GS_OK;
}

void gs_format_params_default(gs_format_params *p)
{
    const gs_format_key *k;
    double v;
    memset(p, 0, sizeof *p);
    for (int i = 0; (k = gs_format_key_at(i)) != NULL; i++)
        if (key_value(k, k->def, &v)) gs_format_key_put(k, p, v); /* valid: tests/io */
}

const char *gs_format_name(gs_format f)
{
    return (unsigned)f < GS_FORMAT_COUNT ? FORMATS[f].name : NULL;
}

gs_status gs_format_parse(const char *s, gs_format *out)
{
    for (int f = 0; f < GS_FORMAT_COUNT; f++)
        if (s && strcmp(s, FORMATS[f].name) == 0) {
            *out = (gs_format)f;
            return GS_OK;
        }
    return GS_ERROR(GS_ERR_ARG, "unknown SpMV format \"%s\" (expected one of: %s)",
                    s ? s : "(null)", gs_format_choices());
}

double gs_csr_bytes(const gs_csr *A)
{
    return 12.0 * A->nnz + 4.0 * ((double)A->rows + 1) + 8.0 * A->cols + 8.0 * A->rows;
}

/* y = A*x for the CSR formats, through the backend's own kernel or cuSPARSE */
static gs_status csr_spmv(const gs_spmat *M, const gs_vec *x, gs_vec *y)
{
    const gs_backend_ops *ops = gs_backend_get(M->loc);
    if (M->format == GS_FORMAT_CUSPARSE) return ops->csr_spmv(M->csr, x, y);
    return ops->csr_spmv_own(M->csr, x, y);
}

gs_status gs_spmat_create(const gs_csr *A, gs_format f, const gs_format_params *p,
                          gs_spmat **out)
{
    gs_status st = GS_OK;
    gs_spmat *M = NULL;
    gs_format_params def;
    *out = NULL;
    if (!A || (unsigned)f >= GS_FORMAT_COUNT)
        return GS_ERROR(GS_ERR_ARG, "gs_spmat_create: no matrix or no such format");
    if (!p) {
        gs_format_params_default(&def);
        p = &def;
    }
    if (!gs_backend_get(A->loc))
        return GS_ERROR(GS_ERR_ARG, "gs_spmat_create: the matrix's backend is not initialised");
    if (FORMATS[f].device_only && A->loc != GS_LOC_DEVICE)
        return GS_ERROR(GS_ERR_UNSUPPORTED, "format cusparse runs on the GPU only");
    GS_CHECK(gs_alloc_array(1, sizeof *M, "matrix handle", (void **)&M));
    memset(M, 0, sizeof *M);
    M->format = f;
    M->rows = A->rows;
    M->cols = A->cols;
    M->nnz = A->nnz;
    M->loc = A->loc;
    M->csr = A;
    if (f == GS_FORMAT_CUSPARSE && gs_backend_get(A->loc)->csr_prepare) /* no SpMV allocates */
        GS_CHECK(gs_backend_get(A->loc)->csr_prepare(A));
    if (FORMATS[f].module >= 0) {
        M->ops = gs_backend_module(A->loc, (gs_module)FORMATS[f].module);
        if (!M->ops)
            GS_FAIL(GS_ERR_UNSUPPORTED, "format %s has no %s implementation in this build",
                    FORMATS[f].name, A->loc == GS_LOC_DEVICE ? "GPU" : "host");
        double t0 = gs_time_now();
        GS_CHECK(M->ops->from_csr(A, p, &M->M));
        GS_CHECK(gs_backend_get(A->loc)->sync());
        M->convert_s = gs_time_now() - t0;
    }
    *out = M;
    M = NULL;
done:
    gs_spmat_destroy(&M);
    return st;
}

void gs_spmat_destroy(gs_spmat **M)
{
    if (!M || !*M) return;
    if ((*M)->ops && (*M)->M) (*M)->ops->destroy((*M)->M);
    gs_free(*M);
    *M = NULL;
}

gs_status gs_spmat_spmv(const gs_spmat *M, const gs_vec *x, gs_vec *y)
{
    if (M->dist_spmv) return M->dist_spmv(M->dist, x, y);
    if (x->loc != M->loc || y->loc != M->loc || x->n != M->cols || y->n != M->rows)
        return GS_ERROR(GS_ERR_ARG, "spmv: vector sizes or locations do not match the matrix");
    if (!M->ops) return csr_spmv(M, x, y);
    return M->ops->spmv(M->M, x->data, y->data);
}

gs_status gs_spmat_to_csr(const gs_spmat *M, gs_csr **out)
{
    *out = NULL;
    if (M->ops) return M->ops->to_csr(M->M, out);
    if (M->loc == GS_LOC_HOST) return gs_csr_copy(M->csr, out);
    return GS_ERROR(GS_ERR_UNSUPPORTED, "to_csr of a device CSR: it is already one");
}

int gs_spmat_owns_layout(const gs_spmat *M)
{
    return M && M->ops != NULL;
}

double gs_spmat_bytes(const gs_spmat *M)
{
    return M->ops ? M->ops->bytes(M->M) : gs_csr_bytes(M->csr);
}

void gs_spmat_describe(const gs_spmat *M, char *buf, size_t len)
{
    if (!len) return;
    buf[0] = '\0';
    if (M->ops && M->ops->describe) M->ops->describe(M->M, buf, len);
}

static gs_status linop_apply(void *ctx, const gs_vec *x, gs_vec *y)
{
    const gs_spmat_op *op = ctx;
    return gs_spmat_spmv(op->M, x, y);
}

static gs_status linop_apply_dots(void *ctx, const gs_vec *x, gs_vec *y, int k,
                                  const gs_vec *const *a, const gs_vec *const *b, double *out)
{
    const gs_spmat_op *op = ctx;
    return op->spmv_dots(op->M->csr, x, y, k, a, b, out);
}

/* Op(x) = M x; the fused dots with gsolve's CSR kernel */
gs_linop gs_spmat_linop(const gs_spmat *M, gs_spmat_op *op)
{
    op->M = M;
    op->spmv_dots = M->format == GS_FORMAT_CSR && !M->dist_spmv
                        ? gs_backend_get(M->loc)->csr_spmv_dots
                        : NULL;
    gs_linop L = {M->rows, op, linop_apply, op->spmv_dots ? linop_apply_dots : NULL};
    return L;
}

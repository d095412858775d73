/* gs_problem.c: matrix, right-hand side and initial guess from files or generators. */
#include "gs_problem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "gs_gen.h"
#include "gs_gen_impl.h"
#include "gs_h5.h"
#include "gs_ij.h"
#include "gs_mem.h"
#include "gs_mm.h"
#include "gs_npy.h"
#include "gs_npz.h"
#include "gs_time.h"

/* 1 when the file carries the HDF5 signature where the format puts the superblock: at offset 0
 * or 512, 1024, 2048, ... (after a user block; MATLAB v7.3 files have one of 512 bytes). */
static int is_hdf5(const char *path)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    int found = 0;
    for (long off = 0; !found; off = off ? off * 2 : 512) {
        unsigned char buf[8];
        if (fseek(f, off, SEEK_SET) != 0 || fread(buf, 1, 8, f) != 8) break;
        found = memcmp(buf, sig, 8) == 0;
        if (off > (1L << 40)) break;
    }
    fclose(f);
    return found;
}

/* Split "FILE:/NAME" at the last ":/" whose left side is an existing file: file and dataset
 * ("" when spec names a whole file). */
static void split_spec(const char *spec, char *file, size_t flen, char *dset, size_t dlen)
{
    struct stat sb;
    gs_str_copy(file, flen, spec);
    dset[0] = '\0';
    for (const char *q = strstr(spec, ":/"); q; q = strstr(q + 1, ":/")) {
        size_t n = (size_t)(q - spec);
        if (n + 1 > flen) break;
        char head[GS_CFG_STR];
        memcpy(head, spec, n);
        head[n] = '\0';
        if (stat(head, &sb) == 0 && S_ISREG(sb.st_mode)) {
            gs_str_copy(file, flen, head);
            gs_str_copy(dset, dlen, q + 1);
        }
    }
}

/* The rows x cols array v (column-major when colmajor) as a CSR of its nonzeros (as the Matrix
 * Market array format is read). */
static gs_status dense_csr(const double *v, int64_t rows, int64_t cols, int colmajor, gs_csr **A)
{
    gs_status st = GS_OK;
    int32_t *ri = NULL, *ci = NULL;
    double *val = NULL;
    int64_t nnz = 0, n = rows * cols;
    for (int64_t q = 0; q < n; q++) nnz += v[q] != 0.0;
    size_t cap = (size_t)(nnz ? nnz : 1);
    GS_CHECK(gs_alloc_array(cap, sizeof *ri, "row indices", (void **)&ri));
    GS_CHECK(gs_alloc_array(cap, sizeof *ci, "column indices", (void **)&ci));
    GS_CHECK(gs_alloc_array(cap, sizeof *val, "values", (void **)&val));
    nnz = 0;
    for (int64_t q = 0; q < n; q++)
        if (v[q] != 0.0) {
            ri[nnz] = (int32_t)(colmajor ? q % rows : q / cols);
            ci[nnz] = (int32_t)(colmajor ? q / rows : q % cols);
            val[nnz++] = v[q];
        }
    GS_CHECK(gs_csr_from_coo(rows, cols, nnz, ri, ci, val, A));
done:
    gs_free(ri);
    gs_free(ci);
    gs_free(val);
    return st;
}

/* A dense array as a matrix: an HDF5 dataset (file:name) or a .npy file (name NULL). */
static gs_status dense_read(const char *file, const char *name, gs_csr **A)
{
    gs_status st = GS_OK;
    double *v = NULL;
    int64_t rows = 0, cols = 0;
    int colmajor = 0;
    if (name)
        GS_CHECK(gs_h5_read_array(file, name, &v, &rows, &cols, &colmajor));
    else
        GS_CHECK(gs_npy_read(file, &v, &rows, &cols, &colmajor));
    GS_CHECK(dense_csr(v, rows, cols, colmajor, A));
done:
    gs_free(v);
    return st;
}

/* 1 when path ends in ext */
static int ends_with(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n > e && strcmp(path + n - e, ext) == 0;
}

/* 1 when path names a .npy file (its magic, or its name when it cannot be read). */
static int is_npy(const char *path)
{
    return gs_npy_is_npy(path) || ends_with(path, ".npy");
}

/* 1 when path names a .npz archive (a zip's magic, or its name). */
static int is_npz(const char *path)
{
    return gs_npz_is_npz(path) || ends_with(path, ".npz");
}

/* Where matrix_read found the matrix: the file (spec without ":/NAME") and the HDF5 group. */
typedef struct read_where {
    char file[GS_CFG_STR];
    char group[256];
} read_where;

/* gs_matrix_read; w (may be NULL) gets the file and group read. spec may be "FILE.h5:/NAME"
 * (NAME a group holding a sparse matrix, or a dataset read as a dense matrix), a .npy file
 * (a dense matrix), a scipy.sparse .npz file or hypre IJ files (NAME.ij: NAME.ij.00000, ...). */
static gs_status matrix_read(const char *spec, const char *group, gs_csr **A, char field[16],
                             char symmetry[24], char layout[32], read_where *w)
{
    gs_status st = GS_OK;
    struct stat sb;
    char file[GS_CFG_STR], name[GS_CFG_STR];
    const char *path = file, *lay = NULL;
    int kind = 0;
    split_spec(spec, file, sizeof file, name, sizeof name);
    if (w) gs_str_copy(w->file, sizeof w->file, file), w->group[0] = '\0';
    if (!name[0] && gs_ij_is_ij(path)) { /* no file of that name: NAME.00000, ... */
        if (group && *group)
            GS_FAIL(GS_ERR_CONFIG, "problem.group = \"%s\" is set but '%s' is not an HDF5 file",
                    group, path);
        GS_CHECK(gs_ij_read(path, A));
        lay = "hypre ij";
        goto dense;
    }
    FILE *f = fopen(path, "rb");
    if (!f) return GS_ERROR(GS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    int is_dir = fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode);
    fclose(f);
    if (is_dir)
        return GS_ERROR(GS_ERR_IO, "cannot read '%s': it is a directory, not a matrix file", path);
    if (name[0] && !is_hdf5(path))
        GS_FAIL(GS_ERR_INPUT,
                "%s: '%s' is not an HDF5 file (FILE:/NAME names a group or dataset of "
                "an HDF5 file)",
                spec, path);
    if (name[0] && group && *group)
        GS_FAIL(GS_ERR_CONFIG, "problem.group = \"%s\" and the group %s in '%s': give one of them",
                group, name, spec);
    if (name[0]) GS_CHECK(gs_h5_object_kind(path, name, &kind));
    if (name[0] && kind == 1) group = name; /* a group: the sparse matrix in it */
    if ((name[0] && kind != 1) || (!name[0] && is_npy(path))) {
        GS_CHECK(dense_read(path, name[0] ? name : NULL, A));
        lay = name[0] ? "hdf5 dataset" : "npy";
    } else if (!name[0] && is_npz(path) && !is_hdf5(path)) {
        if (group && *group)
            GS_FAIL(GS_ERR_CONFIG, "problem.group = \"%s\" is set but '%s' is not an HDF5 file",
                    group, path);
        GS_CHECK(gs_npz_read(path, A, layout));
    } else if (is_hdf5(path)) {
        gs_h5_info info;
        GS_CHECK(gs_h5_read(path, group, A, &info));
        if (w) gs_str_copy(w->group, sizeof w->group, info.group);
        if (layout) {
            strcpy(layout, "hdf5 ");
            gs_str_copy(layout + 5, 27, info.layout);
        }
    } else {
        if (group && *group)
            GS_FAIL(GS_ERR_CONFIG, "problem.group = \"%s\" is set but '%s' is not an HDF5 file",
                    group, path);
        if (ends_with(path, ".mat"))
            GS_FAIL(GS_ERR_INPUT,
                    "%s: not a MATLAB v7.3 file (no HDF5 signature%s): gsolve reads MATLAB's "
                    "HDF5 format; save with save('%s', 'A', '-v7.3')",
                    path, sb.st_size == 0 ? "; the file is empty" : "", path);
        if (ends_with(path, ".h5") || ends_with(path, ".hdf5"))
            GS_FAIL(GS_ERR_INPUT, "%s: not an HDF5 file (no HDF5 signature%s)", path,
                    sb.st_size == 0 ? "; the file is empty" : "");
        gs_mm_info info;
        GS_CHECK(gs_mm_read(path, A, &info));
        if (field) gs_str_copy(field, 16, info.field);
        if (symmetry) gs_str_copy(symmetry, 24, info.symmetry);
        if (layout) {
            strcpy(layout, "matrix market ");
            gs_str_copy(layout + 14, 18, info.format);
        }
        goto done;
    }
dense:
    if (field) strcpy(field, "real");
    if (symmetry) strcpy(symmetry, "general");
    if (layout && lay) gs_str_copy(layout, 32, lay);
done:
    return st;
}

gs_status gs_matrix_read(const char *path, const char *group, gs_csr **A, char field[16],
                         char symmetry[24], char layout[32])
{
    return matrix_read(path, group, A, field, symmetry, layout, NULL);
}

/* The case name from a path: its file name without folders and extensions. */
static void name_from_path(const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    gs_str_copy(out, len, base ? base + 1 : path);
    const char *exts[] = {".gz", ".mtx", ".mm", ".h5", ".hdf5", ".mat", ".npz", ".npy", ".ij"};
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
            size_t n = strlen(out), e = strlen(exts[i]);
            if (n > e && strcmp(out + n - e, exts[i]) == 0) out[n - e] = '\0';
        }
}

void gs_problem_gen_params(const gs_config *c, gs_gen_params *g)
{
    gs_gen_params q = {
        .type = c->problem.generate.type,
        .size = c->problem.generate.size,
        .nx = c->problem.generate.nx,
        .ny = c->problem.generate.ny,
        .nz = c->problem.generate.nz,
        .stencil = (int)c->problem.generate.stencil,
        .dof = (int)c->problem.generate.dof,
        .seed = (uint64_t)c->problem.generate.seed,
        .epsilon = c->problem.generate.epsilon,
        .velocity = c->problem.generate.velocity,
        .degree = c->problem.generate.degree,
        .exponent = c->problem.generate.exponent,
        .contrast = c->problem.generate.contrast,
        .block = c->problem.generate.block,
        .angle = c->problem.generate.angle,
        .E = c->problem.generate.E,
        .nu = c->problem.generate.nu,
        .step = c->problem.step,
        .drift = c->problem.generate.drift,
    };
    *g = q;
}

void gs_problem_describe_generated(gs_problem *p)
{
    gs_str_copy(p->name, sizeof p->name, p->matrix);
    for (char *q = p->name; *q; q++)
        if (*q == ' ') *q = '-';
    strcpy(p->field, "real");
    strcpy(p->symmetry, "general");
    strcpy(p->layout, "generated");
}

void gs_problem_describe_file(const gs_config *c, gs_problem *p, const char *file,
                              const char *group)
{
    gs_config_input_path(c, c->problem.matrix, p->matrix, sizeof p->matrix);
    gs_str_copy(p->source, sizeof p->source, file); /* "A.h5:/A" read: A.h5 */
    gs_str_copy(p->group, sizeof p->group, group);
    /* found without problem.group: the summary's problem line says where */
    if (!c->problem.group[0] && strcmp(p->group, "/") != 0 && p->group[0])
        snprintf(p->matrix, sizeof p->matrix, "%.700s:%s", p->source, p->group);
    name_from_path(p->source, p->name, sizeof p->name);
    p->block_size = 1;
}

gs_status gs_problem_h5_source(const gs_config *c, char *file, size_t flen, char *group,
                               size_t glen, int *yes)
{
    char path[GS_CFG_STR], name[GS_CFG_STR];
    int kind = 0;
    *yes = 0;
    gs_config_input_path(c, c->problem.matrix, path, sizeof path);
    split_spec(path, file, flen, name, sizeof name);
    /* what matrix_read would refuse or read otherwise goes the whole way, for its message */
    if (!is_hdf5(file) || (name[0] && c->problem.group[0])) return GS_OK;
    if (name[0] && gs_h5_object_kind(file, name, &kind) != GS_OK) {
        gs_error_clear();
        return GS_OK;
    }
    if (name[0] && kind != 1) return GS_OK; /* a dense dataset */
    gs_str_copy(group, glen, name[0] ? name : c->problem.group);
    *yes = 1;
    return GS_OK;
}

/* Step `step` of a generated sequence whose generator has no coefficients of its own to drift
 * (all but jumps): A := D A D, d_i = sqrt(f) for the f of row i's grid point (its block of
 * unknowns), f = prod_{t=1..step} (1 + drift (2 u_t - 1)) drawn from the seed, so every
 * coupling changes by about drift a step and the pattern, symmetry and definiteness stay. */
static gs_status drift_values(gs_csr *A, int block, uint64_t seed, int64_t step, double drift)
{
    gs_status st = GS_OK;
    const int b = block > 0 ? block : 1;
    const int32_t nodes = (A->rows + b - 1) / b;
    double *d = NULL;
    GS_CHECK(gs_alloc_array((size_t)nodes + 1, sizeof *d, "coefficient drift", (void **)&d));
    for (int32_t node = 0; node < nodes; node++) {
        double f = 1.0;
        for (int64_t t = 1; t <= step; t++) {
            gs_gen_rng r;
            gs_gen_rng_seed(&r, seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(node + 1)) ^
                                    (0xbf58476d1ce4e5b9ull * (uint64_t)t));
            f *= 1.0 + drift * (2.0 * gs_gen_unit_double(gs_gen_rng_next(&r)) - 1.0);
        }
        d[node] = sqrt(f);
    }
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
            A->val[q] *= d[i / b] * d[A->colind[q] / b];
done:
    gs_free(d);
    return st;
}

/* A generated matrix from the problem.generate keys. */
static gs_status load_generated(const gs_config *c, gs_problem *p)
{
    gs_gen_params g;
    gs_problem_gen_params(c, &g);
    gs_status st = gs_gen_problem(&g, &p->A, &p->nullspace, &p->nullspace_k, &p->block_size,
                                  p->matrix, sizeof p->matrix);
    if (st != GS_OK) return st;
    if (g.step > 0 && g.drift > 0 && strcmp(g.type, "jumps") != 0) { /* jumps drift their own */
        st = drift_values(p->A, p->block_size, g.seed, g.step, g.drift);
        if (st != GS_OK) return st;
        size_t len = strlen(p->matrix);
        snprintf(p->matrix + len, sizeof p->matrix - len, " step %lld drift %g",
                 (long long)g.step, g.drift);
    }
    gs_problem_describe_generated(p);
    return GS_OK;
}

/* Read an optional vector dataset beside an HDF5 matrix (found = 0 for Matrix Market): in the
 * matrix's group, and for a MATLAB file among the variables beside the matrix's (a MATLAB
 * variable b of a file whose sparse matrix is A is /b, beside /A). */
static gs_status file_vector(const gs_problem *p, const char *name, int64_t n, double **out,
                             int *found)
{
    gs_status st = GS_OK;
    char parent[sizeof p->group];
    *found = 0;
    *out = NULL;
    if (strncmp(p->layout, "hdf5", 4) != 0 || !p->group[0]) return GS_OK; /* no matrix group */
    GS_CHECK(gs_h5_read_vector(p->source, p->group, name, n, out, found));
    if (*found || strcmp(p->layout, "hdf5 matlab") != 0 || strcmp(p->group, "/") == 0) goto done;
    gs_str_copy(parent, sizeof parent, p->group);
    char *slash = strrchr(parent, '/');
    if (slash == parent) slash++; /* "/A" -> "/" */
    if (slash) *slash = '\0';
    GS_CHECK(gs_h5_read_vector(p->source, parent, name, n, out, found));
done:
    return st;
}

/* ---- vectors from files: HDF5 datasets, .npy, Matrix Market ----------------------------- */

/* The rows x cols array raw (column-major when colmajor) as k vectors of n, column-major:
 * its columns when it has n rows (a square array too), else its rows when it has n columns. */
static gs_status orient(const char *what, const char *src, double *raw, int64_t rows, int64_t cols,
                        int colmajor, int64_t n, int max_k, double **out, int *k)
{
    gs_status st = GS_OK;
    double *v = NULL;
    int by_cols = rows == n;
    if (!by_cols && cols != n)
        GS_FAIL(GS_ERR_INPUT,
                "%s: %s is %lld x %lld: expected %lld rows (one per unknown), or %lld columns",
                what, src, (long long)rows, (long long)cols, (long long)n, (long long)n);
    int64_t nk = by_cols ? cols : rows;
    if (nk < 1 || nk > max_k) {
        if (max_k == 1)
            GS_FAIL(GS_ERR_INPUT, "%s: %s is %lld x %lld: expected one vector of %lld entries",
                    what, src, (long long)rows, (long long)cols, (long long)n);
        GS_FAIL(GS_ERR_INPUT, "%s: %s holds %lld vectors of %lld entries: expected 1 to %d", what,
                src, (long long)nk, (long long)n, max_k);
    }
    /* column-major n x nk wanted: a copy unless raw is already laid out so */
    if (by_cols == colmajor || nk == 1) {
        *out = raw;
        *k = (int)nk;
        return GS_OK;
    }
    GS_CHECK(gs_alloc_array((size_t)(n * nk), sizeof *v, "vectors", (void **)&v));
    for (int64_t j = 0; j < nk; j++)
        for (int64_t i = 0; i < n; i++)
            v[j * n + i] = raw[i * nk + j]; /* (i, j) of n x nk row-major = of nk x n col-major */
    gs_free(raw);
    *out = v;
    *k = (int)nk;
    v = NULL;
done:
    gs_free(v);
    return st;
}

/* A Matrix Market file as vectors: one (gs_mm_read_vector), or the columns of a matrix. */
static gs_status mm_vectors(const char *what, const char *path, int64_t n, int max_k, double **out,
                            int *k)
{
    gs_status st = GS_OK;
    gs_csr *N = NULL;
    int64_t len = 0;
    if (max_k == 1) {
        GS_CHECK(gs_mm_read_vector(path, n, out, &len));
        *k = 1;
        goto done;
    }
    GS_CHECK(gs_matrix_read(path, "", &N, NULL, NULL, NULL));
    if (N->rows != n)
        GS_FAIL(GS_ERR_INPUT, "%s: %s has %d rows; the matrix has %lld", what, path, N->rows,
                (long long)n);
    if (N->cols < 1 || N->cols > max_k)
        GS_FAIL(GS_ERR_INPUT, "%s: %s has %d vectors (columns); expected 1 to %d", what, path,
                N->cols, max_k);
    GS_CHECK(gs_alloc_array((size_t)n * N->cols, sizeof **out, "vectors", (void **)out));
    memset(*out, 0, (size_t)n * N->cols * sizeof **out);
    for (int32_t i = 0; i < N->rows; i++)
        for (int32_t q = N->rowptr[i]; q < N->rowptr[i + 1]; q++)
            (*out)[(size_t)N->colind[q] * n + i] = N->val[q];
    *k = N->cols;
done:
    gs_csr_destroy(&N);
    return st;
}

gs_status gs_problem_read_vectors(const gs_config *c, const char *spec, const char *what, int64_t n,
                                  int max_k, double **out, int *k, char *desc, size_t desc_len)
{
    gs_status st = GS_OK;
    char full[GS_CFG_STR], file[GS_CFG_STR], dset[GS_CFG_STR], src[2 * GS_CFG_STR + 2], names[512];
    double *raw = NULL;
    int64_t rows = 0, cols = 0;
    int colmajor = 0;
    *out = NULL;
    *k = 0;
    gs_config_input_path(c, spec, full, sizeof full);
    split_spec(full, file, sizeof file, dset, sizeof dset);
    snprintf(src, sizeof src, "%s%s%s", file, dset[0] ? ":" : "", dset);
    if (dset[0]) {
        if (!is_hdf5(file))
            GS_FAIL(GS_ERR_INPUT,
                    "%s = \"%s\": '%s' is not an HDF5 file (FILE:/NAME names a dataset of an "
                    "HDF5 file)",
                    what, spec, file);
        GS_CHECK(gs_h5_read_array(file, dset, &raw, &rows, &cols, &colmajor));
        if (desc) snprintf(desc, desc_len, "dataset %s", dset);
    } else if (gs_ij_is_ij(file)) {
        GS_CHECK(gs_ij_read_vector(file, n, &raw, &rows));
        cols = 1;
        if (desc) snprintf(desc, desc_len, "file (hypre ij)");
    } else if (is_npy(file)) {
        GS_CHECK(gs_npy_read(file, &raw, &rows, &cols, &colmajor));
        if (desc) snprintf(desc, desc_len, "file (.npy)");
    } else if (is_npz(file) && !is_hdf5(file)) {
        GS_FAIL(GS_ERR_INPUT,
                "%s = \"%s\": a .npz archive holds a sparse matrix: vectors are read from .npy, "
                "Matrix Market, hypre IJ or HDF5 datasets (np.save(\"b.npy\", b))",
                what, spec);
    } else if (is_hdf5(file)) {
        GS_CHECK(gs_h5_list_datasets(file, names, sizeof names));
        GS_FAIL(GS_ERR_CONFIG,
                "%s = \"%s\" is an HDF5 file: name its dataset, as in \"%s:/b\" (its numeric "
                "datasets: %s)",
                what, spec, spec, names[0] ? names : "none");
    } else {
        GS_CHECK(mm_vectors(what, file, n, max_k, out, k));
        if (desc) snprintf(desc, desc_len, "file");
        goto done;
    }
    GS_CHECK(orient(what, src, raw, rows, cols, colmajor, n, max_k, out, k));
    raw = NULL; /* now *out, or freed */
done:
    gs_free(raw);
    return st;
}

/* b from problem.rhs: auto | ones | random | Ax | a Matrix Market file. */
static gs_status load_rhs(const gs_config *c, gs_problem *p)
{
    gs_status st = GS_OK;
    const char *r = c->problem.rhs;
    int64_t n = p->A->rows;
    double *ones = NULL;
    int found = 0;
    if (strcmp(r, "auto") == 0) {
        GS_CHECK(file_vector(p, "b", n, &p->b, &found));
        if (found) {
            snprintf(p->rhs, sizeof p->rhs, "file (dataset b)");
            goto done;
        }
        r = "ones";
    }
    if (strcmp(r, "ones") == 0 || strcmp(r, "random") == 0 || strcmp(r, "Ax") == 0) {
        GS_CHECK(gs_alloc_pinned((size_t)n, sizeof(double), "right-hand side", (void **)&p->b));
        if (strcmp(r, "random") == 0) {
            gs_gen_random_vector((uint64_t)c->problem.generate.seed, p->b, n);
        } else if (strcmp(r, "Ax") == 0) {
            GS_CHECK(gs_alloc_array((size_t)p->A->cols, sizeof(double), "ones", (void **)&ones));
            for (int64_t i = 0; i < p->A->cols; i++) ones[i] = 1.0;
            gs_csr_spmv_host(p->A, ones, p->b);
        } else {
            for (int64_t i = 0; i < n; i++) p->b[i] = 1.0;
        }
        gs_str_copy(p->rhs, sizeof p->rhs, strcmp(r, "Ax") == 0 ? "Ax (b = A*ones)" : r);
    } else {
        int k = 0;
        GS_CHECK(gs_problem_read_vectors(c, r, "problem.rhs", n, GS_PROBLEM_RHS_MAX, &p->b, &k,
                                         p->rhs, sizeof p->rhs));
        p->nrhs = k;
    }
done:
    gs_free(ones);
    return st;
}

/* x0 from problem.x0: auto | zero | random | a Matrix Market file. */
static gs_status load_x0(const gs_config *c, gs_problem *p)
{
    gs_status st = GS_OK;
    const char *r = c->problem.x0;
    int64_t n = p->A->cols;
    int found = 0;
    if (strcmp(r, "auto") == 0) {
        GS_CHECK(file_vector(p, "x0", n, &p->x0, &found));
        if (found) {
            snprintf(p->x0_desc, sizeof p->x0_desc, "file (dataset x0)");
            goto done;
        }
        r = "zero";
    }
    if (strcmp(r, "zero") == 0 || strcmp(r, "random") == 0) {
        GS_CHECK(gs_alloc_pinned((size_t)n, sizeof(double), "initial guess", (void **)&p->x0));
        if (strcmp(r, "random") == 0)
            gs_gen_random_vector((uint64_t)c->problem.generate.seed + 1, p->x0, n);
        else
            memset(p->x0, 0, (size_t)n * sizeof(double));
        gs_str_copy(p->x0_desc, sizeof p->x0_desc, r);
    } else {
        int k = 0;
        GS_CHECK(gs_problem_read_vectors(c, r, "problem.x0", n, 1, &p->x0, &k, p->x0_desc,
                                         sizeof p->x0_desc));
    }
done:
    return st;
}

gs_status gs_problem_bad_entry(const char *src, int64_t i, int64_t j, double v)
{
    return GS_ERROR(GS_ERR_INPUT, "%s: entry (%lld, %lld) is %g: the matrix must be finite", src,
                    (long long)i + 1, (long long)j + 1, v);
}

gs_status gs_problem_check_vector(const char *src, const char *what, const char *desc, int64_t row0,
                                  int64_t n, const double *v)
{
    for (int64_t i = 0; v && i < n; i++)
        if (!isfinite(v[i]))
            return GS_ERROR(GS_ERR_INPUT, "%s: %s (%s): entry %lld is %g: expected a finite number",
                            src, what, desc, (long long)(row0 + i + 1), v[i]);
    return GS_OK;
}

/* NaN or Inf anywhere in A, b, x0 or the exact solution is bad input: say which file, which
 * vector (and where it came from) and which entry. */
static gs_status check_finite(const gs_problem *p)
{
    gs_status st = GS_OK;
    const char *src = p->source[0] ? p->source : p->matrix;
    const gs_csr *A = p->A;
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (!isfinite(A->val[k])) return gs_problem_bad_entry(src, i, A->colind[k], A->val[k]);
    for (int j = 0; j < (p->nrhs > 1 ? p->nrhs : 1); j++)
        GS_CHECK(gs_problem_check_vector(src, "right-hand side b", p->rhs, 0, A->rows,
                                         p->b + (size_t)j * (size_t)A->rows));
    GS_CHECK(gs_problem_check_vector(src, "initial guess x0", p->x0_desc, 0, A->cols, p->x0));
    GS_CHECK(gs_problem_check_vector(src, "exact solution x", "dataset x", 0, A->cols, p->x_exact));
done:
    return st;
}

static gs_problem_sized_fn g_sized; /* gs_problem_set_sized_hook */

gs_problem_sized_fn gs_problem_set_sized_hook(gs_problem_sized_fn fn)
{
    gs_problem_sized_fn old = g_sized;
    g_sized = fn;
    return old;
}

void gs_problem_sized(int64_t rows, int64_t nnz)
{
    if (g_sized && rows > 0 && nnz >= 0) g_sized(rows, nnz);
}

gs_status gs_problem_load(const gs_config *c, gs_problem **out)
{
    gs_status st = GS_OK;
    gs_problem *p = NULL;
    int found = 0;
    *out = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *p, "problem", (void **)&p));
    memset(p, 0, sizeof *p);
    double t0 = gs_time_now();
    if (c->problem.matrix[0]) {
        gs_config_input_path(c, c->problem.matrix, p->source, sizeof p->source);
        gs_str_copy(p->matrix, sizeof p->matrix, p->source);
        read_where w;
        GS_CHECK(
            matrix_read(p->source, c->problem.group, &p->A, p->field, p->symmetry, p->layout, &w));
        gs_problem_describe_file(c, p, w.file, w.group);
    } else {
        GS_CHECK(load_generated(c, p));
    }
    gs_problem_sized(p->A->rows, p->A->nnz); /* readers that could not say so earlier */
    if (c->problem.name[0]) gs_str_copy(p->name, sizeof p->name, c->problem.name);
    GS_CHECK(load_rhs(c, p));
    GS_CHECK(load_x0(c, p));
    GS_CHECK(file_vector(p, "x", p->A->cols, &p->x_exact, &found));
    if (!p->x_exact && strcmp(c->problem.rhs, "Ax") == 0) { /* b = A*ones: x = ones exactly */
        GS_CHECK(gs_alloc_array((size_t)p->A->cols + 1, sizeof(double), "exact solution",
                                (void **)&p->x_exact));
        for (int64_t i = 0; i < p->A->cols; i++) p->x_exact[i] = 1.0;
    }
    if (gs_config_nullspace_file(c)) { /* the file's vectors replace the generator's */
        gs_free(p->nullspace);
        p->nullspace = NULL;
        GS_CHECK(gs_problem_read_vectors(c, c->problem.nullspace, "problem.nullspace", p->A->rows,
                                         64, &p->nullspace, &p->nullspace_k, NULL, 0));
    }
    GS_CHECK(check_finite(p));
    p->read_s = gs_time_now() - t0;
    *out = p;
    p = NULL;
done:
    gs_problem_destroy(&p);
    return st;
}

void gs_problem_destroy(gs_problem **p)
{
    if (!p || !*p) return;
    gs_csr_destroy(&(*p)->A);
    gs_free((*p)->b);
    gs_free((*p)->x0);
    gs_free((*p)->x_exact);
    gs_free((*p)->nullspace);
    gs_free(*p);
    *p = NULL;
}

/* gs_problem.c: matrix, right-hand side and initial guess from files or generators. */
#include "gs_problem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "gs_gen.h"
#include "gs_h5.h"
#include "gs_mm.h"
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

gs_status gs_matrix_read(const char *path, const char *group, gs_csr **A, char field[16],
                         char symmetry[24], char layout[32])
{
    gs_status st = GS_OK;
    struct stat sb;
    FILE *f = fopen(path, "rb");
    if (!f) return GS_ERROR(GS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    int is_dir = fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode);
    fclose(f);
    if (is_dir)
        return GS_ERROR(GS_ERR_IO, "cannot read '%s': it is a directory, not a matrix file", path);
    if (is_hdf5(path)) {
        gs_h5_info info;
        GS_CHECK(gs_h5_read(path, group, A, &info));
        if (field) strcpy(field, "real");
        if (symmetry) strcpy(symmetry, "general");
        if (layout) {
            strcpy(layout, "hdf5 ");
            gs_str_copy(layout + 5, 27, info.layout);
        }
    } else {
        if (group && *group)
            GS_FAIL(GS_ERR_CONFIG, "problem.group = \"%s\" is set but '%s' is not an HDF5 file",
                    group, path);
        gs_mm_info info;
        GS_CHECK(gs_mm_read(path, A, &info));
        if (field) gs_str_copy(field, 16, info.field);
        if (symmetry) gs_str_copy(symmetry, 24, info.symmetry);
        if (layout) {
            strcpy(layout, "matrix market ");
            gs_str_copy(layout + 14, 18, info.format);
        }
    }
done:
    return st;
}

/* The case name from a path: its file name without folders and extensions. */
static void name_from_path(const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    gs_str_copy(out, len, base ? base + 1 : path);
    const char *exts[] = {".gz", ".mtx", ".mm", ".h5", ".hdf5", ".mat"};
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
            size_t n = strlen(out), e = strlen(exts[i]);
            if (n > e && strcmp(out + n - e, exts[i]) == 0) out[n - e] = '\0';
        }
}

/* A generated matrix from the problem.generate keys. */
static gs_status load_generated(const gs_config *c, gs_problem *p)
{
    gs_gen_params g = {
        .type = c->problem.generate.type,
        .size = c->problem.generate.size,
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
    };
    gs_status st = gs_gen_problem(&g, &p->A, &p->nullspace, &p->nullspace_k, &p->block_size,
                                  p->matrix, sizeof p->matrix);
    if (st != GS_OK) return st;
    gs_str_copy(p->name, sizeof p->name, p->matrix);
    for (char *q = p->name; *q; q++)
        if (*q == ' ') *q = '-';
    strcpy(p->field, "real");
    strcpy(p->symmetry, "general");
    strcpy(p->layout, "generated");
    return GS_OK;
}

/* Read an optional vector dataset beside an HDF5 matrix (found = 0 for Matrix Market). */
static gs_status file_vector(const gs_problem *p, const gs_config *c, const char *name, int64_t n,
                             double **out, int *found)
{
    *found = 0;
    *out = NULL;
    if (strncmp(p->layout, "hdf5", 4) != 0) return GS_OK;
    return gs_h5_read_vector(p->source, c->problem.group, name, n, out, found);
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
        GS_CHECK(file_vector(p, c, "b", n, &p->b, &found));
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
        char path[GS_CFG_STR];
        int64_t len = 0;
        gs_config_input_path(c, r, path, sizeof path);
        GS_CHECK(gs_mm_read_vector(path, n, &p->b, &len));
        snprintf(p->rhs, sizeof p->rhs, "file");
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
        GS_CHECK(file_vector(p, c, "x0", n, &p->x0, &found));
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
        char path[GS_CFG_STR];
        int64_t len = 0;
        gs_config_input_path(c, r, path, sizeof path);
        GS_CHECK(gs_mm_read_vector(path, n, &p->x0, &len));
        snprintf(p->x0_desc, sizeof p->x0_desc, "file");
    }
done:
    return st;
}

/* NaN or Inf anywhere in A, b, x0 or the exact solution is bad input: say which file, which
 * vector (and where it came from) and which entry. */
static gs_status check_finite(const gs_problem *p)
{
    const char *src = p->source[0] ? p->source : p->matrix;
    const gs_csr *A = p->A;
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (!isfinite(A->val[k]))
                return GS_ERROR(GS_ERR_INPUT, "%s: entry (%d, %d) is %g: the matrix must be finite",
                                src, i + 1, A->colind[k] + 1, A->val[k]);
    for (int32_t i = 0; i < A->rows; i++)
        if (!isfinite(p->b[i]))
            return GS_ERROR(GS_ERR_INPUT,
                            "%s: right-hand side b (%s): entry %d is %g: expected a finite number",
                            src, p->rhs, i + 1, p->b[i]);
    for (int32_t i = 0; i < A->cols; i++)
        if (!isfinite(p->x0[i]))
            return GS_ERROR(GS_ERR_INPUT,
                            "%s: initial guess x0 (%s): entry %d is %g: expected a finite number",
                            src, p->x0_desc, i + 1, p->x0[i]);
    for (int32_t i = 0; p->x_exact && i < A->cols; i++)
        if (!isfinite(p->x_exact[i]))
            return GS_ERROR(GS_ERR_INPUT,
                            "%s: exact solution x (dataset x): entry %d is %g: expected a finite "
                            "number",
                            src, i + 1, p->x_exact[i]);
    return GS_OK;
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
        GS_CHECK(
            gs_matrix_read(p->source, c->problem.group, &p->A, p->field, p->symmetry, p->layout));
        name_from_path(p->source, p->name, sizeof p->name);
        p->block_size = 1;
    } else {
        GS_CHECK(load_generated(c, p));
    }
    if (c->problem.name[0]) gs_str_copy(p->name, sizeof p->name, c->problem.name);
    GS_CHECK(load_rhs(c, p));
    GS_CHECK(load_x0(c, p));
    GS_CHECK(file_vector(p, c, "x", p->A->cols, &p->x_exact, &found));
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

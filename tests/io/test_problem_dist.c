/* test_problem_dist.c: the problem loaded by rows (gs_problem_load_dist: generators building
 * each rank's rows, HDF5 CSR groups read by hyperslabs) against the problem loaded whole
 * (gs_problem_load) and cut into the same rows: rows (pattern and values), b, x0, exact
 * solution and near-nullspace on every rank the same to the bit, the partition the one
 * gs_part_balanced makes of the whole matrix (what a scatter from rank 0 uses), rank 0's
 * description the same. Also, on every rank alone: the generators' row ranges and partitions
 * against their whole matrices for 1..8 ranks, and the errors (NaN, bad indices) naming the
 * file and the global row, the same message both ways.
 *
 * Runs on one process (the loader's rows are then the whole problem) and under mpirun.
 * argv[1]: the source folder (for configs/data). */
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gs_comm.h"
#include "gs_config.h"
#include "gs_gen.h"
#include "gs_h5.h"
#include "gs_host.h"
#include "gs_mem.h"
#include "gs_problem.h"
#include "gs_problem_dist.h"
#include "gs_test.h"

static char g_h5[256], g_h5clean[256], g_h5bad[256], g_h5nan[256], g_srcdir[512];

/* a case that fails only on some ranks must not leave the others waiting: every check of a
 * rank's result is local, and every collective call is made by all ranks alike */
static int same_vec(const double *a, const double *b, int64_t n)
{
    if (!a || !b) return a == b;
    return n == 0 || memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* ---- the sized hook (gs_problem_set_sized_hook): the first size a load tells */
static int g_sized_calls;
static int64_t g_sized_rows, g_sized_nnz;

static void sized_first(int64_t rows, int64_t nnz)
{
    if (g_sized_calls++ == 0) g_sized_rows = rows, g_sized_nnz = nnz;
}

static void sized_reset(void) { g_sized_calls = 0, g_sized_rows = g_sized_nnz = -1; }

/* The whole problem's rows of this rank in d's partition (what a scatter of the whole problem
 * by that partition gives), and in *want the partition gs_part_balanced makes of the whole
 * matrix (the scatter's). */
static gs_status slice_whole(const gs_problem *P, const gs_part *pt, gs_dproblem **out,
                             gs_part **want)
{
    gs_status st = GS_OK;
    const int me = gs_comm_rank(), R = pt->nranks;
    const int64_t n = P->A->rows, r0 = pt->start[me], nl = pt->start[me + 1] - r0;
    gs_dproblem *e = NULL;
    int64_t *rp = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *e, "slice", (void **)&e));
    memset(e, 0, sizeof *e);
    e->rows = n;
    e->nnz = P->A->nnz;
    e->block_size = P->block_size > 0 && n % P->block_size == 0 ? P->block_size : 1;
    e->nullspace_k = P->nullspace ? P->nullspace_k : 0;
    GS_CHECK(gs_part_balanced(0, NULL, R, 1, &e->part));
    memcpy(e->part->start, pt->start, ((size_t)R + 1) * sizeof(int64_t));
    GS_CHECK(gs_gcsr_from_csr_rows(P->A, r0, (int32_t)nl, &e->A));
    const double *src[3] = {P->b, P->x0, P->x_exact};
    double **dst[3] = {&e->b, &e->x0, &e->x_exact};
    for (int v = 0; v < 3; v++) {
        if (!src[v]) continue;
        GS_CHECK(gs_alloc_array((size_t)nl + 1, sizeof(double), "slice", (void **)dst[v]));
        memcpy(*dst[v], src[v] + r0, (size_t)nl * sizeof(double));
    }
    if (e->nullspace_k) {
        GS_CHECK(gs_alloc_array((size_t)nl * (size_t)e->nullspace_k + 1, sizeof(double), "slice",
                                (void **)&e->nullspace));
        for (int j = 0; j < e->nullspace_k; j++)
            memcpy(e->nullspace + j * nl, P->nullspace + j * n + r0, (size_t)nl * sizeof(double));
    }
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *rp, "slice", (void **)&rp));
    for (int64_t i = 0; i <= n; i++) rp[i] = P->A->rowptr[i];
    GS_CHECK(gs_part_balanced(n, rp, R, e->block_size, want));
    *out = e;
    e = NULL;
done:
    gs_free(rp);
    gs_dproblem_destroy(&e);
    return st;
}

/* this rank's rows, both ways: the same to the bit */
static void compare_rows(const char *what, const gs_dproblem *d, const gs_dproblem *e)
{
    CHECK_MSG(d->rows == e->rows && d->nnz == e->nnz, "%s: %lld x %lld nnz vs %lld, %lld", what,
              (long long)d->rows, (long long)d->nnz, (long long)e->rows, (long long)e->nnz);
    CHECK_MSG(d->block_size == e->block_size, "%s: block %d vs %d", what, d->block_size,
              e->block_size);
    const gs_gcsr *A = d->A, *B = e->A;
    CHECK_MSG(A->row0 == B->row0 && A->rows == B->rows && A->grows == B->grows &&
                  A->gcols == B->gcols,
              "%s: rows %lld+%d vs %lld+%d", what, (long long)A->row0, A->rows, (long long)B->row0,
              B->rows);
    if (A->rows != B->rows) return;
    int64_t nz = A->rowptr[A->rows];
    CHECK_MSG(memcmp(A->rowptr, B->rowptr, ((size_t)A->rows + 1) * sizeof(int64_t)) == 0,
              "%s: row pointers differ", what);
    CHECK_MSG(nz == B->rowptr[B->rows] && memcmp(A->col, B->col, (size_t)nz * 8) == 0 &&
                  memcmp(A->val, B->val, (size_t)nz * 8) == 0,
              "%s: columns or values differ", what);
    CHECK_MSG(same_vec(d->b, e->b, A->rows), "%s: b differs", what);
    CHECK_MSG(same_vec(d->x0, e->x0, A->rows), "%s: x0 differs", what);
    CHECK_MSG(same_vec(d->x_exact, e->x_exact, A->rows), "%s: x_exact differs", what);
    CHECK_MSG(d->nullspace_k == e->nullspace_k, "%s: nullspace k %d vs %d", what, d->nullspace_k,
              e->nullspace_k);
    CHECK_MSG(same_vec(d->nullspace, e->nullspace, (int64_t)A->rows * d->nullspace_k),
              "%s: nullspace differs", what);
}

/* rank 0's description, both ways */
static void compare_desc(const char *what, const gs_problem *p, const gs_problem *q, int by_rows)
{
    CHECK_MSG(by_rows ? p->A == NULL : p->A != NULL, "%s: p->A %p", what, (void *)p->A);
    CHECK_MSG(strcmp(p->name, q->name) == 0, "%s: name %s vs %s", what, p->name, q->name);
    CHECK_MSG(strcmp(p->matrix, q->matrix) == 0, "%s: matrix %s vs %s", what, p->matrix, q->matrix);
    CHECK_MSG(strcmp(p->source, q->source) == 0, "%s: source %s vs %s", what, p->source, q->source);
    CHECK_MSG(strcmp(p->field, q->field) == 0 && strcmp(p->symmetry, q->symmetry) == 0 &&
                  strcmp(p->layout, q->layout) == 0 && strcmp(p->group, q->group) == 0,
              "%s: %s %s %s %s vs %s %s %s %s", what, p->field, p->symmetry, p->layout, p->group,
              q->field, q->symmetry, q->layout, q->group);
    CHECK_MSG(strcmp(p->rhs, q->rhs) == 0 && strcmp(p->x0_desc, q->x0_desc) == 0,
              "%s: rhs %s x0 %s vs %s %s", what, p->rhs, p->x0_desc, q->rhs, q->x0_desc);
    CHECK_MSG(p->block_size == q->block_size && p->nullspace_k == q->nullspace_k,
              "%s: block %d k %d vs %d %d", what, p->block_size, p->nullspace_k, q->block_size,
              q->nullspace_k);
}

/* the configuration of a case: defaults and the assignments (';'-separated) */
static void config(gs_config *c, const char *sets)
{
    char buf[2048], *save = NULL;
    gs_config_defaults(c);
    snprintf(buf, sizeof buf, "%s", sets);
    for (char *t = strtok_r(buf, ";", &save); t; t = strtok_r(NULL, ";", &save))
        CHECK_OK(gs_config_set(c, t));
}

enum { BY_ROWS = 1, DUPLICATES = 2 };

/* One case both ways: the loader's rows against the whole problem (every rank loads it) cut
 * by the loader's partition, and that partition against the whole matrix's balanced one.
 * BY_ROWS: expected loaded by rows (p->A NULL on rank 0); DUPLICATES: the file stores
 * duplicate entries, which the partition by the file's row pointers counts (so it may differ
 * from the whole matrix's, whose duplicates are summed). */
static void run_case(const char *sets, int flags)
{
    gs_config c;
    gs_problem *p = NULL, *q = NULL;
    gs_dproblem *d = NULL, *e = NULL;
    gs_part *want = NULL;
    config(&c, sets);
    sized_reset();
    CHECK(gs_problem_set_sized_hook(sized_first) == NULL);
    gs_status st = gs_problem_load_dist(&c, &p, &d);
    CHECK_MSG(st == GS_OK, "%s: %s", sets, gs_error_message());
    gs_error_clear();
    /* the hook told this rank's rows and entries first (rank 0 loading the whole matrix for a
     * scatter does not tell the whole one's); nothing for a rank without rows */
    if (st == GS_OK)
        CHECK_MSG(d->A->rows == 0 ? g_sized_calls == 0
                                  : g_sized_calls >= 1 && g_sized_rows == d->A->rows &&
                                        g_sized_nnz == d->A->rowptr[d->A->rows],
                  "%s: the sized hook told %d times, first %lld rows %lld entries; this rank's "
                  "block has %lld and %lld", sets, g_sized_calls, (long long)g_sized_rows,
                  (long long)g_sized_nnz, (long long)d->A->rows,
                  (long long)d->A->rowptr[d->A->rows]);
    sized_reset();
    gs_status sr = gs_problem_load(&c, &q);
    CHECK(gs_problem_set_sized_hook(NULL) == sized_first);
    /* loaded whole: the whole matrix's rows, and its entries as the generator or the file's
     * header counts them (a symmetric Matrix Market file's stored half twice: at most 2 nnz) */
    if (sr == GS_OK)
        CHECK_MSG(g_sized_calls >= 1 && g_sized_rows == q->A->rows &&
                      g_sized_nnz >= q->A->nnz &&
                      ((flags & DUPLICATES) || g_sized_nnz <= 2 * (int64_t)q->A->nnz),
                  "%s (whole): the sized hook told %d times, first %lld rows %lld entries; the "
                  "matrix has %lld and %lld", sets, g_sized_calls, (long long)g_sized_rows,
                  (long long)g_sized_nnz, (long long)q->A->rows, (long long)q->A->nnz);
    if (sr == GS_OK && st == GS_OK) sr = slice_whole(q, d->part, &e, &want);
    CHECK_MSG(sr == GS_OK, "%s (whole): %s", sets, gs_error_message());
    gs_error_clear();
    if (st == GS_OK && sr == GS_OK) {
        compare_rows(sets, d, e);
        CHECK_MSG((flags & DUPLICATES) || memcmp(d->part->start, want->start,
                                                 ((size_t)want->nranks + 1) * sizeof(int64_t)) == 0,
                  "%s: the partition is not the whole matrix's balanced one", sets);
        if (gs_comm_rank() == 0) compare_desc(sets, p, q, flags & BY_ROWS);
    }
    gs_part_destroy(&want);
    gs_problem_destroy(&p);
    gs_problem_destroy(&q);
    gs_dproblem_destroy(&d);
    gs_dproblem_destroy(&e);
}

/* one failing case both ways: the same message (the loader by rows may prefix "rank r: "),
 * which names the file and contains want */
static void run_fail(const char *sets, const char *want)
{
    gs_config c;
    gs_problem *p = NULL;
    gs_dproblem *d = NULL;
    char whole[1024] = "";
    config(&c, sets);
    if (gs_comm_rank() == 0) {
        CHECK_MSG(gs_problem_load(&c, &p) != GS_OK, "%s: loaded whole", sets);
        snprintf(whole, sizeof whole, "%s", gs_error_message());
        gs_error_clear();
        gs_problem_destroy(&p);
    }
    CHECK_OK(gs_comm_bcast(whole, sizeof whole, 0));
    gs_status st = gs_problem_load_dist(&c, &p, &d);
    CHECK_MSG(st != GS_OK && p == NULL && d == NULL, "%s: loaded by rows", sets);
    CHECK_MSG(strstr(gs_error_message(), whole) && strstr(whole, want),
              "%s: '%s' vs whole '%s' (want '%s')", sets, gs_error_message(), whole, want);
    gs_error_clear();
    gs_problem_destroy(&p);
    gs_dproblem_destroy(&d);
}

/* ---- every rank alone: the row builders against the whole matrices ---------------------- */

static void check_builder(const gs_gen_params *gp)
{
    gs_csr *A = NULL;
    double *B = NULL;
    int k = 0, bs = 0, block = 0, gk = 0;
    gs_gen_rows *g = NULL;
    char desc[200], desc2[200];
    int64_t *rp = NULL, *start = NULL, *col = NULL;
    double *val = NULL, *Bl = NULL;
    CHECK_OK(gs_gen_problem(gp, &A, &B, &k, &bs, desc, sizeof desc));
    CHECK_OK(gs_gen_rows_open(gp, &g, desc2, sizeof desc2));
    if (!A || !g) goto done;
    CHECK(strcmp(desc, desc2) == 0);
    int64_t rows = 0, nnz = 0;
    gs_gen_rows_info(g, &rows, &nnz, &block, &gk);
    CHECK(rows == A->rows && nnz == A->nnz && block == bs && gk == k);
    rp = malloc(((size_t)rows + 1) * sizeof *rp);
    for (int64_t i = 0; i <= rows; i++) rp[i] = A->rowptr[i];
    for (int64_t r = 0; r <= rows; r += block)
        CHECK_MSG(gs_gen_rows_prefix(g, r) == rp[r], "%s: prefix(%lld)", desc, (long long)r);
    start = malloc(9 * sizeof *start);
    for (int R = 1; R <= 8; R++) {
        gs_part *pt = NULL;
        CHECK_OK(gs_part_balanced(rows, rp, R, block, &pt));
        gs_gen_rows_partition(g, R, block, start);
        CHECK_MSG(pt && memcmp(pt->start, start, (size_t)(R + 1) * sizeof *start) == 0,
                  "%s: partition of %d ranks", desc, R);
        /* every block of that partition built apart: the whole matrix's rows */
        for (int r = 0; pt && r < R; r++) {
            int64_t r0 = start[r], r1 = start[r + 1], nz = rp[r1] - rp[r0];
            int64_t *lrp = malloc(((size_t)(r1 - r0) + 1) * sizeof *lrp);
            col = malloc(((size_t)nz + 1) * sizeof *col);
            val = malloc(((size_t)nz + 1) * sizeof *val);
            CHECK_OK(gs_gen_rows_build(g, r0, r1, lrp, col, val));
            int ok = 1;
            for (int64_t i = r0; i <= r1; i++) ok &= lrp[i - r0] == rp[i] - rp[r0];
            for (int64_t q = 0; q < nz; q++)
                ok &= col[q] == A->colind[rp[r0] + q] && val[q] == A->val[rp[r0] + q];
            CHECK_MSG(ok, "%s: rows [%lld, %lld) of %d ranks", desc, (long long)r0, (long long)r1,
                      R);
            if (k) {
                Bl = malloc(((size_t)(r1 - r0) * (size_t)k + 1) * sizeof *Bl);
                gs_gen_rows_nullspace(g, r0, r1, Bl, r1 - r0);
                for (int j = 0; j < k; j++)
                    ok &= memcmp(Bl + j * (r1 - r0), B + j * rows + r0,
                                 (size_t)(r1 - r0) * sizeof *Bl) == 0;
                CHECK_MSG(ok, "%s: near-nullspace rows [%lld, %lld)", desc, (long long)r0,
                          (long long)r1);
                free(Bl);
                Bl = NULL;
            }
            free(lrp);
            free(col);
            free(val);
            col = NULL;
            val = NULL;
        }
        gs_part_destroy(&pt);
    }
    /* a range that starts and ends inside grid lines */
    if (rows / block > 3) {
        int64_t r0 = block, r1 = rows - block, nz = rp[r1] - rp[r0];
        int64_t *lrp = malloc(((size_t)(r1 - r0) + 1) * sizeof *lrp);
        col = malloc(((size_t)nz + 1) * sizeof *col);
        val = malloc(((size_t)nz + 1) * sizeof *val);
        CHECK_OK(gs_gen_rows_build(g, r0, r1, lrp, col, val));
        CHECK(memcmp(val, A->val + rp[r0], (size_t)nz * sizeof *val) == 0);
        free(lrp);
    }
    if (block > 1) /* not whole grid points */
        CHECK_FAIL(gs_gen_rows_build(g, 1, rows, rp, col, val), GS_ERR_ARG, "whole grid points");
done:
    free(rp);
    free(start);
    free(col);
    free(val);
    gs_csr_destroy(&A);
    gs_free(B);
    gs_gen_rows_close(&g);
}

static void test_builders(void)
{
    static const struct {
        const char *type;
        int64_t size;
        int stencil, dof;
        int64_t nx, ny, nz; /* 0: size */
    } cases[] = {
        {"poisson", 1, 5, 1, 0, 0, 0},
        {"poisson", 7, 5, 1, 0, 0, 0},
        {"poisson", 6, 9, 2, 0, 0, 0},
        {"poisson", 5, 7, 1, 0, 0, 0},
        {"poisson", 4, 27, 3, 0, 0, 0},
        {"anisotropic", 9, 9, 1, 0, 0, 0},
        {"anisotropic", 5, 7, 2, 0, 0, 0},
        {"convdiff", 8, 5, 1, 0, 0, 0},
        {"convdiff", 4, 27, 2, 0, 0, 0},
        {"jumps", 1, 7, 1, 0, 0, 0},
        {"jumps", 7, 7, 1, 0, 0, 0},
        {"rotated", 2, 9, 1, 0, 0, 0},
        {"rotated", 11, 9, 1, 0, 0, 0},
        {"elasticity", 1, 5, 1, 0, 0, 0},
        {"elasticity", 6, 9, 1, 0, 0, 0},
        {"elasticity", 4, 7, 1, 0, 0, 0},
        {"elasticity", 3, 27, 1, 0, 0, 0},
        /* grids that are not cubic: lines of nx points, ny (2D) or ny nz of them */
        {"poisson", 2, 7, 1, 3, 4, 5},
        {"poisson", 4, 27, 2, 0, 0, 7},
        {"poisson", 5, 5, 1, 9, 2, 0},
        {"poisson", 3, 7, 1, 1, 5, 2},
        {"anisotropic", 3, 9, 1, 1, 6, 0},
        {"convdiff", 4, 7, 2, 5, 3, 2},
        {"jumps", 4, 7, 1, 3, 5, 6},
        {"rotated", 2, 9, 1, 7, 3, 0},
        {"elasticity", 2, 9, 1, 5, 3, 0},
        {"elasticity", 3, 7, 1, 2, 4, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gs_gen_params gp = {.type = cases[i].type,
                            .size = cases[i].size,
                            .nx = cases[i].nx,
                            .ny = cases[i].ny,
                            .nz = cases[i].nz,
                            .stencil = cases[i].stencil,
                            .dof = cases[i].dof,
                            .seed = 7,
                            .epsilon = 0.01,
                            .velocity = -3.0,
                            .contrast = 1e3,
                            .block = 2,
                            .angle = 30,
                            .E = 3.0,
                            .nu = 0.3};
        check_builder(&gp);
    }
    gs_gen_rows *g = NULL;
    gs_gen_params pl = {.type = "powerlaw", .size = 50, .dof = 1, .degree = 4, .exponent = 2.5};
    CHECK_OK(gs_gen_rows_open(&pl, &g, NULL, 0));
    CHECK(g == NULL); /* its edges come from one stream over the whole graph */
    gs_gen_params bad = {.type = "poisson", .size = 0, .stencil = 5, .dof = 1};
    CHECK_FAIL(gs_gen_rows_open(&bad, &g, NULL, 0), GS_ERR_ARG, "size 0");
    bad.type = "nosuch";
    CHECK_FAIL(gs_gen_rows_open(&bad, &g, NULL, 0), GS_ERR_ARG, "unknown generator type");
}

/* ---- HDF5 fixtures (rank 0 writes them) ----------------------------------------------- */

/* a 1-D or n x k float64 dataset name of file path (group created as needed) */
static void put_dataset(const char *path, const char *name, const double *v, hsize_t n, hsize_t k)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hsize_t dims[2] = {n, k};
    hid_t sp = H5Screate_simple(k ? 2 : 1, dims, NULL);
    hid_t lc = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lc, 1);
    hid_t ds = H5Dcreate2(f, name, H5T_IEEE_F64LE, sp, lc, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(ds >= 0 && H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Dclose(ds);
    H5Pclose(lc);
    H5Sclose(sp);
    H5Fclose(f);
}

/* The fixture: convdiff 2D 23^2 in /sys with rows unsorted and a duplicate entry split in
 * two (as a writer might leave them), b, x0 and x beside it, and a 2-column /ns; a copy with
 * one index out of range; one with a NaN in row nan_row. x0 is an n x 1 dataset. The clean
 * file: the matrix sorted, b beside it. */
static void write_fixtures(int64_t nan_row)
{
    gs_gen_params gp = {.type = "convdiff", .size = 23, .stencil = 5, .dof = 1, .velocity = 2.0};
    gs_csr *A = NULL, *U = NULL;
    CHECK_OK(gs_gen_matrix(&gp, &A, NULL, 0));
    if (!A) return;
    int32_t n = A->rows;
    /* U: every row reversed; row 5's diagonal split into two equal halves */
    CHECK_OK(gs_csr_create(n, n, A->nnz + 1, &U));
    int32_t w = 0;
    for (int32_t i = 0; i < n; i++) {
        U->rowptr[i] = w;
        for (int32_t q = A->rowptr[i + 1] - 1; q >= A->rowptr[i]; q--) {
            int split = i == 5 && A->colind[q] == i;
            U->colind[w] = A->colind[q];
            U->val[w++] = split ? A->val[q] * 0.5 : A->val[q];
            if (split) {
                U->colind[w] = A->colind[q];
                U->val[w++] = A->val[q] * 0.5;
            }
        }
    }
    U->rowptr[n] = w;
    double *v = malloc((size_t)n * 2 * sizeof *v);
    for (int32_t i = 0; i < n; i++) v[i] = 1.0 + 0.001 * i;
    CHECK_OK(gs_h5_write_problem(g_h5clean, "/", A, v));
    CHECK_OK(gs_h5_write_problem(g_h5, "/sys", U, v));
    for (int32_t i = 0; i < n; i++) v[i] = -0.5 + 1e-3 * i, v[n + i] = 0.25 * (i % 7);
    put_dataset(g_h5, "/sys/x0", v, (hsize_t)n, 1); /* n x 1: a column read by its slices */
    put_dataset(g_h5, "/sys/x", v + n, (hsize_t)n, 0);
    put_dataset(g_h5, "/ns", v, (hsize_t)n, 2); /* n x 2 row-major: entry (i, j) = v[2i + j] */
    int32_t keep = U->colind[7];
    U->colind[7] = n + 3;
    CHECK_OK(gs_h5_write_csr(g_h5bad, "/", U));
    U->colind[7] = keep;
    U->val[U->rowptr[nan_row] + 1] = NAN;
    CHECK_OK(gs_h5_write_csr(g_h5nan, "/m", U));
    free(v);
    gs_csr_destroy(&A);
    gs_csr_destroy(&U);
}

static void test_loads(void)
{
    char sets[2048];
    run_case("problem.generate.type=poisson;problem.generate.size=9;problem.generate.stencil=5;"
             "problem.rhs=ones",
             1);
    run_case("problem.generate.type=poisson;problem.generate.size=6;problem.generate.stencil=27;"
             "problem.generate.dof=2;problem.rhs=random;problem.x0=random",
             1);
    run_case("problem.generate.type=anisotropic;problem.generate.size=8;"
             "problem.generate.stencil=9;problem.generate.epsilon=0.01;problem.rhs=Ax",
             1);
    run_case("problem.generate.type=convdiff;problem.generate.size=5;problem.generate.stencil=7;"
             "problem.generate.dof=3;problem.generate.velocity=4;problem.rhs=random",
             1);
    run_case("problem.generate.type=jumps;problem.generate.size=7;problem.generate.block=2;"
             "problem.generate.contrast=1000;problem.generate.seed=11;problem.rhs=Ax;"
             "problem.x0=random",
             1);
    run_case("problem.generate.type=rotated;problem.generate.size=12;problem.generate.angle=30;"
             "problem.generate.epsilon=0.001",
             1);
    run_case("problem.generate.type=elasticity;problem.generate.size=6;"
             "problem.generate.stencil=9;problem.rhs=Ax",
             1);
    run_case("problem.generate.type=elasticity;problem.generate.size=4;"
             "problem.generate.stencil=7;problem.generate.E=2;problem.generate.nu=0.25;"
             "problem.name=elast3",
             1);
    /* grids that are not cubic (nx, ny, nz; 0: size) */
    run_case("problem.generate.type=poisson;problem.generate.nx=3;problem.generate.ny=4;"
             "problem.generate.nz=5;problem.generate.stencil=7;problem.rhs=random",
             1);
    run_case("problem.generate.type=convdiff;problem.generate.size=4;problem.generate.nz=9;"
             "problem.generate.stencil=27;problem.generate.dof=2;problem.rhs=Ax",
             1);
    run_case("problem.generate.type=jumps;problem.generate.size=5;problem.generate.nx=8;"
             "problem.generate.block=3;problem.rhs=Ax;problem.x0=random",
             1);
    run_case("problem.generate.type=elasticity;problem.generate.size=3;problem.generate.ny=5;"
             "problem.generate.stencil=7",
             1);
    /* fewer grid points than ranks: ranks without rows */
    run_case("problem.generate.type=poisson;problem.generate.size=1;problem.generate.stencil=5;"
             "problem.rhs=random",
             1);
    run_case("problem.generate.type=elasticity;problem.generate.size=1;"
             "problem.generate.stencil=9",
             1);
    /* powerlaw is generated whole on rank 0 and scattered */
    run_case("problem.generate.type=powerlaw;problem.generate.size=300;problem.rhs=random", 0);
    /* HDF5 CSR: b, x0 and x beside the matrix, the group given or found */
    snprintf(sets, sizeof sets, "problem.matrix=%s;problem.rhs=random", g_h5clean);
    run_case(sets, BY_ROWS);
    snprintf(sets, sizeof sets, "problem.matrix=%s;problem.group=/sys", g_h5);
    run_case(sets, BY_ROWS | DUPLICATES);
    snprintf(sets, sizeof sets, "problem.matrix=%s", g_h5);
    run_case(sets, BY_ROWS | DUPLICATES);
    snprintf(sets, sizeof sets, "problem.matrix=%s:/sys;problem.rhs=Ax;problem.x0=random", g_h5);
    run_case(sets, BY_ROWS | DUPLICATES);
    /* vectors from files: read on rank 0, scattered */
    snprintf(sets, sizeof sets,
             "problem.matrix=%s;problem.group=/sys;problem.rhs=%s:/sys/x;problem.x0=%s:/sys/b;"
             "problem.nullspace=%s:/ns",
             g_h5, g_h5, g_h5, g_h5);
    run_case(sets, BY_ROWS | DUPLICATES);
    snprintf(sets, sizeof sets,
             "problem.generate.type=poisson;problem.generate.size=23;"
             "problem.generate.stencil=5;problem.rhs=%s:/sys/b;problem.nullspace=%s:/ns",
             g_h5, g_h5);
    run_case(sets, BY_ROWS);
    /* Matrix Market: read whole on rank 0 */
    snprintf(sets, sizeof sets, "problem.matrix=%s/configs/data/aniso2d_40.mtx.gz", g_srcdir);
    run_case(sets, 0);
    /* errors: one message naming the file (and the global row) */
    snprintf(sets, sizeof sets, "problem.matrix=%s", g_h5bad);
    run_fail(sets, "indices[7]");
    snprintf(sets, sizeof sets, "problem.matrix=%s;problem.group=/m", g_h5nan);
    run_fail(sets, "is nan: the matrix must be finite");
    snprintf(sets, sizeof sets, "problem.matrix=%s;problem.group=/nosuch", g_h5);
    run_fail(sets, "/nosuch not found");
    run_fail("problem.generate.type=jumps;problem.generate.size=5;problem.generate.dof=2", "dof 2");
    snprintf(sets, sizeof sets,
             "problem.generate.type=poisson;problem.generate.size=5;problem.rhs=%s:/sys/b", g_h5);
    run_fail(sets, "problem.rhs");
}

int main(int argc, char **argv)
{
    gs_host_mpi_init(&argc, &argv);
    const int me = gs_comm_rank(), R = gs_comm_size();
    snprintf(g_srcdir, sizeof g_srcdir, "%s", argc > 1 ? argv[1] : "../../..");
    snprintf(g_h5, sizeof g_h5, "problem_dist_np%d.h5", R);
    snprintf(g_h5clean, sizeof g_h5clean, "problem_dist_clean_np%d.h5", R);
    snprintf(g_h5bad, sizeof g_h5bad, "problem_dist_bad_np%d.h5", R);
    snprintf(g_h5nan, sizeof g_h5nan, "problem_dist_nan_np%d.h5", R);
    test_builders();
    /* the NaN in the last rank's rows: its message, with the global row, is everyone's */
    if (me == 0) write_fixtures(23 * 23 - 3);
    CHECK_OK(gs_comm_barrier());
    long live = gs_mem_live();
    test_loads();
    CHECK_MSG(gs_mem_live() == live, "%ld blocks left allocated", gs_mem_live() - live);
    CHECK_OK(gs_comm_barrier());
    if (me == 0) {
        remove(g_h5);
        remove(g_h5clean);
        remove(g_h5bad);
        remove(g_h5nan);
    }
    /* every rank's failures count */
    double fails = gs_test_failures;
    gs_comm_sum(&fails, 1);
    if (me == 0 && fails > 0)
        fprintf(stderr, "test_problem_dist: %g failed checks over %d ranks\n", fails, R);
    int code = gs_test_result("test_problem_dist");
    gs_comm_finalize();
    return fails > 0 ? 1 : code;
}

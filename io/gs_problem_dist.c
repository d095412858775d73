/* gs_problem_dist.c: the problem's rows on every rank (gs_problem_dist.h): built by each rank
 * for the generators whose rows are independent, read by each rank (hyperslabs) from an HDF5
 * CSR group, else read or generated once on rank 0 and scattered.
 *
 * Every phase that may fail on some ranks ends in gs_comm_agree before the next collective
 * call, so all ranks fail together with one message.
 */
#include "gs_problem_dist.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gs_comm.h"
#include "gs_dist_op.h"
#include "gs_gen.h"
#include "gs_h5.h"
#include "gs_mem.h"
#include "gs_time.h"

/* what every rank learns of the problem before the scatter */
typedef struct meta {
    int64_t rows, cols, nnz;
    int block_size, nullspace_k, has_x_exact;
} meta;

/* rank 0: the byte count of every rank's block of an array of `per_row` items of `size` bytes
 * a row (per_nnz: counted by nonzeros instead) */
static void block_bytes(const gs_part *pt, const gs_csr *A, size_t size, int per_nnz, size_t *out)
{
    for (int r = 0; r < pt->nranks; r++) {
        int64_t a = pt->start[r], b = pt->start[r + 1];
        out[r] = size * (size_t)(per_nnz ? A->rowptr[b] - A->rowptr[a] : b - a);
    }
}

gs_status gs_problem_scatter(const gs_problem *p, gs_dproblem **out)
{
    gs_status st = GS_OK;
    const int me = gs_comm_rank(), R = gs_comm_size();
    gs_dproblem *d = NULL;
    meta m;
    int64_t *rp64 = NULL;
    size_t *bytes = NULL;
    int32_t *len = NULL, *col = NULL;
    double *tmp = NULL;
    memset(&m, 0, sizeof m);
    GS_CHECK(gs_alloc_array(1, sizeof *d, "distributed problem", (void **)&d));
    memset(d, 0, sizeof *d);
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *bytes, "scatter", (void **)&bytes));
    if (me == 0) {
        m.rows = p->A->rows;
        m.cols = p->A->cols;
        m.nnz = p->A->nnz;
        m.block_size = p->block_size > 0 ? p->block_size : 1;
        m.nullspace_k = p->nullspace ? p->nullspace_k : 0;
        if (m.rows % m.block_size) m.block_size = 1;
        m.has_x_exact = p->x_exact != NULL;
    }
    GS_CHECK(gs_comm_bcast(&m, sizeof m, 0));
    d->rows = m.rows;
    d->nnz = m.nnz;
    d->block_size = m.block_size;
    d->nullspace_k = m.nullspace_k;
    /* the partition: rank 0 balances the nonzeros, every rank receives it */
    if (me == 0) {
        GS_CHECK(gs_alloc_array((size_t)m.rows + 1, sizeof *rp64, "partition", (void **)&rp64));
        for (int64_t i = 0; i <= m.rows; i++) rp64[i] = p->A->rowptr[i];
        GS_CHECK(gs_part_balanced(m.rows, rp64, R, m.block_size, &d->part));
    } else {
        GS_CHECK(gs_alloc_array(1, sizeof *d->part, "partition", (void **)&d->part));
        d->part->nranks = R;
        d->part->start = NULL;
        GS_CHECK(gs_alloc_array((size_t)R + 1, sizeof(int64_t), "partition",
                                (void **)&d->part->start));
    }
    GS_CHECK(gs_comm_bcast(d->part->start, ((size_t)R + 1) * sizeof(int64_t), 0));
    const int64_t row0 = d->part->start[me];
    const int32_t rows = (int32_t)(d->part->start[me + 1] - row0);
    const gs_csr *A = me == 0 ? p->A : NULL;
    /* row lengths */
    GS_CHECK(gs_alloc_array((size_t)rows + 1, sizeof *len, "scatter", (void **)&len));
    if (me == 0) {
        GS_CHECK(gs_alloc_array((size_t)m.rows + 1, sizeof *tmp, "scatter", (void **)&tmp));
        int32_t *all = (int32_t *)tmp; /* rows int32 fit in rows doubles */
        for (int64_t i = 0; i < m.rows; i++) all[i] = A->rowptr[i + 1] - A->rowptr[i];
        block_bytes(d->part, A, sizeof(int32_t), 0, bytes);
        GS_CHECK(gs_comm_scatterv(all, bytes, len, (size_t)rows * sizeof(int32_t), 0));
        gs_free(tmp);
        tmp = NULL;
    } else {
        GS_CHECK(gs_comm_scatterv(NULL, NULL, len, (size_t)rows * sizeof(int32_t), 0));
    }
    int64_t nnz = 0;
    for (int32_t i = 0; i < rows; i++) nnz += len[i];
    gs_problem_sized(rows, nnz); /* this rank's block, before it arrives */
    GS_CHECK(gs_gcsr_create(row0, rows, m.rows, m.cols, nnz, &d->A));
    for (int32_t i = 0; i < rows; i++) d->A->rowptr[i + 1] = d->A->rowptr[i] + len[i];
    /* columns and values: each rank's block is contiguous in rank 0's arrays */
    GS_CHECK(gs_alloc_array((size_t)nnz + 1, sizeof *col, "scatter", (void **)&col));
    if (me == 0) block_bytes(d->part, A, sizeof(int32_t), 1, bytes);
    GS_CHECK(gs_comm_scatterv(me == 0 ? A->colind : NULL, bytes, col, (size_t)nnz * sizeof(int32_t),
                              0));
    for (int64_t q = 0; q < nnz; q++) d->A->col[q] = col[q];
    if (me == 0) block_bytes(d->part, A, sizeof(double), 1, bytes);
    GS_CHECK(gs_comm_scatterv(me == 0 ? A->val : NULL, bytes, d->A->val,
                              (size_t)nnz * sizeof(double), 0));
    /* b, x0 and the near-nullspace's columns, by rows */
    if (me == 0) block_bytes(d->part, A, sizeof(double), 0, bytes);
    /* page-locked once a device backend runs, as the matrix's rows: the setup uploads them */
    GS_CHECK(gs_alloc_pinned((size_t)rows + 1, sizeof(double), "right-hand side", (void **)&d->b));
    GS_CHECK(gs_alloc_pinned((size_t)rows + 1, sizeof(double), "initial guess", (void **)&d->x0));
    GS_CHECK(gs_comm_scatterv(me == 0 ? p->b : NULL, bytes, d->b, (size_t)rows * sizeof(double),
                              0));
    GS_CHECK(gs_comm_scatterv(me == 0 ? p->x0 : NULL, bytes, d->x0,
                              (size_t)rows * sizeof(double), 0));
    if (m.has_x_exact) {
        GS_CHECK(gs_alloc_array((size_t)rows + 1, sizeof(double), "exact solution",
                                (void **)&d->x_exact));
        GS_CHECK(gs_comm_scatterv(me == 0 ? p->x_exact : NULL, bytes, d->x_exact,
                                  (size_t)rows * sizeof(double), 0));
    }
    if (m.nullspace_k > 0) {
        GS_CHECK(gs_alloc_array((size_t)rows * (size_t)m.nullspace_k + 1, sizeof(double),
                                "near-nullspace", (void **)&d->nullspace));
        for (int k = 0; k < m.nullspace_k; k++)
            GS_CHECK(gs_comm_scatterv(me == 0 ? p->nullspace + (size_t)k * (size_t)m.rows : NULL,
                                      bytes, d->nullspace + (size_t)k * (size_t)rows,
                                      (size_t)rows * sizeof(double), 0));
    }
    *out = d;
    d = NULL;
done:
    gs_free(rp64);
    gs_free(bytes);
    gs_free(len);
    gs_free(col);
    gs_free(tmp);
    gs_dproblem_destroy(&d);
    return st;
}

/* ---- rows built or read by every rank -------------------------------------------------- */

/* how the problem reaches the ranks */
enum { LOAD_WHOLE, LOAD_GEN, LOAD_H5 };

/* What every rank knows of the problem loaded by rows: for an HDF5 matrix where it is (rank 0
 * found it), the sizes, and the name errors give. */
typedef struct rows_src {
    int mode;
    char file[GS_CFG_STR];
    char group[GS_H5_PATH];
    char src[GS_CFG_STR]; /* the file, or the generator's description */
    int64_t rows, cols, nnz;
} rows_src;

/* This rank's rows [r0, r1) of rank 0's whole n x k array `all` (column-major, rank 0 only)
 * into mine (n_local x k). */
static gs_status scatter_cols(const gs_part *pt, const double *all, int64_t n, int k, double *mine)
{
    gs_status st = GS_OK;
    const int me = gs_comm_rank(), R = pt->nranks;
    const int64_t nl = pt->start[me + 1] - pt->start[me];
    size_t *bytes = NULL;
    GS_CHECK(gs_alloc_array((size_t)R, sizeof *bytes, "scatter", (void **)&bytes));
    for (int r = 0; r < R; r++)
        bytes[r] = (size_t)(pt->start[r + 1] - pt->start[r]) * sizeof(double);
    for (int j = 0; j < k; j++)
        GS_CHECK(gs_comm_scatterv(me == 0 ? all + (size_t)j * (size_t)n : NULL, bytes,
                                  mine + (size_t)j * (size_t)nl, (size_t)nl * sizeof(double), 0));
done:
    gs_free(bytes);
    return st;
}

/* Vectors from a file that the configuration names (problem.rhs, problem.x0,
 * problem.nullspace): read once on rank 0 as gs_problem_load reads them, then scattered; *k
 * and desc (may be NULL) are every rank's. Collective. */
static gs_status file_vectors(const gs_config *c, const gs_part *pt, const char *spec,
                              const char *what, int max_k, double **out, int *k, char *desc,
                              size_t desc_len)
{
    gs_status st = GS_OK;
    const int me = gs_comm_rank();
    const int64_t n = pt->start[pt->nranks], nl = pt->start[me + 1] - pt->start[me];
    double *all = NULL;
    int kk = 0;
    *out = NULL;
    if (me == 0) st = gs_problem_read_vectors(c, spec, what, n, max_k, &all, &kk, desc, desc_len);
    GS_CHECK(gs_comm_agree(st));
    GS_CHECK(gs_comm_bcast(&kk, sizeof kk, 0));
    if (desc) GS_CHECK(gs_comm_bcast(desc, desc_len, 0));
    GS_CHECK(gs_alloc_array((size_t)nl * (size_t)kk + 1, sizeof(double), what, (void **)out));
    GS_CHECK(scatter_cols(pt, all, n, kk, *out));
    *k = kk;
done:
    gs_free(all);
    return st;
}

/* b (rhs != 0) or x0 of this rank's rows, as gs_problem_load's load_rhs / load_x0 make the
 * whole vector: auto: the file's dataset b / x0 beside an HDF5 matrix (this rank's slice),
 * else ones / zero; ones, zero; random: the slice of the whole seeded vector; Ax (b only):
 * the row sums of this rank's rows; anything else a file, read on rank 0. desc: every rank's.
 * Collective. */
static gs_status load_vector(const gs_config *c, const rows_src *rs, const gs_dproblem *d, int rhs,
                             double **out, char *desc, size_t desc_len)
{
    gs_status st = GS_OK;
    const int me = gs_comm_rank();
    const int64_t r0 = d->part->start[me], nl = d->part->start[me + 1] - r0;
    const char *r = rhs ? c->problem.rhs : c->problem.x0, *name = rhs ? "b" : "x0";
    double *v = NULL;
    int found = 0, k = 0;
    *out = NULL;
    if (strcmp(r, "auto") == 0) {
        if (rs->mode == LOAD_H5)
            st = gs_h5_read_vector_rows(rs->file, rs->group, name, rs->rows, r0, r0 + nl, &v,
                                        &found);
        GS_CHECK(gs_comm_agree(st));
        if (found) {
            snprintf(desc, desc_len, "file (dataset %s)", name);
            *out = v;
            v = NULL;
            goto done;
        }
        r = rhs ? "ones" : "zero";
    }
    int ax = rhs && strcmp(r, "Ax") == 0;
    if (strcmp(r, "ones") == 0 || strcmp(r, "random") == 0 || ax ||
        (!rhs && strcmp(r, "zero") == 0)) {
        st = gs_alloc_pinned((size_t)nl + 1, sizeof(double), /* uploaded by the setup */
                             rhs ? "right-hand side" : "initial guess", (void **)&v);
        if (st == GS_OK && strcmp(r, "random") == 0)
            gs_gen_random_slice((uint64_t)c->problem.generate.seed + (rhs ? 0 : 1), v, r0, nl);
        for (int64_t i = 0; st == GS_OK && ax && i < nl; i++) {
            double s = 0.0; /* A*ones as gs_csr_spmv_host sums it: v * 1 is v */
            for (int64_t q = d->A->rowptr[i]; q < d->A->rowptr[i + 1]; q++) s += d->A->val[q];
            v[i] = s;
        }
        for (int64_t i = 0; st == GS_OK && (r[0] == 'o' || r[0] == 'z') && i < nl; i++)
            v[i] = r[0] == 'o' ? 1.0 : 0.0;
        gs_str_copy(desc, desc_len, ax ? "Ax (b = A*ones)" : r);
        GS_CHECK(gs_comm_agree(st));
        *out = v;
        v = NULL;
    } else {
        GS_CHECK(file_vectors(c, d->part, r, rhs ? "problem.rhs" : "problem.x0", 1, out, &k, desc,
                              desc_len));
    }
done:
    gs_free(v);
    return st;
}

/* NaN or Inf in this rank's rows, named by their global rows (gs_problem_load's checks) */
static gs_status check_rows(const rows_src *rs, const gs_dproblem *d, const char *rhs,
                            const char *x0)
{
    gs_status st = GS_OK;
    const gs_gcsr *A = d->A;
    for (int32_t i = 0; i < A->rows; i++)
        for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
            if (!isfinite(A->val[q]))
                return gs_problem_bad_entry(rs->src, A->row0 + i, A->col[q], A->val[q]);
    GS_CHECK(gs_problem_check_vector(rs->src, "right-hand side b", rhs, A->row0, A->rows, d->b));
    GS_CHECK(gs_problem_check_vector(rs->src, "initial guess x0", x0, A->row0, A->rows, d->x0));
    GS_CHECK(gs_problem_check_vector(rs->src, "exact solution x", "dataset x", A->row0, A->rows,
                                     d->x_exact));
done:
    return st;
}

/* Decide how the problem is loaded: a generator with a row builder (every rank opens it: *g),
 * an HDF5 CSR group (rank 0 locates it and reads its row pointers: *ptr), or the whole way.
 * rs is every rank's. Collective. */
static gs_status plan(const gs_config *c, rows_src *rs, gs_gen_rows **g, char *desc,
                      size_t desc_len, gs_h5_info *info, int64_t **ptr)
{
    gs_status st = GS_OK;
    memset(rs, 0, sizeof *rs);
    rs->mode = LOAD_WHOLE;
    if (!c->problem.matrix[0]) {
        gs_gen_params gp;
        gs_problem_gen_params(c, &gp);
        GS_CHECK(gs_comm_agree(gs_gen_rows_open(&gp, g, desc, desc_len)));
        if (!*g) goto done; /* powerlaw: generated whole */
        rs->mode = LOAD_GEN;
        gs_str_copy(rs->src, sizeof rs->src, desc);
        gs_gen_rows_info(*g, &rs->rows, &rs->nnz, NULL, NULL);
        rs->cols = rs->rows;
        goto done;
    }
    if (gs_comm_rank() == 0) {
        int yes = 0;
        st = gs_problem_h5_source(c, rs->file, sizeof rs->file, rs->group, sizeof rs->group, &yes);
        if (st == GS_OK && yes)
            st = gs_h5_probe(rs->file, rs->group, info, &rs->rows, &rs->cols, &rs->nnz, ptr);
        /* the csr layout of a square matrix is read by rows; CSC and MATLAB files whole */
        if (st == GS_OK && yes && *ptr && rs->rows == rs->cols) {
            rs->mode = LOAD_H5;
            gs_str_copy(rs->group, sizeof rs->group, info->group);
            gs_str_copy(rs->src, sizeof rs->src, rs->file);
        }
    }
    GS_CHECK(gs_comm_agree(st));
    GS_CHECK(gs_comm_bcast(rs, sizeof *rs, 0));
done:
    return st;
}

/* Rank 0's description of a problem loaded by rows (p->A NULL). */
static gs_status describe(const gs_config *c, const rows_src *rs, const gs_gen_rows *g,
                          const gs_h5_info *info, gs_problem **out)
{
    gs_status st = GS_OK;
    gs_problem *p = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *p, "problem", (void **)&p));
    memset(p, 0, sizeof *p);
    if (rs->mode == LOAD_GEN) {
        gs_str_copy(p->matrix, sizeof p->matrix, rs->src);
        gs_problem_describe_generated(p);
        gs_gen_rows_info(g, NULL, NULL, &p->block_size, &p->nullspace_k);
    } else {
        gs_problem_describe_file(c, p, rs->file, info->group);
        strcpy(p->field, "real");
        strcpy(p->symmetry, "general");
        strcpy(p->layout, "hdf5 ");
        gs_str_copy(p->layout + 5, sizeof p->layout - 5, info->layout);
    }
    if (c->problem.name[0]) gs_str_copy(p->name, sizeof p->name, c->problem.name);
    *out = p;
    p = NULL;
done:
    gs_problem_destroy(&p);
    return st;
}

/* This rank's rows of the matrix: built (generator) or read (HDF5); d->nnz the whole one's. */
static gs_status local_rows(const rows_src *rs, gs_gen_rows *g, gs_dproblem *d)
{
    gs_status st = GS_OK;
    const int me = gs_comm_rank();
    const int64_t r0 = d->part->start[me], r1 = d->part->start[me + 1];
    int64_t *rp = NULL, *col = NULL;
    double *val = NULL;
    if (rs->mode == LOAD_GEN) {
        int64_t nnz = gs_gen_rows_prefix(g, r1) - gs_gen_rows_prefix(g, r0);
        gs_problem_sized(r1 - r0, nnz); /* this rank's rows, before they are built */
        GS_CHECK(gs_gcsr_create(r0, (int32_t)(r1 - r0), rs->rows, rs->cols, nnz, &d->A));
        GS_CHECK(gs_gen_rows_build(g, r0, r1, d->A->rowptr, d->A->col, d->A->val));
        d->nnz = rs->nnz;
        goto done;
    }
    GS_CHECK(gs_h5_read_rows(rs->file, rs->group, r0, r1, &rp, &col, &val));
    gs_problem_sized(r1 - r0, rp[r1 - r0]);
    GS_CHECK(gs_gcsr_create(r0, (int32_t)(r1 - r0), rs->rows, rs->cols, rp[r1 - r0], &d->A));
    memcpy(d->A->rowptr, rp, (size_t)(r1 - r0 + 1) * sizeof *rp);
    memcpy(d->A->col, col, (size_t)rp[r1 - r0] * sizeof *col);
    memcpy(d->A->val, val, (size_t)rp[r1 - r0] * sizeof *val);
done:
    gs_free(rp);
    gs_free(col);
    gs_free(val);
    return st;
}

/* The problem loaded by rows (rs->mode LOAD_GEN or LOAD_H5; ptr: rank 0's HDF5 row pointers). */
static gs_status load_rows(const gs_config *c, const rows_src *rs, gs_gen_rows *g,
                           const gs_h5_info *info, const int64_t *ptr, gs_problem **p,
                           gs_dproblem **out)
{
    gs_status st = GS_OK;
    const int me = gs_comm_rank(), R = gs_comm_size();
    gs_dproblem *d = NULL;
    char rhs[64] = "", x0[64] = "";
    int found = 0, k = 0;
    GS_CHECK(gs_alloc_array(1, sizeof *d, "distributed problem", (void **)&d));
    memset(d, 0, sizeof *d);
    d->rows = rs->rows;
    d->block_size = 1;
    if (g) gs_gen_rows_info(g, NULL, NULL, &d->block_size, NULL);
    if (d->rows % d->block_size) d->block_size = 1;
    /* the partition: a generator's from its row lengths on every rank alike; a file's from
     * the row pointers on rank 0, broadcast */
    if (rs->mode == LOAD_H5 && me == 0) { /* whole grid points when amg.block_size says so */
        int blk = c->amg.block_size > 1 && rs->rows % c->amg.block_size == 0
                      ? (int)c->amg.block_size
                      : 1;
        st = gs_part_balanced(rs->rows, ptr, R, blk, &d->part);
    } else { /* a partition of R ranks, its boundaries filled below */
        st = gs_part_balanced(0, NULL, R, 1, &d->part);
        if (st == GS_OK && rs->mode == LOAD_GEN)
            gs_gen_rows_partition(g, R, d->block_size, d->part->start);
    }
    GS_CHECK(gs_comm_agree(st));
    if (rs->mode == LOAD_H5)
        GS_CHECK(gs_comm_bcast(d->part->start, ((size_t)R + 1) * sizeof(int64_t), 0));
    GS_CHECK(gs_comm_agree(local_rows(rs, g, d)));
    if (rs->mode == LOAD_H5) {
        d->nnz = d->A->rowptr[d->A->rows];
        GS_CHECK(gs_comm_sum_i64(&d->nnz, 1));
    }
    GS_CHECK(load_vector(c, rs, d, 1, &d->b, rhs, sizeof rhs));
    GS_CHECK(load_vector(c, rs, d, 0, &d->x0, x0, sizeof x0));
    const int64_t r0 = d->part->start[me], nl = d->part->start[me + 1] - r0;
    if (rs->mode == LOAD_H5)
        st = gs_h5_read_vector_rows(rs->file, rs->group, "x", rs->rows, r0, r0 + nl, &d->x_exact,
                                    &found);
    GS_CHECK(gs_comm_agree(st));
    if (!d->x_exact && strcmp(c->problem.rhs, "Ax") == 0) { /* b = A*ones: x = ones exactly */
        st = gs_alloc_array((size_t)nl + 1, sizeof(double), "exact solution",
                            (void **)&d->x_exact);
        for (int64_t i = 0; st == GS_OK && i < nl; i++) d->x_exact[i] = 1.0;
        GS_CHECK(gs_comm_agree(st));
    }
    if (gs_config_nullspace_file(c)) { /* the file's vectors replace the generator's */
        GS_CHECK(file_vectors(c, d->part, c->problem.nullspace, "problem.nullspace", 64,
                              &d->nullspace, &k, NULL, 0));
        d->nullspace_k = k;
    } else if (g) {
        gs_gen_rows_info(g, NULL, NULL, NULL, &k);
        if (k > 0)
            st = gs_alloc_array((size_t)nl * (size_t)k + 1, sizeof(double), "near-nullspace",
                                (void **)&d->nullspace);
        if (st == GS_OK && k > 0) gs_gen_rows_nullspace(g, r0, r0 + nl, d->nullspace, nl);
        GS_CHECK(gs_comm_agree(st));
        d->nullspace_k = k;
    }
    GS_CHECK(gs_comm_agree(check_rows(rs, d, rhs, x0)));
    if (me == 0) {
        st = describe(c, rs, g, info, p);
        gs_problem *q = *p;
        if (st == GS_OK) {
            gs_str_copy(q->rhs, sizeof q->rhs, rhs);
            gs_str_copy(q->x0_desc, sizeof q->x0_desc, x0);
            q->nullspace_k = d->nullspace ? d->nullspace_k : 0;
        }
    }
    GS_CHECK(gs_comm_agree(st));
    *out = d;
    d = NULL;
done:
    gs_dproblem_destroy(&d);
    return st;
}

gs_status gs_problem_load_dist(const gs_config *c, gs_problem **p, gs_dproblem **d)
{
    gs_status st = GS_OK;
    gs_gen_rows *g = NULL;
    gs_h5_info info;
    rows_src rs;
    int64_t *ptr = NULL;
    char desc[200];
    double t0 = gs_time_now();
    *p = NULL;
    *d = NULL;
    memset(&info, 0, sizeof info);
    GS_CHECK(plan(c, &rs, &g, desc, sizeof desc, &info, &ptr));
    if (rs.mode != LOAD_WHOLE) {
        st = load_rows(c, &rs, g, &info, ptr, p, d);
        if (st == GS_OK) /* the rows in compact columns too (gs_dproblem.C) */
            st = gs_comm_agree(
                gs_dist_compact_host((*d)->A, (*d)->part, &(*d)->C, &(*d)->halo, &(*d)->nhalo));
        if (st != GS_OK) gs_problem_destroy(p);
        if (st == GS_OK && *p) (*p)->read_s = gs_time_now() - t0;
        goto done;
    }
    /* Matrix Market, .npy, dense datasets, CSC and MATLAB files, powerlaw: rank 0 reads or
     * generates the whole problem and scatters it */
    if (gs_comm_rank() == 0) { /* the whole matrix: not this rank's size (the scatter says it) */
        gs_problem_sized_fn hook = gs_problem_set_sized_hook(NULL);
        st = gs_problem_load(c, p);
        gs_problem_set_sized_hook(hook);
    }
    /* amg.block_size names the grid points of a file's matrix: the ranks' blocks hold whole ones */
    if (st == GS_OK && *p && c->amg.block_size > 1 && (*p)->A->rows % c->amg.block_size == 0)
        (*p)->block_size = (int)c->amg.block_size;
    GS_CHECK(gs_comm_agree(st));
    GS_CHECK(gs_comm_agree(gs_problem_scatter(*p, d)));
    t0 = gs_time_now();
    GS_CHECK(gs_comm_agree(
        gs_dist_compact_host((*d)->A, (*d)->part, &(*d)->C, &(*d)->halo, &(*d)->nhalo)));
    if (*p) (*p)->read_s += gs_time_now() - t0;
done:
    gs_gen_rows_close(&g);
    gs_free(ptr);
    return st;
}

void gs_dproblem_destroy(gs_dproblem **dp)
{
    if (!dp || !*dp) return;
    gs_dproblem *d = *dp;
    gs_part_destroy(&d->part);
    gs_gcsr_destroy(&d->A);
    gs_csr_destroy(&d->C);
    gs_free(d->halo);
    gs_free(d->b);
    gs_free(d->x0);
    gs_free(d->x_exact);
    gs_free(d->nullspace);
    gs_free(d);
    *dp = NULL;
}

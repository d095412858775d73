/* gs_gen_rows.c: the row builder of the generators whose rows are independent of each other
 * (gs_gen_impl.h): a range of rows (a rank's) or all of them (one process) filled by the same
 * per-type routine, the nonzeros before a row in closed form, and the balanced partition
 * computed from those sums instead of from row pointers that would have to exist whole.
 */
#include <stdio.h>
#include <string.h>

#include "gs_gen_impl.h"
#include "gs_mem.h"
#include "gs_problem.h"

void gs_gen_rows_free(gs_gen_rows *g)
{
    if (!g) return;
    gs_free(g->pw);
    gs_free(g->pick);
    gs_free(g->fac);
    g->pw = NULL;
    g->pick = NULL;
    g->fac = NULL;
    g->cube0 = g->cube1 = 0;
}

void gs_gen_rows_close(gs_gen_rows **g)
{
    if (!g || !*g) return;
    gs_gen_rows_free(*g);
    gs_free(*g);
    *g = NULL;
}

void gs_gen_rows_info(const gs_gen_rows *g, int64_t *rows, int64_t *nnz, int *block, int *k)
{
    if (rows) *rows = g->rows;
    if (nnz) *nnz = g->nnz;
    if (block) *block = g->block;
    if (k) *k = g->nullspace ? g->nullspace_k : 0;
}

/* the lines of the grid (nx points each) */
static int64_t line_count(const gs_gen_rows *g)
{
    return g->rows / (g->nx * g->block);
}

/* the entries of one row of each point x0 <= x < x1 of line, summed: the end points in full,
 * the interior ones (all of one length, gs_gen_impl.h) as a product */
static int64_t len_sum(const gs_gen_rows *g, int64_t line, int64_t x0, int64_t x1)
{
    int64_t n = g->nx, s = 0;
    if (x0 >= x1) return 0;
    if (x0 == 0) s += g->row_len(g, line, 0), x0 = 1;
    if (x1 == n && x0 < n) s += g->row_len(g, line, n - 1), x1 = n - 1;
    if (x0 < x1) s += (x1 - x0) * g->row_len(g, line, x0);
    return s;
}

int64_t gs_gen_rows_prefix(const gs_gen_rows *g, int64_t r)
{
    int64_t bl = g->block, n = g->nx, p = r / bl, line = p / n, x = p % n, s = 0;
    if (r >= g->rows) return g->nnz;
    for (int64_t l = 0; l < line; l++) s += bl * len_sum(g, l, 0, n);
    return s + bl * len_sum(g, line, 0, x) + (r % bl) * g->row_len(g, line, x);
}

/* The first row i with nnz(rows < i) + i >= target (rows when none), as gs_part_balanced's
 * scan finds it: whole lines skipped while the next line's first row stays below the target
 * (line and before, the nonzeros of the lines before it, carry over to the next target), then
 * points, then rows. The comparisons are the same doubles as gs_part_balanced's. */
static int64_t first_reaching(const gs_gen_rows *g, double target, int64_t *line, int64_t *before)
{
    int64_t n = g->nx, bl = g->block, lines = line_count(g);
    for (; *line < lines; (*line)++) {
        int64_t ls = bl * len_sum(g, *line, 0, n), end = (*line + 1) * n * bl;
        if ((double)(*before + ls) + (double)end < target) {
            *before += ls;
            continue;
        }
        int64_t acc = *before, x = 0, len = 0;
        for (; x < n; x++, acc += bl * len) {
            len = g->row_len(g, *line, x);
            if (!((double)(acc + bl * len) + (double)((*line * n + x + 1) * bl) < target)) break;
        }
        int64_t i = (*line * n + x) * bl;
        for (int64_t a = 0; x < n && a < bl && (double)(acc + a * len) + (double)i < target; a++)
            i++;
        return i;
    }
    return g->rows;
}

void gs_gen_rows_partition(const gs_gen_rows *g, int nranks, int block, int64_t *start)
{
    const int64_t n = g->rows;
    double total = (double)g->nnz + (double)n;
    int64_t line = 0, before = 0;
    if (block < 1) block = 1;
    start[0] = 0;
    for (int r = 1; r < nranks; r++) {
        double target = total * r / nranks;
        int64_t i = first_reaching(g, target, &line, &before);
        int64_t b = (i + block / 2) / block * block; /* as gs_part_balanced rounds */
        if (b > n) b = n / block * block;
        if (b < start[r - 1]) b = start[r - 1];
        start[r] = b;
    }
    start[nranks] = n;
}

/* Rows [r0, r1) into o: lengths, offsets (checked against `want` nonzeros), then the fill,
 * both over the grid lines the range touches. */
static gs_status build_out(gs_gen_rows *g, int64_t r0, int64_t r1, int64_t want,
                           const gs_gen_out *o, const char *desc)
{
    gs_status st = GS_OK;
    const int64_t bl = g->block, n = g->nx, p0 = r0 / bl, p1 = r1 / bl;
    if (r0 < 0 || r1 > g->rows || r0 > r1 || r0 % bl || r1 % bl)
        GS_FAIL(GS_ERR_ARG,
                "%s: rows [%lld, %lld): expected a range of whole grid points (%lld "
                "rows each) within 0..%lld",
                desc, (long long)r0, (long long)r1, (long long)bl, (long long)g->rows);
    if (g->prepare) GS_CHECK(g->prepare(g, p0, p1));
#pragma omp parallel for schedule(static)
    for (int64_t p = p0; p < p1; p++) {
        int64_t len = g->row_len(g, p / n, p % n);
        for (int64_t a = 0; a < bl; a++) {
            int64_t r = p * bl + a - r0 + 1;
            if (o->rp64)
                o->rp64[r] = len;
            else
                o->rp32[r] = (int32_t)len;
        }
    }
    int64_t sum = 0;
    for (int64_t r = 0; r <= r1 - r0; r++) {
        sum += r ? (o->rp64 ? o->rp64[r] : o->rp32[r]) : 0;
        if (o->rp64)
            o->rp64[r] = sum;
        else
            o->rp32[r] = (int32_t)(sum <= GS_MAX_INDEX ? sum : GS_MAX_INDEX);
    }
    if (sum != want)
        GS_FAIL(GS_ERR_INTERNAL, "%s: counted %lld nonzeros in rows [%lld, %lld), expected %lld",
                desc, (long long)sum, (long long)r0, (long long)r1, (long long)want);
    int64_t l0 = p0 / n, l1 = (p1 + n - 1) / n;
#pragma omp parallel for schedule(static)
    for (int64_t line = l0; line < l1; line++) {
        int64_t x0 = p0 - line * n, x1 = p1 - line * n;
        g->fill(g, line, x0 > 0 ? x0 : 0, x1 < n ? x1 : n, o);
    }
done:
    return st;
}

gs_status gs_gen_rows_build(gs_gen_rows *g, int64_t r0, int64_t r1, int64_t *rowptr, int64_t *col,
                            double *val)
{
    gs_gen_out o = {.r0 = r0, .rp64 = rowptr, .col64 = col, .val = val};
    int64_t want = r0 <= r1 ? gs_gen_rows_prefix(g, r1) - gs_gen_rows_prefix(g, r0) : 0;
    return build_out(g, r0, r1, want, &o, "generator");
}

void gs_gen_rows_nullspace(const gs_gen_rows *g, int64_t r0, int64_t r1, double *B, int64_t ld)
{
    if (g->nullspace) g->nullspace(g, r0, r1, B, ld);
}

gs_status gs_gen_rows_whole(gs_gen_rows *g, const char *desc, gs_csr **out, double **B, int *k)
{
    gs_status st = GS_OK;
    gs_csr *A = NULL;
    double *modes = NULL;
    gs_problem_sized(g->rows, g->nnz); /* before the rows are built */
    GS_CHECK(gs_csr_create(g->rows, g->rows, g->nnz, &A));
    gs_gen_out o = {.r0 = 0, .rp32 = A->rowptr, .col32 = A->colind, .val = A->val};
    GS_CHECK(build_out(g, 0, g->rows, g->nnz, &o, desc));
    if (B && g->nullspace) {
        GS_CHECK(gs_alloc_array((size_t)g->rows * (size_t)g->nullspace_k, sizeof *modes,
                                "near-nullspace", (void **)&modes));
        g->nullspace(g, 0, g->rows, modes, g->rows);
        *B = modes;
        modes = NULL;
        if (k) *k = g->nullspace_k;
    }
    *out = A;
    A = NULL;
done:
    gs_free(modes);
    gs_csr_destroy(&A);
    gs_gen_rows_free(g);
    return st;
}

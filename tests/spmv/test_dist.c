/* test_dist.c: the distributed matrix operations (spmv/ranks/gs_dist.h, gs_dist_op.h) against the
 * one-process reference on the whole matrices (gs_csr_transpose, gs_spgemm_host,
 * gs_csr_spmv_host), on every rank's rows:
 *   - gs_part_balanced / gs_part_owner / gs_part_from_count: boundaries, balance, owners;
 *   - gs_gcsr_from_csr_rows, gs_dist_allgather: the whole matrix back on every rank, to the bit;
 *   - the host table's compact (gs_dist_ops.h): own columns first (j - col0), then the halo
 *     ascending; the halo list;
 *   - gs_dist_op_transpose: y = P^T x through the transpose operator (its rows of other ranks
 *     sent to their owners and added in), within 1e-14 of the row's sum |r_ij x_j|;
 *   - gs_dist_op (rq NULL, and the selector forcing csr, cds, cmrs, suraa, auto): y = A x and
 *     y = P x on this rank's rows within 1e-14 of the row's sum |a_ij x_j| (exactly 0 for an
 *     empty row), through gs_dist_op_spmv and gs_spmat_spmv(gs_dist_op_spmat(D));
 *   - gs_dist_op_fetch_rows: the rows of P at A's halo, to the bit;
 *   - gs_dist_alltoallv_at (host): two arrays, uneven blocks, one to the rank itself.
 * Two matrix pairs: a hand-made 41 x 41 A with empty rows, a random long-range pattern and
 * non-dyadic values, with a 41 x 13 P (0..4 entries a row spread over all columns, empty rows);
 * and the 7 x 7 2D Poisson matrix (gs_gen_matrix) with a 49 x 10 P. Every rank builds them whole
 * and cuts its rows, under the balanced partitions and under hand-made ones with an empty block
 * (the first, a middle and the last rank holding no rows or no coarse columns).
 * Nothing gs_malloc'ed is left at the end. The SpMV checks run in a second pass, after all the
 * others (on one process not started by a launcher, the halo exchange's MPI_Waitall in an MPI
 * build is called before MPI_Init, which Open MPI answers by aborting the process).
 *
 * Runs on one process and under mpirun (3 and 4 ranks). Every check can be made to fail:
 * GS_DIST_TEST_BREAK=k (1..26) spoils what the k-th kind of check looks at on one rank (see
 * brk()); the test must then fail. The transpose only moves values, so R = P^T is checked to
 * the bit; a product's entry is checked against the sum of its terms' sizes (|X| |Y|), not
 * against itself, which may have cancelled to near 0. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_comm.h"
#include "gs_csr.h"
#include "gs_dist.h"
#include "gs_dist_op.h"
#include "gs_dist_ops.h"
#include "gs_gen.h"
#include "gs_host.h"
#include "gs_mem.h"
#include "gs_select.h"
#include "gs_spgemm.h"
#include "gs_test.h"
#include "gs_vec.h"

static int g_me, g_R, g_break;
static char g_case[160];

#define RCHECK(cond, ...)                                                                          \
    do {                                                                                           \
        char rmsg_[512];                                                                           \
        snprintf(rmsg_, sizeof rmsg_, __VA_ARGS__);                                                \
        CHECK_MSG(cond, "[rank %d/%d, %s] %s", g_me, g_R, g_case, rmsg_);                         \
    } while (0)

/* the mutation hook: 1 when GS_DIST_TEST_BREAK is k and this rank is the one to spoil (the
 * first rank that has something to spoil, `have`; decided collectively) */
static int brk(int k, int have)
{
    if (k == 0 || g_break != k) return 0;
    int64_t h = have ? g_me : g_R;
    gs_comm_min_i64(&h, 1);
    return h == g_me;
}

/* ---- deterministic pseudo-random numbers */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static double uval(uint64_t a, uint64_t b) /* in [-1, 1), not dyadic-short */
{
    return (double)(mix(a * 1000003u + b) >> 11) * 0x1.0p-52 - 1.0;
}

/* ---- the whole matrices */

/* 41 x 41: rows with i % 9 == 4 and rows 20, 21 empty; the others a diagonal, i +- 1, i +- 6 and
 * one or two random far columns */
static gs_csr *make_A(void)
{
    enum { N = 41 };
    int32_t ri[N * 8], ci[N * 8];
    double v[N * 8];
    int64_t k = 0;
    for (int32_t i = 0; i < N; i++) {
        if (i % 9 == 4 || i == 20 || i == 21) continue;
        int32_t c[7] = {i, i - 1, i + 1, i - 6, i + 6, (int32_t)(mix(i) % N),
                        (int32_t)(mix(i + 100) % N)};
        int nc = 5 + (int)(mix(i + 200) % 3);
        for (int t = 0; t < nc; t++) {
            if (c[t] < 0 || c[t] >= N) continue;
            ri[k] = i;
            ci[k] = c[t];
            v[k] = t == 0 ? 4.0 + uval(i, 7) : uval(i, (uint64_t)t);
            k++;
        }
    }
    gs_csr *A = NULL;
    CHECK_OK(gs_csr_from_coo(N, N, k, ri, ci, v, &A));
    return A;
}

/* n x m: rows with i % 7 == 3 empty, the others 1..4 entries at random columns */
static gs_csr *make_P(int32_t n, int32_t m, uint64_t seed)
{
    int32_t *ri = malloc((size_t)n * 4 * sizeof *ri), *ci = malloc((size_t)n * 4 * sizeof *ci);
    double *v = malloc((size_t)n * 4 * sizeof *v);
    int64_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        if (i % 7 == 3) continue;
        int nc = 1 + (int)(mix(seed + (uint64_t)i) % 4);
        for (int t = 0; t < nc; t++) {
            ri[k] = i;
            ci[k] = (int32_t)(mix(seed * 31 + (uint64_t)i * 5 + (uint64_t)t) % (uint64_t)m);
            v[k] = uval(seed + (uint64_t)i, (uint64_t)t + 11);
            k++;
        }
    }
    gs_csr *P = NULL;
    CHECK_OK(gs_csr_from_coo(n, m, k, ri, ci, v, &P));
    free(ri);
    free(ci);
    free(v);
    return P;
}

static gs_csr *make_poisson(void)
{
    gs_gen_params p;
    memset(&p, 0, sizeof p);
    p.type = "poisson";
    p.size = 7;
    p.stencil = 5;
    p.dof = 1;
    p.seed = 1;
    gs_csr *A = NULL;
    char desc[256];
    CHECK_OK(gs_gen_matrix(&p, &A, desc, sizeof desc));
    return A;
}

/* ---- partitions */

/* n rows over g_R ranks: those in `empty` (a bit mask) hold none, the others about equal
 * blocks (all of them when every rank is in the mask) */
static gs_part *hand_part(int64_t n, unsigned empty)
{
    gs_part *p = NULL;
    CHECK_OK(gs_alloc_array(1, sizeof *p, "test partition", (void **)&p));
    p->nranks = g_R;
    CHECK_OK(gs_alloc_array((size_t)g_R + 1, sizeof(int64_t), "test partition",
                            (void **)&p->start));
    int full = 0;
    for (int r = 0; r < g_R; r++) full += !(empty >> r & 1);
    if (full == 0) {
        empty = 0;
        full = g_R;
    }
    p->start[0] = 0;
    for (int r = 0, f = 0; r < g_R; r++) {
        if (!(empty >> r & 1)) f++;
        p->start[r + 1] = n * f / full;
    }
    return p;
}

/* gs_part_balanced over A's rows by their nonzeros, or (A NULL) over n rows by rows */
static gs_part *balanced(const gs_csr *A, int64_t n)
{
    int64_t *rp = NULL;
    gs_part *p = NULL;
    if (A) {
        n = A->rows;
        rp = malloc(((size_t)A->rows + 1) * sizeof *rp);
        for (int32_t i = 0; i <= A->rows; i++) rp[i] = A->rowptr[i];
    }
    CHECK_OK(gs_part_balanced(n, rp, g_R, 1, &p));
    free(rp);
    return p;
}

/* ---- comparisons */

/* G's rows against ref's rows [r0, r0 + G->rows): shape, pattern (and ascending columns)
 * exactly, values within tol relative (0: to the bit) to |ref| or, given scale (ref's pattern),
 * to its entries; the number of differences, the first few printed */
static int cmp_rows(const char *what, const gs_gcsr *G, const gs_csr *ref, int64_t r0,
                    double tol, const gs_csr *scale)
{
    int bad = 0;
    for (int32_t i = 0; i < G->rows && bad < 4; i++) {
        int64_t g = r0 + i;
        int64_t q0 = G->rowptr[i], q1 = G->rowptr[i + 1];
        int32_t p0 = ref->rowptr[g], p1 = ref->rowptr[g + 1];
        if (q1 - q0 != p1 - p0) {
            bad++;
            fprintf(stderr, "[rank %d, %s] %s: row %lld has %lld entries, expected %d\n", g_me,
                    g_case, what, (long long)g, (long long)(q1 - q0), p1 - p0);
            continue;
        }
        for (int64_t q = q0, p = p0; q < q1; q++, p++) {
            double a = G->val[q], b = ref->val[p];
            double sc = scale ? scale->val[p] : fabs(b);
            int vok = tol == 0 ? memcmp(&a, &b, sizeof a) == 0 : fabs(a - b) <= tol * sc;
            if (G->col[q] != ref->colind[p] || !vok) {
                bad++;
                fprintf(stderr,
                        "[rank %d, %s] %s: row %lld entry %lld: (col %lld, %.17g), expected "
                        "(col %d, %.17g)\n",
                        g_me, g_case, what, (long long)g, (long long)(q - q0),
                        (long long)G->col[q], a, ref->colind[p], b);
                break;
            }
            if (q > q0 && G->col[q] <= G->col[q - 1]) {
                bad++;
                fprintf(stderr, "[rank %d, %s] %s: row %lld columns not ascending\n", g_me,
                        g_case, what, (long long)g);
                break;
            }
        }
    }
    return bad;
}

/* G holds rows [row0, row0 + rows) of ref, as expected (scale: see cmp_rows) */
static void check_gcsr(const char *what, const gs_gcsr *G, const gs_csr *ref, int64_t row0,
                       int64_t rows, double tol, const gs_csr *scale)
{
    RCHECK(G != NULL, "%s: no result", what);
    if (!G) return;
    RCHECK(G->row0 == row0 && G->rows == rows && G->grows == ref->rows &&
               G->gcols == ref->cols && G->rowptr[0] == 0,
           "%s: rows %lld + %d of %lld x %lld (rowptr[0] %lld), expected %lld + %lld of %d x %d",
           what, (long long)G->row0, G->rows, (long long)G->grows, (long long)G->gcols,
           (long long)G->rowptr[0], (long long)row0, (long long)rows, ref->rows, ref->cols);
    if (G->row0 != row0 || G->rows != rows || G->rowptr[0] != 0) return;
    RCHECK(cmp_rows(what, G, ref, row0, tol, scale) == 0, "%s: rows differ (above)", what);
}

/* ---- 8. partitions */

static void test_partitions(void)
{
    snprintf(g_case, sizeof g_case, "partitions");
    const int64_t sizes[] = {0, 1, 2, 7, 41, 100, 1001};
    int bad = 0, badbal = 0, badown = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int64_t n = sizes[s];
        int64_t *rp = malloc(((size_t)n + 1) * sizeof *rp);
        int64_t maxw = 1;
        rp[0] = 0; /* uneven rows: 0..9 nonzeros, some long ones */
        for (int64_t i = 0; i < n; i++) {
            int64_t len = i % 13 == 5 ? 40 : (int64_t)(mix((uint64_t)i) % 10);
            rp[i + 1] = rp[i] + len;
            if (len + 1 > maxw) maxw = len + 1;
        }
        for (int nr = 1; nr <= 9; nr++)
            for (int block = 1; block <= 4; block++)
                for (int w = 0; w < 2; w++) {
                    gs_part *p = NULL;
                    CHECK_OK(gs_part_balanced(n, w ? rp : NULL, nr, block, &p));
                    if (!p) continue;
                    if (brk(16, 1) && n == 41 && nr == 3 && block == 2) p->start[1]++;
                    int ok = p->nranks == nr && p->start[0] == 0 && p->start[nr] == n;
                    for (int r = 1; r < nr; r++)
                        ok = ok && p->start[r] >= p->start[r - 1] && p->start[r] <= n &&
                             p->start[r] % block == 0;
                    if (!ok && bad++ < 3) {
                        fprintf(stderr, "gs_part_balanced(n %lld, %s, %d ranks, block %d):",
                                (long long)n, w ? "rowptr" : "NULL", nr, block);
                        for (int r = 0; r <= nr; r++)
                            fprintf(stderr, " %lld", (long long)p->start[r]);
                        fputc('\n', stderr);
                    }
                    /* balance (block 1): every boundary within one row's weight of its target */
                    if (ok && block == 1) {
                        double total = (double)(w ? rp[n] : 0) + (double)n;
                        for (int r = 1; r < nr; r++) {
                            int64_t b = p->start[r];
                            double wb = (double)(w ? rp[b] : 0) + (double)b;
                            double tgt = total * r / nr;
                            if (g_break == 23 && n == 100 && nr == 3) wb += 2.0 * (double)maxw;
                            if (fabs(wb - tgt) > (double)(w ? maxw : 1) && badbal++ < 3)
                                fprintf(stderr, "gs_part_balanced(n %lld, %s, %d ranks): "
                                        "boundary %d at weight %g, target %g\n", (long long)n,
                                        w ? "rowptr" : "NULL", nr, r, wb, tgt);
                        }
                    }
                    /* the owner of every row, the boundaries included */
                    if (ok && p->start[nr] > 0) {
                        for (int64_t g = 0; g < n; g++) {
                            int o = gs_part_owner(p, g);
                            if (brk(17, 1) && n == 41 && nr == 4 && g == p->start[1]) o--;
                            if (o < 0 || o >= nr || !(p->start[o] <= g && g < p->start[o + 1])) {
                                if (badown++ >= 3) continue;
                                fprintf(stderr, "gs_part_owner(row %lld) = %d; starts",
                                        (long long)g, o);
                                for (int r = 0; r <= nr; r++)
                                    fprintf(stderr, " %lld", (long long)p->start[r]);
                                fputc('\n', stderr);
                            }
                        }
                    }
                    gs_part_destroy(&p);
                }
        free(rp);
    }
    RCHECK(bad == 0, "%d partitions with bad boundaries", bad);
    RCHECK(badbal == 0, "%d unbalanced boundaries", badbal);
    RCHECK(badown == 0, "%d wrong owners", badown);
    /* owners in hand-made partitions with empty blocks (first, middle, last, neighbours) */
    {
        const int64_t st[][6] = {{0, 0, 5, 5, 9, 12}, {0, 3, 3, 3, 7, 12},
                                 {0, 4, 8, 12, 12, 12}, {0, 0, 0, 0, 0, 12}};
        int badh = 0;
        for (int c = 0; c < 4; c++) {
            gs_part p = {5, (int64_t *)st[c]};
            for (int64_t g = 0; g < 12; g++) {
                int o = gs_part_owner(&p, g);
                if (brk(17, 1) && c == 1 && g == 3) o = 1;
                if (!(o >= 0 && o < 5 && st[c][o] <= g && g < st[c][o + 1]) && badh++ < 3)
                    fprintf(stderr, "gs_part_owner(case %d, row %lld) = %d\n", c, (long long)g,
                            o);
            }
        }
        RCHECK(badh == 0, "%d wrong owners with empty blocks", badh);
    }
    /* gs_part_from_count: rank r holds 3 r + (r == 1 ? 0 : 2) rows */
    {
        int64_t mine = 3 * g_me + (g_me == 1 ? 0 : 2);
        gs_part *p = NULL;
        CHECK_OK(gs_part_from_count(mine, &p));
        if (p) {
            if (brk(19, 1)) p->start[g_R]++;
            int ok = p->nranks == g_R && p->start[0] == 0;
            for (int r = 0; r < g_R && ok; r++)
                ok = p->start[r + 1] - p->start[r] == 3 * r + (r == 1 ? 0 : 2);
            RCHECK(ok, "gs_part_from_count: wrong starts");
            gs_part_destroy(&p);
        }
    }
}

/* ---- 5. allgather */

static void test_allgather(const char *what, const gs_gcsr *G, const gs_part *p, const gs_csr *ref)
{
    gs_csr *F = NULL;
    CHECK_OK(gs_dist_allgather(G, p, &F));
    if (!F) return;
    if (brk(9, F->nnz > 0)) F->val[F->nnz / 2] *= 1 + 0x1p-52;
    if (brk(10, F->nnz > 0)) F->colind[F->nnz - 1] = (F->colind[F->nnz - 1] + 1) % F->cols;
    int ok = F->rows == ref->rows && F->cols == ref->cols && F->nnz == ref->nnz;
    RCHECK(ok, "allgather %s: %d x %d, %d nonzeros; expected %d x %d, %d", what, F->rows,
           F->cols, F->nnz, ref->rows, ref->cols, ref->nnz);
    if (ok) {
        RCHECK(!memcmp(F->rowptr, ref->rowptr, ((size_t)ref->rows + 1) * sizeof(int32_t)),
               "allgather %s: rowptr differs", what);
        int q = 0;
        while (q < ref->nnz && F->colind[q] == ref->colind[q] &&
               !memcmp(&F->val[q], &ref->val[q], sizeof(double)))
            q++;
        RCHECK(q == ref->nnz, "allgather %s: entry %d is (col %d, %.17g), expected (%d, %.17g)",
               what, q, q < ref->nnz ? F->colind[q] : -1, q < ref->nnz ? F->val[q] : 0.0,
               q < ref->nnz ? ref->colind[q] : -1, q < ref->nnz ? ref->val[q] : 0.0);
    }
    gs_csr_destroy(&F);
}

/* ---- 6. compact */

/* the halo columns of ref's rows [r0, r0 + rows) outside [c0, c0 + nc), ascending; count */
static int32_t expected_halo(const gs_csr *ref, int64_t r0, int64_t rows, int64_t c0, int64_t nc,
                             int64_t *h)
{
    char *seen = calloc((size_t)ref->cols + 1, 1);
    for (int32_t q = ref->rowptr[r0]; q < ref->rowptr[r0 + rows]; q++)
        if (ref->colind[q] < c0 || ref->colind[q] >= c0 + nc) seen[ref->colind[q]] = 1;
    int32_t n = 0;
    for (int32_t j = 0; j < ref->cols; j++)
        if (seen[j]) h[n++] = j;
    free(seen);
    return n;
}

static void test_compact(const char *what, const gs_gcsr *G, const gs_csr *ref, int64_t c0,
                         int32_t nc)
{
    gs_csr *C = NULL;
    int64_t *halo = NULL, *eh = malloc(((size_t)ref->cols + 1) * sizeof *eh);
    int32_t nh = -1;
    int32_t enh = expected_halo(ref, G->row0, G->rows, c0, nc, eh);
    const gs_dist_ops *ops = gs_backend_module(GS_LOC_HOST, GS_MODULE_DIST);
    CHECK_OK(ops->compact(G->rows, G->rowptr, G->col, G->val, c0, nc, &C, &halo, &nh));
    if (C) {
        if (brk(11, C->nnz > 0)) C->colind[0] ^= 1;
        if (brk(12, nh > 0)) halo[nh - 1]++;
        RCHECK(nh == enh, "compact %s: %d halo columns, expected %d", what, nh, enh);
        int hok = nh == enh;
        for (int32_t k = 0; k < enh && hok; k++) hok = halo[k] == eh[k];
        RCHECK(hok, "compact %s: wrong halo list", what);
        RCHECK(C->rows == G->rows && C->cols == nc + enh && C->nnz == G->rowptr[G->rows],
               "compact %s: %d x %d, %d nonzeros; expected %d x %d, %lld", what, C->rows,
               C->cols, C->nnz, G->rows, nc + enh, (long long)G->rowptr[G->rows]);
        /* each row: own columns j - c0 ascending, then halo places ascending, values moved */
        int bad = 0;
        int64_t *ecol = malloc(((size_t)ref->cols + 1) * sizeof *ecol);
        double *eval = malloc(((size_t)ref->cols + 1) * sizeof *eval);
        for (int32_t i = 0; i < G->rows && hok && C->rows == G->rows && !bad; i++) {
            int64_t g = G->row0 + i, k = 0;
            for (int pass = 0; pass < 2; pass++)
                for (int32_t p = ref->rowptr[g]; p < ref->rowptr[g + 1]; p++) {
                    int64_t j = ref->colind[p];
                    int own = j >= c0 && j < c0 + nc;
                    if (own != (pass == 0)) continue;
                    int64_t e = own ? j - c0 : -1;
                    for (int32_t t = 0; t < enh && !own; t++)
                        if (eh[t] == j) e = nc + t;
                    ecol[k] = e;
                    eval[k++] = ref->val[p];
                }
            if (C->rowptr[i + 1] - C->rowptr[i] != k) {
                bad++;
                fprintf(stderr, "[rank %d, %s] compact %s: row %lld has %d entries, expected "
                        "%lld\n", g_me, g_case, what, (long long)g,
                        C->rowptr[i + 1] - C->rowptr[i], (long long)k);
                break;
            }
            for (int64_t t = 0; t < k; t++) {
                int32_t q = C->rowptr[i] + (int32_t)t;
                if (C->colind[q] != ecol[t] || memcmp(&C->val[q], &eval[t], sizeof(double))) {
                    bad++;
                    fprintf(stderr, "[rank %d, %s] compact %s: row %lld entry %lld is (%d, "
                            "%.17g), expected (%lld, %.17g)\n", g_me, g_case, what,
                            (long long)g, (long long)t, C->colind[q], C->val[q],
                            (long long)ecol[t], eval[t]);
                    break;
                }
            }
        }
        RCHECK(bad == 0, "compact %s: rows differ (above)", what);
        free(ecol);
        free(eval);
    }
    free(eh);
    gs_free(halo);
    gs_csr_destroy(&C);
}

/* ---- 7. the SpMV form */

static int64_t g_ran[8], g_fell; /* diagonal blocks run in each format; fallbacks to csr */

/* the rows [r0, r0 + rows) of y that differ from f yref (yref = ref x) by more than rounding;
 * the first three printed */
static int wrong_values(const gs_csr *ref, const double *x, const double *yref, double f,
                        const double *y, int64_t r0, int64_t rows, const char *what,
                        const char *how)
{
    int bad = 0;
    for (int64_t i = 0; i < rows; i++) {
        int64_t g = r0 + i;
        double scale = 0;
        for (int32_t q = ref->rowptr[g]; q < ref->rowptr[g + 1]; q++)
            scale += fabs(ref->val[q] * x[ref->colind[q]]);
        if (!(fabs(y[i] - f * yref[g]) <= 1e-14 * f * scale) && bad++ < 3)
            fprintf(stderr, "[rank %d, %s] op %s (%s): y[%lld] = %.17g, expected %.17g\n", g_me,
                    g_case, what, how, (long long)g, y[i], f * yref[g]);
    }
    return bad;
}

/* x's slice, y = M x through both entry points; against yref's rows [r0, r0 + rows) */
static void test_op(const char *what, const gs_gcsr *G, const gs_part *cp, const gs_csr *ref,
                    const gs_select_request *rq, int brk_id)
{
    const int64_t c0 = cp->start[g_me], nc = cp->start[g_me + 1] - c0;
    const int64_t r0 = G->row0, rows = G->rows;
    double *x = malloc(((size_t)ref->cols + 1) * sizeof *x);
    double *yref = malloc(((size_t)ref->rows + 1) * sizeof *yref);
    double *y = malloc(((size_t)rows + 1) * sizeof *y);
    for (int32_t j = 0; j < ref->cols; j++) x[j] = cos(0.37 * j + 0.1) + 0.01 * j;
    gs_csr_spmv_host(ref, x, yref);
    gs_dist_op *D = NULL;
    CHECK_OK(gs_dist_op_create(G, cp, GS_LOC_HOST, rq, 0, &D));
    if (!D) {
        free(x);
        free(yref);
        free(y);
        return;
    }
    int64_t *eh = malloc(((size_t)ref->cols + 1) * sizeof *eh);
    int32_t enh = expected_halo(ref, r0, rows, c0, nc, eh);
    if (brk(21, enh > 0) && !rq) eh[enh - 1]++;
    int hok = D->nhalo == enh;
    for (int32_t k = 0; k < enh && hok; k++) hok = D->halo[k] == eh[k];
    RCHECK(D->rows == rows && D->cols == nc && D->row0 == r0 && D->col0 == c0 && hok,
           "op %s: rows %d at %lld, cols %d at %lld, %d halo; expected %lld at %lld, %lld at "
           "%lld, %d halo%s", what, D->rows, (long long)D->row0, D->cols, (long long)D->col0,
           D->nhalo, (long long)rows, (long long)r0, (long long)nc, (long long)c0, enh,
           hok ? "" : " (or the halo list differs)");
    if (rq && rq->format && strcmp(rq->format, "auto") != 0) {
        gs_format f;
        CHECK_OK(gs_format_parse(rq->format, &f));
        if (brk(22, 1)) f = f == GS_FORMAT_CSR ? GS_FORMAT_CDS : GS_FORMAT_CSR;
        RCHECK(D->sel.format == f || D->sel.fell_back, "op %s: format %s runs, not %s (%s)",
               what, gs_format_name(D->sel.format), gs_format_name(f), D->sel.reason);
    }
    if (D->sel.format >= 0 && D->sel.format < 8) g_ran[D->sel.format]++;
    g_fell += D->sel.fell_back != 0;
    const gs_spmat *M = gs_dist_op_spmat(D);
    RCHECK(M->rows == rows && M->cols == nc, "op %s: view is %lld x %lld", what,
           (long long)M->rows, (long long)M->cols);
    gs_vec *vx = NULL, *vy = NULL;
    CHECK_OK(gs_vec_create(nc, GS_LOC_HOST, &vx));
    CHECK_OK(gs_vec_create(rows, GS_LOC_HOST, &vy));
    CHECK_OK(gs_vec_set_host(vx, x + c0));
    for (int round = 0; round < 3; round++) { /* op_spmv, the view, op_spmv again */
        for (int64_t i = 0; i < rows; i++) y[i] = 12345.0;
        CHECK_OK(gs_vec_set_host(vy, y));
        if (round == 1)
            CHECK_OK(gs_spmat_spmv(M, vx, vy));
        else
            CHECK_OK(gs_dist_op_spmv(D, vx, vy));
        CHECK_OK(gs_vec_get_host(vy, y));
        if (brk(brk_id, rows > 0) && round == 1) y[rows - 1] += 1e-12 * (1 + fabs(y[rows - 1]));
        int bad = wrong_values(ref, x, yref, 1.0, y, r0, rows, what,
                               round == 1 ? "gs_spmat_spmv" : "gs_dist_op_spmv");
        RCHECK(bad == 0, "op %s: %d wrong values of y (round %d)", what, bad, round);
    }
    { /* the compact rows, doubled, in one product after the halo (gs_dist_op_whole_like):
         2 y on the same plan, twice (its exchanges counted like D's) */
        gs_csr *W = NULL;
        gs_dist_op *DW = NULL;
        CHECK_OK(gs_csr_copy(D->compact, &W));
        for (int32_t q = 0; W && q < W->nnz; q++) W->val[q] *= 2.0;
        CHECK_OK(gs_dist_op_whole_like(&W, D, &DW));
        RCHECK(!W && DW && gs_dist_op_spmat(DW)->rows == rows && gs_dist_op_spmat(DW)->cols == nc,
               "op %s: the whole-rows operator not made or its view not %lld x %lld", what,
               (long long)rows, (long long)nc);
        for (int k = 0; DW && k < 2; k++) {
            for (int64_t i = 0; i < rows; i++) y[i] = 12345.0;
            CHECK_OK(gs_vec_set_host(vy, y));
            CHECK_OK(gs_spmat_spmv(gs_dist_op_spmat(DW), vx, vy));
            CHECK_OK(gs_vec_get_host(vy, y));
            int bad = wrong_values(ref, x, yref, 2.0, y, r0, rows, what, "whole rows");
            RCHECK(bad == 0, "op %s: %d wrong values of y from the whole rows", what, bad);
        }
        gs_dist_op_destroy(&DW);
    }
    gs_vec_destroy(&vx);
    gs_vec_destroy(&vy);
    gs_dist_op_destroy(&D);
    free(eh);
    free(x);
    free(yref);
    free(y);
}

/* R = P^T as an operator (gs_dist_op_transpose): y = R x on this rank's coarse rows against
 * RT x, x on the fine rows (P's rows by rp, its columns by cp) */
static void test_transpose_op(const gs_gcsr *Pg, const gs_part *cp, const gs_csr *RT)
{
    const int64_t c0 = cp->start[g_me], nc = cp->start[g_me + 1] - c0;
    const int64_t r0 = Pg->row0, nr = Pg->rows;
    double *x = malloc(((size_t)RT->cols + 1) * sizeof *x);
    double *yref = malloc(((size_t)RT->rows + 1) * sizeof *yref);
    double *y = malloc(((size_t)nc + 1) * sizeof *y);
    for (int32_t j = 0; j < RT->cols; j++) x[j] = sin(0.41 * j + 0.3) + 0.02 * j;
    gs_csr_spmv_host(RT, x, yref);
    gs_dist_op *DP = NULL, *DR = NULL;
    gs_vec *vx = NULL, *vy = NULL;
    CHECK_OK(gs_dist_op_create(Pg, cp, GS_LOC_HOST, NULL, 0, &DP));
    if (DP) CHECK_OK(gs_dist_op_transpose(DP, NULL, 0, &DR));
    if (DR) {
        RCHECK(DR->rows == nc && DR->cols == nr && DR->row0 == c0 && DR->col0 == r0,
               "transpose op: %d x %d at %lld, %lld; expected %lld x %lld at %lld, %lld",
               DR->rows, DR->cols, (long long)DR->row0, (long long)DR->col0, (long long)nc,
               (long long)nr, (long long)c0, (long long)r0);
        CHECK_OK(gs_vec_create(nr, GS_LOC_HOST, &vx));
        CHECK_OK(gs_vec_create(nc, GS_LOC_HOST, &vy));
        CHECK_OK(gs_vec_set_host(vx, x + r0));
        for (int round = 0; round < 2; round++) { /* twice: the buffers are reused */
            for (int64_t i = 0; i < nc; i++) y[i] = 12345.0;
            CHECK_OK(gs_vec_set_host(vy, y));
            CHECK_OK(gs_spmat_spmv(gs_dist_op_spmat(DR), vx, vy));
            CHECK_OK(gs_vec_get_host(vy, y));
            if (brk(24, nc > 0) && round == 1) y[nc - 1] += 1e-12 * (1 + fabs(y[nc - 1]));
            int bad = 0;
            for (int64_t i = 0; i < nc; i++) {
                int64_t g = c0 + i;
                double scale = 0;
                for (int32_t q = RT->rowptr[g]; q < RT->rowptr[g + 1]; q++)
                    scale += fabs(RT->val[q] * x[RT->colind[q]]);
                if (!(fabs(y[i] - yref[g]) <= 1e-14 * scale) && bad++ < 3)
                    fprintf(stderr, "[rank %d, %s] transpose op: y[%lld] = %.17g, expected "
                            "%.17g\n", g_me, g_case, (long long)g, y[i], yref[g]);
            }
            RCHECK(bad == 0, "transpose op: %d wrong values of y (round %d)", bad, round);
        }
    }
    gs_vec_destroy(&vx);
    gs_vec_destroy(&vy);
    gs_dist_op_destroy(&DR);
    gs_dist_op_destroy(&DP);
    free(x);
    free(yref);
    free(y);
}

/* gs_dist_op_fetch_rows: the rows of P that A's halo names, fetched from their owners (P's rows
 * in compact columns, their global numbers sent), against P's rows in the whole matrix: each
 * row's global columns and values (moved, so to the bit), in any order */
static void test_fetch(const gs_gcsr *Ag, const gs_part *rp, const gs_gcsr *Pg,
                       const gs_part *cp, const gs_csr *P)
{
    gs_dist_op *DA = NULL, *DP = NULL;
    int64_t *frp = NULL, *fg = NULL, nf = -1;
    double *fv = NULL;
    CHECK_OK(gs_dist_op_create(Ag, rp, GS_LOC_HOST, NULL, 0, &DA));
    CHECK_OK(gs_dist_op_create(Pg, cp, GS_LOC_HOST, NULL, 0, &DP));
    if (DA && DP)
        CHECK_OK(gs_dist_op_fetch_rows(DA, DP->compact, DP->col0, DP->cols, DP->halo, &frp, &nf,
                                       &fg, &fv));
    if (frp && fg && fv) {
        RCHECK(frp[0] == 0 && frp[DA->nhalo] == nf, "row fetch: %lld entries told, the offsets "
               "end at %lld", (long long)nf, (long long)frp[DA->nhalo]);
        if (brk(25, frp[DA->nhalo] > 0)) fv[frp[DA->nhalo] - 1] += 1e-12;
        int bad = 0;
        for (int32_t h = 0; h < DA->nhalo; h++) {
            const int64_t g = DA->halo[h];
            const int32_t q0 = P->rowptr[g], q1 = P->rowptr[g + 1];
            int ok = frp[h + 1] - frp[h] == q1 - q0;
            for (int64_t e = frp[h]; ok && e < frp[h + 1]; e++) {
                int found = 0;
                for (int32_t q = q0; q < q1 && !found; q++)
                    found = P->colind[q] == fg[e] && P->val[q] == fv[e];
                ok = found;
            }
            if (!ok && bad++ < 3)
                fprintf(stderr, "[rank %d, %s] fetched row %lld differs from P's\n", g_me, g_case,
                        (long long)g);
        }
        RCHECK(bad == 0, "row fetch: %d of %d rows differ", bad, DA->nhalo);
    }
    gs_free(frp);
    gs_free(fg);
    gs_free(fv);
    gs_dist_op_destroy(&DA);
    gs_dist_op_destroy(&DP);
}

/* gs_dist_alltoallv_at at loc: two arrays; rank s sends rank r ((s + 2 r) % 3) * scale values
 * (a block to itself too), value s * 1e4 + r * 1e2 + i in the first, its negative in the
 * second */
static void test_alltoallv_at(gs_loc loc, size_t scale)
{
    const gs_backend_ops *be = gs_backend_get(loc);
    size_t *sb = calloc((size_t)g_R, sizeof *sb), *rb = calloc((size_t)g_R, sizeof *rb);
    int64_t ns = 0, nr = 0;
    for (int r = 0; r < g_R; r++) {
        sb[r] = (size_t)((g_me + 2 * r) % 3) * scale * sizeof(double);
        rb[r] = (size_t)((r + 2 * g_me) % 3) * scale * sizeof(double);
        ns += (int64_t)(sb[r] / sizeof(double)), nr += (int64_t)(rb[r] / sizeof(double));
    }
    double *s0 = malloc(((size_t)ns + 1) * sizeof *s0), *s1 = malloc(((size_t)ns + 1) * sizeof *s1);
    double *r0 = malloc(((size_t)nr + 1) * sizeof *r0), *r1 = malloc(((size_t)nr + 1) * sizeof *r1);
    void *d[4] = {NULL, NULL, NULL, NULL};
    for (int r = 0, k = 0; r < g_R; r++)
        for (size_t i = 0; i < sb[r] / sizeof(double); i++, k++)
            s0[k] = g_me * 1e4 + r * 1e2 + (double)i, s1[k] = -s0[k];
    snprintf(g_case, sizeof g_case, "alltoallv at the %s, %zu a block", loc == GS_LOC_HOST ?
             "host" : "device", scale);
    const void *snd[2] = {s0, s1};
    void *rcv[2] = {r0, r1};
    if (loc != GS_LOC_HOST) { /* the same through device arrays */
        for (int j = 0; j < 4; j++)
            CHECK_OK(be->alloc(((size_t)(j < 2 ? ns : nr) + 1) * sizeof(double), "test", &d[j]));
        CHECK_OK(be->put(d[0], s0, (size_t)ns * sizeof(double)));
        CHECK_OK(be->put(d[1], s1, (size_t)ns * sizeof(double)));
        snd[0] = d[0], snd[1] = d[1], rcv[0] = d[2], rcv[1] = d[3];
    }
    CHECK_OK(gs_dist_alltoallv_at(loc, 2, snd, sb, rcv, rb));
    if (loc != GS_LOC_HOST) {
        CHECK_OK(be->get(r0, d[2], (size_t)nr * sizeof(double)));
        CHECK_OK(be->get(r1, d[3], (size_t)nr * sizeof(double)));
        for (int j = 0; j < 4; j++) be->free(d[j]);
    }
    if (brk(26, nr > 0)) r1[nr - 1] += 1.0;
    int64_t bad = 0;
    for (int r = 0, k = 0; r < g_R; r++)
        for (size_t i = 0; i < rb[r] / sizeof(double); i++, k++) {
            const double want = r * 1e4 + g_me * 1e2 + (double)i;
            bad += r0[k] != want || r1[k] != -want;
        }
    RCHECK(bad == 0, "alltoallv: %lld of %lld values wrong", (long long)bad, (long long)nr);
    free(sb), free(rb), free(s0), free(s1), free(r0), free(r1);
}

static void test_alltoallv(void)
{
    test_alltoallv_at(GS_LOC_HOST, 1);
}

/* --gpu: the exchange through device arrays (CUDA IPC where the ranks share a node): small, then
 * past the first receive window (16 MB: it grows), small again (the grown window kept), large
 * again; the windows released at the end */
static void test_alltoallv_gpu(void)
{
    const size_t scale[4] = {5, (size_t)1 << 20, 3, (size_t)3 << 19};
    for (int t = 0; t < 4; t++) test_alltoallv_at(GS_LOC_DEVICE, scale[t]);
    gs_dist_peers_release(GS_LOC_DEVICE);
}

/* ---- one matrix pair under one pair of partitions */

/* the SpMV checks run in a second pass (g_ops), after all the others */
static int g_ops;

static void run_case(const char *name, const gs_csr *A, const gs_csr *P, const gs_part *rp,
                     const gs_part *cp)
{
    int n = 0;
    n += snprintf(g_case + n, sizeof g_case - (size_t)n, "%s rows", name);
    for (int r = 0; r <= g_R; r++)
        n += snprintf(g_case + n, sizeof g_case - (size_t)n, "%s%lld", r ? "," : " ",
                      (long long)rp->start[r]);
    n += snprintf(g_case + n, sizeof g_case - (size_t)n, " coarse");
    for (int r = 0; r <= g_R; r++)
        n += snprintf(g_case + n, sizeof g_case - (size_t)n, "%s%lld", r ? "," : " ",
                      (long long)cp->start[r]);
    const int64_t r0 = rp->start[g_me], nr = rp->start[g_me + 1] - r0;
    const int64_t c0 = cp->start[g_me], nc = cp->start[g_me + 1] - c0;
    gs_gcsr *Ag = NULL, *Pg = NULL;
    gs_csr *RT = NULL;
    CHECK_OK(gs_gcsr_from_csr_rows(A, r0, (int32_t)nr, &Ag));
    CHECK_OK(gs_gcsr_from_csr_rows(P, r0, (int32_t)nr, &Pg));
    CHECK_OK(gs_csr_transpose(P, &RT));
    if (!Ag || !Pg || !RT) goto out;
    if (g_ops) goto ops;
    check_gcsr("from_csr_rows A", Ag, A, r0, nr, 0, NULL);
    check_gcsr("from_csr_rows P", Pg, P, r0, nr, 0, NULL);

    /* 5. the whole matrices back */
    test_allgather("A", Ag, rp, A);
    test_allgather("P", Pg, rp, P);
    /* 6. compact: A by its rows' partition, P by the coarse one */
    test_compact("A", Ag, A, r0, (int32_t)nr);
    test_compact("P", Pg, P, c0, (int32_t)nc);
    goto out;
ops:
    /* 7. the SpMV form, A and the rectangular P, the CSR kernel and the selector's formats */
    test_op("A csr kernel", Ag, rp, A, NULL, 13);
    test_op("P csr kernel", Pg, cp, P, NULL, 14);
    test_transpose_op(Pg, cp, RT);
    /* 8. the rows of P at A's halo, fetched */
    test_fetch(Ag, rp, Pg, cp, P);
    {
        const char *fmts[] = {"csr", "cds", "cmrs", "suraa", "auto"};
        for (int f = 0; f < 5; f++) {
            gs_select_request rq;
            memset(&rq, 0, sizeof rq);
            rq.format = fmts[f];
            rq.levels = "";
            gs_format_params_default(&rq.params);
            char what[64];
            snprintf(what, sizeof what, "A %s", fmts[f]);
            test_op(what, Ag, rp, A, &rq, f == 1 ? 15 : 0);
            snprintf(what, sizeof what, "P %s", fmts[f]);
            test_op(what, Pg, cp, P, &rq, f == 2 ? 15 : 0);
        }
    }
out:
    gs_gcsr_destroy(&Ag);
    gs_gcsr_destroy(&Pg);
    gs_csr_destroy(&RT);
}

static void run_pair(const char *name, const gs_csr *A, const gs_csr *P)
{
    /* the balanced partitions, then hand-made ones with empty blocks */
    gs_part *rp = balanced(A, 0), *cp = balanced(NULL, P->cols);
    run_case(name, A, P, rp, cp);
    gs_part_destroy(&rp);
    gs_part_destroy(&cp);
    const unsigned masks[][2] = {{1u << 1, 1u << 0}, {1u << 0, 1u << (g_R - 1)},
                                 {1u << (g_R - 1), 1u << 1 | 1u << 2}};
    for (int c = 0; c < 3; c++) {
        rp = hand_part(A->rows, masks[c][0]);
        cp = hand_part(P->cols, masks[c][1]);
        run_case(name, A, P, rp, cp);
        gs_part_destroy(&rp);
        gs_part_destroy(&cp);
    }
}

int main(int argc, char **argv)
{
    int started = gs_host_mpi_init(&argc, &argv);
    g_me = gs_comm_rank();
    g_R = gs_comm_size();
    if (argc > 1 && strcmp(argv[1], "--gpu") == 0) { /* the device exchange alone */
        int ndev = gs_backend_cuda_devices(NULL);
        int64_t none = ndev <= 0;
        CHECK_OK(gs_comm_max_i64(&none, 1));
        if (none) {
            gs_comm_finalize();
            return 77;
        }
        CHECK_OK(gs_backend_cuda_init(gs_comm_local_rank() % ndev, NULL, 0));
        test_alltoallv_gpu();
        double fails = gs_test_failures;
        gs_comm_sum(&fails, 1);
        int code = gs_test_result("test_dist --gpu");
        gs_comm_finalize();
        return fails > 0 ? 1 : code;
    }
    const char *b = getenv("GS_DIST_TEST_BREAK");
    g_break = b ? atoi(b) : 0;
    long live0 = gs_mem_live();

    test_partitions();
    gs_csr *A = make_A(), *P = make_P(41, 13, 5), *A2 = make_poisson(), *P2 = make_P(49, 10, 9);
    long live1 = gs_mem_live();
    for (g_ops = 0; g_ops < 2; g_ops++) {
        if (g_ops) {
            snprintf(g_case, sizeof g_case, "before the SpMV checks");
            RCHECK(gs_mem_live() == live1, "%ld blocks left allocated", gs_mem_live() - live1);
            if (!started)
                printf("test_dist: MPI not started (no launcher): the distributed SpMV runs as "
                       "rank 0 of 1\n");
            fflush(stdout);
            fflush(stderr);
        }
        if (A && P && A2 && P2) {
            run_pair("A41 P41x13", A, P);
            run_pair("poisson7 P49x10", A2, P2);
        }
        if (g_ops) test_alltoallv(); /* 9. */
    }
    gs_csr_destroy(&A);
    gs_csr_destroy(&P);
    gs_csr_destroy(&A2);
    gs_csr_destroy(&P2);

    if (brk(18, 1)) (void)gs_malloc(8); /* a leak */
    snprintf(g_case, sizeof g_case, "end");
    RCHECK(gs_mem_live() == live0 && gs_mem_live() == 0, "%ld blocks left allocated (%ld at start)",
           gs_mem_live(), live0);
    /* what the diagonal blocks ran in, over all ranks */
    gs_comm_sum_i64(g_ran, 8);
    gs_comm_sum_i64(&g_fell, 1);
    if (g_me == 0) {
        printf("test_dist: %d ranks; diagonal blocks run in", g_R);
        for (int f = 0; f < 8; f++)
            if (g_ran[f]) printf(" %s %lld", gs_format_name((gs_format)f), (long long)g_ran[f]);
        printf(" (%lld fell back to csr)\n", (long long)g_fell);
    }
    /* every rank's failures count */
    double fails = gs_test_failures;
    gs_comm_sum(&fails, 1);
    if (g_me == 0 && fails > 0)
        fprintf(stderr, "test_dist: %g failed checks over %d ranks\n", fails, g_R);
    int code = gs_test_result("test_dist");
    gs_comm_finalize();
    return fails > 0 ? 1 : code;
}

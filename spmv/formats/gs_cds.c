/* gs_cds.c: CDS (Godwin et al. 2012) on the host: block-size detection, conversion from and
 * back to CSR, SpMV (OpenMP over strips of block rows), and the helpers the CUDA side shares.
 * Layout and rules: gs_cds.h. */
#include "gs_cds.h"

#include <stdio.h>
#include <string.h>

#define STRIP_ROWS 512 /* rows of y one host SpMV task keeps in cache */

int gs_cds_block_size(const gs_cds *C)
{
    return C ? C->b : 0;
}
int gs_cds_diagonals(const gs_cds *C)
{
    return C ? C->ndiag : 0;
}
int64_t gs_cds_stored(const gs_cds *C)
{
    return C ? (int64_t)C->ndiag * C->b * C->rows : 0;
}

/* the block size of p's hint when it can be one for A (dividing rows and cols), else 0 */
static int hint_block(const gs_csr *A, const gs_format_params *p)
{
    const int b = p->cds_hint_block;
    if (!p->cds_hint_off || b < 1 || b > GS_CDS_MAX_BLOCK) return 0;
    return A->rows % b == 0 && A->cols % b == 0 ? b : 0;
}

/* the block sizes to try: the forced one (cds_block, else a hint's), or every
 * 1..GS_CDS_DETECT_MAX dividing rows and cols */
gs_status gs_cds_candidates(const gs_csr *A, const gs_format_params *p, int *b, int *n)
{
    const int forced = !p ? 0 : p->cds_block > 0 ? p->cds_block : hint_block(A, p);
    *n = 0;
    if (forced > 0) {
        if (forced > GS_CDS_MAX_BLOCK)
            return GS_ERROR(GS_ERR_UNSUPPORTED,
                            "cds: block size %d (spmv.cds_block) is larger than the %d supported",
                            forced, GS_CDS_MAX_BLOCK);
        if (A->rows % forced != 0 || A->cols % forced != 0)
            return GS_ERROR(GS_ERR_UNSUPPORTED,
                            "cds: block size %d (spmv.cds_block) does not divide the %d x %d "
                            "matrix",
                            forced, A->rows, A->cols);
        b[(*n)++] = forced;
        return GS_OK;
    }
    for (int q = 1; q <= GS_CDS_DETECT_MAX; q++)
        if (A->rows % q == 0 && A->cols % q == 0) b[(*n)++] = q;
    return GS_OK;
}

/* the candidate with the fewest stored values K*b*rows (ties: larger b) within the cap */
int gs_cds_best(const gs_csr *A, int n, const int *b, const int64_t *k)
{
    int best = -1;
    int64_t best_stored = 0;
    for (int q = 0; q < n; q++) {
        int64_t stored = k[q] * b[q] * (int64_t)A->rows;
        if (k[q] > GS_CDS_MAX_DIAGS) continue;
        if (best < 0 || stored < best_stored || (stored == best_stored && b[q] > b[best]))
            best = q, best_stored = stored;
    }
    return best;
}

static long g_detections; /* gs_cds_choose calls: conversions that detected (a test hook) */

long gs_cds_detections(void)
{
    return g_detections;
}

/* pick the candidate with the fewest stored values K*b*rows (ties: larger b); refuse beyond
 * the diagonal cap or the fill limit */
gs_status gs_cds_choose(const gs_csr *A, const gs_format_params *p, int n, const int *b,
                        const int64_t *k, int exact, int *pick)
{
    const double max_fill = p ? p->cds_max_fill : 0.25;
    g_detections++;
    const int best = gs_cds_best(A, n, b, k);
    const int64_t best_stored = best < 0 ? 0 : k[best] * b[best] * (int64_t)A->rows;
    *pick = -1;
    if (best < 0) {
        char list[256];
        size_t w = 0;
        list[0] = '\0';
        for (int q = 0; q < n && w < sizeof list; q++)
            w += (size_t)snprintf(list + w, sizeof list - w, "%sb=%d: %s%lld", q ? ", " : "", b[q],
                                  exact ? "" : ">= ", (long long)k[q]);
        return GS_ERROR(GS_ERR_UNSUPPORTED,
                        "cds: the %d x %d matrix with %d nonzeros has more than %d block "
                        "diagonals at every block size tried (%s): not a structured-grid matrix",
                        A->rows, A->cols, A->nnz, GS_CDS_MAX_DIAGS, list);
    }
    if ((double)best_stored > (1.0 + max_fill) * (double)A->nnz)
        return GS_ERROR(GS_ERR_UNSUPPORTED,
                        "cds: block size b=%d with %lld block diagonals stores %lld values "
                        "(padding included) for %d nonzeros: %.1f%% padding exceeds "
                        "spmv.cds_max_fill = %.1f%%",
                        b[best], (long long)k[best], (long long)best_stored, A->nnz,
                        100.0 * (double)(best_stored - A->nnz) / (double)A->nnz, 100.0 * max_fill);
    *pick = best;
    return GS_OK;
}

/* a CDS struct for A with its host offsets array; the backend adds the value arrays */
gs_status gs_cds_shell(const gs_csr *A, int b, int ndiag, gs_loc loc, gs_cds **out)
{
    gs_status st = GS_OK;
    gs_cds *C = NULL;
    *out = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *C, "CDS matrix", (void **)&C));
    memset(C, 0, sizeof *C);
    C->rows = A->rows, C->cols = A->cols, C->nnz = A->nnz;
    C->b = b;
    C->nbr = A->rows / b, C->nbc = A->cols / b;
    C->ndiag = ndiag;
    C->ld = gs_cds_ld(A->rows);
    C->loc = loc;
    GS_CHECK(gs_alloc_array((size_t)(ndiag > 0 ? ndiag : 1), sizeof *C->off, "CDS offsets",
                            (void **)&C->off));
    *out = C;
    C = NULL;
done:
    gs_cds_free_shell(C);
    return st;
}

void gs_cds_free_shell(gs_cds *C)
{
    if (!C) return;
    gs_free(C->off);
    gs_free(C);
}

/* 1 when p's hint fits A: a block size dividing A (the forced one, if cds_block is set),
 * 1..GS_CDS_MAX_DIAGS ascending offsets inside the block grid, and a fill that gs_cds_choose
 * would accept (a hint that would refuse is not trusted: detection decides) */
static int hint_fits(const gs_csr *A, const gs_format_params *p)
{
    const int b = hint_block(A, p), K = p->cds_hint_ndiag;
    const int32_t *off = p->cds_hint_off;
    if (!b || (p->cds_block > 0 && p->cds_block != b) || K < 1 || K > GS_CDS_MAX_DIAGS ||
        A->nnz == 0)
        return 0;
    const int64_t nbr = A->rows / b, nbc = A->cols / b;
    for (int d = 0; d < K; d++)
        if (off[d] < -(nbr - 1) || off[d] > nbc - 1 || (d > 0 && off[d] <= off[d - 1])) return 0;
    return !((double)K * b * (double)A->rows > (1.0 + p->cds_max_fill) * (double)A->nnz);
}

/* the shell with the hinted offsets, or NULL when there is no hint or it does not fit */
gs_status gs_cds_hint_shell(const gs_csr *A, const gs_format_params *p, gs_loc loc, gs_cds **out)
{
    gs_status st = GS_OK;
    *out = NULL;
    if (!p || !hint_fits(A, p)) return GS_OK;
    GS_CHECK(gs_cds_shell(A, p->cds_hint_block, p->cds_hint_ndiag, loc, out));
    memcpy((*out)->off, p->cds_hint_off, (size_t)p->cds_hint_ndiag * sizeof *(*out)->off);
done:
    return st;
}

double gs_cds_bytes(const void *M)
{
    const gs_cds *C = (const gs_cds *)M;
    return 8.0 * (double)gs_cds_stored(C) + 8.0 * C->rows + 8.0 * C->cols;
}

void gs_cds_describe(const void *M, char *buf, size_t len)
{
    const gs_cds *C = (const gs_cds *)M;
    const int64_t stored = gs_cds_stored(C);
    const double pad = C->nnz > 0 ? 100.0 * (double)(stored - C->nnz) / C->nnz : 0.0;
    snprintf(buf, len, "b=%d, %d block diagonals, %.1f%% padding", C->b, C->ndiag, pad);
}

/* number of distinct block offsets J - I of A at block size b, counting stops above limit;
 * flags: nbr + nbc - 1 bytes, left marking the offsets seen */
static int64_t count_block_diags(const gs_csr *A, int b, int64_t limit, unsigned char *flags)
{
    const int64_t nbr = A->rows / b, nbc = A->cols / b;
    int64_t k = 0;
    memset(flags, 0, (size_t)(nbr + nbc - 1));
    for (int64_t i = 0; i < A->rows; i++) {
        const int64_t shift = nbr - 1 - i / b;
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            unsigned char *f = flags + A->colind[q] / b + shift;
            if (!*f) {
                *f = 1;
                if (++k > limit) return k;
            }
        }
    }
    return k;
}

/* d with off[d] == o in the ascending off[0..K) (o is known to be there) */
static int find_diag(const int32_t *off, int K, int32_t o)
{
    int lo = 0, hi = K - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (off[mid] < o)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* val and present from A's entries; parallel over 32-row groups, so that each present word
 * (32 consecutive rows of one value array) is written by one thread. Returns the entries whose
 * block offset is not among C's (none when the offsets were detected from A). */
static int64_t scatter_host(const gs_csr *A, gs_cds *C)
{
    const int b = C->b, K = C->ndiag;
    const int64_t ngroups = ((int64_t)C->rows + 31) / 32;
    int64_t miss = 0;
#pragma omp parallel for schedule(static) reduction(+ : miss)
    for (int64_t g = 0; g < ngroups; g++) {
        const int64_t i1 = (g + 1) * 32 < C->rows ? (g + 1) * 32 : C->rows;
        for (int64_t i = g * 32; i < i1; i++) {
            const int32_t I = (int32_t)(i / b);
            for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
                const int32_t J = A->colind[q] / b, c = A->colind[q] - J * b;
                const int d = find_diag(C->off, K, J - I);
                if (C->off[d] != J - I) { /* not a diagonal of C (a wrong hint) */
                    miss++;
                    continue;
                }
                const int64_t s = ((int64_t)d * b + c) * C->ld + i;
                C->val[s] = A->val[q];
                C->present[s >> 5] |= 1u << (s & 31);
            }
        }
    }
    return miss;
}

/* the block diagonals of C holding at least one entry (each owns b*ld/32 present words) */
static int diags_used(const gs_cds *C)
{
    const int64_t words = (int64_t)C->b * C->ld / 32;
    int used = 0;
    for (int d = 0; d < C->ndiag; d++)
        for (int64_t w = d * words; w < (d + 1) * words; w++)
            if (C->present[w]) {
                used++;
                break;
            }
    return used;
}

/* C's value and present arrays (zeroed) filled from A; *miss = entries off C's diagonals,
 * *used = C's diagonals that got an entry */
static gs_status fill_host(const gs_csr *A, gs_cds *C, int64_t *miss, int *used)
{
    gs_status st = GS_OK;
    const size_t slots = (size_t)C->ndiag * (size_t)C->b * (size_t)C->ld;
    C->val = (double *)gs_calloc(slots, sizeof *C->val);
    C->present = (uint32_t *)gs_calloc(slots / 32, sizeof *C->present);
    if (!C->val || !C->present)
        GS_FAIL(GS_ERR_NOMEM,
                "out of memory: could not allocate %zu bytes for the CDS arrays (%zu values)",
                slots * sizeof *C->val + slots / 32 * sizeof *C->present, slots);
    *miss = scatter_host(A, C);
    *used = diags_used(C);
done:
    return st;
}

/* detection on the host: the block diagonals of every candidate b[0..n) counted, b chosen (or
 * refused), and the shell holding the chosen b's offsets */
static gs_status detect_host(const gs_csr *A, const gs_format_params *p, const int *cb, int n,
                             gs_cds **out)
{
    gs_status st = GS_OK;
    unsigned char *flags = NULL;
    int pick = 0;
    int64_t ck[GS_CDS_DETECT_MAX], base[GS_CDS_DETECT_MAX + 1];
    *out = NULL;
    base[0] = 0;
    for (int q = 0; q < n; q++) base[q + 1] = base[q] + A->rows / cb[q] + A->cols / cb[q] - 1;
    GS_CHECK(gs_alloc_array((size_t)base[n], 1, "CDS offset flags", (void **)&flags));
#pragma omp parallel for schedule(dynamic, 1)
    for (int q = 0; q < n; q++)
        ck[q] = count_block_diags(A, cb[q], GS_CDS_MAX_DIAGS, flags + base[q]);
    GS_CHECK(gs_cds_choose(A, p, n, cb, ck, 0, &pick));
    GS_CHECK(gs_cds_shell(A, cb[pick], (int)ck[pick], GS_LOC_HOST, out));
    { /* the flags of the chosen b, read in order, are the ascending offsets */
        const unsigned char *f = flags + base[pick];
        int d = 0;
        for (int64_t t = 0; t < base[pick + 1] - base[pick]; t++)
            if (f[t]) (*out)->off[d++] = (int32_t)(t - ((*out)->nbr - 1));
        if (d != (*out)->ndiag)
            GS_FAIL(GS_ERR_INTERNAL, "cds: %d offsets found, %d counted", d, (*out)->ndiag);
    }
done:
    gs_free(flags);
    if (st != GS_OK) gs_cds_free_shell(*out), *out = NULL;
    return st;
}

static void destroy(void *M)
{
    gs_cds *C = (gs_cds *)M;
    if (!C) return;
    gs_free(C->val);
    gs_free(C->present);
    gs_cds_free_shell(C);
}

/* host CSR -> CDS: the hinted offsets when they hold A exactly, else detect b and the block
 * diagonals (or refuse); then the padded arrays */
static gs_status from_csr(const gs_csr *A, const gs_format_params *p, void **M)
{
    gs_status st = GS_OK;
    gs_cds *C = NULL;
    int cb[GS_CDS_DETECT_MAX], n = 0, used = 0;
    int64_t miss = 0;
    *M = NULL;
    GS_CHECK(gs_cds_candidates(A, p, cb, &n));
    if (A->nnz == 0) { /* nothing stored: y = 0 */
        GS_CHECK(gs_cds_shell(A, cb[0], 0, GS_LOC_HOST, &C));
        goto accept;
    }
    GS_CHECK(gs_cds_hint_shell(A, p, GS_LOC_HOST, &C));
    if (C) { /* known offsets, kept when every entry is on one and each has an entry */
        GS_CHECK(fill_host(A, C, &miss, &used));
        if (miss == 0 && used == C->ndiag) goto accept;
        destroy(C);
        C = NULL;
    }
    GS_CHECK(detect_host(A, p, cb, n, &C));
    GS_CHECK(fill_host(A, C, &miss, &used));
    if (miss != 0 || used != C->ndiag)
        GS_FAIL(GS_ERR_INTERNAL, "cds: %lld entries off the %d detected block diagonals, %d used",
                (long long)miss, C->ndiag, used);
accept:
    *M = C;
    C = NULL;
done:
    destroy(C);
    return st;
}

/* row i's count of CSR entries (present slots) */
static int32_t row_count(const gs_cds *C, int64_t i)
{
    int32_t n = 0;
    for (int64_t col = 0; col < (int64_t)C->ndiag * C->b; col++) {
        const int64_t s = col * C->ld + i;
        n += (int32_t)((C->present[s >> 5] >> (s & 31)) & 1u);
    }
    return n;
}

/* CDS -> CSR on the host: the present slots of each row, in ascending column order (offsets
 * ascending, then c), so rows come out sorted */
static gs_status to_csr(const void *M, gs_csr **out)
{
    gs_status st = GS_OK;
    const gs_cds *C = (const gs_cds *)M;
    gs_csr *B = NULL;
    const int b = C->b;
    *out = NULL;
    GS_CHECK(gs_csr_create(C->rows, C->cols, C->nnz, &B));
    B->rowptr[0] = 0;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < C->rows; i++) B->rowptr[i + 1] = row_count(C, i);
    for (int64_t i = 0; i < C->rows; i++) B->rowptr[i + 1] += B->rowptr[i];
    if (B->rowptr[C->rows] != C->nnz)
        GS_FAIL(GS_ERR_INTERNAL, "cds: %d entries marked present, the matrix has %d",
                B->rowptr[C->rows], C->nnz);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < C->rows; i++) {
        int32_t pos = B->rowptr[i];
        const int64_t I = i / b;
        for (int d = 0; d < C->ndiag; d++)
            for (int c = 0; c < b; c++) {
                const int64_t s = ((int64_t)d * b + c) * C->ld + i;
                if (!((C->present[s >> 5] >> (s & 31)) & 1u)) continue;
                B->colind[pos] = (int32_t)((I + C->off[d]) * b + c);
                B->val[pos++] = C->val[s];
            }
    }
    *out = B;
    B = NULL;
done:
    gs_csr_destroy(&B);
    return st;
}

/* y = A*x: strips of block rows in parallel; in a strip, each value array in turn over the
 * block rows whose block column I + o lies inside the matrix (no test in the inner loop) */
static gs_status spmv(const void *M, const double *x, double *y)
{
    const gs_cds *C = (const gs_cds *)M;
    const int b = C->b;
    const int64_t nbr = C->nbr, nbc = C->nbc, strip = (STRIP_ROWS + b - 1) / b;
    const int64_t nstrips = (nbr + strip - 1) / strip;
    if (C->ndiag == 0) {
        for (int64_t i = 0; i < C->rows; i++) y[i] = 0.0;
        return GS_OK;
    }
#pragma omp parallel for schedule(static)
    for (int64_t t = 0; t < nstrips; t++) {
        const int64_t I0 = t * strip, I1 = I0 + strip < nbr ? I0 + strip : nbr;
        for (int64_t i = I0 * b; i < I1 * b; i++) y[i] = 0.0;
        for (int d = 0; d < C->ndiag; d++) {
            const int64_t o = C->off[d];
            const int64_t lo = I0 > -o ? I0 : -o, hi = I1 < nbc - o ? I1 : nbc - o;
            for (int c = 0; c < b; c++) {
                const double *v = C->val + ((int64_t)d * b + c) * C->ld;
                if (b == 1) {
                    for (int64_t I = lo; I < hi; I++) y[I] += v[I] * x[I + o];
                    continue;
                }
                for (int64_t I = lo; I < hi; I++) {
                    const double xv = x[(I + o) * b + c];
                    for (int64_t i = I * b; i < (I + 1) * b; i++) y[i] += v[i] * xv;
                }
            }
        }
    }
    return GS_OK;
}

const gs_format_ops gs_cds_host_ops = {"cds",        from_csr,        to_csr, spmv,
                                       gs_cds_bytes, gs_cds_describe, destroy};

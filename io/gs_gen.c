/* gs_gen.c: problem generators and their dispatch. Grid stencils are row builders
 * (gs_gen_impl.h: row lengths in closed form, a scan, the rows filled straight into CSR by
 * grid lines, whole or a rank's range, gs_gen_rows.c); power-law graphs go through COO; the
 * PDE types (jumps, rotated, elasticity) are built in gs_gen_pde.c.
 *
 * Determinism: random numbers come from splitmix64 / xoshiro256** written here, and the
 * power-law weights use a log/exp built from +, -, *, / only (libm pow differs in the last bit
 * between platforms), so a seed gives the same matrix everywhere.
 */
#include "gs_gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_gen_impl.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* keep a*b+c unfused so results match across machines */
#endif

/* the grid stencil types, which share the grid builder (their order in GENERATORS) */
enum { GEN_POISSON, GEN_ANISO, GEN_CONVDIFF };
static const char *const grid_names[] = {"poisson", "anisotropic", "convdiff"};

/* ------------------------------------------------------------------ random numbers */

#define SM_GAMMA 0x9e3779b97f4a7c15ULL

/* splitmix64 output function for the state z */
static uint64_t splitmix_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* next splitmix64 value of the stream in *s */
static uint64_t splitmix_next(uint64_t *s)
{
    *s += SM_GAMMA;
    return splitmix_mix(*s);
}

static uint64_t rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** state from a seed, expanded by splitmix64 (never all zero) */
void gs_gen_rng_seed(gs_gen_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) r->s[i] = splitmix_next(&seed);
}

/* next xoshiro256** value */
uint64_t gs_gen_rng_next(gs_gen_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return out;
}

/* the top 53 bits of x as a double in [0, 1) */
double gs_gen_unit_double(uint64_t x)
{
    return (double)(x >> 11) * 0x1.0p-53;
}

/* x[i] = 2u - 1 with u the i-th splitmix64 value: exact, so x[i] lies in [-1, 1) */
void gs_gen_random_vector(uint64_t seed, double *x, int64_t n)
{
    gs_gen_random_slice(seed, x, 0, n);
}

void gs_gen_random_slice(uint64_t seed, double *x, int64_t i0, int64_t n)
{
    /* splitmix64's i-th state is seed + (i+1)*gamma, so the stream splits across threads and
     * ranks */
#pragma omp parallel for schedule(static) if (n > 100000)
    for (int64_t i = 0; i < n; i++)
        x[i] =
            2.0 * gs_gen_unit_double(splitmix_mix(seed + (uint64_t)(i0 + i + 1) * SM_GAMMA)) - 1.0;
}

/* ------------------------------------------------------------------ portable log and exp */

#define LN2 0.69314718055994530942

/* ln(x), x > 0, from frexp and the atanh series: basic IEEE operations only */
static double det_log(double x)
{
    int e;
    double m = frexp(x, &e); /* exact: x = m 2^e, m in [0.5, 1) */
    if (m < 0.70710678118654752440) {
        m *= 2.0;
        e--;
    }
    double s = (m - 1.0) / (m + 1.0), s2 = s * s, term = s, sum = 0.0;
    for (int k = 1; k < 40; k += 2) { /* |s| <= 0.172: 20 terms reach full precision */
        sum += term / k;
        term *= s2;
    }
    return 2.0 * sum + e * LN2;
}

/* e^t by t = k ln2 + r, |r| <= ln2/2, and a Taylor series: basic IEEE operations only */
static double det_exp(double t)
{
    double k = floor(t / LN2 + 0.5);
    double r = t - k * LN2, term = 1.0, sum = 1.0;
    for (int i = 1; i < 20; i++) {
        term *= r / i;
        sum += term;
    }
    return ldexp(sum, (int)k);
}

/* ------------------------------------------------------------------ parameters */

/* a*b for a, b >= 0, saturating at INT64_MAX */
int64_t gs_gen_mul_sat(int64_t a, int64_t b)
{
    return (a != 0 && b > INT64_MAX / a) ? INT64_MAX : a * b;
}

/* n = (nx, ny, nz), each size where not set (0); nz = 1 in 2D, where nz must not be set. A
 * point count below 1 names the key it came from (size's message as before when unset). */
gs_status gs_gen_grid_dims(const char *name, const gs_gen_params *p, int dim, int64_t n[3])
{
    static const char *const keys[3] = {"nx", "ny", "nz"};
    const int64_t set[3] = {p->nx, p->ny, p->nz};
    if (dim == 2 && p->nz != 0)
        return GS_ERROR(GS_ERR_ARG, "%s: nz %lld: the grid is 2D (nx, ny only), expected 0", name,
                        (long long)p->nz);
    for (int k = 0; k < dim; k++) {
        n[k] = set[k] != 0 ? set[k] : p->size;
        if (n[k] >= 1) continue;
        if (set[k] != 0)
            return GS_ERROR(GS_ERR_ARG,
                            "%s: %s %lld: expected at least 1 grid point (0: size, the default)",
                            name, keys[k], (long long)set[k]);
        return GS_ERROR(GS_ERR_ARG, "%s: size %lld: expected at least 1 grid point per direction",
                        name, (long long)p->size);
    }
    if (dim == 2) n[2] = 1;
    return GS_OK;
}

int gs_gen_grid_cubic(const int64_t n[3], int dim)
{
    return n[1] == n[0] && (dim == 2 || n[2] == n[0]);
}

void gs_gen_grid_text(const int64_t n[3], int dim, char *buf, size_t len)
{
    if (gs_gen_grid_cubic(n, dim))
        snprintf(buf, len, "%lld^%d", (long long)n[0], dim);
    else if (dim == 2)
        snprintf(buf, len, "%lldx%lld", (long long)n[0], (long long)n[1]);
    else
        snprintf(buf, len, "%lldx%lldx%lld", (long long)n[0], (long long)n[1], (long long)n[2]);
}

int64_t gs_gen_grid_max(const int64_t n[3], int dim)
{
    int64_t m = n[0];
    for (int k = 1; k < dim; k++) m = n[k] > m ? n[k] : m;
    return m;
}

/* ------------------------------------------------------------------ grid stencils */

/* The scalar stencil: offsets in increasing column order (dz, dy, dx ascending) and values. */
typedef struct stencil {
    int dim, count;
    int off[27][3]; /* (dx, dy, dz) */
    double coef[27];
} stencil;

/* 3 for the 7- and 27-point stencils, 2 for the 5- and 9-point ones */
static int stencil_dim(int points)
{
    return points == 7 || points == 27 ? 3 : 2;
}

/* off-diagonal coupling for offset o: -1, or for "anisotropic" the mean of the per-axis
 * weights (epsilon along x, 1 along y and z) over the axes that o moves along */
static double coupling(int kind, double eps, const int *o)
{
    int ax = o[0] != 0, ay = o[1] != 0, az = o[2] != 0;
    if (kind != GEN_ANISO) return -1.0;
    return -(eps * ax + ay + az) / (ax + ay + az);
}

/* index in s->off of offset (dx, dy, dz), -1 when not in the stencil */
static int stencil_find(const stencil *s, int dx, int dy, int dz)
{
    for (int k = 0; k < s->count; k++)
        if (s->off[k][0] == dx && s->off[k][1] == dy && s->off[k][2] == dz) return k;
    return -1;
}

/* convdiff: velocity*(1,1[,1]).grad u, first-order upwind scaled by h^2: per axis add |v|h to
 * the diagonal and -|v|h to the upwind neighbour (-e_k for v > 0, +e_k for v < 0) */
static void add_upwind(stencil *s, double velocity, double h)
{
    int sgn = velocity >= 0 ? -1 : 1, c = stencil_find(s, 0, 0, 0);
    double a = fabs(velocity) * h;
    for (int k = 0; k < s->dim; k++) {
        int o[3] = {0, 0, 0};
        o[k] = sgn;
        s->coef[stencil_find(s, o[0], o[1], o[2])] -= a;
        s->coef[c] += a;
    }
}

/* the stencil of a grid problem; the diagonal is the sum of |off-diagonals| (row sum 0);
 * convdiff's h = 1/(nmax+1), nmax the longest extent (size on a cubic grid) */
static void stencil_build(int kind, int points, const gs_gen_params *p, int64_t nmax, stencil *s)
{
    int full = points == 9 || points == 27, zr = stencil_dim(points) == 3, c = 0;
    double diag = 0.0;
    memset(s, 0, sizeof *s);
    s->dim = stencil_dim(points);
    for (int dz = -zr; dz <= zr; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int l1 = abs(dx) + abs(dy) + abs(dz);
                if (!full && l1 > 1) continue;
                int k = s->count++;
                s->off[k][0] = dx;
                s->off[k][1] = dy;
                s->off[k][2] = dz;
                if (l1 == 0) {
                    c = k;
                    continue;
                }
                s->coef[k] = coupling(kind, p->epsilon, s->off[k]);
                diag -= s->coef[k];
            }
    s->coef[c] = diag;
    if (kind == GEN_CONVDIFF) add_upwind(s, p->velocity, 1.0 / (double)(nmax + 1));
}

/* check the grid parameters of one type; n = the grid's points per direction */
static gs_status grid_check(int kind, const gs_gen_params *p, int64_t n[3])
{
    const char *name = grid_names[kind];
    if (p->stencil != 5 && p->stencil != 9 && p->stencil != 7 && p->stencil != 27)
        return GS_ERROR(GS_ERR_ARG, "%s: stencil %d: expected 5 or 9 (2D), 7 or 27 (3D)", name,
                        p->stencil);
    gs_status st = gs_gen_grid_dims(name, p, stencil_dim(p->stencil), n);
    if (st != GS_OK) return st;
    if (p->dof < 1)
        return GS_ERROR(GS_ERR_ARG, "%s: dof %d: expected at least 1 unknown per grid point", name,
                        p->dof);
    if (kind == GEN_ANISO && !(p->epsilon > 0.0 && isfinite(p->epsilon)))
        return GS_ERROR(GS_ERR_ARG, "anisotropic: epsilon %g: expected a finite value > 0",
                        p->epsilon);
    if (kind == GEN_CONVDIFF && !isfinite(p->velocity))
        return GS_ERROR(GS_ERR_ARG, "convdiff: velocity %g: expected a finite value", p->velocity);
    return GS_OK;
}

/* "poisson 3D 7-point 64^3[ dof 3][ epsilon e | velocity v]" (a grid not cubic: 64x64x128) */
static void grid_describe(int kind, const gs_gen_params *p, const int64_t n[3], char *buf,
                          size_t len)
{
    int dim = stencil_dim(p->stencil);
    char grid[80];
    gs_gen_grid_text(n, dim, grid, sizeof grid);
    int w = snprintf(buf, len, "%s %dD %d-point %s", grid_names[kind], dim, p->stencil, grid);
    if (w < 0 || (size_t)w >= len) return;
    if (p->dof > 1) w += snprintf(buf + w, len - (size_t)w, " dof %d", p->dof);
    if (w < 0 || (size_t)w >= len) return;
    if (kind == GEN_ANISO) snprintf(buf + w, len - (size_t)w, " epsilon %g", p->epsilon);
    if (kind == GEN_CONVDIFF) snprintf(buf + w, len - (size_t)w, " velocity %g", p->velocity);
}

/* span of a coordinate along one axis: itself and the neighbours inside [0, n) */
static int64_t span(int64_t x, int64_t n)
{
    return 1 + (x > 0) + (x < n - 1);
}

/* a row's entries at point x of line: the stencil entries inside the grid (the full stencil:
 * the spans multiplied; the axis stencil: one per axis neighbour inside, plus the centre),
 * each a dof block */
static int64_t grid_row_len(const gs_gen_rows *g, int64_t line, int64_t x)
{
    int64_t sx = span(x, g->nx), sy = span(line % g->ny, g->ny);
    int64_t sz = g->dim == 3 ? span(line / g->ny, g->nz) : 1;
    int full = g->count == 9 || g->count == 27;
    return (full ? sx * sy * sz : sx + sy + sz - 2) * g->block;
}

/* The stencil entries that one grid line (fixed y, z) keeps after the y and z boundaries:
 * x offset, column offset from the point, value. Only the x test is left per point. */
typedef struct line_stencil {
    int count;
    int dx[27];
    int64_t delta[27];
    double coef[27];
} line_stencil;

/* the entries of the stencil that line = y + ny*z keeps */
static void line_setup(const gs_gen_rows *g, int64_t line, line_stencil *ls)
{
    int64_t nx = g->nx, ny = g->ny, y = line % ny, z = line / ny;
    ls->count = 0;
    for (int k = 0; k < g->count; k++) {
        int64_t b = y + g->off[k][1], c = z + g->off[k][2];
        if (b < 0 || b >= ny || c < 0 || c >= g->nz) continue;
        ls->dx[ls->count] = g->off[k][0];
        ls->delta[ls->count] = g->off[k][0] + nx * (g->off[k][1] + ny * g->off[k][2]);
        ls->coef[ls->count++] = g->coef[k];
    }
}

/* 1 when entry j of the line stencil stays inside the grid at x */
static int x_inside(const line_stencil *ls, int j, int64_t x, int64_t n)
{
    return x + ls->dx[j] >= 0 && x + ls->dx[j] < n;
}

/* the rows of points x0..x1-1 of one grid line: entry (p*dof+a, q*dof+b) = L_pq * pw[|a-b|] */
static void grid_fill(const gs_gen_rows *g, int64_t line, int64_t x0, int64_t x1,
                      const gs_gen_out *o)
{
    line_stencil ls;
    int64_t n = g->nx, dof = g->block;
    const double *pw = g->pw;
    line_setup(g, line, &ls);
    for (int64_t x = x0, p = n * line + x0; x < x1; x++, p++) {
        if (dof == 1) { /* the common case without the block loops */
            int64_t pos = gs_gen_out_pos(o, p);
            for (int j = 0; j < ls.count; j++)
                if (x_inside(&ls, j, x, n)) gs_gen_out_put(o, pos++, p + ls.delta[j], ls.coef[j]);
            continue;
        }
        for (int64_t a = 0; a < dof; a++) {
            int64_t pos = gs_gen_out_pos(o, p * dof + a);
            for (int j = 0; j < ls.count; j++) {
                if (!x_inside(&ls, j, x, n)) continue;
                int64_t q = (p + ls.delta[j]) * dof;
                for (int64_t b = 0; b < dof; b++, pos++)
                    gs_gen_out_put(o, pos, q + b, ls.coef[j] * pw[a > b ? a - b : b - a]);
            }
        }
    }
}

/* The row builder of a grid problem: sizes in int64, refused when rows or nnz reach 2^31
 * (the whole matrix's, on any number of ranks), the stencil, the dof block's weights. */
static gs_status grid_setup(int kind, const gs_gen_params *p, const int64_t n[3], const char *desc,
                            gs_gen_rows *g)
{
    gs_status st = GS_OK;
    int dim = stencil_dim(p->stencil), full = p->stencil == 9 || p->stencil == 27;
    int64_t pts = 1, faces = 0, nnz_s = 1;
    double dpts = 1.0;
    stencil s;
    for (int d = 0; d < dim; d++) pts = gs_gen_mul_sat(pts, n[d]), dpts *= (double)n[d];
    g->rows = gs_gen_mul_sat(pts, p->dof);
    if (g->rows > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED,
                "%s: %.4g rows: the 32-bit index limit is 2^31 - 1 = 2147483647", desc,
                dpts * p->dof);
    /* full stencil: (3 n_d - 2) column choices along each direction d, multiplied; 5/7-point:
     * the two neighbours along d are each missing on a face of pts / n_d points */
    for (int d = 0; d < dim; d++) faces += pts / n[d];
    for (int d = 0; d < dim && full; d++) nnz_s *= 3 * n[d] - 2;
    if (!full) nnz_s = (2 * dim + 1) * pts - 2 * faces;
    g->nnz = gs_gen_mul_sat(gs_gen_mul_sat(nnz_s, p->dof), p->dof);
    if (g->nnz > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_UNSUPPORTED,
                "%s: %.4g nonzeros: the 32-bit index limit is 2^31 - 1 = 2147483647", desc,
                (double)nnz_s * p->dof * p->dof);
    g->nx = n[0];
    g->ny = n[1];
    g->nz = n[2];
    g->dim = dim;
    g->block = p->dof;
    stencil_build(kind, p->stencil, p, gs_gen_grid_max(n, dim), &s);
    g->count = s.count;
    memcpy(g->off, s.off, sizeof s.off);
    memcpy(g->coef, s.coef, sizeof s.coef);
    GS_CHECK(
        gs_alloc_array((size_t)p->dof, sizeof *g->pw, "generator block weights", (void **)&g->pw));
    for (int k = 0; k < p->dof; k++) g->pw[k] = ldexp(1.0, -k); /* the block (0.5^|a-b|) */
    g->row_len = grid_row_len;
    g->fill = grid_fill;
done:
    return st;
}

gs_status gs_gen_grid_rows(const gs_gen_params *p, gs_gen_rows *g, char *desc, size_t desc_len)
{
    gs_status st = GS_OK;
    int kind = 0;
    int64_t n[3];
    while (kind < 2 && strcmp(p->type, grid_names[kind]) != 0) kind++;
    GS_CHECK(grid_check(kind, p, n));
    grid_describe(kind, p, n, desc, desc_len);
    GS_CHECK(grid_setup(kind, p, n, desc, g));
done:
    return st;
}

/* ------------------------------------------------------------------ power-law graphs */

/* check the power-law parameters */
static gs_status powerlaw_check(const gs_gen_params *p)
{
    if (p->size < 1)
        return GS_ERROR(GS_ERR_ARG, "powerlaw: size %lld: expected at least 1 node",
                        (long long)p->size);
    if (p->dof != 1)
        return GS_ERROR(GS_ERR_ARG,
                        "powerlaw: dof %d: dof applies to the grid types only, expected 1", p->dof);
    const int64_t ext[3] = {p->nx, p->ny, p->nz};
    static const char *const keys[3] = {"nx", "ny", "nz"};
    for (int k = 0; k < 3; k++)
        if (ext[k] != 0)
            return GS_ERROR(GS_ERR_ARG,
                            "powerlaw: %s %lld: a graph has no grid extents (size is its nodes), "
                            "expected 0",
                            keys[k], (long long)ext[k]);
    if (!(p->degree > 0.0 && isfinite(p->degree)))
        return GS_ERROR(GS_ERR_ARG, "powerlaw: degree %g: expected a finite mean degree > 0",
                        p->degree);
    if (!(p->exponent > 2.0))
        return GS_ERROR(GS_ERR_ARG, "powerlaw: exponent %g: expected a value > 2", p->exponent);
    return GS_OK;
}

/* cum[i] = w_0 + ... + w_i with w_i ~ (i+1)^(-1/(exponent-1)) scaled to mean `degree` and
 * capped at min(sqrt(sum w), n-1) */
static void powerlaw_cumulative(int64_t n, double degree, double exponent, double *cum)
{
    double sum = 0.0, acc = 0.0, total = degree * (double)n;
    double cap = sqrt(total) < (double)(n - 1) ? sqrt(total) : (double)(n - 1);
    for (int64_t i = 0; i < n; i++) {
        cum[i] = det_exp(-det_log((double)(i + 1)) / (exponent - 1.0));
        sum += cum[i];
    }
    double scale = total / sum;
    for (int64_t i = 0; i < n; i++) {
        double w = cum[i] * scale;
        acc += w < cap ? w : cap;
        cum[i] = acc;
    }
}

/* Endpoint sampler: the cumulative weights and a guide table, guide[k] = first i with
 * cum[i] > total*k/n (k = 0..n), which brackets the binary search to about one node. */
typedef struct sampler {
    const double *cum;
    const int32_t *guide;
    int64_t n;
} sampler;

/* the guide table of cum, in one sweep */
static void sampler_guide(const double *cum, int64_t n, int32_t *guide)
{
    int64_t i = 0;
    for (int64_t k = 0; k <= n; k++) {
        double t = cum[n - 1] * ((double)k / (double)n);
        while (i < n - 1 && cum[i] <= t) i++;
        guide[k] = (int32_t)i;
    }
}

/* a node drawn with probability proportional to its weight: the first i with cum[i] > u*total
 * (n-1 when none); the guide only narrows the search, so the result is that of a full one */
static int32_t sampler_pick(const sampler *s, gs_gen_rng *r)
{
    double u = gs_gen_unit_double(gs_gen_rng_next(r)), t = u * s->cum[s->n - 1];
    int64_t k = (int64_t)(u * (double)s->n);
    if (k > s->n - 1) k = s->n - 1;
    int64_t lo = s->guide[k], hi = s->guide[k + 1];
    if (lo > 0 && s->cum[lo - 1] > t) lo = 0; /* rounding put the bracket off: search all */
    if (s->cum[hi] <= t) hi = s->n - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (s->cum[mid] > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return (int32_t)lo;
}

/* Chung-Lu: m edge draws, self loops dropped; A = D - W + I with multi-edges summed */
static gs_status powerlaw_build(const gs_gen_params *p, int64_t m, gs_csr **out)
{
    gs_status st = GS_OK;
    int64_t n = p->size, cap = n + 2 * m, k = n;
    double *cum = NULL, *v = NULL;
    int32_t *guide = NULL, *ri = NULL, *ci = NULL;
    gs_gen_rng rng;
    GS_CHECK(gs_alloc_array((size_t)n, sizeof *cum, "power-law weights", (void **)&cum));
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *guide, "power-law guide", (void **)&guide));
    GS_CHECK(gs_alloc_array((size_t)cap, sizeof *ri, "power-law rows", (void **)&ri));
    GS_CHECK(gs_alloc_array((size_t)cap, sizeof *ci, "power-law columns", (void **)&ci));
    GS_CHECK(gs_alloc_array((size_t)cap, sizeof *v, "power-law values", (void **)&v));
    powerlaw_cumulative(n, p->degree, p->exponent, cum);
    sampler_guide(cum, n, guide);
    sampler smp = {cum, guide, n};
    for (int64_t i = 0; i < n; i++) { /* entries 0..n-1: the diagonal, 1 + degree */
        ri[i] = ci[i] = (int32_t)i;
        v[i] = 1.0;
    }
    gs_gen_rng_seed(&rng, p->seed);
    for (int64_t e = 0; e < m; e++) {
        int32_t i = sampler_pick(&smp, &rng), j = sampler_pick(&smp, &rng);
        if (i == j) continue;
        ri[k] = i;
        ci[k] = j;
        ri[k + 1] = j;
        ci[k + 1] = i;
        v[k] = v[k + 1] = -1.0;
        k += 2;
        v[i] += 1.0;
        v[j] += 1.0;
    }
    GS_CHECK(gs_csr_from_coo(n, n, k, ri, ci, v, out));
done:
    gs_free(cum);
    gs_free(guide);
    gs_free(ri);
    gs_free(ci);
    gs_free(v);
    return st;
}

/* a power-law problem: about size*degree/2 edge draws, refused when nnz could reach 2^31 */
static gs_status powerlaw_gen(const gs_gen_params *p, const char *desc, gs_csr **out)
{
    double draws = (double)p->size * p->degree / 2.0;
    if (p->size > GS_MAX_INDEX || (double)p->size + 2.0 * draws > (double)GS_MAX_INDEX)
        return GS_ERROR(GS_ERR_UNSUPPORTED,
                        "%s: up to %.4g nonzeros: the 32-bit index limit is 2^31 - 1 = "
                        "2147483647",
                        desc, (double)p->size + 2.0 * draws);
    return powerlaw_build(p, (int64_t)llround(draws), out);
}

/* ------------------------------------------------------------------ the registry */

/* Each builder: *A, its one-line description, the unknowns per grid point *bs and, where the
 * type has one, the near-nullspace (*B, *k; B and k may be NULL: not wanted). The types whose
 * rows are independent build through their row builder (gs_gen_rows.c). */
static gs_status whole_by_rows(gs_status (*setup)(const gs_gen_params *, gs_gen_rows *, char *,
                                                  size_t),
                               const gs_gen_params *p, gs_csr **A, double **B, int *k, int *bs,
                               char *desc, size_t len)
{
    gs_status st = GS_OK;
    gs_gen_rows g;
    memset(&g, 0, sizeof g);
    GS_CHECK(setup(p, &g, desc, len));
    *bs = g.block;
    GS_CHECK(gs_gen_rows_whole(&g, desc, A, B, k));
done:
    gs_gen_rows_free(&g);
    return st;
}

static gs_status build_poisson(const gs_gen_params *p, gs_csr **A, double **B, int *k, int *bs,
                               char *desc, size_t len)
{
    return whole_by_rows(gs_gen_grid_rows, p, A, B, k, bs, desc, len);
}

static gs_status build_aniso(const gs_gen_params *p, gs_csr **A, double **B, int *k, int *bs,
                             char *desc, size_t len)
{
    return whole_by_rows(gs_gen_grid_rows, p, A, B, k, bs, desc, len);
}

static gs_status build_convdiff(const gs_gen_params *p, gs_csr **A, double **B, int *k, int *bs,
                                char *desc, size_t len)
{
    return whole_by_rows(gs_gen_grid_rows, p, A, B, k, bs, desc, len);
}

static gs_status build_powerlaw(const gs_gen_params *p, gs_csr **A, double **B, int *k, int *bs,
                                char *desc, size_t len)
{
    gs_status st = GS_OK;
    (void)B, (void)k, (void)bs;
    GS_CHECK(powerlaw_check(p));
    snprintf(desc, len, "powerlaw %lld nodes degree %g exponent %g seed %llu", (long long)p->size,
             p->degree, p->exponent, (unsigned long long)p->seed);
    GS_CHECK(powerlaw_gen(p, desc, A));
done:
    return st;
}

static gs_status build_jumps(const gs_gen_params *p, gs_csr **A, double **B, int *k, int *bs,
                             char *desc, size_t len)
{
    return whole_by_rows(gs_gen_jumps_rows, p, A, B, k, bs, desc, len);
}

static gs_status build_rotated(const gs_gen_params *p, gs_csr **A, double **B, int *k, int *bs,
                               char *desc, size_t len)
{
    return whole_by_rows(gs_gen_rotated_rows, p, A, B, k, bs, desc, len);
}

static gs_status build_elasticity(const gs_gen_params *p, gs_csr **A, double **B, int *k, int *bs,
                                  char *desc, size_t len)
{
    return whole_by_rows(gs_gen_elasticity_rows, p, A, B, k, bs, desc, len);
}

/* The generator registry: problem.generate.type's choices (in this order), the unknown-type
 * message and --help-config's lines come from it. Adding a generator: its builder (here, or
 * in its own file declared in gs_gen_impl.h) and a line (docs/design.md, "A generator"). */
static const gs_gen_desc GENERATORS[] = {
    {"poisson",
     "Laplacian on a size^d (or nx x ny [x nz]) grid, 2D 5/9-point or 3D 7/27-point "
     "(Dirichlet), dof unknowns per point",
     1, build_poisson, gs_gen_grid_rows},
    {"anisotropic", "poisson with the couplings along x scaled by epsilon", 1, build_aniso,
     gs_gen_grid_rows},
    {"convdiff", "-Laplace(u) + velocity (1,1[,1]) . grad(u), first-order upwind, nonsymmetric", 1,
     build_convdiff, gs_gen_grid_rows},
    {"powerlaw",
     "weighted Laplacian of a Chung-Lu graph with power-law degrees (size nodes, "
     "degree, exponent, seed) plus the identity",
     0, build_powerlaw, NULL},
    {"jumps", "3D 7-point diffusion, coefficients jumping between cubes (block, contrast, seed)", 0,
     build_jumps, gs_gen_jumps_rows},
    {"rotated", "2D Q1 rotated anisotropic diffusion, 9-point (epsilon, angle)", 0, build_rotated,
     gs_gen_rotated_rows},
    {"elasticity",
     "Q1 linear elasticity, clamped, 2D or 3D by the stencil (E, nu), with its "
     "rigid-body modes",
     1, build_elasticity, gs_gen_elasticity_rows},
};
#define GEN_COUNT ((int)(sizeof GENERATORS / sizeof GENERATORS[0]))

const gs_gen_desc *gs_gen_at(int i)
{
    return i >= 0 && i < GEN_COUNT ? &GENERATORS[i] : NULL;
}

const gs_gen_desc *gs_gen_find(const char *name)
{
    for (int i = 0; name && i < GEN_COUNT; i++)
        if (strcmp(name, GENERATORS[i].name) == 0) return &GENERATORS[i];
    return NULL;
}

const char *gs_gen_choices(void)
{
    static char buf[256];
    if (!buf[0])
        for (int i = 0; i < GEN_COUNT; i++) gs_str_add_choice(buf, sizeof buf, GENERATORS[i].name);
    return buf;
}

/* the registered generator named type, or an error listing them ("a, b ... or z") */
static gs_status find_type(const char *type, const gs_gen_desc **d)
{
    char list[256] = "";
    size_t n = 0;
    *d = gs_gen_find(type);
    if (*d) return GS_OK;
    for (int i = 0; i < GEN_COUNT && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s",
                              !i                  ? ""
                              : i < GEN_COUNT - 1 ? ", "
                                                  : " or ",
                              GENERATORS[i].name);
    return GS_ERROR(GS_ERR_ARG, "unknown generator type '%s': expected %s", type ? type : "(none)",
                    list);
}

/* ------------------------------------------------------------------ entry point */

/* *A (and the near-nullspace, block size) = the problem that p describes, validated first;
 * desc = its one-line description */
gs_status gs_gen_problem(const gs_gen_params *p, gs_csr **A, double **nullspace, int *k,
                         int *block_size, char *desc, size_t desc_len)
{
    gs_status st = GS_OK;
    char buf[200];
    int bs = 1;
    const gs_gen_desc *d = NULL;
    if (nullspace) *nullspace = NULL;
    if (k) *k = 0;
    if (block_size) *block_size = 0;
    if (!A) return GS_ERROR(GS_ERR_ARG, "gs_gen_problem: no output matrix");
    *A = NULL;
    if (desc && desc_len) desc[0] = '\0';
    if (!p) return GS_ERROR(GS_ERR_ARG, "gs_gen_problem: no generator parameters");
    GS_CHECK(find_type(p->type, &d));
    GS_CHECK(d->build(p, A, nullspace, k, &bs, buf, sizeof buf));
    if (block_size) *block_size = bs;
    if (desc && desc_len) snprintf(desc, desc_len, "%s", buf);
done:
    return st;
}

gs_status gs_gen_rows_open(const gs_gen_params *p, gs_gen_rows **out, char *desc, size_t desc_len)
{
    gs_status st = GS_OK;
    const gs_gen_desc *d = NULL;
    gs_gen_rows *g = NULL;
    char buf[200];
    *out = NULL;
    if (desc && desc_len) desc[0] = '\0';
    if (!p) return GS_ERROR(GS_ERR_ARG, "gs_gen_rows_open: no generator parameters");
    GS_CHECK(find_type(p->type, &d));
    if (!d->rows) goto done;
    GS_CHECK(gs_alloc_array(1, sizeof *g, "generator rows", (void **)&g));
    memset(g, 0, sizeof *g);
    GS_CHECK(d->rows(p, g, buf, sizeof buf));
    if (desc && desc_len) snprintf(desc, desc_len, "%s", buf);
    *out = g;
    g = NULL;
done:
    gs_gen_rows_close(&g);
    return st;
}

gs_status gs_gen_matrix(const gs_gen_params *p, gs_csr **A, char *desc, size_t desc_len)
{
    return gs_gen_problem(p, A, NULL, NULL, NULL, desc, desc_len);
}

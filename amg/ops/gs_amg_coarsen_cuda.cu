/* gs_amg_coarsen_cuda.cu: the AMG's coarsening steps on the device: strength (rowmax or
 * symmetric, scalar or block norms), the filtered matrix of the prolongator smoothing, MIS(2)
 * aggregation in synchronous rounds (the same rounds, keys and ties as the host's, so the
 * aggregates are identical), the tentative prolongator of node weights and the QR of k vectors
 * per aggregate (a warp each, as the block strength is a warp a node). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cub/cub.cuh>

#include "gs_amg_cuda_impl.cuh"

/* ---- strength ----------------------------------------------------------------------------- */

template <int G>
static __global__ void diag_kernel(int32_t n, const int32_t *rp, const int32_t *ci,
                                   const double *v, double *d)
{
    const unsigned m = group_mask<G>();
    const int lane = threadIdx.x & (G - 1);
    FOR_ROW_G(G, n)
    {
        double x = 0.0;
        for (int32_t q = rp[i] + lane; q < rp[i + 1]; q += G)
            if (ci[q] == i) x = v[q];
        x = group_sum<G>(x, m);
        if (lane == 0) d[i] = x;
    }
}

/* the group size of the row maxima and the filter: groups of lanes pay on long rows (a coarse
 * level's 30 to 100 entries: on 1.5M rows of 34, the filtered matrix and its rho went from 11.7
 * to 6.7 ms), but on a short row the two passes and the shuffles between them cost more than a
 * thread a row (16.8M 7-point rows, with the smoothing matrix: 3.8 ms in groups of 2, 2.4 ms a
 * thread a row; H200) */
static inline int walk_group(int64_t nnz, int64_t rows)
{
    return nnz < 12 * rows ? 1 : row_group(nnz, rows);
}

/* d[i] = a_ii and mx[i] = the largest coupling size of row i (0 when none is positive), a
 * group of G lanes a row (a maximum: the same in any order) */
template <int G>
static __global__ void rowmax_kernel(int32_t n, const int32_t *rp, const int32_t *ci,
                                     const double *v, int sign, double *d, double *mx)
{
    const unsigned m = group_mask<G>();
    const int lane = threadIdx.x & (G - 1);
    FOR_ROW_G(G, n)
    {
        const int32_t e = rp[i + 1];
        double di = 0.0, x = 0.0;
        for (int32_t q = rp[i] + lane; q < e; q += G)
            if (ci[q] == i) di = v[q];
        di = group_sum<G>(di, m); /* one lane holds it, the others 0 */
        for (int32_t q = rp[i] + lane; q < e; q += G)
            if (ci[q] != i) x = fmax(x, gs_amg_coupling(v[q], di, sign));
        x = group_fmax<G>(x, m);
        if (lane == 0) d[i] = di, mx[i] = x;
    }
}

/* count (cnt) or write (sci at srp) the strong neighbours of each row, in column order: a
 * ballot over the group's lanes places each one */
template <int G>
static __global__ void strength_kernel(int32_t n, const int32_t *rp, const int32_t *ci,
                                       const double *v, const double *d, const double *mx,
                                       double theta, const int32_t *srp, int32_t *cnt,
                                       int32_t *sci)
{
    const unsigned m = group_mask<G>();
    const int lane = threadIdx.x & (G - 1);
    const unsigned below = (1u << (threadIdx.x & 31)) - 1u;
    FOR_ROW_G(G, n)
    {
        int32_t c = 0;
        const int32_t o = srp ? srp[i] : 0, e = rp[i + 1];
        const double di = d ? d[i] : 0.0;
        for (int32_t base = rp[i]; base < e; base += G) {
            const int32_t q = base + lane;
            bool strong = false;
            int32_t j = 0;
            if (q < e) {
                j = ci[q];
                if (mx) { /* rowmax: signed, relative to the larger row maximum */
                    const double c = gs_amg_coupling(v[q], di, 1);
                    strong = j != i && c > 0 && c > theta * fmax(mx[i], mx[j]);
                } else {
                    const double lim = d ? theta * sqrt(fabs(di * d[j])) : 0.0;
                    strong = j != i && fabs(v[q]) > lim;
                }
            }
            const unsigned bal = __ballot_sync(m, strong) & m;
            if (strong && sci) sci[o + c + __popc(bal & below)] = j;
            c += __popc(bal);
        }
        if (cnt && lane == 0) cnt[i] = c;
    }
}

/* Block rows: node I's rows I*b .. I*b+b-1, and for each block column J the squared Frobenius
 * norm of A_IJ, summed row by row and in column order within a row. mode 0: node diagonal
 * norms into d (and with mx, the largest other block norm of the node: the rowmax measure); 1:
 * count strong J != I; 2: write them, ascending. */
#define GS_AMG_MAX_BLOCK 8

/* the node's strong test of block column J (norm s): rowmax against the larger row maximum,
 * symmetric against the diagonals */
static __device__ __forceinline__ bool block_strong(int64_t i, int32_t J, double s, double theta,
                                                    const double *d, const double *mx)
{
    double lim = 0.0;
    if (mx)
        lim = theta * fmax(mx[i], mx[J]);
    else if (theta > 0)
        lim = theta * sqrt(d[i] * d[J]);
    return J != i && s > lim;
}

/* one node by one thread: its b rows merged by block column (each row is sorted, so a b-way
 * merge visits the J in order); the warp kernel's fallback for a node with more strong blocks
 * than its buffer holds */
static __device__ void block_strength_node(int64_t i, int b, const int32_t *rp, const int32_t *ci,
                                           const double *v, double theta, int mode, double *d,
                                           double *mx, int32_t *cnt, const int32_t *srp,
                                           int32_t *sci)
{
    int32_t pos[GS_AMG_MAX_BLOCK], end[GS_AMG_MAX_BLOCK];
    for (int r = 0; r < b; r++) {
        pos[r] = rp[i * b + r];
        end[r] = rp[i * b + r + 1];
    }
    int32_t c = 0, o = mode == 2 ? srp[i] : 0;
    double mxi = 0.0;
    for (;;) {
        int32_t J = INT32_MAX;
        for (int r = 0; r < b; r++)
            if (pos[r] < end[r]) J = min(J, ci[pos[r]] / b);
        if (J == INT32_MAX) break;
        double s2 = 0.0;
        for (int r = 0; r < b; r++)
            while (pos[r] < end[r] && ci[pos[r]] / b == J) {
                s2 += v[pos[r]] * v[pos[r]];
                pos[r]++;
            }
        if (mode == 0) {
            if (J == i) d[i] = sqrt(s2);
            else if (mx) mxi = fmax(mxi, sqrt(s2));
            continue;
        }
        if (block_strong(i, J, sqrt(s2), theta, d, mx)) {
            if (mode == 2) sci[o + c] = J;
            c++;
        }
    }
    if (mode == 1) cnt[i] = c;
    if (mode == 0 && mx) mx[i] = mxi;
}

/* the first of ci[lo, hi) at or past column col (a sorted row) */
static __device__ __forceinline__ int32_t first_col(const int32_t *ci, int32_t lo, int32_t hi,
                                                    int32_t col)
{
    return gs_first_ge(lo, hi, col, [ci](int32_t i) { return ci[i]; });
}

/* A warp a node (a thread a node left the coarse levels' few nodes to a few blocks, and its
 * loads uncoalesced: 3.3 and 1.6 ms for levels 1 and 2 of 3D elasticity 32^3, 13.3 ms for level
 * 0 at 64^3, H100). The node's rows are one run of entries, spread over the lanes. An entry
 * stands for its block column J when it is the first of J in its row and no earlier row of the
 * node has J (binary searches); that lane sums the block the serial way (row by row, in column
 * order: the same sum, bit for bit). Strong blocks are placed in ascending order by ranking
 * them in a buffer of the warp's; a node with more than BS_CAP of them goes to
 * block_strength_node. */
#define BS_CAP 256
static __global__ void __launch_bounds__(GS_CUDA_THREADS)
    block_strength_kernel(int32_t nodes, int b, const int32_t *rp, const int32_t *ci,
                          const double *v, double theta, int mode, double *d, double *mx,
                          int32_t *cnt, const int32_t *srp, int32_t *sci)
{
    __shared__ int32_t buf[GS_CUDA_THREADS / 32][BS_CAP];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const unsigned below = (1u << lane) - 1u;
    FOR_ROW_G(32, nodes)
    {
        const int64_t row0 = i * b;
        const int32_t e0 = rp[row0], e1 = rp[row0 + b];
        int32_t c = 0;
        double mxi = 0.0;
        for (int32_t base = e0; base < e1; base += 32) {
            const int32_t q = base + lane;
            bool strong = false;
            int32_t J = 0;
            if (q < e1) {
                int r = 0;
                while (r + 1 < b && q >= rp[row0 + r + 1]) r++;
                J = ci[q] / b;
                bool own = q == rp[row0 + r] || ci[q - 1] / b != J;
                for (int r2 = 0; r2 < r && own; r2++) {
                    const int32_t hi = rp[row0 + r2 + 1];
                    const int32_t p = first_col(ci, rp[row0 + r2], hi, J * b);
                    own = !(p < hi && ci[p] / b == J);
                }
                if (own) {
                    double s2 = 0.0; /* rows before r hold none of J */
                    for (int r2 = r; r2 < b; r2++) {
                        const int32_t hi = rp[row0 + r2 + 1];
                        for (int32_t p = r2 == r ? q : first_col(ci, rp[row0 + r2], hi, J * b);
                             p < hi && ci[p] / b == J; p++)
                            s2 += v[p] * v[p];
                    }
                    const double s = sqrt(s2);
                    if (mode == 0) {
                        if (J == i) d[i] = s;
                        else if (mx) mxi = fmax(mxi, s);
                    } else {
                        strong = block_strong(i, J, s, theta, d, mx);
                    }
                }
            }
            if (mode == 0) continue;
            const unsigned bal = __ballot_sync(0xffffffffu, strong);
            const int32_t at = c + __popc(bal & below);
            if (mode == 2 && strong && at < BS_CAP) buf[w][at] = J;
            c += __popc(bal);
        }
        if (mode == 0) {
            if (mx) {
                mxi = group_fmax<32>(mxi, 0xffffffffu);
                if (lane == 0) mx[i] = mxi;
            }
        } else if (mode == 1) {
            if (lane == 0) cnt[i] = c;
        } else if (c <= BS_CAP) {
            __syncwarp();
            const int32_t o = srp[i];
            for (int32_t t = lane; t < c; t += 32) { /* a rank each (ties by place: a row
                                                      * given unsorted leaves no slot unset) */
                const int32_t J = buf[w][t];
                int32_t k = 0;
                for (int32_t u = 0; u < c; u++) k += buf[w][u] < J || (buf[w][u] == J && u < t);
                sci[o + k] = J;
            }
        } else if (lane == 0) {
            block_strength_node(i, b, rp, ci, v, theta, 2, d, mx, cnt, srp, sci);
        }
        __syncwarp();
    }
}

gs_status gs_amg_cuda_strength(const gs_csr *A, double theta, int b, int measure, gs_csr **S)
{
    gs_status st = GS_OK;
    int32_t n = A->rows / b, *cnt = NULL, *srp = NULL, *sci = NULL, nnz = 0;
    const int g = row_group(A->nnz, A->rows);
    double *d = NULL, *mx = NULL;
    if (b > GS_AMG_MAX_BLOCK)
        return GS_ERROR(GS_ERR_ARG, "amg: device strength for at most %d unknowns per node",
                        GS_AMG_MAX_BLOCK);
    if (theta > 0 || measure == GS_STRENGTH_ROWMAX) {
        GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *d, "strength diagonal", (void **)&d));
        if (measure == GS_STRENGTH_ROWMAX)
            GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *mx, "strength", (void **)&mx));
        if (n > 0 && b == 1 && mx) {
            LAUNCH_G(walk_group(A->nnz, n), n, rowmax_kernel, n, A->rowptr, A->colind, A->val, 1,
                     d, mx);
        } else if (n > 0 && b == 1) {
            LAUNCH_G(g, n, diag_kernel, n, A->rowptr, A->colind, A->val, d);
        } else if (n > 0) { /* block norms: unsigned */
            block_strength_kernel<<<GRID((int64_t)n * 32)>>>(n, b, A->rowptr, A->colind, A->val,
                                                             theta, 0, d, mx, NULL, NULL, NULL);
            GS_CUDA_LAUNCHED("block_strength_kernel");
        }
    }
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *cnt, "strength counts", (void **)&cnt));
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *srp, "strength rows", (void **)&srp));
    if (n > 0 && b == 1) {
        LAUNCH_G(g, n, strength_kernel, n, A->rowptr, A->colind, A->val, d, mx, theta, NULL,
                 cnt, NULL);
    } else if (n > 0) {
        block_strength_kernel<<<GRID((int64_t)n * 32)>>>(n, b, A->rowptr, A->colind, A->val, theta,
                                                         1, d, mx, cnt, NULL, NULL);
        GS_CUDA_LAUNCHED("block_strength_kernel");
    }
    GS_CUDA_CALL(cudaMemsetAsync(cnt + n, 0, sizeof *cnt, gs_cuda_g.stream));
    GS_CHECK(scan_counts(cnt, srp, n, &nnz));
    GS_CHECK(gs_cuda_alloc(((size_t)nnz + 1) * sizeof *sci, "strength graph", (void **)&sci));
    if (n > 0 && b == 1) {
        LAUNCH_G(g, n, strength_kernel, n, A->rowptr, A->colind, A->val, d, mx, theta, srp,
                 NULL, sci);
    } else if (n > 0) {
        block_strength_kernel<<<GRID((int64_t)n * 32)>>>(n, b, A->rowptr, A->colind, A->val, theta,
                                                         2, d, mx, NULL, srp, sci);
        GS_CUDA_LAUNCHED("block_strength_kernel");
    }
    GS_CHECK(wrap_device_csr(n, n, nnz, &srp, &sci, NULL, "strength graph", S));
done:
    gs_cuda_free(d);
    gs_cuda_free(mx);
    gs_cuda_free(cnt);
    gs_cuda_free(srp);
    gs_cuda_free(sci);
    return st;
}

/* ---- filtered matrix ----------------------------------------------------------------------- */

/* A group of G lanes a row: count (cnt) or write (fci, fv at frp) the entries kept, the dropped
 * ones lumped to the diagonal as the host does. The weak sum is added in column order (every
 * lane takes each dropped term of a chunk by shuffle, none when the chunk drops none), so the
 * lumped diagonal is the host's to the bit; a ballot places the kept entries. */
template <int G>
static __global__ void filter_kernel(int32_t n, const int32_t *rp, const int32_t *ci,
                                     const double *v, const double *d, const double *mx,
                                     double theta, int sign, const double *w, const int32_t *frp,
                                     int32_t *cnt, int32_t *fci, double *fv)
{
    const unsigned m = group_mask<G>();
    const int lane = threadIdx.x & (G - 1);
    const unsigned below = (1u << (threadIdx.x & 31)) - 1u;
    FOR_ROW_G(G, n)
    {
        const double di = d[i], lim = theta * mx[i];
        const int32_t b0 = rp[i], e = rp[i + 1];
        double weak = 0.0, lumped = di;
        bool dropped = false;
        for (int32_t base = b0; base < e; base += G) {
            const int32_t q = base + lane;
            bool drop = false;
            double t = 0.0;
            if (q < e) {
                const int32_t j = ci[q];
                drop = j != i && !(gs_amg_coupling(v[q], di, sign) > lim);
                if (drop) t = v[q] * (w ? w[j] : 1.0);
            }
            if constexpr (G == 1) { /* a thread a row: no ballot, no shuffle */
                if (drop) weak += t, dropped = true;
            } else {
                /* the dropped ones in column order, as the host adds (the ballot is the group's
                 * own: every lane walks the same bits) */
                for (unsigned bal = __ballot_sync(m, drop) & m; bal; bal &= bal - 1u) {
                    weak += __shfl_sync(m, t, __ffs(bal) - 1);
                    dropped = true;
                }
            }
        }
        /* as the host's filter_row: drop only when the lumped diagonal keeps its sign and at
         * least half its size */
        bool f = true;
        if (dropped) {
            if (w && w[i] == 0.0) {
                f = false;
            } else {
                lumped = di + (w ? weak / w[i] : weak);
                f = lumped * di > 0 && fabs(lumped) >= 0.5 * fabs(di);
            }
        }
        int32_t c = 0;
        const int32_t o = frp ? frp[i] : 0;
        for (int32_t base = b0; base < e; base += G) {
            const int32_t q = base + lane;
            bool keep = false;
            int32_t j = 0;
            if (q < e) {
                j = ci[q];
                keep = !f || j == i || gs_amg_coupling(v[q], di, sign) > lim;
            }
            if (G == 1) {
                if (keep && fci) fci[o + c] = j, fv[o + c] = j == i && f ? lumped : v[q];
                c += keep;
                continue;
            }
            const unsigned bal = __ballot_sync(m, keep) & m;
            if (keep && fci) {
                const int32_t p = o + c + __popc(bal & below);
                fci[p] = j;
                fv[p] = j == i && f ? lumped : v[q];
            }
            c += __popc(bal);
        }
        if (cnt && lane == 0) cnt[i] = c;
    }
}

gs_status gs_amg_cuda_filter(const gs_csr *A, double theta, int measure, const double *w,
                             gs_csr **F)
{
    gs_status st = GS_OK;
    int32_t n = A->rows, *cnt = NULL, *frp = NULL, *fci = NULL, nnz = 0;
    double *d = NULL, *mx = NULL, *fv = NULL;
    const int sign = measure == GS_STRENGTH_ROWMAX, g = walk_group(A->nnz, A->rows);
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *d, "filtered matrix", (void **)&d));
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *mx, "filtered matrix", (void **)&mx));
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *cnt, "filtered matrix", (void **)&cnt));
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *frp, "filtered matrix", (void **)&frp));
    if (n > 0) {
        LAUNCH_G(g, n, rowmax_kernel, n, A->rowptr, A->colind, A->val, sign, d, mx);
        LAUNCH_G(g, n, filter_kernel, n, A->rowptr, A->colind, A->val, d, mx, theta, sign, w,
                 (const int32_t *)NULL, cnt, (int32_t *)NULL, (double *)NULL);
    }
    GS_CUDA_CALL(cudaMemsetAsync(cnt + n, 0, sizeof *cnt, gs_cuda_g.stream));
    GS_CHECK(scan_counts(cnt, frp, n, &nnz));
    *F = NULL;
    if (nnz == A->nnz) goto done; /* nothing dropped: F = A */
    GS_CHECK(gs_cuda_alloc(((size_t)nnz + 1) * sizeof *fci, "filtered matrix", (void **)&fci));
    GS_CHECK(gs_cuda_alloc(((size_t)nnz + 1) * sizeof *fv, "filtered matrix", (void **)&fv));
    if (n > 0) {
        LAUNCH_G(g, n, filter_kernel, n, A->rowptr, A->colind, A->val, d, mx, theta, sign, w,
                 (const int32_t *)frp, (int32_t *)NULL, fci, fv);
    }
    GS_CHECK(wrap_device_csr(n, A->cols, nnz, &frp, &fci, &fv, "filtered matrix", F));
done:
    gs_cuda_free(d);
    gs_cuda_free(mx);
    gs_cuda_free(cnt);
    gs_cuda_free(frp);
    gs_cuda_free(fci);
    gs_cuda_free(fv);
    return st;
}

/* ---- MIS(2) aggregation ------------------------------------------------------------------- */

static __global__ void mis_init(int32_t n, const int32_t *rp, uint64_t *key)
{
    FOR_I(n) key[i] = d_key(rp[i + 1] > rp[i] ? GS_MIS_UNDECIDED : GS_MIS_OUT, (int32_t)i);
}

/* m1[i] = the largest key of i and its neighbours. An m1 in state IN stays so (IN nodes stay
 * IN, and a node's later max can only be another IN key): such rows are not read again, which
 * changes no decision, since a decision looks only at whether the two-hop max is IN or the
 * node's own key. */
template <int G>
static __global__ void mis_max1(int32_t n, const int32_t *rp, const int32_t *ci,
                                const uint64_t *key, uint64_t *m1)
{
    const unsigned m = group_mask<G>();
    const int lane = threadIdx.x & (G - 1);
    FOR_ROW_G(G, n)
    {
        if ((int)(m1[i] >> 62) == GS_MIS_IN) continue; /* uniform in the group */
        uint64_t x = lane == 0 ? key[i] : 0;
        for (int32_t q = rp[i] + lane; q < rp[i + 1]; q += G) {
            const uint64_t v = key[ci[q]];
            x = v > x ? v : x;
        }
        x = group_max<G>(x, m);
        if (lane == 0) m1[i] = x;
    }
}

/* the decision of undecided node i from its two-hop max x: IN when x is its own key, OUT
 * when x is an IN key; 1 when it stays undecided */
static __device__ __forceinline__ int mis_decide(int64_t i, uint64_t k, uint64_t x, uint64_t *key)
{
    if (x == k)
        key[i] = d_key(GS_MIS_IN, (int32_t)i);
    else if ((int)(x >> 62) == GS_MIS_IN)
        key[i] = d_key(GS_MIS_OUT, (int32_t)i);
    else
        return 1;
    return 0;
}

/* for each undecided node: the two-hop max over m1, then the decision; *undecided counts the
 * nodes still undecided */
template <int G>
static __global__ void mis_max2_update(int32_t n, const int32_t *rp, const int32_t *ci,
                                       const uint64_t *m1, uint64_t *key, int *undecided)
{
    const unsigned m = group_mask<G>();
    const int lane = threadIdx.x & (G - 1);
    int local = 0;
    FOR_ROW_G(G, n)
    {
        const uint64_t k = key[i];
        if ((int)(k >> 62) != GS_MIS_UNDECIDED) continue; /* uniform in the group */
        uint64_t x = lane == 0 ? m1[i] : 0;
        for (int32_t q = rp[i] + lane; q < rp[i + 1]; q += G) {
            const uint64_t v = m1[ci[q]];
            x = v > x ? v : x;
        }
        x = group_max<G>(x, m);
        if (lane == 0) local += mis_decide(i, k, x, key);
    }
    if (local) atomicAdd(undecided, local);
}

/* The last rounds, when few nodes are undecided: each undecided node's two-hop max straight
 * from the keys (deg^2 reads for few rows instead of a pass over all rows), into m2 ... */
static __global__ void mis_two_hop(int32_t n, const int32_t *rp, const int32_t *ci,
                                   const uint64_t *key, uint64_t *m2)
{
    FOR_I(n)
    {
        uint64_t x = key[i];
        if ((int)(x >> 62) != GS_MIS_UNDECIDED) continue;
        for (int32_t q = rp[i]; q < rp[i + 1]; q++) {
            const int32_t j = ci[q];
            uint64_t y = key[j];
            for (int32_t q2 = rp[j]; q2 < rp[j + 1]; q2++) {
                const uint64_t v = key[ci[q2]];
                y = v > y ? v : y;
            }
            x = y > x ? y : x;
        }
        m2[i] = x;
    }
}

/* ... then the decisions (a separate kernel: the keys are read above) */
static __global__ void mis_update(int32_t n, const uint64_t *m2, uint64_t *key, int *undecided)
{
    int local = 0;
    FOR_I(n)
    {
        const uint64_t k = key[i];
        if ((int)(k >> 62) == GS_MIS_UNDECIDED) local += mis_decide(i, k, m2[i], key);
    }
    if (local) atomicAdd(undecided, local);
}

static __global__ void root_flags(int32_t n, const uint64_t *key, int32_t *flag)
{
    FOR_I(n) flag[i] = (int)(key[i] >> 62) == GS_MIS_IN;
}

/* round 1: roots take their number; a neighbour of roots joins the one of largest key */
template <int G>
static __global__ void agg_round1(int32_t n, const int32_t *rp, const int32_t *ci,
                                  const uint64_t *key, const int32_t *root_id, int32_t *agg)
{
    const unsigned m = group_mask<G>();
    const int lane = threadIdx.x & (G - 1);
    FOR_ROW_G(G, n)
    {
        if ((int)(key[i] >> 62) == GS_MIS_IN) {
            if (lane == 0) agg[i] = root_id[i];
            continue;
        }
        uint64_t best = 0; /* IN keys are nonzero */
        int32_t a = -1;
        for (int32_t q = rp[i] + lane; q < rp[i + 1]; q += G) {
            const int32_t j = ci[q];
            const uint64_t kj = key[j];
            if ((int)(kj >> 62) == GS_MIS_IN && kj > best) best = kj, a = j;
        }
#pragma unroll
        for (int off = G / 2; off > 0; off >>= 1) {
            const uint64_t ob = __shfl_xor_sync(m, best, off, G);
            const int32_t oa = __shfl_xor_sync(m, a, off, G);
            if (ob > best) best = ob, a = oa;
        }
        if (lane == 0) agg[i] = a >= 0 ? root_id[a] : -1;
    }
}

/* round 2: a node still without one joins the neighbour of largest key that has one */
template <int G>
static __global__ void agg_round2(int32_t n, const int32_t *rp, const int32_t *ci,
                                  const uint64_t *key, const int32_t *in, int32_t *out)
{
    const unsigned m = group_mask<G>();
    const int lane = threadIdx.x & (G - 1);
    FOR_ROW_G(G, n)
    {
        const int32_t own = in[i];
        if (own >= 0) {
            if (lane == 0) out[i] = own;
            continue;
        }
        int64_t best = -1; /* keys without their state bits are >= 0 */
        int32_t a = -1;
        for (int32_t q = rp[i] + lane; q < rp[i + 1]; q += G) {
            const int32_t j = ci[q];
            const int64_t kj = (int64_t)(key[j] & ~(3ULL << 62));
            if (in[j] >= 0 && kj > best) best = kj, a = in[j];
        }
#pragma unroll
        for (int off = G / 2; off > 0; off >>= 1) {
            const int64_t ob = __shfl_xor_sync(m, best, off, G);
            const int32_t oa = __shfl_xor_sync(m, a, off, G);
            if (ob > best) best = ob, a = oa;
        }
        if (lane == 0) out[i] = a;
    }
}

gs_status gs_amg_cuda_mis2(const gs_csr *S, int32_t *agg, int32_t *nagg)
{
    gs_status st = GS_OK;
    int32_t n = S->rows;
    uint64_t *key = NULL, *m1 = NULL, *m2 = NULL;
    int32_t *flag = NULL, *id = NULL, *tmp = NULL;
    int *d_und = NULL;
    /* one thread per row (the kernels' G = 1): the stencil-like graphs' neighbour keys are
     * read coalesced across a warp's consecutive rows (groups of lanes measured slower here on
     * the H200) */
    const double deg = n > 0 ? (double)S->nnz / n : 0.0;
    size_t nb = ((size_t)n + 1) * sizeof(uint64_t);
    *nagg = 0;
    if (n == 0) return GS_OK;
    GS_CHECK(gs_cuda_alloc(nb, "aggregation keys", (void **)&key));
    GS_CHECK(gs_cuda_alloc(nb, "aggregation keys", (void **)&m1));
    GS_CHECK(gs_cuda_alloc(nb, "aggregation keys", (void **)&m2));
    GS_CHECK(gs_cuda_alloc(sizeof(int), "aggregation flag", (void **)&d_und));
    mis_init<<<GRID(n)>>>(n, S->rowptr, key);
    GS_CUDA_LAUNCHED("mis_init");
    GS_CUDA_CALL(cudaMemsetAsync(m1, 0, nb, gs_cuda_g.stream));
    for (int round = 0, und = n;; round++) {
        GS_CUDA_CALL(cudaMemsetAsync(d_und, 0, sizeof(int), gs_cuda_g.stream));
        if ((double)und * deg < 0.5 * n) { /* few left: their two hops directly */
            mis_two_hop<<<GRID(n)>>>(n, S->rowptr, S->colind, key, m2);
            mis_update<<<GRID(n)>>>(n, m2, key, d_und);
            GS_CUDA_LAUNCHED("mis_two_hop");
        } else {
            mis_max1<1><<<GRID(n)>>>(n, S->rowptr, S->colind, key, m1);
            mis_max2_update<1><<<GRID(n)>>>(n, S->rowptr, S->colind, m1, key, d_und);
            GS_CUDA_LAUNCHED("mis rounds");
        }
        GS_CHECK(gs_cuda_d2h(&und, d_und, sizeof und));
        if (!und) break;
        if (round > 100000) GS_FAIL(GS_ERR_CUDA, "amg: the MIS(2) rounds do not end");
    }
    /* reuse m1 and m2 as int arrays for the flags/ids */
    flag = (int32_t *)m1;
    id = (int32_t *)m2;
    tmp = flag; /* flags are dead after the scan: the round-2 buffer */
    root_flags<<<GRID(n)>>>(n, key, flag);
    GS_CUDA_LAUNCHED("root_flags");
    GS_CUDA_CALL(cudaMemsetAsync(flag + n, 0, sizeof *flag, gs_cuda_g.stream));
    GS_CHECK(scan_counts(flag, id, n, nagg));
    agg_round1<1><<<GRID(n)>>>(n, S->rowptr, S->colind, key, id, agg);
    agg_round2<1><<<GRID(n)>>>(n, S->rowptr, S->colind, key, agg, tmp);
    agg_round2<1><<<GRID(n)>>>(n, S->rowptr, S->colind, key, tmp, agg);
    GS_CUDA_LAUNCHED("aggregate rounds");
done:
    gs_cuda_free(key);
    gs_cuda_free(m1);
    gs_cuda_free(m2);
    gs_cuda_free(d_und);
    return st;
}

/* ---- tentative prolongator (one vector) ---------------------------------------------------- */

static __global__ void agg_norms(int32_t nodes, const int32_t *agg, const double *w,
                                 double *nrm2)
{
    FOR_I(nodes)
    {
        int32_t a = agg[i];
        if (a >= 0) {
            double x = w ? w[i] : 1.0;
            atomicAdd(&nrm2[a], x * x);
        }
    }
}

static __global__ void tent_has(int64_t n, int b, const int32_t *agg, int32_t *has)
{
    FOR_I(n) has[i] = agg[i / b] >= 0;
}

static __global__ void tent_fill(int64_t n, int b, const int32_t *agg, const double *w,
                                 const double *nrm2, const int32_t *rp, int32_t *ci, double *v)
{
    FOR_I(n)
    {
        int64_t I = i / b;
        int32_t a = agg[I];
        if (a >= 0) {
            ci[rp[i]] = a * b + (int32_t)(i - I * b);
            v[rp[i]] = (w ? w[I] : 1.0) / sqrt(nrm2[a]);
        }
    }
}

static __global__ void sqrt_kernel(int32_t n, const double *in, double *out)
{
    FOR_I(n) out[i] = sqrt(in[i]);
}

/* P(I b + r, a b + r) = w_I / ||w_a|| for node I in aggregate a; wc[a] = ||w_a|| */
gs_status gs_amg_cuda_tentative(int32_t nodes, int b, const int32_t *agg, int32_t nagg,
                                const double *w, gs_csr **P, double *wc)
{
    gs_status st = GS_OK;
    double *nrm2 = NULL, *v = NULL;
    int32_t *has = NULL, *rp = NULL, *ci = NULL, nnz = 0;
    int64_t n = (int64_t)nodes * b;
    GS_CHECK(gs_cuda_alloc(((size_t)nagg + 1) * sizeof *nrm2, "aggregate norms", (void **)&nrm2));
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *has, "tentative prolongator", (void **)&has));
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * sizeof *rp, "tentative prolongator", (void **)&rp));
    GS_CUDA_CALL(cudaMemsetAsync(nrm2, 0, ((size_t)nagg + 1) * sizeof *nrm2, gs_cuda_g.stream));
    GS_CUDA_CALL(cudaMemsetAsync(has + n, 0, sizeof *has, gs_cuda_g.stream));
    if (n > 0) {
        agg_norms<<<GRID(nodes)>>>(nodes, agg, w, nrm2);
        tent_has<<<GRID(n)>>>(n, b, agg, has);
        GS_CUDA_LAUNCHED("agg_norms");
    }
    GS_CHECK(scan_counts(has, rp, (int32_t)n, &nnz));
    GS_CHECK(gs_cuda_alloc(((size_t)nnz + 1) * sizeof *ci, "tentative prolongator", (void **)&ci));
    GS_CHECK(gs_cuda_alloc(((size_t)nnz + 1) * sizeof *v, "tentative prolongator", (void **)&v));
    if (n > 0) {
        tent_fill<<<GRID(n)>>>(n, b, agg, w, nrm2, rp, ci, v);
        GS_CUDA_LAUNCHED("tent_fill");
    }
    if (nagg > 0) {
        sqrt_kernel<<<GRID(nagg)>>>(nagg, nrm2, wc);
        GS_CUDA_LAUNCHED("sqrt_kernel");
    }
    st = gs_cuda_csr_adopt((int32_t)n, nagg * b, nnz, rp, ci, v, P);
    rp = NULL, ci = NULL, v = NULL;
done:
    gs_cuda_free(nrm2);
    gs_cuda_free(has);
    gs_cuda_free(rp);
    gs_cuda_free(ci);
    gs_cuda_free(v);
    return st;
}

/* ---- tentative prolongator of k vectors (QR per aggregate) ------------------------------ */

/* *m = nodes in aggregates (a block-wide count, one atomic a block) */
static __global__ void count_aggregated(int32_t nodes, const int32_t *agg, int32_t *m)
{
    int32_t c = 0;
    FOR_I(nodes) c += agg[i] >= 0;
    c = __reduce_add_sync(0xffffffffu, c);
    if ((threadIdx.x & 31) == 0 && c) atomicAdd(m, c);
}

/* agg_start[a] = the first place of aggregate a in the sorted keys (every aggregate has its
 * root), agg_start[nagg] = the aggregated nodes */
static __global__ void agg_starts(int32_t m, const int32_t *key, int32_t nagg, int32_t *start)
{
    FOR_I(m)
    {
        if (i == 0 || key[i] != key[i - 1]) start[key[i]] = (int32_t)i;
        if (i == m - 1) start[nagg] = (int32_t)m;
    }
}

/* A warp an aggregate: the modified Gram-Schmidt QR of its rows of B (members in node order, as
 * on the host), Q into the dense rows Qd (k a row), R into the coarse near-nullspace Bc. Each
 * lane keeps rows lane, lane + 32, ...; a column's sums are warp sums (a fixed order, not the
 * host's serial one: the same to rounding). A thread an aggregate, as first written, left the
 * few aggregates of a coarse level to a few blocks with uncoalesced loads: 3.8, 2.6 and 0.8 ms
 * for the levels of 3D elasticity 32^3 (k = 6), H100. */
static __global__ void __launch_bounds__(GS_CUDA_THREADS)
    agg_qr(int32_t nagg, int b, int k, int64_t n, const int32_t *start, const int32_t *member,
           const double *B, double *Qd, double *Bc)
{
    const int lane = threadIdx.x & 31;
    FOR_ROW_G(32, nagg)
    {
        const int32_t s0 = start[i], cnt = start[i + 1] - s0;
        const int32_t m = cnt * b;
#define QROW(r) ((int64_t)member[s0 + (r) / b] * b + (r) % b)
        for (int32_t r = lane; r < m; r += 32)
            for (int c = 0; c < k; c++) Qd[QROW(r) * k + c] = B[(int64_t)c * n + QROW(r)];
        for (int c = 0; c < k; c++) {
            double scale = 0.0;
            for (int32_t r = lane; r < m; r += 32)
                scale += Qd[QROW(r) * k + c] * Qd[QROW(r) * k + c];
            scale = gs_warp_allsum(scale);
            for (int c2 = 0; c2 < c; c2++) {
                double dot = 0.0;
                for (int32_t r = lane; r < m; r += 32)
                    dot += Qd[QROW(r) * k + c2] * Qd[QROW(r) * k + c];
                dot = gs_warp_allsum(dot);
                for (int32_t r = lane; r < m; r += 32)
                    Qd[QROW(r) * k + c] -= dot * Qd[QROW(r) * k + c2];
                if (lane == 0) {
                    Bc[(int64_t)c2 * nagg * k + i * k + c] = 0.0;
                    Bc[(int64_t)c * nagg * k + i * k + c2] = dot;
                }
            }
            double nrm = 0.0;
            for (int32_t r = lane; r < m; r += 32)
                nrm += Qd[QROW(r) * k + c] * Qd[QROW(r) * k + c];
            nrm = sqrt(gs_warp_allsum(nrm));
            const bool dep = nrm <= 1e-10 * sqrt(scale) || nrm == 0.0;
            for (int32_t r = lane; r < m; r += 32)
                Qd[QROW(r) * k + c] = dep ? 0.0 : Qd[QROW(r) * k + c] / nrm;
            if (lane == 0) Bc[(int64_t)c * nagg * k + i * k + c] = dep ? 0.0 : nrm;
        }
#undef QROW
    }
}

/* entries of row r of P: the nonzeros of its dense row (0 for nodes outside aggregates) */
static __global__ void qr_count(int64_t n, int b, int k, const int32_t *agg, const double *Qd,
                                int32_t *cnt)
{
    FOR_I(n)
    {
        int32_t c = 0;
        if (agg[i / b] >= 0)
            for (int j = 0; j < k; j++) c += Qd[i * k + j] != 0.0;
        cnt[i] = c;
    }
}

static __global__ void qr_fill(int64_t n, int b, int k, const int32_t *agg, const double *Qd,
                               const int32_t *rp, int32_t *ci, double *v)
{
    FOR_I(n)
    {
        const int32_t a = agg[i / b];
        int32_t o = rp[i];
        if (a < 0) continue;
        for (int j = 0; j < k; j++)
            if (Qd[i * k + j] != 0.0) {
                ci[o] = a * k + j;
                v[o++] = Qd[i * k + j];
            }
    }
}

static __global__ void iota_agg(int32_t nodes, const int32_t *agg, int32_t *key, int32_t *idx)
{
    FOR_I(nodes)
    {
        key[i] = agg[i] < 0 ? INT32_MAX : agg[i]; /* outside aggregates: last */
        idx[i] = (int32_t)i;
    }
}

gs_status gs_amg_cuda_tentative_qr(int32_t nodes, int b, const int32_t *agg, int32_t nagg,
                                   const double *B, int k, gs_csr **P, double *Bc)
{
    gs_status st = GS_OK;
    int64_t n = (int64_t)nodes * b;
    int32_t *key = NULL, *key2 = NULL, *idx = NULL, *member = NULL, *start = NULL;
    int32_t *cnt = NULL, *rp = NULL, *ci = NULL, nnz = 0, m = 0;
    double *Qd = NULL, *v = NULL;
    void *tmp = NULL;
    size_t bytes = 0;
    cudaStream_t s = gs_cuda_g.stream;
    if (n * k >= GS_MAX_INDEX)
        return GS_ERROR(GS_ERR_UNSUPPORTED, "amg: the tentative prolongator would have %lld "
                        "entries", (long long)(n * k));
    GS_CHECK(gs_cuda_alloc(((size_t)nodes + 1) * 4, "aggregate members", (void **)&key));
    GS_CHECK(gs_cuda_alloc(((size_t)nodes + 1) * 4, "aggregate members", (void **)&key2));
    GS_CHECK(gs_cuda_alloc(((size_t)nodes + 1) * 4, "aggregate members", (void **)&idx));
    GS_CHECK(gs_cuda_alloc(((size_t)nodes + 1) * 4, "aggregate members", (void **)&member));
    GS_CHECK(gs_cuda_alloc(((size_t)nagg + 2) * 4, "aggregate members", (void **)&start));
    GS_CHECK(gs_cuda_alloc(((size_t)n * k + 1) * sizeof *Qd, "tentative prolongator",
                           (void **)&Qd));
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * 4, "tentative prolongator", (void **)&cnt));
    GS_CHECK(gs_cuda_alloc(((size_t)n + 1) * 4, "tentative prolongator", (void **)&rp));
    GS_CUDA_CALL(cudaMemsetAsync(Qd, 0, ((size_t)n * k + 1) * sizeof *Qd, s));
    GS_CUDA_CALL(cudaMemsetAsync(start, 0, ((size_t)nagg + 2) * 4, s));
    if (nodes > 0) {
        iota_agg<<<GRID(nodes)>>>(nodes, agg, key, idx);
        GS_CUDA_LAUNCHED("iota_agg");
        /* members by aggregate, in node order within each (a stable sort) */
        GS_CUDA_CALL(cub::DeviceRadixSort::SortPairs(NULL, bytes, key, key2, idx, member,
                                                     (int)nodes, 0, 32, s));
        GS_CHECK(gs_cuda_alloc(bytes + 1, "aggregate sort", &tmp));
        GS_CUDA_CALL(cub::DeviceRadixSort::SortPairs(tmp, bytes, key, key2, idx, member,
                                                     (int)nodes, 0, 32, s));
        /* the aggregated nodes come first: m of them */
        int32_t *dm = NULL;
        GS_CHECK(gs_cuda_alloc(sizeof *dm, "aggregate members", (void **)&dm));
        GS_CUDA_CALL(cudaMemsetAsync(dm, 0, sizeof *dm, s));
        count_aggregated<<<GRID(nodes)>>>(nodes, agg, dm);
        st = gs_cuda_d2h(&m, dm, sizeof m);
        gs_cuda_free(dm);
        GS_CHECK(st);
        if (m > 0) {
            agg_starts<<<GRID(m)>>>(m, key2, nagg, start);
            GS_CUDA_LAUNCHED("agg_starts");
        }
        if (nagg > 0) {
            agg_qr<<<GRID((int64_t)nagg * 32)>>>(nagg, b, k, n, start, member, B, Qd, Bc);
            GS_CUDA_LAUNCHED("agg_qr");
        }
        qr_count<<<GRID(n)>>>(n, b, k, agg, Qd, cnt);
        GS_CUDA_LAUNCHED("qr_count");
    }
    GS_CUDA_CALL(cudaMemsetAsync(cnt + n, 0, sizeof *cnt, s));
    GS_CHECK(scan_counts(cnt, rp, (int32_t)n, &nnz));
    GS_CHECK(gs_cuda_alloc(((size_t)nnz + 1) * sizeof *ci, "tentative prolongator", (void **)&ci));
    GS_CHECK(gs_cuda_alloc(((size_t)nnz + 1) * sizeof *v, "tentative prolongator", (void **)&v));
    if (n > 0) {
        qr_fill<<<GRID(n)>>>(n, b, k, agg, Qd, rp, ci, v);
        GS_CUDA_LAUNCHED("qr_fill");
    }
    st = gs_cuda_csr_adopt((int32_t)n, nagg * k, nnz, rp, ci, v, P);
    rp = NULL, ci = NULL, v = NULL;
done:
    gs_cuda_free(key);
    gs_cuda_free(key2);
    gs_cuda_free(idx);
    gs_cuda_free(member);
    gs_cuda_free(start);
    gs_cuda_free(cnt);
    gs_cuda_free(rp);
    gs_cuda_free(ci);
    gs_cuda_free(v);
    gs_cuda_free(Qd);
    gs_cuda_free(tmp);
    return st;
}

/* SpGEMM and the Galerkin product: the host Gustavson product against an independent triplet
 * expansion (gs_csr_from_coo sums the partial products), on random rectangular matrices with
 * empty rows, stencils, rows of more than 2048 and 4096 partial products (the shared-memory bins
 * and the spill of rows with more than 4096 columns to global memory), cancellation (explicit zeros
 * kept) and real matrices; Galerkin R (A P) with an aggregation prolongator.
 *   test_spgemm [--gpu]   --gpu: the device DCSR and cuSPARSE products and transposes against
 *   the host (77 without a GPU), including a case that exhausts the sampled DCSR capacity. */
#include <dirent.h>
#include <stdint.h>

#include "gs_backend.h"
#include "gs_gen.h"
#include "gs_knob.h"
#include "gs_mm.h"
#include "gs_spgemm.h"
#include "gs_test.h"

static int GPU;

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static gs_csr *from_triplets(int64_t rows, int64_t cols, int64_t n, int32_t *ri, int32_t *ci,
                             double *v)
{
    gs_csr *A = NULL;
    CHECK_OK(gs_csr_from_coo(rows, cols, n, ri, ci, v, &A));
    free(ri), free(ci), free(v);
    return A;
}

/* random rows x cols, lengths 0..2*per_row, every seventh row empty */
static gs_csr *random_csr(int32_t rows, int32_t cols, int per_row)
{
    int64_t cap = (int64_t)rows * (2 * per_row + 1) + 1, n = 0;
    int32_t *ri = malloc((size_t)cap * 4), *ci = malloc((size_t)cap * 4);
    double *v = malloc((size_t)cap * 8);
    for (int32_t i = 0; i < rows; i++) {
        if (i % 7 == 2) continue;
        int len = (int)(next_u64() % (uint64_t)(2 * per_row + 1));
        for (int q = 0; q < len; q++, n++) {
            ri[n] = i;
            ci[n] = (int32_t)(next_u64() % (uint64_t)cols);
            v[n] = (double)(int64_t)(next_u64() % 20001) / 10000.0 - 1.0;
        }
    }
    return from_triplets(rows, cols, n, ri, ci, v);
}

/* random rows x cols, every row of lo..hi entries (distinct columns: lo..hi <= cols) */
static gs_csr *random_lengths(int32_t rows, int32_t cols, int lo, int hi)
{
    int64_t n = 0;
    int32_t *ri = malloc((size_t)rows * hi * 4 + 4), *ci = malloc((size_t)rows * hi * 4 + 4);
    double *v = malloc((size_t)rows * hi * 8 + 8);
    for (int32_t i = 0; i < rows; i++) {
        int len = lo + (int)(next_u64() % (uint64_t)(hi - lo + 1));
        int32_t c0 = (int32_t)(next_u64() % (uint64_t)cols), step = 1 + i % 5;
        for (int q = 0; q < len; q++, n++) { /* distinct: step < cols, len <= cols / step */
            ri[n] = i;
            ci[n] = (int32_t)((c0 + (int64_t)q * step * (cols / hi / 5 + 1)) % cols);
            v[n] = (double)(int64_t)(next_u64() % 20001) / 10000.0 - 1.0;
        }
    }
    return from_triplets(rows, cols, n, ri, ci, v);
}

/* C = A*B by expanding every partial product into a triplet; *products: their number */
static gs_csr *reference_n(const gs_csr *A, const gs_csr *B, int64_t *products)
{
    int64_t n = 0;
    for (int32_t q = 0; q < A->nnz; q++) n += B->rowptr[A->colind[q] + 1] - B->rowptr[A->colind[q]];
    if (products) *products = n;
    int32_t *ri = malloc((size_t)n * 4 + 4), *ci = malloc((size_t)n * 4 + 4);
    double *v = malloc((size_t)n * 8 + 8);
    n = 0;
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t qa = A->rowptr[i]; qa < A->rowptr[i + 1]; qa++) {
            int32_t k = A->colind[qa];
            for (int32_t qb = B->rowptr[k]; qb < B->rowptr[k + 1]; qb++, n++)
                ri[n] = i, ci[n] = B->colind[qb], v[n] = A->val[qa] * B->val[qb];
        }
    return from_triplets(A->rows, B->cols, n, ri, ci, v);
}

static gs_csr *reference(const gs_csr *A, const gs_csr *B)
{
    return reference_n(A, B, NULL);
}

/* same pattern exactly, values within 1e-13 of the largest |value|; C may be on the device, and
 * with `normalize` its rows are first sorted (cuSPARSE) */
static void compare(const gs_csr *C, const gs_csr *R, int normalize, const char *what)
{
    gs_csr *H = NULL, *S = NULL;
    CHECK_OK(gs_csr_download(C, &H));
    if (!H) return;
    if (normalize) {
        int32_t *ri = malloc((size_t)H->nnz * 4 + 4);
        for (int32_t i = 0; i < H->rows; i++)
            for (int32_t q = H->rowptr[i]; q < H->rowptr[i + 1]; q++) ri[q] = i;
        CHECK_OK(gs_csr_from_coo(H->rows, H->cols, H->nnz, ri, H->colind, H->val, &S));
        free(ri);
        gs_csr_destroy(&H);
        H = S;
        if (!H) return;
    }
    int ok = H->rows == R->rows && H->cols == R->cols && H->nnz == R->nnz;
    for (int32_t i = 0; ok && i <= R->rows; i++) ok = H->rowptr[i] == R->rowptr[i];
    for (int32_t q = 0; ok && q < R->nnz; q++) ok = H->colind[q] == R->colind[q];
    CHECK_MSG(ok, "%s: pattern differs (nnz %d vs %d)", what, H->nnz, R->nnz);
    double big = 0.0, err = 0.0;
    for (int32_t q = 0; ok && q < R->nnz; q++) {
        big = fmax(big, fabs(R->val[q]));
        err = fmax(err, fabs(H->val[q] - R->val[q]));
    }
    CHECK_MSG(err <= 1e-13 * big || err == 0.0, "%s: values differ by %g (max %g)", what, err, big);
    gs_csr_destroy(&H);
}

/* C = A*B on the host against the triplet reference, and on the device by both methods */
static void check_product(const char *name, const gs_csr *A, const gs_csr *B)
{
    int64_t products = 0;
    gs_csr *R = reference_n(A, B, &products), *C = NULL;
    char what[160];
    snprintf(what, sizeof what, "%s: host", name);
    CHECK_OK(gs_spgemm(A, B, GS_SPGEMM_HOST, &C));
    if (C) compare(C, R, 0, what);
    gs_csr_destroy(&C);
    if (GPU) {
        gs_csr *dA = NULL, *dB = NULL;
        gs_spgemm_info info;
        CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
        CHECK_OK(gs_csr_upload(B, GS_LOC_DEVICE, &dB));
        snprintf(what, sizeof what, "%s: dcsr", name);
        CHECK_OK(gs_spgemm_ex(dA, dB, GS_SPGEMM_DCSR, &info, &C));
        if (C) compare(C, R, 0, what);
        printf("  %s: %lld products, nnz %lld, capacity %lld, retried %lld, peak %.1f MB\n", what,
               (long long)info.products, (long long)info.nnz, (long long)info.capacity,
               (long long)info.retried_rows, info.peak_bytes / 1e6);
        CHECK_MSG(!C || info.products == products, "%s: %lld products counted, expected %lld", what,
                  (long long)info.products, (long long)products);
        gs_csr_destroy(&C);
        snprintf(what, sizeof what, "%s: cusparse", name);
        CHECK_OK(gs_spgemm(dA, dB, GS_SPGEMM_CUSPARSE, &C));
        if (C) compare(C, R, 1, what);
        gs_csr_destroy(&C);
        gs_csr_destroy(&dA);
        gs_csr_destroy(&dB);
    }
    printf("%-40s %d x %d, nnz %d: ok\n", name, R->rows, R->cols, R->nnz);
    gs_csr_destroy(&R);
}

/* piecewise-constant prolongator of 2x2x2 aggregates on an n^3 grid (value 1) */
static gs_csr *aggregation(int64_t n)
{
    int64_t nc = (n + 1) / 2, rows = n * n * n;
    int32_t *ri = malloc((size_t)rows * 4), *ci = malloc((size_t)rows * 4);
    double *v = malloc((size_t)rows * 8);
    for (int64_t z = 0; z < n; z++)
        for (int64_t y = 0; y < n; y++)
            for (int64_t x = 0; x < n; x++) {
                int64_t i = (z * n + y) * n + x;
                ri[i] = (int32_t)i;
                ci[i] = (int32_t)(((z / 2) * nc + y / 2) * nc + x / 2);
                v[i] = 1.0;
            }
    return from_triplets(rows, nc * nc * nc, rows, ri, ci, v);
}

/* gs_galerkin_values: new values of A (scaled row by row and column by column) into the coarse
 * pattern Ref of the first product equal the reference product of the new A; a pattern missing
 * an entry the product reaches is refused */
static void check_galerkin_values(const char *name, const gs_csr *A, const gs_csr *P,
                                  const gs_csr *Rt, const gs_csr *Ref)
{
    gs_csr *A2 = NULL, *C = NULL, *AP = NULL, *Ref2 = NULL, *cut = NULL;
    char what[160];
    CHECK_OK(gs_csr_copy(A, &A2));
    if (!A2) return;
    for (int32_t i = 0; i < A2->rows; i++)
        for (int32_t q = A2->rowptr[i]; q < A2->rowptr[i + 1]; q++)
            A2->val[q] *= (1.0 + 0.1 * ((i * 7) % 5)) * (1.0 + 0.1 * ((A2->colind[q] * 7) % 5));
    AP = reference(A2, P);
    Ref2 = reference(Rt, AP);
    for (int dev = 0; dev <= GPU; dev++) {
        gs_csr *dA = NULL, *dP = NULL, *dR = NULL, *dC = NULL;
        const gs_loc loc = dev ? GS_LOC_DEVICE : GS_LOC_HOST;
        CHECK_OK(gs_csr_copy(Ref, &C));
        if (!C) break;
        for (int32_t q = 0; q < C->nnz; q++) C->val[q] = 1e30; /* overwritten */
        CHECK_OK(gs_csr_upload(A2, loc, &dA));
        CHECK_OK(gs_csr_upload(P, loc, &dP));
        CHECK_OK(gs_csr_upload(Rt, loc, &dR));
        CHECK_OK(gs_csr_upload(C, loc, &dC));
        snprintf(what, sizeof what, "%s: galerkin values (%s)", name, dev ? "device" : "host");
        if (dA && dP && dR && dC) {
            CHECK_OK(gs_galerkin_values(dA, dP, dR, dC));
            compare(dC, Ref2, 0, what);
        }
        gs_csr_destroy(&dC);
        /* the last row's last entry left out of the pattern: refused */
        if (C->nnz > 1) {
            int32_t r = C->rows - 1;
            while (r > 0 && C->rowptr[r + 1] == C->rowptr[r]) r--;
            CHECK_OK(gs_csr_create(C->rows, C->cols, C->nnz - 1, &cut));
            if (cut) {
                const int32_t drop = C->rowptr[r + 1] - 1;
                for (int32_t i = 0; i <= C->rows; i++)
                    cut->rowptr[i] = C->rowptr[i] - (i > r ? 1 : 0);
                for (int32_t q = 0, o = 0; q < C->nnz; q++)
                    if (q != drop) cut->colind[o] = C->colind[q], cut->val[o++] = 0.0;
                CHECK_OK(gs_csr_upload(cut, loc, &dC));
                if (dC)
                    CHECK_FAIL(gs_galerkin_values(dA, dP, dR, dC), GS_ERR_UNSUPPORTED,
                               "the patterns changed");
                gs_csr_destroy(&dC);
                gs_csr_destroy(&cut);
            }
        }
        gs_csr_destroy(&C);
        gs_csr_destroy(&dA), gs_csr_destroy(&dP), gs_csr_destroy(&dR);
    }
    gs_csr_destroy(&A2), gs_csr_destroy(&AP), gs_csr_destroy(&Ref2);
}

/* gs_galerkin_chunks: (R_b A) P by chunks of R's rows, stacked, equals the reference R (A P) in
 * pattern and values, for one chunk, a few, and more chunks than coarse rows (empty chunks) */
static void check_galerkin_chunks(const char *name, const gs_csr *A, const gs_csr *P,
                                  const gs_csr *Rt, const gs_csr *Ref)
{
    /* more chunks than coarse rows only where that stays quick (each chunk restacks the rows
     * before it) */
    const int ks[] = {1, 2, 3, 7, Ref->rows < 1000 ? Ref->rows + 2 : 64};
    char what[160];
    for (int dev = 0; dev <= GPU; dev++) {
        gs_csr *dA = NULL, *dP = NULL, *dR = NULL, *C = NULL;
        const gs_loc loc = dev ? GS_LOC_DEVICE : GS_LOC_HOST;
        const gs_spgemm_method m = dev ? GS_SPGEMM_DCSR : GS_SPGEMM_HOST;
        CHECK_OK(gs_csr_upload(A, loc, &dA));
        CHECK_OK(gs_csr_upload(P, loc, &dP));
        CHECK_OK(gs_csr_upload(Rt, loc, &dR));
        for (size_t t = 0; dA && dP && dR && t < sizeof ks / sizeof ks[0]; t++) {
            gs_spgemm_info info;
            snprintf(what, sizeof what, "%s: galerkin by %d chunks (%s)", name, ks[t],
                     dev ? "device" : "host");
            CHECK_OK(gs_galerkin_chunks(dA, dP, t % 2 ? dR : NULL, m, ks[t], &info, &C));
            if (C) compare(C, Ref, 0, what);
            CHECK_MSG(!C || (info.chunks == ks[t] && info.nnz == C->nnz &&
                             (dev ? info.peak_bytes > 0 : info.peak_bytes == 0)),
                      "%s: info chunks %d, nnz %lld, peak %zu", what, info.chunks,
                      (long long)info.nnz, info.peak_bytes);
            gs_csr_destroy(&C);
        }
        if (dA && dP) CHECK_FAIL(gs_galerkin_chunks(dA, dP, NULL, m, 0, NULL, &C), GS_ERR_ARG,
                                 "0 chunks");
        gs_csr_destroy(&dA), gs_csr_destroy(&dP), gs_csr_destroy(&dR);
    }
}

static void check_galerkin(const char *name, const gs_csr *A, const gs_csr *P)
{
    gs_csr *Rt = NULL, *AP = NULL, *Ref = NULL, *C = NULL;
    char what[160];
    CHECK_OK(gs_csr_transpose(P, &Rt));
    AP = reference(A, P);
    Ref = reference(Rt, AP);
    snprintf(what, sizeof what, "%s: galerkin host", name);
    CHECK_OK(gs_galerkin(A, P, NULL, GS_SPGEMM_HOST, &C));
    if (C) compare(C, Ref, 0, what);
    gs_csr_destroy(&C);
    snprintf(what, sizeof what, "%s: galerkin host, R given", name);
    CHECK_OK(gs_galerkin(A, P, Rt, GS_SPGEMM_HOST, &C));
    if (C) compare(C, Ref, 0, what);
    gs_csr_destroy(&C);
    if (GPU) {
        gs_csr *dA = NULL, *dP = NULL, *dR = NULL;
        CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
        CHECK_OK(gs_csr_upload(P, GS_LOC_DEVICE, &dP));
        snprintf(what, sizeof what, "%s: device transpose", name);
        CHECK_OK(gs_spgemm_transpose(dP, &dR));
        if (dR) compare(dR, Rt, 0, what);
        gs_spgemm_method ms[2] = {GS_SPGEMM_DCSR, GS_SPGEMM_CUSPARSE};
        for (int k = 0; k < 2; k++) {
            gs_spgemm_info info, info_r;
            snprintf(what, sizeof what, "%s: galerkin %s", name, gs_spgemm_method_name(ms[k]));
            CHECK_OK(gs_galerkin_ex(dA, dP, NULL, ms[k], &info, &C));
            if (C) compare(C, Ref, k == 1, what);
            CHECK_MSG(!C || (info.nnz == C->nnz && info.peak_bytes > 0),
                      "%s: info nnz %lld, peak %zu", what, (long long)info.nnz, info.peak_bytes);
            gs_csr_destroy(&C);
            /* R given (as AMG): the same product, R not counted in the peak */
            snprintf(what, sizeof what, "%s: galerkin %s, R given", name,
                     gs_spgemm_method_name(ms[k]));
            if (dR) CHECK_OK(gs_galerkin_ex(dA, dP, dR, ms[k], &info_r, &C));
            if (C) compare(C, Ref, k == 1, what);
            CHECK_MSG(!C || (info_r.nnz == C->nnz && info_r.peak_bytes > 0 &&
                             info_r.peak_bytes <= info.peak_bytes),
                      "%s: info nnz %lld, peak %zu (R made inside: %zu)", what,
                      (long long)info_r.nnz, info_r.peak_bytes, info.peak_bytes);
            gs_csr_destroy(&C);
        }
        gs_csr_destroy(&dR);
        gs_csr_destroy(&dA);
        gs_csr_destroy(&dP);
    }
    check_galerkin_chunks(name, A, P, Rt, Ref);
    check_galerkin_values(name, A, P, Rt, Ref);
    printf("%-40s coarse %d, nnz %d: ok\n", name, Ref->rows, Ref->nnz);
    gs_csr_destroy(&Rt), gs_csr_destroy(&AP), gs_csr_destroy(&Ref);
}

static gs_csr *generated(const char *type, int64_t size, int stencil)
{
    gs_gen_params g = {.type = type,
                       .size = size,
                       .stencil = stencil,
                       .dof = 1,
                       .seed = 1,
                       .epsilon = 0.01,
                       .velocity = 10.0,
                       .degree = 8.0,
                       .exponent = 2.2};
    gs_csr *A = NULL;
    char desc[128];
    CHECK_OK(gs_gen_matrix(&g, &A, desc, sizeof desc));
    return A;
}

/* rows in bin 33-64 whose every fourth row (the sampled ones) has one distinct column and the
 * others 64: the sampled capacity is far too small, so C must grow and the rows run again */
static gs_csr *fools_sampling(gs_csr **B)
{
    const int32_t rows = 2048;
    int32_t *ri = malloc((size_t)rows * 64 * 4), *ci = malloc((size_t)rows * 64 * 4);
    double *v = malloc((size_t)rows * 64 * 8);
    int64_t n = 0;
    for (int32_t i = 0; i < rows; i++)
        for (int q = 0; q < 64; q++, n++)
            ri[n] = i, ci[n] = (i % 4 == 0 ? 0 : 64) + q, v[n] = 1.0 + q;
    int32_t *bi = malloc(128 * 4), *bc = malloc(128 * 4);
    double *bv = malloc(128 * 8);
    for (int32_t k = 0; k < 128; k++) bi[k] = k, bc[k] = k < 64 ? 0 : k - 63, bv[k] = 0.5;
    *B = from_triplets(128, 65, 128, bi, bc, bv);
    return from_triplets(rows, 128, n, ri, ci, v);
}

static void check_files(void)
{
    const char *dir = getenv("GS_MATRICES");
    DIR *d = dir ? opendir(dir) : NULL;
    struct dirent *e;
    int done = 0;
    if (!d) return;
    while ((e = readdir(d)) != NULL && done < 12) {
        size_t l = strlen(e->d_name);
        char path[1024];
        gs_csr *A = NULL;
        gs_mm_info mi;
        if (l < 5 || strcmp(e->d_name + l - 4, ".mtx") != 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (gs_mm_read(path, &A, &mi) != GS_OK) {
            gs_error_clear();
            continue;
        }
        if (A->rows == A->cols && A->nnz <= 200000 && A->rows > 1) {
            check_product(e->d_name, A, A);
            done++;
        }
        gs_csr_destroy(&A);
    }
    closedir(d);
}

/* coarse rows longer than GS_VALUES_ROW_MAX: gs_galerkin_values makes the product anew */
static void check_galerkin_values_long(void)
{
    const int64_t n = 400, nc = 200, per = 24;
    int32_t *ri = malloc((size_t)(n * per) * 4), *ci = malloc((size_t)(n * per) * 4);
    double *v = malloc((size_t)(n * per) * 8);
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = 0; k < per; k++) {
            ri[i * per + k] = (int32_t)i;
            ci[i * per + k] = (int32_t)((i * 7 + k * 13) % nc);
            v[i * per + k] = 1.0 + 0.01 * (double)((i + k) % 17);
        }
    gs_csr *P = from_triplets(n, nc, n * per, ri, ci, v); /* frees the triplets */
    gs_csr *A = generated("poisson", 20, 5); /* 400 rows */
    if (A && P && A->rows == n) check_galerkin("long coarse rows", A, P);
    gs_csr_destroy(&A), gs_csr_destroy(&P);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--gpu") == 0) {
        if (gs_backend_cuda_devices(NULL) == 0) return 77;
        CHECK_OK(gs_backend_cuda_init(0, NULL, 0));
        GPU = 1;
    }
    gs_csr *A = random_csr(300, 200, 5), *B = random_csr(200, 450, 5), *C = random_csr(450, 1, 2);
    check_product("random 300x200 * 200x450", A, B);
    check_product("random 200x450 * 450x1", B, C);
    gs_csr_destroy(&A), gs_csr_destroy(&B), gs_csr_destroy(&C);
    A = random_csr(2000, 3000, 30), B = random_csr(3000, 2500, 30); /* bins up to 2049+ */
    check_product("random 2000x3000 * 3000x2500 (long rows)", A, B);
    gs_csr_destroy(&A), gs_csr_destroy(&B);
    A = random_csr(64, 20000, 200), B = random_csr(20000, 30000, 40); /* 8000-product rows */
    check_product("random 64x20000 * 20000x30000", A, B); /* more columns than 4096: spilled */
    gs_csr_destroy(&A), gs_csr_destroy(&B);
    A = random_csr(200, 300, 100), B = random_csr(300, 80, 50); /* 5000 products, <= 80 columns */
    check_product("random 200x300 * 300x80 (many products, few columns)", A, B);
    gs_csr_destroy(&A), gs_csr_destroy(&B);
    A = random_csr(50, 0, 0), B = random_csr(0, 40, 0);
    check_product("empty 50x0 * 0x40", A, B);
    gs_csr_destroy(&A), gs_csr_destroy(&B);
    {
        int32_t *ri = malloc(8), *ci = malloc(8), *bi = malloc(8), *bc = malloc(8);
        double *v = malloc(16), *bv = malloc(16);
        ri[0] = ri[1] = 0, ci[0] = 0, ci[1] = 1, v[0] = v[1] = 1.0;
        bi[0] = 0, bi[1] = 1, bc[0] = bc[1] = 0, bv[0] = 1.0, bv[1] = -1.0;
        A = from_triplets(2, 2, 2, ri, ci, v), B = from_triplets(2, 1, 2, bi, bc, bv);
        check_product("cancellation (explicit zero kept)", A, B);
        gs_csr *Z = NULL;
        CHECK_OK(gs_spgemm(A, B, GS_SPGEMM_HOST, &Z));
        CHECK(Z && Z->nnz == 1 && Z->val[0] == 0.0);
        gs_csr_destroy(&Z), gs_csr_destroy(&A), gs_csr_destroy(&B);
    }
    /* rows of 12-16 entries times rows of 3-4: at most 64 products, most above 32, so the rows
     * are not binned; the sorted bin's general path (more than 8 entries of A) */
    A = random_lengths(20000, 3000, 12, 16), B = random_lengths(3000, 5000, 3, 4);
    check_product("random 20000x3000 * 3000x5000 (not binned)", A, B);
    gs_csr_destroy(&A), gs_csr_destroy(&B);
    /* 70-120 products a row: every row in the 65-128 bin, one launch, chunks of 8 rows */
    A = random_lengths(30000, 4000, 10, 12), B = random_lengths(4000, 6000, 7, 10);
    check_product("random 30000x4000 * 4000x6000 (one launch, 65-128)", A, B);
    gs_csr_destroy(&A), gs_csr_destroy(&B);
    A = fools_sampling(&B);
    check_product("sampling fooled (bounded capacity)", A, B);
    if (GPU) { /* the same with the sampled estimate, which falls short: C grows, rows rerun */
        gs_csr *dA = NULL, *dB = NULL;
        gs_spgemm_info info;
        gs_knob_set("GSOLVE_SPGEMM_BOUND_MAX", "0");
        check_product("sampling fooled (capacity growth)", A, B);
        CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
        CHECK_OK(gs_csr_upload(B, GS_LOC_DEVICE, &dB));
        CHECK_OK(gs_spgemm_ex(dA, dB, GS_SPGEMM_DCSR, &info, &C));
        CHECK_MSG(info.retried_rows > 0, "sampled capacity: %lld rows retried, expected some",
                  (long long)info.retried_rows);
        gs_csr_destroy(&C);
        gs_knob_set("GSOLVE_SPGEMM_BOUND_MAX", NULL);
        CHECK_OK(gs_spgemm_ex(dA, dB, GS_SPGEMM_DCSR, &info, &C));
        CHECK_MSG(info.retried_rows == 0 && info.capacity >= info.nnz,
                  "bounded capacity: %lld rows retried, capacity %lld for %lld entries",
                  (long long)info.retried_rows, (long long)info.capacity, (long long)info.nnz);
        gs_csr_destroy(&C), gs_csr_destroy(&dA), gs_csr_destroy(&dB);
    }
    gs_csr_destroy(&A), gs_csr_destroy(&B);
    const struct {
        const char *type;
        int64_t size;
        int stencil;
    } gen[] = {{"poisson", 16, 7},
               {"poisson", 30, 7}, /* 27000 rows not binned, placed in order: 844 blocks */
               {"poisson", 12, 27},
               {"poisson", 40, 5},
               {"poisson", 200, 5}, /* 40000 rows of 25 products, placed in order (hashed) */
               {"convdiff", 10, 27},
               {"powerlaw", 5000, 0}};
    for (size_t i = 0; i < sizeof gen / sizeof gen[0]; i++) {
        char name[64];
        A = generated(gen[i].type, gen[i].size, gen[i].stencil);
        snprintf(name, sizeof name, "%s-%d %lld: A*A", gen[i].type, gen[i].stencil,
                 (long long)gen[i].size);
        if (A) check_product(name, A, A);
        gs_csr_destroy(&A);
    }
    int64_t sizes[2] = {9, 14};
    int stencils[2] = {7, 27};
    for (int i = 0; i < 2; i++) {
        char name[64];
        gs_csr *P = aggregation(sizes[i]);
        A = generated("poisson", sizes[i], stencils[i]);
        snprintf(name, sizeof name, "poisson-%d %lld: A*P", stencils[i], (long long)sizes[i]);
        if (A && P) check_product(name, A, P);
        snprintf(name, sizeof name, "poisson-%d %lld", stencils[i], (long long)sizes[i]);
        if (A && P) check_galerkin(name, A, P);
        gs_csr_destroy(&A), gs_csr_destroy(&P);
    }
    { /* 2^18 rows: many blocks appending to the bump pointer at once, 32768 coarse rows */
        gs_csr *P = aggregation(64);
        A = generated("poisson", 64, 7);
        if (A) check_product("poisson-7 64: A*A (row segments from the products' scan)", A, A);
        if (A && P) check_galerkin("poisson-7 64", A, P);
        check_galerkin_values_long();
        gs_csr_destroy(&A), gs_csr_destroy(&P);
    }
    {
        gs_csr *X = random_csr(5, 4, 2), *Y = random_csr(5, 4, 2), *Z = NULL;
        CHECK_FAIL(gs_spgemm(X, Y, GS_SPGEMM_HOST, &Z), GS_ERR_ARG, "inner dimensions");
        CHECK_FAIL(gs_galerkin(X, Y, NULL, GS_SPGEMM_HOST, &Z), GS_ERR_ARG, "not square");
        {
            gs_csr *S = random_csr(6, 6, 2), *Q = random_csr(6, 3, 1);
            /* R must be Q^T's shape (3 x 6): Q itself is not */
            CHECK_FAIL(gs_galerkin(S, Q, Q, GS_SPGEMM_HOST, &Z), GS_ERR_ARG, "is not P^T");
            gs_csr_destroy(&S), gs_csr_destroy(&Q);
        }
        gs_spgemm_method m;
        CHECK_FAIL(gs_spgemm_method_parse("magic", &m), GS_ERR_ARG, "expected auto");
        /* the registry: amg.galerkin's choices in their order, each name parsed back */
        CHECK(strcmp(gs_spgemm_choices(), "auto|dcsr|cusparse|host") == 0);
        for (int i = 0; gs_spgemm_method_at(i); i++) {
            const gs_spgemm_desc *d = gs_spgemm_method_at(i);
            CHECK(gs_spgemm_method_parse(d->name, &m) == GS_OK && m == d->method);
            CHECK(strcmp(gs_spgemm_method_name(d->method), d->name) == 0 && d->help && d->help[0]);
        }
        gs_csr_destroy(&X), gs_csr_destroy(&Y);
    }
    check_files();
    return gs_test_result(GPU ? "test_spgemm --gpu" : "test_spgemm");
}

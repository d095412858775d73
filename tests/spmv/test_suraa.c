/* test_suraa.c: the SURAA format: the shared format harness (fmt_test.h) with G1 through child
 * grids and through blocks, then SURAA's own rules on hand-made matrices: the row order
 * (length desc, first column asc, row asc), the Freedman-Diaconis segment size, the groups
 * G1-G3 with G2's and G3's runs, and long rows (G1 rows of several child blocks or several
 * blocks). With --gpu every check also runs on the device and the device plan and permutation
 * must equal the host ones. */
#include "fmt_test.h"
#include "gs_suraa.h"

#ifdef GS_HAVE_CUDA
#include <cuda_runtime.h>
#endif

/* a rows x cols host CSR whose row i has len[i] entries at columns off_i .. off_i + len - 1
 * (off_i = (13 i) mod (cols - len + 1)), values from i and the column */
static gs_csr *make_lengths(int32_t rows, int32_t cols, const int32_t *len)
{
    int64_t nnz = 0;
    gs_csr *A = NULL;
    for (int32_t i = 0; i < rows; i++) nnz += len[i];
    if (gs_csr_create(rows, cols, nnz, &A) != GS_OK) {
        fprintf(stderr, "test_suraa: %s\n", gs_error_message());
        exit(1);
    }
    A->rowptr[0] = 0;
    for (int32_t i = 0; i < rows; i++) {
        int32_t off = (int32_t)((13LL * i) % (cols - len[i] + 1)), b = A->rowptr[i];
        for (int32_t j = 0; j < len[i]; j++) {
            A->colind[b + j] = off + j;
            A->val[b + j] = 1.0 + 0.001 * (i % 97) - 0.5 * ((off + j) % 3);
        }
        A->rowptr[i + 1] = b + len[i];
    }
    return A;
}

/* perm follows the order: length desc, then first column asc, then row asc */
static int order_ok(const gs_csr *A, const int32_t *perm)
{
    for (int32_t q = 0; q + 1 < A->rows; q++) {
        int32_t a = perm[q], b = perm[q + 1];
        int32_t la = A->rowptr[a + 1] - A->rowptr[a], lb = A->rowptr[b + 1] - A->rowptr[b];
        int32_t fa = la ? A->colind[A->rowptr[a]] : 0, fb = lb ? A->colind[A->rowptr[b]] : 0;
        if (la < lb || (la == lb && (fa > fb || (fa == fb && a >= b)))) {
            fprintf(stderr, "order broken at %d: row %d (%d, %d) before row %d (%d, %d)\n", q, a,
                    la, fa, b, lb, fb);
            return 0;
        }
    }
    return 1;
}

/* the device conversion of A has the host's plan and permutation */
/* GS_TEST_NO_CHILD_GRIDS set: no SpMV through SURAA's child grids (dynamic parallelism), which
 * compute-sanitizer's racecheck, synccheck and initcheck cannot follow (scripts/gpu-sanitize.sh
 * sets it for those tools; memcheck and the plain runs take the child grids) */
static int no_child_grids(void)
{
    const char *e = getenv("GS_TEST_NO_CHILD_GRIDS");
    return e && *e && strcmp(e, "0") != 0;
}

static void check_device_plan(const gs_csr *A, const gs_format_params *p, const gs_suraa *H)
{
#ifdef GS_HAVE_CUDA
    gs_csr *dA = NULL;
    gs_spmat *D = NULL;
    CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
    if (dA) CHECK_OK(gs_spmat_create(dA, GS_FORMAT_SURAA, p, &D));
    if (D) {
        const gs_suraa *S = (const gs_suraa *)D->M;
        int32_t *perm = malloc(((size_t)A->rows + 1) * sizeof *perm);
        CHECK(S->seg_size == H->seg_size && S->iqr == H->iqr && S->max_len == H->max_len);
        CHECK(S->g1_end == H->g1_end && S->g2_end == H->g2_end && S->nruns == H->nruns);
        CHECK(S->g1_nnz == H->g1_nnz && S->g2_nnz == H->g2_nnz && S->g1_dynamic == H->g1_dynamic);
        CHECK(S->max_child == H->max_child && S->g1_threads == H->g1_threads && S->ng3 == H->ng3);
        for (int r = 0; r < S->nruns && r < H->nruns; r++)
            CHECK(S->runs[r].begin == H->runs[r].begin && S->runs[r].end == H->runs[r].end &&
                  S->runs[r].threads == H->runs[r].threads);
        for (int r = 0; r < S->ng3 && r < H->ng3; r++)
            CHECK(S->g3[r].begin == H->g3[r].begin && S->g3[r].end == H->g3[r].end &&
                  S->g3[r].threads == H->g3[r].threads);
        CHECK(cudaMemcpy(perm, S->perm, (size_t)A->rows * sizeof *perm, cudaMemcpyDeviceToHost) ==
              cudaSuccess);
        CHECK(memcmp(perm, H->perm, (size_t)A->rows * sizeof *perm) == 0);
        free(perm);
    }
    gs_spmat_destroy(&D);
    gs_csr_destroy(&dA);
#else
    (void)A, (void)p, (void)H;
#endif
}

/* ten rows with known lengths and ties: the exact order */
static void test_order(int gpu)
{
    static const int32_t len[10] = {3, 40, 3, 0, 100, 40, 5, 3, 70, 1};
    gs_csr *A = make_lengths(10, 200, len);
    int32_t perm[10];
    /* first columns off_i = 13 i mod (201 - len_i): length 40: rows 1 (13) and 5 (65);
     * length 3: rows 0 (0), 2 (26), 7 (91, set to 26 here: a tie broken by the row) */
    static const int32_t want[10] = {4, 8, 1, 5, 6, 0, 2, 7, 9, 3};
    A->colind[A->rowptr[7]] = A->colind[A->rowptr[2]];
    CHECK(A->colind[A->rowptr[0]] == 0 && A->colind[A->rowptr[2]] == 26);
    CHECK(A->colind[A->rowptr[1]] == 13 && A->colind[A->rowptr[5]] == 65);
    CHECK_OK(gs_suraa_sort_rows(A, perm));
    CHECK(order_ok(A, perm));
    CHECK(memcmp(perm, want, sizeof perm) == 0);
    fmt_check_case("order 10 rows", A, GS_FORMAT_SURAA, NULL, gpu, NULL);
    gs_csr_destroy(&A);
}

/* 1000 rows: 3 of 3000, 5 of 200, 20 of 50, 300 of 20, 672 of 10, scattered over the rows:
 * IQR = 20 - 10 = 10, segment = ceil(2*10/cbrt(1000)) = 2 rows; segments 0-13 have mean >= 32
 * (28 rows), classes 32, 25, 4, 4, then 1 x 10; segment 0 (mean 3000) is long; G3: 150
 * segments of mean 20 (L = 8), 336 of mean 10 (L = 4) */
static void test_groups(int gpu)
{
    const int32_t m = 1000;
    int32_t *len = malloc((size_t)m * sizeof *len);
    gs_format_params p;
    gs_spmat *M = NULL;
    for (int32_t i = 0; i < m; i++) {
        int32_t r = (int32_t)((389LL * i) % m); /* rank in the sorted order (389 coprime to m) */
        len[i] = r < 3 ? 3000 : r < 8 ? 200 : r < 28 ? 50 : r < 328 ? 20 : 10;
    }
    gs_csr *A = make_lengths(m, 4000, len);
    CHECK(gs_suraa_segment_size(1000, 10) == 2);
    gs_format_params_default(&p);
    p.suraa_max_child_threads = 5; /* G1 = 2 segments (4 rows), G2 the other 24 */
    p.suraa_g1_dynamic = -1;
    CHECK_OK(gs_spmat_create(A, GS_FORMAT_SURAA, &p, &M));
    if (M) {
        const gs_suraa *S = (const gs_suraa *)M->M;
        CHECK(order_ok(A, S->perm));
        CHECK(S->iqr == 10 && S->seg_size == 2 && S->nseg == 500 && S->max_len == 3000);
        CHECK(S->max_child == 5 && S->g1_end == 4 && S->g2_end == 28);
        CHECK(S->g1_nnz == 3 * 3000 + 200 && S->g2_nnz == 4 * 200 + 20 * 50);
        CHECK(S->g1_dynamic == 0);    /* auto: G1 rows < GS_SURAA_DP_LEN entries */
        CHECK(S->g1_threads == 1024); /* mean 2300 -> roundup32(1150), capped */
        CHECK(S->nruns == 2);
        if (S->nruns == 2) {
            CHECK(S->runs[0].begin == 4 && S->runs[0].end == 8 && S->runs[0].threads == 128);
            CHECK(S->runs[1].begin == 8 && S->runs[1].end == 28 && S->runs[1].threads == 32);
        }
        CHECK(S->ng3 == 2);
        if (S->ng3 == 2) {
            CHECK(S->g3[0].begin == 28 && S->g3[0].end == 328 && S->g3[0].threads == 8);
            CHECK(S->g3[1].begin == 328 && S->g3[1].end == 1000 && S->g3[1].threads == 4);
        }
        char d[160];
        gs_spmat_describe(M, d, sizeof d);
        CHECK(strstr(d, "segment 2 rows; G1 4 rows, G2 24") != NULL);
        printf("  groups: %s\n", d);
        if (gpu) check_device_plan(A, &p, S);
    }
    gs_spmat_destroy(&M);
    fmt_check_case("groups, max_child 5", A, GS_FORMAT_SURAA, &p, gpu, NULL);
    p.suraa_g1_dynamic = 1;
    if (!no_child_grids()) fmt_check_case("groups, child grids", A, GS_FORMAT_SURAA, &p, gpu, NULL);
    p.suraa_g1_dynamic = -1;
    p.suraa_max_child_threads = 0; /* auto: G1 = the long segment 0, G2 runs of Y 800, 128, 32 */
    CHECK_OK(gs_spmat_create(A, GS_FORMAT_SURAA, &p, &M));
    if (M) {
        const gs_suraa *S = (const gs_suraa *)M->M;
        CHECK(S->max_child == GS_SURAA_POOL_BIG && S->g1_end == 2 && S->g2_end == 28);
        CHECK(S->g1_nnz == 6000 && S->g1_dynamic == 0 && S->g1_threads == 1024);
        CHECK(S->nruns == 3 && S->ng3 == 2);
        if (S->nruns == 3) {
            CHECK(S->runs[0].begin == 2 && S->runs[0].end == 4 && S->runs[0].threads == 800);
            CHECK(S->runs[1].begin == 4 && S->runs[1].end == 8 && S->runs[1].threads == 128);
            CHECK(S->runs[2].begin == 8 && S->runs[2].end == 28 && S->runs[2].threads == 32);
        }
        if (gpu) check_device_plan(A, &p, S);
    }
    gs_spmat_destroy(&M);
    fmt_check_case("groups, auto", A, GS_FORMAT_SURAA, &p, gpu, NULL);
    free(len);
    gs_csr_destroy(&A);
}

/* the Freedman-Diaconis rule on known values */
static void test_segment_size(void)
{
    int64_t hi, lo;
    CHECK(gs_suraa_segment_size(27, 6) == 4);      /* 12 / 3 exactly */
    CHECK(gs_suraa_segment_size(1000, 7) == 2);    /* 1.4 -> 2 */
    CHECK(gs_suraa_segment_size(1000000, 6) == 1); /* 0.12 -> 1 */
    CHECK(gs_suraa_segment_size(64, 50) == 25);    /* 100 / 4 */
    CHECK(gs_suraa_segment_size(8, 100) == 8);     /* at most m */
    CHECK(gs_suraa_segment_size(5, 0) == 1);
    CHECK(gs_suraa_segment_size(0, 0) == 1);
    gs_suraa_quartiles(10, &hi, &lo);
    CHECK(hi == 2 && lo == 7);
    gs_suraa_quartiles(1, &hi, &lo);
    CHECK(hi == 0 && lo == 0);
    CHECK(gs_suraa_class(31.99) == 0 && gs_suraa_class(32.0) == 1 && gs_suraa_class(64.0) == 1);
    CHECK(gs_suraa_class(64.5) == 2 && gs_suraa_class(2048.0) == 32 && gs_suraa_class(1e6) == 32);
    CHECK(gs_suraa_lanes_log2(0.0) == 0 && gs_suraa_lanes_log2(2.0) == 0);
    CHECK(gs_suraa_lanes_log2(2.5) == 1 && gs_suraa_lanes_log2(8.0) == 1);
    CHECK(gs_suraa_lanes_log2(8.5) == 2 && gs_suraa_lanes_log2(16.0) == 2);
    CHECK(gs_suraa_lanes_log2(27.0) == 3 && gs_suraa_lanes_log2(31.9) == 3);
    CHECK(gs_suraa_lanes_log2(1e6) == GS_SURAA_LANE_CLASSES - 1);
    CHECK(gs_suraa_bin(2048.0) == GS_SURAA_BIN_LONG && gs_suraa_bin(2047.0) == -1);
    CHECK(gs_suraa_bin(32.0) == -1 && gs_suraa_bin(31.0) == GS_SURAA_BIN_LANES + 3);
    CHECK(gs_suraa_bin(1.0) == GS_SURAA_BIN_LANES);
}

/* G2's last segment holding short or empty rows, in a run long enough for the device's span
 * kernel (>= 16384 rows; 2 rows a warp here): 40000 rows, 23996 of 64 entries, then the segment
 * of 4 rows [64, 64, 20, 0] (mean 37: G2), or [64, 64, 0, 0] (mean 32: G2, and a warp whose
 * rows are all empty), then empty rows (G3); and 200000 rows of 47 down to 32 entries (one run,
 * 16 rows a warp of the span kernel) */
static void test_g2_spans(int gpu)
{
    const int32_t m = 40000, big = 200000;
    int32_t *len = malloc((size_t)big * sizeof *len);
    gs_format_params p;
    gs_spmat *M = NULL;
    static const int32_t tails[2][4] = {{64, 64, 20, 0}, {64, 64, 0, 0}};
    static const char *const names[3] = {"G2 ending in a short and an empty row",
                                         "G2 ending in empty rows", "G2 of 200000 rows, 32-47"};
    gs_format_params_default(&p);
    for (int k = 0; k < 3; k++) {
        const int32_t rows = k < 2 ? m : big;
        for (int32_t i = 0; i < rows; i++) {
            int32_t r = (int32_t)((389LL * i) % rows); /* rank in the sorted order */
            len[i] = k == 2      ? 47 - (int32_t)(16LL * r / rows)
                     : r < 23996 ? 64
                     : r < 24000 ? tails[k][r - 23996]
                                 : 0;
        }
        gs_csr *A = make_lengths(rows, 400, len);
        CHECK_OK(gs_spmat_create(A, GS_FORMAT_SURAA, &p, &M));
        if (M) {
            const gs_suraa *S = (const gs_suraa *)M->M;
            CHECK(order_ok(A, S->perm));
            if (k < 2)
                CHECK(S->iqr == 64 && S->seg_size == 4 && S->g2_end == 24000);
            else
                CHECK(S->iqr == 8 && S->seg_size == 1 && S->g2_end == big);
            CHECK(S->g1_end == 0 && S->nruns == 1 && S->runs[0].threads == 32);
            if (gpu) check_device_plan(A, &p, S);
        }
        gs_spmat_destroy(&M);
        fmt_check_case(names[k], A, GS_FORMAT_SURAA, &p, gpu, NULL);
        gs_csr_destroy(&A);
    }
    free(len);
}

/* G3 found through its length table on the device (rows of 0 to 16 entries in 17 lengths, the
 * empty ones last), and G3 whose first row (65 entries) is too long for the table, so rowptr
 * is read: 4000 rows of 100 (G2), then 65, then rows of 1 and 0; quartiles 100 and 1, segment
 * ceil(2 99 / cbrt(8000)) = 10 rows, so row 4000 starts the first G3 segment (mean 7.4) */
static void test_g3_lengths(int gpu)
{
    const int32_t m = 8000;
    int32_t *len = malloc((size_t)m * sizeof *len);
    gs_format_params p;
    gs_spmat *M = NULL;
    static const char *const names[2] = {"G3 of 17 lengths", "G3 from a row of 65"};
    gs_format_params_default(&p);
    for (int k = 0; k < 2; k++) {
        for (int32_t i = 0; i < m; i++) {
            const int32_t r = (int32_t)((389LL * i) % m); /* rank in the sorted order */
            len[i] = k == 0      ? (int32_t)((7LL * i) % 17)
                     : r < 4000  ? 100
                     : r == 4000 ? 65
                     : r < 7990  ? 1
                                 : 0;
        }
        gs_csr *A = make_lengths(m, 300, len);
        CHECK_OK(gs_spmat_create(A, GS_FORMAT_SURAA, &p, &M));
        if (M) {
            const gs_suraa *S = (const gs_suraa *)M->M;
            CHECK(order_ok(A, S->perm));
            if (k == 0)
                CHECK(S->g1_end == 0 && S->g2_end == 0 && S->ng3 >= 1);
            else
                CHECK(S->seg_size == 10 && S->g1_end == 0 && S->g2_end == 4000 &&
                      S->rowptr[4001] - S->rowptr[4000] == 65);
            if (gpu) check_device_plan(A, &p, S);
        }
        gs_spmat_destroy(&M);
        fmt_check_case(names[k], A, GS_FORMAT_SURAA, &p, gpu, NULL);
        gs_csr_destroy(&A);
    }
    free(len);
}

/* a row of 150000 entries among rows of 3: G1, on the device several child blocks */
static void test_long_row(int gpu)
{
    const int32_t m = 2000;
    int32_t *len = malloc((size_t)m * sizeof *len);
    gs_format_params p;
    gs_spmat *M = NULL;
    for (int32_t i = 0; i < m; i++) len[i] = i == 5 ? 150000 : 3;
    gs_csr *A = make_lengths(m, 200000, len);
    gs_format_params_default(&p);
    CHECK_OK(gs_spmat_create(A, GS_FORMAT_SURAA, &p, &M));
    if (M) {
        const gs_suraa *S = (const gs_suraa *)M->M;
        CHECK(S->perm[0] == 5 && S->g1_end == 1 && S->g2_end == 1 && S->seg_size == 1);
        CHECK(S->g1_dynamic == 1);
        if (gpu) check_device_plan(A, &p, S);
    }
    gs_spmat_destroy(&M);
    for (int dyn = 0; dyn <= !no_child_grids(); dyn++) {
        p.suraa_g1_dynamic = dyn;
        fmt_check_case(dyn ? "long row, child grids" : "long row, block per row", A,
                       GS_FORMAT_SURAA, &p, gpu, NULL);
    }
    gs_csr_destroy(&A);
    /* G1 rows of 1, 2 and 3 blocks of 4096 entries (4096, 4097, 9000, 2500), then G2 (40 and
     * 700 entries) and G3 (rows of 1..9 entries, lanes 1, 2, 4) */
    for (int32_t i = 0; i < m; i++) {
        int32_t r = (int32_t)((7LL * i) % m);
        len[i] = r == 0 ? 9000 : r == 1 ? 4097 : r == 2 ? 4096 : r == 3 ? 2500 : r < 10 ? 700
               : r < 100 ? 40 : 1 + r % 9;
    }
    A = make_lengths(m, 20000, len);
    p.suraa_g1_dynamic = -1;
    CHECK_OK(gs_spmat_create(A, GS_FORMAT_SURAA, &p, &M));
    if (M) {
        const gs_suraa *S = (const gs_suraa *)M->M;
        CHECK(S->g1_dynamic == 0 && S->g1_end > 0 && S->g1_end <= 4 && S->g2_end == 100);
        if (gpu) check_device_plan(A, &p, S);
    }
    gs_spmat_destroy(&M);
    for (int dyn = 0; dyn <= !no_child_grids(); dyn++) {
        p.suraa_g1_dynamic = dyn;
        fmt_check_case(dyn ? "long rows, child grids" : "long rows, blocks", A, GS_FORMAT_SURAA,
                       &p, gpu, NULL);
    }
    free(len);
    gs_csr_destroy(&A);
}

/* the longest-row hint (what the selector passes): the exact one gives the plan and the data
 * of no hint; one too short fails the device conversion with GS_ERR_INTERNAL naming the hint,
 * and the next conversion is right again (the plan's counters were cleared); the host
 * conversion does not use it. long_base sets the long rows (long_base + i): from 3000 the
 * longest (5909) takes the device's CUB scan of the sorted lengths, from 1000 (3910, below
 * 4096) its rowptr from the counts of each length, where the rows past the hint must sort
 * after the counted ones */
static void test_hint(int gpu, int32_t long_base)
{
    const int32_t m = 3000;
    int32_t *len = malloc((size_t)m * sizeof *len), longest = 0;
    gs_format_params p;
    gs_spmat *M = NULL;
    for (int32_t i = 0; i < m; i++) {
        len[i] = i % 97 == 0 ? long_base + i : i % 5 == 0 ? 60 : 1 + i % 7;
        longest = len[i] > longest ? len[i] : longest;
    }
    gs_csr *A = make_lengths(m, 50000, len);
    gs_format_params_default(&p);
    CHECK_OK(gs_spmat_create(A, GS_FORMAT_SURAA, &p, &M)); /* host: the reference plan */
    p.hint_max_len = longest;
    if (M) {
        if (gpu) check_device_plan(A, &p, (const gs_suraa *)M->M);
        fmt_check_case("longest-row hint", A, GS_FORMAT_SURAA, &p, gpu, NULL);
    }
#ifdef GS_HAVE_CUDA
    if (gpu && M) {
        gs_csr *dA = NULL;
        gs_spmat *D = NULL;
        CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
        p.hint_max_len = longest - 1;
        const gs_status st = dA ? gs_spmat_create(dA, GS_FORMAT_SURAA, &p, &D) : GS_OK;
        CHECK(st == GS_ERR_INTERNAL && D == NULL);
        CHECK(strstr(gs_error_message(), "longest-row hint") != NULL);
        if (st != GS_OK) gs_error_clear();
        gs_spmat_destroy(&D);
        gs_csr_destroy(&dA);
        p.hint_max_len = 0;
        check_device_plan(A, &p, (const gs_suraa *)M->M);
        p.hint_max_len = longest;
        check_device_plan(A, &p, (const gs_suraa *)M->M);
    }
#endif
    gs_spmat_destroy(&M);
    gs_csr_destroy(&A);
    free(len);
}

int main(int argc, char **argv)
{
    gs_format_params p;
    int gpu = argc > 1 && strcmp(argv[1], "--gpu") == 0;
    if (gpu) {
        if (gs_backend_cuda_devices(NULL) == 0) return 77;
        if (gs_backend_cuda_init(0, NULL, 0) != GS_OK) return 77;
    }
    test_segment_size();
    test_order(gpu);
    test_groups(gpu);
    test_long_row(gpu);
    test_g2_spans(gpu);
    test_g3_lengths(gpu);
    test_hint(gpu, 3000);
    test_hint(gpu, 1000);
    gs_format_params_default(&p);
    for (int dyn = 0; dyn <= !no_child_grids(); dyn++) {
        p.suraa_g1_dynamic = dyn;
        fmt_test_run(GS_FORMAT_SURAA, &p, gpu, NULL);
    }
    if (gpu) { /* a small G1 cap, so that G2's vector kernel takes most long rows */
        p.suraa_g1_dynamic = no_child_grids() ? 0 : -1;
        p.suraa_max_child_threads = 16;
        fmt_test_run(GS_FORMAT_SURAA, &p, gpu, NULL);
    }
    return gs_test_result("test_suraa");
}

/* test_cmrs.c: the CMRS format. The shared harness (fmt_test.h) for h in {1, 3, 4, 8, 16} x
 * sorted x modified; the packing (col << 4 | r), strip pointers and sorted order on the 5 x 5
 * example of Koza et al. (2014, sec. 3 and 4); the modified layout's lane rule (sec. 6.7) for
 * every h = 1..16; h out of range; more than 2^28 columns refused, exactly 2^28 taken.
 * With --gpu everything also runs on the device; --gpu h=N runs only strip height N's harness
 * (and, for N = 1, the checks above). */
#include "fmt_test.h"
#include "gs_cmrs.h"

static int g_gpu;

/* the CMRS struct of A made with height h, sorted / modified flags (NULL on failure) */
static gs_spmat *make(const gs_csr *A, int h, int sorted, int modified)
{
    gs_format_params p;
    gs_spmat *M = NULL;
    gs_format_params_default(&p);
    p.cmrs_h = h;
    p.cmrs_sort = sorted;
    p.cmrs_modified = modified;
    CHECK_OK(gs_spmat_create(A, GS_FORMAT_CMRS, &p, &M));
    return M;
}

/* the paper's matrix (2.1) */
static gs_csr *paper_matrix(void)
{
    static const int32_t ri[] = {0, 0, 1, 1, 2, 2, 3, 3, 3, 4};
    static const int32_t ci[] = {0, 3, 1, 4, 2, 4, 2, 3, 4, 4};
    static const double v[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    return fmt_from_coo(5, 5, 10, ri, ci, v);
}

/* Packing, strip pointers and orders of the paper's example with h = 2 (sec. 3 and 4). */
static void check_packing(void)
{
    static const int32_t sp[] = {0, 4, 9, 10};
    static const int32_t col[] = {0, 3, 1, 4, 2, 4, 2, 3, 4, 4},
                         row[] = {0, 0, 1, 1, 0, 0, 1, 1, 1, 0};
    static const int32_t scol[] = {0, 1, 3, 4, 2, 2, 3, 4, 4, 4};
    static const int32_t srow[] = {0, 1, 0, 1, 0, 1, 1, 0, 1, 0};
    static const double sval[] = {1, 3, 2, 4, 5, 7, 8, 6, 9, 10};
    gs_csr *A = paper_matrix();
    gs_spmat *M = make(A, 2, 0, 0);
    if (M) {
        const gs_cmrs *C = (const gs_cmrs *)M->M;
        CHECK(C->h == 2 && C->strips == 3 && C->stored == 10 && C->m == 0 && !C->sorted);
        for (int s = 0; s <= 3; s++) CHECK(C->stripptr[s] == sp[s]);
        for (int k = 0; k < 10; k++) {
            CHECK_MSG(C->colrow[k] == (uint32_t)(col[k] << 4 | row[k]), "entry %d: %#x", k,
                      C->colrow[k]);
            CHECK(C->val[k] == A->val[k]);
        }
        CHECK(gs_spmat_bytes(M) == 12.0 * 10 + 4.0 * 4 + 8.0 * 5 + 8.0 * 5);
        char d[80];
        gs_spmat_describe(M, d, sizeof d);
        CHECK_MSG(strcmp(d, "h=2, row-major, 0.0% padding") == 0, "describe: %s", d);
    }
    gs_spmat_destroy(&M);
    M = make(A, 2, 1, 0);
    if (M) {
        const gs_cmrs *C = (const gs_cmrs *)M->M;
        CHECK(C->sorted);
        for (int k = 0; k < 10; k++) {
            CHECK_MSG(C->colrow[k] == (uint32_t)(scol[k] << 4 | srow[k]), "sorted entry %d: %#x", k,
                      C->colrow[k]);
            CHECK(C->val[k] == sval[k]);
        }
    }
    gs_spmat_destroy(&M);
    M = make(A, 2, 0, 1); /* M = 32: strips padded to 32, the real entries first */
    if (M) {
        const gs_cmrs *C = (const gs_cmrs *)M->M;
        CHECK(C->m == 32 && C->stored == 96 && C->stripptr[1] == 32 && C->stripptr[3] == 96);
        CHECK(C->nzptr[0] == 0 && C->nzptr[1] == 4 && C->nzptr[2] == 9 && C->nzptr[3] == 10);
        for (int k = 0; k < 4; k++) CHECK(C->colrow[k] == (uint32_t)(col[k] << 4 | row[k]));
        for (int k = 4; k < 32; k++) CHECK(C->val[k] == 0.0 && (C->colrow[k] >> 4) < 5);
        char d[80];
        gs_spmat_describe(M, d, sizeof d);
        CHECK_MSG(strstr(d, "modified (M=32)") != NULL, "describe: %s", d);
    }
    gs_spmat_destroy(&M);
    gs_csr_destroy(&A);
}

/* sec. 6.7: in each group of 32 slots of a modified strip, the lanes holding one row differ
 * modulo M; strips start and end on group boundaries; rows below h, columns in range */
static void check_mod_rule(const gs_cmrs *C, const char *name)
{
    int bad = 0;
    for (int32_t s = 0; s < C->strips && !bad; s++) {
        int32_t b = C->stripptr[s], e = C->stripptr[s + 1];
        if (b % 32 || e % 32) bad = 1;
        for (int32_t g = b; g < e && !bad; g += 32) {
            unsigned char seen[GS_CMRS_MAX_H][32];
            memset(seen, 0, sizeof seen);
            for (int l = 0; l < 32; l++) {
                uint32_t p = C->colrow[g + l];
                int r = (int)(p & 15u), c = l % C->m;
                if (r >= C->h || (int64_t)(p >> 4) >= C->cols || seen[r][c]) bad = 1;
                seen[r][c] = 1;
            }
        }
    }
    CHECK_MSG(!bad, "%s: h = %d, M = %d: the modified layout breaks the lane rule", name, C->h,
              C->m);
}

/* every h = 1..16 with the modified layout (and the others) on a few shapes that stress it */
static void check_all_heights(void)
{
    gs_csr *cases[3];
    const char *names[3] = {"one dense row 3000", "short rows 1001", "empty rows 1001"};
    cases[0] = fmt_random(3000, 3000, fmt_len_dense_row, 13);
    cases[1] = fmt_random(1001, 1001, fmt_len_wide, 23);
    cases[2] = fmt_random(1001, 1001, fmt_len_empty_rows, 29);
    for (int h = 1; h <= GS_CMRS_MAX_H; h++)
        for (int i = 0; i < 3; i++) {
            gs_spmat *M = make(cases[i], h, 0, 1);
            if (M) check_mod_rule((const gs_cmrs *)M->M, names[i]);
            gs_spmat_destroy(&M);
            for (int v = 0; v < 3; v++) {
                gs_format_params p;
                char name[64];
                gs_format_params_default(&p);
                p.cmrs_h = h;
                p.cmrs_sort = v == 1;
                p.cmrs_modified = v == 2;
                snprintf(name, sizeof name, "%s h=%d %s", names[i], h,
                         v == 0   ? "plain"
                         : v == 1 ? "sorted"
                                  : "modified");
                fmt_check_case(name, cases[i], GS_FORMAT_CMRS, &p, g_gpu, NULL);
            }
        }
    for (int i = 0; i < 3; i++) gs_csr_destroy(&cases[i]);
}

/* h: 0 and negative mean auto, 17 is refused; columns: 2^28 taken, 2^28 + 1 and more refused */
static void check_limits(gs_loc loc)
{
    gs_format_params p;
    gs_spmat *M = NULL;
    gs_csr *A = paper_matrix(), *W = NULL, *dA = NULL, *dW = NULL;
    const gs_csr *a = A, *w = NULL;
    gs_format_params_default(&p);
    if (loc == GS_LOC_DEVICE) {
        CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
        a = dA;
    }
    if (!a) goto out;
    p.cmrs_h = 17;
    CHECK_FAIL(gs_spmat_create(a, GS_FORMAT_CMRS, &p, &M), GS_ERR_ARG, "out of range 1..16");
    p.cmrs_h = 0;
    CHECK_OK(gs_spmat_create(a, GS_FORMAT_CMRS, &p, &M));
    if (M) CHECK(((const gs_cmrs *)M->M)->h == GS_CMRS_H_DEFAULT);
    gs_spmat_destroy(&M);
    p.cmrs_h = -3;
    CHECK_OK(gs_spmat_create(a, GS_FORMAT_CMRS, &p, &M));
    if (M) CHECK(((const gs_cmrs *)M->M)->h == GS_CMRS_H_DEFAULT);
    gs_spmat_destroy(&M);

    /* one entry in the last column of a 1 x n matrix: n = 3e8 refused, n = 2^28 taken */
    for (int t = 0; t < 2; t++) {
        int64_t n = t == 0 ? 300000000 : GS_CMRS_MAX_COLS;
        CHECK_OK(gs_csr_create(1, n, 1, &W));
        if (!W) break;
        W->rowptr[0] = 0, W->rowptr[1] = 1, W->colind[0] = (int32_t)(n - 1), W->val[0] = 3.0;
        w = W;
        if (loc == GS_LOC_DEVICE) {
            CHECK_OK(gs_csr_upload(W, GS_LOC_DEVICE, &dW));
            w = dW;
        }
        for (int mod = 0; w && mod < 2; mod++) {
            p.cmrs_h = 16;
            p.cmrs_modified = mod;
            if (t == 0) {
                CHECK_FAIL(gs_spmat_create(w, GS_FORMAT_CMRS, &p, &M), GS_ERR_UNSUPPORTED,
                           "28 bits");
                continue;
            }
            gs_csr *B = NULL, *hB = NULL;
            CHECK_OK(gs_spmat_create(w, GS_FORMAT_CMRS, &p, &M));
            if (M && loc == GS_LOC_HOST) CHECK(((const gs_cmrs *)M->M)->colrow[0] == 0xfffffff0u);
            if (M) CHECK_OK(gs_spmat_to_csr(M, &B));
            if (B && loc == GS_LOC_DEVICE) CHECK_OK(gs_csr_download(B, &hB));
            const gs_csr *h = loc == GS_LOC_DEVICE ? hB : B;
            if (h) CHECK(fmt_csr_equal(W, h, "1 x 2^28", "round trip"));
            gs_csr_destroy(&hB);
            gs_csr_destroy(&B);
            gs_spmat_destroy(&M);
        }
        p.cmrs_modified = 0;
        gs_csr_destroy(&dW);
        gs_csr_destroy(&W);
    }
out:
    gs_csr_destroy(&dA);
    gs_csr_destroy(&A);
}

int main(int argc, char **argv)
{
    static const int hs[] = {1, 3, 4, 8, 16};
    /* h=N (after --gpu): only strip height N's harness, and the other checks only with N = 1 */
    const int only = argc > 2 && strncmp(argv[2], "h=", 2) == 0 ? atoi(argv[2] + 2) : 0;
    g_gpu = argc > 1 && strcmp(argv[1], "--gpu") == 0;
    if (g_gpu) {
        if (gs_backend_cuda_devices(NULL) == 0) return 77;
        if (gs_backend_cuda_init(0, NULL, 0) != GS_OK) return 77;
    }
    if (only <= 1) {
        check_packing();
        check_limits(GS_LOC_HOST);
        if (g_gpu) check_limits(GS_LOC_DEVICE);
        check_all_heights();
    }
    for (int i = 0; i < 5; i++)
        for (int sorted = 0; sorted < 2 && (only == 0 || only == hs[i]); sorted++)
            for (int modified = 0; modified < 2; modified++) {
                gs_format_params p;
                gs_format_params_default(&p);
                p.cmrs_h = hs[i];
                p.cmrs_sort = sorted;
                p.cmrs_modified = modified;
                printf("-- h = %d, sorted %d, modified %d\n", hs[i], sorted, modified);
                fmt_test_run(GS_FORMAT_CMRS, &p, g_gpu, NULL);
            }
    return gs_test_result("test_cmrs");
}

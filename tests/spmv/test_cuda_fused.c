/* Device mdot, maxpy and the SpMV with fused reductions against the host operations, on fresh
 * random data. Skipped (77) without a GPU. */
#include "gs_backend.h"
#include "gs_gen.h"
#include "gs_test.h"

static const gs_backend_ops *H, *D;

/* a host and a device vector holding the same random values */
static void pair(int64_t n, uint64_t seed, gs_vec **h, gs_vec **d)
{
    CHECK_OK(gs_vec_create(n, GS_LOC_HOST, h));
    CHECK_OK(gs_vec_create(n, GS_LOC_DEVICE, d));
    gs_gen_random_vector(seed, (*h)->data, n);
    CHECK_OK(gs_vec_set_host(*d, (*h)->data));
}

/* relative 2-norm distance of a device vector from a host one */
static double dist(const gs_vec *h, const gs_vec *d)
{
    double *t = malloc((size_t)(h->n ? h->n : 1) * sizeof *t), num = 0.0, den = 0.0;
    CHECK_OK(gs_vec_get_host(d, t));
    for (int64_t i = 0; i < h->n; i++) {
        num += (t[i] - h->data[i]) * (t[i] - h->data[i]);
        den += h->data[i] * h->data[i];
    }
    free(t);
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

static void check_mdot_maxpy(int k, int64_t n)
{
    gs_vec *vh[140], *vd[140], *wh, *wd;
    double oh[140], od[140], c[140];
    for (int i = 0; i < k; i++) pair(n, 100 + (uint64_t)i, &vh[i], &vd[i]);
    pair(n, 7, &wh, &wd);
    CHECK_OK(gs_vec_mdot(k, (const gs_vec *const *)vh, wh, oh));
    CHECK_OK(gs_vec_mdot(k, (const gs_vec *const *)vd, wd, od));
    for (int i = 0; i < k; i++) {
        CHECK_MSG(fabs(oh[i] - od[i]) <= 1e-12 * (1.0 + fabs(oh[i])) * sqrt((double)n),
                  "mdot k=%d n=%lld: [%d] %.17g vs %.17g", k, (long long)n, i, od[i], oh[i]);
        c[i] = 0.1 * (i + 1);
    }
    {   /* mdot2: the same against w and against V[0], in one reduction */
        double oh2[280], od2[280];
        CHECK_OK(gs_vec_mdot2(k, (const gs_vec *const *)vh, wh, vh[0], oh2));
        CHECK_OK(gs_vec_mdot2(k, (const gs_vec *const *)vd, wd, vd[0], od2));
        for (int i = 0; i < 2 * k; i++)
            CHECK_MSG(fabs(oh2[i] - od2[i]) <= 1e-12 * (1.0 + fabs(oh2[i])) * sqrt((double)n),
                      "mdot2 k=%d n=%lld: [%d] %.17g vs %.17g", k, (long long)n, i, od2[i],
                      oh2[i]);
        for (int i = 0; i < k; i++) CHECK_NEAR(oh2[i], oh[i], 1e-12 * sqrt((double)n));
    }
    CHECK_OK(gs_vec_maxpy(k, c, (const gs_vec *const *)vh, wh));
    CHECK_OK(gs_vec_maxpy(k, c, (const gs_vec *const *)vd, wd));
    CHECK_MSG(dist(wh, wd) <= 1e-14, "maxpy k=%d n=%lld: %g", k, (long long)n, dist(wh, wd));
    for (int i = 0; i < k; i++) {
        gs_vec_destroy(&vh[i]);
        gs_vec_destroy(&vd[i]);
    }
    gs_vec_destroy(&wh);
    gs_vec_destroy(&wd);
}

static void check_spmv_dots(const char *type, int stencil, int64_t size)
{
    gs_gen_params g = {.type = type, .size = size, .stencil = stencil, .dof = 1, .seed = 3,
                       .epsilon = 0.01, .velocity = 5.0, .degree = 8.0, .exponent = 2.5};
    gs_csr *A = NULL, *dA = NULL;
    gs_vec *xh, *xd, *yh, *yd, *rh, *rd;
    char desc[128];
    CHECK_OK(gs_gen_matrix(&g, &A, desc, sizeof desc));
    if (!A) return;
    CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
    pair(A->rows, 11, &xh, &xd);
    pair(A->rows, 12, &yh, &yd);
    pair(A->rows, 13, &rh, &rd);
    const gs_vec *ah[3] = {rh, yh, rh}, *bh[3] = {xh, xh, rh};
    const gs_vec *ad[3] = {rd, yd, rd}, *bd[3] = {xd, xd, rd};
    double oh[3], od[3];
    CHECK_OK(H->csr_spmv_dots(A, xh, yh, 3, ah, bh, oh));
    CHECK_OK(D->csr_spmv_dots(dA, xd, yd, 3, ad, bd, od));
    CHECK_MSG(dist(yh, yd) <= 1e-14, "%s: y %g", desc, dist(yh, yd));
    for (int i = 0; i < 3; i++)
        CHECK_MSG(fabs(oh[i] - od[i]) <= 1e-12 * (1.0 + fabs(oh[i])), "%s: dot %d %.17g vs %.17g",
                  desc, i, od[i], oh[i]);
    printf("spmv_dots %s: y %.1e, dots %.3e %.3e %.3e\n", desc, dist(yh, yd), od[0], od[1],
           od[2]);
    gs_vec *all[6] = {xh, xd, yh, yd, rh, rd};
    for (int i = 0; i < 6; i++) gs_vec_destroy(&all[i]);
    gs_csr_destroy(&dA);
    gs_csr_destroy(&A);
}

int main(void)
{
    if (gs_backend_cuda_devices(NULL) == 0 || gs_backend_cuda_init(0, NULL, 0) != GS_OK) {
        printf("no GPU: skipped\n");
        return 77;
    }
    long live = gs_mem_live();
    H = gs_backend_get(GS_LOC_HOST);
    D = gs_backend_get(GS_LOC_DEVICE);
    int ks[] = {1, 2, 5, 31, 128, 130};
    int64_t ns[] = {1, 1000, 1000003};
    for (size_t a = 0; a < sizeof ks / sizeof ks[0]; a++)
        for (size_t b = 0; b < sizeof ns / sizeof ns[0]; b++) check_mdot_maxpy(ks[a], ns[b]);
    check_spmv_dots("poisson", 7, 40);
    check_spmv_dots("poisson", 27, 20);
    check_spmv_dots("convdiff", 5, 300);
    check_spmv_dots("powerlaw", 7, 50000);
    CHECK(gs_mem_live() == live);
    return gs_test_result("test_cuda_fused");
}

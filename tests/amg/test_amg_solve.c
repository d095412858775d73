/* test_amg_solve.c: AMG-preconditioned solves end to end (test_amg.c: the setup phase by
 * phase): PCG with AMG on 3D Poisson converges in the expected iterations with the true residual
 * below rtol and operator complexity <= 1.6; block systems, every smoother and the W cycle
 * converge; the two-stage Gauss-Seidel stage against the substitution; the problem classes;
 * a zero diagonal is refused with the row named; classical AMG and the automatic choices; every
 * option; the Chebyshev smoother per level. With --gpu: every option where A lives, the device's
 * classical hierarchy and Gauss-Seidel stage against the host's, and the cycle replayed from a
 * CUDA graph with cuSPARSE operators, allocating nothing (exit 77 without a GPU). */
#include "test_amg_util.h"
#include "gs_amg_internal.h"
#include "gs_knob.h"

/* Two-stage Gauss-Seidel's stage (ops->gs_stage): started from g = D^-1 r and repeated, it is
 * the triangular solve by substitution after as many steps as the triangle is deep (T nilpotent),
 * forward with the lower part and backward with the upper; the last step adds g into x. On the
 * GPU (dev not NULL) every step gives the host's vector to rounding. */
static void check_gs_stage(const gs_csr *A, const gs_amg_ops *dev, const char *name)
{
    const gs_amg_ops *host = (const gs_amg_ops *)gs_backend_module(GS_LOC_HOST, GS_MODULE_AMG);
    const int32_t n = A->rows;
    const gs_backend_ops *be = dev ? gs_backend_get(GS_LOC_DEVICE) : NULL;
    double *w = malloc(8 * ((size_t)n + 1) * sizeof *w);
    double *b = w, *y = b + n, *dinv = y + n, *g = dinv + n, *g2 = g + n, *x = g2 + n,
           *ref = x + n, *dg = ref + n;
    double *d[5] = {NULL};
    for (int32_t i = 0; i < n; i++) {
        b[i] = 1.0 + 0.01 * (double)((i * 7) % 13);
        y[i] = 0.1 * (double)((i * 3) % 5);
    }
    int64_t bad = 0, first = -1;
    CHECK_OK(host->diag_inv(A, 0, dinv, NULL, &bad, &first));
    if (dev) {
        for (int k = 0; k < 5; k++)
            CHECK_OK(be->alloc(((size_t)n + 1) * sizeof(double), "gs test", (void **)&d[k]));
        CHECK_OK(be->put(d[0], b, (size_t)n * sizeof *b));
        CHECK_OK(be->put(d[1], y, (size_t)n * sizeof *y));
        CHECK_OK(be->put(d[2], dinv, (size_t)n * sizeof *dinv));
    }
    gs_csr *dA = NULL;
    if (dev) CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
    for (int upper = 0; upper < 2; upper++) {
        /* the reference: (D + T) ref = b - y by substitution */
        for (int32_t t = 0; t < n; t++) {
            const int32_t i = upper ? n - 1 - t : t;
            double s = b[i] - y[i], aii = 0.0;
            for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
                const int32_t j = A->colind[q];
                if (j == i) aii = A->val[q];
                else if (upper ? j > i : j < i) s -= A->val[q] * ref[j];
            }
            ref[i] = s / aii;
        }
        CHECK_OK(host->gs_stage(A, upper, dinv, b, y, NULL, g, NULL, 0));
        if (dev) CHECK_OK(dev->gs_stage(dA, upper, d[2], d[0], d[1], NULL, d[3], NULL, 0));
        double devdif = 0.0;
        for (int step = 1; step < n; step++) {
            const int last = step == n - 1;
            for (int32_t i = 0; i < n; i++) x[i] = 1.0;
            CHECK_OK(host->gs_stage(A, upper, dinv, b, y, g, g2, last ? x : NULL, 0));
            memcpy(g, g2, (size_t)n * sizeof *g);
            if (dev && step <= 3) { /* the device's steps against the host's */
                CHECK_OK(dev->gs_stage(dA, upper, d[2], d[0], d[1], d[3], d[4], NULL, 0));
                CHECK_OK(be->get(dg, d[4], (size_t)n * sizeof *dg));
                for (int32_t i = 0; i < n; i++)
                    devdif = fmax(devdif, fabs(dg[i] - g[i]) / fmax(1.0, fabs(g[i])));
                double *t = d[3];
                d[3] = d[4], d[4] = t;
            }
            if (!last && n > 40 && step == 40) break; /* deep triangles: the first steps only */
        }
        if (n <= 40) {
            double e = 0.0, ex = 0.0;
            for (int32_t i = 0; i < n; i++) {
                e = fmax(e, fabs(g[i] - ref[i]) / fmax(1.0, fabs(ref[i])));
                ex = fmax(ex, fabs(x[i] - 1.0 - ref[i]) / fmax(1.0, fabs(ref[i])));
            }
            CHECK_MSG(e < 1e-12 && ex < 1e-12, "%s %s: the repeated stage is %g from the "
                      "substitution (x: %g)", name, upper ? "backward" : "forward", e, ex);
        }
        if (dev)
            CHECK_MSG(devdif < 1e-13, "%s %s: the device's stage is %g from the host's", name,
                      upper ? "backward" : "forward", devdif);
    }
    for (int k = 0; k < 5; k++)
        if (d[k]) be->free(d[k]);
    gs_csr_destroy(&dA);
    free(w);
}

static void test_solves(void)
{
    gs_amg_params p;
    double oc, rr;
    gs_amg_params_default(&p);
    gs_csr *A = generate("poisson", 32, 7, 1);
    int its = solve(A, GS_LOC_HOST, &p, GS_KRYLOV_CG, &oc, &rr);
    printf("poisson 7-pt 32^3 AMG-PCG: %d iterations, OC %.3f, residual %.2e\n", its, oc, rr);
    CHECK(its >= 5 && its <= 16);
    CHECK(oc > 1.0 && oc <= 1.6);
    CHECK(rr <= 1e-8);
    const struct {
        const char *s;
        int w;
        const char *name;
    } v[] = {{"jacobi", 0, "jacobi"},
             {"l1jacobi", 0, "l1jacobi"},
             {"gs", 0, "gs"},
             {"chebyshev", 1, "chebyshev W"}};
    for (int i = 0; i < 4; i++) {
        gs_amg_params q = p;
        q.smoother = gs_smoother_find(v[i].s);
        CHECK(q.smoother != NULL);
        q.cycle_w = v[i].w;
        its = solve(A, GS_LOC_HOST, &q, GS_KRYLOV_CG, &oc, &rr);
        printf("  %s: %d iterations\n", v[i].name, its);
        CHECK(its > 0 && its <= 40 && rr <= 1e-8);
    }
    gs_csr_destroy(&A);

    A = generate("poisson", 16, 7, 3); /* 3 unknowns per point, aggregated together */
    p.block_size = 3;
    its = solve(A, GS_LOC_HOST, &p, GS_KRYLOV_CG, &oc, &rr);
    printf("poisson 7-pt 16^3 x 3 dof, block AMG-PCG: %d iterations, OC %.3f\n", its, oc);
    CHECK(its > 0 && its <= 20 && rr <= 1e-8);
    gs_csr_destroy(&A);
    p.block_size = 1;

    A = generate("convdiff", 64, 5, 1);
    its = solve(A, GS_LOC_HOST, &p, GS_KRYLOV_GMRES, &oc, &rr);
    printf("convdiff 64^2 AMG-GMRES: %d iterations\n", its);
    CHECK(its > 0 && its <= 60 && rr <= 1e-8);
    {
        gs_amg_params q = p;
        q.smoother = gs_smoother_find("gs");
        its = solve(A, GS_LOC_HOST, &q, GS_KRYLOV_GMRES, &oc, &rr);
        printf("  gs: %d iterations\n", its);
        CHECK(its > 0 && its <= 60 && rr <= 1e-8);
    }
    check_gs_stage(A, NULL, "convdiff 64^2");
    gs_csr_destroy(&A);
    A = generate("poisson", 6, 7, 1); /* 216 rows: a deep triangle, checked for 40 steps */
    check_gs_stage(A, NULL, "poisson 6^3");
    gs_csr_destroy(&A);
    A = generate("poisson", 3, 7, 1); /* 27 rows: the substitution reached */
    check_gs_stage(A, NULL, "poisson 3^3");
    gs_csr_destroy(&A);

    /* the default on the problem classes: few iterations at low operator complexity */
    const struct {
        const char *type;
        int64_t size;
        int stencil, max_its;
    } cls[] = {{"jumps", 24, 7, 14}, {"anisotropic", 24, 7, 12}, {"rotated", 128, 9, 36},
               {"poisson", 16, 27, 9}, {"elasticity", 48, 9, 14}, {"elasticity", 8, 27, 10}};
    for (size_t c = 0; c < sizeof cls / sizeof cls[0]; c++) {
        double *B = NULL;
        int k = 0;
        gs_amg_params q = p;
        A = generate_ns(cls[c].type, cls[c].size, cls[c].stencil, 1, &B, &k);
        if (!A) continue;
        q.nullspace = B, q.nullspace_k = k, q.block_size = k ? (cls[c].stencil == 9 ? 2 : 3) : 1;
        its = solve(A, GS_LOC_HOST, &q, GS_KRYLOV_CG, &oc, &rr);
        printf("%s %lld (%d-point) AMG-PCG: %d iterations, OC %.3f\n", cls[c].type,
               (long long)cls[c].size, cls[c].stencil, its, oc);
        CHECK_MSG(its > 0 && its <= cls[c].max_its && rr <= 1e-8 && oc <= 1.8,
                  "%s: %d iterations (at most %d), OC %.3f", cls[c].type, its, cls[c].max_its, oc);
        gs_free(B);
        gs_csr_destroy(&A);
    }

    /* a zero diagonal is bad input with the row named */
    A = poisson1d(10);
    A->val[A->rowptr[4] + 1] = 0.0; /* row 5's diagonal */
    gs_amg *amg = NULL;
    CHECK_FAIL(gs_amg_setup(A, &p, "zero.mtx", &amg), GS_ERR_INPUT, "zero.mtx: row 5");
    gs_csr_destroy(&A);
}

/* A 2D Poisson 5-point n x n grid with node 0 made a hub (a dense row): coupled to every
 * node by -h, the diagonals raised so the rows still sum to zero (circuit-like: one row much
 * longer than the mean) */
static gs_csr *poisson_hub(int32_t n, double h)
{
    gs_csr *G = generate("poisson", n, 5, 1), *A = NULL;
    int64_t cap = (int64_t)G->nnz + 4 * (int64_t)G->rows + 1, k = 0;
    int32_t *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = malloc((size_t)cap * sizeof *v);
    for (int32_t i = 0; i < G->rows; i++)
        for (int32_t q = G->rowptr[i]; q < G->rowptr[i + 1]; q++)
            ri[k] = i, ci[k] = G->colind[q], v[k++] = G->val[q];
    for (int32_t i = 1; i < G->rows; i++) {
        ri[k] = 0, ci[k] = i, v[k++] = -h;
        ri[k] = i, ci[k] = 0, v[k++] = -h;
        ri[k] = i, ci[k] = i, v[k++] = h;
        ri[k] = 0, ci[k] = 0, v[k++] = h;
    }
    CHECK_OK(gs_csr_from_coo(G->rows, G->cols, k, ri, ci, v, &A));
    free(ri), free(ci), free(v);
    gs_csr_destroy(&G);
    return A;
}

/* Classical AMG on the host: level 0 of a 2D Poisson: C rows of P are unit rows at their coarse
 * index; every F point with a strong neighbour interpolates from something; rows of A that sum
 * to zero give rows of P that sum to one; at most 4 entries a row; A_c = P^T A P. Then PCG on 3D
 * Poisson, the automatic choices (a nonsymmetric matrix -> classical and l1-Jacobi, GMRES
 * converges; a symmetric one -> smoothed aggregation), and a hub row kept out of the coarse
 * levels (an F point with an empty row of P) at operator complexity <= 2. */
/* level 0 of a classical hierarchy: R = P^T exactly (pt), or R differs from P^T and is the
 * transpose of an interpolation (C rows of R^T the identity on cmap); A_c = R A P either way */
static void check_restriction(const gs_amg *amg, const gs_csr *A, int pt, const char *name)
{
    gs_csr *P = NULL, *R = NULL, *Ac = NULL, *Pt = NULL, *Rt = NULL, *AP = NULL, *RAP = NULL;
    int32_t *cmap = NULL, n = 0;
    CHECK_OK(gs_amg_level_download(amg, 0, NULL, &P, &R, &cmap, &n));
    CHECK_OK(gs_amg_level_download(amg, 1, &Ac, NULL, NULL, NULL, NULL));
    if (P && R && Ac && cmap) {
        CHECK_OK(gs_csr_transpose(P, &Pt));
        CHECK_OK(gs_csr_transpose(R, &Rt));
        double d = Pt ? csr_diff(R, Pt) : -1.0;
        if (pt)
            CHECK_MSG(d == 0.0, "%s: R is not P^T (%g)", name, d);
        else
            CHECK_MSG(d != 0.0, "%s: R from A^T is P^T", name);
        int32_t bad = 0;
        for (int32_t i = 0; Rt && i < n; i++)
            if (cmap[i] >= 0)
                bad += Rt->rowptr[i + 1] - Rt->rowptr[i] != 1 ||
                       Rt->colind[Rt->rowptr[i]] != cmap[i] || Rt->val[Rt->rowptr[i]] != 1.0;
        CHECK_MSG(bad == 0, "%s: %d C rows of R^T are not the identity", name, bad);
        CHECK_OK(gs_spgemm_host(A, P, &AP));
        CHECK_OK(gs_spgemm_host(R, AP, &RAP));
        d = RAP ? csr_diff(Ac, RAP) : -1.0;
        CHECK_MSG(d >= 0 && d < 1e-13, "%s: A_c differs from R A P (%g)", name, d);
    } else {
        CHECK_MSG(0, "%s: no level 0 operators", name);
    }
    gs_csr_destroy(&P), gs_csr_destroy(&R), gs_csr_destroy(&Ac), gs_csr_destroy(&Pt);
    gs_csr_destroy(&Rt), gs_csr_destroy(&AP), gs_csr_destroy(&RAP);
    gs_free(cmap);
}

static void test_classical(void)
{
    gs_amg_params p;
    gs_amg_params_default(&p);
    p.method = GS_AMG_METHOD_CLASSICAL;
    gs_csr *A = generate("poisson", 40, 5, 1), *P = NULL, *Ac = NULL, *S = NULL, *AP = NULL,
           *Rt = NULL, *PtAP = NULL;
    gs_amg *amg = NULL;
    int32_t *cmap = NULL, n = 0;
    CHECK_OK(gs_amg_setup(A, &p, "poisson 40^2", &amg));
    CHECK_OK(gs_amg_level_download(amg, 0, NULL, &P, NULL, &cmap, &n));
    CHECK_OK(gs_amg_level_download(amg, 1, &Ac, NULL, NULL, NULL, NULL));
    CHECK_OK(gs_amg_host_ops.classical_strength(A, p.classical_theta, 0, &S));
    CHECK(P && cmap && n == A->rows && Ac);
    if (!P || !cmap || !Ac || !S) goto out;
    int32_t nc = 0, bad_c = 0, empty_f = 0, bad_sum = 0, wide = 0;
    for (int32_t i = 0; i < n; i++) nc += cmap[i] >= 0;
    CHECK(nc == P->cols && nc > n / 5 && nc < n / 2);
    for (int32_t i = 0; i < n; i++) {
        const int32_t len = P->rowptr[i + 1] - P->rowptr[i];
        double rs = 0.0, sum = 0.0;
        for (int32_t q = P->rowptr[i]; q < P->rowptr[i + 1]; q++) sum += P->val[q];
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) rs += A->val[q];
        if (cmap[i] >= 0)
            bad_c += len != 1 || P->colind[P->rowptr[i]] != cmap[i] || P->val[P->rowptr[i]] != 1.0;
        else
            empty_f += len == 0 && S->rowptr[i + 1] > S->rowptr[i];
        bad_sum += fabs(rs) < 1e-14 && fabs(sum - 1.0) > 1e-12;
        wide += len > 4;
    }
    CHECK_MSG(bad_c == 0 && empty_f == 0 && bad_sum == 0 && wide == 0,
              "P of classical AMG: %d bad C rows, %d F rows without interpolation, %d rows of "
              "zero-sum A not summing to 1, %d rows above 4 entries", bad_c, empty_f, bad_sum,
              wide);
    CHECK_OK(gs_spgemm_host(A, P, &AP));
    CHECK_OK(gs_csr_transpose(P, &Rt));
    CHECK_OK(gs_spgemm_host(Rt, AP, &PtAP));
    double dif = PtAP ? csr_diff(Ac, PtAP) : -1.0;
    CHECK_MSG(dif >= 0 && dif < 1e-13, "classical A_c differs from P^T A P (%g)", dif);
    { /* on a symmetric A, A^T's interpolation is P: R = P^T to the bit */
        gs_amg *at = NULL;
        gs_amg_params pa = p;
        pa.restriction = GS_AMG_RESTRICT_AT;
        CHECK_OK(gs_amg_setup(A, &pa, "poisson 40^2, R from A^T", &at));
        if (at) check_restriction(at, A, 1, "poisson 40^2, R from A^T");
        gs_amg_destroy(&at);
    }
out:
    gs_csr_destroy(&A), gs_csr_destroy(&P), gs_csr_destroy(&Ac), gs_csr_destroy(&S);
    gs_csr_destroy(&AP), gs_csr_destroy(&Rt), gs_csr_destroy(&PtAP);
    gs_free(cmap);
    gs_amg_destroy(&amg);

    double oc, rr;
    A = generate("poisson", 24, 7, 1);
    int its = solve(A, GS_LOC_HOST, &p, GS_KRYLOV_CG, &oc, &rr);
    printf("poisson 7-pt 24^3 classical AMG-PCG: %d iterations, OC %.3f\n", its, oc);
    CHECK(its > 0 && its <= 20 && rr <= 1e-8 && oc <= 3.0);
    gs_csr_destroy(&A);

    gs_amg_params q;
    gs_amg_params_default(&q); /* auto */
    A = generate("convdiff", 64, 5, 1);
    CHECK_OK(gs_amg_setup(A, &q, "convdiff", &amg));
    if (amg) {
        const gs_amg_report *r = gs_amg_get_report(amg);
        CHECK_MSG(r->method == GS_AMG_METHOD_CLASSICAL && strstr(r->choice, "nonsymmetric") &&
                      strstr(r->choice, "smoother l1jacobi") &&
                      strstr(r->choice, "restriction at") &&
                      r->restriction == GS_AMG_RESTRICT_AT,
                  "convdiff: chose \"%s\"", r->choice);
        check_restriction(amg, A, 0, "convdiff 64^2");
    }
    gs_amg_destroy(&amg);
    its = solve(A, GS_LOC_HOST, &q, GS_KRYLOV_GMRES, &oc, &rr);
    printf("convdiff 64^2 auto AMG-GMRES: %d iterations, OC %.3f\n", its, oc);
    CHECK(its > 0 && its <= 30 && rr <= 1e-8);
    gs_csr_destroy(&A);
    /* upwind convection across the grid lines: R from A^T takes fewer iterations than P^T */
    A = generate("convdiff", 128, 5, 1);
    {
        gs_amg_params qa = q, qp = q;
        qa.restriction = GS_AMG_RESTRICT_AT, qp.restriction = GS_AMG_RESTRICT_PT;
        int ia = solve(A, GS_LOC_HOST, &qa, GS_KRYLOV_GMRES, &oc, &rr);
        CHECK(rr <= 1e-8);
        int ip = solve(A, GS_LOC_HOST, &qp, GS_KRYLOV_GMRES, &oc, &rr);
        printf("convdiff 128^2 AMG-GMRES: R from A^T %d iterations, R = P^T %d\n", ia, ip);
        CHECK(ia > 0 && ia < ip && rr <= 1e-8);
    }
    gs_csr_destroy(&A);

    A = generate("poisson", 24, 7, 1);
    CHECK_OK(gs_amg_setup(A, &q, "poisson", &amg));
    if (amg)
        CHECK_MSG(gs_amg_get_report(amg)->method == GS_AMG_METHOD_SA &&
                      strstr(gs_amg_get_report(amg)->choice, "smoother chebyshev"),
                  "poisson: chose \"%s\"", gs_amg_get_report(amg)->choice);
    gs_amg_destroy(&amg);
    gs_csr_destroy(&A);

    A = poisson_hub(40, 0.05);
    CHECK_OK(gs_amg_setup(A, &q, "hub", &amg));
    if (amg) {
        const gs_amg_report *r = gs_amg_get_report(amg);
        CHECK_MSG(r->method == GS_AMG_METHOD_CLASSICAL && strstr(r->choice, "irregular rows") &&
                      r->restriction == GS_AMG_RESTRICT_PT,
                  "hub: chose \"%s\"", r->choice);
        check_restriction(amg, A, 1, "hub");
        CHECK_OK(gs_amg_level_download(amg, 0, NULL, &P, NULL, &cmap, &n));
        CHECK(cmap && P && cmap[0] == -1 && P->rowptr[1] == 0);
        gs_csr_destroy(&P);
        gs_free(cmap);
    }
    gs_amg_destroy(&amg);
    its = solve(A, GS_LOC_HOST, &q, GS_KRYLOV_CG, &oc, &rr);
    printf("poisson 40^2 with a hub, auto AMG-PCG: %d iterations, OC %.3f\n", its, oc);
    CHECK(its > 0 && its <= 30 && rr <= 1e-8 && oc <= 2.0);
    gs_csr_destroy(&A);
}

/* The device's classical hierarchy against the host's: the same C/F splitting on level 0, P
 * to rounding there (its values come through a product summed in another order), level sizes,
 * and iterations within 2 */
static void test_gpu_classical(const char *name, gs_csr *A, gs_krylov_type kt)
{
    gs_csr *dA = NULL;
    gs_amg *h = NULL, *d = NULL;
    gs_amg_params p;
    gs_amg_params_default(&p);
    p.method = GS_AMG_METHOD_CLASSICAL;
    CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
    CHECK_OK(gs_amg_setup(A, &p, name, &h));
    CHECK_OK(gs_amg_setup(dA, &p, name, &d));
    if (h && d) {
        const gs_amg_report *rh = gs_amg_get_report(h), *rd = gs_amg_get_report(d);
        CHECK_MSG(rh->levels == rd->levels && strcmp(rh->choice, rd->choice) == 0,
                  "%s: %d host levels, %d device; choices \"%s\", \"%s\"", name, rh->levels,
                  rd->levels, rh->choice, rd->choice);
        gs_csr *Ph = NULL, *Pd = NULL, *Rh = NULL, *Rd = NULL;
        int32_t *ch = NULL, *cd = NULL, nh = 0, nd = 0;
        CHECK_OK(gs_amg_level_download(h, 0, NULL, &Ph, &Rh, &ch, &nh));
        CHECK_OK(gs_amg_level_download(d, 0, NULL, &Pd, &Rd, &cd, &nd));
        CHECK_MSG(ch && cd && nh == nd && memcmp(ch, cd, (size_t)nh * 4) == 0,
                  "%s: the C/F splittings differ", name);
        double dif = Ph && Pd ? csr_diff(Pd, Ph) : -1.0;
        CHECK_MSG(dif >= 0 && dif < 1e-12, "%s level 0: P differs (%g)", name, dif);
        CHECK(rh->restriction == rd->restriction);
        dif = Rh && Rd ? csr_diff(Rd, Rh) : -1.0;
        CHECK_MSG(dif >= 0 && dif < 1e-12, "%s level 0: R (%s) differs (%g)", name,
                  rh->restriction == GS_AMG_RESTRICT_AT ? "from A^T" : "P^T", dif);
        gs_csr_destroy(&Rh), gs_csr_destroy(&Rd);
        for (int l = 1; l < rh->levels && l < rd->levels; l++)
            CHECK_MSG(rh->level[l].rows == rd->level[l].rows &&
                          fabs((double)rh->level[l].nnz - rd->level[l].nnz) <=
                              0.02 * rh->level[l].nnz,
                      "%s level %d: %d rows, %lld nonzeros on the host, %d and %lld on the device",
                      name, l, rh->level[l].rows, (long long)rh->level[l].nnz, rd->level[l].rows,
                      (long long)rd->level[l].nnz);
        gs_csr_destroy(&Ph), gs_csr_destroy(&Pd);
        gs_free(ch), gs_free(cd);
    }
    double oc, rr;
    int ih = solve(A, GS_LOC_HOST, &p, kt, &oc, &rr);
    int id = solve(A, GS_LOC_DEVICE, &p, kt, &oc, &rr);
    printf("%s classical: host %d iterations, device %d\n", name, ih, id);
    CHECK(id > 0 && abs(ih - id) <= 2 && rr <= 1e-8);
    gs_amg_destroy(&h);
    gs_amg_destroy(&d);
    gs_csr_destroy(&dA);
}

/* Every AMG option runs where A lives (issue: theta > 0 ended in a failed graph launch on the
 * GPU): each value of each key, one at a time on top of the defaults, on a scalar problem with
 * jumping coefficients and on 2D elasticity with its rigid-body modes, PCG to 1e-8 (the true
 * residual). The device adds the Galerkin products by DCSR and by cuSPARSE. */
static void test_options(gs_loc loc)
{
    const char *names[] = {"jumps 16^3", "elasticity 2D 24^2"};
    for (int prob = 0; prob < 2; prob++) {
        double *B = NULL;
        int k = 0;
        gs_csr *A = prob == 0 ? generate_ns("jumps", 16, 7, 1, NULL, NULL)
                              : generate_ns("elasticity", 24, 9, 1, &B, &k);
        if (!A) continue;
        for (int v = 0;; v++) {
            gs_amg_params q;
            gs_amg_params_default(&q);
            if (prob == 1) q.block_size = 2, q.nullspace = B, q.nullspace_k = k;
            const char *what = NULL;
            switch (v) {
            case 0: what = "defaults"; break;
            case 1: what = "theta 0", q.theta = 0.0; break;
            case 2: what = "theta 0.1", q.theta = 0.1; break;
            case 3: what = "theta 0.5", q.theta = 0.5; break;
            case 4: what = "theta 0.9", q.theta = 0.9; break;
            case 5: what = "strength symmetric, theta 0", q.strength = GS_STRENGTH_SYMMETRIC,
                    q.theta = 0.0; break;
            case 6: what = "strength symmetric, theta 0.05", q.strength = GS_STRENGTH_SYMMETRIC,
                    q.theta = 0.05; break;
            case 7: what = "filter 0", q.filter = 0; break;
            case 8: what = "aggregation standard", q.aggregation = GS_AGG_STANDARD; break;
            case 9: what = "cycle W", q.cycle_w = 1; break;
            case 10: what = "smoother jacobi", q.smoother = gs_smoother_find("jacobi"); break;
            case 11: what = "smoother l1jacobi", q.smoother = gs_smoother_find("l1jacobi"); break;
            case 12: what = "smooth_prolongator 0", q.smooth_prolongator = 0; break;
            case 13: what = "2+2 sweeps", q.presweeps = q.postsweeps = 2; break;
            case 14: what = "max_levels 2", q.max_levels = 2; break;
            case 15: what = "coarse_size 10", q.coarse_size = 10; break;
            case 16: what = "chebyshev_degree 1", q.chebyshev_degree = 1; break;
            case 17: what = "chebyshev_degree 6, coarse 0", q.chebyshev_degree = 6,
                     q.coarse_chebyshev_degree = 0; break;
            case 18: what = "chebyshev_ratio 1", q.chebyshev_ratio = 1.0; break;
            case 19: what = "chebyshev_ratio 100", q.chebyshev_ratio = 100.0; break;
            case 20: what = "prolongator_omega 0.5", q.prolongator_omega = 0.5; break;
            case 21: what = "jacobi omega 0.5", q.smoother = gs_smoother_find("jacobi"),
                     q.smoother_omega = 0.5; break;
            case 22: what = "galerkin dcsr", q.galerkin = GS_SPGEMM_DCSR; break;
            case 23: what = "galerkin cusparse", q.galerkin = GS_SPGEMM_CUSPARSE; break;
            case 24: what = "smoother gs", q.smoother = gs_smoother_find("gs"); break;
            default: break;
            }
            if (!what) break;
            if (v >= 22 && v <= 23 && loc == GS_LOC_HOST) continue; /* the GPU's products */
            double oc = 0.0, rr = 1.0;
            int its = solve(A, loc, &q, GS_KRYLOV_CG, &oc, &rr);
            CHECK_MSG(its > 0 && rr <= 1e-8, "%s, %s, %s: %d iterations, residual %.2e",
                      names[prob], loc == GS_LOC_HOST ? "host" : "GPU", what, its, rr);
        }
        gs_free(B);
        gs_csr_destroy(&A);
    }
}

/* the Chebyshev smoother per level: chebyshev_degree on levels 0 and 1, coarse_chebyshev_degree
 * below, on [hi / max(chebyshev_ratio, degree^2), hi]; the stronger coarse smoother takes no
 * more iterations than the plain one where the hierarchy has such levels */
static void test_chebyshev_levels(void)
{
    gs_amg_params p;
    gs_amg_params_default(&p);
    CHECK(gs_amg_level_degree(&p, 0, 1.0) == 3 && gs_amg_level_degree(&p, 1, 0.01) == 3);
    CHECK(gs_amg_level_degree(&p, 2, 0.05) == 10 && gs_amg_level_degree(&p, 5, 0.0) == 10);
    CHECK(gs_amg_level_degree(&p, 2, 0.5) == 3); /* a classical hierarchy's large level */
    CHECK_NEAR(gs_amg_level_ratio(&p, 3), 10.0, 0);
    CHECK_NEAR(gs_amg_level_ratio(&p, 10), 100.0, 0);
    p.chebyshev_ratio = 9.0;
    CHECK_NEAR(gs_amg_level_ratio(&p, 2), 9.0, 0);
    CHECK_NEAR(gs_amg_level_ratio(&p, 4), 16.0, 0);
    p.chebyshev_ratio = 30.0;
    p.coarse_chebyshev_degree = 0;
    CHECK(gs_amg_level_degree(&p, 3, 0.0) == 3);

    gs_csr *A = generate("poisson", 32, 7, 1);
    gs_amg *amg = NULL;
    double oc, rr;
    p.coarse_size = 20; /* 32768 / 3064 / 60 / 1: level 2 is smoothed */
    int its_plain = solve(A, GS_LOC_HOST, &p, GS_KRYLOV_CG, &oc, &rr);
    p.coarse_chebyshev_degree = 10;
    CHECK_OK(gs_amg_setup(A, &p, "test", &amg));
    if (amg) {
        const gs_amg_report *r = gs_amg_get_report(amg);
        CHECK_MSG(r->levels >= 4, "%d levels", r->levels);
        CHECK_MSG(strstr(r->desc, "Chebyshev degree 3 on [hi/30, hi], small levels >= 2: 10 on "
                                  "[hi/100, hi]") != NULL, "desc \"%s\"", r->desc);
    }
    gs_amg_destroy(&amg);
    int its = solve(A, GS_LOC_HOST, &p, GS_KRYLOV_CG, &oc, &rr);
    printf("poisson 7-pt 32^3, 4 levels: %d iterations with coarse degree 10, %d with 3\n", its,
           its_plain);
    CHECK(its > 0 && its <= its_plain && rr <= 1e-8);
    p.chebyshev_ratio = 0.5;
    CHECK_FAIL(gs_amg_setup(A, &p, "test", &amg), GS_ERR_CONFIG, "amg.chebyshev_ratio = 0.5");
    gs_csr_destroy(&A);
}

/* 3D 7-point -div(k grad u), k = 1 or 1e3 on a checkerboard of 8^3 blocks: at theta = 0.25
 * only couplings across the jumps are strong, so most rows of P are empty (std > mean: the GPU
 * rule table picks cuSPARSE for P) */
static gs_csr *jump3d(int n)
{
    const int64_t N = (int64_t)n * n * n;
    const int o[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
    int32_t *ri = malloc(7 * N * sizeof *ri), *ci = malloc(7 * N * sizeof *ci);
    double *v = malloc(7 * N * sizeof *v);
    int64_t k = 0;
#define JUMP_K(x, y, z) ((((x) / 8 + (y) / 8 + (z) / 8) & 1) ? 1e3 : 1.0)
    for (int z = 0; z < n; z++)
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) {
                const int32_t i = (int32_t)(((int64_t)z * n + y) * n + x);
                const double ki = JUMP_K(x, y, z);
                double d = 0.0;
                for (int q = 0; q < 6; q++) {
                    int a = x + o[q][0], b = y + o[q][1], c = z + o[q][2];
                    int in = a >= 0 && b >= 0 && c >= 0 && a < n && b < n && c < n;
                    double kj = in ? JUMP_K(a, b, c) : ki, w = 2.0 * ki * kj / (ki + kj);
                    d += w; /* Dirichlet outside */
                    if (in) ri[k] = i, ci[k] = (int32_t)(((int64_t)c * n + b) * n + a), v[k++] = -w;
                }
                ri[k] = i, ci[k] = i, v[k++] = d;
            }
#undef JUMP_K
    gs_csr *A = NULL;
    CHECK_OK(gs_csr_from_coo((int32_t)N, (int32_t)N, k, ri, ci, v, &A));
    free(ri), free(ci), free(v);
    return A;
}

/* the cycle, recorded once into a CUDA graph and replayed by every PCG iteration, with cuSPARSE
 * operators: every level in cuSPARSE (spmv.format = "cusparse"), and the selector's pick for P
 * at theta = 0.25 on jumping coefficients. A cuSPARSE buffer allocated at the first SpMV became
 * an allocation of the graph and its second launch failed (cudaErrorInvalidValue); the buffers
 * are now made with the operators, so an application allocates nothing */
/* drop_csr: the hierarchy frees the CSR arrays its formats do not read (OWN: below the finest;
 * ALL: the finest's too) and cycles exactly as one that keeps them (the same z = M r); the
 * Gauss-Seidel smoother keeps A's; re-setup and block cycles refuse with a message. Every
 * operator in CMRS (a layout of its own, whatever the size) */
static void test_drop_csr(gs_loc loc)
{
    const char *where = loc == GS_LOC_HOST ? "host" : "GPU";
    gs_csr *A = generate("poisson", 24, 7, 1), *dA[4] = {NULL, NULL, NULL, NULL};
    gs_amg *amg[4] = {NULL, NULL, NULL, NULL};
    gs_vec *r = NULL, *z = NULL, *z0 = NULL;
    gs_select_request rq = {.format = "cmrs", .levels = NULL};
    gs_format_params_default(&rq.params);
    for (int d = 0; d < 4 && A; d++) { /* drop_csr NONE, OWN, ALL, ALL with level 0's format
                                        * deferred (its Lanczos steps on the CSR) */
        gs_amg_params p;
        gs_amg_params_default(&p);
        p.select = &rq;
        p.drop_csr = d < 3 ? d : GS_AMG_DROP_ALL;
        CHECK_OK(gs_knob_set("GSOLVE_AMG_DEFER", d == 3 ? "1" : "0"));
        CHECK_OK(gs_csr_upload(A, loc, &dA[d]));
        if (dA[d]) CHECK_OK(gs_amg_setup(dA[d], &p, "drop test", &amg[d]));
    }
    CHECK_OK(gs_knob_set("GSOLVE_AMG_DEFER", NULL));
    if (!amg[0] || !amg[1] || !amg[2] || !amg[3]) goto out;
    CHECK_OK(gs_vec_create(A->rows, loc, &r));
    CHECK_OK(gs_vec_create(A->rows, loc, &z));
    CHECK_OK(gs_vec_create(A->rows, loc, &z0));
    CHECK_OK(gs_vec_fill(1.0, r));
    CHECK_OK(gs_amg_apply(amg[0], r, z0));
    double *h0 = calloc((size_t)A->rows, sizeof *h0), *h = calloc((size_t)A->rows, sizeof *h);
    CHECK_OK(gs_vec_get_host(z0, h0));
    for (int d = 1; d < 4; d++) {
        const gs_amg_report *rep = gs_amg_get_report(amg[d]);
        CHECK_OK(gs_amg_apply(amg[d], r, z));
        CHECK_OK(gs_vec_get_host(z, h));
        double dmax = 0.0, zmax = 0.0;
        for (int32_t i = 0; i < A->rows; i++) {
            dmax = fmax(dmax, fabs(h[i] - h0[i]));
            zmax = fmax(zmax, fabs(h0[i]));
        }
        /* separate setups: the GPU's sums may run in another order */
        CHECK_MSG(dmax <= 1e-10 * zmax,
                  "%s drop_csr %d: the cycle differs by %.3g (of %.3g) from the one that keeps "
                  "its CSR", where, d, dmax, zmax);
        /* level 0's A is freed under ALL only; level 1's (below the coarsest) under both, and
         * every R */
        CHECK_MSG(rep->levels >= 3 && strcmp(rep->level[0].format, "cmrs") == 0 &&
                      (dA[d]->val == NULL) == (d >= 2),
                  "%s drop_csr %d: level 0 (%s) arrays %s", where, d, rep->level[0].format,
                  dA[d]->val ? "kept" : "freed");
        gs_status st = gs_amg_resetup(amg[d], GS_AMG_REUSE_PROLONGATOR);
        CHECK_MSG(st == GS_ERR_ARG && strstr(gs_error_message(), "re-setup needs a full setup"),
                  "%s drop_csr %d: re-setup: %s", where, d, gs_error_message());
        gs_error_clear();
    }
    CHECK_MSG(dA[0]->val != NULL && amg[0]->dropped_bytes == 0 && amg[1]->dropped_bytes > 0 &&
                  amg[2]->dropped_bytes - amg[1]->dropped_bytes ==
                      (int64_t)gs_csr_storage_bytes(A),
              "%s: bytes freed by drop_csr 0, 1, 2: %lld, %lld, %lld (A: %.0f)", where,
              (long long)amg[0]->dropped_bytes, (long long)amg[1]->dropped_bytes,
              (long long)amg[2]->dropped_bytes, gs_csr_storage_bytes(A));
    CHECK_MSG(amg[3]->dropped_bytes == amg[2]->dropped_bytes && amg[3]->lev[0].R &&
                  amg[3]->lev[0].R->val == NULL && amg[3]->lev[1].A->val == NULL,
              "%s: the deferred level 0 freed %lld bytes, %lld otherwise", where,
              (long long)amg[3]->dropped_bytes, (long long)amg[2]->dropped_bytes);
    free(h0);
    free(h);
out:
    gs_vec_destroy(&r);
    gs_vec_destroy(&z);
    gs_vec_destroy(&z0);
    for (int d = 0; d < 4; d++) {
        gs_amg_destroy(&amg[d]);
        gs_csr_destroy(&dA[d]);
    }
    gs_csr_destroy(&A);
}

static void test_gpu_graph_cusparse(const char *name, gs_csr *A, double theta, const char *fmt)
{
    gs_amg_params p, ph;
    gs_csr *dA = NULL;
    gs_amg *amg = NULL;
    gs_vec *r = NULL, *z = NULL;
    double oc, rr;
    gs_select_request rq = {.format = fmt, .levels = NULL};
    gs_format_params_default(&rq.params);
    gs_amg_params_default(&p);
    p.theta = theta;
    p.select = &rq; /* every operator's format by the selector, as the driver asks */
    ph = p;
    ph.select = NULL; /* the host: CSR */
    int ih = solve(A, GS_LOC_HOST, &ph, GS_KRYLOV_CG, &oc, &rr);
    int id = solve(A, GS_LOC_DEVICE, &p, GS_KRYLOV_CG, &oc, &rr);
    printf("%s theta %g, format %s: host %d iterations, device %d, residual %.2e\n", name, theta,
           fmt, ih, id, rr);
    CHECK(id > 0 && abs(ih - id) <= 2 && rr <= 1e-8);
    /* no device allocation once set up: not in the recording, not in a replay */
    CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
    if (dA) CHECK_OK(gs_amg_setup(dA, &p, name, &amg));
    if (amg) {
        CHECK_OK(gs_vec_create(A->rows, GS_LOC_DEVICE, &r));
        CHECK_OK(gs_vec_create(A->rows, GS_LOC_DEVICE, &z));
        CHECK_OK(gs_vec_fill(1.0, r));
        long before = gs_backend_cuda_count();
        for (int i = 0; i < 3; i++) CHECK_OK(gs_amg_apply(amg, r, z));
        CHECK_MSG(gs_backend_cuda_count() == before, "%s: %ld device allocations in 3 cycles",
                  name, gs_backend_cuda_count() - before);
    }
    gs_vec_destroy(&r);
    gs_vec_destroy(&z);
    gs_amg_destroy(&amg);
    gs_csr_destroy(&dA);
}

int main(int argc, char **argv)
{
    const int gpu = amg_test_gpu(argc, argv);
    if (gpu == 77) return 77;
    if (gpu) {
        test_drop_csr(GS_LOC_DEVICE);
        test_options(GS_LOC_DEVICE);
        gs_csr *A = generate("poisson", 32, 7, 1);
        test_gpu_classical("poisson 7-pt 32^3", A, GS_KRYLOV_CG);
        gs_csr_destroy(&A);
        A = generate("convdiff", 96, 5, 1);
        test_gpu_classical("convdiff 96^2", A, GS_KRYLOV_GMRES);
        gs_csr_destroy(&A);
        A = poisson_hub(60, 0.05);
        test_gpu_classical("poisson 60^2 with a hub", A, GS_KRYLOV_CG);
        gs_csr_destroy(&A);
        const gs_amg_ops *dev = (const gs_amg_ops *)gs_backend_module(GS_LOC_DEVICE, GS_MODULE_AMG);
        A = generate("convdiff", 64, 5, 1);
        check_gs_stage(A, dev, "convdiff 64^2");
        gs_csr_destroy(&A);
        A = generate("poisson", 3, 7, 1);
        check_gs_stage(A, dev, "poisson 3^3");
        gs_csr_destroy(&A);
        A = poisson_hub(60, 0.05);
        check_gs_stage(A, dev, "poisson 60^2 with a hub");
        gs_csr_destroy(&A);
        A = generate("poisson", 48, 7, 1);
        test_gpu_graph_cusparse("poisson 7-pt 48^3", A, 0.0, "cusparse");
        gs_csr_destroy(&A);
        A = jump3d(48);
        test_gpu_graph_cusparse("jump3d 48^3", A, 0.25, "auto");
        gs_csr_destroy(&A);
        return gs_test_result("test_amg_solve");
    }
    test_drop_csr(GS_LOC_HOST);
    test_solves();
    test_classical();
    test_options(GS_LOC_HOST);
    test_chebyshev_levels();
    return gs_test_result("test_amg_solve");
}

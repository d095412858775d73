/* test_amg.c: the AMG setup phase by phase on hand-checkable cases (test_amg_solve.c: the
 * solves end to end). With --gpu: the device hierarchy against the host one (the same
 * aggregates, level sizes and patterns; values to rounding; the same iteration counts within 2),
 * and the device's filtered matrix and strength graphs to the bit (exit 77 without a GPU).
 *
 * Host checks: a 1D Poisson has aggregates of 3 with the standard rule, and its tentative and
 * smoothed prolongators have the expected pattern and values; MIS(2) roots are at distance >= 3
 * and every node is within distance 2 of its root; A_c equals R (A P) from the host SpGEMM and
 * P = (I - w D^-1 A) T; the rowmax strength and the filtered matrix; the tentative prolongator
 * of several vectors reproduces them (T Bc = B). */
#include "test_amg_util.h"

static void test_standard_1d(void)
{
    gs_csr *A = poisson1d(30), *T = NULL, *P = NULL, *R = NULL;
    gs_amg *amg = NULL;
    gs_amg_params p;
    gs_amg_params_default(&p);
    p.aggregation = GS_AGG_STANDARD;
    p.coarse_size = 2;
    p.max_levels = 2;
    p.smooth_prolongator = 0;
    CHECK_OK(gs_amg_setup(A, &p, "1d", &amg));
    int32_t *agg = NULL, nodes = 0;
    CHECK_OK(gs_amg_level_download(amg, 0, NULL, &T, NULL, &agg, &nodes));
    CHECK(nodes == 30);
    /* pass 1 takes {0,1}, {2,3,4}, {5,6,7}, ..., pass 2 puts 29 into the last one */
    int size[16] = {0};
    for (int32_t i = 0; i < 30; i++) {
        CHECK(agg[i] >= 0 && agg[i] < 16);
        if (agg[i] >= 0 && agg[i] < 16) size[agg[i]]++;
    }
    CHECK(size[0] == 2);
    for (int a = 1; a < 9; a++) CHECK_MSG(size[a] == 3, "aggregate %d has %d nodes", a, size[a]);
    CHECK(size[9] == 4);
    CHECK(T && T->cols == 10 && T->nnz == 30);
    for (int32_t i = 0; T && i < 30; i++) {
        CHECK(T->rowptr[i + 1] - T->rowptr[i] == 1);
        CHECK(T->colind[T->rowptr[i]] == agg[i]);
        CHECK_NEAR(T->val[T->rowptr[i]], 1.0 / sqrt((double)size[agg[i]]), 1e-15);
    }
    gs_csr_destroy(&T);
    gs_free(agg);
    gs_amg_destroy(&amg);

    /* smoothed: column a of P reaches one node past each end of aggregate a */
    p.smooth_prolongator = 1;
    CHECK_OK(gs_amg_setup(A, &p, "1d", &amg));
    CHECK_OK(gs_amg_level_download(amg, 0, NULL, &P, &R, NULL, NULL));
    CHECK(P && P->nnz == 30 + 2 * 9); /* every interior aggregate boundary adds two entries */
    const gs_amg_report *rep = gs_amg_get_report(amg);
    /* Lanczos from below: within 2% of the largest eigenvalue 1 + cos(pi/31), never above */
    double lmax = 1.0 + cos(3.14159265358979323846 / 31.0);
    CHECK_MSG(rep->level[0].rho <= lmax * (1 + 1e-12) && rep->level[0].rho >= 0.98 * lmax,
              "rho %g, largest eigenvalue %g", rep->level[0].rho, lmax);
    for (int32_t i = 0; P && i < 30; i++) {
        int lo = P->colind[P->rowptr[i]], hi = P->colind[P->rowptr[i + 1] - 1];
        CHECK(hi - lo <= 1);
    }
    gs_csr *Pt = NULL;
    CHECK_OK(gs_csr_transpose(P, &Pt));
    CHECK(csr_diff(R, Pt) == 0.0);
    gs_csr_destroy(&Pt);
    gs_csr_destroy(&P);
    gs_csr_destroy(&R);
    gs_amg_destroy(&amg);
    gs_csr_destroy(&A);
}

/* a 1D diffusion matrix with coefficient c(i + 1/2) between nodes i and i + 1 (n nodes, the
 * ends held by coefficient 1 to the boundary), its values in A's arrays */
static void diffusion1d_values(gs_csr *A, double (*c)(int32_t))
{
    for (int32_t i = 0; i < A->rows; i++) {
        const double lo = i > 0 ? c(i - 1) : 1.0, hi = i + 1 < A->rows ? c(i) : 1.0;
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
            A->val[q] = A->colind[q] == i ? lo + hi : A->colind[q] < i ? -lo : -hi;
    }
}
static double coef0(int32_t i) { return 1.0 + 0.9 * sin(0.37 * i); }
static double coef1(int32_t i) { return coef0(i) * (1.0 + 0.5 * ((i * 7) % 5) / 4.0); }

/* a re-setup's rho: the short Lanczos estimate scaling the last full one is within 1% of the
 * full estimate of the new values on every level (what a fresh setup of them gets) */
static void test_resetup_rho(void)
{
    gs_csr *A = poisson1d(400), *B = poisson1d(400);
    gs_amg *amg = NULL, *fresh = NULL;
    gs_amg_params p;
    gs_amg_params_default(&p);
    p.coarse_size = 10;
    diffusion1d_values(A, coef0);
    CHECK_OK(gs_amg_setup(A, &p, "1d diffusion", &amg));
    diffusion1d_values(A, coef1); /* new values, the same pattern */
    diffusion1d_values(B, coef1);
    if (amg) CHECK_OK(gs_amg_resetup(amg, GS_AMG_REUSE_PROLONGATOR));
    CHECK_OK(gs_amg_setup(B, &p, "1d diffusion, anew", &fresh));
    const gs_amg_report *r = amg ? gs_amg_get_report(amg) : NULL;
    const gs_amg_report *f = fresh ? gs_amg_get_report(fresh) : NULL;
    CHECK(r && f && r->resetups == 1);
    for (int l = 0; r && f && l < r->levels && l < f->levels; l++) {
        if (!r->level[l].rho_known) continue;
        /* level 0 is the same matrix in both; below, the kept P makes other coarse operators,
         * so only level 0 compares exactly */
        if (l == 0)
            CHECK_MSG(fabs(r->level[0].rho - f->level[0].rho) <= 1e-2 * f->level[0].rho,
                      "re-setup rho %g, a fresh setup's %g", r->level[0].rho, f->level[0].rho);
        CHECK_MSG(r->level[l].rho > 0.5 && r->level[l].rho < 2.5, "level %d rho %g", l,
                  r->level[l].rho);
    }
    gs_amg_destroy(&amg);
    gs_amg_destroy(&fresh);
    gs_csr_destroy(&A);
    gs_csr_destroy(&B);
}

/* breadth-first distance from s, at most 3 (S symmetric) */
static int within(const gs_csr *S, int32_t s, int32_t t, int d)
{
    if (s == t) return 1;
    if (d == 0) return 0;
    for (int32_t q = S->rowptr[s]; q < S->rowptr[s + 1]; q++)
        if (within(S, S->colind[q], t, d - 1)) return 1;
    return 0;
}

static void test_mis2_and_products(const char *type, int64_t size, int stencil)
{
    gs_csr *A = generate(type, size, stencil, 1), *S = NULL;
    gs_amg *amg = NULL;
    gs_amg_params p;
    gs_amg_params_default(&p);
    p.coarse_size = 10;
    p.max_levels = 3;
    CHECK_OK(gs_amg_setup(A, &p, type, &amg));
    const gs_amg_report *rep = gs_amg_get_report(amg);
    CHECK(rep->levels == 3);
    int32_t *agg = NULL, nodes = 0;
    gs_csr *A0 = NULL, *P = NULL, *R = NULL, *A1 = NULL, *AP = NULL, *RAP = NULL;
    CHECK_OK(gs_amg_level_download(amg, 0, &A0, &P, &R, &agg, &nodes));
    CHECK_OK(gs_amg_level_download(amg, 1, &A1, NULL, NULL, NULL, NULL));
    CHECK_OK(gs_amg_host_ops.strength(A, 0.0, 1, 0, &S));
    int32_t nagg = P ? P->cols : 0, *root = malloc(((size_t)nagg + 1) * sizeof *root);
    for (int32_t a = 0; a < nagg; a++) root[a] = -1;
    /* every aggregate has a member (its root) within distance 2 of all its members */
    for (int32_t i = 0; i < nodes; i++) {
        CHECK_MSG(agg[i] >= 0 && agg[i] < nagg, "node %d has aggregate %d", i, agg[i]);
        if (agg[i] < 0 || agg[i] >= nagg || root[agg[i]] >= 0) continue;
        int ok = 1;
        for (int32_t j = 0; j < nodes && ok; j++)
            if (agg[j] == agg[i] && !within(S, i, j, 2)) ok = 0;
        if (ok) root[agg[i]] = i;
    }
    int all_roots = 1;
    for (int32_t a = 0; a < nagg; a++) all_roots &= root[a] >= 0;
    CHECK_MSG(all_roots, "an aggregate without a node within distance 2 of all its members");
    /* aggregates are not too small: a root takes at least itself and its free neighbours */
    CHECK_MSG(nagg * 3 <= nodes, "%d aggregates for %d nodes", nagg, nodes);
    /* A1 = R (A P) by the host product, R = P^T */
    CHECK_OK(gs_spgemm_host(A0, P, &AP));
    CHECK_OK(gs_spgemm_host(R, AP, &RAP));
    double d = csr_diff(A1, RAP);
    CHECK_MSG(d >= 0 && d < 1e-13, "A_c differs from R (A P): %g", d);
    free(root);
    gs_free(agg);
    gs_csr_destroy(&S);
    gs_csr_destroy(&A0);
    gs_csr_destroy(&P);
    gs_csr_destroy(&R);
    gs_csr_destroy(&A1);
    gs_csr_destroy(&AP);
    gs_csr_destroy(&RAP);
    gs_amg_destroy(&amg);
    gs_csr_destroy(&A);
}

/* S's row i as a sorted list equals the n columns in want */
static int row_is(const gs_csr *S, int32_t i, const int32_t *want, int n)
{
    if (S->rowptr[i + 1] - S->rowptr[i] != n) return 0;
    for (int t = 0; t < n; t++)
        if (S->colind[S->rowptr[i] + t] != want[t]) return 0;
    return 1;
}

/* the rowmax strength: scale-free (a 27-point row is as strong as a 7-point one, where the
 * symmetric test at theta 0.05 finds nothing), blind to weak directions and to couplings of the
 * diagonal's sign */
static void test_strength_rowmax(void)
{
    gs_csr *A = generate("poisson", 6, 27, 1), *S = NULL;
    CHECK_OK(gs_amg_host_ops.strength(A, 0.05, 1, GS_STRENGTH_SYMMETRIC, &S));
    CHECK_MSG(S && S->nnz == 0, "symmetric, theta 0.05, 27-point: %d strong couplings",
              S ? S->nnz : -1);
    gs_csr_destroy(&S);
    CHECK_OK(gs_amg_host_ops.strength(A, 0.25, 1, GS_STRENGTH_ROWMAX, &S));
    CHECK_MSG(S && S->nnz == A->nnz - A->rows, "rowmax, 27-point: %d strong of %d", S ? S->nnz : -1,
              A->nnz - A->rows);
    gs_csr_destroy(&S);
    gs_csr_destroy(&A);
    /* 2D 5-point, x coupled by 1e-3: only the y neighbours are strong */
    A = generate("anisotropic", 5, 5, 1);
    CHECK_OK(gs_amg_host_ops.strength(A, 0.25, 1, GS_STRENGTH_ROWMAX, &S));
    int ok = S != NULL;
    for (int32_t i = 0; ok && i < 25; i++) {
        int32_t want[2], n = 0;
        if (i >= 5) want[n++] = i - 5;
        if (i + 5 < 25) want[n++] = i + 5;
        ok = row_is(S, i, want, n);
        CHECK_MSG(ok, "anisotropic 5^2: row %d of S is not its y neighbours", i);
    }
    gs_csr_destroy(&S);
    gs_csr_destroy(&A);
    /* rotated Q1: the positive couplings are never strong, whatever theta */
    A = generate("rotated", 8, 9, 1);
    CHECK_OK(gs_amg_host_ops.strength(A, 0.0, 1, GS_STRENGTH_ROWMAX, &S));
    int positive = 0;
    for (int32_t i = 0; S && i < A->rows; i++)
        for (int32_t q = S->rowptr[i]; q < S->rowptr[i + 1]; q++)
            for (int32_t r = A->rowptr[i]; r < A->rowptr[i + 1]; r++)
                positive += A->colind[r] == S->colind[q] && A->val[r] > 0;
    CHECK_MSG(S && S->nnz > 0 && positive == 0, "rotated: %d positive couplings strong", positive);
    gs_csr_destroy(&S);
    gs_csr_destroy(&A);
}

/* the filtered matrix: small couplings of a row dropped and lumped so that F w = A w, no
 * positive coupling left (rowmax), the row kept whole where lumping would eat the diagonal */
static void test_filter(void)
{
    gs_csr *A = generate("rotated", 10, 9, 1), *F = NULL;
    double w[100], Aw[100], Fw[100];
    for (int i = 0; i < 100; i++) w[i] = 1.0 + 0.01 * (i % 7);
    CHECK_OK(gs_amg_filter_host(A, 0.25, GS_STRENGTH_ROWMAX, w, &F));
    if (F) {
        gs_csr_spmv_host(A, w, Aw);
        gs_csr_spmv_host(F, w, Fw);
        double err = 0.0;
        int positive = 0;
        for (int i = 0; i < 100; i++) err = fmax(err, fabs(Aw[i] - Fw[i]));
        for (int32_t i = 0; i < F->rows; i++)
            for (int32_t q = F->rowptr[i]; q < F->rowptr[i + 1]; q++)
                positive += F->colind[q] != i && F->val[q] > 0;
        CHECK_MSG(err < 1e-13, "rotated: |F w - A w| = %g", err);
        CHECK_MSG(positive == 0 && F->nnz < A->nnz, "rotated: %d positive couplings kept, %d of "
                  "%d entries", positive, F->nnz, A->nnz);
    }
    gs_csr_destroy(&F);
    gs_csr_destroy(&A);
    /* Poisson: every coupling is its row's largest: nothing dropped, F = A (NULL) */
    A = generate("poisson", 6, 7, 1);
    CHECK_OK(gs_amg_filter_host(A, 0.25, GS_STRENGTH_ROWMAX, NULL, &F));
    CHECK_MSG(F == NULL, "poisson: the filter dropped %d entries", F ? A->nnz - F->nnz : 0);
    gs_csr_destroy(&F);
    gs_csr_destroy(&A);
    /* row 0: diagonal 1, -10 kept, -0.9 small (<= 0.25 * 10) but lumping it leaves 0.1: whole;
     * row 2: diagonal 4, -1 kept, -0.2 small: lumped to 3.8 */
    int32_t ri[] = {0, 0, 0, 1, 1, 2, 2, 2}, ci[] = {0, 1, 2, 0, 1, 0, 1, 2};
    double v[] = {1.0, -10.0, -0.9, -10.0, 20.0, -0.2, -1.0, 4.0};
    CHECK_OK(gs_csr_from_coo(3, 3, 8, ri, ci, v, &A));
    CHECK_OK(gs_amg_filter_host(A, 0.25, GS_STRENGTH_ROWMAX, NULL, &F));
    if (F) {
        int32_t r0[] = {0, 1, 2}, r2[] = {1, 2};
        CHECK(row_is(F, 0, r0, 3) && F->val[0] == 1.0 && F->val[2] == -0.9);
        CHECK(row_is(F, 2, r2, 2) && fabs(F->val[F->rowptr[2] + 1] - 3.8) < 1e-15);
    }
    gs_csr_destroy(&F);
    gs_csr_destroy(&A);
}

static void test_tentative_qr(void)
{
    /* 12 nodes of 2 unknowns in 3 aggregates, 3 random vectors: T Bc = B, T^T T = I */
    int32_t agg[12] = {0, 0, 1, 1, 1, 2, 2, 2, 2, 0, 1, 2};
    double B[24 * 3], Bc[9 * 3];
    gs_gen_random_vector(7, B, 72);
    gs_csr *T = NULL, *Tt = NULL, *TtT = NULL;
    CHECK_OK(gs_amg_tentative_qr(12, 2, agg, 3, B, 3, &T, Bc));
    CHECK(T && T->rows == 24 && T->cols == 9);
    double err = 0.0;
    for (int c = 0; T && c < 3; c++) {
        double x[9], y[24];
        for (int r = 0; r < 9; r++) x[r] = Bc[c * 9 + r];
        gs_csr_spmv_host(T, x, y);
        for (int i = 0; i < 24; i++) err = fmax(err, fabs(y[i] - B[c * 24 + i]));
    }
    CHECK_MSG(err < 1e-13, "T Bc - B = %g", err);
    CHECK_OK(gs_csr_transpose(T, &Tt));
    CHECK_OK(gs_spgemm_host(Tt, T, &TtT));
    double off = 0.0;
    for (int32_t i = 0; TtT && i < TtT->rows; i++)
        for (int32_t q = TtT->rowptr[i]; q < TtT->rowptr[i + 1]; q++)
            off = fmax(off, fabs(TtT->val[q] - (TtT->colind[q] == i ? 1.0 : 0.0)));
    CHECK_MSG(off < 1e-13, "T^T T - I = %g", off);
    gs_csr_destroy(&T);
    gs_csr_destroy(&Tt);
    gs_csr_destroy(&TtT);
}

/* device hierarchy and solve against the host */
static void test_gpu_parity(const char *type, int64_t size, int stencil, int dof)
{
    double *B = NULL;
    int k = 0;
    gs_csr *A = generate_ns(type, size, stencil, dof, &B, &k), *dA = NULL;
    gs_amg *h = NULL, *d = NULL;
    gs_amg_params p;
    gs_amg_params_default(&p);
    p.block_size = dof;
    p.aggregation = GS_AGG_MIS2; /* the same aggregates on both (auto: standard on the host) */
    if (k) { /* elasticity: d unknowns a node, the rigid-body modes (the QR on the device) */
        p.block_size = stencil == 9 ? 2 : 3;
        p.nullspace = B;
        p.nullspace_k = k;
    }
    CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
    CHECK_OK(gs_amg_setup(A, &p, type, &h));
    CHECK_OK(gs_amg_setup(dA, &p, type, &d));
    if (!h || !d) goto out;
    const gs_amg_report *rh = gs_amg_get_report(h), *rd = gs_amg_get_report(d);
    CHECK_MSG(rh->levels == rd->levels, "%s: %d host levels, %d device", type, rh->levels,
              rd->levels);
    for (int l = 0; l < rh->levels && l < rd->levels; l++) {
        gs_csr *Ah = NULL, *Ad = NULL, *Ph = NULL, *Pd = NULL;
        int32_t *ah = NULL, *ad = NULL, nh = 0, nd = 0;
        CHECK_OK(gs_amg_level_download(h, l, &Ah, &Ph, NULL, &ah, &nh));
        CHECK_OK(gs_amg_level_download(d, l, &Ad, &Pd, NULL, &ad, &nd));
        CHECK_MSG(rh->level[l].rows == rd->level[l].rows &&
                      fabs((double)rh->level[l].nnz - rd->level[l].nnz) <= 0.02 * rh->level[l].nnz,
                  "%s level %d: %d rows, %lld nonzeros on the host, %d and %lld on the device",
                  type, l, rh->level[l].rows, (long long)rh->level[l].nnz, rd->level[l].rows,
                  (long long)rd->level[l].nnz);
        if (ah && ad && nh == nd) CHECK_MSG(memcmp(ah, ad, (size_t)nh * 4) == 0,
                                            "%s level %d: aggregates differ", type, l);
        /* level 0: the same A, and P to the rounding of the rho estimate (12 Lanczos steps
         * are not converged, and the device's summation order moves the estimate by ~1e-5).
         * Coarser levels inherit those roundings, and a coupling of a coarse matrix that sits
         * at the filter's threshold (theta x its row's largest: Poisson's Galerkin operators
         * have many equal couplings) may be dropped on one side only: there the operators
         * agree to 2% in their nonzeros, and the iterations below to 2 */
        if (l == 0) {
            double dif = Ah && Ad ? csr_diff(Ad, Ah) : 0.0;
            CHECK_MSG(dif >= 0 && dif < 1e-14, "%s level 0: A differs (%g)", type, dif);
            dif = Ph && Pd ? csr_diff(Pd, Ph) : 0.0;
            CHECK_MSG(dif >= 0 && dif < 1e-3, "%s level 0: P differs (%g)", type, dif);
        } else if (Ph && Pd) {
            CHECK_MSG(fabs((double)Pd->nnz - Ph->nnz) <= 0.02 * Ph->nnz,
                      "%s level %d: P has %d nonzeros on the device, %d on the host", type, l,
                      Pd->nnz, Ph->nnz);
        }
        CHECK_NEAR(rd->level[l].rho, rh->level[l].rho, 2e-3);
        gs_csr_destroy(&Ah), gs_csr_destroy(&Ad), gs_csr_destroy(&Ph), gs_csr_destroy(&Pd);
        gs_free(ah), gs_free(ad);
    }
    double oc, rr;
    int ih = solve(A, GS_LOC_HOST, &p, GS_KRYLOV_CG, &oc, &rr);
    int id = solve(A, GS_LOC_DEVICE, &p, GS_KRYLOV_CG, &oc, &rr);
    printf("%s %lld: host %d iterations, device %d\n", type, (long long)size, ih, id);
    CHECK(id > 0 && abs(ih - id) <= 2 && rr <= 1e-8);
    p.galerkin = GS_SPGEMM_CUSPARSE;
    int ic = solve(A, GS_LOC_DEVICE, &p, GS_KRYLOV_CG, &oc, &rr);
    CHECK(ic > 0 && abs(ih - ic) <= 2 && rr <= 1e-8);
out:
    gs_free(B);
    gs_amg_destroy(&h);
    gs_amg_destroy(&d);
    gs_csr_destroy(&dA);
    gs_csr_destroy(&A);
}

/* X and Y the same matrix to the bit: pattern and values */
static int csr_same(const gs_csr *X, const gs_csr *Y)
{
    return X && Y && X->rows == Y->rows && X->cols == Y->cols && X->nnz == Y->nnz &&
           memcmp(X->rowptr, Y->rowptr, ((size_t)X->rows + 1) * sizeof *X->rowptr) == 0 &&
           memcmp(X->colind, Y->colind, (size_t)X->nnz * sizeof *X->colind) == 0 &&
           (!X->val || memcmp(X->val, Y->val, (size_t)X->nnz * sizeof *X->val) == 0);
}

/* The device's strength graph of A (dA on the device) against the host's, to the bit: b
 * unknowns a node (block norms when b > 1), either measure */
static void check_strength(const gs_csr *A, const gs_csr *dA, double theta, int b, int measure,
                           const char *name)
{
    const gs_amg_ops *dev = (const gs_amg_ops *)gs_backend_module(GS_LOC_DEVICE, GS_MODULE_AMG);
    const gs_amg_ops *host = (const gs_amg_ops *)gs_backend_module(GS_LOC_HOST, GS_MODULE_AMG);
    gs_csr *Sh = NULL, *Sd = NULL; /* patterns only */
    CHECK_OK(host->strength(A, theta, b, measure, &Sh));
    CHECK_OK(dev->strength(dA, theta, b, measure, &Sd));
    int same = Sh && Sd && Sh->rows == Sd->rows && Sh->nnz == Sd->nnz;
    if (same) {
        int32_t *rp = malloc(((size_t)Sd->rows + 1) * sizeof *rp);
        int32_t *ci = malloc(((size_t)Sd->nnz + 1) * sizeof *ci);
        const gs_backend_ops *be = gs_backend_get(GS_LOC_DEVICE);
        CHECK_OK(be->get(rp, Sd->rowptr, ((size_t)Sd->rows + 1) * sizeof *rp));
        if (Sd->nnz > 0) CHECK_OK(be->get(ci, Sd->colind, (size_t)Sd->nnz * sizeof *ci));
        same = memcmp(rp, Sh->rowptr, ((size_t)Sd->rows + 1) * sizeof *rp) == 0 &&
               memcmp(ci, Sh->colind, (size_t)Sd->nnz * sizeof *ci) == 0;
        free(rp), free(ci);
    }
    CHECK_MSG(same, "%s, %d a node, %s theta %g: the device's strength graph (%d entries) "
              "differs from the host's (%d)", name, b,
              measure == GS_STRENGTH_ROWMAX ? "rowmax" : "symmetric", theta, Sd ? Sd->nnz : -1,
              Sh ? Sh->nnz : -1);
    gs_csr_destroy(&Sh), gs_csr_destroy(&Sd);
}

/* The device's filtered matrix and rowmax strength graph against the host's, to the bit, on A
 * (its rows spread over groups of lanes by their mean length: 9 entries and A^3's 49 take
 * different group sizes), with and without a near-nullspace w */
static void test_gpu_filter_of(const gs_csr *A, const char *name)
{
    const gs_amg_ops *dev = (const gs_amg_ops *)gs_backend_module(GS_LOC_DEVICE, GS_MODULE_AMG);
    const gs_amg_ops *host = (const gs_amg_ops *)gs_backend_module(GS_LOC_HOST, GS_MODULE_AMG);
    gs_csr *dA = NULL;
    double *w = malloc(((size_t)A->cols + 1) * sizeof *w), *dw = NULL;
    for (int32_t i = 0; i < A->cols; i++) w[i] = 0.5 + 0.001 * (double)((i * 37) % 1000);
    CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
    CHECK_OK(gs_backend_get(GS_LOC_DEVICE)->alloc(((size_t)A->cols + 1) * sizeof *dw, "w",
                                                   (void **)&dw));
    CHECK_OK(gs_backend_get(GS_LOC_DEVICE)->put(dw, w, (size_t)A->cols * sizeof *dw));
    const double thetas[] = {0.1, 0.25, 0.5};
    for (int t = 0; t < 3 && dA; t++) {
        for (int withw = 0; withw < 2; withw++) {
            gs_csr *Fh = NULL, *Fd = NULL, *Fdh = NULL;
            CHECK_OK(host->filter(A, thetas[t], GS_STRENGTH_ROWMAX, withw ? w : NULL, &Fh));
            CHECK_OK(dev->filter(dA, thetas[t], GS_STRENGTH_ROWMAX, withw ? dw : NULL, &Fd));
            CHECK_MSG((Fh == NULL) == (Fd == NULL), "%s theta %g%s: the filter dropped entries "
                      "on one side only", name, thetas[t], withw ? " (w)" : "");
            if (Fd) CHECK_OK(gs_csr_download(Fd, &Fdh));
            if (Fh && Fdh)
                CHECK_MSG(csr_same(Fdh, Fh), "%s theta %g%s: the device's filtered matrix (%d "
                          "entries) differs from the host's (%d)", name, thetas[t],
                          withw ? " (w)" : "", Fdh->nnz, Fh->nnz);
            gs_csr_destroy(&Fh), gs_csr_destroy(&Fd), gs_csr_destroy(&Fdh);
        }
        check_strength(A, dA, thetas[t], 1, GS_STRENGTH_ROWMAX, name);
    }
    if (dw) gs_backend_get(GS_LOC_DEVICE)->free(dw);
    free(w);
    gs_csr_destroy(&dA);
}

static void test_gpu_filter(void)
{
    gs_csr *A = generate("rotated", 60, 9, 1), *A2 = NULL, *A3 = NULL;
    CHECK_OK(gs_spgemm(A, A, GS_SPGEMM_HOST, &A2));
    if (A2) CHECK_OK(gs_spgemm(A2, A, GS_SPGEMM_HOST, &A3));
    test_gpu_filter_of(A, "rotated 9-point 60^2");
    if (A3) test_gpu_filter_of(A3, "rotated 9-point 60^2, cubed");
    gs_csr_destroy(&A), gs_csr_destroy(&A2), gs_csr_destroy(&A3);
}

/* Block strength (a warp a node on the device) against the host's: 3D elasticity with its 3
 * unknowns a node; the same rows taken 6 at a time (two nodes' rows of different patterns in
 * one block row, as a coarse level's 6 rigid-body modes make blocks of 6); and A^3 with 2 a
 * node, whose rows reach up to 343 x 3 columns, more strong blocks than the warp's buffer holds
 * at theta 0 (its one-thread fallback) */
static void test_gpu_block_strength(void)
{
    gs_csr *A = generate("elasticity", 8, 27, 1), *A2 = NULL, *A3 = NULL, *dA = NULL, *dA3 = NULL;
    CHECK_OK(gs_spgemm(A, A, GS_SPGEMM_HOST, &A2));
    if (A2) CHECK_OK(gs_spgemm(A2, A, GS_SPGEMM_HOST, &A3));
    CHECK_OK(gs_csr_upload(A, GS_LOC_DEVICE, &dA));
    if (A3) CHECK_OK(gs_csr_upload(A3, GS_LOC_DEVICE, &dA3));
    const double thetas[] = {0.0, 0.1, 0.25, 0.5};
    for (int t = 0; t < 4 && dA && dA3; t++)
        for (int m = 0; m < 2; m++) {
            const int measure = m ? GS_STRENGTH_ROWMAX : GS_STRENGTH_SYMMETRIC;
            check_strength(A, dA, thetas[t], 3, measure, "elasticity 3D 8^3");
            check_strength(A, dA, thetas[t], 6, measure, "elasticity 3D 8^3");
            check_strength(A3, dA3, thetas[t], 2, measure, "elasticity 3D 8^3, cubed");
        }
    gs_csr_destroy(&A), gs_csr_destroy(&A2), gs_csr_destroy(&A3);
    gs_csr_destroy(&dA), gs_csr_destroy(&dA3);
}

int main(int argc, char **argv)
{
    const int gpu = amg_test_gpu(argc, argv);
    if (gpu == 77) return 77;
    if (gpu) {
        test_gpu_filter();
        test_gpu_block_strength();
        test_gpu_parity("poisson", 40, 7, 1);
        test_gpu_parity("poisson", 24, 27, 1);
        test_gpu_parity("anisotropic", 60, 5, 1);
        test_gpu_parity("poisson", 16, 7, 3);
        test_gpu_parity("poisson", 64, 7, 1); /* 4 levels: level 2 has the coarse degree */
        test_gpu_parity("jumps", 40, 7, 1);
        test_gpu_parity("rotated", 160, 9, 1);
        test_gpu_parity("elasticity", 64, 9, 1);
        test_gpu_parity("elasticity", 12, 27, 1);
        return gs_test_result("test_amg");
    }
    test_standard_1d();
    test_resetup_rho();
    test_mis2_and_products("poisson", 12, 7);
    test_mis2_and_products("poisson", 30, 5);
    test_mis2_and_products("anisotropic", 24, 9);
    test_strength_rowmax();
    test_filter();
    test_tentative_qr();
    return gs_test_result("test_amg");
}

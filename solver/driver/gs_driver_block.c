/* gs_driver_block.c: k right-hand sides solved together on one setup (gs_driver_run_block): the
 * columns packed into blocks (gs_vec.h), block CG (gs_cg_block) with the block products of A and
 * of the AMG cycle (gs_amg_apply_block), each column's true residual, the columns unpacked. */
#include <math.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_buf.h"
#include "gs_driver_impl.h"
#include "gs_time.h"

int gs_engine_block_ok(const gs_engine *e, const gs_config *c)
{
    if (!e || strcmp(c->solver.type, "cg") != 0 || gs_config_nullspace_constant(c)) return 0;
    if (e->amg) return gs_amg_has_block(e->amg);
    return strcmp(c->solver.preconditioner, "none") == 0;
}

static gs_status apply_A(void *ctx, int k, const gs_vec *X, gs_vec *Y)
{
    const gs_engine *e = ctx;
    return gs_block_spmm(e->pc.A, k, X, Y);
}

static gs_status apply_M(void *ctx, int k, const gs_vec *X, gs_vec *Y)
{
    gs_engine *e = ctx;
    return gs_amg_apply_block(e->amg, k, X, Y);
}

/* the k columns at src (where) into the block X at the engine's location, through cols */
static gs_status pack_in(gs_engine *e, int k, const double *src, gs_loc where, gs_vec *cols,
                         gs_vec *X)
{
    gs_status st = GS_OK;
    const int64_t nk = e->n * k;
    if (nk == 0) return GS_OK;
    const gs_buf f = {(void *)src, nk, GS_F64, where};
    gs_buf t = {cols->data, nk, GS_F64, e->loc};
    GS_CHECK(gs_buf_copy(&f, &t));
    GS_CHECK(gs_block_pack(e->n, k, cols, X, 0));
done:
    return st;
}

gs_status gs_driver_run_block(gs_engine *e, const gs_config *c, const gs_problem *p, gs_run *run,
                              const gs_driver_io *io, int k, const double *B, double *X,
                              gs_loc where, int *its, int *conv, double *resid)
{
    gs_status st = GS_OK;
    gs_vec *cols = NULL, *Bk = NULL, *Xk = NULL, *W = NULL;
    gs_krylov_result kr[GS_BLOCK_MAX];
    double one[GS_BLOCK_MAX], mone[GS_BLOCK_MAX], g[GS_BLOCK_MAX];
    const int64_t n = e->n;
    (void)p;
    if (!gs_engine_block_ok(e, c))
        return GS_ERROR(GS_ERR_UNSUPPORTED, "several right-hand sides at once need CG with AMG "
                        "(a smoother with a block form) or no preconditioner");
    if (k < 1 || k > GS_BLOCK_MAX)
        return GS_ERROR(GS_ERR_ARG, "%d right-hand sides at once, expected 1..%d", k, GS_BLOCK_MAX);
    run->out = &io->out;
    for (int j = 0; j < k; j++) one[j] = 1.0, mone[j] = -1.0;
    double t0 = gs_time_now();
    GS_CHECK(gs_vec_create(n * k, e->loc, &cols));
    GS_CHECK(gs_vec_create(n * k, e->loc, &Bk));
    GS_CHECK(gs_vec_create(n * k, e->loc, &Xk));
    GS_CHECK(gs_vec_create(n * k, e->loc, &W));
    GS_CHECK(pack_in(e, k, B, where, cols, Bk));
    GS_CHECK(pack_in(e, k, X, where, cols, Xk));
    GS_CHECK(gs_backend_get(e->loc)->sync());
    run->res.setup_s = e->setup_s + (gs_time_now() - t0);
    gs_krylov_params kp = gs_driver_krylov_params(c, run, io->interrupt);
    gs_block_op A = {e, apply_A}, M = {e, apply_M};
    run->t_solve0 = gs_time_now();
    GS_CHECK(gs_cg_block(&kp, n, k, &A, e->amg ? &M : NULL, Bk, Xk, kr));
    GS_CHECK(gs_backend_get(e->loc)->sync());
    run->res.solve_s = gs_time_now() - run->t_solve0;
    run->res.total_s = run->res.setup_s + run->res.solve_s;
    gs_driver_mem_record(run, e->mem_setup_peak);
    /* each column's true residual ||b - A x|| / ||b|| */
    GS_CHECK(gs_block_spmm(e->pc.A, k, Xk, W));
    GS_CHECK(gs_block_axpby(n, k, one, Bk, mone, W));
    {
        const gs_vec *xs[1] = {W}, *ys[1] = {W};
        GS_CHECK(gs_block_dots(n, k, 1, xs, ys, g));
    }
    int worst = 0;
    for (int j = 0; j < k; j++) {
        its[j] = kr[j].iterations;
        conv[j] = kr[j].reason > 0;
        resid[j] = kr[j].bnorm > 0 ? sqrt(g[j]) / kr[j].bnorm : sqrt(g[j]);
        if (!conv[j] && conv[worst]) worst = j;
        else if (conv[j] == conv[worst] && its[j] > its[worst]) worst = j;
    }
    /* the record: the worst column's reason, the most iterations, the largest residual */
    gs_driver_record_reason(&kr[worst], io->interrupt ? (int)*io->interrupt : 0, &run->res);
    run->res.iterations = 0;
    run->res.rel_residual = 0.0;
    run->res.bnorm = kr[worst].bnorm;
    for (int j = 0; j < k; j++) {
        if (its[j] > run->res.iterations) run->res.iterations = its[j];
        if (resid[j] > run->res.rel_residual) run->res.rel_residual = resid[j];
    }
    GS_CHECK(gs_block_pack(n, k, cols, Xk, 1));
    {
        const gs_buf f = {cols->data, n * k, GS_F64, e->loc};
        gs_buf t = {X, n * k, GS_F64, where};
        if (n * k > 0) GS_CHECK(gs_buf_copy(&f, &t));
    }
done:
    gs_vec_destroy(&cols);
    gs_vec_destroy(&Bk);
    gs_vec_destroy(&Xk);
    gs_vec_destroy(&W);
    return st;
}

gs_status gs_driver_run_columns(gs_engine *e, const gs_config *c, const gs_problem *p,
                                gs_run *run, const gs_driver_io *io)
{
    gs_status st = GS_OK;
    const int k = p->nrhs > 1 ? p->nrhs : 1;
    const int64_t n = e->n;
    const int block = gs_engine_block_ok(e, c);
    double solve_s = 0.0;
    GS_CHECK(gs_alloc_array((size_t)(n * k) + 1, sizeof(double), "solutions", (void **)&run->x));
    GS_CHECK(gs_alloc_array((size_t)k, sizeof(int), "iterations", (void **)&run->col_it));
    GS_CHECK(gs_alloc_array((size_t)k, sizeof(int), "convergence", (void **)&run->col_conv));
    GS_CHECK(gs_alloc_array((size_t)k, sizeof(double), "residuals", (void **)&run->col_res));
    for (int j = 0; j < k; j++) memcpy(run->x + (size_t)j * n, p->x0, (size_t)n * sizeof(double));
    run->nrhs = k;
    run->together = block;
    for (int j0 = 0; j0 < k;) {
        const int m = block ? (k - j0 < GS_BLOCK_MAX ? k - j0 : GS_BLOCK_MAX) : 1;
        run->hist_len = 0;
        if (block) {
            GS_CHECK(gs_driver_run_block(e, c, p, run, io, m, p->b + (size_t)j0 * n,
                                         run->x + (size_t)j0 * n, GS_LOC_HOST, run->col_it + j0,
                                         run->col_conv + j0, run->col_res + j0));
        } else {
            GS_CHECK(gs_driver_run(e, c, p, run, io, p->b + (size_t)j0 * n,
                                   run->x + (size_t)j0 * n, GS_LOC_HOST));
            run->col_it[j0] = run->res.iterations;
            run->col_conv[j0] = run->res.converged;
            run->col_res[j0] = run->res.rel_residual;
        }
        solve_s += run->res.solve_s;
        j0 += m;
        if (io->interrupt && *io->interrupt) break;
    }
    /* the record over all columns */
    run->res.iterations = 0;
    run->res.rel_residual = 0.0;
    run->res.converged = 1;
    for (int j = 0; j < k; j++) {
        if (run->col_it[j] > run->res.iterations) run->res.iterations = run->col_it[j];
        if (run->col_res[j] > run->res.rel_residual) run->res.rel_residual = run->col_res[j];
        run->res.converged = run->res.converged && run->col_conv[j];
    }
    run->res.solve_s = solve_s;
    run->res.total_s = run->res.setup_s + solve_s;
done:
    return st;
}

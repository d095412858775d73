/* gs_driver_dist.c: one solve across MPI ranks (gs_driver_solve_dist): the problem scattered
 * from rank 0, the distributed operator, preconditioner and Krylov method, the solution gathered
 * on rank 0, which prints and writes what one process would. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "gs_amg_dist.h"
#include "gs_backend.h"
#include "gs_comm.h"
#include "gs_dist_op.h"
#include "gs_driver.h"
#include "gs_driver_impl.h"
#include "gs_jacobi.h"
#include "gs_system.h"
#include "gs_time.h"

/* A signal reaches the ranks at different iterations; every rank must stop at the same one. The
 * local "signalled" flag travels as one more number in every vector sum (each Krylov iteration
 * makes at least one), so all ranks read the same agreed flag after the iteration, and CG keeps
 * one reduction an iteration. */
static volatile sig_atomic_t g_stop;
static const volatile sig_atomic_t *g_signal; /* the caller's flag (gs_driver_io.interrupt) */

/* the vector sums of the Krylov methods and the AMG over the ranks; a rank whose part failed
 * ends every rank (the others would wait in the sum) */
static gs_status reduce_sum(gs_status local, double *v, int k)
{
    static double *buf;
    static int cap;
    if (local != GS_OK) gs_comm_fatal(local);
    if (k + 1 > cap) {
        double *b = realloc(buf, (size_t)(k + 1) * sizeof *b);
        if (!b) gs_comm_fatal(GS_ERROR(GS_ERR_NOMEM, "out of memory: a reduction of %d sums", k));
        buf = b;
        cap = k + 1;
    }
    memcpy(buf, v, (size_t)k * sizeof *v);
    buf[k] = g_signal && *g_signal ? 1.0 : 0.0;
    gs_status st = gs_comm_sum(buf, k + 1);
    if (st != GS_OK) gs_comm_fatal(st);
    memcpy(v, buf, (size_t)k * sizeof *v);
    g_stop = buf[k] > 0;
    return GS_OK;
}

/* the level table of a one-level solve: the whole matrix, its spread over the ranks */
static gs_status one_level(const gs_dist_op *D, const gs_gcsr *A, gs_run *run)
{
    gs_status st = GS_OK;
    gs_level_info *I = NULL;
    int64_t nnz = A->rowptr[A->rows], tot_rows, tot_nnz, lmax = 0;
    for (int32_t i = 0; i < A->rows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > lmax) lmax = A->rowptr[i + 1] - A->rowptr[i];
    GS_CHECK(gs_alloc_array(1, sizeof *run->levels, "level table", (void **)&run->levels));
    I = run->levels;
    memset(I, 0, sizeof *I);
    GS_CHECK(gs_dist_stats_i64(A->rows, &tot_rows, NULL, NULL));
    GS_CHECK(gs_dist_stats_i64(nnz, &tot_nnz, NULL, NULL));
    GS_CHECK(gs_comm_max_i64(&lmax, 1));
    I->rows = tot_rows;
    I->nnz = tot_nnz;
    I->mean = tot_rows ? (double)tot_nnz / (double)tot_rows : 0.0;
    I->max = (int32_t)lmax;
    gs_str_copy(I->format, sizeof I->format, gs_format_name(D->sel.format));
    gs_str_copy(I->reason, sizeof I->reason, "rank 0's block: ");
    gs_select_reason_append(I->reason, sizeof I->reason, D->sel.reason);
    run->res.level_info = run->levels;
done:
    return st;
}

/* the most seconds any rank spent in communication since the last reset */
static double comm_max(void)
{
    double s = gs_comm_seconds();
    if (gs_comm_max(&s, 1) != GS_OK) gs_error_clear();
    return s;
}

gs_status gs_driver_solve_dist(const gs_config *c, const gs_problem *p, const gs_dproblem *d,
                               gs_run *run, const gs_driver_io *io)
{
    gs_status st = GS_OK;
    const int me = gs_comm_rank();
    gs_dist_op *D = NULL;
    gs_amg *amg = NULL;
    gs_jacobi *J = NULL;
    gs_csr *Jd = NULL;
    gs_vec *b = NULL, *x = NULL, *w = NULL;
    double *xl = NULL;
    gs_loc loc = GS_LOC_HOST;
    gs_linop M, *Mp = NULL;
    const char *where = me == 0 ? (p->source[0] ? p->source : p->matrix) : "matrix";
    memset(run, 0, sizeof *run);
    run->verbosity = (int)c->output.verbosity;
    run->out = me == 0 ? &io->out : NULL;
    g_signal = io->interrupt;
    run->monitor_every = (int)c->output.monitor;
    if (me == 0) gs_driver_describe(c, p, &run->res);
    run->res.rows = d->rows;
    run->res.cols = d->A->gcols;
    run->res.nnz = d->nnz;
    if (d->A->gcols != d->rows)
        st = GS_ERROR(GS_ERR_INPUT, "%s: the matrix is %lld x %lld; the solvers need a square "
                      "matrix", where, (long long)d->rows, (long long)d->A->gcols);
    GS_CHECK(gs_comm_agree(st));
    run->res.ranks = gs_comm_size();
    gs_vec_set_reduce(reduce_sum);
    GS_CHECK(gs_dist_stats_i64(d->A->rows, NULL, &run->rank_rows[0], &run->rank_rows[1]));
    GS_CHECK(gs_dist_stats_i64(d->A->rowptr[d->A->rows], NULL, &run->rank_nnz[0],
                               &run->rank_nnz[1]));
    run->threads = gs_driver_threads(c, io, d->A->rows, run->threads_why, sizeof run->threads_why);
    GS_CHECK(gs_comm_agree(gs_driver_choose_backend(c, &loc, &run->res)));
    if (strcmp(c->spmv.format, "cusparse") == 0 && loc != GS_LOC_DEVICE)
        GS_FAIL(GS_ERR_CONFIG, "spmv.format = \"cusparse\" needs the GPU backend, and this run "
                "is on the host");
    if (loc != GS_LOC_HOST)
        gs_str_copy(run->comm_desc, sizeof run->comm_desc,
                    gs_comm_device_aware() ? "CUDA-aware MPI (device buffers)"
                                           : "staged through page-locked host buffers");
    GS_CHECK(gs_comm_agree(gs_dist_peers_connect(loc))); /* before the clock: like MPI's start */
    GS_CHECK(gs_comm_barrier());
    gs_comm_reset_seconds();
    double t0 = gs_time_now();
    if (loc != GS_LOC_HOST) { /* the device pool grown while the problem was read: mostly 0 */
        run->pool_wait_s = gs_backend_pool_wait();
        GS_CHECK(gs_comm_max(&run->pool_wait_s, 1));
        gs_backend_mem_reset_peak(); /* the setup's peak of device memory from here */
    }
    gs_select_request rq = gs_driver_select_request(c);
    const double h0 = gs_backend_h2d_seconds();
    GS_CHECK(gs_comm_agree(gs_dist_op_create_compact(d->C, d->halo, d->nhalo, d->A->row0,
                                                     d->part, loc, &rq, 0, &D)));
    if (loc != GS_LOC_HOST) { /* the rows' upload and their SpMV form, the slowest rank's */
        double up[2] = {gs_time_now() - t0, gs_backend_h2d_seconds() - h0};
        GS_CHECK(gs_comm_max(up, 2));
        run->upload_s = up[0], run->transfer_s = up[1];
    }
    GS_CHECK(gs_comm_agree(gs_dist_op_use_ipc(D)));
    if (D->ipc.buf)
        gs_str_copy(run->comm_desc, sizeof run->comm_desc,
                    D->ipc.dev_signal ? "device to device through CUDA IPC, signalled on the GPU "
                                    "(overlapped; not in the communication time)"
                                  : "device to device through CUDA IPC, MPI handshakes");
    gs_str_copy(run->res.format, sizeof run->res.format, gs_format_name(D->sel.format));
    gs_str_copy(run->res.formats, sizeof run->res.formats, gs_format_name(D->sel.format));
    gs_spmat_describe(D->Md, run->format_desc, sizeof run->format_desc);
    gs_str_copy(run->format_reason, sizeof run->format_reason, D->sel.reason);
    run->convert_s = D->sel.feature_s + D->sel.convert_s + D->sel.measure_s;
    const char *pc = c->solver.preconditioner;
    if (strcmp(pc, "amg") == 0) {
        gs_amg_params ap;
        gs_problem shape; /* the block size the AMG reads from the problem */
        memset(&shape, 0, sizeof shape);
        shape.block_size = d->block_size;
        GS_CHECK(gs_comm_agree(gs_driver_amg_params(c, &shape, &ap)));
        if (ap.aggregation == GS_AGG_AUTO) /* the ranks' MIS(2), on the gathered levels too */
            ap.aggregation = GS_AGG_MIS2;
        ap.select = &rq;
        if (d->nullspace) {
            ap.nullspace = d->nullspace;
            ap.nullspace_k = d->nullspace_k;
        }
        GS_CHECK(gs_amg_dist_setup(d->A, d->part, D, &ap, c->amg.gather_rows, where, &amg));
        GS_CHECK(gs_driver_record_amg(gs_amg_get_report(amg), run));
        M = gs_amg_linop(amg);
        Mp = &M;
    } else {
        GS_CHECK(one_level(D, d->A, run));
        run->res.phase_s[GS_PHASE_CONVERT] = run->convert_s;
        if (strcmp(pc, "jacobi") == 0) {
            GS_CHECK(gs_dist_op_host_diag(D, &Jd));
            st = gs_jacobi_create_at(Jd, d->A->row0, loc, where, &J);
            GS_CHECK(gs_comm_agree(st));
            M = gs_jacobi_linop(J);
            Mp = &M;
        }
    }
    gs_spmat_op aop;
    gs_linop Aop = gs_spmat_linop(gs_dist_op_spmat(D), &aop);
    GS_CHECK(gs_vec_create(d->A->rows, loc, &b));
    GS_CHECK(gs_vec_create(d->A->rows, loc, &x));
    GS_CHECK(gs_vec_create(d->A->rows, loc, &w));
    GS_CHECK(gs_vec_set_host(b, d->b));
    GS_CHECK(gs_vec_set_host(x, d->x0));
    GS_CHECK(gs_driver_project_rhs(c, b, run)); /* global sums: the same on every rank */
    GS_CHECK(gs_backend_get(loc)->sync());
    GS_CHECK(gs_comm_barrier());
    run->res.setup_s = gs_time_now() - t0;
    const size_t setup_peak = gs_backend_mem_now().peak;
    run->res.comm_setup_s = comm_max();
    GS_CHECK(gs_comm_max(&run->res.setup_s, 1));

    gs_krylov_params kp = gs_driver_krylov_params(c, run, &g_stop);
    gs_krylov_result kr;
    gs_driver_timed tA, tM;
    gs_linop Ause = Aop, Muse;
    gs_driver_profile_begin(c, run, amg, loc, &tA, &tM, &Ause, &Muse, &Mp);
    GS_CHECK(gs_vec_nrm2(b, &run->res.bnorm));
    if (me == 0 && run->verbosity >= 1) gs_driver_print_header(c, p, run, run->out);
    gs_comm_reset_seconds();
    run->t_solve0 = gs_time_now();
    GS_CHECK(gs_krylov_solve(&kp, &Ause, Mp, b, x, &kr));
    GS_CHECK(gs_backend_get(loc)->sync());
    run->res.solve_s = gs_time_now() - run->t_solve0;
    run->res.comm_solve_s = comm_max();
    GS_CHECK(gs_driver_profile_end(c, run, amg, loc, gs_spmat_bytes(gs_dist_op_spmat(D)),
                                   d->A->rows, kr.iterations)); /* this rank's */
    GS_CHECK(gs_comm_max(&run->res.solve_s, 1)); /* the slowest rank's */
    run->res.total_s = run->res.setup_s + run->res.solve_s;
    gs_driver_mem_record(run, setup_peak);
    gs_driver_record_reason(&kr, g_signal ? (int)*g_signal : 0, &run->res);
    GS_CHECK(gs_driver_true_residual(&Aop, b, x, w, run->res.bnorm, &run->res.rel_residual));
    /* the solution on rank 0 */
    GS_CHECK(gs_alloc_array((size_t)d->A->rows + 1, sizeof *xl, "solution", (void **)&xl));
    GS_CHECK(gs_vec_get_host(x, xl));
    if (me == 0)
        GS_CHECK(gs_alloc_array((size_t)d->rows + 1, sizeof(double), "solution",
                                (void **)&run->x));
    GS_CHECK(gs_dproblem_gather(d, xl, run->x));
    if (d->x_exact) { /* ||x - x_exact|| / ||x_exact|| over the ranks */
        double e[2] = {0.0, 0.0};
        for (int32_t i = 0; i < d->A->rows; i++) {
            e[0] += (xl[i] - d->x_exact[i]) * (xl[i] - d->x_exact[i]);
            e[1] += d->x_exact[i] * d->x_exact[i];
        }
        GS_CHECK(gs_comm_sum(e, 2));
        run->res.error = e[1] > 0 ? sqrt(e[0] / e[1]) : sqrt(e[0]);
    }
    if (me == 0) {
        gs_driver_hints(c, p, &kr, run);
        gs_driver_attach_record(run);
    }
done:
    gs_vec_set_reduce(NULL);
    g_signal = NULL;
    gs_vec_destroy(&b);
    gs_vec_destroy(&x);
    gs_vec_destroy(&w);
    gs_jacobi_destroy(&J);
    gs_csr_destroy(&Jd);
    gs_amg_destroy(&amg);
    gs_dist_op_destroy(&D);
    gs_free(xl);
    return st;
}

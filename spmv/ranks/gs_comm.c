/* gs_comm.c: the MPI calls behind gs_comm.h (and their one-process forms without MPI). */
#include "gs_comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_knob.h"
#include "gs_log.h"
#include "gs_mem.h"
#include "gs_time.h"

#ifdef GSOLVE_MPI
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

static int g_started, g_size = 1, g_rank, g_local_rank, g_local_size = 1, g_device_aware;
static double g_comm_s;
static gs_comm_fatal_fn g_fatal; /* gs_comm_set_fatal */

void gs_comm_set_fatal(gs_comm_fatal_fn fn) { g_fatal = fn; }
static char g_library[64] = "none";

int gs_comm_size(void) { return g_size; }
int gs_comm_rank(void) { return g_rank; }
int gs_comm_local_rank(void) { return g_local_rank; }
int gs_comm_local_size(void) { return g_local_size; }
const char *gs_comm_library(void)
{
#ifdef GSOLVE_MPI
    if (!g_started && strcmp(g_library, "none") == 0) { /* callable before MPI_Init (MPI-3) */
        char ver[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        if (MPI_Get_library_version(ver, &len) == MPI_SUCCESS) {
            ver[strcspn(ver, ",\n")] = '\0';
            snprintf(g_library, sizeof g_library, "%.63s", ver);
        }
    }
#endif
    return g_library;
}
int gs_comm_device_aware(void) { return g_device_aware; }
double gs_comm_seconds(void) { return g_comm_s; }
void gs_comm_reset_seconds(void) { g_comm_s = 0.0; }
void gs_comm_add_seconds(double s) { g_comm_s += s; }

#ifdef GSOLVE_MPI

#define MPI_OK(call, what)                                                                         \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) {                                                                  \
            char msg_[MPI_MAX_ERROR_STRING];                                                       \
            int len_ = 0;                                                                          \
            MPI_Error_string(rc_, msg_, &len_);                                                    \
            return GS_ERROR(GS_ERR_INTERNAL, "MPI: %s failed on rank %d: %s", what, g_rank,      \
                            msg_);                                                                 \
        }                                                                                          \
    } while (0)

int gs_comm_init(int *argc, char ***argv, int launched)
{
    int flag = 0;
    if (g_started || !launched) return g_started;
    MPI_Initialized(&flag);
    if (!flag && MPI_Init(argc, argv) != MPI_SUCCESS) return 0;
    /* errors come back as codes: gsolve turns them into its messages */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(node, &g_local_rank);
        MPI_Comm_size(node, &g_local_size);
        MPI_Comm_free(&node);
    }
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(ver, &len);
    ver[strcspn(ver, ",\n")] = '\0';
    snprintf(g_library, sizeof g_library, "%.63s", ver);
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    g_device_aware = MPIX_Query_cuda_support() ? 1 : 0;
#endif
    if (gs_knob("GSOLVE_MPI_STAGE")) g_device_aware = 0; /* force the pinned staging */
    g_started = 1;
    return 1;
}

void gs_comm_finalize(void)
{
    if (!g_started) return;
    MPI_Finalize();
    g_started = 0;
}

static gs_status allreduce(void *v, int k, MPI_Datatype t, MPI_Op op, const char *what)
{
    if (g_size == 1 || k <= 0) return GS_OK;
    double t0 = gs_time_now();
    MPI_OK(MPI_Allreduce(MPI_IN_PLACE, v, k, t, op, MPI_COMM_WORLD), what);
    g_comm_s += gs_time_now() - t0;
    return GS_OK;
}

gs_status gs_comm_sum(double *v, int k) { return allreduce(v, k, MPI_DOUBLE, MPI_SUM, "sum"); }
gs_status gs_comm_max(double *v, int k) { return allreduce(v, k, MPI_DOUBLE, MPI_MAX, "max"); }
gs_status gs_comm_sum_i64(int64_t *v, int k)
{
    return allreduce(v, k, MPI_INT64_T, MPI_SUM, "sum");
}
gs_status gs_comm_max_i64(int64_t *v, int k)
{
    return allreduce(v, k, MPI_INT64_T, MPI_MAX, "max");
}
gs_status gs_comm_min_i64(int64_t *v, int k)
{
    return allreduce(v, k, MPI_INT64_T, MPI_MIN, "min");
}

gs_status gs_comm_bcast(void *buf, size_t bytes, int root)
{
    if (g_size == 1 || bytes == 0) return GS_OK;
    if (bytes > (size_t)2147483647)
        return GS_ERROR(GS_ERR_UNSUPPORTED, "MPI: a broadcast of %zu bytes (2^31 at most)", bytes);
    MPI_OK(MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD), "broadcast");
    return GS_OK;
}

gs_status gs_comm_barrier(void)
{
    if (g_size == 1) return GS_OK;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD), "barrier");
    return GS_OK;
}

gs_status gs_comm_allgather_i64(int64_t mine, int64_t *all)
{
    if (g_size == 1) {
        all[0] = mine;
        return GS_OK;
    }
    MPI_OK(MPI_Allgather(&mine, 1, MPI_INT64_T, all, 1, MPI_INT64_T, MPI_COMM_WORLD),
           "allgather");
    return GS_OK;
}

/* int counts and displacements of byte blocks (MPI's limit: 2^31 bytes a call) */
static gs_status counts(const size_t *bytes, int **cnt, int **dsp)
{
    gs_status st = GS_OK;
    size_t off = 0;
    *cnt = *dsp = NULL;
    GS_CHECK(gs_alloc_array((size_t)g_size, sizeof(int), "MPI counts", (void **)cnt));
    GS_CHECK(gs_alloc_array((size_t)g_size, sizeof(int), "MPI counts", (void **)dsp));
    for (int r = 0; r < g_size; r++) {
        if (bytes[r] > 2147483647u || off > 2147483647u)
            GS_FAIL(GS_ERR_UNSUPPORTED, "MPI: a message of more than 2^31 bytes (%zu at rank %d)",
                    off + bytes[r], r);
        (*cnt)[r] = (int)bytes[r];
        (*dsp)[r] = (int)off;
        off += bytes[r];
    }
done:
    return st;
}

gs_status gs_comm_allgatherv(const void *send, size_t bytes, void *recv, const size_t *recv_bytes)
{
    gs_status st = GS_OK;
    int *cnt = NULL, *dsp = NULL;
    double t0 = gs_time_now();
    if (g_size == 1) {
        if (bytes) memcpy(recv, send, bytes);
        return GS_OK;
    }
    GS_CHECK(counts(recv_bytes, &cnt, &dsp));
    int rc = MPI_Allgatherv(send, (int)bytes, MPI_BYTE, recv, cnt, dsp, MPI_BYTE, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) GS_FAIL(GS_ERR_INTERNAL, "MPI: allgatherv failed on rank %d", g_rank);
    g_comm_s += gs_time_now() - t0;
done:
    gs_free(cnt);
    gs_free(dsp);
    return st;
}

gs_status gs_comm_gatherv(const void *send, size_t bytes, void *recv, const size_t *recv_bytes,
                          int root)
{
    gs_status st = GS_OK;
    int *cnt = NULL, *dsp = NULL;
    if (g_size == 1) {
        if (bytes) memcpy(recv, send, bytes);
        return GS_OK;
    }
    if (g_rank == root) GS_CHECK(counts(recv_bytes, &cnt, &dsp));
    int rc = MPI_Gatherv(send, (int)bytes, MPI_BYTE, recv, cnt, dsp, MPI_BYTE, root,
                         MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) GS_FAIL(GS_ERR_INTERNAL, "MPI: gatherv failed on rank %d", g_rank);
done:
    gs_free(cnt);
    gs_free(dsp);
    return st;
}

gs_status gs_comm_scatterv(const void *send, const size_t *send_bytes, void *recv, size_t bytes,
                           int root)
{
    gs_status st = GS_OK;
    int *cnt = NULL, *dsp = NULL;
    if (g_size == 1) {
        if (bytes) memcpy(recv, send, bytes);
        return GS_OK;
    }
    if (g_rank == root) GS_CHECK(counts(send_bytes, &cnt, &dsp));
    int rc = MPI_Scatterv(send, cnt, dsp, MPI_BYTE, recv, (int)bytes, MPI_BYTE, root,
                          MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) GS_FAIL(GS_ERR_INTERNAL, "MPI: scatterv failed on rank %d", g_rank);
done:
    gs_free(cnt);
    gs_free(dsp);
    return st;
}

gs_status gs_comm_alltoall_sizes(const size_t *send_bytes, size_t *recv_bytes)
{
    if (g_size == 1) {
        recv_bytes[0] = send_bytes[0];
        return GS_OK;
    }
    MPI_OK(MPI_Alltoall(send_bytes, (int)sizeof(size_t), MPI_BYTE, recv_bytes, (int)sizeof(size_t),
                        MPI_BYTE, MPI_COMM_WORLD),
           "alltoall");
    return GS_OK;
}

gs_status gs_comm_alltoallv(const void *send, const size_t *send_bytes, void *recv,
                            const size_t *recv_bytes)
{
    gs_status st = GS_OK;
    int *sc = NULL, *sd = NULL, *rc = NULL, *rd = NULL;
    double t0 = gs_time_now();
    if (g_size == 1) {
        if (send_bytes[0]) memcpy(recv, send, send_bytes[0]);
        return GS_OK;
    }
    GS_CHECK(counts(send_bytes, &sc, &sd));
    GS_CHECK(counts(recv_bytes, &rc, &rd));
    if (MPI_Alltoallv(send, sc, sd, MPI_BYTE, recv, rc, rd, MPI_BYTE, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        GS_FAIL(GS_ERR_INTERNAL, "MPI: alltoallv failed on rank %d", g_rank);
    g_comm_s += gs_time_now() - t0;
done:
    gs_free(sc);
    gs_free(sd);
    gs_free(rc);
    gs_free(rd);
    return st;
}

struct gs_comm_exchange {
    int nsend, nrecv;
    const int *to, *from;
    const int64_t *soff, *roff;
    MPI_Request *req;
    double t0;
    int tag;
};

gs_status gs_comm_exchange_create(int nsend, const int *to, const int64_t *soff, int nrecv,
                                  const int *from, const int64_t *roff, gs_comm_exchange **out)
{
    gs_status st = GS_OK;
    gs_comm_exchange *e = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *e, "halo exchange", (void **)&e));
    memset(e, 0, sizeof *e);
    GS_CHECK(gs_alloc_array((size_t)(nsend + nrecv) + 1, sizeof(MPI_Request), "halo exchange",
                            (void **)&e->req));
    e->nsend = nsend;
    e->nrecv = nrecv;
    e->to = to;
    e->from = from;
    e->soff = soff;
    e->roff = roff;
    e->tag = 7;
    *out = e;
    e = NULL;
done:
    gs_comm_exchange_destroy(&e);
    return st;
}

void gs_comm_exchange_set_tag(gs_comm_exchange *e, int tag)
{
    if (e) e->tag = tag;
}

void gs_comm_exchange_destroy(gs_comm_exchange **e)
{
    if (!e || !*e) return;
    gs_free((*e)->req);
    gs_free(*e);
    *e = NULL;
}

gs_status gs_comm_exchange_begin(gs_comm_exchange *e, const double *send, double *recv)
{
    e->t0 = gs_time_now();
    for (int i = 0; i < e->nrecv; i++)
        MPI_OK(MPI_Irecv(recv + e->roff[i], (int)(e->roff[i + 1] - e->roff[i]), MPI_DOUBLE,
                         e->from[i], e->tag, MPI_COMM_WORLD, &e->req[i]),
               "halo receive");
    for (int i = 0; i < e->nsend; i++)
        MPI_OK(MPI_Isend(send + e->soff[i], (int)(e->soff[i + 1] - e->soff[i]), MPI_DOUBLE,
                         e->to[i], e->tag, MPI_COMM_WORLD, &e->req[e->nrecv + i]),
               "halo send");
    g_comm_s += gs_time_now() - e->t0;
    return GS_OK;
}

gs_status gs_comm_exchange_end(gs_comm_exchange *e)
{
    if (e->nsend + e->nrecv == 0) return GS_OK; /* also where MPI never started: one process */
    double t0 = gs_time_now();
    MPI_OK(MPI_Waitall(e->nsend + e->nrecv, e->req, MPI_STATUSES_IGNORE), "halo wait");
    g_comm_s += gs_time_now() - t0;
    return GS_OK;
}

gs_status gs_comm_agree(gs_status st)
{
    if (g_size == 1) return st;
    int64_t first = st != GS_OK ? g_rank : g_size;
    if (MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        gs_comm_fatal(GS_ERROR(GS_ERR_INTERNAL, "MPI: the checkpoint's reduction failed"));
    if (first == g_size) return GS_OK;
    struct {
        int status;
        char msg[1024];
    } m;
    memset(&m, 0, sizeof m);
    if (g_rank == first) {
        m.status = (int)st;
        snprintf(m.msg, sizeof m.msg, "%s", gs_error_message()[0] ? gs_error_message()
                                                                   : gs_status_str(st));
    }
    if (MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, (int)first, MPI_COMM_WORLD) != MPI_SUCCESS)
        gs_comm_fatal(GS_ERROR(GS_ERR_INTERNAL, "MPI: the checkpoint's broadcast failed"));
    if (g_rank != first || first != 0) {
        gs_error_clear();
        if (first == 0)
            gs_error((gs_status)m.status, __FILE__, __LINE__, "%s", m.msg);
        else
            gs_error((gs_status)m.status, __FILE__, __LINE__, "rank %d: %s", (int)first, m.msg);
    }
    return (gs_status)m.status;
}

void gs_comm_fatal(gs_status st)
{
    const char *msg = gs_error_message();
    gs_log(GS_LOG_ERROR, "rank %d: %s", g_rank, msg[0] ? msg : gs_status_str(st));
    if (g_started && g_fatal) g_fatal(gs_status_exit_code(st));
}

#else /* one process */

int gs_comm_init(int *argc, char ***argv, int launched)
{
    (void)argc;
    (void)argv;
    (void)launched;
    return 0;
}
void gs_comm_finalize(void) {}
gs_status gs_comm_sum(double *v, int k) { (void)v; (void)k; return GS_OK; }
gs_status gs_comm_max(double *v, int k) { (void)v; (void)k; return GS_OK; }
gs_status gs_comm_sum_i64(int64_t *v, int k) { (void)v; (void)k; return GS_OK; }
gs_status gs_comm_max_i64(int64_t *v, int k) { (void)v; (void)k; return GS_OK; }
gs_status gs_comm_min_i64(int64_t *v, int k) { (void)v; (void)k; return GS_OK; }
gs_status gs_comm_bcast(void *buf, size_t bytes, int root)
{
    (void)buf; (void)bytes; (void)root;
    return GS_OK;
}
gs_status gs_comm_barrier(void) { return GS_OK; }
gs_status gs_comm_allgather_i64(int64_t mine, int64_t *all)
{
    all[0] = mine;
    return GS_OK;
}
gs_status gs_comm_allgatherv(const void *send, size_t bytes, void *recv, const size_t *recv_bytes)
{
    (void)recv_bytes;
    if (bytes) memcpy(recv, send, bytes);
    return GS_OK;
}
gs_status gs_comm_gatherv(const void *send, size_t bytes, void *recv, const size_t *recv_bytes,
                          int root)
{
    (void)recv_bytes; (void)root;
    if (bytes) memcpy(recv, send, bytes);
    return GS_OK;
}
gs_status gs_comm_scatterv(const void *send, const size_t *send_bytes, void *recv, size_t bytes,
                           int root)
{
    (void)send_bytes; (void)root;
    if (bytes) memcpy(recv, send, bytes);
    return GS_OK;
}
gs_status gs_comm_alltoall_sizes(const size_t *send_bytes, size_t *recv_bytes)
{
    recv_bytes[0] = send_bytes[0];
    return GS_OK;
}
gs_status gs_comm_alltoallv(const void *send, const size_t *send_bytes, void *recv,
                            const size_t *recv_bytes)
{
    (void)recv_bytes;
    if (send_bytes[0]) memcpy(recv, send, send_bytes[0]);
    return GS_OK;
}
struct gs_comm_exchange {
    int unused;
};
gs_status gs_comm_exchange_create(int nsend, const int *to, const int64_t *soff, int nrecv,
                                  const int *from, const int64_t *roff, gs_comm_exchange **out)
{
    (void)to; (void)soff; (void)from; (void)roff;
    *out = NULL;
    if (nsend || nrecv)
        return GS_ERROR(GS_ERR_INTERNAL, "a halo exchange in a build without MPI");
    return GS_OK;
}
void gs_comm_exchange_destroy(gs_comm_exchange **e) { if (e) *e = NULL; }
void gs_comm_exchange_set_tag(gs_comm_exchange *e, int tag) { (void)e; (void)tag; }
gs_status gs_comm_exchange_begin(gs_comm_exchange *e, const double *send, double *recv)
{
    (void)e; (void)send; (void)recv;
    return GS_OK;
}
gs_status gs_comm_exchange_end(gs_comm_exchange *e) { (void)e; return GS_OK; }
gs_status gs_comm_agree(gs_status st) { return st; }
void gs_comm_fatal(gs_status st)
{
    (void)st; /* one process: nobody waits for it, the failure returns as a status */
}
#endif

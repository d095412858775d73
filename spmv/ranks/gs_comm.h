/* gs_comm.h: the process group one system is solved across (MPI ranks), behind plain C calls so
 * that no other file includes mpi.h. Built without MPI (GSOLVE_MPI off, or not started under a
 * launcher) it is one process of rank 0: every call works and does nothing across processes.
 *
 * MPI starts (gs_comm_init) only when the caller says the process was launched by mpirun, mpiexec
 * or srun (the gsolve program tells from their environment variables), so a plain `gsolve CONFIG`
 * never pays for it. With one rank the solve takes the single-process path unchanged.
 *
 * Failures: a collective call that fails locally returns its status; gs_comm_agree is the
 * checkpoint every rank calls at the end of a phase, after which all ranks hold the same status
 * and the message of the lowest failing rank (so one message is printed, by rank 0). Inside the
 * solve, where one rank cannot return alone without leaving the others waiting in a reduction,
 * gs_comm_fatal logs the failure and calls the application's handler (gs_comm_set_fatal; the
 * gsolve program's ends every rank through MPI_Abort). The library itself never exits: without
 * a handler, and with one process, gs_comm_fatal returns.
 */
#ifndef GS_COMM_H
#define GS_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Start MPI when `launched` (by an MPI launcher) and MPI is built (else nothing); 1 when started. */
int gs_comm_init(int *argc, char ***argv, int launched);
void gs_comm_finalize(void);
int gs_comm_size(void);
int gs_comm_rank(void);
/* the rank among those of this node, and how many run on it */
int gs_comm_local_rank(void);
int gs_comm_local_size(void);
/* "Open MPI v4.1.4", the MPI library built with (started or not), or "none" without MPI */
const char *gs_comm_library(void);
/* 1 when device pointers may be passed to MPI (CUDA-aware library, checked at run time) */
int gs_comm_device_aware(void);

/* in-place sums, maxima and minima over all ranks (nothing with one) */
gs_status gs_comm_sum(double *v, int k);
gs_status gs_comm_sum_i64(int64_t *v, int k);
gs_status gs_comm_max_i64(int64_t *v, int k);
gs_status gs_comm_min_i64(int64_t *v, int k);
gs_status gs_comm_max(double *v, int k);
/* bytes from root to every rank */
gs_status gs_comm_bcast(void *buf, size_t bytes, int root);
/* all[r] = mine of rank r */
gs_status gs_comm_allgather_i64(int64_t mine, int64_t *all);
/* variable-size byte blocks: every rank's `bytes` into recv at displs[r] (recv_bytes[r] each) */
gs_status gs_comm_allgatherv(const void *send, size_t bytes, void *recv, const size_t *recv_bytes);
/* rank root receives every rank's block (recv, recv_bytes used on root only) */
gs_status gs_comm_gatherv(const void *send, size_t bytes, void *recv, const size_t *recv_bytes,
                          int root);
/* root sends block r (send_bytes[r]) to rank r */
gs_status gs_comm_scatterv(const void *send, const size_t *send_bytes, void *recv, size_t bytes,
                           int root);
/* all-to-all of byte blocks: send_bytes[r] to rank r (blocks back to back in send), recv_bytes[r]
 * from rank r (back to back in recv) */
gs_status gs_comm_alltoallv(const void *send, const size_t *send_bytes, void *recv,
                            const size_t *recv_bytes);
/* recv_bytes[r] = send_bytes[r] of rank r for me (sizes before an alltoallv) */
gs_status gs_comm_alltoall_sizes(const size_t *send_bytes, size_t *recv_bytes);
gs_status gs_comm_barrier(void);

/* A halo exchange in flight: nonblocking receives and sends of doubles between neighbours. */
typedef struct gs_comm_exchange gs_comm_exchange;
/* nsend blocks of send[soff[i] .. soff[i+1]) to ranks to[i]; nrecv blocks into
 * recv[roff[i] .. roff[i+1]) from ranks from[i]; the arrays are borrowed for its life */
gs_status gs_comm_exchange_create(int nsend, const int *to, const int64_t *soff, int nrecv,
                                  const int *from, const int64_t *roff, gs_comm_exchange **out);
void gs_comm_exchange_destroy(gs_comm_exchange **e);
/* the MPI tag of its messages (default 7): exchanges that can be in flight between the same two
 * ranks at once need different tags */
void gs_comm_exchange_set_tag(gs_comm_exchange *e, int tag);
/* post the receives and sends (send's values must be ready) / wait for all of them */
gs_status gs_comm_exchange_begin(gs_comm_exchange *e, const double *send, double *recv);
gs_status gs_comm_exchange_end(gs_comm_exchange *e);

/* The checkpoint: every rank calls it with its own status; all return the first failing rank's
 * status (GS_OK when none failed), and that rank's message becomes the recorded error of every
 * rank ("rank 2: ..." prefixed when it is not rank 0's). */
gs_status gs_comm_agree(gs_status st);
/* A failure the other ranks cannot learn of (they wait in an exchange or a reduction): log the
 * recorded message (with the rank), then, when MPI runs, the handler set with gs_comm_set_fatal
 * gets st's exit code (it should not return: the others are waiting); it returns otherwise. */
void gs_comm_fatal(gs_status st);
typedef void (*gs_comm_fatal_fn)(int exit_code);
void gs_comm_set_fatal(gs_comm_fatal_fn fn);

/* Seconds spent in communication calls since the last reset (halo exchanges, reductions). */
double gs_comm_seconds(void);
void gs_comm_reset_seconds(void);
/* count s more seconds as communication (a halo's staging copies through host memory) */
void gs_comm_add_seconds(double s);

#ifdef __cplusplus
}
#endif
#endif

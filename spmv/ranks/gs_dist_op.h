/* gs_dist_op.h: a distributed matrix in its SpMV form: on every rank the diagonal block (its own
 * columns) in the format the selector picks for it, the off-diagonal block (halo columns) in CSR,
 * and the halo exchange, overlapped with the diagonal block's product:
 *   1. the values the neighbours need gathered (a kernel on the device) and, unless MPI takes
 *      device memory, copied into a page-locked host buffer;
 *   2. nonblocking receives and sends posted;
 *   3. y = A_diag x launched (it runs while the messages travel);
 *   4. the exchange waited for, the halo copied to the device, y += A_offd x_halo.
 * Its gs_spmat view (gs_dist_op_spmat) is what the Krylov methods, the smoothers and the AMG
 * cycle multiply by: gs_spmat_spmv runs the steps above.
 */
#ifndef GS_DIST_OP_H
#define GS_DIST_OP_H

#include "gs_buf.h"
#include "gs_comm.h"
#include "gs_dist.h"
#include "gs_select.h"
#include "gs_spmat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An operator's halos through CUDA IPC (every rank on one node; GSOLVE_MPI_IPC=0 turns it off):
 * this rank's halo buffer buf, which its neighbours copy into (xh views it), the buffers of the
 * nnb neighbours (either direction) mapped here (peer[i]: where send block i goes), and "my halo
 * buffer is free" (ready) and "your halo has arrived" (done) said either
 *  - on the device (dev_signal; every rank on its own GPU): counters after the halo in buf,
 *    flags[i] (done by from[i]) and flags[nrecv + i] (ready from to[i]), written by the
 *    neighbours' kernels through done_at[i] (to[i]'s done flag for this rank) and ready_at[i]
 *    (from[i]'s ready flag for this rank); seq[0] the products done on the stream (the last
 *    kernel of each, the off-diagonal product's or flag_signal, counts it), seq[1] the send
 *    kernel's scratch, seq[2] the off-diagonal product's (whose kernel also waits for the halo
 *    and says "ready"), seq[3] the products whose values were sent (the send kernel, which
 *    gathers them itself, counts them); dpeer and dsoff: peer and soff at loc; or
 *  - by zero-byte MPI exchanges (ready, done; zoff their zero offsets) with the stream drained
 *    first. */
typedef struct gs_dist_ipc {
    void *buf;
    int nnb;
    void **peer_base;
    double **peer, **dpeer;
    gs_vec xh;
    int dev_signal;
    uint64_t *flags, **done_at, **ready_at, *seq;
    int64_t *dsoff;
    gs_comm_exchange *ready, *done;
    int64_t *zoff;
} gs_dist_ipc;

typedef struct gs_dist_op {
    gs_spmat view; /* the diagonal block's description; its dist_spmv runs the whole product */
    gs_loc loc;
    int32_t rows, cols, nhalo; /* own rows, own columns, halo columns */
    int64_t row0, col0;
    gs_csr *compact;           /* at loc: the rows with [own | halo] columns (gs_dist_ops.h's compact
                                  form; NULL for a transpose) */
    gs_csr *diag, *offd;       /* at loc (offd NULL without halo): offd holds only the rows
                                  with halo entries, nor of them, own rows orow[0..nor) (at loc) */
    int32_t nor, *orow;
    gs_spmat *Md;
    /* a transpose (gs_dist_op_transpose): the rows of P^T that other ranks own (rem, at loc,
     * one a halo column of P), multiplied first and sent to their owners, who add them into
     * their rows at the indices P's owners sent (sidx); the exchange runs the other way */
    int reverse;
    gs_csr *rem;
    gs_spmat *Mr;
    gs_vec *tr;
    gs_select_result sel;      /* the diagonal block's format choice */
    int64_t *halo;             /* the halo columns' global numbers, ascending */
    int nsend, nrecv;
    int *to, *from;
    int64_t *soff, *roff;
    gs_buf *sidx;              /* own column of every value sent (int32, at loc) */
    double *sdev, *shost, *rhost; /* send values at loc; page-locked staging (NULL: not staged) */
    gs_vec *xh;                /* the halo's values, at loc */
    gs_comm_exchange *ex;
    gs_dist_ipc ipc;  /* its halos through CUDA IPC (all zero: not) */
    int ipc_borrowed; /* ipc is another operator's (the same plan), which outlives this one and
                         releases it */
    /* whole (gs_dist_op_whole_like): no blocks; a product copies x and the halo into ext
     * ([own | halo], at loc) and multiplies the compact rows by it (Md: their CSR) */
    int whole;
    gs_vec *ext;
    double prof_s; /* GSOLVE_DIST_PROFILE: the products' time and count */
    long prof_n;
} gs_dist_op;

/* This rank's rows of A (global columns) in compact form on the host, its own columns those cp
 * gives it: the host table's compact step (gs_dist_ops.h; *C page-locked when a device backend
 * runs; *halo from gs_alloc_array). */
gs_status gs_dist_compact_host(const gs_gcsr *A, const gs_part *cp, gs_csr **C, int64_t **halo,
                               int32_t *nhalo);
/* The SpMV form of the distributed matrix A (this rank's rows; its columns partitioned by cp,
 * A's own rows' partition for a square matrix) at loc; the diagonal block's format chosen by rq
 * at `level` (rq NULL: gsolve's CSR kernel): gs_dist_compact_host, then
 * gs_dist_op_create_compact. Collective. */
gs_status gs_dist_op_create(const gs_gcsr *A, const gs_part *cp, gs_loc loc,
                            const gs_select_request *rq, int level, gs_dist_op **out);
/* The same from this rank's rows in compact form on the host (C: columns [own | halo], halo
 * the nhalo halo columns' global numbers, ascending; neither taken over): C copied to loc (a
 * device: one upload of its 32-bit columns), then as gs_dist_op_from_compact. Collective. */
gs_status gs_dist_op_create_compact(const gs_csr *C, const int64_t *halo, int32_t nhalo,
                                    int64_t row0, const gs_part *cp, gs_loc loc,
                                    const gs_select_request *rq, int level, gs_dist_op **out);
/* The same from rows already in compact form at loc: *C (taken over, also on failure) with
 * columns [own | halo], *halo (host, ascending; taken over) the nhalo halo columns' global
 * numbers, row0 the first row's global number. Collective. */
gs_status gs_dist_op_from_compact(gs_csr **C, int64_t **halo, int32_t nhalo, int64_t row0,
                                  const gs_part *cp, gs_loc loc, const gs_select_request *rq,
                                  int level, gs_dist_op **out);
/* The operator of rows *C (taken over, also on failure) in the compact columns of the operator
 * `like` (its rows, its own columns and halo): like's exchange plan copied, no messages, and no
 * blocks: a product is the halo exchange and then one CSR product of the compact rows over
 * [x | halo] (the halo not overlapped). Where like's halos go through CUDA IPC, this operator's
 * go through like's buffers and signals too: like must outlive it, and every rank runs the two
 * operators' products in the same order. For an operator of a few products, where splitting its
 * rows costs more than the overlap gains (the filtered A of the AMG's prolongator smoothing,
 * twelve Lanczos steps: its split was 0.8-1.3 ms at 1.5M rows of 34 entries on each of four
 * H200). Its view describes the compact rows in CSR. */
gs_status gs_dist_op_whole_like(gs_csr **C, const gs_dist_op *like, gs_dist_op **out);
/* R = P^T as an operator: P's compact rows transposed at loc; R's rows that this rank owns form
 * its diagonal block (format chosen by rq), the others are sent to their owners at each product
 * (P's halo exchange run backwards). P must outlive nothing: R copies what it needs. */
gs_status gs_dist_op_transpose(const gs_dist_op *P, const gs_select_request *rq, int level,
                               gs_dist_op **out);
void gs_dist_op_destroy(gs_dist_op **D);
/* Its products' exchanges device to device through CUDA IPC from now on, where every rank is on
 * one node and the device backend has it (GSOLVE_MPI_IPC=0: never); otherwise, or when a
 * mapping fails on any rank, nothing changes. For the operators a solve uses (the set-up takes
 * a buffer and a mapping per neighbour). Collective. */
gs_status gs_dist_op_use_ipc(gs_dist_op *D);
/* 1 when D's products can be recorded into a CUDA graph: halos through CUDA IPC signalled on
 * the device (nothing on the host) and GSOLVE_DIST_PROFILE unset */
int gs_dist_op_graph_safe(const gs_dist_op *D);

/* The operator as a gs_spmat (borrowed from D). */
static inline const gs_spmat *gs_dist_op_spmat(const gs_dist_op *D) { return &D->view; }

/* y = A x: the steps above (x: own columns, y: own rows, both at loc). Collective. */
gs_status gs_dist_op_spmv(const gs_dist_op *D, const gs_vec *x, gs_vec *y);

/* Every other rank's device mapped into this rank's once, when the ranks start, where the
 * halos go through CUDA IPC (see gs_dist_op_use_ipc; GSOLVE_IPC_CONNECT=0: not): the first
 * mapping between two GPUs costs about 8 ms (25 ms for 4 ranks on 4 x H200), which the first
 * operator's set-up paid inside the setup before. The first chunk of the operators' IPC arena
 * (their halo buffers, see gs_dist_op.c) and the first receive window of gs_dist_alltoallv_at
 * are made and mapped here too. A failure leaves everything as without it.
 * Collective; gs_dist_peers_seconds says how long it took (0: not made).
 * gs_dist_peers_release (collective, every rank in step) undoes it and frees the receive
 * windows gs_dist_alltoallv_at keeps. */
gs_status gs_dist_peers_connect(gs_loc loc);
void gs_dist_peers_release(gs_loc loc);
double gs_dist_peers_seconds(void);

/* Rank to rank, for arrays at loc: k arrays send[j] (the bytes for rank r at the prefix of
 * sb[0..r), packed by rank) into recv[j] (the bytes from rank r at the prefix of rb[0..r)), the
 * same counts for every array. Device to device through CUDA IPC where every rank is on one node
 * (GSOLVE_MPI_IPC not 0): each rank maps the others' receive windows and copies its blocks in
 * (a rank's window and the others' mappings of it are kept from one exchange to the next, grown
 * when an exchange needs more, until gs_dist_peers_release); otherwise through host memory and
 * MPI. Collective. */
gs_status gs_dist_alltoallv_at(gs_loc loc, int k, const void *const *send, const size_t *sb,
                               void *const *recv, const size_t *rb);

/* The same for an allgather: k arrays send[j] of `bytes` each from this rank to every rank, into
 * recv[j] (rb[r] bytes from rank r at the prefix of rb[0..r)). Collective. */
gs_status gs_dist_allgatherv_at(gs_loc loc, int k, const void *const *send, size_t bytes,
                                void *const *recv, const size_t *rb);

/* xh = the halo values of x (own columns), from the neighbours, both at D's location (x:
 * D->cols values, xh: D->nhalo): through D's CUDA IPC exchange where it has one (as its
 * products), else staged through MPI; collective */
gs_status gs_dist_op_halo(const gs_dist_op *D, const double *x, double *xh);

/* The rows of M that D's halo columns name, from their owners: M at D's location holds this
 * rank's rows of a matrix whose rows are D's columns (D->cols of them), its column j < nown
 * standing for global column base + j and j >= nown for gmap[j - nown] (gmap at loc, may be
 * NULL when nown covers every column). Out: D->nhalo rows in D->halo's order, entries
 * (*rowptr)[h]..(*rowptr)[h + 1] of *gcol (global columns, the owner's order) and *val, *nent
 * of them; the three arrays at D's location (its backend's free; at least one element): the
 * lengths go through the halo exchange, and the host reads only each neighbour's bounds.
 * Collective. */
gs_status gs_dist_op_fetch_rows(const gs_dist_op *D, const gs_csr *M, int64_t base, int32_t nown,
                                const int64_t *gmap, int64_t **rowptr, int64_t *nent,
                                int64_t **gcol, double **val);

/* The diagonal block on the host (a copy; the Jacobi preconditioner's input). */
gs_status gs_dist_op_host_diag(const gs_dist_op *D, gs_csr **out);

#ifdef __cplusplus
}
#endif
#endif

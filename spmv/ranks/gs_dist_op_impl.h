/* gs_dist_op_impl.h: what the files of the distributed SpMV (gs_dist_op.h) share: not a public
 * header.
 *   gs_dist_op.c       the exchange plan; the operators made (from compact rows, like another,
 *                      the transpose) and destroyed
 *   gs_dist_op_ipc.c   CUDA IPC between the ranks: the operators' halo buffers (the arena), the
 *                      peers' mappings, the rank-to-rank exchange of arrays at a location
 *   gs_dist_op_spmv.c  the product (halos through MPI or CUDA IPC, a transpose's the other way),
 *                      the halo alone, the halo's rows fetched */
#ifndef GS_DIST_OP_IMPL_H
#define GS_DIST_OP_IMPL_H

#include "gs_dist_op.h"
#include "gs_dist_ops.h"

/* the counters at D->ipc.seq (gs_dist_op.h): the products done on the stream, the send kernel's
 * ticket, the off-diagonal product's ticket, the products sent */
enum { SEQ_DONE, SEQ_SEND_TICKET, SEQ_OFFD_TICKET, SEQ_SENT, SEQ_COUNT };

/* GSOLVE_DIST_PROFILE is set (gs_dist_op.c) */
int gs_dist_op_prof_on(void);

/* the data-parallel steps at loc (gs_dist_op.c) */
const gs_dist_ops *gs_dist_ops_at(gs_loc loc);

/* D's halos go through CUDA IPC (gs_dist_op_ipc.c) */
int gs_dist_op_ipc_wanted(const gs_dist_op *D);

/* D's IPC halo state given back (gs_dist_op_ipc.c) */
void gs_dist_op_ipc_release(gs_dist_op *D);

/* the page-locked staging of D's MPI exchanges (gs_dist_op_spmv.c) */
gs_status gs_dist_op_staging(const gs_dist_op *Dc, int *staged);

#endif

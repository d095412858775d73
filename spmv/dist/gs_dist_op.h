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

typedef struct gs_dist_op {
    gs_spmat view; /* the diagonal block's description; its dist_spmv runs the whole product */
    gs_loc loc;
    int32_t rows, cols, nhalo; /* own rows, own columns, halo columns */
    int64_t row0, col0;
    gs_csr *compact;           /* host: the rows with [own | halo] columns (gs_dist_compact) */
    gs_csr *diag, *offd;       /* at loc (offd NULL without halo) */
    gs_spmat *Md, *Mo;
    gs_select_result sel;      /* the diagonal block's format choice */
    int64_t *halo;             /* the halo columns' global numbers, ascending */
    int nsend, nrecv;
    int *to, *from;
    int64_t *soff, *roff;
    gs_buf *sidx;              /* own column of every value sent (int32, at loc) */
    int32_t *sidx_h;           /* the same on the host */
    double *sdev, *shost, *rhost; /* send values at loc; page-locked staging (NULL: not staged) */
    gs_vec *xh, *t;            /* the halo's values and A_offd x_halo, at loc */
    gs_comm_exchange *ex;
} gs_dist_op;

/* The SpMV form of the distributed matrix A (this rank's rows; its columns partitioned by cp,
 * A's own rows' partition for a square matrix) at loc; the diagonal block's format chosen by rq
 * at `level` (rq NULL: gsolve's CSR kernel). Collective. */
gs_status gs_dist_op_create(const gs_gcsr *A, const gs_part *cp, gs_loc loc,
                            const gs_select_request *rq, int level, gs_dist_op **out);
void gs_dist_op_destroy(gs_dist_op **D);

/* The operator as a gs_spmat (borrowed from D). */
static inline const gs_spmat *gs_dist_op_spmat(const gs_dist_op *D) { return &D->view; }

/* y = A x: the steps above (x: own columns, y: own rows, both at loc). Collective. */
gs_status gs_dist_op_spmv(const gs_dist_op *D, const gs_vec *x, gs_vec *y);

/* xh = the halo values of the host vector x (own columns), from the neighbours; collective */
gs_status gs_dist_op_halo_host(const gs_dist_op *D, const double *x, double *xh);

/* The diagonal block on the host (a copy; the Jacobi preconditioner's input). */
gs_status gs_dist_op_host_diag(const gs_dist_op *D, gs_csr **out);

/* A's compact rows (D->compact's columns: own, then halo) back to global column numbers. */
gs_status gs_dist_op_to_global(const gs_dist_op *D, const gs_csr *C, int64_t grows,
                               int64_t gcols, gs_gcsr **out);

#ifdef __cplusplus
}
#endif
#endif

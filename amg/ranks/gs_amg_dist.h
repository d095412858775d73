/* gs_amg_dist.h: AMG across MPI ranks (smoothed aggregation; classical with amg.method =
 * classical, its splitting made on each rank's block), on the rows each rank holds.
 *
 * Per level, while the level has more than gather_rows rows in all:
 *   - diagonal, rho (Lanczos with the distributed SpMV and global dot products) and the smoother,
 *     as in one process;
 *   - the smoothing matrix I - omega / rho D^-1 F on the rank's whole rows (F filtered with the
 *     near-nullspace's halo values fetched from the neighbours);
 *   - strength and aggregation on the rank's diagonal block only: aggregates never cross a rank
 *     boundary ("decoupled" aggregation), so the tentative prolongator is block diagonal and its
 *     QR local; the coarse rows of a rank are its aggregates, numbered after the lower ranks';
 *   - P = S T, R = P^T and A_c = R (A P) as distributed products: the rows of T, P and A P that
 *     another rank owns are fetched for the local products (gs_spgemm: the DCSR row-binned
 *     product on the device), the transpose's entries sent to the coarse rows' owners.
 * The first level with at most gather_rows rows (or the last level) is gathered whole onto every
 * rank and the rest of the hierarchy built there by the one-process AMG (gs_amg.h): every rank
 * solves the same coarse problem, so no coarse solution is scattered back. The cycle is the one
 * of gs_amg_cycle.c over the distributed levels (the SpMVs exchange halos), the gathered levels'
 * one-process cycle its coarsest solve.
 */
#ifndef GS_AMG_DIST_H
#define GS_AMG_DIST_H

#include "gs_amg.h"
#include "gs_dist_op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_amg_dist gs_amg_dist;

/* The hierarchy of A (this rank's rows, host; partition part) with A0 its SpMV form at loc
 * (borrowed, level 0's operator), p as for gs_amg_setup (p->nullspace: this rank's rows x
 * nullspace_k), gather_rows the size at which the levels are gathered (0: 20000). Collective.
 * The result is a hierarchy like gs_amg_setup's: gs_amg_apply (collective; a failed cycle ends
 * every rank through gs_comm_fatal), gs_amg_linop, gs_amg_get_report (the level table over all
 * ranks: rows and nonzeros in all, and their least and most on one rank, the distributed levels
 * first), gs_amg_profile_enable and gs_amg_destroy; re-setups and block cycles are refused. */
gs_status gs_amg_dist_setup(const gs_gcsr *A, const gs_part *part, const gs_dist_op *A0,
                            const gs_amg_params *p, int64_t gather_rows, const char *where,
                            gs_amg **out);

#ifdef __cplusplus
}
#endif
#endif

/* gs_result.h: what one solve produced, as recorded: the numbers, the level table, the
 * setup phases and the context the application completes (the CSV row and HDF5 record of
 * io/gs_results.h carry it). The field set is the contract scripts rely on (docs/design.md). */
#ifndef GS_RESULT_H
#define GS_RESULT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One level of a multigrid hierarchy (level 0 = the system's matrix), as recorded. */
typedef struct gs_level_info {
    int64_t rows, nnz;
    double mean, std; /* nonzeros per row */
    int32_t max;
    char format[16];  /* SpMV format of the level's A */
    char reason[512]; /* why that format (the rule, the measurement or the forcing key; as long
                         as GS_REASON_LEN of gs_select.h) */
} gs_level_info;

/* Setup phases reported apart (seconds; AMG fills all, a one-level solve only convert) */
enum { GS_PHASE_STRENGTH = 0, GS_PHASE_AGGREGATE, GS_PHASE_PROLONG, GS_PHASE_RAP,
       GS_PHASE_CONVERT, GS_PHASE_COARSE, GS_PHASES };
extern const char *const gs_phase_names[GS_PHASES]; /* "strength", "aggregation", ... */

/* What produced a run beside the problem and the format: the settings that shape its numbers
 * and the moment it was recorded. gs_results_set_context fills it from the configuration; the
 * CSV row and the HDF5 record carry every field (the amg_ ones only when amg is set), then the
 * build's version and commit. Left unfilled, the row still gets threads and timestamp. */
typedef struct gs_run_context {
    int filled; /* set by gs_results_set_context */
    double rtol, atol;
    int64_t max_iters, restart;
    int64_t threads; /* host threads the run could use (OpenMP), 1 without OpenMP */
    int amg;         /* the preconditioner was AMG: the amg_ fields apply */
    char amg_strength[32], amg_aggregation[32], amg_smoother[32], amg_cycle[8];
    char amg_galerkin[32];
    char amg_method[16], amg_restriction[8]; /* as configured; what ran where the AMG chose */
    double amg_theta, amg_chebyshev_ratio, amg_smoother_omega, amg_prolongator_omega;
    int64_t amg_presweeps, amg_postsweeps, amg_chebyshev_degree, amg_coarse_chebyshev_degree;
    int64_t amg_smooth_prolongator, amg_filter, amg_max_levels, amg_coarse_size, amg_block_size;
    char timestamp[32]; /* ISO 8601 UTC, "2026-11-25T15:40:11Z"; "" = when it is written */
    char settings[17];  /* gs_config_settings' hash of the run's settings, 16 hex digits */
    char rhs[1024], x0[1024]; /* problem.rhs and problem.x0 as configured */
    /* provenance, filled when written if unset: host name, CPU model, the GPU the run used
     * ("none" on the host), the NVIDIA driver, the CUDA runtime and driver versions, the MPI
     * library and the HDF5 library ("none" where not built or not found) */
    char host[256], cpu[160], gpu[160], gpu_driver[64], cuda[64], mpi[64], hdf5[32];
} gs_run_context;

typedef struct gs_result {
    char case_name[256];
    char matrix[1024];
    char solver[16], preconditioner[16], format[32];
    char reason[32];       /* one word: rtol, max_iters, ... */
    char reason_text[256]; /* a phrase with details */
    char backend[16], device[128];
    int64_t rows, cols, nnz;
    int levels;
    int iterations;
    int converged;
    double rel_residual; /* recomputed true ||b - A x|| / ||b|| */
    double error;        /* ||x - x_exact|| / ||x_exact||, or -1 when unknown */
    double read_s, setup_s, solve_s, total_s; /* total = setup + solve */
    const double *x;                          /* solution, cols values (borrowed) */
    const double *history;                    /* residual norms, history_len values (borrowed) */
    const double *history_time;               /* seconds since the solve began (borrowed) */
    const int *history_iter;                  /* iteration number of each entry (borrowed) */
    int64_t history_len;
    double bnorm;
    const char *config_text; /* the configuration used (borrowed) */
    char formats[256];       /* format of every level, "cds,cmrs,csr" */
    double operator_complexity, grid_complexity; /* sum of nnz / nnz(A), of rows / rows(A) */
    double phase_s[GS_PHASES];                   /* setup split by phase */
    const gs_level_info *level_info;             /* levels entries (borrowed), may be NULL */
    const char *profile; /* output.profile: "krylov:A=ms/calls;...;L0:smoother=ms/calls;..."
                          * (borrowed; NULL or "": not profiled) */
    gs_run_context context;                      /* what produced it */
    int ranks;           /* MPI ranks the system was split across (1: one process) */
    double comm_setup_s, comm_solve_s; /* of setup_s and solve_s, the time in communication
                                          (halo exchanges with their staging copies, reductions,
                                          gathers; the most of any rank); 0 with one rank */
    double device_peak_gb; /* the most device memory in use from the setup's start to the
                            * solve's end (GB, rank 0's under MPI); 0 on the host */
} gs_result;

#ifdef __cplusplus
}
#endif
#endif

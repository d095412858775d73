/* gs_host.h: what the host process gives a run: the CPUs it may use (for the OpenMP thread
 * count) and the signals that stop a solve.
 *
 * On a shared node OpenMP's default (every CPU of the affinity mask) ignores the job's CPU
 * quota, and a thread that waits spins against the other processes there; gs_host_cpus reads
 * what the job was given, gs_host_threads picks the count a run uses.
 *
 * SIGINT and SIGTERM (SLURM's time limit) during a solve only raise a flag
 * (gs_host_interrupt_flag), which the Krylov methods read after every iteration
 * (gs_krylov_params.interrupt): the solve ends with reason "interrupted" and its outputs are
 * written. A second signal ends the process at once, as it would have without the handler.
 */
#ifndef GS_HOST_H
#define GS_HOST_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "gs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CPUs this process may use: the smallest of its affinity mask, the cgroup's CPU quota
 * (cgroup v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us, rounded up) and
 * SLURM_CPUS_PER_TASK; *from names the one that decided ("affinity", "cgroup quota",
 * "SLURM_CPUS_PER_TASK"). At least 1. */
int gs_host_cpus(const char **from);

/* The OpenMP threads the job has: `requested` when > 0 (run.threads), else OMP_NUM_THREADS when
 * set, else gs_host_cpus shared by the MPI ranks of the node when they are not bound. Sets
 * OpenMP's count (omp_set_num_threads) and returns it; why (len >= 64) says where it came from.
 * 1 in a build without OpenMP. The library fits it to the problem (gs_driver_threads). */
int gs_host_threads(int64_t requested, char *why, size_t len);

/* 1 when an MPI launcher (mpirun, mpiexec, srun) started this process: its environment says so */
int gs_host_mpi_launched(void);

/* The gsolve program's answer to a failure the other MPI ranks cannot learn of
 * (gs_comm_set_fatal): every rank ends with that exit code (MPI_Abort). */
void gs_host_mpi_fatal(int exit_code);

/* MPI started as the gsolve program starts it: when an MPI launcher started the process
 * (gs_comm_init), with gs_host_mpi_fatal as the answer to a failure; 1 when started. */
int gs_host_mpi_init(int *argc, char ***argv);

/* The library's diagnostic settings (gs_knob.h) from the GSOLVE_* variables of the environment
 * that name them. */
gs_status gs_host_knobs_from_env(void);

/* Catch SIGINT and SIGTERM: the first raises the interrupt flag, a second one ends the
 * process by its default action. */
void gs_host_catch_signals(void);

/* The flag a caught signal raises (its number; 0: none), for gs_krylov_params.interrupt. */
const volatile sig_atomic_t *gs_host_interrupt_flag(void);

/* The signal caught (SIGINT, SIGTERM) or 0; "SIGINT", "SIGTERM" or "signal N" for it. */
int gs_host_signal(void);
const char *gs_host_signal_name(int sig);

#ifdef __cplusplus
}
#endif
#endif

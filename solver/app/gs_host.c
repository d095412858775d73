/* gs_host.c: the CPUs the process may use, the run's OpenMP thread count, SIGINT/SIGTERM, the
 * MPI launcher, the diagnostic settings from the environment, the end of every rank. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT_S */
#include "gs_host.h"

#include "gs_comm.h"
#include "gs_knob.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef GSOLVE_MPI
#include <mpi.h>
#endif

/* CPUs in the affinity mask (0: unknown) */
static int affinity_cpus(void)
{
    for (int n = 1024; n <= 1 << 20; n *= 4) {
        size_t sz = CPU_ALLOC_SIZE(n);
        cpu_set_t *set = CPU_ALLOC(n);
        if (!set) return 0;
        CPU_ZERO_S(sz, set);
        int ok = sched_getaffinity(0, sz, set) == 0, count = ok ? CPU_COUNT_S(sz, set) : 0;
        CPU_FREE(set);
        if (ok) return count;
    }
    return 0;
}

/* ceil(quota / period) from a cgroup v2 cpu.max ("max 100000" or "200000 100000") or the two
 * v1 files; 0 when the file is absent or unlimited */
static int quota_v2(const char *path)
{
    char q[32] = "";
    double period = 0;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int n = fscanf(f, "%31s %lf", q, &period);
    fclose(f);
    if (n != 2 || strcmp(q, "max") == 0 || period <= 0) return 0;
    double quota = atof(q);
    return quota > 0 ? (int)ceil(quota / period) : 0;
}

static int quota_v1(const char *dir)
{
    char path[1200];
    double quota = -1, period = 0;
    snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int ok = fscanf(f, "%lf", &quota) == 1;
    fclose(f);
    snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
    if (!ok || quota <= 0 || !(f = fopen(path, "r"))) return 0;
    ok = fscanf(f, "%lf", &period) == 1;
    fclose(f);
    return ok && period > 0 ? (int)ceil(quota / period) : 0;
}

static int min_positive(int a, int b)
{
    return a <= 0 ? b : b <= 0 ? a : a < b ? a : b;
}

/* The smallest CPU quota over the process's cgroup and its parents (0: none) */
static int cgroup_cpus(void)
{
    char line[1024], dir[1100];
    int best = quota_v2("/sys/fs/cgroup/cpu.max"); /* a container's own root */
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return best;
    while (fgets(line, sizeof line, f)) {
        char *p = strchr(line, ':'), *q = p ? strchr(p + 1, ':') : NULL;
        if (!q) continue;
        q[strcspn(q, "\n")] = '\0';
        int v2 = q == p + 1; /* "0::/path" */
        if (!v2 && !strstr(p, "cpu,") && !strstr(p, ":cpu:") && !strstr(p, ",cpu:")) continue;
        for (char *path = q + 1; *path;) {
            if (v2) {
                snprintf(dir, sizeof dir, "/sys/fs/cgroup%s/cpu.max", path);
                best = min_positive(best, quota_v2(dir));
            } else {
                snprintf(dir, sizeof dir, "/sys/fs/cgroup/cpu,cpuacct%s", path);
                best = min_positive(best, quota_v1(dir));
                snprintf(dir, sizeof dir, "/sys/fs/cgroup/cpu%s", path);
                best = min_positive(best, quota_v1(dir));
            }
            char *slash = strrchr(path, '/'); /* the parent, up to the root */
            if (!slash || slash == path) break;
            *slash = '\0';
        }
    }
    fclose(f);
    return best;
}

int gs_host_cpus(const char **from)
{
    const char *src = "affinity";
    int n = affinity_cpus(), cg = cgroup_cpus();
    if (cg > 0 && (n <= 0 || cg <= n)) n = cg, src = "cgroup quota";
    const char *slurm = getenv("SLURM_CPUS_PER_TASK");
    int s = slurm ? atoi(slurm) : 0;
    if (s > 0 && (n <= 0 || s <= n)) n = s, src = "SLURM_CPUS_PER_TASK";
    if (n <= 0) n = 1, src = "no CPU count found";
    if (from) *from = src;
    return n;
}

int gs_host_threads(int64_t requested, char *why, size_t len)
{
    int n = 1;
    const char *from = "run.threads";
#ifdef _OPENMP
    const char *env = getenv("OMP_NUM_THREADS");
    if (requested > 0) {
        n = requested > 4096 ? 4096 : (int)requested;
    } else if (env && atoi(env) > 0) {
        n = atoi(env);
        from = "OMP_NUM_THREADS";
    } else {
        n = gs_host_cpus(&from);
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        int ranks = gs_comm_local_size();
        if (ranks > 1 && n > 1 && n == online) { /* MPI ranks not bound: share the node */
            n = n / ranks > 1 ? n / ranks : 1;
            from = "the node's CPUs shared by its MPI ranks";
        }
    }
    omp_set_num_threads(n);
#else
    (void)requested;
    from = "built without OpenMP";
#endif
    snprintf(why, len, "%s", from);
    return n;
}

int gs_host_mpi_launched(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK",
                                 "MPI_LOCALNRANKS", "MV2_COMM_WORLD_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (getenv(vars[i])) return 1;
    return 0;
}

void gs_host_mpi_fatal(int exit_code)
{
    fflush(stdout);
#ifdef GSOLVE_MPI
    MPI_Abort(MPI_COMM_WORLD, exit_code);
#endif
    exit(exit_code);
}

int gs_host_mpi_init(int *argc, char ***argv)
{
    gs_comm_set_fatal(gs_host_mpi_fatal);
    return gs_comm_init(argc, argv, gs_host_mpi_launched());
}

gs_status gs_host_knobs_from_env(void)
{
    for (const char *const *k = gs_knob_names(); *k; k++) {
        const char *v = getenv(*k);
        if (v) {
            gs_status st = gs_knob_set(*k, v);
            if (st != GS_OK) return st;
        }
    }
    return GS_OK;
}

/* ---- signals ---- */

static volatile sig_atomic_t g_signal;

/* First SIGINT/SIGTERM: raise the flag the solve reads; a second: die of it now. Only
 * async-signal-safe calls (signal, raise). */
static void on_signal(int sig)
{
    if (g_signal) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    g_signal = sig;
}

void gs_host_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* reads and writes in progress go on */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

const volatile sig_atomic_t *gs_host_interrupt_flag(void)
{
    return &g_signal;
}

int gs_host_signal(void)
{
    return (int)g_signal;
}

const char *gs_host_signal_name(int sig)
{
    static char other[24];
    if (sig == SIGINT) return "SIGINT";
    if (sig == SIGTERM) return "SIGTERM";
    snprintf(other, sizeof other, "signal %d", sig);
    return other;
}

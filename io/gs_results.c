/* gs_results.c: CSV rows, HDF5 records and residual histories. */
#include "gs_results.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gs_backend.h"
#include "gs_comm.h"
#include "gs_config.h"
#include "gs_h5.h"
#include "gs_mem.h"
#include "gs_version.h"

#ifdef _OPENMP
#include <omp.h>
#endif


/* Append s to buf as one CSV field, quoted when it holds a comma, quote or newline. */
static size_t csv_field(char *buf, size_t cap, size_t len, const char *s, int last)
{
    int quote = strpbrk(s, ",\"\n\r") != NULL;
    if (quote && len < cap) buf[len++] = '"';
    for (; *s && len + 2 < cap; s++) {
        if (*s == '"') buf[len++] = '"';
        buf[len++] = *s;
    }
    if (quote && len < cap) buf[len++] = '"';
    if (len < cap) buf[len++] = last ? '\n' : ',';
    return len;
}

/* ---- the context: what produced a run ---------------------------------------------------- */

void gs_results_timestamp(char *out, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm) == NULL || strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        gs_str_copy(out, len, "");
}

static int64_t host_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* The CPU model ("AMD EPYC 9654 96-Core Processor"; "unknown"), read once. */
static const char *cpu_model(void)
{
    static char model[160];
    if (model[0]) return model;
    gs_str_copy(model, sizeof model, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon) continue;
        colon += 1 + strspn(colon + 1, " \t");
        colon[strcspn(colon, "\n")] = '\0';
        if (*colon) gs_str_copy(model, sizeof model, colon);
        break;
    }
    if (f) fclose(f);
    return model;
}

/* The machine and libraries a run was made with (x->gpu from the result's backend). */
static void fill_provenance(gs_run_context *x, const gs_result *r)
{
    char rt[32], drv[32], mod[64];
    if (gethostname(x->host, sizeof x->host - 1) != 0 || !x->host[0])
        gs_str_copy(x->host, sizeof x->host, "unknown");
    x->host[sizeof x->host - 1] = '\0';
    gs_str_copy(x->cpu, sizeof x->cpu, cpu_model());
    gs_str_copy(x->gpu, sizeof x->gpu,
                strcmp(r->backend, "cuda") == 0 && r->device[0] ? r->device : "none");
    gs_backend_cuda_versions(rt, drv, mod, sizeof rt);
    gs_str_copy(x->gpu_driver, sizeof x->gpu_driver, mod);
    if (strcmp(rt, "none") == 0)
        gs_str_copy(x->cuda, sizeof x->cuda, "none");
    else
        snprintf(x->cuda, sizeof x->cuda, "%.20s (driver %.20s)", rt, drv);
    gs_str_copy(x->mpi, sizeof x->mpi, gs_comm_library());
    gs_h5_version(x->hdf5, sizeof x->hdf5);
}

void gs_results_set_context(gs_result *r, const gs_config *c)
{
    gs_run_context *x = &r->context;
    char *settings = NULL;
    memset(x, 0, sizeof *x);
    x->filled = 1;
    if (gs_config_settings(c, &settings, x->settings) != GS_OK) {
        x->settings[0] = '\0'; /* out of memory: the row goes without it */
        gs_error_clear();
    }
    gs_free(settings);
    gs_str_copy(x->rhs, sizeof x->rhs, c->problem.rhs);
    gs_str_copy(x->x0, sizeof x->x0, c->problem.x0);
    fill_provenance(x, r);
    x->rtol = c->solver.rtol;
    x->atol = c->solver.atol;
    x->max_iters = c->solver.max_iters;
    x->restart = c->solver.restart;
    x->threads = host_threads();
    x->amg = strcmp(c->solver.preconditioner, "amg") == 0;
    gs_str_copy(x->amg_strength, sizeof x->amg_strength, c->amg.strength);
    gs_str_copy(x->amg_aggregation, sizeof x->amg_aggregation, c->amg.aggregation);
    gs_str_copy(x->amg_smoother, sizeof x->amg_smoother, c->amg.smoother);
    gs_str_copy(x->amg_cycle, sizeof x->amg_cycle, c->amg.cycle);
    gs_str_copy(x->amg_galerkin, sizeof x->amg_galerkin, c->amg.galerkin);
    gs_str_copy(x->amg_method, sizeof x->amg_method, c->amg.method);
    gs_str_copy(x->amg_restriction, sizeof x->amg_restriction, c->amg.restriction);
    x->amg_theta = c->amg.theta;
    x->amg_chebyshev_ratio = c->amg.chebyshev_ratio;
    x->amg_smoother_omega = c->amg.smoother_omega;
    x->amg_prolongator_omega = c->amg.prolongator_omega;
    x->amg_presweeps = c->amg.presweeps;
    x->amg_postsweeps = c->amg.postsweeps;
    x->amg_chebyshev_degree = c->amg.chebyshev_degree;
    x->amg_coarse_chebyshev_degree = c->amg.coarse_chebyshev_degree;
    x->amg_smooth_prolongator = c->amg.smooth_prolongator;
    x->amg_filter = c->amg.filter;
    x->amg_max_levels = c->amg.max_levels;
    x->amg_coarse_size = c->amg.coarse_size;
    x->amg_block_size = c->amg.block_size;
    gs_results_timestamp(x->timestamp, sizeof x->timestamp);
}

/* The context's fields in column order: name, kind (S string, D double, I int64), where, and
 * whether it is an AMG key (written only for AMG runs). */
typedef struct ctx_field {
    const char *name;
    char kind;
    size_t off;
    int amg;
} ctx_field;
#define CTX(name, kind, amg) {#name, kind, offsetof(gs_run_context, name), amg}
static const ctx_field CTX_FIELDS[] = {
    CTX(rtol, 'D', 0),
    CTX(atol, 'D', 0),
    CTX(max_iters, 'I', 0),
    CTX(restart, 'I', 0),
    CTX(threads, 'I', 0),
    CTX(amg_strength, 'S', 1),
    CTX(amg_theta, 'D', 1),
    CTX(amg_aggregation, 'S', 1),
    CTX(amg_smoother, 'S', 1),
    CTX(amg_cycle, 'S', 1),
    CTX(amg_presweeps, 'I', 1),
    CTX(amg_postsweeps, 'I', 1),
    CTX(amg_chebyshev_degree, 'I', 1),
    CTX(amg_coarse_chebyshev_degree, 'I', 1),
    CTX(amg_chebyshev_ratio, 'D', 1),
    CTX(amg_smoother_omega, 'D', 1),
    CTX(amg_prolongator_omega, 'D', 1),
    CTX(amg_smooth_prolongator, 'I', 1),
    CTX(amg_filter, 'I', 1),
    CTX(amg_galerkin, 'S', 1),
    CTX(amg_max_levels, 'I', 1),
    CTX(amg_coarse_size, 'I', 1),
    CTX(amg_block_size, 'I', 1),
    CTX(amg_method, 'S', 1),
    CTX(amg_restriction, 'S', 1),
};
#undef CTX
#define NCTX (sizeof CTX_FIELDS / sizeof CTX_FIELDS[0])

/* The context as written: r's, with threads and the timestamp supplied when it is unfilled. */
static gs_run_context context_of(const gs_result *r)
{
    gs_run_context x = r->context;
    if (!x.filled) x.threads = host_threads();
    if (!x.timestamp[0]) gs_results_timestamp(x.timestamp, sizeof x.timestamp);
    if (!x.host[0]) fill_provenance(&x, r);
    return x;
}

/* Field f of x as CSV text ("" when it does not apply or is unknown). */
static void ctx_text(const gs_run_context *x, const ctx_field *f, char *out, size_t len)
{
    const char *p = (const char *)x + f->off;
    out[0] = '\0';
    if ((f->amg && !x->amg) || (!x->filled && strcmp(f->name, "threads") != 0)) return;
    if (f->kind == 'S')
        gs_str_copy(out, len, p);
    else if (f->kind == 'D')
        snprintf(out, len, "%.6g", *(const double *)p);
    else
        snprintf(out, len, "%lld", (long long)*(const int64_t *)p);
}

/* ---- CSV rows ------------------------------------------------------------------------------ */

#define MAX_FIELDS 128

/* One row as (name, value) pairs; numbers formatted into num. */
typedef struct csv_fields {
    int n;
    const char *name[MAX_FIELDS], *val[MAX_FIELDS];
    char num[MAX_FIELDS][48];
    gs_run_context ctx;
} csv_fields;

static void add(csv_fields *f, const char *name, const char *val)
{
    if (f->n < MAX_FIELDS) f->name[f->n] = name, f->val[f->n++] = val;
}

/* A formatted number as the next field. */
static void addf(csv_fields *f, const char *name, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void addf(csv_fields *f, const char *name, const char *fmt, ...)
{
    if (f->n >= MAX_FIELDS) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->num[f->n], sizeof f->num[f->n], fmt, ap);
    va_end(ap);
    add(f, name, f->num[f->n]);
}

/* Every field of r's row in column order: the standard ones (the order of the first gsolve
 * versions: scripts read them by position), the n extra ones, the context's. */
static void row_fields(const gs_result *r, int n, const char *const *names,
                       const char *const *values, csv_fields *f)
{
    f->n = 0;
    add(f, "case", r->case_name);
    add(f, "matrix", r->matrix);
    addf(f, "rows", "%lld", (long long)r->rows);
    addf(f, "nnz", "%lld", (long long)r->nnz);
    add(f, "solver", r->solver);
    add(f, "preconditioner", r->preconditioner);
    add(f, "format", r->format);
    addf(f, "levels", "%d", r->levels);
    addf(f, "iterations", "%d", r->iterations);
    add(f, "reason", r->reason);
    addf(f, "converged", "%d", r->converged);
    addf(f, "rel_residual", "%.6e", r->rel_residual);
    addf(f, "setup_s", "%.6f", r->setup_s);
    addf(f, "solve_s", "%.6f", r->solve_s);
    addf(f, "total_s", "%.6f", r->total_s);
    add(f, "backend", r->backend);
    add(f, "device", r->device);
    addf(f, "cols", "%lld", (long long)r->cols);
    addf(f, "read_s", "%.6f", r->read_s);
    if (r->error >= 0)
        addf(f, "error", "%.6e", r->error);
    else
        add(f, "error", "");
    add(f, "formats", r->formats);
    addf(f, "operator_complexity", "%.4f", r->operator_complexity);
    addf(f, "grid_complexity", "%.4f", r->grid_complexity);
    static const char *const phase_cols[GS_PHASES] = {
        "strength_s", "aggregation_s", "prolongator_s", "rap_s", "convert_s", "coarse_s"};
    for (int i = 0; i < GS_PHASES; i++) addf(f, phase_cols[i], "%.6f", r->phase_s[i]);
    for (int i = 0; i < n; i++) add(f, names[i], values[i]);
    f->ctx = context_of(r);
    for (size_t i = 0; i < NCTX; i++) {
        if (f->n >= MAX_FIELDS) break;
        ctx_text(&f->ctx, &CTX_FIELDS[i], f->num[f->n], sizeof f->num[f->n]);
        add(f, CTX_FIELDS[i].name, f->num[f->n]);
    }
    add(f, "version", gs_version());
    add(f, "commit", gs_version_commit());
    add(f, "timestamp", f->ctx.timestamp);
    add(f, "profile", r->profile ? r->profile : "");
    addf(f, "ranks", "%d", r->ranks > 0 ? r->ranks : 1);
    addf(f, "comm_setup_s", "%.6f", r->comm_setup_s);
    addf(f, "comm_solve_s", "%.6f", r->comm_solve_s);
    addf(f, "device_peak_gb", "%.3f", r->device_peak_gb);
    const gs_run_context *x = &f->ctx;
    const char *pn[] = {"settings", "host", "cpu", "gpu", "gpu_driver",
                        "cuda",     "mpi",  "hdf5", "rhs", "x0"};
    const char *pv[] = {x->settings, x->host, x->cpu, x->gpu, x->gpu_driver,
                        x->cuda,     x->mpi,  x->hdf5, x->rhs, x->x0};
    for (size_t i = 0; i < sizeof pn / sizeof pn[0]; i++) add(f, pn[i], pv[i]);
}

/* The header line of the open file (its first line, up to cap - 1 bytes) into buf; "" when
 * the file is empty. */
static gs_status read_header(int fd, const char *path, char *buf, size_t cap)
{
    ssize_t got = pread(fd, buf, cap - 1, 0);
    if (got < 0) return GS_ERROR(GS_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
    buf[got] = '\0';
    char *nl = strchr(buf, '\n');
    if (nl) *nl = '\0';
    if (nl && nl > buf && nl[-1] == '\r') nl[-1] = '\0';
    return GS_OK;
}

/* The row of f in the column order of header (a comma-separated line of names: gsolve's
 * headers hold no quotes), appended to buf. */
static size_t row_by_header(const csv_fields *f, char *header, char *buf, size_t cap, size_t len)
{
    char *save = NULL;
    int ncol = 0;
    for (char *c = header; *c; c++) ncol += *c == ',';
    ncol++;
    int col = 0;
    for (char *name = strtok_r(header, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        const char *v = "";
        for (int i = 0; i < f->n; i++)
            if (strcmp(f->name[i], name) == 0) {
                v = f->val[i];
                break;
            }
        len = csv_field(buf, cap, len, v, ++col == ncol);
    }
    for (; col < ncol; col++) len = csv_field(buf, cap, len, "", col + 1 == ncol); /* ",," */
    return len;
}

gs_status gs_results_csv_append(const char *path, const gs_result *r)
{
    return gs_results_csv_append_ext(path, r, 0, NULL, NULL);
}

static gs_status widen(int fd, const char *path, const char *header, const csv_fields *f);

/* path opened for appending and locked (*fd): the file that is at path once the lock is held
 * (a rewrite renames a new file over the old one while others wait for the old one's lock). */
static gs_status open_append_locked(const char *path, int *fd)
{
    for (int tries = 0;; tries++) {
        struct stat a, b;
        *fd = open(path, O_RDWR | O_CREAT | O_APPEND, 0644);
        if (*fd < 0) return GS_ERROR(GS_ERR_WRITE, "cannot write '%s': %s", path, strerror(errno));
        if (flock(*fd, LOCK_EX) != 0)
            return GS_ERROR(GS_ERR_WRITE, "cannot lock '%s': %s", path, strerror(errno));
        if (tries >= 100 || (fstat(*fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
                             a.st_dev == b.st_dev))
            return GS_OK;
        close(*fd);
        *fd = -1;
    }
}

/* 1 when the comma-separated header names every column of f. */
static int header_has_all(const char *header, const csv_fields *f)
{
    for (int i = 0; i < f->n; i++) {
        size_t n = strlen(f->name[i]);
        const char *p = header;
        int found = 0;
        while (!found && (p = strstr(p, f->name[i])) != NULL) {
            found = (p == header || p[-1] == ',') && (p[n] == ',' || p[n] == '\0');
            p += n;
        }
        if (!found) return 0;
    }
    return 1;
}

gs_status gs_results_csv_append_ext(const char *path, const gs_result *r, int n,
                                    const char *const *names, const char *const *values)
{
    gs_status st = GS_OK;
    char *buf = NULL, *header = NULL;
    csv_fields *f = NULL;
    const size_t cap = 32768, hcap = 16384;
    int fd = -1;
    GS_CHECK(gs_alloc_array(1, sizeof *f, "CSV row", (void **)&f));
    GS_CHECK(gs_alloc_array(cap, 1, "CSV row", (void **)&buf));
    GS_CHECK(gs_alloc_array(hcap, 1, "CSV header", (void **)&header));
    row_fields(r, n, names, values, f);
    GS_CHECK(open_append_locked(path, &fd));
    GS_CHECK(read_header(fd, path, header, hcap));
    if (header[0] && !header_has_all(header, f)) { /* an older file: its columns widened */
        GS_CHECK(widen(fd, path, header, f));
        close(fd);
        fd = -1;
        GS_CHECK(open_append_locked(path, &fd));
        GS_CHECK(read_header(fd, path, header, hcap));
    }
    size_t len = 0;
    if (!header[0]) { /* a new file: the header, then the row in its order */
        for (int i = 0; i < f->n; i++) len = csv_field(buf, cap, len, f->name[i], i + 1 == f->n);
        for (int i = 0; i < f->n; i++) len = csv_field(buf, cap, len, f->val[i], i + 1 == f->n);
    } else {
        len = row_by_header(f, header, buf, cap, 0);
    }
    ssize_t w = write(fd, buf, len);
    if (w < 0 || (size_t)w != len)
        GS_FAIL(GS_ERR_WRITE, "cannot write '%s': %s", path,
                w < 0 ? strerror(errno) : "short write");
    if (fsync(fd) != 0 && errno != EINVAL)
        GS_FAIL(GS_ERR_WRITE, "cannot flush '%s': %s", path, strerror(errno));
done:
    if (fd >= 0) close(fd);
    gs_free(f);
    gs_free(buf);
    gs_free(header);
    return st;
}

gs_status gs_results_hdf5_write(const char *path, const gs_result *r)
{
    return gs_results_hdf5_write_ext(path, r, 0, NULL, NULL);
}

/* The per-level table: datasets level_rows, level_nnz, level_mean, level_std, level_max and
 * attributes level_formats ("cds,cmrs,csr") and level_reasons (one line per level). */
static gs_status write_levels(gs_h5_record *h, const gs_result *r)
{
    gs_status st = GS_OK;
    int n = r->levels;
    double *v = NULL;
    char *reasons = NULL;
    size_t cap = (size_t)n * (sizeof r->level_info[0].reason + 48) + 1, len = 0;
    GS_CHECK(gs_alloc_array((size_t)n, sizeof *v, "level table", (void **)&v));
    GS_CHECK(gs_alloc_array(cap, 1, "level reasons", (void **)&reasons));
    const char *names[] = {"level_rows", "level_nnz", "level_mean", "level_std", "level_max"};
    for (int f = 0; f < 5; f++) {
        for (int l = 0; l < n; l++) {
            const gs_level_info *L = &r->level_info[l];
            v[l] = f == 0 ? (double)L->rows : f == 1 ? (double)L->nnz : f == 2 ? L->mean
                   : f == 3 ? L->std : (double)L->max;
        }
        GS_CHECK(gs_h5_record_vector(h, names[f], v, n));
    }
    reasons[0] = '\0';
    for (int l = 0; l < n; l++)
        len += (size_t)snprintf(reasons + len, cap - len, "%d %s: %s\n", l,
                                r->level_info[l].format, r->level_info[l].reason);
    GS_CHECK(gs_h5_record_attr_str(h, "level_reasons", reasons));
done:
    gs_free(v);
    gs_free(reasons);
    return st;
}

/* The context as attributes of their type (an AMG key only for AMG runs; the settings only
 * when the context was filled), and the timestamp. */
static gs_status write_context(gs_h5_record *h, const gs_result *r)
{
    gs_status st = GS_OK;
    gs_run_context x = context_of(r);
    for (size_t i = 0; i < NCTX; i++) {
        const ctx_field *f = &CTX_FIELDS[i];
        const char *p = (const char *)&x + f->off;
        if ((f->amg && !x.amg) || (!x.filled && strcmp(f->name, "threads") != 0)) continue;
        if (f->kind == 'S')
            GS_CHECK(gs_h5_record_attr_str(h, f->name, p));
        else if (f->kind == 'D')
            GS_CHECK(gs_h5_record_attr_double(h, f->name, *(const double *)p));
        else
            GS_CHECK(gs_h5_record_attr_int(h, f->name, *(const int64_t *)p));
    }
    GS_CHECK(gs_h5_record_attr_str(h, "timestamp", x.timestamp));
    const char *pn[] = {"settings", "host", "cpu", "gpu", "gpu_driver",
                        "cuda",     "mpi",  "hdf5", "rhs", "x0"};
    const char *pv[] = {x.settings, x.host, x.cpu, x.gpu, x.gpu_driver,
                        x.cuda,     x.mpi,  x.hdf5, x.rhs, x.x0};
    for (size_t i = 0; i < sizeof pn / sizeof pn[0]; i++)
        GS_CHECK(gs_h5_record_attr_str(h, pn[i], pv[i]));
    if (r->profile && r->profile[0]) GS_CHECK(gs_h5_record_attr_str(h, "profile", r->profile));
done:
    return st;
}

gs_status gs_results_hdf5_write_ext(const char *path, const gs_result *r, int n,
                                    const char *const *names, const char *const *values)
{
    gs_status st = GS_OK;
    gs_h5_record *h = NULL;
    double *its = NULL;
    GS_CHECK(gs_h5_record_open(path, &h));
    if (r->x) GS_CHECK(gs_h5_record_vector(h, "x", r->x, r->cols));
    GS_CHECK(gs_h5_record_vector(h, "residual_history", r->history, r->history_len));
    GS_CHECK(gs_h5_record_vector(h, "residual_time", r->history_time, r->history_len));
    GS_CHECK(gs_alloc_array((size_t)(r->history_len ? r->history_len : 1), sizeof(double),
                            "iteration numbers", (void **)&its));
    for (int64_t i = 0; i < r->history_len; i++) its[i] = r->history_iter[i];
    GS_CHECK(gs_h5_record_vector(h, "residual_iteration", its, r->history_len));
    const char *sk[] = {"case",    "matrix", "solver", "preconditioner", "format",
                        "reason",  "reason_text", "backend", "device", "config",
                        "version", "formats", "commit"};
    const char *sv[] = {r->case_name,   r->matrix,
                        r->solver,      r->preconditioner,
                        r->format,      r->reason,
                        r->reason_text, r->backend,
                        r->device,      r->config_text ? r->config_text : "",
                        gs_version(),   r->formats,
                        gs_version_commit()};
    for (size_t i = 0; i < sizeof sk / sizeof sk[0]; i++)
        GS_CHECK(gs_h5_record_attr_str(h, sk[i], sv[i]));
    const char *ik[] = {"rows", "cols", "nnz", "levels", "iterations", "converged", "ranks"};
    int64_t iv[] = {r->rows,       r->cols,      r->nnz,
                    r->levels,     r->iterations, r->converged,
                    r->ranks > 0 ? r->ranks : 1};
    for (size_t i = 0; i < sizeof ik / sizeof ik[0]; i++)
        GS_CHECK(gs_h5_record_attr_int(h, ik[i], iv[i]));
    const char *dk[] = {"rel_residual", "setup_s", "solve_s", "total_s", "read_s",
                        "error", "bnorm", "operator_complexity", "grid_complexity",
                        "comm_setup_s", "comm_solve_s", "device_peak_gb"};
    double dv[] = {r->rel_residual, r->setup_s, r->solve_s, r->total_s, r->read_s,
                   r->error, r->bnorm, r->operator_complexity, r->grid_complexity,
                   r->comm_setup_s, r->comm_solve_s, r->device_peak_gb};
    for (size_t i = 0; i < sizeof dk / sizeof dk[0]; i++)
        GS_CHECK(gs_h5_record_attr_double(h, dk[i], dv[i]));
    for (int i = 0; i < GS_PHASES; i++) {
        char name[40];
        snprintf(name, sizeof name, "%s_s", gs_phase_names[i]);
        GS_CHECK(gs_h5_record_attr_double(h, name, r->phase_s[i]));
    }
    GS_CHECK(write_context(h, r));
    if (r->level_info && r->levels > 0) GS_CHECK(write_levels(h, r));
    for (int i = 0; i < n; i++) GS_CHECK(gs_h5_record_attr_str(h, names[i], values[i]));
    GS_CHECK(gs_h5_record_close(&h, 1));
done:
    if (h) gs_h5_record_close(&h, 0);
    gs_free(its);
    return st;
}

gs_status gs_results_history_write(const char *path, const gs_result *r)
{
    gs_status st = GS_OK;
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return GS_ERROR(GS_ERR_WRITE, "cannot write '%s': %s", tmp, strerror(errno));
    fprintf(f, "iteration,residual,rel_residual,time_s\n");
    double bn = r->bnorm > 0 ? r->bnorm : 1.0;
    for (int64_t i = 0; i < r->history_len; i++)
        fprintf(f, "%d,%.9e,%.9e,%.6e\n", r->history_iter[i], r->history[i], r->history[i] / bn,
                r->history_time[i]);
    if (ferror(f) | fclose(f)) {
        f = NULL;
        GS_FAIL(GS_ERR_WRITE, "cannot write '%s': %s", tmp, strerror(errno));
    }
    f = NULL;
    if (rename(tmp, path) != 0)
        GS_FAIL(GS_ERR_WRITE, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
done:
    if (f) fclose(f);
    if (st != GS_OK) remove(tmp);
    return st;
}

/* ---- reading CSV result files back ------------------------------------------------------ */

/* Split buf[0..len) into records of fields (RFC 4180 quoting) into t; *good = bytes of the
 * complete records (each ends with a newline outside quotes). */
static gs_status csv_parse(const char *buf, size_t len, gs_csv_table *t, size_t *good)
{
    gs_status st = GS_OK;
    size_t cap = 64, ncell = 0, o = 0, i = 0;
    char **cells = NULL;
    *good = 0;
    GS_CHECK(gs_alloc_array(cap, sizeof *cells, "CSV fields", (void **)&cells));
    while (i < len) {
        size_t rec0 = ncell, i0 = i;
        int complete = 0;
        for (;;) { /* one field */
            char *f = t->text + o;
            if (i < len && buf[i] == '"') {
                for (i++; i < len; i++) {
                    if (buf[i] == '"' && i + 1 < len && buf[i + 1] == '"') {
                        t->text[o++] = '"';
                        i++;
                    } else if (buf[i] == '"') {
                        i++;
                        break;
                    } else
                        t->text[o++] = buf[i];
                }
            }
            while (i < len && buf[i] != ',' && buf[i] != '\n') {
                if (buf[i] != '\r') t->text[o++] = buf[i];
                i++;
            }
            t->text[o++] = '\0';
            if (ncell == cap) {
                char **c2 = gs_realloc(cells, 2 * cap * sizeof *cells);
                if (!c2)
                    GS_FAIL(GS_ERR_NOMEM,
                            "out of memory: could not allocate %zu bytes for the fields of a CSV "
                            "file",
                            2 * cap * sizeof *cells);
                cells = c2, cap *= 2;
            }
            cells[ncell++] = f;
            if (i >= len) break; /* no newline: torn */
            if (buf[i++] == '\n') {
                complete = 1;
                break;
            }
        }
        if (!complete) {
            ncell = rec0;
            break;
        }
        *good = i;
        size_t nf = ncell - rec0;
        if (nf == 1 && !cells[rec0][0] && i - i0 <= 2) { /* blank line */
            ncell = rec0;
        } else if (t->ncols == 0) {
            t->ncols = (int)nf;
        } else if ((int)nf != t->ncols) {
            t->bad_rows++;
            ncell = rec0;
        }
    }
    t->cells = cells;
    cells = NULL;
    t->nrows = t->ncols ? (int64_t)(ncell / (size_t)t->ncols) - 1 : 0;
done:
    gs_free(cells);
    return st;
}

/* The whole of the open file fd into a gs_malloc'ed buffer. */
static gs_status read_fd(int fd, const char *path, char **out, size_t *len)
{
    gs_status st = GS_OK;
    struct stat sb;
    char *buf = NULL;
    size_t n = 0;
    if (fstat(fd, &sb) != 0) GS_FAIL(GS_ERR_IO, "cannot stat '%s': %s", path, strerror(errno));
    GS_CHECK(gs_alloc_array((size_t)sb.st_size + 1, 1, "CSV file", (void **)&buf));
    while (n < (size_t)sb.st_size) {
        ssize_t r = pread(fd, buf + n, (size_t)sb.st_size - n, (off_t)n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) GS_FAIL(GS_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
        if (r == 0) break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    buf = NULL;
done:
    gs_free(buf);
    return st;
}

gs_status gs_results_csv_read(const char *path, gs_csv_table **out)
{
    gs_status st = GS_OK;
    gs_csv_table *t = NULL;
    char *buf = NULL;
    size_t len = 0, good = 0;
    *out = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *t, "CSV table", (void **)&t));
    memset(t, 0, sizeof *t);
    int fd = open(path, O_RDONLY);
    if (fd < 0 && errno != ENOENT)
        GS_FAIL(GS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    if (fd >= 0) {
        flock(fd, LOCK_SH); /* no half-appended row (appends hold LOCK_EX) */
        st = read_fd(fd, path, &buf, &len);
        close(fd);
        GS_CHECK(st);
    }
    GS_CHECK(gs_alloc_array(len + 1, 1, "CSV fields", (void **)&t->text));
    GS_CHECK(csv_parse(buf ? buf : "", len, t, &good));
    t->torn_bytes = (int64_t)(len - good);
    *out = t;
    t = NULL;
done:
    gs_free(buf);
    gs_csv_table_destroy(&t);
    return st;
}

int gs_csv_table_col(const gs_csv_table *t, const char *name)
{
    for (int j = 0; j < t->ncols; j++)
        if (strcmp(t->cells[j], name) == 0) return j;
    return -1;
}

const char *gs_csv_table_get(const gs_csv_table *t, int64_t row, const char *name)
{
    int j = gs_csv_table_col(t, name);
    if (j < 0 || row < 0 || row >= t->nrows) return "";
    return t->cells[(size_t)(row + 1) * (size_t)t->ncols + (size_t)j];
}

void gs_csv_table_destroy(gs_csv_table **t)
{
    if (!t || !*t) return;
    gs_free((*t)->cells);
    gs_free((*t)->text);
    gs_free(*t);
    *t = NULL;
}

/* The CSV file at path opened read-write and locked (*fd; -1 when it does not exist: nothing
 * read), read into *buf (*len bytes) and parsed into t, *good its bytes of whole rows. On
 * failure the caller still closes *fd and frees *buf, t->cells and t->text. */
static gs_status open_locked_csv(const char *path, int *fd, char **buf, size_t *len,
                                 gs_csv_table *t, size_t *good)
{
    gs_status st = GS_OK;
    *fd = open(path, O_RDWR);
    if (*fd < 0 && errno == ENOENT) return GS_OK;
    if (*fd < 0) return GS_ERROR(GS_ERR_WRITE, "cannot open '%s': %s", path, strerror(errno));
    if (flock(*fd, LOCK_EX) != 0)
        GS_FAIL(GS_ERR_WRITE, "cannot lock '%s': %s", path, strerror(errno));
    GS_CHECK(read_fd(*fd, path, buf, len));
    GS_CHECK(gs_alloc_array(*len + 1, 1, "CSV fields", (void **)&t->text));
    GS_CHECK(csv_parse(*buf, *len, t, good));
done:
    return st;
}

gs_status gs_results_csv_repair(const char *path, int64_t *dropped)
{
    gs_status st = GS_OK;
    gs_csv_table t;
    char *buf = NULL;
    size_t len = 0, good = 0;
    int fd = -1;
    memset(&t, 0, sizeof t);
    *dropped = 0;
    st = open_locked_csv(path, &fd, &buf, &len, &t, &good);
    if (fd < 0) return st;
    GS_CHECK(st);
    if (good < len) {
        if (ftruncate(fd, (off_t)good) != 0 || fsync(fd) != 0)
            GS_FAIL(GS_ERR_WRITE, "cannot repair '%s': %s", path, strerror(errno));
        *dropped = (int64_t)(len - good);
    }
done:
    close(fd);
    gs_free(buf);
    gs_free(t.cells);
    gs_free(t.text);
    return st;
}

/* ---- rewriting: rows dropped (a batch's interrupted or outdated runs), columns added ------ */

/* 1 when row i of t meets every condition of m. */
static int row_matches(const gs_csv_table *t, int64_t i, int n, const gs_csv_match *m)
{
    for (int k = 0; k < n; k++)
        if ((strcmp(gs_csv_table_get(t, i, m[k].column), m[k].value) != 0) != (m[k].differ != 0))
            return 0;
    return 1;
}

/* t's header with the names in extra[0..nextra) added, and its rows but those meeting m (n > 0)
 * each padded with nextra empty fields, written to path's .tmp and renamed over path. */
static gs_status rewrite(const char *path, const gs_csv_table *t, size_t len, int n,
                         const gs_csv_match *m, int nextra, const char *const *extra)
{
    gs_status st = GS_OK;
    char *out = NULL, tmp[4200];
    size_t o = 0, cap = 2 * len + (4 * (size_t)t->ncols + (size_t)nextra + 4) *
                                      (size_t)(t->nrows + 1) + 64;
    int tfd = -1, w = t->ncols + nextra;
    for (int e = 0; e < nextra; e++) cap += strlen(extra[e]) + 4;
    GS_CHECK(gs_alloc_array(cap, 1, "CSV rows", (void **)&out));
    for (int64_t i = -1; i < t->nrows; i++) {
        if (i >= 0 && n > 0 && row_matches(t, i, n, m)) continue;
        for (int j = 0; j < w; j++) {
            const char *v = j >= t->ncols ? (i < 0 ? extra[j - t->ncols] : "")
                                          : t->cells[(size_t)(i + 1) * (size_t)t->ncols + (size_t)j];
            o = csv_field(out, cap, o, v, j + 1 == w);
        }
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    tfd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (tfd < 0) GS_FAIL(GS_ERR_WRITE, "cannot write '%s': %s", tmp, strerror(errno));
    ssize_t wr = write(tfd, out, o);
    if (wr < 0 || (size_t)wr != o || fsync(tfd) != 0 || close(tfd) != 0) {
        tfd = -1;
        remove(tmp);
        GS_FAIL(GS_ERR_WRITE, "cannot write '%s': %s", tmp, wr < 0 ? strerror(errno) : "short");
    }
    tfd = -1;
    if (rename(tmp, path) != 0) {
        remove(tmp);
        GS_FAIL(GS_ERR_WRITE, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
    }
done:
    if (tfd >= 0) close(tfd);
    gs_free(out);
    return st;
}

/* The file open (and locked) on fd, whose header lacks some of f's columns, rewritten with
 * them added at the end. */
static gs_status widen(int fd, const char *path, const char *header, const csv_fields *f)
{
    gs_status st = GS_OK;
    gs_csv_table t;
    char *buf = NULL;
    size_t len = 0, good = 0;
    const char *extra[MAX_FIELDS];
    int nextra = 0;
    memset(&t, 0, sizeof t);
    GS_CHECK(read_fd(fd, path, &buf, &len));
    GS_CHECK(gs_alloc_array(len + 1, 1, "CSV fields", (void **)&t.text));
    GS_CHECK(csv_parse(buf, len, &t, &good));
    for (int i = 0; i < f->n; i++)
        if (gs_csv_table_col(&t, f->name[i]) < 0) extra[nextra++] = f->name[i];
    (void)header;
    if (nextra > 0) GS_CHECK(rewrite(path, &t, len, 0, NULL, nextra, extra));
done:
    gs_free(buf);
    gs_free(t.cells);
    gs_free(t.text);
    return st;
}

gs_status gs_results_csv_drop(const char *path, const char *column, const char *value,
                              int64_t *dropped)
{
    gs_csv_match m = {column, value, 0};
    return gs_results_csv_drop_where(path, 1, &m, dropped);
}

gs_status gs_results_csv_drop_where(const char *path, int nm, const gs_csv_match *m,
                                    int64_t *dropped)
{
    gs_status st = GS_OK;
    gs_csv_table t;
    char *buf = NULL;
    size_t len = 0, good = 0;
    int fd = -1;
    memset(&t, 0, sizeof t);
    *dropped = 0;
    st = open_locked_csv(path, &fd, &buf, &len, &t, &good);
    if (fd < 0) return st;
    GS_CHECK(st);
    for (int64_t i = 0; i < t.nrows; i++) *dropped += row_matches(&t, i, nm, m);
    if (*dropped == 0) goto done;
    /* the rows kept, quoted as they were written, into a new file renamed over the old one */
    GS_CHECK(rewrite(path, &t, len, nm, m, 0, NULL));
done:
    close(fd);
    gs_free(buf);
    gs_free(t.cells);
    gs_free(t.text);
    return st;
}

/* ---- output paths checked before a run ------------------------------------------------- */

/* path of key: its folder exists and takes new files, and it is not a folder itself. */
static gs_status check_output(const char *key, const char *path)
{
    char dir[4200];
    struct stat sb;
    if (!path[0]) return GS_OK;
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    if (stat(dir, &sb) != 0)
        return GS_ERROR(GS_ERR_CONFIG, "%s = \"%s\": the folder '%s' %s", key, path, dir,
                        errno == ENOENT ? "does not exist" : strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return GS_ERROR(GS_ERR_CONFIG, "%s = \"%s\": '%s' is not a folder", key, path, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return GS_ERROR(GS_ERR_CONFIG, "%s = \"%s\": the folder '%s' is not writable (%s)", key,
                        path, dir, strerror(errno));
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return GS_ERROR(GS_ERR_CONFIG, "%s = \"%s\": is a folder, expected a file name", key,
                        path);
    if (stat(path, &sb) == 0 && access(path, W_OK) != 0)
        return GS_ERROR(GS_ERR_CONFIG, "%s = \"%s\": the file is not writable (%s)", key, path,
                        strerror(errno));
    return GS_OK;
}

gs_status gs_results_check_outputs(const gs_config *c)
{
    gs_status st = GS_OK;
    GS_CHECK(check_output("output.csv", c->output.csv));
    GS_CHECK(check_output("output.hdf5", c->output.hdf5));
    GS_CHECK(check_output("output.history", c->output.history));
    GS_CHECK(check_output("output.solution", c->output.solution));
done:
    return st;
}

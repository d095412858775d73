/* gs_results.c: CSV rows, HDF5 records and residual histories. */
#include "gs_results.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gs_h5.h"
#include "gs_mem.h"

#define CSV_HEADER                                                                                 \
    "case,matrix,rows,nnz,solver,preconditioner,format,levels,iterations,reason,converged,"        \
    "rel_residual,setup_s,solve_s,total_s,backend,device,cols,read_s,error\n"

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

/* The row for r, fields in CSV_HEADER order. */
static size_t csv_row(const gs_result *r, char *buf, size_t cap)
{
    char num[12][40];
    snprintf(num[0], 40, "%lld", (long long)r->rows);
    snprintf(num[1], 40, "%lld", (long long)r->nnz);
    snprintf(num[2], 40, "%d", r->levels);
    snprintf(num[3], 40, "%d", r->iterations);
    snprintf(num[4], 40, "%d", r->converged);
    snprintf(num[5], 40, "%.6e", r->rel_residual);
    snprintf(num[6], 40, "%.6f", r->setup_s);
    snprintf(num[7], 40, "%.6f", r->solve_s);
    snprintf(num[8], 40, "%.6f", r->total_s);
    snprintf(num[9], 40, "%lld", (long long)r->cols);
    snprintf(num[10], 40, "%.6f", r->read_s);
    if (r->error >= 0)
        snprintf(num[11], 40, "%.6e", r->error);
    else
        num[11][0] = '\0';
    const char *f[] = {r->case_name, r->matrix, num[0], num[1],     r->solver, r->preconditioner,
                       r->format,    num[2],    num[3], r->reason,  num[4],    num[5],
                       num[6],       num[7],    num[8], r->backend, r->device, num[9],
                       num[10],      num[11]};
    size_t n = sizeof f / sizeof f[0], len = 0;
    for (size_t i = 0; i < n; i++) len = csv_field(buf, cap, len, f[i], i + 1 == n);
    return len;
}

gs_status gs_results_csv_append(const char *path, const gs_result *r)
{
    gs_status st = GS_OK;
    char buf[8192];
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return GS_ERROR(GS_ERR_WRITE, "cannot write '%s': %s", path, strerror(errno));
    if (flock(fd, LOCK_EX) != 0)
        GS_FAIL(GS_ERR_WRITE, "cannot lock '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) GS_FAIL(GS_ERR_WRITE, "cannot stat '%s': %s", path, strerror(errno));
    size_t len = 0;
    if (sb.st_size == 0) {
        len = strlen(CSV_HEADER);
        memcpy(buf, CSV_HEADER, len);
    }
    len += csv_row(r, buf + len, sizeof buf - len);
    ssize_t w = write(fd, buf, len);
    if (w < 0 || (size_t)w != len)
        GS_FAIL(GS_ERR_WRITE, "cannot write '%s': %s", path,
                w < 0 ? strerror(errno) : "short write");
    if (fsync(fd) != 0 && errno != EINVAL)
        GS_FAIL(GS_ERR_WRITE, "cannot flush '%s': %s", path, strerror(errno));
done:
    close(fd);
    return st;
}

gs_status gs_results_hdf5_write(const char *path, const gs_result *r)
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
    const char *sk[] = {"case",        "matrix",  "solver", "preconditioner", "format", "reason",
                        "reason_text", "backend", "device", "config",         "version"};
    const char *sv[] = {r->case_name,   r->matrix,
                        r->solver,      r->preconditioner,
                        r->format,      r->reason,
                        r->reason_text, r->backend,
                        r->device,      r->config_text ? r->config_text : "",
                        GSOLVE_VERSION};
    for (size_t i = 0; i < sizeof sk / sizeof sk[0]; i++)
        GS_CHECK(gs_h5_record_attr_str(h, sk[i], sv[i]));
    const char *ik[] = {"rows", "cols", "nnz", "levels", "iterations", "converged"};
    int64_t iv[] = {r->rows, r->cols, r->nnz, r->levels, r->iterations, r->converged};
    for (size_t i = 0; i < sizeof ik / sizeof ik[0]; i++)
        GS_CHECK(gs_h5_record_attr_int(h, ik[i], iv[i]));
    const char *dk[] = {"rel_residual", "setup_s", "solve_s", "total_s",
                        "read_s",       "error",   "bnorm"};
    double dv[] = {r->rel_residual, r->setup_s, r->solve_s, r->total_s,
                   r->read_s,       r->error,   r->bnorm};
    for (size_t i = 0; i < sizeof dk / sizeof dk[0]; i++)
        GS_CHECK(gs_h5_record_attr_double(h, dk[i], dv[i]));
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

/* gs_results.c: CSV rows, HDF5 records and residual histories. */
#include "gs_results.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gs_h5.h"
#include "gs_mem.h"

#define CSV_HEADER                                                                                 \
    "case,matrix,rows,nnz,solver,preconditioner,format,levels,iterations,reason,converged,"        \
    "rel_residual,setup_s,solve_s,total_s,backend,device,cols,read_s,error,formats,"             \
    "operator_complexity,grid_complexity,strength_s,aggregation_s,prolongator_s,rap_s,convert_s,"  \
    "coarse_s\n"

const char *const gs_phase_names[GS_PHASES] = {"strength",    "aggregation", "prolongator",
                                               "rap",         "convert",     "coarse"};

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
    char num[20][40];
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
    snprintf(num[12], 40, "%.4f", r->operator_complexity);
    snprintf(num[13], 40, "%.4f", r->grid_complexity);
    for (int i = 0; i < GS_PHASES; i++) snprintf(num[14 + i], 40, "%.6f", r->phase_s[i]);
    const char *f[] = {r->case_name, r->matrix, num[0], num[1],     r->solver, r->preconditioner,
                       r->format,    num[2],    num[3], r->reason,  num[4],    num[5],
                       num[6],       num[7],    num[8], r->backend, r->device, num[9],
                       num[10],      num[11],   r->formats, num[12], num[13], num[14],
                       num[15],      num[16],   num[17], num[18], num[19]};
    size_t n = sizeof f / sizeof f[0], len = 0;
    for (size_t i = 0; i < n; i++) len = csv_field(buf, cap, len, f[i], i + 1 == n);
    return len;
}

gs_status gs_results_csv_append(const char *path, const gs_result *r)
{
    return gs_results_csv_append_ext(path, r, 0, NULL, NULL);
}

gs_status gs_results_csv_append_ext(const char *path, const gs_result *r, int n,
                                    const char *const *names, const char *const *values)
{
    gs_status st = GS_OK;
    char buf[16384];
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return GS_ERROR(GS_ERR_WRITE, "cannot write '%s': %s", path, strerror(errno));
    if (flock(fd, LOCK_EX) != 0)
        GS_FAIL(GS_ERR_WRITE, "cannot lock '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) GS_FAIL(GS_ERR_WRITE, "cannot stat '%s': %s", path, strerror(errno));
    size_t len = 0, cap = sizeof buf - 1024; /* room for the extra fields */
    if (sb.st_size == 0) {
        len = strlen(CSV_HEADER);
        memcpy(buf, CSV_HEADER, len);
        for (int i = 0; i < n; i++) {
            buf[len - 1] = ','; /* the newline becomes a separator */
            len = csv_field(buf, cap, len, names[i], 1);
        }
    }
    len += csv_row(r, buf + len, cap - len);
    for (int i = 0; i < n; i++) {
        buf[len - 1] = ',';
        len = csv_field(buf, sizeof buf, len, values[i], 1);
    }
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
    size_t cap = (size_t)n * 170 + 1, len = 0;
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
                        "version", "formats"};
    const char *sv[] = {r->case_name,   r->matrix,
                        r->solver,      r->preconditioner,
                        r->format,      r->reason,
                        r->reason_text, r->backend,
                        r->device,      r->config_text ? r->config_text : "",
                        GSOLVE_VERSION, r->formats};
    for (size_t i = 0; i < sizeof sk / sizeof sk[0]; i++)
        GS_CHECK(gs_h5_record_attr_str(h, sk[i], sv[i]));
    const char *ik[] = {"rows", "cols", "nnz", "levels", "iterations", "converged"};
    int64_t iv[] = {r->rows, r->cols, r->nnz, r->levels, r->iterations, r->converged};
    for (size_t i = 0; i < sizeof ik / sizeof ik[0]; i++)
        GS_CHECK(gs_h5_record_attr_int(h, ik[i], iv[i]));
    const char *dk[] = {"rel_residual", "setup_s", "solve_s", "total_s", "read_s",
                        "error", "bnorm", "operator_complexity", "grid_complexity"};
    double dv[] = {r->rel_residual, r->setup_s, r->solve_s, r->total_s, r->read_s,
                   r->error, r->bnorm, r->operator_complexity, r->grid_complexity};
    for (size_t i = 0; i < sizeof dk / sizeof dk[0]; i++)
        GS_CHECK(gs_h5_record_attr_double(h, dk[i], dv[i]));
    for (int i = 0; i < GS_PHASES; i++) {
        char name[40];
        snprintf(name, sizeof name, "%s_s", gs_phase_names[i]);
        GS_CHECK(gs_h5_record_attr_double(h, name, r->phase_s[i]));
    }
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

gs_status gs_results_csv_repair(const char *path, int64_t *dropped)
{
    gs_status st = GS_OK;
    gs_csv_table t;
    char *buf = NULL;
    size_t len = 0, good = 0;
    memset(&t, 0, sizeof t);
    *dropped = 0;
    int fd = open(path, O_RDWR);
    if (fd < 0 && errno == ENOENT) return GS_OK;
    if (fd < 0) return GS_ERROR(GS_ERR_WRITE, "cannot open '%s': %s", path, strerror(errno));
    if (flock(fd, LOCK_EX) != 0)
        GS_FAIL(GS_ERR_WRITE, "cannot lock '%s': %s", path, strerror(errno));
    GS_CHECK(read_fd(fd, path, &buf, &len));
    GS_CHECK(gs_alloc_array(len + 1, 1, "CSV fields", (void **)&t.text));
    GS_CHECK(csv_parse(buf, len, &t, &good));
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

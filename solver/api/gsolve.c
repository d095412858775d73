/* gsolve.c: the public C API (include/gsolve.h) over the driver: a context holds the settings
 * (the key table of gs_keys.h), the matrix, the setup (gs_engine) and the last solve's record. */
#include "gsolve.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_backend.h"
#include "gs_vec.h"
#include "gs_buf.h"
#include "gs_driver.h"
#include "gs_keys.h"
#include "gs_knob.h"
#include "gs_log.h"
#include "gs_mem.h"
#include "gs_status.h"
#ifdef GS_HAVE_CUDA
#include "gs_api.h"
#endif

#define ERR_CAP 1536

struct gsolve {
    gs_config c;
    gs_problem p;      /* the system: A (host) or A_dev (device, given there) and its
                        * description; b and x0 come per solve */
    int64_t n, nnz;    /* the matrix's rows and stored entries (0: no matrix yet) */
    int64_t *pos;      /* input entry k -> its place in p.A (duplicates share one), for updates */
    int64_t nin;       /* the entries given (rowptr[n]) */
    gs_engine *e;      /* the setup, NULL until made (or after a change) */
    int stale;         /* the matrix's values changed since e was made (gsolve_update_values):
                        * the next setup keeps what amg.reuse says (gs_driver_update) */
    gs_run run;        /* the setup's record, then the last solve's */
    double setup_s;    /* the last setup's seconds */
    double solve_s;    /* the last gsolve_solve's seconds (all its columns) */
    int nrhs, cap;     /* the last solve's columns and the room below */
    int *col_it, *col_conv;
    double *col_res;
    int solved;        /* a solve has run on this setup */
    gs_text report;    /* the last solve's report */
    gsolve_log_fn log;
    void *log_user;
    char err[ERR_CAP];
};

/* ---- every call: the context's logger on this thread, its error recorded ---- */

typedef struct call {
    gs_log_fn fn;
    void *user;
    int locked;
} call;

/* The GPU (its context, stream and memory pool) is the process's: calls of contexts that may
 * use it take turns; contexts on the host run side by side. */
static pthread_mutex_t g_device;
static pthread_once_t g_device_once = PTHREAD_ONCE_INIT;

/* recursive: a log callback may call the API again on its thread */
static void device_lock_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&g_device, &a);
    pthread_mutexattr_destroy(&a);
}

static int may_use_device(const gsolve_t *s)
{
    return s && (strcmp(s->c.run.backend, "host") != 0 || s->p.A_dev);
}

static void log_to_user(void *user, int level, const char *msg)
{
    gsolve_t *s = user;
    if (s->log) s->log(s->log_user, level, msg);
}

static call enter(gsolve_t *s)
{
    call k;
    k.locked = may_use_device(s);
    if (k.locked) {
        pthread_once(&g_device_once, device_lock_init);
        pthread_mutex_lock(&g_device);
    }
    gs_log_set(s && s->log ? log_to_user : NULL, s, &k.fn, &k.user);
    gs_error_clear();
    if (s) s->err[0] = '\0';
    return k;
}

/* the call's return code from its status; the message kept in the context */
static int leave(gsolve_t *s, call k, gs_status st)
{
    if (st != GS_OK && s) {
        const char *m = gs_error_message();
        snprintf(s->err, sizeof s->err, "%s", m[0] ? m : gs_status_str(st));
    }
    gs_error_clear();
    gs_log_set(k.fn, k.user, NULL, NULL);
    if (k.locked) pthread_mutex_unlock(&g_device);
    return st == GS_OK ? GSOLVE_OK : gs_status_exit_code(st);
}

static int bad_arg(gsolve_t *s, const char *fn)
{
    call k = enter(s);
    return leave(s, k, GS_ERROR(GS_ERR_ARG, "%s: the context is NULL", fn));
}

/* ---- version, context ---- */

const char *gsolve_version(void)
{
    static char v[160];
    if (!v[0])
        snprintf(v, sizeof v, "%s (commit %s; backends: host%s%s)", GSOLVE_VERSION, GSOLVE_COMMIT,
#ifdef GS_HAVE_CUDA
                 ", cuda",
#else
                 "",
#endif
#ifdef GSOLVE_MPI
                 "; MPI"
#else
                 ""
#endif
        );
    return v;
}

/* the setup and the last solve's record dropped (the settings or the matrix changed) */
static void drop_setup(gsolve_t *s)
{
    gs_engine_destroy(&s->e);
    s->stale = 0;
    gs_run_release(&s->run);
    s->solved = 0;
}

int gsolve_create(gsolve_t **out)
{
    if (!out) return GSOLVE_BAD_INPUT;
    *out = NULL;
    gsolve_t *s = calloc(1, sizeof *s);
    if (!s) return GSOLVE_ERROR;
    gs_config_defaults(&s->c);
    gs_str_copy(s->p.name, sizeof s->p.name, "matrix");
    gs_str_copy(s->p.rhs, sizeof s->p.rhs, "given");
    gs_str_copy(s->p.x0_desc, sizeof s->p.x0_desc, "given");
    s->p.block_size = 1;
    *out = s;
    return GSOLVE_OK;
}

void gsolve_destroy(gsolve_t **sp)
{
    gsolve_t *s = sp ? *sp : NULL;
    if (!s) return;
    call k = enter(s);
    drop_setup(s);
    gs_csr_destroy(&s->p.A);
    gs_csr_destroy(&s->p.A_dev);
    gs_free(s->p.nullspace);
    gs_free(s->pos);
    free(s->col_it);
    free(s->col_conv);
    free(s->col_res);
    gs_text_release(&s->report);
    gs_log_set(k.fn, k.user, NULL, NULL);
    gs_error_clear();
    if (k.locked) pthread_mutex_unlock(&g_device);
    free(s);
    *sp = NULL;
}

/* ---- settings ---- */

/* keys of the gsolve program's files that the library has no use for */
static int program_key(const char *key)
{
    static const char *const own[] = {"problem.", "batch.", "output.csv", "output.hdf5",
                                      "output.history", "output.solution"};
    if (strcmp(key, "problem.nullspace") == 0) return 0;
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        if (strncmp(key, own[i], strlen(own[i])) == 0) return 1;
    return 0;
}

int gsolve_set(gsolve_t *s, const char *key, const char *value)
{
    if (!s) return bad_arg(s, "gsolve_set");
    call k = enter(s);
    gs_status st = GS_OK;
    char *a = NULL;
    if (!key || !value) GS_FAIL(GS_ERR_ARG, "gsolve_set: the key or the value is NULL");
    if (gs_config_find_key(key) && program_key(key))
        GS_FAIL(GS_ERR_CONFIG, "gsolve_set: %s is a key of the gsolve program's configuration "
                "files, not of the library (the matrix and the vectors come through "
                "gsolve_set_matrix_csr and gsolve_solve)", key);
    if (strcmp(key, "problem.nullspace") == 0 && strcmp(value, "none") != 0 &&
        strcmp(value, "constant") != 0 && strcmp(value, "\"none\"") != 0 &&
        strcmp(value, "\"constant\"") != 0)
        GS_FAIL(GS_ERR_CONFIG, "gsolve_set: problem.nullspace = \"%s\": the library takes none "
                "or constant here; near-nullspace vectors come through gsolve_set_nullspace",
                value);
    if (strchr(key, '='))
        GS_FAIL(GS_ERR_CONFIG, "gsolve_set: unknown key '%s' (a key has no '=')", key);
    size_t n = strlen(key) + strlen(value) + 2;
    GS_CHECK(gs_alloc_array(n, 1, "setting", (void **)&a));
    snprintf(a, n, "%s=%s", key, value);
    GS_CHECK(gs_config_assign(&s->c, a, "gsolve_set"));
    drop_setup(s);
done:
    gs_free(a);
    return leave(s, k, st);
}

int gsolve_get_key(const gsolve_t *cs, const char *key, char *buf, size_t len)
{
    gsolve_t *s = (gsolve_t *)cs;
    if (!s) return bad_arg(s, "gsolve_get_key");
    call k = enter(s);
    gs_status st = GS_OK;
    const key_def *d = key ? gs_config_find_key(key) : NULL;
    if (!buf || len == 0) GS_FAIL(GS_ERR_ARG, "gsolve_get_key: no buffer");
    buf[0] = '\0';
    if (!d) {
        st = gs_config_unknown_key("gsolve_get_key", key ? key : "");
        goto done;
    }
    const gs_format_key *fk = gs_config_format_key(d);
    const char *base = (const char *)&s->c + d->off;
    if (fk) {
        double v = gs_format_key_get(fk, &s->c.spmv.params);
        if (fk->type == GS_FORMAT_KEY_CHOICE) {
            char item[64] = "";
            const char *p = fk->choices;
            for (int i = 0; p && i < (int)v; i++) p = strchr(p, '|'), p = p ? p + 1 : NULL;
            if (p) snprintf(item, sizeof item, "%.*s", (int)strcspn(p, "|"), p);
            snprintf(buf, len, "%s", item);
        } else {
            snprintf(buf, len, "%.17g", v);
        }
    } else if (d->type == K_STR || d->type == K_LIST) {
        snprintf(buf, len, "%s", base);
    } else if (d->type == K_INT || d->type == K_CASES) {
        snprintf(buf, len, "%lld", (long long)*(const int64_t *)base);
    } else {
        snprintf(buf, len, "%.17g", *(const double *)base);
    }
done:
    return leave(s, k, st);
}

int gsolve_set_log(gsolve_t *s, gsolve_log_fn fn, void *user)
{
    if (!s) return bad_arg(s, "gsolve_set_log");
    s->log = fn;
    s->log_user = user;
    return GSOLVE_OK;
}

int gsolve_set_diagnostic(const char *name, const char *value)
{
    gs_status st = gs_knob_set(name, value);
    gs_error_clear();
    return st == GS_OK ? GSOLVE_OK : gs_status_exit_code(st);
}

/* Arrays in device memory need the GPU backend: started here (run.device) in a CUDA build. */
static gs_status device_arrays(gsolve_t *s, const char *fn)
{
#ifdef GS_HAVE_CUDA
    char dev[128];
    if (gs_backend_get(GS_LOC_DEVICE)) return GS_OK;
    gs_status st = gs_backend_cuda_init((int)s->c.run.device, dev, sizeof dev);
    if (st != GS_OK) {
        char msg[640];
        gs_str_copy(msg, sizeof msg, gs_error_message());
        gs_error_clear();
        return GS_ERROR(GS_ERR_ARG, "%s: the arrays are in device memory, and the GPU cannot be "
                        "used: %s", fn, msg);
    }
    return GS_OK;
#else
    (void)s;
    return GS_ERROR(GS_ERR_ARG, "%s: the arrays are in device memory, and this build has no GPU "
                    "backend", fn);
#endif
}

/* ---- the matrix ---- */

/* The caller's row pointers: 64-bit (gsolve_set_matrix_csr) or 32-bit
 * (gsolve_set_matrix_csr32), read through rp_at; fn names the call in messages. */
typedef struct rowptrs {
    const int64_t *p64;
    const int32_t *p32;
    const char *fn;
} rowptrs;

static inline int64_t rp_at(const rowptrs *r, int64_t i)
{
    return r->p64 ? r->p64[i] : (int64_t)r->p32[i];
}

/* rowptr (n + 1 entries, on the host) from 0 and never decreasing, at most 2^31 - 1 entries,
 * cols and vals given when there are entries; *nnz = rowptr[n] */
static gs_status check_rowptr(int64_t n, const rowptrs *rp, const int32_t *ci, const double *v,
                              int64_t *nnz)
{
    if (rp_at(rp, 0) != 0)
        return GS_ERROR(GS_ERR_INPUT, "%s: rowptr[0] = %lld, expected 0", rp->fn,
                        (long long)rp_at(rp, 0));
    for (int64_t i = 0; i < n; i++)
        if (rp_at(rp, i + 1) < rp_at(rp, i))
            return GS_ERROR(GS_ERR_INPUT, "%s: rowptr decreases at row %lld (%lld then %lld)",
                            rp->fn, (long long)i, (long long)rp_at(rp, i),
                            (long long)rp_at(rp, i + 1));
    *nnz = rp_at(rp, n);
    if (*nnz > GS_MAX_INDEX)
        return GS_ERROR(GS_ERR_UNSUPPORTED, "%s: %lld entries; at most %lld (2^31 - 1)", rp->fn,
                        (long long)*nnz, GS_MAX_INDEX);
    if (*nnz > 0 && (!ci || !v)) return GS_ERROR(GS_ERR_ARG, "%s: cols or vals is NULL", rp->fn);
    return GS_OK;
}

/* host copies of a device CSR's arrays (the rows to be sorted on the host), rowptr checked and
 * widened to 64 bits (*rp) */
static gs_status device_to_host(int64_t n, const rowptrs *rowptr, const int32_t *cols,
                                const double *vals, int64_t **rp, int32_t **ci, double **v,
                                int64_t *nnz)
{
    gs_status st = GS_OK;
    int32_t *rp32 = NULL;
    *rp = NULL, *ci = NULL, *v = NULL;
    GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof **rp, "row pointers", (void **)rp));
    if (rowptr->p64) {
        const gs_buf f = {(void *)rowptr->p64, n + 1, GS_I64, GS_LOC_DEVICE};
        gs_buf t = {*rp, n + 1, GS_I64, GS_LOC_HOST};
        GS_CHECK(gs_buf_copy(&f, &t));
    } else {
        GS_CHECK(gs_alloc_array((size_t)n + 1, sizeof *rp32, "row pointers", (void **)&rp32));
        const gs_buf f = {(void *)rowptr->p32, n + 1, GS_I32, GS_LOC_DEVICE};
        gs_buf t = {rp32, n + 1, GS_I32, GS_LOC_HOST};
        GS_CHECK(gs_buf_copy(&f, &t));
        for (int64_t i = 0; i <= n; i++) (*rp)[i] = rp32[i];
    }
    const rowptrs h = {*rp, NULL, rowptr->fn};
    GS_CHECK(check_rowptr(n, &h, cols, vals, nnz));
    GS_CHECK(gs_alloc_array(*nnz > 0 ? (size_t)*nnz : 1, sizeof **ci, "column indices",
                            (void **)ci));
    GS_CHECK(gs_alloc_array(*nnz > 0 ? (size_t)*nnz : 1, sizeof **v, "values", (void **)v));
    if (*nnz > 0) {
        const gs_buf fc = {(void *)cols, *nnz, GS_I32, GS_LOC_DEVICE},
                     fv = {(void *)vals, *nnz, GS_F64, GS_LOC_DEVICE};
        gs_buf tc = {*ci, *nnz, GS_I32, GS_LOC_HOST}, tv = {*v, *nnz, GS_F64, GS_LOC_HOST};
        GS_CHECK(gs_buf_copy(&fc, &tc));
        GS_CHECK(gs_buf_copy(&fv, &tv));
    }
done:
    gs_free(rp32);
    return st;
}

/* A straight from host arrays whose rows are sorted with distinct columns (the usual case), in
 * one pass: rowptr checked and narrowed, columns and values checked and copied. *out stays NULL
 * when a row is not sorted, or a column or value is bad: build_csr takes those (and says which
 * row is bad). */
static gs_status canonical_csr(int64_t n, const rowptrs *rp, const int32_t *ci, const double *v,
                               gs_csr **out, int64_t *nnz)
{
    gs_status st = GS_OK;
    gs_csr *A = NULL;
    *out = NULL;
    GS_CHECK(check_rowptr(n, rp, ci, v, nnz));
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = rp_at(rp, i) + 1; k < rp_at(rp, i + 1); k++)
            if (ci[k] <= ci[k - 1]) goto done;
    GS_CHECK(gs_csr_create(n, n, *nnz, &A));
    int bad = 0; /* a column outside the matrix or a value that is not finite */
#pragma omp parallel for schedule(static) reduction(| : bad) if (n > 100000)
    for (int64_t i = 0; i < n; i++) {
        const int64_t s = rp_at(rp, i), e = rp_at(rp, i + 1);
        A->rowptr[i] = (int32_t)s;
        for (int64_t k = s; k < e; k++) {
            A->colind[k] = ci[k];
            A->val[k] = v[k];
            bad |= ci[k] < 0 || ci[k] >= n || !isfinite(v[k]);
        }
    }
    A->rowptr[n] = (int32_t)*nnz;
    if (bad) goto done; /* the first bad row's message: build_csr's */
    *out = A;
    A = NULL;
done:
    gs_csr_destroy(&A);
    return st;
}

/* entries of one row ordered by column, then input order */
typedef struct entry {
    int32_t col;
    int64_t k;
} entry;

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* A (rows sorted, duplicates summed) and pos (input entry -> its place in A) */
static gs_status build_csr(int64_t n, const rowptrs *rp, const int32_t *ci, const double *v,
                           int64_t nnz, gs_csr **out, int64_t **pos)
{
    gs_status st = GS_OK;
    gs_csr *A = NULL;
    entry *row = NULL;
    int64_t longest = 0, m = 0;
    *out = NULL;
    *pos = NULL;
    for (int64_t i = 0; i < n; i++) {
        const int64_t s = rp_at(rp, i), e = rp_at(rp, i + 1);
        if (e - s > longest) longest = e - s;
        for (int64_t k = s; k < e; k++)
            if (ci[k] < 0 || ci[k] >= n)
                GS_FAIL(GS_ERR_INPUT, "%s: row %lld: column %d outside 0..%lld", rp->fn,
                        (long long)i, ci[k], (long long)(n - 1));
        for (int64_t k = s; k < e; k++)
            if (!isfinite(v[k]))
                GS_FAIL(GS_ERR_INPUT, "%s: row %lld, column %d: the value is %g", rp->fn,
                        (long long)i, ci[k], v[k]);
    }
    GS_CHECK(gs_alloc_array(nnz > 0 ? (size_t)nnz : 1, sizeof **pos, "entry map", (void **)pos));
    GS_CHECK(gs_alloc_array(longest > 0 ? (size_t)longest : 1, sizeof *row, "row", (void **)&row));
    GS_CHECK(gs_csr_create(n, n, nnz, &A));
    A->rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t s = rp_at(rp, i), len = rp_at(rp, i + 1) - s;
        for (int64_t j = 0; j < len; j++) row[j] = (entry){ci[s + j], s + j};
        qsort(row, (size_t)len, sizeof *row, cmp_entry);
        for (int64_t j = 0; j < len; j++) {
            if (j == 0 || row[j].col != row[j - 1].col) {
                A->colind[m] = row[j].col;
                A->val[m] = 0.0;
                m++;
            }
            A->val[m - 1] += v[row[j].k];
            (*pos)[row[j].k] = m - 1;
        }
        A->rowptr[i + 1] = (int32_t)m;
    }
    A->nnz = (int32_t)m;
    *out = A;
    A = NULL;
done:
    gs_csr_destroy(&A);
    gs_free(row);
    if (st != GS_OK) {
        gs_free(*pos);
        *pos = NULL;
    }
    return st;
}

/* gsolve_set_matrix_csr and gsolve_set_matrix_csr32 */
static int set_matrix(gsolve_t *s, int64_t n, const rowptrs *rowptr, const int32_t *cols,
                      const double *vals, int where)
{
    if (!s) return bad_arg(s, rowptr->fn);
    call k = enter(s);
    gs_status st = GS_OK;
    int64_t *rp = NULL, nnz = 0, *pos = NULL;
    int32_t *ci = NULL;
    double *v = NULL;
    gs_csr *A = NULL;
    const char *fn = rowptr->fn;
    if (where != GSOLVE_HOST && where != GSOLVE_DEVICE)
        GS_FAIL(GS_ERR_ARG, "%s: where = %d: expected GSOLVE_HOST (0) or GSOLVE_DEVICE (1)", fn,
                where);
    if (n < 1 || n > GS_MAX_INDEX)
        GS_FAIL(GS_ERR_INPUT, "%s: n = %lld: expected 1..%lld", fn, (long long)n, GS_MAX_INDEX);
    if (!rowptr->p64 && !rowptr->p32) GS_FAIL(GS_ERR_ARG, "%s: rowptr is NULL", fn);
    gs_csr *D = NULL; /* the device path: checked and kept on the device */
    if (where == GSOLVE_DEVICE) {
        GS_CHECK(device_arrays(s, fn));
#ifdef GS_HAVE_CUDA
        int canonical = 0;
        GS_CHECK(gs_api_csr_from_device(n, rowptr->p64, rowptr->p32, cols, vals, fn, &D,
                                        &canonical, &nnz));
        if (!canonical)
            gs_log(GS_LOG_INFO, "%s: the device CSR's rows are not sorted with distinct columns: "
                   "sorted through the host", fn);
#endif
    }
    if (!D && where == GSOLVE_HOST) {
        GS_CHECK(canonical_csr(n, rowptr, cols, vals, &A, &nnz));
        if (!A) GS_CHECK(build_csr(n, rowptr, cols, vals, nnz, &A, &pos)); /* sorted here */
    } else if (!D) { /* a device CSR whose rows are not sorted: sorted on the host */
        GS_CHECK(device_to_host(n, rowptr, cols, vals, &rp, &ci, &v, &nnz));
        const rowptrs h = {rp, NULL, fn};
        GS_CHECK(build_csr(n, &h, ci, v, nnz, &A, &pos));
    }
    drop_setup(s);
    gs_csr_destroy(&s->p.A);
    gs_csr_destroy(&s->p.A_dev);
    gs_free(s->pos);
    s->p.A = A;
    s->p.A_dev = D;
    s->pos = pos; /* NULL when the caller's entries are kept in their order (rows sorted) */
    s->nin = nnz;
    s->n = n;
    s->nnz = A ? A->nnz : D->nnz;
    A = NULL;
    pos = NULL;
    snprintf(s->p.matrix, sizeof s->p.matrix, "CSR %lld x %lld, %lld entries (%s)", (long long)n,
             (long long)n, (long long)s->nnz, fn);
done:
    gs_free(rp);
    gs_free(ci);
    gs_free(v);
    gs_free(pos);
    gs_csr_destroy(&A);
    return leave(s, k, st);
}

int gsolve_set_matrix_csr(gsolve_t *s, int64_t n, const int64_t *rowptr, const int32_t *cols,
                          const double *vals, int where)
{
    const rowptrs r = {rowptr, NULL, "gsolve_set_matrix_csr"};
    return set_matrix(s, n, &r, cols, vals, where);
}

int gsolve_set_matrix_csr32(gsolve_t *s, int64_t n, const int32_t *rowptr, const int32_t *cols,
                            const double *vals, int where)
{
    const rowptrs r = {NULL, rowptr, "gsolve_set_matrix_csr32"};
    return set_matrix(s, n, &r, cols, vals, where);
}

int gsolve_update_values(gsolve_t *s, const double *vals, int where)
{
    if (!s) return bad_arg(s, "gsolve_update_values");
    call k = enter(s);
    gs_status st = GS_OK;
    double *v = NULL;
    if (!s->n) GS_FAIL(GS_ERR_ARG, "gsolve_update_values: no matrix yet (gsolve_set_matrix_csr)");
    if (!vals && s->nin > 0) GS_FAIL(GS_ERR_ARG, "gsolve_update_values: vals is NULL");
    if (where != GSOLVE_HOST && where != GSOLVE_DEVICE)
        GS_FAIL(GS_ERR_ARG, "gsolve_update_values: where = %d: expected GSOLVE_HOST (0) or "
                "GSOLVE_DEVICE (1)", where);
    if (where == GSOLVE_DEVICE) GS_CHECK(device_arrays(s, "gsolve_update_values"));
#ifdef GS_HAVE_CUDA
    if (s->p.A_dev && where == GSOLVE_DEVICE) { /* on the device, in place */
        GS_CHECK(gs_api_values_from_device(s->p.A_dev, vals));
        s->stale = s->e != NULL;
        goto done;
    }
#endif
    GS_CHECK(gs_alloc_array(s->nin > 0 ? (size_t)s->nin : 1, sizeof *v, "values", (void **)&v));
    if (where == GSOLVE_HOST) {
        if (s->nin > 0) memcpy(v, vals, (size_t)s->nin * sizeof *v);
    } else if (s->nin > 0) {
        const gs_buf f = {(void *)vals, s->nin, GS_F64, GS_LOC_DEVICE};
        gs_buf t = {v, s->nin, GS_F64, GS_LOC_HOST};
        GS_CHECK(gs_buf_copy(&f, &t));
    }
    for (int64_t i = 0; i < s->nin; i++)
        if (!isfinite(v[i]))
            GS_FAIL(GS_ERR_INPUT, "gsolve_update_values: entry %lld is %g", (long long)i, v[i]);
    if (s->p.A_dev) { /* the host's values up into the device matrix (entries in order) */
        const gs_buf f = {v, s->nin, GS_F64, GS_LOC_HOST};
        gs_buf t = {s->p.A_dev->val, s->nin, GS_F64, GS_LOC_DEVICE};
        if (s->nin > 0) GS_CHECK(gs_buf_copy(&f, &t));
    } else {
        gs_csr *A = s->p.A;
        if (s->pos) { /* rows sorted here: the caller's entries moved, duplicates summed */
            memset(A->val, 0, (size_t)A->nnz * sizeof *A->val);
            for (int64_t i = 0; i < s->nin; i++) A->val[s->pos[i]] += v[i];
        } else {
            memcpy(A->val, v, (size_t)s->nin * sizeof *v);
        }
    }
    s->stale = s->e != NULL;
done:
    gs_free(v);
    return leave(s, k, st);
}

int gsolve_set_nullspace(gsolve_t *s, int kvec, const double *vectors)
{
    if (!s) return bad_arg(s, "gsolve_set_nullspace");
    call k = enter(s);
    gs_status st = GS_OK;
    double *ns = NULL;
    if (kvec < 0 || kvec > 64) GS_FAIL(GS_ERR_ARG, "gsolve_set_nullspace: k = %d: expected 0..64", kvec);
    if (kvec > 0 && !s->n)
        GS_FAIL(GS_ERR_ARG, "gsolve_set_nullspace: set the matrix first (its rows give n)");
    if (kvec > 0 && !vectors) GS_FAIL(GS_ERR_ARG, "gsolve_set_nullspace: vectors is NULL");
    if (kvec > 0) {
        size_t cnt = (size_t)kvec * (size_t)s->n;
        GS_CHECK(gs_alloc_array(cnt, sizeof *ns, "near-nullspace", (void **)&ns));
        memcpy(ns, vectors, cnt * sizeof *ns);
        for (size_t i = 0; i < cnt; i++)
            if (!isfinite(ns[i]))
                GS_FAIL(GS_ERR_INPUT, "gsolve_set_nullspace: vector %zu, entry %zu is %g",
                        i / (size_t)s->n, i % (size_t)s->n, ns[i]);
    }
    gs_free(s->p.nullspace);
    s->p.nullspace = ns;
    s->p.nullspace_k = kvec;
    ns = NULL;
    drop_setup(s);
done:
    gs_free(ns);
    return leave(s, k, st);
}

/* ---- setup and solve ---- */

static gs_driver_io io_of(gs_text *t)
{
    gs_driver_io io;
    memset(&io, 0, sizeof io);
    io.out = gs_text_out(t);
    return io;
}

static gs_status setup(gsolve_t *s)
{
    gs_status st = GS_OK;
    gs_text scratch = {0};
    gs_driver_io io = io_of(&scratch);
    if (!s->n) GS_FAIL(GS_ERR_ARG, "no matrix: call gsolve_set_matrix_csr first");
    if (s->e && s->stale) { /* new values: what amg.reuse keeps */
        s->solved = 0;
        st = gs_driver_update(s->e, &s->c, &s->p, &s->run, &io);
        if (st != GS_OK) drop_setup(s);
        GS_CHECK(st);
        s->stale = 0;
    } else {
        drop_setup(s);
        GS_CHECK(gs_driver_setup(&s->c, &s->p, &s->run, &io, &s->e));
    }
    s->setup_s = s->run.res.setup_s;
done:
    gs_text_release(&scratch);
    return st;
}

int gsolve_setup(gsolve_t *s)
{
    if (!s) return bad_arg(s, "gsolve_setup");
    call k = enter(s);
    return leave(s, k, setup(s));
}

static gs_status columns(gsolve_t *s, int nrhs)
{
    if (nrhs <= s->cap) return GS_OK;
    int *it = realloc(s->col_it, (size_t)nrhs * sizeof *it);
    if (it) s->col_it = it;
    int *cv = realloc(s->col_conv, (size_t)nrhs * sizeof *cv);
    if (cv) s->col_conv = cv;
    double *r = realloc(s->col_res, (size_t)nrhs * sizeof *r);
    if (r) s->col_res = r;
    if (!it || !cv || !r) return GS_ERROR(GS_ERR_NOMEM, "out of memory: %d right-hand sides", nrhs);
    s->cap = nrhs;
    return GS_OK;
}

int gsolve_solve(gsolve_t *s, int nrhs, const double *b, double *x, int where)
{
    if (!s) return bad_arg(s, "gsolve_solve");
    call k = enter(s);
    gs_status st = GS_OK;
    int all = 1;
    if (nrhs < 1) GS_FAIL(GS_ERR_ARG, "gsolve_solve: nrhs = %d: expected at least 1", nrhs);
    if (!b || !x) GS_FAIL(GS_ERR_ARG, "gsolve_solve: b or x is NULL");
    if (where != GSOLVE_HOST && where != GSOLVE_DEVICE)
        GS_FAIL(GS_ERR_ARG, "gsolve_solve: where = %d: expected GSOLVE_HOST (0) or GSOLVE_DEVICE "
                "(1)", where);
    if (where == GSOLVE_DEVICE) GS_CHECK(device_arrays(s, "gsolve_solve"));
    if (!s->e || s->stale) GS_CHECK(setup(s));
    GS_CHECK(columns(s, nrhs));
    s->nrhs = 0;
    s->solve_s = 0.0;
    const int64_t n = s->n;
    if (nrhs > 1 && gs_engine_block_ok(s->e, &s->c)) { /* together, GS_BLOCK_MAX at a time */
        gs_text_release(&s->report);
        for (int j0 = 0; j0 < nrhs; j0 += GS_BLOCK_MAX) {
            const int k = nrhs - j0 < GS_BLOCK_MAX ? nrhs - j0 : GS_BLOCK_MAX;
            gs_driver_io io = io_of(&s->report);
            s->run.hist_len = 0;
            s->run.hint[0] = '\0';
            GS_CHECK(gs_driver_run_block(s->e, &s->c, &s->p, &s->run, &io, k,
                                         b + (size_t)j0 * (size_t)n, x + (size_t)j0 * (size_t)n,
                                         where == GSOLVE_HOST ? GS_LOC_HOST : GS_LOC_DEVICE,
                                         s->col_it + j0, s->col_conv + j0, s->col_res + j0));
            s->run.out = NULL;
            s->solve_s += s->run.res.solve_s;
            s->nrhs = j0 + k;
        }
        int lo = s->col_it[0], hi = s->col_it[0];
        for (int j = 0; j < nrhs; j++) {
            all = all && s->col_conv[j];
            lo = s->col_it[j] < lo ? s->col_it[j] : lo;
            hi = s->col_it[j] > hi ? s->col_it[j] : hi;
        }
        gs_out o = gs_text_out(&s->report);
        gs_outf(&o, "block     %d right-hand sides solved together (block CG): iterations %d..%d; "
                "below: the most iterations and the largest residual\n", nrhs, lo, hi);
        gs_driver_print_summary(&s->c, &s->p, &s->run, &o);
    }
    for (int j = 0; j < nrhs && s->nrhs < nrhs; j++) {
        gs_text_release(&s->report);
        gs_driver_io io = io_of(&s->report);
        s->run.hist_len = 0;
        s->run.hint[0] = '\0';
        GS_CHECK(gs_driver_run(s->e, &s->c, &s->p, &s->run, &io, b + (size_t)j * (size_t)n,
                               x + (size_t)j * (size_t)n,
                               where == GSOLVE_HOST ? GS_LOC_HOST : GS_LOC_DEVICE));
        s->run.out = NULL;
        s->col_it[j] = s->run.res.iterations;
        s->col_conv[j] = s->run.res.converged;
        s->col_res[j] = s->run.res.rel_residual;
        s->solve_s += s->run.res.solve_s;
        s->nrhs = j + 1;
        all = all && s->run.res.converged;
        gs_out o = gs_text_out(&s->report);
        gs_driver_print_summary(&s->c, &s->p, &s->run, &o);
    }
    s->solved = 1;
    if (!all) {
        st = GS_OK;
        for (int j = 0; j < s->nrhs; j++)
            if (!s->col_conv[j]) {
                snprintf(s->err, sizeof s->err, "right-hand side %d: %s", j,
                         s->run.res.reason_text);
                break;
            }
        gs_error_clear();
        gs_log_set(k.fn, k.user, NULL, NULL);
        if (k.locked) pthread_mutex_unlock(&g_device);
        return GSOLVE_NOT_CONVERGED;
    }
done:
    return leave(s, k, st);
}

int gsolve_apply(gsolve_t *s, int nrhs, const double *r, double *z, int where)
{
    if (!s) return bad_arg(s, "gsolve_apply");
    call k = enter(s);
    gs_status st = GS_OK;
    if (nrhs < 1) GS_FAIL(GS_ERR_ARG, "gsolve_apply: nrhs = %d: expected at least 1", nrhs);
    if (!r || !z) GS_FAIL(GS_ERR_ARG, "gsolve_apply: r or z is NULL");
    if (where != GSOLVE_HOST && where != GSOLVE_DEVICE)
        GS_FAIL(GS_ERR_ARG, "gsolve_apply: where = %d: expected GSOLVE_HOST (0) or GSOLVE_DEVICE "
                "(1)", where);
    if (where == GSOLVE_DEVICE) GS_CHECK(device_arrays(s, "gsolve_apply"));
    if (!s->e || s->stale) GS_CHECK(setup(s));
    const int64_t n = s->n;
    for (int j = 0; j < nrhs; j++)
        GS_CHECK(gs_engine_precondition(s->e, r + (size_t)j * (size_t)n, z + (size_t)j * (size_t)n,
                                        where == GSOLVE_HOST ? GS_LOC_HOST : GS_LOC_DEVICE));
done:
    return leave(s, k, st);
}

/* ---- results ---- */

int gsolve_get(const gsolve_t *cs, const char *name, double *value)
{
    gsolve_t *s = (gsolve_t *)cs;
    if (!s) return bad_arg(s, "gsolve_get");
    call k = enter(s);
    gs_status st = GS_OK;
    const gs_result *r = &s->run.res;
    const char *colon = name ? strchr(name, ':') : NULL;
    char base[32];
    int j = -1;
    if (!name || !value) GS_FAIL(GS_ERR_ARG, "gsolve_get: the name or the value is NULL");
    snprintf(base, sizeof base, "%.*s", colon ? (int)(colon - name) : (int)strlen(name), name);
    if (colon && (!strcmp(base, "level_rows") || !strcmp(base, "level_nnz"))) {
        char *end = NULL;
        long l = strtol(colon + 1, &end, 10);
        if (!s->e) GS_FAIL(GS_ERR_ARG, "gsolve_get: %s: no setup yet", name);
        if (end == colon + 1 || *end || l < 0 || l >= r->levels || !r->level_info)
            GS_FAIL(GS_ERR_ARG, "gsolve_get: %s: the level must be 0..%d", name, r->levels - 1);
        *value = base[6] == 'r' ? (double)r->level_info[l].rows : (double)r->level_info[l].nnz;
        goto done;
    }
    if (colon) {
        char *end = NULL;
        long v = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || *end || v < 0 || v >= s->nrhs)
            GS_FAIL(GS_ERR_ARG, "gsolve_get: %s: the column must be 0..%d (the last solve's)",
                    name, s->nrhs - 1);
        j = (int)v;
    }
    int solve_item = !strcmp(base, "iterations") || !strcmp(base, "residual") ||
                     !strcmp(base, "converged") || !strcmp(base, "solve_s");
    if (solve_item && !s->solved)
        GS_FAIL(GS_ERR_ARG, "gsolve_get: %s: no solve yet", name);
    int setup_item = !strcmp(base, "levels") || strstr(base, "complexity") != NULL ||
                     !strcmp(base, "full_setup_s") || !strcmp(base, "setups") ||
                     !strcmp(base, "resetups") || !strcmp(base, "coarsenings") ||
                     !strcmp(base, "prolongators") || !strcmp(base, "galerkin_products") ||
                     !strcmp(base, "galerkin_values");
    if (setup_item && !s->e)
        GS_FAIL(GS_ERR_ARG, "gsolve_get: %s: no setup yet", name);
    if (!strcmp(base, "iterations") || !strcmp(base, "residual") || !strcmp(base, "converged")) {
        double best = 0.0;
        for (int c = j >= 0 ? j : 0; c < (j >= 0 ? j + 1 : s->nrhs); c++) {
            double v = base[0] == 'i' ? s->col_it[c] : base[0] == 'r' ? s->col_res[c] : s->col_conv[c];
            if (c == (j >= 0 ? j : 0))
                best = v;
            else if (base[0] == 'c')
                best = best && v;
            else if (v > best)
                best = v;
        }
        *value = best;
    } else if (j >= 0) {
        GS_FAIL(GS_ERR_ARG, "gsolve_get: %s: only iterations, residual and converged are by "
                "column", name);
    } else if (!strcmp(base, "setup_s")) {
        *value = s->setup_s;
    } else if (!strcmp(base, "solve_s")) {
        *value = s->solve_s;
    } else if (!strcmp(base, "levels")) {
        *value = r->levels;
    } else if (!strcmp(base, "operator_complexity")) {
        *value = r->operator_complexity > 0 ? r->operator_complexity : 1.0;
    } else if (!strcmp(base, "grid_complexity")) {
        *value = r->grid_complexity > 0 ? r->grid_complexity : 1.0;
    } else if (!strcmp(base, "level_rows") || !strcmp(base, "level_nnz")) {
        GS_FAIL(GS_ERR_ARG, "gsolve_get: %s needs a level, as %s:0", name, base);
    } else if (!strcmp(base, "full_setup_s")) {
        *value = gs_engine_full_setup_s(s->e);
    } else if (s->run.amg && !strcmp(base, "setups")) {
        *value = (double)s->run.amg->setups;
    } else if (s->run.amg && !strcmp(base, "resetups")) {
        *value = (double)s->run.amg->resetups;
    } else if (s->run.amg && !strcmp(base, "coarsenings")) {
        *value = (double)s->run.amg->coarsenings;
    } else if (s->run.amg && !strcmp(base, "prolongators")) {
        *value = (double)s->run.amg->prolongators;
    } else if (s->run.amg && !strcmp(base, "galerkin_products")) {
        *value = (double)s->run.amg->galerkin_products;
    } else if (s->run.amg && !strcmp(base, "galerkin_values")) {
        *value = (double)s->run.amg->galerkin_values;
    } else if (!strcmp(base, "setups") || !strcmp(base, "resetups") ||
               !strcmp(base, "coarsenings") || !strcmp(base, "prolongators") ||
               !strcmp(base, "galerkin_products") || !strcmp(base, "galerkin_values")) {
        *value = 0.0; /* no AMG */
    } else if (!strcmp(base, "device_to_host_bytes")) {
        *value = (double)gs_backend_d2h_bytes();
    } else if (!strcmp(base, "rows")) {
        *value = (double)s->n;
    } else if (!strcmp(base, "nnz")) {
        *value = (double)s->nnz;
    } else {
        GS_FAIL(GS_ERR_ARG, "gsolve_get: unknown name '%s' (iterations, residual, converged, "
                "setup_s, full_setup_s, solve_s, levels, operator_complexity, grid_complexity, "
                "rows, nnz, setups, resetups, coarsenings, prolongators, galerkin_products, "
                "galerkin_values, device_to_host_bytes)",
                name);
    }
done:
    return leave(s, k, st);
}

const char *gsolve_get_text(const gsolve_t *cs, const char *name)
{
    gsolve_t *s = (gsolve_t *)cs;
    if (!s) return NULL;
    const gs_result *r = &s->run.res;
    s->err[0] = '\0';
    if (!name) name = "";
    if (!strncmp(name, "level_format:", 13)) {
        char *end = NULL;
        long l = strtol(name + 13, &end, 10);
        if (end == name + 13 || *end || l < 0 || l >= r->levels || !r->level_info) {
            snprintf(s->err, sizeof s->err, "gsolve_get_text: %s: the level must be 0..%d", name,
                     r->levels - 1);
            return NULL;
        }
        return r->level_info[l].format;
    }
    static const char *const solve_only[] = {"reason", "reason_text"};
    for (size_t i = 0; i < 2; i++)
        if (!strcmp(name, solve_only[i]) && !s->solved) return "";
    if (!strcmp(name, "reason")) return r->reason;
    if (!strcmp(name, "reason_text")) return r->reason_text;
    if (!strcmp(name, "setup")) return s->e ? gs_engine_setup_kind(s->e) : "";
    if (!strcmp(name, "reused")) return s->e && s->run.amg ? s->run.amg->reused : "";
    if (!strcmp(name, "solver")) return s->e ? r->solver : "";
    if (!strcmp(name, "preconditioner")) return s->e ? r->preconditioner : "";
    if (!strcmp(name, "format")) return s->e ? r->format : "";
    if (!strcmp(name, "formats")) return s->e ? r->formats : "";
    if (!strcmp(name, "backend")) return s->e ? r->backend : "";
    if (!strcmp(name, "device")) return s->e ? r->device : "";
    if (!strcmp(name, "amg_method"))
        return !s->e || !s->run.amg                           ? ""
               : s->run.amg->method == GS_AMG_METHOD_CLASSICAL ? "classical"
                                                                : "sa";
    snprintf(s->err, sizeof s->err, "gsolve_get_text: unknown name '%s' (reason, reason_text, "
             "solver, preconditioner, format, formats, backend, device, amg_method, "
             "level_format:L)", name);
    return NULL;
}

const char *gsolve_report(const gsolve_t *s)
{
    return s && s->report.s ? s->report.s : "";
}

const char *gsolve_error(const gsolve_t *s)
{
    return s ? s->err : "gsolve: the context is NULL";
}

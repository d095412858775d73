/* What produced a run, in its CSV row and HDF5 record: rtol, atol, max_iters, restart, threads,
 * the AMG keys (AMG runs only), version, commit and an ISO 8601 UTC timestamp; a CSV file begun
 * with an older header gets rows in that header's columns. */
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gs_config.h"
#include "gs_mem.h"
#include "gs_results.h"
#include "gs_test.h"
#include "gs_version.h"

static char dir[] = "/tmp/gs_results_ctx_XXXXXX";

/* "2026-11-25T15:40:11Z" */
static int is_iso_utc(const char *s)
{
    const char *pat = "dddd-dd-ddTdd:dd:ddZ";
    if (strlen(s) != strlen(pat)) return 0;
    for (size_t i = 0; pat[i]; i++)
        if (pat[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != pat[i]) return 0;
    return 1;
}

static void fill(gs_result *r, const char *name)
{
    static const double h[2] = {1.0, 1e-9}, t[2] = {0.0, 0.01};
    static const int it[2] = {0, 12};
    static const double x[3] = {1, 2, 3};
    memset(r, 0, sizeof *r);
    gs_str_copy(r->case_name, sizeof r->case_name, name);
    gs_str_copy(r->matrix, sizeof r->matrix, "A.mtx");
    gs_str_copy(r->solver, sizeof r->solver, "cg");
    gs_str_copy(r->format, sizeof r->format, "csr");
    gs_str_copy(r->reason, sizeof r->reason, "rtol");
    gs_str_copy(r->backend, sizeof r->backend, "host");
    gs_str_copy(r->device, sizeof r->device, "cpu, with a comma");
    r->rows = r->cols = 3;
    r->nnz = 7;
    r->iterations = 12;
    r->converged = 1;
    r->error = -1;
    r->x = x;
    r->history = h, r->history_time = t, r->history_iter = it, r->history_len = 2;
    r->bnorm = 1;
}

static void check_csv_amg(const char *path)
{
    gs_csv_table *t = NULL;
    CHECK_OK(gs_results_csv_read(path, &t));
    if (!t) return;
    CHECK(t->nrows == 2 && t->bad_rows == 0);
    /* the standard columns first, as before; the context's after them; then the profile, the
     * ranks and the communication times; the settings hash and the provenance last */
    CHECK(gs_csv_table_col(t, "case") == 0 && gs_csv_table_col(t, "coarse_s") == 28);
    CHECK(gs_csv_table_col(t, "rtol") == 29 && gs_csv_table_col(t, "timestamp") == t->ncols - 16);
    CHECK(gs_csv_table_col(t, "profile") == t->ncols - 15);
    CHECK(gs_csv_table_col(t, "ranks") == t->ncols - 14 &&
          gs_csv_table_col(t, "comm_solve_s") == t->ncols - 12 &&
          gs_csv_table_col(t, "device_peak_gb") == t->ncols - 11);
    CHECK(gs_csv_table_col(t, "settings") == t->ncols - 10 &&
          gs_csv_table_col(t, "x0") == t->ncols - 1);
    /* the settings hash: 16 hex digits, another for another configuration */
    const char *h0 = gs_csv_table_get(t, 0, "settings"), *h1 = gs_csv_table_get(t, 1, "settings");
    CHECK(strlen(h0) == 16 && strspn(h0, "0123456789abcdef") == 16 && strcmp(h0, h1) != 0);
    /* provenance: the host, the CPU, no GPU for a host run, the libraries, rhs and x0 */
    CHECK(gs_csv_table_get(t, 0, "host")[0] && gs_csv_table_get(t, 0, "cpu")[0]);
    CHECK(!strcmp(gs_csv_table_get(t, 0, "gpu"), "none"));
    CHECK(gs_csv_table_get(t, 0, "gpu_driver")[0] && gs_csv_table_get(t, 0, "cuda")[0]);
    CHECK(gs_csv_table_get(t, 0, "mpi")[0]);
    CHECK(strchr(gs_csv_table_get(t, 0, "hdf5"), '.') != NULL);
    CHECK(!strcmp(gs_csv_table_get(t, 0, "rhs"), "auto") &&
          !strcmp(gs_csv_table_get(t, 0, "x0"), "auto"));
    CHECK(!strcmp(gs_csv_table_get(t, 0, "rtol"), "1e-07"));
    CHECK(!strcmp(gs_csv_table_get(t, 0, "atol"), "1e-12"));
    CHECK(!strcmp(gs_csv_table_get(t, 0, "max_iters"), "321"));
    CHECK(!strcmp(gs_csv_table_get(t, 0, "restart"), "17"));
    CHECK(atoi(gs_csv_table_get(t, 0, "threads")) >= 1);
    CHECK(!strcmp(gs_csv_table_get(t, 0, "amg_strength"), "symmetric"));
    CHECK(!strcmp(gs_csv_table_get(t, 0, "amg_theta"), "0.08"));
    CHECK(!strcmp(gs_csv_table_get(t, 0, "amg_cycle"), "W"));
    CHECK(!strcmp(gs_csv_table_get(t, 0, "amg_smoother"), "l1jacobi"));
    CHECK(!strcmp(gs_csv_table_get(t, 0, "amg_method"), "auto") &&
          !strcmp(gs_csv_table_get(t, 0, "amg_restriction"), "auto"));
    CHECK(!strcmp(gs_csv_table_get(t, 0, "amg_chebyshev_ratio"), "10"));
    CHECK(gs_csv_table_get(t, 0, "amg_coarse_size")[0] != '\0');
    CHECK(!strcmp(gs_csv_table_get(t, 0, "version"), gs_version()));
    CHECK(!strcmp(gs_csv_table_get(t, 0, "commit"), gs_version_commit()));
    CHECK_MSG(is_iso_utc(gs_csv_table_get(t, 0, "timestamp")), "%s",
              gs_csv_table_get(t, 0, "timestamp"));
    CHECK(!strcmp(gs_csv_table_get(t, 0, "device"), "cpu, with a comma"));
    /* row 2: a Jacobi run: the AMG keys do not apply and are left empty */
    CHECK(!strcmp(gs_csv_table_get(t, 1, "rtol"), "1e-07"));
    CHECK(gs_csv_table_get(t, 1, "amg_theta")[0] == '\0');
    CHECK(gs_csv_table_get(t, 1, "amg_strength")[0] == '\0');
    gs_csv_table_destroy(&t);
}

static double attr_double(hid_t f, const char *name)
{
    double v = NAN;
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    CHECK_MSG(a >= 0 && H5Aread(a, H5T_NATIVE_DOUBLE, &v) >= 0, "attribute %s", name);
    if (a >= 0) H5Aclose(a);
    return v;
}

static void attr_str(hid_t f, const char *name, char *out, size_t len)
{
    char *v = NULL;
    hid_t a = H5Aopen(f, name, H5P_DEFAULT), mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, H5T_VARIABLE);
    H5Tset_cset(mem, H5T_CSET_UTF8);
    out[0] = '\0';
    CHECK_MSG(a >= 0 && H5Aread(a, mem, &v) >= 0 && v, "attribute %s", name);
    if (v) gs_str_copy(out, len, v);
    if (v) H5free_memory(v);
    H5Tclose(mem);
    if (a >= 0) H5Aclose(a);
}

static void check_hdf5(const char *path, int amg)
{
    char s[128];
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0);
    if (f < 0) return;
    CHECK(attr_double(f, "rtol") == 1e-7);
    CHECK(attr_double(f, "max_iters") == 321);
    CHECK(attr_double(f, "threads") >= 1);
    CHECK((H5Aexists(f, "amg_theta") > 0) == amg);
    if (amg) CHECK(attr_double(f, "amg_theta") == 0.08);
    if (amg) attr_str(f, "amg_strength", s, sizeof s);
    if (amg) CHECK(!strcmp(s, "symmetric"));
    attr_str(f, "version", s, sizeof s);
    CHECK(!strcmp(s, gs_version()));
    attr_str(f, "commit", s, sizeof s);
    CHECK(!strcmp(s, gs_version_commit()));
    attr_str(f, "timestamp", s, sizeof s);
    CHECK_MSG(is_iso_utc(s), "%s", s);
    attr_str(f, "settings", s, sizeof s); /* the settings hash and the provenance */
    CHECK_MSG(strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16, "%s", s);
    attr_str(f, "host", s, sizeof s);
    CHECK(s[0] != '\0');
    attr_str(f, "hdf5", s, sizeof s);
    CHECK_MSG(strchr(s, '.') != NULL, "%s", s);
    attr_str(f, "gpu", s, sizeof s);
    CHECK(!strcmp(s, "none"));
    attr_str(f, "rhs", s, sizeof s);
    CHECK(!strcmp(s, "auto"));
    H5Fclose(f);
}

/* A file begun by an older gsolve (its 29 columns): they keep their places, the columns it
 * lacks are added after them (its row gets them empty), the new row fills them all. */
static void check_old_header(void)
{
    char path[300];
    gs_result r;
    gs_csv_table *t = NULL;
    snprintf(path, sizeof path, "%s/old.csv", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("case,matrix,rows,nnz,solver,preconditioner,format,levels,iterations,reason,converged,"
          "rel_residual,setup_s,solve_s,total_s,backend,device,cols,read_s,error,formats,"
          "operator_complexity,grid_complexity,strength_s,aggregation_s,prolongator_s,rap_s,"
          "convert_s,coarse_s\n"
          "old,A.mtx,3,7,cg,jacobi,csr,1,12,rtol,1,1e-9,0.1,0.2,0.3,host,cpu,3,0.01,,csr,0,0,0,0,"
          "0,0,0,0\n",
          f);
    fclose(f);
    fill(&r, "new");
    CHECK_OK(gs_results_csv_append(path, &r));
    CHECK_OK(gs_results_csv_read(path, &t));
    if (!t) return;
    CHECK(t->ncols == 72 && t->nrows == 2 && t->bad_rows == 0 && t->torn_bytes == 0);
    CHECK(gs_csv_table_col(t, "coarse_s") == 28 && gs_csv_table_col(t, "rtol") == 29);
    CHECK(!strcmp(gs_csv_table_get(t, 0, "case"), "old") &&
          !strcmp(gs_csv_table_get(t, 0, "iterations"), "12") &&
          !gs_csv_table_get(t, 0, "host")[0]);
    CHECK(gs_csv_table_get(t, 1, "host")[0] && strlen(gs_csv_table_get(t, 1, "settings")) == 0);
    CHECK(!strcmp(gs_csv_table_get(t, 1, "case"), "new"));
    CHECK(!strcmp(gs_csv_table_get(t, 1, "iterations"), "12"));
    CHECK(!strcmp(gs_csv_table_get(t, 1, "device"), "cpu, with a comma"));
    gs_csv_table_destroy(&t);
}

int main(void)
{
    char csv[300], h5[300], h5b[300];
    gs_config *c = calloc(1, sizeof *c);
    gs_result r;
    if (!c || !mkdtemp(dir)) return 1;
    snprintf(csv, sizeof csv, "%s/runs.csv", dir);
    snprintf(h5, sizeof h5, "%s/amg.h5", dir);
    snprintf(h5b, sizeof h5b, "%s/jacobi.h5", dir);
    gs_config_defaults(c);
    const char *sets[] = {"solver.rtol=1e-7",
                          "solver.atol=1e-12",
                          "solver.max_iters=321",
                          "solver.restart=17",
                          "solver.preconditioner=amg",
                          "amg.strength=symmetric",
                          "amg.theta=0.08",
                          "amg.cycle=W",
                          "amg.smoother=l1jacobi"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) CHECK_OK(gs_config_set(c, sets[i]));
    fill(&r, "amg-run");
    gs_results_set_context(&r, c);
    CHECK(r.context.filled && r.context.amg && r.context.threads >= 1);
    CHECK(is_iso_utc(r.context.timestamp));
    CHECK_OK(gs_results_csv_append(csv, &r));
    CHECK_OK(gs_results_hdf5_write(h5, &r));
    check_hdf5(h5, 1);
    CHECK_OK(gs_config_set(c, "solver.preconditioner=jacobi"));
    fill(&r, "jacobi-run");
    gs_results_set_context(&r, c);
    CHECK(!r.context.amg);
    CHECK_OK(gs_results_csv_append(csv, &r));
    CHECK_OK(gs_results_hdf5_write(h5b, &r));
    check_hdf5(h5b, 0);
    check_csv_amg(csv);
    /* without a context (a caller that does not fill it): threads and the time still go in */
    {
        gs_csv_table *t = NULL;
        char p2[300];
        snprintf(p2, sizeof p2, "%s/bare.csv", dir);
        fill(&r, "bare");
        CHECK_OK(gs_results_csv_append(p2, &r));
        CHECK_OK(gs_results_csv_read(p2, &t));
        if (t) {
            CHECK(gs_csv_table_get(t, 0, "rtol")[0] == '\0');
            CHECK(atoi(gs_csv_table_get(t, 0, "threads")) >= 1);
            CHECK(is_iso_utc(gs_csv_table_get(t, 0, "timestamp")));
            CHECK(!strcmp(gs_csv_table_get(t, 0, "version"), gs_version()));
        }
        gs_csv_table_destroy(&t);
        unlink(p2);
    }
    check_old_header();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "note: could not remove %s\n", dir);
    free(c);
    return gs_test_result("test_results_context");
}

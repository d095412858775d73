/* Result files: the CSV row (header once, the contract's columns), the HDF5 record (x,
 * residual_history, attributes for the CSV fields) and the residual-history CSV. */
#include <hdf5.h>
#include <unistd.h>

#include "gs_test_solve.h"

static char dir[] = "/tmp/gs_outputs_XXXXXX";

static int count_lines(const char *path, char *first, size_t len)
{
    FILE *f = fopen(path, "r");
    int n = 0;
    char line[4096];
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) {
        if (n == 0 && first) gs_str_copy(first, len, line);
        n++;
    }
    fclose(f);
    return n;
}

/* The record's config attribute is a config file: read back, it is the run's configuration
 * (the same text again, but for the comment naming the file read). */
static void check_config(hid_t f, const gs_config *c)
{
    char *text = NULL, *mine = NULL, *back = NULL, path[300];
    gs_config *k = calloc(1, sizeof *k);
    hid_t a = H5Aopen(f, "config", H5P_DEFAULT);
    hid_t mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, H5T_VARIABLE);
    H5Tset_cset(mem, H5T_CSET_UTF8);
    CHECK(a >= 0 && H5Aread(a, mem, &text) >= 0 && text);
    H5Tclose(mem);
    H5Aclose(a);
    if (!text || !k) return;
    CHECK_MSG(strstr(text, "solver = {\n") != NULL, "config attribute:\n%s", text);
    snprintf(path, sizeof path, "%s/replay.cfg", dir);
    FILE *o = fopen(path, "w");
    CHECK(o && fputs(text, o) >= 0 && fclose(o) == 0);
    gs_config_defaults(k);
    CHECK_OK(gs_config_load(k, path));
    CHECK_OK(gs_config_to_text(c, &mine));
    CHECK_OK(gs_config_to_text(k, &back));
    const char *m = mine ? strstr(mine, "\nproblem = {") : NULL,
               *b = back ? strstr(back, "\nproblem = {") : NULL;
    CHECK_MSG(m && b && strcmp(m, b) == 0, "the record's config reads back as another:\n%s", back);
    gs_free(mine);
    gs_free(back);
    H5free_memory(text);
    free(k);
}

static void check_hdf5(const char *path, const gs_run *r, const gs_config *c)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0);
    if (f < 0) return;
    hid_t d = H5Dopen2(f, "x", H5P_DEFAULT);
    CHECK(d >= 0);
    hid_t s = H5Dget_space(d);
    CHECK(H5Sget_simple_extent_npoints(s) == r->res.cols);
    double *x = malloc((size_t)r->res.cols * sizeof *x);
    CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) >= 0);
    CHECK(memcmp(x, r->x, (size_t)r->res.cols * sizeof *x) == 0);
    free(x);
    H5Sclose(s);
    H5Dclose(d);
    d = H5Dopen2(f, "residual_history", H5P_DEFAULT);
    s = H5Dget_space(d);
    CHECK(H5Sget_simple_extent_npoints(s) == r->hist_len);
    H5Sclose(s);
    H5Dclose(d);
    const char *attrs[] = {"case",           "matrix",       "rows",    "nnz",        "solver",
                           "preconditioner", "format",       "levels",  "iterations", "reason",
                           "converged",      "rel_residual", "setup_s", "solve_s",    "total_s",
                           "backend",        "device",       "config"};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        CHECK_MSG(H5Aexists(f, attrs[i]) > 0, "attribute %s missing", attrs[i]);
    int64_t its = -1;
    hid_t a = H5Aopen(f, "iterations", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_INT64, &its);
    H5Aclose(a);
    CHECK(its == r->res.iterations);
    check_config(f, c);
    H5Fclose(f);
}

int main(void)
{
    gs_config c;
    gs_problem *p = NULL;
    gs_run r;
    char csv[256], h5[256], hist[256], sol[256], set[4][300], first[4096];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(csv, sizeof csv, "%s/runs.csv", dir);
    snprintf(h5, sizeof h5, "%s/run.h5", dir);
    snprintf(hist, sizeof hist, "%s/hist.csv", dir);
    snprintf(sol, sizeof sol, "%s/x.mtx", dir);
    snprintf(set[0], 300, "output.csv=%s", csv);
    snprintf(set[1], 300, "output.hdf5=%s", h5);
    snprintf(set[2], 300, "output.history=%s", hist);
    snprintf(set[3], 300, "output.solution=%s", sol);
    CHECK_OK(test_config(&c, "problem.generate.type=poisson", "problem.generate.size=10",
                         "problem.generate.stencil=5", "problem.name=poisson-small",
                         "run.backend=host", set[0], set[1], set[2], set[3], NULL));
    CHECK_OK(gs_problem_load(&c, &p));
    CHECK_OK(gs_app_solve(&c, p, &r, stdout));
    CHECK_OK(gs_app_write_outputs(&c, &r));
    CHECK_OK(gs_app_write_outputs(&c, &r)); /* a second row, no second header */
    CHECK(count_lines(csv, first, sizeof first) == 3);
    const char *contract = "case,matrix,rows,nnz,solver,preconditioner,format,levels,iterations,"
                           "reason,converged,rel_residual,setup_s,solve_s,total_s,backend,device";
    CHECK_MSG(strncmp(first, contract, strlen(contract)) == 0, "header '%s'", first);
    FILE *f = fopen(csv, "r");
    char line[4096];
    CHECK(fgets(line, sizeof line, f) && fgets(line, sizeof line, f));
    fclose(f);
    char expect[256];
    snprintf(expect, sizeof expect,
             "poisson-small,poisson 2D 5-point 10^2,100,460,cg,jacobi,%s,1,%d,rtol,1,",
             r.res.format, r.res.iterations);
    CHECK_MSG(strncmp(line, expect, strlen(expect)) == 0, "row '%s' expected to start '%s'", line,
              expect);
    CHECK(count_lines(hist, NULL, 0) == r.hist_len + 1);
    CHECK(r.hist_len == r.res.iterations + 1);
    check_hdf5(h5, &r, &c);
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.tmp", h5);
    CHECK(access(tmp, F_OK) != 0); /* the temporary was renamed away */
    CHECK(count_lines(sol, NULL, 0) >= 100);
    gs_run_release(&r);
    gs_problem_destroy(&p);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return gs_test_result("test_outputs");
}

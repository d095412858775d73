/* Batch warmup runs: made before the counted repeats of each (case, format), recorded with
 * warmup = 1 and repeat = -K, left out of the report's statistics, made again only when a
 * counted repeat runs; no run marker is left once the rows are in. */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gs_batch.h"
#include "gs_config.h"
#include "gs_mem.h"
#include "gs_report.h"
#include "gs_results.h"
#include "gs_test.h"

static char dir[] = "/tmp/gs_batch_warmup_XXXXXX";

static int64_t rows_of(const char *csv, int warmup)
{
    gs_csv_table *t = NULL;
    int64_t n = 0;
    CHECK_OK(gs_results_csv_read(csv, &t));
    for (int64_t i = 0; t && i < t->nrows; i++) {
        int w = atoi(gs_csv_table_get(t, i, "warmup"));
        int rep = atoi(gs_csv_table_get(t, i, "repeat"));
        CHECK_MSG(w == (rep < 0), "row %lld: warmup %d, repeat %d", (long long)i, w, rep);
        n += w == warmup;
    }
    gs_csv_table_destroy(&t);
    return n;
}

static int markers_left(const char *sub)
{
    int n = 0;
    DIR *d = opendir(sub);
    for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".running") != NULL;
    if (d) closedir(d);
    return n;
}

/* The report printed to a string. */
static char *report_text(const char *res)
{
    gs_report *r = NULL;
    char *buf = NULL;
    size_t len = 0;
    CHECK_OK(gs_report_load(res, -1, &r));
    FILE *m = open_memstream(&buf, &len);
    if (r && m) gs_report_print(r, m);
    if (m) fclose(m);
    gs_report_destroy(&r);
    return buf;
}

int main(void)
{
    char cfg[300], res[300], csv[400], sub[400];
    gs_config *c = calloc(1, sizeof *c);
    gs_batch_opts o = {-1, 0, NULL, 0};
    int code = -1;
    if (!c || !mkdtemp(dir)) return 1;
    snprintf(cfg, sizeof cfg, "%s/warm.cfg", dir);
    snprintf(res, sizeof res, "%s/res", dir);
    snprintf(csv, sizeof csv, "%s/case-000.csv", res);
    snprintf(sub, sizeof sub, "%s/case-000", res);
    FILE *f = fopen(cfg, "w");
    if (!f) return 1;
    fprintf(f,
            "run = { threads = 1; };\noutput = { verbosity = 0; };\n"
            "batch = { formats = [\"csr\", \"cds\"]; repeats = 2; results = \"%s\";\n"
            "  cases = ( { name = \"p8\"; generate = { type = \"poisson\"; size = 8; }; } ); };\n",
            res);
    fclose(f);
    gs_config_defaults(c);
    CHECK_OK(gs_config_load(c, cfg));

    CHECK_OK(gs_batch_run_warmup(c, &o, 2, &code));
    CHECK(code == 0);
    CHECK_MSG(rows_of(csv, 1) == 4, "warmup rows: %lld", (long long)rows_of(csv, 1));
    CHECK(rows_of(csv, 0) == 4);
    CHECK(markers_left(sub) == 0);
    char *text = report_text(res);
    CHECK_MSG(text && strstr(text, "4 warmup runs not counted"), "%s", text ? text : "");
    CHECK_MSG(text && strstr(text, "  csr                 2/2 "), "%s", text ? text : "");
    free(text);

    /* a rerun: every counted repeat is recorded, so no warmup is made either */
    CHECK_OK(gs_batch_run_warmup(c, &o, 2, &code));
    CHECK(rows_of(csv, 1) == 4 && rows_of(csv, 0) == 4);

    /* --force: all again; the report takes the latest rows, still 2 counted runs a format */
    o.force = 1;
    CHECK_OK(gs_batch_run_warmup(c, &o, 1, &code));
    CHECK(rows_of(csv, 1) == 6 && rows_of(csv, 0) == 8);
    text = report_text(res);
    CHECK_MSG(text && strstr(text, "  cds                 2/2 "), "%s", text ? text : "");
    free(text);

    /* without warmup (gs_batch_run): no warmup row */
    snprintf(res, sizeof res, "%s/res2", dir);
    gs_str_copy(c->batch.results, sizeof c->batch.results, res);
    o.force = 0;
    CHECK_OK(gs_batch_run(c, &o, &code));
    snprintf(csv, sizeof csv, "%s/case-000.csv", res);
    CHECK(rows_of(csv, 1) == 0 && rows_of(csv, 0) == 4);

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "note: could not remove %s\n", dir);
    free(c);
    return gs_test_result("test_batch_warmup");
}

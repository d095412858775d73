/* gs_config.c: the configuration file (libconfig) and batch cases read into a gs_config through
 * the library's key table (gs_keys.h), the checks across the problem's keys, and input paths. */
#include "gs_config.h"

#include <errno.h>
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gs_gen.h"
#include "gs_mem.h"

/* Apply one scalar libconfig setting found at `path` in the file. */
static gs_status apply_setting(gs_config *c, const config_setting_t *s, const char *path,
                               const char *where)
{
    const key_def *k = gs_config_find_key(path);
    if (!k) return gs_config_unknown_key(where, path);
    int t = config_setting_type(s);
    if (k->type == K_LIST && t == CONFIG_TYPE_STRING)
        return gs_config_store_text(c, k, config_setting_get_string(s), where);
    if (k->type == K_CASES || k->type == K_LIST)
        return GS_ERROR(GS_ERR_CONFIG, "%s: %s expects %s", where, path, gs_config_type_name(k->type));
    if (k->type == K_STR) {
        if (t != CONFIG_TYPE_STRING)
            return GS_ERROR(GS_ERR_CONFIG, "%s: %s expects a string (in double quotes)", where,
                            path);
        return gs_config_store_str(c, k, config_setting_get_string(s), where);
    }
    if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64)
        return gs_config_store_num(c, k, (double)config_setting_get_int64(s), where);
    if (t == CONFIG_TYPE_FLOAT && k->type == K_FLOAT)
        return gs_config_store_num(c, k, config_setting_get_float(s), where);
    return GS_ERROR(GS_ERR_CONFIG, "%s: %s expects %s", where, path, gs_config_type_name(k->type));
}

static gs_status check_cases(gs_config *c, const key_def *k, const config_setting_t *s,
                             const char *where);

/* A libconfig list or array of strings into a list-valued key. */
static gs_status read_list(gs_config *c, const key_def *k, const config_setting_t *s,
                           const char *where)
{
    char joined[GS_CFG_STR];
    size_t n = 0;
    joined[0] = '\0';
    for (int i = 0; i < config_setting_length(s); i++) {
        const char *v = config_setting_get_string_elem(s, i);
        if (!v || strchr(v, ','))
            return GS_ERROR(GS_ERR_CONFIG, "%s: %s: item %d must be a string without commas",
                            where, k->key, i + 1);
        if (n + strlen(v) + 2 >= sizeof joined)
            return GS_ERROR(GS_ERR_CONFIG, "%s: %s is too long", where, k->key);
        n += (size_t)snprintf(joined + n, sizeof joined - n, "%s%s", n ? "," : "", v);
    }
    return gs_config_store_list(c, k, joined, where);
}

/* Walk a group, applying every leaf; groups nest as "a.b.c". */
static gs_status walk_group(gs_config *c, const config_setting_t *g, const char *prefix)
{
    int n = config_setting_length(g);
    for (int i = 0; i < n; i++) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        char path[256], where[GS_CFG_STR + 32];
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", config_setting_name(s));
        snprintf(where, sizeof where, "%s:%d", c->source, config_setting_source_line(s));
        gs_status st;
        if (config_setting_type(s) == CONFIG_TYPE_GROUP) {
            if (gs_config_find_key(path))
                return GS_ERROR(GS_ERR_CONFIG, "%s: %s expects %s, not a group", where, path,
                                gs_config_type_name(gs_config_find_key(path)->type));
            st = walk_group(c, s, path);
        } else if (config_setting_type(s) == CONFIG_TYPE_ARRAY ||
                   config_setting_type(s) == CONFIG_TYPE_LIST) {
            const key_def *k = gs_config_find_key(path);
            if (!k) return gs_config_unknown_key(where, path);
            if (k->type == K_LIST)
                st = read_list(c, k, s, where);
            else if (k->type == K_CASES)
                st = check_cases(c, k, s, where);
            else
                st = GS_ERROR(GS_ERR_CONFIG, "%s: %s expects %s, not a list", where, path,
                              gs_config_type_name(k->type));
        } else {
            st = apply_setting(c, s, path, where);
        }
        if (st != GS_OK) return st;
    }
    return GS_OK;
}

gs_status gs_config_load(gs_config *c, const char *path)
{
    gs_status st = GS_OK;
    config_t cf;
    struct stat sb;
    config_init(&cf);
    FILE *f = fopen(path, "r");
    if (!f) {
        st = GS_ERROR(GS_ERR_IO, "cannot open config '%s': %s", path, strerror(errno));
        goto done;
    }
    /* a folder opens for reading on Linux; libconfig would then say "input in flex scanner
     * failed" */
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode))
        GS_FAIL(GS_ERR_IO, "%s: is a directory, not a config file", path);
    if (strlen(path) >= GS_CFG_STR) GS_FAIL(GS_ERR_CONFIG, "config path too long");
    strcpy(c->source, path);
    strcpy(c->base_dir, path);
    char *slash = strrchr(c->base_dir, '/');
    if (slash)
        slash[1] = '\0';
    else
        c->base_dir[0] = '\0';
    errno = 0;
    if (!config_read(&cf, f)) {
        if (ferror(f)) /* the file itself could not be read, not a syntax error */
            GS_FAIL(GS_ERR_IO, "cannot read config '%s': %s", path,
                    errno ? strerror(errno) : "read error");
        GS_FAIL(GS_ERR_CONFIG, "%s:%d: %s", path, config_error_line(&cf), config_error_text(&cf));
    }
    GS_CHECK(walk_group(c, config_root_setting(&cf), ""));
done:
    if (f) fclose(f);
    config_destroy(&cf);
    return st;
}

/* A case may hold a group named like a top-level one (solver, spmv, ...), but not batch. */
static int is_case_group(const char *name)
{
    size_t n = strlen(name);
    if (strcmp(name, "batch") == 0) return 0;
    size_t nk = 0;
    const key_def *keys = gs_config_keys(&nk);
    for (size_t i = 0; i < nk; i++)
        if (strncmp(keys[i].key, name, n) == 0 && keys[i].key[n] == '.') return 1;
    return 0;
}

/* One member of a case group: name, matrix, generate, set, or a top-level group. */
static gs_status apply_case_member(gs_config *c, const config_setting_t *s, const char *where)
{
    const char *name = config_setting_name(s);
    int t = config_setting_type(s);
    if (strcmp(name, "name") == 0) return apply_setting(c, s, "problem.name", where);
    if (strcmp(name, "matrix") == 0) return apply_setting(c, s, "problem.matrix", where);
    if (strcmp(name, "generate") == 0 && t == CONFIG_TYPE_GROUP)
        return walk_group(c, s, "problem.generate");
    if (strcmp(name, "set") == 0 && (t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST)) {
        for (int i = 0; i < config_setting_length(s); i++) {
            const char *a = config_setting_get_string_elem(s, i);
            if (!a) return GS_ERROR(GS_ERR_CONFIG, "%s: set: item %d is not a string", where, i + 1);
            gs_status st = gs_config_assign(c, a, where);
            if (st != GS_OK) return st;
        }
        return GS_OK;
    }
    if (t == CONFIG_TYPE_GROUP && is_case_group(name)) return walk_group(c, s, name);
    return GS_ERROR(GS_ERR_CONFIG,
                    "%s: '%s' in a batch case: expected name = \"...\", matrix = \"...\", "
                    "generate = { ... }, set = [\"key=value\", ...] or a group such as solver = "
                    "{ ... }",
                    where, name);
}

/* Apply one case group over c: its members in order; then a case naming only a matrix drops an
 * inherited generator, and one naming only a generator drops an inherited matrix. */
static gs_status apply_case(gs_config *c, const config_setting_t *e)
{
    gs_cfg_str m0, g0;
    gs_str_copy(m0, sizeof m0, c->problem.matrix);
    gs_str_copy(g0, sizeof g0, c->problem.generate.type);
    for (int i = 0; i < config_setting_length(e); i++) {
        const config_setting_t *s = config_setting_get_elem(e, (unsigned)i);
        char where[GS_CFG_STR + 32];
        snprintf(where, sizeof where, "%s:%d", c->source, config_setting_source_line(s));
        gs_status st = apply_case_member(c, s, where);
        if (st != GS_OK) return st;
    }
    int new_m = strcmp(m0, c->problem.matrix) != 0;
    int new_g = strcmp(g0, c->problem.generate.type) != 0;
    if (new_m && !new_g) c->problem.generate.type[0] = '\0';
    if (new_g && !new_m) c->problem.matrix[0] = '\0';
    return GS_OK;
}

/* batch.cases: every entry a group whose keys apply cleanly; the count is stored. */
static gs_status check_cases(gs_config *c, const key_def *k, const config_setting_t *s,
                             const char *where)
{
    gs_status st = GS_OK;
    gs_config *scratch = NULL;
    int n = config_setting_length(s);
    if (n == 0) return GS_ERROR(GS_ERR_CONFIG, "%s: %s is empty", where, k->key);
    GS_CHECK(gs_alloc_array(1, sizeof *scratch, "configuration", (void **)&scratch));
    for (int i = 0; i < n; i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        if (config_setting_type(e) != CONFIG_TYPE_GROUP)
            GS_FAIL(GS_ERR_CONFIG, "%s:%d: %s: case %d is not a group { ... }", c->source,
                    config_setting_source_line(e), k->key, i);
        *scratch = *c;
        GS_CHECK(apply_case(scratch, e));
    }
    GS_CHECK(gs_config_store_num(c, k, n, where));
done:
    gs_free(scratch);
    return st;
}

gs_status gs_config_apply_case(gs_config *c, int64_t index)
{
    gs_status st = GS_OK;
    config_t cf;
    config_init(&cf);
    if (!config_read_file(&cf, c->source))
        GS_FAIL(GS_ERR_CONFIG, "%s:%d: %s", c->source, config_error_line(&cf),
                config_error_text(&cf));
    const config_setting_t *list = config_lookup(&cf, "batch.cases");
    if (!list || index < 0 || index >= config_setting_length(list))
        GS_FAIL(GS_ERR_CONFIG, "%s: batch.cases has no case %lld", c->source, (long long)index);
    GS_CHECK(apply_case(c, config_setting_get_elem(list, (unsigned)index)));
done:
    config_destroy(&cf);
    return st;
}

/* The generator keys across each other: the stencil where the type uses it, nu's open range. */
static gs_status check_generate(const gs_config *c, const char *where)
{
    const char *t = c->problem.generate.type;
    int64_t s = c->problem.generate.stencil;
    int uses_stencil = gs_gen_find(t) && gs_gen_find(t)->stencil;
    int ok = s == 5 || s == 9 || s == 7 || s == 27;
    if (uses_stencil && !ok && strcmp(t, "elasticity") == 0)
        return GS_ERROR(GS_ERR_CONFIG,
                        "%s: problem.generate.stencil = %lld: elasticity takes 5 or 9 (2D, Q1 "
                        "quadrilaterals) or 7 or 27 (3D, Q1 hexahedra)",
                        where, (long long)s);
    if (uses_stencil && !ok)
        return GS_ERROR(GS_ERR_CONFIG,
                        "%s: problem.generate.stencil = %lld: expected 5 or 9 (2D), 7 or 27 (3D)",
                        where, (long long)s);
    /* the grid extents: not for powerlaw (a graph), nz not for a 2D grid */
    const int64_t ext[3] = {c->problem.generate.nx, c->problem.generate.ny, c->problem.generate.nz};
    static const char *const ext_keys[3] = {"nx", "ny", "nz"};
    for (int k = 0; k < 3 && strcmp(t, "powerlaw") == 0; k++)
        if (ext[k] != 0)
            return GS_ERROR(GS_ERR_CONFIG,
                            "%s: problem.generate.%s = %lld: powerlaw is a graph of "
                            "problem.generate.size nodes, not a grid: leave it 0",
                            where, ext_keys[k], (long long)ext[k]);
    int two_d = strcmp(t, "rotated") == 0 || (uses_stencil && (s == 5 || s == 9));
    if (ext[2] != 0 && two_d)
        return GS_ERROR(GS_ERR_CONFIG,
                        "%s: problem.generate.nz = %lld: %s%s is 2D (nx, ny only): leave it 0",
                        where, (long long)ext[2], t,
                        strcmp(t, "rotated") == 0 ? ""
                        : s == 5                  ? " with stencil 5"
                                                  : " with stencil 9");
    double nu = c->problem.generate.nu;
    if (strcmp(t, "elasticity") == 0 && !(nu > -1.0 && nu < 0.5))
        return GS_ERROR(GS_ERR_CONFIG,
                        "%s: problem.generate.nu = %g: elasticity needs -1 < nu < 0.5 (at 0.5 "
                        "the material is incompressible and lambda is infinite)",
                        where, nu);
    return GS_OK;
}

gs_status gs_config_check(const gs_config *c)
{
    const char *where = c->source[0] ? c->source : "configuration";
    int has_file = c->problem.matrix[0] != '\0' || c->problem.sequence[0] != '\0';
    int has_gen = c->problem.generate.type[0] != '\0';
    if (has_file && has_gen)
        return GS_ERROR(GS_ERR_CONFIG,
                        "%s: both %s and problem.generate.type are set: choose one", where,
                        c->problem.matrix[0] ? "problem.matrix" : "problem.sequence");
    if (!has_file && !has_gen)
        return GS_ERROR(GS_ERR_CONFIG,
                        "%s: no problem: set problem.matrix (a file) or problem.generate.type",
                        where);
    return has_gen ? check_generate(c, where) : GS_OK;
}

void gs_config_input_path(const gs_config *c, const char *path, char *out, size_t len)
{
    if (path[0] == '/' || c->base_dir[0] == '\0')
        snprintf(out, len, "%s", path);
    else
        snprintf(out, len, "%s%s", c->base_dir, path);
}


/* the generators' registry for the key table's problem.generate.type */
static int gen_entry(int i, const char **name, const char **help)
{
    const gs_gen_desc *g = gs_gen_at(i);
    if (!g) return 0;
    *name = g->name, *help = g->help;
    return 1;
}

void gs_config_register_app(void)
{
    gs_config_set_generators(gs_gen_choices, gen_entry);
}

/* registered as the program starts, before any configuration is read */
__attribute__((constructor)) static void register_at_start(void)
{
    gs_config_register_app();
}

/* gs_config_text.c: the configuration as a libconfig file (gs_config_to_text: --print-config, the
 * result records), every key of the table in gs_config.c with its value. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gs_config.h"
#include "gs_mem.h"

/* ---- the configuration as a libconfig file ------------------------------------------------ */

/* A growing text; a failed allocation is remembered and reported once at the end. In a batch's
 * text, cases holds its ncases effective case configurations, written as batch.cases; in a
 * case's group, base is the configuration it is written against (only the keys that differ). */
typedef struct text {
    char *s;
    size_t len, cap;
    int nomem;
    const gs_config *cases, *base;
    int64_t ncases;
    int canonical; /* paths of existing files resolved (realpath): the settings text */
} text;

static void put(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    for (int pass = 0; pass < 2 && !t->nomem; pass++) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = 2 * (t->cap + (size_t)n) + 256;
        char *s = gs_realloc(t->s, cap);
        if (!s) {
            t->nomem = 1;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
}

/* s as a libconfig string literal: quotes, backslashes and control bytes escaped. */
static void put_string(text *t, const char *s)
{
    put(t, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            put(t, "\\%c", *p);
        else if (*p == '\n')
            put(t, "\\n");
        else if (*p == '\t')
            put(t, "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            put(t, "\\x%02x", *p);
        else
            put(t, "%c", *p);
    }
    put(t, "\"");
}

/* The shortest %g form that reads back as v, with a decimal point so libconfig reads a float. */
static void put_float(text *t, double v)
{
    char b[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, v);
        if (strtod(b, NULL) == v) break;
    }
    put(t, "%s%s", b, strpbrk(b, ".eEn") ? "" : ".0");
}

/* Path-valued keys: made absolute in the text, except the keywords they also take. */
typedef struct path_key {
    const char *key;
    int input;            /* relative to the config's folder (else the working directory) */
    const char *keywords; /* "|a|b|" values that are not paths */
} path_key;

static const path_key PATH_KEYS[] = {
    {"problem.matrix", 1, ""},
    {"problem.rhs", 1, "|auto|ones|random|Ax|"},
    {"problem.x0", 1, "|auto|zero|random|"},
    {"problem.nullspace", 1, "|none|constant|"},
    {"output.csv", 0, ""},
    {"output.hdf5", 0, ""},
    {"output.history", 0, ""},
    {"output.solution", 0, ""},
    {"batch.results", 0, ""},
};

/* v as an absolute path: itself when absolute, else dir + v, dir itself relative to the working
 * directory when it does not start with '/' ("" = the working directory). */
static void join_absolute(const char *dir, const char *v, char *out, size_t len)
{
    char cwd[GS_CFG_STR];
    snprintf(out, len, "%s", v);
    if (!v[0] || v[0] == '/') return;
    while (v[0] == '.' && v[1] == '/') v += 2;
    while (dir[0] == '.' && dir[1] == '/') dir += 2;
    if (dir[0] == '/')
        snprintf(out, len, "%s%s", dir, v);
    else if (getcwd(cwd, sizeof cwd))
        snprintf(out, len, "%s/%s%s", cwd, dir, v);
}

/* v of key k, made absolute when k names a file and v is not one of its keywords. */
static void absolute(const gs_config *c, const key_def *k, const char *v, char *out, size_t len)
{
    char word[GS_CFG_STR + 2];
    snprintf(out, len, "%s", v);
    snprintf(word, sizeof word, "|%s|", v);
    for (size_t i = 0; i < sizeof PATH_KEYS / sizeof PATH_KEYS[0]; i++)
        if (strcmp(PATH_KEYS[i].key, k->key) == 0 && !strstr(PATH_KEYS[i].keywords, word))
            join_absolute(PATH_KEYS[i].input ? c->base_dir : "", v, out, len);
}

/* Choice i of "a|b|c" into out ("" past the end). */
static void choice_item(const char *choices, int i, char *out, size_t len)
{
    const char *p = choices;
    while (p && i-- > 0) p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL;
    const char *bar = p ? strchr(p, '|') : NULL;
    snprintf(out, len, "%.*s", !p ? 0 : bar ? (int)(bar - p) : (int)strlen(p), p ? p : "");
}

static void put_cases(text *t, const gs_config *base, const char *name, int depth);

/* Key k's value as libconfig text ("name = value;"). */
static void put_value(text *t, const gs_config *c, const key_def *k, const char *name, int depth)
{
    const char *p = (const char *)c + k->off;
    char item[GS_CFG_STR];
    if (k->type == K_CASES) {
        char src[2 * GS_CFG_STR];
        join_absolute("", c->source, src, sizeof src);
        if (t->cases && !t->base) {
            put_cases(t, c, name, depth);
            return;
        }
        if (*(const int64_t *)p > 0)
            put(t, "%*s# %s: the %lld cases of %s are left out: this is one run's configuration\n",
                2 * depth, "", name, (long long)*(const int64_t *)p, src);
        return;
    }
    put(t, "%*s%s = ", 2 * depth, "", name);
    if (gs_config_format_key(k)) {
        double v = gs_format_key_get(gs_config_format_key(k), &c->spmv.params);
        if (k->type == K_STR) {
            choice_item(k->choices, (int)v, item, sizeof item);
            put_string(t, item);
        } else if (k->type == K_INT) {
            put(t, "%lld", (long long)v);
        } else {
            put_float(t, v);
        }
    } else if (k->type == K_LIST) {
        put(t, "[");
        for (int j = 0; gs_config_list_item(p, j, item, sizeof item); j++) {
            put(t, "%s", j ? ", " : "");
            put_string(t, item);
        }
        put(t, "]");
    } else if (k->type == K_STR) {
        char path[2 * GS_CFG_STR], real[PATH_MAX];
        absolute(c, k, p, path, sizeof path);
        int canon = t->canonical && path[0] == '/' && realpath(path, real);
        put_string(t, canon ? real : path);
        struct stat sb;
        if (canon && stat(real, &sb) == 0 && S_ISREG(sb.st_mode)) { /* the file's identity too */
            char when[32] = "";
            struct tm tmv;
            if (gmtime_r(&sb.st_mtime, &tmv)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tmv);
            put(t, " /* %lld bytes, modified %s */", (long long)sb.st_size, when);
        }
    } else if (k->type == K_INT) {
        int64_t v = *(const int64_t *)p;
        put(t, "%lld%s", (long long)v, v > INT32_MAX || v < INT32_MIN ? "L" : "");
    } else {
        put_float(t, *(const double *)p);
    }
    put(t, ";\n");
}

/* 1 when key k's value in a and in b is written alike (a failed allocation: 0). */
static int same_value(const gs_config *a, const gs_config *b, const key_def *k)
{
    text x = {NULL, 0, 0, 0, NULL, NULL, 0, 0}, y = {NULL, 0, 0, 0, NULL, NULL, 0, 0};
    put_value(&x, a, k, "", 0);
    put_value(&y, b, k, "", 0);
    int same = !x.nomem && !y.nomem && x.s && y.s && strcmp(x.s, y.s) == 0;
    gs_free(x.s);
    gs_free(y.s);
    return same;
}

/* Whether key k of c is written: always, except in a case's group (t->base set), where only
 * the keys that differ from the batch's top level are, its name apart (the case's name member)
 * and batch.* left out (a case cannot set them); an inherited generator a case's matrix drops
 * (or the other way round) is dropped again by the matrix alone (gs_config_apply_case). */
static int shown(const text *t, const gs_config *c, const key_def *k)
{
    const gs_config *b = t->base;
    if (!b) return 1;
    if (k->type == K_CASES || strncmp(k->key, "batch.", 6) == 0 ||
        strcmp(k->key, "problem.name") == 0)
        return 0;
    int new_m = strcmp(c->problem.matrix, b->problem.matrix) != 0;
    int new_g = strcmp(c->problem.generate.type, b->problem.generate.type) != 0;
    if (strcmp(k->key, "problem.generate.type") == 0 && !c->problem.generate.type[0] && new_m)
        return 0;
    if (strcmp(k->key, "problem.matrix") == 0 && !c->problem.matrix[0] && new_g) return 0;
    return !same_value(c, b, k);
}

/* The keys under prefix (e.g. "problem."), leaves first as "leaf = value;", then each subgroup
 * once, in the order the table first names it, as "name = { ... };" (in a case's group, only a
 * subgroup with a key shown). */
static void put_group(text *t, const gs_config *c, const char *prefix, int depth)
{
    size_t n = strlen(prefix), nk;
    const key_def *KEYS = gs_config_keys(&nk);
    for (size_t i = 0; i < nk; i++) {
        const char *rest = KEYS[i].key + n;
        if (strncmp(KEYS[i].key, prefix, n) != 0 || strchr(rest, '.')) continue;
        if (shown(t, c, &KEYS[i])) put_value(t, c, &KEYS[i], rest, depth);
    }
    for (size_t i = 0; i < nk; i++) {
        if (strncmp(KEYS[i].key, prefix, n) != 0) continue; /* shorter keys end before n */
        const char *rest = KEYS[i].key + n, *dot = strchr(rest, '.');
        if (!dot) continue;
        size_t g = (size_t)(dot - KEYS[i].key) + 1; /* prefix of this subgroup, dot included */
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) seen = strncmp(KEYS[j].key, KEYS[i].key, g) == 0;
        if (seen) continue;
        char sub[256];
        snprintf(sub, sizeof sub, "%.*s", (int)g, KEYS[i].key);
        int any = !t->base;
        for (size_t j = i; j < nk && !any; j++)
            any = strncmp(KEYS[j].key, sub, g) == 0 && shown(t, c, &KEYS[j]);
        if (!any) continue;
        put(t, "%*s%.*s = {\n", 2 * depth, "", (int)(dot - rest), rest);
        put_group(t, c, sub, depth + 1);
        put(t, "%*s};\n", 2 * depth, "");
    }
}

/* batch.cases of the batch whose top level is base: one group per case, its name and the keys
 * where it differs from base, so that gs_config_apply_case makes each case again. */
static void put_cases(text *t, const gs_config *base, const char *name, int depth)
{
    put(t, "%*s%s = (\n", 2 * depth, "", name);
    for (int64_t i = 0; i < t->ncases; i++) {
        const gs_config *ci = &t->cases[i];
        put(t, "%*s{ # case %lld\n%*sname = ", 2 * depth + 2, "", (long long)i, 2 * depth + 4, "");
        put_string(t, ci->problem.name);
        put(t, ";\n");
        t->base = base;
        put_group(t, ci, "", depth + 2);
        t->base = NULL;
        put(t, "%*s}%s\n", 2 * depth + 2, "", i + 1 < t->ncases ? "," : "");
    }
    put(t, "%*s);\n", 2 * depth, "");
}

/* The text's storage, or the out-of-memory error (the text freed). */
static gs_status text_done(text *t, char **out)
{
    if (t->nomem) {
        gs_free(t->s);
        return GS_ERROR(GS_ERR_NOMEM,
                        "out of memory: could not allocate %zu bytes for the configuration text",
                        2 * t->cap + 256);
    }
    *out = t->s;
    return GS_OK;
}

gs_status gs_config_to_text(const gs_config *c, char **out)
{
    text t = {NULL, 0, 0, 0, NULL, NULL, 0, 0};
    char src[2 * GS_CFG_STR];
    *out = NULL;
    join_absolute("", c->source, src, sizeof src);
    if (c->batch.cases > 0) /* one case of a batch (--print-config --case N, a run's record) */
        put(&t,
            "# gsolve %s: batch case '%s' of %s as one run's configuration (spmv.format, not "
            "batch.formats; no repeats)\n# every key, defaults included, paths made absolute; "
            "gsolve FILE solves this case once, as the batch's run of it does\n",
            GSOLVE_VERSION, c->problem.name, src);
    else
        put(&t,
            "# gsolve %s: the effective configuration%s%s\n# every key, defaults included, "
            "paths made absolute; gsolve FILE runs it again\n",
            GSOLVE_VERSION, c->source[0] ? " of " : "", c->source[0] ? src : "");
    put_group(&t, c, "", 0);
    return text_done(&t, out);
}

gs_status gs_config_to_text_batch(const gs_config *base, int64_t ncases, const gs_config *cases,
                                  char **out)
{
    text t = {NULL, 0, 0, 0, cases, NULL, ncases, 0};
    char src[2 * GS_CFG_STR];
    *out = NULL;
    join_absolute("", base->source, src, sizeof src);
    put(&t,
        "# gsolve %s: the effective batch configuration of %s\n# every key, defaults "
        "included, paths made absolute; each case by its name and the keys where it differs "
        "from the top level; gsolve FILE runs the same batch again (cases, formats, repeats)\n",
        GSOLVE_VERSION, src);
    put_group(&t, base, "", 0);
    return text_done(&t, out);
}

/* ---- the settings that shape a run's numbers ---------------------------------------------- */

/* Keys that do not change what a run computes or measures: where its results go, how much it
 * prints, its name, the batch's bookkeeping (output.profile stays: it times each operation). */
static int bookkeeping(const char *key)
{
    if (strcmp(key, "output.profile") == 0) return 0;
    return strcmp(key, "problem.name") == 0 || strncmp(key, "output.", 7) == 0 ||
           strncmp(key, "batch.", 6) == 0;
}

gs_status gs_config_settings(const gs_config *c, char **out, char hash[17])
{
    gs_status st = GS_OK;
    text t = {NULL, 0, 0, 0, NULL, NULL, 0, 0};
    gs_config *d = NULL;
    size_t nk;
    const key_def *KEYS = gs_config_keys(&nk);
    *out = NULL;
    GS_CHECK(gs_alloc_array(1, sizeof *d, "configuration", (void **)&d));
    gs_config_defaults(d);
    gs_str_copy(d->base_dir, sizeof d->base_dir, c->base_dir);
    put(&t, "%s", ""); /* an empty text is "", not NULL */
    t.canonical = 1;     /* the same file by any route: the same settings */
    for (size_t i = 0; i < nk; i++)
        if (KEYS[i].type != K_CASES && !bookkeeping(KEYS[i].key) && !same_value(c, d, &KEYS[i]))
            put_value(&t, c, &KEYS[i], KEYS[i].key, 0);
    uint64_t h = 14695981039346656037ULL; /* FNV-1a 64 */
    for (const unsigned char *p = (const unsigned char *)(t.s ? t.s : ""); *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    snprintf(hash, 17, "%016llx", (unsigned long long)h);
    GS_CHECK(text_done(&t, out));
done:
    gs_free(d);
    return st;
}

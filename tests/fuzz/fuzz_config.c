/* fuzz_config.c: the configuration reader (io/gs_config.c) on arbitrary bytes.
 *
 * The input is a libconfig file, optionally followed by a line "#--set" and one --set
 * assignment per line. The file is loaded over the defaults, the assignments applied, the
 * cross-key checks run, the configuration written as text (as result records store it) and,
 * for a batch, every case (up to 4) applied. A failure must be a configuration error naming
 * the file (or "--set").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "gs_config.h"
#include "gs_mem.h"

static const gs_status k_allowed[] = {GS_ERR_CONFIG, GS_ERR_NOMEM};
#define NALLOWED ((int)(sizeof k_allowed / sizeof k_allowed[0]))
#define SET_MARK "\n#--set\n"

/* s without its comment lines (the text names the file it came from) */
static void drop_comments(char *s)
{
    char *w = s;
    for (char *r = s; *r;) {
        char *nl = strchr(r, '\n');
        size_t n = nl ? (size_t)(nl - r) + 1 : strlen(r);
        if (r[0] != '#' && strncmp(r, "  #", 3) != 0) {
            memmove(w, r, n);
            w += n;
        }
        r += n;
    }
    *w = '\0';
}

/* The configuration as text (what --print-config prints and a result record stores): a
 * libconfig file that reads back into the same configuration (the same text again). */
static void check_text(const gs_config *c)
{
    static gs_config back;
    char *t = NULL, *t2 = NULL;
    const char *path = fuzz_path(1, "replay.cfg");
    gs_error_clear();
    gs_status st = gs_config_to_text(c, &t);
    if (st != GS_OK) {
        fuzz_check_error("gs_config_to_text", st, k_allowed, NALLOWED, NULL);
        return;
    }
    if (!strstr(t, "solver = {\n  type = \"") || !strstr(t, "  results = \""))
        fuzz_fail("gs_config_to_text: keys missing from the text:\n%s", t);
    fuzz_write(path, t, strlen(t));
    gs_config_defaults(&back);
    st = gs_config_load(&back, path);
    if (st == GS_ERR_NOMEM) goto done;
    if (st != GS_OK)
        fuzz_fail("the configuration text does not read back: %s\n%s", gs_error_message(), t);
    st = gs_config_to_text(&back, &t2);
    if (st == GS_ERR_NOMEM) goto done;
    if (st != GS_OK) fuzz_fail("gs_config_to_text of the text read back: %s", gs_error_message());
    drop_comments(t);
    drop_comments(t2);
    if (strcmp(t, t2) != 0)
        fuzz_fail("the configuration text reads back into another configuration:\n%s\n---\n%s", t,
                  t2);
done:
    gs_error_clear();
    gs_free(t);
    gs_free(t2);
}

/* Apply the --set lines of `sets` (one per line; NULL: none). */
static void apply_sets(gs_config *c, char *sets)
{
    for (char *line = sets; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        if (*line) {
            gs_error_clear();
            gs_status st = gs_config_set(c, line);
            if (st != GS_OK) fuzz_check_error("gs_config_set", st, k_allowed, NALLOWED, NULL);
            if (st == GS_ERR_CONFIG && !strstr(gs_error_message(), "--set"))
                fuzz_fail("gs_config_set \"%s\": message does not say --set: %s", line,
                          gs_error_message());
        }
        line = nl ? nl + 1 : NULL;
    }
}

/* Batch: apply each case (at most 4) over a copy, then the cross-key checks. */
static void apply_cases(const gs_config *c, const char *path)
{
    static gs_config k;
    for (int64_t i = 0; i < c->batch.cases && i < 4; i++) {
        k = *c;
        gs_error_clear();
        gs_status st = gs_config_apply_case(&k, i);
        if (st != GS_OK) {
            fuzz_check_error("gs_config_apply_case", st, k_allowed, NALLOWED, path);
            continue;
        }
        gs_error_clear();
        st = gs_config_check(&k);
        if (st != GS_OK) fuzz_check_error("gs_config_check (case)", st, k_allowed, NALLOWED, path);
    }
}

static fuzz_outcome run_config(const uint8_t *data, size_t size)
{
    static gs_config c;
    const char *path = fuzz_path(0, "in.cfg");
    long live = gs_mem_live();
    size_t file_len = size, mark = strlen(SET_MARK);
    for (size_t i = 0; i + mark <= size; i++)
        if (memcmp(data + i, SET_MARK, mark) == 0) {
            file_len = i + 1;
            break;
        }
    fuzz_write(path, data, file_len);
    /* the --set lines: C strings, so they end at a NUL */
    char *sets = NULL;
    if (file_len < size) {
        size_t n = size - file_len - (mark - 1);
        if (!(sets = malloc(n + 1))) fuzz_fail("out of memory copying the input");
        memcpy(sets, data + file_len + mark - 1, n);
        sets[n] = '\0';
    }

    gs_config_defaults(&c);
    gs_error_clear();
    gs_status st = gs_config_load(&c, path);
    if (st != GS_OK) {
        fuzz_check_error("gs_config_load", st, k_allowed, NALLOWED, path);
    } else {
        check_text(&c);
        if (c.batch.cases > 0) apply_cases(&c, path);
        apply_sets(&c, sets);
        gs_error_clear();
        gs_status ck = gs_config_check(&c);
        if (ck != GS_OK) fuzz_check_error("gs_config_check", ck, k_allowed, NALLOWED, path);
        check_text(&c);
    }
    free(sets);
    gs_error_clear();
    fuzz_check_released("config", live);
    return st == GS_OK ? FUZZ_ACCEPTED : FUZZ_REFUSED;
}

const fuzz_target fuzz_config_target = {
    "config", "configuration reader (io/gs_config.c): libconfig file, --set, batch cases",
    run_config};

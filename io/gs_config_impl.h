/* gs_config_impl.h: what the configuration's two files share: the key table's row type, made
 * in gs_config.c and written back as a libconfig file by gs_config_text.c. Only those files
 * include it. */
#ifndef GS_CONFIG_IMPL_H
#define GS_CONFIG_IMPL_H

#include <stddef.h>

#include "gs_config.h"
#include "gs_spmat.h"

/* K_LIST: a list of strings, kept as "a,b,c"; K_CASES: the batch's list of case groups, kept
 * as its length (the entries are read again from the file by gs_config_apply_case). */
typedef enum key_type { K_STR, K_INT, K_FLOAT, K_LIST, K_CASES } key_type;

typedef struct key_def {
    const char *key;
    key_type type;
    size_t off;
    const char *def;     /* default, as text */
    double min, max;     /* numeric range */
    const char *choices; /* "a|b|c" for strings with fixed values, or NULL */
    const char *help;
} key_def;

/* The key table (ROWS with the formats' tuning keys in place, gs_config.c) and its length. */
const key_def *gs_config_keys(size_t *n);

/* The format's tuning key behind k (its value lives in spmv.params), or NULL. */
const gs_format_key *gs_config_format_key(const key_def *k);

#endif

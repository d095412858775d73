/* fuzz_driver.c: a deterministic mutation fuzzer for the targets of fuzz.h; no compiler
 * support needed, so it runs in every build (and is most useful under ASan + UBSan).
 *
 *   fuzz_driver TARGET [-n N] [-t SECONDS] [-s SEED] [-o DIR] [-m BYTES] [-x DICT] [-r] [-l]
 *               CORPUS...
 *
 * CORPUS: seed files or folders of them. Every seed runs once as it is; then, until N inputs
 * or SECONDS have passed, an input is drawn (from the seeds and the mutants the target
 * accepted), mutated 1-4 times (bits, bytes, ranges, lines, numbers, words of DICT,
 * splices, truncation) with a fixed-seed PRNG, and run. The same SEED and N give the same
 * inputs. GSOLVE_FUZZ_SECONDS in the environment replaces -t and -n (the long run of
 * README.md). A failed check, a sanitizer report, a crash or an input running longer than 20 s
 * writes the input to DIR/crash-TARGET-K (or timeout-...) and exits non-zero; -r runs the
 * given files once each, to reproduce one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"
#include "gs_status.h"

#define MAX_SEEDS 4096
#define POOL 256
#define INPUT_TIMEOUT 20

/* Under AddressSanitizer: a refused allocation returns NULL (the readers must then report
 * out of memory) instead of ending the process; allocations are capped at 256 MB, so a file
 * that claims a huge size is refused quickly. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1:max_allocation_size_mb=256:detect_leaks=1";
}

/* libconfig 1.5's parser leaks a string token when a syntax error follows it (a = "x"; "y";
 * a = ""x"";): a few bytes per failed parse, in the library, not gsolve (which allocates
 * nothing inside libconfig's frames, so none of its own leaks is hidden by this). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libconfig.so\n";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

/* The sanitizers' hook run before a report ends the process, and LeakSanitizer's check on
 * demand (absent without them). */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));
extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

typedef struct buf {
    uint8_t *d;
    size_t n;
} buf;

static buf g_seeds[MAX_SEEDS], g_pool[POOL];
static int g_nseeds, g_npool;
static char *g_words[256];
static size_t g_wlen[256];
static int g_nwords;

/* The input being run, for the crash handlers. */
static const uint8_t *g_cur;
static size_t g_cur_n;
static long g_cur_k;
static char g_crash_path[1024], g_timeout_path[1024];
static const char *g_target_name;
static char g_out_dir[512] = ".";
static int g_leak_each; /* -l: LeakSanitizer after every input */

/* ------------------------------------------------------------------ PRNG (splitmix64) */

static uint64_t g_rng;

static uint64_t rnd(void)
{
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t rndn(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

/* ------------------------------------------------------------------ crash handling */

/* Write the current input to path (async-signal-safe). */
static void save_input(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    size_t off = 0;
    while (off < g_cur_n) {
        ssize_t w = write(fd, g_cur + off, g_cur_n - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    close(fd);
    static const char m1[] = "\nfuzz_driver: the input is saved as ";
    ssize_t r = write(2, m1, sizeof m1 - 1);
    r = write(2, path, strlen(path));
    r = write(2, "\n", 1);
    (void)r;
}

static void on_death(void)
{
    if (g_cur) save_input(g_crash_path);
}

static void on_signal(int sig)
{
    if (g_cur) save_input(sig == SIGALRM ? g_timeout_path : g_crash_path);
    if (sig == SIGALRM) {
        static const char m[] = "fuzz_driver: an input ran longer than the time limit\n";
        ssize_t r = write(2, m, sizeof m - 1);
        (void)r;
        _exit(1);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Run one input through the target, with the crash file names set and a time limit. */
static fuzz_outcome run_one(const fuzz_target *t, const uint8_t *d, size_t n, long k)
{
    g_cur = d;
    g_cur_n = n;
    g_cur_k = k;
    snprintf(g_crash_path, sizeof g_crash_path, "%s/crash-%s-%ld", g_out_dir, g_target_name, k);
    snprintf(g_timeout_path, sizeof g_timeout_path, "%s/timeout-%s-%ld", g_out_dir, g_target_name,
             k);
    alarm(INPUT_TIMEOUT);
    fuzz_outcome o = t->run(d, n);
    alarm(0);
    if (g_leak_each && __lsan_do_recoverable_leak_check && __lsan_do_recoverable_leak_check()) {
        char path[1100];
        snprintf(path, sizeof path, "%s/leak-%s-%ld", g_out_dir, g_target_name, k);
        save_input(path);
        exit(1);
    }
    g_cur = NULL;
    return o;
}

/* ------------------------------------------------------------------ corpus */

static int add_seed(const char *path, size_t max)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || (size_t)sb.st_size > max || g_nseeds == MAX_SEEDS)
        return 0; /* too large for a seed: skipped */
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t cap = (size_t)sb.st_size;
    uint8_t *d = malloc(cap ? cap : 1);
    size_t n = d ? fread(d, 1, cap, f) : 0;
    fclose(f);
    if (!d) return 0;
    g_seeds[g_nseeds].d = d;
    g_seeds[g_nseeds++].n = n;
    return 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add a file, or every file under a folder (sorted, so runs are reproducible). */
static void add_path(const char *path, size_t max, int depth)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "fuzz_driver: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    if (!S_ISDIR(sb.st_mode)) {
        add_seed(path, max);
        return;
    }
    if (depth > 3) return;
    DIR *dir = opendir(path);
    if (!dir) return;
    char *names[4096];
    int n = 0;
    for (struct dirent *e; (e = readdir(dir)) && n < 4096;)
        if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
    closedir(dir);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        char sub[2048];
        int len = snprintf(sub, sizeof sub, "%s/%s", path, names[i]);
        if (len > 0 && (size_t)len < sizeof sub) add_path(sub, max, depth + 1);
        free(names[i]);
    }
}

/* Read a libFuzzer dictionary: one "word" per line (escapes \\, \" and \xNN), # comments. */
static void load_dict(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    if (!f) {
        fprintf(stderr, "fuzz_driver: cannot read the dictionary %s: %s\n", path, strerror(errno));
        exit(2);
    }
    while (fgets(line, sizeof line, f) && g_nwords < 256) {
        char *q = strchr(line, '"'), w[256];
        size_t n = 0;
        if (line[0] == '#' || !q) continue;
        for (q++; *q && *q != '"' && n < sizeof w; q++) {
            if (*q == '\\' && q[1] == 'x' && q[2] && q[3]) {
                char hex[3] = {q[2], q[3], 0};
                w[n++] = (char)strtol(hex, NULL, 16);
                q += 3;
            } else if (*q == '\\' && q[1]) {
                w[n++] = *++q;
            } else {
                w[n++] = *q;
            }
        }
        if (!n) continue;
        char *c = malloc(n);
        if (!c) break;
        memcpy(c, w, n);
        g_words[g_nwords] = c;
        g_wlen[g_nwords++] = n;
    }
    fclose(f);
}

/* ------------------------------------------------------------------ mutations */

static const char *const k_numbers[] = {"0",
                                        "1",
                                        "-1",
                                        "2",
                                        "3",
                                        "127",
                                        "128",
                                        "255",
                                        "256",
                                        "32767",
                                        "65536",
                                        "2147483647",
                                        "2147483648",
                                        "-2147483648",
                                        "4294967295",
                                        "4294967296",
                                        "3000000000",
                                        "9223372036854775807",
                                        "9223372036854775808",
                                        "18446744073709551616",
                                        "99999999999999999999999",
                                        "1e308",
                                        "-1e308",
                                        "1e309",
                                        "4.9e-324",
                                        "1e-400",
                                        "0.5",
                                        "-0",
                                        "nan",
                                        "inf",
                                        "-inf",
                                        "1.7976931348623157e308",
                                        "0x10",
                                        "1e22",
                                        "123456789012345678901234567890"};

/* Replace d[a, b) with the n bytes of s (the buffer is grown; max caps the size). */
static void splice_in(buf *x, size_t a, size_t b, const void *s, size_t n, size_t max)
{
    if (x->n - (b - a) + n > max) return;
    size_t nn = x->n - (b - a) + n;
    uint8_t *d = malloc(nn ? nn : 1);
    if (!d) return;
    memcpy(d, x->d, a);
    memcpy(d + a, s, n);
    memcpy(d + a + n, x->d + b, x->n - b);
    free(x->d);
    x->d = d;
    x->n = nn;
}

static int is_num_char(uint8_t c)
{
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+';
}

/* Find the start of a line at or before i. */
static size_t line_start(const buf *x, size_t i)
{
    while (i > 0 && x->d[i - 1] != '\n') i--;
    return i;
}

static size_t line_end(const buf *x, size_t i)
{
    while (i < x->n && x->d[i] != '\n') i++;
    return i < x->n ? i + 1 : i;
}

/* Copy m bytes at i to a random place. */
static void mut_duplicate(buf *x, size_t i, size_t max)
{
    size_t n = x->n, m = 1 + rndn(n - i < 64 ? n - i : 64);
    uint8_t *c = malloc(m);
    if (!n || !c) {
        free(c);
        return;
    }
    memcpy(c, x->d + i, m);
    size_t at = rndn(n + 1);
    splice_in(x, at, at, c, m, max);
    free(c);
}

/* Replace a number (a run of digits, signs, dots and exponents) with a boundary value. */
static void mut_number(buf *x, size_t max)
{
    size_t n = x->n;
    for (int tries = 0; n && tries < 32; tries++) {
        size_t a = rndn(n);
        if (!(x->d[a] >= '0' && x->d[a] <= '9')) continue;
        while (a > 0 && is_num_char(x->d[a - 1])) a--;
        size_t b = a;
        while (b < n && is_num_char(x->d[b])) b++;
        const char *s = k_numbers[rndn(sizeof k_numbers / sizeof k_numbers[0])];
        splice_in(x, a, b, s, strlen(s), max);
        return;
    }
}

/* Delete, duplicate or move the line around i. */
static void mut_line(buf *x, size_t i, size_t max)
{
    if (!x->n) return;
    size_t a = line_start(x, i), b = line_end(x, i), m = b - a;
    int op = (int)(rnd() % 3);
    if (op == 0) {
        splice_in(x, a, b, "", 0, max);
        return;
    }
    uint8_t *c = malloc(m + 1);
    if (!c) return;
    memcpy(c, x->d + a, m);
    if (op == 2) splice_in(x, a, b, "", 0, max); /* move: delete, then insert */
    size_t j = x->n ? line_start(x, rndn(x->n)) : 0;
    splice_in(x, j, j, c, m, max);
    free(c);
}

/* Insert a dictionary word at i, or put it over the word at i. */
static void mut_word(buf *x, size_t i, size_t max)
{
    if (!g_nwords) return;
    int w = (int)rndn((size_t)g_nwords);
    size_t b = i;
    if (rnd() % 2)
        while (b < x->n && x->d[b] != ' ' && x->d[b] != '\n' && x->d[b] != '\t') b++;
    splice_in(x, i, b, g_words[w], g_wlen[w], max);
}

/* One mutation of x (at most max bytes), chosen by the PRNG. */
static void mutate(buf *x, size_t max)
{
    static const uint8_t k_bytes[] = {0,   1,   '\n', '\r', ' ', '\t', '%', '-', '+',  '.',  'e',
                                      '0', '9', '"',  ';',  '{', '}',  '[', ']', 0x7f, 0x80, 0xff};
    size_t n = x->n, i = rndn(n ? n : 1);
    uint8_t r[64];
    size_t m = 1 + rndn(8);
    switch (rnd() % 12) {
    case 0: /* flip a bit */
        if (n) x->d[i] ^= (uint8_t)(1u << (rnd() % 8));
        break;
    case 1: /* an interesting byte */
        if (n) x->d[i] = k_bytes[rndn(sizeof k_bytes)];
        break;
    case 2: /* delete a range */
        if (n) splice_in(x, i, i + 1 + rndn(n - i < 16 ? n - i : 16), "", 0, max);
        break;
    case 3: /* insert random bytes */
        for (size_t k = 0; k < m; k++) r[k] = (uint8_t)rnd();
        splice_in(x, i, i, r, m, max);
        break;
    case 4: mut_duplicate(x, i, max); break;
    case 5:
    case 6: mut_number(x, max); break;
    case 7: mut_line(x, i, max); break;
    case 8: mut_word(x, i, max); break;
    case 9: { /* splice with another seed */
        const buf *o = &g_seeds[rndn((size_t)g_nseeds)];
        size_t j = rndn(o->n + 1);
        splice_in(x, i, n, o->d + j, o->n - j, max);
        break;
    }
    case 10: /* truncate */ x->n = rndn(n + 1); break;
    default: /* a run of one repeated byte */
        m = 1 + rndn(sizeof r);
        memset(r, (int)(rnd() % 2 ? '9' : rnd()), m);
        splice_in(x, i, i, r, m, max);
        break;
    }
}

/* ------------------------------------------------------------------ main */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: fuzz_driver TARGET [-n N] [-t SECONDS] [-s SEED] [-o DIR] [-m BYTES] [-x DICT] "
            "[-r] [-l] "
            "CORPUS...\n"
            "  TARGET  mm | h5 | config | npz\n"
            "  -n N    run N mutated inputs (default 10000; with -t alone, no limit)\n"
            "  -t S    stop after S seconds\n"
            "  -s SEED PRNG seed (default 1): the same seed and N give the same inputs\n"
            "  -o DIR  where a failing input is written (default .)\n"
            "  -m B    largest seed and input, bytes (default 65536)\n"
            "  -x DICT libFuzzer dictionary of words the mutator inserts\n"
            "  -r      run the CORPUS files once each, no mutation (reproduce a failure)\n"
            "  -l      LeakSanitizer check after every input (slow; finds the leaking one)\n");
    exit(2);
}

/* The command line. */
typedef struct opts {
    const fuzz_target *t;
    long n_iter;
    double seconds;
    uint64_t seed;
    size_t max;
    int reproduce, ncorpus;
    const char *corpus[256], *dict;
} opts;

static void parse_args(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->n_iter = -1, o->seconds = -1, o->seed = 1, o->max = 65536;
    if (argc < 2 || !(o->t = fuzz_find(argv[1]))) usage();
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-r") == 0)
            o->reproduce = 1;
        else if (strcmp(a, "-l") == 0)
            g_leak_each = 1;
        else if (a[0] == '-' && (!v || strlen(a) != 2 || !strchr("ntsomx", a[1])))
            usage();
        else if (a[0] == '-') {
            i++;
            switch (a[1]) {
            case 'n': o->n_iter = atol(v); break;
            case 't': o->seconds = atof(v); break;
            case 's': o->seed = strtoull(v, NULL, 10); break;
            case 'o': snprintf(g_out_dir, sizeof g_out_dir, "%s", v); break;
            case 'm': o->max = (size_t)atol(v); break;
            default: o->dict = v; break;
            }
        } else if (o->ncorpus < 256)
            o->corpus[o->ncorpus++] = a;
    }
    if (!o->ncorpus) usage();
    const char *env_t = getenv("GSOLVE_FUZZ_SECONDS"); /* a longer run through ctest */
    if (env_t && atof(env_t) > 0) o->seconds = atof(env_t), o->n_iter = -1;
    if (o->n_iter < 0) o->n_iter = o->seconds > 0 ? -1 : 10000;
}

/* Mutants until the count or the time is reached; inputs run so far in *k. */
static long mutate_loop(const opts *o, double t0, long *k, long *accepted, long *refused)
{
    long mutants = 0;
    for (; o->n_iter < 0 || mutants < o->n_iter; mutants++, (*k)++) {
        if (o->seconds > 0 && (mutants & 15) == 0 && now() - t0 > o->seconds) break;
        size_t pick = rndn((size_t)(g_nseeds + g_npool));
        const buf *src = pick < (size_t)g_nseeds ? &g_seeds[pick] : &g_pool[pick - g_nseeds];
        buf x = {malloc(src->n ? src->n : 1), src->n};
        if (!x.d) exit(1);
        memcpy(x.d, src->d, src->n);
        for (int m = 1 + (int)(rnd() % 4); m > 0; m--) mutate(&x, o->max);
        if (run_one(o->t, x.d, x.n, *k) == FUZZ_ACCEPTED) {
            (*accepted)++;
            int slot = g_npool < POOL ? g_npool++ : (int)rndn(POOL);
            free(g_pool[slot].d);
            g_pool[slot] = x; /* a valid input is a good base for more */
        } else {
            (*refused)++;
            free(x.d);
        }
    }
    return mutants;
}

int main(int argc, char **argv)
{
    opts o;
    parse_args(argc, argv, &o);
    const fuzz_target *t = o.t;
    g_target_name = t->name;
    g_rng = o.seed;
    fuzz_init();
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_death);
    const int sigs[] = {SIGALRM, SIGABRT, SIGSEGV, SIGBUS, SIGFPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], on_signal);
    for (int i = 0; i < o.ncorpus; i++)
        add_path(o.corpus[i], o.reproduce ? (size_t)1 << 30 : o.max, 0);
    if (!g_nseeds) {
        fprintf(stderr, "fuzz_driver: no seed files in the corpus given\n");
        return 2;
    }
    if (o.dict) load_dict(o.dict);

    long accepted = 0, refused = 0, k = 0, mutants = 0;
    double t0 = now();
    for (int s = 0; s < g_nseeds; s++, k++)
        run_one(t, g_seeds[s].d, g_seeds[s].n, k) == FUZZ_ACCEPTED ? accepted++ : refused++;
    if (!o.reproduce) mutants = mutate_loop(&o, t0, &k, &accepted, &refused);
    printf("fuzz_driver %s: %ld inputs (%d seeds, %ld mutants, seed %llu) in %.1f s: %ld "
           "accepted, %ld refused, no failure\n",
           t->name, k, g_nseeds, mutants, (unsigned long long)o.seed, now() - t0, accepted,
           refused);
    for (int i = 0; i < g_nseeds; i++) free(g_seeds[i].d);
    for (int i = 0; i < g_npool; i++) free(g_pool[i].d);
    for (int i = 0; i < g_nwords; i++) free(g_words[i]);
    fuzz_cleanup();
    if (!o.reproduce && (!accepted || !refused)) {
        fprintf(stderr,
                "fuzz_driver %s: every input was %s: the corpus does not reach both "
                "outcomes\n",
                t->name, accepted ? "accepted" : "refused");
        return 1;
    }
    return 0;
}

/* fuzz_libfuzzer.c: libFuzzer entry point of one target (FUZZ_TARGET, e.g. fuzz_mm_target),
 * built with clang -fsanitize=fuzzer,address,undefined when GSOLVE_FUZZ is on. */
#include <stdlib.h>

#include "fuzz.h"

#ifndef FUZZ_TARGET
#error "compile with -DFUZZ_TARGET=fuzz_mm_target (or fuzz_h5_target, fuzz_config_target, fuzz_npz_target)"
#endif

/* A refused allocation returns NULL (the readers must report out of memory) and allocations
 * are capped at 256 MB, below libFuzzer's own malloc limit, so a header claiming a huge size
 * is a clean refusal, not a reported out-of-memory. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1:max_allocation_size_mb=256";
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

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    atexit(fuzz_cleanup);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FUZZ_TARGET.run(data, size);
    return 0;
}

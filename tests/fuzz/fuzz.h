/* fuzz.h: the fuzz targets of gsolve's input readers, shared by the deterministic mutation
 * driver (fuzz_driver.c) and the libFuzzer entry points (fuzz_libfuzzer.c).
 *
 * A target takes one input (bytes), hands it to a reader as a file, and checks the outcome:
 * either success with a self-consistent result, or an error status with a nonempty message
 * that names the file (or, for --set, the key). Whatever the input, nothing may leak (every
 * gs_malloc'ed block and every HDF5 id is released) and nothing may crash. A violated check
 * prints what was wrong and aborts, so both drivers report the input that caused it.
 */
#ifndef GS_FUZZ_H
#define GS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "gs_csr.h"
#include "gs_status.h"

/* What a target made of one input, for the driver's statistics. */
typedef enum fuzz_outcome { FUZZ_ACCEPTED = 0, FUZZ_REFUSED = 1 } fuzz_outcome;

typedef struct fuzz_target {
    const char *name; /* "mm", "h5", "config", "npz" */
    const char *what; /* one line for usage messages */
    fuzz_outcome (*run)(const uint8_t *data, size_t size);
} fuzz_target;

extern const fuzz_target fuzz_mm_target, fuzz_h5_target, fuzz_config_target, fuzz_npz_target;

/* The target called name, or NULL. */
const fuzz_target *fuzz_find(const char *name);

/* Once per process: temp folder, HDF5 quiet, allocation cap in builds without sanitizers. */
void fuzz_init(void);

/* Remove the temp folder and the files the targets wrote there. */
void fuzz_cleanup(void);

/* A path in the process's temp folder: "<dir>/<name>" (static buffer per slot 0..3). */
const char *fuzz_path(int slot, const char *name);

/* Write n bytes to path; aborts when the temp folder cannot be written. */
void fuzz_write(const char *path, const void *data, size_t n);

/* Report a violated check (printf-style) and abort. */
void fuzz_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

/* A failing status must be one of the allowed ones, carry a message, and the message must name
 * `must_name` (a file name; NULL: no such check). NOMEM must say how many bytes were asked. */
void fuzz_check_error(const char *who, gs_status st, const gs_status *allowed, int nallowed,
                      const char *must_name);

/* A CSR matrix from a reader: structure valid (rowptr from 0 to nnz, columns in range and
 * strictly ascending within a row), sizes within 32-bit limits, values finite unless
 * allow_nonfinite. */
void fuzz_check_csr(const char *who, const gs_csr *A, int allow_nonfinite);

/* Live gs_malloc blocks must be back to `live` (and no HDF5 id left open). */
void fuzz_check_released(const char *who, long live);

#endif

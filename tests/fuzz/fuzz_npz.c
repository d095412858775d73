/* fuzz_npz.c: the NumPy and hypre readers (io/gs_npz.c, io/gs_npy.c, io/gs_ij.c) on arbitrary
 * bytes.
 *
 * The input is written as in.npz and read as a save_npz matrix (gs_npz_read), as a .npy array
 * (gs_npy_read) and as one rank's hypre IJ matrix and vector file (in.ij.00000: gs_ij_read,
 * gs_ij_read_vector). Success must give a valid CSR (values may be any double: the problem's
 * check refuses NaN and Inf later) or an array of the shape announced; failure must name the
 * file. Seeds are save_npz files (zip archives) and .npy files, and IJ text.
 */
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "gs_ij.h"
#include "gs_mem.h"
#include "gs_npy.h"
#include "gs_npz.h"

static const gs_status k_allowed[] = {GS_ERR_INPUT, GS_ERR_IO, GS_ERR_UNSUPPORTED, GS_ERR_NOMEM};
#define NALLOWED ((int)(sizeof k_allowed / sizeof k_allowed[0]))

static fuzz_outcome run_npz(const uint8_t *data, size_t size)
{
    const char *npz = fuzz_path(0, "in.npz"), *ij = fuzz_path(1, "in.ij.00000");
    long live = gs_mem_live();
    gs_csr *A = NULL;
    double *v = NULL;
    int64_t rows = 0, cols = 0, n = 0;
    int cm = 0;
    fuzz_write(npz, data, size);
    gs_error_clear();
    gs_status st = gs_npz_read(npz, &A, NULL);
    if (st != GS_OK && A) fuzz_fail("gs_npz_read: failed but returned a matrix");
    if (st != GS_OK) fuzz_check_error("gs_npz_read", st, k_allowed, NALLOWED, npz);
    if (st == GS_OK) fuzz_check_csr("gs_npz_read", A, 1);
    gs_csr_destroy(&A);
    gs_error_clear();
    gs_status sv = gs_npy_read(npz, &v, &rows, &cols, &cm);
    if (sv != GS_OK) fuzz_check_error("gs_npy_read", sv, k_allowed, NALLOWED, npz);
    if (sv == GS_OK && (!v || rows < 0 || cols < 0))
        fuzz_fail("gs_npy_read: accepted %lld x %lld without values", (long long)rows,
                  (long long)cols);
    gs_free(v);
    v = NULL;
    fuzz_write(ij, data, size);
    const char *base = fuzz_path(2, "in.ij");
    gs_error_clear();
    gs_status si = gs_ij_read(base, &A);
    if (si != GS_OK) fuzz_check_error("gs_ij_read", si, k_allowed, NALLOWED, "in.ij.00000");
    if (si == GS_OK) fuzz_check_csr("gs_ij_read", A, 1);
    gs_csr_destroy(&A);
    gs_error_clear();
    si = gs_ij_read_vector(base, -1, &v, &n);
    if (si != GS_OK) fuzz_check_error("gs_ij_read_vector", si, k_allowed, NALLOWED, "in.ij");
    gs_free(v);
    gs_error_clear();
    fuzz_check_released("npz", live);
    return st == GS_OK || sv == GS_OK ? FUZZ_ACCEPTED : FUZZ_REFUSED;
}

const fuzz_target fuzz_npz_target = {
    "npz", "NumPy and hypre readers (io/gs_npz.c, gs_npy.c, gs_ij.c): .npz, .npy, IJ text",
    run_npz};

/* fuzz_common.c: temp files, checks shared by the fuzz targets, the target table. */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fuzz.h"
#include "gs_mem.h"

#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif

/* Without AddressSanitizer the address space is capped so that a header claiming a huge (but
 * allowed) size makes the allocation fail cleanly instead of filling the machine; under
 * ASan the drivers set allocator_may_return_null and max_allocation_size_mb instead. */
#define FUZZ_AS_LIMIT ((rlim_t)4 << 30)

static char g_dir[256];

void fuzz_init(void)
{
    if (g_dir[0]) return;
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/gsolve-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) {
        fprintf(stderr, "fuzz: cannot create a temp folder %s: %s\n", g_dir, strerror(errno));
        exit(2);
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    fuzz_check_released("start", gs_mem_live()); /* the first probes of transient ids */
#ifndef FUZZ_ASAN
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 &&
        (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > FUZZ_AS_LIMIT)) {
        rl.rlim_cur = FUZZ_AS_LIMIT;
        setrlimit(RLIMIT_AS, &rl);
    }
#endif
}

void fuzz_cleanup(void)
{
    static const char *const names[] = {"in.mtx",    "in.mtx.gz", "in.h5",   "in.cfg", "gz.mtx.gz",
                                        "out.cfg",   "in2.cfg",   "in.npz",  "in.ij.00000", NULL};
    if (!g_dir[0]) return;
    for (int i = 0; names[i]; i++) unlink(fuzz_path(0, names[i]));
    rmdir(g_dir);
}

const char *fuzz_path(int slot, const char *name)
{
    static char bufs[4][512];
    char *b = bufs[slot & 3];
    snprintf(b, sizeof bufs[0], "%s/%s", g_dir, name);
    return b;
}

void fuzz_write(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0)
        fuzz_fail("cannot write the input to %s: %s", path, strerror(errno));
}

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\nfuzz: CHECK FAILED: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    fflush(stderr);
    abort();
}

void fuzz_check_error(const char *who, gs_status st, const gs_status *allowed, int nallowed,
                      const char *must_name)
{
    const char *msg = gs_error_message();
    int ok = 0;
    for (int i = 0; i < nallowed; i++) ok |= st == allowed[i];
    if (!ok) fuzz_fail("%s: unexpected status '%s' (message: %s)", who, gs_status_str(st), msg);
    if (!msg[0]) fuzz_fail("%s: status '%s' without a message", who, gs_status_str(st));
    if (st == GS_ERR_NOMEM) {
        /* a refused allocation (capped in the fuzzers): must say how much was asked */
        if (!strstr(msg, "out of memory") || !strstr(msg, "bytes"))
            fuzz_fail("%s: out-of-memory message does not say how many bytes: %s", who, msg);
        return;
    }
    if (must_name && !strstr(msg, must_name))
        fuzz_fail("%s: message does not name '%s': %s", who, must_name, msg);
}

void fuzz_check_csr(const char *who, const gs_csr *A, int allow_nonfinite)
{
    if (!A) fuzz_fail("%s: success without a matrix", who);
    if (A->loc != GS_LOC_HOST) fuzz_fail("%s: matrix not on the host", who);
    if (A->rows < 0 || A->cols < 0 || A->nnz < 0)
        fuzz_fail("%s: negative size %d x %d, nnz %d", who, A->rows, A->cols, A->nnz);
    if (!A->rowptr || (A->nnz > 0 && (!A->colind || !A->val))) fuzz_fail("%s: missing arrays", who);
    if (A->rowptr[0] != 0) fuzz_fail("%s: rowptr[0] = %d", who, A->rowptr[0]);
    for (int32_t i = 0; i < A->rows; i++) {
        int32_t b = A->rowptr[i], e = A->rowptr[i + 1];
        if (e < b || e > A->nnz)
            fuzz_fail("%s: rowptr[%d] = %d after %d (nnz %d)", who, i + 1, e, b, A->nnz);
        for (int32_t k = b; k < e; k++) {
            if (A->colind[k] < 0 || A->colind[k] >= A->cols)
                fuzz_fail("%s: row %d: column %d out of range 0..%d", who, i, A->colind[k],
                          A->cols - 1);
            if (k > b && A->colind[k] <= A->colind[k - 1])
                fuzz_fail("%s: row %d: columns %d, %d not strictly ascending", who, i,
                          A->colind[k - 1], A->colind[k]);
            if (!allow_nonfinite && !isfinite(A->val[k]))
                fuzz_fail("%s: entry (%d, %d) = %g from an input without NaN or Inf", who, i,
                          A->colind[k], A->val[k]);
        }
    }
    if (A->rowptr[A->rows] != A->nnz)
        fuzz_fail("%s: rowptr[rows] = %d, nnz = %d", who, A->rowptr[A->rows], A->nnz);
}

/* Transient HDF5 ids (dataspaces, datatypes, property lists) have no counter in HDF5 1.10,
 * but each kind is numbered in sequence: an id between the probe made after the previous
 * input and a fresh one that is still valid was left open by this input. */
static hid_t g_probe[3];

static long h5_transient_leaks(void)
{
    long n = 0;
    for (int i = 0; i < 3; i++) {
        hid_t now = i == 0   ? H5Screate(H5S_SCALAR)
                    : i == 1 ? H5Tcopy(H5T_NATIVE_INT)
                             : H5Pcreate(H5P_DATASET_XFER);
        for (hid_t id = g_probe[i] + 1; g_probe[i] > 0 && id < now; id++)
            if (H5Iis_valid(id) > 0) n++;
        if (g_probe[i] > 0)
            i == 0 ? H5Sclose(g_probe[i]) : i == 1 ? H5Tclose(g_probe[i]) : H5Pclose(g_probe[i]);
        g_probe[i] = now;
    }
    return n;
}

void fuzz_check_released(const char *who, long live)
{
    if (gs_mem_live() != live)
        fuzz_fail("%s: %ld gs_malloc blocks leaked", who, gs_mem_live() - live);
    /* the count includes transient datatypes: the datatype probe is one */
    ssize_t ids = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) - (g_probe[1] > 0);
    if (ids != 0)
        fuzz_fail("%s: %lld HDF5 file, group, dataset or attribute ids left open", who,
                  (long long)ids);
    long t = h5_transient_leaks();
    if (t) fuzz_fail("%s: %ld HDF5 dataspace, datatype or property list ids left open", who, t);
}

const fuzz_target *fuzz_find(const char *name)
{
    const fuzz_target *all[] = {&fuzz_mm_target, &fuzz_h5_target, &fuzz_config_target,
                                &fuzz_npz_target};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0) return all[i];
    return NULL;
}

/* bench_mm_read.c: Matrix Market read speed (MB/s and nonzeros/s, best and median of 3).
 *
 * Usage: bench_mm_read [FILE.mtx[.gz]] [--grid N]
 * Without a file it builds a 3D 27-point stencil on an N^3 grid (N = 72: 373248 rows,
 * 9.8 million nonzeros) with random-looking values, writes it with gs_mm_write (%.17g values)
 * to a temporary file, reads it back three times and removes it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gs_mm.h"

/* Wall-clock seconds. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A value in (-1, 1) from the entry number (splitmix64). */
static double hash_value(uint64_t k)
{
    uint64_t z = k + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return ((double)(z >> 11) / 9007199254740992.0) * 2.0 - 1.0;
}

/* The 27-point stencil on an n^3 grid, rows in order, random off-diagonal values. */
static gs_status build_stencil(int n, gs_csr **out)
{
    gs_status st = GS_OK;
    int64_t rows = (int64_t)n * n * n, m = 3LL * n - 2, nnz = m * m * m;
    gs_csr *A = NULL;
    GS_CHECK(gs_csr_create(rows, rows, nnz, &A));
    int64_t k = 0, r = 0;
    for (int z = 0; z < n; z++)
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++, r++) {
                A->rowptr[r] = (int32_t)k;
                for (int dz = -1; dz <= 1; dz++)
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            int xx = x + dx, yy = y + dy, zz = z + dz;
                            if (xx < 0 || yy < 0 || zz < 0 || xx >= n || yy >= n || zz >= n)
                                continue;
                            int64_t c = ((int64_t)zz * n + yy) * n + xx;
                            A->colind[k] = (int32_t)c;
                            A->val[k] =
                                c == r ? 26.0 + hash_value((uint64_t)k) : hash_value((uint64_t)k);
                            k++;
                        }
            }
    A->rowptr[rows] = (int32_t)k;
    *out = A;
done:
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    char tmpdir[256] = "", tmp[300] = "";
    int grid = 72;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--grid") == 0 && i + 1 < argc)
            grid = atoi(argv[++i]);
        else
            path = argv[i];
    }
    gs_csr *A = NULL;
    if (!path) {
        const char *dir = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/gs_bench_mm_XXXXXX", dir && *dir ? dir : "/tmp");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            return 1;
        }
        snprintf(tmp, sizeof tmp, "%s/stencil.mtx", tmpdir);
        path = tmp;
        if (build_stencil(grid, &A) != GS_OK) {
            fprintf(stderr, "bench_mm_read: %s\n", gs_error_message());
            rmdir(tmpdir);
            return 1;
        }
        double t0 = now();
        if (gs_mm_write(path, A) != GS_OK) {
            fprintf(stderr, "bench_mm_read: %s\n", gs_error_message());
            unlink(tmp), rmdir(tmpdir);
            return 1;
        }
        double tw = now() - t0;
        struct stat sb;
        stat(path, &sb);
        printf("wrote %s: 27-point stencil %d^3, %d rows, %d nonzeros, %.1f MB in %.2f s "
               "(%.0f MB/s)\n",
               path, grid, A->rows, A->nnz, (double)sb.st_size / 1e6, tw,
               (double)sb.st_size / 1e6 / tw);
        gs_csr_destroy(&A);
    }
    struct stat sb;
    if (stat(path, &sb) != 0) {
        perror(path);
        return 1;
    }
    double t[3];
    int nnz = 0;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        gs_status st = gs_mm_read(path, &A, NULL);
        t[r] = now() - t0;
        if (st != GS_OK) {
            fprintf(stderr, "bench_mm_read: %s\n", gs_error_message());
            if (*tmp) unlink(tmp), rmdir(tmpdir);
            return 1;
        }
        nnz = A->nnz;
        if (r < 2) gs_csr_destroy(&A);
    }
    qsort(t, 3, sizeof t[0], cmp_double);
    double mb = (double)sb.st_size / 1e6;
    printf("gs_mm_read %s: %.1f MB, %d nonzeros\n", path, mb, nnz);
    printf("  best   %.3f s  %7.1f MB/s  %6.1f M nonzeros/s\n", t[0], mb / t[0], nnz / t[0] / 1e6);
    printf("  median %.3f s  %7.1f MB/s  %6.1f M nonzeros/s\n", t[1], mb / t[1], nnz / t[1] / 1e6);

    gs_csr_destroy(&A);
    if (*tmp) unlink(tmp), rmdir(tmpdir);
    return 0;
}

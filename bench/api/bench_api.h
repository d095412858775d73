/* bench_api.h: what the programs over the public C API alone (bench_api, bench_rhs) share: the
 * median of their timings. */
#ifndef GS_BENCH_API_H
#define GS_BENCH_API_H

#include <stdlib.h>

static inline int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the median of v[0..n) (reordered) */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif

/* gs_omp.h: OpenMP's thread count and thread number, 1 and 0 in a build without OpenMP, for
 * code that gives each thread its own scratch (a marker or an accumulator per thread). */
#ifndef GS_OMP_H
#define GS_OMP_H

#ifdef _OPENMP
#include <omp.h>
#endif

static inline int gs_omp_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static inline int gs_omp_thread(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

#endif

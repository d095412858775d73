/* gs_time.h: the one clock gsolve times its stages with. */
#ifndef GS_TIME_H
#define GS_TIME_H

#include <time.h>

/* Seconds on the monotonic clock. */
static inline double gs_time_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif

/* gs_test_solve.h: run a configured solve through the library and check it independently. */
#ifndef GS_TEST_SOLVE_H
#define GS_TEST_SOLVE_H

#include <stdarg.h>

#include "gs_app_run.h"
#include "gs_driver.h"
#include "gs_test.h"

/* Apply a NULL-terminated list of "key=value" settings to defaults. */
static inline gs_status test_config(gs_config *c, ...)
{
    va_list ap;
    gs_status st = GS_OK;
    gs_config_defaults(c);
    c->output.verbosity = 0;
    va_start(ap, c);
    for (const char *kv = va_arg(ap, const char *); kv && st == GS_OK;
         kv = va_arg(ap, const char *))
        st = gs_config_set(c, kv);
    va_end(ap);
    return st;
}

/* ||b - A x|| / ||b|| computed here on the host, independently of the solver. */
static inline double test_true_residual(const gs_csr *A, const double *b, const double *x)
{
    double *ax = malloc((size_t)A->rows * sizeof *ax), rn = 0.0, bn = 0.0;
    gs_csr_spmv_host(A, x, ax);
    for (int32_t i = 0; i < A->rows; i++) {
        rn += (b[i] - ax[i]) * (b[i] - ax[i]);
        bn += b[i] * b[i];
    }
    free(ax);
    return bn > 0 ? sqrt(rn / bn) : sqrt(rn);
}

#endif

/* gs_suraa.c: placeholder until the SURAA format lands (host). */
#include "gs_spmat.h"

static gs_status from_csr(const gs_csr *A, const gs_format_params *p, void **M)
{
    (void)A;
    (void)p;
    *M = NULL;
    return GS_ERROR(GS_ERR_UNSUPPORTED, "format suraa is not implemented yet");
}

static gs_status to_csr(const void *M, gs_csr **out)
{
    (void)M;
    *out = NULL;
    return GS_ERROR(GS_ERR_UNSUPPORTED, "format suraa is not implemented yet");
}

static gs_status spmv(const void *M, const double *x, double *y)
{
    (void)M;
    (void)x;
    (void)y;
    return GS_ERROR(GS_ERR_UNSUPPORTED, "format suraa is not implemented yet");
}

static double bytes(const void *M)
{
    (void)M;
    return 0.0;
}

static void destroy(void *M) { (void)M; }

const gs_format_ops gs_suraa_host_ops = {"suraa", from_csr, to_csr, spmv, bytes, NULL, destroy};

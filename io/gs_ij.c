/* gs_ij.c: hypre's IJ matrix text format (gs_ij.h). */
#include "gs_ij.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* "0 n-1 0 n-1", then "i j value" per entry in CSR order */
gs_status gs_ij_write(const char *path, const gs_csr *A)
{
    if (!path || !A) return GS_ERROR(GS_ERR_ARG, "gs_ij_write: path and A must not be NULL");
    if (A->loc != GS_LOC_HOST)
        return GS_ERROR(GS_ERR_ARG, "gs_ij_write '%s': the matrix must be on the host", path);
    if (A->rows != A->cols)
        return GS_ERROR(GS_ERR_ARG,
                        "gs_ij_write '%s': the matrix is %d x %d; hypre's IJ "
                        "format needs a square one",
                        path, A->rows, A->cols);
    FILE *f = fopen(path, "w");
    if (!f) return GS_ERROR(GS_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    fprintf(f, "0 %d 0 %d\n", A->rows - 1, A->cols - 1);
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            fprintf(f, "%d %d %.17g\n", i, A->colind[k], A->val[k]);
    int bad = ferror(f);
    int err = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (bad) return GS_ERROR(GS_ERR_IO, "cannot write '%s': %s", path, strerror(err));
    return GS_OK;
}

/* a2a_probe.c: MPI_Alltoallv bandwidth between the ranks of one node, pageable host buffers
 * (what the distributed AMG setup's row and entry exchanges use): mpicc -O2 a2a_probe.c, then
 * mpirun -np 2 ./a.out. Prints, for each size a rank sends, the median time of 10 exchanges. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int R, me;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &R);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int *c = calloc((size_t)R, sizeof *c), *d = calloc((size_t)R, sizeof *d);
    for (size_t mb = 1; mb <= 64; mb *= 4) {
        const size_t bytes = mb << 20;
        char *s = malloc(bytes * (size_t)R), *r = malloc(bytes * (size_t)R);
        memset(s, me, bytes * (size_t)R);
        memset(r, 0, bytes * (size_t)R);
        for (int q = 0; q < R; q++) c[q] = q == me ? 0 : (int)bytes, d[q] = (int)(bytes * q);
        double t[11];
        for (int k = 0; k < 11; k++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            MPI_Alltoallv(s, c, d, MPI_BYTE, r, c, d, MPI_BYTE, MPI_COMM_WORLD);
            t[k] = MPI_Wtime() - t0;
        }
        qsort(t + 1, 10, sizeof *t, cmp);
        if (me == 0)
            printf("alltoallv %3zu MB a neighbour: %8.3f ms  %6.2f GB/s\n", mb, 1e3 * t[5],
                   (double)bytes / t[5] / 1e9);
        free(s);
        free(r);
    }
    free(c);
    free(d);
    MPI_Finalize();
    return 0;
}

#!/usr/bin/env bash
# The run of mpi_scaling_h200x2_2026-11-30.md, on a 2 x H200 node with build-gpu/ built (Release,
# MPI, sm_90) and the hypre source and build script of ../shared/peers in .devdeps/: hypre's ij
# with MPI, then bench/mpi/scaling.sh on 1 and 2 GPUs into $OUT/scaling.
sed 's/-DHYPRE_ENABLE_MPI=OFF/-DHYPRE_ENABLE_MPI=ON/' .devdeps/build-hypre.sh > /tmp/bh.sh
bash /tmp/bh.sh .devdeps/hypre-src-0854739e5.tar.gz /tmp/hypre-mpi
export MPIRUN="mpirun --allow-run-as-root --bind-to none"
REPS=3 IJ=/tmp/hypre-mpi/src/build/test/ij bash bench/mpi/scaling.sh "$OUT/scaling" 1 2

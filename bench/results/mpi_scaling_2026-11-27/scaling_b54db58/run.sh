#!/usr/bin/env bash
# final: build HEAD (tests, real matrices); scaling 1 2 4 beside hypre-MPI (REPS=3); tarred (ctest in the next call)
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps; ln -sfn ../.peers .peers
source scripts/gpu-mpi.sh --env
X=$OUT/f10; mkdir -p $X /opt/b/build-gpu; rm -rf build-gpu; ln -sfn /opt/b/build-gpu build-gpu
cp COMMIT $X/; { nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
pack() { (cd $OUT && tar czf f10.tgz f10); }
T0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi \
  -DGSOLVE_MATRICES=$PWD/.peers/matrices > /opt/b/cmake.log 2>&1
cmake --build build-gpu -j 64 >> /opt/b/cmake.log 2>&1 || { tail -30 /opt/b/cmake.log; exit 1; }
grep "real matrices" /opt/b/cmake.log; echo "built $(( $(date +%s) - T0 )) s"
gunzip -c .peers/ij-hypre-mpi-cuda13-sm90.gz > /opt/b/ij-mpi; chmod +x /opt/b/ij-mpi
(export MPIRUN="$MPIRUN --mca pcompress ^zlib"; REPS=3 IJ=/opt/b/ij-mpi timeout 470 bash bench/mpi/scaling.sh $X/scaling 1 2 4 > $X/scaling.out 2>&1; echo "scaling rc=$?")
echo "scaling done $(( $(date +%s) - T0 )) s"; tail -24 $X/scaling.out; pack

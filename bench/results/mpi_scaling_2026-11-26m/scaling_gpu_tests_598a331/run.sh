#!/usr/bin/env bash
# final: build HEAD (tests, real matrices); scaling 1 2 4 beside hypre-MPI (REPS=3); ctest -L gpu; tarred
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps; ln -sfn ../.peers .peers
source scripts/gpu-mpi.sh --env
X=$OUT/f9; mkdir -p $X /opt/b/build-gpu; rm -rf build-gpu; ln -sfn /opt/b/build-gpu build-gpu
cp COMMIT $X/; { nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
pack() { (cd $OUT && tar czf f9.tgz f9); }
T0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi \
  -DGSOLVE_MATRICES=$PWD/.peers/matrices > /opt/b/cmake.log 2>&1
cmake --build build-gpu -j 64 >> /opt/b/cmake.log 2>&1 || { tail -30 /opt/b/cmake.log; exit 1; }
grep "real matrices" /opt/b/cmake.log; echo "built $(( $(date +%s) - T0 )) s"
gunzip -c .peers/ij-hypre-mpi-cuda13-sm90.gz > /opt/b/ij-mpi; chmod +x /opt/b/ij-mpi
(export MPIRUN="$MPIRUN --mca pcompress ^zlib"; REPS=3 IJ=/opt/b/ij-mpi timeout 330 bash bench/mpi/scaling.sh $X/scaling 1 2 4 > $X/scaling.out 2>&1; echo "scaling rc=$?")
echo "scaling done $(( $(date +%s) - T0 )) s"; tail -24 $X/scaling.out; pack
L=$(( 575 - ($(date +%s) - T0) )); [ $L -gt 240 ] && L=240
(cd build-gpu && timeout $L ctest -L gpu -j 3 --output-on-failure > $X/ctest_gpu.log 2>&1); grep -E "tests passed|Failed|Timeout|check failed|FAIL" $X/ctest_gpu.log | head
echo "gpu tests done $(( $(date +%s) - T0 )) s"; pack

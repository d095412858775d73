#!/usr/bin/env bash
# GPU tests of HEAD touching dist/MPI/AMG, 2 GPUs
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps; ln -sfn ../.peers .peers
source scripts/gpu-mpi.sh --env
X=$OUT/g2; mkdir -p $X /opt/b/build-gpu; rm -rf build-gpu; ln -sfn /opt/b/build-gpu build-gpu
cp COMMIT $X/; { nvidia-smi -L; date -u; } > $X/gpus.txt
T0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi > $X/cmake.log 2>&1
cmake --build build-gpu -j 32 >> $X/cmake.log 2>&1 || { tail -30 $X/cmake.log; exit 1; }
echo "built $(( $(date +%s) - T0 )) s"; rm -f $X/cmake.log
(cd build-gpu && timeout 150 ctest -L gpu -R "dist|mpi|amg" -j 3 --output-on-failure > $X/ctest_gpu.log 2>&1); grep -E "tests passed|Failed|Timeout" $X/ctest_gpu.log | head
echo "done $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf g2.tgz g2 && rm -rf g2

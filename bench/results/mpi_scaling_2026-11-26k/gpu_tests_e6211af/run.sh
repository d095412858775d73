#!/usr/bin/env bash
# final GPU tests of HEAD on 2 GPUs, with the real matrices
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps; ln -sfn ../.peers .peers
source scripts/gpu-mpi.sh --env
X=$OUT/g1; mkdir -p $X /opt/b/build-gpu; rm -rf build-gpu; ln -sfn /opt/b/build-gpu build-gpu
cp COMMIT $X/; { nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
T0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi \
  -DGSOLVE_MATRICES=$PWD/.peers/matrices > $X/cmake.log 2>&1
cmake --build build-gpu -j 32 >> $X/cmake.log 2>&1 || { tail -30 $X/cmake.log; exit 1; }
grep "real matrices" $X/cmake.log; echo "built $(( $(date +%s) - T0 )) s"
(cd build-gpu && timeout 280 ctest -L gpu -j 3 --output-on-failure > $X/ctest_gpu.log 2>&1); grep -E "tests passed|Failed|Timeout|check failed|FAIL" $X/ctest_gpu.log | head
echo "gpu tests done $(( $(date +%s) - T0 )) s"
rm -f $X/cmake.log
cd $OUT && tar czf g1.tgz g1 && rm -rf g1

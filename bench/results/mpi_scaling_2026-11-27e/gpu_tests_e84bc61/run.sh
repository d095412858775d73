#!/usr/bin/env bash
# final: build HEAD (tests, real matrices), ctest -L gpu (one GPU)
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps; ln -sfn ../.pk .pk
source scripts/gpu-mpi.sh --env
X=$OUT/f16; mkdir -p $X /opt/b/build-gpu; rm -rf build-gpu; ln -sfn /opt/b/build-gpu build-gpu
cp COMMIT $X/; { nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
T0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi \
  -DGSOLVE_MATRICES=$PWD/.pk/matrices > /opt/b/cmake.log 2>&1
cmake --build build-gpu -j 32 >> /opt/b/cmake.log 2>&1 || { tail -30 /opt/b/cmake.log; exit 1; }
grep "real matrices" /opt/b/cmake.log; echo "built $(( $(date +%s) - T0 )) s"
(cd build-gpu && timeout 300 ctest -L gpu -j 3 --output-on-failure > $X/ctest_gpu.log 2>&1); grep -E "tests passed|Failed|Timeout|check failed|FAIL|Total Test" $X/ctest_gpu.log | head
echo "gpu tests done $(( $(date +%s) - T0 )) s"

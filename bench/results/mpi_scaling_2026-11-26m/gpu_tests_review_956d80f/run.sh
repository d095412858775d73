#!/usr/bin/env bash
# review commit: build HEAD with tests; the distributed GPU tests and the pinned-upload GPU test
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps
source scripts/gpu-mpi.sh --env
X=$OUT/r1; mkdir -p $X /opt/b/new; cp COMMIT $X/; { nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
T0=$(date +%s)
cmake -S . -B /opt/b/new -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi > /opt/b/cmake.log 2>&1
cmake --build /opt/b/new -j 64 >> /opt/b/cmake.log 2>&1 || { tail -30 /opt/b/cmake.log; exit 1; }
echo "built $(( $(date +%s) - T0 )) s"
(cd /opt/b/new && timeout 150 ctest -L gpu -R "test_dist_gpu_mpi2|test_dist_gpu_mpi3|test_dist_ops_gpu|mpi_gpu|test_pinned_upload_gpu" -j 5 --output-on-failure > $X/ctest_gpu.log 2>&1); grep -E "tests passed|Failed|Timeout|check failed|FAIL" $X/ctest_gpu.log | head
echo "done $(( $(date +%s) - T0 )) s"; cd $OUT && tar czf r1.tgz r1

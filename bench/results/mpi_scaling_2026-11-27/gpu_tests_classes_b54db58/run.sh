#!/usr/bin/env bash
# build HEAD (tests, real matrices), ctest -L gpu on the 4-GPU machine, AMG classes beside hypre (GPU 0)
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps; ln -sfn ../.peers .peers
source scripts/gpu-mpi.sh --env
X=$OUT/f11; mkdir -p $X /opt/b/build-gpu; rm -rf build-gpu; ln -sfn /opt/b/build-gpu build-gpu
cp COMMIT $X/; { nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
T0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi \
  -DGSOLVE_MATRICES=$PWD/.peers/matrices > /opt/b/cmake.log 2>&1
[ -x build-gpu/gsolve ] || cmake --build build-gpu -j 64 >> /opt/b/cmake.log 2>&1 || { tail -30 /opt/b/cmake.log; exit 1; }
grep "real matrices" /opt/b/cmake.log; echo "built $(( $(date +%s) - T0 )) s"
(cd build-gpu && timeout 240 ctest -L gpu -j 3 --output-on-failure > $X/ctest_gpu.log 2>&1); grep -E "tests passed|Failed|Timeout|check failed|FAIL" $X/ctest_gpu.log | head
echo "gpu tests done $(( $(date +%s) - T0 )) s"
gunzip -c .peers/ij-hypre3.1-cuda13-sm90.gz > /opt/b/ij1; chmod +x /opt/b/ij1
CUDA_VISIBLE_DEVICES=0 timeout 250 bash bench/results/run_amg_classes.sh /opt/b/ij1 $X/classes > $X/classes.out 2>&1
echo "classes rc=$? $(( $(date +%s) - T0 )) s"; tail -14 $X/classes.out
cd $OUT && tar czf f11.tgz f11 && rm -rf f11

#!/usr/bin/env bash
# final: build HEAD (tests, real matrices), ctest -L gpu, then the AMG classes beside hypre 3.1 (one GPU)
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps; ln -sfn ../.pk .pk
source scripts/gpu-mpi.sh --env
X=$OUT/f14; mkdir -p $X /opt/b/build-gpu; rm -rf build-gpu; ln -sfn /opt/b/build-gpu build-gpu
cp COMMIT $X/; { nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
pack() { (cd $OUT && tar czf f14.tgz f14); }
T0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi \
  -DGSOLVE_MATRICES=$PWD/.pk/matrices > /opt/b/cmake.log 2>&1
cmake --build build-gpu -j 32 >> /opt/b/cmake.log 2>&1 || { tail -30 /opt/b/cmake.log; exit 1; }
grep "real matrices" /opt/b/cmake.log; echo "built $(( $(date +%s) - T0 )) s"
(cd build-gpu && timeout 200 ctest -L gpu -j 3 --output-on-failure > $X/ctest_gpu.log 2>&1); grep -E "tests passed|Failed|Timeout|check failed|FAIL" $X/ctest_gpu.log | head
echo "gpu tests done $(( $(date +%s) - T0 )) s"; pack
gunzip -c .pk/ij-hypre3.1-cuda13-sm90.gz > /opt/b/ij1; chmod +x /opt/b/ij1
timeout 230 bash bench/results/run_amg_classes.sh /opt/b/ij1 $X/classes > $X/classes.out 2>&1
echo "classes rc=$? $(( $(date +%s) - T0 )) s" | tee -a $X/classes.out; tail -24 $X/classes.out; pack

#!/usr/bin/env bash
# new (.snap HEAD) vs old (old.tar): build both, GPU tests of new, A/B at 1 and 2 GPUs, traces, elasticity A/B
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps; ln -sfn ../.peers .peers
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/a2; mkdir -p $X /opt/b/new /opt/b/oldsrc
{ nvidia-smi -L; nproc; date -u; cat COMMIT; } > $X/gpus.txt; cp COMMIT $X/
T0=$(date +%s)
CM="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi"
tar xf old.tar -C /opt/b/oldsrc
(cmake -S /opt/b/oldsrc -B /opt/b/old $CM -DGSOLVE_TESTS=OFF > $X/cmake_old.log 2>&1 && cmake --build /opt/b/old -j 10 --target gsolve >> $X/cmake_old.log 2>&1; echo "old rc=$?" >> $X/cmake_old.log) &
rm -rf build-gpu; ln -sfn /opt/b/new build-gpu
cmake -S . -B build-gpu $CM -DGSOLVE_MATRICES=$PWD/.peers/matrices > $X/cmake.log 2>&1
cmake --build build-gpu -j 22 >> $X/cmake.log 2>&1 || { tail -30 $X/cmake.log; exit 1; }
grep "real matrices" $X/cmake.log
wait; tail -1 $X/cmake_old.log
echo "built $(( $(date +%s) - T0 )) s"
(cd build-gpu && timeout 270 ctest -L gpu -j 3 --output-on-failure > $X/ctest_gpu.log 2>&1); grep -E "tests passed|Failed|Timeout|check failed|FAIL" $X/ctest_gpu.log | head
echo "gpu tests $(( $(date +%s) - T0 )) s"
P=problem.generate
r() { # name np nz [--set..]
  n=$1; np=$2; nz=$3; shift 3
  for k in 1 2 3; do for v in old new; do timeout 60 $MPIRUN -np $np /opt/b/$v/gsolve configs/quickstart.cfg --set solver.preconditioner=amg \
     --set $P.size=256 --set $P.nz=$nz "$@" > $X/${n}_${v}_$k.log 2>&1; done; done
  for v in old new; do echo "$n $v: $(grep -h '^time' $X/${n}_${v}_[123].log | awk '{printf "%s+%s=%s | ", $6, $9, $12}') its $(grep -o 'after [0-9]*' $X/${n}_${v}_3.log)"; done
}
r w1 1 256
r s2 2 256
r w2 2 512
for v in old new; do timeout 60 $MPIRUN -np 2 /opt/b/$v/gsolve configs/quickstart.cfg --set solver.preconditioner=amg --set $P.size=256 --set $P.nz=512 --set output.verbosity=3 > $X/trace_w2_$v.log 2>&1; done
e() { n=$1; shift; for k in 1 2; do for v in old new; do /opt/b/$v/gsolve configs/quickstart.cfg --set solver.preconditioner=amg "$@" > $X/${n}_${v}_$k.log 2>&1; done; done
  for v in old new; do echo "$n $v: $(grep -h '^time' $X/${n}_${v}_[12].log | awk '{printf "%s+%s | ", $6, $9}') its $(grep -o 'after [0-9]*' $X/${n}_${v}_2.log) $(grep -o 'true.*' $X/${n}_${v}_2.log)"; done; }
e e3d32 --set $P.type=elasticity --set $P.stencil=27 --set $P.size=32
e e3d64 --set $P.type=elasticity --set $P.stencil=27 --set $P.size=64
echo "done $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf a2.tgz a2 && rm -rf a2

#!/usr/bin/env bash
# A/B of the IPC send change at 1 and 2 GPUs: old (old.tar) vs new (.snap), alternating; dist GPU tests of new
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps; ln -sfn ../.peers .peers
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/a1; mkdir -p $X /opt/b/new /opt/b/oldsrc
{ nvidia-smi -L; date -u; cat COMMIT; } > $X/gpus.txt
T0=$(date +%s)
CM="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi"
tar xf old.tar -C /opt/b/oldsrc
(cmake -S /opt/b/oldsrc -B /opt/b/old $CM -DGSOLVE_TESTS=OFF > $X/cmake_old.log 2>&1 && cmake --build /opt/b/old -j 12 --target gsolve >> $X/cmake_old.log 2>&1; echo "old rc=$?" >> $X/cmake_old.log) &
rm -rf build-gpu; ln -sfn /opt/b/new build-gpu
cmake -S . -B build-gpu $CM > $X/cmake.log 2>&1
cmake --build build-gpu -j 20 >> $X/cmake.log 2>&1 || { tail -30 $X/cmake.log; exit 1; }
wait; tail -1 $X/cmake_old.log
echo "built $(( $(date +%s) - T0 )) s"
(cd build-gpu && timeout 200 ctest -R "dist|mpi" -j 2 --output-on-failure > $X/ctest_dist.log 2>&1); grep -E "tests passed|Failed|Timeout|\*\*\*" $X/ctest_dist.log | head
echo "tests $(( $(date +%s) - T0 )) s"
P=problem.generate
r() { # name np nz
  n=$1; np=$2; nz=$3; shift 3
  for k in 1 2 3; do for v in old new; do timeout 60 $MPIRUN -np $np /opt/b/$v/gsolve configs/quickstart.cfg --set solver.preconditioner=amg \
     --set $P.size=256 --set $P.nz=$nz "$@" > $X/${n}_${v}_$k.log 2>&1; done; done
  for v in old new; do echo "$n $v: $(grep -h '^time' $X/${n}_${v}_[123].log | awk '{printf "%s+%s=%s %s | ", $5, $7, $9, $11}') its $(grep -o 'after [0-9]*' $X/${n}_${v}_3.log)"; done
}
r w1 1 256
r s2 2 256
r w2 2 512
r j2 2 256 --set $P.type=jumps
echo "done $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf a1.tgz a1 && rm -rf a1

#!/usr/bin/env bash
# new (.snap HEAD) vs old (old.tar = 87b6932): build both, dist/MPI GPU tests of new, A/B at strong 4 and weak 4
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/a6; mkdir -p $X /opt/b/new /opt/b/oldsrc
pack() { (cd $OUT && tar czf a6.tgz a6); }
{ nvidia-smi -L; nproc; date -u; cat COMMIT; } > $X/gpus.txt; cp COMMIT $X/
T0=$(date +%s)
CM="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi"
tar xf old.tar -C /opt/b/oldsrc
(cmake -S /opt/b/oldsrc -B /opt/b/old $CM -DGSOLVE_TESTS=OFF > /opt/b/cmake_old.log 2>&1 && cmake --build /opt/b/old -j 20 --target gsolve >> /opt/b/cmake_old.log 2>&1; echo "old rc=$?" >> /opt/b/cmake_old.log) &
rm -rf build-gpu; ln -sfn /opt/b/new build-gpu
cmake -S . -B build-gpu $CM > /opt/b/cmake.log 2>&1
cmake --build build-gpu -j 44 >> /opt/b/cmake.log 2>&1 || { tail -30 /opt/b/cmake.log; exit 1; }
wait; tail -1 /opt/b/cmake_old.log
echo "built $(( $(date +%s) - T0 )) s"
(cd build-gpu && timeout 240 ctest -L gpu -R "dist|spgemm|amg|pinned|mpi_gpu" -j 4 --output-on-failure > $X/ctest_gpu.log 2>&1); grep -E "tests passed|Failed|Timeout|check failed|FAIL" $X/ctest_gpu.log | head
echo "gpu tests $(( $(date +%s) - T0 )) s"; pack
P=problem.generate
r() { # name np ny nz reps variants...: variant old | new | new:KEY=VAL
  n=$1; np=$2; ny=$3; nz=$4; reps=$5; shift 5
  for k in $(seq $reps); do for v in "$@"; do
    b=${v%%:*}; s=(); [ "$v" != "$b" ] && s=(--set "${v#*:}")
    timeout 40 $MPIRUN -np $np /opt/b/$b/gsolve configs/quickstart.cfg --set solver.preconditioner=amg \
     --set $P.size=256 --set $P.ny=$ny --set $P.nz=$nz "${s[@]}" > $X/${n}_${v//[:=.]/_}_$k.log 2>&1; done; done
  for v in "$@"; do echo "$n $v: $(grep -h '^time' $X/${n}_${v//[:=.]/_}_[0-9].log | awk '{printf "%s+%s=%s | ", $6, $9, $12}') its $(grep -o 'after [0-9]*' $X/${n}_${v//[:=.]/_}_1.log) $(grep -o '[0-9]* levels across' $X/${n}_${v//[:=.]/_}_1.log)"; done
  pack
}
r w1 1 256 256 2 old new
r s4 4 256 256 3 old new
echo "s4 $(( $(date +%s) - T0 )) s"
r w4 4 512 512 3 old new
echo "w4 $(( $(date +%s) - T0 )) s"
GSOLVE_SPGEMM_TRACE=1 GSOLVE_DIST_PROFILE=1 timeout 40 $MPIRUN -np 4 /opt/b/new/gsolve configs/quickstart.cfg --set solver.preconditioner=amg --set $P.size=256 --set $P.ny=512 --set $P.nz=512 --set output.verbosity=3 > $X/w4_prof_new.log 2>&1
GSOLVE_DIST_PROFILE=1 timeout 40 $MPIRUN -np 4 /opt/b/new/gsolve configs/quickstart.cfg --set solver.preconditioner=amg --set $P.size=256 --set output.verbosity=3 > $X/s4_prof_new.log 2>&1
GSOLVE_SPGEMM_TRACE=1 timeout 40 $MPIRUN -np 1 /opt/b/new/gsolve configs/quickstart.cfg --set solver.preconditioner=amg --set $P.size=256 --set output.verbosity=3 > $X/w1_trace_new.log 2>&1
grep -h "upload and split\|F's SpMV\|R = P" $X/w4_prof_new.log | head -8
echo "done $(( $(date +%s) - T0 )) s"; pack

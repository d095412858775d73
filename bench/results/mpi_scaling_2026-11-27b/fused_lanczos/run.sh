#!/usr/bin/env bash
# new (.snap working tree) vs old (old.tar = HEAD): A/B strong 4, weak 4; traces of small problems (fixed costs)
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/h1; mkdir -p $X /opt/b/new /opt/b/oldsrc
pack() { (cd $OUT && tar czf h1.tgz h1); }
{ nvidia-smi -L; nproc; date -u; cat COMMIT; } > $X/gpus.txt
T0=$(date +%s)
CM="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi -DGSOLVE_TESTS=OFF"
tar xf old.tar -C /opt/b/oldsrc
(cmake -S /opt/b/oldsrc -B /opt/b/old $CM > /opt/b/cmake_old.log 2>&1 && cmake --build /opt/b/old -j 30 --target gsolve >> /opt/b/cmake_old.log 2>&1; echo "old rc=$?" >> /opt/b/cmake_old.log) &
rm -rf build-gpu; ln -sfn /opt/b/new build-gpu
cmake -S . -B build-gpu $CM > /opt/b/cmake.log 2>&1
cmake --build build-gpu -j 34 --target gsolve >> /opt/b/cmake.log 2>&1 || { tail -30 /opt/b/cmake.log; exit 1; }
wait; tail -1 /opt/b/cmake_old.log
echo "built $(( $(date +%s) - T0 )) s"
P=problem.generate
r() { # name np size ny nz reps variants...
  n=$1; np=$2; sz=$3; ny=$4; nz=$5; reps=$6; shift 6
  for k in $(seq $reps); do for v in "$@"; do
    timeout 40 $MPIRUN -np $np /opt/b/$v/gsolve configs/quickstart.cfg --set solver.preconditioner=amg \
     --set $P.size=$sz --set $P.ny=$ny --set $P.nz=$nz > $X/${n}_${v}_$k.log 2>&1; done; done
  for v in "$@"; do echo "$n $v: $(grep -h '^time' $X/${n}_${v}_[0-9].log | awk '{printf "%s+%s=%s | ", $6, $9, $12}') its $(grep -o 'after [0-9]*' $X/${n}_${v}_1.log)"; done
  pack
}
r s4 4 256 256 256 4 old new
r w1 1 256 256 256 1 old new
r w4 4 256 512 512 2 old new
r t4 4 64 64 64 3 old new
r t1 1 64 64 64 2 old new
echo "ab $(( $(date +%s) - T0 )) s"
for c in "4 256" "4 64" "1 64" "4 128" "1 128"; do set -- $c
  GSOLVE_DIST_PROFILE=1 timeout 40 $MPIRUN -np $1 /opt/b/new/gsolve configs/quickstart.cfg --set solver.preconditioner=amg --set $P.size=$2 --set output.verbosity=3 > $X/prof_np$1_$2.log 2>&1
done
echo "done $(( $(date +%s) - T0 )) s"; pack

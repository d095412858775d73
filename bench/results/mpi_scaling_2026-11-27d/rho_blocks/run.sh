#!/usr/bin/env bash
# A/B: old (.snap = e37549a) against the working tree (level rho from the ranks' diagonal blocks)
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT/.snap"
ln -sfn ../.devdeps .devdeps
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/j1; mkdir -p $X /opt/b/old /opt/b/new
pack() { (cd $OUT && tar czf j1.tgz j1); }
{ nvidia-smi -L; nproc; date -u; cat COMMIT; } > $X/gpus.txt
T0=$(date +%s)
CM="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi -DGSOLVE_TESTS=OFF"
( cmake -S "$ROOT/.snap" -B /opt/b/old $CM > /opt/b/old.log 2>&1 && cmake --build /opt/b/old -j 32 --target gsolve >> /opt/b/old.log 2>&1 ) &
( cmake -S "$ROOT" -B /opt/b/new $CM > /opt/b/new.log 2>&1 && cmake --build /opt/b/new -j 32 --target gsolve >> /opt/b/new.log 2>&1 ) &
wait
[ -x /opt/b/old/gsolve ] || { tail -30 /opt/b/old.log; exit 1; }
[ -x /opt/b/new/gsolve ] || { tail -30 /opt/b/new.log; exit 1; }
echo "built $(( $(date +%s) - T0 )) s"
P=problem.generate
r() { # name np ny nz type reps
  n=$1; np=$2; ny=$3; nz=$4; ty=$5; reps=$6
  for k in $(seq $reps); do for v in old new; do
    timeout 40 $MPIRUN -np $np /opt/b/$v/gsolve configs/quickstart.cfg --set solver.preconditioner=amg \
     --set $P.type=$ty --set $P.size=256 --set $P.ny=$ny --set $P.nz=$nz > $X/${n}_${v}_$k.log 2>&1; done; done
  for v in old new; do echo "$n $v: $(grep -h '^time' $X/${n}_${v}_[0-9].log | awk '{printf "%s+%s=%s | ", $6, $9, $12}') its $(grep -o 'after [0-9]*' $X/${n}_${v}_1.log) amg $(grep -ho 'setup [0-9.]* ms' $X/${n}_${v}_[0-9].log | awk '{printf "%s ", $2}')"; done
  pack
}
r s4 4 256 256 poisson 5
r s1 1 256 256 poisson 2
r j4 4 256 256 jumps 2
r w4 4 512 512 poisson 2
echo "runs $(( $(date +%s) - T0 )) s"
for v in old new; do
timeout 40 $MPIRUN -np 4 /opt/b/$v/gsolve configs/quickstart.cfg --set solver.preconditioner=amg --set $P.size=256 --set output.verbosity=3 > $X/s4_prof_$v.log 2>&1
done
echo "done $(( $(date +%s) - T0 )) s"; pack

#!/usr/bin/env bash
# one GPU: old (87b6932) vs new (.snap HEAD) on the elasticity classes and 7-point 128^3: setup, rap; SpGEMM traces of elast3d-32
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps
source scripts/gpu-mpi.sh --env > /dev/null 2>&1
export PATH=/usr/local/cuda/bin:$PATH
X=$OUT/t1; mkdir -p $X /opt/b/oldsrc
{ nvidia-smi -L; date -u; cat COMMIT; } > $X/gpus.txt
T0=$(date +%s)
CM="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGSOLVE_TESTS=OFF -DGSOLVE_MPI=OFF"
tar xf old.tar -C /opt/b/oldsrc
(cmake -S /opt/b/oldsrc -B /opt/b/old $CM > /opt/b/cmake_old.log 2>&1 && cmake --build /opt/b/old -j 30 --target gsolve >> /opt/b/cmake_old.log 2>&1; echo "old rc=$?" >> /opt/b/cmake_old.log) &
(cmake -S . -B /opt/b/new $CM > /opt/b/cmake.log 2>&1 && cmake --build /opt/b/new -j 30 --target gsolve >> /opt/b/cmake.log 2>&1; echo "new rc=$?" >> /opt/b/cmake.log) &
wait; tail -n 3 /opt/b/cmake_old.log /opt/b/cmake.log; echo "built $(( $(date +%s) - T0 )) s"
P=problem.generate
r() { # name, --set args
  n=$1; shift
  for k in 1 2 3; do for b in old new; do
    /opt/b/$b/gsolve configs/quickstart.cfg --set solver.preconditioner=amg --set solver.max_iters=1000 --set output.csv=$X/${n}_$b.csv "$@" > $X/${n}_$b.log 2>&1
  done; done
  for b in old new; do echo "$n $b: $(python3 -c "
import csv
r=list(csv.DictReader(open('$X/${n}_$b.csv')))
print(' | '.join('%.1f+%.1f rap %.2f its %s'%(1e3*float(x['setup_s']),1e3*float(x['solve_s']),1e3*float(x['rap_s']),x['iterations']) for x in r))")"; done
}
r elast3d-32 --set $P.type=elasticity --set $P.stencil=27 --set $P.size=32
r elast3d-64 --set $P.type=elasticity --set $P.stencil=27 --set $P.size=64
r elast2d-512 --set $P.type=elasticity --set $P.stencil=9 --set $P.size=512
r jumps-128 --set $P.type=jumps --set $P.size=128
r poisson7-128 --set $P.size=128
for b in old new; do GSOLVE_SPGEMM_TRACE=1 /opt/b/$b/gsolve configs/quickstart.cfg --set solver.preconditioner=amg --set $P.type=elasticity --set $P.stencil=27 --set $P.size=64 > $X/trace_e64_$b.log 2>&1; done
grep -h "^spgemm" $X/trace_e64_old.log | cut -c1-230; echo; grep -h "^spgemm" $X/trace_e64_new.log | cut -c1-230
echo "done $(( $(date +%s) - T0 )) s"; cd $OUT && tar czf t1.tgz t1

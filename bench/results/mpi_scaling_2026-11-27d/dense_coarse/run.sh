#!/usr/bin/env bash
# experiments on the working tree: dense coarse solve sizes (cuSOLVER timing, coarse_size=2000), block rho env
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/k1; mkdir -p $X /opt/b/new
pack() { (cd $OUT && tar czf k1.tgz k1); }
{ nvidia-smi -L; nproc; date -u; git rev-parse --short HEAD 2>/dev/null; } > $X/gpus.txt
T0=$(date +%s)
CM="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi -DGSOLVE_TESTS=OFF"
( cmake -S "$ROOT" -B /opt/b/new $CM > /opt/b/new.log 2>&1 && cmake --build /opt/b/new -j 32 --target gsolve >> /opt/b/new.log 2>&1 ) &
NVCC=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc 2>/dev/null | head -1)
$NVCC -O2 -arch=sm_90 .devscripts/dense.cu -lcusolver -o /opt/b/dense > $X/dense_build.log 2>&1
wait
[ -x /opt/b/new/gsolve ] || { tail -30 /opt/b/new.log; exit 1; }
echo "built $(( $(date +%s) - T0 )) s"
for n in 113 500 1429 1688 3000; do CUDA_VISIBLE_DEVICES=0 /opt/b/dense $n | tail -2; done > $X/dense.txt 2>&1; cat $X/dense.txt
P=problem.generate
G=/opt/b/new/gsolve
run() { # name np env... -- args
  n=$1; np=$2; shift 2
  timeout 60 env "$@" $MPIRUN -np $np $G configs/quickstart.cfg --set solver.preconditioner=amg --set $P.size=256 $ARGS > $X/$n.log 2>&1
}
for k in 1 2 3; do
  ARGS="" run s4_def_$k 4 X=1
  ARGS="--set amg.coarse_size=2000" run s4_cs_$k 4 X=1
  ARGS="" run s4_rb_$k 4 GS_RHOBLK=1
done
for k in 1 2; do
  ARGS="" run s1_def_$k 1 X=1
  ARGS="--set amg.coarse_size=2000" run s1_cs_$k 1 X=1
done
ARGS="--set output.verbosity=3" run s1_prof_def 1 X=1
ARGS="--set output.verbosity=3 --set amg.coarse_size=2000" run s1_prof_cs 1 X=1
for f in $X/s*_[0-9].log; do echo "$(basename $f .log): $(grep -h '^time' $f | awk '{printf "%s+%s=%s", $6, $9, $12}') $(grep -o 'after [0-9]*' $f) $(grep -o 'setup [0-9.]* ms: .*' $f)"; done
echo "done $(( $(date +%s) - T0 )) s"; pack

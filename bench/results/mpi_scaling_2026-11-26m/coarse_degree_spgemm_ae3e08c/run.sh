#!/usr/bin/env bash
# HEAD + wip (GSOLVE_DIST_COARSE_DEGREE knob): the degree of Chebyshev on distributed coarse levels at s4/w4; SpGEMM stage traces at w1/w4
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/d6; mkdir -p $X /opt/b/new
pack() { (cd $OUT && tar czf d6.tgz d6); }
{ nvidia-smi -L; nproc; date -u; cat COMMIT; } > $X/gpus.txt; cp COMMIT wip.diff $X/
T0=$(date +%s)
CM="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi"
cmake -S . -B /opt/b/new $CM -DGSOLVE_TESTS=OFF > /opt/b/cmake.log 2>&1
cmake --build /opt/b/new -j 64 --target gsolve >> /opt/b/cmake.log 2>&1 || { tail -30 /opt/b/cmake.log; exit 1; }
echo "built $(( $(date +%s) - T0 )) s"
P=problem.generate
r() { # name np ny nz reps degrees...
  n=$1; np=$2; ny=$3; nz=$4; reps=$5; shift 5
  for k in $(seq $reps); do for d in "$@"; do
    GSOLVE_DIST_COARSE_DEGREE=$d timeout 40 $MPIRUN -np $np /opt/b/new/gsolve configs/quickstart.cfg --set solver.preconditioner=amg \
     --set $P.size=256 --set $P.ny=$ny --set $P.nz=$nz > $X/${n}_d${d}_$k.log 2>&1; done; done
  for d in "$@"; do echo "$n deg $d: $(grep -h '^time' $X/${n}_d${d}_*.log | awk '{printf "%s+%s=%s | ", $6, $9, $12}') its $(grep -o 'after [0-9]*' $X/${n}_d${d}_1.log)"; done
  pack
}
r w1 1 256 256 2 0
r s4 4 256 256 2 0 3 5 6
r w4 4 512 512 2 0 3 5 6
echo "runs $(( $(date +%s) - T0 )) s"
GSOLVE_SPGEMM_TRACE=1 timeout 40 $MPIRUN -np 1 /opt/b/new/gsolve configs/quickstart.cfg --set solver.preconditioner=amg --set $P.size=256 --set output.verbosity=3 > $X/w1_spgemm.log 2>&1
GSOLVE_SPGEMM_TRACE=1 timeout 40 $MPIRUN -np 4 /opt/b/new/gsolve configs/quickstart.cfg --set solver.preconditioner=amg --set $P.size=256 --set $P.ny=512 --set $P.nz=512 --set output.verbosity=3 > $X/w4_spgemm.log 2>&1
echo "done $(( $(date +%s) - T0 )) s"; pack

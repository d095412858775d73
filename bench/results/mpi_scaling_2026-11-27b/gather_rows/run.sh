#!/usr/bin/env bash
# sweep amg.gather_rows on HEAD: strong 2/4, weak 2/4, jumps strong 4; profile strong 4 at 100000
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/g4; mkdir -p $X /opt/b/new
pack() { (cd $OUT && tar czf g4.tgz g4); }
{ nvidia-smi -L; nproc; date -u; cat COMMIT; } > $X/gpus.txt
T0=$(date +%s)
CM="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi -DGSOLVE_TESTS=OFF"
rm -rf build-gpu; ln -sfn /opt/b/new build-gpu
cmake -S . -B build-gpu $CM > /opt/b/cmake.log 2>&1
cmake --build build-gpu -j 64 --target gsolve >> /opt/b/cmake.log 2>&1 || { tail -30 /opt/b/cmake.log; exit 1; }
echo "built $(( $(date +%s) - T0 )) s"
P=problem.generate
r() { # name np ny nz type reps gathers...
  n=$1; np=$2; ny=$3; nz=$4; ty=$5; reps=$6; shift 6
  for k in $(seq $reps); do for g in "$@"; do
    timeout 40 $MPIRUN -np $np build-gpu/gsolve configs/quickstart.cfg --set solver.preconditioner=amg \
     --set $P.type=$ty --set $P.size=256 --set $P.ny=$ny --set $P.nz=$nz --set amg.gather_rows=$g > $X/${n}_${g}_$k.log 2>&1; done; done
  for g in "$@"; do echo "$n $g: $(grep -h '^time' $X/${n}_${g}_[0-9].log | awk '{printf "%s+%s=%s | ", $6, $9, $12}') its $(grep -o 'after [0-9]*' $X/${n}_${g}_1.log) $(grep -o '[0-9]* levels across' $X/${n}_${g}_1.log)"; done
  pack
}
r w1 1 256 256 poisson 2 20000
r s4 4 256 256 poisson 3 20000 50000 100000 200000
echo "s4 $(( $(date +%s) - T0 )) s"
r s2 2 256 256 poisson 2 20000 100000
r w2 2 256 512 poisson 2 20000 100000
r w4 4 512 512 poisson 2 20000 100000 200000
r j4 4 256 256 jumps 2 20000 100000
echo "sweeps $(( $(date +%s) - T0 )) s"
GSOLVE_DIST_PROFILE=1 timeout 40 $MPIRUN -np 4 build-gpu/gsolve configs/quickstart.cfg --set solver.preconditioner=amg --set $P.size=256 --set amg.gather_rows=100000 --set output.verbosity=3 > $X/s4_prof_100000.log 2>&1
echo "done $(( $(date +%s) - T0 )) s"; pack

#!/usr/bin/env bash
# HEAD: host threads a rank and CPU binding at strong 4 / weak 4 (run.threads, mpirun --bind-to core)
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/h2; mkdir -p $X /opt/b/new
pack() { (cd $OUT && tar czf h2.tgz h2); }
{ nvidia-smi -L; nproc; date -u; cat COMMIT; echo "MPIRUN=$MPIRUN"; } > $X/gpus.txt
T0=$(date +%s)
CM="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi -DGSOLVE_TESTS=OFF"
rm -rf build-gpu; ln -sfn /opt/b/new build-gpu
cmake -S . -B build-gpu $CM > /opt/b/cmake.log 2>&1
cmake --build build-gpu -j 64 --target gsolve >> /opt/b/cmake.log 2>&1 || { tail -30 /opt/b/cmake.log; exit 1; }
echo "built $(( $(date +%s) - T0 )) s"
P=problem.generate
BIND="--map-by slot:PE=16 --bind-to core"
r() { # name np ny nz reps variants (def | t1 | t4 | bind)
  n=$1; np=$2; ny=$3; nz=$4; reps=$5; shift 5
  for k in $(seq $reps); do for v in "$@"; do
    s=(); m="$MPIRUN"
    case $v in t1) s=(--set run.threads=1);; t4) s=(--set run.threads=4);; bind) m="$MPIRUN $BIND";; esac
    timeout 40 $m -np $np build-gpu/gsolve configs/quickstart.cfg --set solver.preconditioner=amg \
     --set $P.size=256 --set $P.ny=$ny --set $P.nz=$nz "${s[@]}" > $X/${n}_${v}_$k.log 2>&1; done; done
  for v in "$@"; do echo "$n $v: $(grep -h '^time' $X/${n}_${v}_[0-9].log | awk '{printf "%s+%s=%s | ", $6, $9, $12}') its $(grep -o 'after [0-9]*' $X/${n}_${v}_1.log) $(grep -ho 'threads [0-9]* ([^)]*)' $X/${n}_${v}_1.log | head -1)"; done
  pack
}
r s4 4 256 256 4 def t1 t4 bind
r w1 1 256 256 2 def t1
r w4 4 512 512 2 def t1 bind
echo "done $(( $(date +%s) - T0 )) s"; pack

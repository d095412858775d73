#!/usr/bin/env bash
# counts of kernel launches (gsolve's own; cuSPARSE/CUB not counted), stream syncs (and the time
# waited in them) and memcpy calls in the AMG setup, 1 GPU against 4 (working tree, instrumented)
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/k3; mkdir -p $X /opt/b/cnt
pack() { (cd $OUT && tar czf k3.tgz k3); }
{ nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
T0=$(date +%s)
CM="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi -DGSOLVE_TESTS=OFF"
cmake -S "$ROOT" -B /opt/b/cnt $CM > /opt/b/cnt.log 2>&1 && cmake --build /opt/b/cnt -j 64 --target gsolve >> /opt/b/cnt.log 2>&1
[ -x /opt/b/cnt/gsolve ] || { tail -30 /opt/b/cnt.log; exit 1; }
echo "built $(( $(date +%s) - T0 )) s"
P=problem.generate
for sz in 64 256; do for np in 1 4; do for k in 1 2; do
  timeout 60 $MPIRUN -np $np /opt/b/cnt/gsolve configs/quickstart.cfg --set solver.preconditioner=amg --set $P.size=$sz > $X/c${sz}_${np}_$k.log 2>&1
done
echo "$sz np $np: $(grep -h '^time' $X/c${sz}_${np}_2.log | awk '{printf "%s+%s=%s", $6, $9, $12}') $(grep -ho 'setup [0-9.]* ms:' $X/c${sz}_${np}_2.log)"
grep -h "^COUNTS\|^SITE\|^ranks\|communication" $X/c${sz}_${np}_2.log
done; done
echo "done $(( $(date +%s) - T0 )) s"; pack

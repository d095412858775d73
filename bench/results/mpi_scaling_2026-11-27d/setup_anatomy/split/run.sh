#!/usr/bin/env bash
# per traced step of the 4-GPU setup: wall, time waiting for the GPU (syncs, D2H copies), MPI, and the rest (host)
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/k4; mkdir -p $X /opt/b/cnt
pack() { (cd $OUT && tar czf k4.tgz k4); }
{ nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
T0=$(date +%s)
CM="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi -DGSOLVE_TESTS=OFF"
cmake -S "$ROOT" -B /opt/b/cnt $CM > /opt/b/cnt.log 2>&1 && cmake --build /opt/b/cnt -j 64 --target gsolve >> /opt/b/cnt.log 2>&1
[ -x /opt/b/cnt/gsolve ] || { tail -30 /opt/b/cnt.log; exit 1; }
echo "built $(( $(date +%s) - T0 )) s"
P=problem.generate
for sz in 64 256; do for k in 1 2; do
  timeout 60 $MPIRUN -np 4 /opt/b/cnt/gsolve configs/quickstart.cfg --set solver.preconditioner=amg --set $P.size=$sz --set output.verbosity=3 > $X/t${sz}_$k.log 2>&1
done; done
for sz in 64 256; do echo "== $sz"; grep -h "^HOSTSPLIT" $X/t${sz}_2.log | awk '{w+=$(NF-6); g+=$(NF-4); m+=$(NF-2); h+=$NF} END {printf "sum wall %.2f gpu-wait %.2f mpi %.2f host %.2f\n", w, g, m, h}'; grep -h "^HOSTSPLIT" $X/t${sz}_2.log | awk '{print $NF, $0}' | sort -gr | head -32; done
echo "done $(( $(date +%s) - T0 )) s"; pack

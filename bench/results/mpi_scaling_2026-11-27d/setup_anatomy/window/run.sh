#!/usr/bin/env bash
# the rank-to-rank receive window's first size (GS_A2A_MB, default 16) on the 4-GPU setup
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/k5; mkdir -p $X /opt/b/cnt
pack() { (cd $OUT && tar czf k5.tgz k5); }
{ nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
T0=$(date +%s)
CM="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi -DGSOLVE_TESTS=OFF"
cmake -S "$ROOT" -B /opt/b/cnt $CM > /opt/b/cnt.log 2>&1 && cmake --build /opt/b/cnt -j 64 --target gsolve >> /opt/b/cnt.log 2>&1
[ -x /opt/b/cnt/gsolve ] || { tail -30 /opt/b/cnt.log; exit 1; }
echo "built $(( $(date +%s) - T0 )) s"
P=problem.generate
for mb in 16 256; do
  GS_A2A_MB=$mb timeout 60 $MPIRUN -x GS_A2A_MB -np 4 /opt/b/cnt/gsolve configs/quickstart.cfg --set solver.preconditioner=amg --set $P.size=256 --set output.verbosity=3 > $X/t_$mb.log 2>&1
  echo "== $mb: $(grep -h '^HOSTSPLIT' $X/t_$mb.log | awk '{w+=$(NF-6); g+=$(NF-4); m+=$(NF-2); h+=$NF} END {printf "sum wall %.2f gpu-wait %.2f mpi %.2f host %.2f", w, g, m, h}')"
  grep -h "^HOSTSPLIT" $X/t_$mb.log | awk '{print $(NF-2), $0}' | sort -gr | head -8
  grep -h "^ranks\|at the start" $X/t_$mb.log
done
for k in 1 2 3; do for mb in 16 256; do
  GS_A2A_MB=$mb timeout 60 $MPIRUN -x GS_A2A_MB -np 4 /opt/b/cnt/gsolve configs/quickstart.cfg --set solver.preconditioner=amg --set $P.size=256 > $X/u_${mb}_$k.log 2>&1
done; done
for mb in 16 256; do echo "$mb: $(grep -h '^time' $X/u_${mb}_*.log | awk '{printf "%s+%s=%s | ", $6, $9, $12}')"; done
echo "done $(( $(date +%s) - T0 )) s"; pack

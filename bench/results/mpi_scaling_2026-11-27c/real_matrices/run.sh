#!/usr/bin/env bash
# the final code (working tree) on 4 GPUs with real matrices: 1 rank against 4 (and 4 with
# levels across the ranks forced by amg.gather_rows=500), AMG-PCG on SPD matrices, AMG-BiCGStab
# on nonsymmetric ones; converged, true residual, iterations
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT/.snap"
ln -sfn ../.devdeps .devdeps
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/i2; mkdir -p $X /opt/b/new
pack() { (cd $OUT && tar czf i2.tgz i2); }
{ nvidia-smi -L; nproc; date -u; git -C "$ROOT" rev-parse --short HEAD 2>/dev/null; cat COMMIT; } > $X/gpus.txt
T0=$(date +%s)
CM="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi -DGSOLVE_TESTS=OFF"
cmake -S "$ROOT/.snap" -B /opt/b/new $CM > /opt/b/new.log 2>&1 && cmake --build /opt/b/new -j 64 --target gsolve >> /opt/b/new.log 2>&1 || { tail -30 /opt/b/new.log; exit 1; }
echo "built $(( $(date +%s) - T0 )) s"
M=$ROOT/.pk/matrices
G=/opt/b/new/gsolve
run() { # name np solver extra...
  n=$1; np=$2; s=$3; shift 3
  if [ "$np" = 0 ]; then timeout 60 $G $ROOT/.devscripts/mm.cfg "$@" --set solver.type=$s --set solver.preconditioner=amg --set problem.rhs=Ax > $X/$n.log 2>&1
  else timeout 60 $MPIRUN -np $np $G $ROOT/.devscripts/mm.cfg "$@" --set solver.type=$s --set solver.preconditioner=amg --set problem.rhs=Ax > $X/$n.log 2>&1; fi
  echo "rc=$?" >> $X/$n.log
  printf "%-34s %-10s %s | %s | %s\n" "$n" "$(grep -o 'rc=[0-9]*' $X/$n.log)" "$(grep -ho 'after [0-9]* iterations\|did not converge[^;]*' $X/$n.log | head -1)" "$(grep -ho 'true ||b-Ax||/||b|| = [0-9.e+-]*' $X/$n.log)" "$(grep -ho '[0-9]* levels across ranks\|[0-9]* levels across' $X/$n.log | head -1)"
}
for m in nos6 1138_bus bcsstk13 bcsstk25 lap3d_20 Laplace3D10 cusp_7pt_10x10x10 ginkgo_multigrid_A6525 ani4 amg_match_5000; do
  for np in 0 2 4; do run ${m}_cg_$np $np cg --set problem.matrix=$M/$m.mtx --set solver.rtol=1e-8; done
  run ${m}_cg_4_g500 4 cg --set problem.matrix=$M/$m.mtx --set solver.rtol=1e-8 --set amg.gather_rows=500
done
for m in BentPipe2D100 2dcyl1 cryg2500 bips98_606; do
  for np in 0 4; do run ${m}_bicg_$np $np bicgstab --set problem.matrix=$M/$m.mtx --set solver.rtol=1e-8; done
  run ${m}_bicg_4_g500 4 bicgstab --set problem.matrix=$M/$m.mtx --set solver.rtol=1e-8 --set amg.gather_rows=500
done
echo "done $(( $(date +%s) - T0 )) s"; pack

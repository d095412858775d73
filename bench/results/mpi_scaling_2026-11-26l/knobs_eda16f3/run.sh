#!/usr/bin/env bash
# what candidate changes would buy at 4 GPUs (eda16f3, no code change): settings and env knobs
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps; ln -sfn ../.peers .peers
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/d5; mkdir -p $X /opt/b/build-gpu; rm -rf build-gpu; ln -sfn /opt/b/build-gpu build-gpu
cp COMMIT $X/; { nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
T0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGSOLVE_TESTS=OFF \
  -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi > /opt/b/cmake.log 2>&1
cmake --build build-gpu -j 64 --target gsolve >> /opt/b/cmake.log 2>&1 || { tail -30 /opt/b/cmake.log; exit 1; }
echo "built $(( $(date +%s) - T0 )) s"
P=problem.generate
r() { # name np ny nz [--set ...]: 3 processes
  n=$1; np=$2; ny=$3; nz=$4; shift 4
  for k in 1 2 3; do timeout 60 $MPIRUN -np $np build-gpu/gsolve configs/quickstart.cfg --set solver.preconditioner=amg \
     --set $P.size=256 --set $P.ny=$ny --set $P.nz=$nz "$@" > $X/${n}_$k.log 2>&1; done
  echo "$n: $(grep -h '^time' $X/${n}_[123].log | grep -o 'setup [0-9.]* s  solve [0-9.]* s  total [0-9.]* s' | awk '{printf "%s+%s=%s | ", $2,$5-0,$8}') its $(grep -o 'after [0-9]*' $X/${n}_3.log) $(grep -o '[0-9]* levels' $X/${n}_3.log)"
}
for v in "base" "deg3 --set amg.coarse_chebyshev_degree=3" "cs400 --set amg.coarse_size=400"; do
  set -- $v; n=$1; shift
  r w1_$n 1 256 256 "$@"; r s4_$n 4 256 256 "$@"; r w4_$n 4 512 512 "$@"
done
GSOLVE_DIST_PLAN_BYTES=1000000000 r w4_planhost 4 512 512
GSOLVE_DIST_PLAN_BYTES=0 r s4_plandev 4 256 256
echo "done $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf d5.tgz d5 && rm -rf d5

#!/usr/bin/env bash
# diagnostics: per-iteration solve overhead at 2 GPUs (HEAD build), variants
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps; ln -sfn ../.peers .peers
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/d2; mkdir -p $X /opt/b/build-gpu; rm -rf build-gpu; ln -sfn /opt/b/build-gpu build-gpu
cp COMMIT $X/; { nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
T0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGSOLVE_TESTS=OFF \
  -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi > $X/cmake.log 2>&1
cmake --build build-gpu -j 32 --target gsolve >> $X/cmake.log 2>&1 || { tail -30 $X/cmake.log; exit 1; }
echo "built $(( $(date +%s) - T0 )) s"
P=problem.generate
r() { # name np nz [--set ...]: 3 processes
  n=$1; np=$2; nz=$3; shift 3
  for k in 1 2 3; do timeout 60 $MPIRUN -np $np build-gpu/gsolve configs/quickstart.cfg --set solver.preconditioner=amg \
     --set $P.size=256 --set $P.nz=$nz "$@" > $X/${n}_$k.log 2>&1; done
  echo "$n: $(grep -h '^time' $X/${n}_[123].log | grep -o 'setup [0-9.]* s  solve [0-9.]* s  total [0-9.]* s  ([0-9.]* ms' | awk '{printf "%s+%s=%s %sms | ", $2,$5-0,$8,substr($9,2)}') its $(grep -o 'after [0-9]*' $X/${n}_3.log)"
}
r w1 1 256
r w2 2 512
r s2 2 256
r w1_c3 1 256 --set amg.coarse_chebyshev_degree=3
r w2_c3 2 512 --set amg.coarse_chebyshev_degree=3
r s2_c3 2 256 --set amg.coarse_chebyshev_degree=3
r w2_g 2 512 --set amg.gather_rows=100000
r s2_g 2 256 --set amg.gather_rows=100000
GSOLVE_DIST_GRAPH=0 r w2_ng 2 512
r w1_v3 1 256 --set output.verbosity=3
r w2_v3 2 512 --set output.verbosity=3
GSOLVE_DIST_PROFILE=1 r w2_prof 2 512
echo "done $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf d2.tgz d2 && rm -rf d2

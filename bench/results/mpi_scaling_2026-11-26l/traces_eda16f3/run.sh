#!/usr/bin/env bash
# diagnostics at 4 GPUs: traces (verbosity 3) at 1, strong 4, weak 4; GSOLVE_DIST_PROFILE at weak 4
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps; ln -sfn ../.peers .peers
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/d4; mkdir -p $X
[ -x build-gpu/gsolve ] || { mkdir -p /opt/b/build-gpu; rm -rf build-gpu; ln -sfn /opt/b/build-gpu build-gpu;
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGSOLVE_TESTS=OFF \
  -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi > $X/cmake.log 2>&1;
cmake --build build-gpu -j 64 --target gsolve >> $X/cmake.log 2>&1 || { tail -30 $X/cmake.log; exit 1; }; }
cp COMMIT $X/; { nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
T0=$(date +%s)
P=problem.generate
r() { # name np ny nz [--set ...]: 2 processes
  n=$1; np=$2; ny=$3; nz=$4; shift 4
  for k in 1 2; do timeout 60 $MPIRUN -np $np build-gpu/gsolve configs/quickstart.cfg --set solver.preconditioner=amg \
     --set $P.size=256 --set $P.ny=$ny --set $P.nz=$nz "$@" > $X/${n}_$k.log 2>&1; done
  echo "$n: $(grep -h '^time' $X/${n}_[12].log | grep -o 'setup [0-9.]* s  solve [0-9.]* s  total [0-9.]* s' | awk '{printf "%s+%s=%s | ", $2,$5-0,$8}')"
}
r w1_v3 1 256 256 --set output.verbosity=3
r s4_v3 4 256 256 --set output.verbosity=3
r w4_v3 4 512 512 --set output.verbosity=3
r w4 4 512 512
r s4 4 256 256
GSOLVE_DIST_PROFILE=1 r w4_prof 4 512 512
GSOLVE_DIST_PROFILE=1 r s4_prof 4 256 256
echo "done $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf d4.tgz d4 && rm -rf d4

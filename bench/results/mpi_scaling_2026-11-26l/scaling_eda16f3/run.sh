#!/usr/bin/env bash
# scaling 1 2 4 beside hypre-MPI with the build f7.sh left in /opt/b; tarred so every log comes back
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps; ln -sfn ../.peers .peers
source scripts/gpu-mpi.sh --env
X=$OUT/f8; mkdir -p $X
[ -x /opt/b/build-gpu/gsolve ] || { echo "no build: run f7.sh first"; exit 1; }
rm -rf build-gpu; ln -sfn /opt/b/build-gpu build-gpu
cp COMMIT $X/; { nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
T0=$(date +%s)
gunzip -c .peers/ij-hypre-mpi-cuda13-sm90.gz > /opt/b/ij-mpi; chmod +x /opt/b/ij-mpi
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
N=$(nvidia-smi -L | wc -l); G="1 2"; [ "$N" -ge 4 ] && G="1 2 4"
REPS=3 IJ=/opt/b/ij-mpi timeout 520 bash bench/mpi/scaling.sh $X/scaling $G > $X/scaling.out 2>&1
echo "scaling rc=$? $(( $(date +%s) - T0 )) s"; tail -26 $X/scaling.out
cd $OUT && tar czf f8.tgz f8 && rm -rf f8

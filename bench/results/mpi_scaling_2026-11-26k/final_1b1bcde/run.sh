#!/usr/bin/env bash
# final scaling: build gsolve of HEAD, scaling 1 2 [4] with hypre-MPI
cd "$(dirname "$0")/../.snap"
ln -sfn ../.devdeps .devdeps; ln -sfn ../.peers .peers
source scripts/gpu-mpi.sh --env
X=$OUT/f5; mkdir -p $X /opt/b/build-gpu; rm -rf build-gpu; ln -sfn /opt/b/build-gpu build-gpu
cp COMMIT $X/; { nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
T0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGSOLVE_TESTS=OFF \
  -DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi > $X/cmake.log 2>&1
cmake --build build-gpu -j 32 --target gsolve >> $X/cmake.log 2>&1 || { tail -30 $X/cmake.log; exit 1; }
echo "built $(( $(date +%s) - T0 )) s"
gunzip -c .peers/ij-hypre-mpi-cuda13-sm90.gz > /opt/b/ij-mpi; chmod +x /opt/b/ij-mpi
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
N=$(nvidia-smi -L | wc -l); G="1 2"; [ "$N" -ge 4 ] && G="1 2 4"
REPS=3 IJ=/opt/b/ij-mpi timeout 500 bash bench/mpi/scaling.sh $X/scaling $G > $X/scaling.out 2>&1
echo "scaling rc=$? $(( $(date +%s) - T0 )) s"; tail -24 $X/scaling.out
cd $OUT && tar czf f5.tgz f5 && rm -rf f5

#!/usr/bin/env bash
# candidate (.snap) against e37549a (.snap0) on 4 x H200: build both, ctest -L gpu (candidate),
# A/B alternated (strong 4, 1 GPU, weak 4, jumps 4), the AMG classes beside hypre 3.1 (GPU 0)
R0="$(cd "$(dirname "$0")/.." && pwd)"
cd "$R0/.snap"
ln -sfn ../.devdeps .devdeps; ln -sfn ../.pk .pk
source scripts/gpu-mpi.sh --env
export MPIRUN="$MPIRUN --mca pcompress ^zlib"
X=$OUT/m1; mkdir -p $X /opt/b/build-gpu /opt/b/old; rm -rf build-gpu; ln -sfn /opt/b/build-gpu build-gpu
cp COMMIT $X/; { nvidia-smi -L; nproc; date -u; } > $X/gpus.txt
pack() { (cd $OUT && tar czf m1.tgz m1); }
T0=$(date +%s)
MP="-DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi"
( cmake -S "$R0/.snap0" -B /opt/b/old -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 $MP -DGSOLVE_TESTS=OFF > /opt/b/old.log 2>&1 && cmake --build /opt/b/old -j 24 --target gsolve >> /opt/b/old.log 2>&1 ) &
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 $MP \
  -DGSOLVE_MATRICES=$PWD/.pk/matrices > /opt/b/cmake.log 2>&1
cmake --build build-gpu -j 40 >> /opt/b/cmake.log 2>&1 || { tail -30 /opt/b/cmake.log; exit 1; }
wait
[ -x /opt/b/old/gsolve ] || { tail -20 /opt/b/old.log; exit 1; }
grep "real matrices" /opt/b/cmake.log; echo "built $(( $(date +%s) - T0 )) s"
(cd build-gpu && timeout 200 ctest -L gpu -j 3 --output-on-failure > $X/ctest_gpu.log 2>&1); grep -E "tests passed|Failed|Timeout|check failed|FAIL" $X/ctest_gpu.log | head
echo "gpu tests done $(( $(date +%s) - T0 )) s"; pack
P=problem.generate
ab() { # name np ny nz type reps
  n=$1; np=$2; ny=$3; nz=$4; ty=$5; reps=$6
  for k in $(seq $reps); do for v in old new; do
    g=/opt/b/old/gsolve; [ $v = new ] && g=$PWD/build-gpu/gsolve
    timeout 40 $MPIRUN -np $np $g configs/quickstart.cfg --set solver.preconditioner=amg \
     --set $P.type=$ty --set $P.size=256 --set $P.ny=$ny --set $P.nz=$nz > $X/${n}_${v}_$k.log 2>&1; done; done
  for v in old new; do echo "$n $v: $(grep -h '^time' $X/${n}_${v}_[0-9].log | awk '{printf "%s+%s=%s | ", $6, $9, $12}') its $(grep -o 'after [0-9]*' $X/${n}_${v}_1.log) amg $(grep -ho 'setup [0-9.]* ms' $X/${n}_${v}_[0-9].log | awk '{printf "%s ", $2}')"; done
}
ab s4 4 256 256 poisson 3
ab s1 1 256 256 poisson 2
ab w4 4 512 512 poisson 1
ab j4 4 256 256 jumps 1
echo "A/B done $(( $(date +%s) - T0 )) s"; pack
gunzip -c .pk/ij-hypre3.1-cuda13-sm90.gz > /opt/b/ij1; chmod +x /opt/b/ij1
CUDA_VISIBLE_DEVICES=0 timeout 200 bash bench/results/run_amg_classes.sh /opt/b/ij1 $X/classes > $X/classes.out 2>&1
echo "classes rc=$? $(( $(date +%s) - T0 )) s" | tee -a $X/classes.out; tail -14 $X/classes.out; pack

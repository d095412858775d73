#!/usr/bin/env bash
# scripts/gpu-check.sh OUTDIR: on the GPU machine (see the README), build gsolve with CUDA for
# sm_90, run the test suite (cpu and gpu labels) and the quickstart, and write logs into OUTDIR.
# libconfig is not installed there: its .deb files travel in .devdeps/ (apt-get download
# libconfig9 libconfig-dev) and are unpacked into /opt/devdeps.
set -uo pipefail
out=${1:?usage: scripts/gpu-check.sh OUTDIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! pkg-config --exists libconfig 2>/dev/null && ls "$here"/.devdeps/*.deb >/dev/null 2>&1; then
    for f in "$here"/.devdeps/*.deb; do dpkg -x "$f" /opt/devdeps; done
    pc=/opt/devdeps/usr/lib/x86_64-linux-gnu/pkgconfig/libconfig.pc
    sed -i 's#^prefix=.*#prefix=/opt/devdeps/usr#' "$pc"
    export PKG_CONFIG_PATH=/opt/devdeps/usr/lib/x86_64-linux-gnu/pkgconfig
fi
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    nvcc --version | tail -2
    git -C "$here" rev-parse --short HEAD 2>/dev/null
    date -u
} > "$out/machine.txt" 2>&1
cmake -S "$here" -B "$here/build-gpu" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGSOLVE_MATRICES="$here/shared/matrices" > "$out/configure.log" 2>&1 \
    && cmake --build "$here/build-gpu" -j 16 > "$out/build.log" 2>&1 \
    || { echo "build failed"; tail -40 "$out/configure.log" "$out/build.log"; exit 1; }
(cd "$here/build-gpu" && OMP_NUM_THREADS=2 ctest -j 8 --output-on-failure) > "$out/ctest.log" 2>&1
rc=$?
"$here/build-gpu/gsolve" "$here/configs/quickstart.cfg" > "$out/quickstart.log" 2>&1
echo "ctest exit $rc; quickstart exit $?"
# the standard benchmark: SpMV beside cuSPARSE, CG iteration cost, CG time to solution
"$here/build-gpu/bench/bench_spmv" --md "$out/spmv.md" > "$out/bench_spmv.log" 2>&1
for n in 128 256; do
    "$here/build-gpu/gsolve" --set problem.generate.type=poisson --set problem.generate.size=$n \
        --set solver.preconditioner=none --set solver.max_iters=5000 --set output.csv="$out/cg.csv"
    "$here/build-gpu/gsolve" --set problem.generate.type=poisson --set problem.generate.size=$n \
        --set solver.preconditioner=none --set solver.max_iters=5000 --set output.csv="$out/cg.csv" \
        --set spmv.format=cusparse
done > "$out/cg.log" 2>&1
cat "$out/bench_spmv.log" "$out/cg.log"
tail -15 "$out/ctest.log"
cat "$out/quickstart.log"
exit $rc

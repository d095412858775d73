#!/usr/bin/env bash
# scripts/gpu-mpi.sh OUTDIR [PART ...]: gsolve with MPI on the GPU machine (no MPI installed there,
# no network): Debian's OpenMPI travels as .deb files in .devdeps/mpi/ (on a networked Debian
# machine: the closure of `apt-get download openmpi-bin libopenmpi-dev libopenmpi3`, without the
# compilers and toolchains it recommends), unpacked into /opt/mpi and used from there
# (OPAL_PREFIX; PMIx told where its own plugins are). libconfig as scripts/gpu-check.sh does.
# PARTs (default: all):
#   build  build-gpu/ (CUDA + MPI, tests) and build-nompi/ (-DGSOLVE_MPI=OFF, gsolve only)
#   test   ctest -L gpu, then ctest -L mpi (the ranks share the one GPU)
#   bench  bench/mpi/one_gpu.sh OUTDIR/one 128, bench/mpi/scaling.sh OUTDIR/scale 1 (the one-GPU
#          point of the scaling run)
# `source scripts/gpu-mpi.sh --env` only sets the environment (MPIRUN, PATH, ...).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ ! -d /opt/mpi/usr ]; then
    mkdir -p /opt/mpi /opt/devdeps
    for f in "$here"/.devdeps/mpi/*.deb; do dpkg -x "$f" /opt/mpi; done
    for f in "$here"/.devdeps/*.deb; do dpkg -x "$f" /opt/devdeps; done
    sed -i 's#^prefix=.*#prefix=/opt/devdeps/usr#' \
        /opt/devdeps/usr/lib/x86_64-linux-gnu/pkgconfig/libconfig.pc
fi
export PKG_CONFIG_PATH=/opt/devdeps/usr/lib/x86_64-linux-gnu/pkgconfig
export OPAL_PREFIX=/opt/mpi/usr PATH=/opt/mpi/usr/bin:$PATH
export LD_LIBRARY_PATH=/opt/mpi/usr/lib/x86_64-linux-gnu:/opt/mpi/usr/lib/x86_64-linux-gnu/openmpi/lib:${LD_LIBRARY_PATH:-}
export PMIX_MCA_mca_base_component_path=/opt/mpi/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
export PMIX_MCA_pcompress_base_silence_warning=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export MPIRUN="/opt/mpi/usr/bin/mpirun.openmpi -q --oversubscribe --bind-to none"
[ "${1:-}" = --env ] && return 0 2>/dev/null
set -uo pipefail
out=${1:?usage: scripts/gpu-mpi.sh OUTDIR [build|test|bench ...]}
shift
parts=${*:-build test bench}
has() { [[ " $parts " == *" $1 "* ]]; }
mkdir -p "$out"
cd "$here"
mpi=(-DMPI_C_COMPILER=/opt/mpi/usr/bin/mpicc.openmpi
     -DMPIEXEC_EXECUTABLE=/opt/mpi/usr/bin/mpiexec.openmpi)
if has build; then
    cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${mpi[@]}" \
        -DGSOLVE_MATRICES="$here/../shared/matrices" > "$out/configure.log" 2>&1 &&
        cmake --build build-gpu -j "$(nproc)" > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
    cmake -S . -B build-nompi -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DGSOLVE_MPI=OFF -DGSOLVE_TESTS=OFF > "$out/configure-nompi.log" 2>&1 &&
        cmake --build build-nompi -j "$(nproc)" --target gsolve > "$out/build-nompi.log" 2>&1 ||
        { tail -30 "$out/build-nompi.log"; exit 1; }
    grep -h "gsolve: MPI" "$out/configure.log" "$out/configure-nompi.log"
fi
if has test; then
    (cd build-gpu && timeout 240 ctest -L gpu -j 4 > "$out/ctest_gpu.log" 2>&1)
    grep -E "tests passed|Failed|Timeout" "$out/ctest_gpu.log"
    (cd build-gpu && timeout 300 ctest -L mpi -j 2 --output-on-failure > "$out/ctest_mpi.log" 2>&1)
    grep -E "tests passed|Failed|Timeout|^FAIL" "$out/ctest_mpi.log" | head -20
fi
if has bench; then
    bench/mpi/one_gpu.sh "$out/one" 128 > "$out/one.log" 2>&1
    rm -rf "$out/scale" # this script's own: scaling.sh wants a new folder
    bench/mpi/scaling.sh "$out/scale" 1 > "$out/scale.log" 2>&1
    cat "$out/one/table.md" "$out/scale/table.md"
fi

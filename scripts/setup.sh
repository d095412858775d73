#!/usr/bin/env bash
# scripts/setup.sh MODE: set up a fresh Debian/Ubuntu machine, build gsolve, then
#   MODE = quickstart   run gsolve on configs/quickstart.cfg
#   MODE = test         run the test suite (ctest)
#   MODE = build        only build
# Installs missing packages with apt-get when run as root; otherwise prints the command
# to run and stops. Build folder: $GSOLVE_BUILD (default: build).
set -euo pipefail
mode=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
build=${GSOLVE_BUILD:-$here/build}
jobs=$(nproc 2>/dev/null || echo 2)

case "$mode" in quickstart|test|build) ;; *)
    echo "usage: scripts/setup.sh quickstart|test|build" >&2; exit 2 ;;
esac

# --- packages
# (openmpi-bin, libopenmpi-dev: one system across MPI ranks, mpirun -np N gsolve CONFIG)
pkgs="build-essential cmake pkg-config libhdf5-dev libconfig-dev zlib1g-dev gnuplot-nox"
pkgs="$pkgs openmpi-bin libopenmpi-dev"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
        || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "setup: installing$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends $missing
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        echo "setup: installing$missing (sudo)"
        sudo DEBIAN_FRONTEND=noninteractive apt-get update -qq
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
    else
        echo "setup: these packages are missing; install them, then run this again:" >&2
        echo "    sudo apt-get install$missing" >&2
        exit 2
    fi
fi
# For the tests: h5py (the README's h5py example), and the Python package's tests and build
# (numpy, scipy, pytest, pyamg, scikit-build-core), from PyPI when missing.
if [ "$mode" = test ] && command -v python3 >/dev/null; then
    python3 -c "import h5py, scipy, numpy, pytest, pyamg, scikit_build_core" 2>/dev/null \
        || python3 -m pip install --quiet h5py numpy scipy pytest pyamg scikit-build-core \
        || echo "setup: the Python packages could not be installed: the Python tests fail"
fi

# --- build (MPI support when CMake finds MPI). The CUDA code is built when nvcc is found, except
# for quickstart on a machine without a GPU: there the first solve needs only the host gsolve,
# which builds in a fraction of the time. GSOLVE_CMAKE_ARGS (-DGSOLVE_CUDA=ON|OFF,
# -DGSOLVE_MPI=OFF) comes last and overrides either choice.
if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
    export CUDACXX=/usr/local/cuda/bin/nvcc
fi
cuda=ON
targets=()
if [ "$mode" = quickstart ]; then
    targets=(--target gsolve) # the tests and benchmarks follow with scripts/setup.sh build|test
    if ! nvidia-smi -L >/dev/null 2>&1; then
        cuda=OFF
        echo "setup: no GPU found: building gsolve for the host (GSOLVE_CMAKE_ARGS=-DGSOLVE_CUDA=ON" \
            "builds the CUDA code too)"
    fi
fi
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGSOLVE_CUDA=$cuda ${GSOLVE_CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs" ${targets[@]+"${targets[@]}"}

case "$mode" in
quickstart)
    echo "setup: built $build/gsolve; scripts/setup.sh test builds and runs the tests"
    exec "$build/gsolve" "$here/configs/quickstart.cfg" ;;
test) cd "$build" && exec ctest --output-on-failure -j "$jobs" -L cpu ;;
esac

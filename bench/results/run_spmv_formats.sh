#!/usr/bin/env bash
# bench/results/run_spmv_formats.sh [OPTIONS] OUTDIR [MATRIX ...]: every SpMV format against
# cuSPARSE (bench_spmv) on the GPU machine. It changes to the repository root (two folders up
# from this script) and keeps OUTDIR as given from the caller's folder. Steps, by default (the
# run behind spmv_formats_h200_2026-11-25.md, 25b.md and 25c.md):
#   1. build: scripts/gpu-check.sh /tmp/gc none (OUT/machine.txt; the log in /tmp/gc.log)
#   2. bench_spmv --no-cg over bench_spmv's generated set and the real matrices repeated on the
#      diagonal to fill the GPU: every format beside cuSPARSE CSR SpMV ALG1 in the same run,
#      medians of 15 batches of 50 SpMVs after warm-up, conversion time in SpMVs of the format,
#      upload of the CSR arrays (OUT/formats.md, OUT/bench.log)
# MATRIX ... (generators type:stencil:size[:dof], files, FILE*k) replaces the default set.
# Options:
#   --no-build       skip step 1 (build-gpu/ is already built)
#   --cg             leave out --no-cg: bench_spmv also measures a CG iteration per format
#   --formats LIST   passed to bench_spmv (e.g. cusparse,cmrs,cmrs:h=8; default: every format)
#   --timeout S      bound of the bench_spmv run in seconds (default 500)
# Matrices are read from shared/matrices, binaries from build-gpu/.
set -uo pipefail
usage="usage: bench/results/run_spmv_formats.sh [--no-build] [--cg] [--formats LIST] [--timeout S] OUTDIR [MATRIX ...]"
build=1 nocg=(--no-cg) formats=() limit=500
while [ $# -gt 0 ]; do
    case $1 in
        --no-build) build=0 ;;
        --cg) nocg=() ;;
        --formats) formats=(--formats "${2:?$usage}"); shift ;;
        --timeout) limit=${2:?$usage}; shift ;;
        -h | --help) echo "$usage"; exit 0 ;;
        -*) echo "unknown option $1; $usage" >&2; exit 2 ;;
        *) break ;;
    esac
    shift
done
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
mkdir -p "$1" || exit 1
out=$(cd "$1" && pwd)
shift
cd "$(dirname "$0")/../.." || exit 1
T0=$SECONDS
m="shared/matrices"

if [ $build = 1 ]; then
    scripts/gpu-check.sh /tmp/gc none > /tmp/gc.log 2>&1
    echo "build rc $? in $((SECONDS - T0)) s"; tail -3 /tmp/gc.log; cp /tmp/gc/machine.txt "$out/"
fi

if [ $# -gt 0 ]; then
    matrices=("$@")
else
    matrices=(poisson:7:128 poisson:7:160 poisson:27:128 poisson:7:100:2 poisson:7:64:4 poisson:7:70:6
        convdiff:7:128 anisotropic:5:1024 powerlaw:0:1000000 powerlaw:0:4000000
        "$m/bcsstk13.mtx*500" "$m/bcsstk25.mtx*100" "$m/2dcyl1.mtx*1000" "$m/isooctane_A.mtx*10000"
        "$m/pushpull.mtx*200" "$m/zenios.mtx*500" "$m/bips98_606.mtx*200" "$m/west2021.mtx*800"
        "$m/ani4.mtx*500" "$m/cryg2500.mtx*800" "$m/ginkgo_multigrid_A6525.mtx*300"
        "$m/BentPipe2D100.mtx*200" "$m/lap3d_20.mtx*250")
fi
timeout "$limit" build-gpu/bench/bench_spmv ${nocg[@]+"${nocg[@]}"} ${formats[@]+"${formats[@]}"} --md "$out/formats.md" \
    "${matrices[@]}" > "$out/bench.log" 2>&1
echo "bench rc $? at $((SECONDS - T0)) s"

#!/usr/bin/env bash
# bench/results/spmv_formats_h200_2026-11-25.sh OUT: the run behind spmv_formats_h200_2026-11-25.md,
# on the GPU machine from the repository root: build (scripts/gpu-check.sh, part none), then
# bench_spmv without CG over the generated set (bench_spmv's standard matrices) and the real
# matrices repeated on the diagonal to fill the GPU: every format beside cuSPARSE CSR SpMV ALG1 in
# the same run, medians of 15 batches of 50 after warm-up, conversion in SpMVs.
set -uo pipefail
out=${1:?usage: bench/results/spmv_formats_h200_2026-11-25.sh OUTDIR}
mkdir -p "$out"
T0=$SECONDS
scripts/gpu-check.sh /tmp/gc none > /tmp/gc.log 2>&1
echo "build rc $? in $((SECONDS - T0)) s"; tail -3 /tmp/gc.log; cp /tmp/gc/machine.txt "$out/"
m=shared/matrices
timeout 500 build-gpu/bench/bench_spmv --no-cg --md "$out/formats.md" \
    poisson:7:128 poisson:7:160 poisson:27:128 poisson:7:100:2 poisson:7:64:4 poisson:7:70:6 \
    convdiff:7:128 anisotropic:5:1024 powerlaw:0:1000000 powerlaw:0:4000000 \
    "$m/bcsstk13.mtx*500" "$m/bcsstk25.mtx*100" "$m/2dcyl1.mtx*1000" "$m/isooctane_A.mtx*10000" \
    "$m/pushpull.mtx*200" "$m/zenios.mtx*500" "$m/bips98_606.mtx*200" "$m/west2021.mtx*800" \
    "$m/ani4.mtx*500" "$m/cryg2500.mtx*800" "$m/ginkgo_multigrid_A6525.mtx*300" \
    "$m/BentPipe2D100.mtx*200" "$m/lap3d_20.mtx*250" > "$out/bench.log" 2>&1
echo "bench rc $? at $((SECONDS - T0)) s"

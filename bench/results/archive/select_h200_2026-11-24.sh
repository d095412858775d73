#!/usr/bin/env bash
# bench/results/select_h200_2026-11-24.sh OUT: the run behind select_h200_2026-11-24.md, on the
# GPU machine from the repository root: build (scripts/gpu-check.sh, part none), the selection
# and CDS tests (host and device), then bench_select over the generated, real (repeated on the
# diagonal) and coarse-level matrices of select_h200_2026-11-23.md.
set -uo pipefail
out=${1:?usage: bench/results/select_h200_2026-11-24.sh OUTDIR}
mkdir -p "$out"
T0=$SECONDS
scripts/gpu-check.sh /tmp/gc none > /tmp/gc.log 2>&1
echo "build rc $? in $((SECONDS - T0)) s"; tail -3 /tmp/gc.log; cp /tmp/gc/machine.txt "$out/"
B=build-gpu; m=shared/matrices
(cd $B && timeout 200 ctest -R "select|cds" --output-on-failure > "$out/ctest.log" 2>&1
 echo "ctest rc $?")
grep -E "check failed|tests passed|tests failed|device [0-9.]+ ms" "$out/ctest.log" | cut -c1-60,150-250 | head -60
timeout 200 $B/bench/bench_select --md "$out/select.md" --csv "$out/select.csv" \
    poisson:7:128 poisson:27:100 poisson:7:64:4 poisson:7:96:3 anisotropic:5:1024 convdiff:7:128 \
    powerlaw:0:1000000 "$m/bcsstk13.mtx*500" "$m/bcsstk25.mtx*100" "$m/2dcyl1.mtx*1000" \
    "$m/isooctane_A.mtx*10000" "$m/ginkgo_multigrid_A6525.mtx*300" "$m/pushpull.mtx*200" \
    "$m/BentPipe2D100.mtx*200" "$m/bips98_606.mtx*200" "$m/zenios.mtx*500" \
    "$m/cryg2500.mtx*800" "$m/ani4.mtx*500" "$m/west2021.mtx*800" "$m/lap3d_20.mtx*250" \
    poisson:7:128@1 poisson:7:128@2 poisson:27:100@1 poisson:7:64:4@1 powerlaw:0:1000000@1 \
    "$m/bcsstk13.mtx*500@1" "$m/lap3d_20.mtx" poisson:7:32 poisson:7:64 poisson:7:256 \
    powerlaw:0:200000 "$m/pushpull.mtx*20" > "$out/select.log" 2>&1
echo "bench rc $? at $((SECONDS - T0)) s"

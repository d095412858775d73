#!/usr/bin/env bash
# bench/results/select_h200_2026-11-21.sh OUT: the run behind select_h200_2026-11-21.md, on the
# GPU machine from the repository root: build (scripts/gpu-check.sh, part none), the selection
# tests, bench_select on the GPU over the generated, real (repeated on the diagonal) and
# coarse-level matrices, bench_select on the host, and the calibration script over both tables.
set -uo pipefail
out=${1:?usage: bench/results/select_h200_2026-11-21.sh OUTDIR}
mkdir -p "$out"
T0=$SECONDS
scripts/gpu-check.sh /tmp/gc none > /tmp/gc.log 2>&1
echo "build rc $? in $((SECONDS - T0)) s"; tail -3 /tmp/gc.log; cp /tmp/gc/machine.txt "$out/"
B=build-gpu; m=shared/matrices
(cd $B && timeout 90 ctest -R "select|cds" --output-on-failure > "$out/ctest.log" 2>&1
 echo "ctest rc $?"; timeout 60 tests/spmv/test_select_gpu --gpu >> "$out/ctest.log" 2>&1)
grep -E "check failed|checks,|tests passed|device [0-9.]+ ms" "$out/ctest.log" | cut -c1-60,150-250
timeout 150 $B/bench/bench_select --md "$out/select.md" --csv "$out/select.csv" \
    poisson:7:128 poisson:27:100 poisson:7:64:4 poisson:7:96:3 anisotropic:5:1024 convdiff:7:128 \
    powerlaw:0:1000000 "$m/bcsstk13.mtx*500" "$m/bcsstk25.mtx*100" "$m/2dcyl1.mtx*1000" \
    "$m/isooctane_A.mtx*10000" "$m/ginkgo_multigrid_A6525.mtx*300" "$m/pushpull.mtx*200" \
    "$m/BentPipe2D100.mtx*200" "$m/bips98_606.mtx*200" "$m/zenios.mtx*500" \
    "$m/cryg2500.mtx*800" "$m/ani4.mtx*500" "$m/west2021.mtx*800" "$m/lap3d_20.mtx*250" \
    poisson:7:128@1 poisson:7:128@2 poisson:27:100@1 poisson:7:64:4@1 powerlaw:0:1000000@1 \
    "$m/bcsstk13.mtx*500@1" "$m/lap3d_20.mtx" poisson:7:32 poisson:7:40 poisson:7:48 \
    poisson:7:64 powerlaw:0:50000 powerlaw:0:200000 "$m/bcsstk13.mtx" "$m/pushpull.mtx*20" \
    > /dev/null 2>&1
echo "bench rc $? at $((SECONDS - T0)) s"
timeout 70 $B/bench/bench_select --backend host --reps 10 --batches 7 --no-measure \
    --csv "$out/host.csv" --md "$out/host.md" poisson:7:64 poisson:7:100 poisson:27:48 \
    poisson:7:32:3 poisson:7:40:4 powerlaw:0:200000 powerlaw:0:1000000 "$m/bcsstk13.mtx*50" \
    "$m/2dcyl1.mtx*100" "$m/pushpull.mtx*20" "$m/ginkgo_multigrid_A6525.mtx*30" \
    "$m/cryg2500.mtx*80" "$m/zenios.mtx*50" poisson:7:64@1 poisson:7:100@1 anisotropic:5:512 \
    "$m/lap3d_20.mtx" poisson:7:20 > /dev/null 2>&1
echo "host rc $? at $((SECONDS - T0)) s"
(python3 scripts/calibrate_select.py "$out/select.csv"
 python3 scripts/calibrate_select.py "$out/host.csv") > "$out/calibrate.txt" 2>&1
grep -E "^\| [a-zA-Z/]|Summary" "$out/select.md" | cut -d'|' -f2,3,17-24

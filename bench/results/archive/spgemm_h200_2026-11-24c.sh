#!/usr/bin/env bash
# bench/results/spgemm_h200_2026-11-24c.sh OUT: the run behind spgemm_h200_2026-11-24c.md, on the
# GPU machine from the repository root: build (scripts/gpu-check.sh, part none), the whole gpu
# test label, the stage times of 3D Poisson 100^3's products (GSOLVE_SPGEMM_TRACE), bench_spgemm
# over 3D Poisson 7- and 27-point 100^3 and the real matrices (medians of 9 runs after 2
# warm-ups, cuSPARSE SpGEMM in the same run) and the Poisson products twice more, then
# bench_select over select_h200_2026-11-24.sh's 31 matrices (the device CSR's SpMV state and row
# statistics changed under the selection).
set -uo pipefail
out=${1:?usage: bench/results/spgemm_h200_2026-11-24c.sh OUTDIR}
mkdir -p "$out"
T0=$SECONDS
scripts/gpu-check.sh /tmp/gc none > /tmp/gc.log 2>&1
echo "build rc $? in $((SECONDS - T0)) s"; tail -3 /tmp/gc.log; cp /tmp/gc/machine.txt "$out/"
(cd build-gpu && timeout 300 ctest -L gpu -j4 > "$out/ctest.log" 2>&1; echo "ctest rc $?")
grep -E "tests passed|tests failed|Failed" "$out/ctest.log" | head
GSOLVE_SPGEMM_TRACE=1 timeout 120 build-gpu/bench/bench_spgemm --reps 3 --size 100 > "$out/trace.log" 2>&1
echo "trace rc $?"
timeout 300 build-gpu/bench/bench_spgemm --reps 9 shared/matrices > "$out/spgemm.md" 2>&1
echo "bench rc $? at $((SECONDS - T0)) s"
for k in 2 3; do
  timeout 120 build-gpu/bench/bench_spgemm --reps 9 --size 100 > "$out/spgemm_$k.md" 2>&1
done
B=build-gpu; m=shared/matrices
timeout 200 $B/bench/bench_select --md "$out/select.md" --csv "$out/select.csv" \
    poisson:7:128 poisson:27:100 poisson:7:64:4 poisson:7:96:3 anisotropic:5:1024 convdiff:7:128 \
    powerlaw:0:1000000 "$m/bcsstk13.mtx*500" "$m/bcsstk25.mtx*100" "$m/2dcyl1.mtx*1000" \
    "$m/isooctane_A.mtx*10000" "$m/ginkgo_multigrid_A6525.mtx*300" "$m/pushpull.mtx*200" \
    "$m/BentPipe2D100.mtx*200" "$m/bips98_606.mtx*200" "$m/zenios.mtx*500" \
    "$m/cryg2500.mtx*800" "$m/ani4.mtx*500" "$m/west2021.mtx*800" "$m/lap3d_20.mtx*250" \
    poisson:7:128@1 poisson:7:128@2 poisson:27:100@1 poisson:7:64:4@1 powerlaw:0:1000000@1 \
    "$m/bcsstk13.mtx*500@1" "$m/lap3d_20.mtx" poisson:7:32 poisson:7:64 poisson:7:256 \
    powerlaw:0:200000 "$m/pushpull.mtx*20" > "$out/select.log" 2>&1
echo "select rc $? at $((SECONDS - T0)) s"
tar czf "$out/all.tgz" -C "$out" . 2>/dev/null; echo "tar rc $?"

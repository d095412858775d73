#!/usr/bin/env bash
# bench/results/spgemm_h200_2026-11-24b.sh OUT: the run behind spgemm_h200_2026-11-24b.md, on the
# GPU machine from the repository root: build (scripts/gpu-check.sh, part none), the SpGEMM, DCSR
# and AMG gpu tests, the stage times of 3D Poisson 100^3's products (GSOLVE_SPGEMM_TRACE), then
# bench_spgemm over 3D Poisson 7- and 27-point 100^3 and the real matrices (medians of 9 runs
# after 2 warm-ups, cuSPARSE SpGEMM in the same run).
set -uo pipefail
out=${1:?usage: bench/results/spgemm_h200_2026-11-24b.sh OUTDIR}
mkdir -p "$out"
T0=$SECONDS
scripts/gpu-check.sh /tmp/gc none > /tmp/gc.log 2>&1
echo "build rc $? in $((SECONDS - T0)) s"; tail -3 /tmp/gc.log; cp /tmp/gc/machine.txt "$out/"
(cd build-gpu && timeout 250 ctest -L gpu -R "spgemm|dcsr|amg" -j4 > "$out/ctest.log" 2>&1
 echo "ctest rc $?")
grep -E "tests passed|tests failed|Failed" "$out/ctest.log" | head
GSOLVE_SPGEMM_TRACE=1 timeout 120 build-gpu/bench/bench_spgemm --reps 3 --size 100 > "$out/trace.log" 2>&1
echo "trace rc $?"
timeout 300 build-gpu/bench/bench_spgemm --reps 9 shared/matrices > "$out/spgemm.md" 2>&1
echo "bench rc $? at $((SECONDS - T0)) s"

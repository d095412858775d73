#!/usr/bin/env bash
# bench/results/spgemm_h200_2026-11-25b.sh OUT [sanitize]: the run behind spgemm_h200_2026-11-25b.md,
# on the GPU machine from the repository root. Default: build (scripts/gpu-check.sh, part none),
# the whole gpu test label, the stage times of 3D Poisson 100^3's products and of test_spgemm's
# (GSOLVE_SPGEMM_TRACE: which products skip the binning and move chunks),
# ncu on 7-point A*A's sorted-bin kernel and chunk move, bench_spgemm over
# 3D Poisson 7- and 27-point 100^3 and the real matrices (medians of 9 runs after 2 warm-ups,
# cuSPARSE SpGEMM in the same run) and the Poisson products twice more. "sanitize" (a second
# call, after the first built): compute-sanitizer memcheck and racecheck on test_spgemm_gpu and
# test_dcsr_gpu, synccheck and racecheck on bench_spgemm --reps 1 --size 24.
set -uo pipefail
out=${1:?usage: bench/results/spgemm_h200_2026-11-25b.sh OUTDIR [sanitize]}
mkdir -p "$out"
T0=$SECONDS
if [ "${2:-}" = sanitize ]; then
    TESTS='test_spgemm_gpu|test_dcsr_gpu' LIMIT=280 JOBS=4 scripts/gpu-sanitize.sh "$out/san" memcheck racecheck 2>&1 | tail -6
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    for tool in synccheck racecheck; do
        timeout 250 "$cs" --tool $tool build-gpu/bench/bench_spgemm --reps 1 --size 24 > "$out/bench24.$tool.log" 2>&1
        echo "bench_spgemm 24^3 $tool rc $?: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/bench24.$tool.log" | tail -1)"
    done
    tar czf "$out/san.tgz" -C "$out" . 2>/dev/null; echo "tar rc $? at $((SECONDS - T0)) s"
    exit 0
fi
scripts/gpu-check.sh /tmp/gc none > /tmp/gc.log 2>&1
echo "build rc $? in $((SECONDS - T0)) s"; tail -3 /tmp/gc.log; cp /tmp/gc/machine.txt "$out/"
(cd build-gpu && timeout 300 ctest -L gpu -j4 > "$out/ctest.log" 2>&1; echo "ctest rc $?")
grep -E "tests passed|tests failed|Failed" "$out/ctest.log" | head
GSOLVE_SPGEMM_TRACE=1 timeout 120 build-gpu/bench/bench_spgemm --reps 3 --size 100 > "$out/trace.log" 2>&1
GSOLVE_SPGEMM_TRACE=1 timeout 200 build-gpu/tests/spmv/test_spgemm --gpu > "$out/test_trace.log" 2>&1
echo "trace rc $?"
timeout 200 ncu --clock-control none --kernel-name-base demangled -k regex:"sort_bin_kernel<.int.6|chunk_move_kernel" -c 2 \
    --section SpeedOfLight --section InstructionStats --section Occupancy --section MemoryWorkloadAnalysis -f -o /tmp/rep_sort \
    build-gpu/bench/bench_spgemm --reps 1 --size 100 --stencil 7 > /dev/null 2>&1
ncu -i /tmp/rep_sort.ncu-rep --page details > "$out/ncu_7pt_AA.txt" 2>&1
grep -E "sort_bin_kernel|chunk_move_kernel|Duration|Executed Instructions  |Issue Slots Busy|Achieved Occupancy|DRAM Throughput" "$out/ncu_7pt_AA.txt"
timeout 300 build-gpu/bench/bench_spgemm --reps 9 shared/matrices > "$out/spgemm.md" 2>&1
echo "bench rc $? at $((SECONDS - T0)) s"
for k in 2 3; do
  timeout 120 build-gpu/bench/bench_spgemm --reps 9 --size 100 > "$out/spgemm_$k.md" 2>&1
done
grep poisson "$out"/spgemm*.md | awk -F'|' '{printf "%s %s %s/%s %s\n", $2,$3,$7,$8,$9}'
tar czf "$out/all.tgz" -C "$out" . 2>/dev/null; echo "tar rc $? at $((SECONDS - T0)) s"

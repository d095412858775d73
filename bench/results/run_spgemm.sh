#!/usr/bin/env bash
# bench/results/run_spgemm.sh [--no-build] OUTDIR [sanitize]: the DCSR SpGEMM against cuSPARSE
# SpGEMM (bench_spgemm) on the GPU machine. It changes to the repository root (two folders up
# from this script) and keeps OUTDIR as given from the caller's folder. Steps, by default (the
# run behind spgemm_h200_2026-11-25b.md):
#   1. build: scripts/gpu-check.sh /tmp/gc none (OUT/machine.txt; the log in /tmp/gc.log);
#      --no-build skips it (build-gpu/ is already built)
#   2. the whole gpu test label: ctest -L gpu -j4 (OUT/ctest.log)
#   3. stage times (GSOLVE_SPGEMM_TRACE=1) of 3D Poisson 100^3's products (OUT/trace.log) and of
#      test_spgemm --gpu, which shows which products skip the binning and move chunks
#      (OUT/test_trace.log)
#   4. ncu on 7-point A*A's sorted-bin kernel and chunk move (OUT/ncu_7pt_AA.txt)
#   5. bench_spgemm --reps 9 shared/matrices: 3D Poisson 7- and 27-point 100^3 and the real
#      matrices, medians of 9 runs after 2 warm-ups, cuSPARSE SpGEMM in the same run
#      (OUT/spgemm.md), then the Poisson products twice more (OUT/spgemm_2.md, OUT/spgemm_3.md)
#   6. OUT/all.tgz of everything above
# "sanitize" (a second call, after a first one built): compute-sanitizer memcheck and racecheck
# on test_spgemm_gpu and test_dcsr_gpu (scripts/gpu-sanitize.sh, OUT/san), synccheck and
# racecheck on bench_spgemm --reps 1 --size 24 (OUT/bench24.TOOL.log), then OUT/san.tgz.
set -uo pipefail
usage="usage: bench/results/run_spgemm.sh [--no-build] OUTDIR [sanitize]"
build=1
while [ $# -gt 0 ]; do
    case $1 in
        --no-build) build=0 ;;
        -h | --help) echo "$usage"; exit 0 ;;
        -*) echo "unknown option $1; $usage" >&2; exit 2 ;;
        *) break ;;
    esac
    shift
done
case $# in 1 | 2) ;; *) echo "$usage" >&2; exit 2 ;; esac
mode=${2:-}
case $mode in "" | sanitize) ;; *) echo "$usage" >&2; exit 2 ;; esac
mkdir -p "$1" || exit 1
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.." || exit 1
T0=$SECONDS

if [ "$mode" = sanitize ]; then
    TESTS='test_spgemm_gpu|test_dcsr_gpu' LIMIT=280 JOBS=4 scripts/gpu-sanitize.sh "$out/san" memcheck racecheck 2>&1 | tail -6
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    for tool in synccheck racecheck; do
        timeout 250 "$cs" --tool $tool build-gpu/bench/bench_spgemm --reps 1 --size 24 > "$out/bench24.$tool.log" 2>&1
        echo "bench_spgemm 24^3 $tool rc $?: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/bench24.$tool.log" | tail -1)"
    done
    tar czf "$out/san.tgz" -C "$out" . 2>/dev/null; echo "tar rc $? at $((SECONDS - T0)) s"
    exit 0
fi

if [ $build = 1 ]; then
    scripts/gpu-check.sh /tmp/gc none > /tmp/gc.log 2>&1
    echo "build rc $? in $((SECONDS - T0)) s"; tail -3 /tmp/gc.log; cp /tmp/gc/machine.txt "$out/"
fi
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

#!/usr/bin/env bash
# bench/results/run_select.sh [OPTIONS] OUTDIR: the format-selection benchmark (bench_select) on
# the GPU machine. It changes to the repository root (two folders up from this script) and keeps
# OUTDIR as given from the caller's folder. Steps, by default (the run behind
# select_h200_2026-11-24f.md to select_h200_2026-11-25c.md):
#   1. build: scripts/gpu-check.sh /tmp/gc none (OUT/machine.txt; the log in /tmp/gc.log)
#   2. the selection and CDS tests, host and device: ctest -R "select|cds" (OUT/ctest.log)
#   3. bench_select over the 31-matrix set: generated, real (repeated on the diagonal, FILE*k)
#      and coarse-level (@L) matrices (OUT/select.md, OUT/select.csv, OUT/select.log)
#   4. the whole gpu test label: ctest -L gpu -j4 (OUT/ctest_gpu.log)
#   5. bench_select over power laws of 100000-400000 rows, the sizes around the SURAA row's
#      entry limit (OUT/select_uneven.md, OUT/select_uneven.csv, OUT/select_uneven.log)
# Options:
#   --no-build      skip step 1 (build-gpu/ is already built)
#   --no-gpu-tests  skip step 4
#   --no-uneven     skip step 5 (steps 1-3 alone are the runs of select_h200_2026-11-24 to 24e)
#   --calibrate     then scripts/calibrate_select.py over OUT/select.csv (and OUT/host.csv with
#                   --host) into OUT/calibrate.txt
#   --host          then bench_select on the host (--backend host --reps 10 --batches 7
#                   --no-measure) over the host set of select_h200_2026-11-21.md (OUT/host.md,
#                   OUT/host.csv); implies --calibrate
# Matrices are read from shared/matrices, binaries from build-gpu/.
set -uo pipefail
usage="usage: bench/results/run_select.sh [--no-build] [--no-gpu-tests] [--no-uneven] [--calibrate] [--host] OUTDIR"
build=1 gputests=1 uneven=1 calibrate=0 host=0
while [ $# -gt 0 ]; do
    case $1 in
        --no-build) build=0 ;;
        --no-gpu-tests) gputests=0 ;;
        --no-uneven) uneven=0 ;;
        --calibrate) calibrate=1 ;;
        --host) host=1 calibrate=1 ;;
        -h | --help) echo "$usage"; exit 0 ;;
        -*) echo "unknown option $1; $usage" >&2; exit 2 ;;
        *) break ;;
    esac
    shift
done
[ $# -eq 1 ] || { echo "$usage" >&2; exit 2; }
mkdir -p "$1" || exit 1
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.." || exit 1
T0=$SECONDS
B="build-gpu"; m="shared/matrices"

if [ $build = 1 ]; then
    scripts/gpu-check.sh /tmp/gc none > /tmp/gc.log 2>&1
    echo "build rc $? in $((SECONDS - T0)) s"; tail -3 /tmp/gc.log; cp /tmp/gc/machine.txt "$out/"
fi

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

if [ $gputests = 1 ]; then
    (cd $B && timeout 250 ctest -L gpu -j4 > "$out/ctest_gpu.log" 2>&1; echo "ctest -L gpu rc $?")
    grep -E "tests passed|tests failed|Failed" "$out/ctest_gpu.log" | head
fi

if [ $uneven = 1 ]; then
    timeout 200 $B/bench/bench_select --md "$out/select_uneven.md" --csv "$out/select_uneven.csv" \
        powerlaw:0:100000 powerlaw:0:150000 powerlaw:0:200000 powerlaw:0:250000 powerlaw:0:300000 \
        powerlaw:0:400000 > "$out/select_uneven.log" 2>&1
    echo "uneven bench rc $?"
fi

if [ $host = 1 ]; then
    timeout 70 $B/bench/bench_select --backend host --reps 10 --batches 7 --no-measure \
        --csv "$out/host.csv" --md "$out/host.md" poisson:7:64 poisson:7:100 poisson:27:48 \
        poisson:7:32:3 poisson:7:40:4 powerlaw:0:200000 powerlaw:0:1000000 "$m/bcsstk13.mtx*50" \
        "$m/2dcyl1.mtx*100" "$m/pushpull.mtx*20" "$m/ginkgo_multigrid_A6525.mtx*30" \
        "$m/cryg2500.mtx*80" "$m/zenios.mtx*50" poisson:7:64@1 poisson:7:100@1 anisotropic:5:512 \
        "$m/lap3d_20.mtx" poisson:7:20 > "$out/host.log" 2>&1
    echo "host rc $? at $((SECONDS - T0)) s"
fi

if [ $calibrate = 1 ]; then
    (python3 scripts/calibrate_select.py "$out/select.csv"
     if [ $host = 1 ]; then python3 scripts/calibrate_select.py "$out/host.csv"; fi) \
        > "$out/calibrate.txt" 2>&1
    echo "calibrate rc $? (OUT/calibrate.txt)"
fi

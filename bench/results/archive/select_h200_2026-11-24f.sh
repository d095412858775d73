#!/usr/bin/env bash
# bench/results/select_h200_2026-11-24f.sh OUT: the run behind select_h200_2026-11-24f.md, on the
# GPU machine from the repository root: select_h200_2026-11-24.sh (build, the selection and CDS
# tests, bench_select over the 31-matrix set), then the whole gpu test label, then bench_select
# over power laws of 100000 to 400000 rows (the sizes around the SURAA row's entry limit).
set -uo pipefail
out=${1:?usage: bench/results/select_h200_2026-11-24f.sh OUTDIR}
"$(dirname "$0")/select_h200_2026-11-24.sh" "$out"
(cd build-gpu && timeout 250 ctest -L gpu -j4 > "$out/ctest_gpu.log" 2>&1; echo "ctest -L gpu rc $?")
grep -E "tests passed|tests failed|Failed" "$out/ctest_gpu.log" | head
timeout 200 build-gpu/bench/bench_select --md "$out/select_uneven.md" --csv "$out/select_uneven.csv" \
    powerlaw:0:100000 powerlaw:0:150000 powerlaw:0:200000 powerlaw:0:250000 powerlaw:0:300000 \
    powerlaw:0:400000 > "$out/select_uneven.log" 2>&1
echo "uneven bench rc $?"

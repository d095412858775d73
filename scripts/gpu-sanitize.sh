#!/usr/bin/env bash
# scripts/gpu-sanitize.sh OUTDIR [TOOL ...]: on the GPU machine, after scripts/gpu-check.sh has
# built build-gpu, run every gpu-labelled test under compute-sanitizer with each TOOL (default:
# memcheck racecheck synccheck initcheck) and write one log per (test, tool) into OUTDIR.
# Prints a summary line per run; exits 1 when any run reports an error. TESTS=REGEX limits the
# run to the tests whose name matches (e.g. TESTS=test_amg_gpu); LIMIT=SECONDS bounds each run;
# JOBS=N runs N at once.
set -uo pipefail
out=${1:?usage: scripts/gpu-sanitize.sh OUTDIR [memcheck|racecheck|synccheck|initcheck ...]}
shift
tools=${*:-memcheck racecheck synccheck initcheck}
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build-gpu
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
mkdir -p "$out"
rm -f "$out"/*.rc
[ -x "$cs" ] || { echo "compute-sanitizer not found"; exit 2; }
# the gpu tests and their arguments, as ctest knows them; a test wrapped in `sh -c "..."`
# (its quoting and environment are ctest's) runs as `ctest -R ^NAME$` under the sanitizer, which
# follows ctest's child processes (--target-processes all)
mapfile -t tests < <(cd "$build" && ctest -L gpu -N -V | sed -n 's/^[0-9]*: Test command: //p' | tr -d '"')
mapfile -t names < <(cd "$build" && ctest -L gpu -N | sed -n 's/^ *Test *#[0-9]*: //p')
export GS_MATRICES=$here/shared/matrices GS_TEST_DATA=$here/tests/data GS_BIN=$build/gsolve
export OMP_NUM_THREADS=4
# one (test, tool) run: its log, then its summary line into $out/NAME.TOOL.rc
run_one() {
    local name=$1 tool=$2 t=$3 log=$out/$1.$2.log rc summary
    # API errors are gsolve's to handle (the out-of-memory tests provoke them on purpose)
    local extra="--report-api-errors no --target-processes all" # sh-wrapped tests run gsolve
    [ "$tool" = memcheck ] && extra="$extra --leak-check full"
    # cuSPARSE's own kernels are not gsolve's to fix: racecheck reports hazards in its csrmv
    # (warp-synchronous shared memory); gsolve's kernels are all checked
    [ "$tool" = racecheck ] && extra="$extra --kernel-name-exclude kns=cusparse"
    # only memcheck follows dynamic parallelism (the others count "not supported" as an error):
    # for them, test_suraa skips its SpMVs through SURAA's child grids
    local nochild=1
    [ "$tool" = memcheck ] && nochild=0
    # shellcheck disable=SC2086
    (cd "$build" && GS_TEST_NO_CHILD_GRIDS=$nochild timeout "${LIMIT:-3600}" "$cs" --tool "$tool" \
        --error-exitcode 99 $extra --print-limit 20 $t) > "$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    echo "$rc $name $tool: exit $rc ${summary:-}" > "$out/$name.$tool.rc"
}
# JOBS=N runs N of them at once (the tests share the GPU; the sanitizers are mostly CPU-bound)
jobs=${JOBS:-1}
running=0
for i in "${!tests[@]}"; do
    t=${tests[$i]}
    name=${names[$i]} # ctest's name: tests that share a program (test_cmrs_gpu_hN) differ here
    if [ "$(basename "${t%% *}")" = sh ]; then
        t="ctest -R ^$name\$ --timeout ${LIMIT:-3600}"
    fi
    [[ "$name" =~ ${TESTS:-.} ]] || continue
    for tool in $tools; do
        # test_alloc_solve_gpu repeats whole AMG solves a few hundred times to fail each device
        # allocation in turn: under racecheck that takes hours (its first loop was not done
        # after 7 minutes on an H200). What it tests is error paths and memory lifetimes, which
        # memcheck (leak check on) covers; its kernels are the ones the other tests racecheck.
        [ "$tool" = racecheck ] && [ "$name" = test_alloc_solve_gpu ] && continue
        if [ "$running" -ge "$jobs" ]; then
            wait -n
            running=$((running - 1))
        fi
        run_one "$name" "$tool" "$t" &
        running=$((running + 1))
    done
done
wait
bad=0
for f in "$out"/*.rc; do
    [ -e "$f" ] || continue
    read -r rc line < "$f"
    echo "$line"
    [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || bad=1
done
exit $bad

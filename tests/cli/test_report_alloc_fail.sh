#!/usr/bin/env bash
# test_report_alloc_fail.sh GSOLVE DIR: `gsolve report` (read the case CSVs, write report.csv
# and report.md, the plot data and scripts) with its k-th host allocation failing
# (GSOLVE_FAIL_ALLOC=k), k = 1, 2, ... Each run must either exit 1 with one line
# "gsolve: error: out of memory: could not allocate N bytes for WHAT", or succeed (a residual
# history the report cannot read is skipped with a note). The loop ends at the first run whose
# output equals that of a run without failures. Plots are drawn when gnuplot is installed.
set -u
gsolve=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail() { echo "test_report_alloc_fail: $*" >&2; exit 1; }

cat >batch.cfg <<'CFG'
solver = { type = "cg"; preconditioner = "jacobi"; rtol = 1e-8; };
run = { threads = 1; backend = "host"; };
batch = { formats = ["csr", "cmrs"]; repeats = 1; results = "res";
  cases = ( { name = "p6"; generate = { type = "poisson"; size = 6; }; },
            { name = "c8"; generate = { type = "convdiff"; size = 8; stencil = 5; };
              solver = { type = "bicgstab"; }; } ); };
CFG
"$gsolve" batch.cfg >batch.out 2>&1 || fail "the batch: $(cat batch.out)"
if command -v gnuplot >/dev/null 2>&1; then
    export GSOLVE_PLOTTER=gnuplot
    opts=()
else
    opts=(--no-plots)
fi
"$gsolve" report res "${opts[@]}" >want 2>&1 || fail "the report without failures: $(cat want)"
failed=0 absorbed=0
for ((k = 1; k <= 2000; k++)); do
    GSOLVE_FAIL_ALLOC=$k "$gsolve" report res "${opts[@]}" >out 2>err
    rc=$?
    if [ $rc -eq 0 ]; then
        cmp -s out want && [ ! -s err ] && break
        absorbed=$((absorbed + 1))
        continue
    fi
    [ $rc -eq 1 ] || fail "allocation $k: exit code $rc, expected 1: $(cat err)"
    grep -Eq '^gsolve: error: out of memory: could not allocate [0-9]+ bytes for [[:alpha:]]' err ||
        fail "allocation $k: message without the size and what was asked: $(cat err)"
    [ "$(grep -c . err)" -eq 1 ] || fail "allocation $k: more than one line: $(cat err)"
    failed=$((failed + 1))
done
[ $k -le 2000 ] || fail "no run completed"
[ $failed -ge 10 ] || fail "only $failed runs failed: is GSOLVE_FAIL_ALLOC read?"
echo "gsolve report ran whole once allocation $k was allowed to fail: $failed runs exited 1" \
    "(out of memory), $absorbed absorbed the failure"
cd / && rm -rf "$dir"

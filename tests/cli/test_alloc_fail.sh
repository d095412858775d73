#!/usr/bin/env bash
# test_alloc_fail.sh GSOLVE DIR: gsolve itself with its k-th host allocation failing
# (GSOLVE_FAIL_ALLOC=k), k = 1, 2, ..., on a whole solve (read a Matrix Market matrix and
# right-hand side, Jacobi-CG, write the CSV row, HDF5 record, history and solution). Each run
# must either exit 1 with one line "gsolve: error: out of memory: ... N bytes ..." and leave no
# temporary file, or succeed (a failure the driver absorbs: the residual history is best
# effort). The loop ends at the first run whose outputs equal those of a run without failures.
set -u
gsolve=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir" || exit 1
fail() { echo "test_alloc_fail: $*" >&2; exit 1; }

"$gsolve" --set problem.generate.type=poisson --set problem.generate.size=6 \
    --set problem.generate.stencil=5 --export "$dir/A.mtx" >/dev/null || fail "cannot export"
cat >"$dir/run.cfg" <<CFG
problem = { matrix = "A.mtx"; rhs = "A_b.mtx"; };
solver = { type = "cg"; preconditioner = "jacobi"; rtol = 1e-10; };
run = { backend = "host"; };
spmv = { format = "csr"; };
output = { csv = "$dir/runs.csv"; hdf5 = "$dir/run.h5"; history = "$dir/hist.csv";
           solution = "$dir/x.mtx"; verbosity = 0; };
CFG
clean() { rm -f "$dir/runs.csv" "$dir/run.h5" "$dir/hist.csv" "$dir/x.mtx" "$dir"/*.tmp; }
summary() { echo "$(wc -l <"$dir/runs.csv") $(wc -l <"$dir/hist.csv") $(wc -l <"$dir/x.mtx")"; }

clean
"$gsolve" "$dir/run.cfg" >"$dir/out" 2>"$dir/err" || fail "the run without failures: $(cat "$dir/err")"
want=$(summary)
failed=0 absorbed=0
for ((k = 1; k <= 5000; k++)); do
    clean
    GSOLVE_FAIL_ALLOC=$k "$gsolve" "$dir/run.cfg" >"$dir/out" 2>"$dir/err"
    rc=$?
    ls "$dir"/*.tmp >/dev/null 2>&1 && fail "allocation $k: a temporary file is left: $(ls "$dir")"
    if [ $rc -eq 0 ]; then
        [ -s "$dir/runs.csv" ] && [ "$(summary)" = "$want" ] && break
        absorbed=$((absorbed + 1))
        continue
    fi
    [ $rc -eq 1 ] || fail "allocation $k: exit code $rc, expected 1: $(cat "$dir/err")"
    grep -Eq '^gsolve: error: out of memory: .*[0-9]+ bytes' "$dir/err" ||
        fail "allocation $k: message without the size asked: $(cat "$dir/err")"
    [ "$(grep -c . "$dir/err")" -eq 1 ] || fail "allocation $k: more than one line: $(cat "$dir/err")"
    failed=$((failed + 1))
done
[ $k -le 5000 ] || fail "no run completed"
[ $failed -ge 20 ] || fail "only $failed runs failed: is GSOLVE_FAIL_ALLOC read?"
echo "gsolve ran whole once allocation $k was allowed to fail: $failed runs exited 1 (out of" \
    "memory), $absorbed absorbed the failure"
rm -rf "$dir"

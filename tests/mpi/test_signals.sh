#!/usr/bin/env bash
# test_signals.sh GSOLVE MPIEXEC SRCDIR TMPDIR: SIGTERM to mpirun in the middle of a long solve
# on 2 ranks (3D Poisson 100^3 driven towards rtol 1e-300): every rank stops (no hang: the run
# must end within 60 s of the signal), one summary says "interrupted by SIGTERM", exactly one
# "gsolve: interrupted" line, the CSV row records reason = interrupted with ranks = 2, and the
# exit code is not 0 (mpirun gives its own code for a signalled job; Open MPI's is 1, where one
# process exits with 143).
source "$(dirname "$0")/mpi_lib.sh"
"$MPIEXEC" "${MPIFLAGS[@]}" -np 2 "$G" "${HOST[@]}" --set problem.generate.type=poisson \
    --set problem.generate.size=100 --set solver.rtol=1e-300 --set solver.max_iters=100000000 \
    --set output.csv="$T/term.csv" </dev/null >"$T/term.out" 2>&1 &
pid=$!
sleep 3
kill -TERM $pid
for _ in $(seq 1 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
    fail "mpirun still runs 60 s after SIGTERM"
    kill -KILL $pid
fi
wait $pid; code=$?
echo "$code" >"$T/term.rc"
nrun=1
[ "$code" != 0 ] || fail "term: exit 0 after SIGTERM"
grep -q '^result *interrupted by SIGTERM' "$T/term.out" || { fail "term: no 'result interrupted by SIGTERM' line"; show term; }
[ "$(grep -c '^result ' "$T/term.out")" = 1 ] || fail "term: $(grep -c '^result ' "$T/term.out") summaries"
[ "$(grep -c '^gsolve: interrupted' "$T/term.out")" = 1 ] \
    || fail "term: $(grep -c '^gsolve: interrupted' "$T/term.out") 'gsolve: interrupted' lines, expected 1"
[ "$(rows term)" = 1 ] && [ "$(field term reason)" = interrupted ] && [ "$(field term ranks)" = 2 ] \
    || fail "term: CSV rows $(rows term), reason '$(field term reason)', ranks '$(field term ranks)': expected 1 row, interrupted, 2"
finish

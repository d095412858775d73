#!/usr/bin/env bash
# test_interrupt.sh GSOLVE WORKDIR: a run you can watch and stop. A long solve writing to a
# file shows its header, then its iteration lines, while it runs; SIGTERM stops it with exit
# 143, the summary (reason interrupted), the CSV row and the HDF5 record; SIGINT gives 130 and
# GMRES's x so far; a second signal ends the process at once, without the summary.
set -u
G=$1; W=$2
fail() { echo "FAIL: $*"; [ -f "$W/log" ] && { echo "--- log:"; cat "$W/log"; }; exit 1; }
rm -rf "$W"; mkdir -p "$W"; cd "$W" || exit 1
LONG=(--set problem.generate.type=poisson --set problem.generate.size=40
      --set solver.preconditioner=none --set solver.rtol=1e-300 --set solver.max_iters=100000000
      --set solver.stagnation_window=0 --set run.backend=host)

# start gsolve ARGS... with its output in $W/log; wait until it has printed N iteration lines
start() {
    n=$1; shift
    "$G" "$@" > "$W/log" 2>&1 &
    pid=$!
    for _ in $(seq 1 600); do
        [ "$(grep -c '^  iter ' "$W/log")" -ge "$n" ] && return 0
        kill -0 $pid 2>/dev/null || fail "gsolve ended before it was stopped"
        sleep 0.05
    done
    kill -KILL $pid; fail "no iteration lines in the log after 30 s"
}

# SIGTERM: CG writing a CSV row and an HDF5 record
start 2 "${LONG[@]}" --set output.monitor=10 --set output.csv="$W/runs.csv" --set output.hdf5="$W/run.h5"
h=$(grep -n '^solver ' "$W/log" | head -1 | cut -d: -f1); i=$(grep -n '^  iter ' "$W/log" | head -1 | cut -d: -f1)
[ -n "$h" ] && [ "$h" -lt "$i" ] || fail "the header does not come before the iteration lines"
grep -q '^solver .* threads [0-9]* (' "$W/log" || fail "the header does not give the threads"
grep -q '^result' "$W/log" && fail "a result line before the solve ended"
kill -TERM $pid; wait $pid; code=$?
[ $code = 143 ] || fail "SIGTERM: exit $code, expected 143"
grep -Eq '^result +interrupted by SIGTERM at iteration [0-9]+, relative residual' "$W/log" || fail "no summary line saying interrupted"
grep -q '^time ' "$W/log" || fail "the summary is not printed whole"
grep -q '^gsolve: interrupted by SIGTERM' "$W/log" || fail "no message on stderr"
[ "$(grep -c '^' "$W/runs.csv")" = 2 ] || fail "the CSV has no row (or more than one)"
tail -1 "$W/runs.csv" | grep -Eq '^[^,]*,[^,]*,64000,[0-9]+,cg,none,[a-z]+,1,[0-9]+,interrupted,0,' || fail "CSV row: $(tail -1 "$W/runs.csv")"
[ -s "$W/run.h5" ] || fail "no HDF5 record"

# SIGINT: GMRES's x so far is kept (its true residual below the start)
start 3 "${LONG[@]}" --set solver.type=gmres --set solver.restart=20 --set output.monitor=10
kill -INT $pid; wait $pid; code=$?
[ $code = 130 ] || fail "SIGINT: exit $code, expected 130"
grep -Eq '^result +interrupted by SIGINT' "$W/log" || fail "SIGINT: no summary"
res=$(sed -n 's/^residual  true ||b-Ax||\/||b|| = //p' "$W/log")
awk -v r="$res" 'BEGIN { exit !(r > 0 && r < 0.5) }' || fail "GMRES interrupted: true residual '$res', expected the progress made"

# a second signal ends at once: killed (by whichever of the two its handler met second), with
# no summary and no message. The process is stopped while both are sent, so that they are
# delivered together (else a loaded machine may let it finish between the two).
start 2 "${LONG[@]}" --set output.monitor=10
kill -STOP $pid; kill -INT $pid; kill -TERM $pid; kill -CONT $pid; wait $pid; code=$?
[ $code = 130 ] || [ $code = 143 ] || fail "INT then TERM: exit $code, expected death by a signal"
grep -q '^result' "$W/log" && fail "INT then TERM: the summary was printed"
grep -q '^gsolve: interrupted' "$W/log" && fail "INT then TERM: the process went on to its end"
echo "ok"

#!/usr/bin/env bash
# test_outputs.sh GSOLVE MPIEXEC SRCDIR TMPDIR: what a run across ranks writes, from rank 0 only.
# 2 ranks with output.csv, .hdf5, .history and .solution: exactly one CSV row with ranks = 2 and
# the communication times (numbers >= 0); the HDF5 record exists (no temporary file left),
# holds x of full length (gsolve --inspect lists it) and the ranks and communication
# attributes; the solution file has all the rows and equals the one-process solution to 1e-6
# relative; the history has a line per iteration. A second run (3 ranks) appends a second row
# to the same CSV under the same header; one process writes ranks = 1 and zero communication.
# One summary on the console. output.profile on 2 ranks: the cycle's table by level and the
# CSV's profile column.
source "$(dirname "$0")/mpi_lib.sh"
P=("${HOST[@]}" --set problem.generate.type=poisson --set problem.generate.size=12
   --set solver.preconditioner=jacobi --set solver.rtol=1e-10)
N=1728
out() { echo "--set output.hdf5=$T/$1.h5 --set output.history=$T/$1.hist.csv --set output.solution=$T/$1.x.mtx"; }
# shellcheck disable=SC2046
gs 0 one "${P[@]}" $(out one)
converged one 1e-10 && ranks_is one 1
[ "$(field one comm_setup_s)" = 0.000000 ] && [ "$(field one comm_solve_s)" = 0.000000 ] \
    || fail "one: one process's comm_setup_s/comm_solve_s = $(field one comm_setup_s)/$(field one comm_solve_s), expected 0"
# shellcheck disable=SC2046
gs 2 two "${P[@]}" $(out two)
if converged two 1e-10; then
    ranks_is two 2
    same_its one two
    for c in comm_setup_s comm_solve_s; do
        v=$(field two $c)
        awk -v v="$v" 'BEGIN { exit !(v != "" && v + 0 == v && v >= 0) }' || fail "two: $c = '$v'"
    done
    [ "$(grep -c '^result ' "$T/two.out")" = 1 ] || fail "two: more than one summary printed"
    # the HDF5 record: there, renamed from its temporary name, x of N entries
    [ -s "$T/two.h5" ] || fail "two: no HDF5 record $T/two.h5"
    ls "$T" | grep -v '^two\.h5$' | grep -q '^two\.h5' && fail "two: a temporary HDF5 file is left: $(ls "$T" | grep '^two\.h5')"
    "$G" --inspect "$T/two.h5" 2>&1 | grep -Eq "^ +/x +float64, $N\$" \
        || fail "two: the HDF5 record has no x of $N entries: $("$G" --inspect "$T/two.h5" 2>&1 | grep ' /x ')"
    for a in ranks comm_setup_s comm_solve_s; do # the attributes' names (values: h5dump below)
        grep -aq "$a" "$T/two.h5" || fail "two: the HDF5 record has no attribute $a"
    done
    if command -v h5dump >/dev/null; then
        h5dump -a /ranks "$T/two.h5" 2>/dev/null | grep -Eq '^ *\(0\): 2$' \
            || fail "two: the HDF5 attribute ranks is not 2: $(h5dump -a /ranks "$T/two.h5" 2>&1 | head -12)"
    fi
    # the solution: N rows, the one-process x
    [ "$(sed -n 2p "$T/two.x.mtx")" = "$N 1" ] || fail "two: solution size line '$(sed -n 2p "$T/two.x.mtx")', expected '$N 1'"
    d=$(paste <(grep -v '^%' "$T/one.x.mtx" | tail -n +2) <(grep -v '^%' "$T/two.x.mtx" | tail -n +2) |
        awk '{ d = $1 - $2; if (d < 0) d = -d; a = $1 < 0 ? -$1 : $1; if (d > m) m = d; if (a > s) s = a; n++ }
             END { print n, (s > 0 ? m / s : 1) }')
    set -- $d
    [ "${1:-0}" = $N ] && awk -v r="${2:-1}" 'BEGIN { exit !(r < 1e-6) }' \
        || fail "two: the solution differs from one process's: $1 entries, max difference $2 of the largest"
    # the history: a header and a line per iteration from 0
    its=$(field two iterations)
    [ "$(wc -l <"$T/two.hist.csv")" = $((its + 2)) ] \
        || fail "two: history has $(wc -l <"$T/two.hist.csv") lines, expected $((its + 2)) for $its iterations"
fi
# a second run appends to the same CSV: one header, two rows, ranks 2 then 3
cp "$T/two.csv" "$T/append.csv"
"$MPIEXEC" "${MPIFLAGS[@]}" -np 3 "$G" "${P[@]}" --set output.csv="$T/append.csv" </dev/null \
    >"$T/append.out" 2>&1 || fail "append: 3 ranks exit $?"
[ "$(grep -c '^case,' "$T/append.csv")" = 1 ] && [ "$(wc -l <"$T/append.csv")" = 3 ] \
    || fail "append: $(wc -l <"$T/append.csv") lines, $(grep -c '^case,' "$T/append.csv") headers: expected one header and 2 rows"
r=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ranks") k = i; next } { printf "%s ", $k }' "$T/append.csv")
[ "$r" = "2 3 " ] || fail "append: ranks column '$r', expected '2 3 '"
nrun=$((nrun + 1))
# output.profile across ranks (the one cycle's profile, rank 0's work): the table with the
# distributed levels' operations and the gathered tail as the coarse solve, and the CSV's
# profile column with the same operations
gs 2 prof "${HOST[@]}" --set problem.generate.type=poisson --set problem.generate.size=24 \
    --set solver.preconditioner=amg --set amg.gather_rows=2000 --set output.profile=1
if converged prof 1e-8; then
    for op in "0 +smoother" "0 +restriction" "0 +prolongation" "[0-9] +coarse solve"; do
        grep -Eq "^ +$op +[0-9]+ " "$T/prof.out" || fail "prof: no profile row \"$op\""
    done
    pc=$(field prof profile)
    case $pc in *"krylov:M="*"L0:smoother="*"coarse solve="*) ;;
        *) fail "prof: the CSV's profile column is '$pc'" ;; esac
fi
finish

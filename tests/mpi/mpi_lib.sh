# mpi_lib.sh: sourced by the tests of tests/mpi/ (bash). The scripts are called as
#   test_NAME.sh GSOLVE MPIEXEC SRCDIR TMPDIR [MATRICES]
# and run gsolve with and without mpirun, each run writing its own CSV file; the checks read
# the CSV row by column name.
set -u
G=$1; MPIEXEC=$2; S=$3; T=$4; M=${5:-}
CFG=$S/configs
DATA=$S/tests/data
rm -rf "$T" && mkdir -p "$T" || exit 1
# Open MPI: more ranks than cores (CI has 2), and as root (the ENVIRONMENT of the tests allows it)
MPIFLAGS=()
if "$MPIEXEC" --version 2>&1 | grep -Eq 'Open MPI|OpenRTE'; then MPIFLAGS=(--oversubscribe); fi
# every run on the host, quiet enough to read, never longer than the test's TIMEOUT allows
HOST=(--set run.backend=host)
nfail=0
nrun=0

# gs NP NAME ARGS...: gsolve ARGS with NP ranks (NP = 0: plain gsolve, no mpirun), the CSV in
# $T/NAME.csv, the console (stdout and stderr) in $T/NAME.out, the exit code in $T/NAME.rc
# (stdin from /dev/null: mpirun forwards its stdin to rank 0 and would eat a caller's loop input)
gs() {
    local np=$1 name=$2; shift 2
    rm -f "$T/$name.csv"
    if [ "$np" = 0 ]; then
        # the one-process reference chooses the AMG method from the matrix as the ranks do, and
        # runs the aggregation and restriction that run across ranks: MIS(2) and R = P^T (one
        # process chooses them from the backend and the matrix)
        local pin=()
        [[ " $* " == *"amg.aggregation="* ]] || pin+=(--set amg.aggregation=mis2)
        [[ " $* " == *"amg.restriction="* ]] || pin+=(--set amg.restriction=pt)
        "$G" "$@" "${pin[@]}" --set output.csv="$T/$name.csv" </dev/null >"$T/$name.out" 2>&1
    else
        "$MPIEXEC" "${MPIFLAGS[@]}" -np "$np" "$G" "$@" --set output.csv="$T/$name.csv" \
            </dev/null >"$T/$name.out" 2>&1
    fi
    echo $? >"$T/$name.rc"
    nrun=$((nrun + 1))
}

# field NAME COLUMN: the column of the one data row of $T/NAME.csv (quoted fields understood)
field() {
    [ -f "$T/$1.csv" ] || { echo ""; return; }
    awk -v col="$2" '
    function csv(line, a,   n, i, c, f, q) {
        n = 0; f = ""; q = 0
        for (i = 1; i <= length(line); i++) {
            c = substr(line, i, 1)
            if (q) { if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { f = f c; i++ } else q = 0 }
                     else f = f c }
            else if (c == "\"") q = 1
            else if (c == ",") { a[++n] = f; f = "" }
            else f = f c
        }
        a[++n] = f; return n
    }
    NR == 1 { n = csv($0, h); for (i = 1; i <= n; i++) if (h[i] == col) k = i; next }
    NR == 2 && k { csv($0, r); print r[k] }' "$T/$1.csv"
}

rows() { [ -f "$T/$1.csv" ] && echo $(($(wc -l <"$T/$1.csv") - 1)) || echo 0; }

fail() {
    echo "FAIL: $*"
    nfail=$((nfail + 1))
}
# show NAME: the run's exit code and the end of its output (a sanitizer's report from its start)
show() {
    echo "--- $1: exit $(cat "$T/$1.rc" 2>/dev/null)"
    if grep -q 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$T/$1.out" 2>/dev/null; then
        grep -m1 -A 24 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$T/$1.out"
    else
        tail -n 25 "$T/$1.out" 2>/dev/null
    fi
}

# converged NAME RTOL: exit 0, one CSV row, converged = 1 and the true residual below RTOL
converged() {
    local name=$1 rtol=$2 rc res
    rc=$(cat "$T/$name.rc")
    [ "$rc" = 0 ] || { fail "$name: exit $rc, expected 0 (converged)"; show "$name"; return 1; }
    [ "$(rows "$name")" = 1 ] || { fail "$name: $(rows "$name") CSV rows, expected 1"; return 1; }
    [ "$(field "$name" converged)" = 1 ] || { fail "$name: converged = $(field "$name" converged)"; return 1; }
    res=$(field "$name" rel_residual)
    awk -v r="$res" -v t="$rtol" 'BEGIN { exit !(r != "" && r + 0 == r && r < t) }' \
        || { fail "$name: true relative residual $res is not below $rtol"; return 1; }
    return 0
}

# ranks NAME N: the CSV row says ranks = N
ranks_is() {
    local r
    r=$(field "$1" ranks)
    [ "$r" = "$2" ] || { fail "$1: CSV ranks = '$r', expected $2"; return 1; }
}

# same_its REF NAME: the same iteration count as REF
same_its() {
    local a b
    a=$(field "$1" iterations); b=$(field "$2" iterations)
    [ -n "$a" ] && [ "$a" = "$b" ] || { fail "$2: $b iterations, $1 took $a (expected the same)"; return 1; }
    echo "ok: $2: $b iterations = $1"
}

# near_its REF NAME PERCENT [SLACK]: iterations within PERCENT % of REF's (at least SLACK apart
# allowed, default 1, for small counts)
near_its() {
    local a b
    a=$(field "$1" iterations); b=$(field "$2" iterations)
    awk -v a="$a" -v b="$b" -v p="$3" -v s="${4:-1}" 'BEGIN {
        if (a == "" || b == "") exit 1
        d = b - a; if (d < 0) d = -d; lim = a * p / 100; if (lim < s) lim = s
        exit !(d <= lim) }' \
        || { fail "$2: $b iterations, $1 took $a (more than $3% apart)"; return 1; }
    echo "ok: $2: $b iterations, $1: $a (within $3%)"
}

finish() {
    if [ "$nfail" -gt 0 ]; then
        echo "$nfail check(s) failed ($nrun runs); the runs are in $T"
        exit 1
    fi
    echo "ok: $nrun runs, every check passed"
    exit 0
}

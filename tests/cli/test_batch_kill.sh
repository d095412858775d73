#!/usr/bin/env bash
# test_batch_kill.sh GSOLVE SRCDIR WORKDIR: kill a batch midway (SIGKILL, then SIGTERM), add a
# torn row as a crash mid-write would, rerun: every (case, format, repeat) recorded once, no
# torn or short row.
set -u
G=$1; SRC=$2; W=$3
fail() { echo "FAIL: $*"; exit 1; }
unquote() { sed 's/"[^"]*"/Q/g' "$@"; } # a quoted field (a GPU name holds a comma) as one word
rm -rf "$W"; mkdir -p "$W"; cd "$W" || exit 1
ncols=79; runs=20

rows() { cat "$1"/case-*.csv 2>/dev/null | grep -vc '^case,'; }
check_files() { # no torn or short rows
    for f in "$1"/case-*.csv; do
        [ -z "$(tail -c 1 "$f")" ] || fail "$f: torn last row"
        unquote "$f" | awk -F, -v n=$ncols 'NF != n { exit 1 }' || fail "$f: a row without $ncols fields"
    done
}

for sig in KILL TERM; do
    R=$W/res_$sig
    "$G" "$SRC/batch_kill.cfg" --set batch.results="$R" > "$W/$sig.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 600); do
        [ "$(rows "$R")" -ge 3 ] && break
        kill -0 $pid 2>/dev/null || break
        sleep 0.02
    done
    kill -$sig $pid 2>/dev/null
    wait $pid; code=$?
    n=$(rows "$R")
    echo "SIG$sig: exit $code after $n of $runs runs"
    [ "$n" -lt $runs ] || echo "note: the batch finished before the kill; the rerun check still runs"
    check_files "$R"
    nint=$(unquote "$R"/case-*.csv | grep -v '^case,' | grep -c ',interrupted,')
    if [ $sig = TERM ] && [ "$n" -lt $runs ]; then
        # SIGTERM: the run under way is recorded as interrupted, the batch stops with 143
        [ $code = 143 ] || fail "SIGTERM: exit $code, expected 143"
        grep -q '^batch stopped by SIGTERM' "$W/$sig.log" || fail "SIGTERM: the batch did not say it stopped"
        [ "$nint" -le 1 ] || fail "SIGTERM: $nint runs recorded as interrupted"
    fi
    # a row cut short, as a crash in the middle of a write leaves it
    printf 'p40,poisson 3D 7-point 40^3,64000,438400,cg,jac' >> "$R/case-000.csv"
    "$G" report "$R" --no-plots > "$W/$sig.report" 2>&1 || fail "report over a torn file"
    grep -q 'a torn last row' "$W/$sig.report" || fail "the report did not note the torn row"
    out=$("$G" "$SRC/batch_kill.cfg" --set batch.results="$R" 2>&1); code=$?
    [ $code = 0 ] || { echo "$out"; fail "rerun after SIG$sig: exit $code"; }
    echo "$out" | grep -q 'cut off a torn last row' || fail "the torn row was not reported"
    if [ "$nint" = 1 ]; then
        echo "$out" | grep -q '1 interrupted run will run again' || fail "the interrupted run was not run again"
    fi
    check_files "$R"
    [ "$(rows "$R")" = $runs ] || fail "after the rerun: $(rows "$R") rows, expected $runs"
    dups=$(unquote "$R"/case-*.csv | grep -v '^case,' | awk -F, '{ print $1, $31, $32 }' | sort | uniq -d)
    [ -z "$dups" ] || fail "duplicated runs: $dups"
    [ -z "$(ls "$R"/case-*/*.tmp 2>/dev/null | grep -v . )" ] || true
    for f in "$R"/case-*.csv; do
        unquote "$f" | grep -v '^case,' | awk -F, '{ print $35 }' | while read -r rec; do
            [ -s "$R/$rec.h5" ] || fail "$R/$rec.h5 missing"
        done || exit 1
    done
done
echo "ok"

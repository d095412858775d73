#!/usr/bin/env bash
# test_wrap.sh GSOLVE DATA WORKDIR: a format's refusal is said in full, never cut in a word: the
# warning on stderr and the "why:" line end with the refusal's last words, and the AMG level
# table wraps a long reason at blanks onto lines indented to its column (at most 56 characters
# of it a line), which joined give the warning's words exactly.
set -u
G=$1 D=$2 W=$3
fail() { echo "FAIL: $*"; echo "--- output:"; echo "$out"; exit 1; }
rm -rf "$W" && mkdir -p "$W"
H=(--set run.backend=host)

# a matrix CDS refuses at every block size: the list of block sizes and the last words
out=$("$G" "${H[@]}" --set problem.matrix="$D/ginkgo_multigrid_A6525.mtx.gz" \
      --set spmv.format=cds 2>&1) || fail "exit $?"
echo "$out" | grep -Eq '^gsolve: forced by spmv.format; cds refused, csr runs: cds: .*\(b=1: >= [0-9]+, .*\): not a structured-grid matrix$' \
    || fail "the warning is not whole"
echo "$out" | grep -Eq '^ +why: forced by spmv.format; cds refused.*: not a structured-grid matrix$' \
    || fail "the why line is not whole"

# AMG levels forced to CDS: coarse levels refuse it with their padding; the table wraps
out=$("$G" "${H[@]}" --set problem.generate.type=poisson --set problem.generate.size=20 \
      --set solver.preconditioner=amg --set spmv.levels=cds,cds,cds 2>&1) || fail "exit $?"
warn=$(echo "$out" | grep '^gsolve: forced by spmv.levels\[1\]' | sed 's/^gsolve: //')
echo "$warn" | grep -Eq 'padding exceeds spmv.cds_max_fill = 25.0%$' || fail "warning: '$warn'"
table=$(echo "$out" | awk '/^ +level +rows/ {on = 1; next} on && /^ +[0-9]+ +[0-9]+ / {n++} on && n == 2 {print} on && n == 3 {exit}')
[ -n "$table" ] || fail "no level 1 row"
joined=$(echo "$table" | sed -E '1s/^.*(forced by)/\1/; 2,$s/^ +//' | paste -sd' ')
[ "$joined" = "$warn" ] || fail "level 1's reason '$joined' is not the warning '$warn'"
[ "$(echo "$table" | wc -l)" -ge 2 ] || fail "level 1's reason did not wrap"
col=$(echo "$table" | head -n 1 | awk '{print index($0, "forced by") - 1}')
echo "$table" | tail -n +2 | while IFS= read -r line; do
    lead=$(echo "$line" | awk '{match($0, /^ */); print RLENGTH}')
    [ "$lead" = "$col" ] || { echo "FAIL: continuation indented $lead, the column is $col"; exit 1; }
    [ $(( ${#line} - col )) -le 56 ] || { echo "FAIL: a continuation longer than 56: '$line'"; exit 1; }
done || exit 1
echo "ok: messages whole and wrapped"

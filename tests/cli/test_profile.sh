#!/usr/bin/env bash
# test_profile.sh GSOLVE WORKDIR: output.profile. The summary's table splits the solve into the
# Krylov method's A SpMV, the preconditioner and the vector work, and the AMG cycle by level and
# operation; the shares are those times over the solve time; the CSV row's profile column holds
# the same numbers; without the key there is no table and the column is empty; a batch's report
# gives each format's shares per operation.
set -u
G=$1; W=$2
fail() { echo "FAIL: $*"; echo "--- output:"; echo "$out"; exit 1; }
rm -rf "$W"; mkdir -p "$W"; cd "$W" || exit 1
P="--set run.backend=host --set problem.generate.type=jumps --set problem.generate.size=16 --set solver.preconditioner=amg"

out=$("$G" $P --set output.profile=1 --set output.csv=p.csv 2>&1) || fail "profiled run: exit $?"
echo "$out" | grep -q '^profile   the solve' || fail "no profile table"
for op in "A SpMV (Krylov)" "preconditioner" "Krylov vectors"; do
    echo "$out" | grep -q "^          -      $op" || fail "no '$op' line"
done
for op in smoother residual restriction prolongation; do
    echo "$out" | grep -Eq "^          0 +$op +[0-9]+ +[0-9.]+ +[0-9.]+%" || fail "no level-0 $op line"
done
echo "$out" | grep -Eq '^          [1-9] +coarse solve' || fail "no coarse solve line"
# the shares: each is its time over the solve time
solve=$(echo "$out" | sed -n 's/^profile   the solve.s \([0-9.]*\) ms.*/\1/p')
echo "$out" | awk -v T="$solve" '/^          [-0-9] / {
    n = split($0, f, " +");
    for (i = 2; i <= n; i++) if (f[i] ~ /%$/) { ms = f[i - 1]; sh = f[i]; sub(/%/, "", sh); break }
    if (i > n) next;
    if (ms / T * 100 - sh > 0.1 || sh - ms / T * 100 > 0.1) { print "bad share: " $0; bad = 1 } }
    END { exit bad }' || fail "a share is not time / solve time ($solve ms)"
# the roofline: bytes, rate and share of the copy bandwidth on the rows with a byte model, and
# the iteration against its floor
echo "$out" | grep -Eq '^          0 +smoother +[0-9]+ +[0-9.]+ +[0-9.]+% +[0-9.]+ +[0-9.]+ +[0-9.]+%$' \
    || fail "no bytes, rate and share on the level-0 smoother line"
echo "$out" | grep -Eq '^roofline  [0-9.]+ MB an iteration: [0-9.]+ ms at the copy bandwidth; the profiled solve took [0-9.]+ ms an iteration, [0-9.]+x that floor$' \
    || fail "no roofline line"
# the last row's profile field (quoted fields may hold commas)
field() { python3 -c 'import csv, sys; r = list(csv.DictReader(open(sys.argv[1]))); print(r[-1].get("profile", "MISSING"))' "$1"; }
prof=$(field p.csv)
[ "$prof" != MISSING ] || fail "no profile column"
echo "$prof" | grep -Eq '^krylov:A=[0-9.]+/[0-9]+;krylov:M=[0-9.]+/[0-9]+;krylov:vector=[0-9.]+;L0:smoother=[0-9.]+/[0-9]+' \
    || fail "profile column: $prof"
sm=$(echo "$out" | awk '/^          0 +smoother/ {print $4}')
csm=$(echo "$prof" | sed -n 's/.*L0:smoother=\([0-9.]*\)\/.*/\1/p')
awk -v a="$csm" -v b="$sm" 'BEGIN { d = a - b; exit !(d < 0.0006 && d > -0.0006) }' \
    || fail "the column's L0 smoother ($csm ms) is not the table's ($sm ms)"

out=$("$G" $P --set output.csv=q.csv 2>&1) || fail "plain run: exit $?"
echo "$out" | grep -q '^profile' && fail "a table without output.profile"
prof=$(field q.csv)
[ -z "$prof" ] || fail "profile column without output.profile: $prof"

cat > b.cfg <<CFG
problem = { generate = { type = "jumps"; size = 16; }; rhs = "ones"; };
solver = { type = "cg"; preconditioner = "amg"; };
run = { backend = "host"; };
output = { profile = 1; };
batch = { formats = ["csr", "cds"]; results = "res"; cases = ( { name = "j16"; } ); };
CFG
out=$("$G" b.cfg 2>&1) || fail "batch: exit $?"
out=$("$G" report res --no-plots 2>&1); code=$?
[ $code = 0 ] || [ $code = 2 ] || fail "report: exit $code"
echo "$out" | grep -q '^  where the solve went' || fail "no profile table in the console report"
echo "$out" | grep -Eq '^  L0:smoother +[0-9.]+% +[0-9.]+%$' || fail "no L0 smoother line for both formats"
grep -q '^Where the solve went' res/report.md || { out=$(cat res/report.md); fail "no profile table in the report"; }
grep -Eq '^\| L0:smoother \| [0-9.]+% \([0-9.]+\) \| [0-9.]+% \([0-9.]+\) \|$' res/report.md \
    || { out=$(cat res/report.md); fail "no L0 smoother row for both formats"; }
echo "ok"

#!/usr/bin/env bash
# test_export_ij.sh GSOLVE DIR: --export FILE.ij writes hypre's IJ text format as FILE.ij.00000:
# the first line "0 n-1 0 n-1", then "i j value" per entry, 0-based, %.17g; the same entries as
# the Matrix Market export of the same problem. rotated 3^2, angle 0, epsilon 1: the Q1
# Laplacian (8/3 and -1/3).
set -u
gsolve=$1 dir=$2
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$dir" && rm -f "$dir"/q1.*
set_args=(--set run.backend=host --set problem.generate.type=rotated --set problem.generate.size=3
          --set problem.generate.angle=0 --set problem.generate.epsilon=1)
out=$("$gsolve" "${set_args[@]}" --export "$dir/q1.ij" 2>&1) || fail "export exited $?: $out"
echo "$out" | grep -q "wrote $dir/q1.ij.00000: 9 x 9, 49 nonzeros" || fail "output: $out"
f=$dir/q1.ij.00000
[ -f "$f" ] || fail "$f not written"
[ "$(head -n 1 "$f")" = "0 8 0 8" ] || fail "first line '$(head -n 1 "$f")'"
[ "$(wc -l < "$f")" = 50 ] || fail "$(wc -l < "$f") lines, expected 1 + 49"
grep -qx "4 4 2.6666666666666665" "$f" || fail "no centre entry '4 4 2.6666666666666665'"
grep -qx "4 0 -0.33333333333333331" "$f" || fail "no corner entry '4 0 -0.33333333333333331'"
"$gsolve" "${set_args[@]}" --export "$dir/q1.mtx" > /dev/null 2>&1 || fail "Matrix Market export"
diff <(tail -n +2 "$f" | awk '{ printf "%d %d %.17g\n", $1 + 1, $2 + 1, $3 }') \
     <(grep -v '^%' "$dir/q1.mtx" | tail -n +2 | awk '{ printf "%d %d %.17g\n", $1, $2, $3 }') \
    || fail "IJ and Matrix Market entries differ"
echo "ok: $f"

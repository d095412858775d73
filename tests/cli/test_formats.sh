#!/usr/bin/env bash
# test_formats.sh GSOLVE DATA DIR: gsolve solves from scipy.sparse save_npz files (csr, csc, coo)
# with right-hand sides in .npy of int32, big-endian float64 and int64, and finds x_ref[i] =
# (i % 7) - 3 exactly (to 1e-9); --export FILE.ij writes A and b in hypre's IJ format, says both
# file names, and reads back as problem.matrix / problem.rhs to the very same system (its
# Matrix Market export equals the direct one, byte for byte); --help lists every export format;
# --inspect judges symmetry relative to the entries and describes vectors as vectors; complex
# .npy, bsr .npz, a cut .npz and an unknown export name are one-line errors (exit 2).
set -u
G=$1 D=$2 W=$3
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
expect() { "$here/expect.sh" "$@" > /dev/null || { "$here/expect.sh" "$@"; exit 1; }; }
rm -rf "$W" && mkdir -p "$W"
H=(--set run.backend=host --set solver.rtol=1e-14 --set solver.preconditioner=jacobi)
# the solution file (Matrix Market array) against x_ref
check_x() {
    awk '/^%/ {next} !seen {seen = 1; next}
         {i = k++; d = $1 - ((i % 7) - 3); if (d < 0) d = -d; if (d > 1e-9) bad++}
         END {exit (k == 36 && !bad) ? 0 : 1}' "$1" || fail "$1: x differs from x_ref"
}

# solves from .npz and .npy
for f in A_csr A_csc A_coo; do
    for b in Ab_i4 Ab_f8_be Ab_i8_be; do
        out=$("$G" "${H[@]}" --set problem.matrix="$D/$f.npz" --set problem.rhs="$D/$b.npy" \
              --set output.solution="$W/x_${f}_$b.mtx" 2>&1) || fail "$f.npz + $b.npy: $out"
        echo "$out" | grep -q "converged" || fail "$f.npz + $b.npy: $out"
        check_x "$W/x_${f}_$b.mtx"
    done
done

# --export FILE.ij: both files named, hypre's command, and back
out=$("$G" "${H[@]}" --set problem.matrix="$D/A_csr.npz" --set problem.rhs="$D/Ab_i8_be.npy" \
      --export "$W/e.ij" 2>&1) || fail "export e.ij: $out"
echo "$out" | grep -qx "wrote $W/e.ij.00000: 36 x 36, 156 nonzeros" || fail "export: $out"
echo "$out" | grep -qx "wrote $W/e_b.ij.00000: the right-hand side b, 36 entries" || fail "$out"
echo "$out" | grep -q "ij -fromfile $W/e.ij -rhsfromfile $W/e_b.ij" || fail "no hypre line: $out"
[ "$(head -n 1 "$W/e_b.ij.00000")" = "0 35" ] || fail "vector range line $(head -n 1 "$W/e_b.ij.00000")"
out=$("$G" "${H[@]}" --set problem.matrix="$W/e.ij" --set problem.rhs="$W/e_b.ij" \
      --set output.solution="$W/x_ij.mtx" 2>&1) || fail "solve from e.ij: $out"
echo "$out" | grep -q "rhs file (hypre ij)" || fail "rhs not from the IJ file: $out"
check_x "$W/x_ij.mtx"
# the same system: the .mtx export from the IJ files equals the one from the .npz, byte for byte
out=$("$G" "${H[@]}" --set problem.matrix="$W/e.ij" --set problem.rhs="$W/e_b.ij" \
      --export "$W/back.mtx" 2>&1) || fail "export back.mtx: $out"
echo "$out" | grep -qx "wrote $W/back.mtx: 36 x 36, 156 nonzeros" || fail "mtx export: $out"
echo "$out" | grep -qx "wrote $W/back_b.mtx: the right-hand side b, 36 entries" || fail "$out"
"$G" "${H[@]}" --set problem.matrix="$D/A_csr.npz" --set problem.rhs="$D/Ab_i8_be.npy" \
    --export "$W/direct.mtx" > /dev/null 2>&1 || fail "export direct.mtx"
cmp -s "$W/back.mtx" "$W/direct.mtx" || fail "A differs after the IJ round trip"
cmp -s "$W/back_b.mtx" "$W/direct_b.mtx" || fail "b differs after the IJ round trip"
# a generated problem with values that are not integers (1/3): the same, exactly
R=(--set problem.generate.type=rotated --set problem.generate.size=4 --set problem.rhs=random)
"$G" "${H[@]}" "${R[@]}" --export "$W/g.ij" > /dev/null 2>&1 || fail "export g.ij"
"$G" "${H[@]}" "${R[@]}" --export "$W/g.mtx" > /dev/null 2>&1 || fail "export g.mtx"
"$G" "${H[@]}" --set problem.matrix="$W/g.ij" --set problem.rhs="$W/g_b.ij" \
    --export "$W/g2.mtx" > /dev/null 2>&1 || fail "export g2.mtx"
cmp -s "$W/g.mtx" "$W/g2.mtx" && cmp -s "$W/g_b.mtx" "$W/g2_b.mtx" || fail "g.ij round trip"

# --help names every export format; a name of no format is refused
expect 0 "--export FILE.mtx\|FILE.mtx.gz\|FILE.h5\|FILE.ij" "$G" --help
expect 2 "--export $W/A.txt: expected FILE.mtx, FILE.mtx.gz \(Matrix Market\), FILE.h5" \
    "$G" "${H[@]}" --set problem.matrix="$D/A_csr.npz" --export "$W/A.txt"

# --inspect
expect 0 "numerically symmetric: yes \(to 6.7e-16 relative" "$G" --inspect "$D/near_sym.mtx"
expect 0 "numerically symmetric: yes \(exactly\)" "$G" --inspect "$D/A_coo.npz"
expect 0 "format: npz csr" "$G" --inspect "$D/A_csr.npz"
expect 0 "format: hypre ij" "$G" --inspect "$W/e.ij"
printf '0 1 0 1\n0 0 x\n' > "$W/bad.ij.00000"
expect 2 "bad.ij.00000:2: expected \"i j value\" \(0-based indices\), got \"0 0 x\"" \
    "$G" --inspect "$W/bad.ij"
cp "$W/e_b.ij.00000" "$W/v.ij.00000"
for v in "$D/b_array.mtx" "$D/Ab_i4.npy" "$W/v.ij"; do
    out=$("$G" --inspect "$v" 2>&1) || fail "inspect $v: $out"
    echo "$out" | grep -q "^object: vector (36 x 1)" || fail "inspect $v: $out"
    echo "$out" | grep -q "^length: 36" || fail "inspect $v: $out"
    echo "$out" | grep -Eq "^norm2: [0-9.]+" || fail "inspect $v: $out"
    echo "$out" | grep -q "nnz per row\|rows without diagonal" && fail "inspect $v: matrix fields: $out"
done

# errors: one line naming the file and what was expected
expect 2 "c16.npy: dtype '<c16' \(complex128, little-endian\): complex values are not supported" \
    "$G" "${H[@]}" --set problem.matrix="$D/A_csr.npz" --set problem.rhs="$D/c16.npy"
expect 2 "A_bsr.npz:format.npy says 'bsr': expected csr, csc or coo" \
    "$G" "${H[@]}" --set problem.matrix="$D/A_bsr.npz"
head -c 700 "$D/A_csr.npz" > "$W/cut.npz"
expect 2 "cut.npz: no zip end of central directory record" \
    "$G" "${H[@]}" --set problem.matrix="$W/cut.npz"
expect 2 "problem.rhs = \".*A_csr.npz\": a .npz archive holds a sparse matrix" \
    "$G" "${H[@]}" --set problem.matrix="$D/A_csr.npz" --set problem.rhs="$D/A_csr.npz"
echo "ok: formats"

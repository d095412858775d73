#!/usr/bin/env bash
# test_errors.sh GSOLVE MPIEXEC SRCDIR TMPDIR: bad inputs on 2 ranks end with exit 2 and exactly
# one "gsolve: error: ..." line (from one rank) that says what is wrong, with no MPI abort, no
# crash and no hang (the test's TIMEOUT; each run is also cut at 60 s): a missing matrix file,
# malformed Matrix Market files, a bad config key in a file and on --set, a non-square matrix, a
# zero diagonal with Jacobi and with AMG, an AMG block size that does not divide the rows, a
# batch config and a sequence (refused under mpirun with more than one rank). A run that does not converge
# exits 3 with its reason.
source "$(dirname "$0")/mpi_lib.sh"
BAD=$DATA/bad
TO=60
command -v timeout >/dev/null || TO=

# expect NAME CODE REGEX ARGS...: gsolve ARGS on 2 ranks
expect() {
    local name=$1 want=$2 regex=$3 code n; shift 3
    ${TO:+timeout $TO} "$MPIEXEC" "${MPIFLAGS[@]}" -np 2 "$G" "$@" </dev/null >"$T/$name.out" 2>&1
    code=$?
    nrun=$((nrun + 1))
    echo "$code" >"$T/$name.rc"
    if [ "$code" = 124 ] && [ -n "$TO" ]; then fail "$name: still running after $TO s (a hang)"; show "$name"; return; fi
    [ "$code" = "$want" ] || { fail "$name: exit $code, expected $want"; show "$name"; return; }
    grep -Eq -- "$regex" "$T/$name.out" || { fail "$name: output does not match /$regex/"; show "$name"; return; }
    if [ "$want" = 2 ]; then
        n=$(grep -c '^gsolve: error: ' "$T/$name.out")
        [ "$n" = 1 ] || { fail "$name: $n 'gsolve: error:' lines, expected exactly one"; show "$name"; return; }
    fi
    if grep -Eq 'MPI_ABORT|AddressSanitizer|runtime error:|Segmentation fault|Signal: ' "$T/$name.out"; then
        fail "$name: an abort or crash: $(grep -Em1 'MPI_ABORT|AddressSanitizer|runtime error:|Segmentation fault|Signal: ' "$T/$name.out")"
        show "$name"; return
    fi
    echo "ok: $name: exit $code, /$regex/"
}

expect missing_file 2 "cannot open '.*no_such_file.mtx'" "${HOST[@]}" --set problem.matrix="$BAD/no_such_file.mtx"
expect missing_config 2 "cannot open config '.*nope.cfg'" "$T/nope.cfg"
expect too_many 2 "too_many.mtx:5: .*more" "${HOST[@]}" --set problem.matrix="$BAD/too_many.mtx"
expect too_few 2 "too_few.mtx.*3 of 4" "${HOST[@]}" --set problem.matrix="$BAD/too_few.mtx"
expect bad_banner 2 "bad_banner.mtx:1: " "${HOST[@]}" --set problem.matrix="$BAD/bad_banner.mtx"
expect not_number 2 "not_number.mtx:4: .*abc" "${HOST[@]}" --set problem.matrix="$BAD/not_number.mtx"
expect index_beyond 2 "index_beyond.mtx:4: .*4" "${HOST[@]}" --set problem.matrix="$BAD/index_beyond.mtx"
expect nan_value 2 "nan_value.mtx:4: .*nan" "${HOST[@]}" --set problem.matrix="$BAD/nan_value.mtx"
expect complex 2 "complex.mtx.*(complex|not supported)" "${HOST[@]}" --set problem.matrix="$BAD/complex.mtx"
expect nonsquare 2 "nonsquare.mtx: the matrix is 3 x 4. the solvers need a square matrix" \
    "${HOST[@]}" --set problem.matrix="$BAD/nonsquare.mtx"
expect zero_diag_jacobi 2 "zero_diag.mtx: row 2 has (a zero|no) diagonal entry" \
    "${HOST[@]}" --set problem.matrix="$BAD/zero_diag.mtx" --set solver.preconditioner=jacobi
expect zero_diag_amg 2 "zero_diag.mtx: row 2 has (a zero|no|a zero, missing or non-finite) diagonal entry" \
    "${HOST[@]}" --set problem.matrix="$BAD/zero_diag.mtx" --set solver.preconditioner=amg
expect unknown_key 2 "unknown_key.cfg:3: unknown key 'solver.tol' \\(did you mean 'solver.rtol'\\?\\)" \
    "$BAD/unknown_key.cfg"
expect wrong_type 2 "wrong_type.cfg:3: solver.max_iters expects an integer" "$BAD/wrong_type.cfg"
expect set_unknown_key 2 "--set: unknown key 'solver.rtoll'" "$CFG/quickstart.cfg" --set solver.rtoll=1
expect amg_bad_block 2 "(512 rows|[0-9]+ rows of this rank) are not a multiple of amg.block_size = 3" "${HOST[@]}" \
    --set problem.generate.type=poisson --set problem.generate.size=8 \
    --set solver.preconditioner=amg --set amg.block_size=3 --set amg.gather_rows=100
expect batch 2 "batch.cfg is a batch config" "$CFG/batch.cfg" --set batch.results="$T/batch-results"
[ -e "$T/batch-results" ] && fail "batch: the refused batch wrote $T/batch-results"
expect sequence 2 "a sequence \\(problem.steps = 3\\) runs in one process" "${HOST[@]}" \
    --set problem.generate.type=poisson --set problem.generate.size=8 --set problem.steps=3
expect not_converged 3 "did not converge: maximum iterations" "${HOST[@]}" \
    --set problem.generate.type=poisson --set problem.generate.size=8 --set solver.max_iters=2
finish

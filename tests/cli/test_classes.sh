#!/usr/bin/env bash
# test_classes.sh GSOLVE DIR NAME spd|nonsym: the fixture DIR/NAME.mtx.gz of one problem class
# (tests/data/classes/README: how each was made) solved on the host with gsolve's defaults and
# the AMG preconditioner, b = ones, rtol 1e-8. spd: CG must converge within 100 iterations with
# the true residual ||b-Ax||/||b|| below 1e-8 (elasticity: with its rigid-body modes as the
# near-nullspace, amg.block_size = 3). nonsym: GMRES likewise. The console must name the AMG
# method chosen from the matrix and the reason each class has (classical for the nonsymmetric,
# circuit, heterogeneous and unstructured-mesh ones; smoothed aggregation for elasticity with its
# rigid-body modes); circuits at operator complexity <= 2; a nonsymmetric run's CSV row records
# the smoother, sweeps, coarsening, method and restriction that ran.
set -u
G=$1 D=$2 name=$3 kind=$4
fail() { echo "FAIL: $name: $*"; echo "$out"; exit 1; }
args=(--set problem.matrix="$D/$name.mtx.gz" --set problem.rhs=ones --set run.backend=host
      --set solver.preconditioner=amg)
[ -f "$D/${name}_nullspace.npy" ] &&
    args+=(--set problem.nullspace="$D/${name}_nullspace.npy" --set amg.block_size=3)
if [ "$kind" = spd ]; then
    out=$("$G" "${args[@]}" --set solver.type=cg 2>&1); code=$?
    [ $code = 0 ] || fail "exit $code, expected 0"
else
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    out=$("$G" "${args[@]}" --set solver.type=gmres --set output.csv="$tmp/r.csv" 2>&1); code=$?
    [ $code = 0 ] || fail "exit $code, expected 0"
    # the CSV row records what ran: PMIS coarsening, l1-Jacobi, V cycle, 2+2 sweeps (the columns
    # amg_aggregation, amg_smoother, amg_cycle, amg_presweeps, amg_postsweeps, in that order)
    sed -n 2p "$tmp/r.csv" | grep -q ',pmis,l1jacobi,V,2,2,' ||
        fail "the CSV row does not record pmis, l1jacobi, V, 2, 2: $(sed -n 2p "$tmp/r.csv")"
    # ... and the method and restriction (amg_method, amg_restriction): classical, with R from
    # A^T's interpolation unless the rows are irregular (a circuit)
    rw=at; case $name in circuit*) rw=pt ;; esac
    sed -n 2p "$tmp/r.csv" | grep -q ",classical,$rw," ||
        fail "the CSV row does not record classical, $rw: $(sed -n 2p "$tmp/r.csv")"
fi
result=$(echo "$out" | grep '^result') || fail "no result line"
its=$(echo "$result" | sed -n 's/.* after \([0-9]*\) iterations.*/\1/p')
res=$(echo "$out" | sed -n 's/^residual *true ||b-Ax||\/||b|| = \([^ ]*\).*/\1/p')
[ -n "$its" ] && [ -n "$res" ] || fail "no iteration count or true residual"
echo "$name ($kind): exit $code, $its iterations, true residual $res: $(echo "$result" | sed "s/^result *//")"
echo "$result" | grep -q "converged" || fail "did not converge"
awk -v r="$res" 'BEGIN { exit !(r < 1e-8) }' || fail "true residual $res is not below 1e-8"
[ "$its" -le 100 ] || fail "$its iterations, expected at most 100"
# the method chosen from the matrix, and why (the console's AMG block, joined onto one line)
chosen=$(echo "$out" | sed -n '/chosen:/,/level  /p' | tr -s ' \n' ' ')
case $name in
    circuit_spd*) want="method classical: irregular rows" ;;
    spe10* | channel*) want="method classical: heterogeneous coefficients" ;;
    poisson_p*) want="method classical: an unstructured mesh's stencil" ;;
    elast*) want="method sa: a near-nullspace given" ;;
    *) want="method classical: A is nonsymmetric" ;;
esac
[[ "$chosen" == *"$want"* ]] || fail "the AMG block says \"$chosen\", expected \"$want\""
oc=$(echo "$out" | sed -n 's/^amg .*operator complexity \([0-9.]*\).*/\1/p')
case $name in circuit*) awk -v c="$oc" 'BEGIN { exit !(c <= 2.0) }' ||
    fail "operator complexity $oc, expected at most 2.0 on a circuit matrix" ;; esac
exit 0

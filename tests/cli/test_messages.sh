#!/usr/bin/env bash
# test_messages.sh GSOLVE WORKDIR: what a run that fails says. No phrase repeated; the
# relative residual beside rtol; a hint when CG meets a nonsymmetric matrix, when Jacobi or AMG
# meet a negative diagonal; GMRES+AMG stagnating says so. The header's thread count and where
# it came from.
set -u
G=$1; W=$2
fail() { echo "FAIL: $*"; echo "--- output:"; echo "$out"; exit 1; }
rm -rf "$W"; mkdir -p "$W"; cd "$W" || exit 1
H="--set run.backend=host"
P8="--set problem.generate.type=poisson --set problem.generate.size=8"

out=$("$G" $H $P8 --set solver.max_iters=2 2>&1); code=$?
[ $code = 3 ] || fail "max_iters: exit $code"
echo "$out" | grep -Eq '^gsolve: did not converge: maximum iterations reached: relative residual [0-9.]+e[-+][0-9]+ > rtol 1e-08 after 2 iterations$' || fail "max_iters: the stderr line"
echo "$out" | grep -Eq '^result +did not converge: maximum iterations reached: relative residual [0-9.]+e[-+][0-9]+ > rtol 1e-08 after 2 iterations$' || fail "max_iters: the result line"
echo "$out" | grep -q 'did not converge: did not converge' && fail "repeated 'did not converge'"
echo "$out" | grep -Eq 'after [0-9]+ iterations.*after [0-9]+ iterations' && fail "repeated iteration count"

# CG on a nonsymmetric matrix: a hint to use GMRES or BiCGStab
out=$("$G" $H --set problem.generate.type=convdiff --set problem.generate.size=20 \
      --set problem.generate.velocity=100 --set solver.type=cg 2>&1); code=$?
[ $code = 3 ] || fail "CG on convdiff: exit $code"
echo "$out" | grep -q '^gsolve: hint: the matrix is not symmetric .*"gmres" or "bicgstab"' || fail "CG on convdiff: no hint"
echo "$out" | grep -q '^hint      the matrix is not symmetric' || fail "CG on convdiff: no hint in the summary"
echo "$out" | grep -q 'not positive definite.*not positive definite' && fail "repeated 'not positive definite'"

# -A for a symmetric positive definite A: Jacobi and AMG get the -A x = -b hint
"$G" $H --set problem.generate.type=poisson --set problem.generate.size=12 --export "$W/p.mtx" > /dev/null 2>&1 || fail "export"
awk 'NR == 1 || /^%/ { print; next } !s { print; s = 1; next } { print $1, $2, -$3 }' "$W/p.mtx" > "$W/neg.mtx"
for pc in jacobi amg; do
    out=$("$G" $H --set problem.matrix="$W/neg.mtx" --set problem.rhs=ones --set solver.preconditioner=$pc 2>&1); code=$?
    [ $code = 3 ] || fail "CG+$pc on -A: exit $code"
    echo "$out" | grep -q '^gsolve: hint: the diagonal has 1728 negative entries (of 1728 rows).*solve -A x = -b' || fail "CG+$pc on -A: no hint"
    echo "$out" | grep -q 'the matrix is not symmetric' && fail "CG+$pc on -A: -A is symmetric"
done
out=$("$G" $H --set problem.matrix="$W/neg.mtx" --set problem.rhs=ones --set solver.type=gmres \
      --set solver.preconditioner=amg --set solver.stagnation_window=100 2>&1); code=$?
[ $code = 3 ] || fail "GMRES+AMG on -A: exit $code"
echo "$out" | grep -Eq '^gsolve: did not converge: stagnation: relative residual [0-9.]+e[-+][0-9]+ after [0-9]+ iterations' || fail "GMRES+AMG on -A: stagnation not said"
echo "$out" | grep -q '^gsolve: hint: the diagonal has 1728 negative entries' || fail "GMRES+AMG on -A: no hint"

# threads: run.threads, OMP_NUM_THREADS, SLURM_CPUS_PER_TASK, and small problems on one
out=$("$G" $H $P8 --set run.threads=3 2>&1)
echo "$out" | grep -q '^solver .*  threads 3 (run.threads)$' || fail "run.threads"
out=$(OMP_NUM_THREADS=2 "$G" $H $P8 2>&1)
echo "$out" | grep -q '^solver .*  threads 2 (OMP_NUM_THREADS)$' || fail "OMP_NUM_THREADS"
out=$(SLURM_CPUS_PER_TASK=1 "$G" $H --set problem.generate.type=poisson --set problem.generate.size=30 2>&1)
echo "$out" | grep -q '^solver .*  threads 1 (SLURM_CPUS_PER_TASK)$' || fail "SLURM_CPUS_PER_TASK"
if command -v taskset > /dev/null && taskset -c 0 true 2> /dev/null; then
    out=$(taskset -c 0 "$G" $H --set problem.generate.type=poisson --set problem.generate.size=30 2>&1)
    echo "$out" | grep -Eq '^solver .*  threads 1 \((affinity|cgroup quota|SLURM_CPUS_PER_TASK)\)$' || fail "one CPU in the affinity mask"
fi
out=$("$G" $H $P8 2>&1)
echo "$out" | grep -Eq '^solver .*  threads 1 \((512 rows: not shared below 20000 a thread|affinity|cgroup quota|SLURM_CPUS_PER_TASK)\)$' || fail "a 512-row solve not on one thread"
echo "ok"

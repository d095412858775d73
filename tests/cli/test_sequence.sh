#!/usr/bin/env bash
# test_sequence.sh GSOLVE WORKDIR: systems of one pattern in one process (problem.steps,
# problem.sequence) and several right-hand sides (problem.rhs with k columns).
#  - a generated jumps sequence: one full setup, then setups keeping the prolongator; a console
#    line, a CSV row (step, setup) and an HDF5 record per step; each step's solution solves that
#    step's system (checked against the matrices --export writes);
#  - amg.reuse = none: every step a full setup; values: the aggregates kept; 2D elasticity (long
#    coarse rows: the whole Galerkin product anew) converges at every step;
#  - files named by a printf field, a list, a pattern that differs (the file and the row named),
#    a list that disagrees with problem.steps;
#  - k columns from a Matrix Market array and from .npy: a row per column (rhs_column), each
#    column's residual checked here, a zero column solved in no iterations, the solutions as
#    an n x k array.
set -u
G=$1; W=$2
fail() { echo "FAIL: $*"; echo "--- output:"; echo "${out:-}"; exit 1; }
rm -rf "$W"; mkdir -p "$W"; cd "$W" || exit 1
H="--set run.backend=host --set solver.preconditioner=amg --set solver.rtol=1e-9"
J="$H --set problem.generate.type=jumps --set problem.generate.size=14"

out=$("$G" $J --set problem.steps=4 --set output.csv=s.csv --set output.hdf5=s.h5 \
      --set output.solution=x_%d.mtx 2>&1) || fail "jumps sequence: exit $?"
for k in 0 1 2 3; do echo "$out" | grep -q "^step $k/4 " || fail "no line for step $k"; done
echo "$out" | grep -q "^step 0/4  full " || fail "step 0 is not a full setup"
[ "$(echo "$out" | grep -c '^step [123]/4  prolongator ')" = 3 ] || fail "steps 1-3 did not keep P"
echo "$out" | grep -Eq "^sequence  4 steps in .*1 full setup .*3 keeping the prolongator" \
    || fail "no sequence summary"
echo "$out" | grep -q "setup time saved" || fail "no setup time saved"
for k in 0 1 2 3; do [ -s "s_step$k.h5" ] || fail "no record s_step$k.h5"; done
python3 - <<'EOF' || fail "CSV rows"
import csv
r = list(csv.DictReader(open("s.csv")))
assert [x["step"] for x in r] == ["0", "1", "2", "3"], [x["step"] for x in r]
assert [x["setup"] for x in r] == ["full", "prolongator", "prolongator", "prolongator"]
assert all(x["converged"] == "1" and float(x["rel_residual"]) < 1e-8 for x in r)
assert "step 3 drift 0.1" in r[3]["matrix"], r[3]["matrix"]
EOF
# the solutions against each step's own matrix: step 3's is not step 0's system
for k in 0 3; do
    "$G" $J --set problem.steps=1 --export "A$k.mtx" > /dev/null 2>&1 || fail "export"
done
python3 - <<'EOF' || fail "a step's solution does not solve its system"
import numpy as np
def mm(path):
    lines = [l for l in open(path) if not l.startswith("%")]
    head = lines[0].split()
    if len(head) == 3:
        n, _, nnz = map(int, head)
        A = np.zeros((n, n))
        for l in lines[1:1 + nnz]:
            i, j, v = l.split(); A[int(i) - 1, int(j) - 1] += float(v)
        sym = "symmetric" in open(path).readline()
        if sym: A = A + A.T - np.diag(np.diag(A))
        return A
    return np.array([float(l) for l in lines[1:]])
A0 = mm("A0.mtx"); x0 = mm("x_0.mtx"); b = np.ones(A0.shape[0])
assert np.linalg.norm(b - A0 @ x0) / np.linalg.norm(b) < 1e-8
x3 = mm("x_3.mtx")
assert np.linalg.norm(b - A0 @ x3) / np.linalg.norm(b) > 1e-4, "step 3 solved step 0's system"
EOF

# a full setup at every step with amg.reuse = none; the aggregates kept with values;
# elasticity converges at every step
out=$("$G" $J --set problem.steps=3 --set amg.reuse=none 2>&1) || fail "reuse none: exit $?"
[ "$(echo "$out" | grep -c '^step [012]/3  full ')" = 3 ] || fail "reuse none kept something"
out=$("$G" $J --set problem.steps=3 --set amg.reuse=values 2>&1) || fail "reuse values: exit $?"
[ "$(echo "$out" | grep -c '^step [12]/3  values ')" = 2 ] || fail "reuse values"
echo "$out" | grep -q "not converged" && fail "a values step did not converge"
out=$("$G" $J --set problem.steps=3 --set amg.reuse=values --set amg.method=classical 2>&1) \
    || fail "reuse values, classical: exit $?"
[ "$(echo "$out" | grep -c '^step [12]/3  values ')" = 2 ] || fail "reuse values, classical"
echo "$out" | grep -q "not converged" && fail "a classical values step did not converge"
out=$("$G" $H --set problem.generate.type=elasticity --set problem.generate.stencil=9 \
      --set problem.generate.size=24 --set problem.steps=3 2>&1) || fail "elasticity: exit $?"
[ "$(echo "$out" | grep -c '^step [12]/3  prolongator ')" = 2 ] || fail "elasticity steps"
echo "$out" | grep -q "not converged" && fail "an elasticity step did not converge"

# files: a printf field, a list; a different pattern; a count that disagrees
"$G" $H --set problem.generate.type=poisson --set problem.generate.size=10 --export p0.mtx > /dev/null 2>&1
"$G" $H --set problem.generate.type=poisson --set problem.generate.size=10 \
    --set problem.generate.stencil=27 --export q.mtx > /dev/null 2>&1
python3 - <<'EOF'
out, seen = [], False
for l in open("p0.mtx"):
    f = l.split()
    if l.startswith("%") or not seen:
        seen = seen or not l.startswith("%")
        out.append(l); continue
    out.append("%s %s %.17g\n" % (f[0], f[1], float(f[2]) * (1.5 if f[0] == f[1] else 1.0)))
open("p1.mtx", "w").writelines(out)
EOF
out=$("$G" $H --set problem.sequence=p%d.mtx --set problem.steps=2 2>&1) || fail "printf files: exit $?"
echo "$out" | grep -q "^step 1/2  prolongator" || fail "printf files: step 1"
out=$("$G" $H --set 'problem.sequence=["p0.mtx", "p1.mtx", "p0.mtx"]' 2>&1) || fail "list: exit $?"
echo "$out" | grep -q "^sequence  3 steps" || fail "list: 3 steps"
out=$("$G" $H --set 'problem.sequence=["p0.mtx", "q.mtx"]' 2>&1); rc=$?
[ $rc = 2 ] || fail "a different pattern: exit $rc"
echo "$out" | grep -q "q.mtx: its pattern is not step 0's (p0.mtx" || fail "pattern message"
out=$("$G" $H --set 'problem.sequence=["p0.mtx", "p1.mtx"]' --set problem.steps=3 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "problem.steps = 3, and problem.sequence lists 2 files" \
    || fail "steps against the list: exit $rc"

# k right-hand sides: Matrix Market array and .npy
python3 - <<'EOF'
import numpy as np
n = 10 ** 3
B = np.ones((n, 3)); B[:, 1] = np.sin(0.01 * np.arange(n)); B[:, 2] = 0.0
np.save("b3.npy", B)
with open("b3.mtx", "w") as f:
    f.write("%%%%MatrixMarket matrix array real general\n%d 3\n" % n)
    for j in range(3):
        for i in range(n): f.write("%.17g\n" % B[i, j])
EOF
for b in b3.mtx b3.npy; do
    rm -f c.csv
    out=$("$G" $H --set problem.generate.type=poisson --set problem.generate.size=10 \
          --set problem.rhs=$b --set output.csv=c.csv --set output.solution=X.mtx 2>&1) \
        || fail "$b: exit $?"
    echo "$out" | grep -q "^columns   3 right-hand sides solved together (block CG): 3 converged" \
        || fail "$b: columns line"
    echo "$out" | grep -q "^          column 2: 0 iterations, residual 0.000e+00" || fail "$b: zero column"
    python3 - <<'EOF' || fail "$b: the columns' solutions"
import csv, numpy as np
r = list(csv.DictReader(open("c.csv")))
assert [x["rhs_column"] for x in r] == ["0", "1", "2"]
assert all(x["converged"] == "1" for x in r)
lines = [l for l in open("X.mtx") if not l.startswith("%")]
n, k = map(int, lines[0].split()); assert (n, k) == (1000, 3)
X = np.array([float(l) for l in lines[1:]]).reshape(k, n).T
B = np.load("b3.npy")
N = 10
def lap(x):
    u = x.reshape(N, N, N); y = 6 * u.copy()
    y[1:] -= u[:-1]; y[:-1] -= u[1:]; y[:, 1:] -= u[:, :-1]; y[:, :-1] -= u[:, 1:]
    y[:, :, 1:] -= u[:, :, :-1]; y[:, :, :-1] -= u[:, :, 1:]
    return y.ravel()
for j in range(2):
    res = np.linalg.norm(B[:, j] - lap(X[:, j])) / np.linalg.norm(B[:, j])
    assert res < 1e-8, (j, res)
    assert abs(res - float(r[j]["rel_residual"])) < 1e-9 + 0.1 * res, (res, r[j]["rel_residual"])
assert not X[:, 2].any()
EOF
done
echo ok

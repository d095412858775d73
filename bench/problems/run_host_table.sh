#!/usr/bin/env bash
# run_host_table.sh OUTDIR [SIZE]: the classes of bench/problems/make_problems.py at SIZE
# (default medium; the circuits at medium and full) solved on the host by gsolve's defaults with
# AMG (CG for the symmetric ones, GMRES for the nonsymmetric ones; b = ones, rtol 1e-8; the
# elasticity near-nullspace file with amg.block_size = 3) and by PyAMG's
# smoothed_aggregation_solver (accel cg / gmres, tol 1e-8). Writes OUTDIR/table.md (a markdown
# table) and OUTDIR/logs/; the instances go to OUTDIR/data (kept: delete them when done).
# Environment: GSOLVE (default build-h6/gsolve), PYTHON (python3), TIMEOUT (s a solve, 300).
# Needs scikit-fem and pyamg (pip install scikit-fem pyamg).
set -eu
out=${1:?usage: run_host_table.sh OUTDIR [SIZE]}
size=${2:-medium}
here=$(cd "$(dirname "$0")" && pwd)
G=${GSOLVE:-$here/../../build-h6/gsolve}
PY=${PYTHON:-python3}
T=${TIMEOUT:-300}
mkdir -p "$out/data" "$out/logs"
[ -x "$G" ] || { echo "run_host_table.sh: no gsolve at $G (set GSOLVE)"; exit 2; }

# class:size pairs; the circuits also at the larger size the issue measures
runs=()
for c in supg sky spe10 channel elast45 elast49 poisson_p1 poisson_p2; do runs+=("$c:$size"); done
runs+=("circuit:$size" "circuit_spd:$size")
[ "$size" = medium ] && runs+=("circuit:full" "circuit_spd:full")

# PyAMG reference: smoothed aggregation, defaults; iterations, operator complexity, true residual
cat > "$out/pyamg_ref.py" <<'EOF'
import sys, time, numpy as np, scipy.sparse as sp, pyamg
f, sym, ns = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
A = sp.load_npz(f).tocsr()
B = np.load(ns) if ns != "-" else None
b = np.ones(A.shape[0])
t = time.perf_counter()
ml = pyamg.smoothed_aggregation_solver(A, B=B, symmetry="hermitian" if sym else "nonsymmetric")
res = []
x = ml.solve(b, tol=1e-8, maxiter=1000, accel="cg" if sym else "gmres", residuals=res)
t = time.perf_counter() - t
r = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
print(f"{len(res) - 1} {ml.operator_complexity():.2f} {r:.1e} {t:.1f}")
EOF

tab=$out/table.md
{
    echo "| instance | rows | nnz | gsolve method | gsolve iters | gsolve result | true resid | op cx | setup+solve s | PyAMG iters | PyAMG op cx | PyAMG true resid | PyAMG s |"
    echo "| --- | ---: | ---: | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
} > "$tab"
for r in "${runs[@]}"; do
    c=${r%%:*} s=${r#*:}
    "$PY" "$here/make_problems.py" --class "$c" --size "$s" --out "$out/data" --format npz \
        > "$out/logs/make_${c}_$s.txt"
    f=$(ls "$out/data/${c}_$s"*.npz | grep -v nullspace | head -n 1)
    name=$(basename "$f" .npz)
    rows=$(sed -n 's/.*: rows \([0-9]*\), nnz \([0-9]*\),.*/\1/p' "$out/logs/make_${c}_$s.txt")
    nnz=$(sed -n 's/.*: rows \([0-9]*\), nnz \([0-9]*\),.*/\2/p' "$out/logs/make_${c}_$s.txt")
    case $c in supg|sky|circuit) m=gmres sym=0 ;; *) m=cg sym=1 ;; esac
    ns=() nsf=-
    if [ -f "$out/data/${name}_nullspace.npy" ]; then
        nsf=$out/data/${name}_nullspace.npy
        ns=(--set problem.nullspace="$nsf" --set amg.block_size=3)
    fi
    set +e
    timeout "$T" "$G" --set problem.matrix="$f" --set problem.rhs=ones --set run.backend=host \
        --set solver.type=$m --set solver.preconditioner=amg "${ns[@]}" > "$out/logs/gsolve_$name.txt" 2>&1
    rc=$?
    py=$(timeout "$T" "$PY" "$out/pyamg_ref.py" "$f" $sym "$nsf" 2> "$out/logs/pyamg_$name.err")
    set -e
    L=$out/logs/gsolve_$name.txt
    it=$(sed -n 's/^result .* after \([0-9]*\) iterations.*/\1/p' "$L")
    why=$(sed -n 's/^result *\(converged\).*/\1/p; s/^result *did not converge: \([^:]*\):.*/\1/p' "$L")
    [ $rc = 124 ] && why="timeout ${T} s"
    res=$(sed -n 's/^residual *true ||b-Ax||\/||b|| = \([^ ]*\).*/\1/p' "$L")
    ocx=$(sed -n 's/^amg .*operator complexity \([0-9.]*\).*/\1/p' "$L")
    ts=$(sed -n 's/^time .*setup \([0-9.]*\) s *solve \([0-9.]*\) s.*/\1 \2/p' "$L" | awk '{printf "%.1f", $1 + $2}')
    read -r pit pocx pres pt <<< "${py:-- - - -}"
    echo "| $name | $rows | $nnz | $m+amg | ${it:--} | ${why:-exit $rc} | ${res:--} | ${ocx:--} | ${ts:--} | $pit | $pocx | $pres | $pt |" >> "$tab"
    echo "$name: gsolve exit $rc ${why:-} $it it, PyAMG $py"
done
echo "wrote $tab"

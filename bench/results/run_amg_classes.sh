#!/usr/bin/env bash
# bench/results/run_amg_classes.sh IJ OUT: gsolve's AMG-PCG with default settings (no amg key set)
# beside hypre's BoomerAMG-PCG (the peer settings of run-hypre.sh) in one GPU session, on the
# problem classes the peers are compared on; b = ones, x0 = 0, rtol 1e-8. IJ is hypre's `ij`
# driver (unpacked), OUT a folder for logs and OUT/table.md. gsolve is taken from build-gpu/
# (scripts/gpu-check.sh or run_compare.sh builds it).
#   poisson7-128   3D Poisson 7-point 128^3: gsolve's generator; hypre's -n 128 128 128
#   aniso3d-128    3D anisotropic diffusion, one axis coupled by 1e-3: gsolve's generator
#                  (epsilon on x), hypre's -laplacian -c 1 1 0.001 (on z): the same operator up to
#                  the numbering of the axes
#   rotated2d-1024 2D rotated anisotropy (22.5 degrees, eps 1e-3, hypre's -rotate): the very same
#                  matrix for both (hypre prints it, gsolve reads it as Matrix Market)
# Jumping coefficients and elasticity are not here: gsolve has no generator for them yet.
# gsolve runs 3 times (separate processes; the table takes the last), hypre twice per process
# (its second, warm run; 10 ms resolution).
set -uo pipefail
ij=$(cd "$(dirname "${1:?usage: run_amg_classes.sh IJ OUT}")" && pwd)/$(basename "$1")
out=${2:?usage: run_amg_classes.sh IJ OUT}
here=$(cd "$(dirname "$0")/../.." && pwd)
gsolve=$here/build-gpu/gsolve
mkdir -p "$out"
out=$(cd "$out" && pwd)
hypre() { # name, problem args
    (cd "$out" && "$ij" "${@:2}" -pmis -keepT 1 -rlx 18 -exec_device -mod_rap2 1 -mm_vendor 0 \
        -interptype 6 -Pmx 4 -solver 1 -tol 1e-8 -rhsisone -benchmark 1 > "hypre_$1.log" 2>&1)
    local its t
    its=$(grep -m1 'Iterations =' "$out/hypre_$1.log" | awk '{print $3}')
    t=($(grep 'wall clock time' "$out/hypre_$1.log" | tail -4 | awk '{print $(NF-1)}'))
    echo "$1,hypre,$its,${t[2]:-},${t[3]:-}" >> "$out/rows.csv"
}
gs() { # name, gsolve --set arguments
    local csv=$out/gsolve_$1.csv
    rm -f "$csv"
    for r in 1 2 3; do
        "$gsolve" "$here/configs/quickstart.cfg" --set solver.preconditioner=amg \
            --set solver.max_iters=1000 --set output.csv="$csv" "${@:2}" > "$out/gsolve_$1.log" 2>&1
    done
    tail -1 "$csv" | awk -F, -v n="$1" '{printf "%s,gsolve,%s,%s,%s,%s\n", n, $9, $13, $14, $12}' \
        >> "$out/rows.csv"
}
echo "case,solver,iterations,setup_s,solve_s,rel_residual" > "$out/rows.csv"
gs poisson7-128 --set problem.generate.type=poisson --set problem.generate.size=128
hypre poisson7-128 -n 128 128 128
gs aniso3d-128 --set problem.generate.type=anisotropic --set problem.generate.size=128 \
    --set problem.generate.stencil=7 --set problem.generate.epsilon=0.001
hypre aniso3d-128 -laplacian -n 128 128 128 -c 1 1 0.001
hypre rotated2d-1024 -rotate -n 1024 1024 -alpha 22.5 -eps 0.001 -print
f=$out/IJ.out.A.00000
if [ -s "$f" ]; then
    nnz=$(($(wc -l < "$f") - 1))
    awk -v nnz="$nnz" 'NR == 1 { n = $2 + 1; print "%%MatrixMarket matrix coordinate real general";
        print n, n, nnz; next } { print $1 + 1, $2 + 1, $3 }' \
        "$f" > "$out/rotated2d-1024.mtx"
    rm -f "$out"/IJ.out.*
    gs rotated2d-1024 --set problem.matrix="$out/rotated2d-1024.mtx" --set problem.generate.type= \
        --set problem.rhs=ones
    rm -f "$out/rotated2d-1024.mtx"
fi
python3 - "$out/rows.csv" > "$out/table.md" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| case | solver | iterations | setup ms | solve ms | total ms |")
print("| --- | --- | --- | --- | --- | --- |")
for r in rows:
    try:
        s, v = float(r["setup_s"]) * 1e3, float(r["solve_s"]) * 1e3
        print("| %s | %s | %s | %.1f | %.1f | %.1f |" % (r["case"], r["solver"], r["iterations"], s, v, s + v))
    except ValueError:
        print("| %s | %s | %s | - | - | - |" % (r["case"], r["solver"], r["iterations"]))
EOF
cat "$out/table.md"

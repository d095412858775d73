#!/usr/bin/env bash
# bench/results/run_amg_classes.sh IJ OUT [CASE ...]: gsolve's AMG-PCG with default settings (no
# amg key set) beside hypre's BoomerAMG-PCG (the peer settings of ../shared/peers/run-hypre.sh:
# PMIS, extended+i interpolation, l1-Jacobi, 4 entries per row of P) in one GPU session, on the
# problem classes of issue 27; b = ones, x0 = 0, rtol 1e-8. IJ is hypre's `ij` driver
# (unpacked), OUT a folder for logs, OUT/rows.csv and OUT/table.md. gsolve is taken from
# build-gpu/ (scripts/gpu-check.sh or run_compare.sh builds it). Without CASE: all of them.
#   poisson7-128, poisson7-256, poisson27-128   3D Poisson: gsolve's generator; hypre's -n (-27pt)
#   aniso3d-128    3D anisotropic diffusion, one axis coupled by 1e-3: gsolve's generator (epsilon
#                  on x), hypre's -laplacian -c 1 1 0.001 (on z): the same operator up to the
#                  numbering of the axes
#   jumps-128      3D jumping coefficients 1e-3 / 1 / 1e3 in 8^3 cubes (seed 1)
#   rotated-1024   2D rotated anisotropy, Q1, eps 1e-3, 22.5 degrees
#   elast2d-512    2D linear elasticity (plane strain, nu 0.3), 512^2 nodes, 2 unknowns a node
#   elast3d-32     3D linear elasticity (nu 0.3), 32^3 nodes, 3 unknowns a node
#   elast3d-64     the same at 64^3 nodes: gsolve only (hypre's IJ text file would be 2.3 GB)
# The jumps, rotated and elasticity matrices are gsolve's generators, handed to hypre as the very
# same matrix (gsolve --export FILE.ij, hypre's -fromfile). Elasticity runs hypre twice: the peer
# settings, and with its systems options (-nf d -nodal 4 -interptype 10: nodal coarsening,
# unknown-based interpolation). gsolve runs 3 times (separate processes; the table takes the
# median of the totals), hypre twice per process (its second, warm run; 10 ms resolution).
#   convdiff-1024  2D convection-diffusion, 5-point, 1024^2 (gsolve's generator, nonsymmetric):
#                  GMRES(30) on both
# Environment: GSOLVE (default build-gpu/gsolve) the binary; GS_SET="key=value ..." settings
# added to every gsolve run; HYPRE=0 leaves hypre out.
set -uo pipefail
ij=$(cd "$(dirname "${1:?usage: run_amg_classes.sh IJ OUT [CASE ...]}")" && pwd)/$(basename "$1")
out=${2:?usage: run_amg_classes.sh IJ OUT [CASE ...]}
shift 2
here=$(cd "$(dirname "$0")/../.." && pwd)
gsolve=${GSOLVE:-$here/build-gpu/gsolve}
gs_set=()
for kv in ${GS_SET:-}; do gs_set+=(--set "$kv"); done
mkdir -p "$out"
out=$(cd "$out" && pwd)
peer=(-pmis -keepT 1 -rlx 18 -exec_device -mod_rap2 1 -mm_vendor 0 -interptype 6 -Pmx 4 -solver 1
      -tol 1e-8 -rhsisone -benchmark 1)
hypre() { # name, solver label, problem args, then -- and extra flags after the peer settings
    local name=$1 label=$2 args=() extra=() its t
    [ "${HYPRE:-1}" = 0 ] && return
    shift 2
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
    [ $# -gt 0 ] && shift && extra=("$@")
    (cd "$out" && timeout 300 "$ij" "${args[@]}" "${peer[@]}" "${extra[@]}" \
        > "hypre_${name}_$label.log" 2>&1)
    its=$(grep -m1 'Iterations =' "$out/hypre_${name}_$label.log" | awk '{print $NF}')
    t=($(grep 'wall clock time' "$out/hypre_${name}_$label.log" | tail -4 | awk '{print $(NF-1)}'))
    echo "$name,$label,${its:-failed},${t[2]:-},${t[3]:-},,," >> "$out/rows.csv"
}
gs() { # name, gsolve --set arguments
    local name=$1 csv=$out/gsolve_$1.csv
    shift
    rm -f "$csv"
    for r in 1 2 3; do
        "$gsolve" "$here/configs/quickstart.cfg" --set solver.preconditioner=amg \
            --set solver.max_iters=1000 --set output.csv="$csv" "$@" ${gs_set[@]+"${gs_set[@]}"} \
            > "$out/gsolve_$name.log" 2>&1
    done
    python3 - "$csv" "$name" >> "$out/rows.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
if not rows:
    print("%s,gsolve,failed,,,,," % sys.argv[2]); sys.exit()
rows.sort(key=lambda r: float(r["setup_s"]) + float(r["solve_s"]))
m = rows[len(rows) // 2]
print("%s,gsolve,%s,%s,%s,%s,%s,%s" % (sys.argv[2], m["iterations"], m["setup_s"], m["solve_s"],
      m["rel_residual"], m["operator_complexity"], m["levels"]))
EOF
}
export_ij() { # name, gsolve --set arguments: OUT/name.ij.00000
    "$gsolve" "$here/configs/quickstart.cfg" "${@:2}" --export "$out/$1.ij" > /dev/null 2>&1
    [ -s "$out/$1.ij.00000" ]
}
want() { [ ${#cases[@]} -eq 0 ] || [[ " ${cases[*]} " == *" $1 "* ]]; }
cases=("$@")
[ -s "$out/rows.csv" ] ||
    echo "case,solver,iterations,setup_s,solve_s,rel_residual,operator_complexity,levels" > "$out/rows.csv"
P="--set problem.generate"
if want poisson7-128; then
    gs poisson7-128 $P.type=poisson $P.size=128
    hypre poisson7-128 hypre -n 128 128 128
fi
if want poisson7-256; then
    gs poisson7-256 $P.type=poisson $P.size=256
    hypre poisson7-256 hypre -n 256 256 256
fi
if want poisson27-128; then
    gs poisson27-128 $P.type=poisson $P.size=128 $P.stencil=27
    hypre poisson27-128 hypre -n 128 128 128 -27pt
fi
if want aniso3d-128; then
    gs aniso3d-128 $P.type=anisotropic $P.size=128 $P.stencil=7 $P.epsilon=0.001
    hypre aniso3d-128 hypre -laplacian -n 128 128 128 -c 1 1 0.001
fi
if want jumps-128; then
    g=($P.type=jumps $P.size=128)
    gs jumps-128 "${g[@]}"
    export_ij jumps-128 "${g[@]}" && hypre jumps-128 hypre -fromfile jumps-128.ij
fi
if want rotated-1024; then
    g=($P.type=rotated $P.size=1024)
    gs rotated-1024 "${g[@]}"
    export_ij rotated-1024 "${g[@]}" && hypre rotated-1024 hypre -fromfile rotated-1024.ij
fi
if want elast2d-512; then
    g=($P.type=elasticity $P.stencil=9 $P.size=512)
    gs elast2d-512 "${g[@]}"
    if export_ij elast2d-512 "${g[@]}"; then
        hypre elast2d-512 hypre -fromfile elast2d-512.ij
        hypre elast2d-512 hypre-systems -fromfile elast2d-512.ij -- -nf 2 -nodal 4 -interptype 10
    fi
fi
if want elast3d-32; then
    g=($P.type=elasticity $P.stencil=27 $P.size=32)
    gs elast3d-32 "${g[@]}"
    if export_ij elast3d-32 "${g[@]}"; then
        hypre elast3d-32 hypre -fromfile elast3d-32.ij
        hypre elast3d-32 hypre-systems -fromfile elast3d-32.ij -- -nf 3 -nodal 4 -interptype 10
    fi
fi
if want convdiff-1024; then
    g=($P.type=convdiff $P.size=1024 $P.stencil=5)
    gs convdiff-1024 "${g[@]}" --set solver.type=gmres
    export_ij convdiff-1024 "${g[@]}" &&
        hypre convdiff-1024 hypre-gmres -fromfile convdiff-1024.ij -- -solver 3 -k 30
fi
want elast3d-64 && gs elast3d-64 $P.type=elasticity $P.stencil=27 $P.size=64
rm -f "$out"/*.ij.00000
python3 - "$out/rows.csv" > "$out/table.md" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| case | solver | iterations | setup ms | solve ms | total ms | operator complexity |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for r in rows:
    try:
        s, v = float(r["setup_s"]) * 1e3, float(r["solve_s"]) * 1e3
        print("| %s | %s | %s | %.1f | %.1f | %.1f | %s |" % (r["case"], r["solver"],
              r["iterations"], s, v, s + v, r["operator_complexity"] or "-"))
    except ValueError:
        print("| %s | %s | %s | - | - | - | - |" % (r["case"], r["solver"], r["iterations"]))
EOF
cat "$out/table.md"

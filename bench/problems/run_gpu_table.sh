#!/usr/bin/env bash
# bench/problems/run_gpu_table.sh GSOLVE IJ DIR OUT: on the GPU machine, gsolve with default
# settings plus AMG (CG on the symmetric instances, GMRES on the nonsymmetric ones; elasticity
# with its rigid-body modes and amg.block_size = 3) beside hypre's BoomerAMG (the peer settings
# of run_amg_classes.sh; PCG, or GMRES(30) with -solver 3) on every DIR/*.npz made by
# make_problems.py --format npz; b = ones, rtol 1e-8. gsolve runs twice (the second is kept),
# hypre reads the same matrix (gsolve --export NAME.ij). OUT/unseen.csv: one row per solver.
# Environment: GS_SET="key=value ..." settings added to every gsolve run (its rows are labelled
# with them); HYPRE=0 leaves hypre out.
set -uo pipefail
G=${1:?usage: run_gpu_table.sh GSOLVE IJ DIR OUT}; ij=${2:?}; dir=${3:?}; out=${4:?}
mkdir -p "$out"; U=$out/unseen.csv; tmp=$(mktemp -d)
gs_set=(); for kv in ${GS_SET:-}; do gs_set+=(--set "$kv"); done
label=${GS_SET:+ [$GS_SET]}
[ -s "$U" ] || echo "case,solver,its,setup_s,solve_s,rel_res,oc" > "$U"
peer=(-pmis -keepT 1 -rlx 18 -exec_device -mod_rap2 1 -mm_vendor 0 -interptype 6 -Pmx 4 -tol 1e-8
      -rhsisone -benchmark 1)
for m in "$dir"/*.npz; do
    n=$(basename "$m" .npz); k=cg; hs=1; extra=()
    case $n in supg* | sky* | circuit_medium* | circuit_full*) k=gmres; hs=3 ;; esac
    case $n in elast*) extra=(--set problem.nullspace="$dir/${n}_nullspace.npy" --set amg.block_size=3) ;; esac
    for r in 1 2; do
        rm -f "$tmp/o.csv"
        timeout 120 "$G" --set problem.matrix="$m" --set solver.type=$k --set solver.preconditioner=amg \
            --set problem.rhs=ones --set output.csv="$tmp/o.csv" ${extra[@]+"${extra[@]}"} \
            ${gs_set[@]+"${gs_set[@]}"} > "$out/g_$n.log" 2>&1
    done
    python3 -c "import csv,sys;r=list(csv.DictReader(open(sys.argv[1])))[-1];print(sys.argv[2],'gsolve-'+sys.argv[3],r['iterations'],r['setup_s'],r['solve_s'],r['rel_residual'],r['operator_complexity'],sep=',')" \
        "$tmp/o.csv" "$n" "$k$label" >> "$U" 2>/dev/null || echo "$n,gsolve-$k$label,failed,,,," >> "$U"
    [ "${HYPRE:-1}" = 0 ] && continue
    "$G" --set problem.matrix="$m" --export "$tmp/$n.ij" > /dev/null 2>&1
    (cd "$tmp" && timeout 120 "$ij" -fromfile "$tmp/$n.ij" "${peer[@]}" -solver $hs -k 30 > "$out/h_$n.log" 2>&1)
    its=$(grep -m1 'Iterations = ' "$out/h_$n.log" | awk '{print $NF}')
    t=($(grep 'wall clock time' "$out/h_$n.log" | tail -4 | awk '{print $(NF-1)}'))
    res=$(grep -m1 -i 'final relative residual norm' "$out/h_$n.log" | awk '{print $NF}')
    echo "$n,hypre-$([ $hs = 1 ] && echo pcg || echo gmres30),${its:-?},${t[2]:-?},${t[3]:-?},${res:-?}," >> "$U"
    rm -f "$tmp/$n".ij*
done
rm -rf "$tmp"
cat "$U"

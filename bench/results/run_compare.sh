#!/usr/bin/env bash
# bench/results/run_compare.sh BASE OUT [PART ...]: the same checks and benchmarks on two source
# trees in one GPU session, so that a change that must not change behaviour (a restructuring)
# is measured before and after on the same machine. BASE is a copy of the earlier commit:
#     git archive <commit> --prefix=.baseline/ | tar x        (then BASE = .baseline)
# PARTs (default: all):
#   build  build BASE and this tree (CUDA, sm_90) side by side
#   test   ctest -L gpu on this tree (OUT/ctest_gpu.log)
#   iters  gsolve on a set of configurations with both binaries, host and GPU: iterations, reason
#          and true residual side by side (OUT/iters.csv, OUT/iters.md)
#   bench  bench_spmv (generated set), bench_spgemm and configs/amg_poisson_bench.cfg, each run
#          for BASE, then this tree, then BASE again (OUT/*_base*.md, OUT/*_new.md)
# libconfig travels as .deb files in .devdeps/ (scripts/gpu-check.sh does the same).
set -uo pipefail
base=$(cd "${1:?usage: run_compare.sh BASE OUT [build|test|iters|bench ...]}" && pwd)
out=${2:?usage: run_compare.sh BASE OUT [PART ...]}
shift 2
parts=${*:-build test iters bench}
has() { [[ " $parts " == *" $1 "* ]]; }
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
if ! pkg-config --exists libconfig 2>/dev/null && ls "$here"/.devdeps/*.deb >/dev/null 2>&1; then
    for f in "$here"/.devdeps/*.deb; do dpkg -x "$f" /opt/devdeps; done
    sed -i 's#^prefix=.*#prefix=/opt/devdeps/usr#' \
        /opt/devdeps/usr/lib/x86_64-linux-gnu/pkgconfig/libconfig.pc
    export PKG_CONFIG_PATH=/opt/devdeps/usr/lib/x86_64-linux-gnu/pkgconfig
fi
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    nvcc --version | tail -2
    date -u
} > "$out/machine.txt" 2>&1
build() { # $1 source tree
    cmake -S "$1" -B "$1/build-gpu" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DGSOLVE_MATRICES="$here/shared/matrices" > "$1/build-gpu.log" 2>&1 &&
        cmake --build "$1/build-gpu" -j 8 >> "$1/build-gpu.log" 2>&1
}
if has build; then
    build "$base" & pb=$!
    build "$here" & pn=$!
    wait $pb || { echo "BASE build failed"; tail -30 "$base/build-gpu.log"; }
    wait $pn || { echo "build failed"; tail -30 "$here/build-gpu.log"; exit 1; }
    echo "built both"
fi
if has test; then
    (cd "$here/build-gpu" && timeout 400 ctest -L gpu -j 4 --output-on-failure) \
        > "$out/ctest_gpu.log" 2>&1
    echo "ctest -L gpu exit $?"; tail -8 "$out/ctest_gpu.log"
fi
if has iters; then
    gen="--set problem.generate.type=poisson --set problem.generate.size=48"
    runs=(
        "quickstart|$here/configs/quickstart.cfg"
        "amg_poisson|$here/configs/amg_poisson.cfg"
        "amg_block|$here/configs/amg_block.cfg"
        "amg_gmres_convdiff|$here/configs/amg_gmres_convdiff.cfg"
        "gmres_convdiff|$here/configs/gmres_convdiff.cfg"
        "matrix_market|$here/configs/matrix_market.cfg"
        "hdf5|$here/configs/hdf5.cfg"
        "amg_jacobi|$here/configs/quickstart.cfg $gen --set solver.preconditioner=amg --set amg.smoother=jacobi"
        "amg_l1jacobi|$here/configs/quickstart.cfg $gen --set solver.preconditioner=amg --set amg.smoother=l1jacobi"
        "amg_W|$here/configs/quickstart.cfg $gen --set solver.preconditioner=amg --set amg.cycle=W"
        "amg_standard|$here/configs/quickstart.cfg $gen --set solver.preconditioner=amg --set amg.aggregation=standard"
        "amg_bicgstab|$here/configs/quickstart.cfg $gen --set solver.preconditioner=amg --set solver.type=bicgstab"
        "amg_fgmres|$here/configs/quickstart.cfg $gen --set solver.preconditioner=amg --set solver.type=fgmres"
        "amg_cds|$here/configs/quickstart.cfg $gen --set solver.preconditioner=amg --set spmv.format=cds"
        "amg_cusparse|$here/configs/quickstart.cfg $gen --set solver.preconditioner=amg --set spmv.format=cusparse"
        "amg_theta025|$here/configs/quickstart.cfg --set problem.generate.type=anisotropic --set problem.generate.size=64 --set solver.preconditioner=amg --set amg.theta=0.25"
        "cg_none_128|$here/configs/quickstart.cfg --set problem.generate.size=128 --set solver.preconditioner=none --set solver.max_iters=5000"
    )
    echo "case,backend,tree,iterations,reason,rel_residual,exit" > "$out/iters.csv"
    for r in "${runs[@]}"; do
        name=${r%%|*}
        args=${r#*|}
        for be in host cuda; do
            [ "$be" = host ] && [ "$name" = amg_cusparse ] && continue
            for tree in base new; do
                bin=$([ $tree = base ] && echo "$base" || echo "$here")/build-gpu/gsolve
                csv="$out/iters_${name}_${be}_${tree}.csv"
                rm -f "$csv"
                (cd "$(dirname "${args%% *}")" &&
                    timeout 120 "$bin" $args --set run.backend=$be --set output.csv="$csv" \
                        > "$out/iters_${name}_${be}_${tree}.log" 2>&1)
                rc=$?
                row=$(tail -1 "$csv" 2>/dev/null | awk -F, '{print $9","$10","$12}')
                echo "$name,$be,$tree,${row:-,,},$rc" >> "$out/iters.csv"
            done
        done
    done
    python3 - "$out/iters.csv" > "$out/iters.md" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault((r["case"], r["backend"]), {})[r["tree"]] = r
print("| case | backend | iterations before | after | true residual before | after | exit before | after | same |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for (c, b), t in by.items():
    o, n = t.get("base", {}), t.get("new", {})
    same = o.get("iterations") == n.get("iterations") and o.get("rel_residual") == n.get("rel_residual")
    print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (c, b, o.get("iterations"), n.get("iterations"),
          o.get("rel_residual"), n.get("rel_residual"), o.get("exit"), n.get("exit"), "yes" if same else "NO"))
EOF
    cat "$out/iters.md"
fi
if has bench; then
    for tree in base new base2; do
        dir=$([ $tree = new ] && echo "$here" || echo "$base")
        timeout 240 "$dir/build-gpu/bench/bench_spmv" --no-cg --md "$out/spmv_$tree.md" \
            > "$out/spmv_$tree.log" 2>&1
        timeout 200 "$dir/build-gpu/bench/bench_spgemm" > "$out/spgemm_$tree.md" 2>&1
        rm -rf "$out/amg_$tree"
        timeout 200 "$dir/build-gpu/gsolve" "$here/configs/amg_poisson_bench.cfg" \
            --set batch.results="$out/amg_$tree" > "$out/amg_$tree.log" 2>&1
        "$dir/build-gpu/gsolve" report "$out/amg_$tree" > "$out/amg_$tree.md" 2>&1
        echo "bench $tree done"
    done
fi

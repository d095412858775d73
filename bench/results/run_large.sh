#!/usr/bin/env bash
# bench/results/run_large.sh OUT [SIZES]: the largest 3D Poisson 7-point problems one GPU takes,
# AMG-PCG with default settings (rtol 1e-8, b = ones): setup, solve, iterations, the true
# residual, the device peak (the report's "memory    device peak" line: the most device memory
# in use at once since the setup began) and bytes a row, time a row against the first size's.
# Each size runs with the default Galerkin product (by chunks of R's rows where A P would hold
# more than 2^31 products) and, for comparison, with GSOLVE_GALERKIN_CHUNKS=0 (A P whole, as long
# as it stays below 2^31 entries). SIZES default: 256 512 640. OUT/table.md and a log per run.
# GSOLVE: the binary (default build-gpu/gsolve).
set -uo pipefail
out=${1:?usage: run_large.sh OUT [SIZES]}
shift
sizes=${*:-256 512 640}
here=$(cd "$(dirname "$0")/../.." && pwd)
gsolve=${GSOLVE:-$here/build-gpu/gsolve}
mkdir -p "$out"
for n in $sizes; do
    for k in auto 0; do
        env=()
        [ "$k" = 0 ] && env=(GSOLVE_GALERKIN_CHUNKS=0)
        env "${env[@]}" timeout 300 "$gsolve" "$here/configs/quickstart.cfg" \
            --set solver.preconditioner=amg --set problem.generate.size="$n" \
            > "$out/p$n-$k.log" 2>&1
        echo "$n $k rc=$?" >> "$out/rc.txt"
    done
done
python3 - "$out" $sizes > "$out/table.md" <<'PY'
import re, sys, os
out, sizes = sys.argv[1], sys.argv[2:]
print("| n^3 | rows | Galerkin product | iterations | setup s | solve s | total s | ns a row | time a row vs %s^3 | true residual | device peak GB | bytes a row |" % sizes[0])
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
base = None
for n in sizes:
    for k in ("auto", "0"):
        p = os.path.join(out, "p%s-%s.log" % (n, k))
        t = open(p).read() if os.path.exists(p) else ""
        rows = int(n) ** 3
        how = "by chunks where needed (default)" if k == "auto" else "A P whole (GSOLVE_GALERKIN_CHUNKS=0)"
        m = re.search(r"setup ([\d.]+) s  solve ([\d.]+) s  total ([\d.]+) s", t)
        it = re.search(r"after (\d+) iterations", t)
        res = re.search(r"true \|\|b-Ax\|\|/\|\|b\|\| = (\S+)", t)
        mem = re.search(r"device peak ([\d.]+) GB in use, (\d+) bytes a row", t)
        if not m:
            err = re.search(r"error: (.*)", t)
            print("| %s | %d | %s | failed: %s | | | | | | | | |" % (n, rows, how, err.group(1) if err else "?"))
            continue
        s, v, tot = float(m.group(1)), float(m.group(2)), float(m.group(3))
        ns = 1e9 * tot / rows
        if base is None and k == "auto": base = ns
        print("| %s | %d | %s | %s | %.3f | %.3f | %.3f | %.2f | %.2f | %s | %s | %s |" % (
            n, rows, how, it.group(1) if it else "?", s, v, tot, ns, ns / base if base else 1.0,
            res.group(1) if res else "?", mem.group(1) if mem else "?", mem.group(2) if mem else "?"))
PY
cat "$out/table.md"

#!/usr/bin/env bash
# bench/results/run_large.sh OUT [SIZES]: the largest 3D Poisson 7-point problems one GPU takes,
# AMG-PCG with default settings (rtol 1e-8, b = ones). Per size and Galerkin product (KS, default
# "auto 0": the default, by chunks of R's rows where A P would hold more than 2^31 products, and
# GSOLVE_GALERKIN_CHUNKS=0, A P whole as long as it stays below 2^31 entries):
#   time: a default run: setup, solve, iterations, the true residual, ns a row;
#   mem:  a run with the device pool grown only on demand (GSOLVE_POOL_PREPARE=0) and the setup
#         traced (output.verbosity = 3): the pool's size when the setup ends, the setup's peak
#         of device memory (the pool keeps what was freed), and bytes a row.
# RUNS (default "time mem") picks the runs. OUT/table.md and a log per run. GSOLVE: the binary
# (default build-gpu/gsolve). SIZES default: 256 512 640.
set -uo pipefail
out=${1:?usage: run_large.sh OUT [SIZES]}
shift
sizes=${*:-256 512 640}
ks=${KS:-auto 0}
runs=${RUNS:-time mem}
here=$(cd "$(dirname "$0")/../.." && pwd)
gsolve=${GSOLVE:-$here/build-gpu/gsolve}
mkdir -p "$out"
for n in $sizes; do
    for k in $ks; do
        env=()
        [ "$k" != auto ] && env=(GSOLVE_GALERKIN_CHUNKS="$k")
        for r in $runs; do
            extra=()
            [ "$r" = mem ] && env+=(GSOLVE_POOL_PREPARE=0) && extra=(--set output.verbosity=3)
            env "${env[@]}" timeout 300 "$gsolve" "$here/configs/quickstart.cfg" \
                --set solver.preconditioner=amg --set problem.generate.size="$n" "${extra[@]}" \
                > "$out/p$n-$k-$r.log" 2>&1
            echo "$n $k $r rc=$?" >> "$out/rc.txt"
        done
    done
done
python3 - "$out" "$ks" $sizes > "$out/table.md" <<'PY'
import re, sys, os
out, ks, sizes = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
def read(n, k, r):
    p = os.path.join(out, "p%s-%s-%s.log" % (n, k, r))
    return open(p).read() if os.path.exists(p) else ""
print("| n^3 | rows | Galerkin product | iterations | setup s | solve s | total s | ns a row | true residual | setup's device peak GB (pool on demand) | bytes a row |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in sizes:
    for k in ks:
        rows = int(n) ** 3
        how = "by chunks where needed (default)" if k == "auto" else "GSOLVE_GALERKIN_CHUNKS=%s" % k
        t, m = read(n, k, "time"), read(n, k, "mem")
        tm = re.search(r"setup ([\d.]+) s  solve ([\d.]+) s  total ([\d.]+) s", t)
        it = re.search(r"after (\d+) iterations", t or m)
        res = re.search(r"true \|\|b-Ax\|\|/\|\|b\|\| = (\S+)", t or m)
        pools = [float(x) for x in re.findall(r"; pool ([\d.]+) GB", m)]
        err = re.search(r"error: (.*)", t + m)
        cells = [n, str(rows), how, it.group(1) if it else ("failed: " + err.group(1) if err else "-")]
        if tm:
            s, v, tot = (float(tm.group(i)) for i in (1, 2, 3))
            cells += ["%.3f" % s, "%.3f" % v, "%.3f" % tot, "%.2f" % (1e9 * tot / rows)]
        else:
            cells += ["-"] * 4
        cells.append(res.group(1) if res else "-")
        if pools:
            cells += ["%.2f" % max(pools), "%.0f" % (max(pools) * 1e9 / rows)]
        else:
            cells += ["-", "-"]
        print("| " + " | ".join(cells) + " |")
PY
cat "$out/table.md"

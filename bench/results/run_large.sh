#!/usr/bin/env bash
# bench/results/run_large.sh OUT [SIZES]: the largest 3D Poisson 7-point problems one GPU takes,
# AMG-PCG with default settings (rtol 1e-8, b = ones), and where their device memory goes. Per
# size and Galerkin product (KS, default "auto": the setup's own choice, by chunks of R's rows
# where A P would hold more than 2^31 products; K: GSOLVE_GALERKIN_CHUNKS=K, 0 for A P whole as
# long as it stays below 2^31 entries):
#   time: a default run: setup, solve, iterations, the true residual, ns a row, the peak of
#         device memory (the summary's memory line: the run's, the setup's) and the pool;
#   mem:  a run with the device pool grown only on demand (GSOLVE_POOL_PREPARE=0) and the setup
#         traced (output.verbosity = 3): its peak, and OUT/phases-N-K.md, the device memory in
#         use and its peak so far after every step of the AMG setup.
# RUNS (default "time mem") picks the runs. OUT/table.md and a log per run. GSOLVE: the binary
# (default build-gpu/gsolve). SIZES default: 256 512 640.
set -uo pipefail
out=${1:?usage: run_large.sh OUT [SIZES]}
shift
sizes=${*:-256 512 640}
ks=${KS:-auto}
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
MEM = r"device peak ([\d.]+) GB(?: \((\d+) bytes a row\))?, the setup's ([\d.]+) GB; the pool holds ([\d.]+) GB"
print("| n^3 | rows | Galerkin product | iterations | setup s | solve s | total s | ns a row | true residual | device peak GB (bytes a row) | setup's peak GB | pool GB | pool on demand: peak GB (bytes a row) |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in sizes:
    for k in ks:
        rows = int(n) ** 3
        how = "the setup's choice (default)" if k == "auto" else "GSOLVE_GALERKIN_CHUNKS=%s" % k
        t, m = read(n, k, "time"), read(n, k, "mem")
        tm = re.search(r"setup ([\d.]+) s  solve ([\d.]+) s  total ([\d.]+) s", t)
        it = re.search(r"after (\d+) iterations", t or m)
        res = re.search(r"true \|\|b-Ax\|\|/\|\|b\|\| = (\S+)", t or m)
        err = re.search(r"error: (.*)", t + m)
        cells = [n, str(rows), how, it.group(1) if it else ("failed: " + err.group(1) if err else "-")]
        if tm:
            s, v, tot = (float(tm.group(i)) for i in (1, 2, 3))
            cells += ["%.3f" % s, "%.3f" % v, "%.3f" % tot, "%.2f" % (1e9 * tot / rows)]
        else:
            cells += ["-"] * 4
        cells.append(res.group(1) if res else "-")
        mt, mm = re.search(MEM, t), re.search(MEM, m)
        cells += ["%s (%s)" % (mt.group(1), mt.group(2)), mt.group(3), mt.group(4)] if mt else ["-"] * 3
        cells.append("%s (%s)" % (mm.group(1), mm.group(2)) if mm else "-")
        print("| " + " | ".join(cells) + " |")
        steps = re.findall(r"amg setup: level (\d+) (.+?) +([\d.]+) ms; device used ([\d.]+) GB, peak ([\d.]+) GB", m)
        if steps:
            with open(os.path.join(out, "phases-%s-%s.md" % (n, k)), "w") as f:
                f.write("| level | step | ms | in use GB | bytes a row | peak so far GB |\n|---:|---|---:|---:|---:|---:|\n")
                for l, what, ms, used, peak in steps:
                    f.write("| %s | %s | %s | %s | %.0f | %s |\n" % (l, what.strip(), ms, used, float(used) * 1e9 / rows, peak))
PY
cat "$out/table.md"

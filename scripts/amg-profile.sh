#!/usr/bin/env bash
# scripts/amg-profile.sh OUTDIR [SIZE] [STENCIL]: on the GPU machine, where the AMG setup's time
# goes. Builds like scripts/gpu-check.sh (build-gpu), then
#   OUT/trace.log  the benchmark batch (configs/amg_poisson_bench.cfg, 2 repeats) with every
#                  setup step timed (output.verbosity = 3; the second repeat is the warm one)
#   OUT/kernels.txt  Nsight Compute's duration of every setup kernel of one solve of 3D Poisson
#                  SIZE^3 (default 256, STENCIL 7), summed by kernel name, largest first
set -uo pipefail
out=${1:?usage: scripts/amg-profile.sh OUTDIR [SIZE] [STENCIL]}
size=${2:-256}
stencil=${3:-7}
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/gpu-check.sh" "$out" none > "$out/build.txt" || { cat "$out/build.txt"; exit 1; }
g=$here/build-gpu/gsolve
"$g" "$here/configs/amg_poisson_bench.cfg" --set batch.results="$out/batch" --set batch.repeats=2 \
    --set output.verbosity=3 > "$out/trace.log" 2>&1
rm -rf "$out/batch"
grep -E "^\[" "$out/trace.log"
setup='count_kernel|bin_|glob_|set_ull|transpose|from_csr|gather|room|scatter|narrow|insert|row_len'
setup+='|Radix|Scan|Sort|mis_|agg_|strength|times_t|diag|jacobi|scaled|lanczos|features|mark_'
setup+='|fill_kernel|row_starts|tent_|random|collect|cmrs|csr_from|defrag|compact|sqrt'
if command -v ncu > /dev/null; then
    ncu --clock-control none --metrics gpu__time_duration.sum -k "regex:$setup" --csv \
        "$g" --set problem.generate.type=poisson --set problem.generate.size="$size" \
        --set problem.generate.stencil="$stencil" --set solver.preconditioner=amg \
        --set solver.max_iters=2 > "$out/ncu.csv" 2> "$out/ncu.err"
    python3 - "$out/ncu.csv" > "$out/kernels.txt" <<'PY'
import csv, sys, collections
rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
tot, cnt = collections.Counter(), collections.Counter()
for r in csv.DictReader(rows):
    if r.get("Metric Name") != "gpu__time_duration.sum": continue
    name = r["Kernel Name"].split("(")[0].split("<")[0].replace("void ", "")
    v = float(r["Metric Value"].replace(",", ""))
    scale = {"nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0}.get(r["Metric Unit"], 1e-6)
    tot[name] += v * scale; cnt[name] += 1
print("%-50s %8s %10s" % ("kernel", "calls", "ms"))
for k, v in tot.most_common():
    print("%-50s %8d %10.3f" % (k, cnt[k], v))
print("%-50s %8d %10.3f" % ("total", sum(cnt.values()), sum(tot.values())))
PY
    head -40 "$out/kernels.txt"
fi

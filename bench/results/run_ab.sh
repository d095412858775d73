#!/usr/bin/env bash
# bench/results/run_ab.sh A B OUT [RUNS] [CASE ...]: two gsolve builds side by side on one GPU, on
# the AMG problem classes of run_amg_classes.sh with default settings (AMG-PCG, b = ones, x0 = 0,
# rtol 1e-8): each case RUNS times (default 5) per build, the builds interleaved, each run its
# own process. OUT/rows.csv holds every run (iterations, setup, solve, true residual from
# output.csv), OUT/table.md the medians and B/A. A and B are gsolve binaries (e.g. a build of
# the base commit and build-gpu/gsolve). Without CASE: all of them.
set -uo pipefail
A=${1:?usage: run_ab.sh A B OUT [RUNS] [CASE ...]}
B=${2:?usage: run_ab.sh A B OUT [RUNS] [CASE ...]}
out=${3:?usage: run_ab.sh A B OUT [RUNS] [CASE ...]}
runs=${4:-5}
shift $(($# < 4 ? $# : 4))
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
P=problem.generate
cases="poisson7-128 --set $P.type=poisson --set $P.size=128
poisson7-256 --set $P.type=poisson --set $P.size=256
poisson27-128 --set $P.type=poisson --set $P.size=128 --set $P.stencil=27
aniso3d-128 --set $P.type=anisotropic --set $P.size=128 --set $P.stencil=7 --set $P.epsilon=0.001
jumps-128 --set $P.type=jumps --set $P.size=128
rotated-1024 --set $P.type=rotated --set $P.size=1024
elast2d-512 --set $P.type=elasticity --set $P.stencil=9 --set $P.size=512
elast3d-32 --set $P.type=elasticity --set $P.stencil=27 --set $P.size=32
elast3d-64 --set $P.type=elasticity --set $P.stencil=27 --set $P.size=64"
want() { [ $# -eq 0 ] && return 0; for w in "$@"; do [ "$w" = "$name" ] && return 0; done; return 1; }
echo "case,build,run,iterations,setup_s,solve_s,rel_residual" > "$out/rows.csv"
while read -r name args; do
    want "$@" || continue
    for r in $(seq 1 "$runs"); do
        for b in A B; do
            g=$A; [ $b = B ] && g=$B
            csv=$out/run.csv
            rm -f "$csv"
            # shellcheck disable=SC2086
            "$g" "$here/configs/quickstart.cfg" --set solver.preconditioner=amg \
                --set solver.max_iters=1000 --set output.csv="$csv" $args > "$out/$name-$b.log" 2>&1
            python3 - "$csv" "$name" "$b" "$r" >> "$out/rows.csv" <<'PY'
import csv, sys
try:
    m = list(csv.DictReader(open(sys.argv[1])))[-1]
    print(",".join(sys.argv[2:5] + [m["iterations"], m["setup_s"], m["solve_s"], m["rel_residual"]]))
except Exception:
    print(",".join(sys.argv[2:5]) + ",failed,,,")
PY
        done
    done
done <<< "$cases"
rm -f "$out/run.csv"
python3 - "$out/rows.csv" "$A" "$B" > "$out/table.md" <<'PY'
import csv, statistics as st, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["iterations"] != "failed"]
print("A = %s, B = %s; medians over the runs, ms\n" % (sys.argv[2], sys.argv[3]))
print("| case | its A | its B | setup A | setup B | solve A | solve B | total A | total B | B/A total |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for c in dict.fromkeys(r["case"] for r in rows):
    m = {}
    for b in "AB":
        rr = [r for r in rows if r["case"] == c and r["build"] == b]
        s = st.median(float(r["setup_s"]) for r in rr) * 1e3
        v = st.median(float(r["solve_s"]) for r in rr) * 1e3
        t = st.median((float(r["setup_s"]) + float(r["solve_s"])) * 1e3 for r in rr)
        m[b] = ("/".join(sorted(set(r["iterations"] for r in rr))), s, v, t)
    print("| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f |" % (
        c, m["A"][0], m["B"][0], m["A"][1], m["B"][1], m["A"][2], m["B"][2], m["A"][3],
        m["B"][3], m["B"][3] / m["A"][3]))
PY
cat "$out/table.md"

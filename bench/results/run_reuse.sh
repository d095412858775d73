#!/usr/bin/env bash
# bench/results/run_reuse.sh IJ OUT [STEPS]: the setup with new values of one pattern (amg.reuse)
# and sequences of systems (problem.steps), default settings, in one GPU session; OUT/table.md.
#   1. the re-setup against a full setup on 3D Poisson 7-point 256^3, jumps 128^3 and 3D
#      elasticity 64^3 whose coefficients drift 10% a step (problem.generate.drift = 0.1): a
#      sequence of 1 + STEPS systems with amg.reuse = none (full setups) and one with auto
#      (the default); the medians of steps 1.. (warm), and the iterations of every step;
#   2. a 20-step jumps 128^3 sequence (auto) against the same 20 systems with a full setup each
#      (amg.reuse = none, one process), against 20 independent gsolve runs of one such system
#      (a process each: start, generation, setup, solve), and against
#      hypre's BoomerAMG-PCG (the peer settings of run_amg_classes.sh) on step 0's matrix, setup
#      + solve of its warm run times 20 (each step is the same class of system at the same size).
# IJ is hypre's `ij` driver; GSOLVE (default build-gpu/gsolve) the binary; HYPRE=0 leaves hypre out.
set -uo pipefail
ij=${1:?usage: run_reuse.sh IJ OUT [STEPS]}
out=${2:?usage: run_reuse.sh IJ OUT [STEPS]}
steps=${3:-4}
here=$(cd "$(dirname "$0")/../.." && pwd)
gsolve=${GSOLVE:-$here/build-gpu/gsolve}
mkdir -p "$out"
out=$(cd "$out" && pwd)
P=problem.generate
seq() { # name, reuse, steps, then --set arguments
    local name=$1 reuse=$2 n=$3
    shift 3
    rm -f "$out/$name-$reuse.csv"
    local t0=$EPOCHREALTIME
    "$gsolve" "$here/configs/quickstart.cfg" \
        --set solver.preconditioner=amg --set amg.reuse="$reuse" --set problem.steps="$n" \
        --set output.csv="$out/$name-$reuse.csv" "$@" > "$out/$name-$reuse.log" 2>&1
    awk "BEGIN { print $EPOCHREALTIME - $t0 }" > "$out/$name-$reuse.wall"
}
for c in "poisson7-256 $P.type=poisson $P.size=256" "jumps-128 $P.type=jumps $P.size=128" \
         "elast3d-64 $P.type=elasticity $P.stencil=27 $P.size=64"; do
    set -- $c
    name=$1
    shift
    args=()
    for kv in "$@"; do args+=(--set "$kv"); done
    seq "$name" none $((steps + 1)) "${args[@]}"
    seq "$name" auto $((steps + 1)) "${args[@]}"
done
seq jumps-128-20 auto 20 --set $P.type=jumps --set $P.size=128
seq jumps-128-20 none 20 --set $P.type=jumps --set $P.size=128
# 20 independent gsolve runs (one process each: start, generation, upload, setup, solve)
rm -f "$out/jumps-128-single.csv"
t0=$EPOCHREALTIME
for ((i = 0; i < 20; i++)); do
    "$gsolve" "$here/configs/quickstart.cfg" --set solver.preconditioner=amg \
        --set $P.type=jumps --set $P.size=128 --set output.csv="$out/jumps-128-single.csv" \
        > "$out/jumps-128-single.log" 2>&1
done
awk "BEGIN { print $EPOCHREALTIME - $t0 }" > "$out/jumps-128-single.wall"
if [ "${HYPRE:-1}" != 0 ]; then
    "$gsolve" "$here/configs/quickstart.cfg" --set $P.type=jumps --set $P.size=128 \
        --export "$out/jumps-128.ij" > /dev/null 2>&1
    (cd "$out" && timeout 300 "$ij" -fromfile jumps-128.ij -pmis -keepT 1 -rlx 18 -exec_device \
        -mod_rap2 1 -mm_vendor 0 -interptype 6 -Pmx 4 -solver 1 -tol 1e-8 -rhsisone \
        -benchmark 1 > hypre_jumps-128.log 2>&1)
    rm -f "$out"/*.ij.00000
fi
python3 - "$out" "$steps" > "$out/table.md" <<'EOF'
import csv, statistics, sys, os, re
out, steps = sys.argv[1], int(sys.argv[2])
def rows(name):
    p = os.path.join(out, name + ".csv")
    return list(csv.DictReader(open(p))) if os.path.exists(p) else []
def ms(r, k): return 1e3 * float(r[k])
print("## Re-setup with new values against a full setup (medians: full setups of steps 1..%d with amg.reuse = none, the setups that kept the prolongator with auto)\n" % steps)
print("| case | full setup ms | re-setup ms | ratio | iterations full (steps 0..) | iterations re-setup (steps 0..) | setup kinds |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for name in ("poisson7-256", "jumps-128", "elast3d-64"):
    f, a = rows(name + "-none"), rows(name + "-auto")
    if len(f) < 2 or len(a) < 2:
        print("| %s | failed | | | | | |" % name); continue
    fs = statistics.median(ms(r, "setup_s") for r in f[1:])
    kept = [r for r in a[1:] if r["setup"] == "prolongator"]
    if not kept:
        print("| %s | %.1f | - (auto made full setups) | | | | |" % (name, fs)); continue
    rs = statistics.median(ms(r, "setup_s") for r in kept)
    print("| %s | %.1f | %.1f | %.2f | %s | %s | %s |" % (name, fs, rs, rs / fs,
          " ".join(r["iterations"] for r in f), " ".join(r["iterations"] for r in a),
          " ".join(r["setup"] for r in a)))
print("\n## 20-step jumps 128^3 sequence (drift 0.1 a step)\n")
a, f = rows("jumps-128-20-auto"), rows("jumps-128-20-none")
def tot(rs): return sum(ms(r, "setup_s") + ms(r, "solve_s") for r in rs)
def wall(n):
    try: return float(open(os.path.join(out, n + ".wall")).read().split()[-1])
    except Exception: return float("nan")
print("| run | steps | setups (full / kept P) | iterations min-max | setup + solve ms | process wall s |")
print("| --- | --- | --- | --- | --- | --- |")
single = rows("jumps-128-single")
for label, rs, n in (("sequence, amg.reuse = auto", a, "jumps-128-20-auto"),
                     ("sequence, amg.reuse = none (20 full setups)", f, "jumps-128-20-none"),
                     ("20 independent gsolve runs (a process each)", single, "jumps-128-single")):
    if not rs: print("| %s | failed | | | | |" % label); continue
    its = [int(r["iterations"]) for r in rs]
    kinds = [r.get("setup", "full") for r in rs]
    print("| %s | %d | %d / %d | %d-%d | %.1f | %.2f |" % (label, len(rs), kinds.count("full"),
          kinds.count("prolongator"), min(its), max(its), tot(rs), wall(n)))
h = os.path.join(out, "hypre_jumps-128.log")
if os.path.exists(h):
    txt = open(h).read()
    t = [float(x) for x in re.findall(r"wall clock time = ([0-9.eE+-]+) seconds", txt)]
    it = re.findall(r"Iterations = (\d+)", txt)
    if len(t) >= 4:
        one = 1e3 * (t[-2] + t[-1])
        print("| hypre BoomerAMG-PCG, step 0 x 20 (warm run's setup + solve) | 20 | 20 / 0 | %s | %.1f | |" % (it[-1] if it else "?", 20 * one))
if a and f:
    print("\nsequence (auto) / 20 full setups + solves, setup + solve times: %.2f" % (tot(a) / tot(f)))
if a and single:
    print("sequence (auto) / 20 independent gsolve runs, process wall times: %.2f"
          % (wall("jumps-128-20-auto") / wall("jumps-128-single")))
EOF
cat "$out/table.md"

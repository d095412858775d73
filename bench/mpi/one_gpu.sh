#!/usr/bin/env bash
# bench/mpi/one_gpu.sh OUT [SIZE]: the MPI build on one GPU (issue "One system across MPI
# ranks", its one-GPU numbers): AMG-PCG on 3D Poisson 7-point SIZE^3 (default 128), b = ones,
# rtol 1e-8, default AMG settings.
#   1. the MPI build under `mpirun -np 1` against a build without MPI (build-nompi/), runs
#      alternated, 7 processes each, medians of setup + solve;
#   2. 1, 2 and 4 ranks sharing the GPU (3 processes each): iterations, true residual, setup,
#      solve and the communication times the ranks report;
#   3. Jacobi-CG on 1, 2 and 4 ranks: the iterations must be equal.
# Needs build-gpu/gsolve (MPI on) and build-nompi/gsolve (-DGSOLVE_MPI=OFF); mpirun on PATH
# (MPIRUN overrides: default "mpirun --oversubscribe --bind-to none"). Writes OUT/*.csv, the logs
# and OUT/table.md.
set -uo pipefail
out=${1:?usage: one_gpu.sh OUT [SIZE]}
n=${2:-128}
here=$(cd "$(dirname "$0")/../.." && pwd)
mpi=$here/build-gpu/gsolve
nompi=$here/build-nompi/gsolve
MPIRUN=${MPIRUN:-mpirun --oversubscribe --bind-to none}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cfg=$here/configs/quickstart.cfg
common=(--set problem.generate.size="$n" --set solver.max_iters=2000)
amg=(--set solver.preconditioner=amg)
rm -f "$out"/*.csv
for r in 1 2 3 4 5 6 7; do
    "$nompi" "$cfg" "${common[@]}" "${amg[@]}" --set output.csv="$out/nompi.csv" \
        > "$out/nompi.log" 2>&1
    $MPIRUN -np 1 "$mpi" "$cfg" "${common[@]}" "${amg[@]}" --set output.csv="$out/mpi1.csv" \
        > "$out/mpi1.log" 2>&1
done
for np in 1 2 4; do
    for r in 1 2 3; do
        timeout 300 $MPIRUN -np $np "$mpi" "$cfg" "${common[@]}" "${amg[@]}" \
            --set output.csv="$out/amg_np$np.csv" > "$out/amg_np$np.log" 2>&1
    done
    timeout 300 $MPIRUN -np $np "$mpi" "$cfg" "${common[@]}" --set solver.preconditioner=jacobi \
        --set output.csv="$out/jacobi_np$np.csv" > "$out/jacobi_np$np.log" 2>&1
done
python3 - "$out" "$n" > "$out/table.md" <<'PY'
import csv, glob, os, statistics, sys
out, n = sys.argv[1], sys.argv[2]
def rows(name):
    p = os.path.join(out, name)
    return list(csv.DictReader(open(p))) if os.path.exists(p) else []
def med(rs, key):
    return statistics.median(float(r[key]) for r in rs) if rs else float("nan")
print("# MPI build on one GPU: 3D Poisson 7-point %s^3, AMG-PCG (defaults), rtol 1e-8\n" % n)
a, b = rows("nompi.csv"), rows("mpi1.csv")
if a and b:
    ta = med([dict(r, t=float(r["setup_s"]) + float(r["solve_s"])) for r in a], "t")
    tb = med([dict(r, t=float(r["setup_s"]) + float(r["solve_s"])) for r in b], "t")
    print("| build | runs | iterations | setup ms | solve ms | setup + solve ms |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, rs, t in (("without MPI", a, ta), ("MPI, mpirun -np 1", b, tb)):
        print("| %s | %d | %s | %.1f | %.1f | %.1f |" % (name, len(rs), rs[0]["iterations"],
              1e3 * med(rs, "setup_s"), 1e3 * med(rs, "solve_s"), 1e3 * t))
    print("\n1 rank / no MPI: %.3f (medians of setup + solve)\n" % (tb / ta))
print("| ranks on the GPU | preconditioner | iterations | true residual | setup ms | solve ms | comm setup ms | comm solve ms (share) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for pc in ("amg", "jacobi"):
    for np_ in (1, 2, 4):
        rs = rows("%s_np%d.csv" % (pc, np_))
        if not rs:
            print("| %d | %s | failed | | | | | |" % (np_, pc)); continue
        s = med(rs, "solve_s")
        cs = med(rs, "comm_solve_s") if "comm_solve_s" in rs[0] else 0.0
        print("| %d | %s | %s | %s | %.1f | %.1f | %.1f | %.1f (%.0f%%) |" % (np_, pc,
              ",".join(sorted(set(r["iterations"] for r in rs))), rs[0]["rel_residual"],
              1e3 * med(rs, "setup_s"), 1e3 * s, 1e3 * med(rs, "comm_setup_s") if "comm_setup_s" in rs[0] else 0.0,
              1e3 * cs, 100 * cs / s if s > 0 else 0))
PY
cat "$out/table.md"

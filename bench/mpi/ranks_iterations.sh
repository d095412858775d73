#!/usr/bin/env bash
# bench/mpi/ranks_iterations.sh GSOLVE OUT MATRIX... : the AMG's iterations on 1, 2 and 4 ranks
# (NPS overrides: "1 2 4") with amg.method auto, sa and classical, each matrix read from its file
# (b = ones, rtol 1e-8; GMRES(30) where the name holds "supg" or "sky", else CG), into
# OUT/table.md: iterations, and setup and solve seconds (meaningful only where the ranks have
# cores and devices of their own). MPIRUN overrides "mpirun --oversubscribe".
set -uo pipefail
gs=${1:?usage: ranks_iterations.sh GSOLVE OUT MATRIX...}
out=${2:?usage: ranks_iterations.sh GSOLVE OUT MATRIX...}
shift 2
MPIRUN=${MPIRUN:-mpirun --oversubscribe}
mkdir -p "$out"
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'), commit: $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null), $(nproc) CPUs"
    echo
    echo "| matrix | method | ranks | iterations | setup s | solve s |"
    echo "| --- | --- | --- | --- | --- | --- |"
    for m in "$@"; do
        k=cg
        case $m in *supg* | *sky*) k=gmres ;; esac
        for meth in auto sa classical; do
            for np in ${NPS:-1 2 4}; do
                csv="$out/$(basename "$m")_${meth}_$np.csv"
                rm -f "$csv"
                $MPIRUN -np "$np" "$gs" --set problem.matrix="$m" --set problem.rhs=ones \
                    --set solver.type=$k --set solver.preconditioner=amg --set solver.rtol=1e-8 \
                    --set solver.max_iters=500 --set amg.method=$meth --set output.verbosity=0 \
                    --set output.csv="$csv" >/dev/null 2>&1
                python3 - "$csv" "$(basename "$m")" "$meth" "$np" <<'PY'
import csv, sys
p, name, meth, np = sys.argv[1:]
try:
    r = list(csv.DictReader(open(p)))[0]
    print("| %s | %s | %s | %s | %.3f | %.3f |" % (name, meth, np, r["iterations"] if r["converged"] == "1" else r["iterations"] + " (not converged)", float(r["setup_s"]), float(r["solve_s"])))
except Exception:
    print("| %s | %s | %s | failed | | |" % (name, meth, np))
PY
            done
        done
    done
} > "$out/table.md"
cat "$out/table.md"

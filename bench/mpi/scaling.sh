#!/usr/bin/env bash
# bench/mpi/scaling.sh OUT [GPUS...]: strong and weak scaling of the distributed solve, one rank a
# GPU (issue "Multi-GPU scaling run"): AMG-PCG (default settings), b = ones, rtol 1e-8, on
#   poisson: 3D Poisson 7-point; jumps: 3D jumping coefficients (1e-3/1/1e3, 8^3 cubes, seed 1,
#   the heterogeneous class); convdiff: 3D convection-diffusion, first-order upwind, velocity 10
#   (the nonsymmetric class: AMG-GMRES(30));
#   strong: 256^3 on every GPU count;
#   weak:   16.8M rows (256^3) a GPU: 256^3 on 1, 256x256x512 (33.6M) on 2, 256x512x512 (67.1M)
#           on 4, 512^3 (134M) on 8, the issue's grids (problem.generate.nx, ny, nz: the grid
#           doubled along z, then along y, then x); another GPU count runs 256^3.
# GPUS: the GPU counts to run (default: 1 2 4 8, those the node has). REPS processes a point
# (default 3), the median of setup + solve kept. Needs build-gpu/gsolve built with MPI and mpirun on PATH (MPIRUN
# overrides: default "mpirun --bind-to none"). Writes OUT/<case>_<gpus>.csv, logs, OUT/table.md
# (bench/mpi/scaling_table.py: the date, commit and GPUs (OUT/machine.txt), the table, then the
# issue's targets against the medians and hypre). OUT must be empty or new: a folder with an
# earlier run's files is refused (a table of two runs' logs would mix machines).
# The default halos (CUDA IPC, signalled on the GPU) are overlapped and not timed, so the
# table's host MPI share is the reductions and the gathered tail only; each multi-GPU point runs
# once more with GSOLVE_MPI_IPC=host (MPI handshakes: the stream drained first, untimed, then
# the handshakes and copies timed on the host) for the communication share
# (OUT/<case>_<gpus>_hs.csv). Communication times include waiting for the slowest rank. The last
# column: the ranks line's mapping of the GPUs into each other's address space at start-up
# (gs_dist_peers_connect), before the setup's clock, from the point's last process.
# IJ=PATH: hypre's ij driver built with CUDA and MPI (../shared/peers/build-hypre.sh with
# -DHYPRE_ENABLE_MPI=ON): BoomerAMG-PCG with the peer tables' settings (run-hypre.sh) on the same
# Poisson grids and GPU counts, one rank a GPU (-n: each rank's block, -P: the ranks along x y z;
# hypre's second, warm run is kept), into OUT/hypre.md.
set -uo pipefail
out=${1:?usage: scaling.sh OUT [GPUS...]}
shift
here=$(cd "$(dirname "$0")/../.." && pwd)
gs=$here/build-gpu/gsolve
MPIRUN=${MPIRUN:-mpirun --bind-to none}
have=$(nvidia-smi -L 2>/dev/null | wc -l)
gpus=("$@")
[ ${#gpus[@]} -eq 0 ] && for g in 1 2 4 8; do [ "$g" -le "$have" ] && gpus+=("$g"); done
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then
    echo "scaling.sh: $out already holds files (an earlier run's?): give an empty or new folder" >&2
    exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
{ # what ran where: the table's first lines (bench/mpi/scaling_table.py)
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    # a COMMIT file (an exported tree's) first, else the checkout's
    c=$(cat "$here/COMMIT" 2>/dev/null || git -C "$here" rev-parse --short HEAD 2>/dev/null)
    echo "commit: ${c:-unknown}"
    nvidia-smi -L 2>/dev/null | sed 's/^/gpu: /'
} > "$out/machine.txt"
# the weak grid of a GPU count: "nx ny nz"
weak_grid() { case $1 in 1) echo 256 256 256 ;; 2) echo 256 256 512 ;; 4) echo 256 512 512 ;;
    8) echo 512 512 512 ;; *) echo 256 256 256 ;; esac; }
solver_of() { # the Krylov method of a case: GMRES(30) for the nonsymmetric one
    case $1 in convdiff) echo gmres ;; *) echo cg ;; esac; }
solve() { # csv-and-log-stem gpus type nx ny nz: one gsolve process (the environment passed on)
    timeout 600 $MPIRUN -np "$2" "$gs" "$here/configs/quickstart.cfg" \
        --set problem.generate.type="$3" --set problem.generate.size=256 \
        --set problem.generate.nx="$4" --set problem.generate.ny="$5" \
        --set problem.generate.nz="$6" \
        --set solver.preconditioner=amg --set solver.max_iters=1000 \
        --set solver.type="$(solver_of "$3")" \
        --set output.csv="$out/$1.csv" > "$out/$1.log" 2>&1
}
run() { # name gpus type nx ny nz
    local name=$1 g=$2
    shift 2
    rm -f "$out/${name}_$g.csv"
    for r in $(seq "${REPS:-3}"); do solve "${name}_$g" "$g" "$@"; done
    # the default halos are signalled on the GPU, overlapped and not timed; one run with MPI
    # handshakes (GSOLVE_MPI_IPC=host: the stream drained, each exchange timed on the host)
    # gives the communication share
    [ "$g" -gt 1 ] && rm -f "$out/${name}_${g}_hs.csv" &&
        GSOLVE_MPI_IPC=host solve "${name}_${g}_hs" "$g" "$@"
}
for type in poisson jumps convdiff; do
    for g in "${gpus[@]}"; do
        run "strong_$type" "$g" "$type" 256 256 256
        # shellcheck disable=SC2046 # the grid's three numbers
        run "weak_$type" "$g" "$type" $(weak_grid "$g")
    done
done
if [ -n "${IJ:-}" ]; then
    hypre() { # name gpus nx ny nz px py pz
        local log="$out/hypre_$1_$2.log"
        timeout 600 $MPIRUN -np "$2" "$IJ" -n "$3" "$4" "$5" -P "$6" "$7" "$8" -pmis -keepT 1 \
            -rlx 18 -exec_device -mod_rap2 1 -mm_vendor 0 -interptype 6 -Pmx 4 -solver 1 \
            -tol 1e-8 -rhsisone -benchmark 1 > "$log" 2>&1
        local its t
        its=$(grep -m1 'Iterations =' "$log" | awk '{print $3}')
        t=($(grep 'wall clock time' "$log" | tail -4 | awk '{print $(NF-1)}'))
        echo "| hypre $1 | $2 | ${its:-failed} | ${t[2]:-?} | ${t[3]:-?} |" \
            "$(python3 -c "print('%.3f' % (${t[2]:-0} + ${t[3]:-0}))" 2>/dev/null) |"
    }
    { echo "| case | GPUs | iterations | setup s | solve s | total s |"
      echo "| --- | --- | --- | --- | --- | --- |"
      for g in "${gpus[@]}"; do # strong: 256^3 split along z (then y); weak: 256^3 a rank
          case $g in 1) hypre strong "$g" 256 256 256 1 1 1; hypre weak "$g" 256 256 256 1 1 1 ;;
              2) hypre strong "$g" 256 256 128 1 1 2; hypre weak "$g" 256 256 256 1 1 2 ;;
              4) hypre strong "$g" 256 128 128 1 2 2; hypre weak "$g" 256 256 256 1 2 2 ;;
          esac
      done; } > "$out/hypre.md"
fi
python3 "$here/bench/mpi/scaling_table.py" "$out" "${gpus[@]}" > "$out/table.md"
cat "$out/table.md"
if [ -f "$out/hypre.md" ]; then cat "$out/hypre.md"; fi

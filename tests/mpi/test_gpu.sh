#!/usr/bin/env bash
# test_gpu.sh GSOLVE MPIEXEC SRCDIR TMPDIR: the distributed solve on the GPU (77 = skipped without
# one). Ranks take GPU (local rank mod the node's GPUs), so on a one-GPU machine they share it.
# AMG-PCG with levels across the ranks (the setup in compact columns on the device) on 2 and 3
# ranks against one process: converged, true residual below rtol, iterations within 20%; on one
# node the halos go through CUDA IPC (the ranks line says so), signalled on the GPU when every
# rank has its own (the V cycle then replayed as CUDA graphs; GSOLVE_DIST_GRAPH=0 without),
# the plans' halo lists device to device (GSOLVE_DIST_PLAN_BYTES=0: all of them, with IPC or
# staged through host MPI),
# with GSOLVE_MPI_IPC=host through MPI handshakes and with GSOLVE_MPI_IPC=0 through MPI, to the
# same iterations; Jacobi-CG within one iteration of one process; the jumping
# coefficients and 3D elasticity (block AMG) converge on 2 ranks; the device pool is grown
# while the rows are built (the memory line says so).
source "$(dirname "$0")/mpi_lib.sh"
D=(--set run.backend=cuda --set solver.rtol=1e-8 --set amg.gather_rows=500)
P=("${D[@]}" --set problem.generate.type=poisson --set problem.generate.size=40)
gs 0 probe "${P[@]}" --set problem.generate.size=8
if [ "$(cat "$T/probe.rc")" != 0 ]; then
    echo "skipped: no GPU ($(tail -n 1 "$T/probe.out"))"
    exit 77
fi
gs 0 amg_p "${P[@]}" --set solver.preconditioner=amg
converged amg_p 1e-8
for np in 2 3; do
    gs "$np" "amg_$np" "${P[@]}" --set solver.preconditioner=amg
    converged "amg_$np" 1e-8 && ranks_is "amg_$np" "$np" && near_its amg_p "amg_$np" 20
    grep -q 'through CUDA IPC' "$T/amg_$np.out" \
        || fail "amg_$np: the ranks line does not name CUDA IPC halos: $(grep '^ranks' "$T/amg_$np.out")"
done
# each rank on its own GPU: the halo flags on the device; GSOLVE_MPI_IPC=host: MPI handshakes,
# the same iterations and residual
if [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -ge 2 ]; then
    grep -q 'signalled on the GPU' "$T/amg_2.out" \
        || fail "amg_2: two GPUs, and the ranks line does not name device signals: $(grep '^ranks' "$T/amg_2.out")"
fi
GSOLVE_DIST_GRAPH=0 gs 2 amg_2_nograph "${P[@]}" --set solver.preconditioner=amg
converged amg_2_nograph 1e-8 && same_its amg_2 amg_2_nograph
# every halo list of the plans device to device (by default only those from 256 KB)
GSOLVE_DIST_PLAN_BYTES=0 gs 2 amg_2_plan "${P[@]}" --set solver.preconditioner=amg
converged amg_2_plan 1e-8 && same_its amg_2 amg_2_plan
GSOLVE_DIST_PLAN_BYTES=0 GSOLVE_MPI_IPC=0 gs 2 amg_2_plan_mpi "${P[@]}" --set solver.preconditioner=amg
converged amg_2_plan_mpi 1e-8 && same_its amg_2 amg_2_plan_mpi
GSOLVE_MPI_IPC=host gs 2 amg_2_host "${P[@]}" --set solver.preconditioner=amg
converged amg_2_host 1e-8 && same_its amg_2 amg_2_host
grep -q 'MPI handshakes' "$T/amg_2_host.out" \
    || fail "amg_2_host: GSOLVE_MPI_IPC=host, and the ranks line does not name MPI handshakes"
GSOLVE_MPI_IPC=0 gs 2 amg_2_mpi "${P[@]}" --set solver.preconditioner=amg
converged amg_2_mpi 1e-8 && same_its amg_2 amg_2_mpi
grep -q 'through CUDA IPC' "$T/amg_2_mpi.out" && fail "amg_2_mpi: CUDA IPC with GSOLVE_MPI_IPC=0"
gs 0 jac_p "${P[@]}" --set solver.preconditioner=jacobi
gs 2 jac_2 "${P[@]}" --set solver.preconditioner=jacobi
converged jac_p 1e-8 && converged jac_2 1e-8 && near_its jac_p jac_2 0 1
# the device pool grown on each rank while its rows are built (96^3: about 0.3 GB a rank ahead)
gs 2 pool_2 "${D[@]}" --set problem.generate.type=poisson --set problem.generate.size=96 \
    --set solver.preconditioner=amg
converged pool_2 1e-8
grep -q '^ *device pool grown by .* on rank 0 while the problem was read' "$T/pool_2.out" \
    || fail "pool_2: no line says the device pool was grown while the problem was read"
for t in jumps elasticity; do
    gs 2 "${t}_2" "${D[@]}" --set problem.generate.type="$t" --set problem.generate.size=32 \
        --set solver.preconditioner=amg
    converged "${t}_2" 1e-8
done
finish

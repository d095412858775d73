#!/usr/bin/env bash
# test_formats.sh GSOLVE MPIEXEC SRCDIR TMPDIR: every host SpMV format forced (spmv.format = csr,
# cmrs, suraa, cds; cusparse needs the GPU) on 2 ranks: each rank's diagonal block runs in it
# beside the halo columns. CG + Jacobi on 3D Poisson 20^3 takes the iterations of one process
# and the CSV's format is the one forced; GMRES + Jacobi on nonsymmetric 3D convection-diffusion
# within one iteration; AMG-PCG with levels across the ranks within 20%, every level in the
# forced format where it can hold it (the CSV's formats start with it).
source "$(dirname "$0")/mpi_lib.sh"
P=("${HOST[@]}" --set problem.generate.type=poisson --set problem.generate.size=20 --set solver.rtol=1e-8)
C=("${HOST[@]}" --set problem.generate.type=convdiff --set problem.generate.size=16
   --set problem.generate.velocity=20 --set solver.type=gmres --set solver.max_iters=2000)
gs 0 cg_p "${P[@]}" --set solver.preconditioner=jacobi
converged cg_p 1e-8
gs 0 gmres_p "${C[@]}" --set solver.preconditioner=jacobi
converged gmres_p 1e-8
gs 0 amg_p "${P[@]}" --set solver.preconditioner=amg
converged amg_p 1e-8
for f in csr cmrs suraa cds; do
    gs 2 "cg_$f" "${P[@]}" --set solver.preconditioner=jacobi --set spmv.format="$f"
    if converged "cg_$f" 1e-8; then
        same_its cg_p "cg_$f"
        [ "$(field "cg_$f" format)" = "$f" ] || fail "cg_$f: CSV format '$(field "cg_$f" format)', forced $f"
        ranks_is "cg_$f" 2
    fi
    gs 2 "gmres_$f" "${C[@]}" --set solver.preconditioner=jacobi --set spmv.format="$f"
    converged "gmres_$f" 1e-8 && near_its gmres_p "gmres_$f" 0 1
    gs 2 "amg_$f" "${P[@]}" --set solver.preconditioner=amg --set amg.gather_rows=300 --set spmv.format="$f"
    if converged "amg_$f" 1e-8; then
        near_its amg_p "amg_$f" 20
        case $(field "amg_$f" formats) in "$f,"*) ;; *)
            fail "amg_$f: CSV formats '$(field "amg_$f" formats)' do not start with $f" ;; esac
    fi
done
finish

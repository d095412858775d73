#!/usr/bin/env bash
# test_solvers.sh GSOLVE MPIEXEC SRCDIR TMPDIR: every Krylov method (cg, bicgstab, gmres, fgmres)
# x every preconditioner (none, jacobi, amg with levels across the ranks) on 3D Poisson 20^3, on
# 2 ranks against one process: converged, true residual below rtol, CSV ranks = 2; iterations
# equal for CG without AMG, within one for GMRES/FGMRES without AMG, within 15% (or 2) for
# BiCGStab (its two inner products a step make it the most sensitive to the rounding of the
# sums), within 20% with AMG.
source "$(dirname "$0")/mpi_lib.sh"
P=("${HOST[@]}" --set problem.generate.type=poisson --set problem.generate.size=20
   --set solver.rtol=1e-8 --set amg.gather_rows=300)
for s in cg bicgstab gmres fgmres; do
    for p in none jacobi amg; do
        n=${s}_$p
        gs 0 "${n}_p" "${P[@]}" --set solver.type="$s" --set solver.preconditioner="$p"
        converged "${n}_p" 1e-8 || continue
        gs 2 "${n}_2" "${P[@]}" --set solver.type="$s" --set solver.preconditioner="$p"
        converged "${n}_2" 1e-8 || continue
        ranks_is "${n}_2" 2
        [ "$(field "${n}_2" solver)/$(field "${n}_2" preconditioner)" = "$s/$p" ] \
            || fail "${n}_2: CSV solver/preconditioner $(field "${n}_2" solver)/$(field "${n}_2" preconditioner)"
        case $s/$p in
        */amg) near_its "${n}_p" "${n}_2" 20 ;;
        cg/*) same_its "${n}_p" "${n}_2" ;;
        bicgstab/*) near_its "${n}_p" "${n}_2" 15 2 ;;
        *) near_its "${n}_p" "${n}_2" 0 1 ;;
        esac
    done
done
finish

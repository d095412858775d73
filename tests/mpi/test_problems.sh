#!/usr/bin/env bash
# test_problems.sh GSOLVE MPIEXEC SRCDIR TMPDIR: the generated problem classes on 2 and 3 ranks
# against one process (AMG with amg.gather_rows = 300, so that the fine levels are across the
# ranks): nonsymmetric convection-diffusion with GMRES and BiCGStab, 2D anisotropic diffusion,
# 3D coefficient jumps, 2D rotated anisotropy, 2D elasticity (a block system with its
# rigid-body modes as the near-nullspace) and 2D Poisson with 3 unknowns a point (block AMG).
# Converged with a true residual below rtol; iterations equal for CG + Jacobi, within one for
# GMRES + Jacobi, 15% (or 2) for BiCGStab + Jacobi, 20% (or 1) with AMG; the AMG's method
# chosen from the matrix as one process chooses it, its smoother l1-Jacobi for
# convection-diffusion and Chebyshev for the others.
source "$(dirname "$0")/mpi_lib.sh"
while read -r name tol args; do
    [ -z "$name" ] && continue
    # shellcheck disable=SC2086
    set -- "${HOST[@]}" --set solver.rtol=1e-8 --set amg.gather_rows=300 $args
    gs 0 "${name}_p" "$@"
    converged "${name}_p" 1e-8 || { show "${name}_p"; continue; }
    for np in 2 3; do
        gs "$np" "${name}_$np" "$@"
        converged "${name}_$np" 1e-8 || continue
        ranks_is "${name}_$np" "$np"
        # the method and smoother left open are chosen from the matrix across ranks as on one
        # process
        case $name in *_amg)
            sm=l1jacobi; case $name in convdiff*) ;; *) sm=chebyshev ;; esac
            tr '\n' ' ' <"$T/${name}_$np.out" | grep -q "chosen: .*smoother $sm" ||
                fail "${name}_$np: the AMG block does not say \"smoother $sm\" among its choices"
            m1=$(grep -o "chosen: method [a-z]*" "$T/${name}_p.out")
            mn=$(grep -o "chosen: method [a-z]*" "$T/${name}_$np.out")
            [ -n "$m1" ] && [ "$m1" = "$mn" ] ||
                fail "${name}_$np: \"$mn\", one process \"$m1\"" ;;
        esac
        case $tol in
        same) same_its "${name}_p" "${name}_$np" ;;
        *) near_its "${name}_p" "${name}_$np" ${tol//,/ } ;;
        esac
    done
done <<'EOF2'
convdiff_gmres_jacobi 0,1 --set problem.generate.type=convdiff --set problem.generate.size=16 --set problem.generate.velocity=20 --set solver.type=gmres --set solver.preconditioner=jacobi --set solver.max_iters=2000
convdiff_gmres_amg 20 --set problem.generate.type=convdiff --set problem.generate.size=16 --set problem.generate.velocity=20 --set solver.type=gmres --set solver.preconditioner=amg
convdiff_bicgstab_jacobi 15,2 --set problem.generate.type=convdiff --set problem.generate.size=16 --set problem.generate.velocity=20 --set solver.type=bicgstab --set solver.preconditioner=jacobi
convdiff_bicgstab_amg 20 --set problem.generate.type=convdiff --set problem.generate.size=16 --set problem.generate.velocity=20 --set solver.type=bicgstab --set solver.preconditioner=amg
anisotropic_cg_jacobi same --set problem.generate.type=anisotropic --set problem.generate.stencil=5 --set problem.generate.size=48 --set solver.preconditioner=jacobi
anisotropic_cg_amg 20 --set problem.generate.type=anisotropic --set problem.generate.stencil=5 --set problem.generate.size=48 --set solver.preconditioner=amg
jumps_cg_jacobi same --set problem.generate.type=jumps --set problem.generate.size=16 --set problem.generate.block=4 --set solver.preconditioner=jacobi
jumps_cg_amg 20 --set problem.generate.type=jumps --set problem.generate.size=16 --set problem.generate.block=4 --set solver.preconditioner=amg
rotated_cg_amg 20 --set problem.generate.type=rotated --set problem.generate.size=48 --set solver.preconditioner=amg
elasticity2d_cg_jacobi same --set problem.generate.type=elasticity --set problem.generate.stencil=9 --set problem.generate.size=24 --set solver.preconditioner=jacobi
elasticity2d_cg_amg 20 --set problem.generate.type=elasticity --set problem.generate.stencil=9 --set problem.generate.size=40 --set solver.preconditioner=amg --set amg.gather_rows=1000
elasticity2d_gmres_amg 20 --set problem.generate.type=elasticity --set problem.generate.stencil=9 --set problem.generate.size=24 --set solver.type=gmres --set solver.preconditioner=amg
poisson2d_dof3_cg_amg 20 --set problem.generate.type=poisson --set problem.generate.stencil=5 --set problem.generate.size=24 --set problem.generate.dof=3 --set solver.preconditioner=amg
EOF2
finish

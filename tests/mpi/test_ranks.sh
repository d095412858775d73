#!/usr/bin/env bash
# test_ranks.sh GSOLVE MPIEXEC SRCDIR TMPDIR: the same system on 1 process, under mpirun -np 1,
# and on 2, 3 and 4 ranks (odd splits too): every run converges with a true residual below rtol
# and a CSV row saying how many ranks ran; CG (unpreconditioned and Jacobi) takes exactly the
# iterations of one process (the reductions' order changes only the rounding), GMRES + Jacobi
# the same within one; mpirun -np 1 is one process: the same iterations and residual, ranks 1,
# and no ranks line.
source "$(dirname "$0")/mpi_lib.sh"
P=(--set problem.generate.type=poisson --set problem.generate.size=20 --set solver.rtol=1e-8)
for sp in cg:none cg:jacobi gmres:jacobi; do
    s=${sp%:*}; p=${sp#*:}; base=${s}_$p
    gs 0 "${base}_p" "${HOST[@]}" "${P[@]}" --set solver.type="$s" --set solver.preconditioner="$p"
    converged "${base}_p" 1e-8 || continue
    ranks_is "${base}_p" 1
    # mpirun -np 1: one process, as without mpirun
    gs 1 "${base}_1" "${HOST[@]}" "${P[@]}" --set solver.type="$s" --set solver.preconditioner="$p"
    if converged "${base}_1" 1e-8; then
        ranks_is "${base}_1" 1
        same_its "${base}_p" "${base}_1"
        [ "$(field "${base}_1" rel_residual)" = "$(field "${base}_p" rel_residual)" ] \
            || fail "${base}_1: mpirun -np 1 residual $(field "${base}_1" rel_residual) != one process's $(field "${base}_p" rel_residual)"
        grep -q '^ranks ' "$T/${base}_1.out" && fail "${base}_1: mpirun -np 1 prints a ranks line"
    fi
    for np in 2 3 4; do
        gs "$np" "${base}_$np" "${HOST[@]}" "${P[@]}" --set solver.type="$s" \
            --set solver.preconditioner="$p"
        converged "${base}_$np" 1e-8 || continue
        ranks_is "${base}_$np" "$np"
        if [ "$s" = cg ]; then same_its "${base}_p" "${base}_$np"
        else near_its "${base}_p" "${base}_$np" 0 1; fi
        # the console: the solver line names the ranks, then the ranks line with the split
        grep -Eq "^solver .* ranks $np \(" "$T/${base}_$np.out" \
            || fail "${base}_$np: the solver line does not say 'ranks $np'"
        grep -Eq "^ranks +$np: rows [0-9]+\.\.[0-9]+, nnz [0-9]+\.\.[0-9]+ per rank; communication: setup [0-9.]+ s, solve [0-9.]+ s" \
            "$T/${base}_$np.out" || { fail "${base}_$np: no ranks line"; show "${base}_$np"; }
        # one process prints: exactly one summary
        [ "$(grep -c '^result ' "$T/${base}_$np.out")" = 1 ] \
            || fail "${base}_$np: $(grep -c '^result ' "$T/${base}_$np.out") result lines, expected 1"
    done
done
# the rows of the ranks line add up: 8000 rows over 3 ranks are 2666 or 2667 rows a rank give or
# take the nonzero balance; every rank has some
r=$(sed -n 's/^ranks *3: rows \([0-9]*\)\.\.\([0-9]*\),.*/\1 \2/p' "$T/cg_jacobi_3.out")
set -- $r
[ $# = 2 ] && [ "$1" -gt 2000 ] && [ "$2" -lt 3300 ] \
    || fail "cg_jacobi_3: ranks line rows '$r': expected 3 blocks of about 2667 of the 8000 rows"
finish

#!/usr/bin/env bash
# test_amg.sh GSOLVE MPIEXEC SRCDIR TMPDIR: AMG-PCG across ranks. With a small amg.gather_rows
# the fine levels are built and cycled across the ranks (the console's "N levels across ranks
# then gathered", N >= 1, and a "level 0 across ranks" line); with gather_rows = 1 every level
# down to the coarsest is; with the default (20000) a 27000-row problem keeps level 0 across the
# ranks and gathers the rest, and an 8000-row one gathers the whole hierarchy. Each run converges
# with a true residual below rtol in at most 20% more (or fewer) iterations than one process;
# the AMG variants (W cycle, Jacobi, l1-Jacobi and Gauss-Seidel smoothers, standard
# aggregation, symmetric strength, unsmoothed P) likewise on 2 ranks; classical AMG on 2 and 3
# ranks within twice one process's iterations.
source "$(dirname "$0")/mpi_lib.sh"
P20=(--set problem.generate.type=poisson --set problem.generate.size=20)
P30=(--set problem.generate.type=poisson --set problem.generate.size=30)
A=("${HOST[@]}" --set solver.type=cg --set solver.preconditioner=amg --set solver.rtol=1e-8)

across() { # NAME: the hierarchy had levels across the ranks
    local n
    n=$(sed -n 's/.* \([0-9]*\) levels* across ranks then gathered.*/\1/p' "$T/$1.out" | head -1)
    [ -n "$n" ] && [ "$n" -ge 1 ] && grep -q '^ *level 0 across ranks: rows' "$T/$1.out" \
        || { fail "$1: no level was built across the ranks (expected 'N levels across ranks then gathered' and 'level 0 across ranks')"; show "$1"; }
}

gs 0 p20 "${A[@]}" "${P20[@]}"
converged p20 1e-8
for gr in 300 1; do
    for np in 2 3 4; do
        n=p20_g${gr}_$np
        gs "$np" "$n" "${A[@]}" "${P20[@]}" --set amg.gather_rows="$gr"
        converged "$n" 1e-8 && ranks_is "$n" "$np" && near_its p20 "$n" 20 && across "$n"
    done
done
# the default gather_rows: 8000 rows are gathered at once (the one-process hierarchy)
for np in 2 3; do
    gs "$np" p20_default_$np "${A[@]}" "${P20[@]}"
    converged p20_default_$np 1e-8 && near_its p20 p20_default_$np 20 \
        && [ "$(field p20_default_$np levels)" = "$(field p20 levels)" ] \
        || fail "p20_default_$np: levels $(field p20_default_$np levels), one process $(field p20 levels)"
done
# 27000 rows > 20000: level 0 across the ranks by default
gs 0 p30 "${A[@]}" "${P30[@]}"
converged p30 1e-8
for np in 2 4; do
    gs "$np" p30_default_$np "${A[@]}" "${P30[@]}"
    converged p30_default_$np 1e-8 && near_its p30 p30_default_$np 20 && across p30_default_$np
done
# AMG variants on 2 ranks, levels across the ranks
# (symmetric strength: theta 0.1, since 0.3 keeps no coupling of the 7-point stencil)
for v in amg.cycle=W amg.smoother=jacobi amg.smoother=l1jacobi amg.smoother=gs amg.aggregation=standard \
    amg.strength=symmetric,amg.theta=0.1 amg.smooth_prolongator=0; do
    n=${v//[.=,]/_}
    set -- ; for kv in ${v//,/ }; do set -- "$@" --set "$kv"; done
    gs 0 "${n}_p" "${A[@]}" "${P20[@]}" "$@"
    converged "${n}_p" 1e-8 || continue
    gs 2 "${n}_2" "${A[@]}" "${P20[@]}" "$@" --set amg.gather_rows=300
    converged "${n}_2" 1e-8 && near_its "${n}_p" "${n}_2" 20 && across "${n}_2"
done
# classical AMG across ranks: PMIS within each rank's rows, R = P^T; it converges to the true
# residual with at most twice the iterations of one process, the console says so; and the
# restriction from A^T, one process's only, is refused with a message (exit 2)
CL=(--set amg.method=classical)
gs 0 cl_p "${A[@]}" "${P20[@]}" "${CL[@]}"
converged cl_p 1e-8
for np in 2 3; do
    gs "$np" cl_$np "${A[@]}" "${P20[@]}" "${CL[@]}" --set amg.gather_rows=300
    if converged cl_$np 1e-8 && across cl_$np; then
        grep -q "classical AMG: PMIS within each of $np ranks" "$T/cl_$np.out" ||
            { fail "cl_$np: the description does not say classical AMG within $np ranks"; show cl_$np; }
        [ "$(field cl_$np iterations)" -le $((2 * $(field cl_p iterations))) ] ||
            fail "cl_$np: $(field cl_$np iterations) iterations, one process $(field cl_p iterations)"
    fi
done
gs 2 cl_at "${A[@]}" "${P20[@]}" "${CL[@]}" --set amg.restriction=at
[ "$(cat "$T/cl_at.rc")" = 2 ] && grep -q 'amg.restriction = "at" runs on one process' "$T/cl_at.out" ||
    { fail "cl_at: expected exit 2 and the message on amg.restriction"; show cl_at; }
finish

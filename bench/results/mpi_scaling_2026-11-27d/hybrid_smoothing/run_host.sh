#!/usr/bin/env bash
# Hybrid (block) smoothing on the levels across ranks, on the host with 4 MPI ranks: iterations of
# AMG-PCG (rtol 1e-8) with experiment.diff applied to e37549a and gsolve built in build/.
# GS_SMBMIN=L: levels >= L across the ranks smooth over the ranks' blocks; unset: as e37549a.
# amg.gather_rows=1000 keeps a third level across the ranks where it has more than 1000 rows.
for sz in 64 96; do for gr in 20000 1000; do for t in poisson jumps; do
  line="$sz^3 $t gather_rows=$gr:"
  for L in none 0 1 2; do
    e=X=1; [ "$L" = none ] || e=GS_SMBMIN=$L
    its=$(env $e mpirun --allow-run-as-root --oversubscribe -np 4 build/gsolve configs/quickstart.cfg \
      --set run.backend=host --set solver.preconditioner=amg --set problem.generate.type=$t \
      --set problem.generate.size=$sz --set amg.gather_rows=$gr 2>&1 | sed -n 's/.*after \([0-9]*\) iterations.*/\1/p')
    nd=$(env $e mpirun --allow-run-as-root --oversubscribe -np 4 build/gsolve configs/quickstart.cfg \
      --set run.backend=host --set solver.preconditioner=amg --set problem.generate.type=$t \
      --set problem.generate.size=$sz --set amg.gather_rows=$gr 2>&1 | sed -n 's/.* \([0-9]*\) levels* across ranks.*/\1/p')
    line="$line $L:$its"
  done
  echo "$line (levels across ranks: $nd)"
done; done; done

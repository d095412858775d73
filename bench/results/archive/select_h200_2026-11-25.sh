#!/usr/bin/env bash
# bench/results/select_h200_2026-11-25.sh OUT: the run behind select_h200_2026-11-25.md, on the
# GPU machine from the repository root: the same build, tests and matrices as
# select_h200_2026-11-24f.sh (which it runs), on the code whose CSR, CMRS and SURAA kernels load
# columns and values streaming.
exec "$(dirname "$0")/select_h200_2026-11-24f.sh" "${1:?usage: bench/results/select_h200_2026-11-25.sh OUTDIR}"

#!/usr/bin/env bash
# bench/results/select_h200_2026-11-24e.sh OUT: the run behind select_h200_2026-11-24e.md, on the
# GPU machine from the repository root: the same build, tests and bench_select matrices as
# select_h200_2026-11-24.sh (which it runs), on the code with the hardened speculative CDS fill beside
# the feature pass.
exec "$(dirname "$0")/select_h200_2026-11-24.sh" "${1:?usage: bench/results/select_h200_2026-11-24e.sh OUTDIR}"

#!/usr/bin/env bash
# bench/results/select_h200_2026-11-25b.sh OUT: the run behind select_h200_2026-11-25b.md, on the
# GPU machine from the repository root: the same build, tests and matrices as
# select_h200_2026-11-24f.sh (which it runs), on the code whose SURAA G2 runs of Y <= 256 go
# through the span kernel.
exec "$(dirname "$0")/select_h200_2026-11-24f.sh" "${1:?usage: bench/results/select_h200_2026-11-25b.sh OUTDIR}"

#!/usr/bin/env bash
# bench/results/select_h200_2026-11-25c.sh OUT: the run behind select_h200_2026-11-25c.md, on the
# GPU machine from the repository root: the same build, tests and matrices as
# select_h200_2026-11-24f.sh (which it runs), on the code whose SURAA G3 finds the rows of its
# short-row runs from a length table.
exec "$(dirname "$0")/select_h200_2026-11-24f.sh" "${1:?usage: bench/results/select_h200_2026-11-25c.sh OUTDIR}"

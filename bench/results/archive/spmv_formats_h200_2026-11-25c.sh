#!/usr/bin/env bash
# bench/results/spmv_formats_h200_2026-11-25c.sh OUT: the run behind spmv_formats_h200_2026-11-25c.md,
# on the GPU machine from the repository root: the same build and matrices as
# spmv_formats_h200_2026-11-25.sh (which it runs), on the code whose SURAA G3 finds the rows of its
# short-row runs from a length table.
exec "$(dirname "$0")/spmv_formats_h200_2026-11-25.sh" "${1:?usage: bench/results/spmv_formats_h200_2026-11-25c.sh OUTDIR}"

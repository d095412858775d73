#!/usr/bin/env bash
# scripts/sbatch_batch.sh CONFIG [gsolve options]: a gsolve batch as a SLURM job array, one
# case per array task, then the report.
#
# Run it from a login node (no SLURM job around it): it counts the cases (gsolve CONFIG
# --list), submits itself as an array of that size, and a report job that runs when the array
# is done. Inside an array task it runs case $SLURM_ARRAY_TASK_ID (gsolve picks it up).
# Results go to batch.results of CONFIG (relative to the submission folder); rerunning the
# script skips what is already recorded (add --force to run it again).
#   GSOLVE=build/gsolve scripts/sbatch_batch.sh configs/batch.cfg
#   sbatch --array=0-2 scripts/sbatch_batch.sh configs/batch.cfg      (the same, by hand)
# Site options (partition, account, time) go on the sbatch line or in SBATCH_* variables.
#SBATCH --job-name=gsolve-batch
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=8
#SBATCH --time=01:00:00
#SBATCH --output=gsolve-batch-%A_%a.out
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/sbatch_batch.sh CONFIG [gsolve options]" >&2; exit 2; }
cfg=$1
shift
gsolve=${GSOLVE:-gsolve}
command -v "$gsolve" >/dev/null || gsolve=$(cd "$(dirname "$0")/.." && pwd)/build/gsolve

if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
    # an array task: gsolve reads SLURM_ARRAY_TASK_ID; exit 3 (some run did not converge) is a
    # recorded result, not a failed task
    code=0
    "$gsolve" "$cfg" "$@" || code=$?
    [ "$code" = 3 ] && code=0
    exit "$code"
fi

list=$("$gsolve" "$cfg" --list "$@")
n=$(echo "$list" | grep -vc '^#')
results=$(echo "$list" | sed -n 's/^# results: //p')
echo "$list"
job=$(sbatch --parsable --array=0-$((n - 1)) "$0" "$cfg" "$@")
echo "submitted array job $job: $n cases, results in $results"
report=$(sbatch --parsable --dependency=afterany:"${job%%;*}" --job-name=gsolve-report \
    --ntasks=1 --time=00:15:00 --output=gsolve-report-%j.out \
    --wrap="$(printf '%q report %q' "$gsolve" "$results")")
echo "submitted report job $report (after $job): tables and plots in $results"

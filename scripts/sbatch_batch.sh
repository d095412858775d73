#!/usr/bin/env bash
# scripts/sbatch_batch.sh [SBATCH OPTIONS] CONFIG [SBATCH OPTIONS] [GSOLVE OPTIONS] [-- GSOLVE OPTIONS]
# A gsolve batch as a SLURM job array, one case per array task, then the report.
#
# Run it from a login node (no SLURM job around it): it finds gsolve, counts the cases (gsolve
# CONFIG --list), submits itself as an array of that size, and a report job that runs when the
# array is done. Inside an array task it runs case $SLURM_ARRAY_TASK_ID (gsolve picks it up).
# Results go to batch.results of CONFIG (relative to the submission folder); rerunning the
# script skips what is already recorded (add --force to run it again).
#   scripts/sbatch_batch.sh configs/batch.cfg
#   scripts/sbatch_batch.sh configs/batch.cfg --partition=debug --account=abc --set solver.rtol=1e-6
#   GSOLVE=/opt/gsolve/bin/gsolve scripts/sbatch_batch.sh -p gpu -t 2:00:00 configs/batch.cfg
#
# Options: gsolve's own (--set KEY=VALUE, --set=KEY=VALUE, --force) and everything after `--`
# go to gsolve; every other option is sbatch's (partition, account, time, qos, gres ...) and is
# given to both the array and the report job. An sbatch option written apart from its value
# (-p gpu, --time 10) takes the next word. --export=NONE or a list of variables keeps its
# meaning for the tasks, with GSOLVE added.
#
# gsolve is found when the script is submitted, in this order: $GSOLVE, gsolve on PATH, then
# build/gsolve of the checkout holding this script; its absolute path goes to the tasks in the
# environment (SLURM runs a spooled copy of this script, so the tasks cannot find it from their
# own location). A task started without it (sbatch --array=0-2 scripts/sbatch_batch.sh CONFIG by
# hand) looks for gsolve on PATH, then build/gsolve of the submission folder.
#SBATCH --job-name=gsolve-batch
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=8
#SBATCH --time=01:00:00
#SBATCH --output=gsolve-batch-%A_%a.out
set -euo pipefail
me=sbatch_batch.sh
usage() {
    echo "usage: scripts/sbatch_batch.sh [SBATCH OPTIONS] CONFIG [SBATCH OPTIONS]" \
        "[--set KEY=VALUE ...] [--force] [-- GSOLVE OPTIONS]" >&2
    exit 2
}

# sbatch options that take no value (all others take one: --opt=value or --opt value)
flag_option() {
    case "$1" in
    --exclusive | --requeue | --no-requeue | --hold | -H | --overcommit | -O | --parsable | \
        --test-only | --wait | -W | --verbose | -v | --quiet | -Q | --contiguous | --spread-job | \
        --use-min-nodes | --no-kill | -k | --ignore-pbs | --get-user-env | --reboot | --oversubscribe | \
        -s | --kill-on-invalid-dep=* | --nice) return 0 ;;
    esac
    return 1
}

cfg=""
export_spec=""
sb_opts=()
gs_opts=()
while [ $# -gt 0 ]; do
    a=$1
    shift
    case "$a" in
    --) gs_opts+=("$@"); break ;;
    --set) [ $# -ge 1 ] || { echo "$me: --set needs KEY=VALUE" >&2; exit 2; }
        gs_opts+=("$a" "$1"); shift ;;
    --set=* | --force) gs_opts+=("$a") ;;
    --case | --case=* | --list)
        echo "$me: $a: the array runs every case (one a task); run 'gsolve CONFIG $a' directly" >&2
        exit 2 ;;
    -h | --help) usage ;;
    --export=*) export_spec=${a#--export=} ;; # joined with gsolve's path below
    --export) [ $# -ge 1 ] || { echo "$me: sbatch option $a needs a value" >&2; exit 2; }
        export_spec=$1; shift ;;
    --*=* | -?) if [ "${#a}" = 2 ] && ! flag_option "$a"; then
            [ $# -ge 1 ] || { echo "$me: sbatch option $a needs a value" >&2; exit 2; }
            sb_opts+=("$a" "$1"); shift
        else
            sb_opts+=("$a")
        fi ;;
    -?*) if [[ "$a" == --* ]] && ! flag_option "$a" && [ $# -ge 1 ] && [[ "$1" != -* ]] &&
            { [ -n "$cfg" ] || [ $# -ge 2 ]; }; then
            sb_opts+=("$a" "$1"); shift # --time 10 (the value apart)
        else
            sb_opts+=("$a") # -p1, -t10: an option glued to its value; or a flag
        fi ;;
    *) if [ -z "$cfg" ]; then cfg=$a; else
            echo "$me: unexpected '$a' (one CONFIG; gsolve options after --)" >&2
            exit 2
        fi ;;
    esac
done
[ -n "$cfg" ] || usage

# Absolute path of an executable named or found: $1 a path or a command name.
resolve() {
    local p
    p=$(command -v "$1" 2>/dev/null) || return 1
    [ -x "$p" ] || return 1
    case "$p" in /*) ;; *) p=$(cd "$(dirname "$p")" && pwd)/$(basename "$p") ;; esac
    echo "$p"
}

if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
    # an array task: gsolve reads SLURM_ARRAY_TASK_ID; exit 3 (some run did not converge) is a
    # recorded result, not a failed task
    gsolve=""
    for c in "${GSOLVE:-}" gsolve "${SLURM_SUBMIT_DIR:-$PWD}/build/gsolve" "$PWD/build/gsolve"; do
        [ -n "$c" ] && gsolve=$(resolve "$c") && break
    done
    if [ -z "$gsolve" ]; then
        echo "$me: task $SLURM_ARRAY_TASK_ID: gsolve not found (GSOLVE='${GSOLVE:-}', not on" \
            "PATH, no build/gsolve in ${SLURM_SUBMIT_DIR:-$PWD}): submit with" \
            "scripts/sbatch_batch.sh (it passes gsolve's path) or set GSOLVE=/path/to/gsolve" >&2
        exit 2
    fi
    code=0
    "$gsolve" "$cfg" ${gs_opts[@]+"${gs_opts[@]}"} || code=$?
    [ "$code" = 3 ] && code=0
    exit "$code"
fi

# submission: find gsolve now, where this script really is
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gsolve=""
if [ -n "${GSOLVE:-}" ]; then
    gsolve=$(resolve "$GSOLVE") || { echo "$me: GSOLVE=$GSOLVE is not an executable" >&2; exit 2; }
else
    gsolve=$(resolve gsolve) || gsolve=$(resolve "$here/build/gsolve") || {
        echo "$me: gsolve not found: not on PATH and no $here/build/gsolve (build it:" \
            "scripts/setup.sh build, or set GSOLVE=/path/to/gsolve)" >&2
        exit 2
    }
fi
command -v sbatch >/dev/null || { echo "$me: sbatch not found: run this on a SLURM login node" >&2; exit 2; }
[ -f "$cfg" ] || { echo "$me: cannot open config '$cfg'" >&2; exit 2; }
cfg=$(cd "$(dirname "$cfg")" && pwd)/$(basename "$cfg")

list=$("$gsolve" "$cfg" --list ${gs_opts[@]+"${gs_opts[@]}"})
n=$(echo "$list" | grep -vc '^#')
results=$(echo "$list" | sed -n 's/^# results: //p')
echo "$list"
echo "gsolve: $gsolve"
# gsolve's path joins the user's --export: NONE (only SLURM_* then) or a list keep their meaning
case "$export_spec" in
"") task_export=ALL,GSOLVE=$gsolve ;;
NONE | NIL) task_export=GSOLVE=$gsolve ;;
*) task_export=$export_spec,GSOLVE=$gsolve ;;
esac
rep_opts=(${sb_opts[@]+"${sb_opts[@]}"})
[ -n "$export_spec" ] && rep_opts+=("--export=$export_spec") # the report job's as given
job=$(GSOLVE=$gsolve sbatch --parsable --export="$task_export" --array=0-$((n - 1)) \
    ${sb_opts[@]+"${sb_opts[@]}"} "${BASH_SOURCE[0]}" "$cfg" ${gs_opts[@]+"${gs_opts[@]}"})
echo "submitted array job $job: $n cases, results in $results"
report=$(sbatch --parsable --dependency=afterany:"${job%%;*}" --job-name=gsolve-report \
    --ntasks=1 --time=00:15:00 --output=gsolve-report-%j.out ${rep_opts[@]+"${rep_opts[@]}"} \
    --wrap="$(printf '%q report %q' "$gsolve" "$results")")
echo "submitted report job $report (after $job): tables and plots in $results"

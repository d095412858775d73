#!/usr/bin/env bash
# test_sbatch.sh GSOLVE SRCDIR WORKDIR: scripts/sbatch_batch.sh as SLURM runs it, through the
# stand-in sbatch of tests/cli/slurm (it spools the job script and runs the array's tasks from
# the spooled copy): gsolve found at submission and passed to the tasks, sbatch options apart
# from gsolve's, every case recorded and the report written.
set -u
G=$1; SRC=$2; W=$3
fail() { echo "FAIL: $*"; [ -n "${log:-}" ] && [ -f "$log" ] && { echo "--- $log:"; cat "$log"; }; exit 1; }
rm -rf "$W"; mkdir -p "$W"
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G"); SRC=$(cd "$SRC" && pwd)

# a checkout as users have it: the script in scripts/, gsolve in build/; gsolve not on PATH
repo=$W/repo
mkdir -p "$repo/scripts" "$repo/build" "$W/bin"
cp "$SRC/scripts/sbatch_batch.sh" "$repo/scripts/"
ln -s "$G" "$repo/build/gsolve"
ln -s "$SRC/tests/cli/slurm/sbatch" "$W/bin/sbatch"
export PATH=$W/bin:/usr/bin:/bin
unset GSOLVE SLURM_ARRAY_TASK_ID SLURM_SUBMIT_DIR
export FAKE_SLURM_DIR=$W/slurm

# the batch: two small cases x two formats, in a submission folder of its own
sub=$W/sub
mkdir -p "$sub"
cat > "$sub/b.cfg" <<'CFG'
solver = { type = "cg"; preconditioner = "jacobi"; rtol = 1e-8; max_iters = 500; };
run = { threads = 1; };
output = { verbosity = 1; };
batch = {
  formats = ["csr", "cmrs"];
  repeats = 1;
  results = "res";
  cases = (
    { name = "p8"; generate = { type = "poisson"; size = 8; }; },
    { name = "p10"; generate = { type = "poisson"; size = 10; }; }
  );
};
CFG

check_run() { # $1: results folder; every task exited 0, both cases recorded, the report written
    local res=$1
    [ -f "$FAKE_SLURM_DIR/exit.log" ] || fail "no task ran"
    ! grep -v ' 0$' "$FAKE_SLURM_DIR/exit.log" || fail "a task failed (exit codes above)"
    for c in 000 001; do
        [ -f "$res/case-$c.csv" ] || fail "case $c not recorded in $res"
        [ "$(grep -vc '^case,' "$res/case-$c.csv")" -ge 2 ] || fail "case $c: fewer than 2 rows"
    done
    [ -s "$res/report.md" ] || fail "the report job wrote no $res/report.md"
}

# 1. submitted with the site options after CONFIG (the README's form) and a gsolve --set
cd "$sub" || exit 1
log=$W/submit1.log
"$repo/scripts/sbatch_batch.sh" b.cfg --partition=debug --account abc -t 10 \
    --set solver.rtol=1e-6 > "$log" 2>&1 || fail "submission: exit $?"
grep -q 'submitted array job 1001: 2 cases' "$log" || fail "submission output"
log=$FAKE_SLURM_DIR/sbatch.log
grep -q '^job 1001: .*--array=0-1 .*--partition=debug --account abc -t 10 .*b.cfg --set solver.rtol=1e-6$' \
    "$log" || fail "the array job's arguments: sbatch options before the script, gsolve's after"
grep -q '^job 1002: .*--partition=debug --account abc -t 10 .*--wrap=.* report ' "$log" ||
    fail "the report job did not get the site options"
grep -q -- "--export=ALL,GSOLVE=$repo/build/gsolve" "$log" || fail "gsolve's path not passed to the tasks"
log=$sub/gsolve-batch-1001_0.out
[ -f "$log" ] || fail "no output file of task 0"
grep -q 'unknown option' "$sub"/gsolve-batch-1001_*.out && fail "an sbatch option reached gsolve"
check_run "$sub/res"
grep -q ',1e-06,' "$sub/res/case-000.csv" || fail "--set solver.rtol=1e-6 did not reach the runs"

# 2. sbatch options before CONFIG, a flag among them, gsolve options after --
rm -rf "$FAKE_SLURM_DIR" "$sub/res"
log=$W/submit2.log
"$repo/scripts/sbatch_batch.sh" -p gpu --exclusive b.cfg -- --force > "$log" 2>&1 ||
    fail "submission 2: exit $?"
log=$FAKE_SLURM_DIR/sbatch.log
grep -q '^job 1001: .*-p gpu --exclusive .*b.cfg --force$' "$log" || fail "submission 2's arguments"
check_run "$sub/res"

# 2b. the user's --export (NONE, or a list apart from the option): gsolve's path joins it, so the
# tasks still find gsolve; the report job gets the user's --export as given
for ex in "--export=NONE" "--export FOO=1"; do
    rm -rf "$FAKE_SLURM_DIR" "$sub/res"
    log=$W/submit_export.log
    "$repo/scripts/sbatch_batch.sh" b.cfg $ex > "$log" 2>&1 || fail "submission with $ex: exit $?"
    v=${ex#--export}; v=${v#[= ]}; [ "$v" = NONE ] && want="GSOLVE=" || want="$v,GSOLVE="
    log=$FAKE_SLURM_DIR/sbatch.log
    grep -q -- "^job 1001: .*--export=$want$repo/build/gsolve " "$log" || fail "$ex: the array's --export"
    [ "$(grep '^job 1001: ' "$log" | grep -o -- '--export' | wc -l)" = 1 ] || fail "$ex: --export given twice"
    grep -q -- "^job 1002: .*--export=$v " "$log" || fail "$ex: the report job's --export"
    check_run "$sub/res"
done

# 3. a task run by hand from a spooled copy (no GSOLVE): gsolve from the submission folder's
# build/, else a message and exit 2, never 127
mkdir -p "$W/spool"
cp "$SRC/scripts/sbatch_batch.sh" "$W/spool/slurm_script"
mkdir -p "$sub/build"; ln -sf "$G" "$sub/build/gsolve"
log=$W/task.log
(cd "$sub" && SLURM_ARRAY_TASK_ID=1 bash "$W/spool/slurm_script" b.cfg --force) > "$log" 2>&1 ||
    fail "a task from the spool folder: exit $?"
rm -rf "$sub/build"
(cd "$sub" && SLURM_ARRAY_TASK_ID=1 bash "$W/spool/slurm_script" b.cfg) > "$log" 2>&1
code=$?
[ $code = 2 ] || fail "a task without gsolve: exit $code, expected 2"
grep -q 'gsolve not found' "$log" || fail "a task without gsolve: no message"

# 4. usage errors
log=$W/usage.log
"$repo/scripts/sbatch_batch.sh" b.cfg --case 1 > "$log" 2>&1
[ $? = 2 ] && grep -q 'the array runs every case' "$log" || fail "--case: expected exit 2 and a message"
(PATH=/usr/bin:/bin "$repo/scripts/sbatch_batch.sh" b.cfg) > "$log" 2>&1
[ $? = 2 ] && grep -q 'sbatch not found' "$log" || fail "no sbatch: expected exit 2 and a message"
echo "ok: the array ran from the spool with gsolve passed, options split, report written"

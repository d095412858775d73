#!/usr/bin/env bash
# test_batch_settings.sh GSOLVE SRCDIR WORKDIR: a batch's results keyed by each run's settings:
# the settings column (16 hex digits) and RES/expected.csv (every case and format, also from
# --case N); a changed case setting or --set reruns that case, drops its old rows and says which
# keys changed, in one line; an output path or the report files do not count; --print-config of
# a batch replays the same batch (the same cases, the same settings, so nothing runs again).
set -u
G=$1; SRC=$2; W=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$W"; mkdir -p "$W/cfg" "$W/other"; cd "$W" || exit 1
R=$W/res
cat > cfg/b.cfg <<'CFG'
solver = { type = "cg"; preconditioner = "jacobi"; rtol = 1e-8; max_iters = 2000; };
run = { threads = 1; };
batch = {
  formats = ["csr", "cmrs"];
  repeats = 2;
  results = "res";
  cases = (
    { name = "p8"; generate = { type = "poisson"; size = 8; }; },
    { name = "cd"; generate = { type = "convdiff"; size = 12; stencil = 5; velocity = 5.0; };
      solver = { type = "bicgstab"; }; }
  );
};
CFG
rows() { grep -vc '^case,' "$1"; }

# --case 1 alone: expected.csv still lists both cases x both formats
"$G" cfg/b.cfg --case 1 > run1.log 2>&1 || { cat run1.log; fail "--case 1: exit $?"; }
E=$R/expected.csv
[ -f "$E" ] || fail "no $E"
[ "$(head -1 "$E")" = "case_index,case,requested_format,repeats,warmup,settings" ] || fail "expected.csv header: $(head -1 "$E")"
[ "$(grep -vc '^case_index' "$E")" = 4 ] || fail "expected.csv: $(cat "$E")"
for cf in "0,p8,csr" "0,p8,cmrs" "1,cd,csr" "1,cd,cmrs"; do
    grep -Eq "^$cf,2,0,[0-9a-f]{16}$" "$E" || fail "expected.csv lacks $cf: $(cat "$E")"
done
ls "$R"/expected.csv.tmp* > /dev/null 2>&1 && fail "a temporary manifest left behind"
# every run row carries its settings, the same as expected.csv's for its (case, format)
C=$R/case-001.csv
[ "$(rows "$C")" = 4 ] || fail "case 1: $(rows "$C") rows, expected 4"
for fmt in csr cmrs; do
    h=$(grep "^1,cd,$fmt," "$E" | cut -d, -f6)
    [ "$(grep -c ",$h," "$C")" = 2 ] || fail "case 1 $fmt: rows without the settings $h"
done
[ -s "$R/case-001/csr.settings" ] || fail "no settings text kept for case 1"

# unchanged: nothing runs again; an output path, verbosity or the results folder do not count
out=$("$G" cfg/b.cfg --case 1 --set output.verbosity=1 --set output.csv=x.csv 2>&1) || fail "rerun: exit $?"
echo "$out" | grep -q 'case cd: 4 runs already recorded' || fail "unchanged rerun did not skip: $out"
echo "$out" | grep -q 'settings changed' && fail "an output key counted as a setting: $out"

# a changed setting in the file: the case runs again, its old rows dropped, one line says so
sed -i 's/solver = { type = "bicgstab"; }; }/solver = { type = "gmres"; }; }/' cfg/b.cfg
out=$("$G" cfg/b.cfg --case 1 2>&1) || { echo "$out"; fail "changed case: exit $?"; }
echo "$out"
[ "$(echo "$out" | grep -c 'settings changed')" = 1 ] || fail "not one line about the change"
echo "$out" | grep -q '^gsolve: case cd: settings changed since its runs were recorded (solver.type: "bicgstab" -> "gmres"): 4 recorded runs dropped from .*case-001.csv, run again$' \
    || fail "the change line"
echo "$out" | grep -q 'skipped (recorded before)' && ! echo "$out" | grep -q '0 skipped (recorded before)' && fail "runs skipped after a change"
[ "$(rows "$C")" = 4 ] || fail "case 1 after the change: $(rows "$C") rows, expected 4"
[ "$(cut -d, -f5 "$C" | grep -c '^gmres$')" = 4 ] || fail "case 1 rows are not all gmres: $(cut -d, -f5 "$C")"
grep -q 'bicgstab' "$C" && fail "the bicgstab rows are still in $C"
# --set counts too (with the key named); case 0 is untouched
out=$("$G" cfg/b.cfg --case 1 --set solver.rtol=1e-6 2>&1) || fail "--set rtol: exit $?"
echo "$out" | grep -q '^gsolve: case cd: settings changed .*(solver.rtol: (default) -> 1e-06): 4 recorded runs dropped' || fail "--set change: $out"
[ "$(rows "$C")" = 4 ] || fail "after --set: $(rows "$C") rows"
[ ! -f "$R/case-000.csv" ] || fail "case 0 ran"
# --force runs all again (the rows of the same settings kept beside the new ones)
out=$("$G" cfg/b.cfg --case 1 --set solver.rtol=1e-6 --force 2>&1) || fail "--force: exit $?"
echo "$out" | grep -q 'settings changed' && fail "--force saw a change: $out"
[ "$(rows "$C")" = 8 ] || fail "--force: $(rows "$C") rows, expected 8"

# --print-config of the batch: run from another folder it is the same batch (cases included):
# the same list, the same settings (nothing runs again), and printed again it is unchanged
"$G" cfg/b.cfg --set solver.rtol=1e-6 --print-config > printed.cfg || fail "--print-config: exit $?"
head -1 printed.cfg | grep -q 'the effective batch configuration of' || fail "header: $(head -1 printed.cfg)"
diff <("$G" cfg/b.cfg --list | grep -v "^# results") <(cd other && "$G" ../printed.cfg --list | grep -v "^# results") > /dev/null || fail "--list differs"
out=$(cd other && "$G" ../printed.cfg --case 1 2>&1) || fail "the printed batch: exit $?"
echo "$out" | grep -q 'case cd: 4 runs already recorded' || fail "the printed batch has other settings: $out"
grep -vc '^case_index' "$E" | grep -qx 4 || fail "expected.csv after the printed batch"
(cd other && "$G" ../printed.cfg --print-config) | tail -n +2 > again.cfg
tail -n +2 printed.cfg | diff - again.cfg > /dev/null || fail "printing the printed batch changes it"
# --print-config --case N: that case as one run, and its header says so; it solves as the batch's
"$G" cfg/b.cfg --case 1 --print-config > case1.cfg || fail "--print-config --case 1: exit $?"
head -1 case1.cfg | grep -q "batch case 'cd' of .* as one run's configuration" || fail "case header: $(head -1 case1.cfg)"
out=$(cd other && "$G" ../case1.cfg --set run.backend=host 2>&1) || fail "case 1 as one run: exit $?"
echo "$out" | grep -q "gmres" || fail "case 1 as one run is not gmres"
# cases reordered (their indices shift) or renamed: each case file holds only the rows of the
# case now at its index (the runs of the one that stood there before are dropped, their record
# files being made again), so reordering back neither skips runs nor mixes up their records
mkdir -p ord && cd ord || fail "cd ord"
pcase='{ name = "p8"; generate = { type = "poisson"; size = 8; }; }'
ccase='{ name = "cd"; generate = { type = "convdiff"; size = 12; stencil = 5; velocity = 5.0; }; }'
mk() { printf 'solver = { type = "bicgstab"; preconditioner = "jacobi"; };\nrun = { threads = 1; };\nbatch = { formats = ["csr"]; repeats = 1; results = "res";\n  cases = ( %s, %s ); };\n' "$1" "$2" > s.cfg; }
only() { # case file $1 holds rows of case $2 only, with its rows count $3, and the report agrees
    [ "$(grep -v '^case,' "res/$1" | cut -d, -f1 | sort -u)" = "$2" ] || fail "$1 after reordering: $(cut -d, -f1,3,35 "res/$1")"
    [ "$(grep -v '^case,' "res/$1" | cut -d, -f3 | sort -u)" = "$3" ] || fail "$1: rows of another matrix: $(cut -d, -f1,3,35 "res/$1")"
}
mk "$pcase" "$ccase"; "$G" s.cfg > o1.log 2>&1 || { cat o1.log; fail "order 1: exit $?"; }
mk "$ccase" "$pcase"; "$G" s.cfg > o2.log 2>&1 || { cat o2.log; fail "order 2: exit $?"; }
only case-000.csv cd 144; only case-001.csv p8 512
grep -q 'case-000.csv: 1 run of another case' o2.log || fail "no line on the dropped runs: $(cat o2.log)"
mk "$pcase" "$ccase"; "$G" s.cfg > o3.log 2>&1 || { cat o3.log; fail "order 3: exit $?"; }
only case-000.csv p8 512; only case-001.csv cd 144
[ "$(grep -c '^\[' o3.log)" = 2 ] || fail "reordered back: not both cases ran: $(cat o3.log)"
mk '{ name = "p8b"; generate = { type = "poisson"; size = 8; }; }' "$ccase"
"$G" s.cfg > o4.log 2>&1 || { cat o4.log; fail "renamed: exit $?"; }
only case-000.csv p8b 512
"$G" report res > rep.log 2>&1 || { cat rep.log; fail "report: exit $?"; }
grep -q '^p8,' res/report.csv && fail "the renamed case's old runs reported: $(cut -d, -f1,2,5 res/report.csv)"
# a format removed from the batch: the report leaves its old runs out (expected.csv no longer
# lists them) and says so in one note, instead of ranking them beside the batch's formats
sed -i 's/formats = \["csr"\]/formats = ["csr", "cmrs"]/' s.cfg
"$G" s.cfg > o5.log 2>&1 || { cat o5.log; fail "cmrs added: exit $?"; }
sed -i 's/formats = \["csr", "cmrs"\]/formats = ["csr"]/' s.cfg
"$G" s.cfg > o6.log 2>&1 || { cat o6.log; fail "cmrs removed: exit $?"; }
"$G" report res --no-plots > rep2.log 2>&1 || { cat rep2.log; fail "report after removing cmrs: exit $?"; }
grep -q ',cmrs,' res/report.csv && fail "the removed format reported: $(cut -d, -f1,5 res/report.csv)"
grep -q 'cmrs' res/report_summary.csv && fail "the removed format in the summary"
grep -q '^gsolve: note: .*2 runs of (case, format) pairs that res/expected.csv does not list left out: p8b cmrs, cd cmrs' rep2.log \
    || fail "no note on the runs left out: $(cat rep2.log)"
cd "$W" || exit 1

# a case whose matrix is missing fails; once the file is there, the next run tries it again
# (a failed run is no result), and a matrix file replaced under the same name runs again too
mkdir -p "$W/m" && cd "$W/m" || exit 1
cat > m.cfg <<CFG
solver = { type = "cg"; preconditioner = "jacobi"; };
run = { threads = 1; };
batch = { formats = ["csr"]; repeats = 1; results = "res";
          cases = ( { name = "file"; matrix = "A.mtx"; } ); };
CFG
"$G" m.cfg > m1.log 2>&1
[ $? = 3 ] || { cat m1.log; fail "missing matrix: exit $?, expected 3"; }
"$G" "$SRC/../../configs/quickstart.cfg" --set problem.generate.size=6 --export A.mtx > /dev/null 2>&1 \
    || fail "export of A.mtx"
"$G" m.cfg > m2.log 2>&1 || { cat m2.log; fail "the matrix in place: exit $?, expected 0"; }
grep -q '1 failed run will run again' m2.log || fail "the failed run was not said to run again: $(cat m2.log)"
[ "$(rows res/case-000.csv)" = 1 ] || fail "after the retry: $(rows res/case-000.csv) rows, expected 1"
grep -q ',converged,' res/case-000.csv || fail "the retried run is not recorded as converged"
"$G" m.cfg > m3.log 2>&1 || fail "unchanged: exit $?"
grep -q '1 skipped' m3.log || fail "an unchanged batch ran again: $(tail -2 m3.log)"
"$G" "$SRC/../../configs/quickstart.cfg" --set problem.generate.size=7 --export A.mtx > /dev/null 2>&1 \
    || fail "export of the new A.mtx"
"$G" m.cfg > m4.log 2>&1 || { cat m4.log; fail "a new A.mtx: exit $?"; }
grep -q 'settings changed since its runs were recorded (problem.matrix' m4.log \
    || fail "a matrix file replaced under its name did not run again: $(cat m4.log)"
grep -q ',343,' res/case-000.csv || fail "the rerun did not solve the new 7^3 matrix"
cd "$W" || exit 1
echo "ok"

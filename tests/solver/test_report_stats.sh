#!/usr/bin/env bash
# test_report_stats.sh GSOLVE WORKDIR: the batch report's statistics and plots.
#  - min / median / max over the repeats in the tables (text, report.csv, report.md);
#  - a format that fails (cusparse on the host) and one that does not converge are reported and
#    drawn as failed with their reason; setup and solve stacked, whiskers min..max;
#  - every row carries rtol, ..., threads, version, commit and an ISO 8601 UTC timestamp;
#  - warmup rows are not counted; runs that differ in a setting are pointed out;
#  - a case file of the older 35 columns is read, and appended to in its own columns;
#  - a run killed with SIGKILL is reported as crashed, and a rerun replaces it.
set -u
G=$1; W=$2
fail() { echo "FAIL: $*"; exit 1; }
unquote() { sed 's/"[^"]*"/Q/g' "$@"; }
rm -rf "$W"; mkdir -p "$W"; cd "$W" || exit 1

cat > stats.cfg <<'CFG'
solver = { type = "cg"; preconditioner = "jacobi"; rtol = 1e-8; max_iters = 2000; };
run = { threads = 1; backend = "host"; };
batch = {
  formats = ["csr", "cusparse", "cds"];
  repeats = 3;
  results = "res";
  cases = (
    { name = "p12"; generate = { type = "poisson"; size = 12; }; },
    { name = "short"; generate = { type = "anisotropic"; size = 30; stencil = 5; };
      set = ["solver.max_iters=4"]; }
  );
};
CFG
out=$("$G" stats.cfg 2>&1); code=$?
[ $code = 3 ] || { echo "$out"; fail "batch exit $code, expected 3"; }

# what produced each row
hdr=$(head -1 res/case-000.csv)
echo "$hdr" | grep -q ',record,warmup,rtol,atol,max_iters,restart,threads,amg_strength,' \
    || fail "case CSV header: $hdr"
echo "$hdr" | grep -q ',amg_block_size,amg_method,amg_restriction,version,commit,timestamp,profile,ranks,comm_setup_s,comm_solve_s,device_peak_gb,settings,host,cpu,gpu,gpu_driver,cuda,mpi,hdf5,rhs,x0$' || fail "case CSV header end"
grep -Eq '^p12,.*,case-000/csr-2,0,1e-08,0,2000,[0-9]+,1,(,){20}[0-9][^,]*,[^,]*,20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z,,1,0\.000000,0\.000000,0\.000,[0-9a-f]{16},.*$' res/case-000.csv \
    || fail "the csr repeat 2 row of p12 does not carry rtol, max_iters, threads, version, time"
grep -q '^short,.*,0,1e-08,0,4,' res/case-001.csv || fail "case short: max_iters 4 not recorded"

out=$("$G" report res 2>&1); code=$?
echo "$out"
echo "$out" | grep -q 'median \[min, max\] over the counted repeats' || fail "no spread heading"
echo "$out" | grep -q 'cg + jacobi, rtol 1e-08, max_iters 2000, threads 1, gsolve ' \
    || fail "no settings line"
echo "$out" | grep -Eq '^  csr +3/3 +[0-9]+ ' || fail "csr of p12: 3/3"
echo "$out" | grep -Eq '^  cusparse +0/3 .*3 failed: spmv.format = "cusparse" needs the GPU' \
    || fail "cusparse: not reported as failed with its reason"
echo "$out" | grep -Eq '^  cds +0/3 .*3 of 3 not converged' || fail "case short: not converged"

# report.csv: min <= median <= max for iterations, setup, solve and total
unquote res/report.csv | awk -F, 'NR > 1 && $11 != "-" {
    if (!($17 <= $10 && $10 <= $18)) { print "iterations", $0; bad = 1 }
    if (!($19 <= $11 && $11 <= $20)) { print "setup", $0; bad = 1 }
    if (!($21 <= $12 && $12 <= $22)) { print "solve", $0; bad = 1 }
    if (!($23 <= $13 && $13 <= $24)) { print "total", $0; bad = 1 } }
    END { exit bad }' || fail "report.csv: a median outside its [min, max]"
head -1 res/report.csv | grep -q ',total_min_s,total_max_s,warmup_runs,failure,rtol,threads,' \
    || fail "report.csv header"
grep -q '^short,1,900,.*,csr,csr,3,0,0,.*not converged: max_iters after 4 its,1e-08,1,host,' \
    res/report.csv || fail "report.csv: the failure of csr on short"
grep -q 'Median (min-max) over the counted repeats' res/report.md || fail "report.md heading"
grep -Eq '^\| csr \| 3/3 \| [0-9]+ \| [0-9.]+ \([0-9.]+-[0-9.]+\) \|' res/report.md \
    || grep -Eq '^\| \*\*csr\*\* \(best\) \| 3/3 \| [0-9]+ \| [0-9.]+ ' res/report.md \
    || fail "report.md: csr row with its spread"

# the plots, when a plotting tool is here
if echo "$out" | grep -q '^plots ('; then
    d=res/plots/data
    [ "$(grep -c 'spmv.format' $d/time_failed.dat)" = 2 ] || fail "time_failed.dat: cusparse x 2"
    [ "$(grep -c 'not converged: max_iters' $d/time_failed.dat)" = 2 ] \
        || fail "time_failed.dat: the formats of short"
    [ "$(grep -vc '^#' $d/time_to_solution.dat)" = 2 ] || fail "two bars (p12: csr, cds)"
    awk '!/^#/ && !($4 <= $3 && $3 <= $5 && $2 <= $3) { exit 1 }' $d/time_to_solution.dat \
        || fail "time_to_solution.dat: setup <= total, min <= total <= max"
    if [ -f res/plots/plots.gp ]; then
        grep -q 'with yerrorbars' res/plots/plots.gp || fail "no whiskers in plots.gp"
        grep -q 'with boxes fill solid 1.0' res/plots/plots.gp || fail "setup not stacked"
        grep -q 'title "no converged run"' res/plots/plots.gp || fail "failures not drawn"
        grep -q 'NaN with points pt 2 ps 1.5 lc rgb "red" title "cusparse: failed: ' \
            res/plots/plots.gp || fail "the residual plot's key lacks the failure"
    fi
    for p in time_to_solution p12-residual short-residual; do
        f=res/plots/$p.png
        [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] \
            || fail "$f: not a PNG"
    done
else
    echo "note: no plotting tool here: the plot checks are skipped"
fi

# warmup rows are not counted; runs that differ in a setting are pointed out
mkdir -p warm
{
    head -1 res/case-000.csv
    grep ',case-000/csr-1,' res/case-000.csv |
        awk -F, -v OFS=, '{ $15 = "99.000000"; $32 = "-1"; $35 = "case-000/csr-w1"; $36 = 1; print }'
    grep ',case-000/csr-[123],' res/case-000.csv
} > warm/case-000.csv
out=$("$G" report warm --no-plots 2>&1) || fail "report of warm: $out"
echo "$out" | grep -q '1 warmup run not counted' || fail "the warmup run is not mentioned: $out"
echo "$out" | grep -Eq '^  csr +3/3 ' || fail "warmup counted: $out"
awk -F, 'NR == 2 { exit !($24 < 1) }' warm/report.csv || fail "the warmup's 99 s is in the spread"
awk -F, -v OFS=, -v n="$(wc -l < warm/case-000.csv)" 'NR == n { $41 = 4 } { print }' \
    warm/case-000.csv > warm/x && mv warm/x warm/case-000.csv
out=$("$G" report warm --no-plots 2>&1) || fail "report of warm: $out"
echo "$out" | grep -q 'note: the runs differ in threads' || fail "threads differ: not noted"

# a case file of the older 35 columns: read; appended to, it is widened (its columns in their
# places, the new ones after them), and its rows, recorded without settings, run again
cat > old.cfg <<'CFG'
run = { threads = 1; backend = "host"; };
batch = { formats = ["csr"]; repeats = 2; results = "old";
  cases = ( { name = "p8"; generate = { type = "poisson"; size = 8; }; } ); };
CFG
"$G" old.cfg > /dev/null 2>&1 || fail "batch old.cfg"
cut -d, -f1-35 old/case-000.csv > old/x && mv old/x old/case-000.csv
out=$("$G" report old --no-plots 2>&1) || fail "report of an old file: $out"
echo "$out" | grep -Eq '^  csr +2/2 ' || fail "old file: $out"
"$G" old.cfg --force > /dev/null 2>&1 || fail "batch appending to an old file"
n=$(head -1 old/case-000.csv | awk -F, '{ print NF }')
[ "$n" -gt 35 ] && head -1 old/case-000.csv | cut -d, -f36- | grep -q ',settings,' || fail "old file not widened"
sed 's/"[^"]*"/Q/g' old/case-000.csv | awk -F, -v n="$n" '{ if (NF != n) exit 1 }' || fail "rows of another width in an old file"
[ "$(wc -l < old/case-000.csv)" = 3 ] || fail "old file: expected a header and 2 rows"
out=$("$G" report old --no-plots 2>&1) || fail "report of an old file: $out"
echo "$out" | grep -q 'wrong number of fields' && fail "old file: rows dropped: $out"
echo "$out" | grep -Eq '^  csr +2/2 ' || fail "old file after --force: $out"

# a run killed by SIGKILL: reported as crashed with when and where; the rerun replaces it
cat > crash.cfg <<'CFG'
run = { threads = 1; backend = "host"; };
solver = { rtol = 1e-10; };
batch = { formats = ["csr"]; repeats = 12; results = "crash";
  cases = ( { name = "p40"; generate = { type = "poisson"; size = 40; }; } ); };
CFG
# under way: a marker whose run has no row (a kill between the row and the marker's removal
# leaves a stale one, which the report ignores and the rerun removes)
under_way() {
    for m in crash/case-000/*.running; do
        [ -e "$m" ] || continue
        grep -q ",case-000/$(basename "$m" .running)," crash/case-000.csv 2>/dev/null || return 0
    done
    return 1
}
# the process is stopped (SIGSTOP, and seen stopped) before it is looked at, so what is seen is
# what the kill hits: no race with the run, however slow the machine
stopped() {
    for _ in $(seq 1 500); do
        [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = T ] && return 0
        sleep 0.002
    done
    return 1
}
killed=0
for try in $(seq 1 10); do
    "$G" crash.cfg > crash.log 2>&1 &
    pid=$!
    for _ in $(seq 1 4000); do
        kill -0 $pid 2>/dev/null || break
        if [ -s crash/case-000.csv ] && kill -STOP $pid 2>/dev/null; then
            if stopped $pid && under_way; then
                kill -KILL $pid 2>/dev/null
                killed=1
                break
            fi
            kill -CONT $pid 2>/dev/null
        fi
        sleep 0.005
    done
    kill -KILL $pid 2>/dev/null
    wait $pid 2>/dev/null
    [ $killed = 1 ] && break
done
[ $killed = 1 ] || fail "no run was caught under way in 10 tries"
out=$("$G" report crash --no-plots 2>&1) || fail "report after a crash: $out"
echo "$out" | grep -q 'failed: crashed: the run started 20[0-9-]*T[0-9:]*Z (pid [0-9]* on ' \
    || fail "the crash is not reported: $out"
grep -q 'crashed' crash/report.csv || fail "report.csv: no crash"
out=$("$G" crash.cfg 2>&1); code=$?
[ $code = 0 ] || fail "rerun after the crash: exit $code: $out"
ls crash/case-000/*.running > /dev/null 2>&1 && fail "a run marker is left after the rerun"
out=$("$G" report crash --no-plots 2>&1) || fail "report after the rerun"
echo "$out" | grep -q crashed && fail "the crash is still reported after the rerun: $out"
echo "$out" | grep -Eq '^  csr +12/12 ' || fail "after the rerun: $out"
# a stale marker (the process killed after its run's row was in): not a crash, and the next
# batch run removes it
printf 'case,case_index,requested_format,repeat,warmup,started,pid,host\n"p40",0,csr,5,0,2026-01-01T00:00:00Z,1,h\n' \
    > crash/case-000/csr-5.running
out=$("$G" report crash --no-plots 2>&1) || fail "report with a stale marker"
echo "$out" | grep -q crashed && fail "a stale marker reported as a crash: $out"
echo "$out" | grep -Eq '^  csr +12/12 ' || fail "with a stale marker: $out"
"$G" crash.cfg > /dev/null 2>&1 || fail "batch run with a stale marker"
[ -e crash/case-000/csr-5.running ] && fail "the stale marker is left after a batch run"
echo "ok"

#!/usr/bin/env bash
# test_report_summary.sh GSOLVE WORKDIR: what `gsolve report` says over a whole batch, on result
# folders written by hand (no batch runs):
#  - the summary across cases: per format the cases converged, the wins and the geometric-mean
#    speedup over the reference (the batch's first format: expected.csv's first, else the first
#    seen), printed, in report.md and report_summary.csv; the speedup panel's data;
#  - time to solution on a log axis draws setup as a dot, not as a stacked share (linear: stacked);
#  - the runs expected.csv lists and the results lack: not run, N of M repeats, crashed, recorded
#    under other settings; nothing said without expected.csv;
#  - one (case, format) under two settings hashes: two entries labelled with the hash, one warning;
#  - a fallback named by what ran ("csr (asked cds)") and ranked as such;
#  - GSOLVE_PLOTTER=none: no plots, exit 0; no plotting tool found: a note, exit 0; a named one
#    that cannot run: exit 2.
set -u
G=$1; W=$2
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$W"; mkdir -p "$W"; cd "$W" || exit 1

HDR=case,case_index,rows,nnz,solver,preconditioner,format,requested_format,repeat,status,message,record,warmup,iterations,reason,converged,setup_s,solve_s,total_s,rtol,threads,backend,device,settings
# row CASE INDEX REQUESTED RAN REPEAT SETUP_S TOTAL_S [SETTINGS]: a converged run
row() {
    local solve
    solve=$(awk -v s="$6" -v t="$7" 'BEGIN { printf "%.6f", t - s }')
    echo "$1,$2,100,460,cg,jacobi,$4,$3,$5,converged,,,0,20,rtol,1,$6,$solve,$7,1e-08,1,host,cpu,${8:-}"
}
# a result folder of three cases x csr, cmrs, cds, one repeat each; times (s) span 0.5 ms..100 ms
summary_results() {
    mkdir -p "$1"
    { echo $HDR; row a 0 csr csr 1 0.001 0.010; row a 0 cmrs cmrs 1 0.0005 0.005
      row a 0 cds cds 1 0.002 0.020; } > "$1/case-000.csv"
    { echo $HDR; row b 1 csr csr 1 0.0146 0.100; row b 1 cmrs cmrs 1 0.005 0.050
      row b 1 cds cds 1 0.0025 0.025; } > "$1/case-001.csv"
    { echo $HDR; row c 2 csr csr 1 0.0001 0.001; row c 2 cmrs cmrs 1 0.0004 0.004
      row c 2 cds cds 1 0.00005 0.0005; } > "$1/case-002.csv"
}

# ---- the summary across cases; speedups: cmrs 2, 2, 0.25 (geomean 1); cds 0.5, 4, 2 (4^(1/3))
summary_results sum
out=$("$G" report sum 2>&1); code=$?
echo "$out"
[ $code = 0 ] || fail "report sum: exit $code"
echo "$out" | grep -q '^summary over 3 cases: reference csr (the batch.s first format)' \
    || fail "no summary naming its reference"
echo "$out" | grep -Eq '^  csr +3/3 +0 +1\.00x +\(3 cases\)$' || fail "summary: csr"
echo "$out" | grep -Eq '^  cmrs +3/3 +1 +1\.00x +\(3 cases\)$' || fail "summary: cmrs"
echo "$out" | grep -Eq '^  cds +3/3 +2 +1\.59x +\(3 cases\)$' || fail "summary: cds"
echo "$out" | grep -Eq 'missing runs|expected \(expected.csv\)' && fail "no expected.csv: said something"
grep -qx 'format,requested_format,ran_format,settings,reference,cases,cases_run,cases_converged,wins,speedup_cases,geomean_speedup' \
    sum/report_summary.csv || fail "report_summary.csv header"
grep -qx 'cds,cds,cds,,csr,3,3,3,2,3,1.5874' sum/report_summary.csv || fail "report_summary.csv: cds"
grep -qx 'cmrs,cmrs,cmrs,,csr,3,3,3,1,3,1.0000' sum/report_summary.csv || fail "report_summary.csv: cmrs"
grep -q '^## Summary across cases' sum/report.md || fail "report.md: no summary"
grep -qx '| cds | 3/3 | 2 | 1.59x | 3 |' sum/report.md || fail "report.md: cds summary row"
head -1 sum/report.csv | grep -q ',speedup_vs_ref,.*,settings_differ,reference,settings,label$' \
    || fail "report.csv header"
if echo "$out" | grep -q '^plots (gnuplot)'; then
    gp=sum/plots/plots.gp
    grep -A3 'set output "time_to_solution.png"' $gp | grep -q 'log axis; dot: median setup' \
        || fail "a log axis not said"
    sed -n '/time_to_solution.png/,/^unset logscale/p' $gp | grep -q 'with boxes fill solid 1.0' \
        && fail "setup stacked on a log axis"
    grep -q 'title "setup (median)"' $gp || fail "no setup dots on the log axis"
    # speedup.dat: cases at x 0..2, the geometric means at x = 3 (label 1 cmrs, 2 cds)
    awk '!/^#/ && $1 > 2.5 && $3 == 2 { found = ($2 == 1.5874) } END { exit !found }' \
        sum/plots/data/speedup.dat || fail "speedup.dat: cds geomean"
    awk '!/^#/ && $1 < 0.5 && $3 == 1 { found = ($2 == 2) } END { exit !found }' \
        sum/plots/data/speedup.dat || fail "speedup.dat: cmrs on case a"
    grep -q '^0\.[0-9]* [0-9.e-]* 0$' sum/plots/data/speedup.dat && fail "the reference drawn"
    [ "$(head -c 8 sum/plots/speedup.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] \
        || fail "speedup.png: not a PNG"
    echo "$out" | grep -q 'sum/plots/speedup.png' || fail "speedup.png not listed"
    # a narrow range: linear axis, setup stacked under solve
    mkdir -p lin && { echo $HDR; row a 0 csr csr 1 0.001 0.010; row a 0 cds cds 1 0.002 0.008; } \
        > lin/case-000.csv
    "$G" report lin > lin.out 2>&1 || fail "report lin: $(cat lin.out)"
    grep -q 'with boxes fill solid 1.0' lin/plots/plots.gp || fail "linear axis: setup not stacked"
    grep -q 'setup (median)' lin/plots/plots.gp && fail "linear axis: setup dots"
else
    echo "note: no gnuplot here: the plot checks are skipped"
fi

# ---- the reference: expected.csv's first format
summary_results ref
{ echo case_index,case,requested_format,repeats,warmup,settings
  for c in 0:a 1:b 2:c; do for f in cmrs csr cds; do echo "${c%%:*},${c#*:},$f,1,0,"; done; done
} > ref/expected.csv
out=$("$G" report ref --no-plots 2>&1) || fail "report ref: $out"
echo "$out" | grep -q '^summary over 3 cases: reference cmrs (the batch.s first format)' \
    || fail "the reference is not expected.csv's first format: $out"
echo "$out" | grep -Eq '^  format +runs .* vs cmrs +status$' || fail "the case table: not vs cmrs"
echo "$out" | grep -Eq '^  cds +3/3 +2 +1\.59x +\(3 cases\)$' || fail "summary vs cmrs: cds"
echo "$out" | grep -q '^runs: all 9 expected (expected.csv) recorded$' || fail "all recorded: $out"

# ---- runs expected and missing: 3 cases x csr, cds x 3 repeats
mkdir -p miss/case-001
H0=aaaaaaaaaaaaaaaa; H1=bbbbbbbbbbbbbbbb; HX=cccccccccccccccc
{ echo case_index,case,requested_format,repeats,warmup,settings
  echo 0,p0,csr,3,0,$H0; echo 0,p0,cds,3,0,$HX; echo 1,p1,csr,3,0,$H0; echo 1,p1,cds,3,0,$H1
  echo 2,p2,csr,3,0,$H0; echo 2,p2,cds,3,0,$H1; } > miss/expected.csv
{ echo $HDR; for r in 1 2 3; do row p0 0 csr csr $r 0.001 0.010 $H0; done
  for r in 1 2 3; do row p0 0 cds cds $r 0.001 0.008 $H1; done; } > miss/case-000.csv
{ echo $HDR; for r in 1 2 3; do row p1 1 csr csr $r 0.001 0.010 $H0; done
  row p1 1 cds cds 1 0.001 0.008 $H1; } > miss/case-001.csv
printf 'case,case_index,requested_format,repeat,warmup,started,pid,host\n"p1",1,cds,2,0,2026-01-01T00:00:00Z,4242,nodeA\n' \
    > miss/case-001/cds-2.running
out=$("$G" report miss --no-plots 2>&1); code=$?
echo "$out"
[ $code = 0 ] || fail "report miss: exit $code"
echo "$out" | grep -q '^missing runs: 11 of 18 expected (expected.csv) not recorded:$' \
    || fail "missing runs: the count"
echo "$out" | grep -qx '  case 0 p0, cds: 0 of 3 repeats, 3 recorded under other settings' \
    || fail "missing: p0 cds under other settings"
echo "$out" | grep -qx '  case 1 p1, cds: 1 of 3 repeats, 1 crashed' || fail "missing: p1 cds"
echo "$out" | grep -qx '  case 2 p2, csr: not run' || fail "missing: p2 csr"
echo "$out" | grep -qx '  case 2 p2, cds: not run' || fail "missing: p2 cds"
[ "$(echo "$out" | grep -c '^  case ')" = 4 ] || fail "missing: listed more than 4"
echo "$out" | grep -Eq '^  cds +1/2 .*1 failed: crashed: the run started 2026-01-01T00:00:00Z' \
    || fail "p1 cds: the crash not in the case table"
echo "$out" | grep -q '^summary over 3 cases' || fail "summary: the cases of expected.csv"
grep -q '^11 of the 18 runs that expected.csv lists are not recorded:' miss/report.md \
    || fail "report.md: missing runs"
grep -qx '| 1 p1 | cds | 1 of 3 repeats, 1 crashed |' miss/report.md || fail "report.md: p1 cds"
grep -qx '| 2 p2 | csr | not run |' miss/report.md || fail "report.md: p2 csr"
# older results (no expected.csv): as before, nothing said of runs expected
rm miss/expected.csv
out=$("$G" report miss --no-plots 2>&1) || fail "report miss without expected.csv: $out"
echo "$out" | grep -Eq 'missing runs|not run|expected' && fail "without expected.csv: $out"
grep -q 'Missing runs' miss/report.md && fail "report.md without expected.csv: missing runs"

# ---- one (case, format) under two settings hashes: apart, labelled, one warning line
mkdir -p split
A=1a2b3c4d00000000; B=5e6f7a8b00000000
{ echo $HDR; row s0 0 csr csr 1 0.001 0.010 $A; row s0 0 csr csr 2 0.001 0.011 $A
  row s0 0 csr csr 1 0.001 0.020 $B; row s0 0 csr csr 2 0.001 0.021 $B
  row s0 0 cds cds 1 0.001 0.030 $A; } > split/case-000.csv
{ echo $HDR; row s1 1 csr csr 1 0.001 0.010 $A
  row s1 1 cds cds 1 0.001 0.008 $A; row s1 1 cds cds 1 0.001 0.009 $B; } > split/case-001.csv
out=$("$G" report split --no-plots 2>&1) || fail "report split: $out"
echo "$out"
echo "$out" | grep -Eq '^  csr \[settings 1a2b3c4d\] +2/2 .*10\.5 \[10\.0, 11\.0\]' \
    || fail "split: csr under A"
echo "$out" | grep -Eq '^  csr \[settings 5e6f7a8b\] +2/2 .*20\.5 \[20\.0, 21\.0\]' \
    || fail "split: csr under B"
echo "$out" | sed -n '/^case s0/,/^$/p' | grep -Eq '^  csr +[0-9]' && fail "split: csr mixed"
echo "$out" | grep -Eq '^  cds +1/1 ' || fail "split: cds of s0 (one hash) without a label"
[ "$(echo "$out" | grep -c 'warning')" = 1 ] || fail "split: not one warning line"
echo "$out" | grep -q '^gsolve: warning: 2 (case, format) with runs under more than one settings hash (s0 csr, s1 cds)' \
    || fail "split: the warning"
grep -q '^s0,0,100,460,csr,csr,2,2,0,.*,1a2b3c4d00000000,csr \[settings 1a2b3c4d\]$' \
    split/report.csv || fail "report.csv: the split label"

# ---- a fallback: named by what ran, ranked as such, never as the format asked for
mkdir -p fb
{ echo $HDR; row f0 0 csr csr 1 0.001 0.010; row f0 0 csr csr 2 0.001 0.010
  row f0 0 cds csr 1 0.001 0.009; row f0 0 cds csr 2 0.001 0.009; } > fb/case-000.csv
{ echo $HDR; row f1 1 csr csr 1 0.001 0.010; row f1 1 cds cds 1 0.001 0.008; } > fb/case-001.csv
out=$("$G" report fb --no-plots 2>&1) || fail "report fb: $out"
echo "$out"
echo "$out" | grep -Eq '^  csr \(asked cds\) +2/2 .*  ok  <- best$' || fail "fallback: label or best"
echo "$out" | sed -n '/^case f0/,/^$/p' | grep -Eq '^  cds ' && fail "fallback ranked as cds"
echo "$out" | grep -Eq '^  csr \(asked cds\) +1/2 +1 +1\.11x' || fail "summary: the fallback apart"
echo "$out" | grep -Eq '^  cds +1/2 +1 +1\.25x' || fail "summary: cds only where it ran"
grep -q '| \*\*csr (asked cds)\*\* (best) | 2/2 |' fb/report.md || fail "report.md: fallback"

# ---- the plotter: none; none found; a named one that cannot run; an unknown one
mkdir -p nobin
rm -rf fb/plots
out=$(GSOLVE_PLOTTER=none "$G" report fb 2>&1); code=$?
[ $code = 0 ] || fail "GSOLVE_PLOTTER=none: exit $code: $out"
echo "$out" | grep -q '^tables: fb/report.csv' || fail "GSOLVE_PLOTTER=none: no tables"
echo "$out" | grep -Eq '^plots|error|no plotting tool' && fail "GSOLVE_PLOTTER=none: $out"
[ -e fb/plots ] && fail "GSOLVE_PLOTTER=none: plots drawn"
out=$(env -u GSOLVE_PLOTTER PATH="$W/nobin" "$G" report fb 2>&1); code=$?
[ $code = 0 ] || fail "no plotter found: exit $code: $out"
echo "$out" | grep -q '^gsolve: note: no plotting tool found (gnuplot, or python3 with matplotlib): tables written, plots skipped' \
    || fail "no plotter found: no note: $out"
echo "$out" | grep -q '^tables: fb/report.csv' || fail "no plotter found: no tables"
out=$(GSOLVE_PLOTTER=gnuplot PATH="$W/nobin" "$G" report fb 2>&1); code=$?
[ $code = 2 ] || fail "GSOLVE_PLOTTER=gnuplot, none installed: exit $code: $out"
echo "$out" | grep -q '^gsolve: error: GSOLVE_PLOTTER = "gnuplot": gnuplot not found' \
    || fail "GSOLVE_PLOTTER=gnuplot, none installed: $out"
out=$(GSOLVE_PLOTTER=gnuplott "$G" report fb 2>&1); code=$?
[ $code = 2 ] || fail "GSOLVE_PLOTTER=gnuplott: exit $code"
echo "$out" | grep -q 'expected gnuplot, matplotlib or none' || fail "GSOLVE_PLOTTER=gnuplott: $out"
# a case file that is no gsolve result file: one line naming it and what was expected, exit 2
# (it was read as no runs, its case reported as not run); an empty one is no runs
for bad in 'garbage' 'case,matrix
foo,bar'; do
    printf '%s\n' "$bad" > fb/case-002.csv
    out=$("$G" report fb --no-plots 2>&1); code=$?
    [ $code = 2 ] || fail "a case file that is no result file: exit $code: $out"
    [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q '^gsolve: error: fb/case-002.csv is not a gsolve result file (no format column)' \
        || fail "a case file that is no result file: $out"
done
: > fb/case-002.csv
"$G" report fb --no-plots > /dev/null 2>&1 || fail "an empty case file: exit $?"
rm -f fb/case-002.csv
echo "ok"

#!/usr/bin/env bash
# test_batch.sh GSOLVE SRCDIR WORKDIR: a batch of 3 cases x 3 formats on the host; checks the
# progress lines, the CSV rows, --list, --case, the skip on rerun, a failed case recorded while
# the batch goes on, the report (tables, best marked) and the PNG plots.
set -u
G=$1; SRC=$2; W=$3
fail() { echo "FAIL: $*"; exit 1; }
unquote() { sed 's/"[^"]*"/Q/g' "$@"; } # a quoted field (a GPU name holds a comma) as one word
rm -rf "$W"; mkdir -p "$W"; cd "$W" || exit 1
R=$W/res
ncols=79

out=$("$G" "$SRC/batch_small.cfg" --set batch.results="$R" 2>&1); code=$?
echo "$out"
[ $code = 0 ] || fail "batch exit $code, expected 0"
echo "$out" | grep -Eq '^\[9/9\] case convdiff2d-30, format cds( \(ran csr\))?: [0-9]+ its, [0-9.]+ ms$' \
    || fail "no progress line [9/9]"
echo "$out" | grep -q '<- best' || fail "no best format in the final table"
for i in 0 1 2; do
    f=$R/case-00$i.csv
    [ -f "$f" ] || fail "$f missing"
    [ "$(wc -l < "$f")" = 4 ] || fail "$f: expected a header and 3 rows"
    [ -z "$(tail -c 1 "$f")" ] || fail "$f does not end with a newline"
    unquote "$f" | awk -F, -v n=$ncols 'NF != n { exit 1 }' || fail "$f: a row without $ncols fields"
    for fmt in csr cmrs cds; do
        unquote "$f" | grep -Eq ",$i,$fmt,1,converged,[^,]*,case-00$i/$fmt-1,0,1e-08,0,2000,30,1,,.*,[0-9T:-]+Z,,1,0\.000000,0\.000000,0\.000,[0-9a-f]{16},[^,]+,[^,]+,none,[^,]+,[^,]+,[^,]+,[0-9.]+,(auto|Ax),auto$" \
            || fail "$f: no converged row for $fmt"
        [ -s "$R/case-00$i/$fmt-1.h5" ] || fail "HDF5 record case-00$i/$fmt-1.h5 missing"
        [ -s "$R/case-00$i/$fmt-1.history.csv" ] || fail "history case-00$i/$fmt-1 missing"
    done
done
head -1 "$R/case-000.csv" | grep -q '^case,matrix,rows,nnz,solver,preconditioner,format,levels,iterations,reason,converged,rel_residual,setup_s,solve_s,total_s,backend,device,cols,read_s,error,formats,operator_complexity,grid_complexity,strength_s,aggregation_s,prolongator_s,rap_s,convert_s,coarse_s,case_index,requested_format,repeat,status,message,record,warmup,rtol,atol,max_iters,restart,threads,amg_strength,amg_theta,amg_aggregation,amg_smoother,amg_cycle,amg_presweeps,amg_postsweeps,amg_chebyshev_degree,amg_coarse_chebyshev_degree,amg_chebyshev_ratio,amg_smoother_omega,amg_prolongator_omega,amg_smooth_prolongator,amg_filter,amg_galerkin,amg_max_levels,amg_coarse_size,amg_block_size,amg_method,amg_restriction,version,commit,timestamp,profile,ranks,comm_setup_s,comm_solve_s,device_peak_gb,settings,host,cpu,gpu,gpu_driver,cuda,mpi,hdf5,rhs,x0$' \
    || fail "CSV header"

# --list, --case, a rerun skips what is recorded
"$G" "$SRC/batch_small.cfg" --list | grep -q '^1 aniso2d-40 matrix ' || fail "--list"
out=$("$G" "$SRC/batch_small.cfg" --set batch.results="$R" --case 1 2>&1); code=$?
[ $code = 0 ] || fail "--case 1 rerun exit $code"
echo "$out" | grep -q 'case aniso2d-40: 3 runs already recorded' || fail "rerun did not skip"
[ "$(wc -l < "$R/case-001.csv")" = 4 ] || fail "rerun added rows"
out=$(SLURM_ARRAY_TASK_ID=2 "$G" "$SRC/batch_small.cfg" --set batch.results="$R" --force 2>&1)
echo "$out" | grep -q '^\[3/3\] case convdiff2d-30' || fail "SLURM_ARRAY_TASK_ID=2 --force"
[ "$(wc -l < "$R/case-002.csv")" = 7 ] || fail "--force did not append 3 rows"
[ "$(wc -l < "$R/case-000.csv")" = 4 ] || fail "SLURM_ARRAY_TASK_ID ran another case"
"$G" "$SRC/batch_small.cfg" --case 3 2>&1 | grep -q 'has 3 cases, numbered 0..2' || fail "--case 3"

# a case whose matrix cannot be read fails once: one line naming the case and the resolved
# path; its runs (2 formats x 2 repeats, no warmup) are recorded as failed; the batch goes on;
# exit 3
mkdir -p "$W/cfgdir"
cat > "$W/cfgdir/fail.cfg" <<'CFG'
batch = { formats = ["csr", "cmrs"]; results = "res_fail"; repeats = 2; warmup = 1;
  cases = ( { matrix = "no_such.mtx"; }, { generate = { type = "poisson"; size = 8; }; } ); };
CFG
out=$("$G" cfgdir/fail.cfg 2>&1); code=$?
echo "$out"
[ $code = 3 ] || fail "batch with a missing matrix: exit $code, expected 3"
[ "$(grep -c ',failed,cannot open' "$W/res_fail/case-000.csv")" = 4 ] || fail "failure not recorded"
[ "$(grep -c '^gsolve: case no_such: ' <<< "$out")" = 1 ] || fail "the missing matrix not said once"
grep -q "^gsolve: case no_such: its problem (matrix $W/cfgdir/no_such.mtx) cannot be read: .*cannot open.*; its 4 pending runs recorded as failed" <<< "$out" \
    || fail "the line does not name the case and the resolved path"
grep -q 'case no_such, format' <<< "$out" && fail "progress lines for the case that cannot be read"
grep -q 'case-000/csr-w1' "$W/res_fail/case-000.csv" && fail "a warmup recorded for a problem not read"
echo "$out" | grep -Eq '^\[12/12\] case poisson3d-8, format cmrs, repeat 2: ' || fail "the batch did not go on"

# the report: tables and plots
out=$("$G" report "$R" 2>&1); code=$?
echo "$out"
[ -s "$R/report.csv" ] && [ -s "$R/report.md" ] || fail "report.csv or report.md missing"
[ "$(wc -l < "$R/report.csv")" = 10 ] || fail "report.csv: expected a header and 9 rows"
[ "$(grep -c '(best)' "$R/report.md")" = 3 ] || fail "report.md: one best format per case"
grep -Eq '^poisson3d-12,0,1728,11232,csr,csr,1,1,0,28.0,[0-9.]+,[0-9.]+,[0-9.]+,1.0000,[01],ok,28,28,([0-9.]+,){6}0,,1e-08,1,host,cpu,[0-9.]+,[^,]*,' "$R/report.csv" \
    || fail "report.csv: the csr row of poisson3d-12"
if [ $code = 2 ] && echo "$out" | grep -q 'no plotting tool found'; then
    echo "SKIPPED the plot checks: no plotting tool (gnuplot or matplotlib) here"
    exit 0
fi
[ $code = 0 ] || fail "report exit $code"
for p in time_to_solution poisson3d-12-residual aniso2d-40-residual convdiff2d-30-residual; do
    f=$R/plots/$p.png
    [ -f "$f" ] || fail "$f missing"
    [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] \
        || fail "$f: not a PNG"
    [ "$(wc -c < "$f")" -gt 5000 ] || fail "$f: only $(wc -c < "$f") bytes"
done
rm -f "$R/report.csv"
GSOLVE_PLOTTER=none "$G" report "$R" > /dev/null 2>&1; code=$?
[ $code = 0 ] || [ $code = 2 ] || fail "report with GSOLVE_PLOTTER=none: exit $code, expected 0 or 2"
[ -s "$R/report.csv" ] || fail "report with GSOLVE_PLOTTER=none: no tables"
echo "ok"

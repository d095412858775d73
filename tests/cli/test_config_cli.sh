#!/usr/bin/env bash
# test_config_cli.sh GSOLVE SRCDIR WORKDIR: the configuration on the command line:
# --help-config KEY and GROUP, a close-key error for an unknown one; --print-config printed,
# replayed from another folder (same iterations, same residual) and printed again unchanged;
# --set with spaces around '='; a folder as the config; --version's commit; the formats' tuning
# keys (from the format registry) listed, checked and printed back; the registries' help lines.
set -u
G=$1; SRC=$2; W=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$W"; mkdir -p "$W/a" "$W/b"; cd "$W" || exit 1

out=$("$G" --help-config amg.theta) || fail "--help-config amg.theta: exit $?"
[ "$(echo "$out" | grep -c '^[a-z]')" = 1 ] || fail "--help-config amg.theta printed more than one key: $out"
echo "$out" | grep -Eq '^amg\.theta +float +default [0-9.]+ +range: 0\.\.1$' || fail "amg.theta entry: $out"
out=$("$G" --help-config amg) || fail "--help-config amg: exit $?"
n=$(echo "$out" | grep -c '^[a-z]'); na=$(echo "$out" | grep -c '^amg\.')
[ "$n" -ge 10 ] && [ "$n" = "$na" ] || fail "--help-config amg: $n keys, $na of them amg.*"
"$G" --help-config solver.max_iters | grep -q 'range: 0\.\.2147483647$' || fail "integer range not printed as integers"
out=$("$G" --help-config amg.thet 2>&1); code=$?
[ $code = 2 ] || fail "--help-config amg.thet: exit $code, expected 2"
echo "$out" | grep -q "^gsolve: error: --help-config amg.thet: no such key or group; close keys: amg.theta" || fail "unknown key: $out"

# the formats' tuning keys, declared by the format registry: listed, checked, stored, printed back
out=$("$G" --help-config spmv) || fail "--help-config spmv: exit $?"
for k in cmrs_h cmrs_sort cmrs_modified suraa_g1 suraa_max_child_threads cds_max_fill cds_block; do
    echo "$out" | grep -q "^spmv\.$k " || fail "--help-config spmv lacks spmv.$k"
done
echo "$out" | grep -Eq '^spmv\.suraa_g1 +string +default "auto"  one of: auto\|dynamic\|block$' || fail "spmv.suraa_g1 entry: $out"
echo "$out" | grep -Eq '^spmv\.cds_max_fill +float +default 0\.25  range: 0\.\.1e\+06$' || fail "spmv.cds_max_fill entry"
P=(--set problem.generate.type=poisson)
out=$("$G" "${P[@]}" --set spmv.cmrs_h=17 2>&1); code=$?
[ $code = 2 ] && echo "$out" | grep -q "spmv.cmrs_h = 17 is out of range 0..16" || fail "spmv.cmrs_h=17: $code $out"
out=$("$G" "${P[@]}" --set spmv.suraa_g1=fast 2>&1); code=$?
[ $code = 2 ] && echo "$out" | grep -q 'spmv.suraa_g1 = "fast" is not one of: auto|dynamic|block' || fail "spmv.suraa_g1=fast: $code $out"
out=$("$G" "${P[@]}" --set spmv.suraa_g1=block --set spmv.cds_max_fill=0.5 --set spmv.cmrs_h=8 --print-config)
echo "$out" | grep -q '^  suraa_g1 = "block";' && echo "$out" | grep -q '^  cds_max_fill = 0.5;' &&
    echo "$out" | grep -q '^  cmrs_h = 8;' && echo "$out" | grep -q '^  cmrs_modified = 1;' || fail "format keys printed: $out"

# --help-config KEY of a key whose choices come from a registry: one help line per entry
for kv in "solver.type cg" "amg.smoother chebyshev" "amg.galerkin dcsr" "problem.generate.type elasticity" \
          "spmv.format cds" "spmv.levels cmrs" "batch.formats suraa"; do
    set -- $kv
    out=$("$G" --help-config "$1") || fail "--help-config $1: exit $?"
    echo "$out" | grep -Eq "^      $2 +[^ ]" || fail "--help-config $1: no help line for $2: $out"
done
n=$("$G" --help-config problem.generate.type | grep -c '^      [a-z]')
[ "$n" = 7 ] || fail "--help-config problem.generate.type: $n generator lines, expected 7"
"$G" --help-config | grep -q '^      [a-z]' && fail "--help-config (every key) prints registry lines"

# a config that names its matrix relative to its own folder, outputs relative to the cwd
cp "$SRC/../../configs/data/aniso2d_40.mtx.gz" "$W/a/"
cat > "$W/a/run.cfg" <<CFG
problem = { matrix = "aniso2d_40.mtx.gz"; rhs = "Ax"; };
solver = { type = "gmres"; preconditioner = "jacobi"; restart = 20; };
output = { csv = "runs.csv"; };
CFG
(cd "$W" && "$G" a/run.cfg --set "solver.rtol = 1e-7" --set " run.backend=  host " --print-config) > "$W/printed.cfg" || fail "--print-config: exit $?"
grep -q "matrix = \"$W/a/aniso2d_40.mtx.gz\";" "$W/printed.cfg" || fail "the matrix path is not absolute: $(grep matrix "$W/printed.cfg")"
grep -q "csv = \"$W/runs.csv\";" "$W/printed.cfg" || fail "the CSV path is not absolute"
grep -q '^  rtol = 1e-07;' "$W/printed.cfg" || fail "--set with spaces not applied"
grep -q '^  backend = "host";' "$W/printed.cfg" || fail "--set with spaces around key and value not applied"
grep -q '^  stagnation_window = 1000;' "$W/printed.cfg" || fail "a default is missing"
(cd "$W" && "$G" a/run.cfg --set "solver.rtol = 1e-7" --set " run.backend=  host ") > "$W/first.log" 2>&1 || fail "the run: exit $?"
(cd "$W/b" && "$G" ../printed.cfg) > "$W/replay.log" 2>&1 || fail "the replay: exit $?"
for w in '^result ' '^residual '; do
    a=$(grep "$w" "$W/first.log"); b=$(grep "$w" "$W/replay.log")
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "replay differs: '$a' vs '$b'"
done
[ "$(grep -c '^' "$W/runs.csv")" = 3 ] || fail "the replay did not append to the same CSV"
(cd "$W/b" && "$G" ../printed.cfg --print-config) | tail -n +2 > "$W/again.cfg"
tail -n +2 "$W/printed.cfg" | diff - "$W/again.cfg" > /dev/null || fail "printing the printed config changes it"

out=$("$G" "$W/a" 2>&1); code=$?
[ $code = 2 ] || fail "a folder as the config: exit $code"
echo "$out" | grep -q "^gsolve: error: $W/a: is a directory" || fail "a folder as the config: $out"
"$G" --version | grep -Eq '^gsolve [0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-z]+(-dirty)?|unknown\)' || fail "--version: $("$G" --version)"
echo "ok"

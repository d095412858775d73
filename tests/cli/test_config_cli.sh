#!/usr/bin/env bash
# test_config_cli.sh GSOLVE SRCDIR WORKDIR: the configuration on the command line:
# --help-config KEY and GROUP, a close-key error for an unknown one; --print-config printed,
# replayed from another folder (same iterations, same residual) and printed again unchanged;
# --set with spaces around '='; a folder as the config; --version's commit.
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

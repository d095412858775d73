#!/usr/bin/env bash
# test_readme.sh SRCDIR GSOLVE: what README.md promises a newcomer holds. Its first two commands
# are the set-up script's quickstart and test modes (and CI runs the test one); every config of
# configs/ is listed; the console summary shown has the lines gsolve prints for the quickstart
# config, and its result line; LICENSE is MIT and CITATION.cff names this version.
set -u
S=$1; G=$2
fail() { echo "FAIL: $*"; exit 1; }
R=$S/README.md

# the first two fenced blocks: exactly the two set-up commands
blocks=$(awk '/^```/ { n++; next } n == 1 || n == 3 { print n ": " $0 } n >= 4 { exit }' "$R")
[ "$blocks" = "$(printf '1: scripts/setup.sh quickstart\n3: scripts/setup.sh test')" ] \
    || fail "README's first two commands: $blocks"
awk '/^quickstart\)/ { on = 1 } on' "$S/scripts/setup.sh" |
    grep -q '^ *exec "$build/gsolve" "$here/configs/quickstart.cfg"' \
    || fail "setup.sh quickstart does not run configs/quickstart.cfg"
grep -q 'targets=(--target gsolve)' "$S/scripts/setup.sh" \
    || fail "setup.sh quickstart builds more than gsolve before the first solve"
grep -q '^test) cd "$build" && exec ctest .* -L cpu' "$S/scripts/setup.sh" \
    || fail "setup.sh test does not run ctest -L cpu"
grep -q '^scripts/setup.sh test$' "$S/.ci/run" || fail ".ci/run does not run the README's test command"

# every batch key is in the README (as batch.KEY, or KEY = in the example batch config), with
# its default where the README states one
for k in $("$G" --help-config batch | grep -o '^batch\.[a-z_]*' | sort -u); do
    grep -q "$k" "$R" || grep -q "^  ${k#batch.} = " "$R" || fail "README does not mention $k"
done
grep -q 'batch.warmup = N` (default 0)' "$R" || fail "README does not give batch.warmup's default"

# every configuration is listed
for f in "$S"/configs/*.cfg; do
    b=$(basename "$f")
    grep -q "^| \`$b\` | " "$R" || fail "configs/$b is not in README's table"
done

# the console summary: the same labelled lines as gsolve prints, the same result line
shown=$(awk '/prints:$/ { on = 1; next } on && /^```/ { n++; if (n == 2) exit; next }
    on && n == 1' "$R")
[ -n "$shown" ] || fail "no console summary in README"
out=$("$G" "$S/configs/quickstart.cfg" --set run.backend=host 2>/dev/null) || fail "quickstart"
labels() { grep -v '^gsolve:' | grep -v '^ ' | awk '{ print $1 }'; }
[ "$(echo "$shown" | labels)" = "$(echo "$out" | labels)" ] \
    || fail "README's summary lines $(echo "$shown" | labels | tr '\n' ' ') != gsolve's $(echo "$out" | labels | tr '\n' ' ')"
[ "$(echo "$shown" | grep '^result')" = "$(echo "$out" | grep '^result')" ] \
    || fail "README's result line differs from gsolve's: $(echo "$out" | grep '^result')"

# the AMG defaults the README states are gsolve's (--help-config KEY: "KEY type default VALUE")
for key in strength theta aggregation smooth_prolongator filter smoother chebyshev_degree \
    coarse_chebyshev_degree chebyshev_ratio coarse_size; do
    said=$(grep -o "\`amg\.$key = [^\`]*\`\|\`amg\.$key\` = [0-9.]*\|\`amg\.$key\` ([0-9.]*)" "$R" |
        head -1 | sed 's/.*[=(] *//; s/[`)]//g; s/"//g')
    real=$("$G" --help-config "amg.$key" | head -1 | sed 's/.* default \([^ ]*\).*/\1/; s/"//g')
    [ -n "$said" ] || fail "README does not state amg.$key's default"
    [ "$said" = "$real" ] || fail "README says amg.$key = $said; gsolve's default is $real"
done

# LICENSE and CITATION.cff
head -1 "$S/LICENSE" | grep -q '^MIT License$' || fail "LICENSE is not MIT"
grep -q '^Copyright (c) 2026 the gsolve authors$' "$S/LICENSE" || fail "LICENSE copyright line"
version=$(sed -n 's/^project(gsolve VERSION \([0-9.]*\).*/\1/p' "$S/CMakeLists.txt")
C=$S/CITATION.cff
grep -q '^cff-version: 1.2.0$' "$C" || fail "CITATION.cff: cff-version"
grep -q '^title: gsolve$' "$C" || fail "CITATION.cff: title"
grep -q '^  - name: the gsolve authors$' "$C" || fail "CITATION.cff: authors"
grep -q "^version: $version\$" "$C" || fail "CITATION.cff: version is not $version (CMakeLists.txt)"
grep -Eq '^date-released: [0-9]{4}-[0-9]{2}-[0-9]{2}$' "$C" || fail "CITATION.cff: date-released"
echo "ok"

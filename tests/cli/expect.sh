#!/usr/bin/env bash
# expect.sh CODE REGEX CMD ARGS...: run CMD, check its exit code is CODE and that its output
# (stdout and stderr together) matches the extended REGEX. For errors (CODE 2), also check
# the error is one line ("gsolve: error: ...") and nothing crashed.
set -u
want=$1; regex=$2; shift 2
out=$("$@" 2>&1); code=$?
fail() { echo "FAIL: $*"; echo "--- command: $*"; echo "--- output:"; echo "$out"; exit 1; }
[ "$code" = "$want" ] || fail "exit code $code, expected $want"
echo "$out" | grep -Eq -- "$regex" || fail "output does not match /$regex/"
if [ "$want" = 2 ]; then
    n=$(echo "$out" | grep -c '^gsolve: error: ')
    [ "$n" = 1 ] || fail "expected exactly one 'gsolve: error:' line, found $n"
fi
echo "ok: exit $code, output matches /$regex/"

#!/usr/bin/env bash
# test_report_message.sh GSOLVE WORKDIR: a failed run's long message is shown whole in the
# report's status (printed and report.md), not cut in the middle of a word.
set -u
G=$1; W=$2
fail() { echo "FAIL: $*"; echo "--- report:"; cat "$W/report.log" 2>/dev/null; exit 1; }
rm -rf "$W"; mkdir -p "$W"
long=$W/a_folder_name_long_enough_to_push_the_message_past_the_old_cut_of_one_hundred_fifty_characters_in_the_status
mkdir -p "$long"
cat > "$W/b.cfg" <<CFG
solver = { type = "cg"; preconditioner = "jacobi"; };
run = { threads = 1; };
batch = {
  formats = ["csr"];
  repeats = 1;
  results = "$W/res";
  cases = ( { name = "gone"; matrix = "$long/no_such_matrix.mtx"; } );
};
CFG
"$G" "$W/b.cfg" > "$W/batch.log" 2>&1
[ $? = 3 ] || fail "the batch: exit $?, expected 3 (a run failed)"
"$G" report "$W/res" --no-plots > "$W/report.log" 2>&1 || fail "report: exit $?"
grep -q 'no_such_matrix.mtx' "$W/report.log" || fail "the printed status lost the file's name"
grep -q 'no_such_matrix.mtx' "$W/res/report.md" || fail "report.md's status lost the file's name"
echo "ok: the failure's message whole in the report"

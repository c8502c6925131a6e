#!/bin/bash
# Description: every mutation in tests/mutants.txt still applies to the tree (lab/mutants --check): none went stale
# Tier: quick
# Reads files only. A mutation names the exact text it replaces; when the code moves on, the mutation
# no longer applies and CI's make mutants fails at its end, 45 minutes in. The quick tier (run before
# every commit) finds it in a second.
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no $REPO"
out=$(lab/mutants --check 2>&1)
rc=$?
last=$(tail -n 1 <<<"$out")
if [ $rc != 0 ]; then
	grep '^STALE' <<<"$out"
	fail "lab/mutants --check exit $rc: $last"
fi
[[ "$last" =~ ^mutants:\ ([0-9]+)/([0-9]+)\ apply ]] || fail "lab/mutants --check: unexpected last line '$last'"
[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] || fail "lab/mutants --check: $last"
ok "$last"

#!/bin/bash
# Description: conventions (docs/hacking.md): Descriptions <= 120 chars, no EXIT trap over lib.sh, README <= 150 lines, no dated docs
# Tier: quick
# Reads files only: no root, no build, no cluster. A test's Description is the text after
# "# Description: " on one line, once per test; details go in the test's comments. README.md is
# for users (at most 150 lines). docs/ explains how things work and stays true without dates: a
# line of docs/*.md naming a date 20YY-MM-DD is a dated narrative, which belongs in lab/journal.md.
# A test that sources lib.sh adds its clean-up with at_exit: its own "trap ... EXIT" would replace
# lib.sh's, which removes the test's images, CephFS trees and scratch directory.
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no $REPO"
MAX_DESC=120 MAX_README=150
bad=0

n=0
for t in tests/t-*.sh; do
	n=$((n + 1))
	c=$(grep -c '^# Description: ' "$t")
	if [ "$c" != 1 ]; then
		echo "FAIL: $t: $c '# Description: ' lines, want exactly 1"; bad=1; continue
	fi
	d=$(sed -n 's/^# Description: //p' "$t")
	if [ -z "${d// /}" ]; then
		echo "FAIL: $t: empty Description"; bad=1
	elif [ "${#d}" -gt "$MAX_DESC" ]; then
		echo "FAIL: $t: Description of ${#d} characters, at most $MAX_DESC (details go in a comment below it)"; bad=1
	fi
done
[ "$n" -gt 0 ] || fail "no tests/t-*.sh found"
ok "$n test Descriptions checked"

if grep -nE '^[[:space:]]*trap[[:space:]].*[[:space:]](EXIT|0)([[:space:]]|$)' $(grep -l 'lib\.sh"' tests/t-*.sh); then
	echo "FAIL: the tests above replace lib.sh's clean-up trap: use at_exit CMD"; bad=1
else
	ok "no test replaces lib.sh's EXIT trap"
fi

[ -f README.md ] || fail "no README.md"
lines=$(wc -l <README.md)
if [ "$lines" -gt "$MAX_README" ]; then
	echo "FAIL: README.md has $lines lines, at most $MAX_README (details go in docs/, measurements in results/)"; bad=1
else
	ok "README.md: $lines lines"
fi

if grep -nE '20[0-9]{2}-[01][0-9]-[0-3][0-9]' docs/*.md; then
	echo "FAIL: docs/ lines above name a date: dated narratives belong in lab/journal.md"; bad=1
else
	ok "docs/*.md: no dates"
fi
exit $bad

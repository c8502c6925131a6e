#!/bin/bash
# Description: a CPU working set shared by a database's connections is only read by their work; a private one is written
# Tier: quick
# In full: tests/unit/dbtime_ws_test: two accounts burn 5 ms each over one shared set, a third over
# its own; the oracle is the sets' bytes against copies taken before (the shared set unchanged,
# the private one changed). A write a step into a shared set made two cores take every line from
# each other: the model's CPU a transaction at 4 MariaDB connections doubled.
. "$(dirname "$0")/lib.sh"
T=$B/tests/dbtime_ws_test
[ -x "$T" ] || fail "$T missing (run make)"
out=$("$T")
rc=$?
echo "$out"
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || fail "dbtime_ws_test: exit $rc"
ok "dbtime_ws_test passed"

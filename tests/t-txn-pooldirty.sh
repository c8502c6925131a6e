#!/bin/bash
# Description: txn's buffer pool: a page changed right after the checkpointer wrote it stays dirty
# Tier: quick
# In full: txn's buffer pool driven directly (tests/unit/txn_pool_test): a page changed right after
# the checkpointer wrote it stays dirty and in the next checkpoint's set; a failed eviction write
# (EBADF) leaves its page dirty in the pool
. "$(dirname "$0")/lib.sh"
T=$B/tests/txn_pool_test
[ -x "$T" ] || fail "$T missing (run make)"
mkdir -p "$TMP/d"
out=$("$T" --dir="$TMP/d")
rc=$?
echo "$out"
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || fail "txn_pool_test: exit $rc"
ok "txn_pool_test passed"

#!/bin/bash
# Description: txn: a dirty page written by an eviction is not written again by a checkpoint unless read (and dirtied) again since
# Timeout: 200
# In full: txn: a dirty page written by an eviction is not written again by a checkpoint unless read
# (and dirtied) again since (strace: per page, the checkpointer thread's pwrite64 against the
# connections' pwrite64/pread64)
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || fail "strace is not installed (tools/deps installs it)"
mkdir -p "$TMP/d"
# postgres (its backends write their own victims; InnoDB leaves them to its page cleaner): a
# 2 MB pool (256 frames) against ~40 MB of tables: many evictions; a checkpoint a second
strace -f -qq -y -e trace=pwrite64,pread64,fsync -o "$TMP/d.strace" \
	"$FIO" --output-format=json --output="$TMP/d.json" --name=d --ioengine="external:$E" --calibration=none \
	--directory="$TMP/d" --rw=write --flavor=postgres \
	--txn_profile=oltp_read_write --table_size=100000 --shared_buffers=2m \
	--checkpoint_timeout=1 --time_based --runtime=4 --rtt=1ms \
	2>"$TMP/d.err" || { cat "$TMP/d.err"; fail "fio failed"; }
[ "$(json "$TMP/d.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/d.err"; fail "fio error"; }
grep "txn: database" "$TMP/d.err" || fail "no database summary"
py txn-ckpt-after-evict "$TMP/d.strace" 8192 || fail "the checkpointer wrote evicted pages again"
ok "no checkpoint write of a page evicted and not read since"

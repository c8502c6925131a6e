#!/bin/bash
# Description: redolog SIGKILL on store=cephfs (libcephfs client cache dies with the process): logverify finds every acknowledged record; with debug_skip_flush=1 it reports the loss
# Timeout: 300
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend LIBCEPHFS || fail "cephfs backend not built"
E=$B/redolog.so
ROOT=/redolog-test-kill-$$
cephfs_cleanup "$ROOT-flushed" "$ROOT-skipped"
# dirty data stays in the client's object cache up to 30 s (default 5 s):
# what the killed process did not fsync dies with it
export CEPH_ARGS="--client_oc_max_dirty_age=30"

crash() {	# crash NAME EXTRA...: run, SIGKILL once commits were acknowledged, logverify
	local name=$1; shift
	"$FIO" --name="$name" --ioengine="external:$E" --store=cephfs --store_root="$ROOT-$name" \
		--flavor=mysql --innodb_log_file_size=8m --bs=4k --iodepth=4 --rw=write --size=1g \
		--time_based --runtime=60 --lsn_file="$TMP/$name.lsn" "$@" >"$TMP/$name.out" 2>&1 &
	local pid=$!
	kill_when_acked $pid "$name" 1000000 600 "$TMP/$name.lsn"
	cephfs_evict $pid	# the MDS hands the dead client's caps to logverify at once
	timeout 150 "$B/logverify" --store=cephfs --store-root="$ROOT-$name" "$TMP/$name.lsn" >"$TMP/$name.lv" 2>&1
	echo $? >"$TMP/$name.rc"
}

crash flushed
rc=$(cat "$TMP/flushed.rc")
[ "$rc" = 0 ] || { cat "$TMP/flushed.lv"; fail "after SIGKILL, logverify exit $rc with flushes on"; }
ok "SIGKILL with flushes: $(cat "$TMP/flushed.lv")"

crash skipped --debug_skip_flush=1
rc=$(cat "$TMP/skipped.rc")
[ "$rc" = 1 ] || { cat "$TMP/skipped.lv"; fail "after SIGKILL without flushes, logverify exit $rc (expected 1: loss)"; }
ok "SIGKILL with debug_skip_flush=1: $(cat "$TMP/skipped.lv")"

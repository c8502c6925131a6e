#!/bin/bash
# Description: redolog SIGKILL on store=cephfs with the libcephfs write-back cache (dies with the process): logverify finds every acknowledged record; with debug_skip_flush=1 it reports the loss
# Timeout: 200
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend LIBCEPHFS || skip "cephfs backend not built"
E=$B/redolog.so
ROOT=/redolog-test-crash-$$
cephfs_cleanup "$ROOT"
# libcephfs' object cacher holds dirty data up to 30 s: what a killed process
# did not fsync dies with it (the oracle is the crash, not the engine's counters)
export CEPH_ARGS="--client_oc=true --client_oc_max_dirty_age=30 --client_oc_target_dirty=67108864 --client_oc_max_dirty=134217728"

crash() {	# crash NAME EXTRA...: run, SIGKILL once 2 MB of commits were acknowledged, logverify
	local name=$1 i ack pid; shift
	"$FIO" --name="$name" --ioengine="external:$E" --store=cephfs --store_root="$ROOT/$name" \
		--flavor=mysql --innodb_log_file_size=8m --bs=4k --iodepth=4 --rw=write --size=1g \
		--time_based --runtime=60 --lsn_file="$TMP/$name.lsn" "$@" >"$TMP/$name.out" 2>&1 &
	pid=$!
	for i in $(seq 1 300); do
		ack=$([ -s "$TMP/$name.lsn" ] && od -An -tu8 -j8 -N8 "$TMP/$name.lsn" | tr -d ' ')
		[ "${ack:-0}" -gt 2000000 ] && break
		kill -0 $pid 2>/dev/null || { cat "$TMP/$name.out"; fail "$name: fio exited early"; }
		sleep 0.1
	done
	kill -KILL $pid
	fio_wait $pid "$name" KILL "$TMP/$name.out"
	cephfs_evict $pid	# its caps, or logverify waits 60 s for them
	[ "${ack:-0}" -gt 0 ] || fail "$name: nothing acknowledged before the kill"
	timeout 120 "$B/logverify" --store=cephfs --store-root="$ROOT/$name" "$TMP/$name.lsn" >"$TMP/$name.lv" 2>&1
	echo $? >"$TMP/$name.rc"
}

crash flushed
rc=$(cat "$TMP/flushed.rc")
[ "$rc" = 0 ] || { cat "$TMP/flushed.lv"; fail "after SIGKILL, logverify exit $rc with flushes on"; }
ok "SIGKILL with flushes: $(cat "$TMP/flushed.lv")"

crash skipped --debug_skip_flush=1
rc=$(cat "$TMP/skipped.rc")
[ "$rc" = 1 ] || { cat "$TMP/skipped.lv"; fail "after SIGKILL without flushes, logverify exit $rc (expected 1: loss): the oracle cannot see a missing flush"; }
ok "SIGKILL with debug_skip_flush=1: $(cat "$TMP/skipped.lv")"

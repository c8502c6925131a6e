#!/bin/bash
# Description: redolog SIGKILL on store=rbd with librbd write-back cache: logverify finds every acknowledged record; with debug_skip_flush=1 it reports the loss
# Timeout: 300
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "rbd backend not built"
E=$B/redolog.so
IMG=redolog-test-crash-$$
# a killed client's watch on the image: rbd_rm blocklists it
rbd_cleanup "$IMG"
# librbd write-back cache (Pacific defaults to writearound) from the first write,
# dirty data kept up to 30 s:
# what a killed process did not flush dies with it
export CEPH_ARGS="--rbd_cache=true --rbd_cache_policy=writeback --rbd_cache_writethrough_until_flush=false --rbd_cache_max_dirty_age=30"

crash() {	# crash NAME EXTRA...: run, SIGKILL once commits were acknowledged, logverify
	local name=$1; shift
	"$FIO" --name="$name" --ioengine="external:$E" --store=rbd --rbdname=$IMG --rbd_size=256m \
		--flavor=mysql --innodb_log_file_size=8m --bs=4k --iodepth=4 --rw=write --size=1g \
		--time_based --runtime=60 --lsn_file="$TMP/$name.lsn" "$@" >"$TMP/$name.out" 2>&1 &
	kill_when_acked $! "$name" 2000000 300 "$TMP/$name.lsn"
	timeout 120 "$B/logverify" --store=rbd --rbdname=$IMG "$TMP/$name.lsn" >"$TMP/$name.lv" 2>&1
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

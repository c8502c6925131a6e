#!/bin/bash
# Description: rbdsnap: fio stopped by SIGTERM (and SIGINT) mid-run still removes its snapshots, leaves foreign ones
# Timeout: 180
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-sigterm
rbd_image "$IMG" 256M
rbd snap create "rbd/$IMG@foreign-keep" >/dev/null 2>&1 || fail "rbd snap create foreign-keep"

own() { rbd snap ls "rbd/$IMG" 2>/dev/null | grep -cE ' dbfio-[0-9a-f]{8}-[0-9]+ '; }

for sig in TERM INT; do
	"$FIO" --name=sig --ioengine="external:$B/rbdsnap.so" --clientname=admin --pool=rbd \
		--rbdname="$IMG" --invalidate=0 --rw=randwrite --bs=4k --iodepth=16 --time_based \
		--runtime=120 --snap_interval=1 --snap_json="$TMP/$sig.snap.json" \
		--output-format=json --output="$TMP/$sig.json" 2>"$TMP/$sig.err" &
	pid=$!
	for _ in $(seq 60); do [ "$(own)" -ge 2 ] && break; sleep 0.5; done
	n=$(own)
	[ "$n" -ge 2 ] || { kill -KILL $pid; fail "SIG$sig: no snapshots appeared"; }
	kill -$sig $pid
	fio_wait $pid "SIG$sig" $sig "$TMP/$sig.err"	# any other signal is a crash
	rc=$?
	cat "$TMP/$sig.err"
	left=$(own)
	[ "$left" = 0 ] || fail "SIG$sig: $left dbfio- snapshot(s) left after fio exited $rc"
	[ -s "$TMP/$sig.snap.json" ] || fail "SIG$sig: no sidecar written"
	removed=$(json "$TMP/$sig.snap.json" "sum(1 for e in d['events'] if e['op']=='remove' and e['ret']==0)")
	[ "$removed" -ge "$n" ] || fail "SIG$sig: sidecar shows $removed removals, $n were live"
	ok "SIG$sig with $n live snapshots: fio exited $rc, $removed removed, none left"
done
rbd snap ls "rbd/$IMG" | grep -q ' foreign-keep ' || fail "the foreign snapshot is gone"
ok "foreign snapshot survives"

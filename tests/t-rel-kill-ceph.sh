#!/bin/bash
# Description: SIGKILL during rbdsnap and storeio store=rbd/cephfs: stale snapshots reported, purged only on request, foreign ones kept
# Timeout: 240
# In full: SIGKILL during rbdsnap and storeio store=rbd/cephfs: stale snapshots reported, purged only
# on request, foreign ones kept; the store's next run starts cleanly
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
need_cluster
have_backend RBD || skip "rbd backend not built"
IMG=storeio-test-rel-kill SIMG=rbdsnap-test-rel-kill ROOT=/storeio-test-rel-kill
rbd_cleanup "$IMG" "$SIMG"	# a killed client's watch: rbd_rm blocklists it
cephfs_cleanup "$ROOT"
rbd rm -p rbd "$SIMG" >/dev/null 2>&1
rbd create -p rbd --size 128M "$SIMG" || fail "rbd create $SIMG"
for s in foreign dbfio-foreign dbfio-0000000g-1 dbfio-12345678-x; do	# look-alikes of <prefix><8 hex>-<n>
	rbd snap create "rbd/$SIMG@$s" >/dev/null 2>&1 || fail "rbd snap create $s"
done
snaps() { rbd snap ls "rbd/$SIMG" | awk 'NR>1{print $2}' | sort | tr '\n' ' '; }
own() { rbd snap ls "rbd/$SIMG" | awk 'NR>1{print $2}' | grep -cE '^dbfio-[0-9a-f]{8}-[0-9]+$'; }
RS=(--ioengine="external:$B/rbdsnap.so" --clientname=admin --pool=rbd --rbdname=$SIMG --invalidate=0
	--rw=randwrite --bs=4k --iodepth=8 --time_based)

# rbdsnap: killed with live snapshots
"$FIO" --name=k "${RS[@]}" --runtime=60 --snap_interval=1 >"$TMP/k.out" 2>&1 &
pid=$!
for _ in $(seq 60); do [ "$(own)" -ge 2 ] && break; sleep 0.5; done
n=$(own)
kill -KILL $pid
fio_wait $pid k KILL "$TMP/k.out"
[ "$n" -ge 2 ] || fail "no snapshots before the kill"
n=$(own)
ok "rbdsnap SIGKILLed with $n live snapshots"
rbd_drop_watchers "$SIMG"	# the next run's lock request would wait ~30 s for the dead one
run_fio report --name=report "${RS[@]}" --runtime=1 || { cat "$TMP/report.err"; fail "run after the kill"; }
r=$(grep -c "stale snapshot from an earlier run" "$TMP/report.err")
[ "$r" = "$n" ] || { cat "$TMP/report.err"; fail "$r stale snapshots reported, $n left"; }
[ "$(own)" = "$n" ] || fail "snapshots removed without snap_purge_stale"
ok "next run: $r stale snapshots reported, none removed"
run_fio purge --name=purge "${RS[@]}" --runtime=1 --snap_purge_stale=1 || { cat "$TMP/purge.err"; fail "purge run"; }
[ "$(own)" = 0 ] || fail "after snap_purge_stale=1: $(snaps)"
[ "$(snaps)" = "dbfio-0000000g-1 dbfio-12345678-x dbfio-foreign foreign " ] || fail "foreign snapshots changed: $(snaps)"
ok "snap_purge_stale=1 removed the $n stale ones; the 4 foreign/look-alike snapshots kept"

# storeio store=rbd: killed mid-write; the next run opens the image table and verifies
ST=(--ioengine="external:$B/storeio.so" --store=rbd --rbdname=$IMG --rbd_size=128m --bs=4k --iodepth=8)
"$FIO" --name=st "${ST[@]}" --rw=randwrite --size=32m --time_based --runtime=60 >"$TMP/st.out" 2>&1 &
pid=$!
sleep 4
kill -KILL $pid
fio_wait $pid st KILL "$TMP/st.out"
s=$SECONDS
run_fio st2 --name=st "${ST[@]}" --rw=randwrite --size=16m --verify=crc32c ||
	{ cat "$TMP/st2.err"; fail "storeio store=rbd after SIGKILL"; }
ok "storeio store=rbd: the run after SIGKILL verified in $((SECONDS - s)) s"

if have_backend LIBCEPHFS; then
	FS=(--ioengine="external:$B/storeio.so" --store=cephfs --store_root=$ROOT --bs=4k --iodepth=8)
	"$FIO" --name=fs "${FS[@]}" --rw=randwrite --size=16m --time_based --runtime=60 >"$TMP/fs.out" 2>&1 &
	pid=$!
	sleep 4
	kill -KILL $pid
	fio_wait $pid fs KILL "$TMP/fs.out"
	cephfs_evict $pid	# its caps would hold the next run for the session timeout
	s=$SECONDS
	run_fio fs2 --name=fs "${FS[@]}" --rw=randwrite --size=16m --verify=crc32c --unlink=1 ||
		{ cat "$TMP/fs2.err"; fail "storeio store=cephfs after SIGKILL"; }
	ok "storeio store=cephfs: the run after SIGKILL verified in $((SECONDS - s)) s"
fi

#!/bin/bash
# Description: rbdsnap snap_trim_wait: the baseline starts once the OSDs trimmed the pool's removed snapshots (oracle: ceph osd dump)
# Timeout: 240
# In full: a removed snapshot's clones are trimmed later by the OSDs, on the disks the next run's
# baseline uses. The test makes one (a filled image snapshotted, rewritten in full, the snapshot
# removed) with trimming slowed (osd_snap_trim_sleep) and runs rbdsnap three times: with
# snap_trim_wait=0 the report says the baseline shares the OSDs with the trimming; with 2s and a
# 30 s sleep the wait ends bounded, still queued; with 120s and a 2 s sleep the baseline begins
# after the queue emptied. The oracle is the osdmap as the ceph CLI dumps it, read by this script
# every 0.3 s (its removed_snaps_queue for the pool): the last dump with the snapshot queued comes
# before the baseline's start (the sidecar's osd_slow_ops.t0_unix), the first after it is empty.
. "$(dirname "$0")/lib.sh"
own_cluster_only "reconfigures every OSD's snapshot trimming (osd_snap_trim_sleep)"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-trim
rbd_image "$IMG" 64M
POOL=$(ceph osd pool ls detail -f json | python3 -c 'import json,sys; print([p["pool_id"] for p in json.load(sys.stdin) if p["pool_name"] == "rbd"][0])') ||
	fail "no pool rbd"
# queued: the pool's snapshots in the osdmap's removed_snaps_queue (this script's own reading)
queued() {
	timeout 30 ceph osd dump -f json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(i["length"] for p in d.get("removed_snaps_queue", []) if p["pool"] == int(sys.argv[1]) for i in p["snaps"]))' "$POOL"
}
sleep_trim() { ceph tell osd.\* injectargs "--osd_snap_trim_sleep=$1" >/dev/null 2>&1 || fail "injectargs osd_snap_trim_sleep=$1"; }
restore() { ceph tell osd.\* config unset osd_snap_trim_sleep >/dev/null 2>&1; }
at_exit restore
fill() { rbd bench --io-type write --io-pattern seq --io-size 4M --io-total 64M "rbd/$IMG" >/dev/null 2>&1 || fail "rbd bench"; }
# one removed snapshot whose 16 clones wait for the trimmer
removed_snapshot() {
	rbd snap create "rbd/$IMG@trimtest" || fail "rbd snap create"
	fill
	rbd snap rm "rbd/$IMG@trimtest" >/dev/null 2>&1 || fail "rbd snap rm"
}
job() {	# NAME WAIT
	run_fio "$1" --name="$1" --ioengine="external:$B/rbdsnap.so" --clientname=admin --pool=rbd --rbdname="$IMG" \
		--invalidate=0 --rw=randwrite --bs=4k --iodepth=2 --rate_iops=20 --time_based --runtime=3 \
		--snap_trim_wait="$2" --snap_json="$TMP/$1.snap.json"
}
# Earlier tests' removed snapshots may still be queued: a rotational OSD's trimmer sleeps
# osd_snap_trim_sleep_hdd (5 s) a step. Trim them at full speed first (a nonzero
# osd_snap_trim_sleep overrides the per-device value), so this test's count is its own.
drain() {
	local i=0 q first=
	sleep_trim 0.001
	while q=$(queued) && [ "$q" != 0 ]; do
		first=${first:-$q}
		[ $i -lt 180 ] || fail "the pool's removed snapshots did not trim within 90 s: $q still queued"
		i=$((i + 1)); sleep 0.5
	done
	[ -n "$q" ] || fail "ceph osd dump failed"
	[ -z "$first" ] || echo "waited $((i / 2)) s for $first earlier snapshot(s) to trim"
}
drain
fill

sleep_trim 30
removed_snapshot
q=$(queued)
[ "$q" -ge 1 ] || fail "ceph osd dump shows no snapshot queued after the removal"
job nowait 0 || { cat "$TMP/nowait.err"; fail "fio (snap_trim_wait=0) failed"; }
grep -q "removed snapshot(s) not yet trimmed: the baseline shares the OSDs" "$TMP/nowait.err" ||
	{ cat "$TMP/nowait.err"; fail "snap_trim_wait=0: the report does not say the baseline shares the OSDs with trimming"; }
got=$(json "$TMP/nowait.snap.json" "'%d %d %.1f' % tuple(d['trim_before'][k] for k in ('queued_at_start', 'queued_at_baseline', 'waited_s'))")
[ "$got" = "$q $q 0.0" ] || fail "snap_trim_wait=0: trim_before $got, not '$q $q 0.0' (ceph osd dump: $q queued)"
ok "snap_trim_wait=0: $q queued as ceph osd dump says, not waited, said in the report"

job short 2s || { cat "$TMP/short.err"; fail "fio (snap_trim_wait=2s) failed"; }
got=$(json "$TMP/short.snap.json" "'%d %.0f' % (d['trim_before']['queued_at_baseline'], d['trim_before']['waited_s'])")
[ "$got" = "$q 2" ] || [ "$got" = "$q 3" ] || fail "snap_trim_wait=2s under a 30 s trim sleep: trim_before $got, not '$q 2'"
grep -q "still being trimmed after" "$TMP/short.err" || fail "snap_trim_wait=2s: no 'still being trimmed' line"
ok "snap_trim_wait=2s: bounded, $q still queued at the baseline"

# the trimmer at 2 s a step: the queue empties within seconds to a minute
sleep_trim 2
: >"$TMP/dumps"
( while :; do printf '%s %s\n' "$(date +%s.%N)" "$(queued)" >>"$TMP/dumps"; sleep 0.3; done ) &
POLL=$!
job wait 120s
rc=$?
kill $POLL 2>/dev/null; wait $POLL 2>/dev/null
[ $rc = 0 ] || { cat "$TMP/wait.err"; fail "fio (snap_trim_wait=120s) failed"; }
cat "$TMP/wait.err"
t0=$(json "$TMP/wait.snap.json" "'%.3f' % d['osd_slow_ops']['t0_unix']")
read -r qs qb w <<<"$(json "$TMP/wait.snap.json" "'%d %d %.1f' % tuple(d['trim_before'][k] for k in ('queued_at_start', 'queued_at_baseline', 'waited_s'))")"
[ "$qb" = 0 ] || fail "snap_trim_wait=120s: $qb still queued at the baseline"
last=$(awk '$2 > 0 { t = $1 } END { print t }' "$TMP/dumps")
first=$(awk -v t0="$t0" '$1 > t0 + 0.1 { print $2; exit }' "$TMP/dumps")
[ -n "$last" ] || fail "the script's dumps never saw the snapshot queued ($qs at the engine's start)"
py check "$last < $t0" || fail "ceph osd dump still listed the snapshot at $last, after the baseline began at $t0"
[ "$first" = 0 ] || fail "the first dump after the baseline began lists $first snapshot(s)"
ok "snap_trim_wait=120s: waited ${w}s; ceph osd dump's last listing $(py calc "$t0 - $last") s before the baseline"

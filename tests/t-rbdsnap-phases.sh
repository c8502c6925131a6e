#!/bin/bash
# Description: rbdsnap: an I/O belongs to the phase it was issued in (oracle: fio's own per-I/O latency log)
# Timeout: 180
# In full: rbdsnap: an I/O belongs to the phase it was issued in - the writes a snapshot create stalls
# are booked to "creating snapN" (four creates, paced writer) (oracle: fio's own per-I/O latency log),
# and 'after' is reached (snap_after)
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-phases
rbd_image "$IMG" 256M
# cache off: the writes in flight wait for the create (~0.6 s here)
rbd_nocache_conf
# runtime 6 is shorter than the schedule (2 + 4 creates 1 s apart + 1 + removes + 1): snap_after
# must extend it. While a create runs, librbd holds the job thread inside rbd_aio_write: only the
# first write issued after the create began is stalled, so four creates are made, and rate_iops
# paces the issues (random, 20 ms apart on average: evenly paced issues fall on the whole
# seconds the creates start at) so that write lands clear of the edges (fio's log
# has 1 ms resolution; issued within 2 ms of an edge, a write cannot be attributed either way).
CEPH_CONF=$TMP/ceph.conf run_fio ph --name=ph --ioengine="external:$B/rbdsnap.so" --clientname=admin \
	--pool=rbd --rbdname="$IMG" --invalidate=0 --rw=randwrite --bs=4k --iodepth=8 --rate_iops=50 --rate_process=poisson \
	--time_based --runtime=6 --snap_start_delay=2 --snap_interval=1 --snap_count=4 --snap_hold=1 \
	--snap_after=1 --slow_threshold=150ms \
	--write_lat_log="$TMP/io" --log_avg_msec=0 --snap_json="$TMP/ph.snap.json"
rc=$?
cat "$TMP/ph.err"
[ $rc = 0 ] || fail "fio exited $rc"
S=$TMP/ph.snap.json
LOG=$(ls "$TMP"/io_lat.*log | head -1)
[ -s "$LOG" ] || fail "fio wrote no latency log"

names=$(json "$S" "' '.join(p['name'].replace(' ', '_') for p in d['phases'])")
ok "phases: $names"
for ph in baseline creating_snap1 snap1 creating_snap4 snap4 after; do
	[[ " $names " == *" $ph "* ]] || fail "no phase $ph"
done
after=$(json "$S" "[p['seconds'] for p in d['phases'] if p['name']=='after'][0]")
py check "$after >= 0.9" || fail "'after' lasted ${after}s, snap_after=1"
ok "'after' measured for ${after}s although runtime=6 was too short (snap_after extended it)"

# The oracle: fio's own log (completion time in ms since the job began, total latency in ns)
# gives each write's issue time; the sidecar gives when each create ran. Count the writes issued
# before the first create, and for each create those issued during it and within 2 ms of its
# edges: the engine's "creating snapN" phases must hold exactly those, whatever their latency.
py rbdsnap-phase-oracle "$LOG" "$S" || fail "the engine's phases do not hold the writes fio's log shows issued in them"
ok "the writes issued while a create ran - and stalled by it - are booked to 'creating snapN', not to the phase before"

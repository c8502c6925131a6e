#!/bin/bash
# Description: rbdsnap: an I/O belongs to the phase it was issued in - the writes a snapshot create stalls are booked to "creating snap1" (oracle: fio's own per-I/O latency log), and 'after' is reached (snap_after)
# Timeout: 180
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-phases
rbd rm -p rbd "$IMG" >/dev/null 2>&1
rbd create -p rbd --size 256M "$IMG" || fail "rbd create $IMG"
rbd_cleanup "$IMG"
# cache off: the writes in flight wait for the create (~0.6 s here)
printf '%s\n[client]\nrbd_cache = false\n' "$(cat "$CEPH_CONF")" >"$TMP/ceph.conf"
# runtime 6 is shorter than the schedule (3 + create + 2 + remove + 2): snap_after must extend it.
# rate_iops paces the issues (one every 2.5 ms) so that writes are issued while the create runs
# even when it is quick: unpaced, all 32 slots are in flight and stuck at its start, and fio's
# log shows every write issued before or at its edge (nothing to attribute).
CEPH_CONF=$TMP/ceph.conf run_fio ph --name=ph --ioengine="external:$B/rbdsnap.so" --clientname=admin \
	--pool=rbd --rbdname="$IMG" --invalidate=0 --rw=randwrite --bs=4k --iodepth=32 --rate_iops=400 --time_based \
	--runtime=6 --snap_start_delay=3 --snap_count=1 --snap_hold=2 --snap_after=2 --slow_threshold=150ms \
	--write_lat_log="$TMP/io" --log_avg_msec=0 --snap_json="$TMP/ph.snap.json"
rc=$?
cat "$TMP/ph.err"
[ $rc = 0 ] || fail "fio exited $rc"
S=$TMP/ph.snap.json
LOG=$(ls "$TMP"/io_lat.*log | head -1)
[ -s "$LOG" ] || fail "fio wrote no latency log"

names=$(json "$S" "' '.join(p['name'].replace(' ', '_') for p in d['phases'])")
ok "phases: $names"
for ph in baseline creating_snap1 snap1 removing_snap1 after; do
	[[ " $names " == *" $ph "* ]] || fail "no phase $ph"
done
after=$(json "$S" "[p['seconds'] for p in d['phases'] if p['name']=='after'][0]")
python3 -c "import sys; sys.exit(not $after >= 1.9)" || fail "'after' lasted ${after}s, snap_after=2"
ok "'after' measured for ${after}s although runtime=6 was too short (snap_after extended it)"

# The oracle: fio's own log (completion time in ms since the job began, total latency in ns)
# gives each write's issue time; the sidecar gives when the create ran. Count the writes issued
# before the create, during it, and within 5 ms of its edges (fio's log has 1 ms resolution, and
# its clock and the engine's start < 1 ms apart): the engine's phases must hold exactly those,
# whatever their latency (librbd holds back the writes issued during a create until it ends).
read -r t0 t1 < <(json "$S" "' '.join(str(e[k]) for e in d['events'] if e['op']=='create' for k in ('t','t_end'))")
read -r before edge0 during edge1 slow < <(python3 - "$LOG" "$t0" "$t1" <<'PY'
import sys
t0, t1, E = float(sys.argv[2]), float(sys.argv[3]), 0.005
c = [0, 0, 0, 0]
slow = 0
for line in open(sys.argv[1]):
    f = [x.strip() for x in line.split(",")]
    done_s, lat_s = int(f[0]) / 1e3, int(f[1]) / 1e9
    i = done_s - lat_s
    k = 0 if i < t0 - E else 1 if i < t0 + E else 2 if i < t1 - E else 3 if i < t1 + E else None
    if k is not None:
        c[k] += 1
    if k == 2 and lat_s >= 0.150:
        slow += 1
print(*c, slow)
PY
)
eng_base=$(json "$S" "[p['ios'] for p in d['phases'] if p['name']=='baseline'][0]")
eng_crt=$(json "$S" "[p['ios'] for p in d['phases'] if p['name']=='creating snap1'][0]")
eng_slow=$(json "$S" "[p['slow'] for p in d['phases'] if p['name']=='creating snap1'][0]")
ok "create ran ${t0}..${t1}s; fio's log: $before writes issued before it (+$edge0 at its start), $during during it (+$edge1 at its end), $slow of them >= 150 ms; engine: baseline $eng_base, creating snap1 $eng_crt ($eng_slow slow)"
[ "$during" -ge 1 ] || fail "fio's log shows no write issued during the create: nothing to attribute"
[ "$eng_crt" -ge "$during" ] && [ "$eng_crt" -le $((during + edge0 + edge1)) ] ||
	fail "creating snap1 has $eng_crt writes, fio's log shows $during (+$edge0/$edge1 at the edges) issued during the create"
[ "$eng_base" -ge "$before" ] && [ "$eng_base" -le $((before + edge0)) ] ||
	fail "baseline has $eng_base writes, fio's log shows $before (+$edge0) issued before the create"
[ "$eng_slow" -ge "$slow" ] || fail "creating snap1 has $eng_slow slow writes, fio's log shows $slow issued during the create"
ok "the writes issued while the create ran - and stalled by it - are booked to 'creating snap1', not the baseline"

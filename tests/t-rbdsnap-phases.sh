#!/bin/bash
# Description: rbdsnap: an I/O belongs to the phase it was issued in - the writes a snapshot create stalls are booked to "creating snap1" (oracle: fio's own per-I/O latency log), and 'after' is reached (snap_after)
# Timeout: 180
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-phases
rbd rm -p rbd "$IMG" >/dev/null 2>&1
rbd create -p rbd --size 256M "$IMG" || fail "rbd create $IMG"
trap 'rbd snap purge -p rbd "$IMG" >/dev/null 2>&1; rbd rm -p rbd "$IMG" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
# cache off: the writes in flight wait for the create (~0.6 s here)
printf '%s\n[client]\nrbd_cache = false\n' "$(cat "$CEPH_CONF")" >"$TMP/ceph.conf"
# runtime 6 is shorter than the schedule (3 + create + 2 + remove + 2): snap_after must extend it
CEPH_CONF=$TMP/ceph.conf run_fio ph --name=ph --ioengine="external:$B/rbdsnap.so" --clientname=admin \
	--pool=rbd --rbdname="$IMG" --invalidate=0 --rw=randwrite --bs=4k --iodepth=16 --time_based \
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
# gives each write's issue time; the sidecar gives when the create ran. Count the slow ones
# (>= 150 ms) issued before the create and during it, a few ms away from its edges (the
# clocks of fio's log and of the engine start < 1 ms apart; librbd holds back exactly the
# writes issued after the create began, so they sit right at its start).
read -r t0 t1 < <(json "$S" "' '.join(str(e[k]) for e in d['events'] if e['op']=='create' for k in ('t','t_end'))")
read -r before during < <(python3 - "$LOG" "$t0" "$t1" <<'PY'
import sys
t0, t1 = float(sys.argv[2]), float(sys.argv[3])
b = d = 0
for line in open(sys.argv[1]):
    f = [x.strip() for x in line.split(",")]
    done_s, lat_s = int(f[0]) / 1e3, int(f[1]) / 1e9
    if lat_s < 0.150:
        continue
    issued = done_s - lat_s
    if issued < t0 - 0.005:
        b += 1
    elif t0 + 0.0005 <= issued <= t1 - 0.005:
        d += 1
print(b, d)
PY
)
eng_base=$(json "$S" "[p['slow'] for p in d['phases'] if p['name']=='baseline'][0]")
eng_crt=$(json "$S" "[p['slow'] for p in d['phases'] if p['name']=='creating snap1'][0]")
ok "create ran ${t0}..${t1}s; fio's log: $before slow writes issued before it, $during during it; engine: baseline $eng_base, creating snap1 $eng_crt"
[ "$during" -ge 1 ] || { awk -F, '$2 >= 150000000' "$LOG" | head; fail "the create stalled no write for 150 ms (fio's log): nothing to attribute"; }
[ "$eng_crt" -ge "$during" ] || fail "creating snap1 has $eng_crt slow writes, fio's log shows $during issued during the create"
[ "$eng_base" -le $((before + 1)) ] || fail "baseline has $eng_base slow writes, fio's log shows $before issued before the create: stalled writes booked to the baseline"
ok "the writes the create stalled are booked to 'creating snap1', not the baseline"

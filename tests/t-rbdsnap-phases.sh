#!/bin/bash
# Description: rbdsnap: an I/O belongs to the phase it was issued in - the writes a snapshot create stalls are booked to "creating snapN" (four creates, paced writer) (oracle: fio's own per-I/O latency log), and 'after' is reached (snap_after)
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
python3 -c "import sys; sys.exit(not $after >= 0.9)" || fail "'after' lasted ${after}s, snap_after=1"
ok "'after' measured for ${after}s although runtime=6 was too short (snap_after extended it)"

# The oracle: fio's own log (completion time in ms since the job began, total latency in ns)
# gives each write's issue time; the sidecar gives when each create ran. Count the writes issued
# before the first create, and for each create those issued during it and within 2 ms of its
# edges: the engine's "creating snapN" phases must hold exactly those, whatever their latency.
python3 - "$LOG" "$S" <<'PY' || fail "the engine's phases do not hold the writes fio's log shows issued in them"
import json, sys
E = 0.002
d = json.load(open(sys.argv[2]))
creates = [(e["t"], e["t_end"]) for e in d["events"] if e["op"] == "create"]
phase = {p["name"]: p for p in d["phases"]}
issued = []
for line in open(sys.argv[1]):
    f = [x.strip() for x in line.split(",")]
    done_s, lat_s = int(f[0]) / 1e3, int(f[1]) / 1e9
    issued.append((done_s - lat_s, lat_s))
t0 = creates[0][0]
before = sum(1 for i, _ in issued if i < t0 - E)
edge = sum(1 for i, _ in issued if t0 - E <= i < t0 + E)
base = phase["baseline"]["ios"]
print(f"ok: baseline: engine {base}, fio's log {before} issued before the first create (+{edge} at its edge)")
bad = 0 if before <= base <= before + edge else 1
total = 0
for n, (a, b) in enumerate(creates, 1):
    during = [l for i, l in issued if a + E <= i < b - E]
    edges = sum(1 for i, _ in issued if abs(i - a) < E or abs(i - b) < E)
    slow = sum(1 for l in during if l >= 0.150)
    p = phase.get(f"creating snap{n}", {"ios": 0, "slow": 0})
    total += len(during)
    ok = len(during) <= p["ios"] <= len(during) + edges and p["slow"] >= slow
    print(f"{'ok' if ok else 'FAIL'}: create {n} ran {a:.3f}..{b:.3f}s: fio's log shows {len(during)} "
          f"writes issued during it (+{edges} at its edges, {slow} >= 150 ms); engine: creating snap{n} "
          f"{p['ios']} ({p['slow']} slow)")
    bad |= not ok
if total < 1:
    print("FAIL: fio's log shows no write issued during any create: nothing to attribute")
    bad = 1
sys.exit(bad)
PY
ok "the writes issued while a create ran - and stalled by it - are booked to 'creating snapN', not to the phase before"

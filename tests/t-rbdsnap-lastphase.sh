#!/bin/bash
# Description: rbdsnap: the last phase ('after') ends where fio stopped issuing, not after fio's wait for the I/Os in flight
# Timeout: 180
# In full: rbdsnap: the last phase ('after') ends where fio stopped issuing, not after fio's wait for
# the I/Os in flight (librbd QoS at 25 IOPS, 16 in flight: a 0.6 s wait) (oracle: fio's own latency
# log, issue = completion - latency)
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-lastphase
rbd_image "$IMG" 64M
# cache off, librbd's own QoS: 16 writes in flight at 25 IOPS wait ~0.64 s at the end
rbd_nocache_conf
printf 'rbd_qos_iops_limit = 25\n' >>"$TMP/ceph.conf"
CEPH_CONF=$TMP/ceph.conf run_fio lp --name=lp --ioengine="external:$B/rbdsnap.so" --clientname=admin \
	--pool=rbd --rbdname="$IMG" --invalidate=0 --rw=randwrite --bs=4k --iodepth=16 \
	--time_based --runtime=3 --snap_start_delay=1 --snap_count=1 --snap_hold=1 --snap_after=1 \
	--write_lat_log="$TMP/io" --log_avg_msec=0 --snap_json="$TMP/lp.snap.json"
rc=$?
cat "$TMP/lp.err"
[ $rc = 0 ] || fail "fio exited $rc"
LOG=$(ls "$TMP"/io_lat.*log | head -1)
[ -s "$LOG" ] || fail "fio wrote no latency log"
python3 - "$LOG" "$TMP/lp.snap.json" <<'PY' || fail "the 'after' phase does not end at fio's last issue"
import json, sys
d = json.load(open(sys.argv[2]))
issued, done = [], []
for line in open(sys.argv[1]):
    f = [x.strip() for x in line.split(",")]
    issued.append(int(f[0]) / 1e3 - int(f[1]) / 1e9)
    done.append(int(f[0]) / 1e3)
start = max(e["t_end"] for e in d["events"] if e["op"] == "remove")   # 'after' begins
ph = [p for p in d["phases"] if p["name"] == "after"][0]
last, drain = max(issued), max(done) - max(issued)
# Which side of the boundary an issue within W of it fell on, the two clocks cannot tell: fio's
# log has 1 ms resolution and t_end 1 ms, and the engine stamps t_end when its scheduler thread
# runs again after the removal returns (ms late on a busy host); librbd's QoS releases writes
# in pairs, so a pair may sit right at the boundary.
W = 0.005
n = sum(1 for i in issued if i >= start)
n_lo, n_hi = sum(1 for i in issued if i >= start + W), sum(1 for i in issued if i >= start - W)
want = last - start
print(f"fio's log: {n} writes issued in 'after' ({start:.3f}..{last:.3f} s, {want:.3f} s; {n_lo}..{n_hi} "
      f"within {W * 1e3:.0f} ms of its start), the last completion {drain:.3f} s after the last issue; "
      f"engine: 'after' {ph['ios']} writes, {ph['seconds']:.3f} s")
if drain < 0.3:
    print("FAIL: fio waited only %.3f s for the I/Os in flight: the test cannot tell" % drain); sys.exit(1)
# the engine's phase may end up to one issue gap (40 ms at 25 IOPS) after fio's last issue
ok = n_lo - 1 <= ph["ios"] <= n_hi + 1 and want - 0.01 <= ph["seconds"] <= want + 0.1
print(("ok" if ok else "FAIL") + f": 'after' lasted {ph['seconds']:.3f} s in the engine, {want:.3f} s to the last "
      f"issue by fio's log; IOPS {ph['ios'] / ph['seconds']:.1f} vs {n / want:.1f}")
sys.exit(0 if ok else 1)
PY
ok "'after' ends at the last issue, fio's final wait for the I/Os in flight is not in it"

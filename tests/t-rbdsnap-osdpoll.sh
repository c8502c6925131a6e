#!/bin/bash
# Description: rbdsnap: reading the OSDs' slow-op histories does not stall the health polls while an OSD hangs
# Timeout: 300
# In full: rbdsnap: reading the OSDs' slow-op histories (osd_slow_ops) does not stall the health polls
# - with osd.0 hung (SIGSTOP: not marked down, its commands unanswered) for 6 s mid-run (well under
# the PGs' 16 s read lease) the sidecar still has a health sample in most seconds of the outage (1 s
# interval), and fio ends within runtime + a bound
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
need_own_cluster
have_backend RBD || skip "configure found no librbd"
wait_healthy 120
IMG=rbdsnap-test-osdpoll
RUNTIME=30 DOWN=6 GRACE=45
OSD=$(daemon_pid osd 0) || fail "no osd.0"
# A hang longer than the PGs' read lease (osd_heartbeat_grace 20 s x
# osd_pool_default_read_lease_ratio 0.8 = 16 s) leaves a size-1 pool's writes
# "waiting for readable" for good on Ceph 16.2 (seen under load with 16 s,
# and once with 10 s at load 10): the hang is 6 s (still longer than a poll
# interval, so serial polls would lose most of its seconds), fio is killed
# if it outlives its bound (a wedged OSD: fail, not a runner timeout), and an
# OSD left with slow ops is restarted at exit for the tests that follow.
unwedge() {
	kill -CONT "$OSD" 2>/dev/null
	ceph health 2>/dev/null | grep -q 'slow ops' || return 0
	echo "osd.0 kept slow ops after the hang: restarting it for the tests that follow"
	daemon_stop osd 0 && daemon_start osd 0 && wait_healthy 180
}
at_exit unwedge
rbd_image "$IMG" 64M
s0=$SECONDS
"$FIO" --name=op --ioengine="external:$B/rbdsnap.so" --clientname=admin --pool=rbd --rbdname=$IMG \
	--invalidate=0 --rw=randwrite --bs=4k --iodepth=4 --rate_iops=100 --time_based --runtime=$RUNTIME \
	--snap_interval=4 --snap_keep=2 --health_interval=1 --osd_slow_ops=1 --snap_json="$TMP/op.snap.json" \
	--output-format=json --output="$TMP/op.json" 2>"$TMP/op.err" &
fp=$!
( sleep $((RUNTIME + DOWN + GRACE + 20)); kill -9 $fp 2>/dev/null ) & watchdog=$!
at_exit "kill $watchdog"
sleep 6
t_stop=$((SECONDS - s0))
# hung, not stopped: a stopped OSD is marked down and commands to it fail at once
kill -STOP "$OSD"
sleep $DOWN
t_up=$((SECONDS - s0))
kill -CONT "$OSD"
ok "osd.0 hung from ${t_stop} s to ${t_up} s"
fio_wait $fp op "" "$TMP/op.err"
rc=$?
took=$((SECONDS - s0))
cat "$TMP/op.err"
[ $rc = 0 ] || fail "fio exited $rc"
[ $took -le $((RUNTIME + DOWN + GRACE)) ] || fail "fio took $took s (bound $RUNTIME + $DOWN + $GRACE s)"
ok "fio ended in $took s (bound $((RUNTIME + DOWN + GRACE)) s)"
# the oracle: the seconds of the outage (its first and last second left out) that hold a health sample
python3 - "$TMP/op.snap.json" $((t_stop + 1)) $((t_up - 1)) <<'PY' || fail "health polls stalled while osd.0 was down"
import json, sys
d = json.load(open(sys.argv[1]))
a, b = int(sys.argv[2]), int(sys.argv[3])
secs = {int(s["t"]): s["health"] for s in d["timeline"]}
got = [t for t in range(a, b + 1) if secs.get(t)]
need = (b - a + 1) * 3 // 4
print(f"{'ok' if len(got) >= need else 'FAIL'}: seconds {a}..{b} of the outage: {len(got)} with a health "
      f"sample (need {need}): {got}; run: {d['health']['polls']} polls in {d['seconds']:.0f} s")
sys.exit(len(got) < need)
PY
ok "health sampled through the outage"
wait_healthy 180

#!/bin/bash
# Description: rbdsnap marks its OSD slow-op count a lower bound when an OSD did not answer its last read
# Timeout: 420
# In full: rbdsnap marks its OSD slow-op count a lower bound when an OSD did not answer its last read
# - on a replicated cluster of its own (tools/cluster --profile replicated: 3 OSDs, size 3) osd.2 is
# stopped mid-run (the writes go on with 2 of 3): its process is gone (/proc) before fio ends, so its
# records since the last read are missing and the sidecar must say lower_bound
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
command -v ceph-osd >/dev/null || skip "no ceph-osd (tools/deps)"
have_backend RBD || skip "configure found no librbd"
side_cluster test-osddown
D=$DBFIO_CLUSTER_DIR
"$CL" down >/dev/null 2>&1
"$CL" up --profile replicated >"$TMP/up.log" 2>&1 || { cat "$TMP/up.log"; fail "tools/cluster up --profile replicated failed"; }
export CEPH_CONF=$D/ceph.conf
CDIR=$D	# lib-fault's daemon_pid/daemon_stop
IMG=rbdsnap-test-osddown
rbd create -p rbd --size 64M "$IMG" || fail "rbd create $IMG"
rbd_nocache_conf
s0=$SECONDS
CEPH_CONF=$TMP/ceph.conf "$FIO" --name=od --ioengine="external:$B/rbdsnap.so" --clientname=admin --pool=rbd --rbdname="$IMG" \
	--invalidate=0 --rw=randwrite --bs=4k --iodepth=4 --rate_iops=50 --time_based --runtime=10 \
	--health_interval=1 --osd_slow_ops=1 --snap_json="$TMP/od.snap.json" \
	--output-format=json --output="$TMP/od.json" 2>"$TMP/od.err" &
fp=$!
# stop osd.2 2 s after the engine opened the image (its watch is on it), so
# that the engine reads osd.2's history before and not after: under load fio
# and its clients take seconds to start
for i in $(seq 100); do
	rbd status -p rbd "$IMG" --format json 2>/dev/null | grep -q '"address"' && break
	kill -0 $fp 2>/dev/null || break
	sleep 0.2
done
sleep 2
kill -0 $fp 2>/dev/null || { cat "$TMP/od.err"; fail "fio ended before osd.2 was stopped"; }
daemon_stop osd 2
kill -0 $fp 2>/dev/null || fail "fio ended before osd.2 was gone: the test proves nothing"
ok "osd.2 stopped $((SECONDS - s0)) s into the run, fio still running"
fio_wait $fp od "" "$TMP/od.err"
rc=$?
grep -v "^ *[0-9]" "$TMP/od.err" | head -12
[ $rc = 0 ] || fail "fio exited $rc"
# the oracle: osd.2's process was gone (/proc) before fio's end and still is;
# Ceph's own map says down once the mon has noticed (shown, not required: a
# slow mon marks it down only after the heartbeat grace)
[ -z "$(daemon_pid osd 2)" ] || fail "osd.2 runs again: the test proves nothing"
up2=$(timeout 30 ceph osd dump -f json | py json - "[o['up'] for o in d['osds'] if o['osd'] == 2][0]")
echo "ceph osd dump: osd.2 up=$up2"
read -r polls count lower <<<"$(json "$TMP/od.snap.json" \
	"'%d %d %s' % (d['osd_slow_ops']['polls'], d['osd_slow_ops']['count'], d['osd_slow_ops']['lower_bound'])")"
echo "osd.2 gone at the end; engine: $polls read(s), count $count, lower_bound $lower"
[ "$polls" -ge 1 ] || fail "the engine read no OSD history"
[ "$lower" = True ] || fail "osd.2 was down at the last read and lower_bound is $lower"
grep -q "did not answer the last read" "$TMP/od.err" || fail "the report does not say an OSD did not answer"
ok "an OSD down at the last read: the count ($count) is marked a lower bound"

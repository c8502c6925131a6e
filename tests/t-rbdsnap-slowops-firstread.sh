#!/bin/bash
# Description: rbdsnap marks its OSD slow-op count a lower bound when records were lost before its first read
# Timeout: 180
# In full: rbdsnap marks its OSD slow-op count a lower bound when records were lost before its first
# read - every op slow (osd_op_history_slow_op_threshold 0) into a 5-record history, a 3 s run (the
# only read is the last one, at the end): the OSDs' own op_w counters (perf dump) show far more writes
# than the history holds, so the sidecar must say lower_bound
. "$(dirname "$0")/lib.sh"
# every OSD's slow-op history is reconfigured while it runs: a cluster of the
# project's own only, never somebody else's
own_cluster_only "reconfigures every OSD's slow-op history (osd_slow_op_history)"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-firstread
rbd_image "$IMG" 64M
rbd_nocache_conf	# each write reaches the OSD when it is issued
osd_slow_op_history 5	# every op kept, 5 records an OSD, undone at exit
# op_w: the client writes the OSDs served (Ceph's perf counters, not the engine's)
op_w() {
	local o n=0
	for o in $osds; do
		n=$((n + $(timeout 30 ceph tell "osd.$o" perf dump -f json | py json - "d['osd']['op_w']")))
	done
	echo $n
}
w0=$(op_w)
CEPH_CONF=$TMP/ceph.conf run_fio fr --name=fr --ioengine="external:$B/rbdsnap.so" --clientname=admin \
	--pool=rbd --rbdname="$IMG" --invalidate=0 --rw=randwrite --bs=4k --iodepth=4 --rate_iops=100 \
	--time_based --runtime=3 --health_interval=1 --osd_slow_ops=1 --snap_json="$TMP/fr.snap.json"
rc=$?
w1=$(op_w)
grep -v "^ *[0-9]" "$TMP/fr.err" | head -12
[ $rc = 0 ] || fail "fio exited $rc"
read -r polls count lower <<<"$(json "$TMP/fr.snap.json" \
	"'%d %d %s' % (d['osd_slow_ops']['polls'], d['osd_slow_ops']['count'], d['osd_slow_ops']['lower_bound'])")"
echo "OSD writes during the run (op_w): $((w1 - w0)); engine: $polls read(s), count $count, lower_bound $lower"
[ "$polls" -ge 1 ] || fail "the engine read no OSD history"
[ $((w1 - w0)) -gt 50 ] || fail "only $((w1 - w0)) writes reached the OSDs: the test proves nothing"
[ "$count" -le 5 ] || fail "count $count from a 5-record history in one read"
[ "$lower" = True ] || fail "$((w1 - w0)) slow writes into a 5-record history, $count counted, and lower_bound is $lower"
ok "$((w1 - w0)) writes, every one slow, a 5-record history: $count counted, marked a lower bound"

#!/bin/bash
# Description: rbdsnap counts only its own client's OSD slow-op records, not another client's
# Timeout: 240
# In full: rbdsnap counts only its own client's OSD slow-op records - with every op slow
# (osd_op_history_slow_op_threshold 0: every op is kept, history 20000) and a second client (rbd bench
# on another image) writing during the run, the engine's count equals the hand count of
# `osd_op(client.<id>.` records in `ceph tell osd.N dump_historic_slow_ops` for the sidecar's client
# id in the run's window, and the other image's records are not in it
. "$(dirname "$0")/lib.sh"
# every OSD's slow-op history is reconfigured while it runs: a cluster of the
# project's own only, never somebody else's
own_cluster_only "reconfigures every OSD's slow-op history (osd_slow_op_history)"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-own
OTHER=rbdsnap-test-other
rbd_image "$IMG" 64M
rbd_image "$OTHER" 64M
rbd_nocache_conf	# each write reaches the OSD when it is issued
osd_slow_op_history 20000	# every op kept, 20000 records an OSD, undone at exit
# the other client: 4 kB random writes to its own image while the job runs
( sleep 2; rbd bench --io-type write --io-size 4K --io-threads 2 --io-pattern rand --io-total 3M "rbd/$OTHER" \
	>"$TMP/bench.log" 2>&1 ) &
bp=$!
CEPH_CONF=$TMP/ceph.conf run_fio own --name=own --ioengine="external:$B/rbdsnap.so" --clientname=admin \
	--pool=rbd --rbdname="$IMG" --invalidate=0 --rw=randwrite --bs=4k --iodepth=4 --rate_iops=100 \
	--time_based --runtime=8 --health_interval=1 --osd_slow_ops=1 --snap_json="$TMP/own.snap.json"
rc=$?
wait $bp || { cat "$TMP/bench.log"; fail "rbd bench on $OTHER failed"; }
grep -v "^ *[0-9]" "$TMP/own.err" | head -20
[ $rc = 0 ] || fail "fio exited $rc"
for o in $osds; do
	timeout 60 ceph tell "osd.$o" dump_historic_slow_ops -f json >"$TMP/slow.$o.json" || fail "dump_historic_slow_ops osd.$o"
done
prefix=$(rbd info --format json "rbd/$OTHER" | py json - "d['block_name_prefix']")
# The oracle: Ceph's own records, counted by hand (python, not the engine's parser)
python3 - "$TMP/own.snap.json" "$prefix" "$TMP"/slow.*.json <<'PY' || fail "the engine's count is not its client's records"
import json, sys, datetime
side, prefix, dumps = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3:]
o = side["osd_slow_ops"]
cid, t0, t1 = o["client_id"], o["t0_unix"], o["t_end_unix"]
own = repops = other_img = others = 0
for f in dumps:
    d = json.load(open(f))
    assert d["num to keep"] >= 20000, f"{f}: history size {d['num to keep']}"
    assert len(d["Ops"]) < d["num to keep"], f"{f}: the history is full: records lost"
    for op in d["Ops"]:
        t = datetime.datetime.strptime(op["initiated_at"], "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()
        if not t0 <= t <= t1:
            continue
        desc = op["description"]
        if desc.startswith(f"osd_op(client.{cid}."):
            own += 1
        elif desc.startswith(f"osd_repop(client.{cid}."):
            repops += 1
        else:
            others += 1
            other_img += prefix + "." in desc
print(f"client.{cid}, window {t1 - t0:.3f} s: by hand {own} own osd_op records, {repops} repops, {others} others "
      f"({other_img} on the other image); engine: count {o['count']}, other_clients {o['other_clients']}, "
      f"repops {o['repops']}, lower_bound {o['lower_bound']}")
ok = True
if other_img < 10:
    print(f"FAIL: only {other_img} records of the other client's image in the run: the test proves nothing")
    ok = False
if own < 100:
    print(f"FAIL: only {own} own slow records: the history did not keep every op")
    ok = False
if o["count"] != own:
    print(f"FAIL: the engine counted {o['count']}, Ceph has {own} records of client.{cid}")
    ok = False
if o["repops"] != repops:
    print(f"FAIL: the engine's repops {o['repops']} != {repops}")
    ok = False
if o["other_clients"] != others:
    print(f"FAIL: the engine's other_clients {o['other_clients']} != {others}")
    ok = False
phases = sum(p["osd_slow_ops"] for p in side["phases"])
if phases != o["count"]:
    print(f"FAIL: the phases hold {phases} records, the total says {o['count']}")
    ok = False
sys.exit(not ok)
PY
ok "only the job's own client's slow-op records counted"

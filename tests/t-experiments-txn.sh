#!/bin/bash
# Description: seed 001 and seed 000's sysbench table on the txn engine, short, local only (no Ceph)
# Timeout: 300
# In full: seed 001 and seed 000's sysbench table on the txn engine, short, local only (no Ceph): seed
# 001's page gives tx/s per connection count as the median of fio's own JSON over 2 repeats, its
# ext4-on-RBD claims are 'not attempted' with the reason; seed 000's oltp job runs oltp_read_write
# with the MariaDB profile and the page shows it
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"
[ -f "$B/txn.so" ] || fail "build/txn.so is not built (make)"
export DBFIO_EXP_LOCAL=$TMP/local DBFIO_GLUSTER_DIR=$TMP/no-gluster
unset CEPH_CONF GLUSTER_MNT
out=$TMP/out
"$REPO/lab/experiment" --short --repeats 2 --only seed001 --out "$out" >"$TMP/exp.out" 2>"$TMP/exp.err" ||
	{ cat "$TMP/exp.err"; fail "lab/experiment --short --only seed001 failed"; }
page=$out/seed001-pgbench-rbd.md
[ -f "$page" ] || fail "no page $page"
# the seed's run folder is packed (one line a file); unpacked, it is the folders the sweeps wrote
[ -f "$out/runs/seed001.jsonl" ] && [ ! -e "$out/runs/seed001" ] || fail "the run folder is not packed into runs/seed001.jsonl"
"$REPO/lab/runpack" unpack "$out/runs/seed001.jsonl" "$out/runs/seed001" 2>/dev/null || fail "runs/seed001.jsonl does not unpack"
# the oracle: fio's JSON of each point (group_reporting: the connections' write IOPS = tps),
# the median of the 2 repeats computed here
for c in 4 16 64; do
	want=$(py json-median "d['jobs'][0]['write']['iops']" "$out/runs/seed001/local/r"{1,2}"/CONNS=$c/point.json") ||
		fail "no fio JSON with tx/s for $c connections"
	grep -qE "^\| $c \| $want \([0-9,]+–[0-9,]+\) \|" "$page" || { grep "^| $c " "$page"; fail "$c connections: the page does not give the median $want of fio's JSON"; }
	j=$out/runs/seed001/local/r1/CONNS=$c/point.json
	[ "$(json "$j" "len(d['jobs'])")" = 1 ] || fail "$c connections: not one group-reported job"
	n=$(grep -c "^txn: job pgbench" "$out/runs/seed001/local/r1/CONNS=$c/fio.err")
	[ "$n" = "$c" ] || fail "$c connections: $n txn connections ran"
	grep -q "waldir=\|WALDIR=" "$out/runs/seed001/local/r1/CONNS=$c/point.txt" || fail "no WALDIR in the point's command"
done
ok "seed 001 local: tx/s at 4, 16, 64 connections = the median of fio's JSON over 2 repeats, one fio job per connection"
grep -qE '^\| `scaling-4-to-64` \|.*\| not attempted: no measurement of ext4rbd/tps-64' "$page" ||
	fail "scaling-4-to-64 is not 'not attempted' without Ceph"
grep -q "CEPH_CONF is not set: the ext4-on-RBD target was skipped" "$page" || fail "the page does not say the ext4-on-RBD target was skipped"
grep -q "The seed's 5 GB database and 1 GB shared_buffers here" "$page" || fail "the page does not say what the seed's sizes mean here"
grep -q 'tools/sweep jobs/seed001-pgbench.fio' "$page" || fail "the page does not give the exact command"
[ -z "$(ls -A "$TMP/local/seed001" 2>/dev/null)" ] || fail "seed 001 left its database in $TMP/local/seed001"
ok "seed 001 page: claims not attempted without Ceph, sizes explained, command given, scratch removed"

# The pack is the source the page is recomputed from (--replay: no fio), also once --strip cut
# the 64 connections' fio.err (65 lines): the database's summary line (commits/flush) stays
"$REPO/lab/experiment" --replay --out "$out" --only seed001 >"$TMP/replay.out" 2>&1 ||
	{ cat "$TMP/replay.out"; fail "the page is not what its packed runs give (lab/experiment --replay)"; }
python3 - "$REPO" "$out/runs/seed001" <<'PY' || fail "--strip of the unpacked runs failed"
import importlib.machinery, os, sys
X = importlib.machinery.SourceFileLoader("experiment", os.path.join(sys.argv[1], "lab", "experiment")).load_module()
X.strip_runs(sys.argv[2])
X.runpack.pack_folder(sys.argv[2], sys.argv[2] + ".jsonl")
PY
"$REPO/lab/runpack" cat "$out/runs/seed001.jsonl" "local/r1/CONNS=64/fio.err" >"$TMP/err64"
grep -q 'more lines dropped' "$TMP/err64" || fail "--strip did not cut the 64 connections' fio.err"
grep -q '^txn: database .*avg_group=' "$TMP/err64" || fail "--strip dropped the database's summary line"
"$REPO/lab/experiment" --replay --out "$out" --only seed001 >"$TMP/replay2.out" 2>&1 ||
	{ cat "$TMP/replay2.out"; fail "--strip dropped what the page is recomputed from"; }
ok "seed 001: the page recomputed from its packed runs (lab/experiment --replay), stripped or not"

# seed 000's sysbench job through the experiment's own sweep, 2 s (local target only)
py seed000-oltp "$TMP" || fail "seed 000's oltp job on the txn engine"
ok "seed 000 sysbench: oltp_read_write, flavor mariadb, tx/s read from fio's JSON"

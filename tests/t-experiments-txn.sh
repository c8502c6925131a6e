#!/bin/bash
# Description: seed 001 and seed 000's sysbench table on the txn engine, short, local only (no Ceph): seed 001's page gives tx/s per connection count as the median of fio's own JSON over 2 repeats, its ext4-on-RBD claims are 'not attempted' with the reason; seed 000's oltp job runs oltp_read_write with the MariaDB profile and the page shows it
# Timeout: 300
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"
[ -f "$B/txn.so" ] || fail "build/txn.so is not built (make)"
export DBFIO_EXP_LOCAL=$TMP/local DBFIO_GLUSTER_DIR=$TMP/no-gluster
unset CEPH_CONF GLUSTER_MNT
out=$TMP/out
"$REPO/tools/experiment" --short --repeats 2 --only seed001 --out "$out" >"$TMP/exp.out" 2>"$TMP/exp.err" ||
	{ cat "$TMP/exp.err"; fail "tools/experiment --short --only seed001 failed"; }
page=$out/seed001-pgbench-rbd.md
[ -f "$page" ] || fail "no page $page"
# the oracle: fio's JSON of each point (group_reporting: the connections' write IOPS = tps),
# the median of the 2 repeats computed here
for c in 4 16 64; do
	want=$(python3 - "$out/runs/seed001/local" "$c" <<'PY'
import json, sys, statistics
v = [json.load(open(f"{sys.argv[1]}/r{r}/CONNS={sys.argv[2]}/point.json"))["jobs"][0]["write"]["iops"] for r in (1, 2)]
assert all(x > 0 for x in v), v
print(f"{statistics.median(v):,.0f}")
PY
) || fail "no fio JSON with tx/s for $c connections"
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

# seed 000's sysbench job through the experiment's own sweep, 2 s (local target only)
REPO=$REPO python3 - "$TMP" <<'PY' || fail "seed 000's oltp job on the txn engine"
import sys, os, json, argparse, importlib.machinery
tmp = sys.argv[1]
sys.path.insert(0, os.path.join(os.environ["REPO"], "tools", "experiment.d"))
import common, seed000
ctx = common.Ctx(argparse.Namespace(out=os.path.join(tmp, "out0"), short=True, repeats=1), "seed000")
env = {**common.target_env(ctx, "local", {"STORE": "posix"}, "oltp"), "RUNTIME": 2, "ROWS": 20000}
r = ctx.sweep("jobs/seed000-oltp.fio", {"CLIENTS": "1"}, env, "local/oltp/r1")
d = common.point(r, CLIENTS=1)
assert d and d["jobs"][0]["jobname"] == "oltp" and d["jobs"][0]["error"] == 0, d
err = open(os.path.join(common.pdir(r, CLIENTS=1), "fio.err")).read()
assert "profile=oltp_read_write flavor=mariadb" in err, err[-400:]
t = seed000.times({"install-db": r, "ddl": r, "records": r, "oltp": r})
assert abs(t["oltp-txps"] - d["jobs"][0]["write"]["iops"]) < 1e-9 and t["oltp-txps"] > 0, t
print(f"seed 000 oltp: {t['oltp-txps']:.0f} tx/s")
PY
ok "seed 000 sysbench: oltp_read_write, flavor mariadb, tx/s read from fio's JSON"

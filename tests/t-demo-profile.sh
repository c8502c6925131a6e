#!/bin/bash
# Description: make demo's profile (tools/experiment --demo): one run per point with the DEMO marker on the output and the page and the claims recapped at the end (seed 002, local only); seed 003's demo figures from a hand-made SNAPS=3-only sidecar: the first snapshot's create stands for the SNAPS=1 run, CoW at 1 and 5 snapshots
# Timeout: 300
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"

# seed 002 through --demo: no Ceph, no GlusterFS (the local column only)
out=$TMP/demo
env -u CEPH_CONF -u GLUSTER_MNT DBFIO_EXP_LOCAL="$TMP/local" DBFIO_GLUSTER_DIR="$TMP/no-gluster" \
	"$REPO/tools/experiment" --demo --only seed002 --out "$out" >"$TMP/exp.out" 2>"$TMP/exp.err" ||
	{ cat "$TMP/exp.err"; fail "tools/experiment --demo --only seed002 failed"; }
grep -q '^demo: one run per point (repeats 1), see make results for spread' "$TMP/exp.out" ||
	fail "no 'one run per point' marker at the top of the output"
grep -q '^# demo summary' "$TMP/exp.out" || fail "no closing summary of the claims"
sed -n '/^# demo summary/,$p' "$TMP/exp.out" | grep -qE '^  export-5.9x +not attempted' ||
	fail "the closing summary does not list seed 002's claims"
page=$out/seed002-mysql-glusterfs.md
grep -q 'DEMO run (make demo: one run per point, see make results for spread)' "$page" || fail "the page is not marked DEMO"
# one run per point: the local export of repeat 1 only (tools/sweep's run folders)
[ -d "$out/runs/seed002/local/export/r1" ] || fail "no run folder $out/runs/seed002/local/export/r1"
[ ! -e "$out/runs/seed002/local/export/r2" ] || fail "--demo ran a second repeat"
ok "--demo: one run per point, marker on output and page, claims recapped at the end"

# seed 003's demo measurements on a hand-made run: baseline 100 IOPS; the first
# create 2 s with 20 I/Os and snap1 2 s with 10 I/Os -> (20+10)/4 = 7.5 IOPS;
# snap3 5 IOPS; CoW 1 snapshot 200/220 IOPS, 5 snapshots 180/160
REPO=$REPO python3 - "$TMP" <<'PY' || fail "seed 003's demo figures"
import sys, os, json, argparse
tmp = sys.argv[1]
sys.path.insert(0, os.path.join(os.environ["REPO"], "tools", "experiment.d"))
import common, seed003, seed003_measure, claims
a = argparse.Namespace(out=os.path.join(tmp, "out3"), short=True, demo=True, repeats=1)
ctx = common.Ctx(a, "seed003")
assert seed003.snaps(ctx) == (3,) and seed003.reps(ctx) == [1] and seed003.cow_counts(ctx) == (1, 5)
assert seed003.sizes(ctx, "seedlike")[0] == "128M"
full = common.Ctx(argparse.Namespace(out=tmp, short=False, repeats=3), "seed003")
assert seed003.snaps(full) == (1, 3) and seed003.reps(full) == [1, 2, 3] and seed003.cow_counts(full) == tuple(range(6))
ph = lambda n, s, ios: {"name": n, "seconds": s, "ios": ios, "iops": ios / s, "p50_us": 30e3, "p99_us": 900e3,
                        "max_us": 2e6, "slow": 1, "osd_slow_ops": 2}
run = os.path.join(tmp, "rbdsnap")
d = common.pdir(run, SNAPS=3, REP=1)
os.makedirs(d)
json.dump({"phases": [ph("baseline", 5, 500), ph("creating snap1", 2, 20), ph("snap1", 2, 10), ph("snap3", 6, 30),
                      ph("after", 4, 240)], "health": {"slow_ops_max": 7}, "osd_slow_ops": {"count": 8}},
          open(os.path.join(d, "snaps.json"), "w"))
cow = {}
for n, (m1, m2) in ((1, (200, 220)), (5, (180, 160))):
    cow[n] = os.path.join(tmp, f"cow-{n}")
    os.makedirs(common.pdir(cow[n], SNAPS=n))
    json.dump({"jobs": [{"jobname": "measure1", "write": {"iops": m1}}, {"jobname": "measure2", "write": {"iops": m2}}]},
              open(os.path.join(common.pdir(cow[n], SNAPS=n), "point.json"), "w"))
ctx.s003 = {"seedlike": (run, cow)}
seed003_measure.measure(ctx)
m = ctx.m
assert m["rbd/iops-snap1"] == [7.5] and m["rbd/iops-baseline-1"] == [100] and m["rbd/iops-baseline-3"] == [100], m
assert m["rbd/iops-snap3"] == [5] and m["rbd/osd-slow-ops-3"] == [8] and m["rbd/iops-after-3"] == [60], m
assert m["rbd/cow-iops-1"] == [200, 220] and m["rbd/cow-iops-5"] == [180, 160], m
_, _, judged = claims.render(os.path.join(os.environ["REPO"], "results", "claims", "seed003.json"), ctx.m)
v = {c["id"]: r["verdict"] for c, r in judged}
# 7.5/100 = 0.075 <= 0.1; 5/100 <= 0.1; 16 slow records >= 1; after 60/100 >= 0.5; 5 vs 1 snapshots 0.9, 0.73 < 1
assert v["snap-during-run"] == "reproduced" and v["three-snaps-collapse"] == "reproduced", v
assert v["slow-requests"] == "reproduced" and v["slower-every-snapshot"] == "reproduced", v
runs = seed003.s003_runs(run, ctx)
rows = seed003.s003_summary(runs, "x")
assert [r[3] for r in rows] == ["snap3", "creating snap1"], rows
fnd = seed003.s003_findings(runs, "x")
assert "**5 % of the baseline's IOPS**" in fnd and "being created: 10 % of the baseline" in fnd, fnd
print("seed 003 demo:", v)
PY
ok "seed 003 demo: SNAPS=3 only, the first create gives snap-during-run (7.5/100), CoW 1 vs 5, verdicts"

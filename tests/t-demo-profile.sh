#!/bin/bash
# Description: make demo's profile (lab/experiment --demo): one run per point, DEMO marker, claims recapped
# Timeout: 300
# In full: make demo's profile (lab/experiment --demo): one run per point with the DEMO marker on
# the output and the page and the claims recapped at the end (seed 002, local only); seed 003's demo
# figures from a hand-made SNAPS=3-only sidecar: the first snapshot's create stands for the SNAPS=1
# run, CoW at 1 and 5 snapshots
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"

# seed 002 through --demo: no Ceph, no GlusterFS (the local column only)
out=$TMP/demo
env -u CEPH_CONF -u GLUSTER_MNT DBFIO_EXP_LOCAL="$TMP/local" DBFIO_GLUSTER_DIR="$TMP/no-gluster" \
	"$REPO/lab/experiment" --demo --only seed002 --out "$out" >"$TMP/exp.out" 2>"$TMP/exp.err" ||
	{ cat "$TMP/exp.err"; fail "lab/experiment --demo --only seed002 failed"; }
grep -q '^demo: one run per point (repeats 1), see make results for spread' "$TMP/exp.out" ||
	fail "no 'one run per point' marker at the top of the output"
grep -q '^# demo summary' "$TMP/exp.out" || fail "no closing summary of the claims"
sed -n '/^# demo summary/,$p' "$TMP/exp.out" | grep -qE '^  export-5.9x +not attempted' ||
	fail "the closing summary does not list seed 002's claims"
page=$out/seed002-mysql-glusterfs.md
grep -q 'DEMO run (make demo: one run per point, see make results for spread)' "$page" || fail "the page is not marked DEMO"
# one run per point: the local export of repeat 1 only (tools/sweep's run folders, packed)
"$REPO/lab/runpack" ls "$out/runs/seed002.jsonl" >"$TMP/pack.ls" || fail "no run pack $out/runs/seed002.jsonl"
grep -q '^local/export/r1/' "$TMP/pack.ls" || fail "no run folder local/export/r1 in $out/runs/seed002.jsonl"
! grep -q '^local/export/r2/' "$TMP/pack.ls" || fail "--demo ran a second repeat"
ok "--demo: one run per point, marker on output and page, claims recapped at the end"

# seed 003's demo measurements on a hand-made run: baseline 100 IOPS; the first
# create 2 s with 20 I/Os and snap1 2 s with 10 I/Os -> (20+10)/4 = 7.5 IOPS;
# snap3 5 IOPS; CoW 1 snapshot 200/220 IOPS, 5 snapshots 180/160
py seed003-demo-figures "$TMP" || fail "seed 003's demo figures"
ok "seed 003 demo: SNAPS=3 only, the first create gives snap-during-run (7.5/100), CoW 1 vs 5, verdicts"

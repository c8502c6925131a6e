#!/bin/bash
# Description: seed 000's size-3 vs size-1 figures: a read's clat, a write's clat plus its fdatasync (fixture)
# Tier: quick
# In full: lab/experiment.d/seed000_replica.py's figures from fio's JSON of jobs/seed000-replica.fio,
# checked against hand-computed values on a hand-made point: read-us = the read job's clat mean,
# write-us = the write job's clat mean + its sync (fdatasync) latency mean, in µs; a job that did no
# I/O records nothing. And the job file's read and write sections are what the figures read: fio
# --parse-only of the file with --section=read --section=write (a repeat without the layout).
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"
python3 - <<'PY' || fail "the size-3/size-1 figures are not the hand-computed ones"
import argparse, os, sys
sys.path.insert(0, "lab/experiment.d")
import common, seed000_replica
ctx = common.Ctx(argparse.Namespace(out="/nonexistent", short=True, repeats=2), "seed000")
d = {"read": {"read": {"total_ios": 100, "clat_ns": {"mean": 434543.0}}, "write": {"total_ios": 0}},
     "write": {"write": {"total_ios": 50, "clat_ns": {"mean": 142000.0}}, "sync": {"lat_ns": {"mean": 2988000.0}},
               "read": {"total_ios": 0}}}
seed000_replica.figures(ctx, "repl-size3", 1, d)
assert ctx.m == {"repl-size3/read-us": [None, 434.543], "repl-size3/write-us": [None, 3130.0]}, ctx.m
d["read"]["read"]["total_ios"] = 0
seed000_replica.figures(ctx, "repl-size1", 0, d)
assert "repl-size1/read-us" not in ctx.m and ctx.m["repl-size1/write-us"] == [3130.0], ctx.m
print("read-us 434.543 = clat; write-us 3130 = 142 + 2988 (fdatasync); no I/O, no figure")
PY
DBFIO_LIB=$B STORE=posix DIR=$TMP POOL=rbd IMAGE=x IMAGE_SIZE=256m SIZE=128m RUNTIME=5 \
	"$FIO" --parse-only --section=read --section=write "$REPO/jobs/seed000-replica.fio" >"$TMP/parse" 2>&1 ||
	{ cat "$TMP/parse"; fail "fio --parse-only --section=read --section=write of jobs/seed000-replica.fio failed"; }
ok "read-us and write-us from fio's JSON as computed by hand; the repeat's sections parse"

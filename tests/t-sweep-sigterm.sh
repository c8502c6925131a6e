#!/bin/bash
# Description: a SIGTERM to tools/sweep (or to lab/experiment running a sweep) stops the running fio too: no fio outlives them
# In full: a SIGTERM to tools/sweep (or to lab/experiment running a sweep) stops the running fio
# too: no fio outlives them (before, a killed experiment left its fio running on a cluster that was
# gone); /proc is the oracle
. "$(dirname "$0")/lib.sh"
cat >"$TMP/long.fio" <<'JOB'
# var: X=1  a point
[long]
ioengine=null
size=1m
time_based=1
runtime=300
rate_iops=5
JOB
fio_of() {	# fio_of PID: the pids of fio processes below PID
	local p c out=
	for p in $(pgrep -P "$1"); do
		[ "$(cat /proc/$p/comm 2>/dev/null)" = fio ] && out="$out $p"
		c=$(fio_of "$p"); out="$out $c"
	done
	echo $out
}
wait_fio() {	# wait_fio PID: until a fio runs below PID (30 s)
	local i
	for i in $(seq 1 60); do
		f=$(fio_of "$1"); [ -n "$f" ] && return 0
		sleep 0.5
	done
	return 1
}
gone() {	# gone PID...: all ended within 20 s
	local i p left
	for i in $(seq 1 40); do
		left=; for p in "$@"; do [ -e /proc/$p ] && [ "$(awk '{print $3}' /proc/$p/stat)" != Z ] && left="$left $p"; done
		[ -z "$left" ] && return 0
		sleep 0.5
	done
	echo "$left"; return 1
}
"$REPO/tools/sweep" "$TMP/long.fio" X=1,2 --out "$TMP/run" >/dev/null 2>"$TMP/sweep.err" &
sp=$!
wait_fio $sp || fail "no fio started below tools/sweep: $(cat "$TMP/sweep.err")"
fio_pids=$f
kill -TERM $sp
left=$(gone $sp $fio_pids) || { kill -9 $fio_pids 2>/dev/null; fail "after SIGTERM to tools/sweep still running: $left (fio: $fio_pids)"; }
ok "SIGTERM to tools/sweep: it and its fio ($fio_pids) ended"
grep -q "X=2" "$TMP/run/sweep.json" 2>/dev/null && fail "the sweep went on to its next point after SIGTERM"

# lab/experiment: its SIGTERM handler stops the running sweep (which stops fio)
python3 - "$REPO" "$TMP" <<'PY' &
import argparse, os, sys, time
sys.path.insert(0, os.path.join(sys.argv[1], "lab", "experiment.d"))
import signal
from common import Ctx, stop_sweep
signal.signal(signal.SIGTERM, lambda *_: (stop_sweep(), sys.exit(143)))
ctx = Ctx(argparse.Namespace(out=sys.argv[2] + "/exp", short=True, repeats=1), "seed002")
ctx.sweep(sys.argv[2] + "/long.fio", {"X": "1,2"}, {}, "long")
PY
ep=$!
wait_fio $ep || fail "no fio started below the experiment's sweep"
fio_pids=$f
kill -TERM $ep
left=$(gone $ep $fio_pids) || { kill -9 $fio_pids 2>/dev/null; fail "after SIGTERM to the experiment still running: $left (fio: $fio_pids)"; }
ok "SIGTERM to an experiment's sweep: the experiment, the sweep and its fio ($fio_pids) ended"

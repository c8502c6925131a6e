#!/bin/bash
# Description: tools/sweep DBFIO_SWEEP_QUIET: each point waits for a quiet host (dbfio.host.quiet) at most S seconds
# Tier: quick
# In full: with two busy loops on the host's cores and DBFIO_SWEEP_QUIET=2, every point of a
# two-point sweep waits the full 2 s before fio starts (fio's own JSON: the first point ends at
# least 2 s after the sweep started, the second at least 2 s after the first), stderr says so once a
# point; DBFIO_SWEEP_QUIET=soon is refused in one line naming it, exit 2, no run folder. The
# gate first writes back every file system (a point's fsyncs must not commit the last one's
# journal): under strace, a sync() comes before each point's fio is executed, and none between.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/data"
cat >"$TMP/q.fio" <<EOF2
# q.fio - sweep quiet-gate test: a tiny storeio write job on \$TMP.
# var: DIR=$TMP/data  directory for the file
[global]
ioengine=external:\${DBFIO_LIB}/storeio.so
directory=\${DIR}
size=64k
[w]
rw=write
bs=\${BS}
EOF2
S=$REPO/tools/sweep
busy=()
for _ in $(seq "$(nproc)"); do
	(while :; do :; done) &
	busy+=($!)
done
at_exit 'kill "${busy[@]}" 2>/dev/null'
t0=$(date +%s.%N)
DBFIO_SWEEP_QUIET=2 DBFIO_BUILD=$B FIO=$FIO "$S" "$TMP/q.fio" BS=4k,16k --out "$TMP/run" \
	>"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "sweep failed"; }
kill "${busy[@]}" 2>/dev/null
n=$(grep -c '^  quiet-host gate: waited [0-9.]* s$' "$TMP/err")
[ "$n" = 2 ] || { cat "$TMP/err"; fail "$n gate lines on stderr, not one a point (2)"; }
python3 - "$TMP/run" "$t0" <<'PY' || fail "a point did not wait for the gate (fio's timestamps)"
import json, os, sys
run, t0 = sys.argv[1], float(sys.argv[2])
# fio's timestamp_ms: when the point's fio ended, after the gate before it and its own run
ends = [json.load(open(os.path.join(run, p, "point.json")))["timestamp_ms"] / 1e3 for p in ("BS=4k", "BS=16k")]
gaps = [ends[0] - t0, ends[1] - ends[0]]
print("sweep start -> point 1's end, point 1's end -> point 2's end: %.1f s, %.1f s (fio's JSON)" % tuple(gaps))
sys.exit(0 if min(gaps) >= 2 else 1)
PY
ok "two points on a busy host: each waited the gate's 2 s ($(grep -m1 'quiet-host gate' "$TMP/err" | sed 's/^ *//'))"

# the write-back: strace's own order of the sweep's sync() calls and its fio executions
DBFIO_SWEEP_QUIET=1 DBFIO_BUILD=$B FIO=$FIO strace -f -qq -e trace=sync,execve -o "$TMP/sync.strace" \
	"$S" "$TMP/q.fio" BS=4k,16k --out "$TMP/runs" >/dev/null 2>"$TMP/errs" || { cat "$TMP/errs"; fail "sweep (strace) failed"; }
order=$(grep -E ' sync\(\) += 0| execve\("[^"]*fio", \["fio", "--output-format=json".*\) = 0$' "$TMP/sync.strace" | sed -E 's/.* (sync)\(.*/S/; s/.*execve.*/F/' | tr -d '\n')
[ "$order" = SFSF ] || { grep -E 'sync|fio"' "$TMP/sync.strace"; fail "sync() and fio's execve in the order '$order', not SFSF"; }
ok "each point's fio executed after a sync() of its own (strace: $order)"

DBFIO_SWEEP_QUIET=soon DBFIO_BUILD=$B FIO=$FIO "$S" "$TMP/q.fio" BS=4k --out "$TMP/run0" >/dev/null 2>"$TMP/err0"
rc=$?
[ $rc = 2 ] && [ "$(grep -c . "$TMP/err0")" = 1 ] && grep -q "DBFIO_SWEEP_QUIET=soon" "$TMP/err0" ||
	{ cat "$TMP/err0"; fail "DBFIO_SWEEP_QUIET=soon: exit $rc, not one line naming it (exit 2)"; }
[ ! -e "$TMP/run0" ] || fail "a refused DBFIO_SWEEP_QUIET made a run folder"
ok "DBFIO_SWEEP_QUIET=soon refused: $(cat "$TMP/err0")"

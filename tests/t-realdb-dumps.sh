#!/bin/bash
# Description: realdb seed 002: real MariaDB on a GlusterFS volume, started cold before each timed dump, watched from outside
# Timeout: 300
# In full: lab/experiment.d/realdb.py's Dumps, seed 002's two commands (mariadb-dump --no-data and
# mariadb-dump | gzip) by a real MariaDB 10.11 with its data on a tools/gluster volume, two repeats as
# lab/experiment runs them. The oracle is this script watching the servers: mariadbd's --datadir and
# /proc/PID/mountinfo give the data's file system (fuse.glusterfs), the mariadb client counts the tables
# and the sysbench rows while a server runs, and strace's record of every execve (a dump's server may
# live for less than a poll) shows each dump meeting a server process of its own (one to load, then one
# per dump: 1 + 2 x 2 distinct pids), the "cold" start each dump is timed against; the figures land
# under real:gluster/schema and real:gluster/export, and nothing is left on the volume.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "the real server needs root"
command -v mariadbd >/dev/null && command -v sysbench >/dev/null && command -v mariadb-dump >/dev/null ||
	fail_or_skip "MariaDB or sysbench not installed (tools/deps --with fidelity)"
gluster_up
command -v strace >/dev/null || fail_or_skip "strace not installed"
mkdir -p "$TMP/exp" "$TMP/log" "$TMP/exec"
TABLES=12 ROWS=3000

# strace stops only at execve (seccomp-bpf), one file a process: no interleaved lines
PYTHONPATH=$REPO/lab/experiment.d:$REPO/python strace -f -ff --seccomp-bpf -qq -e trace=execve -e signal=none \
	-v -s 4096 -o "$TMP/exec/p" /usr/bin/python3 - "$TMP" "$MNT" $TABLES $ROWS \
	>"$TMP/py.out" 2>"$TMP/py.err" <<'EOF' &
import argparse, json, sys
import common, realdb
tmp, mnt, tables, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
ctx = common.Ctx(argparse.Namespace(out=tmp, repeats=2), "seed002")
d = realdb.Dumps(mnt, tmp + "/log", tmp + "/exp", tables, rows, lambda: True)
try:
    for rep in range(2):
        realdb.seed002(ctx, rep, "gluster", d)
finally:
    d.stop()
json.dump({"m": ctx.m, "notes": ctx.notes}, sys.stdout)
EOF
PYPID=$!

declare -A FS=()
NT=0 NR=0
while kill -0 "$PYPID" 2>/dev/null; do
	for p in $(pgrep -x mariadbd); do
		# its command line read once (it may exit meanwhile): --datadir, --port
		cl=$(tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null) || continue
		dd=$(sed -n 's/^--datadir=//p' <<<"$cl")
		case "$dd" in "$MNT"/realdb-dump-*) ;; *) continue ;; esac
		# (mariadb-install-db's own mariadbd --bootstrap is no server of the dumps)
		grep -qx -- --bootstrap <<<"$cl" && continue
		f=$(fstype "$p" "$dd" 2>/dev/null)	# empty: it exited meanwhile
		[ -n "$f" ] && FS[$f]=1
		c=(mariadb --no-defaults -h 127.0.0.1 -P "$(sed -n 's/^--port=//p' <<<"$cl")" -u root -N -B)
		n=$("${c[@]}" -e "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'dbtrace'" 2>/dev/null)
		[ "${n:-0}" -gt "$NT" ] 2>/dev/null && NT=$n
		n=$("${c[@]}" -e "SELECT COUNT(*) FROM dbtrace.sbtest1" 2>/dev/null)
		[ "${n:-0}" -gt "$NR" ] 2>/dev/null && NR=$n
	done
	sleep 0.2
done
wait "$PYPID" || { cat "$TMP/py.err"; fail "the realdb run failed"; }

[ "${#FS[@]}" -gt 0 ] || fail "no mariadbd with its data directory under $MNT was seen"
[ "${!FS[*]}" = fuse.glusterfs ] || fail "mariadbd's data directory is on '${!FS[*]}', not fuse.glusterfs"
[ "$NT" = $TABLES ] || fail "the server held $NT tables, not $TABLES"
[ "$NR" = $ROWS ] || fail "sbtest1 held $NR rows, not $ROWS"
ok "mariadbd on fuse.glusterfs: $NT tables, $NR rows in sbtest1"
# one server to load, then a fresh one before each of the 4 dumps: the processes
# whose execve of mariadbd succeeded with a --datadir on the volume (not --bootstrap)
n=$(grep -lE '^execve\("[^"]*/mariadbd", \[.*"--datadir='"$MNT"'/realdb-dump-.*= 0$' "$TMP"/exec/p.* |
	xargs -r grep -L '"--bootstrap"' | wc -l)
[ "$n" = 5 ] || fail "$n mariadbd processes for 1 load + 4 dumps: the dumps do not each start cold"
ok "$n distinct mariadbd processes for 1 load + 4 dumps (each dump against a server started cold)"
for k in schema export; do
	v=$(json "$TMP/py.out" "' '.join('%.3f' % x for x in d['m']['real:gluster/$k'] if x and x > 0)")
	[ "$(wc -w <<<"$v")" = 2 ] || { cat "$TMP/py.out"; fail "real:gluster/$k: not 2 positive figures"; }
	ok "real:gluster/$k: $v s"
done
[ "$(json "$TMP/py.out" "d['notes']")" = "[]" ] || fail "notes: $(json "$TMP/py.out" "d['notes']")"
left=$(ls -A "$MNT" "$TMP/exp" | grep -c 'realdb')
[ "$left" = 0 ] || fail "left behind: $(ls -A "$MNT" "$TMP/exp")"
ok "nothing left on the volume or in the export directory"

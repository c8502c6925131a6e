#!/bin/bash
# Description: fidelity: a SIGTERM to make fidelity's page undoes its loop devices, mounts, throttles and servers
# Timeout: 300
# In full: lab/fidelity page killed with SIGTERM while the real PostgreSQL loads on the local target: the
# loop devices it made (losetup -a, by backing file), their mounts (/proc/mounts), the write throttle on
# the slow one (the blkio controller's own files) and the server and pgbench (/proc) are all gone
# afterwards, and no page is written. Python's default SIGTERM ends a process without its `finally`.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "lab/fidelity needs root (loop devices, lab/dbtrace)"
command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null || skip "losetup / mkfs.ext4 missing"
if [ ! -x /usr/lib/postgresql/15/bin/pgbench ]; then
	"$REPO/tools/deps" --with fidelity >"$TMP/deps.log" 2>&1 || {
		cat "$TMP/deps.log"
		[ "${CI:-}" = true ] && fail "cannot install the databases (tools/deps --with fidelity)"
		skip "postgresql-15 cannot be installed"
	}
fi
chmod 711 "$TMP"	# user postgres must reach the target
export TMPDIR="$TMP"	# the loop targets' mount points
ours() {	# the loop devices backed by a file the page made: "DEV BACKING"
	losetup -a -O NAME,BACK-FILE -n 2>/dev/null | while read -r d b; do
		case $b in
		"$TMP"/dbfio-fidelity-*) echo "$d $b" ;;
		/dev/shm/dbfio-fidelity-fast-*) grep -qxF "$b" "$TMP/shm.before" || echo "$d $b" ;;
		esac
	done
}
ls /dev/shm/dbfio-fidelity-fast-*.img >"$TMP/shm.before" 2>/dev/null
"$REPO/lab/fidelity" page --set outofsample --local "$TMP" --dbs postgres --sysbench-clients '' \
	--pgbench-clients 1 --seconds 60 --rounds 1 --no-ddl --out "$TMP/page.md" >"$TMP/page.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
	pgrep -f "postgres -D $TMP/dbfio-fidelity/" >/dev/null && break
	kill -0 $pid 2>/dev/null || { cat "$TMP/page.log"; fail "lab/fidelity page ended before its first real run"; }
	sleep 0.2
done
pgrep -f "postgres -D $TMP/dbfio-fidelity/" >/dev/null || { kill -9 $pid; fail "no real server within 120 s"; }
ours >"$TMP/loops"
awk '{print $1}' "$TMP/loops" >"$TMP/devs"
grep -F "$TMP/dbfio-fidelity-" /proc/mounts | awk '{print $2}' >"$TMP/mnts"
devnos=$(while read -r d; do printf '%d:%d\n' "0x$(stat -c %t "$d")" "0x$(stat -c %T "$d")"; done <"$TMP/devs")
throttled() {	# the devnos among ours with a limit in the root group
	local f=/sys/fs/cgroup/blkio/blkio.throttle.write_iops_device
	[ -f $f ] || f=/sys/fs/cgroup/io.max
	for n in $devnos; do grep -q "^$n " $f && echo "$n"; done
}
undo() {	# what a killed page left (the mutant's case): not this test's oracle, its clean-up
	pkill -f "postgres -D $TMP/"
	while read -r m; do grep -q " $m " /proc/mounts && umount -l "$m"; done <"$TMP/mnts"
	while read -r d b; do
		losetup -a -O NAME,BACK-FILE -n | grep -q "^$d *$b" || continue	# undone, or no longer ours
		n=$(printf '%d:%d' "0x$(stat -c %t "$d")" "0x$(stat -c %T "$d")")
		for f in /sys/fs/cgroup/blkio/blkio.throttle.{read,write}_{iops,bps}_device; do echo "$n 0" >"$f"; done
		losetup -d "$d"
		rm -f "$b"
	done <"$TMP/loops"
}
at_exit undo
echo "before the signal: loop devices $(tr '\n' ' ' <"$TMP/loops"); mounts $(tr '\n' ' ' <"$TMP/mnts");" \
	"throttled $(throttled | tr '\n' ' ')"
[ "$(wc -l <"$TMP/devs")" = 2 ] || { kill -9 $pid; fail "expected the fast and slow loop devices, saw: $(cat "$TMP/loops")"; }
[ "$(wc -l <"$TMP/mnts")" = 2 ] || { kill -9 $pid; fail "expected 2 mounts, saw: $(cat "$TMP/mnts")"; }
[ -n "$(throttled)" ] || { kill -9 $pid; fail "the slow device is not throttled before the signal"; }
kill -TERM $pid
for _ in $(seq 900); do kill -0 $pid 2>/dev/null || break; sleep 0.2; done
kill -0 $pid 2>/dev/null && { kill -9 $pid; fail "lab/fidelity page still running 180 s after SIGTERM"; }
wait $pid
echo "exit status $?; the page's last lines:"
tail -4 "$TMP/page.log"
left=""
while read -r d b; do losetup -a -O NAME,BACK-FILE -n | grep -q "^$d *$b" && left="$left loop $d ($b);"; done <"$TMP/loops"
while read -r m; do grep -q " $m " /proc/mounts && left="$left mount $m;"; done <"$TMP/mnts"
for n in $(throttled); do left="$left throttle $n;"; done
pgrep -f "postgres -D $TMP/" >/dev/null && left="$left postgres under $TMP;"
pgrep -f "$TMP/" -a | grep -q pgbench && left="$left pgbench;"
[ -e "$TMP/page.md" ] && left="$left a page written;"
[ -z "$left" ] || fail "after SIGTERM, left behind:$left"
ok "SIGTERM during the first real run: 2 loop devices, 2 mounts, the throttle and the server undone, no page"

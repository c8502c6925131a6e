# tests/lib-fault.sh - sourced after lib.sh by the reliability tests (t-rel-*):
# refusal checks, Ceph daemon stop/start, a small loop-mounted file system.
#
# Fault tests stop daemons: they only ever run against the project's own
# cluster (tools/cluster, DBFIO_CLUSTER_DIR/PORT honoured), never against a
# cluster named by DBFIO_TEST_CEPH_CONF, which is somebody else's.

# refuse NAME PATTERN ARGS...: fio must exit non-zero, with a line matching
# PATTERN (naming the option and value), without a crash. Counts REFUSED.
REFUSED=0
refuse() {
	local name=$1 pat=$2; shift 2
	"$FIO" --name="$name" --aux-path="$TMP" "$@" >"$TMP/$name.out" 2>&1
	local rc=$?
	[ $rc = 0 ] && { cat "$TMP/$name.out"; fail "$name: fio succeeded"; }
	crash_check "$name" $rc "$TMP/$name.out"
	grep -q -- "$pat" "$TMP/$name.out" || { cat "$TMP/$name.out"; fail "$name: no line matching '$pat'"; }
	REFUSED=$((REFUSED + 1))
	ok "$name: $(grep -m1 -- "$pat" "$TMP/$name.out")"
}

# The fault tests' cluster: ours only.
need_own_cluster() {
	[ -n "${DBFIO_TEST_CEPH_CONF:-}" ] &&
		skip "stops Ceph daemons: not run against DBFIO_TEST_CEPH_CONF=$DBFIO_TEST_CEPH_CONF (somebody else's cluster); use DBFIO_CLUSTER_DIR/DBFIO_CLUSTER_PORT"
	need_cluster
	CDIR=$(dirname "$CEPH_CONF")
	case "$CDIR" in /tmp/devceph*) skip "refusing to stop daemons of $CDIR" ;; esac
}

# daemon_pid TYPE ID: pid of this cluster's daemon (checked against /proc cmdline), or nothing
daemon_pid() {
	local p
	p=$(cat "$CDIR/run/$1.$2.pid" 2>/dev/null) || return 1
	[ -r "/proc/$p/cmdline" ] || return 1
	tr '\0' ' ' <"/proc/$p/cmdline" | grep -q "ceph-$1 .*-c $CEPH_CONF .*-i $2\b" || return 1
	grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null && return 1
	echo "$p"
}

# daemon_stop TYPE ID [SIGNAL]: signal it, wait (<= 30 s) until it is gone
daemon_stop() {
	local p i
	p=$(daemon_pid "$1" "$2") || fail "no running $1.$2 of $CEPH_CONF"
	kill -"${3:-TERM}" "$p"
	# gone, or a zombie whose other threads have exited too (they hold its
	# sockets and pid file while they exit; PID 1 reaps lazily here)
	for i in $(seq 300); do
		[ -d "/proc/$p" ] || return 0
		grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null &&
			[ "$(ls "/proc/$p/task" 2>/dev/null | wc -l)" -le 1 ] && return 0
		sleep 0.1
	done
	kill -KILL "$p" 2>/dev/null
	sleep 1
}

# daemon_start TYPE ID: start it as tools/cluster does
daemon_start() {
	local i
	for i in 1 2 3 4 5; do
		"ceph-$1" -c "$CEPH_CONF" -i "$2" </dev/null >>"$CDIR/log/$1.$2.out" 2>&1 9>&- && return 0
		sleep 2	# the old instance may still be releasing its sockets
	done
	tail -n 5 "$CDIR/log/$1.$2.out" "$CDIR/log/$1.$2.log" 2>/dev/null
	fail "ceph-$1 -i $2 failed to start"
}

# cluster_summary: HEALTH pgs=CLEAN/TOTAL osds=UP/N mds=STATE
cluster_summary() {
	timeout 15 ceph --connect-timeout 10 status -f json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)
pg = s["pgmap"]
clean = sum(x["count"] for x in pg.get("pgs_by_state", []) if x["state_name"].startswith("active+clean"))  # +snaptrim still serves I/O
mds = [r["status"] for r in s["fsmap"].get("by_rank", [])]
print(s["health"]["status"], "pgs=%d/%d" % (clean, pg["num_pgs"]),
      "osds=%d/%d" % (s["osdmap"]["num_up_osds"], s["osdmap"]["num_osds"]),
      "mds=" + (",".join(mds) or "none"))' 2>/dev/null
}

# wait_healthy [SECONDS]: HEALTH_OK, every PG active+clean (snaptrim allowed), every OSD up, the MDS active
wait_healthy() {
	local end=$((SECONDS + ${1:-120})) s=
	while [ $SECONDS -lt $end ]; do
		s=$(cluster_summary)
		if [[ $s =~ ^HEALTH_OK\ pgs=([0-9]+)/([0-9]+)\ osds=([0-9]+)/([0-9]+)\ mds=up:active$ ]] &&
			[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] && [ "${BASH_REMATCH[3]}" = "${BASH_REMATCH[4]}" ]; then
			return 0
		fi
		sleep 1
	done
	fail "cluster not healthy after ${1:-120} s: $s"
}

# loopfs MB: a fresh ext4 of MB MiB mounted at $TMP/lfs (root only; skip otherwise),
# on the loop device $LFS_DEV. loopfs_ro: remount it read-only. Unmounted and
# detached on exit. loopfs_flushes: flush requests the block layer completed on
# that device so far (/sys/block/loopN/stat, field 16): what reached the "disk".
LFS= LFS_DEV=
loopfs() {
	[ "$(id -u)" = 0 ] || skip "needs root for a loop-mounted file system"
	LFS=$TMP/lfs
	mkdir -p "$LFS"
	truncate -s "${1}M" "$TMP/lfs.img" || fail "truncate"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 -m 0 "$TMP/lfs.img" >/dev/null 2>&1 ||
		skip "mkfs.ext4 failed"
	mount -o loop "$TMP/lfs.img" "$LFS" 2>"$TMP/lfs.mount" || skip "cannot loop-mount: $(cat "$TMP/lfs.mount")"
	at_exit loopfs_cleanup
	LFS_DEV=$(findmnt -no SOURCE "$LFS")
	[ -r "/sys/block/${LFS_DEV#/dev/}/stat" ] || fail "no /sys/block/${LFS_DEV#/dev/}/stat for $LFS"
}
loopfs_flushes() {
	awk 'NF >= 16 { print $16; exit } { exit 1 }' "/sys/block/${LFS_DEV#/dev/}/stat" ||
		skip "this kernel's block stat has no flush counter"
}
loopfs_ro() { mount -o remount,ro "$LFS" || fail "remount ro"; }
loopfs_cleanup() {
	[ -n "$LFS" ] && mountpoint -q "$LFS" && umount "$LFS" 2>/dev/null
	LFS=
}

# per_second FILE [DDIR]: the per-second I/O rates of a fio iops log written with
# log_avg_msec=1000 (write_iops_log=), one a line; DDIR 0 read, 1 write (default)
per_second() { awk -F', *' -v d="${2:-1}" '$3 == d { print $2 }' "$1"; }

# resumed NAME < RATES: per-second I/O rates (one a line) must show the outage
# (>= 3 s without a completed I/O) and then I/O again for >= 2 s: work done
# after the restart, not just a run that ended in time
resumed() {
	python3 -c '
import sys
v = [float(x) for x in sys.stdin.read().split()]
out, i = None, 0
while i < len(v):
    j = i
    while j < len(v) and v[j] == 0: j += 1
    if j - i >= 3: out = (i, j)
    i = max(j, i + 1)
if not out:
    print("no outage (>= 3 s without I/O) in the per-second rates:", v); sys.exit(1)
after = [x for x in v[out[1]:] if x > 0]
print(f"no I/O completed in seconds {out[0]}..{out[1] - 1}, then {len(after)} s with I/O, {sum(after):.0f} I/Os")
sys.exit(len(after) < 2)' >"$TMP/$1.resumed" || { cat "$TMP/$1.resumed"; fail "$1: no work done after the restart"; }
	ok "$1: $(cat "$TMP/$1.resumed")"
}

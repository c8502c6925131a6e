# shellcheck shell=bash
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
	for i in $(seq 15); do
		"ceph-$1" -c "$CEPH_CONF" -i "$2" </dev/null >>"$CDIR/log/$1.$2.out" 2>&1 9>&- && return 0
		sleep 2	# the old instance may still be releasing its sockets and pid file lock
	done
	tail -n 5 "$CDIR/log/$1.$2.out" "$CDIR/log/$1.$2.log" 2>/dev/null
	# Ceph 16.2's BlueFS can refuse to replay its own log after the OSD was
	# stopped (seen once in a CI-like run: "BlueFS.cc: 1342: FAILED
	# ceph_assert(r == q->second->file_map.end())" on every restart). That OSD
	# is lost, not our engines' doing: rebuild the cluster for the tests that
	# follow, and say why this one could not run to its end.
	if [ "$1" = osd ] && grep -q 'BlueFS.cc.*FAILED ceph_assert(r == q->second->file_map.end())' \
		"$CDIR/log/$1.$2.log" 2>/dev/null; then
		"$REPO/tools/cluster" up >"$TMP/cluster-rebuild.log" 2>&1 || cat "$TMP/cluster-rebuild.log"
		echo "SKIP: ceph-osd -i $2 cannot restart: Ceph's BlueFS log replay assert (BlueFS.cc:1342, a Ceph 16.2 bug after a stop); the cluster was rebuilt"
		exit 77	# not skip(): its CI rule is for a cluster that never came up
	fi
	fail "ceph-$1 -i $2 failed to start"
}

# cluster_summary: HEALTH pgs=CLEAN/TOTAL osds=UP/N mds=STATE
cluster_summary() {
	timeout 15 ceph --connect-timeout 10 status -f json 2>/dev/null | py ceph-summary 2>/dev/null
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

# loopfs MB: a fresh ext4 of MB MiB mounted at $TMP/lfs (root only; skip otherwise).
# loopfs_ro: remount it read-only. Unmounted and detached on exit. (A loop
# device's flush counter: tests/loopfs.sh.)
LFS=
loopfs() {
	[ "$(id -u)" = 0 ] || skip "needs root for a loop-mounted file system"
	LFS=$TMP/lfs
	mkdir -p "$LFS"
	truncate -s "${1}M" "$TMP/lfs.img" || fail "truncate"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 -m 0 "$TMP/lfs.img" >/dev/null 2>&1 ||
		skip "mkfs.ext4 failed"
	mount -o loop "$TMP/lfs.img" "$LFS" 2>"$TMP/lfs.mount" || skip "cannot loop-mount: $(cat "$TMP/lfs.mount")"
	at_exit loopfs_cleanup
}
loopfs_ro() { mount -o remount,ro "$LFS" || fail "remount ro"; }
loopfs_cleanup() {
	[ -n "$LFS" ] && mountpoint -q "$LFS" && umount "$LFS" 2>/dev/null
	LFS=
}

# io_seconds FILE [DDIR]: "t_ms count" lines, the completions of DDIR (0 read,
# 1 write, the default) in each second of a fio per-I/O completion log
# (write_lat_log= without log_avg_msec: one line per I/O, its completion time
# first). No line for a second without a completion: a gap in t_ms is a stall.
# Not the averaged iops log: fio 3.33 can miss the window in which a stalled
# queue drains (a CI run logged no write after the stall of 4096 it did).
io_seconds() {
	awk -F', *' -v d="${2:-1}" '$3 == d { n[int($1 / 1000)]++ }
		END { for (s in n) print s * 1000, n[s] }' "$1" | sort -n
}

# now_ms: wall clock in ms (to place a restart on a fio log's time axis)
now_ms() { echo $((${EPOCHREALTIME/[.,]/} / 1000)); }

# resumed NAME FILE SINCE_MS: "t_ms rate" lines (t_ms from the job's start);
# I/O must have completed from SINCE_MS on (the restart, on the same axis):
# work done after the restart, not just a run that ended in time
resumed() {
	py resumed "$2" "$3" >"$TMP/$1.resumed" || { cat "$TMP/$1.resumed"; fail "$1: no work done after the restart"; }
	ok "$1: $(head -1 "$TMP/$1.resumed")"
}

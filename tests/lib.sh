# shellcheck shell=bash
# tests/lib.sh - sourced by every test: paths, verdicts, the cluster, JSON,
# fio runs that treat a crash as a crash, and clean-up on exit.
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${DBFIO_BUILD:-$REPO/build}
# configure writes build/config.mk only; a build elsewhere (make SANITIZE=1 ->
# build/asan, make B=DIR) is made from that same configuration
CONFIG_MK=$B/config.mk
[ -f "$CONFIG_MK" ] || CONFIG_MK=$REPO/build/config.mk
FIO=${FIO:-fio}
# py COMMAND ARGS...: the tests' Python - JSON queries, arithmetic checks and
# the longer oracles - in tests/lib.py (python3 tests/lib.py --help lists them)
PY_LIB=$REPO/tests/lib.py
py() { python3 "$PY_LIB" "$@"; }
FIO_BIN=$(command -v "$FIO")	# the real binary (valgrind, gdb, strace want it, not a wrapper)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dbfio-test.XXXXXX")

# A timing test (timing_test at its start) compares CPU, latency, throughput
# or the shape of what scheduling decides with bands: on a VM whose host is
# busy such a band says nothing about the code (in a CI run a real pgbench
# transaction took 1.6 ms against 0.3 ms minutes before). Its checks are of
# two kinds: a timing assertion (timing_check EXPR MSG, or timing_fail MSG)
# and everything else - a crash, a failed run, a count, an option refused -,
# which fails (fail) whatever the host. A timing assertion that fails prints
# the failure and how busy the machine was since timing_test: the share of
# the CPU time the machine used that the VM's host took (steal, /proc/stat:
# 5-6 % under a busy loop on a quiet hour; over STEAL_MAX %), a wake-up round
# trip between two processes (py pingpong, at the start or at the failure;
# 6-9 us on a quiet hour, 23-200 in the hour a MariaDB transaction took 3-5 ms
# instead of 1.3; over PINGPONG_MAX us), or the share of the machine's CPU
# (all cores) that processes other than the test's own used (/proc/stat's
# busy time less the test's, bash's times; over OTHERS_MAX %: on 2 cores
# shared by several engineers a round trip took 3 us while another's fio and
# strace held both cores, and cpu_after_reply's overlap could not happen). On
# a quiet machine it fails the test; on a busy one it is remembered and the
# test goes on, so that its hard checks still run: a test whose only failures
# were such exits 77, "SKIP: timing: ...". DBFIO_STEAL_MAX, DBFIO_PINGPONG_MAX
# and DBFIO_OTHERS_MAX set the thresholds (DBFIO_PINGPONG_MAX=0: every host is
# busy); DBFIO_TIMING_SKIP=0 makes a timing failure fail on any host.
STEAL_MAX=${DBFIO_STEAL_MAX:-15}
PINGPONG_MAX=${DBFIO_PINGPONG_MAX:-30}
OTHERS_MAX=${DBFIO_OTHERS_MAX:-25}
TIMING_SKIPPED=() TIMING_PENDING=0
# cpu_ticks: "busy steal all" - the machine's CPU ticks (/proc/stat, all cores):
# used (steal included), taken by the host, and all (idle too)
cpu_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; exit }' /proc/stat; }
# own_ticks: the CPU ticks (1/100 s) of this test's shell and its waited-for children
own_ticks() { times | awk '{ for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += (a[1] * 60 + a[2]) * 100 } } END { printf "%.0f", t }'; }
timing_test() {
	read -r STEAL_T0 STEAL_S0 ALL_T0 < <(cpu_ticks)
	OWN_T0=$(own_ticks)
	PINGPONG0=$(py pingpong)
}
# host_load: sets HOST_STEAL, HOST_OTHERS (percent since timing_test) and
# HOST_WAKEUP (the larger round trip of the start and now); prints them
host_load() {
	local t s a o w
	read -r t s a < <(cpu_ticks)
	o=$(own_ticks)
	read -r HOST_STEAL HOST_OTHERS < <(awk -v t=$((t - STEAL_T0)) -v s=$((s - STEAL_S0)) -v a=$((a - ALL_T0)) \
		-v o=$((o - OWN_T0)) 'BEGIN { x = a > 0 ? 100 * (t - s - o) / a : 0
			printf "%.0f %.0f\n", (t > 0 ? 100 * s / t : 0), (x > 0 ? x : 0) }')
	w=$(py pingpong)
	echo "since the test began the host took $HOST_STEAL % of the CPU time this machine used (steal, /proc/stat)," \
		"other processes used $HOST_OTHERS % of its $(nproc) cores; a wake-up round trip (py pingpong) took $PINGPONG0 us then, $w us now"
	[ "$w" -lt "$PINGPONG0" ] && w=$PINGPONG0
	HOST_WAKEUP=$w
}
# fail MSG: the test fails (exit 1), on any host (in a timing test it also
# says how busy the host was). On stderr: a fail inside $(...) exits only
# that subshell, and its line must not vanish into the variable.
fail() {
	echo "FAIL: $*" >&2
	[ -n "${STEAL_T0:-}" ] && host_load >&2
	exit 1
}
# timing_fail MSG: a timing assertion failed (see timing_test). Fails the test
# (exit 1) on a quiet host or outside a timing test; on a busy host prints
# "FAIL (timing, ...)", remembers MSG and returns 1: the test goes on.
timing_fail() {
	[ -n "${STEAL_T0:-}" ] || fail "$* (a timing assertion outside a timing test: timing_test first)"
	host_load
	if [ "${DBFIO_TIMING_SKIP:-1}" = 1 ] && { [ "$HOST_STEAL" -gt "$STEAL_MAX" ] ||
		[ "$HOST_WAKEUP" -gt "$PINGPONG_MAX" ] || [ "$HOST_OTHERS" -gt "$OTHERS_MAX" ]; }; then
		echo "FAIL (timing, on a busy host: steal $HOST_STEAL %, max $STEAL_MAX; a wake-up round trip $HOST_WAKEUP us, max $PINGPONG_MAX;" \
			"other processes $HOST_OTHERS %, max $OTHERS_MAX; not counted): $*"
		TIMING_SKIPPED+=("$* (steal $HOST_STEAL %, a round trip $HOST_WAKEUP us, other processes $HOST_OTHERS %)")
		TIMING_PENDING=1
		return 1
	fi
	echo "FAIL: $*"
	exit 1
}
# timing_cmd MSG CMD...: a timing assertion - CMD (e.g. a py check) exits 0
# when it holds, 1 when it does not (then timing_fail MSG); any other exit (a
# value missing: the run that should have made it failed; input it cannot
# read) is a hard failure. timing_check 'EXPR' MSG: timing_cmd MSG py check EXPR.
timing_cmd() {
	local msg=$1 rc
	shift
	"$@"
	rc=$?
	[ $rc = 0 ] && return 0
	[ $rc = 1 ] || fail "$msg (the check could not be made: '$*' exit $rc)"
	timing_fail "$msg"
}
timing_check() { timing_cmd "$2" py check "$1"; }
# ok MSG: a check passed (after a timing assertion skipped on a busy host: says so)
ok() {
	if [ "$TIMING_PENDING" = 1 ]; then
		echo "not ok (a timing assertion above failed on a busy host): $*"
		TIMING_PENDING=0
	else
		echo "ok: $*"
	fi
}
# In CI a test that needs the cluster may not skip (the cluster, the backends
# and the packages are all there): its skip is a failure.
skip() {
	[ "${CI:-}" = true ] && [ "${NEED_CLUSTER:-0}" = 1 ] && fail "skipped in CI (a cluster test may not skip): $*"
	echo "SKIP: $*"; exit 77
}

# Clean-up: at_exit CMD adds a command run on exit (last added runs first);
# rbd_cleanup IMG and cephfs_cleanup DIR remove what a test made on the
# cluster even when it fails half-way. $TMP goes last, never through a mount.
EXIT_HOOKS=() RBD_CLEAN=() CEPHFS_CLEAN=()
at_exit() { EXIT_HOOKS+=("$1"); }
rbd_cleanup() { RBD_CLEAN+=("$@"); }
# rbd_image NAME SIZE [ARGS]: a fresh image rbd/NAME (one left by a killed run
# removed first), removed at exit
rbd_image() {
	rbd rm -p rbd "$1" >/dev/null 2>&1
	rbd create -p rbd --size "$2" "${@:3}" "$1" || fail "rbd create $1"
	rbd_cleanup "$1"
}
# rbd_drop_watchers NAME: after a SIGKILL, blocklist the watchers left on
# rbd/NAME (60 s), as rbd rm does: the OSD keeps a dead client's watch for
# ~30 s, and every later snapshot call's or lock request's notification waits
# for it
rbd_drop_watchers() {
	local w
	for w in $(rbd status -p rbd "$1" --format json | py json - "' '.join(w['address'] for w in d.get('watchers', []))"); do
		timeout 30 ceph osd blocklist add "$w" 60 >/dev/null 2>&1
	done
}
# rbd_nocache_conf: $TMP/ceph.conf = $CEPH_CONF with librbd's cache off
rbd_nocache_conf() { printf '%s\n[client]\nrbd_cache = false\n' "$(cat "$CEPH_CONF")" >"$TMP/ceph.conf"; }
# port_pair_free P: no socket holds port P or P+1, in any state (TIME_WAIT too)
port_pair_free() { ! ss -Htan "sport = :$1 or sport = :$(($1 + 1))" | grep -q .; }
# side_cluster NAME: a Ceph cluster of this test's own beside the suite's:
# DBFIO_CLUSTER_DIR=build/NAME, DBFIO_CLUSTER_PORT=P for the first P = PORT+300,
# +400, ... +800 whose mon ports no socket holds in any state (other clusters
# may run here: ports P..P+99; a client's connection may hold one),
# exported for tools/cluster; stopped at exit. Sets $CL.
side_cluster() {
	local off P
	for off in 300 400 500 600 700 800; do
		P=$(( ${DBFIO_CLUSTER_PORT:-30100} + off ))
		port_pair_free $P && break
	done
	export DBFIO_CLUSTER_DIR=$REPO/build/$1 DBFIO_CLUSTER_PORT=$P
	CL=$REPO/tools/cluster
	at_exit '"$CL" down >/dev/null 2>&1'
}
# osd_slow_op_history SIZE: every op kept in each OSD's slow-op history
# (threshold 0, SIZE records) for this test, undone at exit (only the
# history: no SLOW_OPS warning). Sets $osds (the OSD ids).
osd_slow_op_history() {
	osds=$(timeout 30 ceph osd ls) || fail "ceph osd ls"
	at_exit osd_slow_op_history_undo
	local o
	for o in $osds; do
		timeout 30 ceph tell "osd.$o" injectargs "--osd_op_history_slow_op_threshold=0 --osd_op_history_slow_op_size=$1" \
			>/dev/null 2>&1 || fail "injectargs on osd.$o"
	done
}
osd_slow_op_history_undo() {
	local o
	for o in $osds; do
		timeout 30 ceph tell "osd.$o" config unset osd_op_history_slow_op_threshold >/dev/null 2>&1
		timeout 30 ceph tell "osd.$o" config unset osd_op_history_slow_op_size >/dev/null 2>&1
	done
}
cephfs_cleanup() { CEPHFS_CLEAN+=("$@"); }
# lib_exit: the clean-up; then a test that passed but for timing assertions
# skipped on a busy host exits 77 "SKIP: timing: ..." (tests/run counts it apart)
lib_exit() {
	local rc=$? i
	trap - EXIT
	for ((i = ${#EXIT_HOOKS[@]} - 1; i >= 0; i--)); do eval "${EXIT_HOOKS[i]}" >/dev/null 2>&1; done
	for i in "${RBD_CLEAN[@]}"; do rbd_rm "$i"; done
	for i in "${CEPHFS_CLEAN[@]}"; do cephfs_rmtree "$i"; done
	tmp_cleanup
	if [ "$rc" = 0 ] && [ ${#TIMING_SKIPPED[@]} -gt 0 ]; then
		echo "SKIP: timing: ${#TIMING_SKIPPED[@]} timing assertion(s) failed on a busy host, every other check passed: ${TIMING_SKIPPED[0]}"
		exit 77
	fi
}
trap lib_exit EXIT

# tmp_cleanup: unmount whatever is mounted under $TMP, then remove it - but
# never through a mount that would not go away (rm -rf through a ceph-fuse
# mount wipes the CephFS under it): then $TMP is left, with a line saying why.
tmp_cleanup() {
	local m left=
	[ -n "${TMP:-}" ] && [ -d "$TMP" ] || return 0
	for m in $(awk -v t="$TMP" '$2 == t || index($2, t "/") == 1 { print $2 }' /proc/mounts | sort -r); do
		fusermount -u "$m" 2>/dev/null || umount "$m" 2>/dev/null
		mountpoint -q "$m" && left="$left $m"
	done
	if [ -n "$left" ]; then
		echo "WARNING: still mounted:$left - $TMP left in place" >&2
		return 1
	fi
	rm -rf --one-file-system "$TMP"
}

# rbd_rm IMG [POOL]: remove an image (and its snapshots). A SIGKILLed client's
# watch holds the image for ~30 s: its watchers are blocklisted first.
rbd_rm() {
	local img=$1 pool=${2:-rbd} w i
	[ -n "${CEPH_CONF:-}" ] || return 0
	rbd info -p "$pool" "$img" >/dev/null 2>&1 || return 0
	rbd snap ls -p "$pool" "$img" --format json 2>/dev/null | grep -q '"protected": *"true"' &&
		for i in $(rbd snap ls -p "$pool" "$img" --format json |
			py json - "' '.join(s['name'] for s in d if s.get('protected') == 'true')"); do
			rbd snap unprotect "$pool/$img@$i" >/dev/null 2>&1
		done
	rbd snap purge -p "$pool" "$img" >/dev/null 2>&1
	rbd rm -p "$pool" "$img" >/dev/null 2>&1 && return 0
	for w in $(rbd status -p "$pool" "$img" --format json 2>/dev/null |
		py json - "' '.join(w['address'] for w in d.get('watchers', []))" 2>/dev/null); do
		ceph osd blocklist add "$w" 60 >/dev/null 2>&1
	done
	for i in 1 2 3 4 5 6 7 8 9 10; do
		rbd rm -p "$pool" "$img" >/dev/null 2>&1 && return 0
		sleep 2
	done
	echo "WARNING: rbd image $pool/$img could not be removed" >&2
}

# cephfs_evict PID: evict the CephFS sessions of a process that was killed.
# Its caps would otherwise block every other client for the session timeout
# (60 s) - the MDS cannot know the process is gone.
cephfs_evict() {
	local mds id
	for mds in $(timeout 20 ceph fs dump -f json 2>/dev/null | py json - \
		"' '.join(i['name'] for fs in d['filesystems'] for i in fs['mdsmap']['info'].values() if i['state'] == 'up:active')"); do
		for id in $(timeout 20 ceph tell "mds.$mds" client ls 2>/dev/null | py json - \
			"' '.join(str(c['id']) for c in d if c.get('client_metadata', {}).get('pid') == a[0])" "$1"); do
			timeout 30 ceph tell "mds.$mds" client evict id="$id" >/dev/null 2>&1
		done
	done
}

# cephfs_rmtree DIR: remove a directory tree of the test's CephFS through
# libcephfs (no mount needed; nothing outside DIR is touched).
cephfs_rmtree() {
	[ -n "${CEPH_CONF:-}" ] && [ -n "$1" ] && [ "$1" != / ] || return 0
	timeout 60 /usr/bin/python3 "$PY_LIB" cephfs-rmtree "$1" >/dev/null 2>&1
}

# make check SANITIZE=1: the engines carry ASan+UBSan, the installed fio does
# not, so its runtime must be loaded first (as SPDK's test helper does). fio's
# own leaks are not ours; any sanitizer report aborts (exit >= 128, below).
if [ "${SANITIZE:-0}" = 1 ]; then
	DBFIO_FIO_ASAN=$(gcc -print-file-name=libasan.so)
	export DBFIO_FIO_ASAN
	printf '#!/bin/sh\nLD_PRELOAD=%s${LD_PRELOAD:+:$LD_PRELOAD} exec %s "$@"\n' \
		"$DBFIO_FIO_ASAN" "$FIO_BIN" >"$TMP/fio-asan"
	chmod +x "$TMP/fio-asan"
	FIO=$TMP/fio-asan
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:detect_odr_violation=0}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
	# the engines under test must be the sanitized ones (make check SANITIZE=1 -> build/asan)
	[ ! -f "$B/storeio.so" ] || nm -D "$B/storeio.so" | grep -q __asan_ ||
		fail "SANITIZE=1 but $B/storeio.so is not instrumented (DBFIO_BUILD=$B)"
fi

# Start (or join) the project's cluster and export CEPH_CONF. In CI a
# cluster that cannot start is a failure, never a skip.
need_cluster() {
	NEED_CLUSTER=1
	if [ -n "${DBFIO_TEST_CEPH_CONF:-}" ]; then	# an existing cluster, e.g. a developer's
		export CEPH_CONF=$DBFIO_TEST_CEPH_CONF
		return
	fi
	if ! "$REPO/tools/cluster" up >"$TMP/cluster-up.log" 2>&1; then
		cat "$TMP/cluster-up.log"
		fail_or_skip "the test cluster did not start (see log)"
	fi
	eval "$("$REPO/tools/cluster" env)"
	[ -n "${CEPH_CONF:-}" ] || fail "tools/cluster env printed no CEPH_CONF"
}
# own_cluster_only WHAT: skip a test that tests or reconfigures the project's
# own cluster (tools/cluster) when the tests target somebody else's
own_cluster_only() {
	[ -z "${DBFIO_TEST_CEPH_CONF:-}" ] ||
		skip "$1: not run against DBFIO_TEST_CEPH_CONF=$DBFIO_TEST_CEPH_CONF (somebody else's cluster); use DBFIO_CLUSTER_DIR/DBFIO_CLUSTER_PORT"
}
fail_or_skip() { [ "${CI:-}" = true ] && fail "$*"; skip "$*"; }

# Need the cluster's POSIX mounts (ceph-fuse CephFS, ext4 on rbd-fuse).
# fstype PID PATH: the file system (its /proc/PID/mountinfo type) of the mount PATH is on, as process PID sees it
fstype() {
	awk -v p="$2/" '{ split($0, h, " - "); split(h[2], t, " "); mp = $5 == "/" ? "/" : $5 "/"
		if (index(p, mp) == 1 && length(mp) > best) { best = length(mp); fs = t[1] } } END { print fs }' "/proc/$1/mountinfo"
}

# gluster_up: a private tools/gluster volume for this test under $TMP/gluster,
# stopped at exit; sets GL (the tool) and MNT (the volume's mount). GlusterFS
# missing or its up failing: fail_or_skip; port 24007 taken: skip.
gluster_up() {
	GL=$REPO/tools/gluster
	export DBFIO_GLUSTER_DIR=$TMP/gluster
	command -v glusterd >/dev/null && command -v mount.glusterfs >/dev/null ||
		fail_or_skip "GlusterFS is not installed (tools/deps --with gluster)"
	ss -Hltn 'sport = :24007' | grep -q . && skip "port 24007 is taken (another glusterd runs here)"
	at_exit '"$GL" down'
	"$GL" up >"$TMP/up.out" 2>"$TMP/up.err" || { cat "$TMP/up.err"; fail_or_skip "tools/gluster up failed"; }
	MNT=$(cat "$TMP/up.out")
}

need_mounts() {
	need_cluster
	"$REPO/tools/cluster" mount >"$TMP/mounts" 2>&1 || { cat "$TMP/mounts"; fail "tools/cluster mount failed"; }
	CEPHFS_MNT=$(dirname "$CEPH_CONF")/mnt/cephfs
	EXT4RBD_MNT=$(dirname "$CEPH_CONF")/mnt/ext4rbd
	mountpoint -q "$CEPHFS_MNT" || fail "no CephFS mount at $CEPHFS_MNT"
	mountpoint -q "$EXT4RBD_MNT" || fail "no ext4-on-RBD mount at $EXT4RBD_MNT"
}

# Is a backend built in? (configure may have left it out)
have_backend() { grep -q "^CONFIG_$1 := y" "$CONFIG_MK"; }

# json FILE EXPR: evaluate a python expression on the parsed JSON (as d).
json() { py json "$1" "$2"; }

# A crash is a crash. The shell, not fio, prints "Segmentation fault" (to the
# test's own stderr, not fio's), so greps of fio's output never see it: the
# exit status does. crash_check NAME RC [OUTPUT...]: fail when fio died of a
# signal (RC 128+N) or a sanitizer reported, naming the signal. (128 itself is
# fio's own exit value after SIGINT/SIGTERM ended its jobs: not a crash.)
crash_check() {
	local name=$1 rc=$2; shift 2
	if [ "$rc" -gt 128 ] && [ "$rc" -lt 256 ]; then
		[ $# -gt 0 ] && tail -n 30 "$@" 2>/dev/null
		fail "$name: fio crashed: killed by SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128))) (exit $rc)"
	fi
	if [ $# -gt 0 ] && grep -q "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error: " "$@" 2>/dev/null; then
		grep -h -A25 "ERROR: AddressSanitizer\|runtime error: " "$@" | head -40
		fail "$name: sanitizer report (exit $rc)"
	fi
	return 0
}

# run_fio NAME ARGS...: fio with JSON output into $TMP/NAME.json, stderr into
# $TMP/NAME.err; returns fio's exit status, fails the test on a crash. fio's
# verify state files (written when a verify job is cut short) go to $TMP.
# unit_test NAME: run build/tests/NAME (tests/unit/NAME.c), print its lines;
# its exit 77 is a skip (its SKIP: line the reason), any other non-zero a failure
unit_test() {
	local t=$B/tests/$1 out rc
	[ -x "$t" ] || fail "$t missing (run make)"
	out=$("$t")
	rc=$?
	echo "$out"
	[ $rc = 77 ] && skip "$(sed -n 's/^SKIP: //p' <<<"$out" | head -1)"
	[ $rc = 0 ] || fail "$1: exit $rc"
	ok "$1 passed"
}

run_fio() {
	local name=$1 rc; shift
	"$FIO" --output-format=json --output="$TMP/$name.json" --aux-path="$TMP" "$@" 2>"$TMP/$name.err"
	rc=$?
	crash_check "$name" $rc "$TMP/$name.err" "$TMP/$name.json"
	return $rc
}

# fio_wait PID NAME [SIGNAL] [OUTPUT...]: wait for a background fio; a death
# by any signal but SIGNAL (the one the test sent, e.g. KILL) is a crash.
# Returns fio's exit status.
fio_wait() {
	local pid=$1 name=$2 sig=${3:-} rc
	shift $(($# < 3 ? $# : 3))
	wait "$pid"
	rc=$?
	if [ -n "$sig" ] && [ "$rc" = $((128 + $(kill -l "$sig"))) ]; then
		return $rc
	fi
	crash_check "$name" $rc "$@"
	return $rc
}
# lsn_acked FILE: the LSN a redolog lsn_file= sidecar says was acknowledged
# last (the u64 at byte 8); 0 while the file is missing or empty.
lsn_acked() {
	local a=
	[ -s "$1" ] && a=$(od -An -tu8 -j8 -N8 "$1" | tr -d ' ')
	echo "${a:-0}"
}

# kill_when_acked [--also CMD] PID NAME MIN TRIES LSN_FILE...: the crash
# tests' "SIGKILL once commits are acknowledged". PID is a background redolog
# fio writing its output to $TMP/NAME.out. Every 0.1 s (TRIES times at most,
# then the kill comes anyway) read each LSN_FILE; once every one is past MIN
# bytes (and `CMD LSN_FILE` succeeds for each, when given), SIGKILL fio and
# wait for it (any other death is a crash). Fails when fio exits first or a
# LSN_FILE acknowledged nothing. ACKED: the first LSN_FILE's LSN at the kill.
kill_when_acked() {
	local also=: pid name min tries f i n
	[ "$1" = --also ] && { also=$2; shift 2; }
	pid=$1 name=$2 min=$3 tries=$4; shift 4
	for ((i = 0; i < tries; i++)); do
		n=0
		for f in "$@"; do
			[ "$(lsn_acked "$f")" -gt "$min" ] && $also "$f" && n=$((n + 1))
		done
		[ $n = $# ] && break
		kill -0 "$pid" 2>/dev/null || { cat "$TMP/$name.out"; fail "$name: fio exited early"; }
		sleep 0.1
	done
	kill -KILL "$pid"
	fio_wait "$pid" "$name" KILL "$TMP/$name.out"
	for f in "$@"; do
		[ "$(lsn_acked "$f")" -gt 0 ] || fail "$name: $f: nothing acknowledged before the kill"
	done
	ACKED=$(lsn_acked "$1")
}
# redolog_crash_pair MIN TRIES: the redolog SIGKILL check of one store. The
# test defines crash_store NAME (sets CRASH_STORE to the store options of job
# NAME), crash_verify NAME (logverify of $TMP/NAME.lsn on that store) and, if
# it needs one, crash_after PID (e.g. evict the dead client). Twice a mysql
# log is written until MIN bytes are acknowledged, then SIGKILLed: "flushed" -
# logverify finds every acknowledged record (exit 0); "skipped"
# (debug_skip_flush=1) - it reports the loss (exit 1).
redolog_crash_pair() {
	local min=$1 tries=$2 name pid rc
	for name in flushed skipped; do
		crash_store "$name"
		"$FIO" --name="$name" --ioengine="external:$B/redolog.so" "${CRASH_STORE[@]}" --flavor=mysql \
			--innodb_log_file_size=8m --bs=4k --iodepth=4 --rw=write --size=1g --time_based --runtime=60 \
			--lsn_file="$TMP/$name.lsn" $([ $name = skipped ] && echo --debug_skip_flush=1) \
			>"$TMP/$name.out" 2>&1 &
		pid=$!
		kill_when_acked $pid "$name" "$min" "$tries" "$TMP/$name.lsn"
		! declare -F crash_after >/dev/null || crash_after $pid
		crash_verify "$name" >"$TMP/$name.lv" 2>&1
		rc=$?
		if [ $name = flushed ]; then
			[ "$rc" = 0 ] || { cat "$TMP/$name.lv"; fail "after SIGKILL, logverify exit $rc with flushes on"; }
			ok "SIGKILL with flushes: $(cat "$TMP/$name.lv")"
		else
			[ "$rc" = 1 ] || { cat "$TMP/$name.lv"; fail "after SIGKILL without flushes, logverify exit $rc (expected 1: loss)"; }
			ok "SIGKILL with debug_skip_flush=1: $(cat "$TMP/$name.lv")"
		fi
	done
}
cd "$TMP" || exit 1

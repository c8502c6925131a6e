#!/bin/bash
# Description: lab/bench: a SIGTERM while it starts its cluster, or while a pair runs, stops the cluster it started
# Timeout: 600
# In full: lab/bench starts the local cluster when none is up and stops it at its end. Killed with
# SIGTERM while `tools/cluster up` runs, and again while a pair runs, it must leave no process naming
# that cluster's directory (/proc), no mount under it (/proc/mounts) and no loop device on its files
# (losetup -a), nor its working directory or a process of the command it ran (fio's job
# processes included), and write no page. Python's default SIGTERM ends a process without its `finally`;
# a flag set only once the start returned would not cover a signal during the start.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "the cluster's mounts need root"
own_cluster_only "lab/bench starting a cluster of its own"
side_cluster bench-sigterm
unset CEPH_CONF
D=$DBFIO_CLUSTER_DIR
export DBFIO_BENCH_DIR=$TMP/work	# where lab/bench makes its working directory
mkdir -p "$DBFIO_BENCH_DIR"
left() {	# what of the cluster in $D is still there, a line each
	local p c
	for p in /proc/[0-9]*; do
		c=$(tr '\0' ' ' 2>/dev/null <"$p/cmdline") || continue
		case $c in *"$D/"*) echo "process ${p#/proc/}: ${c:0:120}" ;; esac
	done
	grep -F " $D/" /proc/mounts | awk '{print "mount " $2}'
	losetup -a -O NAME,BACK-FILE -n 2>/dev/null | grep -F "$D/" | awk '{print "loop " $1 " " $2}'
}
mine() { [ -n "$(left | grep '^process' | head -1)" ]; }	# a daemon of $D runs
# bench CASE READY ONLY: lab/bench --only ONLY, SIGTERM once READY (a command) holds
bench() {
	local c=$1 ready=$2 pid i
	rm -f "$TMP/$c.md"
	"$REPO/lab/bench" --only "$3" --rounds 5 --out "$TMP/$c.md" >"$TMP/$c.log" 2>&1 &
	pid=$!
	for i in $(seq 900); do
		$ready && break
		kill -0 $pid 2>/dev/null || { cat "$TMP/$c.log"; fail "$c: lab/bench ended before the signal"; }
		sleep 0.2
	done
	$ready || { kill -9 $pid; fail "$c: not ready within 180 s"; }
	kill -TERM $pid
	for i in $(seq 900); do kill -0 $pid 2>/dev/null || break; sleep 0.2; done
	kill -0 $pid 2>/dev/null && { kill -9 $pid; fail "$c: lab/bench still runs 180 s after SIGTERM"; }
	wait $pid
	echo "$c: lab/bench ended with status $? after SIGTERM"
	# the command it ran (fio and the job processes fio forked) ended with it, not
	# after: one that outlived it writes on into the directory its clean-up removed
	local p cl orphans=
	for p in /proc/[0-9]*; do
		cl=$(tr '\0' ' ' 2>/dev/null <"$p/cmdline") || continue
		case $cl in *"$DBFIO_BENCH_DIR/"*) orphans="$orphans ${p#/proc/}: ${cl:0:100};" ;; esac
	done
	[ -z "$orphans" ] || fail "$c: processes of lab/bench's command outlived it:$orphans"
	[ ! -e "$TMP/$c.md" ] || fail "$c: a page was written after SIGTERM"
	for i in $(seq 50); do [ -z "$(left)" ] && break; sleep 0.2; done	# SIGKILLed threads linger
	[ -z "$(left)" ] || { left; tail -5 "$TMP/$c.log"; fail "$c: the cluster lab/bench started is not gone"; }
	[ -z "$(ls -A "$DBFIO_BENCH_DIR")" ] || fail "$c: lab/bench left its working directory: $(ls -A "$DBFIO_BENCH_DIR")"
}
# 1. during tools/cluster up: the first daemon runs, the start has not returned
bench starting mine "no such pair"
ok "a SIGTERM while lab/bench started its cluster: no daemon, mount or loop device of it left"
# 2. during a pair: the cluster is up and mounted, the local pairs run
paired() { grep -q "round 1/5" "$TMP/pair.log"; }	# a side done, the next one running
bench pair paired "redolog posix: postgres 8k depth 1"
ok "a SIGTERM while a pair ran: the cluster lab/bench started and its working directory are gone, no page written"

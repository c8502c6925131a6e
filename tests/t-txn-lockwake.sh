#!/bin/bash
# Description: txn row locks wake one waiter a release: context switches a transaction (kernel rusage) as without locks
# Timeout: 200
# In full: pgbench's TPC-B at scale 1 (one branch row) with 32 connections: every transaction queues on
# the branch. PostgreSQL's lock manager hands a released row to its next waiter and wakes that one
# only, so a transaction that waits adds about one sleep per row it waits on (three rows at most)
# to what it costs without locks. The oracle is the kernel's count of fio's voluntary context
# switches, all threads (wait4's rusage): with row locks at most 6 a transaction above row_locks=0's.
# Waking every waiter at each release costs one switch per waiter per release instead (tens a
# transaction at 32 connections).
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
N=32 PER=40
run() {	# run NAME ARGS...: sets csw (voluntary context switches a transaction)
	local n=$1 r commits; shift
	mkdir -p "$TMP/$n"
	r=$(py rusage-csw "$FIO_BIN" --output-format=json --output="$TMP/$n.json" --name="$n" \
		--ioengine="external:$E" --calibration=postgres15 --directory="$TMP/$n" --rw=write \
		--numjobs=$N --group_reporting --scale=1 --number_ios=$PER "$@" 2>"$TMP/$n.err") ||
		{ cat "$TMP/$n.err"; fail "$n: fio failed"; }
	commits=$(json "$TMP/$n.json" "d['jobs'][0]['write']['total_ios']")
	[ "$commits" = $((N * PER)) ] || fail "$n: $commits commits, expected $((N * PER))"
	read -r _ vol _ <<<"$r"
	csw=$(py calc "round($vol / $commits, 1)")
}
run locks --row_locks=1
with=$csw
grep -q "lock_waits=0 " "$TMP/locks.err" &&
	fail "no connection waited on a row: the workload does not exercise the locks"
run nolocks --row_locks=0
without=$csw
echo "voluntary context switches a transaction (wait4 rusage of fio, $N connections, scale 1):" \
	"$with with row locks, $without without"
py check "$with <= $without + 6" ||
	fail "row locks cost $with context switches a transaction against $without without: a release wakes more than its next waiter"
ok "row locks: $with context switches a transaction, $without without (bound: +6)"

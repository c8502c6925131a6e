#!/bin/bash
# Description: txn background_cpu is burned by a thread beside the connections, not on their path
# Timeout: 200
# In full: txn background_cpu (the CPU a real server burns a transaction on threads other than the
# connection's: MariaDB 10.11 1-2 % of its CPU, PostgreSQL 15's walwriter 2-3 %, /proc per task):
# burned by a thread of the database beside the connections, not on their path: the fio process's CPU
# (wait4 rusage, the kernel's) grows by transactions x background_cpu, while one connection's median
# latency (fio's clat, 2 cores) grows by far less than background_cpu (burned in line it would grow by
# all of it); two jobs naming one database with other values are refused naming it
. "$(dirname "$0")/lib.sh"
timing_test
E=$B/txn.so
[ "$(nproc)" -ge 2 ] || skip "needs 2 cores (the background thread beside the connection)"
# Timing assertions (timing_check: skipped on a busy host): the CPU and the
# median latency bands. Hard checks: every run, the summary line, the refusal.
run() {	# run NAME ARGS...: user+sys seconds of fio (wait4) into $TMP/NAME.cpu
	local n=$1; shift
	mkdir -p "$TMP/$n"
	py rusage "$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" \
		--ioengine="external:$E" --calibration=none --directory="$TMP/$n" --rw=write --txn_profile=read_only \
		--number_ios=2000 --cpu_per_stmt=20us --client_thread=0 --wal_segment_size=1m "$@" \
		>"$TMP/$n.cpu" 2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
}
p50() { json "$TMP/$1.json" "d['jobs'][0]['write']['clat_ns']['percentile']['50.000000'] / 1e3"; }
# read_only: 16 statements x 20 us = 320 us a transaction on the connection's path;
# background_cpu=200us: 2000 x 0.2 ms = 0.4 s more CPU, on the database's thread
# (less than the path: a background that needs more than its core gives it
# falls behind, and what is left at the end is not burned, as the summary says)
run base
run bg --background_cpu=200us
c0=$(cat "$TMP/base.cpu") c1=$(cat "$TMP/bg.cpu")
l0=$(p50 base) l1=$(p50 bg)
echo "base: ${c0}s CPU, median latency ${l0} us; background_cpu=200us: ${c1}s, ${l1} us (2000 transactions); $(grep -o "background_cpu_ms=[0-9.]* background_cpu_left_ms=[0-9.]*" "$TMP/bg.err")"
timing_check "abs($c1 - $c0 - 0.4) <= 0.1" \
	"background_cpu=200us: CPU ${c1}s against ${c0}s: not +0.4 s (2000 x 0.2 ms)"
ok "background_cpu=200us: +$(py calc "round($c1 - $c0, 3)") s of CPU (+0.4 s expected)"
# off the path: in line the median would be +200 us; beside it, +0 (less than half)
timing_check "$l1 - $l0 < 100" \
	"background_cpu=200us: median latency ${l1} us against ${l0} us: the transaction waited for it"
ok "background_cpu=200us: median latency +$(py calc "round($l1 - $l0)") us (in line: +200)"
grep -q "background_cpu_ms=" "$TMP/bg.err" || fail "no background_cpu_ms in the database's summary"
# one database, one background: a second job naming it with another value is
# refused. The database is the jobs that have it open at once: job a holds it
# 1.6 s (100 x 16 rtt of 1 ms, no CPU), so that b opens it while a has it on
# any host (with 10 transactions each, a had closed it before b opened it once
# on a busy host, and b was accepted)
mkdir -p "$TMP/two"
"$FIO" --ioengine="external:$E" --calibration=none --directory="$TMP/two" --rw=write --txn_profile=read_only \
	--name=a --background_cpu=100us --rtt=1ms --number_ios=100 \
	--name=b --background_cpu=200us --number_ios=10 >"$TMP/two.out" 2>&1 &&
	fail "two jobs with background_cpu=100us and 200us on one database accepted"
grep -q "background_cpu" "$TMP/two.out" || { cat "$TMP/two.out"; fail "the refusal does not name background_cpu"; }
ok "two jobs naming one database with other background_cpu refused: $(grep -m1 background_cpu "$TMP/two.out")"

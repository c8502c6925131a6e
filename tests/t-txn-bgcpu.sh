#!/bin/bash
# Description: txn background_cpu (the CPU a real server burns a transaction on threads other than the connection's: MariaDB 10.11 1-2 % of its CPU, PostgreSQL 15's walwriter 2-3 %, /proc per task): burned by a thread of the database beside the connections, not on their path: the fio process's CPU (wait4 rusage, the kernel's) grows by transactions x background_cpu, while one connection's median latency (fio's clat, 2 cores) grows by far less than background_cpu (burned in line it would grow by all of it); two jobs naming one database with other values are refused naming it
# Timeout: 200
. "$(dirname "$0")/lib.sh"
timing_test
E=$B/txn.so
[ "$(nproc)" -ge 2 ] || skip "needs 2 cores (the background thread beside the connection)"
run() {	# run NAME ARGS...: prints user+sys seconds of fio (wait4)
	local n=$1; shift
	mkdir -p "$TMP/$n"
	py rusage "$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" \
		--ioengine="external:$E" --directory="$TMP/$n" --rw=write --txn_profile=read_only \
		--number_ios=2000 --cpu_per_stmt=20us --client_thread=0 --wal_segment_size=1m "$@" \
		2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
}
p50() { json "$TMP/$1.json" "d['jobs'][0]['write']['clat_ns']['percentile']['50.000000'] / 1e3"; }
# read_only: 16 statements x 20 us = 320 us a transaction on the connection's path;
# background_cpu=200us: 2000 x 0.2 ms = 0.4 s more CPU, on the database's thread
# (less than the path: a background that needs more than its core gives it
# falls behind, and what is left at the end is not burned, as the summary says)
c0=$(run base)
c1=$(run bg --background_cpu=200us)
l0=$(p50 base) l1=$(p50 bg)
echo "base: ${c0}s CPU, median latency ${l0} us; background_cpu=200us: ${c1}s, ${l1} us (2000 transactions); $(grep -o "background_cpu_ms=[0-9.]* background_cpu_left_ms=[0-9.]*" "$TMP/bg.err")"
py check "abs($c1 - $c0 - 0.4) <= 0.1" ||
	fail "background_cpu=200us: CPU ${c1}s against ${c0}s: not +0.4 s (2000 x 0.2 ms)"
ok "background_cpu=200us: +$(py calc "round($c1 - $c0, 3)") s of CPU (+0.4 s expected)"
# off the path: in line the median would be +200 us; beside it, +0 (less than half)
py check "$l1 - $l0 < 100" ||
	fail "background_cpu=200us: median latency ${l1} us against ${l0} us: the transaction waited for it"
ok "background_cpu=200us: median latency +$(py calc "round($l1 - $l0)") us (in line: +200)"
grep -q "background_cpu_ms=" "$TMP/bg.err" || fail "no background_cpu_ms in the database's summary"
# one database, one background: a second job naming it with another value is refused
mkdir -p "$TMP/two"
"$FIO" --ioengine="external:$E" --directory="$TMP/two" --rw=write --txn_profile=read_only \
	--number_ios=10 --name=a --background_cpu=100us --name=b --background_cpu=200us >"$TMP/two.out" 2>&1 &&
	fail "two jobs with background_cpu=100us and 200us on one database accepted"
grep -q "background_cpu" "$TMP/two.out" || { cat "$TMP/two.out"; fail "the refusal does not name background_cpu"; }
ok "two jobs naming one database with other background_cpu refused: $(grep -m1 background_cpu "$TMP/two.out")"

# shellcheck shell=bash
# tests/lib-txncpu.sh - sourced after lib.sh by the tests of the txn engine's
# CPU scaling (t-txn-cpuscale, t-txn-cpuref-ws): a fixed CPU load and fio's
# CPU for it, as the kernel counts it.

# tpcb, 20 transactions: 7 statements x (1 ms server + 1 ms client) + a 3 ms
# durable commit + 3 ms of background = 20 ms a transaction, 0.4 s in all at a
# factor of 1; the spin (cpu_working_set=0) burns thread CPU time exactly,
# however busy the host
CPUOPTS=(--cpu_per_stmt=1ms --client_cpu_per_stmt=1ms --commit_cpu=3ms --background_cpu=3ms)

# txn_cpu NAME ARGS...: CPU = fio's user+sys seconds (wait4 rusage) for 20
# transactions of the txn engine with ARGS; its summary in $TMP/NAME.sum
txn_cpu() {
	local n=$1; shift
	mkdir -p "$TMP/$n"
	CPU=$(py rusage "$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" \
		--ioengine="external:$B/txn.so" --directory="$TMP/$n" --rw=write --wal_segment_size=1m \
		--number_ios=20 --summary_json="$TMP/$n.sum" "$@" 2>"$TMP/$n.err") && [ -n "$CPU" ] ||
		{ cat "$TMP/$n.err"; fail "$n: fio failed"; }
}

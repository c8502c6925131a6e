#!/bin/bash
# Description: txn cpu_per_stmt is burned as CPU time, not slept: the fio process's user+sys time (wait4 rusage) grows by txns x statements x cpu_per_stmt; rtt is slept (no CPU) and adds statements x rtt to fio's clat
# Timeout: 200
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
# the oracle: the kernel's rusage of the whole fio process (wait4), not the engine's clock
cpu() {	# cpu NAME ARGS...: prints user+sys seconds of fio
	local n=$1; shift
	mkdir -p "$TMP/$n"
	py rusage "$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" \
		--ioengine="external:$E" --directory="$TMP/$n" --rw=write --wal_segment_size=1m \
		--number_ios=100 "$@" 2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
}
base=$(cpu base)
# tpcb: 7 statements (BEGIN .. END) x 100 transactions x 2 ms = 1.4 s of CPU
burnt=$(cpu burn --cpu_per_stmt=2ms)
slept=$(cpu sleep --rtt=2ms)
echo "base $base s, cpu_per_stmt=2ms $burnt s (+$(py calc "round($burnt - $base, 3)"), expected +1.400), rtt=2ms $slept s"
py check "abs($burnt - $base - 1.4) <= 0.14" || fail "cpu: burned CPU off by more than 10%: base ${base}s, cpu_per_stmt=2ms ${burnt}s"
py check "$slept - $base < 0.2" || fail "cpu: rtt must sleep, not burn: base ${base}s, rtt=2ms ${slept}s"
ok "cpu: base ${base}s, cpu_per_stmt=2ms ${burnt}s of CPU (+1.4 s expected), rtt=2ms ${slept}s"
grep -q "cpu_burned_ms=1[34][0-9][0-9]" "$TMP/burn.err" || fail "cpu: engine's own count: $(grep 'txn: job' "$TMP/burn.err")"
# rtt is wall time on average: a sleep's overshoot (the wake-up) comes off the next ones.
# fio's clat: read_only (16 statements, no commit) with rtt=1ms is 16 ms more than
# without (medians: a loaded machine's stalls of 100 ms would move the means)
cpu ro --txn_profile=read_only >/dev/null
cpu ro-rtt --txn_profile=read_only --rtt=1ms >/dev/null
clat=$(json "$TMP/ro-rtt.json" "round(d['jobs'][0]['write']['clat_ns']['percentile']['50.000000'] / 1e6, 2)")
clat0=$(json "$TMP/ro.json" "round(d['jobs'][0]['write']['clat_ns']['percentile']['50.000000'] / 1e6, 2)")
py check "15.2 <= $clat - $clat0 <= 16.8" ||
	fail "rtt=1ms: median read_only latency $clat ms, without rtt $clat0 ms: not 16 ms more"
ok "rtt=1ms: median read_only latency $clat ms, $clat0 ms without (fio clat): 16 round trips of 1 ms"

#!/bin/bash
# Description: metastorm's non-storage time: cpu_per_stmt / ddl_cpu are burned as CPU time
# Timeout: 240
# In full: metastorm's non-storage time: cpu_per_stmt / ddl_cpu are burned as CPU time (the fio
# process's user+sys time from wait4 grows by statements x value), rtt is slept (no CPU, adds rtt to
# fio's clat); the shipped profiles load; bad values refused in one line
. "$(dirname "$0")/lib.sh"
E=$B/metastorm.so
[ -f "$E" ] || fail "build/metastorm.so is missing (run make)"
# the oracle: the kernel's rusage of the whole fio process (wait4), not the engine's clock
cpu() {	# cpu NAME ARGS...: prints user+sys seconds of fio
	local n=$1; shift
	mkdir -p "$TMP/$n"
	py rusage "$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" \
		--ioengine="external:$E" --directory="$TMP/$n" --flavor=postgres --tables=4 \
		--number_ios=200 --table_json="$TMP/$n.tbl.json" "$@" 2>"$TMP/$n.err" ||
		{ cat "$TMP/$n.err"; fail "$n: fio failed"; }
}
# Statements of the open type (a table-cache miss: four cheap calls), so that
# the base's own CPU is small and steady (CREATE's varies by 0.3 s with the
# machine's load). 200 x 4 ms = 0.8 s of CPU; the 4 set-up tables burn none.
obase=$(cpu obase --ddl_mix=open:1)
burnt=$(cpu burn --ddl_mix=open:1 --cpu_per_stmt=4ms)
# ddl_cpu overrides cpu_per_stmt per DDL type: 200 opens x 3 ms = 0.6 s, not
# 200 x 1 ms (cpu_per_stmt) nor x 9 ms (create's)
oburnt=$(cpu oburn --ddl_mix=open:1 --cpu_per_stmt=1ms --ddl_cpu=create:9ms,open:3ms)
slept=$(cpu sleep --ddl_mix=open:1 --rtt=2ms)
base=$obase
echo "open: base $base s, cpu_per_stmt=4ms $burnt s (+$(py calc "round($burnt - $base, 3)"), expected +0.800)"
echo "open: ddl_cpu=open:3ms $oburnt s (+$(py calc "round($oburnt - $obase, 3)"), expected +0.600), rtt=2ms $slept s"
# at least what was asked (less is a sleep or a short burn); at most 25% more: on a
# loaded machine the burning job is switched out more often, and fio's own threads
# run for the longer wall time (+3..+15% seen at load average 12 on 2 cores)
cpu_fail() { fail "cpu: $1: base ${base}s, cpu_per_stmt ${burnt}s, ddl_cpu ${oburnt}s, rtt ${slept}s"; }
py check "0.95 * 0.8 <= $burnt - $base <= 1.25 * 0.8" || cpu_fail "cpu_per_stmt: burned CPU not 0.8 s (-5%..+25%)"
py check "0.95 * 0.6 <= $oburnt - $obase <= 1.25 * 0.6" || cpu_fail "ddl_cpu: burned CPU not 0.6 s (-5%..+25%)"
py check "$slept - $obase < 0.15" || cpu_fail "rtt must sleep, not burn"
ok "open x 200: cpu_per_stmt=4ms: fio's CPU ${base}s -> ${burnt}s (+0.8 s expected); ddl_cpu=open:3ms -> ${oburnt}s (+0.6 s)"
# rtt is wall time: fio's median statement latency (open, four cheap calls) grows by 2 ms
clat=$(json "$TMP/sleep.json" "d['jobs'][0]['read']['clat_ns']['percentile']['50.000000'] / 1e6")
clat0=$(json "$TMP/obase.json" "d['jobs'][0]['read']['clat_ns']['percentile']['50.000000'] / 1e6")
py check "1.7 <= $clat - $clat0 <= 2.8" ||
	fail "rtt=2ms: median open latency $clat ms, without rtt $clat0 ms: not 2 ms more"
ok "rtt=2ms: median open latency $clat ms, $clat0 ms without (fio clat)"
grep -q "^metastorm: non-storage time in the statements above: rtt 2000us" "$TMP/sleep.err" ||
	{ cat "$TMP/sleep.err"; fail "no non-storage line in the report"; }

# the shipped profiles, named by calibration=NAME (embedded at build time), set rtt and ddl_cpu
for p in postgres15 mariadb1011; do
	f=$REPO/jobs/metastorm-profiles/$p.fio
	grep -q '^;   lab/ddlcalib ' "$f" || fail "$p: no 'lab/ddlcalib' command in the header of $f"
	mkdir -p "$TMP/$p"
	printf '[t]\nioengine=external:%s\ncalibration=%s\ndirectory=%s\nnumber_ios=20\nflavor=%s\ntables=2\ntable_json=%s\n' \
		"$E" "$p" "$TMP/$p" "${p%%[0-9]*}" "$TMP/$p.tbl.json" >"$TMP/$p-job.fio"
	"$FIO" --output-format=json --output="$TMP/$p-job.json" "$TMP/$p-job.fio" 2>"$TMP/$p-job.err" ||
		{ cat "$TMP/$p-job.err"; fail "$p: fio refused the profile"; }
	want=$(sed -n 's/^rtt=\([0-9]*\)us$/\1/p' "$f")
	got=$(json "$TMP/$p.tbl.json" "d['nonstorage']['rtt_ns'] // 1000")
	cc=$(json "$TMP/$p.tbl.json" "d['nonstorage']['cpu_ns']['create'] // 1000")
	[ -n "$want" ] && [ "$got" = "$want" ] && [ "$cc" -gt 0 ] ||
		fail "$p: profile rtt=${want}us, the job ran with rtt ${got}us, create cpu ${cc}us"
	ok "$p profile loads: rtt ${got}us, create cpu ${cc}us"
done
# without a profile nothing is added (the defaults stay 0)
[ "$(json "$TMP/obase.tbl.json" "d['nonstorage']['rtt_slept_ns'] + d['nonstorage']['cpu_burned_ns']")" = 0 ] ||
	fail "defaults: the engine slept or burned without rtt/cpu_per_stmt"

# bad values: one line naming the option and the value, no start
mkdir -p "$TMP/bad"
n=0
bad() {	# bad EXPECTED-TEXT ARGS...
	local want=$1; shift
	n=$((n + 1))
	"$FIO" --name=bad --ioengine="external:$E" --directory="$TMP/bad" --number_ios=1 "$@" \
		>"$TMP/bad$n.out" 2>&1 && fail "$*: accepted"
	grep -q "^metastorm: .*$want" "$TMP/bad$n.out" || { cat "$TMP/bad$n.out"; fail "$*: no 'metastorm: ...$want' line"; }
	[ "$(grep -c '^metastorm: ' "$TMP/bad$n.out")" = 1 ] || { cat "$TMP/bad$n.out"; fail "$*: more than one metastorm: line"; }
	ok "$* -> $(grep '^metastorm: ' "$TMP/bad$n.out")"
}
# fio's own parser: a value above the option's range (10 s), in its line
for a in cpu_per_stmt=11s rtt=20s; do
	n=$((n + 1))
	"$FIO" --name=bad --ioengine="external:$E" --directory="$TMP/bad" --number_ios=1 "--$a" \
		>"$TMP/bad$n.out" 2>&1 && fail "$a: accepted"
	grep -qx "fio: failed parsing $a" "$TMP/bad$n.out" || { cat "$TMP/bad$n.out"; fail "$a: no 'fio: failed parsing $a' line"; }
	ok "--$a -> fio: failed parsing $a"
done
bad "ddl_cpu=create:5: 'create:5': want" --ddl_cpu=create:5
bad "ddl_cpu=alter:1ms: 'alter:1ms': want" --ddl_cpu=alter:1ms
bad "ddl_cpu=drop:11s: 'drop:11s': want" --ddl_cpu=drop:11s
[ -z "$(ls -A "$TMP/bad")" ] || fail "a refused job left files: $(ls -A "$TMP/bad")"

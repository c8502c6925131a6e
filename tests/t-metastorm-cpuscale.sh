#!/bin/bash
# Description: metastorm scales ddl_cpu by the host's cpu_ref over the profile's: fio's CPU (wait4 rusage) follows
# Tier: quick
# Timeout: 200
# In full: a profile whose cpu_ref is a third of this host's figure (the host's measured by
# lab/txncalib --cpu-ref --working-set 0, libdbfio's function in another process) makes metastorm
# burn about three times the CPU a statement: the fio process's user+sys time (the kernel's wait4
# rusage, not the engine's clock) above a run with no CPU options is about three times the
# cpu_scale=0 run's; the round trip (rtt) is not scaled; no cpu_ref says "not scaled" and burns
# what it is told; a shipped profile's cpu_ref is the number in its file.
. "$(dirname "$0")/lib.sh"
timing_test
H=$(DBFIO_BUILD=$B "$REPO/lab/txncalib" --cpu-ref --working-set 0 | sed -n 's/^cpu_ref=//p')
[ -n "$H" ] && [ "$H" -gt 0 ] || fail "lab/txncalib --cpu-ref printed no cpu_ref"
third=$((H / 3))
# ms_cpu NAME ARGS...: CPU = fio's user+sys seconds (wait4 rusage) for 200 statements of the open
# type (a table-cache miss: four cheap calls, so the base's own CPU is small and steady)
ms_cpu() {
	local n=$1; shift
	mkdir -p "$TMP/$n"
	CPU=$(py rusage "$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" \
		--ioengine="external:$B/metastorm.so" --directory="$TMP/$n" --flavor=postgres --tables=4 \
		--ddl_mix=open:1 --number_ios=200 --table_json="$TMP/$n.tbl.json" "$@" 2>"$TMP/$n.err") &&
		[ -n "$CPU" ] || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
}
sj() { json "$TMP/$1.tbl.json" "d['nonstorage']['cpu']$2"; }
# 200 x 2 ms = 0.4 s of CPU unscaled
ms_cpu base; base=$CPU
ms_cpu none --ddl_cpu=open:2ms; none=$CPU
grep -q "^metastorm: cpu: host cpu_ref=[0-9]*ns, the profile has no cpu_ref: not scaled$" "$TMP/none.err" ||
	fail "no cpu_ref: the start line does not say 'not scaled': $(grep 'cpu' "$TMP/none.err" | head -2)"
[ "$(sj none "['scaled']")" = False ] && [ "$(sj none "['factor']")" = 1.0 ] ||
	fail "no cpu_ref: table_json says scaled or a factor other than 1"
ms_cpu off --ddl_cpu=open:2ms --cpu_ref="$third" --cpu_scale=0; off=$CPU
grep -q "^metastorm: cpu: .*, not applied (cpu_scale=0)$" "$TMP/off.err" || fail "cpu_scale=0: the start line does not say so"
[ "$(sj off "['factor']")" = 1.0 ] || fail "cpu_scale=0: table_json's factor is not 1"
ms_cpu on --ddl_cpu=open:2ms --cpu_ref="$third"; on=$CPU
f=$(sj on "['factor']")
grep -q "^metastorm: cpu: host cpu_ref=[0-9]*ns, profile cpu_ref=${third}ns: factor .*, applied$" "$TMP/on.err" ||
	fail "cpu_ref=$third: no start line with the factor: $(grep 'cpu' "$TMP/on.err" | head -3)"
[ "$(grep -c '^metastorm: cpu: ' "$TMP/on.err")" = 1 ] || fail "cpu_ref=$third: the factor said more than once"
echo "host cpu_ref $H ns (lab/txncalib), profile cpu_ref $third ns, the engine's factor $f;" \
	"fio CPU: no CPU options ${base}s, no cpu_ref ${none}s, cpu_scale=0 ${off}s, scaled ${on}s"
# two processes' best of 15 rounds of the same spin: a busy host moves them by up to 25 %
py check "2 <= $f <= 4.5" || fail "cpu_ref=$third (a third of this host's $H): the engine's factor $f is not about 3"
# The oracle: the kernel's CPU of fio above the base run. Unscaled +0.4 s, scaled +0.4 x factor; at
# least 1.6 x the unscaled extra whatever the host's speed (CPU time is burned to the ns asked).
r=$(py calc "round(($on - $base) / ($off - $base), 3)")
py check "$r >= 1.6" || fail "scaled CPU: +$(py calc "round($on - $base, 3)") s against +$(py calc "round($off - $base, 3)") s at cpu_scale=0: ratio $r, not the factor $f"
py check "abs($none - $off) <= 0.3 * ($off - $base)" ||
	fail "no cpu_ref ${none}s and cpu_scale=0 ${off}s of CPU: not the same unscaled work"
timing_check "abs($r - $f) <= 0.2 * $f" "scaled CPU: ratio $r of fio's extra CPU, the engine's factor $f: more than 20 % apart"
ok "cpu_ref=$third: factor $f, fio's extra CPU $r x the unscaled run's (rusage); no cpu_ref: not scaled, said"
# the round trip is a wait, not the CPU's: rtt=2ms stays 2 ms at the factor (fio's median latency)
ms_cpu rtt0 --cpu_ref="$third" --ddl_cpu=open:1us
ms_cpu rtt --cpu_ref="$third" --ddl_cpu=open:1us --rtt=2ms
c0=$(json "$TMP/rtt0.json" "d['jobs'][0]['read']['clat_ns']['percentile']['50.000000'] / 1e6")
c1=$(json "$TMP/rtt.json" "d['jobs'][0]['read']['clat_ns']['percentile']['50.000000'] / 1e6")
py check "1.7 <= $c1 - $c0 <= 2.8" || fail "rtt=2ms at a factor of about 3: median latency $c1 ms against $c0 ms, not 2 ms more"
ok "rtt=2ms at factor $(sj rtt "['factor']"): median statement $c1 ms against $c0 ms (not scaled)"
# a shipped profile carries its machine's figure, as its file says
for p in postgres15 mariadb1011; do
	want=$(sed -n 's/^cpu_ref=//p' "$REPO/jobs/metastorm-profiles/$p.fio")
	[ -n "$want" ] || fail "jobs/metastorm-profiles/$p.fio: no cpu_ref= line"
	ms_cpu "ship-$p" --calibration="$p" --number_ios=5
	[ "$(sj "ship-$p" "['profile_ref_ns']")" = "$want" ] ||
		fail "calibration=$p: table_json's profile_ref_ns is not the file's cpu_ref=$want"
	ok "calibration=$p: profile cpu_ref=$want ns, as jobs/metastorm-profiles/$p.fio says"
done

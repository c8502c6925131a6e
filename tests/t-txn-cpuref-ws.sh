#!/bin/bash
# Description: a job's cpu_working_set does not change the host's CPU figure: measured over cpu_ref_working_set (rusage)
# Tier: quick
# Timeout: 200
# In full: a profile's cpu_ref is this host's figure over a 1 MB working set (lab/txncalib --cpu-ref
# --working-set 1m, another process), with cpu_ref_working_set=1m as txncalib writes it; a job that then
# sets cpu_working_set=0 (the spin) burns the CPU options at a factor of about 1: fio's user+sys time (the
# kernel's wait4 rusage) above a run without CPU options is about the options' nominal CPU. Measured
# over the job's spin instead, the host's figure is about twice the profile's here and so is the CPU.
# shipped profiles carry cpu_ref_working_set (their cpu_ref was measured over cpu_working_set=1m).
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-txncpu.sh"
H=$(DBFIO_BUILD=$B "$REPO/lab/txncalib" --cpu-ref --working-set 1m | sed -n 's/^cpu_ref=//p')
[ -n "$H" ] && [ "$H" -gt 0 ] || fail "lab/txncalib --cpu-ref printed no cpu_ref"
S=$(DBFIO_BUILD=$B "$REPO/lab/txncalib" --cpu-ref --working-set 0 | sed -n 's/^cpu_ref=//p')
echo "this host's figure: $H ns over 1 MB, $S ns over none (the spin)"
# the two figures must differ for the check to mean anything
py check "$S >= 1.4 * $H or $H >= 1.4 * $S" ||
	skip "this host's figures over 1 MB ($H ns) and over none ($S ns) are alike: nothing to tell apart"
txn_cpu base --calibration=none; base=$CPU
txn_cpu spin --calibration=none --cpu_ref="$H" --cpu_ref_working_set=1m --cpu_working_set=0 "${CPUOPTS[@]}"
spin=$CPU
r=$(py calc "round(($spin - $base) / 0.4, 2)")
echo "cpu_ref=$H over 1 MB, the job's cpu_working_set=0: fio's CPU $spin s, $base s without CPU options:" \
	"$r x the options' nominal 0.4 s; $(grep '^txn: cpu:' "$TMP/spin.err")"
# Hard, not timing: the spin burns thread CPU time exactly however busy the host; the host's figure
# moves by about 10 % with load (t-txn-cpuquota-pg), where the wrong one is about 2x
py check "0.7 <= $r <= 1.5" ||
	fail "cpu_working_set=0 after a profile measured over 1 MB: $r x the nominal CPU, not about 1"
ok "cpu_working_set=0 after a profile measured over 1 MB: $r x the nominal CPU (rusage)"
for p in postgres15 mariadb1011; do
	grep -q "^cpu_ref_working_set=$(sed -n 's/^cpu_working_set=//p' "$REPO/jobs/txn-profiles/$p.fio")$" \
		"$REPO/jobs/txn-profiles/$p.fio" || fail "jobs/txn-profiles/$p.fio: no cpu_ref_working_set= of its cpu_working_set"
done
ok "the shipped profiles name the working set their cpu_ref was measured over"

#!/bin/bash
# Description: txn cpu_working_set: a connection's CPU is hot work over its own memory, so back to back it costs cpu_per_stmt (the fio process's rusage), and with the set evicted between statements (a process streaming 64 MB on the same core) the same work costs more CPU, where the spin (cpu_working_set=0) does not
# Timeout: 200
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v taskset >/dev/null || skip "no taskset"
# the oracle: the kernel's rusage of the whole fio process (wait4), not the engine's clock
cpu() {	# cpu NAME ARGS...: prints user+sys seconds of fio, pinned to core 0
	local n=$1; shift
	mkdir -p "$TMP/$n"
	py rusage taskset -c 0 "$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" \
		--ioengine="external:$E" --directory="$TMP/$n" --rw=write --txn_profile=read_only \
		--number_ios=400 "$@" 2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
}
# read_only: 16 statements, no commit; 400 transactions x 16 x 50 us = 0.32 s of work
base=$(cpu base --cpu_working_set=4m)
hot=$(cpu hot --cpu_per_stmt=50us --cpu_working_set=4m)
echo "hot: base $base s, cpu_per_stmt=50us over 4m $hot s (+0.32 s expected)"
# (the engine's own page accesses between statements cool the set a little:
# +0.35..0.43 s seen here)
py check "abs($hot - $base - 0.32) <= 0.13" ||
	fail "hot: base ${base}s, cpu_per_stmt=50us cpu_working_set=4m ${hot}s: not +0.32 s (within 40%)"
ok "hot: cpu_per_stmt=50us over a 4 MB working set, back to back: +$(py calc "round($hot - $base, 3)") s of CPU (0.32 s)"
# evicted: a process on the same core streams 64 MB while the connection sleeps its rtt
taskset -c 0 python3 -c '
import time
a, b = bytearray(64 << 20), bytearray(b"x" * (64 << 20))
while True:
    a[:] = b
' &
thrash=$!
trap 'kill $thrash 2>/dev/null; wait $thrash 2>/dev/null' EXIT
sleep 1
cbase=$(cpu cbase --rtt=1ms --cpu_working_set=4m)
cold=$(cpu cold --cpu_per_stmt=50us --rtt=1ms --cpu_working_set=4m)
sbase=$(cpu sbase --rtt=1ms)
spin=$(cpu spin --cpu_per_stmt=50us --rtt=1ms)
kill $thrash
wait $thrash 2>/dev/null
echo "evicted: cpu_working_set=4m base $cbase s, burn $cold s; spin base $sbase s, burn $spin s"
py check "abs($spin - $sbase - 0.32) <= 0.08" ||
	fail "evicted, spin: base ${sbase}s, cpu_per_stmt=50us ${spin}s: not +0.32 s (the spin is CPU time, cold or not)"
py check "$cold - $cbase >= 1.5 * ($hot - $base)" ||
	fail "evicted, cpu_working_set=4m: base ${cbase}s, cpu_per_stmt=50us ${cold}s: not 1.5 x the hot run's +$(py calc "round($hot - $base, 3)") s (the work did not get dearer cold)"
ok "evicted between statements: the 4 MB working set's work cost +$(py calc "round($cold - $cbase, 3)") s of CPU, the spin's +$(py calc "round($spin - $sbase, 3)") s (0.32 s hot)"
# a working set fio cannot have is refused in one line
out=$("$FIO" --name=big --ioengine="external:$E" --directory="$TMP" --rw=write --txn_profile=read_only \
	--number_ios=1 --cpu_working_set=2g 2>&1) && fail "cpu_working_set=2g accepted"
printf '%s\n' "$out" | grep -q "cpu_working_set" || fail "cpu_working_set=2g: no line naming the option: $out"
ok "cpu_working_set=2g refused: $(printf '%s\n' "$out" | grep -m1 cpu_working_set)"

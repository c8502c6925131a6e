#!/bin/bash
# Description: client_process=1: the clients are threads of one process in a session of its own (/proc), their CPU in rusage
# Tier: quick
# Timeout: 200
# In full: 2 connections of read_only with client_process=1: while fio runs, /proc shows one child of
# fio, the leader of a session (and so, under the kernel's autogroups, a scheduling group) other than
# fio's, as pgbench is against PostgreSQL's backends, with a client thread for each connection beside
# its main one; and fio's user+sys time (the kernel's wait4 rusage, its reaped children included)
# grows by the clients' CPU: 2 x 100 transactions x 16 statements x 1 ms.
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
mkdir -p "$TMP/sess"
"$FIO" --output-format=json --output="$TMP/sess.json" --name=sess --ioengine="external:$E" \
	--directory="$TMP/sess" --rw=write --calibration=none --flavor=mariadb --txn_profile=read_only \
	--table_size=1000 --numjobs=2 --number_ios=100 --client_process=1 --client_cpu_per_stmt=1ms \
	2>"$TMP/sess.err" &
pid=$!
seen="" fsid="" threads=0
for _ in $(seq 200); do
	[ -n "$fsid" ] || fsid=$(ps -o sid= -p "$pid" | tr -d ' ')
	kids=$(ps --ppid "$pid" -o pid=,sid= 2>/dev/null | awk '{ printf "%s:%s ", $1, $2 }')
	if [ -n "$kids" ]; then
		seen=$kids
		k=${kids%% *}
		n=$(ls "/proc/${k%%:*}/task" 2>/dev/null | wc -l)
		[ "$n" -gt "$threads" ] && threads=$n
		[ "$threads" -ge 3 ] && break
	fi
	sleep 0.05
done
wait "$pid" || { cat "$TMP/sess.err"; fail "client_process=1: fio failed"; }
echo "fio $pid (session $fsid); its children pid:session $seen, the child's threads at most $threads"
[ "$(wc -w <<<"$seen")" = 1 ] || fail "client_process=1, 2 connections: /proc shows children '$seen', not one process"
k=${seen%% *}
[ "${k#*:}" != "$fsid" ] && [ "${k#*:}" = "${k%%:*}" ] ||
	fail "client_process=1: child ${k%%:*} is in session ${k#*:}, not a session of its own (fio's: $fsid)"
[ "$threads" -ge 3 ] || fail "client_process=1, 2 connections: the clients' process has $threads threads, not a client thread for each beside its main one"
ok "client_process=1: 2 clients, threads of one process leading a session of its own (fio's is $fsid)"
cpu() {	# cpu NAME ARGS...: CPU = user+sys seconds of fio, its reaped children included
	local n=$1; shift
	CPU=$(py rusage "$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" --ioengine="external:$E" \
		--directory="$TMP/$n" --rw=write --calibration=none --flavor=mariadb --txn_profile=read_only \
		--table_size=1000 --numjobs=2 --number_ios=100 "$@" 2>"$TMP/$n.err") && [ -n "$CPU" ] ||
		{ cat "$TMP/$n.err"; fail "$n: fio failed"; }
}
mkdir -p "$TMP/base" "$TMP/proc"
cpu base --client_process=1; base=$CPU
cpu proc --client_process=1 --client_cpu_per_stmt=1ms; proc=$CPU
d=$(py calc "round($proc - $base, 2)")
echo "fio's CPU: $base s without client CPU, $proc s with 1 ms a statement in the client processes (+$d s, 3.2 s asked)"
# Hard: the spin burns thread CPU time exactly, however busy the host
py check "2.7 <= $d <= 4.0" || fail "client_process=1: fio's rusage grew by $d s, not about the clients' 3.2 s"
ok "client_process=1: the clients' CPU is in fio's rusage (+$d s of 3.2)"

#!/bin/bash
# Description: txn's commits insert their log records while a slow log write is in progress (strace: delayed pwrite64)
# Timeout: 120
# In full: the log's write is apart from the insertion of records (PostgreSQL's insertion locks vs
# WALWriteLock): strace delays every pwrite64 by 500 ms (inject=...:delay_enter); txn flavor=mariadb,
# innodb_flush_log_at_trx_commit=0 (the timer writes the log once a second), 2 connections of the
# insert profile, one 1 ms round trip (a clock_nanosleep) a transaction: during each slow write of
# ib_logfile0 the connections go on committing (at least 20 round trips begin in other threads while
# it runs). Were the write under the insertion's mutex, each connection would stop at its next
# commit: at most one round trip each.
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || skip "strace is not installed"
n=slowwrite
job=(--name=$n --ioengine="external:$E" --calibration=none --directory="$TMP/$n" --rw=write --flavor=mariadb
	--innodb_log_file_size=8m --innodb_flush_log_at_trx_commit=0 --checkpoint_timeout=0 --numjobs=2
	--time_based --runtime=5 --rtt=1ms --txn_profile=insert --table_size=1000)
mkdir -p "$TMP/$n"
# a first run makes the files: in the traced run the log's writes are the only pwrite64 calls
"$FIO" --output=/dev/null "${job[@]}" --runtime=1 2>"$TMP/$n.err0" || { cat "$TMP/$n.err0"; fail "$n: first run failed"; }
strace -f -qq -y -ttt -T -e trace=pwrite64,clock_nanosleep,nanosleep -e inject=pwrite64:delay_enter=500000 \
	-o "$TMP/$n.strace" "$FIO" --output-format=json --output="$TMP/$n.json" "${job[@]}" 2>"$TMP/$n.err" ||
	{ cat "$TMP/$n.err"; fail "$n: fio failed"; }
counts=$(py inserts-during-writes "$TMP/$n.strace" ib_logfile0 0.45)
read -r -a c <<<"$counts"
[ "${#c[@]}" -ge 2 ] || fail "$n: ${#c[@]} slow writes of ib_logfile0 while the connections ran (strace: '$counts')"
[ "${c[0]}" -ge 20 ] || fail "$n: only ${c[0]} round trips began while a 500 ms log write ran (each write: $counts): commits wait behind the write"
ok "$n: round trips begun in other threads during each 500 ms write of ib_logfile0: $counts; $(json "$TMP/$n.json" "sum(j['write']['total_ios'] for j in d['jobs'])") commits (fio)"

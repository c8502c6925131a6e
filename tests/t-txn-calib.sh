#!/bin/bash
# Description: tools/txncalib runs real PostgreSQL 15 (pgbench) and MariaDB 10.11 (sysbench) briefly and writes a profile that a txn job includes: rtt, cpu_per_stmt, txn_log_bytes from the database's own log counters (within hand-derived bounds) and pages per statement in its header; --groups reads PostgreSQL's WAL flush count; bad arguments refused in one line
# Timeout: 400
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (runs postgres as user postgres)"
[ -x /usr/lib/postgresql/15/bin/pgbench ] && command -v mariadbd >/dev/null && command -v sysbench >/dev/null ||
	fail "PostgreSQL 15, MariaDB or sysbench missing (tools/deps --with fidelity installs them)"
chmod 755 "$TMP"
"$REPO/tools/txncalib" --db postgres --dir "$TMP" --seconds 0 >"$TMP/bad.out" 2>&1 && fail "--seconds 0 accepted"
grep -q "at least 1" "$TMP/bad.out" || { cat "$TMP/bad.out"; fail "--seconds 0: no reason given"; }
for db in postgres mariadb; do
	"$REPO/tools/txncalib" --db $db --dir "$TMP" --seconds 3 --scale 1 --rows 2000 \
		$([ $db = postgres ] && echo --groups 2) --out "$TMP/$db.fio" >"$TMP/$db.out" 2>&1 ||
		{ cat "$TMP/$db.out"; fail "$db: txncalib failed"; }
	if [ $db = postgres ]; then
		grep -q "pgbench -c 2 .* commits per flush" "$TMP/$db.out" || { cat "$TMP/$db.out"; fail "--groups 2: no line"; }
		ok "$(grep 'commits per flush' "$TMP/$db.out")"
	fi
	rtt=$(sed -n 's/^rtt=\([0-9]*\)us$/\1/p' "$TMP/$db.fio")
	cpu=$(sed -n 's/^cpu_per_stmt=\([0-9]*\)us$/\1/p' "$TMP/$db.fio")
	[ -n "$rtt" ] && [ -n "$cpu" ] && [ "$cpu" -gt 0 ] || { cat "$TMP/$db.fio"; fail "$db: no rtt/cpu_per_stmt in the profile"; }
	# log bytes a transaction, hand-derived bounds: tpcb logs 4 row changes, an index
	# entry and a commit record (PostgreSQL: ~50-150 bytes each, no full-page images);
	# oltp_read_write changes 4 rows in 2 indexes with their undo (InnoDB: 0.5-8 kB)
	lb=$(sed -n 's/^txn_log_bytes=\([0-9]*\)$/\1/p' "$TMP/$db.fio")
	if [ $db = postgres ]; then lo=200 hi=2000; else lo=500 hi=8000; fi
	[ -n "$lb" ] && [ "$lb" -ge $lo ] && [ "$lb" -le $hi ] ||
		{ cat "$TMP/$db.fio"; fail "$db: txn_log_bytes=$lb, not within $lo..$hi"; }
	# pages a statement: the database counts inner B-tree pages too, so more than
	# the one leaf per row the engine touches, and far fewer than a table scan
	pps=$(sed -n 's/^; measured: pages_per_stmt=\([0-9.]*\) .*/\1/p' "$TMP/$db.fio")
	awk -v p="$pps" 'BEGIN { exit !(p > 1 && p < 50) }' ||
		{ cat "$TMP/$db.fio"; fail "$db: pages_per_stmt=$pps, not within 1..50"; }
	grep -q "^;   tools/txncalib .*--out $TMP/$db.fio" "$TMP/$db.fio" || fail "$db: the command is not in the header"
	ls "$TMP" | grep -q '^txncalib-' && fail "$db: data directory left behind"
	# the profile is a fio include
	mkdir -p "$TMP/d-$db"
	printf '[t]\ninclude %s\nioengine=external:%s\ndirectory=%s\nrw=write\nnumber_ios=5\nflavor=%s\ntxn_profile=%s\n' \
		"$TMP/$db.fio" "$B/txn.so" "$TMP/d-$db" "$db" "$([ $db = postgres ] && echo tpcb || echo oltp_read_write)" \
		>"$TMP/$db-job.fio"
	run_fio $db-job "$TMP/$db-job.fio" || { cat "$TMP/$db-job.err"; fail "$db: fio refused the profile"; }
	grep -q "cpu_burned_ms=" "$TMP/$db-job.err" || fail "$db: no connection line"
	ok "$db: rtt=${rtt}us cpu_per_stmt=${cpu}us txn_log_bytes=$lb pages_per_stmt=$pps, the job including it ran"
done

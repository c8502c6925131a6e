#!/bin/bash
# Description: tools/txncalib runs real PostgreSQL 15 (pgbench) and MariaDB 10.11 (sysbench) briefly and writes a profile that a txn job includes; --groups reads PostgreSQL's WAL flush count; bad arguments refused in one line
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
	ls "$TMP" | grep -q '^txncalib-' && fail "$db: data directory left behind"
	# the profile is a fio include
	mkdir -p "$TMP/d-$db"
	printf '[t]\ninclude %s\nioengine=external:%s\ndirectory=%s\nrw=write\nnumber_ios=5\nflavor=%s\ntxn_profile=%s\n' \
		"$TMP/$db.fio" "$B/txn.so" "$TMP/d-$db" "$db" "$([ $db = postgres ] && echo tpcb || echo oltp_read_write)" \
		>"$TMP/$db-job.fio"
	run_fio $db-job "$TMP/$db-job.fio" || { cat "$TMP/$db-job.err"; fail "$db: fio refused the profile"; }
	grep -q "cpu_burned_ms=" "$TMP/$db-job.err" || fail "$db: no connection line"
	ok "$db: rtt=${rtt}us cpu_per_stmt=${cpu}us, the job including it ran"
done

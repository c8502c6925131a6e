#!/bin/bash
# Description: the txn job files (jobs/txn-pgbench.fio, jobs/txn-sysbench.fio) run with their calibration= (shipped profiles)
# Timeout: 120
# In full: the txn job files (jobs/txn-pgbench.fio, jobs/txn-sysbench.fio) run with their calibration=
# (shipped profiles): 2 connections, one database, tps > 0, no error
. "$(dirname "$0")/lib.sh"
cd "$REPO" || exit 1
for j in pgbench sysbench; do
	mkdir -p "$TMP/$j"
	DBFIO_LIB=$B CLIENTS=2 SCALE=1 ROWS=20000 TRX_COMMIT=1 DIR="$TMP/$j" STORE=posix RUNTIME=2 \
		"$FIO" --output-format=json --output="$TMP/$j.json" "jobs/txn-$j.fio" 2>"$TMP/$j.err" ||
		{ cat "$TMP/$j.err"; fail "$j: fio failed"; }
	[ "$(json "$TMP/$j.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/$j.err"; fail "$j: fio error"; }
	[ "$(grep -c "txn: database" "$TMP/$j.err")" = 1 ] || fail "$j: not one database for the 2 connections"
	tps=$(json "$TMP/$j.json" "round(d['jobs'][0]['write']['iops'])")
	[ "$tps" -gt 0 ] || fail "$j: no transactions"
	ok "$j: $tps tps (2 connections, 2 s, posix)"
done

#!/bin/bash
# Description: lab/ddlcalib runs real DDL on PostgreSQL 15 and MariaDB 10.11 and writes a metastorm profile
# Timeout: 300
# In full: lab/ddlcalib runs real CREATE/DROP TABLE and INSERT on PostgreSQL 15 and MariaDB 10.11
# briefly and writes a metastorm profile (rtt, ddl_cpu per DDL type) that a job includes; nothing left
# behind; bad arguments refused in one line
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (runs postgres as user postgres)"
[ -x /usr/lib/postgresql/15/bin/postgres ] && command -v mariadbd >/dev/null ||
	fail "PostgreSQL 15 or MariaDB missing (tools/deps --with fidelity installs them)"
chmod 755 "$TMP"
"$REPO/lab/ddlcalib" --db postgres --dir "$TMP" --tables 0 >"$TMP/bad.out" 2>&1 && fail "--tables 0 accepted"
grep -q "at least 1" "$TMP/bad.out" || { cat "$TMP/bad.out"; fail "--tables 0: no reason given"; }
for db in postgres mariadb; do
	"$REPO/lab/ddlcalib" --db $db --dir "$TMP" --tables 30 --rows 60 --out "$TMP/$db.fio" \
		>"$TMP/$db.out" 2>&1 || { cat "$TMP/$db.out"; fail "$db: ddlcalib failed"; }
	grep -q "^;   lab/ddlcalib --db $db " "$TMP/$db.fio" || { cat "$TMP/$db.fio"; fail "$db: no command in the header"; }
	rtt=$(sed -n 's/^rtt=\([0-9]*\)us$/\1/p' "$TMP/$db.fio")
	cc=$(sed -n 's/^ddl_cpu=create:\([0-9]*\)us,drop:[0-9]*us,open:[0-9]*us,rename:[0-9]*us$/\1/p' "$TMP/$db.fio")
	[ -n "$rtt" ] && [ "$rtt" -gt 0 ] && [ -n "$cc" ] && [ "$cc" -gt 0 ] ||
		{ cat "$TMP/$db.fio"; fail "$db: no rtt / ddl_cpu in the profile"; }
	ls "$TMP" | grep -q '^ddlcalib-' && fail "$db: data directory left behind"
	# the profile is a fio include metastorm takes
	mkdir -p "$TMP/d-$db"
	printf '[t]\ninclude %s\nioengine=external:%s\ndirectory=%s\nnumber_ios=10\ntables=2\nflavor=%s\n' \
		"$TMP/$db.fio" "$B/metastorm.so" "$TMP/d-$db" "$db" >"$TMP/$db-job.fio"
	run_fio $db-job "$TMP/$db-job.fio" || { cat "$TMP/$db-job.err"; fail "$db: fio refused the profile"; }
	grep -q "^metastorm: non-storage time in the statements above: rtt ${rtt}us; cpu create ${cc}us" \
		"$TMP/$db-job.err" || { cat "$TMP/$db-job.err"; fail "$db: the job did not run with the profile"; }
	ok "$db: $(grep -E '^(rtt|ddl_cpu)=' "$TMP/$db.fio" | paste -sd' '), the job including it ran"
done

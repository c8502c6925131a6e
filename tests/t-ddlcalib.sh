#!/bin/bash
# Description: lab/ddlcalib runs real DDL on PostgreSQL 15 and MariaDB 10.11 and writes a metastorm profile
# Timeout: 420
# In full: lab/ddlcalib runs real CREATE/DROP TABLE and INSERT on PostgreSQL 15 and MariaDB 10.11
# briefly and writes a metastorm profile (rtt, ddl_cpu per DDL type, this host's cpu_ref: the figure
# lab/txncalib --cpu-ref --working-set 0 measures in another process, within 0.6-1.6x) that a job
# includes; nothing left behind; bad arguments and a busy host (--max-wakeup-us 0) refused in one
# line, no profile written. The fit (ddl_cpu = what a statement costs beyond its round trip and
# the file calls metastorm replays): metastorm's DDL job with the profile, on the calibration's own
# directory, gives the real server's median CREATE and DROP latency (the session's, printed in the
# profile's header) within 0.75-1.33x (a timing assertion). On tmpfs: a VM disk's fsync latency
# jumps 4x for minutes at a time, which no bound survives; a replay run with a profile leaves the
# model at a fifth of the real server
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (runs postgres as user postgres)"
[ -x /usr/lib/postgresql/15/bin/postgres ] && command -v mariadbd >/dev/null ||
	fail "PostgreSQL 15 or MariaDB missing (tools/deps --with fidelity installs them)"
chmod 755 "$TMP"
timing_test
# the calibrations' directory: tmpfs (see above), this test's own
CAL=$(mktemp -d /dev/shm/dbfio-ddlcalib-test.XXXXXX) || fail "mktemp under /dev/shm"
chmod 755 "$CAL"
at_exit "rm -rf '$CAL'"
"$REPO/lab/ddlcalib" --db postgres --dir "$TMP" --tables 0 >"$TMP/bad.out" 2>&1 && fail "--tables 0 accepted"
grep -q "at least 1" "$TMP/bad.out" || { cat "$TMP/bad.out"; fail "--tables 0: no reason given"; }
# a busy host (here: any, --max-wakeup-us 0) is refused before anything runs
"$REPO/lab/ddlcalib" --db mariadb --dir "$TMP" --max-wakeup-us 0 --tables 2 --rows 2 --out "$TMP/busy.fio" \
	>"$TMP/busy.out" 2>&1 && fail "--max-wakeup-us 0 accepted"
[ "$(wc -l <"$TMP/busy.out")" = 1 ] && grep -q "host is busy now: a wake-up round trip .* took [0-9]* us" "$TMP/busy.out" ||
	{ cat "$TMP/busy.out"; fail "a busy host: not refused in one line naming the round trip"; }
[ ! -e "$TMP/busy.fio" ] && [ -z "$(ls "$TMP" | grep ddlcalib)" ] || fail "a busy host: a profile or directory left"
ok "$(cat "$TMP/busy.out")"
H=$(DBFIO_BUILD=$B "$REPO/lab/txncalib" --cpu-ref --working-set 0 | sed -n 's/^cpu_ref=//p')
[ -n "$H" ] || fail "lab/txncalib --cpu-ref printed no cpu_ref"
for db in postgres mariadb; do
	"$REPO/lab/ddlcalib" --db $db --dir "$CAL" --tables 30 --rows 60 --max-wakeup-us 1e6 --out "$TMP/$db.fio" \
		>"$TMP/$db.out" 2>&1 || { cat "$TMP/$db.out"; fail "$db: ddlcalib failed"; }
	grep -q "^;   lab/ddlcalib --db $db " "$TMP/$db.fio" || { cat "$TMP/$db.fio"; fail "$db: no command in the header"; }
	rtt=$(sed -n 's/^rtt=\([0-9]*\)us$/\1/p' "$TMP/$db.fio")
	cc=$(sed -n 's/^ddl_cpu=create:\([0-9]*\)us,drop:[0-9]*us,open:[0-9]*us,rename:[0-9]*us$/\1/p' "$TMP/$db.fio")
	[ -n "$rtt" ] && [ "$rtt" -gt 0 ] && [ -n "$cc" ] && [ "$cc" -gt 0 ] ||
		{ cat "$TMP/$db.fio"; fail "$db: no rtt / ddl_cpu in the profile"; }
	[ -z "$(ls "$CAL")" ] || fail "$db: left behind in the calibration's directory: $(ls "$CAL")"
	ref=$(sed -n 's/^cpu_ref=\([0-9]*\)$/\1/p' "$TMP/$db.fio")
	[ -n "$ref" ] && py check "0.6 <= $ref / $H <= 1.6" ||
		{ cat "$TMP/$db.fio"; fail "$db: the profile's cpu_ref '$ref' is not this host's spin figure ($H ns)"; }
	grep -q "^; a wake-up round trip between two processes took [0-9]* us before the runs, [0-9]* us after;$" \
		"$TMP/$db.fio" || { cat "$TMP/$db.fio"; fail "$db: the header does not give the wake-up round trips"; }
	# the profile is a fio include metastorm takes
	mkdir -p "$TMP/d-$db"
	printf '[t]\ninclude %s\nioengine=external:%s\ndirectory=%s\nnumber_ios=10\ntables=2\nflavor=%s\n' \
		"$TMP/$db.fio" "$B/metastorm.so" "$TMP/d-$db" "$db" >"$TMP/$db-job.fio"
	run_fio $db-job "$TMP/$db-job.fio" || { cat "$TMP/$db-job.err"; fail "$db: fio refused the profile"; }
	grep -q "^metastorm: non-storage time in the statements above: rtt ${rtt}us; cpu create ${cc}us" \
		"$TMP/$db-job.err" || { cat "$TMP/$db-job.err"; fail "$db: the job did not run with the profile"; }
	ok "$db: $(grep -E '^(rtt|ddl_cpu)=' "$TMP/$db.fio" | paste -sd' '), the job including it ran"
	# in sample: the DDL job with this profile against the real statements' medians
	sed "s|^calibration=.*|calibration=$TMP/$db.fio|" "$REPO/jobs/fidelity-$db-ddl.fio" >"$TMP/$db-ddl.fio"
	for kind in create drop; do
		real=$(sed -n "s/^;   $kind  *[0-9]*  wall  *[0-9]* us (p50  *\([0-9]*\)).*/\1/p" "$TMP/$db.fio")
		[ -n "$real" ] || { cat "$TMP/$db.fio"; fail "$db: no $kind row with the real median in the header"; }
		mkdir -p "$CAL/fit-$db-$kind"
		DIR=$CAL/fit-$db-$kind N=30 TABLES=30 KEEP=0 DBFIO_LIB=$B "$FIO" --section=$kind --output-format=json \
			--output="$TMP/fit-$db-$kind.json" "$TMP/$db-ddl.fio" >"$TMP/fit.err" 2>&1 ||
			{ cat "$TMP/fit.err"; fail "$db: the DDL job with the profile failed"; }
		model=$(json "$TMP/fit-$db-$kind.json" "'%.0f' % (lambda j: (j['write'] if j['write']['total_ios'] else j['read'])['clat_ns']['percentile']['50.000000'] / 1e3)(d['jobs'][0])")
		rm -rf "${CAL:?}/fit-$db-$kind"
		timing_check "0.75 <= $model / $real <= 1.33" \
			"$db $kind in sample: metastorm with the profile $model us, the real server $real us (median)"
		ok "$db $kind in sample: metastorm with the profile $model us, the real server $real us (median)"
	done
done

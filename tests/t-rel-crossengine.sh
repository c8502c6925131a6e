#!/bin/bash
# Description: two engines of one fio on one database's files (txn+redolog, pgpage+txn) refused in one line
# Tier: quick
# In full: two engines of one fio on one database's files (txn+redolog, pgpage+txn) refused in one
# line; logverify checks the winner
. "$(dirname "$0")/lib.sh"
# Every engine .so links the one libdbfio.so, so the ownership claims of all
# jobs of a process are known to each other: a second job (of any engine)
# whose files are already another job's is refused before it writes. Before
# libdbfio each .so had its own claims: both jobs ran, fio exited 0 and
# logverify found the redolog job's records overwritten by txn's WAL.
# Oracles: fio's JSON (the refused job did no I/O, the error is EBUSY), the
# one refusal line, and logverify (its own reader of the log format) on the
# redolog job's log when that job is the one that ran.

# job NAME DIR FLAVOR SECTION_A SECTION_B: a job file of two sections (lines by ';')
job() {
	{
		printf '[global]\ndirectory=%s\nthread=1\nrw=write\ntime_based=1\nruntime=2\n' "$2"
		echo "[$4]"
		section "$4" "$3"
		echo "[$5]"
		section "$5" "$3"
	} >"$TMP/$1.fio"
}
section() {	# section KIND FLAVOR: the lines of one job of engine KIND
	case $1 in
	txn)	echo "ioengine=external:$B/txn.so"
		echo "calibration=postgres15"
		[ "$2" = postgres ] && echo "txn_profile=tpcb" || echo "txn_profile=oltp_read_write"
		[ "$2" = postgres ] && echo "scale=1" || echo "table_size=10000"
		echo "flavor=$2"
		echo "shared_buffers=16m" ;;
	redolog) echo "ioengine=external:$B/redolog.so"
		echo "flavor=$2"
		echo "bsrange=200-2k"
		[ "$2" = postgres ] && echo "wal_segment_size=1m" && echo "wal_segments=3"
		[ "$2" = postgres ] || echo "innodb_log_file_size=1m"
		echo "lsn_file=$TMP/$NAME.lsn" ;;
	pgpage)	echo "ioengine=external:$B/pgpage.so"
		echo "relations=2"
		echo "relation_size=8m"
		echo "bs=8k" ;;
	esac
}
# refused NAME FLAVOR A B FILE: exactly one of A/B refused naming FILE and both, the other ran
refused() {
	local dir=$TMP/$1 line win lose; NAME=$1
	mkdir -p "$dir"
	job "$1" "$dir" "$2" "$3" "$4"
	run_fio "$1" "$TMP/$1.fio" && { cat "$TMP/$1.err"; fail "$1: fio exited 0 with $3 and $4 on one database's files"; }
	[ "$(grep -c "is already used by job" "$TMP/$1.err")" = 1 ] || { cat "$TMP/$1.err"; fail "$1: not one refusal line"; }
	line=$(grep "is already used by job" "$TMP/$1.err")
	# "<engine>: [what: ]job <job>: <file> in <dir> is already used by job <other> ..."
	[[ $line =~ ^([a-z]+):\ (.*:\ )?job\ ([a-z]+):\ ([^ ]+)\ in\ .*\ is\ already\ used\ by\ job\ ([a-z]+)\ of\ this\ fio ]] ||
		fail "$1: not a refusal line naming two jobs: $line"
	lose=${BASH_REMATCH[3]} win=${BASH_REMATCH[5]}
	[ "${BASH_REMATCH[1]}" = "$lose" ] && [[ ${BASH_REMATCH[4]} =~ ^($5)$ ]] &&
		{ [ "$lose/$win" = "$3/$4" ] || [ "$lose/$win" = "$4/$3" ]; } ||
		fail "$1: the line does not name one of $5 and both jobs: $line"
	[ "$(py json-text "$TMP/$1.json" "[j['write']['total_ios'] for j in d['jobs'] if j['jobname'] == '$lose'][0]")" = 0 ] ||
		fail "$1: the refused job $lose wrote"
	[ "$(py json-text "$TMP/$1.json" "[j['error'] for j in d['jobs'] if j['jobname'] == '$lose'][0]")" = 16 ] ||
		fail "$1: the refused job $lose's error is not EBUSY (16)"
	[ "$(py json-text "$TMP/$1.json" "[j['write']['total_ios'] for j in d['jobs'] if j['jobname'] == '$win'][0]")" -gt 0 ] ||
		fail "$1: the job $win did not run"
	if [ "$win" = redolog ]; then
		"$B/logverify" --dir="$dir" "$TMP/$1.lsn" >"$TMP/$1.lv" 2>&1 || { cat "$TMP/$1.lv"; fail "$1: logverify of redolog's log"; }
	fi
	ok "$1: $line"
}
refused txn-redolog-pg postgres txn redolog '000000010000000000000001|redolog-postgres.meta'
refused redolog-txn-mysql mariadb redolog txn 'ib_logfile0|redolog-mariadb.meta'
refused pgpage-txn postgres pgpage txn '1638[4-9]'

# the same pair on two directories: both run, redolog's log intact
NAME=apart
mkdir -p "$TMP/apart-a" "$TMP/apart-b"
{
	printf '[global]\nthread=1\nrw=write\ntime_based=1\nruntime=2\n'
	printf '[txn]\ndirectory=%s\n' "$TMP/apart-a"; section txn postgres
	printf '[redolog]\ndirectory=%s\n' "$TMP/apart-b"; section redolog postgres
} >"$TMP/apart.fio"
run_fio apart "$TMP/apart.fio" || { cat "$TMP/apart.err"; fail "apart: txn and redolog on two directories failed"; }
"$B/logverify" --dir="$TMP/apart-b" "$TMP/apart.lsn" >"$TMP/apart.lv" 2>&1 || { cat "$TMP/apart.lv"; fail "apart: logverify"; }
ok "apart: txn and redolog on two directories both ran; $(cat "$TMP/apart.lv")"
exit 0

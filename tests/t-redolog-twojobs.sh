#!/bin/bash
# Description: two redolog jobs of one fio on the same log files are refused in one line naming both jobs
# In full: two redolog jobs of one fio on the same log files (two [job] sections, same directory
# spelled one or two ways, mysql beside mariadb) are refused in one line naming both jobs, the other
# completes and logverify finds its log intact; distinct log_prefix=, numjobs=2 and stonewalled jobs
# run
. "$(dirname "$0")/lib.sh"
shopt -s extglob	# the refused name: the log file or its meta, whichever is claimed first
n=0
# jobfile NAME GLOBAL_LINES SECTION_A SECTION_B: a job file with [a] and [b] (lines separated by ';')
jobfile() {
	{
		echo "[global]"
		echo "ioengine=external:$B/redolog.so"
		echo "rw=write"
		echo "bs=4k"
		echo "number_ios=300"
		echo "innodb_log_file_size=1m"
		tr ';' '\n' <<<"$2"
		echo "[a]"
		echo "lsn_file=$TMP/$1.a.lsn"
		tr ';' '\n' <<<"$3"
		echo "[b]"
		echo "lsn_file=$TMP/$1.b.lsn"
		tr ';' '\n' <<<"$4"
	} >"$TMP/$1.fio"
}
# refused NAME FILE DIR GLOBAL A B: one of a/b refused naming FILE and both jobs, the other intact
refused() {
	local name=$1 file=$2 dir=$3 line win lose; shift 3
	mkdir -p "$dir"
	jobfile "$name" "$@"
	run_fio "$name" "$TMP/$name.fio" && fail "$name: fio exited 0 with two jobs on one log"
	line=$(grep "is already used by job" "$TMP/$name.err")
	[ "$(grep -c "is already used by job" "$TMP/$name.err")" = 1 ] || { cat "$TMP/$name.err"; fail "$name: not one refusal line"; }
	# $file unquoted: an extglob pattern (the log file or its meta, whichever was claimed first)
	# shellcheck disable=SC2027
	if [[ $line == "redolog: job b: "$file" in "*" is already used by job a "* ]]; then win=a lose=b
	elif [[ $line == "redolog: job a: "$file" in "*" is already used by job b "* ]]; then win=b lose=a
	else fail "$name: the line does not name $file and both jobs: $line"; fi
	# json-text: fio's log (the fatal line) goes into --output too, before the JSON
	[ "$(py json-text "$TMP/$name.json" "[j['error'] for j in d['jobs'] if j['jobname'] == '$win'][0]")" = 0 ] || fail "$name: job $win failed too"
	[ "$(py json-text "$TMP/$name.json" "[j['write']['total_ios'] for j in d['jobs'] if j['jobname'] == '$win'][0]")" = 300 ] ||
		fail "$name: job $win did not complete its 300 commits"
	[ "$(py json-text "$TMP/$name.json" "[j['write']['total_ios'] for j in d['jobs'] if j['jobname'] == '$lose'][0]")" = 0 ] ||
		fail "$name: the refused job $lose wrote commits"
	"$B/logverify" --dir="$dir" "$TMP/$name.$win.lsn" >"$TMP/$name.lv" 2>&1 || { cat "$TMP/$name.lv"; fail "$name: logverify of job $win"; }
	ok "$name: $line; job $win: $(cat "$TMP/$name.lv")"
}
# both NAME DIR GLOBAL A B: both jobs run, each log intact
both() {
	local name=$1 dir=$2 j; shift 2
	mkdir -p "$dir"
	jobfile "$name" "$@"
	run_fio "$name" "$TMP/$name.fio" || { cat "$TMP/$name.err"; fail "$name: fio failed"; }
	for j in a b; do
		"$B/logverify" --dir="$dir" "$TMP/$name.$j.lsn" >"$TMP/$name.$j.lv" 2>&1 || { cat "$TMP/$name.$j.lv"; fail "$name: logverify of job $j"; }
	done
	ok "$name: both jobs ran: a $(cat "$TMP/$name.a.lv"); b $(cat "$TMP/$name.b.lv")"
}
refused same '@(ib_logfile0|redolog-mysql.meta)' "$TMP/same" "directory=$TMP/same" "" ""
refused pg '@(000000010000000000000001|redolog-postgres.meta)' "$TMP/pg" "directory=$TMP/pg;flavor=postgres;wal_segment_size=1m;wal_segments=3" "" ""
# mysql and mariadb both name their first file ib_logfile0
refused mixed '@(ib_logfile0|redolog-mysql.meta|redolog-mariadb.meta)' "$TMP/mixed" "directory=$TMP/mixed" "flavor=mysql" "flavor=mariadb;innodb_log_file_buffering=1"
# one directory spelled two ways (fio refuses a symlink as directory=)
mkdir -p "$TMP/real/sub"
refused spelled '@(ib_logfile0|redolog-mysql.meta)' "$TMP/real" "" "directory=$TMP/real" "directory=$TMP/real/sub/.."
both prefix "$TMP/prefix" "directory=$TMP/prefix" "log_prefix=a-" "log_prefix=b-"
both flavors "$TMP/flavors" "directory=$TMP/flavors" "flavor=mysql" "flavor=postgres;wal_segment_size=1m;wal_segments=3"
# one after the other: the first log is closed before the second opens
both stonewall "$TMP/stonewall" "directory=$TMP/stonewall" "" "stonewall"
# numjobs: every clone its own jobN- prefix
mkdir -p "$TMP/nj"
run_fio nj --name=nj --ioengine="external:$B/redolog.so" --directory="$TMP/nj" --numjobs=2 --rw=write --bs=4k \
	--number_ios=300 --innodb_log_file_size=1m --lsn_file="$TMP/nj.lsn" || { cat "$TMP/nj.err"; fail "numjobs=2 failed"; }
for j in 1 2; do
	"$B/logverify" --dir="$TMP/nj" "$TMP/nj.lsn.$j" >"$TMP/nj.lv" 2>&1 || { cat "$TMP/nj.lv"; fail "numjobs=2: logverify of job $j"; }
done
ok "numjobs=2: both clones ran, their logs intact"
exit 0

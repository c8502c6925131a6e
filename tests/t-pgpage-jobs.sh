#!/bin/bash
# Description: pgpage example jobs under strace: fio's page counts are real page I/O; the shutdown checkpoint syncs exactly
# Timeout: 120
# In full: pgpage example jobs (2 s each) under strace: fio's page counts are the job thread's
# page-sized preads/pwrites on relation files, the shutdown checkpoint fsyncs exactly the segments
# written; pgpage + redolog flavor=postgres as two jobs: WAL flushes are fdatasyncs of WAL segments
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
# run where the job files' relative sidecars (checkpoint_log) may land: $TMP
export RUNTIME=2 DBFIO_LIB=$B
# traced NAME JOBFILE: fio under strace (the file calls, with their paths)
traced() {
	export DIR=$TMP/$1
	mkdir -p "$DIR"
	# -ff: one file per thread, no call split by another thread's
	strace -f -ff -y -qq -e trace=pread64,pwrite64,fsync,fdatasync,clone,clone3 -o "$TMP/$1.st" \
		"$FIO" --output-format=json --output="$TMP/$1.json" "$2" 2>"$TMP/$1.err" ||
		{ cat "$TMP/$1.err"; fail "$2 failed"; }
	[ "$(json "$TMP/$1.json" "d['jobs'][0]['error']")" = 0 ] || fail "$2: fio error"
}
# pages NAME JOB BS: strace's view of the data job against fio's JSON
pages() {
	py pgpage-pages "$TMP/$1.st" "$TMP/$1.json" "$2" "$3" "$TMP/$1/" || fail "$1: strace and fio disagree"
}
traced oltp "$REPO/jobs/pgpage-oltp.fio"
pages oltp pgdata 8192
ok "jobs/pgpage-oltp.fio: $(json "$TMP/oltp.json" "int(d['jobs'][0]['write']['iops'])") page writes/s, page I/O and checkpoint fsyncs as strace saw them"
traced innodb "$REPO/jobs/pgpage-innodb.fio"
pages innodb ibdata 16384
ok "jobs/pgpage-innodb.fio: 16k pages, page I/O and checkpoint fsyncs as strace saw them"

[ -f "$B/redolog.so" ] || fail "build/redolog.so not built"
traced pair "$REPO/jobs/pgpage-with-redolog.fio"
pages pair pgdata 8192
py pgpage-wal-flushes "$TMP/pair.st" "$TMP/pair.json" "$TMP/pair/" || fail "pairing: the WAL job's flushes are not what strace saw"
ok "pgpage + redolog flavor=postgres ran together, each one's I/O as strace saw it"

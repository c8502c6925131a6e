#!/bin/bash
# Description: txn refuses bad option values with one line naming the option and value
# Tier: quick
# In full: txn refuses bad option values with one line naming the option and value (fio's parser for
# one value's range or choices, txn at setup for rules across options), exit non-zero, no core; two
# jobs naming one database with another setting are refused naming it; another flavor's option is
# ignored in one line (mysql's commit_delay does not delay: fio's runtime)
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
mkdir -p "$TMP/d"
n=0
bad() {	# bad EXPECTED-TEXT ARGS...
	local want=$1 sz=--wal_segment_size=1m; shift
	n=$((n + 1))
	case "$*" in *flavor=m*) sz=--innodb_log_file_size=2m ;; esac	# no other flavor's option
	"$FIO" --name=bad --ioengine="external:$E" --calibration=none --directory="$TMP/d" --rw=write --number_ios=1 \
		$sz "$@" >"$TMP/$n.out" 2>&1 && fail "$*: accepted"
	grep -q "^txn: .*$want" "$TMP/$n.out" || { cat "$TMP/$n.out"; fail "$*: no 'txn: ...$want' line"; }
	[ "$(grep -c '^txn: ' "$TMP/$n.out")" = 1 ] || { cat "$TMP/$n.out"; fail "$*: more than one txn: line"; }
	ls "$TMP"/d/core* >/dev/null 2>&1 && fail "$*: core dump"
	ok "$* -> $(grep '^txn: ' "$TMP/$n.out")"
}
# badfio ARG...: fio's own parser refuses the value (range/choices in txn's option table)
badfio() {
	local a
	n=$((n + 1))
	"$FIO" --name=bad --ioengine="external:$E" --calibration=none --directory="$TMP/d" --rw=write --number_ios=1 \
		--wal_segment_size=1m --innodb_log_file_size=2m "$@" >"$TMP/$n.out" 2>&1 && fail "$*: accepted"
	a=${*: -1}; a=${a#--}
	grep -qxF "fio: failed parsing $a" "$TMP/$n.out" || { cat "$TMP/$n.out"; fail "$*: no 'fio: failed parsing $a' line"; }
	grep -q '^txn: ' "$TMP/$n.out" && { cat "$TMP/$n.out"; fail "$*: a txn: line too"; }
	ls "$TMP"/d/core* >/dev/null 2>&1 && fail "$*: core dump"
	ok "$* -> fio: failed parsing $a"
}
badfio --txn_profile=tpcc
badfio --flavor=oracle
badfio --scale=0
badfio --txn_profile=oltp_read_write --table_size=10
badfio --shared_buffers=64k
badfio --flavor=mysql --innodb_buffer_pool_size=128k
badfio --rtt=20s
badfio --cpu_per_stmt=11s
badfio --flavor=mysql --innodb_flush_log_at_trx_commit=3
badfio --flavor=mariadb --innodb_flush_method=O_FOO
badfio --wal_sync_method=never
badfio --wal_segment_size=3m
bad "max_wal_size=1048576: must be 0 or at least 2 WAL segments" --wal_segment_size=1m --max_wal_size=1m
bad "min_wal_size=1048576: must hold 2..1024 WAL segments of 1048576 (wal_segment_size), not 1" --min_wal_size=1m
badfio --commit_delay=200ms
badfio --commit_siblings=5000
bad "log_bin=1: only flavor=mysql or mariadb" --log_bin=1
badfio --txn_log_bytes=100000
badfio --flavor=mariadb --background_log_share=91
bad "background_log_share=10: only flavor=mysql or mariadb has InnoDB's background redo" --background_log_share=10
echo "$n bad inputs refused"

# two jobs of one database (one directory) with another setting: the second is refused
# naming it (100 x 7 x 2 ms: the first is still open when fio inits the second in its thread)
mkdir -p "$TMP/two"
"$FIO" --ioengine="external:$E" --calibration=none --directory="$TMP/two" --rw=write --number_ios=100 --rtt=2ms --flavor=mysql \
	--innodb_log_file_size=2m --log_bin=1 --name=one --sync_binlog=1 --name=two --sync_binlog=0 \
	>"$TMP/two.out" 2>&1 && { cat "$TMP/two.out"; fail "two jobs, one database, sync_binlog 1 and 0: accepted"; }
grep -q "^txn: database posix:$TMP/two is already open by another job with another log_bin, sync_binlog or max_binlog_size: .*give this job its own directory$" "$TMP/two.out" ||
	{ cat "$TMP/two.out"; fail "two jobs with other sync_binlog: no line naming it"; }
ok "two jobs, sync_binlog 1 and 0 -> $(grep 'already open' "$TMP/two.out")"

# another flavor's option: one line saying it is ignored, and it is (mysql has no
# commit_delay: 20 commits would take 2 s if each flush slept 100 ms)
mkdir -p "$TMP/ign"
"$FIO" --output-format=json --output="$TMP/ign.json" --name=ign --ioengine="external:$E" --calibration=none \
	--directory="$TMP/ign" --rw=write --number_ios=20 --flavor=mysql --innodb_log_file_size=2m \
	--commit_delay=100ms --commit_siblings=0 2>"$TMP/ign.err" || { cat "$TMP/ign.err"; fail "ign: fio failed"; }
grep -qx "txn: commit_delay=100000us: ignored with flavor=mysql (a PostgreSQL setting)" "$TMP/ign.err" ||
	{ cat "$TMP/ign.err"; fail "ign: no line saying commit_delay is ignored"; }
grep -q "^txn: commit_siblings=0: ignored with flavor=mysql" "$TMP/ign.err" || { cat "$TMP/ign.err"; fail "ign: commit_siblings"; }
rt=$(json "$TMP/ign.json" "d['jobs'][0]['job_runtime']")
[ "$rt" -lt 1500 ] || fail "ign: 20 commits took $rt ms: commit_delay=100ms was applied on mysql"
ok "mysql commit_delay=100ms: ignored in one line, 20 commits in $rt ms (fio)"
mkdir -p "$TMP/ignpg"
"$FIO" --output=/dev/null --name=ignpg --ioengine="external:$E" --calibration=none --directory="$TMP/ignpg" --rw=write \
	--number_ios=5 --wal_segment_size=1m --innodb_flush_log_at_trx_commit=2 --sync_binlog=0 \
	2>"$TMP/ignpg.err" || { cat "$TMP/ignpg.err"; fail "ignpg: fio failed"; }
[ "$(grep -c ": ignored with flavor=postgres (a MySQL/MariaDB setting)$" "$TMP/ignpg.err")" = 2 ] ||
	{ cat "$TMP/ignpg.err"; fail "ignpg: not one line each for innodb_flush_log_at_trx_commit and sync_binlog"; }
ok "postgres: $(grep -c 'ignored with' "$TMP/ignpg.err") innodb/binlog options ignored in one line each"

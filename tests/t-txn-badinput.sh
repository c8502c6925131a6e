#!/bin/bash
# Description: txn refuses bad option values with one line naming the option and value (fio's parser for one value's range or choices, txn at setup for rules across options), exit non-zero, no core
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
mkdir -p "$TMP/d"
n=0
bad() {	# bad EXPECTED-TEXT ARGS...
	local want=$1; shift
	n=$((n + 1))
	"$FIO" --name=bad --ioengine="external:$E" --directory="$TMP/d" --rw=write --number_ios=1 \
		--wal_segment_size=1m --innodb_log_file_size=2m "$@" >"$TMP/$n.out" 2>&1 && fail "$*: accepted"
	grep -q "^txn: .*$want" "$TMP/$n.out" || { cat "$TMP/$n.out"; fail "$*: no 'txn: ...$want' line"; }
	[ "$(grep -c '^txn: ' "$TMP/$n.out")" = 1 ] || { cat "$TMP/$n.out"; fail "$*: more than one txn: line"; }
	ls "$TMP"/d/core* >/dev/null 2>&1 && fail "$*: core dump"
	ok "$* -> $(grep '^txn: ' "$TMP/$n.out")"
}
# badfio ARG...: fio's own parser refuses the value (range/choices in txn's option table)
badfio() {
	local a
	n=$((n + 1))
	"$FIO" --name=bad --ioengine="external:$E" --directory="$TMP/d" --rw=write --number_ios=1 \
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
badfio --commit_delay=200ms
badfio --commit_siblings=5000
bad "log_bin=1: only flavor=mysql or mariadb" --log_bin=1
badfio --txn_log_bytes=100000
echo "$n bad inputs refused"

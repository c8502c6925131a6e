#!/bin/bash
# Description: txn refuses bad option values at setup with one line naming the option and value, exit non-zero, no core
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
bad "txn_profile=tpcc: unknown" --txn_profile=tpcc
bad "flavor=oracle: unknown" --flavor=oracle
bad "scale=0: must be" --scale=0
bad "table_size=10: must be" --txn_profile=oltp_read_write --table_size=10
bad "shared_buffers=65536: must hold 16 pages" --shared_buffers=64k
bad "innodb_buffer_pool_size=131072: must hold 16 pages" --flavor=mysql --innodb_buffer_pool_size=128k
bad "rtt=20000000us: more than 10 s" --rtt=20s
bad "cpu_per_stmt=11000000us: more than 10 s" --cpu_per_stmt=11s
bad "innodb_flush_log_at_trx_commit=3: must be" --flavor=mysql --innodb_flush_log_at_trx_commit=3
bad "innodb_flush_method=O_FOO: unknown" --flavor=mariadb --innodb_flush_method=O_FOO
bad "wal_sync_method=never: unknown" --wal_sync_method=never
bad "wal_segment_size=3145728: must be a power of two" --wal_segment_size=3m
bad "max_wal_size=1048576: must be 0 or at least 2 WAL segments" --wal_segment_size=1m --max_wal_size=1m
bad "commit_delay=200000us: must be 0..100000us" --commit_delay=200ms
bad "commit_siblings=5000: must be 0..1000" --commit_siblings=5000
bad "log_bin=1: only flavor=mysql or mariadb" --log_bin=1
bad "txn_log_bytes=100000: must be at most 65536" --txn_log_bytes=100000
echo "$n bad inputs refused"

#!/bin/bash
# Description: txn on cephfs (libcephfs) and rbd against the project's cluster: 2 connections of tpcb share one log and pool
# Timeout: 300
# In full: txn on cephfs (libcephfs) and rbd against the project's cluster: 2 connections of tpcb
# share one log and pool; every commit lands, the pool's misses are the reads the connections' stores
# made; mysql's binlog on rbd rotates inside its extents (max_binlog_size=64k, an extent of 4 MiB a file, 4.4 MB
# written: every commit lands)
. "$(dirname "$0")/lib.sh"
need_cluster
E=$B/txn.so
ROOT=/txn-test-$$
cephfs_cleanup "$ROOT"	# the cephfs directory the test makes (removed through libcephfs)
rbd_cleanup "txn-test-$$"
check() {	# check BACKEND NAME ARGS...
	local be=$1 n=$2; shift 2
	run_fio "$n" --name="$n" --ioengine="external:$E" --calibration=none --store=$be --rw=write --numjobs=2 \
		--group_reporting --number_ios=40 --scale=1 --shared_buffers=1m --wal_segment_size=1m \
		--wal_segments=3 --checkpoint_timeout=1 --rtt=1ms --lat_json="$TMP/$n.lat.json" "$@" ||
		{ cat "$TMP/$n.err"; fail "$n: fio failed"; }
	[ "$(json "$TMP/$n.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/$n.err"; fail "$n: fio error"; }
	local commits sum reads storereads
	commits=$(json "$TMP/$n.json" "d['jobs'][0]['write']['total_ios']")
	[ "$commits" = 80 ] || fail "$n: $commits transactions, expected 80"
	sum=$(grep "txn: database" "$TMP/$n.err") || fail "$n: no database summary"
	echo "$sum"
	echo "$sum" | grep -q " commits=80 " || fail "$n: the log saw other than 80 commits"
	reads=$(echo "$sum" | sed -n 's/.* reads=\([0-9]*\).*/\1/p')
	# the connections' own stores (lat_json, lat_json.<thread>): their reads are the pool's misses
	storereads=$(py json-sum "$TMP/$n.lat.json*" "d['calls']['read']['count']")
	[ "$reads" -gt 100 ] || fail "$n: only $reads page reads with a 1 MB pool"
	[ "$storereads" = "$reads" ] || fail "$n: the stores made $storereads reads, the pool says $reads"
	ok "$n: 80 commits, $reads page reads through $be, $(json "$TMP/$n.json" "round(d['jobs'][0]['write']['iops'])") tps"
}
tested=0
if have_backend LIBCEPHFS; then
	check cephfs cephfs --store_root=$ROOT
	tested=1
fi
if have_backend RBD; then
	check rbd rbd --rbdname=txn-test-$$ --rbd_size=256m
	rbd rm -p rbd "txn-test-$$" >/dev/null 2>&1
	# the binlog's extent is max_binlog_size rounded up to 4 MiB: 4000 x ~1100 B of
	# oltp_read_write binlog must rotate inside them (a write past one fails with EFBIG)
	n=rbd-binlog
	run_fio $n --name=$n --ioengine="external:$E" --calibration=none --store=rbd --rbdname=txn-test-$$ --rbd_size=256m \
		--rw=write --number_ios=4000 --flavor=mysql --innodb_log_file_size=2m --log_bin=1 \
		--innodb_flush_log_at_trx_commit=0 --sync_binlog=0 --max_binlog_size=64k --txn_profile=oltp_read_write --table_size=1000 ||
		{ cat "$TMP/$n.err"; fail "$n: fio failed"; }
	[ "$(json "$TMP/$n.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/$n.err"; fail "$n: fio error"; }
	commits=$(json "$TMP/$n.json" "d['jobs'][0]['write']['total_ios']")
	[ "$commits" = 4000 ] || { cat "$TMP/$n.err"; fail "$n: $commits transactions, expected 4000"; }
	ok "$n: 4000 commits, the binlog rotating at 64 kB inside 4 MiB extents on rbd (fio)"
	rbd rm -p rbd "txn-test-$$" >/dev/null 2>&1
	tested=1
fi
[ $tested = 1 ] || skip "neither libcephfs nor librbd was built in"

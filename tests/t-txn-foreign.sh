#!/bin/bash
# Description: txn never creates, truncates or writes a database-named file it did not create
# Timeout: 200
# In full: txn never creates, truncates or writes a database-named file it did not create
# (binlog.000001, #ib_16384_0.dblwr, ibdata1 with waldir=, a table file 16384; a foreign ib_logfile0,
# refused by redolog after txn's names were checked): one line naming it, sha256sum unchanged, nothing
# created beside it (no marker either); reruns on the engine's own files work
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
TX="--ioengine=external:$E --calibration=none --rw=write --innodb_log_file_size=2m --wal_segment_size=1m"
# small pools so that evictions (and their doublewrites) happen
MY="$TX --flavor=mysql --txn_profile=oltp_read_write --table_size=20000 --innodb_buffer_pool_size=256k --number_ios=200"
PG="$TX --flavor=postgres --txn_profile=tpcb --shared_buffers=128k --number_ios=100"
n=0
foreign() { mkdir -p "$(dirname "$1")"; head -c "${2:-65536}" /dev/urandom >"$1"; }
# refuse DIR FILE ARGS...: FILE (a foreign file in DIR) must make the run fail
# with one line naming it, keep its checksum, and leave nothing else in DIR
refuse() {
	local dir=$1 file=$2 sum left; shift 2
	n=$((n + 1))
	sum=$(sha256sum "$dir/$file" | cut -d' ' -f1)
	"$FIO" --name=r$n --directory="$dir" "$@" >"$TMP/r$n.out" 2>&1 && { cat "$TMP/r$n.out"; fail "$file: the run did not refuse"; }
	crash_check r$n $? "$TMP/r$n.out"
	grep -q "^txn: \(log: \)\?$file exists and dbfio did not create it" "$TMP/r$n.out" || { cat "$TMP/r$n.out"; fail "$file: no 'txn: $file exists ...' line"; }
	[ "$(sha256sum "$dir/$file" | cut -d' ' -f1)" = "$sum" ] || fail "$file: written (sha256sum changed)"
	left=$(ls -A "$dir")
	[ "$left" = "$file" ] || fail "$file: the refused run left in $dir: $(echo $left)"
	ok "$file refused, sha256sum unchanged, nothing created: $(grep -m1 "exists and dbfio" "$TMP/r$n.out")"
}

# MySQL 8.0.30+: binlog.000001 and #ib_16384_0.dblwr beside no ib_logfile0
foreign "$TMP/bl/binlog.000001"
refuse "$TMP/bl" binlog.000001 $MY --log_bin=1
foreign "$TMP/dw/#ib_16384_0.dblwr" 2097152
refuse "$TMP/dw" "#ib_16384_0.dblwr" $MY
# MariaDB with the redo log elsewhere: its system tablespace
mkdir -p "$TMP/ma-wal"
foreign "$TMP/ma/ibdata1" 2097152
refuse "$TMP/ma" ibdata1 ${MY/--flavor=mysql/--flavor=mariadb} --waldir="$TMP/ma-wal"
[ -z "$(ls -A "$TMP/ma-wal")" ] || fail "ibdata1: the refused run created its log in waldir: $(ls -A "$TMP/ma-wal")"
# the binlog goes with the log (waldir=): checked there
foreign "$TMP/bw-wal/binlog.000001"
mkdir -p "$TMP/bw"
refuse "$TMP/bw-wal" binlog.000001 $MY --log_bin=1 --directory="$TMP/bw" --waldir="$TMP/bw-wal"
# a table file: PostgreSQL's relfilenode, and InnoDB's (the same names)
foreign "$TMP/rel/16384" 8192
refuse "$TMP/rel" 16384 $PG
foreign "$TMP/rel2/16385" 8192
refuse "$TMP/rel2" 16385 $MY

# a redo log of its own (MySQL before 8.0.30, MariaDB): redolog's writer refuses
# it after txn's names were checked; no claim of them may be left behind either
foreign "$TMP/redo/ib_logfile0" 2097152
refuse "$TMP/redo" ib_logfile0 $MY

# the engine's own files: a second run in the same directory works
rerun() {	# rerun NAME ARGS...
	local name=$1 i; shift
	mkdir -p "$TMP/$name"
	for i in 1 2; do
		run_fio $name-$i --name=$name-$i --directory="$TMP/$name" "$@" || { cat "$TMP/$name-$i.err"; fail "$name: run $i failed"; }
		[ "$(json "$TMP/$name-$i.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/$name-$i.err"; fail "$name: run $i: fio error"; }
	done
	ok "$name: a rerun on its own files works ($(ls "$TMP/$name" | tr '\n' ' '))"
}
rerun own-my $MY --log_bin=1
grep -q "dblwr_writes=[1-9]" "$TMP/own-my-2.err" || { cat "$TMP/own-my-2.err"; fail "own-my: no doublewrite (the pool did not evict)"; }
[ -s "$TMP/own-my/#ib_16384_0.dblwr" ] && [ -s "$TMP/own-my/binlog.000001" ] || fail "own-my: no doublewrite file or binlog"
mkdir -p "$TMP/own-ma-wal"
rerun own-ma ${MY/--flavor=mysql/--flavor=mariadb} --log_bin=1 --waldir="$TMP/own-ma-wal"
[ -s "$TMP/own-ma/ibdata1" ] && [ -s "$TMP/own-ma-wal/binlog.000001" ] || fail "own-ma: no ibdata1 or no binlog in waldir"
rerun own-pg $PG

#!/bin/bash
# Description: every engine refuses a size or time value fio's parser would misread
# Tier: quick
# In full: every engine refuses a size or time value fio's parser would misread ("5x", "1m2", "12uss",
# "5sec", "1.5m", a bool "1x") and directory=a:b, each in one line naming option, value and what is
# expected; the values fio means (64M, 0x200, 100us, 2s, 1gib) still run
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/d" "$TMP/d2"
n=0
# bad ENGINE WANT ARGS...: fio exits non-zero (parse or setup), one "ENGINE: " line matching WANT
bad() {
	local e=$1 want=$2; shift 2
	n=$((n + 1))
	"$FIO" --name=bad --ioengine="external:$B/$e.so" --directory="$TMP/d" --rw=write --size=1m \
		--number_ios=1 "$@" >"$TMP/$n.out" 2>&1
	local rc=$?
	crash_check "$e $*" $rc "$TMP/$n.out"
	[ $rc = 0 ] && { cat "$TMP/$n.out"; fail "$e $*: accepted"; }
	[ "$(grep -c "^$e: .*$want" "$TMP/$n.out")" = 1 ] ||
		{ cat "$TMP/$n.out"; fail "$e $*: not one '$e: ...$want' line"; }
	ok "$e $* -> $(grep "^$e: " "$TMP/$n.out")"
}
# good ENGINE ARGS...: fio's --parse-only takes it and setup runs: no refusal line
good() {
	local e=$1; shift
	n=$((n + 1))
	"$FIO" --name=good --ioengine="external:$B/$e.so" --directory="$TMP/d" --rw=write --size=1m \
		--number_ios=1 "$@" >"$TMP/$n.out" 2>&1 || { cat "$TMP/$n.out"; fail "$e $*: refused"; }
	grep -q "expected\|takes one directory" "$TMP/$n.out" && { cat "$TMP/$n.out"; fail "$e $*: a refusal line"; }
	ok "$e $*: runs"
}
T='expected a whole number and a unit'
S='expected a whole number of bytes'
I='expected a whole number'
bad txn "rtt=12uss: $T" --rtt=12uss
bad txn "cpu_per_stmt=5sec: $T" --cpu_per_stmt=5sec
bad txn "flush_wait=1.5ms: $T" --flush_wait=1.5ms
bad txn "shared_buffers=1m2: $S" --shared_buffers=1m2
bad txn "scale=5x: $I" --scale=5x
bad txn "txn_prefill=1x: expected 0 or 1" --txn_prefill=1x
bad txn "max_wal_size=1g,2g: $S" --max_wal_size=1g,2g
bad redolog "innodb_log_file_size=5x: $S" --innodb_log_file_size=5x
bad pgpage "relation_size=1m2: $S" --relation_size=1m2
bad pgpage "checkpoint_timeout=30s: $I" --checkpoint_timeout=30s
bad metastorm "rtt=12uss: $T" --rtt=12uss
bad storeio "rbd_size=4gx: $S" --rbd_size=4gx
for e in txn redolog pgpage metastorm storeio; do
	bad $e "directory=$TMP/d:$TMP/d2: this engine takes one directory" --directory="$TMP/d:$TMP/d2"
done
good txn --calibration=none --shared_buffers=64M --rtt=100us --flush_wait=0 --table_size=0x200 --txn_profile=read_only \
	--flavor=postgres --wal_segment_size=1m --txn_prefill=1
good redolog --innodb_log_file_size=2M --innodb_log_buffer_size=1MiB
good metastorm --rtt=2us --cpu_per_stmt=0

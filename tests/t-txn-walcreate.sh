#!/bin/bash
# Description: txn creates a WAL segment as PostgreSQL 15 does (xlogtemp, zero-fill, fsyncs, rename) while commits wait (strace)
# Tier: quick
# In full: with no segment a checkpoint freed, the committer that holds the WAL write lock creates the
# next one as XLogFileInit does (xlogtemp.PID O_EXCL, pwritev of 256 kB zeros or, wal_init_zero=0, one
# byte at its end, fsync, durable_rename: fsync, rename, fsync, directory fsync) and no other connection
# fdatasyncs the WAL meanwhile; segments are recycled only after a checkpoint synced the tables, and
# wal_recycle=0 removes them instead. The steps are the ones real PostgreSQL 15 takes (t-txn-walcreate-pg).
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
E=$B/txn.so
# run NAME ARGS...: 2 connections of tpcb on 1 MB segments, 2 kept, a checkpoint every second, under strace
run() {
	local n=$1; shift
	mkdir -p "$TMP/$n"
	strace -f -qq -y -o "$TMP/$n.strace" \
		-e trace=openat,pwrite64,pwritev,fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat,fallocate \
		"$FIO_BIN" --output-format=json --output="$TMP/$n.json" --name="$n" --ioengine="external:$E" \
		--calibration=none --directory="$TMP/$n" --rw=write --numjobs=2 --group_reporting --number_ios=2000 \
		--txn_profile=tpcb --scale=1 --wal_segment_size=1M --wal_segments=2 --max_wal_size=4M \
		--checkpoint_timeout=1 "$@" 2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
	[ "$(json "$TMP/$n.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/$n.err"; fail "$n: fio error"; }
}
D='/[0-9A-F]{24}>?'
# renames of one segment to another (recycling) and unlinks of segments, from strace's text
recycles() { grep -cE "^[0-9]+ +rename(at2?)?\(.*\"[0-9A-F]{24}\".*\"[0-9A-F]{24}\"" "$TMP/$1.strace"; }
removes() { grep -cE "^[0-9]+ +unlink(at)?\(.*\"[0-9A-F]{24}\".*= 0" "$TMP/$1.strace"; }

run zero
res=$(py wal-creations "$TMP/zero.strace" 1048576 1) || { echo "$res"; fail "zero: a segment not created as PostgreSQL 15 does"; }
ok "wal_init_zero=1: $res"
# recycling waits for a checkpoint: no segment renamed to another before the checkpointer's
# first fsync of a table file (16384...) ended a checkpoint
first_ck=$(grep -nE "^[0-9]+ +fsync\([0-9]+<[^>]*/163[0-9][0-9]>" "$TMP/zero.strace" | head -1 | cut -d: -f1)
first_rc=$(grep -nE "^[0-9]+ +rename(at2?)?\(.*\"[0-9A-F]{24}\".*\"[0-9A-F]{24}\"" "$TMP/zero.strace" | head -1 | cut -d: -f1)
[ -n "$first_ck" ] || fail "zero: no checkpoint fsynced a table in the run"
[ -n "$first_rc" ] || fail "zero: no segment recycled after $(grep -c . "$TMP/zero.strace") calls"
[ "$first_rc" -gt "$first_ck" ] || fail "zero: a segment recycled (line $first_rc) before any checkpoint ended (line $first_ck)"
ok "recycled only after a checkpoint: first table fsync at line $first_ck, first recycle at $first_rc ($(recycles zero) in all)"

run nozero --wal_init_zero=0
res=$(py wal-creations "$TMP/nozero.strace" 1048576 0) || { echo "$res"; fail "nozero: a segment not created as PostgreSQL 15 does"; }
[ "$(grep -cE "^[0-9]+ +pwritev\(" "$TMP/nozero.strace")" = 0 ] || fail "nozero: zero-filled with wal_init_zero=0"
ok "wal_init_zero=0: $res"

run norecycle --wal_recycle=0
[ "$(recycles norecycle)" = 0 ] || fail "norecycle: $(recycles norecycle) segments recycled with wal_recycle=0"
rm_n=$(removes norecycle)
[ "$rm_n" -ge 1 ] || fail "norecycle: no freed segment removed"
res=$(py wal-creations "$TMP/norecycle.strace" 1048576 1) || { echo "$res"; fail "norecycle: a segment not created as PostgreSQL 15 does"; }
ok "wal_recycle=0: no recycle, $rm_n segments removed, $res"
# a second run in the same directory meets the first one's segments under the names it creates
run zero
res=$(py wal-creations "$TMP/zero.strace" 1048576 1) || { echo "$res"; fail "zero again: segments not created as PostgreSQL 15 does"; }
ok "again in the same directory: $res"

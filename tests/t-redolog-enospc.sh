#!/bin/bash
# Description: a redolog whose zero-fill runs out of space fails naming the file and leaves none of its files
# In full: a redolog whose zero-fill runs out of space (tmpfs size=2M) fails naming the file and "No
# space left on device", and leaves none of the files it created (ib_logfileN, WAL segments,
# #innodb_redo, meta, marker lines); an earlier run's log and a foreign file stay untouched (ls +
# md5sum)
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root to mount a small tmpfs"
FULL=$TMP/full
mkdir -p "$FULL"
mount -t tmpfs -o size=2M dbfio-test-rl-full "$FULL" || fail "mount tmpfs size=2M"
at_exit "umount $FULL"
RL=(--ioengine="external:$B/redolog.so" --directory="$FULL" --rw=write --bs=4k)
listing() { (cd "$FULL" && ls -A | sort | tr '\n' ' '); }
n=0
# full FILE ARGS...: the run fails on FILE with ENOSPC, and the directory holds what it held before
full() {
	local file=$1 before after sum mark; shift
	n=$((n + 1))
	before=$(listing)
	sum=$(cd "$FULL" && md5sum $(ls -A) 2>/dev/null)
	mark=$(cat "$FULL/.dbfio-owned" 2>/dev/null)
	"$FIO" --name=full$n "${RL[@]}" --size=1m "$@" >"$TMP/full$n.out" 2>&1 &&
		{ cat "$TMP/full$n.out"; fail "$*: fio succeeded on a full file system"; }
	crash_check full$n 1 "$TMP/full$n.out"
	grep -q "^redolog: .*$file.*No space left on device" "$TMP/full$n.out" ||
		{ cat "$TMP/full$n.out"; fail "$*: no line naming $file with 'No space left on device'"; }
	after=$(listing)
	[ "$after" = "$before" ] || fail "$*: files left behind: before [$before] after [$after]"
	[ "$(cd "$FULL" && md5sum $(ls -A) 2>/dev/null)" = "$sum" ] || fail "$*: a file that was there before changed"
	[ "$(cat "$FULL/.dbfio-owned" 2>/dev/null)" = "$mark" ] || fail "$*: the marker's claims changed: $(cat "$FULL/.dbfio-owned")"
	ok "$*: $(grep -m1 '^redolog: ' "$TMP/full$n.out"); left [$after]"
}
# an empty directory stays empty: no log file, no meta, no marker
full ib_logfile0 --flavor=mysql --innodb_log_file_size=4m
# ib_logfile0 complete, ib_logfile1 cannot be: both go
full ib_logfile1 --flavor=mysql --innodb_log_file_size=1200k
full 000000010000000000000002 --flavor=postgres --wal_segment_size=1m --wal_segments=3
full '#innodb_redo/#ib_redo' --flavor=mysql --innodb_redo_log_capacity=8m
[ -e "$FULL/#innodb_redo" ] && fail "#innodb_redo left behind"
# beside a foreign file and an earlier run's complete log (its claims in the marker): only this run's files go
head -c 100000 /dev/urandom >"$FULL/foreign.dat"
"$FIO" --name=earlier "${RL[@]}" --flavor=mysql --log_prefix=a- --innodb_log_file_size=256k \
	--number_ios=10 >"$TMP/earlier.out" 2>&1 || { cat "$TMP/earlier.out"; fail "the earlier run failed"; }
[ -f "$FULL/a-ib_logfile1" ] || fail "the earlier run made no a-ib_logfile1"
full ib_logfile0 --flavor=mysql --innodb_log_file_size=4m
full ib_logfile1 --flavor=mysql --innodb_log_file_size=800k
full 000000010000000000000002 --flavor=postgres --wal_segment_size=1m --wal_segments=3
full '#innodb_redo/#ib_redo' --flavor=mysql --innodb_redo_log_capacity=8m
# the same prefix as the earlier run: a-ib_logfile0, truncated by this run and not completed, goes
# with the meta; a-ib_logfile1, not reached, stays claimed for the next run to reuse
n=$((n + 1))
"$FIO" --name=full$n "${RL[@]}" --size=1m --flavor=mysql --log_prefix=a- --innodb_log_file_size=4m >"$TMP/full$n.out" 2>&1 &&
	fail "a-: fio succeeded on a full file system"
left=$(listing)
[ "$left" = ".dbfio-owned a-ib_logfile1 foreign.dat " ] || fail "a-: left [$left]"
grep -qx a-ib_logfile1 "$FULL/.dbfio-owned" || fail "a-: a-ib_logfile1 lost its claim"
grep -qx a-ib_logfile0 "$FULL/.dbfio-owned" && fail "a-: a-ib_logfile0 removed but still claimed"
ok "a- (the earlier run's prefix): the file this run truncated is removed, the one it did not reach stays claimed: left [$left]"
exit 0

#!/bin/bash
# Description: txn's binlog appends, rotates at max_binlog_size and syncs per group as real MariaDB 10.11 does (strace)
# Timeout: 300
# In full: a real MariaDB 10.11 (log_bin, sync_binlog=1, max_binlog_size=64k) under strace -f through
# sysbench oltp_insert (4 threads) and txn flavor=mariadb (4 connections, the same settings) must
# both show: every binlog write an append at the file's end (none elsewhere), new files created
# with their header at offset 0, the old file's in-use flag cleared at rotation, one fdatasync a
# group write (+2 a new file), fewer group writes than commits, and binlog fdatasyncs running while
# another thread's redo fdatasync does (the binlog's leader apart from the redo flush). txn keeps at
# most 4 files (a rerun removes the files the last one kept), removes only names it created, and stops
# at a binlog.NNNNNN it did not create.
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || skip "strace is not installed"

# the oracle: real MariaDB 10.11 shows the pattern (when it is installed)
if [ "$(id -u)" = 0 ] && command -v mariadbd >/dev/null && command -v sysbench >/dev/null; then
	res=$(py mariadb-binlog "$TMP") || { echo "$res"; fail "real MariaDB 10.11 does not show the binlog pattern this test holds txn to"; }
	ok "real MariaDB 10.11: $res"
else
	echo "note: no real MariaDB 10.11 (root, mariadbd, sysbench): txn checked against the recorded pattern only"
fi

n=model
mkdir -p "$TMP/$n"
strace -f -qq -y -ttt -T -e trace=openat,write,pwrite64,fdatasync,unlink,unlinkat -o "$TMP/$n.strace" \
	"$FIO" --output-format=json --output="$TMP/$n.json" --name=$n --ioengine="external:$E" \
	--calibration=mariadb1011 --directory="$TMP/$n" --rw=write --flavor=mariadb --innodb_log_file_size=8m \
	--log_bin=1 --sync_binlog=1 --max_binlog_size=64k --numjobs=4 --number_ios=1000 --txn_profile=insert \
	--table_size=1000 2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
commits=$(json "$TMP/$n.json" "sum(j['write']['total_ios'] for j in d['jobs'])")
[ "$commits" = 4000 ] || fail "$n: $commits transactions, expected 4000"
res=$(py binlog-check "$TMP/$n.strace" "$commits") || { echo "$res"; fail "$n: txn's binlog does not show MariaDB's pattern"; }
ok "txn, $commits commits: $res"
unl=$(sed -E 's/.* unlinked=([0-9]+).*/\1/' <<<"$res")
[ "$unl" -ge 1 ] && grep -q " foreign_unlinks=0 " <<<"$res" || fail "$n: $unl binlog files removed, or one it did not create"
left=$(find "$TMP/$n" -name 'binlog.[0-9]*' | wc -l)
[ "$left" -le 4 ] || fail "$n: $left binlog files left (at most 4 kept)"
ok "txn kept $left binlog files, removed $unl, each one it had created"
# a rerun starts again at binlog.000001: the files the first run kept go, so 4 stay the most
before=$(cd "$TMP/$n" && echo binlog.[0-9]*)
"$FIO" --output=/dev/null --name=$n --ioengine="external:$E" --calibration=none --directory="$TMP/$n" --rw=write \
	--flavor=mariadb --innodb_log_file_size=8m --log_bin=1 --max_binlog_size=64k --number_ios=300 --txn_profile=insert \
	--table_size=1000 >"$TMP/$n.rerun" 2>&1 || { cat "$TMP/$n.rerun"; fail "$n: the rerun failed"; }
after=$(cd "$TMP/$n" && echo binlog.[0-9]*)
[ "$after" = "binlog.000001 binlog.000002" ] || fail "$n: after a rerun of 300 commits (90 kB of binlog) the files are $after (before: $before)"
ok "rerun: binlog files $before, then $after"

# a binlog.NNNNNN dbfio did not create stops the rotation to it, untouched
n=foreign
mkdir -p "$TMP/$n"
echo "a real server's binlog" >"$TMP/$n/binlog.000003"
sum=$(sha256sum <"$TMP/$n/binlog.000003")
"$FIO" --output=/dev/null --name=$n --ioengine="external:$E" --calibration=none --directory="$TMP/$n" \
	--rw=write --flavor=mariadb --innodb_log_file_size=2m --log_bin=1 --max_binlog_size=8k --number_ios=100 \
	--txn_profile=oltp_read_write >"$TMP/$n.out" 2>&1
grep -q "^txn: log: binlog.000003 exists and dbfio did not create it" "$TMP/$n.out" ||
	{ cat "$TMP/$n.out"; fail "$n: no line refusing binlog.000003"; }
[ "$(sha256sum <"$TMP/$n/binlog.000003")" = "$sum" ] || fail "$n: the foreign binlog.000003 changed"
ok "$n: $(grep -o "binlog.000003 exists and dbfio did not create it" "$TMP/$n.out"); it is unchanged (sha256sum)"

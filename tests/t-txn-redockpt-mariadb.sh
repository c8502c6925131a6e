#!/bin/bash
# Description: txn mariadb flushes pages as its redo log fills, as a real MariaDB 10.11 does (4 MB log, 128 MB pool)
# Timeout: 900
# In full: a real MariaDB 10.11 and the model (flavor=mariadb, calibration=mariadb1011) with a pool
# that holds the table (128 MB: no LRU flushing), a 4 MB redo log and no timed checkpoint inside the
# run (the model's checkpoint_timeout=300), each running sysbench's oltp_read_write over 100000 rows
# with 4 connections for 15 s under strace -f -y, read by one reader (lib.py _flush_pattern): the
# pages written for each MiB written to ib_logfile0. The real server flushes because its checkpoint
# age nears the log's capacity; the model requests a checkpoint each time 7/8 of MariaDB's margin
# of redo was written. Within a factor of 2.5 either way: how many pages a checkpoint finds dirty
# depends on how checkpoints fall in a 15 s run (and the real server's adaptive flushing is not
# modelled).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "strace -p of a real MariaDB run as root: needs root"
command -v strace >/dev/null || skip "strace is not installed"
command -v mariadbd >/dev/null || skip "mariadb-server is not installed (tools/deps --with fidelity)"
command -v sysbench >/dev/null || skip "sysbench is not installed (tools/deps --with fidelity)"
secs=15
get() { sed -n "s/.*\<$1=\([0-9.]*\).*/\1/p" <<<"$2"; }

real=$(py mariadb-page-flushing "$TMP" $secs 128M 4M) || { echo "$real"; fail "the real MariaDB run failed"; }
echo "real MariaDB 10.11: $real"

mkdir -p "$TMP/m"
strace -f -qq -y -e trace=openat,pwrite64,pread64,fsync,fdatasync -o "$TMP/m.strace" \
	"$FIO" --name=m --ioengine="external:$B/txn.so" --calibration=mariadb1011 --flavor=mariadb \
	--directory="$TMP/m" --rw=write --txn_profile=oltp_read_write --table_size=100000 \
	--innodb_buffer_pool_size=128m --innodb_log_file_size=4m --checkpoint_timeout=300 \
	--numjobs=4 --group_reporting --time_based --runtime=$secs \
	--output-format=json --output="$TMP/m.json" 2>"$TMP/m.err" || { cat "$TMP/m.err"; fail "model: fio failed"; }
[ "$(json "$TMP/m.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/m.err"; fail "model: fio error"; }
model=$(py txn-flush-pattern "$TMP/m.strace" ibdata1) || fail "model: no trace"
echo "model: $model"
grep -o "wal_checkpoint_requests=[0-9]*" "$TMP/m.err"

for side in real model; do
	v=${!side}
	[ "$(get redo "$v")" -gt $((8 << 20)) ] || fail "$side: only $(get redo "$v") bytes of redo: the log did not fill twice"
done
r=$(get pages_per_redo_mib "$real"); m=$(get pages_per_redo_mib "$model")
py check "$r > 0 and 1 / 2.5 <= $m / $r <= 2.5" ||
	fail "pages written a MiB of redo: model $m, real $r (a factor of 2.5)"
ok "pages written a MiB of redo: real $r ($(get pages "$real") pages, $(get redo "$real") bytes), model $m ($(get pages "$model") pages, $(get redo "$model") bytes)"

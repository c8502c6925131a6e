#!/bin/bash
# Description: txn mariadb: commits stall at the maximum checkpoint age, so the redo log never wraps over an unfinished checkpoint
# Tier: quick
# Timeout: 200
# In full: flavor=mariadb with a 2 MB redo log and a 400000-row table its 256 MB pool holds (no
# evictions, no LRU flushing), sysbench oltp_read_write at 4 connections for 8 s under strace -f -y.
# Read in the order of strace's lines by lib.py txn-redo-wrap (not the engine's code): a checkpoint
# begins with the checkpointer's first page or doublewrite write and ends with its table fsync's
# return; every write to ib_logfile0 must end at most the log's capacity past the redo written when
# the last finished checkpoint began. Checkpoints spread over the time their redo took cannot keep
# up with a log this small: without the stall (MariaDB 10.11's log_free_check) the log overruns
# them. (At 100000 rows each checkpoint is so small that the asynchronous ones alone keep up.)
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed (tools/deps installs it)"
mkdir -p "$TMP/m"
strace -f -qq -y -e trace=pwrite64,fsync,fdatasync -o "$TMP/m.strace" \
	"$FIO" --name=m --ioengine="external:$B/txn.so" --calibration=none --flavor=mariadb \
	--directory="$TMP/m" --rw=write --txn_profile=oltp_read_write --table_size=400000 \
	--innodb_buffer_pool_size=256m --innodb_log_file_size=2m --checkpoint_timeout=300 \
	--numjobs=4 --group_reporting --time_based --runtime=8 \
	--output-format=json --output="$TMP/m.json" 2>"$TMP/m.err" || { cat "$TMP/m.err"; fail "fio failed"; }
[ "$(json "$TMP/m.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/m.err"; fail "fio error"; }
grep -o "checkpoints=[0-9]* wal_checkpoint_requests=[0-9]* sync_stalls=[0-9]*" "$TMP/m.err" ||
	fail "no database summary"
out=$(py txn-redo-wrap "$TMP/m.strace" $((2 << 20))) || { echo "$out"; fail "the redo log overran a checkpoint"; }
echo "$out"
ckpts=$(sed -n 's/.* ckpts=\([0-9]*\).*/\1/p' <<<"$out")
[ "$ckpts" -ge 3 ] || fail "only $ckpts checkpoints ended: the log did not fill"
ok "no redo write past the last finished checkpoint's start + the capacity ($out)"

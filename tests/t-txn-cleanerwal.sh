#!/bin/bash
# Description: txn mariadb: the page cleaner syncs the redo log before each batch goes to the doublewrite file (WAL rule)
# Tier: quick
# Timeout: 200
# In full: flavor=mariadb, innodb_flush_log_at_trx_commit=2 (commits write the log, a sync comes
# once a second), an 8 MB pool (the page cleaner's LRU batches), no checkpoint in the run,
# sysbench oltp_read_write at 4 connections for 6 s under strace -f -y. Read in the order of
# strace's lines by lib.py txn-cleaner-wal (not the engine's code): every doublewrite write of the
# cleaner (the thread writing more than one page at a time to ibdata1) comes after a sync of
# ib_logfile0 covering every log write that returned before the cleaner's previous table call
# returned, as MariaDB 10.11's page cleaner writes the log up to a batch's newest change first.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed (tools/deps installs it)"
mkdir -p "$TMP/c"
strace -f -qq -y -e trace=pwrite64,fsync,fdatasync -o "$TMP/c.strace" \
	"$FIO" --name=c --ioengine="external:$B/txn.so" --calibration=none --flavor=mariadb \
	--directory="$TMP/c" --rw=write --txn_profile=oltp_read_write --table_size=100000 \
	--innodb_buffer_pool_size=8m --innodb_flush_log_at_trx_commit=2 --checkpoint_timeout=300 \
	--numjobs=4 --group_reporting --time_based --runtime=6 \
	--output-format=json --output="$TMP/c.json" 2>"$TMP/c.err" || { cat "$TMP/c.err"; fail "fio failed"; }
[ "$(json "$TMP/c.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/c.err"; fail "fio error"; }
grep -o "cleaner_batches=[0-9]*" "$TMP/c.err" || fail "no database summary"
out=$(py txn-cleaner-wal "$TMP/c.strace") || { echo "$out"; fail "a cleaner batch went out ahead of its redo"; }
echo "$out"
ok "every cleaner batch after a log sync covering the log written before it ($out)"

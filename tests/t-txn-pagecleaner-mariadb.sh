#!/bin/bash
# Description: txn mariadb flushes pages as a real MariaDB 10.11 does (8 MB pool): page cleaner batches, O_DIRECT tables
# Timeout: 900
# In full: a real MariaDB 10.11 (8 MB buffer pool, simulated AIO so page writes are pwrite64) and
# the model (flavor=mariadb, calibration=mariadb1011), each running sysbench's oltp_read_write over
# 100000 rows with 4 connections, strace -f -y. The model's page reads a transaction (strace) are
# 60-125 % of the server's own count (its free list: most of the pool free). Both sides read by one reader (lib.py
# _flush_pattern): the connections write few pages themselves (at most 10 %), the page cleaner's batches
# do (a doublewrite write of several pages, synced, then the pages, then the files' syncs); at
# least 80 % of the pages written were doublewritten (the real server skips a few); the tables are open O_DIRECT (the real server's
# fdinfo, the model's openat flags). Pages written per sync depend on how fast pages are dirtied
# during a batch: a timing assertion, within 50 % of the real server's.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "strace -p of a real MariaDB run as root: needs root"
command -v strace >/dev/null || skip "strace is not installed"
command -v mariadbd >/dev/null || skip "mariadb-server is not installed (tools/deps --with fidelity)"
command -v sysbench >/dev/null || skip "sysbench is not installed (tools/deps --with fidelity)"
timing_test
secs=15
get() { sed -n "s/.*\<$1=\([0-9.]*\).*/\1/p" <<<"$2"; }

real=$(py mariadb-page-flushing "$TMP" $secs) || { echo "$real"; fail "the real MariaDB run failed"; }
echo "real MariaDB 10.11: $real"

mkdir -p "$TMP/m"
strace -f -qq -y -e trace=openat,pwrite64,pread64,fsync,fdatasync -o "$TMP/m.strace" \
	"$FIO" --name=m --ioengine="external:$B/txn.so" --calibration=mariadb1011 --flavor=mariadb \
	--directory="$TMP/m" --rw=write --txn_profile=oltp_read_write --table_size=100000 \
	--innodb_buffer_pool_size=8m --numjobs=4 --group_reporting --time_based --runtime=$secs \
	--output-format=json --output="$TMP/m.json" 2>"$TMP/m.err" || { cat "$TMP/m.err"; fail "model: fio failed"; }
[ "$(json "$TMP/m.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/m.err"; fail "model: fio error"; }
model=$(py txn-flush-pattern "$TMP/m.strace" ibdata1) || fail "model: no trace"
echo "model: $model"

for side in real model; do
	v=${!side}
	[ "$(get pages "$v")" -gt 500 ] || fail "$side: only $(get pages "$v") page writes: the pool was not under pressure"
	py check "$(get conn_share "$v") <= 0.1" ||
		fail "$side: $(get conn_share "$v") of the page writes made by threads that wrote no doublewrite batch (a connection's own flush)"
	py check "0.8 <= $(get dw_pages "$v") / $(get pages "$v") <= 1.05" ||
		fail "$side: $(get dw_pages "$v") pages doublewritten for $(get pages "$v") written"
	py check "$(get pages_per_dw_write "$v") >= 2" ||
		fail "$side: $(get pages_per_dw_write "$v") pages a doublewrite write: no batches"
done
ok "connections' share of page writes: real $(get conn_share "$real"), model $(get conn_share "$model");" \
	"doublewritten/written: real $(get dw_pages "$real")/$(get pages "$real"), model $(get dw_pages "$model")/$(get pages "$model")"

# the pool's share of the data: MariaDB keeps innodb_lru_scan_depth frames free
# (most of an 8 MB pool), so it reads far more pages a transaction than a full
# pool would; the model's free list (strace's pread64 on its tables over fio's
# transactions) must come within 60 % of the server's own Innodb_buffer_pool_reads
n=$(json "$TMP/m.json" "d['jobs'][0]['write']['total_ios']")
mr=$(grep -cE "^[0-9]+ +pread64\([0-9]+</[^>]*/1638[0-9]>" "$TMP/m.strace")
mrt=$(py calc "round($mr / $n, 2)")
py check "0.6 <= $mrt / $(get reads_per_txn "$real") <= 1.25" ||
	fail "model: $mrt page reads a transaction (strace), real $(get reads_per_txn "$real") (Innodb_buffer_pool_reads): not 60-125 %"
ok "page reads a transaction: model $mrt (strace), real $(get reads_per_txn "$real") (the server's count);" \
	"pages flushed: real $(get flushed_per_txn "$real")"

[ "$(get direct "$real")" = 1 ] || fail "real: sbtest1.ibd is not open O_DIRECT (fdinfo)"
py check "$(get direct_io "$model") >= 0.99 * ($(get direct_io "$model") + $(get buffered_io "$model"))" ||
	fail "model: $(get buffered_io "$model") page reads/writes through descriptors opened without O_DIRECT"
ok "O_DIRECT tables: real (fdinfo of sbtest1.ibd) and model ($(get direct_io "$model") page I/Os O_DIRECT, $(get buffered_io "$model") not: the load's)"

timing_check "abs($(get pages_per_sync "$model") / $(get pages_per_sync "$real") - 1) <= 0.5" \
	"pages written per sync: model $(get pages_per_sync "$model"), real $(get pages_per_sync "$real") (50 %)"
ok "pages written per data-file sync: real $(get pages_per_sync "$real"), model $(get pages_per_sync "$model");" \
	"pages a doublewrite write: real $(get pages_per_dw_write "$real"), model $(get pages_per_dw_write "$model")"

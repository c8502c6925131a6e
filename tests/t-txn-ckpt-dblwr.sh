#!/bin/bash
# Description: txn InnoDB: the checkpointer's page writes go through the doublewrite buffer first
# Timeout: 200
# In full: txn InnoDB: the checkpointer's page writes go through the doublewrite buffer first (strace:
# <= 64-page writes to #ib_16384_0.dblwr / ibdata1, <= 128 pages a batch, synced before any of the
# batch's table writes; doublewritten pages = table page writes); innodb_doublewrite=0 writes none
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || fail "strace is not installed (tools/deps installs it)"
run() {	# run NAME ARGS...: oltp_read_write, a pool larger than the tables, a checkpoint a second
	local n=$1; shift
	mkdir -p "$TMP/$n"
	strace -f -qq -y -e trace=pwrite64,fsync,fdatasync -o "$TMP/$n.strace" \
		"$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" --ioengine="external:$E" --calibration=none \
		--directory="$TMP/$n" --rw=write --innodb_log_file_size=2m --txn_profile=oltp_read_write \
		--table_size=100000 --innodb_buffer_pool_size=64m --checkpoint_timeout=1 \
		--time_based --runtime=3 --rtt=1ms "$@" 2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
	[ "$(json "$TMP/$n.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/$n.err"; fail "$n: fio error"; }
	grep "txn: database" "$TMP/$n.err" >"$TMP/$n.sum" || fail "$n: no database summary"
	grep -q " evict_writes=0 " "$TMP/$n.sum" || fail "$n: eviction writes with a pool larger than the tables"
	grep -q " ckpt_written=[1-9]" "$TMP/$n.sum" || fail "$n: the checkpointer wrote nothing: $(cat "$TMP/$n.sum")"
}
run my --flavor=mysql
py txn-ckpt-dblwr "$TMP/my.strace" "#ib_16384_0.dblwr" fsync || fail "mysql: checkpoint writes not doublewritten"
ok "mysql: every checkpoint page write doublewritten to #ib_16384_0.dblwr and fsynced first"
run maria --flavor=mariadb
py txn-ckpt-dblwr "$TMP/maria.strace" ibdata1 fdatasync || fail "mariadb: checkpoint writes not doublewritten"
ok "mariadb: every checkpoint page write doublewritten to ibdata1 and fdatasynced first"
run nodw --flavor=mysql --innodb_doublewrite=0
grep -q "dblwr" "$TMP/nodw.strace" && fail "nodw: innodb_doublewrite=0 still wrote the doublewrite file"
ok "nodw: innodb_doublewrite=0: checkpoint writes, no doublewrite"

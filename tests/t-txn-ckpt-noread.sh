#!/bin/bash
# Description: txn: the checkpointer writes from the buffer, as the databases do: no extra reads of the table files
# Timeout: 200
# In full: txn: the checkpointer writes from the buffer, as the databases do: the pread64 calls on the
# table files (strace) = the pool's misses read (summary reads), not reads + ckpt_written (postgres
# and mysql)
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || fail "strace is not installed (tools/deps installs it)"
run() {	# run NAME TABLE_RE ARGS...
	local n=$1 re=$2; shift 2
	mkdir -p "$TMP/$n"
	strace -f -qq -y -e trace=pread64 -o "$TMP/$n.strace" \
		"$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" --ioengine="external:$E" --calibration=none \
		--directory="$TMP/$n" --rw=write --checkpoint_timeout=1 --txn_prewarm=0 \
		--time_based --runtime=3 --rtt=1ms "$@" 2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
	[ "$(json "$TMP/$n.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/$n.err"; fail "$n: fio error"; }
	sum=$(grep "txn: database" "$TMP/$n.err") || fail "$n: no database summary"
	reads=$(echo "$sum" | sed -n 's/.* reads=\([0-9]*\).*/\1/p')
	cw=$(echo "$sum" | sed -n 's/.* ckpt_written=\([0-9]*\).*/\1/p')
	pr=$(grep -cE "^[0-9]+ +pread64\([0-9]+</[^>]*/$re>" "$TMP/$n.strace")
	[ "$cw" -gt 0 ] || fail "$n: the checkpointer wrote nothing: $sum"
	[ "$pr" = "$reads" ] || fail "$n: strace saw $pr table reads, the pool read $reads (checkpoint writes $cw)"
	ok "$n: $pr table reads in strace = the pool's $reads reads; $cw checkpoint writes read nothing"
}
run pg '1638[4-9](\.[0-9]+)?' --flavor=postgres --scale=2 --shared_buffers=64m
run my '1638[45]' --flavor=mysql --innodb_log_file_size=2m --txn_profile=oltp_read_write \
	--table_size=100000 --innodb_buffer_pool_size=64m

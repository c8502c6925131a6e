#!/bin/bash
# Description: txn oltp_read_write: sysbench's INSERT puts a new random k, so each transaction reads 3 random k_1 index leaves
# Timeout: 200
# In full: txn oltp_read_write: sysbench's INSERT puts a new random k, so each transaction reads 3
# random k_1 index leaves (UPDATE k, DELETE, INSERT), not 2 (strace: pread64 on the k_1 file per
# commit, 16-frame pool: nearly every access misses)
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || fail "strace is not installed (tools/deps installs it)"
mkdir -p "$TMP/d"
# tables 16384 (sbtest1, ~2700 pages) and 16385 (sbtest1_k_1, ~250 pages);
# 256 kB pool = 16 frames: a random leaf is resident with probability < 16/250
strace -f -qq -y -e trace=pread64 -o "$TMP/d.strace" \
	"$FIO" --output-format=json --output="$TMP/d.json" --name=d --ioengine="external:$E" --calibration=none \
	--directory="$TMP/d" --rw=write --flavor=mariadb --innodb_log_file_size=2m \
	--txn_profile=oltp_read_write --table_size=100000 --innodb_buffer_pool_size=256k \
	--checkpoint_timeout=0 --number_ios=600 2>"$TMP/d.err" || { cat "$TMP/d.err"; fail "fio failed"; }
[ "$(json "$TMP/d.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/d.err"; fail "fio error"; }
n=$(json "$TMP/d.json" "d['jobs'][0]['write']['total_ios']")
k=$(grep -cE "^[0-9]+ +pread64\([0-9]+</[^>]*/d/16385>" "$TMP/d.strace")
echo "$n transactions, $k reads of k_1 leaves: $(py calc "round($k / $n, 3)") a transaction"
py check "2.7 <= $k / $n <= 3.0" || fail "$k k_1 reads in $n transactions: not 3 random leaves a transaction"
ok "$(py calc "round($k / $n, 3)") k_1 leaf reads a transaction (3 random leaves, a few resident)"

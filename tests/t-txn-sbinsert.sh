#!/bin/bash
# Description: txn oltp_read_write reads 3 random k_1 leaves a transaction (sysbench's INSERT a new k), purge 2 more
# Timeout: 200
# In full: txn oltp_read_write: sysbench's INSERT puts a new random k, so each transaction reads 3
# random k_1 index leaves (UPDATE k, DELETE, INSERT), not 2 (strace: pread64 on the k_1 file per
# commit, 16-frame pool: nearly every access misses); with purge=1 InnoDB's purge reads the leaves
# of the 2 entries each transaction delete-marked again after commit
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
	--checkpoint_timeout=0 --number_ios=600 --purge=0 2>"$TMP/d.err" || { cat "$TMP/d.err"; fail "fio failed"; }
[ "$(json "$TMP/d.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/d.err"; fail "fio error"; }
n=$(json "$TMP/d.json" "d['jobs'][0]['write']['total_ios']")
k=$(grep -cE "^[0-9]+ +pread64\([0-9]+</[^>]*/d/16385>" "$TMP/d.strace")
echo "$n transactions, $k reads of k_1 leaves: $(py calc "round($k / $n, 3)") a transaction"
py check "2.7 <= $k / $n <= 3.0" || fail "$k k_1 reads in $n transactions: not 3 random leaves a transaction"
ok "purge=0: $(py calc "round($k / $n, 3)") k_1 leaf reads a transaction (3 random leaves, a few resident)"

# purge=1 (the default): purge goes back to the two k_1 entries each transaction
# delete-marked (UPDATE of k, DELETE) after commit, 5 pages a transaction in all
# (3 clustered leaves): strace's k_1 reads = 3 a transaction + 2/5 of the pages
# purged, less the few resident. The summary's purge counts say how many were.
rm -rf "$TMP/d"; mkdir -p "$TMP/d"
strace -f -qq -y -e trace=pread64 -o "$TMP/p.strace" \
	"$FIO" --output-format=json --output="$TMP/p.json" --name=p --ioengine="external:$E" --calibration=none \
	--directory="$TMP/d" --rw=write --flavor=mariadb --innodb_log_file_size=2m \
	--txn_profile=oltp_read_write --table_size=100000 --innodb_buffer_pool_size=256k \
	--checkpoint_timeout=0 --number_ios=600 --innodb_purge_batch_size=20 2>"$TMP/p.err" ||
	{ cat "$TMP/p.err"; fail "purge=1: fio failed"; }
n=$(json "$TMP/p.json" "d['jobs'][0]['write']['total_ios']")
get() { sed -n "s/.*\<$1=\([0-9]*\).*/\1/p" "$TMP/p.err"; }
pp=$(get purge_pages) pl=$(get purge_left) pd=$(get purge_dropped)
[ "$((pp + pl + pd))" = "$((5 * n))" ] || fail "purge: $pp pages purged + $pl left + $pd dropped, not 5 x $n transactions"
py check "$pp >= 0.8 * 5 * $n" || fail "purge: only $pp of $((5 * n)) pages purged by the end"
k=$(grep -cE "^[0-9]+ +pread64\([0-9]+</[^>]*/d/16385>" "$TMP/p.strace")
want=$(py calc "3 * $n + 0.4 * $pp")
echo "purge=1: $n transactions, $pp pages purged, $k reads of k_1 leaves (3 a transaction + 2/5 of those purged: $want)"
py check "0.9 <= $k / $want <= 1.0" || fail "purge=1: $k k_1 reads, not about $want: purge does not read the delete-marked entries' leaves"
ok "purge=1: $k k_1 leaf reads for $n transactions and $pp pages purged (expected about $want)"

#!/bin/bash
# Description: txn tpcb on postgres probes relation sizes and extends pgbench_history as PostgreSQL 15 does; mariadb none
# Timeout: 200
# In full: txn tpcb on postgres probes relation sizes as PostgreSQL 15 does (strace: lseek(SEEK_END)
# per transaction on each relation file — accounts, accounts_pkey, tellers, branches 2, tellers_pkey,
# branches_pkey 1, 10 in all — and pgbench_history extended by one 8 kB pwrite at its end, after a
# probe, every 157 rows, continuing at the file's end on a rerun); mariadb makes no probes
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || fail "strace is not installed (tools/deps installs it)"
# Oracle: the lseek and pwrite64 calls as the kernel saw them (strace -y), against
# counts derived by hand from what strace showed real PostgreSQL 15 doing under
# pgbench -c 1 (scale 5, on ceph-fuse, 1607 transactions; docs/txn.md):
#   per statement the planner sizes the table and each of its indexes
#   (RelationGetNumberOfBlocks -> mdnblocks -> lseek(SEEK_END)); a seq scan (tellers,
#   branches: one page each) sizes the heap once more when it starts:
#     UPDATE accounts / SELECT accounts: accounts, accounts_pkey       (2 + 2)
#     UPDATE tellers: tellers, tellers_pkey, tellers                   (3)
#     UPDATE branches: branches, branches_pkey, branches               (3)
#   INSERT INTO pgbench_history plans no scan: no probe, except when the row
#   does not fit in the last page: smgrnblocks (lseek) then smgrextend (an 8 kB
#   pwrite at the end of the file). A history row is 48 bytes + a 4-byte line
#   pointer: (8192 - 24) / 52 = 157 rows a page (real: 10 extensions in 1607).
# The relfilenodes: 16384 accounts, 16385 accounts_pkey, 16386 tellers,
# 16387 branches, 16388 history, 16389 tellers_pkey, 16390 branches_pkey.
N=500
run() {	# run NAME DIR ARGS...
	local n=$1 d=$2; shift 2
	mkdir -p "$d"
	strace -f -qq -y -e trace=lseek,pwrite64 -o "$TMP/$n.strace" \
		"$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" --ioengine="external:$E" --calibration=none \
		--directory="$d" --rw=write --scale=1 --number_ios=$N --wal_segment_size=1m "$@" \
		2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
	[ "$(json "$TMP/$n.json" "d['jobs'][0]['write']['total_ios']")" = $N ] ||
		{ cat "$TMP/$n.err"; fail "$n: not $N transactions"; }
}
seeks() { grep -c "^[0-9]* *lseek([0-9]*<[^>]*/$2>, 0, SEEK_END)" "$TMP/$1.strace"; }
# the history file's 8 kB writes, as offsets
hist_writes() { grep "^[0-9]* *pwrite64([0-9]*<[^>]*/16388>" "$TMP/$1.strace" | sed 's/.*, 8192, \([0-9]*\)) = 8192$/\1/' | tr '\n' ' '; }

# first run: the loaded tables are probed once each when loaded (their size
# decides whether to write them), then 2 or 1 per transaction
run pg1 "$TMP/pg" --flavor=postgres
for rf in 16384:2 16385:2 16386:2 16387:2 16389:1 16390:1; do
	f=${rf%:*} per=${rf#*:}
	got=$(seeks pg1 $f)
	[ "$got" = $((per * N + 1)) ] || fail "pg1: $got lseek(SEEK_END) on $f, expected $per x $N + 1 (its load)"
done
# history: opened and sized once at start (empty), then a probe and a write at
# the end for each new page: rows 0, 157, 314, 471 -> pages 0..3
got=$(seeks pg1 16388)
[ "$got" = $((1 + 4)) ] || fail "pg1: $got lseek(SEEK_END) on history (16388), expected 1 + 4 extensions"
w=$(hist_writes pg1)
[ "$w" = "0 8192 16384 24576 " ] || fail "pg1: history written at offsets '$w', expected 0 8192 16384 24576 (one page each 157 rows)"
total=$(grep -c "SEEK_END" "$TMP/pg1.strace")
ok "pg1: $N tpcb transactions: 10 size probes each ($total lseek(SEEK_END) in all), history extended at 0 8192 16384 24576 (strace)"

# a rerun continues the history at the file's end (PostgreSQL's table keeps growing)
run pg2 "$TMP/pg" --flavor=postgres
w=$(hist_writes pg2)
[ "$w" = "32768 40960 49152 57344 " ] || fail "pg2: history written at offsets '$w', expected 32768 40960 49152 57344 (after the first run's 4 pages)"
ok "pg2: the rerun extends history from the file's end: $w(strace)"

# InnoDB keeps its sizes in memory: no probe per statement (the loads' only)
run maria "$TMP/maria" --flavor=mariadb
got=$(grep -c "SEEK_END" "$TMP/maria.strace")
[ "$got" -le 7 ] || fail "maria: $got lseek(SEEK_END), expected at most one per table (its load)"
ok "maria: $got lseek(SEEK_END) for $N transactions (the loads only)"

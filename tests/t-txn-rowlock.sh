#!/bin/bash
# Description: txn row locks: pgbench's TPC-B at scale 1 (one branch row), 4 connections, flush slowed to 50 ms
# Timeout: 200
# In full: txn row locks: pgbench's TPC-B at scale 1 (one branch row), 4 connections, flush slowed to
# 50 ms: PostgreSQL holds the branch until its commit is flushed, so every flush covers one commit
# (strace's fdatasync count = commits) and the run lasts at least commits x (flush + 2 round trips) by
# fio's clock; row_locks=0 forms groups again; InnoDB releases before the flush, so its groups form
# too
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || fail "strace is not installed (tools/deps installs it)"
N=4 PER=10
run() {	# run NAME ARGS...
	local n=$1; shift
	mkdir -p "$TMP/$n"
	strace -f -qq -e trace=fdatasync -o "$TMP/$n.strace" \
		"$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" --ioengine="external:$E" --calibration=none \
		--directory="$TMP/$n" --rw=write --numjobs=$N --group_reporting --scale=1 \
		--number_ios=$PER --rtt=1ms --debug_flush_delay=50ms "$@" \
		2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
	commits=$(json "$TMP/$n.json" "d['jobs'][0]['write']['total_ios']")
	runtime_ms=$(json "$TMP/$n.json" "d['jobs'][0]['write']['runtime']")
	[ "$commits" = $((N * PER)) ] || fail "$n: $commits commits, expected $((N * PER))"
}
# Hand-computed: the one branch row is held from UPDATE pgbench_branches through
# INSERT and END (2 round trips of 1 ms) and the commit's flush (50 ms + the
# disk's): transactions pass it one at a time, one commit per flush.
run pg --full_page_writes=0 --wal_segment_size=1m
syncs=$(grep -c fdatasync "$TMP/pg.strace")
py check "$syncs >= 0.9 * $commits" ||
	fail "postgres, row locks: $syncs fdatasync (strace) for $commits commits: groups formed past a held row"
py check "$runtime_ms >= $commits * 52 * 0.95" ||
	fail "postgres, row locks: $commits commits in $runtime_ms ms (fio), at least $((commits * 52)) ms if serialised"
ok "postgres, row locks: $commits commits, $syncs fdatasync (strace), $runtime_ms ms (>= $((commits * 52)) ms)"

run pgnolock --full_page_writes=0 --wal_segment_size=1m --row_locks=0
syncs=$(grep -c fdatasync "$TMP/pgnolock.strace")
py check "$commits / $syncs >= 1.6" ||
	fail "postgres, row_locks=0: $syncs fdatasync for $commits commits: expected groups (about 2 a flush)"
ok "postgres, row_locks=0: $commits commits, $syncs fdatasync: groups form"

# InnoDB releases the row at commit, before the flush: the next holder's commit
# joins the following flush while this one runs, so groups form as without locks.
run inno --flavor=mariadb --innodb_flush_method=fsync
syncs=$(grep -c fdatasync "$TMP/inno.strace")
py check "$commits / $syncs >= 1.6" ||
	fail "mariadb, row locks: $syncs fdatasync for $commits commits: InnoDB's locks must go before the flush"
ok "mariadb, row locks: $commits commits, $syncs fdatasync: released before the flush, groups form"

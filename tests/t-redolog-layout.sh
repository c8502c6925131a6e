#!/bin/bash
# Description: redolog on posix: byte pattern, logverify ok and corruption, bad values refused, enghelp
# Tier: quick
# Timeout: 120
# In full: redolog on posix: byte pattern (block 0 rewritten, write-ahead padding, 2 x 1 MiB wrap, WAL
# page rewrite, segment recycling), logverify ok and corruption, bad values refused, enghelp
. "$(dirname "$0")/lib.sh"
E=$B/redolog.so
LV=$B/logverify
[ -x "$LV" ] && [ -f "$E" ] || fail "build/redolog.so or build/logverify missing (run make)"
rl() {	# rl NAME ARGS...: one job in $TMP/NAME/, trace in $TMP/NAME.trace
	local name=$1; shift
	rm -rf "${TMP:?}/$name"; mkdir -p "$TMP/$name"
	run_fio "$name" --name="$name" --ioengine="external:$E" --directory="$TMP/$name" --rw=write \
		--lsn_file="$TMP/$name.lsn" --write_trace="$TMP/$name.trace" "$@" ||
		{ cat "$TMP/$name.err"; fail "$name: fio failed"; }
}

# mysql: three 100-byte commits all rewrite block 0 (file offset 2048); the
# first enters the write-ahead window [0, 8192) and is padded to its end.
rl m3 --flavor=mysql --innodb_log_file_size=1m --bs=100 --number_ios=3
want=$'W ib_logfile0 2048 6144\nF ib_logfile0\nW ib_logfile0 2048 512\nF ib_logfile0\nW ib_logfile0 2048 512\nF ib_logfile0'
[ "$(cat "$TMP/m3.trace")" = "$want" ] || { cat "$TMP/m3.trace"; fail "mysql: 3 commits did not rewrite block 0 as expected"; }
# block 0 holds the three records: data_len = 12 + 300, records at 12, 112, 212
py redolog-block0 "$TMP/m3/ib_logfile0" || fail "mysql: block 0 content"
"$LV" --dir="$TMP/m3" "$TMP/m3.lsn" >/dev/null || fail "logverify rejects the 3-commit log"
ok "mysql: 3 x 100 B commits rewrite block 0; first write padded to 8192 (6144 B)"

# a write entering the next window: 4 KiB records, write-ahead 4096
rl wa --flavor=mysql --innodb_log_file_size=1m --innodb_log_write_ahead_size=4096 --bs=4000 --number_ios=4
py redolog-write-ahead "$TMP/wa.trace" || { cat "$TMP/wa.trace"; fail "mysql: write-ahead padding not where expected"; }
ok "mysql: write-ahead padding on window entry"

# 2 x 1 MiB: the log wraps into ib_logfile0 again (at 2048, past the file header)
rl wrap --flavor=mysql --innodb_log_file_size=1m --innodb_log_files_in_group=2 --bs=4k --size=3m --iodepth=4
py redolog-wrap "$TMP/wrap.trace" || fail "mysql: 2 x 1 MiB log did not wrap into the first file"
grep -q "wraps=[1-9]" "$TMP/wrap.err" || fail "mysql: engine counted no wrap"
"$LV" --dir="$TMP/wrap" "$TMP/wrap.lsn" >/dev/null || fail "logverify rejects the wrapped log"
ok "mysql: 2 x 1 MiB log wraps into ib_logfile0 at offset 2048; logverify ok"

# postgres: three 100-byte commits rewrite WAL page 0 of segment 1
rl p3 --flavor=postgres --wal_segment_size=1m --bs=100 --number_ios=3
want=$'W 000000010000000000000001 0 8192\nF 000000010000000000000001'
[ "$(cat "$TMP/p3.trace")" = "$want"$'\n'"$want"$'\n'"$want" ] || { cat "$TMP/p3.trace"; fail "postgres: page 0 not rewritten 3 times"; }
[ "$(stat -c %s "$TMP/p3/000000010000000000000002")" = 1048576 ] || fail "postgres: segments not pre-allocated"
ok "postgres: 3 x 100 B commits rewrite page 0; segments pre-allocated"

# postgres: recycling renames the oldest segment
rl pr --flavor=postgres --wal_segment_size=1m --wal_segments=3 --bs=8k --size=6m --iodepth=8
grep -q "^R 000000010000000000000001 000000010000000000000004" "$TMP/pr.trace" || fail "postgres: segment 1 not recycled as 4"
"$LV" --dir="$TMP/pr" "$TMP/pr.lsn" >/dev/null || fail "logverify rejects the recycled WAL"
ok "postgres: segment 1 recycled as segment 4; logverify ok"

# mariadb: no block framing, ib_logfile0 after a 12 KiB header, writes of whole 512 B
rl ma --flavor=mariadb --innodb_log_file_size=1m --innodb_log_file_buffering=1 --bs=100 --number_ios=3
[ "$(head -1 "$TMP/ma.trace")" = "W ib_logfile0 12288 512" ] || fail "mariadb: first write not at 12288"
"$LV" --dir="$TMP/ma" "$TMP/ma.lsn" >/dev/null || fail "logverify rejects the mariadb log"
ok "mariadb: records at 12288 in 512 B writes"

# corruption: flip one payload byte of the second record in block 0
printf '\xff' | dd of="$TMP/m3/ib_logfile0" bs=1 seek=$((2048 + 112 + 50)) conv=notrunc 2>/dev/null
out=$("$LV" --dir="$TMP/m3" "$TMP/m3.lsn"); rc=$?
[ $rc = 1 ] || fail "logverify exit $rc on a corrupted log: $out"
ok "corrupted log: $out"
"$LV" --dir="$TMP/m3" /dev/null >/dev/null 2>&1; [ $? = 2 ] || fail "logverify: no sidecar should exit 2"

# bad values: one line naming option and value, fio exits non-zero ("fio: failed
# parsing": fio's own parser, for a value outside the option's range or choices)
bad() {
	local want=$1; shift
	if "$FIO" --name=bad --ioengine="external:$E" --directory="$TMP" --rw=write --size=1m "$@" >"$TMP/bad.out" 2>&1; then
		fail "fio accepted $*"
	fi
	grep -q "^$want" "$TMP/bad.out" || { cat "$TMP/bad.out"; fail "no '$want' line for $*"; }
}
bad "fio: failed parsing innodb_log_write_ahead_size=3000$" --innodb_log_write_ahead_size=3000
bad "fio: failed parsing innodb_flush_method=fast$" --innodb_flush_method=fast
bad "fio: failed parsing wal_sync_method=fast$" --flavor=postgres --wal_sync_method=fast
bad "redolog: innodb_log_file_size=1000000:" --innodb_log_file_size=1000000
bad "redolog: bs=614400:" --innodb_log_file_size=1m --bs=600k --size=2m
bad "fio: failed parsing flavor=oracle$" --flavor=oracle
ok "bad values refused with one line"

help=$("$FIO" --enghelp="$E")
for o in flavor innodb_log_file_size innodb_log_files_in_group innodb_log_write_ahead_size innodb_flush_method \
	innodb_use_fdatasync innodb_flush_log_at_trx_commit innodb_log_buffer_size innodb_log_file_buffering \
	innodb_log_write_size wal_segment_size wal_segments wal_sync_method wal_buffers log_prefix lsn_file \
	write_trace debug_skip_flush store; do
	grep -q "^$o *: ." <<<"$help" || fail "--enghelp lacks $o"
done
ok "enghelp lists every option"

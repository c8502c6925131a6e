#!/bin/bash
# Description: redolog flavor=mysql innodb_redo_log_capacity (MySQL 8.0.30+ layout) on posix: 32 #innodb_redo/#ib_redoN files
# Timeout: 120
# In full: redolog flavor=mysql innodb_redo_log_capacity (MySQL 8.0.30+ layout) on posix: 32
# #innodb_redo/#ib_redoN files, spares #ib_redoN_tmp, consumed files recycled by rename, logverify ok,
# re-run cleans up, bad values refused
. "$(dirname "$0")/lib.sh"
E=$B/redolog.so
LV=$B/logverify
[ -x "$LV" ] && [ -f "$E" ] || fail "build/redolog.so or build/logverify missing (run make)"
D=$TMP/r8
mkdir -p "$D"
r8() {	# r8 NAME ARGS...: one job in $D (kept between runs), trace in $TMP/NAME.trace
	local name=$1; shift
	run_fio "$name" --name="$name" --ioengine="external:$E" --directory="$D" --rw=write \
		--innodb_redo_log_capacity=32m --lsn_file="$TMP/$name.lsn" \
		--write_trace="$TMP/$name.trace" --lat_table=1 "$@" ||
		{ cat "$TMP/$name.err"; fail "$name: fio failed"; }
}
# files FIRST ACTIVE_LAST: the sorted listing a run that reached #ib_redoACTIVE_LAST must leave
files() {
	local i
	for ((i = $1; i < $1 + 32; i++)); do
		if ((i <= $2)); then echo "#ib_redo$i"; else echo "#ib_redo${i}_tmp"; fi
	done | sort
}

# 32M -> 1 MiB files; 5 MiB of 4 KiB commits fill files 0..4 and enter file 5
r8 a --bs=4k --size=5m --iodepth=8
[ "$(ls "$D/#innodb_redo" | sort)" = "$(files 0 5)" ] ||
	{ ls "$D/#innodb_redo"; fail "5 MiB: not #ib_redo0..5 + #ib_redo6_tmp..#ib_redo31_tmp"; }
[ "$(stat -c %s "$D/#innodb_redo/#ib_redo31_tmp")" = 1048576 ] || fail "spare not pre-allocated at capacity/32"
grep -q "^R #innodb_redo/#ib_redo1_tmp #innodb_redo/#ib_redo1$" "$TMP/a.trace" || fail "spare 1 not renamed to #ib_redo1"
head -c 64 "$D/#innodb_redo/#ib_redo3" | grep -q "#ib_redo3 format 6" || fail "#ib_redo3: no header naming the file"
# the first write of each file starts past the 2048-byte header
py redo8030-framing "$TMP/a.trace" || fail "writes not framed as in the classic layout"
grep -q "^layout=redo8030$" "$D/redolog-mysql.meta" || fail "meta lacks layout=redo8030"
"$LV" --dir="$D" "$TMP/a.lsn" >/dev/null || fail "logverify rejects the 8.0.30 log"
ok "5 MiB: #ib_redo0..5 active, 26 spares #ib_redoN_tmp, headers, 512 B framing; logverify ok"

# 40 MiB: past 32 files, consumed files are renamed to the next numbers
r8 b --bs=4k --size=40m --iodepth=16 --innodb_flush_log_at_trx_commit=2
last=$(ls "$D/#innodb_redo" | sed 's/#ib_redo//' | sort -n | tail -1)
[ "$(ls "$D/#innodb_redo" | sort)" = "$(files $((last - 31)) "$last")" ] ||
	{ ls "$D/#innodb_redo"; fail "40 MiB: not 32 files #ib_redo$((last - 31))..$last"; }
((last >= 40)) || fail "40 MiB: last file #ib_redo$last, expected >= 40"
grep -q "^R #innodb_redo/#ib_redo0 #innodb_redo/#ib_redo32$" "$TMP/b.trace" ||
	fail "consumed #ib_redo0 not recycled as #ib_redo32"
py redo8030-renames "$TMP/b.trace" || fail "recycling renames: file numbers do not increase by one"
grep -q "wraps=0 " "$TMP/b.err" || fail "8.0.30 layout must not wrap"
for op in rename dirsync; do
	grep -Eq "^$op +[1-9]" "$TMP/b.err" || { cat "$TMP/b.err"; fail "store layer counted no $op"; }
done
out=$("$LV" --dir="$D" "$TMP/b.lsn") || fail "logverify rejects the recycled log: $out"
ok "40 MiB: 32 files #ib_redo$((last - 31))..$last, #ib_redo0 recycled as #ib_redo32, renames + dirsyncs counted; $out"

# a re-run in the same directory starts again at #ib_redo0 and leaves no stale file
r8 c --bs=4k --size=2m
[ "$(ls "$D/#innodb_redo" | sort)" = "$(files 0 2)" ] || { ls "$D/#innodb_redo"; fail "re-run left stale files"; }
"$LV" --dir="$D" "$TMP/c.lsn" >/dev/null || fail "logverify rejects the re-run log"
ok "re-run: earlier run's files removed, #ib_redo0..2 + 29 spares"

# corruption in a recycled file is found
printf '\xff' | dd of="$D/#innodb_redo/#ib_redo1" bs=1 seek=$((2048 + 4000)) conv=notrunc 2>/dev/null
out=$("$LV" --dir="$D" "$TMP/c.lsn"); rc=$?
[ $rc = 1 ] && grep -q "#ib_redo1" <<<"$out" || fail "logverify exit $rc on a corrupted #ib_redo1: $out"
ok "corrupted #ib_redo1: $out"

bad() {
	local want=$1; shift
	if "$FIO" --name=bad --ioengine="external:$E" --directory="$TMP" --rw=write --size=1m "$@" >"$TMP/bad.out" 2>&1; then
		fail "fio accepted $*"
	fi
	[ "$(grep -c "^redolog: " "$TMP/bad.out")" = 1 ] && grep -q "^redolog: $want" "$TMP/bad.out" ||
		{ cat "$TMP/bad.out"; fail "no one 'redolog: $want' line for $*"; }
}
bad "innodb_redo_log_capacity=4194304:" --innodb_redo_log_capacity=4m
bad "innodb_redo_log_capacity=8389120:" --innodb_redo_log_capacity=8389120
bad "innodb_redo_log_capacity=8388608: only flavor=mysql" --innodb_redo_log_capacity=8m --flavor=postgres
ok "bad innodb_redo_log_capacity values refused with one line"
"$FIO" --enghelp="$E" | grep -q "^innodb_redo_log_capacity *: ." || fail "--enghelp lacks innodb_redo_log_capacity"

#!/bin/bash
# Description: redolog accounting in fio's JSON: number_ios not a multiple of iodepth (last partial group completed)
# Timeout: 120
# In full: redolog accounting in fio's JSON: number_ios not a multiple of iodepth (last partial group
# completed), every commit in clat/bytes once and in slat once, logverify finds exactly that many
# records
. "$(dirname "$0")/lib.sh"
E=$B/redolog.so
LV=$B/logverify
[ -x "$LV" ] && [ -f "$E" ] || fail "build/redolog.so or build/logverify missing (run make)"
N=2005	# 125 groups of 16 and a last group of 5
BS=512
check() {	# check NAME STORE FLAVOR ARGS...
	local n=$1 st=$2 fl=$3; shift 3
	mkdir -p "$TMP/$n"
	run_fio "$n" --name="$n" --ioengine="external:$E" --store="$st" --directory="$TMP/$n" --rw=write \
		--flavor="$fl" --bs=$BS --number_ios=$N --iodepth=16 --innodb_log_file_size=4m \
		--wal_segment_size=1m --lsn_file="$TMP/$n.lsn" "$@" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
	local got
	got=$(json "$TMP/$n.json" "' '.join(str(x) for x in (d['jobs'][0]['error'], d['jobs'][0]['write']['total_ios'], d['jobs'][0]['write']['io_bytes'], d['jobs'][0]['write']['clat_ns']['N'], d['jobs'][0]['write']['slat_ns']['N']))")
	# error, total_ios, io_bytes, clat samples, slat samples: each commit once
	[ "$got" = "0 $N $((N * BS)) $N $N" ] ||
		fail "$n: fio JSON error/total_ios/io_bytes/clat.N/slat.N = $got, expected 0 $N $((N * BS)) $N $N"
	local lv
	lv=$("$LV" --store="$st" --dir="$TMP/$n" "$TMP/$n.lsn") || fail "$n: logverify: $lv"
	grep -q "ok: $N records intact" <<<"$lv" || fail "$n: logverify counted other than $N records: $lv"
	ok "$n: fio counts $N commits, $((N * BS)) bytes, $N clat and $N slat samples; $lv"
}
check mysql-posix posix mysql
check pg-posix-trx posix postgres
check mysql-trx2 posix mysql --innodb_flush_log_at_trx_commit=2
have_backend LIBURING && check pg-uring uring postgres
have_backend LIBAIO && check mysql-aio aio mysql
exit 0

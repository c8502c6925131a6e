#!/bin/bash
# Description: a failing lsn_file= or write_trace= write fails the redolog job with ENOSPC and one line
# In full: a failing lsn_file= or write_trace= write (/dev/full) fails the redolog job with ENOSPC in
# fio's JSON and one line naming the option, the path and the cause (it was silent: logverify would
# read a stale LSN); at open, mid-run and at the trace's last flush
. "$(dirname "$0")/lib.sh"
ENOSPC=28
[ -w /dev/full ] || skip "no /dev/full"
mkdir -p "$TMP/d"
# sidecar NAME OPTION SIZE: the job fails with ENOSPC and one line naming OPTION=/dev/full
sidecar() {
	local name=$1 opt=$2 size=$3 err
	rm -rf "$TMP/d"/* "$TMP/d"/.dbfio-*
	run_fio "$name" --name="$name" --ioengine="external:$B/redolog.so" --directory="$TMP/d" \
		--innodb_log_file_size=2m --rw=write --bs=4k --size="$size" --"$opt"=/dev/full &&
		{ cat "$TMP/$name.err"; fail "$name: fio succeeded though its $opt writes failed"; }
	[ "$(grep -c "^redolog: $opt=/dev/full: write failed: No space left on device" "$TMP/$name.err")" = 1 ] ||
		{ cat "$TMP/$name.err"; fail "$name: not one 'redolog: $opt=/dev/full: write failed: ...' line"; }
	err=$(py json-text "$TMP/$name.json" "d['jobs'][0]['error']")
	[ "$err" = $ENOSPC ] || { cat "$TMP/$name.err"; fail "$name: fio's JSON error $err, expected ENOSPC ($ENOSPC)"; }
	ok "$name: error $err, $(grep "^redolog: $opt=" "$TMP/$name.err")"
}
sidecar lsn lsn_file 4m		# its first write, at open
sidecar trace-run write_trace 4m	# a full trace buffer, mid-run
sidecar trace-end write_trace 8k	# two records: only the last flush finds it

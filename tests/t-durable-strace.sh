#!/bin/bash
# Description: durability oracle from strace: redolog and storeio on posix make an fsync/fdatasync per flush they claim
# Timeout: 120
# In full: durability oracle from strace: redolog and storeio on store=posix make at least one
# fsync/fdatasync system call per flush they claim
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "no strace"
[ "${SANITIZE:-0}" = 1 ] && skip "strace of the ASan-preloaded fio: not meaningful"
check() {	# check NAME ENGINE ARGS...
	local n=$1 e=$2 calls claimed; shift 2
	mkdir -p "$TMP/$n"
	strace -f -y -qq -e trace=fsync,fdatasync -o "$TMP/$n.strace" \
		"$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" --ioengine="external:$B/$e.so" \
		--store=posix --directory="$TMP/$n" --rw=write "$@" 2>"$TMP/$n.err" ||
		{ cat "$TMP/$n.err"; fail "$n: fio failed"; }
	# calls that returned 0 on the job's files or its directory (py strace-syncs joins the
	# halves of a call strace split: "<unfinished ...>" + "<... resumed>")
	calls=$(py strace-syncs "$TMP/$n.strace" "^$TMP/$n(/|\$)") || fail "$n: cannot read strace's output"
	calls=$((${calls% *} + ${calls#* }))
	claimed=$(json "$TMP/$n.json" "d['jobs'][0]['sync']['lat_ns']['N']")
	((claimed >= 200)) || fail "$n: only $claimed flushes claimed"
	((calls >= claimed)) || fail "$n: strace saw $calls successful fsync/fdatasync calls, the run claims $claimed flushes"
	ok "$n: claims $claimed flushes; strace: $calls fsync/fdatasync calls returned 0"
}
check rl-mysql redolog --flavor=mysql --bs=512 --number_ios=300 --iodepth=1 --innodb_log_file_size=4m
check rl-pg redolog --flavor=postgres --bs=4k --number_ios=2000 --iodepth=4 --wal_segment_size=1m
check sio storeio --filename=sio --bs=4k --size=1m --fdatasync=1

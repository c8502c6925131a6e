#!/bin/bash
# Description: redolog direct=1 works on posix/uring/aio for every layout
# Timeout: 200
# In full: redolog direct=1 works on posix/uring/aio for every layout: strace sees each log file
# opened O_DIRECT and the meta opened buffered; logverify finds every record
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "no strace"
[ "${SANITIZE:-0}" = 1 ] && skip "strace of the ASan-preloaded fio: not meaningful"
# the file system under $TMP must take O_DIRECT (ext4, xfs; tmpfs before 6.6 does not)
dd if=/dev/zero of="$TMP/probe" bs=4096 count=1 oflag=direct 2>/dev/null || skip "$TMP does not take O_DIRECT"
n=0
# run BACKEND FIRST_LOG_FILE META ARGS...
run() {
	local be=$1 first=$2 meta=$3 d line; shift 3
	n=$((n + 1))
	d=$TMP/d$n
	mkdir -p "$d"
	strace -f -qq -e trace=openat -o "$TMP/st$n" "$FIO" --name=dio$n \
		--ioengine="external:$B/redolog.so" --store="$be" --directory="$d" --direct=1 \
		--rw=write --bs=512 --iodepth=4 --number_ios=400 --lsn_file="$TMP/lsn$n" "$@" \
		>"$TMP/out$n" 2>&1 || { cat "$TMP/out$n"; fail "$be $*: redolog direct=1 failed"; }
	crash_check "dio$n" 0 "$TMP/out$n"
	# the log file: O_DIRECT (what direct=1 asks for), O_CREAT (created by this open)
	line=$(grep -E "openat\(.*\"$first\", [^)]*O_CREAT" "$TMP/st$n" | head -1)
	[ -n "$line" ] || { cat "$TMP/st$n" | grep -v '\.so' | tail -20; fail "$be $*: strace saw no creating open of $first"; }
	[[ $line == *O_DIRECT* ]] || fail "$be $*: $first opened without O_DIRECT: $line"
	# the meta: its text is written buffered (an unaligned write under O_DIRECT is EINVAL)
	line=$(grep -E "openat\(.*\"$meta\", [^)]*O_CREAT" "$TMP/st$n" | head -1)
	[ -n "$line" ] || fail "$be $*: strace saw no creating open of $meta"
	[[ $line == *O_DIRECT* ]] && fail "$be $*: $meta opened O_DIRECT: $line"
	"$B/logverify" --store="$be" --dir="$d" "$TMP/lsn$n" >"$TMP/lv$n" 2>&1 ||
		{ cat "$TMP/lv$n"; fail "$be $*: logverify"; }
	ok "$be $*: $first O_DIRECT, $meta buffered; $(cat "$TMP/lv$n")"
}
for be in posix uring aio; do
	case $be in uring) have_backend LIBURING || continue ;; aio) have_backend LIBAIO || continue ;; esac
	run $be ib_logfile0 redolog-mysql.meta --flavor=mysql --innodb_log_file_size=1m
	# buffering=1: O_DIRECT comes from direct=1 alone, not from MariaDB's own default
	run $be ib_logfile0 redolog-mariadb.meta --flavor=mariadb --innodb_log_file_size=1m --innodb_log_file_buffering=1
	run $be 000000010000000000000001 redolog-postgres.meta --flavor=postgres --wal_segment_size=1m --wal_segments=3
done
run posix '#innodb_redo/#ib_redo0' redolog-mysql.meta --flavor=mysql --innodb_redo_log_capacity=8m
exit 0

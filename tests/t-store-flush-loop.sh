#!/bin/bash
# Description: fsync/fdatasync reach the device on posix, uring and aio: flush requests counted by the block layer of a loop device under ext4 (/sys/block/loopN/stat), for storeio's fdatasync= and redolog's commits
# Timeout: 120
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
for e in storeio redolog; do [ -f "$B/$e.so" ] || fail "$B/$e.so is missing (run make)"; done
loopfs 128

# flushed NAME MIN ARGS...: run fio on the loop fs; the device must complete at
# least MIN flush requests meanwhile (ext4 turns each fdatasync into one or more)
flushed() {
	local name=$1 min=$2 f0 f1; shift 2
	mkdir -p "$LFS/$name"
	f0=$(loopfs_flushes)
	run_fio "$name" --name="$name" --directory="$LFS/$name" "$@" || { cat "$TMP/$name.err"; fail "$name: fio failed"; }
	f1=$(loopfs_flushes)
	[ "$(json "$TMP/$name.json" "d['jobs'][0]['error']")" = 0 ] || fail "$name: fio error"
	[ $((f1 - f0)) -ge "$min" ] || fail "$name: $((f1 - f0)) flush requests reached $LFS_DEV, at least $min expected"
	ok "$name: $((f1 - f0)) flush requests at $LFS_DEV (>= $min)"
	rm -rf "${LFS:?}/$name"
}
for be in posix uring aio; do
	case $be in uring) have_backend LIBURING || continue ;; aio) have_backend LIBAIO || continue ;; esac
	for direct in 0 1; do
		[ $be = posix ] && [ $direct = 1 ] && continue
		n=$be${direct/#1/-direct}; n=${n%0}
		# 64 writes, fdatasync=1: fio issues 63 fdatasyncs (none after the last write)
		flushed "st-$n" 63 --ioengine="external:$B/storeio.so" --store=$be --direct=$direct \
			--rw=write --bs=4k --size=256k --fdatasync=1 --iodepth=4
		# 200 commits at iodepth 1: a flush each before it is acknowledged (redolog
		# takes O_DIRECT as MySQL does, from innodb_flush_method)
		m=fsync; [ $direct = 1 ] && m=O_DIRECT
		flushed "rl-$n" 200 --ioengine="external:$B/redolog.so" --store=$be --innodb_flush_method=$m \
			--rw=write --flavor=mysql --bs=512 --number_ios=200 --iodepth=1 --innodb_log_file_size=1m
	done
done

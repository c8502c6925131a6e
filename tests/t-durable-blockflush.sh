#!/bin/bash
# Description: durability oracle from the block layer: redolog (fsync and fdatasync flavors) and storeio fdatasync=1 on posix
# Timeout: 240
# In full: durability oracle from the block layer: redolog (fsync and fdatasync flavors) and storeio
# fdatasync=1 on posix, uring and aio, on a scratch ext4 over a loop device: the device's flush
# counter rises by at least the flushes each run claims
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/loopfs.sh"
loopfs_up 128
# What the run claims (fio's sync latency samples: one per flush) against
# what the block layer saw: /sys/block/loopN/stat field 16, flush requests
# completed by the device. ext4 turns each fsync/fdatasync of written data
# into at least one flush; its own background commits only add to the count.
# A backend whose flush does nothing leaves the counter almost still.
check() {	# check NAME ENGINE ARGS...
	local n=$1 e=$2 before after claimed; shift 2
	mkdir -p "$LFS/$n"
	before=$(loop_flushes)
	run_fio "$n" --name="$n" --ioengine="external:$B/$e.so" --directory="$LFS/$n" --rw=write "$@" ||
		{ cat "$TMP/$n.err"; fail "$n: fio failed"; }
	after=$(loop_flushes)
	claimed=$(json "$TMP/$n.json" "d['jobs'][0]['sync']['lat_ns']['N']")
	((claimed >= 200)) || fail "$n: only $claimed flushes claimed"
	((after - before >= claimed)) ||
		fail "$n: the device saw $((after - before)) flush requests, the run claims $claimed flushes"
	ok "$n: claims $claimed flushes, the device completed $((after - before))"
}
for st in posix uring aio; do
	case $st in
	uring) have_backend LIBURING || { echo "no uring backend"; continue; } ;;
	aio) have_backend LIBAIO || { echo "no aio backend"; continue; } ;;
	esac
	# mysql: fsync per commit (store_fsync); postgres: fdatasync (linked pairs on uring)
	check "rl-mysql-$st" redolog --store=$st --flavor=mysql --bs=512 --number_ios=300 --iodepth=1 \
		--innodb_log_file_size=4m
	check "rl-pg-$st" redolog --store=$st --flavor=postgres --bs=512 --number_ios=300 --iodepth=1 \
		--wal_segment_size=1m
	check "rl-pg-qd4-$st" redolog --store=$st --flavor=postgres --bs=4k --number_ios=2000 --iodepth=4 \
		--wal_segment_size=1m
	# fio's own fdatasync=1: storeio's asynchronous fdatasync request
	check "sio-$st" storeio --store=$st --filename=sio-$st --bs=4k --size=1m --fdatasync=1 --iodepth=1
done

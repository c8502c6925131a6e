#!/bin/bash
# Description: bad input, all engines: out-of-range options, missing / read-only / full (ENOSPC) directory each refused with one line
# Timeout: 180
# In full: bad input, all engines: out-of-range options, missing / read-only / full (ENOSPC) directory
# each refused with one line, no crash, no leftovers of ours
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
for e in storeio redolog pgpage metastorm rbdsnap; do
	[ -f "$B/$e.so" ] || fail "$B/$e.so is missing (run make)"
done
D=$TMP/d; mkdir -p "$D"
st() { refuse "$1" "$2" --ioengine="external:$B/storeio.so" --directory="$D" "${@:3}"; }
rl() { refuse "$1" "$2" --ioengine="external:$B/redolog.so" --directory="$D" --rw=write --size=1m "${@:3}"; }
pg() { refuse "$1" "$2" --ioengine="external:$B/pgpage.so" --directory="$D" --bs=8k --size=1m "${@:3}"; }
ms() { refuse "$1" "$2" --ioengine="external:$B/metastorm.so" --directory="$D" --number_ios=3 "${@:3}"; }
rs() { refuse "$1" "$2" --ioengine="external:$B/rbdsnap.so" --pool=rbd --rbdname=rbdsnap-test-none \
	--rw=randwrite --bs=4k --runtime=1 "${@:3}"; }

# 1. out-of-range / unknown values (those t-storeio-errors, t-metastorm-local and
#    t-rbdsnap-errors already try are not repeated here); "failed parsing NAME=VALUE"
#    is fio's own parser refusing a value outside the option's range or choices
st st-empty-store "store=" --size=1m --store=
st st-qd "queue_depth=100000 is over" --size=1m --store=uring --iodepth=100000
rl rl-flavor "failed parsing flavor=oracle" --flavor=oracle
rl rl-wasize "failed parsing innodb_log_write_ahead_size=1000" --innodb_log_write_ahead_size=1000
rl rl-method "failed parsing innodb_flush_method=bogus" --innodb_flush_method=bogus
rl rl-trx "failed parsing innodb_flush_log_at_trx_commit=3" --innodb_flush_log_at_trx_commit=3
rl rl-files "failed parsing innodb_log_files_in_group=0" --innodb_log_files_in_group=0
rl rl-fsize "innodb_log_file_size=1024: must be" --innodb_log_file_size=1k
rl rl-wsize "innodb_log_write_size=100: must be 0" --flavor=mariadb --innodb_log_write_size=100
rl rl-wsize2 "innodb_log_write_size=256: must be 0" --flavor=mariadb --innodb_log_write_size=256
rl rl-seg "failed parsing wal_segment_size=3m" --flavor=postgres --wal_segment_size=3m
rl rl-segs "failed parsing wal_segments=0" --flavor=postgres --wal_segments=0
rl rl-sync "failed parsing wal_sync_method=bogus" --flavor=postgres --wal_sync_method=bogus
rl rl-read "rw=read: the log is only appended" --rw=read
pg pg-bsize "failed parsing block_size=1000" --block_size=1000
pg pg-rels "failed parsing relations=0" --relations=0
pg pg-relsize "relation_size=12345: not a multiple" --relation_size=12345
pg pg-cct "failed parsing checkpoint_completion_target=2" --checkpoint_completion_target=2
pg pg-segsize "segment_size=1000: smaller than" --segment_size=1000
pg pg-extend "failed parsing extend_ratio=101" --extend_ratio=101
pg pg-bs "bs=4096: must equal block_size=8192" --bs=4k
# fio 3.33 stores an integer of 2^31 or more wrapped when the option has no minimum
pg pg-ckpt-big "checkpoint_timeout=3000000000: at most 86400" --checkpoint_timeout=3000000000 --rw=write
ms ms-tables "tables=4294967295: at most" --tables=-1
ms ms-pages "init_pages=4294967295: at most" --init_pages=-1
ms ms-op "ddl_mix=frobnicate:1: unknown operation" --ddl_mix=frobnicate:1
rs rs-health "health_interval" --health_interval=10ms
rs rs-ctimeout "connect_timeout" --connect_timeout=0
rs rs-interval-big "snap_interval" --snap_interval=31d
rs rs-prefix-long "snap_prefix" --snap_interval=1 --snap_prefix="$(printf 'p%.0s' $(seq 70))"
rs rs-count-alone "snap_count" --snap_count=3
n_range=$REFUSED

# 2. a missing directory (storeio's is in t-storeio-errors). fio lstat()s
#    directory= while it parses a job and refuses a missing one itself ("fio:
#    DIR is not a directory") before any engine is reached. So $M exists while
#    fio parses the jobs, and a first job (the null engine) removes it in its
#    exec_prerun; the engine's job starts after it (stonewall), and must refuse
#    in its own line, "ENGINE: ...'$M': No such file or directory". strace
#    shows that job's open of $M failing after the rmdir.
M=$TMP/missing
STRACE=
command -v strace >/dev/null && [ "${SANITIZE:-0}" != 1 ] && STRACE=y
nodir() {	# nodir NAME ENGINE ARGS...
	local name=$1 e=$2 fio=$FIO; shift 2
	mkdir -p "$M"
	[ -n "$STRACE" ] && FIO="$TMP/$name.fio" &&
		printf '#!/bin/sh\nexec strace -f -qq -e trace=open,openat,rmdir -o %s %s "$@"\n' "$TMP/$name.strace" "$fio" >"$FIO" &&
		chmod +x "$FIO"
	refuse "$name" "^$e: .*'$M': No such file or directory$" --ioengine=null --size=4k --exec_prerun="rmdir $M" \
		--name="$name-job" --stonewall --ioengine="external:$B/$e.so" --directory="$M" "$@"
	FIO=$fio
	grep -q "is not a directory" "$TMP/$name.out" && fail "$name: fio refused $M itself: the engine was not reached"
	[ -z "$STRACE" ] || py strace-enoent-after "$TMP/$name.strace" "$M" || fail "$name: strace: the engine did not open $M"
	[ -e "$M" ] && fail "$name: the run created the missing directory $M"
}
nodir rl-nodir redolog --rw=write --size=1m
nodir pg-nodir pgpage --bs=8k --size=1m --rw=write
nodir ms-nodir metastorm --number_ios=3

# 3. a full and a read-only file system (root: a loop-mounted 8 MiB ext4)
loopfs 8
echo precious >"$LFS/foreign"
L=$LFS/d; mkdir "$L"
full() { refuse "$1" "$2" --directory="$L" "${@:3}"; }
full st-full "No space left on device" --ioengine="external:$B/storeio.so" --rw=write --size=32m --bs=64k --unlink=1
full rl-full "No space left on device" --ioengine="external:$B/redolog.so" --rw=write --size=1m --flavor=mysql --innodb_log_file_size=48m
full pg-full "more than the file system of directory= holds\|No space left" --ioengine="external:$B/pgpage.so" \
	--bs=8k --relations=2 --relation_size=16m --rw=write --size=32m
for fl in mysql mariadb postgres; do
	full "ms-full-$fl" "No space left on device" --ioengine="external:$B/metastorm.so" --flavor=$fl \
		--number_ios=50000 --ddl_mix=create:1
	# what rl-full left (its log files and their ownership marker) is redolog's
	[ -z "$(ls -A "$L" | grep -v '^ib_logfile\|^redolog-\|^\.dbfio-owned$')" ] ||
		fail "metastorm $fl left its files after ENOSPC: $(ls -A "$L")"
done
rm -rf "${L:?}"/*
loopfs_ro
ro() { refuse "$1" "Read-only file system" --directory="$LFS" "${@:2}"; }
ro st-ro --ioengine="external:$B/storeio.so" --rw=write --size=1m --filename=storeio-ro
ro rl-ro --ioengine="external:$B/redolog.so" --rw=write --size=1m --innodb_log_file_size=1m
ro pg-ro --ioengine="external:$B/pgpage.so" --bs=8k --size=1m --rw=write --relations=1 --relation_size=1m
ro ms-ro --ioengine="external:$B/metastorm.so" --number_ios=3
[ "$(cat "$LFS/foreign")" = precious ] || fail "the foreign file on the loop fs changed"
loopfs_cleanup
echo "bad inputs refused: $REFUSED ($n_range option values, $((REFUSED - n_range)) directories)"
ok "$REFUSED bad inputs refused with one line each"

#!/bin/bash
# Description: storeio on posix, uring, aio: fio verify=crc32c passes, every fsync reaches the store
. "$(dirname "$0")/lib.sh"
# storeio_check BACKEND NAME EXTRA-ARGS...: write+verify through storeio, then
# compare fio's own sync count with the store's call counts (lat_json).
storeio_check() {
	local be=$1 name=$2; shift 2
	run_fio "$name" --name="$name" --ioengine="external:$B/storeio.so" --store="$be" \
		--size=16m --bs=4k --rw=randwrite --iodepth=8 --verify=crc32c --fsync=32 \
		--lat_json="$TMP/$name.lat.json" "$@" || { cat "$TMP/$name.err"; fail "$name: fio failed"; }
	local err syncs fsyncs writes reads
	err=$(json "$TMP/$name.json" "d['jobs'][0]['error']")
	[ "$err" = 0 ] || fail "$name: fio error $err"
	syncs=$(json "$TMP/$name.json" "d['jobs'][0]['sync']['total_ios']")
	fsyncs=$(json "$TMP/$name.lat.json" "d['calls']['fsync']['count']")
	writes=$(json "$TMP/$name.lat.json" "d['calls']['write']['count']")
	reads=$(json "$TMP/$name.lat.json" "d['calls']['read']['count']")
	[ "$syncs" -gt 0 ] && [ "$syncs" = "$fsyncs" ] || fail "$name: fio issued $syncs fsyncs, the store saw $fsyncs"
	[ "$writes" = 4096 ] || fail "$name: 4096 writes expected, store saw $writes"
	[ "$reads" = 4096 ] || fail "$name: verify should read 4096 blocks, store saw $reads"
	ok "$name: $writes writes, $reads verified reads, $fsyncs fsyncs"
}
for be in posix uring aio; do
	case $be in uring) have_backend LIBURING || continue ;; aio) have_backend LIBAIO || continue ;; esac
	mkdir -p "$TMP/$be"
	storeio_check "$be" "$be" --directory="$TMP/$be"
done
# O_DIRECT through the async backends
for be in uring aio; do
	mkdir -p "$TMP/$be-direct"
	storeio_check "$be" "$be-direct" --directory="$TMP/$be-direct" --direct=1
done
# fdatasync= maps to the store's fdatasync
run_fio fds --name=fds --ioengine="external:$B/storeio.so" --directory="$TMP/posix" \
	--size=1m --bs=4k --rw=write --fdatasync=1 --lat_json="$TMP/fds.lat.json" || fail "fdatasync run"
n=$(json "$TMP/fds.json" "d['jobs'][0]['sync']['lat_ns']['N']")
[ "$n" -ge 255 ] || fail "fio issued only $n fdatasyncs for 256 writes"
[ "$(json "$TMP/fds.lat.json" "d['calls']['fdatasync']['count']")" = "$n" ] || fail "fio issued $n fdatasyncs, the store saw a different count"
ok "fdatasync: $n reached the store"

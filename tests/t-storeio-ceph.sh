#!/bin/bash
# Description: storeio on cephfs (libcephfs) and rbd against the project's cluster: verify passes, syncs counted
# Timeout: 400
. "$(dirname "$0")/lib.sh"
need_cluster
rbd_cleanup dbfio-test-storeio
cephfs_cleanup /dbfio-test-$$
check() {
	local be=$1 name=$2; shift 2
	run_fio "$name" --name="$name" --ioengine="external:$B/storeio.so" --store="$be" \
		--size=16m --bs=4k --rw=randwrite --iodepth=16 --verify=crc32c --fsync=64 \
		--lat_json="$TMP/$name.lat.json" "$@" || { cat "$TMP/$name.err"; fail "$name: fio failed"; }
	[ "$(json "$TMP/$name.json" "d['jobs'][0]['error']")" = 0 ] || fail "$name: fio reported an error"
	syncs=$(json "$TMP/$name.json" "d['jobs'][0]['sync']['total_ios']")
	fsyncs=$(json "$TMP/$name.lat.json" "d['calls']['fsync']['count']")
	[ "$syncs" -gt 0 ] && [ "$syncs" = "$fsyncs" ] || fail "$name: fio issued $syncs fsyncs, the store saw $fsyncs"
	ok "$name: verified, $fsyncs fsyncs; write p99 $(json "$TMP/$name.json" "d['jobs'][0]['write']['clat_ns']['percentile']['99.000000']") ns"
}
have_backend LIBCEPHFS && check cephfs cephfs --store_root=/dbfio-test-$$ --filename=storeio.dat
have_backend RBD && check rbd rbd --rbdname=dbfio-test-storeio --rbd_size=256m --filename=storeio.dat
true

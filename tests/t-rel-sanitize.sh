#!/bin/bash
# Description: ASan+UBSan copies of the engines (make B=build/asan SANITIZE=1) run one short job each under the installed fio
# Timeout: 600
# In full: ASan+UBSan copies of the engines (make B=build/asan SANITIZE=1) run one short job each
# under the installed fio, no sanitizer report
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
AB=$REPO/build/asan
ENG="storeio redolog pgpage metastorm txn rbdsnap"
have_backend RBD || ENG=${ENG% rbdsnap}
s=$SECONDS
make -C "$REPO" --no-print-directory -j2 B="$AB" SANITIZE=1 $(for e in $ENG; do echo "$AB/$e.so"; done) \
	>"$TMP/make.log" 2>&1 || { tail -20 "$TMP/make.log"; fail "the sanitized build failed"; }
ok "sanitized engines built in $((SECONDS - s)) s"
nm -D "$AB/storeio.so" | grep -q __asan_ || fail "$AB/storeio.so is not instrumented"

ASAN=$(gcc -print-file-name=libasan.so)
[ -f "$ASAN" ] || skip "no libasan.so"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:detect_odr_violation=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# asan NAME ENGINE ARGS...: the installed fio with the ASan runtime first (fio is not instrumented)
asan() {
	local name=$1 e=$2; shift 2
	LD_PRELOAD=$ASAN "$FIO_BIN" --name="$name" --ioengine="external:$AB/$e.so" \
		--output-format=json --output="$TMP/$name.json" "$@" >"$TMP/$name.out" 2>&1
	local rc=$?
	if grep -q "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" "$TMP/$name.out"; then
		grep -B2 -A25 "ERROR: AddressSanitizer\|runtime error:" "$TMP/$name.out" | head -60
		fail "$name: sanitizer report"
	fi
	[ $rc = 0 ] || { tail -20 "$TMP/$name.out"; fail "$name: fio exit $rc under ASan"; }
	ok "$name: clean"
}
D=$TMP/d; mkdir -p "$D" "$D/txn-pg" "$D/txn-my"
asan st-uring storeio --store=uring --directory="$D" --rw=randrw --bs=4k --size=4m --iodepth=8 \
	--verify=crc32c --fsync=16 --lat_table=1 --unlink=1
asan st-aio storeio --store=aio --directory="$D" --rw=randwrite --bs=4k --size=2m --iodepth=4 --direct=1 --unlink=1
asan rl-mysql redolog --directory="$D" --rw=write --bssplit=512/40:4k/60 --iodepth=8 --size=4m \
	--flavor=mysql --innodb_log_file_size=1m --lsn_file="$TMP/rl.lsn"
asan rl-pg redolog --directory="$D" --rw=write --bs=4k --iodepth=4 --size=2m --flavor=postgres \
	--wal_segment_size=1m --wal_segments=2
asan pg pgpage --directory="$D" --bs=8k --block_size=8k --relations=2 --relation_size=2m \
	--segment_size=1m --rw=randrw --size=4m --checkpoint_timeout=1 --extend_ratio=10 --unlink=1 \
	--runtime=2 --time_based
asan txn-pg txn --calibration=none --directory="$D/txn-pg" --numjobs=3 --group_reporting --shared_buffers=1m \
	--checkpoint_timeout=1 --commit_delay=1ms --commit_siblings=1 --wal_segment_size=1m --rw=write \
	--runtime=2 --time_based
asan txn-my txn --calibration=none --directory="$D/txn-my" --txn_profile=oltp_read_write --flavor=mysql --log_bin=1 \
	--innodb_buffer_pool_size=1m --innodb_flush_log_at_trx_commit=2 --innodb_log_file_size=2m \
	--numjobs=2 --checkpoint_timeout=1 --rw=write --runtime=2 --time_based
for fl in mysql mariadb postgres; do
	asan "ms-$fl" metastorm --directory="$D" --flavor=$fl --number_ios=60 --tables=5 --syscall_table=1
done
if [ -z "${DBFIO_SKIP_CEPH:-}" ] && need_cluster; then
	IMG=rbdsnap-test-rel-asan
	rbd rm -p rbd $IMG >/dev/null 2>&1
	rbd create -p rbd --size 64M $IMG || fail "rbd create"
	rbd_cleanup $IMG storeio-test-rel-asan
	cephfs_cleanup /storeio-test-rel-asan
	asan rs rbdsnap --clientname=admin --pool=rbd --rbdname=$IMG --invalidate=0 --rw=randwrite \
		--bs=4k --iodepth=8 --time_based --runtime=3 --snap_interval=1 --snap_json="$TMP/rs.snap.json"
	asan st-rbd storeio --store=rbd --rbdname=storeio-test-rel-asan --rbd_size=64m --rw=randwrite \
		--bs=4k --size=4m --iodepth=8 --verify=crc32c --fsync=32
	have_backend LIBCEPHFS && asan st-cephfs storeio --store=cephfs --store_root=/storeio-test-rel-asan \
		--filename=asan --rw=randwrite --bs=4k --size=2m --iodepth=4 --fsync=32 --unlink=1
fi
ok "no ASan/UBSan report"

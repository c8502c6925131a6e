#!/bin/bash
# Description: valgrind memcheck: one short run per engine (storeio, redolog, pgpage, metastorm, rbdsnap) with no error
# Timeout: 400
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
command -v valgrind >/dev/null || skip "valgrind is not installed (apt-get install valgrind)"
# valgrind cannot run ASan code, and must instrument fio itself, never a wrapper
[ "${SANITIZE:-0}" = 1 ] && skip "SANITIZE=1: ASan engines cannot run under valgrind (make check runs this on the plain build)"
# fio's own (uninstrumented) noise: leaks at exit are not checked; librados/librbd's
# known noise goes to the suppression file below, and so does the dynamic
# loader's: expanding the engines' $ORIGIN rpath (to find libdbfio.so) its
# SSE2 strncmp reads 8 bytes at a time past the string's end, inside its page.
cat >"$TMP/dbfio.supp" <<'EOF'
{
   ceph-tcmalloc-or-crypto-cond
   Memcheck:Cond
   ...
   obj:*/libceph-common.so*
}
{
   ceph-crypto-value8
   Memcheck:Value8
   ...
   obj:*/libceph-common.so*
}
{
   ldso-origin-strncmp
   Memcheck:Addr8
   fun:strncmp
   fun:is_dst
   ...
}
EOF
# vg NAME ENGINE ARGS...
vg() {
	local name=$1 e=$2 s=$SECONDS; shift 2
	valgrind -q --error-exitcode=99 --leak-check=no --suppressions="$TMP/dbfio.supp" \
		--log-file="$TMP/$name.vg" "$FIO_BIN" --name="$name" --ioengine="external:$B/$e.so" \
		--output-format=json --output="$TMP/$name.json" "$@" >"$TMP/$name.out" 2>&1
	local rc=$?
	crash_check "$name" $rc "$TMP/$name.out"
	[ $rc = 99 ] || [ -s "$TMP/$name.vg" ] && { head -60 "$TMP/$name.vg"; fail "$name: valgrind reported errors (exit $rc)"; }
	[ $rc = 0 ] || { tail -20 "$TMP/$name.out"; fail "$name: fio exit $rc under valgrind"; }
	ok "$name: memcheck clean ($((SECONDS - s)) s)"
}
D=$TMP/d; mkdir -p "$D"
# posix, not uring: valgrind does not see the kernel fill io_uring buffers
vg storeio storeio --directory="$D" --rw=randrw --bs=4k --size=1m --iodepth=1 --verify=crc32c --fsync=16 --lat_table=1 --unlink=1
vg redolog redolog --directory="$D" --rw=write --bssplit=512/40:4k/60 --iodepth=4 --size=1m \
	--flavor=mysql --innodb_log_file_size=1m --lsn_file="$TMP/rl.lsn"
vg pgpage pgpage --directory="$D" --bs=8k --block_size=8k --relations=2 --relation_size=1m \
	--segment_size=512k --rw=randrw --size=2m --checkpoint_timeout=1 --extend_ratio=10 --unlink=1
vg metastorm metastorm --directory="$D" --flavor=mariadb --number_ios=30 --tables=4 --syscall_table=1
if have_backend RBD; then
	need_cluster
	IMG=rbdsnap-test-rel-vg
	rbd_image $IMG 64M
	vg rbdsnap rbdsnap --clientname=admin --pool=rbd --rbdname=$IMG --invalidate=0 --rw=randwrite \
		--bs=4k --iodepth=4 --number_ios=200 --snap_every=100 --snap_json="$TMP/rs.snap.json"
fi
ok "memcheck clean for every engine"

#!/bin/bash
# Description: a full file system, CephFS quota or too small image: the error names the file and the real cause
# Timeout: 240
# In full: a full file system (tmpfs size=2M) under metastorm, storeio and redolog, a CephFS quota and
# a too small rbd image: the error names the file and the real cause (No space left on device / Disk
# quota exceeded), never "Input/output error"
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root to mount a small tmpfs"
FULL=$TMP/full IMG=store-test-enospc-$$ ROOT=/store-test-enospc-$$
rbd_cleanup "$IMG"
cephfs_cleanup "$ROOT"
mkdir -p "$FULL"
mount -t tmpfs -o size=2M dbfio-test-full "$FULL" || fail "mount tmpfs size=2M"
empty() { find "$FULL" -mindepth 1 -delete; }

# expect NAME CAUSE FILE: fio failed, one line of ours names FILE and CAUSE, nothing says EIO
expect() {
	local name=$1 cause=$2 file=$3 line
	grep -q "Input/output error" "$TMP/$name.out" && { cat "$TMP/$name.out"; fail "$name: the cause became Input/output error"; }
	line=$(grep -E "^(metastorm|storeio|redolog|fio): .*$file.*$cause|^(metastorm|storeio|redolog|fio): .*$cause.*$file" "$TMP/$name.out" | head -1)
	[ -n "$line" ] || { cat "$TMP/$name.out"; fail "$name: no line naming $file with '$cause'"; }
	ok "$name: $line"
}

# metastorm: every flavor until the file system is full (a short write, then ENOSPC)
for fl in mysql mariadb postgres; do
	empty
	"$FIO" --name=ms-$fl --ioengine="external:$B/metastorm.so" --directory="$FULL" --flavor=$fl \
		--number_ios=5000 --tables=5 >"$TMP/ms-$fl.out" 2>&1 && fail "ms-$fl: fio succeeded on a full file system"
	expect ms-$fl "No space left on device" "dbfio_ms_1/"
done

# storeio: fio's write of a file larger than the file system
empty
"$FIO" --name=st --ioengine="external:$B/storeio.so" --directory="$FULL" --filename=data \
	--size=4m --bs=192k --rw=write >"$TMP/st.out" 2>&1 && fail "storeio succeeded on a full file system"
expect st "No space left on device" "$FULL/data"

# redolog: log files larger than the file system (zero-fill at creation)
empty
"$FIO" --name=rl --ioengine="external:$B/redolog.so" --directory="$FULL" --flavor=mysql \
	--innodb_log_file_size=4m --size=1m --bs=4k --rw=write >"$TMP/rl.out" 2>&1 && fail "redolog succeeded on a full file system"
expect rl "No space left on device" "ib_logfile0"
empty
"$FIO" --name=rlw --ioengine="external:$B/redolog.so" --directory="$FULL" --flavor=postgres \
	--wal_segment_size=1m --wal_segments=3 --size=8m --bs=4k --rw=write >"$TMP/rlw.out" 2>&1 &&
	fail "redolog postgres succeeded on a full file system"
expect rlw "No space left on device" "00000001000000000000000"

need_cluster
# rbd: an image too small for the file: one line saying the image is full
if have_backend RBD; then
	rbd create -p rbd --size 16M "$IMG" || fail "rbd create $IMG"
	"$FIO" --name=rb --ioengine="external:$B/storeio.so" --store=rbd --rbdname=$IMG \
		--filename=data --size=64m --bs=4k --rw=write >"$TMP/rb.out" 2>&1 && fail "rbd: 64 MiB file on a 16 MiB image accepted"
	expect rb "is full" "rbd/$IMG"
	grep -E "^storeio: .*'data'.*64 MiB asked.*image 16 MiB" "$TMP/rb.out" >/dev/null || { cat "$TMP/rb.out"; fail "rbd: the line does not say what was asked and what is left"; }
	[ "$(grep -c "^storeio:" "$TMP/rb.out")" = 1 ] || { cat "$TMP/rb.out"; fail "rbd: more than one line"; }
fi

# cephfs: a quota on the store's directory (libcephfs enforces it in the client)
if have_backend LIBCEPHFS; then
	/usr/bin/python3 "$PY_LIB" cephfs-quota "$ROOT" 2097152 || fail "cephfs: cannot set the quota"
	"$FIO" --name=cq --ioengine="external:$B/metastorm.so" --store=cephfs --store_root=$ROOT \
		--flavor=postgres --number_ios=5000 --tables=5 >"$TMP/cq.out" 2>&1 && fail "cephfs: a run past the quota succeeded"
	expect cq "Disk quota exceeded" "dbfio_ms_1/"
fi
exit 0

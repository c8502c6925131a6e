#!/bin/bash
# Description: on CephFS through libcephfs, redolog and pgpage refuse a foreign ib_logfile0 / WAL segment / relation file
# Timeout: 300
# In full: on CephFS through libcephfs, redolog and pgpage refuse a foreign ib_logfile0 / WAL segment
# / relation file (fio verify of the foreign file passes afterwards); unlink=1 leaves nothing
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend LIBCEPHFS || skip "cephfs backend not built"
ROOT=/dbfio-test-owner-$$
SIO="--ioengine=external:$B/storeio.so --store=cephfs --size=256k --bs=4k --verify=crc32c"
n=0
# A foreign file written by fio itself (storeio, fio's own verify headers):
# fio's verify_only read of it afterwards is the oracle that it is unchanged.
refuse() {	# refuse SUBDIR FILE ENGINE-ARGS...
	local sub=$1 file=$2; shift 2
	n=$((n + 1))
	run_fio w$n --name=w$n $SIO --store_root=$ROOT/$sub --filename="$file" --rw=write --do_verify=0 \
		|| { cat "$TMP/w$n.err"; fail "writing the foreign $file"; }
	"$FIO" --name=r$n "$@" --store=cephfs --store_root=$ROOT/$sub >"$TMP/r$n.out" 2>&1 \
		&& { cat "$TMP/r$n.out"; fail "$file: the run did not refuse"; }
	grep -q "$file exists and dbfio did not create it" "$TMP/r$n.out" || { cat "$TMP/r$n.out"; fail "$file: no line naming it"; }
	run_fio v$n --name=w$n $SIO --store_root=$ROOT/$sub --filename="$file" --rw=write --verify_only=1 --unlink=1 \
		|| { cat "$TMP/v$n.err"; fail "$file: fio verify of the foreign file failed: overwritten"; }
	ok "cephfs: $file refused, fio verify of it passes"
}
refuse my ib_logfile0 --ioengine=external:$B/redolog.so --bs=4k --rw=write --innodb_log_file_size=4m --size=1m
refuse pg 000000010000000000000001 --ioengine=external:$B/redolog.so --bs=8k --rw=write \
	--flavor=postgres --wal_segment_size=1m --wal_buffers=1m --size=1m
refuse rel 16384 --ioengine=external:$B/pgpage.so --relations=2 --relation_size=8m --segment_size=4m \
	--bs=8k --rw=randwrite --checkpoint_timeout=1 --number_ios=100

# unlink=1 through libcephfs: a second job's open of each name must find nothing
# (storeio read of a missing file fails), and the marker is gone too
run_fio u --name=u --ioengine=external:$B/redolog.so --store=cephfs --store_root=$ROOT/u --bs=4k \
	--rw=write --innodb_log_file_size=4m --size=1m --unlink=1 || { cat "$TMP/u.err"; fail "unlink=1 run"; }
for f in ib_logfile0 ib_logfile1 redolog-mysql.meta .dbfio-owned; do
	"$FIO" --name=c --ioengine=external:$B/storeio.so --store=cephfs --store_root=$ROOT/u --filename=$f \
		--size=4k --bs=4k --rw=read >"$TMP/c.out" 2>&1 && fail "cephfs unlink=1: $f is still there"
	grep -q "No such file" "$TMP/c.out" || { cat "$TMP/c.out"; fail "cephfs: reading $f failed otherwise"; }
done
ok "cephfs: unlink=1 left none of ib_logfile0, ib_logfile1, the meta, the marker"

# store=rbd needs no marker (the image is dbfio's), but unlink=1 still removes the log
if have_backend RBD; then
	IMG=dbfio-test-owner-$$
	run_fio ur --name=ur --ioengine=external:$B/redolog.so --store=rbd --rbdname=$IMG --rbd_size=256m \
		--bs=4k --rw=write --innodb_log_file_size=4m --size=1m --unlink=1 || { cat "$TMP/ur.err"; fail "rbd unlink=1 run"; }
	for f in ib_logfile0 ib_logfile1 redolog-mysql.meta; do
		"$FIO" --name=c --ioengine=external:$B/storeio.so --store=rbd --rbdname=$IMG --filename=$f \
			--size=4k --bs=4k --rw=read >"$TMP/c.out" 2>&1
		grep -q "open($f) failed: No such file" "$TMP/c.out" || { cat "$TMP/c.out"; rbd rm -p rbd $IMG >/dev/null 2>&1; fail "rbd unlink=1: $f is still in the image"; }
	done
	rbd rm -p rbd $IMG >/dev/null 2>&1
	ok "rbd: unlink=1 left none of ib_logfile0, ib_logfile1, the meta in the image"
fi

#!/bin/bash
# Description: metastorm on the cluster: store=cephfs (libcephfs) and posix on ceph-fuse make the same calls as local posix
# Timeout: 300
# In full: metastorm on the cluster: store=cephfs (libcephfs) and posix on ceph-fuse make the same
# calls as local posix; foreign names refused
. "$(dirname "$0")/lib.sh"
[ -f "$B/metastorm.so" ] || fail "build/metastorm.so is missing (run make)"
have_backend LIBCEPHFS || skip "libcephfs backend not built"
need_cluster
ROOT=/metastorm-test-$$
MNT=$TMP/mnt
mkdir -p "$MNT" "$TMP/local"
# removed through libcephfs, never through the mount; lib.sh removes $TMP only
# once nothing is mounted under it
cephfs_cleanup "$ROOT"
at_exit 'mountpoint -q "$MNT" && fusermount -u "$MNT"'
ceph-fuse -c "$CEPH_CONF" "$MNT" >"$TMP/fuse.log" 2>&1 || { cat "$TMP/fuse.log"; fail "ceph-fuse mount failed"; }
mkdir -p "$MNT$ROOT/fuse"

# shellcheck disable=SC2054  # the commas are ddl_mix's own
JOB=(--ioengine="external:$B/metastorm.so" --number_ios=40 --tables=4 --randseed=7
     --ddl_mix=create:40,drop:20,open:20,rename:20)
for flavor in mysql mariadb postgres; do
	run_fio "local-$flavor" --name=l "${JOB[@]}" --flavor=$flavor --directory="$TMP/local" \
		--table_json="$TMP/local-$flavor.tbl" || { cat "$TMP/local-$flavor.err"; fail "local $flavor"; }
	run_fio "cephfs-$flavor" --name=c "${JOB[@]}" --flavor=$flavor --store=cephfs \
		--store_root="$ROOT/lib" --table_json="$TMP/cephfs-$flavor.tbl" ||
		{ cat "$TMP/cephfs-$flavor.err" "$TMP/cephfs-$flavor.json"; fail "cephfs $flavor"; }
	run_fio "fuse-$flavor" --name=f "${JOB[@]}" --flavor=$flavor --directory="$MNT$ROOT/fuse" \
		--table_json="$TMP/fuse-$flavor.tbl" || { cat "$TMP/fuse-$flavor.err"; fail "ceph-fuse $flavor"; }
	want=$(json "$TMP/local-$flavor.tbl" "d['all']['counts']")
	for be in cephfs fuse; do
		[ "$(json "$TMP/$be-$flavor.json" "d['jobs'][0]['error']")" = 0 ] || fail "$be $flavor: fio error"
		got=$(json "$TMP/$be-$flavor.tbl" "d['all']['counts']")
		[ "$got" = "$want" ] || fail "$be $flavor: calls $got, local posix made $want"
	done
	[ -z "$(ls -A "$MNT$ROOT/lib")" ] || fail "cephfs $flavor left files: $(ls -A "$MNT$ROOT/lib")"
	ok "$flavor: same calls on cephfs and ceph-fuse as local; create p50 local $(json "$TMP/local-$flavor.tbl" "d['phases']['create']['latency']['statement']['p50_ns']//1000") us, libcephfs $(json "$TMP/cephfs-$flavor.tbl" "d['phases']['create']['latency']['statement']['p50_ns']//1000") us, ceph-fuse $(json "$TMP/fuse-$flavor.tbl" "d['phases']['create']['latency']['statement']['p50_ns']//1000") us"
done

# a foreign entry with the job's name in CephFS: refused through libcephfs, left alone
mkdir -p "$MNT$ROOT/lib/dbfio_ms_1"
echo precious >"$MNT$ROOT/lib/dbfio_ms_1/keepme"
"$FIO" --name=c "${JOB[@]}" --store=cephfs --store_root="$ROOT/lib" >"$TMP/foreign.out" 2>&1 &&
	fail "cephfs: started over a foreign dbfio_ms_1"
grep -q "dbfio_ms_1 already exists" "$TMP/foreign.out" || { cat "$TMP/foreign.out"; fail "cephfs: no refusal line"; }
[ "$(cat "$MNT$ROOT/lib/dbfio_ms_1/keepme")" = precious ] || fail "cephfs: the foreign file was changed"
ok "cephfs: foreign dbfio_ms_1 refused and left alone"

#!/bin/bash
# Description: engine warnings go to stderr with their cause, never into fio's --output file: the JSON still parses
# Timeout: 120
# In full: engine warnings (rbdsnap: initial rbd_flush failed, rbd_cache not turned off for direct=1,
# stale-snapshot scan failed, snap_json not writable; storeio: lat_json not writable) go to stderr
# with their cause, never into fio's --output file: the JSON still parses (failures injected by an
# LD_PRELOAD shim)
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "configure found no librbd"
command -v gcc >/dev/null || fail_or_skip "no gcc to build the shim"
IMG=rbdsnap-test-jsonout
rbd_image "$IMG" 64M
# The shim fails the process's first rbd_flush and first rbd_snap_list with EIO
# and every rados_conf_set of rbd_cache with EINVAL; it shares no code with the engine.
cat >"$TMP/failrbd.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
typedef void *rbd_image_t;
typedef void *rados_t;
static int flushes, lists;
int rbd_snap_list(rbd_image_t image, void *snaps, int *max)
{
	int (*real)(rbd_image_t, void *, int *) = (int (*)(rbd_image_t, void *, int *))dlsym(RTLD_NEXT, "rbd_snap_list");
	if (__atomic_add_fetch(&lists, 1, __ATOMIC_SEQ_CST) == 1)
		return -EIO;
	return real(image, snaps, max);
}
int rbd_flush(rbd_image_t image)
{
	int (*real)(rbd_image_t) = (int (*)(rbd_image_t))dlsym(RTLD_NEXT, "rbd_flush");
	if (__atomic_add_fetch(&flushes, 1, __ATOMIC_SEQ_CST) == 1)
		return -EIO;
	return real(image);
}
int rados_conf_set(rados_t c, const char *opt, const char *val)
{
	int (*real)(rados_t, const char *, const char *) =
		(int (*)(rados_t, const char *, const char *))dlsym(RTLD_NEXT, "rados_conf_set");
	if (strcmp(opt, "rbd_cache") == 0)
		return -EINVAL;
	return real(c, opt, val);
}
C
gcc -shared -fPIC -o "$TMP/failrbd.so" "$TMP/failrbd.c" -ldl || fail "cannot build the shim"
preload=$TMP/failrbd.so
[ -n "${DBFIO_FIO_ASAN:-}" ] && preload=$DBFIO_FIO_ASAN:$preload

for mode in flush direct; do
	extra=()
	[ $mode = direct ] && extra=(--direct=1)
	[ $mode = flush ] && extra=(--snap_json="$TMP/nodir/snap.json")
	LD_PRELOAD=$preload run_fio $mode --name=$mode --ioengine="external:$B/rbdsnap.so" \
		--clientname=admin --pool=rbd --rbdname="$IMG" --invalidate=0 --rw=randwrite --bs=4k \
		--iodepth=4 --number_ios=200 --size=64M "${extra[@]}"
	rc=$?
	cat "$TMP/$mode.err"
	[ $rc = 0 ] || fail "$mode: fio exited $rc"
	n=$(json "$TMP/$mode.json" "d['jobs'][0]['write']['total_ios']") ||
		fail "$mode: fio's --output is no longer JSON: $(head -c 300 "$TMP/$mode.json")"
	[ "$n" = 200 ] || fail "$mode: $n writes in fio's JSON, want 200"
	case $mode in
	flush) want='rbd_flush(.*initial flush.*Input/output error'
		grep -q "rbd_snap_list(.*failed: Input/output error" "$TMP/$mode.err" || fail "no rbd_snap_list line on stderr"
		grep -q "snap_json=$TMP/nodir/snap.json: open(.*) failed: No such file or directory" "$TMP/$mode.err" ||
			fail "no snap_json line on stderr" ;;
	direct) want='rados_conf_set(rbd_cache=false) failed: Invalid argument' ;;
	esac
	grep -q "$want" "$TMP/$mode.err" || fail "$mode: no 'rbdsnap: ... $want' line on stderr"
	ok "$mode: the warning is on stderr with its cause; fio's JSON parses ($n writes)"
done

# storeio: an unwritable lat_json
run_fio lj --name=lj --ioengine="external:$B/storeio.so" --directory="$TMP" --filename=lj.dat --size=1M \
	--rw=write --bs=4k --lat_json="$TMP/nodir/lat.json"
rc=$?
cat "$TMP/lj.err"
n=$(json "$TMP/lj.json" "d['jobs'][0]['write']['total_ios']") ||
	fail "lat_json: fio's --output is no longer JSON: $(head -c 300 "$TMP/lj.json")"
[ "$n" = 256 ] || fail "lat_json: $n writes in fio's JSON, want 256"
grep -q "lat_json=$TMP/nodir/lat.json: open(.*) failed: No such file or directory" "$TMP/lj.err" || fail "no lat_json line on stderr"
ok "storeio: the lat_json warning is on stderr; fio's JSON parses ($n writes, rc $rc)"

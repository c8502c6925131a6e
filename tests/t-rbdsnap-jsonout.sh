#!/bin/bash
# Description: rbdsnap's warnings (initial rbd_flush failed, rbd_cache not turned off for direct=1) go to stderr with their cause, never into fio's --output file: the JSON still parses (failures injected by an LD_PRELOAD shim)
# Timeout: 120
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "configure found no librbd"
command -v gcc >/dev/null || fail_or_skip "no gcc to build the shim"
IMG=rbdsnap-test-jsonout
rbd rm -p rbd "$IMG" >/dev/null 2>&1
rbd create -p rbd --size 64M "$IMG" || fail "rbd create $IMG"
rbd_cleanup "$IMG"
# The shim fails the process's first rbd_flush with EIO and every
# rados_conf_set of rbd_cache with EINVAL; it shares no code with the engine.
cat >"$TMP/failrbd.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
typedef void *rbd_image_t;
typedef void *rados_t;
static int flushes;
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
	flush) want='rbd_flush(.*initial flush.*Input/output error' ;;
	direct) want='rados_conf_set(rbd_cache=false) failed: Invalid argument' ;;
	esac
	grep -q "$want" "$TMP/$mode.err" || fail "$mode: no 'rbdsnap: ... $want' line on stderr"
	ok "$mode: the warning is on stderr with its cause; fio's JSON parses ($n writes)"
done

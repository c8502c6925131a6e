#!/bin/bash
# Description: store=rbd, rbd_get_size failing (an LD_PRELOAD shim returns -EIO from librbd's rbd_get_size): one line naming the call
# Timeout: 180
# In full: store=rbd, rbd_get_size failing (an LD_PRELOAD shim returns -EIO from librbd's
# rbd_get_size): one line naming the call, the image and the cause, never "0 bytes, needs at least 5
# MiB"; a really too small image (4 MiB) still says its size
. "$(dirname "$0")/lib.sh"
have_backend RBD || fail_or_skip "rbd backend not built"
need_cluster
IMG=store-test-getsize-$$ SMALL=store-test-getsize-small-$$
rbd_image "$IMG" 64M
rbd_image "$SMALL" 4M
# the shim shares no code with the store: librbd's symbol, failed outright
cat >"$TMP/getsize.c" <<'C'
#include <errno.h>
#include <stdint.h>
int rbd_get_size(void *image, uint64_t *size)
{
	(void)image;
	(void)size;
	return -EIO;
}
C
gcc -shared -fPIC -O2 -o "$TMP/getsize.so" "$TMP/getsize.c" || fail "cannot build the shim"
S=(--ioengine="external:$B/storeio.so" --store=rbd --bs=4k --size=1m --rw=write --filename=data)
LD_PRELOAD="$TMP/getsize.so${LD_PRELOAD:+:$LD_PRELOAD}" "$FIO" --name=gs "${S[@]}" --rbdname="$IMG" \
	>"$TMP/gs.out" 2>&1 && { cat "$TMP/gs.out"; fail "a failed rbd_get_size was accepted"; }
crash_check gs $? "$TMP/gs.out"
grep -q "0 bytes" "$TMP/gs.out" && { cat "$TMP/gs.out"; fail "a failed rbd_get_size reported as a 0-byte image"; }
line=$(grep -m1 "^storeio: .*rbd_get_size.*rbd/$IMG.*Input/output error" "$TMP/gs.out") ||
	{ cat "$TMP/gs.out"; fail "no line naming rbd_get_size, rbd/$IMG and the cause"; }
ok "failed rbd_get_size: $line"
"$FIO" --name=sm "${S[@]}" --rbdname="$SMALL" >"$TMP/sm.out" 2>&1 && { cat "$TMP/sm.out"; fail "a 4 MiB image was accepted"; }
line=$(grep -m1 "rbd/$SMALL' unusable (4194304 bytes, needs at least 5 MiB)" "$TMP/sm.out") ||
	{ cat "$TMP/sm.out"; fail "a 4 MiB image: no line with its size"; }
ok "4 MiB image: $line"

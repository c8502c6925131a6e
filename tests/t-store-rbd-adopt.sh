#!/bin/bash
# Description: store=rbd adopts only an image with dbfio's table or one never written (rbd diff empty)
# Timeout: 180
# In full: store=rbd adopts only an image with dbfio's table or one never written (rbd diff empty): an
# image whose first MiB is zero but which holds data above it (a wiped-label disk, made by rbd import)
# is refused in one line naming the engine, pool/image and why, its bytes unchanged (rbd export |
# md5sum); a fresh rbd create'd image is adopted
. "$(dirname "$0")/lib.sh"
have_backend RBD || fail_or_skip "rbd backend not built"
need_cluster
WIPED=store-test-adopt-wiped-$$ FRESH=store-test-adopt-fresh-$$
rbd_cleanup "$WIPED" "$FRESH"
S=(--ioengine="external:$B/storeio.so" --store=rbd --bs=4k --size=1m --rw=write --filename=data)
sum() { rbd export --no-progress "rbd/$1" - 2>/dev/null | md5sum | cut -d' ' -f1; }

# a 16 MiB disk: the first 2 MiB a hole (a wiped label), 1 MiB of data at
# 2 MiB, and a few bytes at 9 MiB (another object)
truncate -s 16M "$TMP/wiped.img"
head -c 1M /dev/urandom | dd of="$TMP/wiped.img" bs=1M seek=2 conv=notrunc status=none
printf 'a VM filesystem' | dd of="$TMP/wiped.img" bs=1M seek=9 conv=notrunc status=none
rbd import --no-progress --image-format 2 "$TMP/wiped.img" "rbd/$WIPED" >/dev/null 2>&1 || fail "rbd import"
[ -n "$(rbd diff "rbd/$WIPED")" ] || fail "rbd diff of the imported image shows no data"
before=$(sum "$WIPED")
[ "$before" = "$(md5sum <"$TMP/wiped.img" | cut -d' ' -f1)" ] || fail "the imported image is not the crafted file"
"$FIO" --name=wiped "${S[@]}" --rbdname="$WIPED" >"$TMP/wiped.out" 2>&1 &&
	{ cat "$TMP/wiped.out"; fail "an image with data above 1 MiB was adopted"; }
crash_check wiped $? "$TMP/wiped.out"
after=$(sum "$WIPED")
[ "$before" = "$after" ] || fail "the image with data above 1 MiB changed (md5 $before -> $after)"
n=$(grep -c "rbd/$WIPED" "$TMP/wiped.out")
line=$(grep -m1 "^storeio: .*rbd/$WIPED.*not a dbfio store" "$TMP/wiped.out") && [ "$n" = 1 ] ||
	{ cat "$TMP/wiped.out"; fail "not one line naming storeio, rbd/$WIPED and the reason ($n lines name the image)"; }
ok "refused, unchanged (md5 $after): $line"

# never written: adopted, the table written at its start
rbd create -p rbd --size 16M "$FRESH" || fail "rbd create $FRESH"
[ -z "$(rbd diff "rbd/$FRESH")" ] || fail "a fresh image has extents"
run_fio fresh --name=fresh "${S[@]}" --rbdname="$FRESH" || { cat "$TMP/fresh.err"; fail "a fresh image was refused"; }
[ "$(rbd export --no-progress "rbd/$FRESH" - 2>/dev/null | head -c 8)" = DBFIORBD ] ||
	fail "the fresh image has no dbfio table after the run"
ok "a fresh image is adopted"
# adopted again: it carries the table now
run_fio again --name=again "${S[@]}" --rbdname="$FRESH" || { cat "$TMP/again.err"; fail "an image with dbfio's table was refused"; }
ok "an image with dbfio's table is adopted again"

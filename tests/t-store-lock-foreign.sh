#!/bin/bash
# Description: store=rbd on an image with the exclusive-lock feature: no dbfio.holder/dbfio.owner record outlives a run
# Timeout: 180
# In full: store=rbd on an image with the exclusive-lock feature: no dbfio.holder/dbfio.owner record
# outlives a run (rbd image-meta list), and a later run refuses a live foreign owner of the lock (rbd
# bench) instead of breaking and blocklisting it (rbd lock ls, ceph osd blocklist ls)
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=store-test-lockforeign-$$
rbd_image "$IMG" 128M	# rbd create's default features: exclusive-lock
S=(--ioengine="external:$B/storeio.so" --store=rbd --rbdname=$IMG --bs=4k --size=4m --filename=data)
run_fio s1 --name=s1 "${S[@]}" --rw=write || { cat "$TMP/s1.err"; fail "storeio store=rbd on $IMG failed"; }
meta=$(rbd image-meta list "rbd/$IMG" 2>&1)
printf '%s\n' "$meta" | grep -q "dbfio\.\(holder\|owner\)" && fail "a record of the ended run is left in the image's metadata: $meta"
ok "no dbfio.holder/dbfio.owner after the run ends (rbd image-meta list)"

# a foreign client takes librbd's lock with its first write
bl0=$(ceph osd blocklist ls 2>/dev/null | grep -c '^[0-9v]')
rbd bench --io-type write --io-size 4K --io-threads 1 --io-total 2G --io-pattern rand "rbd/$IMG" >"$TMP/bench.out" 2>&1 &
bp=$!
at_exit "kill $bp"
for _ in $(seq 100); do [ -n "$(rbd lock ls "rbd/$IMG" 2>/dev/null)" ] && break; sleep 0.1; done
lk=$(rbd lock ls "rbd/$IMG" 2>/dev/null)
[ -n "$lk" ] || fail "rbd bench never took the image's lock"
"$FIO" --name=s2 "${S[@]}" --rw=write >"$TMP/s2.out" 2>&1 && { cat "$TMP/s2.out"; fail "a second run was accepted while rbd bench owns the lock"; }
grep -q "is in use by .*its exclusive lock" "$TMP/s2.out" || { cat "$TMP/s2.out"; fail "no refusal naming the lock's owner"; }
ok "refused: $(grep -m1 'is in use by' "$TMP/s2.out")"
kill -0 $bp 2>/dev/null || { cat "$TMP/bench.out"; fail "rbd bench died: its lock was broken"; }
[ "$(rbd lock ls "rbd/$IMG" 2>/dev/null)" = "$lk" ] || fail "the lock changed hands: $(rbd lock ls "rbd/$IMG")"
bl1=$(ceph osd blocklist ls 2>/dev/null | grep -c '^[0-9v]')
[ "$bl1" = "$bl0" ] || fail "ceph osd blocklist ls: $bl0 -> $bl1 entries: $(ceph osd blocklist ls 2>&1)"
ok "rbd bench still runs and owns the lock, nothing blocklisted"
kill $bp; wait $bp 2>/dev/null

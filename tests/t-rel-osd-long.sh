#!/bin/bash
# Description: the OSD down longer than 30 s under storeio store=rbd: fio waits and every acknowledged block verifies
# Timeout: 300
# In full: the OSD down longer than 30 s (the old rados_osd_op_timeout) under storeio store=rbd with
# librbd's default write-around cache: fio waits for it and every acknowledged block reads back
# verified (crc32c) - none lost as zeros
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
need_own_cluster
have_backend RBD || skip "rbd backend not built"
wait_healthy 120
IMG=storeio-test-rel-osd-long
DOWN=36	# s: longer than any OSD op timeout we ever set (30 s)
at_exit '[ -z "$(daemon_pid osd 0)" ] && daemon_start osd 0'
rbd_cleanup "$IMG"

# 4096 writes paced over ~41 s: some are sent while the OSD is down and wait
# longer than 30 s for it, later ones go after it is back; then fio syncs and
# reads every block back with its own verify (the oracle: fio's crc32c).
s0=$SECONDS
"$FIO" --name=long --ioengine="external:$B/storeio.so" --store=rbd --rbdname=$IMG --rbd_size=64m \
	--rw=randwrite --bs=4k --size=16m --iodepth=8 --rate_iops=100 --verify=crc32c \
	--aux-path="$TMP" --output-format=json --output="$TMP/long.json" 2>"$TMP/long.err" &
pid=$!
sleep 5
daemon_stop osd 0 TERM
down=$SECONDS
ok "osd.0 stopped at $((down - s0)) s"
sleep $DOWN
daemon_start osd 0
ok "osd.0 restarted after $((SECONDS - down)) s down"
fio_wait $pid long "" "$TMP/long.err"; rc=$?
cat "$TMP/long.err"
ok "fio exit $rc after $((SECONDS - s0)) s"
n=$(grep -c '^verify: ' "$TMP/long.err")
[ "$n" = 0 ] || fail "storeio: $n acknowledged blocks read back wrong after a ${DOWN} s outage, e.g. $(grep -m1 '^verify: ' "$TMP/long.err")"
got=$(json "$TMP/long.json" "(d['jobs'][0]['error'], d['jobs'][0]['write']['total_ios'], d['jobs'][0]['read']['total_ios'])")
[ "$got" = "(0, 4096, 4096)" ] ||
	fail "storeio: (error, writes, verified reads) = $got across a ${DOWN} s outage, want (0, 4096, 4096)"
ok "storeio: 4096 blocks written across a ${DOWN} s OSD outage, all read back verified"
wait_healthy 180

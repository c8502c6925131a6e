#!/bin/bash
# Description: the OSD stopped mid-run and restarted under storeio store=rbd and rbdsnap with snapshots: stall reported
# Timeout: 300
# In full: the OSD stopped mid-run and restarted under storeio store=rbd and rbdsnap with snapshots:
# stall reported, fio ends within runtime + grace, no crash; rbdsnap's snapshots removed once the
# cluster is back
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
need_own_cluster
have_backend RBD || skip "rbd backend not built"
wait_healthy 120
IMG=storeio-test-rel-osd SIMG=rbdsnap-test-rel-osd
RUNTIME=35 GRACE=45	# grace: the outage (8 s) + restart and peering, with room for a loaded machine
# (runtime: rbdsnap must still be writing once the OSD is back)
at_exit '[ -z "$(daemon_pid osd 0)" ] && daemon_start osd 0'
rbd_cleanup "$IMG" "$SIMG"
rbd rm -p rbd "$SIMG" >/dev/null 2>&1
rbd create -p rbd --size 128M "$SIMG" || fail "rbd create $SIMG"
rbd snap create "rbd/$SIMG@dbfio-foreign" >/dev/null 2>&1 || fail "rbd snap create"
rbd snap create "rbd/$SIMG@foreign" >/dev/null 2>&1 || fail "rbd snap create"

s0=$SECONDS t0=$(now_ms)
# storeio: 4096 writes paced over ~20 s (across the outage), then every block
# verified (crc32c); its per-second log shows work after the restart
"$FIO" --name=st --ioengine="external:$B/storeio.so" --store=rbd --rbdname=$IMG --rbd_size=128m \
	--rw=randwrite --bs=4k --size=16m --iodepth=8 --rate_iops=200 --verify=crc32c \
	--write_lat_log="$TMP/st" --aux-path="$TMP" \
	--output-format=json --output="$TMP/st.json" 2>"$TMP/st.err" &
st=$!
"$FIO" --name=rs --ioengine="external:$B/rbdsnap.so" --clientname=admin --pool=rbd --rbdname=$SIMG \
	--invalidate=0 --rw=randwrite --bs=4k --iodepth=8 --time_based --runtime=$RUNTIME \
	--snap_interval=2 --snap_keep=3 --snap_json="$TMP/rs.snap.json" \
	--output-format=json --output="$TMP/rs.json" 2>"$TMP/rs.err" &
rs=$!
sleep 5
daemon_stop osd 0 TERM
down=$SECONDS
ok "osd.0 stopped at $((down - s0)) s"
sleep 8
up=$(($(now_ms) - t0))
daemon_start osd 0
ok "osd.0 restarted after $((SECONDS - down)) s down"
fio_wait $st st "" "$TMP/st.err"; echo "storeio exit $?" >>"$TMP/rc"
fio_wait $rs rs "" "$TMP/rs.err"; echo "rbdsnap exit $?" >>"$TMP/rc"
took=$((SECONDS - s0))
cat "$TMP/rc" "$TMP/st.err" "$TMP/rs.err"
[ $took -le $((RUNTIME + GRACE)) ] || fail "fio took $took s (bound $RUNTIME + $GRACE s)"
ok "both fio ended in $took s (bound $((RUNTIME + GRACE)) s)"

# the stall is reported: fio's completion latency shows the outage
for j in st rs; do
	[ -s "$TMP/$j.json" ] || fail "$j: no JSON"
	max=$(json "$TMP/$j.json" "d['jobs'][0]['write']['clat_ns']['max'] // 1000000")
	err=$(json "$TMP/$j.json" "d['jobs'][0]['error']")
	[ "$max" -ge 3000 ] || fail "$j: write clat max $max ms: the outage is not visible"
	ok "$j: stall reported: write clat max $max ms, fio error $err"
done
# the work: storeio wrote all 4096 blocks and read every one back verified;
# both completed I/O after the OSD came back
grep -q "^verify: " "$TMP/st.err" && fail "storeio: blocks acknowledged as written read back wrong after the outage: $(grep -c '^verify: ' "$TMP/st.err") verify errors, e.g. $(grep -m1 '^verify: ' "$TMP/st.err")"
[ "$(json "$TMP/st.json" "(d['jobs'][0]['error'], d['jobs'][0]['write']['total_ios'], d['jobs'][0]['read']['total_ios'])")" = "(0, 4096, 4096)" ] ||
	fail "storeio: not 4096 writes and 4096 verified reads without error across the outage"
ok "storeio: 4096 blocks written across the outage, all verified (crc32c)"
io_seconds "$TMP/st_clat.1.log" >"$TMP/st.rates"
resumed storeio "$TMP/st.rates" "$up"
json "$TMP/rs.snap.json" "'\\n'.join('%d %d' % (s['t'] * 1000, s['iops']) for s in d['timeline'])" >"$TMP/rs.rates"
resumed rbdsnap "$TMP/rs.rates" "$up"
wait_healthy 180
ok "cluster back to HEALTH_OK / active+clean"
own=$(rbd snap ls "rbd/$SIMG" | awk 'NR>1{print $2}' | grep -cE '^dbfio-[0-9a-f]{8}-[0-9]+$')
[ "$own" = 0 ] || fail "rbdsnap left $own snapshot(s): $(rbd snap ls "rbd/$SIMG")"
for s in dbfio-foreign foreign; do
	rbd snap ls "rbd/$SIMG" | grep -q " $s " || fail "foreign snapshot $s is gone"
done
ok "rbdsnap removed its snapshots; dbfio-foreign and foreign kept"
# the rbd store's image is usable afterwards
run_fio again --name=again --ioengine="external:$B/storeio.so" --store=rbd --rbdname=$IMG \
	--rw=randwrite --bs=4k --size=8m --verify=crc32c || { cat "$TMP/again.err"; fail "storeio after the outage"; }
ok "storeio store=rbd verifies after the outage"

#!/bin/bash
# Description: jobs/txn-pgbench.fio via fio --client, two netns hosts: own root/image each, summaries at the client, tps as local
# Timeout: 400
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-netns.sh"
# The shipped job file, one copy per host (store_root=/mh/hostI: each host its
# own database), sent by the client (--client=A a.fio --client=B b.fio) to
# fio servers in two network namespaces, against a private cluster on
# 10.77.0.1 (tests/lib-netns.sh). Hard checks: fio's client JSON has each
# host's job without error (the client exits 0 when a server drops one); the
# CephFS tree, listed through libcephfs, holds one database per host root
# (and rbd ls one image a host with store=rbd); a copy without calibration=
# is refused on its server and the refusal reaches the client; each
# database's summary reaches the client. Timing assertion: the client's
# aggregate tps is that of the same two jobs run locally within noise
# (uncalibrated, as when the include did not reach the server, it was 6x the
# calibrated figure).
timing_test
have_backend LIBCEPHFS || skip "txn on CephFS needs libcephfs (configure found none)"
[ -f "$B/txn.so" ] || fail "$B/txn.so not built"
netns_hosts 2
netns_cluster
for i in 1 2; do netns_server "$i"; done
ok "fio servers on 10.77.1.2 and 10.77.2.2"

# hostI.fio: the shipped job, its variables given, its CephFS root per host
for i in 1 2; do
	DBFIO_LIB=$B DIR=/tmp CLIENTS=2 SCALE=1 STORE=cephfs RUNTIME=10 \
		envsubst '${DBFIO_LIB} ${DIR} ${CLIENTS} ${SCALE} ${STORE} ${RUNTIME}' <"$REPO/jobs/txn-pgbench.fio" |
		sed -e "s|^store_root=.*|store_root=/mh/host$i|" -e "s/^\[pgbench\]/[pgbench$i]/" >"$TMP/host$i.fio"
	grep -q "^calibration=postgres15" "$TMP/host$i.fio" || fail "jobs/txn-pgbench.fio names no calibration=postgres15"
done

# a copy without calibration=: refused on its server, and the client must show it
grep -v "^calibration=" "$TMP/host1.fio" >"$TMP/nocal.fio"
on_hub "$FIO_BIN" --client="ip:10.77.1.2,$MH_PORT" "$TMP/nocal.fio" \
	--output-format=json --output="$TMP/nocal.json" >"$TMP/nocal.out" 2>&1
rc=$?
py client-hosts "$TMP/nocal.json" 1 10.77.1.2 >"$TMP/nocal.res" &&
	{ cat "$TMP/nocal.res" "$TMP/nocal.out"; fail "a txn job without calibration= ran on the server"; }
"$REPO/tools/clientcheck" "$TMP/nocal.json" 10.77.1.2 2>"$TMP/nocal.cc" &&
	fail "tools/clientcheck passed a run whose only job was refused"
grep -q "txn: no calibration" "$TMP/nocal.json" "$TMP/nocal.out" ||
	{ cat "$TMP/nocal.out" "$TMP/nocal.json"; fail "the server's refusal (txn: no calibration) did not reach the client"; }
ok "without calibration=: refused on the server, the line at the client, client exit $rc, $(cat "$TMP/nocal.cc")"

s=$SECONDS
on_hub "$FIO_BIN" --client="ip:10.77.1.2,$MH_PORT" "$TMP/host1.fio" --client="ip:10.77.2.2,$MH_PORT" "$TMP/host2.fio" \
	--output-format=json --output="$TMP/client.json" >"$TMP/client.out" 2>&1 ||
	{ cat "$TMP/client.out" "$TMP"/host?.log; fail "fio --client with a job file per host failed"; }
py client-hosts "$TMP/client.json" 1 10.77.1.2 10.77.2.2 >"$TMP/client.res" ||
	{ cat "$TMP/client.res" "$TMP/client.json"; fail "not one good txn job from each host"; }
"$REPO/tools/clientcheck" "$TMP/client.json" 10.77.1.2 10.77.2.2 || fail "tools/clientcheck refused a run where both hosts ran"
ok "through the client in $((SECONDS - s)) s: $(tr '\n' ';' <"$TMP/client.res")"
# each database's pgbench-style summary came to the client under its host's
# name (the client writes server log lines into --output before the JSON),
# naming the calibration the server applied; none stayed on a server's stderr
for i in 1 2; do
	grep -q "^<host$i> txn: summary of database " "$TMP/client.json" &&
		grep -q "^<host$i> calibration: postgres15" "$TMP/client.json" &&
		grep -q "^<host$i> number of clients: 2$" "$TMP/client.json" ||
		{ grep "^<" "$TMP/client.json"; cat "$TMP/host$i.log"; fail "host$i's txn summary (calibration postgres15, 2 clients) did not reach the client"; }
	grep -q "txn: summary of database" "$TMP/host$i.log" && fail "host$i's txn summary went to the server's stderr"
done
ok "each host's txn summary reached the client: $(grep -h "^<host1> tps = " "$TMP/client.json"), $(grep -h "^<host2> tps = " "$TMP/client.json")"

# each host made its own database under its own root, nothing else is there
on_hub /usr/bin/python3 "$PY_LIB" cephfs-ls /mh >"$TMP/mh.ls" || fail "cephfs-ls /mh"
[ "$(tr '\n' ' ' <"$TMP/mh.ls")" = "host1 host2 " ] || { cat "$TMP/mh.ls"; fail "/mh holds $(cat "$TMP/mh.ls"), not host1 and host2"; }
for i in 1 2; do
	on_hub /usr/bin/python3 "$PY_LIB" cephfs-ls "/mh/host$i" >"$TMP/h$i.ls" || fail "cephfs-ls /mh/host$i"
	grep -qx ".dbfio-owned" "$TMP/h$i.ls" && [ "$(grep -cv '^\.dbfio' "$TMP/h$i.ls")" -ge 1 ] ||
		{ cat "$TMP/h$i.ls"; fail "/mh/host$i holds no database of host $i"; }
done
ok "CephFS: /mh/host1 and /mh/host2 each hold a database ($(grep -cv '^\.dbfio' "$TMP/h1.ls") and $(grep -cv '^\.dbfio' "$TMP/h2.ls") entries)"

# store=rbd: each host's database in an image of its own (rbdname=), which
# the store creates; rbd ls is the oracle
for i in 1 2; do
	DBFIO_LIB=$B DIR=/tmp CLIENTS=2 SCALE=1 STORE=rbd RUNTIME=3 \
		envsubst '${DBFIO_LIB} ${DIR} ${CLIENTS} ${SCALE} ${STORE} ${RUNTIME}' <"$REPO/jobs/txn-pgbench.fio" |
		sed -e "s|^rbdname=.*|rbdname=txn-host$i|" -e "s/^\[pgbench\]/[pgbench$i]/" >"$TMP/rbd$i.fio"
done
on_hub "$FIO_BIN" --client="ip:10.77.1.2,$MH_PORT" "$TMP/rbd1.fio" --client="ip:10.77.2.2,$MH_PORT" "$TMP/rbd2.fio" \
	--output-format=json --output="$TMP/rbd.json" >"$TMP/rbd.out" 2>&1 ||
	{ cat "$TMP/rbd.out"; fail "txn on store=rbd through the client failed"; }
"$REPO/tools/clientcheck" "$TMP/rbd.json" 10.77.1.2 10.77.2.2 || fail "store=rbd: not both hosts ran"
on_hub rbd ls -p rbd >"$TMP/rbd.ls" || fail "rbd ls"
[ "$(grep '^txn-' "$TMP/rbd.ls" | tr '\n' ' ')" = "txn-host1 txn-host2 " ] ||
	{ cat "$TMP/rbd.ls"; fail "the pool holds $(grep -c '^txn-' "$TMP/rbd.ls") txn image(s), not txn-host1 and txn-host2"; }
ok "store=rbd: rbd ls shows txn-host1 and txn-host2, one image a host"

# the same two databases run locally: two fio processes at once on the hub
local_pair local "$TMP/host1.fio" "$TMP/host2.fio"
# and through the client again: both runs now find their tables loaded (the
# first one through the client loaded them)
on_hub "$FIO_BIN" --client="ip:10.77.1.2,$MH_PORT" "$TMP/host1.fio" --client="ip:10.77.2.2,$MH_PORT" "$TMP/host2.fio" \
	--output-format=json --output="$TMP/client2.json" >"$TMP/client2.out" 2>&1 ||
	{ cat "$TMP/client2.out"; fail "the second run through the client failed"; }
py client-hosts "$TMP/client2.json" 1 10.77.1.2 10.77.2.2 >"$TMP/client2.res" ||
	{ cat "$TMP/client2.res"; fail "second run: not one good txn job from each host"; }
agg=$(awk '{ split($4, a, "="); s += a[2] } END { printf "%.1f", s }' "$TMP/client2.res")
loc=$LOCAL_IOPS
ok "aggregate $agg tps through the client, $loc tps locally"
timing_check "0.6 <= $agg / $loc <= 1.67" "the client's aggregate ($agg tps) is not the local run's ($loc tps) within noise"
ok "txn on two hosts through fio --client"

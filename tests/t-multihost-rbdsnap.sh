#!/bin/bash
# Description: rbdsnap via fio --client on two netns hosts: own image each (rbd snap ls), tables at the client, JSON as local
# Timeout: 300
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-netns.sh"
# Two fio servers in network namespaces, a private cluster on 10.77.0.1
# (tests/lib-netns.sh says why not the shared one). Each host gets its own
# image two ways a user has: (1) one job file read on each host
# (--remote-config), its ${RBDNAME} expanded from that server's environment;
# (2) one job file per host on the client (--client=A a.fio --client=B b.fio).
# Oracles: rbd snap ls on each image (the snapshots a run left, their run ids),
# fio's client JSON (a job from each host, no error: fio's client exits 0 when
# a server drops a job), and the same two jobs run locally (two fio processes
# at once, as two hosts run them), whose iops the client's aggregate must
# match (timing assertion).
timing_test
have_backend RBD || skip "rbdsnap needs librbd (configure found none)"
[ -f "$B/rbdsnap.so" ] || fail "$B/rbdsnap.so not built"
netns_hosts 2
netns_cluster
for i in 1 2; do on_hub rbd create --size 128M "rbd/mh-$i" || fail "rbd create mh-$i"; done

# one job file; ${DBFIO_LIB}, ${RBDNAME}, ${KEEP} and ${RUNTIME} are expanded
# where fio parses it: on the server with --remote-config, on the client otherwise
cat >"$TMP/mh.fio" <<'EOF'
[global]
ioengine=external:${DBFIO_LIB}/rbdsnap.so
clientname=admin
pool=rbd
invalidate=0
rw=randwrite
bs=4k
iodepth=8
time_based=1
runtime=${RUNTIME}
snap_start_delay=1
snap_interval=1
snap_count=2
snap_remove_at_end=${KEEP}
snap_json=snap.json

[mh]
rbdname=${RBDNAME}
EOF
for i in 1 2; do netns_server "$i" DBFIO_LIB="$B" RBDNAME="mh-$i" KEEP=0 RUNTIME=4; done
ok "fio servers on 10.77.1.2 and 10.77.2.2"

# the silent drop: --remote-config names a file for the --client before it
# only; given once after two clients, the first server runs nothing (fio's
# client exited 0 here). tools/clientcheck must say so, as the test's own
# reading of the JSON does
on_hub "$FIO_BIN" --client="ip:10.77.1.2,$MH_PORT" --client="ip:10.77.2.2,$MH_PORT" --remote-config "$TMP/mh.fio" \
	--output-format=json --output="$TMP/drop.json" >"$TMP/drop.out" 2>&1
rc=$?
py client-hosts "$TMP/drop.json" 1 10.77.1.2 10.77.2.2 >"$TMP/drop.res" &&
	{ cat "$TMP/drop.res" "$TMP/drop.out"; fail "--remote-config once: both servers ran a job (not the case this checks)"; }
"$REPO/tools/clientcheck" "$TMP/drop.json" 10.77.1.2 10.77.2.2 2>"$TMP/drop.cc" &&
	{ cat "$TMP/drop.res"; fail "tools/clientcheck passed a run where 10.77.1.2 ran nothing"; }
grep -q "^clientcheck: 10.77.1.2: 0 job entries" "$TMP/drop.cc" && ! grep -q "10.77.2.2" "$TMP/drop.cc" ||
	{ cat "$TMP/drop.cc" "$TMP/drop.res"; fail "tools/clientcheck did not name 10.77.1.2 alone"; }
ok "silent drop (client exit $rc): $(cat "$TMP/drop.cc")"
# an engine missing on a server (a path valid on the client only): that
# host's job fails, and clientcheck names it
for i in 1 2; do
	DBFIO_LIB=$B RBDNAME=mh-$i KEEP=1 RUNTIME=2 envsubst <"$TMP/mh.fio" >"$TMP/noeng$i.fio"
done
sed -i "s|^ioengine=.*|ioengine=external:$TMP/client-only/rbdsnap.so|" "$TMP/noeng1.fio"
on_hub "$FIO_BIN" --client="ip:10.77.1.2,$MH_PORT" "$TMP/noeng1.fio" --client="ip:10.77.2.2,$MH_PORT" "$TMP/noeng2.fio" \
	--output-format=json --output="$TMP/noeng.json" >"$TMP/noeng.out" 2>&1
rc=$?
"$REPO/tools/clientcheck" "$TMP/noeng.json" 10.77.1.2 10.77.2.2 2>"$TMP/noeng.cc" &&
	fail "tools/clientcheck passed a run whose engine was missing on 10.77.1.2"
grep -q "^clientcheck: 10.77.1.2: " "$TMP/noeng.cc" ||
	{ cat "$TMP/noeng.cc" "$TMP/noeng.out"; fail "tools/clientcheck did not name 10.77.1.2"; }
ok "engine missing on a server (client exit $rc): $(head -1 "$TMP/noeng.cc")"
for i in 1 2; do on_hub rbd snap purge "rbd/mh-$i" >/dev/null 2>&1; done

# (1) --remote-config after each --client: each server reads the file and
# expands it from its own environment
on_hub "$FIO_BIN" --client="ip:10.77.1.2,$MH_PORT" --remote-config "$TMP/mh.fio" \
	--client="ip:10.77.2.2,$MH_PORT" --remote-config "$TMP/mh.fio" --output-format=json --output="$TMP/remote.json" >"$TMP/remote.out" 2>&1 ||
	{ cat "$TMP/remote.out" "$TMP"/host?.log; fail "fio --client --remote-config failed"; }
py client-hosts "$TMP/remote.json" 1 10.77.1.2 10.77.2.2 >"$TMP/remote.res" ||
	{ cat "$TMP/remote.res" "$TMP/remote.out" "$TMP"/host?.log; fail "--remote-config: not one good job from each host"; }
"$REPO/tools/clientcheck" "$TMP/remote.json" 10.77.1.2 10.77.2.2 || fail "tools/clientcheck refused a run where both hosts ran"
# each image holds the snapshots of one run (snap_remove_at_end=0), and the
# two runs differ: each host wrote its own image
runs=
for i in 1 2; do
	on_hub rbd snap ls --format json "rbd/mh-$i" >"$TMP/snaps$i.json" || fail "rbd snap ls mh-$i"
	r=$(py json "$TMP/snaps$i.json" "' '.join(sorted(set(s['name'].rsplit('-', 1)[0] for s in d if s['name'].startswith('dbfio-'))))")
	n=$(py json "$TMP/snaps$i.json" "len([s for s in d if s['name'].startswith('dbfio-')])")
	# (the second snapshot, due at 2 s of 4, may not be taken on a busy host)
	if [ "$n" -lt 1 ] || [ "${r// /}" != "$r" ]; then
		cat "$TMP/snaps$i.json"; fail "mh-$i: $n snapshot(s) of run(s) '$r', not 1 or 2 of one run"
	fi
	[ -s "$TMP/host$i/snap.json" ] || fail "host $i wrote no snap.json in its working directory"
	runs="$runs $r"
	on_hub rbd snap purge "rbd/mh-$i" >/dev/null 2>&1 || fail "rbd snap purge mh-$i"
done
read -r r1 r2 <<<"$runs"
[ "$r1" != "$r2" ] || fail "both images carry the snapshots of one run ($r1)"
ok "--remote-config: $(tr '\n' ';' <"$TMP/remote.res") each image its own run's snapshots ($runs)"
# the engine's table reached the client through fio's log (the client writes
# a server's log lines, "<host> ...", into --output before the JSON), not the
# server's stderr, where nobody would read it
for i in 1 2; do
	grep -q "^<host$i> rbdsnap: mh: rbd/mh-$i, .*run [0-9a-f]\{8\}" "$TMP/remote.json" &&
		grep -q "^<host$i>   phase  *secs  *ios" "$TMP/remote.json" ||
		{ cat "$TMP/remote.json" "$TMP/host$i.log"; fail "host$i's rbdsnap table did not reach the client"; }
	grep -q "phase  *secs  *ios" "$TMP/host$i.log" && fail "host$i's rbdsnap table went to the server's stderr"
done
ok "each host's rbdsnap table reached the client, prefixed <host1>, <host2>"

# (2) one job file per host on the client, and the same two jobs run locally.
# Plain writes for this comparison: no snapshot schedule (a snapshot stalls
# I/O for seconds, and its trimming after removal slows whichever run comes
# next) and direct=1 (librbd's cache off: it acknowledges before the OSD)
for i in 1 2; do
	DBFIO_LIB=$B RBDNAME=mh-$i KEEP=1 RUNTIME=8 envsubst <"$TMP/mh.fio" |
		sed -e "s/^\[mh\]/[mh$i]/" -e '/^snap_/d' -e 's/^invalidate=0/invalidate=0\ndirect=1/' >"$TMP/mh$i.fio"
done
# the snapshots removed above are trimmed in the background: wait for it
for _ in $(seq 60); do
	n=$(on_hub ceph pg ls snaptrim snaptrim_wait -f json 2>/dev/null | py json - "len(d.get('pg_stats', []))") || n=1
	[ "$n" = 0 ] && break
	sleep 1
done
# the same two jobs run locally first: two fio processes at once on the hub
local_pair local "$TMP/mh1.fio" "$TMP/mh2.fio"
on_hub "$FIO_BIN" --client="ip:10.77.1.2,$MH_PORT" "$TMP/mh1.fio" --client="ip:10.77.2.2,$MH_PORT" "$TMP/mh2.fio" \
	--output-format=json --output="$TMP/client.json" >"$TMP/client.out" 2>&1 ||
	{ cat "$TMP/client.out" "$TMP"/host?.log; fail "fio --client with a job file per host failed"; }
py client-hosts "$TMP/client.json" 1 10.77.1.2 10.77.2.2 >"$TMP/client.res" ||
	{ cat "$TMP/client.res" "$TMP/client.out"; fail "per-host job files: not one good job from each host"; }
agg=$(awk '{ split($4, a, "="); s += a[2] } END { printf "%.1f", s }' "$TMP/client.res")
loc=$LOCAL_IOPS
ok "per-host job files: $(tr '\n' ';' <"$TMP/client.res") aggregate $agg IOPS, the same jobs locally $loc IOPS"
# the cluster (one OSD, ~1.5 cores) is what both runs share: same load, same answer
timing_check "0.6 <= $agg / $loc <= 1.67" "the client's aggregate ($agg IOPS) is not the local run's ($loc IOPS) within noise"
ok "rbdsnap on two hosts through fio --client"

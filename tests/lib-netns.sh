# shellcheck shell=bash
# tests/lib-netns.sh - several "hosts" inside this machine for the fio
# client/server tests (sourced after lib.sh): network namespaces joined by
# veth pairs, a Ceph cluster of the test's own in one of them, fio servers in
# the others. Nothing is added to the root namespace: every address, route
# and listener lives in the test's namespaces, so two tests (or another
# engineer's cluster on 127.0.0.1) never meet.
#
#   $NS-c  the cluster's host and the fio client: 10.77.0.1 on lo (every Ceph
#          daemon binds to it: DBFIO_CLUSTER_ADDR), 10.77.I.1 towards host I
#   $NS-I  fio server host I: 10.77.I.2, a route to 10.77.0.0/24 via 10.77.I.1
#
# The shared cluster cannot serve these hosts: it listens on 127.0.0.1 of the
# root namespace, which a namespace cannot reach (its 127.0.0.1 is its own),
# and its maps hand that address to every client. A private cluster on
# 10.77.0.1 is what real hosts see: one address, routed. It starts in ~20 s.
#
# netns_hosts N        make $NS-c and $NS-1..N (skip when not root / no netns)
# netns_cluster        start the cluster in $NS-c; sets MH_CONF (its ceph.conf)
# netns_server I [ENV=VALUE...]
#                      fio --server on 10.77.I.2:$MH_PORT in $NS-I, host name
#                      hostI (a UTS namespace of its own), working
#                      directory $TMP/hostI, stderr in $TMP/hostI.log,
#                      CEPH_CONF=$MH_CONF and ENV in its environment
# on_hub CMD...        run CMD in $NS-c with CEPH_CONF=$MH_CONF (the client,
#                      rbd, ceph: the oracles)
# Everything is undone at exit: servers, cluster, namespaces (and their veths).
NS=dbfio$$
MH_PORT=8765
MH_SERVERS=()

netns_down() {
	local p n
	for p in "${MH_SERVERS[@]}"; do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "--server=ip:10.77." && kill "$p" 2>/dev/null
	done
	for p in "${MH_SERVERS[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	[ -n "${MH_CONF:-}" ] && ip netns exec "$NS-c" env DBFIO_CLUSTER_DIR="$(dirname "$MH_CONF")" \
		"$REPO/tools/cluster" down >/dev/null 2>&1
	for n in $(ip netns list | awk -v p="$NS-" 'index($1, p) == 1 { print $1 }'); do
		ip netns del "$n"
	done
}

netns_hosts() {
	local i n=$1 old j
	[ "$(id -u)" = 0 ] || skip "network namespaces need root"
	command -v ip >/dev/null || skip "no ip (iproute2)"
	at_exit netns_down
	# namespaces of an earlier run that was killed (its shell's pid is gone)
	for old in $(ip netns list | sed -n 's/^\(dbfio[0-9]*\)-c\b.*/\1/p'); do
		[ -d "/proc/${old#dbfio}" ] && continue
		for j in $(ip netns list | awk -v p="$old-" 'index($1, p) == 1 { print $1 }'); do ip netns del "$j"; done
	done
	ip netns add "$NS-c" 2>"$TMP/netns.err" || { cat "$TMP/netns.err"; fail_or_skip "ip netns add failed"; }
	ip -n "$NS-c" link set lo up && ip -n "$NS-c" addr add 10.77.0.1/32 dev lo || fail "$NS-c: lo"
	for ((i = 1; i <= n; i++)); do
		ip netns add "$NS-$i" &&
			ip link add "d$$h$i" netns "$NS-c" type veth peer name eth0 netns "$NS-$i" &&
			ip -n "$NS-c" addr add "10.77.$i.1/24" dev "d$$h$i" && ip -n "$NS-c" link set "d$$h$i" up &&
			ip -n "$NS-$i" link set lo up &&
			ip -n "$NS-$i" addr add "10.77.$i.2/24" dev eth0 && ip -n "$NS-$i" link set eth0 up &&
			ip -n "$NS-$i" route add 10.77.0.0/24 via "10.77.$i.1" || fail "network namespace $NS-$i"
	done
	ok "hosts: $NS-c (10.77.0.1, the cluster and the client) and $n fio server host(s) 10.77.1..$n.2"
}

on_hub() { ip netns exec "$NS-c" env CEPH_CONF="$MH_CONF" "$@"; }

netns_cluster() {
	local s=$SECONDS dir=$TMP/cluster
	NEED_CLUSTER=1
	MH_CONF=$dir/ceph.conf	# set first: netns_down stops a half-started one
	if ! ip netns exec "$NS-c" env DBFIO_CLUSTER_DIR="$dir" DBFIO_CLUSTER_ADDR=10.77.0.1 \
		DBFIO_CLUSTER_PROFILE=default DBFIO_CLUSTER_PORT=30100 \
		"$REPO/tools/cluster" up >"$TMP/cluster-up.log" 2>&1; then
		cat "$TMP/cluster-up.log"
		fail_or_skip "the cluster in $NS-c did not start"
	fi
	grep -q "^mon_host = \[v2:10.77.0.1:" "$MH_CONF" || fail "the cluster's ceph.conf does not name 10.77.0.1"
	# its OSD's file is on a rotational disk: Pacific's trimmer would sleep 5 s a step
	# (osd_snap_trim_sleep_hdd), and a test waiting for removed snapshots to go waits minutes
	on_hub ceph config set osd osd_snap_trim_sleep_hdd 0 || fail "cannot set osd_snap_trim_sleep_hdd"
	ok "cluster on 10.77.0.1 up in $((SECONDS - s)) s"
}

netns_server() {
	local i=$1 p
	shift
	mkdir -p "$TMP/host$i"
	# its own UTS namespace too: host name hostI, as the client names it ("<hostI> ...")
	(cd "$TMP/host$i" && exec ip netns exec "$NS-$i" unshare --uts env CEPH_CONF="$MH_CONF" "$@" \
		sh -c 'hostname "$0" && exec "$@"' "host$i" "$FIO_BIN" --server="ip:10.77.$i.2,$MH_PORT" \
		>>"$TMP/host$i.log" 2>&1) &
	p=$!
	MH_SERVERS+=("$p")
	for _ in $(seq 100); do
		ip netns exec "$NS-$i" ss -Hltn "sport = :$MH_PORT" | grep -q . && return 0
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	cat "$TMP/host$i.log"
	fail "the fio server on 10.77.$i.2:$MH_PORT does not listen"
}

# local_pair NAME FILE1 FILE2: the two hosts' job files run "locally": two fio
# processes at once in $NS-c, as two hosts run them, each with its own Ceph
# client (one fio with both jobs would share one client and its locks: txn on
# CephFS did half the tps that way). JSON in $TMP/NAME.1.json and .2.json;
# sets LOCAL_IOPS to the sum of their iops.
local_pair() {
	local name=$1 p1 p2 r1 r2 a b
	(cd "$TMP" && on_hub "$FIO_BIN" --output-format=json --output="$TMP/$name.1.json" "$2") >"$TMP/$name.1.err" 2>&1 &
	p1=$!
	(cd "$TMP" && on_hub "$FIO_BIN" --output-format=json --output="$TMP/$name.2.json" "$3") >"$TMP/$name.2.err" 2>&1 &
	p2=$!
	wait $p1; r1=$?
	wait $p2; r2=$?
	[ $r1 = 0 ] && [ $r2 = 0 ] || { cat "$TMP/$name".?.err; fail "the jobs run locally failed (exit $r1, $r2)"; }
	a=$(py fio-iops "$TMP/$name.1.json") && b=$(py fio-iops "$TMP/$name.2.json") || fail "$name: no iops in fio's JSON"
	LOCAL_IOPS=$(py calc "round($a + $b, 1)")
}

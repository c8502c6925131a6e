#!/bin/bash
# Description: one Ceph connection module: storeio store=rbd, store=cephfs and rbdsnap give up on an unreachable monitor within the same bound (30..45 s) with the same line shape; one fio with two rbd jobs and an rbdsnap job holds one monitor session, one with cephfs jobs on three roots (two engines) one too (counted by the monitor: ceph tell mon.* sessions)
# Timeout: 240
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "rbd backend not built"
have_backend LIBCEPHFS || skip "cephfs backend not built"
ID=dbfio-conn-$$
IMG1=storeio-test-conn1-$$ IMG2=storeio-test-conn2-$$ SIMG=rbdsnap-test-conn-$$ ROOT=/storeio-test-conn-$$
rbd_cleanup "$IMG1" "$IMG2" "$SIMG"
cephfs_cleanup "$ROOT"

# 1. an unreachable monitor, the three users at once (three processes)
port=$((40000 + RANDOM % 900))
while ss -ltn | grep -q ":$port "; do port=$((port + 1)); done
MON="[v2:127.0.0.1:$port,v1:127.0.0.1:$((port + 1))]"
sed "s/^mon_host = .*/mon_host = $MON/" "$CEPH_CONF" >"$TMP/nomon.conf"
# the line every user must print, after its own prefix: from this test's own
# inputs (monitor, conf, the default client), not from the module
TAIL="(client.admin) failed: Connection timed out (client.admin, cluster ceph at $MON, conf $TMP/nomon.conf)"
LO=29 HI=45	# the documented bound is 30 s (docs/failure-behaviour.md); 15 s of slack
nomon() {	# nomon NAME ARGS...: fio fails; rc and seconds into $TMP/NAME.res
	local name=$1 s; shift
	s=$(date +%s%N)
	CEPH_CONF=$TMP/nomon.conf "$FIO" --name="$name" --aux-path="$TMP" --rw=write --bs=4k "$@" \
		>"$TMP/$name.out" 2>&1
	echo "rc=$? secs=$(awk -v a="$s" -v b="$(date +%s%N)" 'BEGIN{printf "%.1f", (b - a) / 1e9}')" \
		>"$TMP/$name.res"
}
nomon nomon-rbd --ioengine="external:$B/storeio.so" --store=rbd --rbdname="$IMG1" --size=1m &
nomon nomon-cephfs --ioengine="external:$B/storeio.so" --store=cephfs --store_root="$ROOT" \
	--filename=f --size=1m &
nomon nomon-rbdsnap --ioengine="external:$B/rbdsnap.so" --pool=rbd --rbdname="$SIMG" \
	--runtime=1 --time_based &

# 2. one process, two storeio store=rbd jobs and an rbdsnap job, as a client
# of its own (its sessions are the monitor's entries named client.$ID)
ceph auth get-or-create "client.$ID" mon 'allow *' osd 'allow *' mds 'allow *' mgr 'allow *' \
	>"$TMP/$ID.keyring" || fail "ceph auth get-or-create client.$ID"
at_exit "ceph auth del client.$ID >/dev/null 2>&1"
{ cat "$CEPH_CONF"; printf '[client.%s]\nkeyring = %s\n' "$ID" "$TMP/$ID.keyring"; } >"$TMP/id.conf"
rbd create -p rbd --size 64M "$SIMG" || fail "rbd create $SIMG"
sessions() {	# sessions OUT: the monitor's sessions of client.$ID, once a second for 3 s
	local i
	for i in 1 2 3; do
		timeout 20 ceph tell 'mon.*' sessions -f json 2>/dev/null | python3 -c '
import json, sys
print(sum(1 for s in json.load(sys.stdin) if s.get("entity_name") == sys.argv[1]))' "client.$ID"
		sleep 1
	done >"$1"
}
together() {	# together NAME JOBFILE: run it, count sessions while all its jobs run
	local name=$1 job=$2 pid
	CEPH_CONF=$TMP/id.conf "$FIO" --output-format=json --output="$TMP/$name.json" \
		--aux-path="$TMP" "$job" 2>"$TMP/$name.err" &
	pid=$!
	sleep 6
	sessions "$TMP/$name.sessions"
	wait $pid || { cat "$TMP/$name.err"; fail "$name: fio failed"; }
	for j in $(json "$TMP/$name.json" "' '.join(str(sum(j[k]['total_ios'] for k in ('read', 'write', 'trim'))) for j in d['jobs'])"); do
		[ "$j" -gt 0 ] || { cat "$TMP/$name.err"; fail "$name: a job did no I/O"; }
	done
	got=$(sort -u "$TMP/$name.sessions" | paste -sd,)
	[ "$got" = 1 ] || fail "$name: the monitor counted $got session(s) of client.$ID (3 samples), want 1"
	ok "$name: $(json "$TMP/$name.json" "len(d['jobs'])") jobs, one monitor session of client.$ID (3 samples)"
}
cat >"$TMP/rbd.fio" <<EOF
[global]
rw=randwrite
bs=4k
rate_iops=50
time_based
runtime=12
[rbd1]
ioengine=external:$B/storeio.so
clientname=$ID
store=rbd
rbdname=$IMG1
rbd_size=64m
size=8m
[rbd2]
ioengine=external:$B/storeio.so
clientname=$ID
store=rbd
rbdname=$IMG2
rbd_size=64m
size=8m
[snap]
ioengine=external:$B/rbdsnap.so
clientname=$ID
pool=rbd
rbdname=$SIMG
EOF
together rbd "$TMP/rbd.fio"
cat >"$TMP/fs.fio" <<EOF
[global]
time_based
runtime=12
[fs1]
ioengine=external:$B/storeio.so
clientname=$ID
store=cephfs
store_root=$ROOT/a
rw=randwrite
bs=4k
rate_iops=50
size=1m
[fs2]
ioengine=external:$B/storeio.so
clientname=$ID
store=cephfs
store_root=$ROOT/b
rw=randwrite
bs=4k
rate_iops=50
size=1m
[ms]
ioengine=external:$B/metastorm.so
clientname=$ID
store=cephfs
store_root=$ROOT/c
number_ios=100000
EOF
together cephfs "$TMP/fs.fio"

wait
for u in rbd cephfs rbdsnap; do
	res=$(cat "$TMP/nomon-$u.res")
	line=$(grep -F -- "$TAIL" "$TMP/nomon-$u.out")
	[ -n "$line" ] || { cat "$TMP/nomon-$u.out"; fail "nomon $u: no line ending '$TAIL'"; }
	case $u in
	rbd) head='storeio: rbd: rados_connect' ;;
	cephfs) head='storeio: cephfs: ceph_mount' ;;
	rbdsnap) head='rbdsnap: rados_connect' ;;
	esac
	[ "$line" = "$head$TAIL" ] || fail "nomon $u: line '$line', want '$head$TAIL'"
	case $res in rc=0*) fail "nomon $u: fio succeeded" ;; esac
	secs=${res#*secs=}
	awk -v s="$secs" -v lo=$LO -v hi=$HI 'BEGIN{exit !(s >= lo && s <= hi)}' ||
		fail "nomon $u: gave up after $secs s, want $LO..$HI s (the 30 s policy)"
	ok "nomon $u: gave up after $secs s: $line"
done

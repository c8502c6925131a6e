#!/bin/bash
# Description: tools/cluster: up is idempotent, mounts work, down leaves no process, mount or loop device
# Timeout: 300
# In full: tools/cluster: up is idempotent, mounts work, down leaves no process, mount or loop device;
# a mon port held by a client connection (not a listener) is refused at once, naming it; once up,
# the mon runs Ceph's paxos_propose_interval (ceph tell), not bootstrap's quicker one
. "$(dirname "$0")/lib.sh"
[ -n "${DBFIO_TEST_CEPH_CONF:-}" ] && skip "tests target an existing cluster (DBFIO_TEST_CEPH_CONF)"
C=$REPO/tools/cluster
NEED_CLUSTER=1	# a skip in CI is a failure
# A cluster that was up before the suite (tests/run says so; run alone: up
# now) is somebody's: never stopped here. This test then brings up a cluster
# of its own in $TMP, on a free block of 100 ports.
if [ "${DBFIO_CLUSTER_WAS_UP:-}" = 1 ] || { [ -z "${DBFIO_CLUSTER_WAS_UP:-}" ] && $C status >/dev/null 2>&1; }; then
	port= used=$(ss -Htan | awk '{ n = split($4, a, ":"); print a[n] }')
	for p in $(seq 42000 100 48900); do
		awk -v p=$p '$1 >= p && $1 < p + 100 { f = 1 } END { exit !f }' <<<"$used" && continue
		port=$p; break
	done
	[ -n "$port" ] || fail_or_skip "no free block of 100 ports in 42000..48999 for a private cluster"
	export DBFIO_CLUSTER_DIR=$TMP/cluster DBFIO_CLUSTER_PORT=$port DBFIO_OSD_SIZE=2G DBFIO_EXT4_SIZE=256M
	at_exit '"$C" down'
	ok "the project's cluster was up before: a private one in $DBFIO_CLUSTER_DIR, port $port"
fi
$C up >"$TMP/up1" 2>&1 || { cat "$TMP/up1"; fail "cluster up"; }
s=$SECONDS
$C up >"$TMP/up2" 2>&1 || { cat "$TMP/up2"; fail "second up failed"; }
[ $((SECONDS - s)) -le 10 ] || fail "second up took $((SECONDS - s))s: not harmless"
eval "$($C env)"
dir=$(dirname "$CEPH_CONF")
ceph -s >"$TMP/s" 2>&1 || fail "ceph -s failed"
grep -q HEALTH_OK "$TMP/s" || { cat "$TMP/s"; fail "cluster not HEALTH_OK"; }
# bootstrap's quick paxos (0.1 s) is gone once up: the mon itself runs Ceph's 1 s
pi=$(ceph tell mon.a config get paxos_propose_interval -f json | py json - 'd["paxos_propose_interval"]')
py check "$pi == 1" || fail "after up, mon.a's paxos_propose_interval is '$pi', not Ceph's default 1"
ok "after up, mon.a's paxos_propose_interval is Ceph's default ($pi)"
$C mount --wal >"$TMP/m" 2>&1 || { cat "$TMP/m"; fail "mount --wal failed"; }
for m in cephfs ext4rbd ext4rbd-wal; do
	mountpoint -q "$dir/mnt/$m" || fail "no mount at $dir/mnt/$m"
	dd if=/dev/zero of="$dir/mnt/$m/probe" bs=1M count=4 conv=fsync status=none || fail "write to $m failed"
	rm -f "$dir/mnt/$m/probe"
done
# a client of its own beside tools/cluster's mounts (what the tests do after
# make demo left the cluster mounted): clients share no pid file
mkdir -p "$TMP/fuse2"
ceph-fuse -c "$CEPH_CONF" "$TMP/fuse2" >"$TMP/fuse2.log" 2>&1 ||
	{ cat "$TMP/fuse2.log"; fail "a second ceph-fuse beside the cluster's own mount failed"; }
# (a ceph-fuse just started runs `mount -o remount` on its mount point, its
# dentry invalidation test: busy for a moment)
for i in $(seq 10); do
	fusermount -u "$TMP/fuse2" 2>"$TMP/fuse2.umount" && break
	sleep 0.3
done
mountpoint -q "$TMP/fuse2" && { cat "$TMP/fuse2.umount"; fuser -vm "$TMP/fuse2"; fail "could not unmount the second ceph-fuse"; }
ok "a second ceph-fuse mounts beside tools/cluster's"
pids=$(cat "$dir"/run/*.pid 2>/dev/null)
loops=$(losetup -nO NAME,BACK-FILE | grep -F "$dir" | awk '{print $1}')
[ "$(wc -w <<<"$loops")" = 2 ] || fail "not 2 loop devices for ext4 on the two RBD images: $loops"
# A ceph-fuse that stopped answering, with a file held open on its mount
# (fusermount -u: busy), must not stop down: it is killed and detached.
: >"$dir/mnt/cephfs/held" || fail "create on cephfs failed"
# shellcheck disable=SC2217  # sleep only holds the file open
sleep 600 <"$dir/mnt/cephfs/held" & holder=$!
at_exit "kill $holder"
fpid=$(pgrep -f "^ceph-fuse -c $dir/ceph.conf $dir/mnt/cephfs")
[ -n "$fpid" ] || fail "no ceph-fuse pid for $dir/mnt/cephfs"
kill -STOP "$fpid"
s=$SECONDS
$C down >"$TMP/down" 2>&1 || { cat "$TMP/down"; fail "down failed (ceph-fuse stopped, a file held open)"; }
grep -q "does not answer" "$TMP/down" || { cat "$TMP/down"; fail "down did not see the hung ceph-fuse"; }
ok "down in $((SECONDS - s))s (ceph-fuse hung with a file open)"
for p in $pids; do
	[ -r "/proc/$p/cmdline" ] && tr '\0' ' ' <"/proc/$p/cmdline" | grep -qF "$dir" && fail "pid $p still runs"
done
grep -qF " $dir" /proc/mounts && fail "a mount under $dir is left"
losetup -nO NAME,BACK-FILE | grep -qF "$dir" && fail "loop device left: $(losetup -a)"
pgrep -f -- "$dir/ceph.conf" && fail "a process naming $dir/ceph.conf is left"
$C status >/dev/null 2>&1 && fail "status says up after down"
ok "nothing left behind"
# a port a client's connection holds (its ephemeral port: the mon could not
# bind it) is refused at once, naming it, not after the mon's bind retries
for P2 in $(seq $(( ${DBFIO_CLUSTER_PORT:-30100} + 900 )) 2 $(( ${DBFIO_CLUSTER_PORT:-30100} + 990 ))); do
	port_pair_free $P2 && break	# (a rerun's TIME_WAIT)
done
python3 - <<PY &
import socket, time
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
s = socket.socket(); s.bind(("127.0.0.1", $P2)); s.connect(l.getsockname())
time.sleep(15)
PY
hp=$!
at_exit "kill $hp 2>/dev/null; DBFIO_CLUSTER_DIR=$TMP/c2 DBFIO_CLUSTER_PORT=$P2 $C down >/dev/null 2>&1"
sleep 1
DBFIO_CLUSTER_DIR=$TMP/c2 DBFIO_CLUSTER_PORT=$P2 timeout 60 $C up >"$TMP/c2.out" 2>&1 && fail "up on a port a connection holds succeeded"
kill $hp 2>/dev/null
grep -q "port $P2 is in use: ESTAB" "$TMP/c2.out" || { cat "$TMP/c2.out"; fail "no 'port $P2 is in use' line"; }
ok "a port held by a client connection: $(tail -n 1 "$TMP/c2.out")"

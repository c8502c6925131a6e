#!/bin/bash
# Description: tools/cluster: up is idempotent, mounts work, down leaves no process, mount or loop device
# Timeout: 240
. "$(dirname "$0")/lib.sh"
[ -n "${DBFIO_TEST_CEPH_CONF:-}" ] && skip "tests target an existing cluster (DBFIO_TEST_CEPH_CONF)"
C=$REPO/tools/cluster
$C up >"$TMP/up1" 2>&1 || { cat "$TMP/up1"; fail "cluster up"; }
s=$SECONDS
$C up >"$TMP/up2" 2>&1 || { cat "$TMP/up2"; fail "second up failed"; }
[ $((SECONDS - s)) -le 10 ] || fail "second up took $((SECONDS - s))s: not harmless"
eval "$($C env)"
dir=$(dirname "$CEPH_CONF")
ceph -s >"$TMP/s" 2>&1 || fail "ceph -s failed"
grep -q HEALTH_OK "$TMP/s" || { cat "$TMP/s"; fail "cluster not HEALTH_OK"; }
$C mount >"$TMP/m" 2>&1 || { cat "$TMP/m"; fail "mount failed"; }
for m in cephfs ext4rbd; do
	mountpoint -q "$dir/mnt/$m" || fail "no mount at $dir/mnt/$m"
	dd if=/dev/zero of="$dir/mnt/$m/probe" bs=1M count=4 conv=fsync status=none || fail "write to $m failed"
	rm -f "$dir/mnt/$m/probe"
done
pids=$(cat "$dir"/run/*.pid 2>/dev/null)
loops=$(losetup -nO NAME,BACK-FILE | grep -F "$dir" | awk '{print $1}')
[ -n "$loops" ] || fail "no loop device for ext4-on-RBD"
s=$SECONDS
$C down >"$TMP/down" 2>&1 || { cat "$TMP/down"; fail "down failed"; }
ok "down in $((SECONDS - s))s"
for p in $pids; do
	[ -r "/proc/$p/cmdline" ] && tr '\0' ' ' <"/proc/$p/cmdline" | grep -qF "$dir" && fail "pid $p still runs"
done
grep -qF " $dir" /proc/mounts && fail "a mount under $dir is left"
losetup -nO NAME,BACK-FILE | grep -qF "$dir" && fail "loop device left: $(losetup -a)"
pgrep -f -- "$dir/ceph.conf" && fail "a process naming $dir/ceph.conf is left"
$C status >/dev/null 2>&1 && fail "status says up after down"
ok "nothing left behind"

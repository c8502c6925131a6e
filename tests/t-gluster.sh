#!/bin/bash
# Description: tools/gluster: up, write+fsync+read on the replica-2 mount, options, a brick down and healed, down is clean
# Timeout: 240
# In full: tools/gluster: up, write+fsync+read on the replica-2 mount, set/get an option, one brick
# down and back (healed), status, down leaves nothing behind
. "$(dirname "$0")/lib.sh"
GL=$REPO/tools/gluster
export DBFIO_GLUSTER_DIR=$TMP/gluster
at_exit '"$GL" down' 

# In CI a machine that cannot run GlusterFS is a failure, never a skip.
cannot() { [ "${CI:-}" = true ] && fail "$*"; skip "$*"; }

if ! command -v glusterd >/dev/null || ! command -v mount.glusterfs >/dev/null; then
	[ "${CI:-}" = true ] || skip "GlusterFS is not installed (tools/deps --with gluster)"
	"$REPO/tools/deps" --with gluster || fail "tools/deps --with gluster failed"
fi
ss -Hltn 'sport = :24007' | grep -q . && cannot "port 24007 is taken (another glusterd runs here)"

outside() { ls -A /var/lib/glusterd /var/log/glusterfs /var/run/gluster 2>/dev/null; }
outside >"$TMP/outside.before"
hosts_sum=$(md5sum </etc/hosts)

s=$SECONDS
if ! "$GL" up >"$TMP/up.out" 2>"$TMP/up.err"; then
	cat "$TMP/up.err"
	cannot "tools/gluster up failed: $(tail -n 1 "$TMP/up.err")"
fi
ok "up in $((SECONDS - s))s"
mnt=$(cat "$TMP/up.out")
[ "$mnt" = "$DBFIO_GLUSTER_DIR/mnt" ] || fail "up printed '$mnt', not the mount point"
eval "$("$GL" env)"
[ "$GLUSTER_MNT" = "$mnt" ] || fail "env says GLUSTER_MNT=$GLUSTER_MNT"
awk -v p="$mnt" '$2 == p && $3 == "fuse.glusterfs" { f = 1 } END { exit !f }' /proc/mounts ||
	fail "no fuse.glusterfs mount at $mnt"

# write + fsync + read back; replica 2 means both bricks hold the bytes
head -c 1048576 /dev/urandom >"$TMP/data"
dd if="$TMP/data" of="$mnt/probe" bs=64k conv=fsync status=none || fail "write+fsync on the mount failed"
echo 3 >/proc/sys/vm/drop_caches 2>/dev/null
cmp "$TMP/data" "$mnt/probe" || fail "read back differs"
for b in b1 b2; do
	cmp "$TMP/data" "$DBFIO_GLUSTER_DIR/bricks/$b/probe" || fail "brick $b does not hold the file"
done
ok "1 MiB written, fsynced, read back; both bricks hold it"

# set/get (seed 002's io-cache), read back through the gluster CLI itself
G() { gluster --mode=script --glusterd-sock="$DBFIO_GLUSTER_DIR/run/glusterd.socket" --log-file="$TMP/cli.log" "$@"; }
"$GL" set performance.io-cache on 2>"$TMP/set.err" || { cat "$TMP/set.err"; fail "set performance.io-cache on failed"; }
G volume get dbfio performance.io-cache | grep -qE '^performance.io-cache +on' || fail "io-cache is not on after set"
[ "$("$GL" get performance.io-cache)" = on ] || fail "get does not say on"
"$GL" set performance.io-cache default 2>/dev/null || fail "set ... default failed"
G volume get dbfio performance.io-cache | grep -qE '^performance.io-cache +off' || fail "io-cache not back to its default (off)"
"$GL" set 2>/dev/null && fail "set without KEY VALUE accepted"
ok "set/get performance.io-cache on/default"

# one brick's server down (seed 002): its glusterfsd is gone, writes land on the other brick only;
# brick start brings it back and heals the file onto it
pidf=$(echo "$DBFIO_GLUSTER_DIR"/run/vols/dbfio/*-bricks-b2.pid)
bp=$(cat "$pidf")
"$GL" brick stop 2 2>"$TMP/bs.err" || { cat "$TMP/bs.err"; fail "brick stop 2 failed"; }
[ -d "/proc/$bp" ] && fail "brick 2's glusterfsd (pid $bp) still runs"
dd if="$TMP/data" of="$mnt/probe-down" bs=64k conv=fsync status=none || fail "write with one brick down failed"
cmp "$TMP/data" "$DBFIO_GLUSTER_DIR/bricks/b1/probe-down" || fail "brick 1 does not hold the file written while 2 was down"
[ -e "$DBFIO_GLUSTER_DIR/bricks/b2/probe-down" ] && fail "brick 2 got the file while down"
"$GL" brick start 2>"$TMP/bu.err" || { cat "$TMP/bu.err"; fail "brick start failed"; }
cmp "$TMP/data" "$DBFIO_GLUSTER_DIR/bricks/b2/probe-down" || fail "brick 2 was not healed after brick start"
"$GL" brick stop 3 2>/dev/null && fail "brick stop 3 accepted"
ok "brick stop 2: writes on brick 1 only; brick start: healed onto brick 2"

"$GL" status >"$TMP/status" || { cat "$TMP/status"; fail "status says not up"; }
grep -q '^up ' "$TMP/status" || fail "status: no 'up' line"
[ "$(grep -c '^pid ' "$TMP/status")" -ge 4 ] || { cat "$TMP/status"; fail "status lists fewer than 4 daemons"; }
ok "status: $(grep '^rss' "$TMP/status")"

dir=$DBFIO_GLUSTER_DIR
s=$SECONDS
"$GL" down >"$TMP/down" 2>&1 || { cat "$TMP/down"; fail "down failed"; }
ok "down in $((SECONDS - s))s"
for p in /proc/[0-9]*; do
	tr '\0' '\n' <"$p/cmdline" 2>/dev/null | grep -qF "$dir/" && fail "pid ${p#/proc/} still runs: $(tr '\0' ' ' <"$p/cmdline")"
done
grep -qF " $dir/" /proc/mounts && fail "a mount under $dir is left"
[ -e "$dir" ] && fail "$dir is left"
outside | diff "$TMP/outside.before" - || fail "entries left under /var/lib/glusterd, /var/log/glusterfs or /var/run/gluster"
[ "$(md5sum </etc/hosts)" = "$hosts_sum" ] || fail "/etc/hosts changed"
"$GL" status >/dev/null 2>&1 && fail "status says up after down"
ok "nothing left behind"

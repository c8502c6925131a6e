#!/bin/bash
# Description: tools/cluster profiles seed003 and replicated come up HEALTH_OK and go away without leftovers
# Timeout: 600
# In full: tools/cluster profiles: seed003 (FileStore on a throttled loop device, write-through cache)
# and replicated (3 OSDs, size 3, message delay) each come up HEALTH_OK as described and go away
# without leftovers (process, mount, loop device, blkio limit); another profile over a running one is
# refused; the project's own cluster is the default (one BlueStore OSD, size 1, no loop device)
. "$(dirname "$0")/lib.sh"
own_cluster_only "tests tools/cluster's own clusters"
command -v ceph-osd >/dev/null || skip "no ceph-osd (tools/deps)"
# default: the project's own cluster (what need_cluster brings up), unchanged - one
# BlueStore OSD on a sparse file, pool size 1, no loop device (its down: t-zz-cluster-lifecycle)
need_cluster
"$REPO/tools/cluster" status | grep -q "^profile  default: " || fail "the project's cluster is not the default profile"
[ "$(ceph osd metadata 0 -f json | py json - "d['osd_objectstore']")" = bluestore ] ||
	fail "default: osd.0 is not BlueStore"
losetup -nO BACK-FILE -l 2>/dev/null | grep -q "^$(dirname "$CEPH_CONF")/disk/" && fail "default: the OSD is on a loop device"
[ "$(ceph osd pool get rbd size -f json | py json - "d['size']")" = 1 ] ||
	fail "default: pool rbd is not size 1"
ok "default: one BlueStore OSD, pool size 1, not on a loop device"
side_cluster test-profiles
D=$DBFIO_CLUSTER_DIR
BLKIO=/sys/fs/cgroup/blkio
"$CL" down >/dev/null 2>&1

# what an independent look at the machine finds of this cluster
procs() { pgrep -fc -- "$D/ceph.conf"; }	# (pgrep never counts itself)
mounts() { awk -v d="$D/" 'index($2, d) == 1' /proc/mounts | wc -l; }
loops() { losetup -nO BACK-FILE -l 2>/dev/null | grep -c "^$D/"; }

# up PROFILE: HEALTH_OK and every PG active+clean, by ceph's own word
up() {
	"$CL" up --profile "$1" >"$TMP/up-$1.log" 2>&1 || { cat "$TMP/up-$1.log"; fail "$1: tools/cluster up failed"; }
	export CEPH_CONF=$D/ceph.conf
	[ "$(timeout 30 ceph health)" = HEALTH_OK ] || fail "$1: ceph health: $(timeout 30 ceph health detail)"
	pgs=$(timeout 30 ceph pg stat -f json | py json - "(lambda d: '%d %d' % (sum(x['num'] for x in d['num_pg_by_state'] if x['name'] == 'active+clean'), d['num_pgs']))(d.get('pg_summary', d))")
	read -r clean total <<<"$pgs"
	[ "$clean" = "$total" ] && [ "$total" -gt 0 ] || fail "$1: $clean of $total PGs active+clean"
	"$CL" status | grep -q "^profile  $1: " || fail "$1: status does not print the profile"
	ok "$1: HEALTH_OK, $total PGs active+clean; $("$CL" status | sed -n 's/^profile  //p')"
}
# down PROFILE [MAJ:MIN]: nothing left (process, mount, loop device, blkio limit, directory)
down() {
	"$CL" down >"$TMP/down-$1.log" 2>&1 || { cat "$TMP/down-$1.log"; fail "$1: tools/cluster down failed"; }
	[ "$(procs)" = 0 ] || fail "$1: $(procs) processes of $D/ceph.conf left"
	[ "$(mounts)" = 0 ] || fail "$1: mounts left under $D"
	[ "$(loops)" = 0 ] || fail "$1: loop devices over $D files left"
	if [ -n "${2:-}" ]; then
		grep -hs "^$2 " "$BLKIO"/blkio.throttle.{read,write}_iops_device && fail "$1: blkio limit on $2 left"
	fi
	[ ! -e "$D" ] || fail "$1: $D still exists"
	ok "$1: down, nothing left"
}

# seed003: FileStore on ext4 on a loop device over a file of ours, limited to 150 IOPS
[ -w "$BLKIO/blkio.throttle.write_iops_device" ] || fail "no cgroup v1 blkio at $BLKIO: the seed003 profile cannot work here"
up seed003
[ "$(ceph osd metadata 0 -f json | py json - "d['osd_objectstore']")" = filestore ] ||
	fail "seed003: osd.0 is not FileStore"
loop=$(losetup -nO NAME,BACK-FILE -l | awk -v f="$D/disk/osd.0.img" '$2 == f { print $1 }')
[ -n "$loop" ] || fail "seed003: no loop device over $D/disk/osd.0.img"
mountpoint -q "$D/osd.0" || fail "seed003: the OSD's data dir is not a mount"
[ "$(findmnt -no SOURCE "$D/osd.0")" = "$loop" ] || fail "seed003: $D/osd.0 is not on $loop"
mm=$(lsblk -dno MAJ:MIN "$loop" | tr -d ' ')
for f in read write; do
	grep -q "^$mm 150$" "$BLKIO/blkio.throttle.${f}_iops_device" || fail "seed003: no 150-IOPS $f limit on $loop ($mm)"
done
# the limit is real: 100 direct 4 kB writes to the OSD's file system take >= ~0.7 s at
# 150 IOPS (each one I/O at least: ext4's journal commits add more)
s=$(date +%s%N)
dd if=/dev/zero of="$D/osd.0/ddtest" bs=4k count=100 oflag=direct,dsync status=none || fail "dd on the OSD disk"
ms=$(( ($(date +%s%N) - s) / 1000000 ))
rm -f "$D/osd.0/ddtest"
[ "$ms" -ge 600 ] || fail "seed003: 100 synchronous writes took ${ms} ms: the disk is not limited"
[ "$(ceph-conf -c "$CEPH_CONF" --name client.admin rbd_cache_policy)" = writethrough ] ||
	fail "seed003: librbd cache policy is not writethrough"
[ "$(timeout 30 ceph tell osd.0 config get osd_op_complaint_time -f json | py json - "float(d['osd_op_complaint_time'])")" = 1.0 ] ||
	fail "seed003: osd_op_complaint_time is not 1 s in the OSD"
ok "seed003: osd.0 FileStore on $loop (ext4), 150 IOPS read/write limit ($mm): 100 sync writes ${ms} ms; cache writethrough; complaint time 1 s"
# another profile while it is up: refused with one line, the cluster untouched
"$CL" up --profile replicated >"$TMP/clash.log" 2>&1 && fail "up --profile replicated over a seed003 cluster succeeded"
grep -q "already up with another profile" "$TMP/clash.log" || { cat "$TMP/clash.log"; fail "no 'another profile' message"; }
[ "$(timeout 30 ceph health)" = HEALTH_OK ] || fail "the seed003 cluster suffered from the refused up"
ok "up with another profile refused: $(tail -1 "$TMP/clash.log")"
down seed003 "$mm"

# replicated: 3 OSDs, pool size 3, a message delay injected by Ceph itself
up replicated
[ "$(ceph osd stat -f json | py json - "'%d %d' % (d['num_up_osds'], d['num_in_osds'])")" = "3 3" ] ||
	fail "replicated: not 3 OSDs up and in"
[ "$(ceph osd pool get rbd size -f json | py json - "d['size']")" = 3 ] ||
	fail "replicated: pool rbd is not size 3"
for i in 0 1 2; do
	v=$(timeout 30 ceph tell "osd.$i" config get ms_inject_delay_max -f json | py json - "float(d['ms_inject_delay_max'])")
	[ "$v" = 0.002 ] || fail "replicated: osd.$i ms_inject_delay_max=$v"
done
ok "replicated: 3 OSDs up, pool size 3, ms_inject_delay_max 2 ms in every OSD"
down replicated

#!/bin/bash
# Description: rbdsnap with a client whose caps forbid snapshots fails in one line at the first refusal
# Timeout: 120
# In full: rbdsnap with a client whose caps forbid snapshots (osd 'allow rw class-read': data writes
# pass, rbd_snap_create gets EPERM): the job fails, saying `rbdsnap: rbd_snap_create(<name>) failed:
# Operation not permitted` in one line, ending the job at the first refusal, and never blames the
# schedule ("before the schedule's first")
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-snapperm-$$ WHO=dbfio-test-nosnap-$$
rbd_image "$IMG" 64M --image-feature layering
# a client of its own, removed at exit: rbd's mon profile, plain reads and
# writes of objects, class methods read-only (snapshot_add is a class write)
at_exit "ceph auth rm client.$WHO"
timeout 30 ceph auth get-or-create "client.$WHO" mon 'profile rbd' osd 'allow rw class-read pool=rbd' \
	>"$TMP/nosnap.keyring" || fail "ceph auth get-or-create client.$WHO"
{ cat "$CEPH_CONF"; printf '[client.%s]\nkeyring = %s\n' "$WHO" "$TMP/nosnap.keyring"; } >"$TMP/nosnap.conf"
# the oracle outside the engine: rbd itself is refused the snapshot, not the writes
CEPH_CONF=$TMP/nosnap.conf rbd --id "$WHO" bench --io-type write --io-total 64K "rbd/$IMG" >/dev/null 2>&1 ||
	fail "client.$WHO cannot write (the test's caps are wrong)"
CEPH_CONF=$TMP/nosnap.conf rbd --id "$WHO" snap create "rbd/$IMG@probe" >/dev/null 2>&1 &&
	fail "client.$WHO may create snapshots (the test's caps are wrong)"

CEPH_CONF=$TMP/nosnap.conf run_fio np --name=np --ioengine="external:$B/rbdsnap.so" --clientname="$WHO" \
	--pool=rbd --rbdname="$IMG" --invalidate=0 --rw=randwrite --bs=4k --iodepth=4 --runtime=3 --time_based \
	--snap_interval=1 --health_interval=0 &&
	{ cat "$TMP/np.err"; fail "fio succeeded though no snapshot could be taken"; }
grep -q "schedule" "$TMP/np.err" && { cat "$TMP/np.err"; fail "the schedule was blamed"; }
line=$(grep -m1 -x "rbdsnap: rbd_snap_create(dbfio-[0-9a-f]\{8\}-1) failed: Operation not permitted" "$TMP/np.err") ||
	{ cat "$TMP/np.err"; fail "no line 'rbdsnap: rbd_snap_create(<name>) failed: Operation not permitted'"; }
# the first refusal ends the job: every later create would be refused too
n=$(grep -c "^rbdsnap: rbd_snap_create" "$TMP/np.err")
[ "$n" = 1 ] || { cat "$TMP/np.err"; fail "$n rbd_snap_create lines: the job went on after the first EPERM"; }
# fio's own account of the job (its "fio: pid=..., err=" line precedes the JSON)
err=$(sed -n '/^{/,$p' "$TMP/np.json" | py json - "d['jobs'][0]['error']")
[ "$err" = 1 ] || { cat "$TMP/np.err"; fail "the job's error is '$err', not EPERM (1)"; }
[ -z "$(rbd snap ls "rbd/$IMG")" ] || fail "a snapshot exists: $(rbd snap ls "rbd/$IMG")"
ok "job failed (EPERM): $line"

#!/bin/bash
# Description: bad Ceph input for the store engines: missing pool, wrong client, wrong key, a foreign image
# Timeout: 240
# In full: bad Ceph input for the store engines: missing pool, wrong client, wrong key, a foreign
# image; thread=0 still runs (an unreachable monitor: t-ceph-conn)
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
need_cluster
have_backend RBD || skip "rbd backend not built"
have_backend LIBCEPHFS || skip "cephfs backend not built"
IMG=storeio-test-rel-$$ FOREIGN=storeio-test-rel-foreign-$$
ROOT=/storeio-test-rel
rbd_cleanup "$IMG" "$FOREIGN"
cephfs_cleanup "$ROOT"
st() { refuse "$1" "$2" --ioengine="external:$B/storeio.so" --rw=write --size=1m --bs=4k "${@:3}"; }
RBD=(--store=rbd --rbdname="$IMG" --rbd_size=64m)
FS=(--store=cephfs --store_root="$ROOT" --filename=f)

# a keyring whose key the cluster does not know
sed 's/^\(\s*key\s*=\s*\).*/\1AQBzvz1mAAAAABAAp0yZ7Q1VwzqVMM1qJ8iT2w==/' \
	"$(awk -F' *= *' '/^keyring/{print $2; exit}' "$CEPH_CONF")" >"$TMP/bad.keyring"
{ cat "$CEPH_CONF"; printf '[client]\nkeyring = %s\n' "$TMP/bad.keyring"; } >"$TMP/badkey.conf"

# (an unreachable monitor, by ceph_conf= and by CEPH_CONF, bounded: t-ceph-conn)
# 1. missing pool, wrong client name, wrong key
st rbd-nopool "storeio-nosuchpool" --store=rbd --pool=storeio-nosuchpool --rbdname="$IMG"
st rbd-client "client.nosuchuser" "${RBD[@]}" --clientname=nosuchuser
st rbd-key "client.admin" "${RBD[@]}" --ceph_conf="$TMP/badkey.conf"
st fs-client "nosuchuser" "${FS[@]}" --clientname=nosuchuser
st fs-key "ceph_mount\|Permission denied\|authentic" "${FS[@]}" --ceph_conf="$TMP/badkey.conf"
refuse pg-nopool "pgpage-nosuchpool" --ioengine="external:$B/pgpage.so" --store=rbd --pool=pgpage-nosuchpool \
	--rbdname="$IMG" --bs=8k --size=1m --relations=1 --relation_size=1m --rw=write
refuse rl-nopool "redolog-nosuchpool" --ioengine="external:$B/redolog.so" --store=rbd --pool=redolog-nosuchpool \
	--rbdname="$IMG" --rw=write --size=1m
refuse ms-client "nosuchuser" --ioengine="external:$B/metastorm.so" --store=cephfs --store_root="$ROOT" \
	--clientname=nosuchuser --number_ios=3
rbd info -p rbd storeio-nosuchpool >/dev/null 2>&1 && fail "a failed run created something"

# 2. an image that is not a dbfio store: refused, its bytes intact
rbd create -p rbd --size 8M "$FOREIGN" || fail "rbd create $FOREIGN"
rbd bench --io-type write --io-size 64K --io-total 1M --io-pattern seq "rbd/$FOREIGN" >/dev/null 2>&1 ||
	fail "cannot write the foreign image"
rbd export --no-progress "rbd/$FOREIGN" "$TMP/before.img" >/dev/null 2>&1 || fail "rbd export"
st rbd-foreign "not a dbfio store" --store=rbd --rbdname="$FOREIGN"
rbd export --no-progress "rbd/$FOREIGN" "$TMP/after.img" >/dev/null 2>&1 || fail "rbd export"
cmp -s "$TMP/before.img" "$TMP/after.img" || fail "the foreign image changed"
ok "foreign image refused and unchanged"

# 3. thread=0 in the job: the engines force threads (librados/libcephfs do not survive fork)
for be in rbd cephfs; do
	a=("${RBD[@]}"); [ $be = cephfs ] && a=("${FS[@]}")
	run_fio "thread0-$be" --name=t0 --ioengine="external:$B/storeio.so" --thread=0 "${a[@]}" \
		--rw=randwrite --size=4m --bs=4k --iodepth=4 --fsync=16 --unlink=1 ||
		{ cat "$TMP/thread0-$be.err"; fail "thread=0 store=$be failed"; }
	[ "$(json "$TMP/thread0-$be.json" "d['jobs'][0]['write']['total_ios']")" = 1024 ] || fail "thread=0 $be: not 1024 writes"
	ok "thread=0 store=$be: completed"
done
run_fio thread0-ms --name=t0 --ioengine="external:$B/metastorm.so" --thread=0 --store=cephfs \
	--store_root="$ROOT" --number_ios=20 || { cat "$TMP/thread0-ms.err"; fail "metastorm thread=0 failed"; }
ok "thread=0 metastorm store=cephfs: completed"

echo "bad inputs refused: $REFUSED"
ok "$REFUSED bad Ceph inputs refused"

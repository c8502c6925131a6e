#!/bin/bash
# Description: rbdsnap: out-of-range options refused; missing pool/image, bad credentials, unreachable cluster fail fast with one line
# Timeout: 120
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-errors
rbd_image "$IMG" 64M

# refuse NAME EXPECTED-SUBSTRING MAX-SECONDS fio-args...: fio must fail, in time, with one rbdsnap line
refuse() {
	local name=$1 want=$2 max=$3 s=$SECONDS; shift 3
	run_fio "$name" --name="$name" --ioengine="external:$B/rbdsnap.so" --clientname=admin \
		--rw=randwrite --bs=4k --runtime=1 --time_based "$@" && fail "$name: fio succeeded"
	[ $((SECONDS - s)) -le "$max" ] || fail "$name: took $((SECONDS - s)) s (bound ${max} s)"
	n=$(grep -c '^rbdsnap: ' "$TMP/$name.err")
	[ "$n" = 1 ] || { cat "$TMP/$name.err"; fail "$name: $n rbdsnap lines, want 1"; }
	grep -q "$want" "$TMP/$name.err" || { cat "$TMP/$name.err"; fail "$name: no '$want'"; }
	ok "$name: $(grep '^rbdsnap: ' "$TMP/$name.err")"
}
R=(--pool=rbd --rbdname="$IMG")
refuse keep-neg "snap_keep=-1" 30 "${R[@]}" --snap_interval=1 --snap_keep=-1
refuse every-neg "snap_every=-5" 30 "${R[@]}" --snap_every=-5
refuse count-neg "snap_count=-2" 30 "${R[@]}" --snap_interval=1 --snap_count=-2
refuse interval-neg "snap_interval=-3" 30 "${R[@]}" --snap_interval=-3
# fio's own parser refuses a value outside the option's range: its line, no rbdsnap line
run_fio slow-zero --name=slow-zero --ioengine="external:$B/rbdsnap.so" "${R[@]}" --slow_threshold=0 &&
	fail "slow-zero: fio succeeded"
grep -qx "fio: failed parsing slow_threshold=0" "$TMP/slow-zero.err" && ! grep -q '^rbdsnap: ' "$TMP/slow-zero.err" ||
	{ cat "$TMP/slow-zero.err"; fail "slow-zero: not fio's one line naming slow_threshold=0"; }
ok "slow-zero: $(grep 'failed parsing' "$TMP/slow-zero.err")"
refuse keep-alone "needs snap_interval" 30 "${R[@]}" --snap_keep=2
refuse hold-nocount "snap_hold" 30 "${R[@]}" --snap_interval=1 --snap_hold=5
refuse keep1-after "snap_after=2s with snap_keep=1" 30 "${R[@]}" --snap_interval=1 --snap_count=3 --snap_hold=4 --snap_keep=1 --snap_after=2
refuse prefix-bad "snap_prefix=a@b" 30 "${R[@]}" --snap_interval=1 --snap_prefix=a@b
refuse no-pool "pool= is required" 30 --rbdname="$IMG"
refuse missing-pool "rados_ioctx_create(rbdsnap-nosuchpool)" 30 --pool=rbdsnap-nosuchpool --rbdname="$IMG"
refuse missing-image "rbd_open(rbd/rbdsnap-test-nosuch) failed: No such file" 30 --pool=rbd --rbdname=rbdsnap-test-nosuch
# a key the cluster does not know
sed 's/^\(\s*key\s*=\s*\).*/\1AQBzvz1mAAAAABAAp0yZ7Q1VwzqVMM1qJ8iT2w==/' \
	"$(awk -F' *= *' '/^keyring/{print $2; exit}' "$CEPH_CONF")" >"$TMP/bad.keyring"
{ cat "$CEPH_CONF"; printf '[client]\nkeyring = %s\n' "$TMP/bad.keyring"; } >"$TMP/badkey.conf"
CEPH_CONF=$TMP/badkey.conf refuse bad-key "rados_connect(client.admin) failed" 20 "${R[@]}" --connect_timeout=5
# a monitor that is not there: bounded by connect_timeout
sed 's/^mon_host = .*/mon_host = [v2:127.0.0.1:40109,v1:127.0.0.1:40108]/' "$CEPH_CONF" >"$TMP/nomon.conf"
CEPH_CONF=$TMP/nomon.conf refuse no-mon "rados_connect(client.admin) failed" 20 "${R[@]}" --connect_timeout=3

#!/bin/bash
# Description: a test that reconfigures Ceph skips (77) on a cluster not the project's own, before any Ceph call
# Timeout: 120
# In full: a test that reconfigures a Ceph cluster (OSD settings: osd_slow_op_history, injectargs,
# config set/rm/unset; cluster flags and pools: ceph osd set/unset/add-/rm-/pool) runs only on the project's own cluster: pointed at DBFIO_TEST_CEPH_CONF (somebody
# else's; here an unreachable one) each skips (exit 77) with a reason naming it, before any Ceph call
. "$(dirname "$0")/lib.sh"
# somebody else's cluster, unreachable and without a key: any Ceph call fails at once
cat >"$TMP/foreign.conf" <<CONF
[global]
mon_host = [v2:127.0.0.1:39951,v1:127.0.0.1:39952]
keyring = $TMP/no-such.keyring
client_mount_timeout = 2
rados_mon_op_timeout = 2
CONF
# the tests that reconfigure the cluster they are given (a test with a
# cluster of its own, side_cluster, or only the fault tests' need_own_cluster,
# is not given one)
tests=$(grep -lE '^[^#]*(osd_slow_op_history [0-9]|injectargs|config (set|rm|unset) |ceph osd (set|unset|add-|rm-|pool (set|create|rm)) )' "$REPO"/tests/t-*.sh |
	xargs -r grep -LE '^[^#]*(side_cluster|need_own_cluster)' | grep -v "/t-ceph-foreign-reconfig.sh$")
[ -n "$tests" ] || fail "found no test that reconfigures a cluster (the grep is stale?)"
for t in $tests; do
	n=$(basename "$t" .sh)
	env -u CI -u CEPH_CONF DBFIO_TEST_CEPH_CONF="$TMP/foreign.conf" timeout 60 bash "$t" >"$TMP/$n.out" 2>&1
	rc=$?
	[ $rc = 77 ] && grep -q "^SKIP: .*DBFIO_TEST_CEPH_CONF" "$TMP/$n.out" ||
		{ tail -5 "$TMP/$n.out"; fail "$n: exit $rc against DBFIO_TEST_CEPH_CONF, not a skip naming it"; }
	ok "$n: $(grep '^SKIP: ' "$TMP/$n.out")"
done

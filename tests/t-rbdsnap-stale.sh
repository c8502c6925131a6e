#!/bin/bash
# Description: rbdsnap: leftovers of a killed run (its holder record names a process gone) reported at start
# Timeout: 120
# In full: rbdsnap: leftovers of a killed run (its holder record names a process gone) reported at
# start, removed only with snap_purge_stale=1, protected ones never; a run without a holder record is
# left alone
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-stale
# a run killed by the runner's timeout leaves the image with a protected
# snapshot: rbd_rm unprotects, purges, removes (now and at exit)
rbd_rm "$IMG"
rbd create -p rbd --size 256M "$IMG" || fail "rbd create $IMG"
rbd_cleanup "$IMG"
# what a SIGKILLed run leaves (its snapshots and the record of its holder, a
# process of this host that is gone), a protected one, a run whose holder
# nobody recorded, and an operator's look-alike
dead=$(sh -c 'echo $$')
rbd image-meta set "rbd/$IMG" dbfio.rbdsnap.run.0badc0de "dbfio,pid=$dead,host=$(hostname),start=1,time=$(date +%s)" \
	>/dev/null || fail "rbd image-meta set"
for s in dbfio-0badc0de-1 dbfio-0badc0de-2 dbfio-1badc0de-1 dbfio-keep-me foreign; do
	rbd snap create "rbd/$IMG@$s" >/dev/null 2>&1 || fail "rbd snap create $s"
done
rbd snap protect "rbd/$IMG@dbfio-0badc0de-2" || fail "rbd snap protect"
snaps() { rbd snap ls "rbd/$IMG" | awk 'NR>1{print $2}' | sort | tr '\n' ' '; }
job() {
	run_fio "$1" --name="$1" --ioengine="external:$B/rbdsnap.so" --clientname=admin --pool=rbd \
		--rbdname="$IMG" --invalidate=0 --rw=randwrite --bs=4k --iodepth=8 --runtime=1 \
		--time_based "${@:2}" || { cat "$TMP/$1.err"; fail "$1: fio failed"; }
}

job report
cat "$TMP/report.err"
grep -q "dbfio-0badc0de-1: stale snapshot from an earlier run" "$TMP/report.err" || fail "stale snapshot not reported"
grep -q "dbfio-0badc0de-2: stale but protected" "$TMP/report.err" || fail "protected stale snapshot not reported"
grep -q "dbfio-keep-me\|foreign" "$TMP/report.err" && fail "a non-matching snapshot was called stale"
grep -q "dbfio-1badc0de-1: its run's holder is unknown" "$TMP/report.err" || fail "a run without a holder record was not named"
[ "$(snaps)" = "dbfio-0badc0de-1 dbfio-0badc0de-2 dbfio-1badc0de-1 dbfio-keep-me foreign " ] || fail "without snap_purge_stale something was removed: $(snaps)"
ok "reported, nothing removed without snap_purge_stale"

job purge --snap_purge_stale=1 --snap_json="$TMP/purge.snap.json"
cat "$TMP/purge.err"
grep -q "dbfio-0badc0de-1: stale snapshot removed" "$TMP/purge.err" || fail "purge did not say it removed the stale snapshot"
[ "$(snaps)" = "dbfio-0badc0de-2 dbfio-1badc0de-1 dbfio-keep-me foreign " ] || fail "after purge: $(snaps)"
[ "$(json "$TMP/purge.snap.json" "(d['stale_found'], d['stale_removed'])")" = "(2, 1)" ] || fail "sidecar stale counts wrong"
ok "purged the unprotected leftover of the gone run only; protected, unrecorded, look-alike and foreign kept"
